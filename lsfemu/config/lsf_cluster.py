"""lsf.cluster.<name>: the cluster administrators (ClusterAdmins) and the
hosts (the Host section: name, model, type, server, resources).
"""

from __future__ import annotations

import re

from lsfemu.config.lexer import Reporter, Section, inner, is_default, keyword_pairs, read_table, show, unquote
from lsfemu.config.model import ClusterHost
from lsfemu.config.values import read_sections, unsupported

_CLUSTER_SILENT_SECTIONS = {"CLUSTER", "PARAMETERS", "RESOURCEMAP", "REMOTECLUSTERS", "HOSTGROUP"}
_CLUSTER_HOST_SILENT = (
    "r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "swap", "mem",
    "nd", "RUNWINDOW", "REXPRI", "LICENSE", "maxmem", "maxswp", "maxtmp", "ncpus",
)


def parse_cluster(text: str, rep: Reporter) -> tuple[list[str], list[ClusterHost]]:
    admins: list[str] = []
    hosts: list[ClusterHost] = []
    seen: dict[str, int] = {}
    host_section: Section | None = None
    admin_section = False
    for sec in read_sections(text, rep):
        if sec.key == "CLUSTERADMINS":
            admin_section = True
            for key, value, line in keyword_pairs(sec.lines, rep, "ClusterAdmins"):
                if key == "ADMINISTRATORS":
                    for a in value.split():
                        if a not in admins:
                            admins.append(a)
                else:
                    rep.warn(line, f"unknown key {key} in ClusterAdmins (expected Administrators); ignored")
        elif sec.key == "HOST":
            host_section = host_section or sec
            tab = read_table(sec, rep, required=("HOSTNAME",), known=("HOSTNAME", "MODEL", "TYPE", "SERVER", "RESOURCES"),
                             silent=_CLUSTER_HOST_SILENT)
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
                hosts.append(h)
        elif sec.key in _CLUSTER_SILENT_SECTIONS:
            pass
        else:
            unsupported(sec, rep, "lsf.cluster")
    if not hosts and not rep.has_fatal:
        rep.fatal(host_section.begin if host_section else 0,
                  "no hosts defined (expected a Begin Host section listing at least one host)")
    if not admin_section or not admins:
        rep.warn(0, "no cluster administrators (expected Begin ClusterAdmins with Administrators = ...)")
    return admins, hosts
