"""The scheduling pass as the cluster runs it: its input gathered from the
jobs in memory, the pure pass (lsfemu.sched.dispatch.schedule_pass) with
each unit's Order (APS, fairshare, or the default), the starts, and the
pending reasons written back.

`Passes` owns what one pass keeps for the next: the row cache
(lsfemu.engine.passrows: what the pass reads of each job, dropped when the
job changes; its dirty set says which jobs changed), the started and the
waiting jobs, and the state the last pass ended with, from which a quiet
pass (only the changed jobs looked at, see quiet_input) may follow.
"""

from __future__ import annotations

import gc
import itertools
import os

from lsfemu.engine import (apsrank, eligibility, heldcounts, hostload, jobgroups, limitpass, passdelta, passrows,
                           pendmake)
from lsfemu.engine.reserve import Reservations
from lsfemu.engine.fairshare import ApsWithFairshare, FairshareOrder, LiveFairshare
from lsfemu.jobstate import STARTED, ineligible
from lsfemu.sched import aps, dispatch
from lsfemu.sched import fairshare as fs
from lsfemu.sched.priority import escalation
from lsfemu.store.jobs import replace_pend_reasons, write_pend_reasons
from lsfemu.store.records import key_of, set_loaded_all

#: from this many changed pending reasons on, a pass writes them set-based
_BULK_ROWS = 500


class Passes:
    """The cluster's scheduling passes (see the module docstring)."""

    def __init__(self, cluster):
        self.cl = cluster
        self.cache = passrows.RowCache()  # what the pass reads of each job, kept between passes
        self.conditioned: list[tuple[int, int]] = []  # the last pass's pending jobs with a condition (bsub -w)
        self.pass_now: float | None = None  # the instant the last pass's PendingJobs are escalated to
        self.held: set[Job] = set()  # started jobs, as of the last pass (kept current by quiet passes)
        self.waiting_on: set[Job] = set()  # pending jobs with a bsub -w condition, likewise
        self.early: list[tuple[int, int]] = []  # jobs the last pass decided before its last start
        self.in_pass = False
        self.built_all = False  # this pass built every job's row (the first after a start or a reset)
        self.last_state: passdelta.EndState | None = None  # the state the last pass ended with (None: unknown)
        self.settled = False  # no pending job could start in that state (dispatch.PassResult.settled)
        self.slot_pools: dict = {}
        self.quiet_ok = False
        self.held_ok = False  # the held state of quiet and delta passes may be made (held_input)
        self.limits = None  # lsb.resources: sched.limits.Limits (None: no Limit section)
        self.reserve = Reservations(cluster)  # SLOT_RESERVE / RESOURCE_RESERVE / BACKFILL
        self.kept = passdelta.KeptOrder()  # each queue's order, kept for the delta passes
        self.delta_ok = False  # the configuration allows them (passdelta.possible)
        self.last_delta: tuple | None = None  # passdelta.key of the state the last pass ended with
        self.counts = heldcounts.HeldCounts()  # what the started jobs hold, summed (quiet and delta passes)

    def configure(self, cfg) -> None:
        """A (new) configuration: rows and the last pass's state are forgotten
        (rows hold queue and rusage facts); the slot pools and whether quiet
        passes are possible follow from it."""
        self.reset()
        interval = cfg.params.job_accept_interval * cfg.params.mbd_sleep_time
        self.slot_pools = fs.parse_slot_pools(cfg.queues)  # pool -> [(queue, SLOT_SHARE)]
        self.limits = limitpass.build(cfg)
        self.reserve.configure(cfg)
        by_queue = self.cl.accounts.by_queue
        # (reservations change between passes without a job changing: no quiet pass with them)
        self.held_ok = interval <= 0 and not self.slot_pools and not self.reserve.active  # (held_input)
        self.quiet_ok = self.held_ok and all(q.name in self.cl.aps_unit or by_queue.get(q.name) is None
                                             for q in cfg.queues)
        self.delta_ok = passdelta.configure(self)

    def reset(self) -> None:
        """Forget every row and the last pass's state (reconfiguration, reload after a rollback)."""
        self.cache.clear()
        self.kept.clear()
        self.counts.invalidate()
        self.last_state = self.last_delta = None
        self.settled = False

    def row(self, job: Job) -> passrows.Row:
        """What the pass reads of *job* (its passrows.Row: kept between
        passes, built now when the job changed since)."""
        row = self.cache.rows.get(job)
        return row if row is not None else passrows.build_row(self.cl, job, self.cache)

    def started_jobs(self) -> list[Job] | set[Job]:
        """The jobs in memory that hold slots (RUN, USUSP, SSUSP, UNKWN)."""
        if self.in_pass:  # no status changes while dispatch.schedule_pass runs: the pass input's set holds
            return self.held
        rows = self.cache.rows
        out = []
        for job in self.cl.jobs.values():
            row = rows.get(job)
            if (row.status if row is not None else job.status) in STARTED:
                out.append(job)
        return out

    def frame(self) -> tuple[dict[str, dispatch.HostInfo], dict[str, dispatch.QueueInfo]]:
        """The hosts and queues of a pass, before the started jobs' slots are counted."""
        cfg = self.cl.config
        hosts = {}
        res = self.cl.requirements.hosts  # (the hosts' ncpus, as lsf.cluster and LIM give them)
        busy = hostload.busy_hosts(self.cl)  # closed_Busy: load beyond lsb.hosts' loadSched
        for name in cfg.host_names:
            mxj = cfg.host_mxj(name)
            r = res.get(name)
            hosts[name] = dispatch.HostInfo(name=name, max_slots=mxj, open=self.cl.host_open(name),
                                            ncpus=r.ncpus if r is not None else (mxj or os.cpu_count() or 1),
                                            failed=self.cl.host_failed(name),
                                            busy=hostload.first_busy(busy.get(name)))
        self.cl.requirements.frame(hosts)
        queues = {}
        for i, q in enumerate(cfg.queues):
            queues[q.name] = dispatch.QueueInfo(
                name=q.name, priority=q.priority, order=i, active=self.cl.queue_active(q.name),
                hosts=cfg.queue_hosts(q), qjob_limit=q.qjob_limit, ujob_limit=q.ujob_limit,
                hjob_limit=q.hjob_limit, pjob_limit=q.pjob_limit)
        interval = cfg.params.job_accept_interval * cfg.params.mbd_sleep_time
        if interval > 0:
            now = self.cl.now()
            for job in self.cl.jobs.values():
                if job.start_time is not None and job.start_time + interval > now:
                    for h in set(job.exec_hosts.split()):
                        if h in hosts:
                            hosts[h].accepting = False
            for h in hosts.values():
                h.accept_once = True
        return hosts, queues

    def pass_input(self, t: float | None = None) -> dispatch.PassInput:
        """The pass's input at instant *t* (default now): every pending job's
        priority is escalated to *t*, the instant the pass ranks at."""
        hosts, queues = self.frame()
        user_used: dict[str, int] = {}
        pending = []
        now_t = self.cl.now() if t is None else t
        array_started: dict[int, int] = {}
        depend_memo: dict = {}  # one evaluation per condition (and index, for [*]) per pass
        depends = self.conditioned = []  # pending jobs with a condition (bsub -w)
        held = self.held = set()  # the started jobs, and the pending ones with a condition: kept
        self.counts.invalidate()  # (counted anew from *held* when next needed)
        waiting = self.waiting_on = set()  # for the quiet passes (see quiet_input)
        cache = self.cache
        rows = cache.rows
        self.pass_now = now_t  # the PendingJobs' priorities are escalated to this instant
        made = cache.pending
        escalate = escalation(self.cl.config.params.job_priority_over_time)
        if not rows and not made:  # the first pass after a start (or a reset): every job's row at once
            passrows.build_all(self.cl, cache, self.cl.jobs)
            self.built_all = True
        make = pendmake.Maker(self.cl).make  # (the PendingJobs made this pass: their rules once per kind)
        append = pending.append
        reqs = self.cl.requirements
        kept = True
        delta_ok = self.delta_ok
        filed = self.kept.made
        self.kept.unkept = []  # (this pass looks at every job: only those it cannot file are left)
        for key, job in self.cl.jobs.items():
            pj = made.get(job)  # (a plain pending job's PendingJob: dropped with its row when the job changes)
            if pj is not None:
                row = pj.row
            else:
                row = rows.get(job)
                kept = row is not None  # (a Row built now is kept only for a job in the store)
                if not kept:
                    row = passrows.build_row(self.cl, job, cache, key)  # (the cluster's key: one tuple a job)
                    kept = job in rows
                status = row.status
                if status != "PEND":
                    if status in STARTED:
                        held.add(job)
                        heldcounts.hold(job, hosts, queues, user_used, array_started)
                        reqs.hold(job, hosts, now_t)
                    continue
                if row.depend_json is not None:
                    pj = self.pending_job(job, row, now_t, depend_memo)
                    append(pj)
                    depends.append((pj.job_id, pj.array_index))
                    waiting.add(job)
                    continue
                d = job.__dict__  # (bsub -b: a job before its begin time is not kept; Loop wakes a pass then)
                begin = d["begin_time"] if "begin_time" in d else job.begin_time
                if begin is not None and now_t < begin:
                    append(self.pending_job(job, row, now_t, depend_memo))
                    continue
            # pending_job, inline (every pending job, every full pass):
            # kept from the last pass, its priority escalated to this instant
            prio = row.priority
            prio = escalate(prio, now_t - row.base_time) if prio is not None else 0
            if pj is None:
                pj = make(job, row, prio)
                if kept:
                    made[job] = pj
                    if delta_ok:
                        filed(pj)
                elif delta_ok:
                    self.kept.unkept.append(job)  # (not in the order: the next delta pass looks at it)
            elif pj.priority != prio:
                pj.priority = prio
            append(pj)
        reqs.finish(hosts, held)
        if self.slot_pools:
            fs.apply_slot_pools(self.slot_pools, queues, hosts, [pj for pj in pending if not pj.blocked])
        # MAX_JOBS of each user with a pending job (none configured: no user has one)
        limits = {u: self.cl.user_limit(u) for u in {j.user for j in pending}} if self.cl.config.user_limits else {}
        inp = dispatch.PassInput(pending, queues, hosts, limits, user_used, array_started)
        if self.cl.job_groups.limits():
            jobgroups.pass_input(self.cl, inp, held)
        limitpass.count(self.cl, self.limits, inp, held)
        limitpass.attach(self.cl, self.limits, pending)
        return inp

    @staticmethod
    def state_key(inp: dispatch.PassInput) -> tuple:
        """What decides whether a job fits, besides the job (see quiet_input)."""
        return (tuple((n, h.used, h.open, h.accepting, h.failed, h.max_slots, h.exclusive, tuple(h.avail.items()))
                      for n, h in inp.hosts.items()),
                tuple((n, q.used, q.active, q.qjob_limit, tuple(sorted(q.used_by_user.items())),
                       tuple(sorted(q.used_on_host.items()))) for n, q in inp.queues.items()),
                tuple(sorted(inp.user_used.items())), tuple(sorted(inp.array_started.items())),
                inp.limits.state() if inp.limits is not None else None)

    def held_input(self, dirty: set, t: float) -> tuple[dispatch.PassInput, list[Job]] | None:
        """The state of a pass that looks at some jobs only (quiet, delta):
        the started jobs counted, no pending job yet; and the jobs changed
        since the last pass (of *dirty*, those the cluster holds). None when
        a full pass is needed."""
        if (self.last_state is None or not (self.quiet_ok or self.delta_ok) or self.cache.overflow_seen
                or self.cl.job_groups.limits()):
            return None  # (job group limits: a full pass, jobgroups.pass_input)
        jobs = self.cl.jobs
        rows = self.cache.rows
        touched = []
        dropped = []
        for obj in dirty:
            key = key_of(obj)
            if jobs.get(key) is obj:
                touched.append(obj)
            else:  # (a finished job dropped from memory: lsfemu.engine.cluster.drop)
                self.held.discard(obj)
                self.waiting_on.discard(obj)
                dropped.append(obj)
        for job in touched:  # keep the started and waiting sets current
            row = rows.get(job)
            if row is None:
                row = passrows.build_row(self.cl, job, self.cache)
            if row.status in STARTED:
                self.held.add(job)
            else:
                self.held.discard(job)
            if row.status == "PEND" and row.depend_json:
                self.waiting_on.add(job)
            else:
                self.waiting_on.discard(job)
        hosts, queues = self.frame()
        user_used: dict[str, int] = {}
        array_started: dict[int, int] = {}
        reqs = self.cl.requirements
        counts = self.counts
        counts.update(self.held, touched + dropped, self.reserves)
        if counts.reserving:  # (what they reserve changes with time: each counted at *t*)
            for job in self.held:
                heldcounts.hold(job, hosts, queues, user_used, array_started)
                reqs.hold(job, hosts, t)
        else:
            counts.apply(hosts, queues, user_used, array_started)
            reqs.running = dict(counts.running)
        reqs.finish(hosts, self.held)
        inp = dispatch.PassInput([], queues, hosts, {}, user_used, array_started)
        limitpass.count(self.cl, self.limits, inp, self.held)
        return inp, touched

    def reserves(self, job: Job) -> bool:
        """Does a started job reserve resources (Requirements.hold takes them off its hosts)?"""
        req = self.cl.requirements.of(job)
        return req is not None and bool(req.alternatives)

    def quiet_input(self, inp: dispatch.PassInput, touched: list[Job], t: float) -> dispatch.PassInput | None:
        """The input of a quiet pass (*inp* from held_input, the jobs it
        looks at added), or None when a full pass is needed.

        A pass where every host is full (or where no pending job's shape fits
        what the hosts have left: the last pass `settled`) starts none of the
        jobs it saw, and a job's reasons then depend only on the job and the
        state of hosts, queues and users. (A changed job may still start in a
        settled state: scheduling_pass then drops the quiet outcome for a full pass.)
        If that state is the one the last pass ended with, the reasons that
        pass gave (after its last start) still hold: only the jobs changed
        since (*dirty*, from the ORM events), the jobs it decided before its
        last start, and the jobs waiting on a condition (bsub -w, whose
        answer depends on other jobs) need a look. Their order does not
        matter, so nothing is ranked. Not for configurations whose orders do
        not give out every job (fairshare queues outside APS), slot pools
        (their limits follow the pending demand) or JOB_ACCEPT_INTERVAL."""
        jobs = self.cl.jobs
        rows = self.cache.rows
        if not (self.settled or dispatch.all_full(inp.hosts)) or not self.last_state.same(inp):
            return None
        look = {}
        for job in touched:
            look[job] = None
        for key in self.early:
            job = jobs.get(key)
            if job is not None:
                look[job] = None
        for job in self.waiting_on:
            look[job] = None
        now_t = t
        self.pass_now = now_t
        depend_memo: dict = {}
        depends = self.conditioned = []
        for job in look:
            row = rows.get(job)
            if row is None:
                row = passrows.build_row(self.cl, job, self.cache)
            if row.status != "PEND":
                continue
            pj = self.pending_job(job, row, now_t, depend_memo)
            inp.jobs.append(pj)
            if row.depend_json:
                depends.append((pj.job_id, pj.array_index))
        inp.user_limits = {u: self.cl.user_limit(u) for u in {j.user for j in inp.jobs}}
        limitpass.attach(self.cl, self.limits, inp.jobs)
        return inp

    def pending_job(self, job: Job, row: passrows.Row, now: float, depend_memo: dict) -> dispatch.PendingJob:
        """A pending job as the pass sees it (kept from the last pass unless
        its escalated priority or its dependency may have changed)."""
        prio = row.priority
        if prio is not None:
            prio = escalation(self.cl.config.params.job_priority_over_time)(prio, now - row.base_time)
        prio = prio or 0
        d = job.__dict__  # the loaded value without the ORM's attribute machinery (the pass reads every job)
        begin = d["begin_time"] if "begin_time" in d else job.begin_time
        if begin is not None and now < begin:  # bsub -b: not before its begin time (Loop wakes a pass then)
            pj = dispatch.PendingJob(row.job_id, row.index, row.user, row.queue, row.slots, prio, row.position,
                                     row.migrated, dispatch.START_TIME, row.array_limit, row, row.key)
            self.shape(job, pj)
            return pj
        if row.depend_json is None:
            pj = self.cache.pending.get(job)
            if pj is not None:
                pj.priority = prio
                return pj
            blocked = None
        else:
            lookup = depend_memo.get("lookup")  # (a str key: the memo's own keys are tuples)
            if lookup is None:
                lookup = depend_memo["lookup"] = self.cl.depends.lookup()
            blocked = self.cl.depends.reason(job, lookup, depend_memo)
        pj = dispatch.PendingJob(row.job_id, row.index, row.user, row.queue, row.slots, prio, row.position,
                                 row.migrated, blocked, row.array_limit, row, row.key)
        self.shape(job, pj)
        if row.depend_json is None and job in self.cache.rows:
            self.cache.pending[job] = pj
            if self.delta_ok:
                self.kept.made(pj)
        return pj

    def shape(self, job: Job, pj: dispatch.PendingJob) -> None:
        """Give a pending job its placement rules: -m/-x, and its resource requirement."""
        pendmake.shape(self.cl, job, pj)

    def committed_h(self, pj) -> float:
        limit = self.cl.effective_run_limit(self.cl.jobs[(pj.job_id, pj.array_index)])
        return limit / 60.0 if limit is not None else 0.0

    def order_for(self, unit: str, jobs: list, t: float, live: LiveFairshare):
        """The Order of one scheduling unit: APS, fairshare, or the default."""
        if unit in self.cl.aps_cfg:
            ranker = apsrank.UnitRanker(self.cl, unit, t, live)  # = Cluster.aps_rank, in bulk
            entries = ranker.entries(jobs)
            if not any(self.cl.accounts.by_queue.get(q) for q, u in self.cl.aps_unit.items() if u == unit):
                # no FS factor: a start changes no other job's APS value
                return aps.ApsOrder(jobs, rank_of=ranker.rank_of, affected=lambda pj: (), entries=entries,
                                    ranks_of=ranker.ranks_of)
            unit_users = ranker.users()  # (of the jobs whose value FS may change)
            accounts: dict[str, dict[int, list[str]]] = {}  # queue -> id(account) -> users
            order = aps.ApsOrder(jobs, rank_of=ranker.rank_of, entries=entries, ranks_of=ranker.ranks_of,
                                 affected=lambda pj: self.fs_affected(pj, live, unit_users, accounts))

            def on_start(pj):
                st = live.state(pj.queue)
                if st is not None:
                    st.job_started(pj.user, pj.slots, self.committed_h(pj))
            return ApsWithFairshare(order, on_start)
        state = live.state(unit)
        if state is not None:
            return FairshareOrder(state, jobs, self.committed_h)
        return dispatch.StaticOrder(jobs)

    def fs_affected(self, pj, live: LiveFairshare, users: list[str],
                    accounts: dict[str, dict[int, list[str]]]) -> list[str] | None:
        """The users whose FS factor a start of *pj* changes: those sharing its
        fairshare account (usually the user alone); None (everyone) when an
        adjustment plug-in is set, since it sees cluster-wide memory.
        *accounts* caches each queue's account -> users for the pass."""
        if self.cl.accounts.plugin is not None:
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
        """One pass at instant *t*: quiet if it may be, else full; the starts
        made and the pending reasons stored."""
        # The pass makes an object or two per pending job, all freed when it
        # ends: the cyclic collector would only walk the whole store's objects
        # meanwhile (at 100k jobs, most of the pass's time).
        collecting = gc.isenabled()
        gc.disable()
        try:
            dirty = self.cache.take_dirty()
            held = self.held_input(dirty, t)
            inp = self.quiet_input(*held, t) if held is not None and self.quiet_ok else None
            quiet = inp is not None
            result = None
            if inp is None and held is not None and self.delta_ok:
                result = passdelta.run(self, held[0], held[1], t)  # (None: a full pass decides)
                if result is not None:
                    inp = held[0]
            delta = result is not None
            if result is None:
                if inp is None:
                    inp = self.full_input(t)
                result = self.run_pass(inp, t)
            if quiet and result.started:
                # A quiet pass does not rank what it looks at: fine while nothing can
                # start (every host full), not when hosts had room a changed job may
                # take (a settled state). Its outcome is dropped (nothing applied
                # yet) and a full pass, in order, decides.
                quiet = False
                inp = self.full_input(t)
                result = self.run_pass(inp, t)
            start = self.cl._start  # (through the cluster: the pass-equivalence test watches the starts there)
            for pj, hosts in result.started:
                self.cl.requirements.started(pj)
                start(self.cl.jobs[(pj.job_id, pj.array_index)], hosts, t)
            preempted = self.cl.preemption.after_pass(inp, result, t)  # (nothing without PREEMPTION)
            self.write_reasons(result.reasons, inp.jobs, t, bulk=not delta)
            # what the next pass may keep (see quiet_input; after a preemption: nothing)
            self.last_state = None if preempted else passdelta.EndState(inp, self.state_key)
            self.last_delta = passdelta.key(inp, passdelta.per_user(inp)) if self.delta_ok and not preempted else None
            self.early = list(itertools.islice(result.reasons, result.early))
            if not quiet:
                self.settled = result.settled
        finally:
            if self.built_all:
                # The rows and PendingJobs of every job, made by the first pass
                # after a start, live as long as their jobs wait, like the jobs
                # Cluster._load_jobs froze: frozen too, or the first collection
                # after the pass would walk them all (issue 23, part 5: 8% of
                # that pass at 100k), and the next ones again as they age.
                self.built_all = False
                gc.freeze()
            if collecting:
                gc.enable()
        self.cl.clock_state.last_pass = t
        self.cl.loop.dirty = False
        if self.reserve.due:
            self.cl.mark_dirty()  # reservations are renewed each pass and expire by time (MAX_RESERVE_TIME)
        if result.started:
            started = {(pj.job_id, pj.array_index) for pj, _ in result.started}
            if any(k not in started for k in self.conditioned):
                self.cl.mark_dirty()  # a start may meet a dependency (started(), numrun()): look again next pass
            elif any(self.cl.jobs[k].status == "PEND" for k in started):
                self.cl.mark_dirty()  # a pre-execution command failed at once (bsub -E, virtual): try again

    def full_input(self, t: float) -> dispatch.PassInput:
        """A full pass's input: pass_input, and the slot reservations kept
        from the last pass, renewed and expired (here, not in pass_input,
        which lsfemu explain uses too: it must not change them)."""
        inp = self.pass_input(t)
        inp.reserve = self.reserve.pass_reserve(inp.jobs, self.held, t)
        return inp

    def run_pass(self, inp: dispatch.PassInput, t: float) -> dispatch.PassResult:
        """The pure pass over *inp* with each unit's Order at instant *t* (fairshare states made anew)."""
        live = self.cl.fairshare(t)
        self.in_pass = True
        try:
            return dispatch.schedule_pass(inp, unit_of=self.cl.aps_unit,
                                          order_for=lambda unit, jobs: self.order_for(unit, jobs, t, live),
                                          yields_all=self.yields_all)
        finally:
            self.in_pass = False

    def yields_all(self, unit: str) -> bool:
        """Does the unit's Order give out every job (see dispatch.schedule_pass)?"""
        return unit in self.cl.aps_cfg or self.cl.accounts.by_queue.get(unit) is None

    def write_reasons(self, reasons: dict, pending: list, t: float, bulk: bool = True) -> None:
        """Store the pending reasons of a pass. An unchanged reason is not
        written again. When many jobs change from one text to another (the
        first pass over a big queue: most wait for the same full hosts), one
        set-based UPDATE writes those (not when *bulk* is False: a pass that
        looked at some jobs only, whose *pending* are not all the pending jobs), and the jobs it must not touch are
        written back with theirs; the loaded objects take the values as
        already stored (no ORM row-by-row flush)."""
        joined: dict[int, str] = {}  # many jobs share one reasons list (dispatch.schedule_pass)
        jobs = self.cl.jobs
        # The jobs whose text changes, by (stored text, new text): the first
        # pass after a start changes most jobs' texts, from a few texts to a
        # few (issue 23, part 5: no tuple per job). Consecutive jobs often
        # share both: the group is looked up again only when either changes.
        groups: dict[tuple[str, str], list] = {}
        flips: dict[tuple[str, str], dict] = {}  # the same -> status -> (new side,) if TRACK_ELIGIBLE's side changes
        # Each distinct text is one object (`texts`): jobs refused for one
        # reason under different (queue, user, slots) have lists of their own
        # but the same text, and their groups are not looked up again.
        texts: dict[str, str] = {}
        last, text, last_old, group, flip, last_status, side = None, "", None, None, None, None, ()
        for key, why in reasons.items():
            if why is not last:  # (consecutive jobs often share one list)
                last = why
                new = joined.get(id(why))
                if new is None:
                    new = "\n".join(why)
                    new = joined[id(why)] = texts.setdefault(new, new)
                if new is not text:
                    text = new
                    last_old = None
            job = jobs[key]
            # (as stored: a record's slot, or an ORM object's loaded value; no
            # copy kept per job beside it -- issue 23, part 3)
            old = job.pend_reasons
            if old == text:
                continue
            if old is not last_old or last_old is None:
                last_old = old
                group = groups.get((old, text))
                if group is None:
                    group = groups[(old, text)] = []
                    flip = flips[(old, text)] = {}
                else:
                    flip = flips[(old, text)]
                last_status = None
            group.append(job)
            status = job.status  # TRACK_ELIGIBLE_PENDINFO's time (engine/eligibility.py): a change of side
            if status is not last_status:
                last_status = status
                side = flip.get(status)
                if side is None:
                    inel = ineligible(status, text)
                    side = flip[status] = (inel,) if inel != ineligible(status, old) else ()
            if side:
                eligibility.note(job, t, side[0])
        if not groups:
            return
        if not bulk or sum(len(g) for g in groups.values()) < _BULK_ROWS:
            for key, why in reasons.items():  # (in the pass's order, through the ORM)
                job = jobs[key]
                text = joined[id(why)]
                if job.pend_reasons != text:
                    job.pend_reasons = text  # (the event drops the job's cached rows)
            return
        (common_old, common_new), common = max(groups.items(), key=lambda kv: len(kv[1]))
        self.cl.session.flush()  # the store must hold what memory holds (starts, statuses) first
        if len(common) >= _BULK_ROWS:
            # Every pending row is in memory (self.cl.jobs holds all unfinished
            # jobs): the rows this UPDATE reaches are known. Those that get
            # another reason, those that keep common_old, and pending jobs
            # that got none this pass (users without a share account in a
            # fairshare queue) are written back.
            replace_pend_reasons(self.cl.session, common_old, common_new)
            by_row = [(job, new) for (old, new), g in groups.items() if g is not common for job in g]
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
            by_row = [(job, new) for (_old, new), g in groups.items() for job in g]
        if by_row:
            write_pend_reasons(self.cl.session,
                               [{"k_id": job.id, "k_idx": job.array_index, "k_text": text} for job, text in by_row])
        # The loaded objects take the values as stored. After the flush above
        # no attribute has a change pending, so the value goes straight into
        # the instance's dict (what set_committed_value does, at a fifth of its
        # cost; no event either: the cached rows stay).
        for (_old, new), g in groups.items():
            set_loaded_all(g, "pend_reasons", new)
