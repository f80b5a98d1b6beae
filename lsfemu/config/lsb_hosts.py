"""lsb.hosts: the Host section's per-host limits (MXJ, the loadSched thresholds; JL/U,
each user's slots there: lsfemu.engine.limitpass; EXIT_RATE, the host exception
threshold bhosts -x reads), host groups (CONDENSE: one bhosts row), and
HostPartition sections (kept raw; host-partition fairshare is not used).
"""

from __future__ import annotations

import re

from lsfemu.config.lexer import Reporter, inner, is_default, keyword_pairs, read_table, show, unquote
from lsfemu.config.model import HostConf
from lsfemu.config.values import INT_MAX, INT_RE_NONNEG, read_sections, to_float, to_int, unsupported

#: the load index columns: `loadSched[/loadStop]` per host (`swap` is swp's alias)
_THRESHOLDS = ("r15s", "r1m", "r15m", "ut", "pg", "io", "ls", "it", "tmp", "swp", "swap", "mem")
_KNOWN = ("HOST_NAME", "MXJ", "JL/U", "EXIT_RATE") + tuple(t.upper() for t in _THRESHOLDS)
#: LSF's Host columns lsfemu does not act on: warned about at the first row giving
#: one a value (lexer.read_table's `unused`).
_HOST_UNUSED = ("DISPATCH_WINDOW", "AFFINITY", "CHKPNT", "MIG")


def _thresholds(h: HostConf, row: dict[str, str], rep: Reporter, line: int) -> None:
    """The load index columns: `sched` or `sched/stop` (`-` or `()`: none). A host
    whose load passes loadSched is closed_Busy; loadStop (suspending the jobs
    running there) is not built: warned about and ignored."""
    for col in _THRESHOLDS:
        raw = row.get(col.upper())
        if raw is None or is_default(raw):
            continue
        sched, slash, stop = inner(raw).partition("/")
        if slash and stop.strip() not in ("", "-"):
            rep.warn(line, f"{col}: the loadStop threshold {show(stop.strip())} is not supported by lsfemu "
                           "(jobs are not suspended on load); ignored")
        if sched.strip() in ("", "-"):
            continue
        v = to_float(col, sched, rep, line)
        if v is not None:
            h.load_sched["swp" if col == "swap" else col] = v


def parse_hosts(text: str, rep: Reporter
                ) -> tuple[dict[str, HostConf], dict[str, list[str]], dict[str, dict[str, str]], list[str]]:
    """(the Host rows by name, the host groups' members as written, the host
    partitions kept raw, the host groups with CONDENSE=Y: bhosts shows each as
    one row)."""
    hosts: dict[str, HostConf] = {}
    condensed: list[str] = []
    groups: dict[str, list[str]] = {}
    group_lines: dict[str, int] = {}
    partitions: dict[str, dict[str, str]] = {}
    for sec in read_sections(text, rep):
        if sec.key == "HOST":
            tab = read_table(sec, rep, required=("HOST_NAME",), known=_KNOWN,
                             unused=_HOST_UNUSED, unknown_hint=" (not a built-in load index)")
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
                if "EXIT_RATE" in row and not is_default(row["EXIT_RATE"]):
                    h.exit_rate = to_int("EXIT_RATE", inner(row["EXIT_RATE"]), rep, line, 0, INT_MAX)
                    # LSF runs eadmin on such a host (by default it closes it): not built; bhosts -x lists it
                    rep.warn(line, "EXIT_RATE: lsfemu lists the hosts past it (bhosts -x) but runs no eadmin "
                                   "(the host is not closed)")
                _thresholds(h, row, rep, line)
                hosts[name] = h
        elif sec.key == "HOSTGROUP":
            tab = read_table(sec, rep, required=("GROUP_NAME", "GROUP_MEMBER"), known=("GROUP_NAME", "GROUP_MEMBER", "CONDENSE"),
                             unused=("GROUP_ADMIN",))
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
                if "CONDENSE" in row and not is_default(row["CONDENSE"]):
                    flag = inner(row["CONDENSE"]).upper()
                    if flag not in ("Y", "N"):
                        rep.fatal(line, f"CONDENSE of host group {name}: expected Y or N, got {show(inner(row['CONDENSE']))}")
                    elif flag == "Y":
                        condensed.append(name)
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
    return hosts, groups, partitions, condensed
