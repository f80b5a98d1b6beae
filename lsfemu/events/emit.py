"""From the daemon's job events to the ``lsb.events`` records mbatchd writes.

The daemon stores every change of a job as a ``JobEvent`` row (kind, time,
actor, JSON data; see ``lsfemu.engine.cluster``). :func:`records_for` maps ONE
such event to the LSF records, in the order mbatchd logs them:

========= ====================================================================
SUBMIT    JOB_NEW (everything JOB_NEW carries that lsfemu knows, below)
START     JOB_START (status RUN, one host per slot), JOB_START_ACCEPT,
          JOB_EXECUTE (execution user, home, cwd, pid)
FINISH    DONE: JOB_STATUS 64 then JOB_STATUS 192 (DONE + post-job done);
          EXIT: JOB_STATUS 32 with the wait status, CPU time and TERM_* code
          (no post-job record: 192 is the only post-job value lsfemu writes)
SIGNAL    JOB_SIGNAL (symbol ``KILL``, ``STOP``, ``CONT``, ``TERM``...; the
          requester's name and uid; the reason of bkill/bstop/bresume -C), then for STOP/CONT a JOB_STATUS with the
          new state: PSUSP / USUSP, PEND / RUN (none for a preempted job, which
          bresume leaves SSUSP)
FORCE     JOB_FORCE (brun: the hosts named, the administrator), before the
          START of the same instant
SWITCH    JOB_SWITCH
MOVE      JOB_MOVE (TO_TOP / TO_BOTTOM, position)
MODIFY    JOB_MODIFY2 of one bmod (``{sp: N}`` -sp, ``{spn: true}`` -spn,
          ``{aps: "system=10"}`` -aps, ``{aps: None}`` -apsn; the other
          fields of lsfemu.ops.bmod, a None value for their `n` form)
REQUEUE   JOB_REQUEUE, JOB_STATUS PEND (reason PEND_JOB_REQUEUED); brequeue -H:
          JOB_STATUS PSUSP (PEND_USER_STOP / PEND_ADMIN_STOP)
RERUN     JOB_STATUS PEND (PEND_JOB_REQUEUED after a host failure,
          PEND_JOB_MIG after bmig, PEND_JOB_PRE_EXEC after a failed bsub -E)
MIGRATE   nothing (LSF's MIG record is not modelled; the RERUN that follows
          at the same instant logs the state change)
STATUS    JOB_STATUS of ``{status: "UNKWN"}``, or of a preempted job:
          SSUSP with reason SUSP_MBD_PREEMPT, RUN when it resumes
CLEAN     JOB_CLEAN (the finished job left mbatchd's memory: bkill -b of a
          pending job)
other     nothing (forward compatible: a newer daemon kind is not an error)
========= ====================================================================

What the snakemake LSF plugin reads with awk holds for every record written
here: JOB_NEW field 5 = the uid (from *uid_of*), field 42 = the job name (no
``-m`` hosts are ever logged, so the field does not move); JOB_STATUS field 4
= the job ID, field 5 = one of the plugin's known status words (1, 2, 4, 16,
32, 64, 65536) or 192, the post-job value it skips.

Choices where LSF's log could not be checked:

* A job array has one JOB_NEW (index 0) whose job name is the ``-J`` value
  with its index list (``name[1-10]%5``), as mbatchd's log_newjob writes
  it; every later record of an element carries the element's index.
  ``bsub -w`` sets SUB_DEPEND_COND and logs the condition as given.
* JOB_NEW's job name is the command when no ``-J`` was given (the
  ``SUB_JOB_NAME`` bit stays off, so bjobs/bhist still show no Job Name);
  the job file is ``<submit time>.<job ID>`` and the signal value -65535, as
  in real LSF 9 lines.
* lsfemu's jobs are simulated and have no process: the pid logged in
  JOB_START_ACCEPT / JOB_EXECUTE is :func:`synthetic_pid` (stable per job),
  so bhist shows LSF's ``Starting (Pid N);`` and ``Running with execution
  home ...`` records.
* JOB_STATUS reasons use LSF's lsbatch.h numbers: PEND_JOB_REQUEUED 23,
  PEND_JOB_MIG 5, PEND_USER_RESUME 605, PEND_USER_STOP 607, PEND_ADMIN_STOP
  610, SUSP_USER_STOP 2 (``lsbatch.PEND_USER_STOP`` = 21 is OpenLava-era and
  not used here).
* The STOP/CONT state is read from the job *as the event is logged*: a PEND
  or PSUSP job gives PSUSP (STOP) / PEND (CONT), a started one USUSP / RUN;
  a job in any other state gets only the JOB_SIGNAL.

:func:`~lsfemu.events.bmodrecord.job_modify` builds the JOB_MODIFY2 of one
bmod call. Also builders
for the non-job records: :func:`mbd_start`, :func:`mbd_die`,
:func:`queue_ctrl`, :func:`host_ctrl`. Event times are logged as whole
seconds (``int``), like LSF. Pure functions; nothing here reads the clock.
"""

from __future__ import annotations

import signal as _signal
from typing import Any, Callable

from lsfemu.events import lsbatch
from lsfemu.events.records import (
    HostCtrl, JobClean, JobExecute, JobMove, JobNew, JobRequeue, JobSignal, JobStart, JobStartAccept, JobStatus,
    JobForce, JobSwitch, MbdDie, MbdStart, QueueCtrl, Record,
)
from lsfemu.events.bmodrecord import job_modify, modify_kwargs
from lsfemu.events.submitrecords import _NEG1_LIMITS
from lsfemu import jobpaths
from lsfemu.jobstate import ON_HOST, PENDING
from lsfemu.sched import hostfile

# JOB_STATUS reasons (LSF lsbatch.h)
PEND_JOB_MIG = 5
PEND_JOB_REQUEUED = 23
PEND_USER_RESUME = 605
PEND_USER_STOP = 607
PEND_ADMIN_STOP = 610
SUSP_USER_STOP = 0x02

#: real LSF writes this sig_value in JOB_NEW when bsub -s was not given
NO_SIG_VALUE = -65535


QUEUE_OPS = {"qopen": lsbatch.QUEUE_OPEN, "qclose": lsbatch.QUEUE_CLOSED,
             "qact": lsbatch.QUEUE_ACTIVATE, "qinact": lsbatch.QUEUE_INACTIVATE}
HOST_OPS = {"hopen": lsbatch.HOST_OPEN, "hclose": lsbatch.HOST_CLOSE,
            "hreboot": lsbatch.HOST_REBOOT, "hshutdown": lsbatch.HOST_SHUTDOWN}


def _t(time: float) -> int:
    return int(time)


def synthetic_pid(job_id: int, array_index: int = 0) -> int:
    """A stable, plausible pid for a simulated job (1024 ... 4194303)."""
    return 1024 + (job_id * 7919 + array_index * 104729) % (4194304 - 1024)


def signal_symbol(sig: Any) -> str:
    """The JOB_SIGNAL symbol of a stored signal: a name as is (``KILL``,
    ``STOP``), a number as its name without ``SIG`` (15 -> ``TERM``), an
    unknown number as its digits."""
    if isinstance(sig, bool):
        return str(int(sig))
    if isinstance(sig, int):
        try:
            return _signal.Signals(sig).name.removeprefix("SIG")
        except ValueError:
            return str(sig)
    text = str(sig)
    return text.upper().removeprefix("SIG") if text.upper().startswith("SIG") else text


#: bsub -I, -Ip, -Is in JOB_NEW's options (OpenLava lsb.sub.c sets them so)
_INTERACTIVE_BITS = {
    "I": lsbatch.SUB_INTERACTIVE,
    "Ip": lsbatch.SUB_INTERACTIVE | lsbatch.SUB_PTY,
    "Is": lsbatch.SUB_INTERACTIVE | lsbatch.SUB_PTY | lsbatch.SUB_PTY_SHELL,
}


def _get(job: Any, name: str, default: Any = None) -> Any:
    value = getattr(job, name, default)
    return default if value is None else value


def job_new(job: Any, time: float, *, uid_of: Callable[[str], int], queue: str | None = None,
            hold: bool = False) -> JobNew:
    """The JOB_NEW record of *job* (a ``Job`` row or any object with its
    attributes); *hold*: submitted with bsub -H (SUB2_HOLD)."""
    return JobNew(**job_new_values(job, time, uid_of=uid_of, queue=queue, hold=hold))


def job_new_values(job: Any, time: float, *, uid_of: Callable[[str], int], queue: str | None = None,
                   hold: bool = False) -> dict[str, Any]:
    """:func:`job_new`'s fields, as a dict (lsb.acct's JOB_FINISH borrows
    some: no JOB_NEW made per finished job, issue 23 part 4)."""
    options = lsbatch.SUB_QUEUE if not _get(job, "default_queue_used", False) else 0
    options2 = lsbatch.SUB2_HOLD if hold else 0
    name = _get(job, "name")
    command = _get(job, "command", "")
    if name is not None:
        options |= lsbatch.SUB_JOB_NAME
    project = _get(job, "project", "default") or "default"
    if project != "default":
        options |= lsbatch.SUB_PROJECT_NAME
    out_file = _get(job, "output_file", "")
    err_file = _get(job, "error_file", "")
    if out_file:
        options |= lsbatch.SUB_OUT_FILE
        if _get(job, "output_overwrite", False):
            options2 |= lsbatch.SUB2_OVERWRITE_OUT_FILE
    if err_file:
        options |= lsbatch.SUB_ERR_FILE
        if _get(job, "error_overwrite", False):
            options2 |= lsbatch.SUB2_OVERWRITE_ERR_FILE
    res_req = _get(job, "res_req", "")
    if res_req:
        options |= lsbatch.SUB_RES_REQ
    if _get(job, "rerunnable", False):
        options |= lsbatch.SUB_RERUNNABLE
    user_group = _get(job, "user_group", "")
    if user_group:
        options |= lsbatch.SUB_USER_GROUP
    sp = _get(job, "submit_priority")
    if sp is not None:
        options2 |= lsbatch.SUB2_JOB_PRIORITY
    depend_cond = _get(job, "dependency", "")
    if depend_cond:
        options |= lsbatch.SUB_DEPEND_COND
    waiting = _get(job, "interactive", "")
    if waiting == "K":
        options2 |= lsbatch.SUB2_BSUB_BLOCK
    elif waiting:
        options |= _INTERACTIVE_BITS.get(waiting, lsbatch.SUB_INTERACTIVE)
    in_file = _get(job, "input_file", "")
    if in_file:  # bsub -i / -is
        if _get(job, "input_spooled", False):
            options2 |= lsbatch.SUB2_IN_FILE_SPOOL
        else:
            options |= lsbatch.SUB_IN_FILE
    login_shell = _get(job, "login_shell", "")
    if login_shell:
        options |= lsbatch.SUB_LOGIN_SHELL
    notify = _get(job, "notify", "").split(",")  # bsub -B, -N, -Ne (-Ne: the end's bit, as -N)
    if "B" in notify:
        options |= lsbatch.SUB_NOTIFY_BEGIN
    if "N" in notify or "Ne" in notify:
        options |= lsbatch.SUB_NOTIFY_END
    mail_user = _get(job, "mail_user", "")
    if mail_user:
        options |= lsbatch.SUB_MAIL_USER
    if _get(job, "exclusive", False):  # bsub -x
        options |= lsbatch.SUB_EXCLUSIVE
    asked = hostfile.log_words(_get(job, "asked_hosts", ""))  # bsub -m, or -hostfile's lines
    if asked:
        options |= lsbatch.SUB_HOST
    pre_exec = _get(job, "pre_exec", "")
    if pre_exec:
        options |= lsbatch.SUB_PRE_EXEC
    rlimits = list(_NEG1_LIMITS)
    run_limit = _get(job, "run_limit_min")
    if run_limit is not None:
        rlimits[lsbatch.RLIMIT_RUN] = int(round(float(run_limit) * 60))
    mem_limit = _get(job, "mem_limit_kb")
    if mem_limit is not None:
        rlimits[lsbatch.RLIMIT_RSS] = int(mem_limit)  # KB, as LSF logs it
    cpu_limit = _get(job, "cpu_limit_min")  # bsub -c: seconds, normalized to host_spec
    if cpu_limit is not None:
        rlimits[lsbatch.RLIMIT_CPU] = int(round(float(cpu_limit) * 60))
    host_spec = _get(job, "cpu_limit_host") or ""
    if host_spec:
        options |= lsbatch.SUB_HOST_SPEC
    nproc = int(_get(job, "num_processors", 1) or 1)
    submit = _t(_get(job, "submit_time", time) or time)
    tail = _job_new_tail(job)
    options |= tail.pop("options")
    options2 |= tail.pop("options2")
    return dict(
        event_time=_t(time), job_id=job.id, user_id=uid_of(job.user), options=options,
        num_processors=nproc, submit_time=submit, sig_value=NO_SIG_VALUE,
        user_name=job.user, rlimits=tuple(rlimits), queue=queue or job.queue,
        res_req=res_req, from_host=_get(job, "from_host", ""), cwd=_get(job, "cwd", ""),
        out_file=out_file, err_file=err_file, sub_home_dir=_get(job, "home", ""),
        job_file=f"{submit}.{job.id}", job_name=name if name is not None else command,
        command=command, project_name=project,
        max_num_processors=int(_get(job, "max_processors", nproc) or nproc),
        user_group=user_group, options2=options2, idx=_get(job, "array_index", 0), depend_cond=depend_cond,
        pre_exec_cmd=pre_exec,
        user_priority=int(sp) if sp is not None else -1,
        begin_time=_t(_get(job, "begin_time", 0)), term_time=_t(_get(job, "term_time", 0)),
        in_file=in_file, login_shell=login_shell, asked_hosts=asked, mail_user=mail_user, host_spec=host_spec,
        **tail,
    )


#: JOB_NEW's LSF 9/10 tail strings lsfemu writes: (job attribute (bsub option), field, options word, bit)
_TAIL_STRINGS = (
    ("job_group", "job_group", "options2", lsbatch.SUB2_JOB_GROUP),  # -g
    ("app_profile", "app", "options3", lsbatch.SUB3_APP),  # -app
    ("post_exec", "post_exec_cmd", "options", lsbatch.SUB_POST_EXEC),  # -Ep
    ("description", "job_description", "options3", lsbatch.SUB3_DESCRIPTION),  # -Jd
    ("specified_cwd", "subcwd", "options3", lsbatch.SUB3_CWD),  # -cwd
    ("outdir", "outdir", "options3", lsbatch.SUB3_OUTDIR),  # -outdir
)


def _job_new_tail(job: Any) -> dict[str, Any]:
    """JOB_NEW's LSF 9/10 tail fields lsfemu knows (issue 21), with the bits
    of ``options``/``options2`` (keys) and ``options3`` that say they were given."""
    out: dict[str, Any] = dict(options=0, options2=0, options3=0)
    for attr, field, word, bit in _TAIL_STRINGS:
        out[field] = _get(job, attr, "") or ""
        if out[field]:
            out[word] |= bit
    estimate = _get(job, "est_runtime_min")
    if estimate is not None:  # bsub -We, logged in seconds (as JOB_MODIFY2's)
        out["options3"] |= lsbatch.SUB3_RUNTIME_EST
    out["runtime_estimation"] = -1 if estimate is None else int(round(float(estimate) * 60))
    return out


def _status(job: Any, time: float, status: int, **kw: Any) -> JobStatus:
    return JobStatus(event_time=_t(time), job_id=job.id, status=status,
                     idx=_get(job, "array_index", 0), **kw)


def records_for(
    job: Any,
    kind: str,
    time: float,
    actor: str | None,
    data: dict,
    *,
    uid_of: Callable[[str], int],
    cpu_time: float,
    pid: int | None = None,
) -> list[Record]:
    """The records mbatchd writes for one stored job event (see the module
    docstring). *job* is the job as the event is logged (its state after the
    change); *actor* is the LSF user who asked (None = the system, logged as
    ``root``); *uid_of* maps a user name to its uid and must not raise;
    *cpu_time* is the job's CPU seconds so far (used by FINISH); *pid*
    overrides :func:`synthetic_pid`."""
    idx = _get(job, "array_index", 0)
    t = _t(time)
    who = actor or "root"

    if kind == "SUBMIT":
        return [job_new(job, time, uid_of=uid_of, queue=data.get("queue"), hold=bool(data.get("hold")))]

    if kind == "START":
        hosts = tuple(data.get("hosts") or _get(job, "exec_hosts", "").split())
        p = synthetic_pid(job.id, idx) if pid is None else pid
        return [
            JobStart(event_time=t, job_id=job.id, status=lsbatch.JOB_STAT_RUN, exec_hosts=hosts,
                     user_group=_get(job, "user_group", ""), idx=idx,
                     host_factor=float(data.get("host_factor") or 1.0),
                     effective_res_req=data.get("effective_res_req") or ""),
            JobStartAccept(event_time=t, job_id=job.id, job_pid=p, job_pgid=p, idx=idx),
            JobExecute(event_time=t, job_id=job.id, exec_uid=uid_of(job.user), job_pgid=p,
                       exec_cwd=jobpaths.exec_cwd(job, hosts[0] if hosts else None),
                       exec_home=_get(job, "home", ""), exec_username=job.user,
                       job_pid=p, idx=idx),
        ]

    if kind == "FINISH":
        cpu = max(0.0, float(cpu_time or 0.0))
        # post-processing: PDONE (also for jobs without bsub -Ep, as real DONE jobs log), PERR when it failed
        post = lsbatch.JOB_STAT_PERR if data.get("post") is False else lsbatch.JOB_STAT_PDONE
        if data.get("status") == "DONE":
            return [
                _status(job, time, lsbatch.JOB_STAT_DONE, cpu_time=cpu, end_time=t),
                _status(job, time, lsbatch.JOB_STAT_DONE | post, cpu_time=cpu, end_time=t),
            ]
        code = data.get("exit_code")
        kw = dict(cpu_time=cpu, end_time=t, exit_status=lsbatch.wait_status(int(code)) if code else 0,
                  exit_info=lsbatch.term_code(data.get("reason")))
        out = [_status(job, time, lsbatch.JOB_STAT_EXIT, **kw)]
        if "post" in data:  # bsub -Ep ran after the job
            out.append(_status(job, time, lsbatch.JOB_STAT_EXIT | post, **kw))
        return out

    if kind == "SIGNAL":
        sym = signal_symbol(data.get("signal", "KILL"))
        out: list[Record] = [JobSignal(event_time=t, job_id=job.id, user_id=uid_of(who),
                                       signal_symbol=sym, idx=idx, user_name=who, reason=data.get("reason") or "")]
        state = _get(job, "status", "")
        admin = actor is not None and actor != job.user
        if sym == "STOP":
            if state in PENDING:
                out.append(_status(job, time, lsbatch.JOB_STAT_PSUSP,
                                   reason=PEND_ADMIN_STOP if admin else PEND_USER_STOP))
            elif state in ON_HOST:
                out.append(_status(job, time, lsbatch.JOB_STAT_USUSP, reason=SUSP_USER_STOP))
        elif sym == "CONT":
            if state in PENDING:
                out.append(_status(job, time, lsbatch.JOB_STAT_PEND, reason=PEND_USER_RESUME))
            elif state == "RUN":  # (a preempted job stays SSUSP: no state change to log)
                out.append(_status(job, time, lsbatch.JOB_STAT_RUN))
        return out

    if kind == "FORCE":
        hosts = tuple(dict.fromkeys(data.get("hosts") or ()))  # the hosts named, each once
        return [JobForce(event_time=t, job_id=job.id, user_id=uid_of(who), idx=idx, exec_hosts=hosts,
                         user_name=who)]

    if kind == "SWITCH":
        return [JobSwitch(event_time=t, user_id=uid_of(who), job_id=job.id,
                          queue=data.get("queue") or job.queue, idx=idx, user_name=who)]

    if kind == "MOVE":
        return [JobMove(event_time=t, user_id=uid_of(who), job_id=job.id,
                        position=int(data.get("position", 1)),
                        base=lsbatch.TO_TOP if data.get("top", True) else lsbatch.TO_BOTTOM,
                        idx=idx, user_name=who)]

    if kind == "MODIFY":
        kw = modify_kwargs(data)
        if not kw:
            return []
        return [job_modify(job.id, event_time=t, user_name=who, user_id=uid_of(who),
                           array_index=idx, submit_time=_t(_get(job, "submit_time", 0)), **kw)]

    if kind == "REQUEUE":
        if _get(job, "status", "") == "PSUSP":  # brequeue -H: held
            held = PEND_ADMIN_STOP if actor is not None and actor != job.user else PEND_USER_STOP
            return [JobRequeue(event_time=t, job_id=job.id, idx=idx),
                    _status(job, time, lsbatch.JOB_STAT_PSUSP, reason=held)]
        return [JobRequeue(event_time=t, job_id=job.id, idx=idx),
                _status(job, time, lsbatch.JOB_STAT_PEND, reason=PEND_JOB_REQUEUED)]

    if kind == "RERUN":
        reason = {"MIGRATE": PEND_JOB_MIG, "PREEXEC": lsbatch.PEND_JOB_PRE_EXEC}.get(data.get("reason"),
                                                                                   PEND_JOB_REQUEUED)
        return [_status(job, time, lsbatch.JOB_STAT_PEND, reason=reason)]

    if kind == "CLEAN":
        return [JobClean(event_time=t, job_id=job.id, idx=idx)]

    if kind == "STATUS":
        code = lsbatch.STATUS_CODES.get(str(data.get("status", "")))
        if code is None:
            return []
        return [_status(job, time, code, reason=int(data.get("reason") or 0))]

    return []  # MIGRATE and kinds this module does not know


# ---------------------------------------------------------------------------
# records of no job
# ---------------------------------------------------------------------------


def mbd_start(time: float, cluster: str, master: str, *, num_hosts: int = 0, num_queues: int = 0) -> MbdStart:
    """MBD_START: the daemon started."""
    return MbdStart(event_time=_t(time), master=master, cluster=cluster,
                    num_hosts=num_hosts, num_queues=num_queues)


def mbd_die(time: float, master: str = "", *, exit_code: int = 0, comment: str = "") -> MbdDie:
    """MBD_DIE: the daemon stopped."""
    return MbdDie(event_time=_t(time), master=master, exit_code=exit_code, ctrl_comments=comment)


def _opcode(op: str | int, table: dict[str, int], what: str) -> int:
    if isinstance(op, int):
        return op
    try:
        return table[op]
    except KeyError:
        raise ValueError(f"unknown {what} operation {op!r}") from None


def queue_ctrl(time: float, queue: str, op: str | int, user: str, *, user_id: int = 0,
               comment: str = "") -> QueueCtrl:
    """QUEUE_CTRL for badmin qopen / qclose / qact / qinact (or an opcode)."""
    return QueueCtrl(event_time=_t(time), opcode=_opcode(op, QUEUE_OPS, "queue"), queue=queue,
                     user_id=user_id, user_name=user, ctrl_comments=comment)


def host_ctrl(time: float, host: str, op: str | int, user: str, *, user_id: int = 0,
              comment: str = "") -> HostCtrl:
    """HOST_CTRL for badmin hopen / hclose (or an opcode)."""
    return HostCtrl(event_time=_t(time), opcode=_opcode(op, HOST_OPS, "host"), host=host,
                    user_id=user_id, user_name=user, ctrl_comments=comment)
