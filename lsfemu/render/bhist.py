"""bhist output formats (reference section 4): job histories in, text out.

Owns:

* :func:`summary_table` - the default table (4.1) and ``-w``;
* :func:`long`          - ``bhist -l`` (4.2), with ``LSB_DISPLAY_YEAR`` and
  ``-w`` (records not wrapped, like bjobs -UF [inferred]);
* :data:`NOT_FOUND`     - what bhist prints when nothing matched.

Histories are :class:`lsfemu.events.history.JobHistory` values, printed in
the order given. Wording of the event records (LSF 10 where seen, OpenLava
otherwise):

* ``Submitted from host <h>, to Queue <q>, CWD <$HOME/...>, ...;``
* ``Dispatched to <h>`` for a one-slot job (real LSF 10 capture), otherwise
  ``Dispatched N Task(s) on Host(s) <h> ..., Allocated N Slot(s) on Host(s)
  <h> ...``; then ``, Effective RES_REQ <...>`` when known. ``dispatch_style=
  "tasks"`` always uses the Task(s) form;
* ``Starting (Pid N);`` / ``Running with execution home <h>, Execution CWD
  <c>, Execution Pid <N>;`` (only when the pid is known);
* ``Done successfully. The CPU time used is X seconds;``, ``Exited with exit
  code N. The CPU time used is X seconds;`` then ``Completed <exit>;`` (with
  ``; TERM_...: text`` when the reason is known); a job that never ran
  prints ``Exited;``;
* ``Post job process done successfully;`` / ``Post job process failed;``;
* ``Signal <KILL> requested by user or administrator <u>;`` (``Delete
  requested by user or administrator <u>;`` for DELETEJOB); with the reason
  given to bkill/bstop/bresume -C, ``..., Kill reason <text>;`` (``Suspend
  reason``, ``Resume reason`` for STOP/CONT; lsfemu's words, see semantics.md);
* ``Suspended by the user or administrator;`` (USUSP), ``... while pending;``
  (PSUSP), ``Running;`` (back to RUN), ``Pending: <reason>;``,
  ``Suspended: <reason>;`` (SSUSP), ``Unknown; unable to reach the execution
  host;``;
* ``Job is forced to run by user or administrator <u>;`` (brun);
* ``Switched to Queue <q> by user or administrator <u>;``, ``Job moved to
  position N relative to <top|bottom> by user or administrator <u>;``,
  ``Pending: Job has been requeued;``;
* ``Forwarded job to cluster <c>;`` (MultiCluster JOB_FORWARD; the
  acceptance records show nothing);
* ``Parameters of Job are changed:`` followed by one line per item indented
  by three spaces (the project's seed form), the last ending with ``;``.

Every job block starts with an empty line; blocks are separated by 78
dashes; the block ends with the resource-limit lines (if any, after two empty
lines) and the summary::

    <empty line>
    Summary of time in seconds spent in various states by  Sun Jan 10 17:50:12
      PEND     PSUSP    RUN      USUSP    SSUSP    UNKWN    TOTAL
      1        0        0        0        0        0        1           

(values left-justified in 9 columns, TOTAL in 12, so the line ends with
blanks; the time is the finish/post-job time of finished jobs, else now).
Nothing here reads the clock.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Callable, Iterable, Sequence

from lsfemu.events.history import STATES, Change, JobHistory
from lsfemu.render.bjobs import home_relative
from lsfemu.render.bjobs.common import (
    host_file_item, host_file_section, input_text, notify_text, placement_texts, specified_times, time_limit_lines,
)
from lsfemu.render.messages import NO_MATCHING_JOB
from lsfemu.render.timefmt import PREFIX_LEN, PREFIX_LEN_YEAR, long_prefix
from lsfemu.render.wrap import dispatch_text, record

#: bhist's answer when no job matches (OpenLava prints it on stdout, exit 255)
NOT_FOUND = NO_MATCHING_JOB + "\n"

#: separator between jobs in bhist -l
JOB_SEPARATOR = "-" * 78

SUMMARY_TITLE = "Summary of time in seconds spent in various states:"
SUMMARY_HEADER = "JOBID   USER    JOB_NAME  PEND    PSUSP   RUN     USUSP   SSUSP   UNKWN   TOTAL"
LONG_SUMMARY_TITLE = "Summary of time in seconds spent in various states by"
LONG_SUMMARY_HEADER = "  PEND     PSUSP    RUN      USUSP    SSUSP    UNKWN    TOTAL"


def _secs(value: float) -> str:
    """A duration as C's ``%.0f`` prints it (negative values as 0)."""
    return f"{max(0.0, value):.0f}"


def _name(h: JobHistory, wide: bool) -> str:
    name = h.display_name
    if not wide and len(name) > 8:
        name = "*" + name[-7:]
    return name


# ---------------------------------------------------------------------------
# default table
# ---------------------------------------------------------------------------

# a row's time cells at once (C's "%.0f" left in 8 columns, the total in 10; negative
# values as 0, as _secs): one format per job, not seven (bhist -u all prints every job)
_SUMMARY_STATES = (*STATES, "TOTAL")
_SUMMARY_CELLS = "%-8.0f" * len(STATES) + "%-10.0f\n"
# the cells' values, in order: JobHistory.state_times counts no negative span, so
# none is below 0 (what _secs' max(0.0, ...) guards against elsewhere)
_summary_cells = itemgetter(*_SUMMARY_STATES)


def summary_table(histories: Iterable[JobHistory], *, now: float, wide: bool = False) -> str:
    """The default ``bhist`` table (``wide``: ``bhist -w``). Empty input gives
    ``""`` (print :data:`NOT_FOUND` instead)."""
    rows = []
    for h in histories:
        t = h.state_times(now)
        if wide:
            head = f"{h.display_id:<7} {h.user:<7} {_name(h, True):<9} "
        else:
            head = f"{h.display_id[:7]:<7} {h.user[:7]:<7} {_name(h, False)[:9]:<9} "
        rows.append(head + _SUMMARY_CELLS % _summary_cells(t))
    if not rows:
        return ""
    return f"{SUMMARY_TITLE}\n{SUMMARY_HEADER}\n" + "".join(rows)


# ---------------------------------------------------------------------------
# -l
# ---------------------------------------------------------------------------


def header_record(h: JobHistory) -> str:
    """The unwrapped header record: no Status/Queue, no trailing ``;``."""
    parts = [f"Job <{h.display_id}>"]
    if h.name is not None:
        parts.append(f", Job Name <{h.display_name}>")
    parts.append(f", User <{h.user}>")
    parts.append(f", Project <{h.project}>")
    if h.user_group:
        parts.append(f", User Group <{h.user_group}>")
    if h.application:
        parts.append(f", Application <{h.application}>")
    parts.append(f", Command <{h.command}>")
    if h.esub:
        parts.append(f", Esub <{h.esub}>")
    return "".join(parts)


def submit_text(h: JobHistory, d: dict, *, host_file: bool = False) -> str:
    """The submit record after the time stamp, ending with ``;`` (*host_file*:
    bhist -hostfile's ``, Host file <path>`` after the CWD, as bjobs -hostfile's)."""
    parts = [f"Submitted from host <{d.get('from_host', h.from_host)}>"]
    parts.append(f", to Queue <{d.get('queue', h.queue)}>")
    parts.extend(specified_times(d.get("begin_time"), d.get("term_time")))
    cwd = d.get("cwd", h.cwd)
    home = d.get("home", h.home)
    parts.append(f", CWD <{home_relative(cwd, home)}>")
    if host_file:
        parts.append(host_file_item(d.get("asked_hosts")))
    if d.get("specified_cwd"):
        parts.append(f", Specified CWD <{d['specified_cwd']}>")
    if d.get("input_file"):
        parts.append(input_text(d["input_file"], bool(d.get("input_spooled"))))
    if d.get("output_file"):
        label = "Output File (overwrite)" if d.get("output_overwrite") else "Output File"
        parts.append(f", {label} <{d['output_file']}>")
    if d.get("error_file"):
        label = "Error File (overwrite)" if d.get("error_overwrite") else "Error File"
        parts.append(f", {label} <{d['error_file']}>")
    parts.append(notify_text(bool(d.get("notify_begin")), bool(d.get("notify_end"))))
    excl, asked = placement_texts(bool(d.get("exclusive")), d.get("asked_hosts"))
    parts.append(excl)
    if d.get("rerunnable"):
        parts.append(", Re-runnable")
    n = d.get("num_processors") or 1
    mx = d.get("max_processors")
    if n > 1 or (mx is not None and mx > 1):
        if mx is not None and mx != n:
            parts.append(f", {n}-{mx} Task(s)")
        else:
            parts.append(f", {n} Task(s)")
    if d.get("res_req"):
        parts.append(f", Requested Resources <{d['res_req']}>")
    if d.get("dependency"):
        parts.append(f", Dependency Condition <{d['dependency']}>")
    if d.get("login_shell"):
        parts.append(f", Login Shell <{d['login_shell']}>")
    parts.append(asked)
    if d.get("user_priority") is not None:
        parts.append(f", User Priority <{d['user_priority']}>")
    return "".join(parts) + ";"


_STATUS_TEXT = {
    "RUN": "Running",
    "USUSP": "Suspended by the user or administrator",
    "PSUSP": "Suspended by the user or administrator while pending",
    "UNKWN": "Unknown; unable to reach the execution host",
}


#: how bhist -l names the reason given to bkill -C, bstop -C, bresume -C (lsfemu's words)
_REASON_TITLE = {"STOP": "Suspend reason", "CONT": "Resume reason"}


def _status_text(d: dict) -> str:
    st = d["status"]
    if st == "PEND":
        return f"Pending: {d.get('reason') or 'Job is pending'};"
    if st == "SSUSP":
        reason = d.get("reason")
        return f"Suspended: {reason};" if reason else "Suspended;"
    return _STATUS_TEXT[st] + ";"


def _finish_texts(d: dict, ran: bool) -> list[str]:
    cpu = f" The CPU time used is {float(d.get('cpu_time') or 0.0):.1f} seconds;"
    if d["status"] == "DONE":
        return ["Done successfully." + cpu]
    code = d.get("exit_code")
    if code:
        first = f"Exited with exit code {code}." + cpu
    elif ran:
        first = "Exited." + cpu
    else:
        first = "Exited;"
    reason = d.get("exit_reason")
    if reason:
        reason = reason.rstrip(".")
        return [first, f"Completed <exit>; {reason};"]
    return [first, "Completed <exit>;"]


def _modify_texts(d: dict) -> list[str]:
    items = list(d.get("items") or [])
    if not items:
        return []
    lines = ["Parameters of Job are changed:"]
    lines += [f"   {it}" for it in items[:-1]]
    lines.append(f"   {items[-1]};")
    return lines


def _signal_text(d: dict) -> str:
    if d.get("signal") == "DELETEJOB":
        return f"Delete requested by user or administrator <{d.get('user', '')}>;"
    why = d.get("reason")
    said = f", {_REASON_TITLE.get(d.get('signal'), 'Kill reason')} <{why}>" if why else ""
    return f"Signal <{d.get('signal', '')}> requested by user or administrator <{d.get('user', '')}>{said};"


def _move_text(d: dict) -> str:
    where = "top" if d.get("top", True) else "bottom"
    return (f"Job moved to position {d.get('position', 1)} relative to <{where}> "
            f"by user or administrator <{d.get('user', '')}>;")


#: change kind -> its record texts, from (history, data, dispatch style, ran); a table rather than a
#: chain of tests: bhist -t asks once per event of a long log (issue 23)
EVENT_TEXTS: dict[str, Callable[[JobHistory, dict, str, bool | None], list[str]]] = {
    "SUBMIT": lambda h, d, style, ran: [submit_text(h, d)],
    "DISPATCH": lambda h, d, style, ran: [dispatch_text(d, style=style)],
    "STARTING": lambda h, d, style, ran: [f"Starting (Pid {d['pid']});"] if d.get("pid") else [],
    "EXECUTE": lambda h, d, style, ran: [
        f"Running with execution home <{d.get('exec_home', '')}>, Execution CWD "
        f"<{d.get('exec_cwd', '')}>, Execution Pid <{d['pid']}>;"] if d.get("pid") else [],
    "STATUS": lambda h, d, style, ran: [_status_text(d)],
    "FINISH": lambda h, d, style, ran: _finish_texts(d, h.started if ran is None else ran),
    "POST": lambda h, d, style, ran: [
        "Post job process done successfully;" if d.get("ok", True) else "Post job process failed;"],
    "SIGNAL": lambda h, d, style, ran: [_signal_text(d)],
    "FORCE": lambda h, d, style, ran: [f"Job is forced to run by user or administrator <{d.get('user', '')}>;"],
    "SWITCH": lambda h, d, style, ran: [
        f"Switched to Queue <{d['queue']}> by user or administrator <{d.get('user', '')}>;"],
    "MOVE": lambda h, d, style, ran: [_move_text(d)],
    "REQUEUE": lambda h, d, style, ran: ["Pending: Job has been requeued;"],
    "FORWARD": lambda h, d, style, ran: [f"Forwarded job to cluster <{d.get('cluster', '')}>;"],
    "MODIFY": lambda h, d, style, ran: _modify_texts(d),
}


def event_texts(
    h: JobHistory, c: Change, *, dispatch_style: str = "auto", ran: bool | None = None, host_file: bool = False
) -> list[str]:
    """The record texts (after the time stamp) one change prints; MODIFY
    returns the title followed by its item lines. *ran* tells whether the job
    was dispatched since its submission or last requeue at the time of *c*
    (default: as of now); *host_file*: the submission's host file item too
    (-hostfile). Kinds that print nothing (ACCEPTED, ACCEPT): []."""
    if host_file and c.kind == "SUBMIT":
        return [submit_text(h, c.data, host_file=True)]
    texts = EVENT_TEXTS.get(c.kind)
    return [] if texts is None else texts(h, c.data, dispatch_style, ran)


def _long_one(
    h: JobHistory, *, now: float, year: bool, nowrap: bool, dispatch_style: str, host_file: bool = False
) -> str:
    indent = PREFIX_LEN_YEAR if year else PREFIX_LEN

    def rec(text: str) -> str:
        return record(text, indent, nowrap)

    out = ["\n", rec(header_record(h))]
    ran = False
    for c in h.changes:
        if c.kind == "DISPATCH":
            ran = True
        elif c.kind == "REQUEUE":
            ran = False
        texts = event_texts(h, c, dispatch_style=dispatch_style, ran=ran, host_file=host_file)
        if not texts:
            continue
        stamp = long_prefix(c.time, year) + ": "
        if c.kind == "MODIFY":
            out.append(rec(stamp + texts[0]))
            out.extend(line + "\n" for line in texts[1:])
        else:
            out.extend(rec(stamp + t) for t in texts)
    if h.limit_lines:
        out.append("\n\n")
        out.extend(line + "\n" for line in h.limit_lines)
    t = h.state_times(now)
    by = long_prefix(h.summary_time(now))
    out.append(f"\n{LONG_SUMMARY_TITLE}  {by}\n{LONG_SUMMARY_HEADER}\n")
    out.append("  " + "".join(f"{_secs(t[s]):<9}" for s in STATES) + f"{_secs(t['TOTAL']):<12}\n")
    if host_file:  # -hostfile: the host file in force last (bsub's, or the last bmod's), bjobs -hostfile's table
        kept = [c.data["asked_hosts"] for c in h.changes if c.kind in ("SUBMIT", "MODIFY") and "asked_hosts" in c.data]
        out.append(host_file_section(kept[-1] if kept else None))
    return "".join(out)


def long(
    histories: Iterable[JobHistory],
    *,
    now: float,
    year: bool = False,
    wide: bool = False,
    dispatch_style: str = "auto",
    host_file: bool = False,
) -> str:
    """``bhist -l`` (``year``: LSB_DISPLAY_YEAR=Y; ``wide``: ``-w``, records
    not wrapped; ``host_file``: -hostfile). Empty input gives ``""`` (print :data:`NOT_FOUND`)."""
    blocks = [
        _long_one(h, now=now, year=year, nowrap=wide, dispatch_style=dispatch_style, host_file=host_file)
        for h in histories
    ]
    return (JOB_SEPARATOR + "\n").join(blocks)


def runlimit_lines(minutes: float | None, cpu_minutes: float | None = None) -> list[str]:
    """The limit block lines for a run limit and a CPU limit (bsub -c), as bjobs -l prints them."""
    return time_limit_lines(cpu_minutes, minutes)


def render(
    histories: Sequence[JobHistory], *, now: float, long_format: bool = False, **kw
) -> tuple[str, int]:
    """(stdout text, exit code) of a bhist call: the chosen format, or
    :data:`NOT_FOUND` with exit code 255 when *histories* is empty."""
    if not histories:
        return NOT_FOUND, 255
    if long_format:
        return long(histories, now=now, **kw), 0
    return summary_table(histories, now=now, wide=kw.get("wide", False)), 0
