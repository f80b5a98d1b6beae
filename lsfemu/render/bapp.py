"""bapp's formats (lsf-breadth 8.2; no capture of either was found, so both
layouts are inferred and written down in docs/semantics.md): the default table
`APPLICATION_NAME NJOBS PEND RUN SUSP` (the name left in 20, cut without a
marker as bqueues cuts queue names, whole with -w; the task counts right in 7),
and -l, shaped like bqueues -l: the name and description, `STATISTICS:`
(NJOBS PEND RUN SSUSP USUSP RSV) and `PARAMETERS:` with the limits set."""

from __future__ import annotations

from lsfemu.render.bjobs.common import RUNLIMIT_TITLE, limit_text

HEADER = "APPLICATION_NAME      NJOBS   PEND    RUN   SUSP"
LONG_STATS_HEADER = "   NJOBS     PEND      RUN    SSUSP    USUSP      RSV"
SEPARATOR = "-" * 79


def table(rows, *, wide: bool = False) -> str:
    out = [HEADER]
    for r in rows:
        name = r.name if wide else r.name[:19]
        out.append(f"{name:<20}{r.njobs:>7}{r.pend:>7}{r.run:>7}{r.ssusp + r.ususp:>7}")
    return "\n".join(out) + "\n"


def _long_one(r, unit: str) -> str:
    out = ["", f"APPLICATION NAME: {r.name}", f" -- {r.description or 'No description provided.'}", "",
           "STATISTICS:", LONG_STATS_HEADER,
           f"{r.njobs:>8} {r.pend:>8} {r.run:>8} {r.ssusp:>8} {r.ususp:>8} {0:>8}", "", "PARAMETERS:"]
    if r.run_limit is not None:
        out += ["", RUNLIMIT_TITLE, f" {r.run_limit:.1f} min"]
    if r.mem_limit_kb is not None:  # as bjobs -l's MEMLIMIT row (LSF 10): the number right in 6, its unit
        number, letter = limit_text(r.mem_limit_kb, unit).split(" ")
        out += ["", " MEMLIMIT", f" {number:>6} {letter} "]
    return "\n".join(out) + "\n"


def long(rows, unit: str) -> str:
    """bapp -l: one block per profile, separated by 79 dashes as bqueues -l's queues."""
    return (SEPARATOR + "\n").join(_long_one(r, unit) for r in rows)
