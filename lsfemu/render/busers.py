"""busers output format (reference section 7.1): data in, text out.

Name left-justified in 18 (never cut), JL/P right in 5 (one decimal when
set), MAX right in 6, the counters right in 6; ``-w`` adds MPEND PJOBS MPJOBS
PRIO. Headers end with one space, rows do not. Groups carry their trailing
``/`` in ``UserView.name`` already.
"""

from __future__ import annotations

from typing import Iterable

from lsfemu.views import UserView

HEADER = "USER/GROUP          JL/P    MAX  NJOBS   PEND    RUN  SSUSP  USUSP    RSV "
HEADER_WIDE = "USER/GROUP          JL/P    MAX  NJOBS   PEND    RUN  SSUSP  USUSP    RSV  MPEND  PJOBS MPJOBS   PRIO "


def _opt(value: int | None) -> str:
    return "-" if value is None else str(value)


def table(users: Iterable[UserView], *, wide: bool = False) -> str:
    users = list(users)
    if not users:
        return ""
    out = [HEADER_WIDE if wide else HEADER]
    for u in users:
        jlp = "-" if u.jl_p is None else f"{u.jl_p:.1f}"
        row = (
            f"{u.name:<18} {jlp:>5} {_opt(u.max_jobs):>6} {u.njobs:>6} {u.pend:>6} {u.run:>6} "
            f"{u.ssusp:>6} {u.ususp:>6} {u.rsv:>6}"
        )
        if wide:
            row += f" {_opt(u.mpend):>6} {u.pjobs:>6} {_opt(u.mpjobs):>6} {u.prio:>6}"
        out.append(row)
    return "\n".join(out) + "\n"
