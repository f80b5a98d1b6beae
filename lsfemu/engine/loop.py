"""The event loop: job ends and scheduling passes, in time order.

`Loop` owns what decides when something is due: whether anything changed
since the last pass (`dirty`, `dirty_since`), how far events have been
handled (`processed_until`), and, inside one `run_until`, the jobs its
passes started (`started`), whose ends it files in its heap. A pass runs
through the cluster's `scheduling_pass`, a job end through the cluster's
transitions (lsfemu.engine.jobs).
"""

from __future__ import annotations

import heapq
import math
import time
import weakref

from lsfemu.engine import cpulimit
from lsfemu.sched import simulate
from lsfemu.store.models import Job
from lsfemu.store.records import key_of
from lsfemu.store.rowcache import on_job_change


# The live loops, as weak references (a dead one takes itself off the list),
# each told of every job object changed (a column assigned, expired,
# refreshed): run_until keeps its heap of job ends between calls and files
# the changed jobs' ends in it, instead of scanning every job again on each
# request (a submission at 10k jobs spent most of its CPU in that scan).
# Not a WeakSet: this runs on every attribute assigned to any job.
_loops: "list[weakref.ref[Loop]]" = []

#: past this many changed jobs a call builds the heap anew (cheaper than filing each)
TOUCHED_MAX = 50_000


def _changed(target, *_args) -> None:
    for ref in tuple(_loops):  # (a copy: a loop collected meanwhile takes itself off the list)
        loop = ref()
        if loop is not None and loop.touched is not None:
            loop.touched.add(target)
            if len(loop.touched) > TOUCHED_MAX:
                loop.touched = None  # overflow: the next run_until scans


on_job_change(_changed)


class Loop:
    """When the next job end and the next pass are due, and running them in order."""

    def __init__(self, cluster, now: float):
        self.cl = cluster
        self.dirty = False  # something changed that a pass should look at
        self.dirty_since = 0.0
        self.processed_until = now  # events up to this instant have been handled
        self.started: list[Job] | None = None  # jobs started inside run_until (its heap of job ends)
        self.passed_at: float | None = None  # the instant of the last pass this loop ran
        self.kept_ends: list | None = None  # run_until's heap of job ends, as its last call left it
        self.ends_of: tuple | None = None  # (the jobs dict, the configuration) kept_ends was built for
        self.touched: set[Job] | None = set()  # jobs changed since (None: too many, scan them all)
        _loops.append(weakref.ref(self, _loops.remove))
        # Instants something is due without a change to mark it (bsub -b: a job
        # may start; bsub -t: a job ends): a heap, read from the jobs on first use.
        self.wakes: list[float] | None = None

    def wake_at(self, t: float) -> None:
        """Something is due at *t* (a begin or termination time)."""
        if self.wakes is not None:
            heapq.heappush(self.wakes, t)

    def next_wake(self) -> float | None:
        if self.wakes is None:
            self.wakes = [t for j in self.cl.jobs.values() for t in (j.begin_time, j.term_time)
                          if t is not None and t > self.processed_until]
            heapq.heapify(self.wakes)
        return self.wakes[0] if self.wakes else None

    def woken(self, t: float) -> None:
        """The wakes due at *t*: a pass looks at the jobs again, and the
        jobs whose termination time has come end (Transitions.deadline)."""
        while self.wakes and self.wakes[0] <= t:
            heapq.heappop(self.wakes)
        if not self.dirty:
            self.dirty, self.dirty_since = True, t
        dirty = self.cl.passes.cache.dirty  # a quiet pass (every host full) looks at these again
        for job in list(self.cl.jobs.values()):
            if job.begin_time is not None and job.begin_time <= t and job.status == "PEND":
                dirty.add(job)
            if job.term_time is not None and job.term_time <= t:
                self.cl.transitions.deadline(job, t)

    def end_instant(self, job: Job) -> tuple[float, str | bool] | None:
        """When a simulated running job ends, and whether by its run limit
        ("RUNLIMIT") or its CPU time limit ("CPULIMIT")."""
        if job.status != "RUN" or job.segment_start is None or job.real_run:
            return None  # a real job ends when its process does (lsfemu.engine.runner)
        return simulate.end_of_run(job.sim_runtime, self.cl.effective_run_limit(job), job.work_done,
                                   job.segment_start, job.sim_cputime, cpulimit.limit_seconds(self.cl.config, job))

    def next_finish(self, ends: list | None = None) -> tuple[float, Job, bool] | None:
        """The earliest simulated job end (ties: queue position). With *ends*,
        a heap of (end, position, key) that run_until keeps for one call: an
        entry is checked against the job when it comes to the top, so one
        that a change made stale is dropped or re-filed, never trusted."""
        jobs = self.cl.jobs
        if ends is not None:
            while ends:
                end, pos, key = ends[0]
                job = jobs.get(key)
                e = self.end_instant(job) if job is not None else None
                if e is not None and e[0] == end and job.position == pos:
                    return end, job, e[1]
                heapq.heappop(ends)
                if e is not None:
                    heapq.heappush(ends, (e[0], job.position, key))
            return None
        best = None
        for job in jobs.values():
            e = self.end_instant(job)
            if e is not None and (best is None or (e[0], job.position) < (best[0], best[1].position)):
                best = (e[0], job, e[1])
        return best

    def _ends(self) -> list | None:
        """The heap of job ends for one run_until: in it, only this loop's
        passes start jobs (self.started), and only its job ends change them;
        an entry is checked when it surfaces (next_finish). Between calls the
        heap is kept, and the jobs changed since are filed again (a job whose
        end moved earlier gets an entry that surfaces in time; its old one is
        dropped or re-filed when it surfaces). Built anew, by a scan of every
        job, after a reload of the jobs or of the configuration, after too
        many changes, or when stale entries outnumber the jobs."""
        cl = self.cl
        ends, touched, self.touched = self.kept_ends, self.touched, set()
        if (ends is None or touched is None or self.ends_of is None or self.ends_of[0] is not cl.jobs
                or self.ends_of[1] is not cl.config or len(ends) > 2 * len(cl.jobs) + 1000):
            return cl._end_heap()  # (the cluster's: the test's reference scans)
        jobs = cl.jobs
        end_instant = self.end_instant
        for job in touched:
            key = key_of(job)
            if jobs.get(key) is job and (e := end_instant(job)) is not None:
                heapq.heappush(ends, (e[0], job.position, key))
        return ends

    def end_heap(self) -> list:
        rows = self.cl.passes.cache.rows  # a job's status without an ORM read (every command runs this)
        end_instant = self.end_instant
        ends = [(e[0], job.position, key) for key, job in self.cl.jobs.items()
                if ((row := rows.get(job)) is None or row.status == "RUN") and (e := end_instant(job)) is not None]
        heapq.heapify(ends)
        return ends

    def mark_dirty(self) -> None:
        """Something changed that a scheduling pass should look at."""
        if not self.dirty:
            self.dirty = True
            self.dirty_since = self.cl.now()

    def next_pass(self) -> float | None:
        """Passes run only when something changed: on a grid of MBD_SLEEP_TIME,
        or, with JOB_SCHEDULING_INTERVAL, as soon as the change is made and
        the interval since the last pass has passed (docs/semantics.md)."""
        if not self.dirty:
            return None
        cl = self.cl
        # Newest first: the pending jobs are mostly the recent ones, the old ones finished.
        if not any(j.status == "PEND" for j in reversed(cl.jobs.values())) and not cl.preemption.waiting():
            self.dirty = False  # nothing to schedule or resume; the next change starts a new wait
            return None
        last = cl.clock_state.last_pass
        if last is None:
            last = cl.clock_state.last_pass = cl.now()
        interval = cl.config.params.job_scheduling_interval
        if interval is not None:
            if interval > 0 or self.dirty_since > last or self.passed_at != last:
                return max(self.dirty_since, last + interval, self.processed_until)
            # 0 (no minimum): still one pass an instant at most; a change made at the
            # instant of the pass that ran last (a reservation it renews) waits a second.
            return max(last + 1.0, self.processed_until)
        sleep = max(1, cl.config.params.mbd_sleep_time)
        steps = max(1, math.ceil((self.dirty_since - last) / sleep))
        # Never before what was already processed: a pass that was not due then
        # (nothing pending) runs at the next grid point after it.
        done = self.processed_until
        if last + steps * sleep < done:
            steps = math.ceil((done - last) / sleep)
        return last + steps * sleep

    def due(self) -> float | None:
        """The next instant a pass or a wake (bsub -b, -t) is due, for the wall
        clock daemon's ticker to sleep until (job ends come to it by themselves)."""
        due = [t for t in (self.next_pass(), self.next_wake()) if t is not None]
        return min(due) if due else None

    def run_until(self, target: float) -> int:
        """Process every job end and scheduling pass due up to `target`, in order.

        Returns the number of passes run. In virtual mode the clock is moved
        to each event and finally to `target`.
        """
        cl = self.cl
        clock = cl.clock
        finish = cl.transitions.finish
        passes = 0
        ends, self.kept_ends = self._ends(), None
        self.started = []
        try:
            while True:
                fin = self.next_finish(ends)
                nxt = self.next_pass()
                wake = self.next_wake()
                candidates = []
                if fin is not None and fin[0] <= target:
                    candidates.append((fin[0], 0))
                if wake is not None and wake <= target:
                    candidates.append((wake, 1))
                if nxt is not None and nxt <= target:
                    candidates.append((nxt, 2))
                if not candidates:
                    break
                t, kind = min(candidates)
                self.processed_until = max(self.processed_until, t)
                if clock.mode == "virtual":
                    clock.virtual_now = max(clock.virtual_now, t)
                if kind == 0:
                    _, job, by_limit = fin
                    if by_limit == "CPULIMIT":
                        finish(job, t, "EXIT", cpulimit.CPULIMIT_EXIT_CODE, cpulimit.CPULIMIT_REASON)
                    elif by_limit:
                        finish(job, t, "EXIT", simulate.RUNLIMIT_EXIT_CODE,
                               "TERM_RUNLIMIT: job killed after reaching LSF run time limit")
                    elif job.sim_exit_code == 0:
                        finish(job, t, "DONE", None, None)
                    else:
                        finish(job, t, "EXIT", job.sim_exit_code, None)
                elif kind == 1:
                    self.woken(t)
                else:
                    began = time.perf_counter()
                    cl.scheduling_pass(t)  # (through the cluster: the benchmark times it there)
                    self.passed_at = t
                    cl.perfmon.scheduled(t, time.perf_counter() - began)
                    passes += 1
                    for job in self.started if ends is not None else ():
                        e = self.end_instant(job)
                        if e is not None:
                            heapq.heappush(ends, (e[0], job.position, (job.id, job.array_index)))
                    self.started.clear()
        finally:
            self.started = None
        if ends is not None:  # (complete: every start filed; kept only when nothing raised)
            self.kept_ends, self.ends_of = ends, (cl.jobs, cl.config)
        if clock.mode == "virtual":
            clock.virtual_now = max(clock.virtual_now, target)
        self.processed_until = max(self.processed_until, target)
        return passes

    def catch_up(self) -> None:
        """Wall mode: run what is due by now. Virtual mode: run what is due at the current instant."""
        self.cl.runner.poll(self.cl)  # real jobs: ends, usage, run limits, kill sequences
        self.run_until(self.cl.now())

    def advance(self, seconds: float) -> int:
        """Virtual mode: move the clock *seconds* on, running what falls due on the way."""
        if self.cl.clock.mode != "virtual":
            raise ValueError("the clock is not virtual (set LSFEMU_CLOCK=virtual in lsf.conf)")
        return self.run_until(self.cl.clock.virtual_now + seconds)
