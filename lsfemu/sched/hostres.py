"""A host's resources as placement sees them, pure (issue 19).

`HostResources` is a server host's static description: what lsf.cluster's
Host section, lsf.shared and lsfemu's defaults give it (type, model, CPU
factor, ncpus, maxmem/maxswp/maxtmp in MB, boolean resources, static numeric
and string values). `LOAD_INDICES` are LSF's built-in load indices, in
lsload's order. What a resource requirement's select[] and order[] read of a
host is one flat mapping (`namespace`): the static values, each boolean
resource the host has as 1, and the load indices after reservations.

`from_config` / `host_resources` read the configuration into them; the load
indices come from `virtual_load` (lsfemu's model of what runs on a host) or
`real_load` (this machine's, in wall clock mode); `busy` says which indices
pass LIM's thresholds; `normalized_rq` / `effective_rq` are LIM's scaled run
queue lengths (lsload -N / -E).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from lsfemu.config.model import ClusterConfig

#: what lsf.cluster's `!` (and no lsf.shared row) gives a host: LIM's answer on
#: an x86-64 Linux machine, and the CPU factor LSF's own examples show (bhosts -l)
DEFAULT_TYPE = "X86_64"
DEFAULT_MODEL = "Intel_EM64T"
DEFAULT_CPUF = 60.0

#: LSF's built-in load indices, in lsload -l's order
LOAD_INDICES = ("r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "mem")
#: the indices where less is busier (lsinfo's Dec order)
DECREASING_INDICES = frozenset({"it", "tmp", "swp", "mem"})


@dataclass(frozen=True)
class HostResources:
    """One server host's static resources (memory in MB)."""

    name: str
    type: str = "X86_64"
    model: str = "Intel_EM64T"
    cpuf: float = 60.0
    ncpus: int = 1
    maxmem: float = 0.0
    maxswp: float = 0.0
    maxtmp: float = 0.0
    server: bool = True
    booleans: frozenset[str] = frozenset()
    values: Mapping[str, float | str] = field(default_factory=dict)  # static numeric and string resources


def namespace(host: HostResources, load: Mapping[str, float], *, slots: int | None = None,
              maxslots: int | None = None) -> dict[str, object]:
    """What select[] and order[] read of *host* with load indices *load*
    (reservations already taken off): the static values, `hname`, each boolean
    resource it has as 1, its static numeric/string resources, the indices;
    `slots` (its unused job slots) and `maxslots` (MXJ) when given."""
    ns: dict[str, object] = {
        "hname": host.name, "type": host.type, "model": host.model, "cpuf": host.cpuf,
        "ncpus": host.ncpus, "maxmem": host.maxmem, "maxswp": host.maxswp, "maxtmp": host.maxtmp,
        "server": 1 if host.server else 0,
    }
    for b in host.booleans:
        ns[b] = 1
    ns.update(host.values)
    ns.update(load)
    if slots is not None:
        ns["slots"] = slots
    if maxslots is not None:
        ns["maxslots"] = maxslots
    return ns


def from_config(cfg: ClusterConfig) -> dict[str, HostResources]:
    """Every server host of lsf.cluster, in cluster order: type and model as
    written (`!` = DEFAULT_TYPE / DEFAULT_MODEL), the CPU factor of its model in
    lsf.shared's HostModel table (else DEFAULT_CPUF), ncpus and max* from
    lsfemu's columns (else the local machine's), RESOURCES' booleans and values."""
    return {h.name: host_resources(cfg, h) for h in cfg.cluster_hosts if h.server}


def host_resources(cfg: ClusterConfig, h) -> HostResources:
    """One lsf.cluster row (config.model.ClusterHost) as `from_config` reads it; a
    client host (server 0) has no CPUs nor memory (lshosts: `-`)."""
    models = cfg.shared.host_models
    model = DEFAULT_MODEL if h.model == "!" else h.model
    hw = cfg.host_hardware(h.name) if h.server else {"ncpus": 0, "maxmem": 0.0, "maxswp": 0.0, "maxtmp": 0.0}
    return HostResources(
        name=h.name, type=DEFAULT_TYPE if h.type == "!" else h.type, model=model,
        cpuf=models[model][0] if model in models else DEFAULT_CPUF,
        ncpus=int(hw["ncpus"]), maxmem=hw["maxmem"], maxswp=hw["maxswp"], maxtmp=hw["maxtmp"],
        server=h.server, booleans=frozenset(h.booleans), values=dict(h.values))


def virtual_load(host: HostResources, running_slots: int, reserved: Mapping[str, float]) -> dict[str, float]:
    """A host's load indices in lsfemu's model (docs/semantics.md, "Hosts,
    resources and load"): each running slot is one runnable process, so
    r15s/r1m/r15m are the running slots and ut is running slots / ncpus (at
    most 1.0); nothing pages, does disk I/O or logs in (pg, io, ls, it 0);
    mem/swp/tmp are maxmem/maxswp/maxtmp less what the host's jobs reserve
    (never below 0). *reserved* maps a resource to the amount reserved on the
    host (MB for mem/swp/tmp); a static Numeric resource of the host it names
    is given here as its value less the reservation."""
    run = float(max(running_slots, 0))
    load = {
        "r15s": run, "r1m": run, "r15m": run, "ut": min(1.0, run / max(host.ncpus, 1)),
        "pg": 0.0, "io": 0.0, "ls": 0.0, "it": 0.0,
        "tmp": max(0.0, host.maxtmp - reserved.get("tmp", 0.0)),
        "swp": max(0.0, host.maxswp - reserved.get("swp", 0.0)),
        "mem": max(0.0, host.maxmem - reserved.get("mem", 0.0)),
    }
    for name, amount in reserved.items():
        value = host.values.get(name)
        if name not in load and isinstance(value, (int, float)) and not isinstance(value, bool):
            load[name] = max(0.0, value - amount)
    return load


def real_load(host: HostResources, measured: Mapping[str, float], running_slots: int,
              reserved: Mapping[str, float]) -> dict[str, float]:
    """The load of a host that is this machine, in wall clock mode: *measured*
    (config.machine.current_load: r1m, r15m, mem, swp, tmp) instead of the
    model's run queue and free space. r15s is r1m (the OS keeps no 15-second
    average), ut is r1m / ncpus (at most 1.0), mem/swp/tmp what the machine
    has free less what its jobs reserve; the rest as `virtual_load`."""
    load = virtual_load(host, running_slots, reserved)
    r1m = measured.get("r1m", 0.0)
    load.update(r15s=r1m, r1m=r1m, r15m=measured.get("r15m", r1m), ut=min(1.0, r1m / max(host.ncpus, 1)))
    for index in ("mem", "swp", "tmp"):
        if index in measured:
            load[index] = max(0.0, measured[index] - reserved.get(index, 0.0))
    return load


def busy(load: Mapping[str, float], thresholds: Mapping[str, float]) -> frozenset[str]:
    """The indices beyond their threshold (LIM's busy indices): above it for
    r15s ... ls, below it for it, tmp, swp and mem."""
    out = set()
    for name, limit in thresholds.items():
        value = load.get(name)
        if value is not None and (value < limit if name in DECREASING_INDICES else value > limit):
            out.add(name)
    return frozenset(out)


def normalized_rq(raw: float, cpuf: float, ncpus: int) -> float:
    """LIM's normalized run queue length (OpenLava lim.load.c normalizeRq): the
    raw length spread over the host's CPUs, plus one, divided by its CPU factor
    (lsload -N)."""
    if raw < 0:
        return 0.0
    if ncpus < 1:
        return (raw + 1) / cpuf
    floor = int(raw / ncpus)
    k1 = (raw - ncpus * floor) / ncpus
    slope = 1.0 - 1.0 / ncpus
    k2 = min(k1, 0.9, slope)
    slope = min(slope, 0.9)
    f = slope * (1.0 - k1) / (1.0 - k2)
    return max(0.0, (f * floor + (1.0 - f) * raw / ncpus + 1) / cpuf)


def effective_rq(raw: float, cpuf: float, ncpus: int) -> float:
    """LIM's effective run queue length (lim.policy.c effectiveRq): the
    normalized length times the CPU factor, less one, never below 0 (lsload -E)."""
    return max(0.0, normalized_rq(raw, cpuf, ncpus) * cpuf - 1)
