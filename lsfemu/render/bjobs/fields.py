"""bjobs' ``-o`` fields (LSF 10.1's table, lsf-breadth 5.1): each field's
recommended width and aliases (:data:`FIELDS`, in the man page's order, which
``all`` follows) and the text of its value for a job (:func:`value`).

A field LSF has whose data lsfemu does not keep (advance reservations,
service classes, MultiCluster forwarding, GPUs' modes, energy, per-process
limits bsub refuses, eligible/ineligible pending time...) prints what LSF
prints for an empty value: ``-`` (``""`` in ``-json``); the list is
:data:`NOT_KEPT` (docs/semantics.md, "bjobs' display settings and views").

The run-time estimate fields (``time_left``, ``finish_time``, ``%complete``;
bjobs -WL/-WF/-WP) carry LSF's status letter: ``E`` an estimate (bsub -We)
not exceeded, ``X`` exceeded, ``L`` a run limit and no estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from lsfemu.jobstate import FINISHED, PENDING, ineligible
from lsfemu.render.bjobs.common import (
    has_started, home_relative, job_name, limit_text, mem_in_unit, mem_text, short_hosts,
)
from lsfemu.render.outfmt import FieldDef, FieldSpec
from lsfemu.render.timefmt import hms, table_time
from lsfemu.sched import hostfile
from lsfemu.views import JobView

# canonical name -> recommended width and aliases, in LSF 10.1's order (the man page's Table 1)
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
    "rsvid": FieldDef(40),
    "esub": FieldDef(20),
    "kill_reason": FieldDef(50),
    "suspend_reason": FieldDef(50),
    "resume_reason": FieldDef(50),
    "kill_issue_host": FieldDef(50),
    "suspend_issue_host": FieldDef(50),
    "resume_issue_host": FieldDef(50),
    "dependency": FieldDef(15),
    "pend_reason": FieldDef(11),
    "charged_saap": FieldDef(50, ("saap",)),
    "command": FieldDef(15, ("cmd",)),
    "pre_exec_command": FieldDef(16, ("pre_cmd",)),
    "post_exec_command": FieldDef(17, ("post_cmd",)),
    "resize_notification_command": FieldDef(27, ("resize_cmd",)),
    "pids": FieldDef(20),
    "exit_code": FieldDef(10),
    "exit_reason": FieldDef(50),
    "interactive": FieldDef(11),
    "from_host": FieldDef(11),
    "first_host": FieldDef(11),
    "exec_host": FieldDef(11),
    "nexec_host": FieldDef(10),
    "ask_hosts": FieldDef(30),
    "alloc_slot": FieldDef(20),
    "nalloc_slot": FieldDef(10),
    "host_file": FieldDef(10),
    "exclusive": FieldDef(13),
    "nreq_slot": FieldDef(10),
    "submit_time": FieldDef(15),
    "start_time": FieldDef(15),
    "estimated_start_time": FieldDef(20, ("estart_time",)),
    "specified_start_time": FieldDef(20, ("sstart_time",)),
    "specified_terminate_time": FieldDef(24, ("sterminate_time",)),
    "time_left": FieldDef(11),
    "finish_time": FieldDef(16),
    "estimated_run_time": FieldDef(20, ("ertime",)),
    "ru_utime": FieldDef(12),
    "ru_stime": FieldDef(12),
    "%complete": FieldDef(11),
    "warning_action": FieldDef(15, ("warn_act",)),
    "action_warning_time": FieldDef(19, ("warn_time",)),
    "pendstate": FieldDef(9),
    "pend_time": FieldDef(12),
    "ependtime": FieldDef(12),
    "ipendtime": FieldDef(12),
    "estimated_sim_start_time": FieldDef(24, ("esstart_time",)),
    "effective_plimit": FieldDef(18),
    "plimit_remain": FieldDef(15),
    "effective_eplimit": FieldDef(19),
    "eplimit_remain": FieldDef(16),
    "cpu_used": FieldDef(10),
    "run_time": FieldDef(15),
    "idle_factor": FieldDef(11),
    "exception_status": FieldDef(16, ("except_stat",)),
    "slots": FieldDef(5),
    "mem": FieldDef(10, memory=True),
    "max_mem": FieldDef(10, memory=True),
    "avg_mem": FieldDef(10, memory=True),
    "memlimit": FieldDef(10, memory=True),
    "swap": FieldDef(10, memory=True),
    "swaplimit": FieldDef(10, memory=True),
    "gpu_num": FieldDef(10, ("gnum",)),
    "gpu_mode": FieldDef(20, ("gmode",)),
    "j_exclusive": FieldDef(15, ("j_excl",)),
    "gpu_alloc": FieldDef(30, ("galloc",)),
    "nthreads": FieldDef(10),
    "hrusage": FieldDef(50, memory=True),
    "min_req_proc": FieldDef(12),
    "max_req_proc": FieldDef(12),
    "effective_resreq": FieldDef(17, ("eresreq",)),
    "combined_resreq": FieldDef(20, ("cresreq",)),
    "network_req": FieldDef(15),
    "filelimit": FieldDef(10),
    "corelimit": FieldDef(10, memory=True),
    "stacklimit": FieldDef(10, memory=True),
    "processlimit": FieldDef(12),
    "runtimelimit": FieldDef(12),
    "plimit": FieldDef(10),
    "eplimit": FieldDef(10),
    "input_file": FieldDef(10),
    "output_file": FieldDef(11),
    "error_file": FieldDef(10),
    "output_dir": FieldDef(15),
    "sub_cwd": FieldDef(10),
    "exec_home": FieldDef(10),
    "exec_cwd": FieldDef(10),
    "licproject": FieldDef(20),
    "forward_cluster": FieldDef(15, ("fwd_cluster",)),
    "forward_time": FieldDef(15, ("fwd_time",)),
    "srcjobid": FieldDef(8),
    "dstjobid": FieldDef(8),
    "source_cluster": FieldDef(15, ("srcluster",)),
    # The man page gives these two no width; `energy:` takes 10 here (docs/semantics.md).
    "energy": FieldDef(10),
    "gpfsio": FieldDef(10),
    "cpu_peak": FieldDef(10),
    "cpu_efficiency": FieldDef(10),  # FP13's name of FP14's cpu_peak_efficiency: both are accepted
    "cpu_peak_efficiency": FieldDef(10),
    "mem_efficiency": FieldDef(10),
    "average_cpu_efficiency": FieldDef(10),
    "cpu_peak_reached_duration": FieldDef(10),
}

#: the fields whose data lsfemu does not keep: always "-" ("" in -json)
NOT_KEPT = frozenset((
    "service_class", "rsvid", "kill_issue_host", "suspend_issue_host", "resume_issue_host", "charged_saap",
    "resize_notification_command", "ru_utime", "ru_stime", "warning_action", "action_warning_time",
    "estimated_sim_start_time", "swaplimit", "gpu_mode", "j_exclusive", "gpu_alloc", "hrusage",
    "network_req", "filelimit", "corelimit", "stacklimit", "processlimit", "licproject",
    "forward_cluster", "forward_time", "srcjobid", "dstjobid", "source_cluster", "energy", "gpfsio", "cpu_peak",
    "cpu_efficiency", "cpu_peak_efficiency", "cpu_peak_reached_duration",
))


def _asked_words(j: JobView) -> str | None:
    """-o ask_hosts: bsub -m's words (a host file is -o host_file's)."""
    if hostfile.decode(j.asked_hosts) is not None:
        return None
    return " ".join((j.asked_hosts or "").split()) or None


@dataclass(frozen=True)
class Shown:
    """How values are shown: at *now*, durations as hh:mm:ss (``-hms``), time
    stamps with the year (LSB_DISPLAY_YEAR), memory amounts in *unit* when the
    field names none (LSB_UNIT_FOR_JOBS_DISPLAY: K M G T P E, or S for the
    automatic unit without "bytes")."""

    now: float
    hms: bool = False
    year: bool = False
    unit: str | None = None


def host_reason(reason: str) -> tuple[int, str] | None:
    """(hosts, text) of a host-based pending reason (``Closed by LSF
    administrator: 3 hosts``), None for a reason of the job, its queue or user."""
    head, sep, tail = reason.rpartition(": ")
    words = tail.split()
    if sep and len(words) == 2 and words[0].isdigit() and words[1] in ("host", "hosts"):
        return int(words[0]), head
    return None


def key_reason(job: JobView) -> str | None:
    """A pending job's single key pending reason (bjobs -p1, ``-o pend_reason``):
    the first reason that names no host count (a reason of the job, its
    queue or its user: nothing can run it), else the host reason given by the
    most hosts, with its count (``Job slot limit reached: 3 hosts``)."""
    if job.status not in PENDING or not job.pend_reasons:
        return None
    counted = []
    for r in job.pend_reasons:
        c = host_reason(r)
        if c is None:
            return r
        counted.append((c[0], r))
    return max(counted, key=lambda c: c[0])[1]


def estimate(job: JobView) -> tuple[float, str] | None:
    """The run time the estimate fields count against, in seconds, and its
    status letter: the -We estimate while not exceeded (E); once exceeded,
    the run limit if any (X; else the estimate, X); a run limit and no
    estimate (L); None when the job has neither."""
    limit = job.run_limit * 60 if job.run_limit is not None else None
    if job.est_runtime_min is not None:
        est = job.est_runtime_min * 60
        if job.run_time <= est:
            return est, "E"
        return (limit if limit is not None else est), "X"
    return (limit, "L") if limit is not None else None


def _hours_minutes(seconds: float) -> str:
    """-WL's ``hours:minutes`` (``0:1``, ``12:30``: minutes not padded, as seen)."""
    h, m = divmod(int(max(0.0, seconds)) // 60, 60)
    return f"{h}:{m}"


def _time_left(job: JobView, o: Shown) -> str | None:
    basis = estimate(job)
    if basis is None or not has_started(job) or job.status in FINISHED:
        return None
    left = max(0.0, basis[0] - job.run_time)
    return f"{hms(left) if o.hms else _hours_minutes(left)} {basis[1]}"


def _finish_time(job: JobView, o: Shown) -> str | None:
    basis = estimate(job)
    if job.status in FINISHED:
        if job.finish_time is None:
            return None
        text = table_time(job.finish_time, o.year)
        return f"{text} {basis[1]}" if basis is not None else text
    if basis is None or not has_started(job):
        return None
    return f"{table_time(o.now + max(0.0, basis[0] - job.run_time), o.year)} {basis[1]}"


def _complete(job: JobView, _o: Shown) -> str | None:
    basis = estimate(job)
    if basis is None or not has_started(job) or basis[0] <= 0:
        return None
    return f"{job.run_time / basis[0] * 100:.2f}% {basis[1]}"


def pendstate(job: JobView) -> str:
    """IPEND for a job nothing can dispatch as it is (held, waiting for its
    begin time or dependency, in an inactive queue: lsfemu.jobstate.ineligible),
    EPEND for another pending job, NOTPEND for a job not pending (-o
    pendstate; bjobs -pe / -pi / -pei)."""
    if job.status not in PENDING:
        return "NOTPEND"
    return "IPEND" if ineligible(job.status, "\n".join(job.pend_reasons)) else "EPEND"


def _dur(seconds: float, o: Shown, unit: bool = True) -> str:
    if o.hms:
        return hms(seconds)
    return f"{int(seconds)} second(s)" if unit else str(int(seconds))


def _limit(seconds: float | None, o: Shown) -> str | None:
    return None if seconds is None else _dur(seconds, o, unit=False)


def _remain(limit: float | None, used: float, j: JobView, o: Shown) -> str | None:
    """-o plimit_remain / eplimit_remain: the limit less the (eligible) pending time so
    far, in seconds, negative once exceeded (IBM's table); for a pending job only."""
    if limit is None or j.status not in PENDING:
        return None
    left = int(limit) - int(used)
    if o.hms:
        return ("-" if left < 0 else "") + hms(abs(left))
    return str(left)


def _mem(kb: int | None, spec: FieldSpec, o: Shown) -> str | None:
    if kb is None:
        return None
    unit = spec.unit or o.unit
    if unit == "S":
        return mem_text(kb).removesuffix("bytes")
    return mem_in_unit(kb, unit) if unit else mem_text(kb)


def _memlimit(j: JobView, spec: FieldSpec, o: Shown) -> str | None:
    if j.mem_limit_kb is None:
        return None
    if spec.unit is None and o.unit is None:
        return limit_text(j.mem_limit_kb, j.limits_unit)
    return _mem(j.mem_limit_kb, spec, o)


def _percent(part: float, whole: float) -> str | None:
    return f"{part / whole * 100:.2f}%" if whole > 0 else None


def _hosts(job: JobView) -> list[str]:
    return list(job.exec_hosts) if has_started(job) else []


def _time(t: float | None, o: Shown) -> str | None:
    return table_time(t, o.year) if t is not None else None


def _yes(flag) -> str:
    return "Y" if flag else "N"


_Value = Callable[[JobView, Shown], "str | None"]

# name -> the text of its value (None: "-" / ""); memory fields are in _MEMORY (they take a unit)
_VALUES: dict[str, _Value] = {
    "jobid": lambda j, o: str(j.job_id),
    "jobindex": lambda j, o: str(j.array_index),
    "stat": lambda j, o: j.status,
    "user": lambda j, o: j.user,
    "user_group": lambda j, o: j.user_group,
    "queue": lambda j, o: j.queue,
    "job_name": lambda j, o: job_name(j),
    "job_description": lambda j, o: j.description,
    "proj_name": lambda j, o: j.project,
    "application": lambda j, o: j.application,
    "job_group": lambda j, o: j.job_group,
    "job_priority": lambda j, o: None if j.priority is None else str(j.priority),
    "esub": lambda j, o: j.esub,
    "kill_reason": lambda j, o: j.kill_reason,
    "suspend_reason": lambda j, o: j.suspend_reason,
    "resume_reason": lambda j, o: j.resume_reason,
    "dependency": lambda j, o: j.dependency,
    "pend_reason": lambda j, o: (r + ";") if (r := key_reason(j)) else None,
    "command": lambda j, o: j.command,
    "pre_exec_command": lambda j, o: j.pre_exec,
    "post_exec_command": lambda j, o: j.post_exec,
    "pids": lambda j, o: ",".join(map(str, j.pids)) or None,
    "exit_code": lambda j, o: str(j.exit_code) if j.status == "EXIT" and j.exit_code else None,
    "exit_reason": lambda j, o: j.exit_reason,
    "interactive": lambda j, o: _yes(j.interactive),
    "from_host": lambda j, o: j.from_host,
    "first_host": lambda j, o: (_hosts(j) or [None])[0],
    "exec_host": lambda j, o: ":".join(_hosts(j)) or None,
    "nexec_host": lambda j, o: str(len(dict.fromkeys(h))) if (h := _hosts(j)) else None,
    "ask_hosts": lambda j, o: _asked_words(j),
    "host_file": lambda j, o: (hostfile.decode(j.asked_hosts) or (None,))[0],  # bsub -hostfile: its path
    "alloc_slot": lambda j, o: ":".join(short_hosts(_hosts(j))) or None,
    "nalloc_slot": lambda j, o: str(len(h)) if (h := _hosts(j)) else None,
    "exclusive": lambda j, o: _yes(j.exclusive),
    "nreq_slot": lambda j, o: str(j.num_processors),
    "submit_time": lambda j, o: table_time(j.submit_time, o.year),
    "start_time": lambda j, o: _time(j.start_time, o) if has_started(j) else None,
    "estimated_start_time": lambda j, o: _time(j.predicted_start, o),  # a reserving job's (a backfill queue exists)
    "specified_start_time": lambda j, o: _time(j.begin_time, o),
    "specified_terminate_time": lambda j, o: _time(j.term_time, o),
    "time_left": _time_left,
    "finish_time": _finish_time,
    "estimated_run_time": lambda j, o: None if j.est_runtime_min is None else _dur(j.est_runtime_min * 60, o, False),
    "%complete": _complete,
    "exception_status": lambda j, o: " ".join(j.exceptions),
    "pendstate": lambda j, o: pendstate(j),
    "pend_time": lambda j, o: _dur(j.pend_time, o, unit=False),
    # TRACK_ELIGIBLE_PENDINFO: the pending time split (lsfemu.engine.eligibility); "-" when not tracked
    "ependtime": lambda j, o: (None if j.ineligible_pend_time is None
                               else _dur(max(0.0, j.pend_time - j.ineligible_pend_time), o, unit=False)),
    "ipendtime": lambda j, o: None if j.ineligible_pend_time is None else _dur(j.ineligible_pend_time, o, unit=False),
    # pending time limits (bsub -ptl / -eptl, PEND_TIME_LIMIT, ELIGIBLE_PEND_TIME_LIMIT), in seconds
    "plimit": lambda j, o: _limit(j.plimit, o),
    "eplimit": lambda j, o: _limit(j.eplimit, o),
    "effective_plimit": lambda j, o: _limit(j.effective_plimit, o),
    "effective_eplimit": lambda j, o: _limit(j.effective_eplimit, o),
    "plimit_remain": lambda j, o: _remain(j.effective_plimit, j.pend_time, j, o),
    "eplimit_remain": lambda j, o: _remain(j.effective_eplimit, j.pend_time - (j.ineligible_pend_time or 0.0), j, o),
    "cpu_used": lambda j, o: hms(j.cpu_time, ceil=True) if o.hms else f"{j.cpu_time:.1f} second(s)",
    "run_time": lambda j, o: _dur(j.run_time, o),
    "idle_factor": lambda j, o: f"{j.cpu_time / j.run_time:.2f}" if has_started(j) and j.run_time > 0 else None,
    "slots": lambda j, o: str(len(_hosts(j)) or j.num_processors),
    "gpu_num": lambda j, o: str(j.ngpus) if j.ngpus else None,
    "nthreads": lambda j, o: None if j.nthreads is None else str(j.nthreads),
    "min_req_proc": lambda j, o: str(j.num_processors),
    "max_req_proc": lambda j, o: str(j.max_processors if j.max_processors is not None else j.num_processors),
    "effective_resreq": lambda j, o: (j.effective_res_req if j.effective_res_req is not None
                                      else (j.res_req if has_started(j) else None)) or None,
    "combined_resreq": lambda j, o: (j.combined_res_req if j.combined_res_req is not None else j.res_req) or None,
    "runtimelimit": lambda j, o: None if j.run_limit is None else (hms(j.run_limit * 60) if o.hms
                                                                    else f"{j.run_limit:.1f}"),
    "input_file": lambda j, o: j.input_file,
    "output_file": lambda j, o: j.output_file,
    "error_file": lambda j, o: j.error_file,
    "output_dir": lambda j, o: j.output_dir,
    "sub_cwd": lambda j, o: home_relative(j.cwd, j.home),
    "exec_home": lambda j, o: j.exec_home,
    "exec_cwd": lambda j, o: j.exec_cwd,
    # memory efficiency: the most memory used over the memory asked for (rusage[mem]); CPU: the
    # CPU time over the run time of every slot
    "mem_efficiency": lambda j, o: (_percent(j.max_mem_kb, j.mem_req_mb * 1024)
                                    if j.max_mem_kb is not None and j.mem_req_mb else None),
    "average_cpu_efficiency": lambda j, o: (_percent(j.cpu_time, j.run_time * (len(_hosts(j)) or 1))
                                            if has_started(j) else None),
}

_MEMORY: dict[str, Callable[[JobView, FieldSpec, Shown], "str | None"]] = {
    "mem": lambda j, s, o: _mem(j.mem_kb, s, o),
    "max_mem": lambda j, s, o: _mem(j.max_mem_kb, s, o),
    "avg_mem": lambda j, s, o: _mem(j.avg_mem_kb, s, o),
    "swap": lambda j, s, o: _mem(j.swap_kb, s, o),
    "memlimit": _memlimit,
}

def value(job: JobView, spec: FieldSpec, shown: Shown) -> str | None:
    """The text of one ``-o`` field for *job*, or None when LSF shows ``-`` / ``""``."""
    n = spec.name
    fn = _VALUES.get(n)
    if fn is not None:
        v = fn(job, shown)
    elif n in _MEMORY:
        v = _MEMORY[n](job, spec, shown)
    else:
        return None
    return v or None
