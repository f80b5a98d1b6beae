"""The JOB_FINISH record mbatchd appends to ``lsb.acct`` when a job ends.

:func:`job_finish` builds it from the job as the store holds it at its end
(a ``Job`` row or any object with its attributes) and the FINISH event's
data (status, exit code, termination reason), for every job that reaches
DONE or EXIT -- also one killed or aborted while pending (start time 0,
no hosts, rusage all ``-1``, as the real record of such a job shows).

What comes from where:

* the submission fields (options bits, -J/-P/-G/-app/-Jd, files, -m, -w,
  -E/-Ep, -L, the job file name) from the job's JOB_NEW record
  (:func:`lsfemu.events.emit.job_new`), so the two files agree;
* the job name is ``""`` without -J (LSF's lsb.acct; bacct then shows the
  command), the array's ``name[1-10]`` for an element;
* execHosts and allocSlots one entry per slot; hostFactor the CPU factor of
  the first execution host (1.0 for a job that never ran);
* rusage: the CPU seconds as ``ru_utime`` and ``0`` as ``ru_stime`` (LSF
  without LSB_CPUACCT_STAT records the whole CPU time as user time),
  ``ru_maxrss`` the measured peak memory of a really run job; every other
  counter ``-1`` (unknown: lsfemu does not measure it); a job that never ran
  has the whole block ``-1``;
* chargedSAAP the share account path a fairshare queue charged (the caller's);
* runTime the seconds the job spent running (suspended time excluded),
  runLimit its -W in seconds (``-1`` none), runtimeEstimation its -We;
* exitStatus the wait status (exit code << 8; 0 for a job that never ran,
  as the real record of a pending job killed by its owner has), exitInfo the
  TERM_* number of the termination reason; finishKVP the scheduling overhead LSF 10.1
  appends (``"0.00"``: lsfemu's pass is not charged to the job).

Pure: no store, no clock, no configuration (the caller passes the host
factor and the effective resource requirement).
"""

from __future__ import annotations

from typing import Any, Callable

from lsfemu.events import lsbatch
from lsfemu.events.acct import JOB_STAT_DONE, JOB_STAT_EXIT, AcctRecord, Rusage
from lsfemu.events.emit import _get, _t, job_new_values

#: what lsfemu writes for LSF 10.1's schedulingOverhead key (milliseconds)
SCHEDULING_OVERHEAD = "0.00"

# Every field's default: a record per finished job is made from these and its
# values without the frozen dataclass's __init__ (a setattr through object per
# field, and ninety keywords matched to its parameters: four times the cost;
# issue 23, part 4). tests/events/test_fastencode.py holds the result equal to
# the constructor's.
_RECORD_DEFAULTS = dict(AcctRecord(job_id=0).__dict__)
_RUSAGE_DEFAULTS = dict(Rusage().__dict__)


def _made(cls: type, defaults: dict, **values: Any) -> Any:
    """A *cls* (a frozen dataclass) of *values* over *defaults*, its __init__ skipped."""
    rec = object.__new__(cls)
    d = rec.__dict__
    d.update(defaults)
    d.update(values)
    return rec


def _kb(value: Any) -> int:
    try:
        return int(value) if value is not None else 0
    except (TypeError, ValueError):
        return 0


def job_finish(job: Any, time: float, data: dict, *, uid_of: Callable[[str], int], cpu_time: float,
               run_time: float, host_factor: float = 1.0, effective_res_req: str = "",
               usage: dict | None = None, charged_saap: str = "", ineligible_pend_time: int = -1) -> AcctRecord:
    """The JOB_FINISH record of *job* ending at *time*. *data* is the FINISH
    event's (``status`` DONE or EXIT, ``exit_code``, ``reason``); *cpu_time*
    and *run_time* are its CPU and running seconds; *usage* a really run job's
    measured usage (``max_mem_kb``, ``avg_mem_kb``, ``max_swap_kb``); *ineligible_pend_time* the
    seconds it pended ineligible (TRACK_ELIGIBLE_PENDINFO; -1 not tracked)."""
    new = job_new_values(job, time, uid_of=uid_of)
    started = _get(job, "start_time") is not None
    hosts = tuple(_get(job, "exec_hosts", "").split()) if started else ()
    done = data.get("status") == "DONE"
    code = data.get("exit_code")
    usage = usage or {}
    if started:
        rusage = _made(Rusage, _RUSAGE_DEFAULTS, ru_utime=round(max(0.0, float(cpu_time or 0.0)), 6), ru_stime=0.0,
                       ru_maxrss=_kb(usage.get("max_mem_kb")) or -1)
    else:
        rusage = Rusage()
    name = _get(job, "name")
    if name is not None and _get(job, "array_spec"):
        name = _get(job, "array_spec").split("%", 1)[0]
    start = _t(_get(job, "start_time", 0)) if started else 0
    run_limit = _get(job, "run_limit_min")
    estimate = _get(job, "est_runtime_min")
    return _made(
        AcctRecord, _RECORD_DEFAULTS, job_id=job.id, event_time=_t(time), user_id=new["user_id"],
        options=new["options"],
        num_processors=new["num_processors"], submit_time=new["submit_time"], begin_time=new["begin_time"],
        term_time=new["term_time"], start_time=start, user_name=new["user_name"], queue=_get(job, "queue", ""),
        res_req=new["res_req"], depend_cond=new["depend_cond"], pre_exec_cmd=new["pre_exec_cmd"],
        from_host=new["from_host"], cwd=new["cwd"], in_file=new["in_file"], out_file=new["out_file"],
        err_file=new["err_file"], job_file=new["job_file"],
        asked_hosts=new["asked_hosts"], exec_hosts=hosts, j_status=JOB_STAT_DONE if done else JOB_STAT_EXIT,
        host_factor=float(host_factor) if hosts else 1.0, job_name=name or "", command=new["command"],
        lsf_rusage=rusage, mail_user=new["mail_user"], project_name=new["project_name"],
        exit_status=lsbatch.wait_status(int(code)) if started and code and not done else 0,
        max_num_processors=new["max_num_processors"], login_shell=new["login_shell"], idx=new["idx"],
        max_r_mem=_kb(usage.get("max_mem_kb")), max_r_swap=_kb(usage.get("max_swap_kb")),
        exit_info=0 if done else lsbatch.term_code(data.get("reason")), charged_saap=charged_saap,
        app=_get(job, "app_profile", ""), post_exec_cmd=_get(job, "post_exec", ""),
        runtime_estimation=int(round(float(estimate) * 60)) if estimate is not None else -1,
        job_group_name=_get(job, "job_group", ""), options2=new["options2"], last_resize_time=start,
        job_description=_get(job, "description", ""),
        run_limit=int(round(float(run_limit) * 60)) if run_limit is not None else -1,
        avg_mem=_kb(usage.get("avg_mem_kb")), effective_res_req=effective_res_req if started else "",
        outdir=_get(job, "outdir", ""), run_time=int(round(max(0.0, run_time))) if started else 0,
        subcwd=_get(job, "cwd", ""), alloc_slots=hosts, ineligible_pend_time=ineligible_pend_time,
        finish_kvp=(("schedulingOverhead", SCHEDULING_OVERHEAD),),
    )
