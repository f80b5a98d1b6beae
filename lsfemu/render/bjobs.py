"""bjobs output formats (reference section 3): data in, text out.

Owns:

* :func:`table`      - the default and ``-w`` tables (3.1, 3.2), ``-noheader``;
* :func:`aps_table`  - ``bjobs -aps`` (3.9);
* :func:`long`       - ``bjobs -l`` and ``-UF`` (3.7, 3.8);
* :func:`parse_format` / :func:`custom` / :func:`json_out` - ``-o``, ``-hms``,
  ``delimiter=``, ``-json`` (3.10).

Emulated release: **IBM Spectrum LSF 10.1 Fix Pack 13 (10.1.0.13)**, the
version ``lsid`` prints. Where fix packs differ this module uses that FP's
wording throughout:

* submit record ``, 4 Task(s)`` (not ``, 4 Processors Requested``);
* start record ``Started 4 Task(s) on Host(s) <h> <h> <h> <h>, Allocated 4
  Slot(s) on Host(s) <h> <h> <h> <h>, Execution Home </h>, Execution CWD </c>;``
  (not ``Started on <h>``), per-slot host list unless ``short_hostlist``
  (``LSB_SHORT_HOSTLIST=1``) asks for ``<4*h>``;
* finish record followed by ``HOST: h; CPU_TIME: N seconds`` lines;
* ``MEMORY USAGE`` block without the FP14 ``MEM Efficiency`` and no FP14
  ``CPU USAGE`` block; ``-o all`` (FP14) is not a field.

Job lists are printed in the order given; an empty list renders as ``""``
(LSF prints no header when nothing matched -- the caller prints the
"No ... job found" message). Nothing here reads the clock: ``now`` is passed in.
"""

from __future__ import annotations

import json

import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from lsfemu.jobstate import FINISHED, PENDING, SUSPENDED
from lsfemu.render.timefmt import PREFIX_LEN, PREFIX_LEN_YEAR, hms, long_prefix, table_time
from lsfemu.render.wrap import SOFT_SPACE, host_list, wrap_record
from lsfemu.views import JobView

FIX_PACK = "10.1.0.13"


#: separator between jobs in bjobs -l / -UF
JOB_SEPARATOR = "-" * 78

#: the load threshold table of ``SCHEDULING PARAMETERS`` (rows end with two spaces)
LOAD_HEADER = "           r15s   r1m  r15m   ut      pg    io   ls    it    tmp    swp    mem"
LOAD_SCHED = " loadSched   -     -     -     -       -     -    -     -     -      -      -  "
LOAD_STOP = " loadStop    -     -     -     -       -     -    -     -     -      -      -  "
LOAD_TABLE = f"{LOAD_HEADER}\n{LOAD_SCHED}\n{LOAD_STOP}\n"

#: bjobs -l limit block for RUNLIMIT (title padded to 25 columns, as seen)
RUNLIMIT_TITLE = " RUNLIMIT                "

_TABLE_HEADER_TAIL = "USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME"


# ---------------------------------------------------------------------------
# small helpers shared by the formats
# ---------------------------------------------------------------------------


def job_name(job: JobView) -> str:
    """JOB_NAME as displayed: the -J name (or the command), ``name[idx]`` for
    array elements."""
    base = job.name if job.name is not None else job.command
    return f"{base}[{job.array_index}]" if job.array_index else base


def display_id(job: JobView) -> str:
    """``1234`` or ``1234[5]``."""
    return f"{job.job_id}[{job.array_index}]" if job.array_index else str(job.job_id)


def name_trunc(text: str, width: int) -> str:
    """Cut at the left with a ``*`` marker so the result is exactly *width* long."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "*"[:width]
    return "*" + text[-(width - 1):]


def compress_hosts(hosts: Sequence[str]) -> list[tuple[int, str]]:
    """Consecutive equal hosts as (count, host) pairs, dispatch order kept."""
    groups: list[tuple[int, str]] = []
    for h in hosts:
        if groups and groups[-1][1] == h:
            groups[-1] = (groups[-1][0] + 1, h)
        else:
            groups.append((1, h))
    return groups


def host_group_text(count: int, host: str) -> str:
    return f"{count}*{host}" if count > 1 else host


def short_hosts(hosts: Sequence[str]) -> list[str]:
    """``N*host`` forms of :func:`compress_hosts`."""
    return [host_group_text(c, h) for c, h in compress_hosts(hosts)]


def home_relative(path: str, home: str) -> str:
    """``$HOME`` / ``$HOME/sub`` when *path* lies in *home*, else *path*."""
    if not path:
        return "$HOME"
    if home:
        h = home.rstrip("/") or "/"
        if path == h or path == h + "/":
            return "$HOME"
        if h != "/" and path.startswith(h + "/"):
            return "$HOME/" + path[len(h) + 1:]
    return path


def mem_text(kb: int | float) -> str:
    """LSF 10's auto-scaled memory: ``344 Mbytes``, ``1.3 Gbytes``, ``0 Mbytes``."""
    kb = max(0, kb)
    if kb < 1024 * 1024:
        return f"{int(kb // 1024)} Mbytes"
    if kb < 1024**3:
        return f"{kb / 1024**2:.1f} Gbytes"
    return f"{kb / 1024**3:.1f} Tbytes"


_UNIT_POWER = {"K": 0, "M": 1, "G": 2, "T": 3, "P": 4, "E": 5}


def mem_in_unit(kb: int | float, unit: str) -> str:
    """Memory forced to a unit by ``-o "mem::G"``: value and unit letter, no
    "bytes" (``5.2 G``; KB as an integer) [inferred]."""
    p = _UNIT_POWER[unit]
    if p == 0:
        return f"{int(kb)} K"
    return f"{kb / 1024**p:.1f} {unit}"


def limit_text(kb: int | float, unit: str) -> str:
    """A limit in bjobs -l's limit rows: in LSF_UNIT_FOR_LIMITS (`unit`), moved up
    by 1024s while it is at least 1024 (`4000` MB -> `3.9 G`, as in an LSF 10
    capture), a whole number as such (`0 M`, `500 M`), else one decimal."""
    p = _UNIT_POWER.get((unit or "KB").upper()[:1], 0)
    value = kb / 1024**p
    letters = "KMGTPE"
    while value >= 1024 and p < len(letters) - 1:
        value /= 1024
        p += 1
    text = str(int(value)) if float(value).is_integer() else f"{value:.1f}"
    return f"{text} {letters[p]}"


def aps_number(value: float) -> str:
    """APS values as bmod/bjobs -l show them: ``10`` for 10.0, else 2 decimals."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}"


def _started(job: JobView) -> bool:
    return job.start_time is not None and job.status not in PENDING


# ---------------------------------------------------------------------------
# default / -w table and -aps
# ---------------------------------------------------------------------------


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


def table(
    jobs: Iterable[JobView],
    *,
    wide: bool = False,
    jobid_width: int = 7,
    year: bool = False,
    header: bool = True,
    reasons: bool = False,
) -> str:
    """``bjobs`` / ``bjobs -w`` (``header=False``: ``-noheader``).
    ``reasons=True`` adds each job's pending/suspending reasons under its row
    (``bjobs -s``; ``bjobs -p`` has its own layout, :func:`pend_table`)."""
    jobs = list(jobs)
    if not jobs:
        return ""
    out = [_table_header(jobid_width)] if header else []
    for job in jobs:
        row, extra = _table_rows(job, wide=wide, jobid_width=jobid_width, year=year)
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
) -> str:
    """``bjobs -p`` (reason display level 0, reference 3.6 [OL widths]): no
    EXEC_HOST column, QUEUE 11, FROM_HOST 14, JOB_NAME 18 (``*``-cut), then one
    `` reason;`` line per pending reason under each row."""
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
        out.extend(reason_lines(job))
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


# ---------------------------------------------------------------------------
# -l / -UF
# ---------------------------------------------------------------------------


def header_record(job: JobView, *, max_user_priority_set: bool) -> str:
    """The unwrapped header record of bjobs -l (no trailing ``;``)."""
    parts = [f"Job <{display_id(job)}>"]
    if job.name is not None:
        parts.append(f", Job Name <{job_name(job)}>")
    parts.append(f", User <{job.user}>")
    parts.append(f", Project <{job.project}>")
    if job.user_group:
        parts.append(f", User Group <{job.user_group}>")
    if job.application:
        parts.append(f", Application <{job.application}>")
    parts.append(f", Status <{job.status}>")
    parts.append(f", Queue <{job.queue}>")
    if max_user_priority_set and job.priority is not None:
        parts.append(f", Job Priority <{job.priority}>")
    parts.append(f", Command <{job.command}>")
    if job.share_group:
        parts.append(f", Share group charged <{job.share_group}>")
    if job.aps_system is not None:
        parts.append(f", System Absolute Priority <{aps_number(job.aps_system)}>")
    if job.aps_admin is not None:
        parts.append(f", Admin factor value <{aps_number(job.aps_admin)}>")
    if job.esub:
        parts.append(f", Esub <{job.esub}>")
    return "".join(parts)


def submit_record(job: JobView) -> str:
    """The submit record's text after the time stamp, ending with ``;``."""
    parts = [f"Submitted from host <{job.from_host}>"]
    parts.append(f", CWD <{home_relative(job.cwd, job.home)}>")
    if job.specified_cwd:
        parts.append(f", Specified CWD <{job.specified_cwd}>")
    if job.output_file:
        label = "Output File (overwrite)" if job.output_overwrite else "Output File"
        parts.append(f", {label} <{job.output_file}>")
    if job.error_file:
        label = "Error File (overwrite)" if job.error_overwrite else "Error File"
        parts.append(f", {label} <{job.error_file}>")
    mx = job.max_processors
    if job.num_processors > 1 or (mx is not None and mx > 1):
        if mx is not None and mx != job.num_processors:
            parts.append(f", {job.num_processors}-{mx} Task(s)")
        else:
            parts.append(f", {job.num_processors} Task(s)")
    if job.res_req:
        parts.append(f", Requested Resources <{job.res_req}>")
    if job.dependency:
        parts.append(f", Dependency Condition <{job.dependency}>")
    if job.submit_priority is not None:
        parts.append(f", User Priority <{job.submit_priority}>")
    return "".join(parts) + ";"


def start_record(job: JobView, *, short_hostlist: bool = False) -> str:
    """``Started N Task(s) on Host(s) <h> ..., Allocated N Slot(s) on Host(s)
    <h> ..., Execution Home <..>, Execution CWD <..>;`` with soft host separators."""
    n = len(job.exec_hosts)
    hosts = short_hosts(job.exec_hosts) if short_hostlist else list(job.exec_hosts)
    hl = host_list(hosts)
    text = f"Started {n} Task(s) on Host(s){hl}, Allocated {n} Slot(s) on Host(s){hl}"
    if job.exec_home:
        text += f", Execution Home <{job.exec_home}>"
    if job.exec_cwd:
        text += f", Execution CWD <{job.exec_cwd}>"
    return text + ";"


def _usage_items(job: JobView) -> tuple[str | None, list[str], tuple[int, list[int]] | None]:
    cpu = f"The CPU time used is {int(job.cpu_time)} seconds." if int(job.cpu_time) > 0 else None
    mem: list[str] = []
    if job.mem_kb is not None:
        mem.append(f"MEM: {mem_text(job.mem_kb)}")
    if job.swap_kb is not None:
        mem.append(f"SWAP: {mem_text(job.swap_kb)}")
    if job.nthreads is not None and mem:
        mem.append(f"NTHREAD: {job.nthreads}")
    pid = None
    if job.pids:
        pid = (job.pgid if job.pgid is not None else job.pids[0], list(job.pids))
    return cpu, mem, pid


def _exit_text(job: JobView) -> str:
    if job.exit_code:
        return f"Exited with exit code {job.exit_code}."
    if job.exit_reason and job.exit_reason.startswith("TERM_"):
        return f"Exited by LSF signal {job.exit_reason.split(':', 1)[0].strip()}."
    return "Exited."


def _host_cpu_lines(job: JobView) -> list[str]:
    """FP13's per-host CPU split; the emulator charges all CPU to the first host."""
    hosts = []
    for h in job.exec_hosts:
        if h not in hosts:
            hosts.append(h)
    return [
        f"HOST: {h}; CPU_TIME: {int(job.cpu_time) if i == 0 else 0} seconds"
        for i, h in enumerate(hosts)
    ]


def _long_one(
    job: JobView,
    *,
    now: float,
    max_user_priority_set: bool,
    year: bool,
    uf: bool,
    short_hostlist: bool,
) -> str:
    indent = PREFIX_LEN_YEAR if year else PREFIX_LEN
    pad = " " * indent

    def rec(text: str) -> str:
        if uf:
            return text.replace(SOFT_SPACE, " ") + "\n"
        return wrap_record(text, indent)

    def stamp(t: float) -> str:
        return long_prefix(t, year) + ": "

    out: list[str] = ["\n"]
    out.append(rec(header_record(job, max_user_priority_set=max_user_priority_set)))
    out.append(rec(stamp(job.submit_time) + submit_record(job)))

    if job.status in PENDING:
        out.append(" PENDING REASONS:\n")
        out.extend(f" {r};\n" for r in job.pend_reasons)
    else:
        if _started(job) and job.exec_hosts:
            out.append(rec(stamp(job.start_time) + start_record(job, short_hostlist=short_hostlist)))
        if job.status in ("RUN",) + SUSPENDED:
            cpu, mem, pid = _usage_items(job)
            if cpu or mem or pid:
                if uf:
                    items = list(mem)
                    if pid:
                        items += [f"PGID: {pid[0]}", "PIDs: " + " ".join(map(str, pid[1]))]
                    text = stamp(now) + "Resource usage collected."
                    if cpu:
                        text += " " + cpu
                    if items:
                        text += " " + "; ".join(items) + ";"
                    out.append(text + "\n")
                else:
                    out.append(stamp(now) + "Resource usage collected.\n")
                    if cpu:
                        out.append(pad + cpu + "\n")
                    if mem:
                        out.append(pad + ";  ".join(mem) + "\n")
                    if pid:
                        out.append(pad + f"PGID: {pid[0]};  PIDs: " + "".join(f"{p} " for p in pid[1]) + "\n")
        if job.status in SUSPENDED:
            out.append(" SUSPENDING REASONS:\n")
            out.extend(f" {r};\n" for r in job.susp_reasons)
        if job.status in FINISHED and job.finish_time is not None:
            ran = job.start_time is not None and bool(job.exec_hosts)
            cpu_sentence = f" The CPU time used is {job.cpu_time:.1f} seconds." if ran else ""
            verdict = "Done successfully." if job.status == "DONE" else _exit_text(job)
            host_lines = _host_cpu_lines(job) if ran else []
            if uf:
                text = stamp(job.finish_time) + verdict + cpu_sentence
                if host_lines:
                    text += " " + " ".join(h + ";" for h in host_lines)
                out.append(text + "\n")
            else:
                out.append(rec(stamp(job.finish_time) + verdict + cpu_sentence))
                out.extend(pad + h + "\n" for h in host_lines)
            if job.status == "EXIT" and job.exit_reason:
                reason = job.exit_reason if job.exit_reason.endswith(".") else job.exit_reason + "."
                out.append(rec(stamp(job.finish_time) + f"Completed <exit>; {reason}"))

    # The limit section: an empty line, then the limit groups separated by
    # empty lines; every later block is introduced by its own empty line.
    out.append("\n")
    if job.run_limit is not None:
        out.append(f"{RUNLIMIT_TITLE}\n {job.run_limit:.1f} min\n")
    if job.mem_limit_kb is not None:
        # LSF 10: a name row, then each value right-aligned in 6 with its unit
        # letter and a space on both sides (` CORELIMIT MEMLIMIT` / `      0 M     3.9 G `).
        if job.run_limit is not None:
            out.append("\n")
        number, letter = limit_text(job.mem_limit_kb, job.limits_unit).split(" ")
        out.append(f" MEMLIMIT\n {number:>6} {letter} \n")
    if job.max_mem_kb is not None:
        avg = mem_text(job.avg_mem_kb) if job.avg_mem_kb is not None else "-"
        out.append(f"\n MEMORY USAGE:\n MAX MEM: {mem_text(job.max_mem_kb)};  AVG MEM: {avg}\n")
    out.append("\n SCHEDULING PARAMETERS:\n" + LOAD_TABLE)
    out.append("\n RESOURCE REQUIREMENT DETAILS:\n")
    combined = job.combined_res_req if job.combined_res_req is not None else job.res_req
    if job.effective_res_req is not None:
        effective = job.effective_res_req
    else:
        effective = job.res_req if _started(job) else None
    out.append(rec(f" Combined: {combined or '-'}"))
    out.append(rec(f" Effective: {effective or '-'}"))
    return "".join(out)


def long(
    jobs: Iterable[JobView],
    *,
    now: float,
    max_user_priority_set: bool,
    year: bool = False,
    uf: bool = False,
    short_hostlist: bool = False,
) -> str:
    """``bjobs -l`` (``uf=True``: ``bjobs -UF``). Each job starts with an empty
    line; jobs are separated by 78 dashes; the output ends with an empty line.
    ``Job Priority <N>`` shows when *max_user_priority_set* and the job has a
    priority. ``short_hostlist`` mirrors ``LSB_SHORT_HOSTLIST=1``."""
    blocks = [
        _long_one(
            j,
            now=now,
            max_user_priority_set=max_user_priority_set,
            year=year,
            uf=uf,
            short_hostlist=short_hostlist,
        )
        for j in jobs
    ]
    if not blocks:
        return ""
    return (JOB_SEPARATOR + "\n").join(blocks) + "\n"


# ---------------------------------------------------------------------------
# -o / -json
# ---------------------------------------------------------------------------


class FormatError(ValueError):
    """A bad ``-o`` / ``LSB_BJOBS_FORMAT`` string; ``str()`` is LSF's message."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class FieldSpec:
    name: str  # canonical lower-case field name
    width: int | None = None  # None = unlimited, no padding
    right: bool = False  # ":-N" right justification
    unit: str | None = None  # K M G T P E for memory fields

    @property
    def header(self) -> str:
        return self.name.upper()


@dataclass(frozen=True)
class Format:
    fields: tuple[FieldSpec, ...]
    delimiter: str = " "

    @property
    def headers(self) -> list[str]:
        return [f.header for f in self.fields]


@dataclass(frozen=True)
class _FieldDef:
    width: int
    aliases: tuple[str, ...] = ()
    memory: bool = False


# canonical name -> recommended width and aliases (LSF 10.1 bjobs man page)
FIELDS: dict[str, _FieldDef] = {
    "jobid": _FieldDef(7, ("id",)),
    "jobindex": _FieldDef(8),
    "stat": _FieldDef(5),
    "user": _FieldDef(7),
    "user_group": _FieldDef(15, ("ugroup",)),
    "queue": _FieldDef(10),
    "job_name": _FieldDef(10, ("name",)),
    "job_description": _FieldDef(17, ("description",)),
    "proj_name": _FieldDef(11, ("proj", "project")),
    "application": _FieldDef(13, ("app",)),
    "service_class": _FieldDef(13, ("sla",)),
    "job_group": _FieldDef(10, ("group",)),
    "job_priority": _FieldDef(12, ("priority",)),
    "dependency": _FieldDef(15),
    "pend_reason": _FieldDef(11),
    "command": _FieldDef(15, ("cmd",)),
    "pids": _FieldDef(20),
    "exit_code": _FieldDef(10),
    "exit_reason": _FieldDef(50),
    "interactive": _FieldDef(11),
    "from_host": _FieldDef(11),
    "first_host": _FieldDef(11),
    "exec_host": _FieldDef(11),
    "nexec_host": _FieldDef(10),
    "alloc_slot": _FieldDef(20),
    "nalloc_slot": _FieldDef(10),
    "exclusive": _FieldDef(13),
    "nreq_slot": _FieldDef(10),
    "submit_time": _FieldDef(15),
    "start_time": _FieldDef(15),
    "time_left": _FieldDef(11),
    "finish_time": _FieldDef(16),
    "pend_time": _FieldDef(12),
    "cpu_used": _FieldDef(10),
    "run_time": _FieldDef(15),
    "slots": _FieldDef(5),
    "mem": _FieldDef(10, memory=True),
    "max_mem": _FieldDef(10, memory=True),
    "avg_mem": _FieldDef(10, memory=True),
    "swap": _FieldDef(10, memory=True),
    "memlimit": _FieldDef(10, memory=True),
    "nthreads": _FieldDef(10),
    "min_req_proc": _FieldDef(12),
    "max_req_proc": _FieldDef(12),
    "effective_resreq": _FieldDef(17, ("eresreq",)),
    "combined_resreq": _FieldDef(20, ("cresreq",)),
    "runtimelimit": _FieldDef(12),
    "input_file": _FieldDef(10),
    "output_file": _FieldDef(11),
    "error_file": _FieldDef(10),
    "sub_cwd": _FieldDef(10),
    "exec_home": _FieldDef(10),
    "exec_cwd": _FieldDef(10),
    "esub": _FieldDef(20),
}

_ALIASES: dict[str, str] = {}
for _name, _def in FIELDS.items():
    _ALIASES[_name] = _name
    for _a in _def.aliases:
        _ALIASES[_a] = _name

_DELIM = re.compile(r"""delimiter\s*=\s*(?:'([^']*)'|"([^"]*)"|(\S*))""", re.IGNORECASE)
_UNITS = {"K": "K", "KB": "K", "M": "M", "MB": "M", "G": "G", "GB": "G", "T": "T", "TB": "T",
          "P": "P", "PB": "P", "E": "E", "EB": "E"}


def _bad_field(token: str) -> FormatError:
    return FormatError(f"<{token}> in the format string is not a valid field name.")


def parse_format(spec: str) -> Format:
    """Parse ``"field[:[-][width][:unit]] ... [delimiter='c']"``.

    Field names and aliases are case-insensitive and map to the canonical
    name (the header is its upper case). ``field:`` takes the recommended
    width. Raises :class:`FormatError` with an LSF-like message."""
    if not isinstance(spec, str):
        raise FormatError("The format string is not valid.")
    delimiter = " "
    found = list(_DELIM.finditer(spec))
    if len(found) > 1:
        raise FormatError("The delimiter can only be specified once.")
    if found:
        m = found[0]
        value = next(g for g in m.groups() if g is not None)
        if len(value) != 1:
            raise FormatError(f"<{m.group(0)}>: the delimiter must be a single character.")
        delimiter = value
        spec = spec[: m.start()] + " " + spec[m.end():]
    fields: list[FieldSpec] = []
    for token in spec.split():
        parts = token.split(":")
        if len(parts) > 3:
            raise _bad_field(token)
        canonical = _ALIASES.get(parts[0].lower())
        if canonical is None:
            raise _bad_field(parts[0])
        fdef = FIELDS[canonical]
        width: int | None = None
        right = False
        unit: str | None = None
        if len(parts) >= 2:
            w = parts[1]
            if w.startswith("-"):
                right = True
                w = w[1:]
            if w == "":
                width = fdef.width
            elif w.isascii() and w.isdigit() and int(w) > 0:
                width = int(w)
            else:
                raise FormatError(f"<{token}>: the output width must be a positive integer.")
        if len(parts) == 3:
            u = _UNITS.get(parts[2].upper())
            if u is None:
                raise FormatError(f"<{token}>: the unit must be one of KB MB GB TB PB EB.")
            if fdef.memory:
                unit = u
        fields.append(FieldSpec(canonical, width, right, unit))
    if not fields:
        raise FormatError("No field names were specified in the format string.")
    return Format(tuple(fields), delimiter)


def _dur(seconds: float, hms_mode: bool, *, ceil: bool = False, unit: bool = True) -> str:
    if hms_mode:
        return hms(seconds, ceil=ceil)
    return f"{int(seconds)} second(s)" if unit else str(int(seconds))


def _finish_time(job: JobView, year: bool) -> str | None:
    if job.status in FINISHED:
        if job.finish_time is None:
            return None
        text = table_time(job.finish_time, year)
        return text + " L" if job.run_limit is not None else text
    if job.run_limit is not None and _started(job):
        return table_time(job.start_time + job.run_limit * 60, year) + " L"
    return None


def _time_left(job: JobView, now: float, hms_mode: bool) -> str | None:
    if job.run_limit is None or not _started(job) or job.status in FINISHED:
        return None
    left = max(0.0, job.start_time + job.run_limit * 60 - now)
    if hms_mode:
        return hms(left) + " L"
    h, m = divmod(int(left) // 60, 60)
    return f"{h}:{m:02d} L"


def _mem_field(kb: int | None, unit: str | None) -> str | None:
    if kb is None:
        return None
    return mem_in_unit(kb, unit) if unit else mem_text(kb)


def field_value(job: JobView, spec: FieldSpec, *, now: float, hms_mode: bool = False, year: bool = False) -> str | None:
    """The text of one ``-o`` field, or None when LSF shows ``-`` / ``""``."""
    n = spec.name
    started = _started(job)
    hosts = list(job.exec_hosts) if started else []
    if n == "jobid":
        return str(job.job_id)
    if n == "jobindex":
        return str(job.array_index)
    if n == "stat":
        return job.status
    if n == "user":
        return job.user
    if n == "user_group":
        return job.user_group or None
    if n == "queue":
        return job.queue
    if n == "job_name":
        return job_name(job)
    if n == "proj_name":
        return job.project
    if n == "application":
        return job.application or None
    if n == "job_priority":
        return str(job.priority) if job.priority is not None else None
    if n == "dependency":
        return job.dependency or None
    if n == "pend_reason":
        if job.status in PENDING and job.pend_reasons:
            return " ".join(f"{r};" for r in job.pend_reasons)
        return None
    if n == "command":
        return job.command
    if n == "pids":
        return ",".join(map(str, job.pids)) if job.pids else None
    if n == "exit_code":
        return str(job.exit_code) if job.status == "EXIT" and job.exit_code else None
    if n == "exit_reason":
        return job.exit_reason or None
    if n == "from_host":
        return job.from_host
    if n == "first_host":
        return hosts[0] if hosts else None
    if n == "exec_host":
        return ":".join(hosts) if hosts else None
    if n == "nexec_host":
        return str(len(dict.fromkeys(hosts))) if hosts else None
    if n == "alloc_slot":
        return ":".join(short_hosts(hosts)) if hosts else None
    if n == "nalloc_slot":
        return str(len(hosts)) if hosts else None
    if n == "nreq_slot":
        return str(job.num_processors)
    if n == "min_req_proc":
        return str(job.num_processors)
    if n == "max_req_proc":
        return str(job.max_processors if job.max_processors is not None else job.num_processors)
    if n == "slots":
        return str(len(hosts) if hosts else job.num_processors)
    if n == "submit_time":
        return table_time(job.submit_time, year)
    if n == "start_time":
        return table_time(job.start_time, year) if started else None
    if n == "finish_time":
        return _finish_time(job, year)
    if n == "time_left":
        return _time_left(job, now, hms_mode)
    if n == "pend_time":
        return _dur(job.pend_time, hms_mode, unit=False)
    if n == "cpu_used":
        return hms(job.cpu_time, ceil=True) if hms_mode else f"{job.cpu_time:.1f} second(s)"
    if n == "run_time":
        return _dur(job.run_time, hms_mode)
    if n == "runtimelimit":
        if job.run_limit is None:
            return None
        return hms(job.run_limit * 60) if hms_mode else f"{job.run_limit:.1f}"
    if n == "mem":
        return _mem_field(job.mem_kb, spec.unit)
    if n == "memlimit":
        if job.mem_limit_kb is None:
            return None
        return mem_in_unit(job.mem_limit_kb, spec.unit) if spec.unit else limit_text(job.mem_limit_kb, job.limits_unit)
    if n == "max_mem":
        return _mem_field(job.max_mem_kb, spec.unit)
    if n == "avg_mem":
        return _mem_field(job.avg_mem_kb, spec.unit)
    if n == "swap":
        return _mem_field(job.swap_kb, spec.unit)
    if n == "nthreads":
        return str(job.nthreads) if job.nthreads is not None else None
    if n == "effective_resreq":
        if job.effective_res_req is not None:
            return job.effective_res_req or None
        return (job.res_req or None) if started else None
    if n == "combined_resreq":
        value = job.combined_res_req if job.combined_res_req is not None else job.res_req
        return value or None
    if n == "output_file":
        return job.output_file or None
    if n == "error_file":
        return job.error_file or None
    if n == "sub_cwd":
        return home_relative(job.cwd, job.home)
    if n == "exec_home":
        return job.exec_home or None
    if n == "exec_cwd":
        return job.exec_cwd or None
    if n == "esub":
        return job.esub or None
    if n == "interactive":
        return "N"
    if n == "exclusive":
        return "N"
    # job_description, service_class, job_group, input_file: not emulated
    return None


def _cell(text: str, spec: FieldSpec, *, header: bool = False) -> str:
    if spec.width is None:
        return text
    w = spec.width
    if len(text) > w:
        text = name_trunc(text, w) if spec.name == "job_name" and not header else text[:w]
    return text.rjust(w) if spec.right else text.ljust(w)


def custom(
    jobs: Iterable[JobView],
    fmt: Format,
    *,
    now: float,
    header: bool = True,
    hms: bool = False,
    year: bool = False,
) -> str:
    """``bjobs -o``: header (field names, upper case) and one row per job;
    missing values print ``-``."""
    jobs = list(jobs)
    if not jobs:
        return ""
    d = fmt.delimiter
    out = []
    if header:
        out.append(d.join(_cell(f.header, f, header=True) for f in fmt.fields))
    for job in jobs:
        cells = []
        for f in fmt.fields:
            v = field_value(job, f, now=now, hms_mode=hms, year=year)
            cells.append(_cell("-" if v is None or v == "" else v, f))
        out.append(d.join(cells))
    return "\n".join(out) + "\n"


def json_string(text: str) -> str:
    """A JSON string literal as LSF writes it: ``/`` escaped as ``\\/``,
    non-ASCII kept as UTF-8."""
    return json.dumps(text, ensure_ascii=False).replace("/", "\\/")


def _json_record(pairs: list[tuple[str, str]]) -> str:
    body = ",\n".join(f"      {json_string(k)}:{json_string(v)}" for k, v in pairs)
    return "    {\n" + body + "\n    }"


def json_out(
    jobs: Iterable[JobView],
    fmt: Format,
    *,
    now: float,
    not_found: Sequence[str] = (),
    hms: bool = False,
    year: bool = False,
    not_found_message: Callable[[str], str] | None = None,
) -> str:
    """``bjobs -o ... -json``: 2-space indentation, no space after ``:``, every
    value a string (missing ones ``""``), ``JOBS`` a number. Job IDs in
    *not_found* become ``{"JOBID":"123","ERROR":"Job <123> is not found"}``
    records after the found jobs."""
    records: list[str] = []
    for job in jobs:
        pairs = []
        for f in fmt.fields:
            v = field_value(job, f, now=now, hms_mode=hms, year=year)
            pairs.append((f.header, "" if v is None else v))
        records.append(_json_record(pairs))
    for jid in not_found:
        message = not_found_message(jid) if not_found_message else f"Job <{jid}> is not found"
        records.append(_json_record([("JOBID", str(jid)), ("ERROR", message)]))
    body = ",\n".join(records)
    return (
        "{\n"
        '  "COMMAND":"bjobs",\n'
        f'  "JOBS":{len(records)},\n'
        '  "RECORDS":[\n'
        + (body + "\n" if body else "")
        + "  ]\n"
        "}\n"
    )
