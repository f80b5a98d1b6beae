"""blimits' formats (lsf-breadth 8.3; IBM's blimits(1) and "View information
about resource allocation limits"). No capture of the table was found: the
title lines are LSF's (`INTERNAL RESOURCE LIMITS:`, `EXTERNAL RESOURCE
LIMITS:`, an empty line after each), the column set and order the
reference's (NAME USERS QUEUES HOSTS PROJECTS [APPS] SLOTS MEM TMP SWP JOBS);
the widths are lsfemu's, written down in docs/semantics.md: every column left
in a fixed width (WIDTHS), a value too long cut to one less than its width
with a trailing `*` (whole with -w, where each column is as wide as its
longest value plus one); `-c` prints each limit as a horizontal Limit
section, its keys as configured."""

from __future__ import annotations

#: column -> width (the last column is not padded)
WIDTHS = {"NAME": 16, "USERS": 14, "QUEUES": 14, "HOSTS": 14, "PROJECTS": 14, "APPS": 14,
          "SLOTS": 10, "MEM": 12, "TMP": 12, "SWP": 12, "JOBS": 10}
INDENT = "    "
CONSUMERS = (("USERS", "users"), ("QUEUES", "queues"), ("HOSTS", "hosts"), ("PROJECTS", "projects"),
             ("APPS", "apps"))
INTERNAL = (("SLOTS", "slots"), ("MEM", "mem"), ("TMP", "tmp"), ("SWP", "swp"), ("JOBS", "jobs"))


def number(v: float) -> str:
    """A count or an amount in whole MB (IBM: 10% of a 249 MB host shows as 25)."""
    return str(int(round(v)))


def usage(pair) -> str:
    """USED/LIMIT; `-` for a resource the limit does not cap or that nothing uses."""
    if pair is None or not pair[0]:
        return "-"
    return f"{number(pair[0])}/{number(pair[1])}"


def _table(title: str, columns: list[str], rows: list[list[str]], wide: bool) -> str:
    widths = [WIDTHS.get(c, 12) for c in columns]
    if wide:
        widths = [max(len(c), *(len(r[i]) for r in rows)) + 1 for i, c in enumerate(columns)]
    lines = [title, ""]
    for cells in [columns] + rows:
        out = []
        for i, (cell, w) in enumerate(zip(cells, widths)):
            if not wide and len(cell) >= w:
                cell = cell[: w - 2] + "*"
            out.append(cell if i == len(cells) - 1 else f"{cell:<{w}}")
        lines.append((INDENT + "".join(out)).rstrip())
    return "\n".join(lines) + "\n"


def tables(rows, wide: bool = False) -> str:
    """The INTERNAL table (rows with a built-in resource) and the EXTERNAL one
    (rows with a RESOURCE limit), each with the consumer columns."""
    apps = any(r.consumers["apps"] != "-" for r in rows)
    consumers = [(t, k) for t, k in CONSUMERS if k != "apps" or apps]
    out = []
    internal = [r for r in rows if any(v is not None for v in r.internal.values())]
    if internal:
        cols = ["NAME"] + [t for t, _ in consumers] + [t for t, _ in INTERNAL]
        out.append(_table("INTERNAL RESOURCE LIMITS:", cols, [
            [r.name] + [r.consumers[k] for _, k in consumers] + [usage(r.internal[k]) for _, k in INTERNAL]
            for r in internal], wide))
    external = [r for r in rows if r.external]
    if external:
        names = sorted({n for r in external for n in r.external})
        cols = ["NAME"] + [t for t, _ in consumers] + names
        out.append(_table("EXTERNAL RESOURCE LIMITS:", cols, [
            [r.name] + [r.consumers[k] for _, k in consumers] + [usage(r.external.get(n)) for n in names]
            for r in external], wide))
    return "\n".join(out)


def configuration(limits) -> str:
    """blimits -c: each limit as a horizontal Limit section, keys as configured."""
    blocks = []
    for lc in limits:
        lines = ["Begin Limit"]
        if not any(k == "NAME" for k, _ in lc.items):
            lines.append(f"NAME = {lc.name}")
        lines += [f"{k} = {v}" for k, v in lc.items]
        lines.append("End Limit")
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)
