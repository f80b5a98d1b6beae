"""``bjobs -o`` (custom fields, widths, units, ``delimiter=``, ``-hms``) and
``bjobs -o ... -json`` (reference 3.10): the field table, the format
parser and the text of each field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from lsfemu.jobstate import FINISHED, PENDING
from lsfemu.render.bjobs.common import (
    has_started, home_relative, job_name, limit_text, mem_in_unit, mem_text, name_trunc, short_hosts,
)
from lsfemu.render.timefmt import hms, table_time
from lsfemu.views import JobView


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
    "pre_exec_command": _FieldDef(16, ("pre_cmd",)),
    "post_exec_command": _FieldDef(17, ("post_cmd",)),
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
    "estimated_start_time": _FieldDef(20, ("estart_time",)),
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
    "estimated_run_time": _FieldDef(20, ("ertime",)),
    "input_file": _FieldDef(10),
    "output_file": _FieldDef(11),
    "error_file": _FieldDef(10),
    "sub_cwd": _FieldDef(10),
    "exec_home": _FieldDef(10),
    "exec_cwd": _FieldDef(10),
    "esub": _FieldDef(20),
    "kill_reason": _FieldDef(50),
    "suspend_reason": _FieldDef(50),
    "resume_reason": _FieldDef(50),
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
