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

from lsfemu.render import outfmt
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


def table(queues: Iterable[QueueView], *, wide: bool = False, header: bool = True) -> str:
    """``bqueues`` / ``bqueues -w``: header with its trailing space (none with
    ``-noheader``), one row per queue in the order given (callers sort by
    priority, descending)."""
    queues = list(queues)
    if not queues:
        return ""
    out = [HEADER] if header else []
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


def long_status(status: str) -> str:
    """bqueues -l's status: OpenLava's prtQueuesLong says why a queue is
    inactive (`Inact_Adm`: badmin qinact; `Inact_Win`: outside its run
    windows, which lsfemu does not have), where the table says `Inact`."""
    return status.replace(":Inact", ":Inact_Adm")


def stats_row(q: QueueView) -> str:
    return (
        f"{q.priority:>3}  {q.nice:>3}  {long_status(q.status):<15}{_limits(q)} "
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


# --- bqueues -o / -json (lsf-breadth.md 4.1) ------------------------------------------

#: bqueues -o's fields: canonical name -> recommended width and aliases. The
#: names and aliases are LSF 10.1's (lsf-breadth.md 4.1); the widths are
#: lsfemu's (the default table's columns where it has them; docs/semantics.md).
FIELDS: dict[str, outfmt.FieldDef] = {
    "queue_name": outfmt.FieldDef(15, ("qname",)),
    "description": outfmt.FieldDef(50, ("desc",)),
    "priority": outfmt.FieldDef(4, ("prio",)),
    "status": outfmt.FieldDef(15, ("stat",)),
    "max": outfmt.FieldDef(4),
    "jl_u": outfmt.FieldDef(4, ("jlu",)),
    "jl_p": outfmt.FieldDef(4, ("jlp",)),
    "jl_h": outfmt.FieldDef(4, ("jlh",)),
    "njobs": outfmt.FieldDef(5),
    "pend": outfmt.FieldDef(5),
    "run": outfmt.FieldDef(5),
    "susp": outfmt.FieldDef(5),
    "rsv": outfmt.FieldDef(4),
    "ususp": outfmt.FieldDef(5),
    "ssusp": outfmt.FieldDef(5),
    "nice": outfmt.FieldDef(4),
    "max_corelimit": outfmt.FieldDef(10, ("corelimit",)),
    "max_cpulimit": outfmt.FieldDef(10, ("cpulimit",)),
    "default_cpulimit": outfmt.FieldDef(10, ("def_cpulimit",)),
    "max_datalimit": outfmt.FieldDef(10, ("datalimit",)),
    "default_datalimit": outfmt.FieldDef(10, ("def_datalimit",)),
    "max_filelimit": outfmt.FieldDef(10, ("filelimit",)),
    "max_memlimit": outfmt.FieldDef(10, ("memlimit",)),
    "default_memlimit": outfmt.FieldDef(10, ("def_memlimit",)),
    "max_processlimit": outfmt.FieldDef(12, ("processlimit",)),
    "default_processlimit": outfmt.FieldDef(12, ("def_processlimit",)),
    "max_runlimit": outfmt.FieldDef(10, ("runlimit",)),
    "default_runlimit": outfmt.FieldDef(10, ("def_runlimit",)),
    "max_stacklimit": outfmt.FieldDef(10, ("stacklimit",)),
    "max_swaplimit": outfmt.FieldDef(10, ("swaplimit",)),
    "max_tasklimit": outfmt.FieldDef(10, ("tasklimit",)),
    "min_tasklimit": outfmt.FieldDef(10),
    "default_tasklimit": outfmt.FieldDef(10, ("def_tasklimit",)),
    "max_threadlimit": outfmt.FieldDef(10, ("threadlimit",)),
    "default_threadlimit": outfmt.FieldDef(10, ("def_threadlimit",)),
    "res_req": outfmt.FieldDef(20),
    "hosts": outfmt.FieldDef(30),
}


def parse_format(spec: str) -> outfmt.Format:
    """``bqueues -o`` / LSB_BQUEUES_FORMAT (``all`` included, FP14)."""
    return outfmt.parse_format(spec, FIELDS, all_field=True)


def _minutes(value: float | None) -> str | None:
    return None if value is None else f"{value:.1f} min"


def field_value(q: QueueView, name: str) -> str | None:
    """One field of a queue: the text the default table or bqueues -l shows
    for it (`-` for no limit); None for what lsfemu does not keep (limits it
    does not enforce)."""
    counts = {"njobs": q.njobs, "pend": q.pend, "run": q.run, "susp": q.ssusp + q.ususp, "rsv": q.rsv,
              "ususp": q.ususp, "ssusp": q.ssusp, "priority": q.priority, "nice": q.nice}
    if name in counts:
        return str(counts[name])
    limits = {"max": q.max_slots, "jl_u": q.jl_u, "jl_p": q.jl_p, "jl_h": q.jl_h}
    if name in limits:
        return _lim(limits[name])
    if name == "queue_name":
        return q.name
    if name == "description":
        return q.description
    if name == "status":
        return q.status
    if name == "max_runlimit":
        return _minutes(q.run_limit)
    if name == "default_runlimit":
        return _minutes(q.run_limit_default)
    if name == "res_req":
        return q.res_req.strip() if q.res_req else None
    if name == "hosts":
        return " ".join(q.hosts)
    return None


def custom(queues: Iterable[QueueView], fmt: outfmt.Format, *, header: bool = True) -> str:
    """``bqueues -o``: the header and one line per queue."""
    rows = [[field_value(q, f.name) for f in fmt.fields] for q in queues]
    return outfmt.text_table(fmt, rows, header=header)


def json_out(queues: Iterable[QueueView], fmt: outfmt.Format) -> str:
    """``bqueues -o ... -json``: LSF's document with the count key QUEUES."""
    return outfmt.json_rows("bqueues", "QUEUES", fmt, [[field_value(q, f.name) for f in fmt.fields] for q in queues])
