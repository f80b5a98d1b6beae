"""A host's resources as placement sees them, pure (issue 19).

`HostResources` is a server host's static description: what lsf.cluster's
Host section, lsf.shared and lsfemu's defaults give it (type, model, CPU
factor, ncpus, maxmem/maxswp/maxtmp in MB, boolean resources, static numeric
and string values). `LOAD_INDICES` are LSF's built-in load indices, in
lsload's order. What a resource requirement's select[] and order[] read of a
host is one flat mapping (`namespace`): the static values, each boolean
resource the host has as 1, and the load indices after reservations.
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


def namespace(host: HostResources, load: Mapping[str, float]) -> dict[str, object]:
    """What select[] and order[] read of *host* with load indices *load*
    (reservations already taken off): the static values, `hname`, each boolean
    resource it has as 1, its static numeric/string resources, the indices."""
    ns: dict[str, object] = {
        "hname": host.name, "type": host.type, "model": host.model, "cpuf": host.cpuf,
        "ncpus": host.ncpus, "maxmem": host.maxmem, "maxswp": host.maxswp, "maxtmp": host.maxtmp,
        "server": 1 if host.server else 0,
    }
    for b in host.booleans:
        ns[b] = 1
    ns.update(host.values)
    ns.update(load)
    return ns


def from_config(cfg: ClusterConfig) -> dict[str, HostResources]:
    """Every server host of lsf.cluster, in cluster order: type and model as
    written (`!` = DEFAULT_TYPE / DEFAULT_MODEL), the CPU factor of its model in
    lsf.shared's HostModel table (else DEFAULT_CPUF), ncpus and max* from
    lsfemu's columns (else the local machine's), RESOURCES' booleans and values."""
    out: dict[str, HostResources] = {}
    models = cfg.shared.host_models
    for h in cfg.cluster_hosts:
        if not h.server:
            continue
        model = DEFAULT_MODEL if h.model == "!" else h.model
        hw = cfg.host_hardware(h.name)
        out[h.name] = HostResources(
            name=h.name, type=DEFAULT_TYPE if h.type == "!" else h.type, model=model,
            cpuf=models[model][0] if model in models else DEFAULT_CPUF,
            ncpus=int(hw["ncpus"]), maxmem=hw["maxmem"], maxswp=hw["maxswp"], maxtmp=hw["maxtmp"],
            server=True, booleans=frozenset(h.booleans), values=dict(h.values))
    return out
