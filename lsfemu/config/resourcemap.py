"""lsf.cluster's ResourceMap section: which hosts share a resource, and how
much of it (issue 21).

    Begin ResourceMap
    RESOURCENAME  LOCATION
    tot_lic       (5@[all])
    verilog       (5@[all ~hostA])
    synopsys      (2@[hostA hostB] 2@[others])
    scratch       (100@[default])
    End ResourceMap

Each `value@[hosts]` is an *instance*: the hosts in its brackets share that
quantity. `all` is every server host of the cluster (`~host` takes one out),
`others` the server hosts no other instance of the resource names, `default`
each server host on its own (one instance per host). The rules and LIM's
messages are OpenLava's (lim.conf.c doresourcemap, addResourceMap,
parseHostList): a name lsf.shared does not define, a built-in resource, a
missing LOCATION, unbalanced brackets and a non-numeric value of a Numeric
resource drop the row; a host that is no server host of the cluster is
dropped from its instance. A static resource needs a value; lsfemu has no
ELIM, so a dynamic one (INTERVAL in lsf.shared) has no value to show and is
warned about and left out, as the Host section's dynamic RESOURCES are.
Boolean resources are given to hosts by the Host section's RESOURCES column;
here they are warned about. A host whose RESOURCES column defines the
resource keeps that definition (IBM: "the definition in the RESOURCES column
takes effect") and leaves the ResourceMap's instances.

`apply_to_hosts` gives each host the value of the instance it belongs to, so
that select[] reads it; `shared_names` are the resources some instance holds
for several hosts (placement reserves per host, so rusage[] of those is
refused by bsub and bmod: docs/semantics.md).
"""

from __future__ import annotations

import re

from lsfemu.config.lexer import Reporter, Section, inner, is_default, read_table, show, unquote
from lsfemu.config.model import ClusterHost, MappedResource, SharedConf, SharedInstance


def _instances(text: str) -> list[tuple[str, list[str]]] | None:
    """`value@[h ...] [h ...]` as (value, host words) pairs; None when the
    brackets do not pair up or an instance has no bracket."""
    if text.count("[") != text.count("]"):
        return None
    out = []
    for m in re.finditer(r"\s*(?:([^\s@\[\]]+)\s*@)?\s*\[([^\]]*)\]\s*|\s*(\S)", text):
        if m.group(3) is not None:
            return None
        out.append((m.group(1) or "", m.group(2).split()))
    return out


def _hosts(words: list[str], servers: list[str], taken: set[str], name: str, line: int,
           rep: Reporter) -> list[list[str]]:
    """The host groups one instance's words make: one list, or one per host for `default`."""
    if "default" in words:
        if len(words) > 1:
            rep.warn(line, f"other host is specified with reserved word <default> in the instance for resource "
                           f"<{name}>; ignoring other hosts")
        return [[h] for h in servers]
    chosen: list[str] = []
    for i, w in enumerate(words):
        if w == "all":
            excluded = {x[1:] for x in words[i + 1:] if x.startswith("~")}
            chosen += [h for h in servers if h not in excluded]
        elif w == "others":
            chosen += [h for h in servers if h not in taken]
        elif w.startswith("~"):
            if "all" not in words[:i]:
                rep.warn(line, f"invalid hostname <{w}> (~ follows all); ignoring the host")
        elif w in servers:
            chosen.append(w)
        else:
            rep.warn(line, f"host {w} is not a server host of the cluster; ignoring the host")
    return [list(dict.fromkeys(chosen))] if chosen else []


def parse_resource_map(sec: Section, hosts: list[ClusterHost], shared: SharedConf,
                       rep: Reporter) -> dict[str, MappedResource]:
    """The rows of one ResourceMap section, checked against lsf.shared and the hosts."""
    out: dict[str, MappedResource] = {}
    tab = read_table(sec, rep, required=("RESOURCENAME", "LOCATION"), known=("RESOURCENAME", "LOCATION"))
    servers = [h.name for h in hosts if h.server]
    for line, row in tab.rows if tab else ():
        name = unquote(row["RESOURCENAME"])
        res = shared.resources.get(name)
        if res is None:
            rep.warn(line, f"resource name <{name}> is not defined; ignoring line")
            continue
        if res.builtin:
            rep.warn(line, f"built-in resource {name} can't be redefined as shared resource here; ignoring line")
            continue
        if name in out:
            rep.warn(line, f"resource {name} is mapped twice (first at line {out[name].line}); ignoring line")
            continue
        if is_default(row["LOCATION"]):
            rep.warn(line, f"no LOCATION specified for resource <{name}>; ignoring the line")
            continue
        if res.type == "Boolean":
            rep.warn(line, f"resource {name} is Boolean: lsfemu gives Boolean resources to hosts through the Host "
                           "section's RESOURCES column; ignoring line")
            continue
        if res.interval > 0:
            rep.warn(line, f"resource {name} is dynamic: lsfemu has no ELIM to report its value; ignoring line")
            continue
        parts = _instances(inner(row["LOCATION"]))
        if parts is None:
            rep.warn(line, f"bad format for the LOCATION {show(row['LOCATION'])} of resource <{name}>; ignoring line")
            continue
        mapped = MappedResource(name=name, type=res.type, line=line)
        taken: set[str] = set()
        for value, words in parts:
            if not value:
                rep.warn(line, f"value must be defined for static resource; ignoring resource <{name}>, "
                               f"instance <[{' '.join(words)}]>")
                continue
            number: float | None = None
            if res.type == "Numeric":
                try:
                    number = float(value)
                except ValueError:
                    rep.warn(line, f"invalid characters ({value}) used as NUMERIC resource value; ignoring line")
                    mapped.instances.clear()
                    break
            for group in _hosts(words, servers, taken, name, line, rep):
                group = [h for h in group if h not in taken]
                if group:
                    taken.update(group)
                    mapped.instances.append(SharedInstance(value=value, number=number, hosts=tuple(group)))
        if mapped.instances:
            out[name] = mapped
    return out


def apply_to_hosts(mapped: dict[str, MappedResource], hosts: list[ClusterHost]) -> None:
    """Each host's value of each mapped resource (select[] reads it), unless the
    host's RESOURCES column defines the resource: that definition wins, and the
    host leaves the instance."""
    by_name = {h.name: h for h in hosts}
    for res in mapped.values():
        kept = []
        for inst in res.instances:
            members = tuple(h for h in inst.hosts if res.name not in by_name[h].values)
            if not members:
                continue
            kept.append(SharedInstance(inst.value, inst.number, members))
            for h in members:
                by_name[h].values[res.name] = inst.number if inst.number is not None else inst.value
        res.instances[:] = kept


def shared_names(mapped: dict[str, MappedResource]) -> frozenset[str]:
    """The resources one instance holds for several hosts (a pool placement does not reserve from yet)."""
    return frozenset(r.name for r in mapped.values() if any(len(i.hosts) > 1 for i in r.instances))


_RUSAGE = re.compile(r"rusage\s*\[([^\]]*)\]")
_ITEM = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=")


def rusage_refusals(cfg) -> list[tuple[str, int, str]]:
    """(file, line, message) for each queue's or application profile's RES_REQ
    whose rusage[] reserves a shared resource (a textual scan: config does not
    import the requirement parser; rusage's keywords are never resource names
    here, as lsf.shared cannot define them)."""
    shared = shared_names(cfg.resource_map)
    if not shared:
        return []
    out = []
    owners = [("queue", q.name, q.res_req, q.file or cfg.files.get("lsb.queues", "lsb.queues"),
               q.lines.get("RES_REQ", q.line)) for q in cfg.queues]
    owners += [("application", a.name, a.res_req, a.file or cfg.files.get("lsb.applications", "lsb.applications"),
                a.lines.get("RES_REQ", a.line)) for a in cfg.applications.values()]
    for kind, name, text, path, line in owners:
        for body in _RUSAGE.findall(text or ""):
            bad = [n for n in _ITEM.findall(body) if n in shared]
            if bad:
                out.append((path, line, f"RES_REQ of {kind} {name}: rusage[] of shared resource {bad[0]} is not "
                                        "supported by lsfemu yet (placement reserves per host, not from the "
                                        "ResourceMap's shared pool)"))
                break
    return out
