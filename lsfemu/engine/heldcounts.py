"""What the started jobs hold, counted into a pass's hosts, queues and users
(issue 23, part 4).

`hold` counts one started job, as a full pass does for each (its slots on
its hosts, its queue's and its user's counts, an array's started
elements, bsub -x). `HeldCounts` keeps the same counts summed over the
started jobs between passes, changed by the jobs that changed since: the
quiet and delta passes (lsfemu.engine.passes.held_input) copy the sums
instead of counting every running job again. Not while a started job
reserves resources: what it holds changes with time (rusage duration and
decay), and the jobs are counted one by one then.
"""

from __future__ import annotations

from lsfemu.store.models import Job


def part(job: Job, reserves: bool) -> tuple:
    """What a started job holds: (user, queue, slots, array job ID or 0, exclusive, hosts, running, reserves)."""
    d = job.__dict__
    excl = d["exclusive"] if "exclusive" in d else job.exclusive  # bsub -x: its hosts take no other job
    return (job.user, job.queue, job.num_processors, job.id if job.array_index else 0, bool(excl),
            job.exec_hosts.split(), job.status == "RUN", reserves)


def hold(job: Job, hosts: dict, queues: dict, user_used: dict, array_started: dict) -> None:
    """Count the slots a started job holds."""
    user, queue, n, array, excl, on, _running, _reserves = part(job, False)
    if array:
        array_started[array] = array_started.get(array, 0) + 1
    user_used[user] = user_used.get(user, 0) + n
    qi = queues.get(queue)
    if qi:
        qi.used += n
        qi.used_by_user[user] = qi.used_by_user.get(user, 0) + n
    for h in on:
        if h in hosts:
            hosts[h].used += 1
            hosts[h].exclusive = hosts[h].exclusive or excl
        if qi:
            qi.used_on_host[h] = qi.used_on_host.get(h, 0) + 1


def _bump(counts: dict, key, by: int) -> None:
    n = counts.get(key, 0) + by
    if n:
        counts[key] = n
    else:
        del counts[key]  # (a count back to none: as if never counted, as `hold` leaves it)


class HeldCounts:
    """The started jobs' counts, summed, kept between passes (the module docstring)."""

    def __init__(self):
        self.parts: dict[Job, tuple] | None = None  # None: to be counted anew
        self._zero()

    def _zero(self) -> None:
        self.reserving = 0  # started jobs that reserve resources
        self.users: dict[str, int] = {}
        self.queues: dict[str, int] = {}
        self.queue_users: dict[tuple[str, str], int] = {}
        self.queue_hosts: dict[tuple[str, str], int] = {}
        self.hosts: dict[str, int] = {}
        self.exclusive: dict[str, int] = {}
        self.arrays: dict[int, int] = {}
        self.running: dict[str, int] = {}  # host -> slots of RUN jobs (the hosts' load)

    def invalidate(self) -> None:
        self.parts = None

    def _add(self, p: tuple, by: int) -> None:
        user, queue, n, array, excl, on, running, reserves = p
        self.reserving += by if reserves else 0
        if array:
            _bump(self.arrays, array, by)
        _bump(self.users, user, n * by)
        _bump(self.queues, queue, n * by)
        _bump(self.queue_users, (queue, user), n * by)
        for h in on:
            _bump(self.hosts, h, by)
            _bump(self.queue_hosts, (queue, h), by)
            if excl:
                _bump(self.exclusive, h, by)
            if running:
                _bump(self.running, h, by)

    def update(self, held: set[Job], changed, reserves) -> None:
        """The started jobs are *held*; of them, those in *changed* may differ
        from when they were counted (*reserves(job)*: does it reserve resources?)."""
        if self.parts is None:
            self._zero()
            self.parts = {}
            changed = held
        parts = self.parts
        for job in changed:
            old = parts.pop(job, None)
            if old is not None:
                self._add(old, -1)
            if job in held:
                p = parts[job] = part(job, reserves(job))
                self._add(p, 1)

    def apply(self, hosts: dict, queues: dict, user_used: dict, array_started: dict) -> None:
        """Count the sums into a pass's frame (as `hold` for each started job would)."""
        user_used.update(self.users)
        array_started.update(self.arrays)
        for name, qi in queues.items():
            n = self.queues.get(name)
            if n:
                qi.used += n
        for (queue, user), n in self.queue_users.items():
            qi = queues.get(queue)
            if qi:
                qi.used_by_user[user] = n
        for (queue, h), n in self.queue_hosts.items():
            qi = queues.get(queue)
            if qi:
                qi.used_on_host[h] = n
        for h, n in self.hosts.items():
            hi = hosts.get(h)
            if hi is not None:
                hi.used += n
                hi.exclusive = hi.exclusive or h in self.exclusive
