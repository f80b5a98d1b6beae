"""lsb.users: user groups (members, USER_SHARES as text; no membership
cycles) and the User section's per-user limits (MAX_JOBS and JL/P: the pass,
lsfemu.engine.limitpass; MAX_PEND_JOBS: bsub, lsfemu.engine.userlimits).
"""

from __future__ import annotations

import re

from lsfemu.config.lexer import Reporter, inner, is_default, read_table, show, unquote
from lsfemu.config.model import UserGroupConf, UserLimitConf
from lsfemu.config.values import INT_MAX, read_sections, to_float, to_int, unsupported


def parse_users(text: str, rep: Reporter) -> tuple[dict[str, UserGroupConf], dict[str, UserLimitConf]]:
    groups: dict[str, UserGroupConf] = {}
    limits: dict[str, UserLimitConf] = {}
    for sec in read_sections(text, rep):
        if sec.key == "USERGROUP":
            tab = read_table(sec, rep, required=("GROUP_NAME", "GROUP_MEMBER"),
                             known=("GROUP_NAME", "GROUP_MEMBER", "USER_SHARES"), unused=("GROUP_ADMIN", "PRIORITY"))
            for line, row in tab.rows if tab else ():
                name = unquote(row["GROUP_NAME"])
                if is_default(name) or not re.match(r"^[^()\[\]\s,]+$", name):
                    rep.fatal(line, f"GROUP_NAME: expected a group name, got {show(row['GROUP_NAME'])}")
                    continue
                if name in groups:
                    rep.fatal(line, f"user group {name} is defined twice (first at line {groups[name].line})")
                    continue
                members = [] if is_default(row["GROUP_MEMBER"]) else inner(row["GROUP_MEMBER"]).split()
                if "!" in members:
                    rep.warn(line, f"user group {name}: external group members (!) are not supported by lsfemu; ignored")
                    members = [m for m in members if m != "!"]
                shares = None
                if "USER_SHARES" in row and not is_default(row["USER_SHARES"]):
                    shares = inner(row["USER_SHARES"])
                groups[name] = UserGroupConf(name=name, members=members, user_shares=shares, file=rep.path, line=line)
        elif sec.key == "USER":
            tab = read_table(sec, rep, required=("USER_NAME",),
                             known=("USER_NAME", "MAX_JOBS", "JL/P", "MAX_PEND_JOBS"),
                             unused=("MAX_PEND_SLOTS", "PRIORITY"))
            for line, row in tab.rows if tab else ():
                name = unquote(row["USER_NAME"])
                if is_default(name) or not re.match(r"^[^()\[\]\s,]+$", name):
                    rep.fatal(line, f"USER_NAME: expected a user or group name, got {show(row['USER_NAME'])}")
                    continue
                if name in limits:
                    rep.fatal(line, f"user {name} is listed twice in the User section (first at line {limits[name].line})")
                    continue
                lim = UserLimitConf(name=name, line=line)
                for col, attr in (("MAX_JOBS", "max_jobs"), ("MAX_PEND_JOBS", "max_pend_jobs")):
                    if col in row and not is_default(row[col]):
                        setattr(lim, attr, to_int(col, inner(row[col]), rep, line, 0, INT_MAX))
                if "JL/P" in row and not is_default(row["JL/P"]):
                    lim.jl_p = to_float("JL/P", inner(row["JL/P"]), rep, line)
                limits[name] = lim
        else:
            unsupported(sec, rep, "lsb.users")
    _check_group_cycles(groups, rep)
    for name, lim in limits.items():
        if name.endswith("@") and name[:-1] not in groups:
            rep.warn(lim.line, f"{name}: {name[:-1]} is not a user group defined in lsb.users; the limit applies to nobody")
    return groups, limits


def _check_group_cycles(groups: dict[str, UserGroupConf], rep: Reporter) -> None:
    """Fatal for every cycle of group membership, reported once at its first group's line."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    reported: set[frozenset[str]] = set()

    def visit(g: str, path: list[str]) -> None:
        state[g] = 1
        path.append(g)
        for m in groups[g].members:
            if m not in groups:
                continue
            if state.get(m) == 1:
                cycle = path[path.index(m):] + [m]
                key = frozenset(cycle)
                if key not in reported:
                    reported.add(key)
                    first = min(cycle[:-1], key=lambda n: groups[n].line)
                    i = cycle.index(first)
                    ring = cycle[i:-1] + cycle[:i] + [first]
                    rep.fatal(groups[first].line, f"user group cycle: {' -> '.join(ring)} "
                                                  "(expected groups not to contain themselves)")
            elif state.get(m) is None:
                visit(m, path)
        path.pop()
        state[g] = 2

    for g in groups:
        if g not in state:
            visit(g, [])
