"""Shared resources as bhosts -s and lshosts -s print them (issue 21): data in,
text out. The layouts are OpenLava's (lsbatch/cmd/bhosts.c prtResourcesShort
and prtOneInstance; lsf/intlib/resourcecmd.c displayShareResource, shared by
lshosts -s and lsload -s), which lsf-breadth.md 4.4 records for LSF:

    RESOURCE                 TOTAL       RESERVED       LOCATION
    tot_lic                      5            0.0       hostA hostB

bhosts: `%-20s%10s%15s` and seven blanks, then each host followed by a
blank; a host that would pass column 80 starts a new line indented 52.
Only Numeric resources are listed. TOTAL is mbatchd's value of the instance
(what is left for scheduling: the configured value less what started jobs
reserve), RESERVED what they reserve, `%.1f`.

lshosts: `%-25s%20s%15s` (RESOURCE VALUE LOCATION), each instance
`%-25s%20s` and seven blanks (two after a value longer than 20), the hosts
as bhosts wraps them; the header only when a row follows.
"""

from __future__ import annotations

from typing import Iterable

from lsfemu.views import SharedResourceView

_LINE = 80
_INDENT = 52


def _hosts(hosts: list[str], pos: int) -> str:
    """The instance's hosts from column *pos*, each followed by a blank, wrapped at 80 columns."""
    out = []
    for h in hosts:
        pos += len(h) + 1
        if pos > _LINE:
            out.append("\n" + " " * _INDENT)
            pos = _INDENT + len(h) + 1
        out.append(h + " ")
    return "".join(out)


def number(value: float) -> str:
    """An instance's value left for scheduling: whole numbers without decimals (as configured), else one."""
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def bhosts_shared(views: Iterable[SharedResourceView]) -> str:
    out = [f"{'RESOURCE':<20}{'TOTAL':>10}{'RESERVED':>15}{'LOCATION':>15}\n"]
    for v in views:
        if not v.numeric:
            continue
        for inst in v.instances:
            total = number((inst.number or 0.0) - inst.reserved)
            out.append(f"{v.name:<20}{total:>10}{inst.reserved:>15.1f}       " + _hosts(inst.hosts, _INDENT) + "\n")
    return "".join(out)


def lshosts_shared(views: Iterable[SharedResourceView]) -> str:
    rows = []
    for v in views:
        for inst in v.instances:
            if len(inst.value) <= 20:
                head, pos = f"{v.name:<25}{inst.value:>20}       ", 45 + 7
            else:
                head, pos = f"{v.name:<25}{inst.value:>20}  ", 25 + len(inst.value) + 2
            rows.append(head + _hosts(inst.hosts, pos) + "\n")
    if not rows:
        return ""
    return f"{'RESOURCE':<25}{'VALUE':>20}{'LOCATION':>15}\n" + "".join(rows)


def lshosts_long_rows(host: str, views: Iterable[SharedResourceView]) -> list[str]:
    """lshosts -l's two rows under a host's values (OpenLava lshosts.c print_long, makeShareField):
    each static resource's name, then the value of the host's instance (`-` where it has none), each
    right-justified in the name's length plus two and cut at the name's length plus one."""
    names, values = [], []
    for v in views:
        inst = next((i for i in v.instances if host in i.hosts), None)
        n = len(v.name)
        names.append(f"{v.name[:n + 1]:>{n + 2}}")
        value = "-" if inst is None else inst.value
        values.append(f"{value[:n + 1]:>{n + 2}}")
    return ["".join(names), "".join(values)] if names else []
