"""Each host's load as the cluster's jobs make it (issue 19, part 1): the
slots its started jobs hold, what their rusage[] reserves on it, and the load
indices `sched.hostres.virtual_load` derives from them. lshosts, lsload and
bhosts -l read it through ops/.

A job's reservation on a host follows sched/placement.py's rules (one Req
compiled per requirement text, without select/order): per slot, or once per
host with RESOURCE_RESERVE_PER_SLOT=N, `/job` once on the job's first host,
`/task` per slot; the first rusage alternative and, for `{...} || {...}`, the
first alternative requirement; phases, duration and decay as time passes on
the cluster's clock. Suspended jobs keep their slots and reservations but run
nothing (they add nothing to r15s/r1m/r15m/ut).

In wall clock mode a host named as this machine (its host name, or that
name's first label) reports the machine's real load (hostres.real_load).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from lsfemu.config import machine
from lsfemu.jobstate import RUN, STARTED
from lsfemu.sched import hostres, placement, resreq


@dataclass(frozen=True)
class HostLoad:
    """One server host now: its static resources, the slots started jobs hold
    (`held`) and run (`running`), what they reserve and the load indices."""

    res: hostres.HostResources
    held: int
    running: int
    reserved: dict[str, float]
    load: dict[str, float]


@functools.lru_cache(maxsize=256)
def _req(text: str, per_slot: bool, units: tuple[tuple[str, str], ...]) -> placement.Req | None:
    """The reservations of one requirement text (None: nothing it can reserve)."""
    try:
        parsed = resreq.parse(text, dict(units))
    except resreq.ResReqError:  # accepted by an older lsfemu; reserves nothing now
        return None
    return placement.compile_req(text, parsed, lambda _s: None, lambda _s: None, per_slot)


def job_reservation(cfg, job, now: float) -> dict[str, dict[str, float]]:
    """What *job* (started) reserves, host by host, at *now*."""
    if not job.res_req or "rusage" not in job.res_req:
        return {}
    units = tuple(sorted(resreq.units_from_conf(cfg.lsf_conf).items()))
    req = _req(job.res_req, resreq.per_slot_from_params(cfg.params.extra), units)
    if req is None:
        return {}
    alloc = job.exec_hosts.split()
    minutes = max(0.0, (now - job.start_time) / 60.0) if job.start_time is not None else 0.0
    return placement.reservation(req, 0, alloc, len(alloc), minutes)


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
        for h, amounts in job_reservation(cfg, job, now).items():
            if h in reserved:
                mine = reserved[h]
                for name, amount in amounts.items():
                    mine[name] = mine.get(name, 0.0) + amount
    local = machine.local_names() if cl.clock.mode == "wall" else frozenset()
    out = {}
    for n, r in wanted.items():
        if n in local:
            load = hostres.real_load(r, machine.current_load(), running[n], reserved[n])
        else:
            load = hostres.virtual_load(r, running[n], reserved[n])
        out[n] = HostLoad(r, held[n], running[n], reserved[n], load)
    return out
