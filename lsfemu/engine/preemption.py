"""Preemptive scheduling as the cluster runs it (lsb.queues PREEMPTION,
TERMINATE_WHEN=PREEMPT; the rules and the choice: lsfemu.sched.preempt).

After each scheduling pass (`after_pass`, called by engine.passes with the
pass's input as the starts left it):

1. each job of a preemptive queue that the pass left pending for host-based
   reasons only (no queue, user or dependency reason: those preemption does
   not lift) looks for running jobs of the queues it may preempt; when
   taking their slots lets it start (the pass's own placement decides), they
   are suspended (SSUSP, "preempted"; lsb.events JOB_STATUS with
   SUSP_MBD_PREEMPT) -- or, in a queue with TERMINATE_WHEN=PREEMPT, killed
   and requeued -- and the job starts on their slots at once;
2. every preempted job whose hosts have its slots back (no preempted job
   counted: a preemptor that ended gave them back) resumes (RUN).

A running job that a protection of its queue (else of lsb.params) covers --
NO_PREEMPT_RUN_TIME, NO_PREEMPT_FINISH_TIME, NO_PREEMPT_INTERVAL,
MAX_TOTAL_TIME_PREEMPT --, one preempted MAX_JOB_PREEMPT times, an exclusive
one or one of a BACKFILL=Y queue (unless lsb.params PREEMPT_JOBTYPE names
EXCLUSIVE / BACKFILL), is not preempted; an exclusive job preempts only with
PREEMPT_JOBTYPE=EXCLUSIVE.

A preempted job keeps holding its slots in the passes (a host's count may
exceed its MXJ while a preemptor runs there), so that no other pending job
takes them: only a preemptor may (LSF reserves them for it), and they go
back to the preempted job when the preemptor ends. Nothing of this runs
while no queue has PREEMPTION and no job is preempted.
"""

from __future__ import annotations

import itertools
import re

from lsfemu.config.lsb_params import NO_PREEMPT_KEYS
from lsfemu.events.lsbatch import PREEMPTED_REASON, SUSP_MBD_PREEMPT
from lsfemu.sched import dispatch, preempt, simulate
from lsfemu.store.jobs import preempted_seconds, preemption_counts

#: a pending reason that counts hosts (``Job slot limit reached: 3 hosts``): a host-based one
_HOST_REASON = re.compile(r": [0-9]+ hosts?$")


class Preemption:
    """The cluster's preemption (see the module docstring)."""

    def __init__(self, cluster):
        self.cl = cluster
        self.rules = preempt.Rules([])
        self.terminate: set[str] = set()  # queues with TERMINATE_WHEN=PREEMPT
        self.maybe = True  # some job may be preempted (checked on the first look)
        self.max_times: int | None = None  # lsb.params MAX_JOB_PREEMPT
        self.least_run_time = False  # lsb.params PREEMPT_FOR=LEAST_RUN_TIME
        self.jobtype: frozenset[str] = frozenset()  # lsb.params PREEMPT_JOBTYPE
        self.backfill_queues: set[str] = set()  # queues with BACKFILL=Y
        # queue -> {protection key: its value read}: the queue's, else lsb.params' (NO_PREEMPT_KEYS)
        self.no_preempt: dict[str, dict[str, object]] = {}
        self.preempted_s: dict[tuple[int, int], float] | None = None  # MAX_TOTAL_TIME_PREEMPT's (read when needed)
        self.times: dict[tuple[int, int], int] | None = None  # ... and each job's preemptions (read when needed)

    def configure(self, cfg) -> None:
        self.rules = preempt.Rules((q.name, q.priority, q.extra.get("PREEMPTION")) for q in cfg.queues)
        self.terminate = {q.name for q in cfg.queues
                          if "PREEMPT" in q.extra.get("TERMINATE_WHEN", "").upper().split()}
        self.maybe = True
        self.max_times = cfg.params.max_job_preempt
        self.least_run_time = "LEAST_RUN_TIME" in cfg.params.preempt_for
        self.jobtype = cfg.params.preempt_jobtype
        self.backfill_queues = {q.name for q in cfg.queues if q.extra.get("BACKFILL", "").strip().upper() == "Y"}
        self.no_preempt = {}
        for q in cfg.queues:
            values = {k: q.extra.get(k, cfg.params.extra.get(k)) for k in NO_PREEMPT_KEYS}
            rules = {k: NO_PREEMPT_KEYS[k](v) for k, v in values.items() if v is not None}
            if rules:
                self.no_preempt[q.name] = rules
        self.preempted_s = None
        self.times = None

    @staticmethod
    def is_preempted(job) -> bool:
        return job.status == "SSUSP" and job.susp_reason == PREEMPTED_REASON

    def waiting(self) -> bool:
        """Is a preempted job waiting to resume (a pass must run even with no job pending)?"""
        if not self.maybe:
            return False
        self.maybe = any(self.is_preempted(j) for j in self.cl.jobs.values())
        return self.maybe

    def after_pass(self, inp: dispatch.PassInput, result: dispatch.PassResult, t: float) -> bool:
        """Preempt for the jobs the pass left pending, then resume what may
        resume (the module docstring). Started preemptors join
        *result.started* and leave *result.reasons*. True when anything changed."""
        if not self.rules and not self.maybe:
            return False
        jobs = self.cl.jobs
        started = [jobs[pj.key] for pj, _ in result.started]
        victims: dict[tuple[int, int], preempt.Victim] = {}
        preempted: list[preempt.Victim] = []
        for job in itertools.chain(self.cl.passes.held, started):
            status = job.status
            if status == "RUN" and job.queue in self.rules.preemptable and self.jobtype_allows(job) \
                    and not self.preempted_enough(job) and not self.protected(job, t):
                victims[(job.id, job.array_index)] = self.victim(job, False)
            elif status == "SSUSP" and job.susp_reason == PREEMPTED_REASON:
                v = preempted_v = self.victim(job, True)
                preempted.append(preempted_v)
                if job.queue in self.rules.preemptable:
                    victims[v.key] = v
        changed = False
        if victims:
            changed = self.preempt(inp, result, victims, t)
            preempted = [v for v in victims.values() if v.suspended] + \
                [v for v in preempted if v.key not in victims]
        self.maybe = bool(preempted)
        if preempted:
            changed = self.resume_what_fits(inp, preempted, t) or changed
        return changed

    def jobtype_allows(self, job) -> bool:
        """PREEMPT_JOBTYPE: an exclusive job (-x) is preempted only with
        EXCLUSIVE, a job of a BACKFILL=Y queue only with BACKFILL."""
        if job.exclusive and "EXCLUSIVE" not in self.jobtype:
            return False
        return job.queue not in self.backfill_queues or "BACKFILL" in self.jobtype

    def preempted_enough(self, job) -> bool:
        """MAX_JOB_PREEMPT: has the job been preempted that many times already?"""
        if self.max_times is None:
            return False
        if self.times is None:
            self.times = preemption_counts(self.cl.session)
        return self.times.get((job.id, job.array_index), 0) >= self.max_times

    def protected(self, job, t: float) -> bool:
        """The protections of the job's queue (else lsb.params'): has it run
        long enough (NO_PREEMPT_RUN_TIME), will it finish soon enough
        (NO_PREEMPT_FINISH_TIME), has it run too short a time since it started
        or resumed (NO_PREEMPT_INTERVAL), been preempted long enough in all
        (MAX_TOTAL_TIME_PREEMPT), to be left alone? Its run time is its time
        in RUN (as the run limit counts it); its duration the shorter of its
        run limit and its -We estimate."""
        rules = self.no_preempt.get(job.queue)
        if rules is None:
            return False
        interval = rules.get("NO_PREEMPT_INTERVAL")
        if interval and job.segment_start is not None and t - job.segment_start < interval * 60:
            return True
        most = rules.get("MAX_TOTAL_TIME_PREEMPT")
        if most is not None:
            if self.preempted_s is None:
                self.preempted_s = preempted_seconds(self.cl.session)
            if self.preempted_s.get((job.id, job.array_index), 0.0) >= most * 60:
                return True
        ran = simulate.work_at(job.work_done, job.segment_start, t) / 60.0
        known = [d for d in (self.cl.effective_run_limit(job), job.est_runtime_min) if d is not None]
        return preempt.protected(ran, min(known) if known else None, rules.get("NO_PREEMPT_RUN_TIME"),
                                 rules.get("NO_PREEMPT_FINISH_TIME"))

    def count(self, job) -> None:
        if self.times is not None:
            key = (job.id, job.array_index)
            self.times[key] = self.times.get(key, 0) + 1

    @staticmethod
    def victim(job, suspended: bool) -> preempt.Victim:
        return preempt.Victim((job.id, job.array_index), job.queue, tuple(job.exec_hosts.split()),
                              job.priority or 0, job.start_time or 0.0, suspended)

    def preempt(self, inp: dispatch.PassInput, result: dispatch.PassResult,
                victims: dict[tuple[int, int], preempt.Victim], t: float) -> bool:
        """Step 1 of the module docstring, for the pending jobs in the pass's order."""
        rules = self.rules
        pending = {pj.key: pj for pj in inp.jobs if pj.queue in rules.pairs}
        if not pending:
            return False
        hosts = inp.hosts
        failed: set[str] = set()  # jobs alike (queue, user, slots, requirement) that found nothing
        changed = False

        def with_freed(freed: dict[str, int], call):
            emptied = []  # hosts whose every job is taken: an exclusive one held them (PREEMPT_JOBTYPE=EXCLUSIVE)
            for h, n in freed.items():
                if h in hosts:
                    hosts[h].used -= n
                    if hosts[h].exclusive and hosts[h].used <= 0:
                        hosts[h].exclusive = False
                        emptied.append(h)
            try:
                return call()
            finally:
                for h, n in freed.items():
                    if h in hosts:
                        hosts[h].used += n
                for h in emptied:
                    hosts[h].exclusive = True

        for key, why in list(result.reasons.items()):
            pj = pending.get(key)
            if pj is None or pj.fit in failed or not why or not all(_HOST_REASON.search(r) for r in why):
                continue
            if pj.place is not None and pj.place.exclusive and "EXCLUSIVE" not in self.jobtype:
                continue  # an exclusive job preempts only with PREEMPT_JOBTYPE=EXCLUSIVE
            q = inp.queues.get(pj.queue)
            if q is None:
                continue
            usable = set(q.hosts)
            order = preempt.order(rules, pj.queue, victims.values(), self.least_run_time)

            def fits(freed, pj=pj, q=q):
                return with_freed(freed, lambda: dispatch._allocate(pj, q, hosts, inp.limits)[0]) is not None

            chosen = preempt.choose(order, fits, usable.__contains__)
            if chosen is None:
                failed.add(pj.fit)
                continue
            freed: dict[str, int] = {}
            for v in chosen:
                for h, n in v.freed().items():
                    freed[h] = freed.get(h, 0) + n
            alloc = with_freed(freed, lambda: dispatch._try_start(pj, inp, {}))
            if alloc is None:  # a queue or user limit, not the hosts
                failed.add(pj.fit)
                continue
            failed.clear()
            changed = True
            for v in chosen:
                job = self.cl.jobs[v.key]
                if v.suspended:
                    continue  # preempted already: its slots pass to this job
                self.count(job)
                if job.queue in self.terminate:
                    self.cl.transitions.requeue(job, None)  # TERMINATE_WHEN=PREEMPT
                    del victims[v.key]
                    for h, n in v.freed().items():  # (it holds nothing any more)
                        if h in hosts:
                            hosts[h].used -= n
                else:
                    self.suspend(job, t)
                    victims[v.key] = self.victim(job, True)
            del result.reasons[key]
            result.started.append((pj, alloc))
            self.cl.requirements.started(pj)
            self.cl._start(self.cl.jobs[key], alloc, t)
        return changed

    def resume_what_fits(self, inp: dispatch.PassInput, preempted: list[preempt.Victim], t: float) -> bool:
        """Step 2 of the module docstring."""
        hosts = inp.hosts
        held: dict[str, int] = {}
        for v in preempted:
            for h, n in v.freed().items():
                held[h] = held.get(h, 0) + n
        room = {}
        for name, n in held.items():
            h = hosts.get(name)
            room[name] = None if h is None or h.max_slots is None else h.max_slots - (h.used - n)
        prio = self.rules.priority
        back = preempt.resumable([(v, prio.get(v.queue, 0)) for v in preempted], room)
        for v in back:
            self.resume(self.cl.jobs[v.key], t)
        return bool(back)

    def suspend(self, job, t: float) -> None:
        """Preempted: SSUSP, its run stopped (a real job gets SIGSTOP, LSF's default SUSPEND action)."""
        self.cl.transitions.pause(job, t, "SSUSP", PREEMPTED_REASON)
        self.cl.log(job, "STATUS", None, t, status="SSUSP", reason=SUSP_MBD_PREEMPT)
        self.cl.mark_dirty()

    def resume(self, job, t: float) -> None:
        """A preempted job runs again."""
        self.cl.transitions.unpause(job, t)
        self.cl.log(job, "STATUS", None, t, status="RUN")
        self.preempted_s = None  # its total grew: read again when next needed
        if self.cl.loop.started is not None:
            self.cl.loop.started.append(job)  # run_until files its end
        self.cl.mark_dirty()
