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

Only for configurations whose order is fixed between passes and whose
reasons read no per-user count the pass input leaves out: no APS, no
fairshare, no JOB_PRIORITY_OVER_TIME, no MAX_JOBS in lsb.users, no
lsb.resources limits, no preemption, and what the quiet pass needs
(Passes.quiet_ok). Anything else is a full pass, as before.
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
        self.units: dict[str, list[tuple]] = {}
        self.fresh: list[dispatch.PendingJob] = []  # made since the last filing
        self.stale = True  # sort everything anew from the row cache at the next filing
        self.with_req: list[dispatch.PendingJob] = []  # filed jobs with a resource requirement (some dead)
        # pending jobs a pass looked at whose PendingJob the row cache does not
        # keep (not in the store yet): not in the order, so the next delta pass looks at them
        self.unkept: list = []

    def clear(self) -> None:
        self.units.clear()
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
        if self.stale:
            units: dict[str, list[tuple]] = {}
            self.with_req = [pj for pj in kept.values() if pj.req is not None]
            for pj in kept.values():
                units.setdefault(pj.queue, []).append(_entry(pj))
            for entries in units.values():
                entries.sort()
            self.units = units
            self.stale = False
        else:
            for pj in self.fresh:
                bisect.insort(self.units.setdefault(pj.queue, []), _entry(pj))
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

    def jobs(self, unit: str, live):
        """The live PendingJobs of *unit*, in order; dead entries are dropped on the way."""
        entries = self.units.get(unit)
        i = 0
        while entries is not None and i < len(entries):
            pj = entries[i][-1]
            if live(pj):
                yield pj
                i += 1
            else:
                del entries[i]  # (a pointer move per later entry: cheap beside a full pass)


def possible(passes) -> bool:
    """Whether the configuration allows a delta pass (see the module docstring)."""
    cl = passes.cl
    cfg = cl.config
    return (passes.quiet_ok and not cl.aps_cfg and not cfg.user_limits and passes.limits is None
            and not escalates(cfg.params.job_priority_over_time)
            and all(cl.accounts.by_queue.get(q.name) is None for q in cfg.queues))


def key(inp: dispatch.PassInput, users: bool) -> tuple:
    """What the reasons of a job the pass does not look at depend on, besides
    the job: the hosts (slots, status), their load and what they have left
    to reserve (second: read only by jobs with a requirement), the queues'
    counts, the array elements started, and the per-user counts when *users*
    (a queue limits them: UJOB_LIMIT)."""
    return (tuple((n, h.used, h.open, h.accepting, h.failed, h.max_slots, h.exclusive, h.busy)
                  for n, h in inp.hosts.items()),
            tuple((tuple(h.avail.items()), tuple(h.load.items())) for h in inp.hosts.values()),
            tuple((n, q.used, q.active, q.qjob_limit, q.ujob_limit, q.hjob_limit, q.pjob_limit,
                   tuple(sorted(q.used_on_host.items())), tuple(sorted(q.used_by_user.items())) if users else None)
                  for n, q in inp.queues.items()),
            tuple(sorted(inp.array_started.items())), tuple(sorted(inp.user_used.items())) if users else None)


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
    extra: dict[str, list] = {}  # looked-at jobs the order does not keep, that may start
    depends = passes.conditioned = []
    memo: dict = {}
    for job in look:
        row = rows.get(job)
        if row is None:
            row = passrows.build_row(cl, job, cache)
        if row.status != "PEND":
            continue
        pj = passes.pending_job(job, row, t, memo)
        if row.depend_json is not None:
            depends.append(pj.key)
        later.append(pj)
        if pj.blocked is None and kept.get(job) is not pj:
            extra.setdefault(pj.queue, []).append(pj)
            unkept.append(job)
    order.file(kept)  # (with the PendingJobs just made)
    queues = inp.queues
    units = set(order.units) | set(extra)
    if any(u not in queues for u in units):
        return None  # (a queue gone from the configuration: a full pass)
    def live(pj) -> bool:
        job = jobs.get(pj.key)
        return job is not None and kept.get(job) is pj

    ranks = dispatch.unit_ranks(queues)
    orders = []
    for unit in sorted(units, key=ranks.__getitem__):
        mine = order.jobs(unit, live)
        if unit in extra:
            mine = heapq.merge(mine, sorted(extra[unit], key=order_key), key=order_key)
        orders.append(mine)
    got = delta.delta_pass(inp, orders, later, LIMIT)
    if got is None:
        return None
    result, everything = got
    if not everything:
        now = key(inp, per_user(inp))
        if now[0] != last[0] or now[2:] != last[2:] or (now[1] != last[1] and order.requiring(live)):
            return None
    inp.jobs.extend(later)
    order.unkept = unkept
    return result


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
