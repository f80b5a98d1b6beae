"""busers output format (reference section 7.1): data in, text out.

Name left-justified in 18 (never cut), JL/P right in 5 (one decimal when
set), MAX right in 6, the counters right in 6; ``-w`` adds MPEND PJOBS MPJOBS
PRIO. Headers end with one space, rows do not. Groups carry their trailing
``/`` in ``UserView.name`` already.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from lsfemu.render import outfmt
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


def allocated(u: UserView) -> UserView:
    """busers -alloc's counters: slots held (RUN, SSUSP, USUSP, RSV); PEND is 0."""
    return replace(u, pend=0, njobs=u.njobs - u.pend)


# --- busers -o / -json (LSB_BUSERS_FORMAT's field list, LSF 10.1) ---------------------

#: busers -o's fields (LSF 10.1's names; the widths are the table's columns,
#: docs/semantics.md). The header is the name upper-cased (`JL/P`, `PRIORITY`).
FIELDS: dict[str, outfmt.FieldDef] = {
    "user": outfmt.FieldDef(18),
    "jl/p": outfmt.FieldDef(5),
    "max": outfmt.FieldDef(6),
    "nstart": outfmt.FieldDef(6),
    "pend": outfmt.FieldDef(6),
    "run": outfmt.FieldDef(6),
    "ssusp": outfmt.FieldDef(6),
    "ususp": outfmt.FieldDef(6),
    "rsv": outfmt.FieldDef(6),
    "njobs": outfmt.FieldDef(6),
    "pjobs": outfmt.FieldDef(6),
    "mpend": outfmt.FieldDef(6),
    "mpjobs": outfmt.FieldDef(6),
    "priority": outfmt.FieldDef(8),
    "ngpus": outfmt.FieldDef(6),
    "ngpus_shared": outfmt.FieldDef(12),
    "ngpus_excl": outfmt.FieldDef(10),
    "ngpus_shared_jexcl": outfmt.FieldDef(18),
}


def parse_format(spec: str) -> outfmt.Format:
    """``busers -o`` / LSB_BUSERS_FORMAT (``all`` included, FP14)."""
    return outfmt.parse_format(spec, FIELDS, all_field=True)


def field_value(u: UserView, name: str) -> str | None:
    """One field of a user or group: what the table (and -w) shows; None for
    what lsfemu has not (GPUs; nstart: a job starts within one pass)."""
    counts = {"pend": u.pend, "run": u.run, "ssusp": u.ssusp, "ususp": u.ususp, "rsv": u.rsv, "njobs": u.njobs,
              "pjobs": u.pjobs, "priority": u.prio}
    if name in counts:
        return str(counts[name])
    if name == "user":
        return u.name
    if name == "jl/p":
        return "-" if u.jl_p is None else f"{u.jl_p:.1f}"
    limits = {"max": u.max_jobs, "mpend": u.mpend, "mpjobs": u.mpjobs}
    if name in limits:
        return _opt(limits[name])
    return None


def custom(users: Iterable[UserView], fmt: outfmt.Format) -> str:
    """``busers -o``: the header and one line per user or group."""
    return outfmt.text_table(fmt, [[field_value(u, f.name) for f in fmt.fields] for u in users])


def json_out(users: Iterable[UserView], fmt: outfmt.Format) -> str:
    """``busers -o ... -json``: LSF's document with the count key USERS."""
    return outfmt.json_rows("busers", "USERS", fmt, [[field_value(u, f.name) for f in fmt.fields] for u in users])
