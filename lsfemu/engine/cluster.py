"""The cluster's live state, as mbatchd holds it: configuration, the store's
session, the clock, the event log, the jobs in memory, and the commit that
makes a request's changes durable; `Cluster` is also the one object the
commands, the daemon and the tools hold, and names what its components do.

All mutations go through the cluster and are committed before a command
answers, so an acknowledged submission is durable. Jobs that matter to the
commands (unfinished, and finished within CLEAN_PERIOD) are kept in memory
(`self.jobs`) as small records (lsfemu.store.records), each made an ORM
object of one long-lived session in place when a request writes it, and a
record again after the commit; the scheduling math itself lives in
`lsfemu.sched`.

The components, each owning its state, each holding the cluster for what
they share (configuration, jobs, session, clock):

* `transitions` (lsfemu.engine.jobs)      - submit, start, finish, kill, ...;
* `loop` (lsfemu.engine.loop)             - when the next job end and pass are due;
* `passes` (lsfemu.engine.passes)         - the scheduling pass, its row cache;
* `depends` (lsfemu.engine.depends)       - bsub -w conditions, evaluated;
* `accounts` (lsfemu.engine.fairshare)    - fairshare scopes, trees, charging;
* `aps_listing` (lsfemu.engine.listing)   - bjobs -aps, in bulk;
* `job_groups` (lsfemu.engine.jobgroups)  - job groups and their limits;
* `admin` (lsfemu.engine.adminstate)      - badmin's queue and host states;
* `view` (lsfemu.engine.views)            - a job as the commands see it.

The class body's second half gives the components' methods the names the
callers use (`cluster.submit`, `cluster.run_until`, ...): each is the
component's bound method itself (`_part`), no call in between.
"""

from __future__ import annotations

import gc
import itertools
import os
import time
from operator import attrgetter


from lsfemu.clock import Clock, parse_start, wall_refusal
from lsfemu.config.aps import aps_groups, parse_aps_priority
from lsfemu.config.model import ClusterConfig, ConfigIssue
from lsfemu.config.semantic import check_all, load_all
from lsfemu.engine import userlimits
from lsfemu.engine.acctlog import AcctLog
from lsfemu.engine.adminstate import AdminState
from lsfemu.engine.apsrank import job_aps_result
from lsfemu.engine.depends import Dependencies
from lsfemu.engine.eventlog import EventLog, LiveJobs
from lsfemu.engine.fairshare import Accounts, LiveFairshare
from lsfemu.engine.historyjson import to_json
from lsfemu.engine.jobgroups import JobGroups
from lsfemu.engine.jobs import NoJobId, Transitions
from lsfemu.engine.listing import ApsListing, watch_writes
from lsfemu.engine.loop import Loop
from lsfemu.engine.passes import Passes
from lsfemu.engine.preemption import Preemption
from lsfemu.engine.requirements import Requirements
from lsfemu.engine.peek import output_so_far
from lsfemu.engine.perfmon import Perfmon
from lsfemu.engine.runner import Runner
from lsfemu.engine.tally import JobTally
from lsfemu.engine.views import job_view
from lsfemu.events.log import event_files
from lsfemu.jobstate import PENDING
from lsfemu.render import messages
from lsfemu.sched import resmerge, resreq
from lsfemu.sched.aps_rank import aps_rank
from lsfemu.sched.priority import escalation
from lsfemu.store import jobs as stored
from lsfemu.store.counters import HeldCounters, Takes, ensure_counters, take_write_lock
from lsfemu.store.changedrows import ChangedRows
from lsfemu.store.newrows import NewRows
from lsfemu.store.records import Records, is_record
from lsfemu.store.db import default_url, held_session, one_writer_at_a_time, open_store
from lsfemu.store.models import ClockState, Job, JobEvent

JobKey = tuple[int, int]


def _part(path: str) -> property:
    """A name of the cluster for a component's attribute (`"loop.run_until"`):
    the component's bound method (or value) itself, read-only."""
    return property(attrgetter(path), doc=f"The cluster's {path} (see that component).")


class Cluster:
    """One cluster's state. Not thread-safe: the daemon serialises calls."""

    def __init__(self, envdir: str, home: str, db_url: str | None = None, shared_dir: str | None = None,
                 clock_start: float | None = None):
        """`shared_dir`: in a shared cluster (lsfemu.daemon.master), the folder all
        master candidates see (LSB_SHAREDIR/<cluster>): lsb.events and the job
        spool live there instead of in `home`. `clock_start`: the first instant
        of a new store's clock (what-if replay), before LSFEMU_CLOCK_START."""
        self.envdir = envdir
        self.home = home
        self.logdir = os.path.join(shared_dir or home, "logdir")
        os.makedirs(home, exist_ok=True)
        os.makedirs(self.logdir, exist_ok=True)
        self.master_name: str | None = None  # the master candidate running the cluster (shared cluster)
        self.fence = None  # shared cluster: called before each commit; raises when no longer the master
        self.config: ClusterConfig = load_all(envdir)
        self.accounts = Accounts(self)
        self.passes = Passes(self)
        self.depends = Dependencies(self)
        self.transitions = Transitions(self)
        self.aps_listing = ApsListing(self)  # bjobs -aps
        self.job_groups = JobGroups(self)  # bgadd, bsub -g
        self.requirements = Requirements(self)  # bsub -R, RES_REQ: compiled requirements, host resources
        self.preemption = Preemption(self)  # lsb.queues PREEMPTION
        self.tally = JobTally(self)  # bqueues, busers, bjobs -u: per queue and user, kept as jobs change
        self._derive()
        self.db_url = db_url or default_url(home)
        self.engine, self.Session = open_store(self.db_url)
        self.session = held_session(self.engine, self.Session)  # one connection, kept (not a checkout per transaction)
        one_writer_at_a_time(self.session)  # PostgreSQL: writing transactions take turns, as on SQLite
        watch_writes(self.session)  # writes through this session make bjobs -aps tables old
        self.events = EventLog(self.logdir)
        self.perfmon = Perfmon()  # badmin perfmon: counters kept while sampling is started
        ensure_counters(self.session, ("next_job_id", "position"))
        self.records = Records(self.session)  # the jobs held between requests: small records
        self.new_rows = NewRows(self.session, self.records)  # new jobs and their SUBMIT rows: one INSERT per table
        self.changed_rows = ChangedRows(self.session, self.new_rows.write)  # starts' and ends' columns: one UPDATE per set (after new_rows)
        # lsb.events' and lsb.acct's committed lengths (one SELECT a transaction reads them)
        self.held = HeldCounters(self.session, ("events_offset", "events_finished", "acct_offset"))
        # job IDs and positions: one statement for both per commit, which reads the lengths too
        self.takes = Takes(self.session, ("next_job_id", "position"), read=self.held)
        self._ids_high: int | None = None  # see next_job_id
        # Cut lsb.events back to what the store committed under the store's write lock
        # (this no-op UPDATE takes it): in in-process mode another process may be
        # between its append and its commit, and its records must not be cut.
        take_write_lock(self.session)
        self.events.recover(self._counter("events_offset"))
        self.acct = AcctLog(self.logdir)  # lsb.acct, in step with the store as lsb.events is
        self._set_counter("acct_offset", self.acct.recover(self._counter("acct_offset")))
        self._init_clock(clock_start)
        self.mbd_started = self.now()  # badmin showstatus: the daemon's start, its latest reconfig
        self.perfmon.configure(self.config.params.extra, self.mbd_started)
        self.mbd_reconfigured: float | None = None
        why = wall_refusal(self.clock.virtual_now, time.time()) if self.clock.mode == "wall" else None
        if why:  # the cluster's time would run backwards: lsb.events out of order, waits lost
            raise ValueError(messages.error_text(why))
        self.runner = Runner(shared_dir or home)  # real execution in wall clock mode
        self.jobs: dict[JobKey, Job] = {}
        # Counts loads and new jobs: with len(self.jobs), says whether the set
        # of jobs may have changed since (see job_users).
        self.jobs_gen = 0
        self._users_of: tuple[tuple[int, int], set[str]] | None = None  # job_users, with the key it was made at
        self._load_jobs()
        self.runner.adopt(self.jobs.values())
        self.admin = AdminState(self)  # badmin's queue and host states
        self.admin.load()
        self.loop = Loop(self, self.now())
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
        self.jobs = self.records.load(horizon)
        self.jobs_gen += 1
        # What was just loaded lives as long as the cluster: out of the cyclic
        # collector's reach from now on (gc.freeze), so that its full
        # collections -- which a pass or a command may set off at any moment --
        # do not walk the whole store again each time (at 100k jobs ~0.4 s).
        gc.freeze()

    def reload_jobs(self) -> None:
        """Forget cached objects and read the store again (in-process mode, rollback)."""
        self.events.staged.clear()
        self.acct.staged.clear()
        self.runner.rollback()
        self.session.expire_all()
        self._ids_high = None
        self.held.clear()
        self.passes.reset()
        self.clock_state = self.session.get(ClockState, 1)
        self.clock.virtual_now = self.clock_state.virtual_now
        self._load_jobs()
        self.runner.adopt(self.jobs.values())
        self.admin.load()

    def drop(self, key: JobKey) -> Job:
        """Forget a finished job held in memory (the store keeps it), as the
        end of its CLEAN_PERIOD would: what-if replay keeps its memory flat."""
        job = self.jobs.pop(key)
        self.tally.left(job)
        if not is_record(job):  # (an ORM object until the request's commit)
            self.session.expunge(job)
        return job

    def clean(self, job: Job) -> None:
        """A finished job leaves mbatchd's memory before the end of its
        CLEAN_PERIOD (bkill -b of a pending job): JOB_CLEAN, and the store
        marks it so that a daemon loading it again does not take it back."""
        t = self.now()
        job.clean_time = t
        self.log(job, "CLEAN", None, t)
        self.jobs.pop((job.id, job.array_index), None)
        self.jobs_gen += 1

    def close(self) -> None:
        """Close the session, the event log and the store's connections."""
        self.session.close()
        self.events.close()
        self.acct.close()
        self.engine.dispose()

    # -- time and the store ------------------------------------------------------
    def now(self) -> float:
        return self.clock.now()

    def _counter(self, name: str) -> int | None:
        return self.held.get(name)

    def _set_counter(self, name: str, value: int) -> None:
        self.held.set(name, value)

    def commit(self) -> None:
        """Commit the store with the request's lsb.events records (see lsfemu.engine.eventlog)."""
        if self.fence is not None:
            self.fence()  # before the records reach the shared lsb.events
        if self.clock_state.virtual_now != self.clock.virtual_now:  # (an equal value still costs a flush)
            self.clock_state.virtual_now = self.clock.virtual_now
        # Write to the store first: that takes its write lock (SQLite's, or the writer
        # lock on PostgreSQL) before the records go to lsb.events, so that appends and
        # their committed offsets happen in the same order in several processes. The
        # new jobs' rows first, then the starts' and ends' (store/changedrows.py): a flush
        # with no object changed does not run (nor write them).
        self.new_rows.write()
        self.changed_rows.write()
        self.session.flush()
        self.perfmon.records(self.events.staged)
        finished = self.events.finished_in_staged()
        before, after = self.events.write_staged()
        finished_total = None  # lsb.events' finished jobs as this commit leaves them (None: not read)
        if after != before:
            self._set_counter("events_offset", after)
            finished_total = (self._counter("events_finished") or 0) + finished
            self._set_counter("events_finished", finished_total)
        acct_before = self.acct.size() if self.acct.staged else None  # (only when a job ended: 3 stats a bsub)
        try:
            acct_before, acct_after = self.acct.write_staged() if acct_before is not None else (None, None)
            if acct_after != acct_before:
                self._set_counter("acct_offset", acct_after)
            self.session.commit()
        except Exception:
            if after != before:
                self.events.undo(before)
            if acct_before is not None:
                self.acct.undo(acct_before)
            raise
        self.runner.after_commit(self)  # jobs started in this commit begin to run now
        if self.acct.archive_if_due(self.config.params, self.now()):  # lsb.params ACCT_ARCHIVE_*
            self._set_counter("acct_offset", 0)
            self.session.commit()
        # (the count this commit wrote, not read again: a read after the commit would
        # begin the next transaction with a SELECT -- issue 23, the submission path)
        if finished_total is None:
            finished_total = self._counter("events_finished") or 0
        if finished_total >= max(1, self.config.params.max_job_num):
            self._switch_event_log()

    def _switch_event_log(self) -> None:
        """MAX_JOB_NUM finished jobs in lsb.events: switch to a new file."""
        self.events.switch(None, LiveJobs(self.jobs))  # (a live element keeps its array's JOB_NEW)
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
        take_write_lock(self.session)
        if stored.any_job(self.session) or len(event_files(self.logdir)) > 1:
            return False  # the request's commit ends the no-op
        self.events.redate(int(target))
        self._set_counter("events_offset", self.events.size())
        self.clock.virtual_now = target
        self.clock_state.last_pass = target
        self.loop.processed_until = target
        self.loop.dirty_since = min(self.loop.dirty_since, target)
        self.commit()
        return True

    # -- configuration ---------------------------------------------------------
    def reconfig(self) -> list[ConfigIssue]:
        """Apply the configuration on disk if it has no fatal errors."""
        cfg, issues = check_all(self.envdir)
        if cfg is not None:
            self.config = cfg
            self.mbd_reconfigured = self.now()
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
        self._merged_cache: dict[tuple[str | None, str | None, str | None], tuple] = {}
        self.accounts.configure(cfg)
        self.requirements.configure(cfg)
        self.preemption.configure(cfg)
        self.passes.configure(cfg)

    # -- ids and events --------------------------------------------------------
    def next_job_id(self) -> int:
        """The next job ID in sequence, rolling over to 1 after MAX_JOBID and
        skipping IDs still in use (LSF's job ID limit)."""
        max_id = self.config.params.max_jobid
        jid = self.takes.take("next_job_id", wrap_at=max_id)  # (takes the store's write lock)
        # An ID above every ID in the store is free without asking the store: IDs
        # come from this counter only, so a higher one can appear only after the
        # count rolled over, which sends it back below the highest known.
        high = self._ids_high
        if high is None or jid <= high:
            high = stored.max_job_id(self.session)
        if jid > high:
            self._ids_high = jid
            return jid
        self._ids_high = high
        if stored.job_id_free(self.session, jid):
            return jid
        # Taken (the count rolled over onto jobs still in the store): the first
        # free ID after it, found in one query each way round, not one per ID.
        free = stored.free_job_id_after(self.session, jid, max_id)
        if free is None and jid > 1:
            free = 1 if stored.job_id_free(self.session, 1) else stored.free_job_id_after(self.session, 1, jid)
        if free is None:
            self.takes.set("next_job_id", jid)  # as it was: nothing changes
            raise NoJobId()
        self.takes.set("next_job_id", free + 1 if free < max_id else 1)
        return free

    def log(self, job: Job, kind: str, actor: str | None, t: float, **data) -> None:
        """Record a change: a history row in the store and LSF's records for lsb.events
        (made now, from the job as it is at this change)."""
        # (its row written with the others in one INSERT before the next statement, flush or
        # commit: lsfemu.store.newrows; no ORM object per change)
        self.new_rows.history(job.id, job.array_index, t, kind, actor, to_json(data))
        self.events.stage_job(job, kind, t, actor, data)
        if kind == "FINISH":  # DONE or EXIT: its JOB_FINISH in lsb.acct
            self.acct.stage_finish(self, job, t, data)

    def history(self, job: Job) -> list[JobEvent]:
        return stored.history(self.session, job.id, job.array_index)

    # -- limits and job priority -----------------------------------------------
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

    # -- APS values, job by job ------------------------------------------------
    def aps_result(self, job: Job, now: float, live: LiveFairshare | None = None):
        """The job's APS value with every term (lsfemu.sched.aps_rank.ApsResult), None outside APS queues."""
        return job_aps_result(self, job, now, live)

    def aps_rank(self, job: Job, now: float, live: LiveFairshare) -> tuple:
        """The job's rank in its APS block (the pass ranks in bulk: lsfemu.engine.apsrank)."""
        return aps_rank(self.aps_result(job, now, live))

    def effective_req(self, res_req: str | None, app: str | None, queue: str | None) -> tuple:
        """(merged ResReq, Combined text, Effective text of its first alternative)
        of a job's -R with its application profile's and its queue's RES_REQ
        (sched/resmerge.py), once per distinct triple and configuration."""
        key = (res_req, app, queue)
        got = self._merged_cache.get(key)
        if got is None:
            cfg = self.config
            a = cfg.applications.get(app) if app else None
            q = cfg.queue(queue) if queue else None
            try:
                job = resreq.parse(res_req, self.rusage_units)
            except resreq.ResReqError:  # (a string bsub took under another configuration's units)
                job = resreq.ResReq()
            req = resmerge.merge(job, resmerge.parse_level(a.res_req if a else None, self.rusage_units),
                                 resmerge.parse_level(q.res_req if q else None, self.rusage_units))
            got = (req, resmerge.combined_text(req, self.rusage_units), resmerge.effective_text(req, self.rusage_units))
            if len(self._merged_cache) > 10_000:
                self._merged_cache.clear()
            self._merged_cache[key] = got
        return got

    def effective_res_req(self, job: Job) -> str:
        """The Effective string of a started job: the alternative the pass
        placed it with (engine/requirements.py keeps it; the first otherwise)."""
        req, _, effective = self.effective_req(job.res_req, job.app_profile, job.queue)
        alternative = self.requirements.alternative.get((job.id, job.array_index), 0)
        return resmerge.effective_text(req, self.rusage_units, alternative) if alternative else effective

    def rusage(self, res_req: str | None, slots: int) -> dict[str, float]:
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

    # -- users, queues and hosts -----------------------------------------------
    def user_limit(self, user: str) -> int | None:
        """MAX_JOBS of a user: own row, else a group@ row of one of its groups, else default."""
        row = userlimits.user_row(self.config, user)
        return row.max_jobs if row is not None else None

    def job_users(self) -> set[str]:
        """The users of the jobs in memory (a job's user never changes: kept
        until a job is added or leaves; not to be changed by the caller)."""
        key = (self.jobs_gen, len(self.jobs))  # (jobs only leave: an addition moves the count)
        kept = self._users_of
        if kept is not None and kept[0] == key:
            return kept[1]
        added = len(self.jobs) - kept[0][1] if kept is not None else 0
        if 0 < added == self.jobs_gen - kept[0][0]:
            # Only additions since (each moves both the generation and the count by one; a job
            # leaving moves the generation only): the new jobs are the last ones of the dict.
            new = {job.user for job in itertools.islice(reversed(self.jobs.values()), added)}
            users = kept[1] if new <= kept[1] else kept[1] | new
        else:
            users = self._job_users()
        self._users_of = (key, users)
        return users

    def _job_users(self) -> set[str]:
        rows = self.passes.cache.rows
        if len(rows) >= len(self.jobs):  # every job has its row (after a pass): no ORM reads
            return {r.user for r in rows.values()}
        out = set()
        for job in self.jobs.values():
            row = rows.get(job)
            out.add(row.user if row is not None else job.user)
        return out

    # -- the components' names (what the commands, the daemon and the tools call) ----
    # transitions (lsfemu.engine.jobs)
    submit = _part("transitions.submit")
    kill = _part("transitions.kill")
    real_job_ended = _part("transitions.real_job_ended")
    kill_real_jobs = _part("transitions.kill_real_jobs")
    note_signal = _part("transitions.note_signal")
    stop = _part("transitions.stop")
    resume = _part("transitions.resume")
    switch = _part("transitions.switch")
    set_priority = _part("transitions.set_priority")
    set_aps = _part("transitions.set_aps")
    priority_change = _part("transitions.priority_change")
    aps_change = _part("transitions.aps_change")
    modify_job = _part("transitions.modify")
    move = _part("transitions.move")
    requeue = _part("transitions.requeue")
    force_run = _part("transitions.force_run")
    migrate = _part("transitions.migrate")
    rerun = _part("transitions.rerun")
    fail_host = _part("transitions.fail_host")
    recover_host = _part("transitions.recover_host")
    restart_usage = _part("transitions.restart_usage")
    _finish = _part("transitions.finish")  # (the benchmark ends jobs with it)

    def _start(self, job: Job, hosts: list[str], t: float) -> None:
        """A pass starts *job* on *hosts* (a method of the cluster's own: the
        pass-equivalence test watches the starts here)."""
        self.transitions.start(job, hosts, t)

    # the loop (lsfemu.engine.loop)
    run_until = _part("loop.run_until")
    next_pass = _part("loop.next_pass")
    next_finish = _part("loop.next_finish")
    catch_up = _part("loop.catch_up")
    advance = _part("loop.advance")
    mark_dirty = _part("loop.mark_dirty")
    _end_instant = _part("loop.end_instant")  # (a fairshare test reads job ends with it)

    def _end_heap(self) -> list | None:
        """The heap of job ends `run_until` keeps for one call (a method of the
        cluster's own: the event-loop test's reference returns None, a scan)."""
        return self.loop.end_heap()

    @property
    def processed_until(self) -> float:
        """Events up to this instant have been handled."""
        return self.loop.processed_until

    @processed_until.setter  # (the pass-equivalence test moves it)
    def processed_until(self, t: float) -> None:
        self.loop.processed_until = t

    # the passes (lsfemu.engine.passes)
    def scheduling_pass(self, t: float) -> None:
        """One scheduling pass at *t* (a method of the cluster's own: the loop
        runs passes through it, and the benchmark times them here)."""
        self.passes.scheduling_pass(t)

    pass_input = _part("passes.pass_input")
    order_for = _part("passes.order_for")
    row = _part("passes.row")
    _committed_h = _part("passes.committed_h")  # (the pass-equivalence test's reference pass uses it)

    # dependencies (lsfemu.engine.depends)
    depend_known = _part("depends.known")

    # fairshare (lsfemu.engine.fairshare)
    fs_by_queue = _part("accounts.by_queue")
    fs_partitions = _part("accounts.partitions")
    fs_plugin = _part("accounts.plugin")
    share_tree = _part("accounts.share_tree")

    def fairshare(self, now: float | None = None) -> LiveFairshare:
        """Fairshare states at an instant (built lazily per queue)."""
        return self.accounts.live(self.now() if now is None else now)

    def output_so_far(self, job: Job) -> tuple[bytes | None, bytes | None] | None:
        """bpeek: a really running job's output so far (lsfemu.engine.peek)."""
        return output_so_far(self.runner, job)

    # badmin's queue and host states (lsfemu.engine.adminstate)
    queue_state = _part("admin.queue_state")
    host_state = _part("admin.host_state")
    queue_active = _part("admin.queue_active")
    queue_open = _part("admin.queue_open")
    set_queue_state = _part("admin.set_queue_state")
    set_host_state = _part("admin.set_host_state")
    host_failed = _part("admin.host_failed")
    host_open = _part("admin.host_open")

    # views (lsfemu.engine.views)
    view = job_view
