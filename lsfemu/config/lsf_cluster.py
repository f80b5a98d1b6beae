"""lsf.cluster.<name>: the cluster administrators (ClusterAdmins) and the
hosts (the Host section: name, model, type, server, RESOURCES, and lsfemu's
own columns ncpus, maxmem, maxswp, maxtmp, which LSF's LIM detects from the
hardware) and the load index columns (r15s ... mem: LIM's busy thresholds). RESOURCES names are checked against lsf.shared: `name` for a
Boolean resource, `name=value` for a static Numeric or String one.
LSF's Host columns lsfemu does not act on (nd, RUNWINDOW, REXPRI, LICENSE),
the Parameters section's keys and the other sections (RemoteClusters, ...)
are warned about, naming file and line, and not used. The ResourceMap section
(shared resources) is read once every host is known: config.resourcemap.
"""

from __future__ import annotations

import re

from lsfemu.config.lexer import Reporter, Section, inner, is_default, keyword_pairs, read_table, show, unquote
from lsfemu.config.lsf_shared import builtin_shared
from lsfemu.config.model import ClusterHost, MappedResource, SharedConf
from lsfemu.config.resourcemap import apply_to_hosts, parse_resource_map
from lsfemu.config.values import INT_MAX, bad_keyword, not_built, read_sections, to_float, to_int, to_mb, unsupported

#: LSF's Host columns lsfemu does not act on (warned about, lexer.read_table's `unused`)
_CLUSTER_HOST_UNUSED = ("ND", "RUNWINDOW", "REXPRI", "LICENSE")
#: the load index columns: LIM's busy thresholds (`swap` is swp's alias)
_THRESHOLDS = ("r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "swap", "mem")


def _host_resources(h: ClusterHost, shared: SharedConf, rep: Reporter) -> None:
    """RESOURCES' words as the host's booleans and static values. A name lsf.shared
    does not define is LSF's warning (lim.conf.c: "Invalid resource name ... ignored").
    Without an lsf.shared file every word is taken as written: `name` a Boolean,
    `name=value` a Numeric value when it reads as a number, else a String."""
    for word in h.resources:
        name, eq, value = word.lstrip("!").partition("=")
        if not shared.present and name and not (eq and not value):
            if not eq:
                h.booleans.append(name)
            else:
                try:
                    h.values[name] = float(value)
                except ValueError:
                    h.values[name] = value
            continue
        res = shared.resources.get(name)
        if res is None or res.builtin:
            rep.warn(h.line, f"invalid resource name {name} for host {h.name} in section Host "
                             "(not defined in lsf.shared's Resource section); ignored")
        elif res.type == "Boolean":
            if eq:
                rep.warn(h.line, f"resource {name} of host {h.name} is Boolean and takes no value; {word} ignored")
            else:
                h.booleans.append(name)
        elif not eq or not value:
            rep.warn(h.line, f"resource {name} of host {h.name} is {res.type} and needs a value ({name}=value): "
                             "lsfemu has no ELIM to report dynamic values; ignored")
        elif res.type == "Numeric":
            try:
                h.values[name] = float(value)
            except ValueError:
                rep.warn(h.line, f"resource {name} of host {h.name} is Numeric, got {show(value)}; ignored")
        else:
            h.values[name] = value


def _host_kind(h: ClusterHost, shared: SharedConf, rep: Reporter) -> None:
    """With an lsf.shared, model and type name one of its HostModel / HostType rows
    (LSF's LIM drops the host otherwise: "Unknown host model ... Ignoring host")."""
    if not shared.present:
        return
    if h.model != "!" and h.model not in shared.host_models:
        rep.fatal(h.line, f"unknown host model {h.model} for host {h.name} (not in lsf.shared's HostModel section)")
    if h.type != "!" and h.type not in shared.host_types:
        rep.fatal(h.line, f"unknown host type {h.type} for host {h.name} (not in lsf.shared's HostType section)")


def _hardware(h: ClusterHost, row: dict[str, str], rep: Reporter) -> None:
    """lsfemu's columns ncpus, maxmem, maxswp, maxtmp (`-`: the local machine's)."""
    if "NCPUS" in row and not is_default(row["NCPUS"]):
        h.ncpus = to_int("ncpus", inner(row["NCPUS"]), rep, h.line, 1, INT_MAX)
    for col in ("maxmem", "maxswp", "maxtmp"):
        if col.upper() in row and not is_default(row[col.upper()]):
            setattr(h, col, to_mb(col, inner(row[col.upper()]), rep, h.line))
    for col in _THRESHOLDS:
        if col.upper() in row and not is_default(row[col.upper()]):
            v = to_float(col, inner(row[col.upper()]), rep, h.line)
            if v is not None:
                h.thresholds["swp" if col == "swap" else col] = v


def parse_cluster(text: str, rep: Reporter, shared: SharedConf | None = None
                  ) -> tuple[list[str], list[ClusterHost], dict[str, MappedResource]]:
    """(ClusterAdmins, the Host section's hosts, the ResourceMap's resources)."""
    if shared is None:
        shared = builtin_shared()
    admins: list[str] = []
    hosts: list[ClusterHost] = []
    seen: dict[str, int] = {}
    host_section: Section | None = None
    admin_section = False
    maps: list[Section] = []
    for sec in read_sections(text, rep):
        if sec.key == "CLUSTERADMINS":
            admin_section = True
            for key, value, line in keyword_pairs(sec.lines, rep, "ClusterAdmins"):
                if key == "ADMINISTRATORS":
                    for a in value.split():
                        if a not in admins:
                            admins.append(a)
                else:
                    bad_keyword(key, "ClusterAdmins", line, rep)
        elif sec.key == "HOST":
            host_section = host_section or sec
            tab = read_table(sec, rep, required=("HOSTNAME",), known=("HOSTNAME", "MODEL", "TYPE", "SERVER", "RESOURCES",
                                                                       "NCPUS", "MAXMEM", "MAXSWP", "MAXTMP",
                                                                       *(c.upper() for c in _THRESHOLDS)),
                             unused=_CLUSTER_HOST_UNUSED)
            if tab is None:
                continue
            for line, row in tab.rows:
                name = unquote(row["HOSTNAME"])
                if is_default(name) or not re.match(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$", name):
                    rep.fatal(line, f"HOSTNAME: expected a host name, got {show(row['HOSTNAME'])}")
                    continue
                if name in seen:
                    rep.fatal(line, f"host {name} is listed twice (first at line {seen[name]})")
                    continue
                seen[name] = line
                h = ClusterHost(name=name, line=line)
                for col, attr in (("MODEL", "model"), ("TYPE", "type")):
                    if col in row and not is_default(row[col]):
                        setattr(h, attr, inner(row[col]))
                if "SERVER" in row and not is_default(row["SERVER"]):
                    v = inner(row["SERVER"])
                    if v not in ("0", "1"):
                        rep.fatal(line, f"server: expected 1 or 0, got {show(v)}")
                    h.server = v == "1"
                if "RESOURCES" in row and not is_default(row["RESOURCES"]):
                    h.resources = inner(row["RESOURCES"]).split()
                _host_resources(h, shared, rep)
                _host_kind(h, shared, rep)
                _hardware(h, row, rep)
                hosts.append(h)
        elif sec.key == "RESOURCEMAP":
            maps.append(sec)  # read once every host is known
        elif sec.key == "PARAMETERS":
            # LIM's parameters (PRODUCTS, EXINTERVAL, ...): lsfemu has no LIM to tune
            for key, _value, line in keyword_pairs(sec.lines, rep, "Parameters"):
                not_built(key, line, rep)
        else:
            unsupported(sec, rep, "lsf.cluster")
    if not hosts and not rep.has_fatal:
        rep.fatal(host_section.begin if host_section else 0,
                  "no hosts defined (expected a Begin Host section listing at least one host)")
    if not admin_section or not admins:
        rep.warn(0, "no cluster administrators (expected Begin ClusterAdmins with Administrators = ...)")
    mapped: dict[str, MappedResource] = {}
    for sec in maps:
        for name, res in parse_resource_map(sec, hosts, shared, rep).items():
            if name in mapped:
                rep.warn(res.line, f"resource {name} is mapped twice (first at line {mapped[name].line}); ignoring line")
            else:
                mapped[name] = res
    apply_to_hosts(mapped, hosts)
    return admins, hosts, mapped
