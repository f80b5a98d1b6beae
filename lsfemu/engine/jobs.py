"""A job's transitions, as mbatchd makes them: submission (and job IDs'
use), start, finish, kill and signals, stop/resume, switch, priority and APS
changes and bmod's other fields, btop/bbot, requeue, rerun, migration, and host
failure and recovery.

Each transition changes the job objects the cluster holds
(`Cluster.jobs`), records the change (`Cluster.log`: a history row and
lsb.events records) and marks the cluster for a pass; a run that ends is
charged to fairshare (lsfemu.engine.fairshare). `Transitions` holds no state
of its own: the jobs, the store's session and the event log are the
cluster's.
"""

from __future__ import annotations

import json
import signal
from dataclasses import dataclass

from lsfemu.clock import parse_duration
from lsfemu.engine import eligibility, mail, prepost
from lsfemu.engine.cpulimit import cpu_factor
from lsfemu.events.lsbatch import PREEMPTED_REASON, TERM_REASONS
from lsfemu.jobstate import ON_HOST, PENDING, STARTED, SUSPENDED
from lsfemu.sched import dispatch, simulate
from lsfemu.sched.priority import default_priority, frozen_at_dispatch, pending_clock_after_run
from lsfemu.store.jobs import finished_runs_since
from lsfemu.store.usage import clear_usage
from lsfemu.store.models import HostState, Job


#: LSF's termination reason of a job killed at its bsub -t time (TERM_DEADLINE, 6)
DEADLINE_REASON = "TERM_DEADLINE: job killed after deadline"
#: ... of a job killed by bkill -b (TERM_BUCKET_KILL, 23)
BUCKET_KILL_REASON = TERM_REASONS[23]


class NoJobId(Exception):
    """Every job ID up to MAX_JOBID is in use (LSF's LSBE_NO_JOBID)."""

    message = "No job Id can be used now"


@dataclass
class SubmitSpec:
    """A validated submission, ready to store."""

    user: str
    queue: str
    default_queue_used: bool
    command: str
    name: str | None
    num_processors: int
    max_processors: int | None
    cwd: str
    home: str
    specified_cwd: str | None
    output_file: str | None
    error_file: str | None
    output_overwrite: bool
    error_overwrite: bool
    run_limit_min: float | None
    submit_priority: int | None
    res_req: str | None
    mem_req_mb: float | None
    project: str
    user_group: str | None
    env: dict[str, str]
    from_host: str
    rerunnable: bool = False
    ngpus: int = 0
    array: object | None = None  # lsfemu.sched.arrayspec.ArraySpec of a job array (bsub -J "a[1-10]%2")
    dependency: str | None = None  # bsub -w, as given
    depend_json: str | None = None  # ... and as resolved (lsfemu.sched.depend.to_data)
    mem_limit_kb: int | None = None  # bsub -M, in KB
    mem_limit_hard: bool = False  # bsub -M N!
    pre_exec: str | None = None  # bsub -E
    post_exec: str | None = None  # bsub -Ep
    script: str | None = None  # a job script read from stdin: what runs (command: its lines joined with `;`)
    job_group: str | None = None  # bsub -g, its full path
    description: str | None = None  # bsub -Jd
    hold: bool = False  # bsub -H: submitted held (PSUSP until bresume)
    begin_time: float | None = None  # bsub -b
    term_time: float | None = None  # bsub -t
    rerun_never: bool = False  # bsub -rn
    interactive: str | None = None  # bsub -K ("K"), -I, -Ip, -Is
    env_spec: str | None = None  # bsub -env, as given
    exec_env: dict[str, str] | None = None  # ... the job's environment it makes (None: env)
    outdir: str | None = None  # bsub -outdir
    login_shell: str | None = None  # bsub -L
    input_file: str | None = None  # bsub -i / -is
    input_spooled: bool = False  # bsub -is
    app_profile: str | None = None  # bsub -app
    exclusive: bool = False  # bsub -x
    mail_user: str | None = None  # bsub -u
    est_runtime_min: float | None = None  # bsub -We
    cpu_limit_min: float | None = None  # bsub -c: CPU time limit, minutes
    cpu_limit_host: str | None = None  # bsub -c .../host_name or /host_model: the normalizing host
    pend_limit_min: float | None = None  # bsub -ptl: pending time limit, minutes
    epend_limit_min: float | None = None  # bsub -eptl: eligible pending time limit, minutes
    notify: str = ""  # bsub -B, -N, -Ne: "B", "N", "Ne" joined with ","
    asked_hosts: str | None = None  # bsub -m, its words
    plan: tuple | None = None  # (run time, CPU time, exit code) given (what-if replay), not from the command


class _ArrayHead:
    """The array as a whole for its one JOB_NEW record: the first element's
    values, index 0 and the -J value with its index list (as mbatchd logs it)."""

    def __init__(self, element: Job):
        self._element = element
        self.array_index = 0
        self.name = element.array_spec

    def __getattr__(self, name: str):
        return getattr(self._element, name)


def _num(v: float | None) -> str:
    """APS values as typed: 10 not 10.0, 10.5 as is."""
    if v is None:
        return ""
    return str(int(v)) if float(v).is_integer() else repr(float(v))


class Transitions:
    """The transitions of the cluster's jobs (see the module docstring)."""

    def __init__(self, cluster):
        self.cl = cluster
        # The last environment stored and its JSON: a bsub -pack's lines, a client's
        # submissions, send the same one (~50 variables: json.dumps was ~5% of a packed job).
        self._env_json: tuple[list | None, str] = (None, "")

    def submit(self, spec: SubmitSpec) -> Job:
        now = self.cl.now()
        slots = spec.num_processors
        runtime, cputime, exit_code = (spec.plan if spec.plan is not None
                                       else simulate.plan(spec.script or spec.command, spec.env, slots, parse_duration))
        jid = self.cl.next_job_id()
        if spec.script is not None:
            self.cl.runner.save_script(now, jid, spec.script)
        p = self.cl.config.params
        priority = None
        if p.max_user_priority is not None:
            priority = spec.submit_priority if spec.submit_priority is not None else default_priority(p.max_user_priority)
        arr = spec.array
        indices = arr.indices() if arr is not None else [0]
        elements = [self.new_job(spec, jid, idx, now, priority, runtime, cputime, exit_code) for idx in indices]
        data = {"queue": spec.queue, "hold": True} if spec.hold else {"queue": spec.queue}
        # (the history rows written with the jobs: lsfemu.store.newrows)
        text = json.dumps(data)
        for job in elements:
            self.cl.new_rows.history(jid, job.array_index, now, "SUBMIT", spec.user, text)
        # one JOB_NEW, for an array too (mbatchd's log_newjob)
        self.cl.events.stage_job(elements[0] if arr is None else _ArrayHead(elements[0]), "SUBMIT", now, spec.user,
                                 data)
        for t in (spec.begin_time, spec.term_time):
            if t is not None:
                self.cl.loop.wake_at(t)
        self.cl.mark_dirty()
        return elements[0]

    def new_job(self, spec: SubmitSpec, jid: int, idx: int, now: float, priority, runtime, cputime, exit_code) -> Job:
        arr = spec.array
        job = self.cl.new_rows.job(dict(
            id=jid, array_index=idx, user=spec.user, status="PSUSP" if spec.hold else "PEND", queue=spec.queue,
            from_host=spec.from_host, command=spec.command, name=arr.name if arr is not None else spec.name,
            array_spec=arr.text if arr is not None else None, array_limit=arr.limit if arr is not None else None,
            dependency=spec.dependency, depend_json=spec.depend_json, project=spec.project,
            user_group=spec.user_group, cwd=spec.cwd, home=spec.home, specified_cwd=spec.specified_cwd,
            output_file=spec.output_file, error_file=spec.error_file,
            output_overwrite=spec.output_overwrite, error_overwrite=spec.error_overwrite,
            num_processors=spec.num_processors, max_processors=spec.max_processors,
            res_req=spec.res_req, mem_req_mb=spec.mem_req_mb, run_limit_min=spec.run_limit_min,
            submit_priority=spec.submit_priority, priority=priority, priority_base_time=now, pend_since=now,
            rerunnable=spec.rerunnable, ngpus=spec.ngpus,
            mem_limit_kb=spec.mem_limit_kb, mem_limit_hard=spec.mem_limit_hard, job_group=spec.job_group,
            interactive=spec.interactive,
            app_profile=spec.app_profile,
            default_queue_used=spec.default_queue_used, submit_time=now, position=self.next_position(),
            exec_hosts="", pend_reasons=dispatch.USER_STOP if spec.hold else dispatch.NEW_JOB,
            sim_runtime=runtime, sim_cputime=cputime,
            sim_exit_code=exit_code, work_done=0.0,
            env_json=self.env_json(spec.env if spec.exec_env is None else spec.exec_env),
            description=spec.description, begin_time=spec.begin_time, term_time=spec.term_time,
            rerun_never=spec.rerun_never, env_spec=spec.env_spec, outdir=spec.outdir,
            login_shell=spec.login_shell, input_file=spec.input_file, input_spooled=spec.input_spooled,
            exclusive=spec.exclusive, asked_hosts=spec.asked_hosts, mail_user=spec.mail_user, notify=spec.notify,
            est_runtime_min=spec.est_runtime_min, cpu_limit_min=spec.cpu_limit_min, cpu_limit_host=spec.cpu_limit_host,
            pre_exec=spec.pre_exec, post_exec=spec.post_exec,
            pend_limit_min=spec.pend_limit_min, epend_limit_min=spec.epend_limit_min,
            ipend_since=(now if eligibility.starts_ineligible(spec.hold, spec.dependency, spec.begin_time, now)
                         else None),
        ))
        self.cl.jobs[(jid, idx)] = job
        self.cl.jobs_gen += 1
        return job

    def env_json(self, env: dict) -> str:
        """*env* as JSON (the job's env_json), made again only when it differs from the last."""
        last, text = self._env_json
        items = list(env.items())  # (in order: the JSON's order is the job's environment's)
        if items != last:  # (a copy is compared: an environment changed in place is not taken for the last)
            text = json.dumps(env)
            self._env_json = (items, text)
        return text

    def next_position(self) -> float:
        return float(self.cl.takes.take("position"))

    def start(self, job: Job, hosts: list[str], t: float) -> None:
        """Dispatch *job* to *hosts* (one per slot). JOB_START's effective
        requirement (bhist -l's Effective RES_REQ) is the alternative of
        ``{...} || {...}`` the pass placed it with (engine/requirements.py)."""
        values = {"migrated": False, "status": "RUN", "start_time": t, "segment_start": t,
                  "exec_hosts": " ".join(hosts), "pend_reasons": ""}
        if job.priority is not None:  # escalation stops at dispatch
            since = job.priority_base_time if job.priority_base_time is not None else job.submit_time
            values["priority"], values["priority_base_time"] = frozen_at_dispatch(
                job.priority, since, t, self.cl.config.params.job_priority_over_time)
        self.cl.changed_rows.assign(job, values)  # (one UPDATE per request's starts: lsfemu.store.changedrows)
        eligibility.note(job, t)
        if self.cl.clock.mode == "wall":  # a real process (lsfemu.engine.runner); CPU time is measured
            job.real_run = True
            job.sim_runtime = job.sim_cputime = 0.0
            job.usage_json = None
            self.cl.runner.start(job)
        factor = (cpu_factor(self.cl.config, hosts[0]) if hosts else None) or 1.0  # JOB_START's hostFactor (bhist -N)
        self.cl.log(job, "START", None, t, hosts=hosts, effective_res_req=self.cl.effective_res_req(job),
                    host_factor=factor)
        if job.pre_exec and not job.real_run and prepost.simulated_preexec_fails(self.cl, job):
            prepost.after_failure(self, job, t)  # bsub -E, virtual mode: the attempt fails at once
            return
        if job.notify:
            mail.started(self.cl, job, self.cl.home, t)  # bsub -B
        if self.cl.loop.started is not None:
            self.cl.loop.started.append(job)  # run_until files its end

    def force_run(self, job: Job, hosts: list[str], actor: str) -> None:
        """brun: an administrator starts a pending job on `hosts` (one per slot),
        whatever the scheduler would say (the hosts' load and slots, limits)."""
        t = self.cl.now()
        self.cl.log(job, "FORCE", actor, t, hosts=hosts)
        self.start(job, hosts, t)
        self.cl.mark_dirty()

    def finish(self, job: Job, t: float, status: str, exit_code: int | None, reason: str | None,
               post_ok: bool | None = None) -> None:
        """The job ends DONE or EXIT. post_ok: how a real job's post-execution
        command (bsub -Ep) ended; a simulated one's comes from its submission environment."""
        post = None
        if job.post_exec and job.start_time is not None:
            post = post_ok if job.real_run else prepost.simulated_post_ok(job)
        values = {"segment_start": None, "status": status, "finish_time": t, "exit_code": exit_code,
                  "exit_reason": reason, "pend_reasons": ""}
        if job.status in STARTED:
            self.charge_usage(job, t, values)  # (one assignment with the run's: the caches told once)
        else:
            self.cl.changed_rows.assign(job, values)
        eligibility.note(job, t)
        self.cl.log(job, "FINISH", None, t, status=status, exit_code=exit_code, reason=reason,
                    **({} if post is None else {"post": post}))
        if job.notify or job.mail_user is not None:  # bsub -N, -Ne, -u: the job report by mail
            mail.ended(self.cl, job, self.cl.home, t, self.cl.view(job, t).cpu_time,
                       json.loads(job.usage_json or "{}"))
        self.cl.mark_dirty()

    def restart_usage(self) -> int:
        """What a restarted mbatchd knows of past usage: it reads back only the
        jobs that finished within CLEAN_PERIOD (seed: "Any jobs cleaned before
        restart are lost and are not included in the new calculation of the
        dynamic priority"). The history is rebuilt from those jobs alone.
        Returns the number of jobs read back."""
        horizon = self.cl.now() - self.cl.config.params.clean_period
        clear_usage(self.cl.session)
        self.cl.accounts.rows.clear()  # (the rows held are gone from the store)
        back = finished_runs_since(self.cl.session, horizon)
        held = self.cl.jobs
        n = 0
        for job in back:
            job = held.get((job.id, job.array_index), job)  # the object the cluster holds, if it does
            self.charge_usage(job, job.finish_time)
            n += 1
        return n

    def charge_usage(self, job: Job, t: float, also: dict | None = None) -> None:
        """A run ends at *t*: its running time is added up, and what it counted
        for in fairshare goes to its user's decayed history. *also*: columns
        the caller changes with it (what the charge reads is the run's)."""
        self.cl.changed_rows.assign(job, {"work_done": simulate.work_at(job.work_done, job.segment_start, t),
                                          "segment_start": None, **(also or {})})
        self.cl.accounts.charge(job, t)

    def kill(self, job: Job, actor: str, signum: int | None = None, *, remove: bool = False,
             as_done: bool = False, why: str | None = None, bucket: bool = False) -> None:
        """End a job by a signal: bkill's default sequence (None) or `bkill -s`.
        `remove` (bkill -r): the job leaves at once, its processes killed
        without waiting for them; `as_done` (bkill -d of a started job): it is
        recorded DONE when it ends; `why` (bkill -C): the reason given, kept
        with the job and its JOB_SIGNAL; `bucket` (bkill -b): the termination
        reason is TERM_BUCKET_KILL."""
        t = self.cl.now()
        self.cl.log(job, "SIGNAL", actor, t, signal="KILL" if signum is None else signum,
                    **({"reason": why} if why is not None else {}))
        if why is not None:
            job.kill_reason = why
        owner = actor == job.user
        reason = "TERM_OWNER: job killed by owner" if owner else "TERM_ADMIN: job killed by root or LSF administrator"
        if bucket:
            reason = BUCKET_KILL_REASON
        code = simulate.KILL_EXIT_CODE if signum is None else 128 + signum
        if remove:
            self.leave_run(job)
            self.finish(job, t, "EXIT", code, reason)
            return
        if self.running_real(job):  # signal the process; it ends when the process does
            self.cl.runner.kill(self.cl, job, signum, reason, as_done=as_done)
            return
        if as_done:
            self.finish(job, t, "DONE", None, None)
            return
        self.finish(job, t, "EXIT", code, reason)

    def deadline(self, job: Job, t: float) -> None:
        """bsub -t: the job's termination time has come. A pending job is aborted
        (mbatchd's job_abort, TOO_LATE: EXIT without a termination reason); a
        started one gets SIGUSR2 and, still running ten minutes later, bkill's
        sequence (a real job, lsfemu.engine.runner), or ends at once with
        TERM_DEADLINE (a simulated one, as the run limit does)."""
        if job.status in PENDING:
            self.finish(job, t, "EXIT", None, None)
        elif self.running_real(job):
            self.cl.runner.deadline(self.cl, job, DEADLINE_REASON)
        elif job.status in STARTED:
            self.finish(job, t, "EXIT", simulate.RUNLIMIT_EXIT_CODE, DEADLINE_REASON)

    def running_real(self, job: Job) -> bool:
        return job.real_run and job.status in STARTED

    def real_job_ended(self, job: Job, st: dict) -> None:
        """A really run job's process ended (`st`: its status, read by the runner)."""
        job.sim_cputime = float(st.get("cpu") or 0.0)
        job.usage_json = json.dumps(st.get("usage") or {})
        t = max(float(st.get("end") or self.cl.now()), job.start_time or 0.0)
        if st.get("status") == "PREEXEC":  # bsub -E: the pre-execution command failed, the job never ran
            prepost.after_failure(self, job, t)
        elif st.get("status") == "DONE":
            self.finish(job, t, "DONE", None, None, post_ok=st.get("post"))
        else:
            self.finish(job, t, "EXIT", st.get("exit_code"), st.get("reason"), post_ok=st.get("post"))

    def kill_real_jobs(self, actor: str, timeout: float = 10.0) -> int:
        """SIGKILL every really running job and collect their ends (`lsfemu daemon stop --kill-jobs`)."""
        hit = [j for j in self.cl.jobs.values() if self.running_real(j)]
        for job in hit:
            self.kill(job, actor, signal.SIGKILL)
        self.cl.runner.wait_all(self.cl, timeout)
        return len(hit)

    def note_signal(self, job: Job, actor: str, signame: str) -> None:
        """A signal whose default action is to be ignored: recorded (and sent to a real job)."""
        self.cl.log(job, "SIGNAL", actor, self.cl.now(), signal=signame)
        if self.running_real(job):
            self.cl.runner.send(job, int(signal.Signals["SIG" + signame]))

    def stop(self, job: Job, actor: str, why: str | None = None) -> None:
        """bstop (`why`: bstop -C's reason)."""
        t = self.cl.now()
        if why is not None:
            job.suspend_reason = why
        admin = actor != job.user
        if job.status == "PEND":
            job.status = "PSUSP"
            job.pend_reasons = dispatch.ADMIN_STOP if admin else dispatch.USER_STOP
            eligibility.note(job, t)
        elif job.status in ("RUN", "SSUSP"):
            self.pause(job, t, "USUSP", "The job was suspended by LSF admin or root while running" if admin
                       else "The job was suspended by user")
        self.cl.log(job, "SIGNAL", actor, t, signal="STOP", **({"reason": why} if why is not None else {}))
        self.cl.mark_dirty()

    def pause(self, job: Job, t: float, status: str, reason: str) -> None:
        """A started job stops running (bstop: USUSP; preemption: SSUSP): a
        real one gets SIGSTOP, a simulated one's work stops counting."""
        if job.real_run:
            self.cl.runner.send(job, signal.SIGSTOP)
        job.work_done = simulate.work_at(job.work_done, job.segment_start, t)
        job.segment_start = None
        job.status = status
        job.susp_reason = reason

    def unpause(self, job: Job, t: float) -> None:
        """A suspended job runs again (SIGCONT for a real one)."""
        if job.real_run:
            self.cl.runner.send(job, signal.SIGCONT)
        job.status = "RUN"
        job.segment_start = t
        job.susp_reason = None

    def resume(self, job: Job, actor: str, why: str | None = None) -> None:
        """bresume (`why`: bresume -C's reason)."""
        t = self.cl.now()
        if why is not None:
            job.resume_reason = why
        if job.status == "PSUSP":
            job.status = "PEND"
            job.pend_reasons = "Waiting for scheduling after resumed by user"
            eligibility.note(job, t)
        elif job.status in SUSPENDED and job.susp_reason != PREEMPTED_REASON:
            self.unpause(job, t)  # (a preempted job resumes when the scheduler gives its slots back)
        self.cl.log(job, "SIGNAL", actor, t, signal="CONT", **({"reason": why} if why is not None else {}))
        self.cl.mark_dirty()

    def switch(self, job: Job, queue: str, actor: str) -> None:
        t = self.cl.now()
        old = job.queue
        job.queue = queue
        if job.status == "PEND":
            job.pend_reasons = "Waiting for re-scheduling after switching queue"
            eligibility.note(job, t)
        self.cl.log(job, "SWITCH", actor, t, queue=queue, old=old)
        self.cl.mark_dirty()

    def priority_change(self, value: int | None) -> tuple[dict, dict]:
        """bmod -sp VALUE, or -spn (value None: back to MAX_USER_PRIORITY/2): the
        job's new attributes (escalation counts from now) and the record's data."""
        mup = self.cl.config.params.max_user_priority
        attrs = {"priority": value if value is not None else (default_priority(mup) if mup else None),
                 "priority_base_time": self.cl.now()}
        return attrs, ({"sp": value} if value is not None else {"spn": True})

    @staticmethod
    def aps_change(kind: str | None, value: float | None) -> tuple[dict, dict]:
        """bmod -aps "system=V" | "admin=V" (a later one replaces the earlier), or
        -apsn (kind None): the job's new attributes and the record's data."""
        attrs = {"aps_system": value if kind == "system" else None, "aps_admin": value if kind == "admin" else None}
        return attrs, {"aps": f"{kind}={_num(value)}" if kind else None}

    def set_priority(self, job: Job, value: int | None, actor: str) -> None:
        self.modify(job, *self.priority_change(value), actor)

    def set_aps(self, job: Job, kind: str | None, value: float | None, actor: str) -> None:
        self.modify(job, *self.aps_change(kind, value), actor)

    def modify(self, job: Job, attrs: dict, data: dict, actor: str) -> None:
        """bmod: set the job's attributes (`attrs`, checked by lsfemu.ops.bmod)
        and log one MODIFY (`data`: what lsfemu.events.emit makes a JOB_MODIFY2
        of). A pending job whose command or slots change gets its simulated
        run planned again, as at submission."""
        for k, v in attrs.items():
            setattr(job, k, v)
        for key in ("begin_time", "term_time"):  # bmod -b / -t: the loop wakes then
            if attrs.get(key) is not None:
                self.cl.loop.wake_at(attrs[key])
        if "cpu_limit_min" in attrs and self.running_real(job):  # bmod -c/-cn of a running job
            self.cl.runner.cpu_limit(self.cl, job)
        if job.status in PENDING and ("command" in attrs or "num_processors" in attrs):
            job.sim_runtime, job.sim_cputime, job.sim_exit_code = simulate.plan(
                job.command, json.loads(job.env_json or "{}"), job.num_processors, parse_duration)
        self.cl.log(job, "MODIFY", actor, self.cl.now(), **data)
        self.cl.mark_dirty()

    def move(self, job: Job, to_top: bool, position: int, queue_order: list[Job], movable: list[Job], actor: str) -> int:
        """btop/bbot: put `job` at `position` (1-based, from the top or the bottom)
        among the `movable` jobs (the caller's own, or all for administrators).

        `queue_order` is every pending job of the same queue and priority in
        dispatch order. The job lands right next to the movable job whose place
        it takes, so jobs of other users keep their places. Returns the
        position used (clamped to the movable range)."""
        others = [p for p in movable if p is not job]
        full = [p for p in queue_order if p is not job]
        position = max(1, min(position, len(others) + 1))
        seq = others if to_top else list(reversed(others))

        def between(a: Job | None, b: Job | None) -> float:
            if a is None and b is None:
                return job.position
            if a is None:
                return b.position - 1.0
            if b is None:
                return a.position + 1.0
            return (a.position + b.position) / 2.0

        def neighbour(x: Job, step: int) -> Job | None:
            i = full.index(x) + step
            return full[i] if 0 <= i < len(full) else None

        if position <= len(seq):
            anchor = seq[position - 1]
            # from the top: just before the anchor; from the bottom: just after it
            new = between(neighbour(anchor, -1), anchor) if to_top else between(anchor, neighbour(anchor, 1))
        elif seq:
            last = seq[-1]
            new = between(last, neighbour(last, 1)) if to_top else between(neighbour(last, -1), last)
        else:
            new = job.position
        job.position = new
        self.cl.log(job, "MOVE", actor, self.cl.now(), top=to_top, position=position)
        self.cl.mark_dirty()
        return position

    def requeue(self, job: Job, actor: str, hold: bool = False) -> None:
        """brequeue: back to PEND as if newly submitted (priority and APS values
        reset); `hold` (brequeue -H): to PSUSP, until bresume."""
        t = self.cl.now()
        if job.status in STARTED:
            self.charge_usage(job, t)
        self.leave_run(job)
        mup = self.cl.config.params.max_user_priority
        job.status = "PEND"
        job.start_time = job.finish_time = job.segment_start = None
        job.exec_hosts = ""
        job.exit_code = job.exit_reason = None
        job.work_done = 0.0
        job.priority = job.submit_priority if job.submit_priority is not None else (default_priority(mup) if mup else None)
        job.priority_base_time = t
        job.pend_since = t
        job.aps_system = job.aps_admin = None
        job.migrated = False
        job.pend_reasons = "Requeued job is waiting for rescheduling"
        if hold:
            job.status = "PSUSP"
            job.pend_reasons = dispatch.ADMIN_STOP if actor != job.user else dispatch.USER_STOP
        eligibility.note(job, t)
        self.cl.log(job, "REQUEUE", actor, t)
        self.cl.mark_dirty()

    def migrate(self, job: Job, actor: str) -> None:
        """bmig: leave the current host and pend again, keeping the priority."""
        t = self.cl.now()
        self.charge_usage(job, t)
        self.leave_run(job)
        self.cl.log(job, "MIGRATE", actor, t)
        self.rerun(job, t, "MIGRATE")

    def leave_run(self, job: Job) -> None:
        """A really running job leaves its run (requeue, migration, host failure): its processes are killed."""
        if self.running_real(job):
            self.cl.runner.abandon(job)
            job.real_run = False

    def rerun(self, job: Job, t: float, reason: str) -> None:
        """A rerunnable job whose host failed, or bmig: pending again, priority
        and APS values kept, considered before other pending jobs; its
        escalation and APS grace periods go on counting its pending time."""
        job.work_done = 0.0
        job.status = "PEND"
        if job.start_time is not None:  # escalation and grace periods count the time pended, not the run
            job.priority_base_time = pending_clock_after_run(
                job.priority_base_time if job.priority_base_time is not None else job.submit_time, job.start_time, t)
            job.pend_since = pending_clock_after_run(
                job.pend_since if job.pend_since is not None else job.submit_time, job.start_time, t)
        job.start_time = job.segment_start = None
        job.exec_hosts = ""
        job.migrated = True
        job.pend_reasons = "Migrating job is waiting for rescheduling" if reason == "MIGRATE" else "Requeued job is waiting for rescheduling"
        eligibility.note(job, t)
        self.cl.log(job, "RERUN", None, t, reason=reason)
        self.cl.mark_dirty()

    def fail_host(self, name: str, actor: str) -> list[Job]:
        """`lsfemu host fail`: the host goes down. Its rerunnable jobs rerun
        (pending again, priority kept); the others become UNKWN until the
        host recovers. Returns the jobs affected."""
        t = self.cl.now()
        hs = self.cl.host_state.get(name)
        if hs is None:
            hs = self.cl.host_state[name] = HostState(name=name, open=True, failed=False)
            self.cl.session.add(hs)
        hs.failed = True
        hit = [j for j in self.cl.jobs.values() if j.status in ON_HOST and name in j.exec_hosts.split()]
        for job in hit:
            job.work_done = simulate.work_at(job.work_done, job.segment_start, t)
            job.segment_start = None
            self.leave_run(job)
            if job.rerunnable:
                self.charge_usage(job, t)
                self.rerun(job, t, "HOST_FAILURE")
            else:
                job.status = "UNKWN"
                self.cl.log(job, "STATUS", None, t, status="UNKWN", host=name)
        self.cl.mark_dirty()
        return hit

    def recover_host(self, name: str, actor: str) -> list[Job]:
        """`lsfemu host recover`: the host is back; jobs lost with it end EXIT."""
        t = self.cl.now()
        hs = self.cl.host_state.get(name)
        if hs is not None:
            hs.failed = False
        lost = [j for j in self.cl.jobs.values() if j.status == "UNKWN" and name in j.exec_hosts.split()]
        for job in lost:
            self.finish(job, t, "EXIT", None, None)
        self.cl.mark_dirty()
        return lost
