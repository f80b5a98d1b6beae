"""bjobs' one-line-per-job tables: the default and ``-w`` tables (reference
3.1, 3.2, ``-noheader``, ``-s`` reasons), ``-p`` (3.6), ``-A`` (arrays),
``-aps`` (3.9) and ``-prio`` (the -aps table with each APS factor's share:
docs/semantics.md, [inferred]); the default table takes ``-WL`` / ``-WF`` / ``-WP``'s
run-time estimate columns (docs/semantics.md, [inferred]). The table rows are the hot path of a long listing: each job
is one call of :func:`_table_rows`.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from lsfemu.config.aps import ALL_FACTORS
from lsfemu.jobstate import PENDING, SUSPENDED
from lsfemu.render.bjobs import categorized
from lsfemu.render.bjobs.common import aps_number, job_name, name_trunc, short_hosts
from lsfemu.render.bjobs import fields
from lsfemu.render.bjobs.fields import key_reason
from lsfemu.render.outfmt import FieldSpec, cell
from lsfemu.render.timefmt import table_time
from lsfemu.views import JobView

_TABLE_HEADER_TAIL = "USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME"


def _table_header(jobid_width: int) -> str:
    return f"{'JOBID':<{jobid_width}} {_TABLE_HEADER_TAIL}"


def _table_rows(job: JobView, *, wide: bool, jobid_width: int, year: bool) -> tuple[str, list[str]]:
    """The main row (without newline) and the extra EXEC_HOST lines."""
    jid = str(job.job_id)
    if not wide and len(jid) > jobid_width:
        jid = jid[-jobid_width:]
    groups = short_hosts(job.exec_hosts)
    extra: list[str] = []
    if job.status in PENDING:
        exec_host = "-" if wide else ""
    elif not groups:
        exec_host = "-" if wide else "   -   "
    elif wide:
        exec_host = ":".join(groups)
    else:
        exec_host = groups[0][:11]
        indent = " " * (jobid_width + 38)
        extra = [indent + g for g in groups[1:]]
    name = job_name(job)
    when = table_time(job.submit_time, year)
    if wide:
        row = (
            f"{jid:<{jobid_width}} {job.user:<7} {job.status:<5} {job.queue:<10} "
            f"{job.from_host:<11} {exec_host:<11} {name:<10} {when}"
        )
    else:
        row = (
            f"{jid:<{jobid_width}} {job.user[:7]:<7} {job.status[:5]:<5} {job.queue[:10]:<10} "
            f"{job.from_host[:11]:<11} {exec_host:<11} {name_trunc(name, 10):<10} {when}"
        )
    return row, extra


def reason_lines(job: JobView) -> list[str]:
    """`` reason;`` lines: pending reasons of PEND/PSUSP jobs, suspending
    reasons of USUSP/SSUSP jobs, nothing otherwise."""
    if job.status in PENDING:
        return [f" {r};" for r in job.pend_reasons]
    if job.status in SUSPENDED:
        return [f" {r};" for r in job.susp_reasons]
    return []


#: -WL, -WF, -WP: the -o field each adds to the table, in the order of the columns
ESTIMATE_FIELDS = {"-WL": "time_left", "-WF": "finish_time", "-WP": "%complete"}


def table(
    jobs: Iterable[JobView],
    *,
    wide: bool = False,
    jobid_width: int = 7,
    year: bool = False,
    header: bool = True,
    reasons: bool = False,
    estimates: Sequence[str] = (),
    now: float = 0.0,
    hms: bool = False,
) -> str:
    """``bjobs`` / ``bjobs -w`` (``header=False``: ``-noheader``).
    ``reasons=True`` adds each job's pending/suspending reasons under its row
    (``bjobs -s``; ``bjobs -p`` has its own layout, :func:`pend_table`).
    *estimates*: ``bjobs -WL`` / ``-WF`` / ``-WP`` (fields of
    :data:`ESTIMATE_FIELDS`): after SUBMIT_TIME one column each, with its -o
    header, recommended width and value at *now* (``0:40 E``; ``-`` when the
    job has none; *hms*: -hms) [inferred: no sample of LSF's layout was found]."""
    jobs = list(jobs)
    if not jobs:
        return ""
    specs = [FieldSpec(n, fields.FIELDS[n].width) for n in estimates]
    shown = fields.Shown(now, hms, year)
    out = []
    if header:
        head = _table_header(jobid_width)
        if specs:
            pad = " " * (len(table_time(0, year)) - len("SUBMIT_TIME"))  # the stamps are wider than SUBMIT_TIME
            head += pad + "".join(" " + cell(f.header, f) for f in specs)
        out.append(head)
    for job in jobs:
        row, extra = _table_rows(job, wide=wide, jobid_width=jobid_width, year=year)
        if specs:
            row += "".join(" " + cell(fields.value(job, f, shown) or "-", f) for f in specs)
        out.append(row)
        out.extend(extra)
        if reasons:
            out.extend(reason_lines(job))
    return "\n".join(out) + "\n"


PEND_HEADER_TAIL = "USER    STAT  QUEUE       FROM_HOST      JOB_NAME           SUBMIT_TIME"


ARRAY_HEADER = "JOBID    ARRAY_SPEC  OWNER   NJOBS PEND DONE  RUN EXIT SSUSP USUSP PSUSP\n"


def array_table(rows, *, wide: bool = False, header: bool = True) -> str:
    """bjobs -A. ``rows``: (job ID, the array's -J value, owner, elements,
    counts by state). OpenLava's printf layout: ID left in 7, two spaces,
    ARRAY_SPEC left in 8 (cut), OWNER right in 8 (cut), then the counts right
    in 5 4 4 4 4 5 5 5 after three spaces; -w prints ARRAY_SPEC and OWNER whole."""
    out = [ARRAY_HEADER] if header else []
    for jid, spec, owner, njobs, n in rows:
        if wide:
            head = f"{jid:<7}  {spec} {owner} "
        else:
            head = f"{jid:<7}  {spec[:8]:<8} {owner[:8]:>8} "
        out.append(f"{head}  {njobs:5d} {n['PEND']:4d} {n['DONE']:4d} {n['RUN']:4d} {n['EXIT']:4d} "
                   f"{n['SSUSP']:5d} {n['USUSP']:5d} {n['PSUSP']:5d}\n")
    return "".join(out)


def pend_table(
    jobs: Iterable[JobView],
    *,
    wide: bool = False,
    jobid_width: int = 7,
    year: bool = False,
    header: bool = True,
    level: int = 0,
) -> str:
    """``bjobs -p`` (reason display level 0, reference 3.6 [OL widths]): no
    EXEC_HOST column, QUEUE 11, FROM_HOST 14, JOB_NAME 18 (``*``-cut), then one
    `` reason;`` line per pending reason under each row; level 1 (``-p1``):
    the single key reason only; levels 2 and 3 (``-p2``/``-p3``): the
    reasons by candidate / non-candidate host (:mod:`.categorized`)."""
    jobs = list(jobs)
    if not jobs:
        return ""
    out = [f"{'JOBID':<{jobid_width}} {PEND_HEADER_TAIL}"] if header else []
    for job in jobs:
        jid = str(job.job_id)
        name = job_name(job)
        when = table_time(job.submit_time, year)
        if wide:
            out.append(
                f"{jid:<{jobid_width}} {job.user:<7} {job.status:<5} {job.queue:<11} "
                f"{job.from_host:<14} {name:<18} {when}"
            )
        else:
            if len(jid) > jobid_width:
                jid = jid[-jobid_width:]
            out.append(
                f"{jid:<{jobid_width}} {job.user[:7]:<7} {job.status[:5]:<5} {job.queue[:11]:<11} "
                f"{job.from_host[:14]:<14} {name_trunc(name, 18):<18} {when}"
            )
        if level >= 2:
            out.extend(categorized.lines(job, level))
            continue
        key = key_reason(job) if level == 1 else None
        out.extend([f" {key};"] if key is not None else reason_lines(job))
    return "\n".join(out) + "\n"


def aps_value_text(job: JobView) -> str:
    """``(10)`` for a system value, ``109.00`` for a calculated one, ``-`` otherwise."""
    return aps_cell_text(job.aps_system, job.aps_value)


def aps_cell_text(system: float | None, value: float | None) -> str:
    """:func:`aps_value_text` of a job with these values."""
    if system is not None:
        return f"({aps_number(system)})"
    if value is not None:
        return f"{value:.2f}"
    return "-"


def table_job_text(job: JobView, *, wide: bool = False, jobid_width: int = 7, year: bool = False) -> str:
    """One job's lines of the default / ``-w`` table (its row and EXEC_HOST
    continuation lines), without the last newline: what a listing keeps."""
    row, extra = _table_rows(job, wide=wide, jobid_width=jobid_width, year=year)
    return "\n".join([row, *extra]) if extra else row


def table_lines_text(lines: list[str], *, jobid_width: int = 7, header: bool = True) -> str:
    """The default / ``-w`` table from its jobs' texts (:func:`table_job_text`):
    what :func:`table` prints for those jobs without -s, -WL/-WF/-WP."""
    if not lines:
        return ""
    if header:
        lines = [_table_header(jobid_width), *lines]
    return "\n".join(lines) + "\n"


def aps_row(job: JobView, *, wide: bool = False, jobid_width: int = 7, year: bool = False) -> str:
    """A pending job's ``bjobs -aps`` line before its APS value (a pending
    job has no EXEC_HOST continuation lines)."""
    return _table_rows(job, wide=wide, jobid_width=jobid_width, year=year)[0]


def aps_lines_text(lines: list[str], *, jobid_width: int = 7, year: bool = False, header: bool = True) -> str:
    """The ``bjobs -aps`` table from its job lines (:func:`aps_line`): the
    header, when wanted, and a newline after each line."""
    if not lines:
        return ""
    if header:
        time_width = len(table_time(0, year))
        lines = [_table_header(jobid_width) + " " * (time_width - len("SUBMIT_TIME")) + " " + f"{'APS':>6}", *lines]
    return "\n".join(lines) + "\n"


def aps_line(row: str, cell: str) -> str:
    """One job's ``bjobs -aps`` line: its row, one space, the APS value right-aligned in 6."""
    return f"{row} {cell:>6}"


def aps_value_lines(rows: list[str], listing: Iterable[tuple]) -> list[str]:
    """Each job's ``aps_line(row, aps_cell_text(system, value))``: *rows* its
    line before the value (:func:`aps_row`), *listing* its ``(job, system
    value, calculated value)``; a calculated value formatted with the line (a
    listing makes one for each of its pending jobs)."""
    return [f"{row} {value:>6.2f}" if system is None and value is not None
            else f"{row} {aps_cell_text(system, value):>6}" for row, (_job, system, value) in zip(rows, listing)]


def aps_table(
    jobs: Iterable[JobView],
    *,
    wide: bool = False,
    jobid_width: int = 7,
    year: bool = False,
    header: bool = True,
) -> str:
    """``bjobs -aps``: the default row, one space, the APS value right-aligned
    in 6 (reference 3.9's proposal; the seed samples are hand-spaced)."""
    lines = []
    for job in jobs:
        row, extra = _table_rows(job, wide=wide, jobid_width=jobid_width, year=year)
        lines.append(aps_line(row, aps_value_text(job)))
        lines.extend(extra)
    return aps_lines_text(lines, jobid_width=jobid_width, year=year, header=header)


#: bjobs -prio's factor columns: APS_PRIORITY's factors and subfactors in their order, then ADMIN
PRIO_FACTORS = (*ALL_FACTORS, "ADMIN")


def prio_table(
    rows: Iterable[tuple[JobView, dict[str, float] | None]],
    *,
    wide: bool = False,
    jobid_width: int = 7,
    year: bool = False,
    header: bool = True,
) -> str:
    """``bjobs -prio`` [inferred: no sample of LSF's layout was found]: the
    ``-aps`` table (the job's APS value, ``-aps``'s order) and, after APS, one
    column per factor of :data:`PRIO_FACTORS`, right-aligned in the width of
    its name (at least 9): what the factor adds -- a top factor (FS, RSRC,
    WORK) to the APS value, a subfactor to its factor's sum before the
    factor's weight, ADMIN its bmod -aps value; 0.00 in its grace period, ``-``
    not configured for the job's queue. *rows*: (job, {factor: share}), None
    for a job outside APS queues (every column ``-``)."""
    widths = [max(len(f), 9) for f in PRIO_FACTORS]
    lines = []
    for job, shares in rows:
        row, extra = _table_rows(job, wide=wide, jobid_width=jobid_width, year=year)
        shares = shares or {}
        cells = "".join(f" {(f'{v:.2f}' if (v := shares.get(f)) is not None else '-'):>{w}}"
                        for f, w in zip(PRIO_FACTORS, widths))
        lines.append(aps_line(row, aps_value_text(job)) + cells)
        lines.extend(extra)
    text = aps_lines_text(lines, jobid_width=jobid_width, year=year, header=header)
    if header and text:
        head, _, rest = text.partition("\n")
        text = head + "".join(f" {f:>{w}}" for f, w in zip(PRIO_FACTORS, widths)) + "\n" + rest
    return text
