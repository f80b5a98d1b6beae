"""What the listings read per queue and per user, kept as the jobs change.

bqueues and busers print per queue (per user) the slots of the jobs in each
state (NJOBS PEND RUN SSUSP USUSP), as mbatchd keeps them in its queue and
user records; `bjobs` as one user lists that user's jobs. Counting over every
job in memory made bqueues at 10k jobs cost 50 ms and `bjobs` (one user's
100 jobs) scan the other 9,900; the tally looks at each job once and then
only at the jobs whose state, queue, user or slots changed, or that came or
left, since the last look (the ORM events of lsfemu.store.rowcache name them;
Cluster.drop names a job it forgets), so that a listing costs what changed
and what it prints, not what is there. A job counts in the bucket of its
state: PEND (PSUSP with it), RUN, SSUSP, USUSP; finished and UNKWN jobs
count nowhere, as before. The per-user lists keep the order of the cluster's
job dict (a new job comes last in both).
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


class JobTally:
    """Per queue and per user: {bucket: slots}; per user: the jobs in memory."""

    def __init__(self, cluster):
        self.cl = cluster
        self.counted: dict[Job, tuple[str, str, str, int]] = {}  # job -> (queue, user, bucket, slots) in the sums
        self.queues: dict[str, dict[str, int]] = {}
        self.users: dict[str, dict[str, int]] = {}
        self.of_user: dict[str, dict[Job, None]] = {}  # user -> its jobs in memory (in the cluster's order)
        self.pending: dict[str, int] = {}  # user -> its jobs (not slots) in the PEND bucket (MAX_PEND_JOBS)
        self.changed: dict[Job, None] = {}  # (a dict: new jobs in the order they came)
        self.jobs: dict | None = None  # the cluster's job dict the tally is of (a reload makes a new one)
        _tallies.add(self)

    def forget(self) -> None:
        """Drop everything: the next look goes over every job again."""
        self.jobs = None
        self.counted.clear()
        self.queues.clear()
        self.users.clear()
        self.of_user.clear()
        self.pending.clear()
        self.changed.clear()

    def left(self, job: Job) -> None:
        """*job* left the cluster's memory without a change of its columns (Cluster.drop)."""
        if self.jobs is not None:
            self.changed[job] = None

    def by_queue(self) -> dict[str, dict[str, int]]:
        self._bring_up_to_date()
        return self.queues

    def by_user(self) -> dict[str, dict[str, int]]:
        self._bring_up_to_date()
        return self.users

    def pending_jobs(self) -> dict[str, int]:
        """Per user: its pending jobs (PEND and PSUSP), each array element one."""
        self._bring_up_to_date()
        return self.pending

    def jobs_of(self, user: str):
        """The user's jobs in memory, in the order of the cluster's job dict."""
        self._bring_up_to_date()
        return self.of_user.get(user, {}).keys()

    def _bring_up_to_date(self) -> None:
        jobs = self.cl.jobs
        if self.jobs is not jobs:  # first look, forgotten, or the jobs were loaded again: every job
            self.forget()
            self.jobs = jobs
            for job in jobs.values():
                self.of_user.setdefault(job.user, {})[job] = None
                self._count(job)
            return
        changed, self.changed = self.changed, {}
        for job in changed:
            old = self.counted.pop(job, None)
            if old is not None:
                self._add(old, -1)
            if jobs.get((job.id, job.array_index)) is job:  # (a job object of a request rolled back is not)
                self.of_user.setdefault(job.user, {}).setdefault(job, None)  # (one known keeps its place)
                self._count(job)
            elif (mine := self.of_user.get(job.user)) is not None:
                mine.pop(job, None)

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
        if bucket == "PEND":
            self.pending[user] = self.pending.get(user, 0) + sign


_tallies: "weakref.WeakSet[JobTally]" = weakref.WeakSet()

#: changed jobs kept before a tally forgets everything (and the job objects it
#: holds: a what-if replay drops finished jobs to stay flat); its next look
#: goes over every job again, which costs no more than that many changes
CHANGED_RECOUNT = 50_000


def _changed(target, *_args) -> None:
    # (the set's weak references: a WeakSet's own iteration guards itself, a cost on every job's start and end)
    for ref in tuple(_tallies.data):
        t = ref()
        if t is not None and t.jobs is not None:  # (before its first look it goes over every job anyway)
            t.changed[target] = None
            if len(t.changed) > len(t.counted) + CHANGED_RECOUNT:
                t.forget()


on_job_columns_change(COLUMNS, _changed)
