"""bqueues output formats (reference section 5): data in, text out.

Owns the default/``-w`` table (5.1) and the ``-l`` long form (5.2) up to and
including the ``SCHEDULING POLICIES:`` line. The APS_PRIORITY table,
USER_SHARES and SHARE_INFO_FOR blocks are produced elsewhere and handed in
through :func:`long`'s ``extra_sections`` hook (text keyed by queue name,
printed right after the policies line, before the empty line that precedes
``USERS:``).
"""

from __future__ import annotations

from typing import Iterable, Mapping

from lsfemu.render.bjobs import LOAD_TABLE, RUNLIMIT_TITLE
from lsfemu.views import QueueView

HEADER = "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP "
LONG_STATS_HEADER = "PRIO NICE STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN SSUSP USUSP  RSV"
#: separator between queues in bqueues -l
QUEUE_SEPARATOR = "-" * 79


def _lim(value: int | None) -> str:
    return "-" if value is None else str(value)


def _limits(q: QueueView) -> str:
    return f"{_lim(q.max_slots):>4} {_lim(q.jl_u):>4} {_lim(q.jl_p):>4} {_lim(q.jl_h):>4}"


def table(queues: Iterable[QueueView], *, wide: bool = False) -> str:
    """``bqueues`` / ``bqueues -w``: header with its trailing space, one row per
    queue in the order given (callers sort by priority, descending)."""
    queues = list(queues)
    if not queues:
        return ""
    out = [HEADER]
    for q in queues:
        name = q.name if wide else q.name[:15]
        out.append(
            f"{name:<15} {q.priority:>3}  {q.status:<15}{_limits(q)} "
            f"{q.njobs:>5} {q.pend:>5} {q.run:>5} {q.ssusp + q.ususp:>5}"
        )
    return "\n".join(out) + "\n"


def description_line(q: QueueView) -> str:
    text = q.description if q.description else "No description provided."
    if q.several_defaults:
        text += "  This is one of the default queues."
    elif q.is_default:
        text += "  This is the default queue."
    return f"  -- {text}"


def stats_row(q: QueueView) -> str:
    return (
        f"{q.priority:>3}  {q.nice:>3}  {q.status:<15}{_limits(q)} "
        f"{q.njobs:>5} {q.pend:>5} {q.run:>5} {q.ssusp:>5} {q.ususp:>5} {q.rsv:>4}"
    )


def _long_one(q: QueueView, extra: str) -> str:
    out = ["", f"QUEUE: {q.name}", description_line(q), "", "PARAMETERS/STATISTICS", LONG_STATS_HEADER, stats_row(q)]
    if q.job_accept_interval_s is not None:
        out.append(f"Interval for a host to accept two jobs is {q.job_accept_interval_s} seconds")
    if q.run_limit_default is not None:
        # OpenLava's prtQueuesLong: the default limits, then the maximum ones, each block under its title.
        out += ["", "DEFAULT LIMITS:", RUNLIMIT_TITLE, f" {q.run_limit_default:.1f} min",
                "", "MAXIMUM LIMITS:", RUNLIMIT_TITLE, f" {q.run_limit:.1f} min"]
    elif q.run_limit is not None:
        out += ["", RUNLIMIT_TITLE, f" {q.run_limit:.1f} min"]
    out += ["", "SCHEDULING PARAMETERS", LOAD_TABLE.rstrip("\n"), ""]
    tail_needs_blank = False
    if q.policies:
        out.append("SCHEDULING POLICIES:" + "".join(f"  {p}" for p in q.policies))
        tail_needs_blank = True
    if extra:
        out.append(extra.rstrip("\n"))
        tail_needs_blank = True
    if tail_needs_blank:
        out.append("")
    out.append("USERS: " + " ".join(q.users))
    out.append("HOSTS:  " + " ".join(q.hosts))
    if q.administrators:
        out.append("ADMINISTRATORS:  " + " ".join(q.administrators))
    if q.res_req:  # OpenLava's prtQueuesLong: the queue's RES_REQ as configured
        out.append("RES_REQ:  " + q.res_req.strip())
    if q.slot_hold_s:  # OpenLava's bqueues -l line for a reserving queue
        out.append(f"Maximum slot reservation time: {q.slot_hold_s} seconds")
    return "\n".join(out) + "\n"


def long(queues: Iterable[QueueView], *, extra_sections: Mapping[str, str] | None = None) -> str:
    """``bqueues -l``. *extra_sections* maps a queue name to text (e.g. the
    APS_PRIORITY table or ``USER_SHARES:``/``SHARE_INFO_FOR`` blocks) printed
    directly under the ``SCHEDULING POLICIES:`` line; it carries its own inner
    empty lines. Queues are separated by 79 dashes (each block then starts with
    its empty line)."""
    extra_sections = extra_sections or {}
    blocks = [_long_one(q, extra_sections.get(q.name, "")) for q in queues]
    if not blocks:
        return ""
    return (QUEUE_SEPARATOR + "\n").join(blocks)
