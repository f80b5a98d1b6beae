"""The delta pass as the cluster runs it (issue 23, part 4): each unit's
order kept between passes, and a pass that looks only at its head and at
the jobs changed since (lsfemu.sched.delta says why that is a full pass's
outcome, and when).

`KeptOrder` keeps, per queue, the pending jobs' PendingJobs sorted by
dispatch.fcfs_key. It holds the PendingJobs the row cache keeps
(passrows.RowCache.pending: one per pending job unchanged since it was
made, dropped when anything changes the job), so an entry is live while
the cache still holds it for its job: a started, finished, modified or
removed job's entry is dead and dropped when the order comes to it. A
PendingJob made since is filed at the next delta pass (a few: one insertion
each; many, after a full pass over new jobs: the order is sorted anew).

A fairshare queue (outside APS) keeps one order per user instead: its
users' dynamic priorities move with time, their own jobs' order does not;
the pass merges them as the full pass does (lsfemu.sched.delta.FairWalk),
with the priorities of its instant.

Only for configurations whose order is fixed between passes (per user in
a fairshare queue) and whose reasons read no per-user count the pass input
leaves out: no APS, no JOB_PRIORITY_OVER_TIME, no MAX_JOBS in lsb.users, no
lsb.resources limits, no preemption, and what the held state needs
(Passes.held_ok). Anything else is a full pass, as before.
"""

from __future__ import annotations

import bisect
import heapq
import itertools

from lsfemu.engine import passrows
from lsfemu.sched import delta, dispatch
from lsfemu.sched.priority import escalates

#: a delta pass considers at most this many jobs (a full pass costs less then)
LIMIT = 2000
#: PendingJobs made since the order was sorted, beyond which it is sorted anew
REFILE = 256


def order_key(pj: dispatch.PendingJob) -> tuple:
    """A unit's order: migrated and rerun jobs first (PendingJob.first), then dispatch.fcfs_key."""
    return (not pj.first, -pj.priority, pj.position, pj.job_id, pj.array_index)


_serial = itertools.count()  # (an entry's last sort field: a dead entry and its job's new one never tie)


def _entry(pj: dispatch.PendingJob) -> tuple:
    return (not pj.first, -pj.priority, pj.position, pj.job_id, pj.array_index, next(_serial), pj)


class KeptOrder:
    """Each queue's kept PendingJobs in fcfs_key order (the module docstring)."""

    def __init__(self):
        self.fair: frozenset[str] = frozenset()  # fairshare queues: an order per (queue, user) (see slot)
        self.units: dict = {}  # slot -> entries
        self.users: dict[str, set[str]] = {}  # fairshare queue -> the users with an order in it
        self.fresh: list[dispatch.PendingJob] = []  # made since the last filing
        self.stale = True  # sort everything anew from the row cache at the next filing
        self.with_req: list[dispatch.PendingJob] = []  # filed jobs with a resource requirement (some dead)
        # pending jobs a pass looked at whose PendingJob the row cache does not
        # keep (not in the store yet): not in the order, so the next delta pass looks at them
        self.unkept: list = []

    def slot(self, pj: dispatch.PendingJob):
        """Where a job is filed: its queue, or (queue, user) in a fairshare
        queue (migrated and rerun jobs go first there, in the queue's own order)."""
        return (pj.queue, pj.user) if pj.queue in self.fair and not pj.first else pj.queue

    def clear(self) -> None:
        self.units.clear()
        self.users.clear()
        self.fresh.clear()
        self.with_req.clear()
        self.unkept.clear()
        self.stale = True

    def made(self, pj: dispatch.PendingJob) -> None:
        """The row cache keeps a new PendingJob."""
        if not self.stale:
            self.fresh.append(pj)
            if len(self.fresh) > REFILE:
                self.fresh.clear()
                self.stale = True

    def file(self, kept: dict) -> None:
        """File the PendingJobs made since (*kept*: the row cache's job -> PendingJob)."""
        filed = sum(len(entries) for entries in self.units.values()) + len(self.fresh)
        if filed > 2 * len(kept) + 1024 or len(self.with_req) > 2 * len(kept) + 1024:
            self.stale = True  # (mostly dead entries of jobs changed far down the order: sorted anew)
        slot, fair = self.slot, self.fair
        if self.stale:
            units: dict = {}
            self.with_req = [pj for pj in kept.values() if pj.req is not None]
            if fair:
                for pj in kept.values():
                    units.setdefault(slot(pj), []).append(_entry(pj))
            else:
                for pj in kept.values():
                    units.setdefault(pj.queue, []).append(_entry(pj))
            for entries in units.values():
                entries.sort()
            self.units = units
            self.users = {}
            for s in units:
                if s.__class__ is tuple:
                    self.users.setdefault(s[0], set()).add(s[1])
            self.stale = False
        else:
            for pj in self.fresh:
                s = slot(pj)
                bisect.insort(self.units.setdefault(s, []), _entry(pj))
                if s.__class__ is tuple:
                    self.users.setdefault(s[0], set()).add(s[1])
                if pj.req is not None:
                    self.with_req.append(pj)
        self.fresh.clear()

    def requiring(self, live) -> bool:
        """Does a filed live job have a resource requirement (its reasons read
        the hosts' load and what they have left to reserve)? Dead ones are dropped."""
        reqs = self.with_req
        while reqs:
            if live(reqs[-1]):
                return True
            reqs.pop()
        return False

    def jobs(self, slot, live):
        """The live PendingJobs of *slot*, in order; dead entries are dropped on the way."""
        entries = self.units.get(slot)
        i = 0
        while entries is not None and i < len(entries):
            pj = entries[i][-1]
            if live(pj):
                yield pj
                i += 1
            else:
                del entries[i]  # (a pointer move per later entry: cheap beside a full pass)


def configure(passes) -> bool:
    """Whether the configuration allows a delta pass (see the module
    docstring); the kept order is told the fairshare queues."""
    cl = passes.cl
    cfg = cl.config
    passes.kept.fair = frozenset(q.name for q in cfg.queues if cl.accounts.by_queue.get(q.name) is not None)
    return (passes.held_ok and not cl.aps_cfg and not cfg.user_limits and passes.limits is None
            and not escalates(cfg.params.job_priority_over_time))


def key(inp: dispatch.PassInput, users: bool) -> tuple:
    """What the reasons of a job the pass does not look at depend on, besides
    the job: the hosts (slots, status), their load and what they have left
    to reserve (second: read only by jobs with a requirement), the queues'
    counts that a limit of theirs reads (QJOB_LIMIT: the slots in use;
    HJOB_LIMIT, PJOB_LIMIT: per host; UJOB_LIMIT: per user, when *users*),
    the array elements started. (Not the users' counts over all queues:
    only MAX_JOBS in lsb.users reads them, and it rules the delta pass out.)"""
    return (tuple((n, h.used, h.open, h.accepting, h.failed, h.max_slots, h.exclusive, h.busy)
                  for n, h in inp.hosts.items()),
            tuple((tuple(h.avail.items()), tuple(h.load.items())) for h in inp.hosts.values()),
            tuple((n, q.used if q.qjob_limit is not None else None, q.active, q.qjob_limit, q.ujob_limit,
                   q.hjob_limit, q.pjob_limit,
                   tuple(sorted(q.used_on_host.items())) if q.hjob_limit is not None or q.pjob_limit is not None
                   else None,
                   tuple(sorted(q.used_by_user.items())) if users and q.ujob_limit is not None else None)
                  for n, q in inp.queues.items()),
            tuple(sorted(inp.array_started.items())))


def per_user(inp: dispatch.PassInput) -> bool:
    """Do the queues limit per-user counts (their key must hold them)?"""
    return any(q.ujob_limit is not None for q in inp.queues.values())


def run(passes, inp: dispatch.PassInput, touched: list, t: float) -> dispatch.PassResult | None:
    """A delta pass over *inp* (the started jobs counted, no pending job yet),
    the jobs changed since the last pass being *touched*: its result (the
    pending jobs it looked at in inp.jobs), or None when a full pass must decide."""
    last = passes.last_delta
    pre = passes.cl.preemption
    if last is None or pre.rules or (pre.maybe and pre.waiting()):
        return None
    cl = passes.cl
    cache = passes.cache
    kept, rows, jobs = cache.pending, cache.rows, cl.jobs
    order = passes.kept
    look: dict = dict.fromkeys(touched)
    for k in passes.early:
        job = jobs.get(k)
        if job is not None:
            look[job] = None
    look.update(dict.fromkeys(passes.waiting_on))
    look.update(dict.fromkeys(order.unkept))
    unkept = []
    later: list = []  # every job looked at: reasons in the end state unless reached in order
    extra: dict = {}  # looked-at jobs the order does not keep, that may start, by slot
    depends = passes.conditioned = []
    memo: dict = {}
    fair = order.fair
    states = _States(cl, t) if fair else None
    for job in look:
        row = rows.get(job)
        if row is None:
            row = passrows.build_row(cl, job, cache)
        if row.status != "PEND":
            continue
        pj = passes.pending_job(job, row, t, memo)
        if row.depend_json is not None:
            depends.append(pj.key)
        if pj.blocked is None and kept.get(job) is not pj:
            extra.setdefault(order.slot(pj), []).append(pj)
            unkept.append(job)
        if pj.queue in fair and not pj.first and states.state(pj.queue).tree.account_path(pj.user) is None:
            continue  # (no share account: never given out, the full pass gives it no reason either)
        later.append(pj)
    order.file(kept)  # (with the PendingJobs just made)
    queues = inp.queues
    slots = set(order.units) | set(extra)
    units: set[str] = set()
    for s in slots:
        units.add(s[0] if s.__class__ is tuple else s)
    if any(u not in queues for u in units):
        return None  # (a queue gone from the configuration: a full pass)
    def live(pj) -> bool:
        job = jobs.get(pj.key)
        return job is not None and kept.get(job) is pj

    def merged(s):
        mine = order.jobs(s, live)
        if s in extra:
            mine = heapq.merge(mine, sorted(extra[s], key=order_key), key=order_key)
        return mine

    ranks = dispatch.unit_ranks(queues)
    orders = []
    for unit in sorted(units, key=ranks.__getitem__):
        orders.append(merged(unit))  # (in a fairshare queue: its migrated and rerun jobs, first)
        if unit in fair:
            users = order.users.get(unit, set()) | {s[1] for s in extra if s.__class__ is tuple and s[0] == unit}
            orders.append(delta.FairWalk({u: merged((unit, u)) for u in users},
                                         lambda unit=unit: states.state(unit), passes.committed_h))
    passes.in_pass = True  # (the fairshare states count the started jobs of the held set)
    try:
        got = delta.delta_pass(inp, orders, later, LIMIT)
    finally:
        passes.in_pass = False
    if got is None:
        return None
    result, everything = got
    if not everything:
        now = key(inp, per_user(inp))
        # (the hosts' load and what they have left to reserve: read only by a job
        # with a requirement, and only on a host with free slots)
        if now[0] != last[0] or now[2:] != last[2:] or (now[1] != last[1] and order.requiring(live)
                                                        and not dispatch.all_full(inp.hosts)):
            return None
    inp.jobs.extend(later)
    order.unkept = unkept
    return result


class _States:
    """The fairshare states of the pass's instant, made when first asked
    (a pass whose hosts are full and whose changed jobs are in plain queues needs none)."""

    def __init__(self, cl, t: float):
        self.cl, self.t = cl, t
        self.live = None

    def state(self, queue: str):
        if self.live is None:
            self.live = self.cl.fairshare(self.t)
        passes = self.cl.passes
        was, passes.in_pass = passes.in_pass, True  # (a state counts the started jobs: the held set)
        try:
            return self.live.state(queue)
        finally:
            passes.in_pass = was


class EndState:
    """The state a pass ended with, for the next pass's quiet test
    (Passes.quiet_input: is the state the same?). Its key (*state_key* of
    the pass input) is made when first compared, and only when the slots in
    use on all hosts -- which the key holds -- are the same as now: a job's
    end or start changes them, so after most passes of the clock it is never
    made (issue 23, part 4: two keys of every host and queue per pass were
    a thirteenth of a simulated job's CPU). The usage of limits is taken at
    once (the pass's limit counts are the cluster's, counted anew by the next pass)."""

    __slots__ = ("inp", "used", "limits", "key", "state_key")

    def __init__(self, inp: dispatch.PassInput, state_key) -> None:
        self.inp = inp  # (its hosts and queues are the pass's own: the next pass makes new ones)
        self.used = _slots_used(inp)
        self.limits = inp.limits.state() if inp.limits is not None else None
        self.key = None
        self.state_key = state_key

    def same(self, inp: dispatch.PassInput) -> bool:
        if _slots_used(inp) != self.used:
            return False
        if self.key is None:
            self.key = self.state_key(self.inp)[:-1] + (self.limits,)
            self.inp = None
        return self.state_key(inp) == self.key


def _slots_used(inp: dispatch.PassInput) -> int:
    return sum(h.used for h in inp.hosts.values())
