"""Each host's load as the cluster's jobs make it (issue 19, part 1): the
slots its started jobs hold, what their rusage[] reserves on it, and the load
indices `sched.hostres.virtual_load` derives from them. lshosts, lsload and
bhosts -l read it through ops/.

A job's reservation on a host is the cluster's `requirements` component's
(engine/requirements.py: sched/placement.py's rules, the alternative the job
started with; phases, duration and decay as time passes on the cluster's
clock), the same the scheduling pass takes off the host. Suspended jobs keep their slots and reservations but run
nothing (they add nothing to r15s/r1m/r15m/ut).

In wall clock mode a host named as this machine (its host name, or that
name's first label) reports the machine's real load (hostres.real_load).
"""

from __future__ import annotations

from dataclasses import dataclass

from lsfemu.config import machine
from lsfemu.jobstate import RUN, STARTED
from lsfemu.sched import hostres


@dataclass(frozen=True)
class HostLoad:
    """One server host now: its static resources, the slots started jobs hold
    (`held`) and run (`running`), what they reserve and the load indices."""

    res: hostres.HostResources
    held: int
    running: int
    reserved: dict[str, float]
    load: dict[str, float]


def load_of(cl, res: hostres.HostResources, running: int, reserved: dict[str, float]) -> dict[str, float]:
    """A host's load indices: this machine's real load for a host named as it
    in wall clock mode, else the virtual load of what runs there."""
    if cl.clock.mode == "wall" and res.name in machine.local_names():
        return hostres.real_load(res, machine.current_load(), running, reserved)
    return hostres.virtual_load(res, running, reserved)


def host_loads(cl, names: list[str] | None = None) -> dict[str, HostLoad]:
    """Every server host (those in *names* only when given), in cluster order."""
    cfg = cl.config
    resources = hostres.from_config(cfg)
    wanted = resources if names is None else {n: resources[n] for n in resources if n in names}
    held = {n: 0 for n in wanted}
    running = {n: 0 for n in wanted}
    reserved: dict[str, dict[str, float]] = {n: {} for n in wanted}
    now = cl.now()
    for job in cl.jobs.values():
        if job.status not in STARTED:
            continue
        for h in job.exec_hosts.split():
            if h in held:
                held[h] += 1
                if job.status == RUN:
                    running[h] += 1
        for h, amounts in cl.requirements.reservation(job, now).items():
            if h in reserved:
                mine = reserved[h]
                for name, amount in amounts.items():
                    mine[name] = mine.get(name, 0.0) + amount
    return {n: HostLoad(r, held[n], running[n], reserved[n], load_of(cl, r, running[n], reserved[n]))
            for n, r in wanted.items()}


def load_sched(cfg, host: str) -> dict[str, float]:
    """A host's loadSched thresholds (lsb.hosts: its row, else the `default` row's)."""
    row = cfg.hosts.get(host) or cfg.hosts.get("default")
    return row.load_sched if row is not None else {}


def busy_hosts(cl) -> dict[str, frozenset[str]]:
    """The hosts whose load passes one of their lsb.hosts loadSched thresholds
    (bhosts' closed_Busy: no job is dispatched there), with the indices that
    do; nothing to compute when no host has a threshold (the usual case)."""
    cfg = cl.config
    limits = {h: load_sched(cfg, h) for h in cfg.host_names}
    limits = {h: t for h, t in limits.items() if t}
    if not limits:
        return {}
    out = {}
    for name, hl in host_loads(cl, list(limits)).items():
        over = hostres.busy(hl.load, limits[name])
        if over:
            out[name] = over
    return out


def first_busy(indices: frozenset[str] | None) -> str | None:
    """The index LSF names for a busy host: the first beyond its threshold, in lsload's order."""
    return next((n for n in hostres.LOAD_INDICES if n in indices), None) if indices else None
