"""lsb.hosts: the Host section's per-host limits (MXJ, JL/U), host groups,
and HostPartition sections (kept raw; host-partition fairshare is not used).
"""

from __future__ import annotations

import re

from lsfemu.config.lexer import Reporter, inner, is_default, keyword_pairs, read_table, show, unquote
from lsfemu.config.model import HostConf
from lsfemu.config.values import INT_MAX, INT_RE_NONNEG, read_sections, to_int, unsupported

_HOST_SILENT = (
    "r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "swap", "mem",
    "DISPATCH_WINDOW", "EXIT_RATE", "AFFINITY", "CHKPNT", "MIG",
)


def parse_hosts(text: str, rep: Reporter) -> tuple[dict[str, HostConf], dict[str, list[str]], dict[str, dict[str, str]]]:
    hosts: dict[str, HostConf] = {}
    groups: dict[str, list[str]] = {}
    group_lines: dict[str, int] = {}
    partitions: dict[str, dict[str, str]] = {}
    for sec in read_sections(text, rep):
        if sec.key == "HOST":
            tab = read_table(sec, rep, required=("HOST_NAME",), known=("HOST_NAME", "MXJ", "JL/U"),
                             silent=_HOST_SILENT, unknown_hint=" (not a built-in load index)")
            for line, row in tab.rows if tab else ():
                name = unquote(row["HOST_NAME"])
                if is_default(name) or not re.match(r"^[^()\[\]\s,]+$", name):
                    rep.fatal(line, f"HOST_NAME: expected a host name or default, got {show(row['HOST_NAME'])}")
                    continue
                if name in hosts:
                    rep.fatal(line, f"host {name} is listed twice in the Host section (first at line {hosts[name].line})")
                    continue
                h = HostConf(name=name, line=line)
                if "MXJ" in row and not is_default(row["MXJ"]):
                    v = inner(row["MXJ"])
                    if v == "!":
                        h.mxj_is_ncpus = True
                    elif INT_RE_NONNEG.match(v) and int(v) <= INT_MAX:
                        h.mxj = int(v)
                    else:
                        rep.fatal(line, f"MXJ: expected a non-negative integer, ! or -, got {show(v)}")
                if "JL/U" in row and not is_default(row["JL/U"]):
                    h.jl_u = to_int("JL/U", inner(row["JL/U"]), rep, line, 0, INT_MAX)
                hosts[name] = h
        elif sec.key == "HOSTGROUP":
            tab = read_table(sec, rep, required=("GROUP_NAME", "GROUP_MEMBER"), known=("GROUP_NAME", "GROUP_MEMBER"),
                             unused=("CONDENSE", "GROUP_ADMIN"))
            for line, row in tab.rows if tab else ():
                name = unquote(row["GROUP_NAME"])
                if is_default(name):
                    rep.fatal(line, f"GROUP_NAME: expected a host group name, got {show(row['GROUP_NAME'])}")
                    continue
                if name in groups:
                    rep.fatal(line, f"host group {name} is defined twice (first at line {group_lines[name]})")
                    continue
                groups[name] = [] if is_default(row["GROUP_MEMBER"]) else inner(row["GROUP_MEMBER"]).split()
                group_lines[name] = line
        elif sec.key == "HOSTPARTITION":
            raw: dict[str, str] = {}
            for key, value, _line in keyword_pairs(sec.lines, rep, "HostPartition"):
                raw[key] = value
            pname = raw.get("HPART_NAME", "")
            if not pname:
                rep.fatal(sec.begin, "HPART_NAME is missing in this Begin HostPartition section (expected HPART_NAME = <name>)")
                continue
            rep.warn(sec.begin, f"host partition {pname}: host partition fairshare is not supported by lsfemu; "
                                "the section is kept but not used")
            partitions[pname] = raw
        else:
            unsupported(sec, rep, "lsb.hosts")
    return hosts, groups, partitions
