"""bhosts and host groups (issue 21): the host groups bhosts names (each one
its member hosts) and the condensed ones (lsb.hosts HostGroup CONDENSE=Y),
which bhosts shows as one row named after the group; -X, -l and the
customised output (-o, -json) show the hosts (docs/semantics.md, "Shared
resources and the hosts' remaining options").

A condensed row (IBM's bhosts page names the row and the -w counts; the
arithmetic and the overall status are lsfemu's reading): the
overall status is `ok` when one member is ok, `unavail` when every member
is, `closed` otherwise (-w: the members' one closed_* word when they share
it); -w follows it with `num_ok/num_unavail/num_unreach/num_busy`; JL/U and
MAX are the members' summed (`-` when one has none: IBM's "View host
information" page shows a number in both for a condensed group); NJOBS, RUN,
SSUSP, USUSP and RSV are summed.
"""

from __future__ import annotations

from lsfemu.sched import hostpick
from lsfemu.views import HostView


def group_hosts(cfg, group: str) -> list[str]:
    """A host group's server hosts, in cluster order (subgroups, `all` and `~host` as -m reads them)."""
    return hostpick.candidates(group, cfg.host_names, cfg.host_groups)


def expand(cfg, names: list[str] | None, uncondensed: bool) -> tuple[list[str] | None, list[str], list[str]]:
    """(the hosts to list: None for every host, the condensed groups to show
    as rows, the names that are no host and no group). With no names every
    CONDENSE=Y group is condensed; a group named is its hosts, or its row
    when condensed; *uncondensed* (-X, -l, -o): no rows, only hosts."""
    if not names:
        return None, [] if uncondensed else [g for g in cfg.condensed_groups if group_hosts(cfg, g)], []
    hosts: list[str] = []
    groups: list[str] = []
    unknown: list[str] = []
    known = set(cfg.host_names)
    for n in names:
        if n in known:
            hosts.append(n)
        elif n in cfg.host_groups:
            members = group_hosts(cfg, n)
            hosts += members
            if n in cfg.condensed_groups and not uncondensed and members:
                groups.append(n)
        else:
            unknown.append(n)
    return list(dict.fromkeys(hosts)), groups, unknown


def _status(members: list[HostView], wide: bool) -> str:
    states = [m.status for m in members]
    if "ok" in states:
        overall = "ok"
    elif all(s == "unavail" for s in states):
        overall = "unavail"
    else:
        closed = {s for s in states if s.startswith("closed")}
        overall = closed.pop() if wide and len(closed) == 1 and "unavail" not in states else "closed"
    if not wide:
        return overall
    counts = (states.count("ok"), states.count("unavail"), states.count("unreach"), states.count("closed_Busy"))
    return f"{overall} " + "/".join(str(n) for n in counts)


def _total(values: list[int | None]) -> int | None:
    """The members' limits summed; None (unlimited) when one has none."""
    return None if any(v is None for v in values) else sum(values)


def condense(cfg, views: list[HostView], groups: list[str], named: list[str] | None,
             wide: bool) -> list[HostView]:
    """*views* (every host's full status) with each group of *groups* as one
    row where its first member was; its members leave the list unless they
    were named themselves (*named*)."""
    if not groups:
        return views
    by_name = {v.name: v for v in views}
    rows: dict[str, list[HostView]] = {}
    for g in groups:
        members = [by_name[h] for h in group_hosts(cfg, g) if h in by_name]
        if members:
            rows[g] = members
    hidden = {m.name for ms in rows.values() for m in ms} - set(named or ())
    out: list[HostView] = []
    for v in views:
        for g in [g for g in rows if rows[g][0].name == v.name]:
            ms = rows[g]
            out.append(HostView(
                name=g, status=_status(ms, wide), jl_u=_total([m.jl_u for m in ms]),
                max_slots=_total([m.max_slots for m in ms]),
                njobs=sum(m.njobs for m in ms), run=sum(m.run for m in ms), ssusp=sum(m.ssusp for m in ms),
                ususp=sum(m.ususp for m in ms), rsv=sum(m.rsv for m in ms)))
        if v.name not in hidden:
            out.append(v)
    return out
