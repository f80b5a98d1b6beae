"""``bjobs -o`` (custom fields, widths, units, ``delimiter=``, ``-hms``) and
``bjobs -o ... -json`` (reference 3.10): the field table, the format
parser and the text of each field.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from lsfemu.jobstate import FINISHED, PENDING
from lsfemu.render import outfmt
from lsfemu.render.bjobs.common import (
    has_started, home_relative, job_name, limit_text, mem_in_unit, mem_text, name_trunc, short_hosts,
)
from lsfemu.render.outfmt import FieldDef, FieldSpec, Format, FormatError, json_string  # noqa: F401 (bjobs' names)
from lsfemu.render.timefmt import hms, table_time
from lsfemu.views import JobView


# canonical name -> recommended width and aliases (LSF 10.1 bjobs man page)
FIELDS: dict[str, FieldDef] = {
    "jobid": FieldDef(7, ("id",)),
    "jobindex": FieldDef(8),
    "stat": FieldDef(5),
    "user": FieldDef(7),
    "user_group": FieldDef(15, ("ugroup",)),
    "queue": FieldDef(10),
    "job_name": FieldDef(10, ("name",)),
    "job_description": FieldDef(17, ("description",)),
    "proj_name": FieldDef(11, ("proj", "project")),
    "application": FieldDef(13, ("app",)),
    "service_class": FieldDef(13, ("sla",)),
    "job_group": FieldDef(10, ("group",)),
    "job_priority": FieldDef(12, ("priority",)),
    "dependency": FieldDef(15),
    "pend_reason": FieldDef(11),
    "command": FieldDef(15, ("cmd",)),
    "pre_exec_command": FieldDef(16, ("pre_cmd",)),
    "post_exec_command": FieldDef(17, ("post_cmd",)),
    "pids": FieldDef(20),
    "exit_code": FieldDef(10),
    "exit_reason": FieldDef(50),
    "interactive": FieldDef(11),
    "from_host": FieldDef(11),
    "first_host": FieldDef(11),
    "exec_host": FieldDef(11),
    "nexec_host": FieldDef(10),
    "alloc_slot": FieldDef(20),
    "nalloc_slot": FieldDef(10),
    "exclusive": FieldDef(13),
    "nreq_slot": FieldDef(10),
    "submit_time": FieldDef(15),
    "start_time": FieldDef(15),
    "estimated_start_time": FieldDef(20, ("estart_time",)),
    "time_left": FieldDef(11),
    "finish_time": FieldDef(16),
    "pend_time": FieldDef(12),
    "cpu_used": FieldDef(10),
    "run_time": FieldDef(15),
    "slots": FieldDef(5),
    "mem": FieldDef(10, memory=True),
    "max_mem": FieldDef(10, memory=True),
    "avg_mem": FieldDef(10, memory=True),
    "swap": FieldDef(10, memory=True),
    "memlimit": FieldDef(10, memory=True),
    "nthreads": FieldDef(10),
    "min_req_proc": FieldDef(12),
    "max_req_proc": FieldDef(12),
    "effective_resreq": FieldDef(17, ("eresreq",)),
    "combined_resreq": FieldDef(20, ("cresreq",)),
    "runtimelimit": FieldDef(12),
    "estimated_run_time": FieldDef(20, ("ertime",)),
    "input_file": FieldDef(10),
    "output_file": FieldDef(11),
    "error_file": FieldDef(10),
    "sub_cwd": FieldDef(10),
    "exec_home": FieldDef(10),
    "exec_cwd": FieldDef(10),
    "esub": FieldDef(20),
    "kill_reason": FieldDef(50),
    "suspend_reason": FieldDef(50),
    "resume_reason": FieldDef(50),
}

def parse_format(spec: str) -> Format:
    """Parse ``"field[:[-][width][:unit]] ... [delimiter='c']"`` against bjobs'
    fields (:func:`lsfemu.render.outfmt.parse_format`)."""
    return outfmt.parse_format(spec, FIELDS)


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
    if job.run_limit is not None and has_started(job):
        return table_time(job.start_time + job.run_limit * 60, year) + " L"
    return None


def _time_left(job: JobView, now: float, hms_mode: bool) -> str | None:
    if job.run_limit is None or not has_started(job) or job.status in FINISHED:
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
    started = has_started(job)
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
    if n == "job_group":
        return job.job_group or None
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
    if n == "pre_exec_command":
        return job.pre_exec or None
    if n == "post_exec_command":
        return job.post_exec or None
    if n == "pids":
        return ",".join(map(str, job.pids)) if job.pids else None
    if n == "exit_code":
        return str(job.exit_code) if job.status == "EXIT" and job.exit_code else None
    if n == "exit_reason":
        return job.exit_reason or None
    if n in ("kill_reason", "suspend_reason", "resume_reason"):  # bkill -C, bstop -C, bresume -C
        return getattr(job, n) or None
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
    if n == "estimated_start_time":  # a reserving job's predicted start (a backfill queue exists)
        return table_time(job.predicted_start, year) if job.predicted_start is not None else None
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
    if n == "estimated_run_time":  # bsub -We, in seconds
        return None if job.est_runtime_min is None else str(int(job.est_runtime_min * 60))
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
    # job_description, service_class, input_file: not emulated
    return None


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
    rows = [[field_value(job, f, now=now, hms_mode=hms, year=year) for f in fmt.fields] for job in jobs]
    return outfmt.text_table(fmt, rows, header=header, cuts={"job_name": name_trunc})


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
        records.append(outfmt.json_record(pairs))
    for jid in not_found:
        message = not_found_message(jid) if not_found_message else f"Job <{jid}> is not found"
        records.append(outfmt.json_record([("JOBID", str(jid)), ("ERROR", message)]))
    return outfmt.json_document("bjobs", "JOBS", records)
