"""Queue-based fairshare (SLOT_POOL / SLOT_SHARE in lsb.queues: how many
slots each queue of a pool may use) and the raw HostPartition sections whose
USER_SHARES make a host-partition share tree.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

def parse_slot_pools(queues: Iterable[Any]) -> dict[str, list[tuple[str, float]]]:
    """Pools from lsb.queues: pool name -> [(queue, SLOT_SHARE percent)], file order.

    Reads ``QueueConf.extra["SLOT_POOL"]`` / ``["SLOT_SHARE"]`` (``50`` or
    ``50%``); a queue with SLOT_POOL but no valid SLOT_SHARE is left out
    (LSF needs both)."""
    pools: dict[str, list[tuple[str, float]]] = {}
    for q in queues:
        extra = getattr(q, "extra", {}) or {}
        pool = (extra.get("SLOT_POOL") or "").strip()
        share = (extra.get("SLOT_SHARE") or "").strip().rstrip("%").strip()
        if not pool:
            continue
        try:
            value = float(share)
        except ValueError:
            continue
        if not (0 < value <= 100):
            continue
        pools.setdefault(pool, []).append((q.name, value))
    return pools


def slot_pool_allocation(queues: Sequence[tuple[str, float, int]], total_slots: int) -> dict[str, int]:
    """Slots each queue of a pool may use: ``[(name, share, demand_slots)]``.

    Queues with demand compete: each gets slots in proportion to its share
    among the competing queues; what a queue does not need (demand below its
    part) goes to the others, again by share (water filling), so one queue
    alone can use everything. Results are integers (largest remainders, ties
    in the given order), never above a queue's demand, adding up to at most
    *total_slots* (exactly min(total, total demand)). Shares need not add up
    to 100; a share <= 0 only receives slots nobody else wants.
    """
    total = max(0, int(total_slots))
    demand = {n: max(0, int(d)) for n, _s, d in queues}
    share = {n: max(0.0, float(s)) for n, s, _d in queues}
    alloc: dict[str, float] = {n: 0.0 for n, _s, _d in queues}
    remaining = float(min(total, sum(demand.values())))
    active = [n for n, _s, _d in queues if demand[n] > 0]
    # water filling on real numbers
    while remaining > 1e-9 and active:
        weights = {n: share[n] for n in active}
        wsum = sum(weights.values())
        if wsum <= 0:
            weights = {n: 1.0 for n in active}
            wsum = float(len(active))
        sated = [n for n in active if demand[n] - alloc[n] <= remaining * weights[n] / wsum + 1e-12]
        if sated:
            for n in sated:
                remaining -= demand[n] - alloc[n]
                alloc[n] = float(demand[n])
            active = [n for n in active if n not in sated]
            continue
        for n in active:
            alloc[n] += remaining * weights[n] / wsum
        remaining = 0.0
    # integers
    out = {n: min(demand[n], int(math.floor(alloc[n] + 1e-9))) for n in alloc}
    left = min(total, sum(demand.values())) - sum(out.values())
    order = sorted(alloc, key=lambda n: -(alloc[n] - math.floor(alloc[n] + 1e-9)))
    while left > 0:
        progressed = False
        for n in order:
            if left <= 0:
                break
            if out[n] < demand[n]:
                out[n] += 1
                left -= 1
                progressed = True
        if not progressed:
            break
    return out


def apply_slot_pools(pools: dict[str, list[tuple[str, float]]], queues: dict, hosts: dict, pending: list) -> None:
    """A pass's slot pools (*pools*: parse_slot_pools): while queues of a pool
    compete, each may use its share of the pool's slots; a queue alone may use
    them all. Applied as a queue slot limit of the pass's QueueInfos (*queues*),
    over its HostInfos (*hosts*), for its unblocked PendingJobs (*pending*)."""
    for members in pools.values():
        pool_hosts = {h for name, _ in members if name in queues for h in queues[name].hosts}
        if any(hosts[h].max_slots is None for h in pool_hosts if h in hosts):
            continue  # unlimited hosts: nothing to share
        total = sum(hosts[h].max_slots for h in pool_hosts if h in hosts)
        demand = {name: queues[name].used for name, _ in members if name in queues}
        for pj in pending:
            if pj.queue in demand:
                demand[pj.queue] += pj.slots
        alloc = slot_pool_allocation([(n, share, demand.get(n, 0)) for n, share in members if n in queues], total)
        for name, n in alloc.items():
            q = queues[name]
            q.qjob_limit = n if q.qjob_limit is None else min(q.qjob_limit, n)


def partition_user_shares(partition: dict[str, str]) -> str | None:
    """The USER_SHARES text of a raw HostPartition section (ClusterConfig.host_partitions[name])."""
    for k, v in partition.items():
        if k.upper() == "USER_SHARES":
            return v
    return None


def partition_hosts(partition: dict[str, str]) -> list[str]:
    """The HOSTS of a raw HostPartition section, verbatim names/groups."""
    for k, v in partition.items():
        if k.upper() == "HOSTS":
            return v.split()
    return []
