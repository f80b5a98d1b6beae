"""Slots of the unfinished jobs per queue and per user, by state, kept as the jobs change.

bqueues and busers print per queue (per user) the slots of the jobs in each
state (NJOBS PEND RUN SSUSP USUSP), as mbatchd keeps them in its queue and
user records. Counting them over every job in memory made bqueues at 10k
jobs cost 50 ms; the tally counts each job once and then only the jobs whose
state, queue, user or slots changed since the last look (the ORM events of
lsfemu.store.rowcache name them), so that a listing costs what changed, not
what is there. A job counts in the bucket of `bucket()`: PEND (PSUSP with
it), RUN, SSUSP, USUSP; finished and UNKWN jobs count nowhere, as before.
"""

from __future__ import annotations

import weakref

from lsfemu.store.models import Job
from lsfemu.store.rowcache import on_job_columns_change

BUCKETS = ("PEND", "RUN", "SSUSP", "USUSP")
_BUCKET = {"PEND": "PEND", "PSUSP": "PEND", "RUN": "RUN", "SSUSP": "SSUSP", "USUSP": "USUSP"}
#: what a job's count depends on; clean_time: a job leaving memory (Cluster.clean)
COLUMNS = ("status", "queue", "user", "num_processors", "clean_time")


def zero() -> dict[str, int]:
    return dict.fromkeys(BUCKETS, 0)


class SlotTally:
    """Per queue and per user: {bucket: slots} of the cluster's jobs in memory."""

    def __init__(self, cluster):
        self.cl = cluster
        self.counted: dict[Job, tuple[str, str, str, int]] = {}  # job -> (queue, user, bucket, slots) in the sums
        self.queues: dict[str, dict[str, int]] = {}
        self.users: dict[str, dict[str, int]] = {}
        self.changed: set[Job] = set()
        self.jobs: dict | None = None  # the cluster's job dict the sums are of (a reload makes a new one)
        _tallies.add(self)

    def forget(self) -> None:
        """Drop the sums: the next look counts every job again."""
        self.jobs = None
        self.counted.clear()
        self.queues.clear()
        self.users.clear()
        self.changed.clear()

    def by_queue(self) -> dict[str, dict[str, int]]:
        self._bring_up_to_date()
        return self.queues

    def by_user(self) -> dict[str, dict[str, int]]:
        self._bring_up_to_date()
        return self.users

    def _bring_up_to_date(self) -> None:
        jobs = self.cl.jobs
        if self.jobs is not jobs:  # first look, forgotten, or the jobs were loaded again: count them all
            self.forget()
            self.jobs = jobs
            for job in jobs.values():
                self._count(job)
            return
        changed, self.changed = self.changed, set()
        for job in changed:
            old = self.counted.pop(job, None)
            if old is not None:
                self._add(old, -1)
            if jobs.get((job.id, job.array_index)) is job:  # (a job object of a request rolled back is not)
                self._count(job)

    def _count(self, job: Job) -> None:
        bucket = _BUCKET.get(job.status)
        if bucket is None:
            return
        entry = (job.queue, job.user, bucket, job.num_processors)
        self.counted[job] = entry
        self._add(entry, 1)

    def _add(self, entry: tuple[str, str, str, int], sign: int) -> None:
        queue, user, bucket, slots = entry
        q = self.queues.get(queue)
        if q is None:
            q = self.queues[queue] = zero()
        q[bucket] += sign * slots
        u = self.users.get(user)
        if u is None:
            u = self.users[user] = zero()
        u[bucket] += sign * slots


_tallies: "weakref.WeakSet[SlotTally]" = weakref.WeakSet()


#: changed jobs kept beyond the counted ones before a tally forgets its sums (and
#: the job objects it holds: a what-if replay drops finished jobs to stay flat)
CHANGED_RECOUNT = 50_000


def _changed(target, *_args) -> None:
    for t in _tallies:
        if t.jobs is not None:  # (before its first look it counts everything anyway)
            t.changed.add(target)
            if len(t.changed) > len(t.counted) + CHANGED_RECOUNT:
                t.forget()


on_job_columns_change(COLUMNS, _changed)
