"""bacct output formats (reference lsf-breadth section 2): lsb.acct records in, text out.

Owns

* :func:`statistics` - the SUMMARY numbers of a list of JOB_FINISH records
  (pure: :class:`Stats`);
* :func:`header`     - the "Accounting information about jobs that are:" block;
* :func:`summary`    - the SUMMARY block (LSF 9.1+'s full form);
* :func:`long`       - ``bacct -l``'s per-job blocks; :func:`brief` - ``-b``'s.

Definitions (IBM's bacct page, "Default output format (SUMMARY)"; the
reference's [inferred] readings are lsfemu's decisions in docs/semantics.md):

* CPU time = ``ru_utime + ru_stime`` (an unknown ``-1`` counts 0), times
  ``host_factor / factor`` with ``-N`` (:class:`Calc`);
* wait = start - submit; a job that never started waited until it ended
  (finish - submit); turnaround = finish - submit, the finish time being
  the record's event time; run time = the record's runTime (LSF 8 on; older
  records: finish - start), 0 for a job that never started; with ``-E``
  wait and turnaround leave out the record's ineligiblePendTime (when the
  record tracks it, LSF's TRACK_ELIGIBLE_PENDINFO);
* hog factor = CPU time / turnaround (0 when the turnaround is 0), averaged
  over the jobs; expansion factor = turnaround / run time, its average,
  maximum and minimum over the jobs that ran (run time > 0; 0.00 when none
  did). The reference's LSF 10 capture (tests/render/golden_bacct) holds
  only under these readings: its 114.00 expansion factor with a maximum wait
  of 2 s needs runTime, not finish - start, and its 13.81 average excludes
  the job of run time 0;
* throughput = jobs / (ending - beginning) per hour; beginning = the earliest
  start (the earliest submission when no job started), ending = the latest
  finish; ``-C time0,time1`` makes them time0 and time1 (the doc's formula).

Layout (measured on four real captures, reference 2.3): each statistic line
starts with one space; the first value ends in column 35, the second label
follows six spaces later and its value ends in column 75; a value wider than
its field pushes the rest right. The -l accounting table's words and values
end in columns 10, 19, 34, 43, 58, 65, 73.

Nothing here reads the clock or the files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from lsfemu.events.acct import JOB_STAT_DONE, SCHEMA, AcctRecord
from lsfemu.events.lsbatch import TERM_REASONS
from lsfemu.render.messages import NO_MATCHING_JOB
from lsfemu.render.timefmt import PREFIX_LEN, PREFIX_LEN_YEAR, long_prefix, table_time
from lsfemu.render.wrap import dispatch_text, record

#: what bacct prints when no job is selected (stdout, exit 255; docs/semantics.md)
NOT_FOUND = NO_MATCHING_JOB + "\n"

RULE = "-" * 78

#: the positions of runTime and ineligiblePendTime in the JOB_FINISH schema (older records end before them)
_RUN_TIME_AT = [f.name for f in SCHEMA].index("run_time")
_INELIGIBLE_AT = [f.name for f in SCHEMA].index("ineligible_pend_time")

ACCT_TITLE = "Accounting information about this job:"
ACCT_HEADER = "     CPU_T     WAIT     TURNAROUND   STATUS     HOG_FACTOR    MEM    SWAP"


# ---------------------------------------------------------------------------
# one job's numbers
# ---------------------------------------------------------------------------


def is_done(rec: AcctRecord) -> bool:
    return bool(rec.j_status & JOB_STAT_DONE)


@dataclass(frozen=True)
class Calc:
    """How the numbers are computed: ``factor`` -N's CPU factor (None: CPU
    time as logged); ``eligible`` -E, wait and turnaround without the time
    the job was ineligible to run (the record's ineligiblePendTime)."""

    factor: float | None = None
    eligible: bool = False


PLAIN = Calc()


def cpu_time(rec: AcctRecord, calc: Calc = PLAIN) -> float:
    """CPU seconds (user + system); normalised to ``calc.factor`` (``-N``) by the
    execution host's CPU factor the record carries."""
    ru = rec.lsf_rusage
    cpu = max(0.0, ru.ru_utime) + max(0.0, ru.ru_stime)
    if calc.factor:
        cpu = cpu * (rec.host_factor or 1.0) / calc.factor
    return cpu


def _ineligible(rec: AcctRecord, calc: Calc) -> int:
    """-E: the seconds the job pended ineligible (0 when the record does not track them: -1, or no such field)."""
    if not calc.eligible or rec.fields_present <= _INELIGIBLE_AT:
        return 0
    return max(0, rec.ineligible_pend_time)


def wait_time(rec: AcctRecord, calc: Calc = PLAIN) -> float:
    end = rec.start_time if rec.start_time > 0 else rec.event_time
    return float(max(0, end - rec.submit_time - _ineligible(rec, calc)))


def turnaround(rec: AcctRecord, calc: Calc = PLAIN) -> float:
    return float(max(0, rec.event_time - rec.submit_time - _ineligible(rec, calc)))


def run_time(rec: AcctRecord) -> float:
    """The record's runTime (LSF 8 on: the seconds in RUN, which a finish
    logged late does not stretch), else finish - start."""
    if rec.start_time <= 0:
        return 0.0
    if rec.fields_present > _RUN_TIME_AT:
        return float(max(0, rec.run_time))
    return float(max(0, rec.event_time - rec.start_time))


def hog_factor(rec: AcctRecord, calc: Calc = PLAIN) -> float:
    t = turnaround(rec, calc)
    return cpu_time(rec, calc) / t if t > 0 else 0.0


def expansion(rec: AcctRecord, calc: Calc = PLAIN) -> float:
    r = run_time(rec)
    return turnaround(rec, calc) / r if r > 0 else 0.0


# ---------------------------------------------------------------------------
# the statistics
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Stats:
    """The SUMMARY numbers (module docstring: definitions)."""

    done: int
    exited: int
    cpu_total: float
    cpu_max: float
    cpu_min: float
    wait_total: float
    wait_max: float
    wait_min: float
    turn_total: float
    turn_max: float
    turn_min: float
    hog_avg: float
    hog_max: float
    hog_min: float
    exp_avg: float
    exp_max: float
    exp_min: float
    run_total: float
    run_max: float
    run_min: float
    begin: float
    end: float

    @property
    def jobs(self) -> int:
        return self.done + self.exited

    def avg(self, total: float) -> float:
        return total / self.jobs if self.jobs else 0.0

    @property
    def hours(self) -> float:
        return max(0.0, self.end - self.begin) / 3600.0

    @property
    def throughput(self) -> float:
        return self.jobs / self.hours if self.hours > 0 else 0.0


def _span(values: list[float]) -> tuple[float, float, float]:
    """(total, max, min); zeros for no values."""
    if not values:
        return 0.0, 0.0, 0.0
    return sum(values), max(values), min(values)


def statistics(records: Sequence[AcctRecord], *, calc: Calc = PLAIN,
               window: tuple[float, float] | None = None) -> Stats:
    """The SUMMARY numbers of *records* (``calc``: -N and -E;
    ``window``: -C's completion window, which sets the throughput's period)."""
    cpus = [cpu_time(r, calc) for r in records]
    waits = [wait_time(r, calc) for r in records]
    turns = [turnaround(r, calc) for r in records]
    runs = [run_time(r) for r in records]
    hogs = [hog_factor(r, calc) for r in records]
    exps = [expansion(r, calc) for r in records if run_time(r) > 0]
    n = len(records)
    if window is not None:
        begin, end = window
    elif records:
        starts = [r.start_time for r in records if r.start_time > 0]
        begin = float(min(starts) if starts else min(r.submit_time for r in records))
        end = float(max(r.event_time for r in records))
    else:
        begin = end = 0.0
    c, w, t, r = _span(cpus), _span(waits), _span(turns), _span(runs)
    h = _span(hogs)
    e = _span(exps)
    ne = len(exps)
    return Stats(
        done=sum(1 for x in records if is_done(x)),
        exited=sum(1 for x in records if not is_done(x)),
        cpu_total=c[0], cpu_max=c[1], cpu_min=c[2],
        wait_total=w[0], wait_max=w[1], wait_min=w[2],
        turn_total=t[0], turn_max=t[1], turn_min=t[2],
        hog_avg=h[0] / n if n else 0.0, hog_max=h[1], hog_min=h[2],
        exp_avg=e[0] / ne if ne else 0.0, exp_max=e[1], exp_min=e[2],
        run_total=r[0], run_max=r[1], run_min=r[2],
        begin=begin, end=end,
    )


# ---------------------------------------------------------------------------
# the header block
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Selection:
    """What the header block says was selected (None: all)."""

    users: tuple[str, ...] | None = None
    projects: tuple[str, ...] | None = None
    hosts: tuple[str, ...] | None = None
    queues: tuple[str, ...] | None = None
    slas: tuple[str, ...] | None = None
    #: "done" (-d), "exit" (-e) or None (both)
    status: str | None = None
    submitted: tuple[float, float] | None = None
    dispatched: tuple[float, float] | None = None
    completed: tuple[float, float] | None = None


def _listed(what: str, names: tuple[str, ...]) -> str:
    return f"  - {what}" + "".join(f" {n}," for n in names) + " \n"


def _between(what: str, window: tuple[float, float]) -> str:
    """``  - dispatched between  Thu Oct  1 00:00:00 2020`` and the ``,and`` line
    (its 18 spaces as in the one capture, Triton's -D; the same for -S and -C)."""
    start, end = window
    return f"  - {what} between  {_ctime(start)}\n{' ' * 18},and   {_ctime(end)}\n"


def _ctime(t: float) -> str:
    if t == float("-inf"):
        t = 0.0
    return long_prefix(t, year=True)


#: the header's status line: the seen default; -d's and -e's cut from it (inferred)
_STATUS_LINE = {None: "  - completed normally or exited\n", "done": "  - completed normally\n",
                "exit": "  - exited\n"}


def header(sel: Selection) -> str:
    """The block every bacct output starts with, ending with its 78-dash rule
    (what follows -- a job block or the SUMMARY -- starts with an empty line)."""
    out = ["Accounting information about jobs that are: \n"]
    out.append(_listed("submitted by users", sel.users) if sel.users is not None
               else "  - submitted by all users.\n")
    out.append(_listed("accounted on projects", sel.projects) if sel.projects is not None
               else "  - accounted on all projects.\n")
    out.append(_STATUS_LINE[sel.status])
    for what, window in (("submitted", sel.submitted), ("dispatched", sel.dispatched),
                         ("completed", sel.completed)):
        if window is not None:
            out.append(_between(what, window))
    out.append(_listed("executed on hosts", sel.hosts) if sel.hosts is not None
               else "  - executed on all hosts.\n")
    out.append(_listed("submitted to queues", sel.queues) if sel.queues is not None
               else "  - submitted to all queues.\n")
    out.append(_listed("accounted on service classes", sel.slas) if sel.slas is not None
               else "  - accounted on all service classes.\n")
    out.append(RULE + "\n")
    return "".join(out)


# ---------------------------------------------------------------------------
# SUMMARY
# ---------------------------------------------------------------------------


def _stat(label: str, value: str, label2: str | None = None, value2: str | None = None) -> str:
    """One statistic line: the first value ends in column 35, the second in 75."""
    line = " " + label + value.rjust(34 - len(label))
    if label2 is not None and value2 is not None:
        line += "      " + label2 + value2.rjust(34 - len(label2))
    return line + "\n"


def _f1(v: float) -> str:
    return f"{v:.1f}"


def _f2(v: float) -> str:
    return f"{v:.2f}"


def _i(v: float) -> str:
    return f"{v:.0f}"


def summary(s: Stats) -> str:
    """The SUMMARY block (LSF 9.1+: through Beginning/Ending time)."""
    return "".join([
        "SUMMARY:      ( time unit: second ) \n",
        _stat("Total number of done jobs:", str(s.done), "Total number of exited jobs:", str(s.exited)),
        _stat("Total CPU time consumed:", _f1(s.cpu_total), "Average CPU time consumed:", _f1(s.avg(s.cpu_total))),
        _stat("Maximum CPU time of a job:", _f1(s.cpu_max), "Minimum CPU time of a job:", _f1(s.cpu_min)),
        _stat("Total wait time in queues:", _f1(s.wait_total)),
        _stat("Average wait time in queue:", _f1(s.avg(s.wait_total))),
        _stat("Maximum wait time in queue:", _f1(s.wait_max), "Minimum wait time in queue:", _f1(s.wait_min)),
        _stat("Average turnaround time:", _i(s.avg(s.turn_total))).rstrip("\n") + " (seconds/job)\n",
        _stat("Maximum turnaround time:", _i(s.turn_max), "Minimum turnaround time:", _i(s.turn_min)),
        _stat("Average hog factor of a job:", _f2(s.hog_avg)).rstrip("\n") + " ( cpu time / turnaround time )\n",
        _stat("Maximum hog factor of a job:", _f2(s.hog_max), "Minimum hog factor of a job:", _f2(s.hog_min)),
        f" Average expansion factor of a job:  {_f2(s.exp_avg)} ( turnaround time / run time )\n",
        f" Maximum expansion factor of a job:  {_f2(s.exp_max)}\n",
        f" Minimum expansion factor of a job:  {_f2(s.exp_min)}\n",
        _stat("Total Run time consumed:", _i(s.run_total), "Average Run time consumed:", _i(s.avg(s.run_total))),
        _stat("Maximum Run time of a job:", _i(s.run_max), "Minimum Run time of a job:", _i(s.run_min)),
        _stat("Total throughput:", _f2(s.throughput)).rstrip("\n") + f" (jobs/hour)  during{s.hours:8.2f} hours\n",
        _stat("Beginning time:", table_time(s.begin), "Ending time:", table_time(s.end)),
    ])


# ---------------------------------------------------------------------------
# -l and -b
# ---------------------------------------------------------------------------


def display_id(rec: AcctRecord) -> str:
    return f"{rec.job_id}[{rec.idx}]" if rec.idx else str(rec.job_id)


def _status(rec: AcctRecord) -> str:
    return "DONE" if is_done(rec) else "EXIT"


def header_record(rec: AcctRecord) -> str:
    """``Job <id>, [Job Name <n>, ]User <u>, Project <p>, [Mail <m>, ]Status <S>,
    Queue <q>, Command <c>[, Share group charged <path>]`` (unwrapped)."""
    parts = [f"Job <{display_id(rec)}>"]
    if rec.job_name:
        parts.append(f", Job Name <{rec.job_name}>")
    parts.append(f", User <{rec.user_name}>")
    parts.append(f", Project <{rec.project_name or 'default'}>")
    if rec.mail_user:
        parts.append(f", Mail <{rec.mail_user}>")
    parts.append(f", Status <{_status(rec)}>, Queue <{rec.queue}>, Command <{rec.command}>")
    if rec.charged_saap:
        parts.append(f", Share group charged <{rec.charged_saap}>")
    return "".join(parts)


def _cwd(cwd: str) -> str:
    """LSF logs the CWD relative to the user's home when it lies under it."""
    if not cwd:
        return "$HOME"
    if cwd.startswith("/") or cwd.startswith("$HOME"):
        return cwd
    return "$HOME/" + cwd


def submit_text(rec: AcctRecord) -> str:
    parts = [f"Submitted from host <{rec.from_host}>, CWD <{_cwd(rec.cwd)}>"]
    if rec.in_file:
        parts.append(f", Input File <{rec.in_file}>")
    if rec.out_file:
        parts.append(f", Output File <{rec.out_file}>")
    if rec.err_file:
        parts.append(f", Error File <{rec.err_file}>")
    return "".join(parts) + ";"


def completed_text(rec: AcctRecord) -> str:
    if is_done(rec):
        return "Completed <done>."
    reason = TERM_REASONS.get(rec.exit_info)
    return f"Completed <exit>; {reason}." if reason else "Completed <exit>."


def event_lines(rec: AcctRecord) -> list[tuple[float, str]]:
    """(time, text) of the job's submission, dispatch and completion records."""
    lines = [(float(rec.submit_time), submit_text(rec))]
    if rec.start_time > 0:
        text = dispatch_text({"hosts": list(rec.slot_hosts),
                              "effective_res_req": rec.effective_res_req.strip()})
        if rec.idx:
            text = f"[{rec.idx}] d" + text[1:]
        lines.append((float(rec.start_time), text))
    lines.append((float(rec.event_time), completed_text(rec)))
    return lines


def mem_text(kb: int) -> str:
    """A memory size as bacct -l prints it: ``5M``, ``222M``, ``3.2G``."""
    mb = max(0, kb) / 1024.0
    if mb < 1024:
        return f"{mb:.0f}M"
    return f"{mb / 1024.0:.1f}G"


def accounting_lines(rec: AcctRecord, calc: Calc = PLAIN) -> str:
    """``Accounting information about this job:`` and its table."""
    out = [ACCT_TITLE + "\n"]
    if rec.charged_saap:
        out.append(f"     Share group charged <{rec.charged_saap}>\n")
    out.append(ACCT_HEADER + "\n")
    out.append(
        f"{cpu_time(rec, calc):>10.2f}{_i(wait_time(rec, calc)):>9}{_i(turnaround(rec, calc)):>15}"
        f"{_status(rec).lower():>9}{hog_factor(rec, calc):>15.4f}"
        f"{mem_text(rec.max_r_mem):>7}{mem_text(rec.max_r_swap):>8}\n"
    )
    return "".join(out)


def _job_block(rec: AcctRecord, *, events: bool, year: bool, wide: bool, calc: Calc) -> str:
    indent = PREFIX_LEN_YEAR if year else PREFIX_LEN

    def rec_text(text: str) -> str:
        return record(text, indent, wide)

    out = ["\n", rec_text(header_record(rec))]
    if events:
        out.extend(rec_text(long_prefix(t, year) + ": " + text) for t, text in event_lines(rec))
    out.append("\n")
    out.append(accounting_lines(rec, calc))
    out.append(RULE + "\n")
    return "".join(out)


def long(records: Iterable[AcctRecord], *, year: bool = False, wide: bool = False,
         calc: Calc = PLAIN) -> str:
    """``bacct -l``'s job blocks (``wide``: -w, records not wrapped), without the header or SUMMARY."""
    return "".join(_job_block(r, events=True, year=year, wide=wide, calc=calc) for r in records)


def brief(records: Iterable[AcctRecord], *, year: bool = False, wide: bool = False,
          calc: Calc = PLAIN) -> str:
    """``bacct -b``: each job's header record and accounting table, no event records."""
    return "".join(_job_block(r, events=False, year=year, wide=wide, calc=calc) for r in records)


def render(records: Sequence[AcctRecord], sel: Selection, *, form: str = "summary", year: bool = False,
           wide: bool = False, calc: Calc = PLAIN,
           window: tuple[float, float] | None = None) -> str:
    """The whole output: header block, the jobs (*form* ``long`` or ``brief``)
    and the SUMMARY. Empty *records*: :data:`NOT_FOUND`."""
    if not records:
        return NOT_FOUND
    out = [header(sel)]
    if form == "long":
        out.append(long(records, year=year, wide=wide, calc=calc))
    elif form == "brief":
        out.append(brief(records, year=year, wide=wide, calc=calc))
    out.append("\n" + summary(statistics(records, calc=calc, window=window)))
    return "".join(out)
