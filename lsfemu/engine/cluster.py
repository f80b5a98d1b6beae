"""The cluster's live state, as mbatchd holds it: configuration, the store,
the clock, the jobs, and the loop of scheduling passes and job completions.

All mutations go through `Cluster` and are committed before a command
answers, so an acknowledged submission is durable. Jobs that matter to the
commands (unfinished, and finished within CLEAN_PERIOD) are kept in memory
(`self.jobs`) as ORM objects attached to one long-lived session; the
scheduling math itself lives in `lsfemu.sched`.
"""

from __future__ import annotations

import gc
import heapq
import itertools
import json
import math
import os
import signal
import time
from dataclasses import dataclass

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import aliased

from lsfemu.clock import Clock, parse_duration, parse_start, wall_refusal
from lsfemu.config.aps import aps_groups, parse_aps_priority
from lsfemu.config.semantic import check_all, load_all
from lsfemu.config.model import ClusterConfig, ConfigIssue
from lsfemu.engine import apsrank, listing, passrows
from lsfemu.engine import fairshare as fairshare_live
from lsfemu.engine.eventlog import EventLog
from lsfemu.daemon.runner import Runner, usage_fields
from lsfemu.events import emit
from lsfemu.events.log import event_files
from lsfemu.jobstate import FINISHED, ON_HOST, PENDING, STARTED, SUSPENDED, UNFINISHED
from lsfemu.sched import aps, arrayspec, depend, dispatch, resreq, simulate
from lsfemu.sched import fairshare as fs
from lsfemu.sched import fairshare_plugins
from lsfemu.sched.priority import (default_priority, escalation, frozen_at_dispatch,
                                   pending_clock_after_run)
from lsfemu.store.counters import ensure_counters, take_counter
from lsfemu.store.db import one_writer_at_a_time, open_store
from lsfemu.store.models import ClockState, Counter, HostState, Job, JobEvent, QueueState, UserUsage
from lsfemu.views import JobView


JobKey = tuple[int, int]


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


class _Row:
    """Fast read-only attribute access over a loaded ORM instance: loaded
    values come from its __dict__, anything else from the instance itself."""

    __slots__ = ("_d", "_job")

    def __init__(self, job: Job):
        self._d = job.__dict__
        self._job = job

    def __getattr__(self, name: str):
        try:
            return self._d[name]
        except KeyError:
            return getattr(self._job, name)


#: the columns _aps_input reads
_APS_COLUMNS = frozenset(("queue", "res_req", "num_processors", "max_processors", "pend_since", "submit_time",
                          "user", "aps_admin", "aps_system"))
#: from this many changed pending reasons on, a pass writes them set-based
_BULK_ROWS = 500


class Cluster:
    """One cluster's state. Not thread-safe: the daemon serialises calls."""

    def __init__(self, envdir: str, home: str, db_url: str | None = None, shared_dir: str | None = None,
                 clock_start: float | None = None):
        """`shared_dir`: in a shared cluster (lsfemu.daemon.master), the folder all
        master candidates see (LSB_SHAREDIR/<cluster>): lsb.events and the job
        spool live there instead of in `home`. `clock_start`: the first instant
        of a new store's clock (what-if replay), before LSFEMU_CLOCK_START."""
        from lsfemu.store.db import default_url

        self.envdir = envdir
        self.home = home
        self.logdir = os.path.join(shared_dir or home, "logdir")
        os.makedirs(home, exist_ok=True)
        os.makedirs(self.logdir, exist_ok=True)
        self.master_name: str | None = None  # the master candidate running the cluster (shared cluster)
        self.fence = None  # shared cluster: called before each commit; raises when no longer the master
        self.config: ClusterConfig = load_all(envdir)
        self._rows = passrows.RowCache()  # what the pass reads of each job, kept between passes
        self.aps_listing = listing.ApsListing(self)  # bjobs -aps
        self._pass_depends: list[JobKey] = []
        self._pass_now: float | None = None
        self._held: set[Job] = set()  # started jobs, as of the last pass (kept current by quiet passes)
        self._waiting_on: set[Job] = set()  # pending jobs with a bsub -w condition, likewise
        self._early: list[JobKey] = []  # jobs the last pass decided before its last start
        self._in_pass = False
        self._derive()
        self.db_url = db_url or default_url(home)
        self.engine, self.Session = open_store(self.db_url)
        self.session = self.Session()
        one_writer_at_a_time(self.session)  # PostgreSQL: writing transactions take turns, as on SQLite
        self.events = EventLog(self.logdir)
        ensure_counters(self.session, ("next_job_id", "position"))
        # Cut lsb.events back to what the store committed under the store's write lock
        # (this no-op UPDATE takes it): in in-process mode another process may be
        # between its append and its commit, and its records must not be cut.
        self.session.execute(update(Counter).where(Counter.name == "events_offset").values(value=Counter.value))
        self.events.recover(self._counter("events_offset"))
        self._init_clock(clock_start)
        why = wall_refusal(self.clock.virtual_now, time.time()) if self.clock.mode == "wall" else None
        if why:  # the cluster's time would run backwards: lsb.events out of order, waits lost
            raise ValueError(why)
        self.runner = Runner(shared_dir or home)  # real execution in wall clock mode
        self.jobs: dict[JobKey, Job] = {}
        # Counts loads and new jobs: with len(self.jobs), says whether the set
        # of jobs may have changed since (see job_users).
        self._jobs_gen = 0
        self._users_of: tuple[tuple[int, int], set[str]] | None = None  # job_users, with the key it was made at
        self._load_jobs()
        self.runner.adopt(self.jobs.values())
        self.queue_state: dict[str, QueueState] = {}
        self.host_state: dict[str, HostState] = {}
        self._load_admin_state()
        self.dirty = False
        self.dirty_since = 0.0
        self._started: list[Job] | None = None  # jobs started inside run_until (its heap of job ends)
        self._depend_trees: dict[str, object] = {}  # depend_json -> its tree (lsfemu.sched.depend)
        self._depend_gone: dict[int, list] = {}  # rows of jobs a condition names that memory no longer holds
        self.processed_until = self.now()  # events up to this instant have been handled
        self.mark_dirty()  # a (re)started daemon looks at every pending job once
        self.session.commit()

    # -- loading ---------------------------------------------------------------
    def _init_clock(self, clock_start: float | None) -> None:
        st = self.session.get(ClockState, 1)
        mode = self.config.lsf_conf.get("LSFEMU_CLOCK", "wall").lower()
        if st is None:
            # The cluster's first instant: the caller's (what-if replay), else the
            # environment's LSFEMU_CLOCK_START (tests), else lsf.conf's (lsfemu init
            # --start), else now.
            if clock_start is not None:
                now = float(clock_start)
            else:
                start = os.environ.get("LSFEMU_CLOCK_START") or self.config.lsf_conf.get("LSFEMU_CLOCK_START")
                now = parse_start(start) if start else float(int(time.time()))
            st = ClockState(id=1, virtual_now=now, last_pass=now)
            self.session.add(st)
        self.clock_state = st
        self.clock = Clock(mode, st.virtual_now)

    def _load_jobs(self) -> None:
        now = self.now()
        horizon = now - self.config.params.clean_period
        rows = self.session.scalars(
            select(Job).where((Job.status.in_(UNFINISHED)) | (Job.finish_time >= horizon))
        )
        self.jobs = {(j.id, j.array_index): j for j in rows}
        self._jobs_gen += 1
        # What was just loaded lives as long as the cluster: out of the cyclic
        # collector's reach from now on (gc.freeze), so that its full
        # collections -- which a pass or a command may set off at any moment --
        # do not walk the whole store again each time (at 100k jobs ~0.4 s).
        gc.freeze()

    def _load_admin_state(self) -> None:
        for qs in self.session.scalars(select(QueueState)):
            self.queue_state[qs.name] = qs
        for hs in self.session.scalars(select(HostState)):
            self.host_state[hs.name] = hs

    def reload_jobs(self) -> None:
        """Forget cached objects and read the store again (in-process mode, rollback)."""
        self.events.staged.clear()
        self.runner.rollback()
        self.session.expire_all()
        self._rows.clear()
        self._last_state = None
        self.clock_state = self.session.get(ClockState, 1)
        self.clock.virtual_now = self.clock_state.virtual_now
        self._load_jobs()
        self.runner.adopt(self.jobs.values())
        self.queue_state.clear()
        self.host_state.clear()
        self._load_admin_state()

    # -- time ------------------------------------------------------------------
    def now(self) -> float:
        return self.clock.now()

    def _counter(self, name: str) -> int | None:
        c = self.session.get(Counter, name)
        return c.value if c is not None else None

    def _set_counter(self, name: str, value: int) -> None:
        c = self.session.get(Counter, name)
        if c is None:
            self.session.add(Counter(name=name, value=value))
        else:
            c.value = value

    def commit(self) -> None:
        """Commit the store with the request's lsb.events records (see lsfemu.engine.eventlog)."""
        if self.fence is not None:
            self.fence()  # before the records reach the shared lsb.events
        self.clock_state.virtual_now = self.clock.virtual_now
        # Write to the store first: that takes its write lock (SQLite's, or the writer
        # lock on PostgreSQL) before the records go to lsb.events, so that appends and
        # their committed offsets happen in the same order in several processes.
        self.session.flush()
        finished = self.events.finished_in_staged()
        before, after = self.events.write_staged()
        if after != before:
            self._set_counter("events_offset", after)
            self._set_counter("events_finished", (self._counter("events_finished") or 0) + finished)
        try:
            self.session.commit()
        except Exception:
            if after != before:
                self.events.undo(before)
            raise
        self.runner.after_commit(self)  # jobs started in this commit begin to run now
        if (self._counter("events_finished") or 0) >= max(1, self.config.params.max_job_num):
            self._switch_event_log()

    def _switch_event_log(self) -> None:
        """MAX_JOB_NUM finished jobs in lsb.events: switch to a new file."""
        unfinished = {k for k, j in self.jobs.items() if j.status in UNFINISHED}
        unfinished |= {(jid, 0) for jid, idx in unfinished if idx}  # a live element keeps its array's JOB_NEW
        self.events.switch(None, unfinished)
        self._set_counter("events_offset", self.events.size())
        self._set_counter("events_finished", 0)
        self.session.commit()

    def set_back_unused(self, target: float) -> bool:
        """`lsfemu clock set` to an earlier time, allowed while the cluster has never
        had a job (a lesson's date chosen after the first command started the
        daemon): the clock moves back and the records already in lsb.events
        (daemon starts, queue and host control) are dated no later than `target`,
        so the log stays in time order. False, and nothing changed, otherwise."""
        # The no-op UPDATE takes the store's write lock first: no submission can
        # slip in between the check and the commit (another in-process command).
        self.session.execute(update(Counter).where(Counter.name == "events_offset").values(value=Counter.value))
        if self.session.scalar(select(Job.id).limit(1)) is not None or len(event_files(self.logdir)) > 1:
            return False  # the request's commit ends the no-op
        self.events.redate(int(target))
        self._set_counter("events_offset", self.events.size())
        self.clock.virtual_now = target
        self.clock_state.last_pass = target
        self.processed_until = target
        self.dirty_since = min(self.dirty_since, target)
        self.commit()
        return True

    # -- configuration ---------------------------------------------------------
    def reconfig(self) -> list[ConfigIssue]:
        """Apply the configuration on disk if it has no fatal errors."""
        cfg, issues = check_all(self.envdir)
        if cfg is not None:
            self.config = cfg
            self._derive()
            mode = cfg.lsf_conf.get("LSFEMU_CLOCK", "wall").lower()
            if mode in ("wall", "virtual"):
                if mode == "virtual" and self.clock.mode == "wall":
                    self.clock.virtual_now = self.clock.now()  # on from the wall clock, never back
                self.clock.mode = mode
            self.mark_dirty()
        return issues

    def _derive(self) -> None:
        """What the scheduler needs from the configuration, parsed once per (re)configuration."""
        cfg = self.config
        self.aps_unit = aps_groups(cfg.queues)  # queue -> the APS queue ordering it
        self.aps_cfg = {q.name: parse_aps_priority(q.aps_priority) for q in cfg.queues if q.aps_priority}
        self.per_slot = resreq.per_slot_from_params(cfg.params.extra)
        self.rusage_units = resreq.units_from_conf(cfg.lsf_conf)
        self._rusage_cache: dict[tuple[str | None, int], dict[str, float]] = {}
        self._rows.clear()  # its rows hold queue and rusage facts
        self.fs_by_queue, self.fs_partitions = fairshare_live.scopes(cfg)
        self._trees: dict[str, tuple[frozenset[str], fs.ShareTree]] = {}  # scope key -> (known users, tree)
        self._last_state: tuple | None = None  # the state the last pass ended with (None: unknown)
        interval = cfg.params.job_accept_interval * cfg.params.mbd_sleep_time
        self._slot_pools = fs.parse_slot_pools(cfg.queues)  # pool -> [(queue, SLOT_SHARE)]
        self._quiet_ok = (interval <= 0 and not self._slot_pools
                          and all(q.name in self.aps_unit or self.fs_by_queue.get(q.name) is None
                                  for q in cfg.queues))
        spec = cfg.params.extra.get("FAIRSHARE_ADJUSTMENT_PLUGIN")
        self.fs_plugin = fairshare_plugins.load_plugin(spec) if spec else None

    # -- ids and events --------------------------------------------------------
    def next_job_id(self) -> int:
        """The next job ID in sequence, rolling over to 1 after MAX_JOBID and
        skipping IDs still in use (LSF's job ID limit)."""
        max_id = self.config.params.max_jobid
        jid = take_counter(self.session, "next_job_id", wrap_at=max_id)  # (takes the store's write lock)
        if self._job_id_free(jid):
            return jid
        # Taken (the count rolled over onto jobs still in the store): the first
        # free ID after it, found in one query each way round, not one per ID.
        free = self._free_job_id_after(jid, max_id)
        if free is None and jid > 1:
            free = 1 if self._job_id_free(1) else self._free_job_id_after(1, jid)
        if free is None:
            self._set_counter("next_job_id", jid)  # as it was: nothing changes
            raise NoJobId()
        self._set_counter("next_job_id", free + 1 if free < max_id else 1)
        return free

    def _job_id_free(self, jid: int) -> bool:
        return self.session.scalar(select(Job.id).where(Job.id == jid).limit(1)) is None

    def _free_job_id_after(self, taken: int, below: int) -> int | None:
        """The smallest free job ID above *taken* (an ID in use) and at most
        *below*: the end of the run of used IDs that starts at *taken*, plus one."""
        nxt = aliased(Job)
        end = self.session.scalar(
            select(func.min(Job.id)).where(Job.id >= taken, Job.id < below,
                                           ~select(nxt.id).where(nxt.id == Job.id + 1).exists()))
        return None if end is None else end + 1

    def log(self, job: Job, kind: str, actor: str | None, t: float, **data) -> None:
        """Record a change: a history row in the store and LSF's records for lsb.events
        (made now, from the job as it is at this change)."""
        self.session.add(JobEvent(job_id=job.id, array_index=job.array_index, time=t, kind=kind,
                                  actor=actor, data=json.dumps(data)))
        self.events.stage_job(job, kind, t, actor, data)

    def history(self, job: Job) -> list[JobEvent]:
        return list(self.session.scalars(
            select(JobEvent).where(JobEvent.job_id == job.id, JobEvent.array_index == job.array_index)
            .order_by(JobEvent.id)))

    # -- job lifecycle ---------------------------------------------------------
    def submit(self, spec: SubmitSpec) -> Job:
        now = self.now()
        slots = spec.num_processors
        runtime, cputime, exit_code = simulate.plan(spec.command, spec.env, slots, parse_duration)
        jid = self.next_job_id()
        p = self.config.params
        priority = None
        if p.max_user_priority is not None:
            priority = spec.submit_priority if spec.submit_priority is not None else default_priority(p.max_user_priority)
        arr = spec.array
        indices = arr.indices() if arr is not None else [0]
        elements = [self._new_job(spec, jid, idx, now, priority, runtime, cputime, exit_code) for idx in indices]
        if arr is None:
            self.log(elements[0], "SUBMIT", spec.user, now, queue=spec.queue)
        else:  # one JOB_NEW for the array (mbatchd's log_newjob), a history row per element
            for job in elements:
                self.session.add(JobEvent(job_id=jid, array_index=job.array_index, time=now, kind="SUBMIT",
                                          actor=spec.user, data=json.dumps({"queue": spec.queue})))
            self.events.stage_job(_ArrayHead(elements[0]), "SUBMIT", now, spec.user, {"queue": spec.queue})
        self.mark_dirty()
        return elements[0]

    def _new_job(self, spec: SubmitSpec, jid: int, idx: int, now: float, priority, runtime, cputime, exit_code) -> Job:
        arr = spec.array
        job = Job(
            id=jid, array_index=idx, user=spec.user, status="PEND", queue=spec.queue,
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
            mem_limit_kb=spec.mem_limit_kb, mem_limit_hard=spec.mem_limit_hard,
            default_queue_used=spec.default_queue_used, submit_time=now, position=0.0,
            exec_hosts="", pend_reasons=dispatch.NEW_JOB, sim_runtime=runtime, sim_cputime=cputime,
            sim_exit_code=exit_code, work_done=0.0, env_json=json.dumps(spec.env),
        )
        job.position = self._next_position()
        self.session.add(job)
        self.jobs[(jid, idx)] = job
        self._jobs_gen += 1
        return job

    def _next_position(self) -> float:
        return float(take_counter(self.session, "position"))

    def limits_unit(self) -> str:
        """LSF_UNIT_FOR_LIMITS (lsf.conf): the unit of -M values and of limits shown; KB by default."""
        return (self.config.lsf_conf.get("LSF_UNIT_FOR_LIMITS") or "KB").strip().upper()

    def mem_limit_enforced(self, job: Job) -> bool:
        """Does LSF itself kill the job past its -M limit? With LSB_MEMLIMIT_ENFORCE=Y or
        LSB_JOB_MEMLIMIT=Y (lsf.conf), or a hard limit (-M N!); otherwise the limit goes to
        the operating system (setrlimit RLIMIT_RSS), as LSF documents."""
        if job.mem_limit_kb is None:
            return False
        conf = self.config.lsf_conf
        on = any(conf.get(k, "N").strip().upper() in ("Y", "YES") for k in ("LSB_MEMLIMIT_ENFORCE", "LSB_JOB_MEMLIMIT"))
        return on or bool(job.mem_limit_hard)

    def effective_run_limit(self, job: Job) -> float | None:
        """Minutes: the job's -W, else its queue's RUNLIMIT default, else the
        queue's maximum. Read from the job's current queue each time, as LSF
        applies the queue's limits when it dispatches (bswitch moves them)."""
        if job.run_limit_min is not None:
            return job.run_limit_min
        q = self.config.queue(job.queue)
        if q is None:
            return None
        return q.run_limit_default if q.run_limit_default is not None else q.run_limit

    def _start(self, job: Job, hosts: list[str], t: float) -> None:
        if job.priority is not None:  # escalation stops at dispatch
            since = job.priority_base_time if job.priority_base_time is not None else job.submit_time
            job.priority, job.priority_base_time = frozen_at_dispatch(
                job.priority, since, t, self.config.params.job_priority_over_time)
        job.migrated = False
        job.status = "RUN"
        job.start_time = t
        job.segment_start = t
        job.exec_hosts = " ".join(hosts)
        job.pend_reasons = ""
        if self.clock.mode == "wall":  # a real process (lsfemu.daemon.runner); CPU time is measured
            job.real_run = True
            job.sim_runtime = job.sim_cputime = 0.0
            job.usage_json = None
            self.runner.start(job)
        self.log(job, "START", None, t, hosts=hosts)
        if self._started is not None:
            self._started.append(job)  # run_until files its end

    def _finish(self, job: Job, t: float, status: str, exit_code: int | None, reason: str | None) -> None:
        if job.status in STARTED:
            self._charge_usage(job, t)
        job.segment_start = None
        job.status = status
        job.finish_time = t
        job.exit_code = exit_code
        job.exit_reason = reason
        job.pend_reasons = ""
        self.log(job, "FINISH", None, t, status=status, exit_code=exit_code, reason=reason)
        self.mark_dirty()

    def restart_usage(self) -> int:
        """What a restarted mbatchd knows of past usage: it reads back only the
        jobs that finished within CLEAN_PERIOD (seed: "Any jobs cleaned before
        restart are lost and are not included in the new calculation of the
        dynamic priority"). The history is rebuilt from those jobs alone.
        Returns the number of jobs read back."""
        from sqlalchemy import delete

        horizon = self.now() - self.config.params.clean_period
        self.session.execute(delete(UserUsage))
        back = self.session.scalars(
            select(Job).where(Job.status.in_(FINISHED), Job.finish_time >= horizon, Job.start_time.is_not(None))
            .order_by(Job.finish_time))
        n = 0
        for job in back:
            self._charge_usage(job, job.finish_time)
            n += 1
        return n

    def _charge_usage(self, job: Job, t: float) -> None:
        """A run ends at *t*: its running time is added up, and what it counted
        for in fairshare goes to its user's decayed history."""
        job.work_done = simulate.work_at(job.work_done, job.segment_start, t)
        job.segment_start = None
        fairshare_live.charge(self, job, t)

    def kill(self, job: Job, actor: str, signum: int | None = None) -> None:
        """End a job by a signal: bkill's default sequence (None) or `bkill -s`."""
        t = self.now()
        self.log(job, "SIGNAL", actor, t, signal="KILL" if signum is None else signum)
        owner = actor == job.user
        reason = "TERM_OWNER: job killed by owner" if owner else "TERM_ADMIN: job killed by root or LSF administrator"
        if self._running_real(job):  # signal the process; it ends when the process does
            self.runner.kill(self, job, signum, reason)
            return
        code = simulate.KILL_EXIT_CODE if signum is None else 128 + signum
        self._finish(job, t, "EXIT", code, reason)

    def _running_real(self, job: Job) -> bool:
        return job.real_run and job.status in STARTED

    def real_job_ended(self, job: Job, st: dict) -> None:
        """A really run job's process ended (`st`: its status, read by the runner)."""
        job.sim_cputime = float(st.get("cpu") or 0.0)
        job.usage_json = json.dumps(st.get("usage") or {})
        t = max(float(st.get("end") or self.now()), job.start_time or 0.0)
        if st.get("status") == "DONE":
            self._finish(job, t, "DONE", None, None)
        else:
            self._finish(job, t, "EXIT", st.get("exit_code"), st.get("reason"))

    def kill_real_jobs(self, actor: str, timeout: float = 10.0) -> int:
        """SIGKILL every really running job and collect their ends (`lsfemu daemon stop --kill-jobs`)."""
        hit = [j for j in self.jobs.values() if self._running_real(j)]
        for job in hit:
            self.kill(job, actor, signal.SIGKILL)
        self.runner.wait_all(self, timeout)
        return len(hit)

    def note_signal(self, job: Job, actor: str, signame: str) -> None:
        """A signal whose default action is to be ignored: recorded (and sent to a real job)."""
        self.log(job, "SIGNAL", actor, self.now(), signal=signame)
        if self._running_real(job):
            self.runner.send(job, int(signal.Signals["SIG" + signame]))

    def stop(self, job: Job, actor: str) -> None:
        t = self.now()
        admin = actor != job.user
        if job.status == "PEND":
            job.status = "PSUSP"
            job.pend_reasons = dispatch.ADMIN_STOP if admin else dispatch.USER_STOP
        elif job.status in ("RUN", "SSUSP"):
            if job.real_run:
                self.runner.send(job, signal.SIGSTOP)
            job.work_done = simulate.work_at(job.work_done, job.segment_start, t)
            job.segment_start = None
            job.status = "USUSP"
            job.susp_reason = ("The job was suspended by LSF admin or root while running" if admin
                               else "The job was suspended by user")
        self.log(job, "SIGNAL", actor, t, signal="STOP")
        self.mark_dirty()

    def resume(self, job: Job, actor: str) -> None:
        t = self.now()
        if job.status == "PSUSP":
            job.status = "PEND"
            job.pend_reasons = "Waiting for scheduling after resumed by user"
        elif job.status in SUSPENDED:
            if job.real_run:
                self.runner.send(job, signal.SIGCONT)
            job.status = "RUN"
            job.segment_start = t
            job.susp_reason = None
        self.log(job, "SIGNAL", actor, t, signal="CONT")
        self.mark_dirty()

    def switch(self, job: Job, queue: str, actor: str) -> None:
        t = self.now()
        old = job.queue
        job.queue = queue
        if job.status == "PEND":
            job.pend_reasons = "Waiting for re-scheduling after switching queue"
        self.log(job, "SWITCH", actor, t, queue=queue, old=old)
        self.mark_dirty()

    # -- job priority and its changes -------------------------------------------
    def effective_priority(self, job: Job, now: float | None = None) -> int | None:
        """The job priority now: as last set, escalated by JOB_PRIORITY_OVER_TIME
        while the job pends (frozen once it starts)."""
        if job.priority is None:
            return None
        if job.status not in PENDING:
            return job.priority
        now = self.now() if now is None else now
        base_time = job.priority_base_time if job.priority_base_time is not None else job.submit_time
        return escalation(self.config.params.job_priority_over_time)(job.priority, now - base_time)

    def share_tree(self, scope, known: set[str]) -> fs.ShareTree:
        """The share tree of a fairshare scope for these known users: built
        once and kept while the configuration and the known users stay the
        same (a tree depends on nothing else; usage and priorities live in
        the FairshareState made around it for each instant). A tree that
        made a default account on first sight (a user it did not know) has
        grown and is built again."""
        key = frozenset(known)
        kept = self._trees.get(scope.key)
        if kept is not None and kept[0] == key and kept[1].grown == 0:
            return kept[1]
        tree = fs.build_tree(scope.shares_text, self.config.user_groups, key)
        self._trees[scope.key] = (key, tree)
        return tree

    def fairshare(self, now: float | None = None) -> fairshare_live.LiveFairshare:
        """Fairshare states at an instant (built lazily per queue)."""
        return fairshare_live.LiveFairshare(self, self.now() if now is None else now)

    def aps_result(self, job: Job, now: float, live: fairshare_live.LiveFairshare | None = None):
        """The job's APS value (lsfemu.sched.aps.ApsResult), None outside APS queues."""
        unit = self.aps_unit.get(job.queue)
        if unit is None:
            return None
        return aps.aps_value(self.aps_cfg[unit], self._aps_input(job, now, live))

    def aps_rank(self, job: Job, now: float, live: fairshare_live.LiveFairshare) -> tuple:
        """``aps.aps_rank(self.aps_result(...))``, computed without the terms (the pass ranks every job)."""
        unit = self.aps_unit.get(job.queue)
        if unit is None:
            return aps.aps_rank(None)
        return aps.aps_rank_of(self.aps_cfg[unit], self._aps_input(job, now, live))

    def _aps_input(self, job: Job, now: float, live: fairshare_live.LiveFairshare | None) -> aps.ApsJobInput:
        d = job.__dict__  # loaded column values: no ORM attribute machinery per read
        if not _APS_COLUMNS <= d.keys():  # expired attributes: load them the ORM way
            d = {k: getattr(job, k) for k in _APS_COLUMNS}
        q = self.config.queue(d["queue"])
        amounts = self._rusage(d["res_req"], d["num_processors"])
        since = d["pend_since"] if d["pend_since"] is not None else d["submit_time"]
        return aps.ApsJobInput(
            pend_seconds=max(0.0, now - since),
            proc=aps.proc_value(d["num_processors"], d["max_processors"], q.extra.get("PROCLIMIT") if q else None),
            mem_mb=amounts.get("mem", 0.0), swap_mb=amounts.get("swp", 0.0),
            job_priority=self.effective_priority(job, now) or 0,
            queue_priority=q.priority if q else 0,
            fs_priority=(live or self.fairshare(now)).priority(d["user"], d["queue"]) if q and q.fairshare else None,
            admin_value=d["aps_admin"], system_value=d["aps_system"])

    def _rusage(self, res_req: str | None, slots: int) -> dict[str, float]:
        """rusage amounts of a resource requirement (parsed once per distinct
        string and configuration: many jobs share a few strings)."""
        key = (res_req, slots)
        amounts = self._rusage_cache.get(key)
        if amounts is None:
            try:
                amounts = resreq.rusage_amounts(res_req, slots, self.per_slot, self.rusage_units)
            except resreq.ResReqError:
                amounts = {}
            if len(self._rusage_cache) > 100_000:
                self._rusage_cache.clear()
            self._rusage_cache[key] = amounts
        return amounts

    def set_priority(self, job: Job, value: int | None, actor: str) -> None:
        """bmod -sp VALUE, or -spn (value None: back to MAX_USER_PRIORITY/2)."""
        t = self.now()
        mup = self.config.params.max_user_priority
        job.priority = value if value is not None else (default_priority(mup) if mup else None)
        job.priority_base_time = t
        self.log(job, "MODIFY", actor, t, **({"sp": value} if value is not None else {"spn": True}))
        self.mark_dirty()

    def set_aps(self, job: Job, kind: str | None, value: float | None, actor: str) -> None:
        """bmod -aps "system=V" | "admin=V" (a later one replaces the earlier), or -apsn (kind None)."""
        t = self.now()
        job.aps_system = value if kind == "system" else None
        job.aps_admin = value if kind == "admin" else None
        text = f"{kind}={_num(value)}" if kind else None
        self.log(job, "MODIFY", actor, t, aps=text)
        self.mark_dirty()

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
        self.log(job, "MOVE", actor, self.now(), top=to_top, position=position)
        self.mark_dirty()
        return position

    def requeue(self, job: Job, actor: str) -> None:
        """brequeue: back to PEND as if newly submitted (priority and APS values reset)."""
        t = self.now()
        if job.status in STARTED:
            self._charge_usage(job, t)
        self._leave_run(job)
        mup = self.config.params.max_user_priority
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
        self.log(job, "REQUEUE", actor, t)
        self.mark_dirty()

    def migrate(self, job: Job, actor: str) -> None:
        """bmig: leave the current host and pend again, keeping the priority."""
        t = self.now()
        self._charge_usage(job, t)
        self._leave_run(job)
        self.log(job, "MIGRATE", actor, t)
        self.rerun(job, t, "MIGRATE")

    def _leave_run(self, job: Job) -> None:
        """A really running job leaves its run (requeue, migration, host failure): its processes are killed."""
        if self._running_real(job):
            self.runner.abandon(job)
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
        self.log(job, "RERUN", None, t, reason=reason)
        self.mark_dirty()

    # -- the event loop --------------------------------------------------------
    def _end_instant(self, job: Job) -> tuple[float, bool] | None:
        if job.status != "RUN" or job.segment_start is None or job.real_run:
            return None  # a real job ends when its process does (lsfemu.daemon.runner)
        return simulate.end_of_run(job.sim_runtime, self.effective_run_limit(job), job.work_done, job.segment_start)

    def next_finish(self, ends: list | None = None) -> tuple[float, Job, bool] | None:
        """The earliest simulated job end (ties: queue position). With *ends*,
        a heap of (end, position, key) that run_until keeps for one call: an
        entry is checked against the job when it comes to the top, so one
        that a change made stale is dropped or re-filed, never trusted."""
        if ends is not None:
            while ends:
                end, pos, key = ends[0]
                job = self.jobs.get(key)
                e = self._end_instant(job) if job is not None else None
                if e is not None and e[0] == end and job.position == pos:
                    return end, job, e[1]
                heapq.heappop(ends)
                if e is not None:
                    heapq.heappush(ends, (e[0], job.position, key))
            return None
        best = None
        for job in self.jobs.values():
            e = self._end_instant(job)
            if e is not None and (best is None or (e[0], job.position) < (best[0], best[1].position)):
                best = (e[0], job, e[1])
        return best

    def _end_heap(self) -> list:
        rows = self._rows.rows  # a job's status without an ORM read (every command runs this)
        ends = [(e[0], job.position, key) for key, job in self.jobs.items()
                if ((row := rows.get(job)) is None or row.status == "RUN") and (e := self._end_instant(job)) is not None]
        heapq.heapify(ends)
        return ends

    def mark_dirty(self) -> None:
        """Something changed that a scheduling pass should look at."""
        if not self.dirty:
            self.dirty = True
            self.dirty_since = self.now()

    def next_pass(self) -> float | None:
        """Passes run on a grid of MBD_SLEEP_TIME, and only when something changed."""
        if not self.dirty:
            return None
        # Newest first: the pending jobs are mostly the recent ones, the old ones finished.
        if not any(j.status == "PEND" for j in reversed(self.jobs.values())):
            self.dirty = False  # nothing to schedule; the next change starts a new wait
            return None
        sleep = max(1, self.config.params.mbd_sleep_time)
        last = self.clock_state.last_pass
        if last is None:
            last = self.clock_state.last_pass = self.now()
        steps = max(1, math.ceil((self.dirty_since - last) / sleep))
        # Never before what was already processed: a pass that was not due then
        # (nothing pending) runs at the next grid point after it.
        done = self.processed_until
        if last + steps * sleep < done:
            steps = math.ceil((done - last) / sleep)
        return last + steps * sleep

    def run_until(self, target: float) -> int:
        """Process every job end and scheduling pass due up to `target`, in order.

        Returns the number of passes run. In virtual mode the clock is moved
        to each event and finally to `target`.
        """
        passes = 0
        # The end instants of the running jobs, found once: in between, only
        # this loop's passes start jobs (self._started), and only its job
        # ends change them (stale entries are dropped when they surface).
        ends = self._end_heap()
        self._started = []
        try:
            while True:
                fin = self.next_finish(ends)
                nxt = self.next_pass()
                candidates = []
                if fin is not None and fin[0] <= target:
                    candidates.append((fin[0], 0))
                if nxt is not None and nxt <= target:
                    candidates.append((nxt, 1))
                if not candidates:
                    break
                t, kind = min(candidates)
                self.processed_until = max(self.processed_until, t)
                if self.clock.mode == "virtual":
                    self.clock.virtual_now = max(self.clock.virtual_now, t)
                if kind == 0:
                    _, job, by_limit = fin
                    if by_limit:
                        self._finish(job, t, "EXIT", simulate.RUNLIMIT_EXIT_CODE,
                                     "TERM_RUNLIMIT: job killed after reaching LSF run time limit")
                    elif job.sim_exit_code == 0:
                        self._finish(job, t, "DONE", None, None)
                    else:
                        self._finish(job, t, "EXIT", job.sim_exit_code, None)
                else:
                    self.scheduling_pass(t)
                    passes += 1
                    for job in self._started if ends is not None else ():
                        e = self._end_instant(job)
                        if e is not None:
                            heapq.heappush(ends, (e[0], job.position, (job.id, job.array_index)))
                    self._started.clear()
        finally:
            self._started = None
        if self.clock.mode == "virtual":
            self.clock.virtual_now = max(self.clock.virtual_now, target)
        self.processed_until = max(self.processed_until, target)
        return passes

    def catch_up(self) -> None:
        """Wall mode: run what is due by now. Virtual mode: run what is due at the current instant."""
        self.runner.poll(self)  # real jobs: ends, usage, run limits, kill sequences
        self.run_until(self.now())

    def advance(self, seconds: float) -> int:
        if self.clock.mode != "virtual":
            raise ValueError("the clock is not virtual (set LSFEMU_CLOCK=virtual in lsf.conf)")
        return self.run_until(self.clock.virtual_now + seconds)

    # -- the scheduling pass ---------------------------------------------------
    def user_limit(self, user: str) -> int | None:
        """MAX_JOBS of a user: own row, else a group@ row of one of its groups, else default."""
        lim = self.config.user_limits
        if user in lim:
            return lim[user].max_jobs
        for name, row in lim.items():
            if name.endswith("@") and user in self.config.group_members(name[:-1]):
                return row.max_jobs
        if "default" in lim:
            return lim["default"].max_jobs
        return None

    def queue_active(self, name: str) -> bool:
        qs = self.queue_state.get(name)
        return qs.active if qs else True

    def queue_open(self, name: str) -> bool:
        qs = self.queue_state.get(name)
        return qs.open if qs else True

    def set_queue_state(self, name: str, action: str, actor: str) -> None:
        """badmin qopen/qclose/qact/qinact."""
        qs = self.queue_state.get(name)
        if qs is None:
            qs = self.queue_state[name] = QueueState(name=name, open=True, active=True)
            self.session.add(qs)
        if action in ("qopen", "qclose"):
            qs.open = action == "qopen"
        else:
            qs.active = action == "qact"
        self.events.stage(emit.queue_ctrl(self.now(), name, action, actor))
        self.mark_dirty()

    def set_host_state(self, name: str, is_open: bool, actor: str) -> None:
        """badmin hopen/hclose."""
        hs = self.host_state.get(name)
        if hs is None:
            hs = self.host_state[name] = HostState(name=name, open=True)
            self.session.add(hs)
        hs.open = is_open
        self.events.stage(emit.host_ctrl(self.now(), name, "hopen" if is_open else "hclose", actor))
        self.mark_dirty()

    def host_failed(self, name: str) -> bool:
        hs = self.host_state.get(name)
        return hs.failed if hs else False

    def fail_host(self, name: str, actor: str) -> list[Job]:
        """`lsfemu host fail`: the host goes down. Its rerunnable jobs rerun
        (pending again, priority kept); the others become UNKWN until the
        host recovers. Returns the jobs affected."""
        t = self.now()
        hs = self.host_state.get(name)
        if hs is None:
            hs = self.host_state[name] = HostState(name=name, open=True, failed=False)
            self.session.add(hs)
        hs.failed = True
        hit = [j for j in self.jobs.values() if j.status in ON_HOST and name in j.exec_hosts.split()]
        for job in hit:
            job.work_done = simulate.work_at(job.work_done, job.segment_start, t)
            job.segment_start = None
            self._leave_run(job)
            if job.rerunnable:
                self._charge_usage(job, t)
                self.rerun(job, t, "HOST_FAILURE")
            else:
                job.status = "UNKWN"
                self.log(job, "STATUS", None, t, status="UNKWN", host=name)
        self.mark_dirty()
        return hit

    def recover_host(self, name: str, actor: str) -> list[Job]:
        """`lsfemu host recover`: the host is back; jobs lost with it end EXIT."""
        t = self.now()
        hs = self.host_state.get(name)
        if hs is not None:
            hs.failed = False
        lost = [j for j in self.jobs.values() if j.status == "UNKWN" and name in j.exec_hosts.split()]
        for job in lost:
            self._finish(job, t, "EXIT", None, None)
        self.mark_dirty()
        return lost

    def host_open(self, name: str) -> bool:
        hs = self.host_state.get(name)
        return hs.open if hs else True

    def job_users(self) -> set[str]:
        """The users of the jobs in memory (a job's user never changes: kept
        until a job is added or leaves; not to be changed by the caller)."""
        key = (self._jobs_gen, len(self.jobs))  # (jobs only leave: an addition moves the count)
        if self._users_of is not None and self._users_of[0] == key:
            return self._users_of[1]
        users = self._job_users()
        self._users_of = (key, users)
        return users

    def _job_users(self) -> set[str]:
        rows = self._rows.rows
        if len(rows) >= len(self.jobs):  # every job has its row (after a pass): no ORM reads
            return {r.user for r in rows.values()}
        out = set()
        for job in self.jobs.values():
            row = rows.get(job)
            out.add(row.user if row is not None else job.user)
        return out

    def row(self, job: Job) -> passrows.Row:
        """What the pass reads of *job* (its passrows.Row: kept between
        passes, built now when the job changed since)."""
        row = self._rows.rows.get(job)
        return row if row is not None else passrows.build_row(self, job, self._rows)

    def started_jobs(self) -> list[Job] | set[Job]:
        """The jobs in memory that hold slots (RUN, USUSP, SSUSP, UNKWN)."""
        if self._in_pass:  # no status changes while dispatch.schedule_pass runs: the pass input's set holds
            return self._held
        rows = self._rows.rows
        out = []
        for job in self.jobs.values():
            row = rows.get(job)
            if (row.status if row is not None else job.status) in STARTED:
                out.append(job)
        return out

    def _pass_frame(self) -> tuple[dict[str, dispatch.HostInfo], dict[str, dispatch.QueueInfo]]:
        """The hosts and queues of a pass, before the started jobs' slots are counted."""
        cfg = self.config
        hosts = {}
        for name in cfg.host_names:
            mxj = cfg.host_mxj(name)
            hosts[name] = dispatch.HostInfo(name=name, max_slots=mxj, open=self.host_open(name),
                                            ncpus=mxj if mxj else (os.cpu_count() or 1),
                                            failed=self.host_failed(name))
        queues = {}
        for i, q in enumerate(cfg.queues):
            queues[q.name] = dispatch.QueueInfo(
                name=q.name, priority=q.priority, order=i, active=self.queue_active(q.name),
                hosts=cfg.queue_hosts(q), qjob_limit=q.qjob_limit, ujob_limit=q.ujob_limit,
                hjob_limit=q.hjob_limit, pjob_limit=q.pjob_limit)
        interval = cfg.params.job_accept_interval * cfg.params.mbd_sleep_time
        if interval > 0:
            now = self.now()
            for job in self.jobs.values():
                if job.start_time is not None and job.start_time + interval > now:
                    for h in set(job.exec_hosts.split()):
                        if h in hosts:
                            hosts[h].accepting = False
            for h in hosts.values():
                h.accept_once = True
        return hosts, queues

    @staticmethod
    def _hold(job: Job, hosts: dict, queues: dict, user_used: dict, array_started: dict) -> None:
        """Count the slots a started job holds."""
        if job.array_index:
            array_started[job.id] = array_started.get(job.id, 0) + 1
        n = job.num_processors
        user_used[job.user] = user_used.get(job.user, 0) + n
        qi = queues.get(job.queue)
        if qi:
            qi.used += n
            qi.used_by_user[job.user] = qi.used_by_user.get(job.user, 0) + n
        for h in job.exec_hosts.split():
            if h in hosts:
                hosts[h].used += 1
            if qi:
                qi.used_on_host[h] = qi.used_on_host.get(h, 0) + 1

    def pass_input(self, t: float | None = None) -> dispatch.PassInput:
        """The pass's input at instant *t* (default now): every pending job's
        priority is escalated to *t*, the instant the pass ranks at."""
        hosts, queues = self._pass_frame()
        user_used: dict[str, int] = {}
        pending = []
        now_t = self.now() if t is None else t
        array_started: dict[int, int] = {}
        depend_memo: dict = {}  # one evaluation per condition (and index, for [*]) per pass
        depends = self._pass_depends = []  # pending jobs with a condition (bsub -w)
        held = self._held = set()  # the started jobs, and the pending ones with a condition: kept
        waiting = self._waiting_on = set()  # for the quiet passes (see _quiet_input)
        cache = self._rows
        rows = cache.rows
        self._pass_now = now_t  # the PendingJobs' priorities are escalated to this instant
        made = cache.pending
        escalate = escalation(self.config.params.job_priority_over_time)
        make = dispatch.PendingJob
        append = pending.append
        kept = True
        for job in self.jobs.values():
            pj = made.get(job)  # (a plain pending job's PendingJob: dropped with its row when the job changes)
            if pj is not None:
                row = pj.row
            else:
                row = rows.get(job)
                kept = row is not None  # (a Row built now is kept only for a job in the store)
                if not kept:
                    row = passrows.build_row(self, job, cache)
                    kept = job in rows
                status = row.status
                if status != "PEND":
                    if status in STARTED:
                        held.add(job)
                        self._hold(job, hosts, queues, user_used, array_started)
                    continue
                if row.depend_json is not None:
                    pj = self._pending_job(job, row, now_t, depend_memo)
                    append(pj)
                    depends.append((pj.job_id, pj.array_index))
                    waiting.add(job)
                    continue
            # Cluster._pending_job, inline (every pending job, every full pass):
            # kept from the last pass, its priority escalated to this instant
            prio = row.priority
            prio = (escalate(prio, now_t - row.base_time) or 0) if prio is not None else 0
            if pj is None:
                pj = make(row.job_id, row.index, row.user, row.queue, row.slots, prio, row.position,
                          row.migrated, None, row.array_limit, row)
                if kept:
                    made[job] = pj
            elif pj.priority != prio:
                pj.priority = prio
            append(pj)
        if self._slot_pools:
            self._apply_slot_pools(queues, hosts, [pj for pj in pending if not pj.blocked])
        # MAX_JOBS of each user with a pending job (none configured: no user has one)
        limits = {u: self.user_limit(u) for u in {j.user for j in pending}} if self.config.user_limits else {}
        return dispatch.PassInput(pending, queues, hosts, limits, user_used, array_started)

    @staticmethod
    def _state_key(inp: dispatch.PassInput) -> tuple:
        """What decides whether a job fits, besides the job (see _quiet_input)."""
        return (tuple((n, h.used, h.open, h.accepting, h.failed, h.max_slots) for n, h in inp.hosts.items()),
                tuple((n, q.used, q.active, q.qjob_limit, tuple(sorted(q.used_by_user.items())),
                       tuple(sorted(q.used_on_host.items()))) for n, q in inp.queues.items()),
                tuple(sorted(inp.user_used.items())), tuple(sorted(inp.array_started.items())))

    def _quiet_input(self, dirty: set, t: float) -> dispatch.PassInput | None:
        """The input of a quiet pass, or None when a full pass is needed.

        A pass where every host is full starts nothing, and a job's reasons
        then depend only on the job and the state of hosts, queues and users.
        If that state is the one the last pass ended with, the reasons that
        pass gave (after its last start) still hold: only the jobs changed
        since (*dirty*, from the ORM events), the jobs it decided before its
        last start, and the jobs waiting on a condition (bsub -w, whose
        answer depends on other jobs) need a look. Their order does not
        matter, so nothing is ranked. Not for configurations whose orders do
        not give out every job (fairshare queues outside APS), slot pools
        (their limits follow the pending demand) or JOB_ACCEPT_INTERVAL."""
        last = self._last_state
        if last is None or not self._quiet_ok or self._rows.overflow_seen:
            return None
        jobs = self.jobs
        rows = self._rows.rows
        touched = []
        for obj in dirty:
            d = obj.__dict__
            key = (d.get("id"), d.get("array_index"))
            if jobs.get(key) is obj:
                touched.append(obj)
        for job in touched:  # keep the started and waiting sets current
            row = rows.get(job)
            if row is None:
                row = passrows.build_row(self, job, self._rows)
            if row.status in STARTED:
                self._held.add(job)
            else:
                self._held.discard(job)
            if row.status == "PEND" and row.depend_json:
                self._waiting_on.add(job)
            else:
                self._waiting_on.discard(job)
        hosts, queues = self._pass_frame()
        user_used: dict[str, int] = {}
        array_started: dict[int, int] = {}
        for job in self._held:
            self._hold(job, hosts, queues, user_used, array_started)
        inp = dispatch.PassInput([], queues, hosts, {}, user_used, array_started)
        if not dispatch.all_full(hosts) or self._state_key(inp) != last:
            return None
        look = {}
        for job in touched:
            look[job] = None
        for key in self._early:
            job = jobs.get(key)
            if job is not None:
                look[job] = None
        for job in self._waiting_on:
            look[job] = None
        now_t = t
        self._pass_now = now_t
        depend_memo: dict = {}
        depends = self._pass_depends = []
        for job in look:
            row = rows.get(job)
            if row is None:
                row = passrows.build_row(self, job, self._rows)
            if row.status != "PEND":
                continue
            pj = self._pending_job(job, row, now_t, depend_memo)
            inp.jobs.append(pj)
            if row.depend_json:
                depends.append((pj.job_id, pj.array_index))
        inp.user_limits = {u: self.user_limit(u) for u in {j.user for j in inp.jobs}}
        return inp

    def _pending_job(self, job: Job, row: passrows.Row, now: float, depend_memo: dict) -> dispatch.PendingJob:
        """A pending job as the pass sees it (kept from the last pass unless
        its escalated priority or its dependency may have changed)."""
        prio = row.priority
        if prio is not None:
            prio = escalation(self.config.params.job_priority_over_time)(prio, now - row.base_time)
        prio = prio or 0
        if row.depend_json is None:
            pj = self._rows.pending.get(job)
            if pj is not None:
                pj.priority = prio
                return pj
            blocked = None
        else:
            lookup = depend_memo.get("lookup")  # (a str key: the memo's own keys are tuples)
            if lookup is None:
                lookup = depend_memo["lookup"] = self.depend_lookup()
            blocked = self.dependency_reason(job, lookup, depend_memo)
        pj = dispatch.PendingJob(row.job_id, row.index, row.user, row.queue, row.slots, prio, row.position,
                                 row.migrated, blocked, row.array_limit, row)
        if row.depend_json is None and job in self._rows.rows:
            self._rows.pending[job] = pj
        return pj

    # -- job dependencies (lsfemu.sched.depend) ----------------------------------
    @staticmethod
    def depend_state(job: Job) -> depend.JobState:
        return depend.JobState(job_id=job.id, index=job.array_index, user=job.user,
                               name=job.name if job.name is not None else job.command, status=job.status,
                               exit_code=job.exit_code, started=job.start_time is not None or job.status in STARTED,
                               submit_time=job.submit_time)

    def depend_lookup(self):
        """job ID -> its rows now: from memory, else (a job finished before
        CLEAN_PERIOD, whose state no longer changes) from the store."""
        by_id: dict[int, list] = {}
        for (jid, _), job in self.jobs.items():
            by_id.setdefault(jid, []).append(job)
        gone = self._depend_gone
        seen: dict[int, list] = {}

        def lookup(jid: int) -> list:
            rows = seen.get(jid)
            if rows is None:
                jobs = by_id.get(jid)
                if jobs is not None:
                    rows = seen[jid] = [self.depend_state(j) for j in jobs]
                else:
                    rows = gone.get(jid)
                    if rows is None:
                        rows = gone[jid] = [self.depend_state(j) for j in
                                            self.session.scalars(select(Job).where(Job.id == jid))]
            return rows

        by_index: dict[int, dict[int, list]] = {}

        def element(jid: int, idx: int) -> list:
            table = by_index.get(jid)
            if table is None:
                table = by_index[jid] = {}
                for r in lookup(jid):
                    table.setdefault(r.index, []).append(r)
            return table.get(idx, [])
        lookup.element = element
        return lookup

    def dependency_reason(self, job: Job, lookup, memo: dict | None = None) -> str | None:
        """The pending reason of an unmet `bsub -w` condition, None when met.
        `memo` (one pass) shares the answer among the elements of an array."""
        trees = self._depend_trees
        entry = trees.get(job.depend_json)
        if entry is None:
            tree = depend.from_data(json.loads(job.depend_json))
            entry = trees[job.depend_json] = (tree, depend.uses_index(tree))
        tree, per_index = entry
        key = (job.depend_json, job.array_index if per_index else 0)
        if memo is not None and key in memo:
            return memo[key]
        reason = depend.reason(depend.evaluate(tree, lookup, job.array_index, getattr(lookup, "element", None)))
        if memo is not None:
            memo[key] = reason
        return reason

    def depend_known(self) -> depend.Known:
        """The jobs a new `bsub -w` may name: those mbatchd holds in memory."""
        rows, ranges = [], {}
        for job in self.jobs.values():
            rows.append(self.depend_state(job))
            if job.array_spec and job.id not in ranges:
                spec = arrayspec.parse_array_name(job.array_spec, 2147483647)
                ranges[job.id] = spec.ranges if spec is not None else ()
        return depend.Known.of(rows, ranges)

    def _apply_slot_pools(self, queues: dict, hosts: dict, pending: list) -> None:
        """Queue-based fairshare (SLOT_POOL / SLOT_SHARE): while queues of a pool
        compete, each may use its share of the pool's slots; a queue alone may
        use them all. Applied as a queue slot limit for this pass."""
        for pool, members in self._slot_pools.items():
            pool_hosts = {h for name, _ in members if name in queues for h in queues[name].hosts}
            if any(hosts[h].max_slots is None for h in pool_hosts if h in hosts):
                continue  # unlimited hosts: nothing to share
            total = sum(hosts[h].max_slots for h in pool_hosts if h in hosts)
            demand = {name: queues[name].used for name, _ in members if name in queues}
            for pj in pending:
                if pj.queue in demand:
                    demand[pj.queue] += pj.slots
            alloc = fs.slot_pool_allocation([(n, share, demand.get(n, 0)) for n, share in members if n in queues], total)
            for name, n in alloc.items():
                q = queues[name]
                q.qjob_limit = n if q.qjob_limit is None else min(q.qjob_limit, n)

    def _committed_h(self, pj) -> float:
        limit = self.effective_run_limit(self.jobs[(pj.job_id, pj.array_index)])
        return limit / 60.0 if limit is not None else 0.0

    def order_for(self, unit: str, jobs: list, t: float, live: fairshare_live.LiveFairshare):
        """The Order of one scheduling unit: APS, fairshare, or the default."""
        if unit in self.aps_cfg:
            ranker = apsrank.UnitRanker(self, unit, t, live)  # = self.aps_rank, in bulk
            entries = ranker.entries(jobs)
            if not any(self.fs_by_queue.get(q) for q, u in self.aps_unit.items() if u == unit):
                # no FS factor: a start changes no other job's APS value
                return aps.ApsOrder(jobs, rank_of=ranker.rank_of, affected=lambda pj: (), entries=entries,
                                    ranks_of=ranker.ranks_of)
            unit_users = ranker.users()  # (of the jobs whose value FS may change)
            accounts: dict[str, dict[int, list[str]]] = {}  # queue -> id(account) -> users
            order = aps.ApsOrder(jobs, rank_of=ranker.rank_of, entries=entries, ranks_of=ranker.ranks_of,
                                 affected=lambda pj: self._fs_affected(pj, live, unit_users, accounts))

            def on_start(pj):
                st = live.state(pj.queue)
                if st is not None:
                    st.job_started(pj.user, pj.slots, self._committed_h(pj))
            return fairshare_live.ApsWithFairshare(order, on_start)
        state = live.state(unit)
        if state is not None:
            return fairshare_live.FairshareOrder(state, jobs, self._committed_h)
        return dispatch.StaticOrder(jobs)

    def _fs_affected(self, pj, live: fairshare_live.LiveFairshare, users: list[str],
                     accounts: dict[str, dict[int, list[str]]]) -> list[str] | None:
        """The users whose FS factor a start of *pj* changes: those sharing its
        fairshare account (usually the user alone); None (everyone) when an
        adjustment plug-in is set, since it sees cluster-wide memory.
        *accounts* caches each queue's account -> users for the pass."""
        if self.fs_plugin is not None:
            return None
        st = live.state(pj.queue)
        if st is None:
            return [pj.user]
        by_acct = accounts.get(pj.queue)
        if by_acct is None:
            by_acct = accounts[pj.queue] = {}
            for u in users:
                acct = st.tree.account(u)
                if acct is not None:
                    by_acct.setdefault(id(acct), []).append(u)
        acct = st.tree.account(pj.user)
        return [pj.user] if acct is None else by_acct.get(id(acct), [pj.user])

    def scheduling_pass(self, t: float) -> None:
        # The pass makes an object or two per pending job, all freed when it
        # ends: the cyclic collector would only walk the whole store's objects
        # meanwhile (at 100k jobs, most of the pass's time).
        collecting = gc.isenabled()
        gc.disable()
        try:
            dirty = self._rows.take_dirty()
            inp = self._quiet_input(dirty, t)
            if inp is None:
                inp = self.pass_input(t)
            live = self.fairshare(t)
            self._in_pass = True
            try:
                result = dispatch.schedule_pass(inp, unit_of=self.aps_unit,
                                                order_for=lambda unit, jobs: self.order_for(unit, jobs, t, live),
                                                yields_all=self._yields_all)
            finally:
                self._in_pass = False
            for pj, hosts in result.started:
                self._start(self.jobs[(pj.job_id, pj.array_index)], hosts, t)
            self._write_reasons(result.reasons, inp.jobs)
            # what the next pass may keep (see _quiet_input)
            self._last_state = self._state_key(inp)
            self._early = list(itertools.islice(result.reasons, result.early))
        finally:
            if collecting:
                gc.enable()
        self.clock_state.last_pass = t
        self.dirty = False
        if result.started:
            started = {(pj.job_id, pj.array_index) for pj, _ in result.started}
            if any(k not in started for k in self._pass_depends):
                self.mark_dirty()  # a start may meet a dependency (started(), numrun()): look again next pass

    def _yields_all(self, unit: str) -> bool:
        """Does the unit's Order give out every job (see dispatch.schedule_pass)?"""
        return unit in self.aps_cfg or self.fs_by_queue.get(unit) is None

    def _write_reasons(self, reasons: dict, pending: list) -> None:
        """Store the pending reasons of a pass. An unchanged reason is not
        written again. When many jobs change from one text to another (the
        first pass over a big queue: most wait for the same full hosts), one
        set-based UPDATE writes those, and the jobs it must not touch are
        written back with theirs; the loaded objects take the values as
        already stored (no ORM row-by-row flush)."""
        joined: dict[int, str] = {}  # many jobs share one reasons list (dispatch.schedule_pass)
        jobs = self.jobs
        stored = self._rows.reasons  # job -> pend_reasons as stored (dropped when anything sets it)
        changed = []  # (job, stored text, new text)
        last, text = None, ""
        for key, why in reasons.items():
            if why is not last:  # (consecutive jobs often share one list)
                last = why
                text = joined.get(id(why))
                if text is None:
                    text = joined[id(why)] = "\n".join(why)
            job = jobs[key]
            old = stored.get(job)
            if old is None:
                old = job.__dict__.get("pend_reasons")
                if old is None:
                    old = job.pend_reasons  # not loaded
                if old == text:
                    stored[job] = text
            if old != text:
                changed.append((job, old, text))
        if len(changed) < _BULK_ROWS:
            for job, _old, text in changed:
                job.pend_reasons = text  # (the event drops the job's cached rows)
            return
        counts: dict[tuple[str, str], int] = {}
        for _job, old, text in changed:
            counts[(old, text)] = counts.get((old, text), 0) + 1
        (common_old, common_new), n = max(counts.items(), key=lambda kv: kv[1])
        table = Job.__table__
        self.session.flush()  # the store must hold what memory holds (starts, statuses) first
        if n >= _BULK_ROWS:
            # Every pending row is in memory (self.jobs holds all unfinished
            # jobs): the rows this UPDATE reaches are known. Those that get
            # another reason, those that keep common_old, and pending jobs
            # that got none this pass (users without a share account in a
            # fairshare queue) are written back.
            self.session.execute(update(table).where(table.c.status == "PEND", table.c.pend_reasons == common_old)
                                 .values(pend_reasons=common_new))
            by_row = [(job, text) for job, old, text in changed if old != common_old or text != common_new]
            if common_old in joined.values():
                for key, why in reasons.items():
                    if joined[id(why)] == common_old:  # unchanged, but the UPDATE reached it
                        by_row.append((jobs[key], common_old))
            if len(reasons) < len(pending):  # (the reasons are those of pending jobs)
                for pj in pending:
                    key = (pj.job_id, pj.array_index)
                    if key not in reasons:
                        job = jobs[key]
                        if job.status == "PEND" and job.pend_reasons == common_old:
                            by_row.append((job, common_old))
        else:
            by_row = [(job, text) for job, _old, text in changed]
        if by_row:
            self.session.execute(
                update(table).where(table.c.id == bindparam("k_id"), table.c.array_index == bindparam("k_idx"))
                .values(pend_reasons=bindparam("k_text")),
                [{"k_id": job.id, "k_idx": job.array_index, "k_text": text} for job, text in by_row])
        # The loaded objects take the values as stored. After the flush above
        # no attribute has a change pending, so the value goes straight into
        # the instance's dict (what set_committed_value does, at a fifth of its
        # cost; no event either: the cached rows stay).
        for job, _old, text in changed:
            job.__dict__["pend_reasons"] = text
            stored[job] = text

    # -- views -----------------------------------------------------------------
    def view(self, job: Job, now: float | None = None) -> JobView:
        now = self.now() if now is None else now
        # Read the loaded column values directly: SQLAlchemy's instrumented
        # attribute access costs ~1 us each, and bjobs builds a view per job.
        job = _Row(job)
        work = simulate.work_at(job.work_done, job.segment_start, now)
        started = job.start_time is not None
        end = job.finish_time if job.finish_time is not None else now
        return JobView(
            job_id=job.id, array_index=job.array_index, user=job.user, status=job.status,
            queue=job.queue, from_host=job.from_host, command=job.command,
            submit_time=job.submit_time, name=job.name, project=job.project,
            user_group=job.user_group, exec_hosts=job.exec_hosts.split(),
            start_time=job.start_time, finish_time=job.finish_time, cwd=job.cwd, home=job.home,
            specified_cwd=job.specified_cwd, output_file=job.output_file, error_file=job.error_file,
            output_overwrite=job.output_overwrite, error_overwrite=job.error_overwrite,
            num_processors=job.num_processors, max_processors=job.max_processors,
            res_req=job.res_req, run_limit=self.effective_run_limit(job),
            run_limit_from_queue=job.run_limit_min is None,
            priority=self.effective_priority(job, now) if job.status in PENDING else job.priority,
            submit_priority=job.submit_priority,
            exit_code=job.exit_code, exit_reason=job.exit_reason,
            cpu_time=simulate.cpu_at(job.sim_runtime, job.sim_cputime, work) if started else 0.0,
            run_time=work if started else 0.0,
            exec_home=job.home if started else None,
            exec_cwd=(job.specified_cwd or job.cwd) if started else None,
            pend_reasons=[r for r in job.pend_reasons.split("\n") if r],
            susp_reasons=[job.susp_reason] if job.susp_reason else [],
            pend_time=max(0.0, (job.start_time if started else end) - job.submit_time),
            aps_system=job.aps_system, aps_admin=job.aps_admin,
            share_group=None, dependency=job.dependency,
            mem_limit_kb=job.mem_limit_kb, limits_unit=self.limits_unit(),
            **usage_fields(job.usage_json, job.status in STARTED),
        )
