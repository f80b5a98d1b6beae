"""One scheduling pass, as pure functions over plain data.

`schedule_pass` takes the pending jobs, the queues, the hosts' free slots and
the limits, and returns which jobs start where and why the others wait. No
database, no clock, no printing: the daemon gathers the data and applies the
result.

Order of consideration: scheduling units by PRIORITY (highest first, equal
priorities in lsb.queues order); a unit is a queue, or an APS queue with its
QUEUE_GROUP. Inside a unit the order comes from an `Order` object: the
default is job priority (highest first) then first come first served
(`position`); fairshare and APS supply their own (lsfemu.sched.fairshare,
lsfemu.sched.aps), and are told of each start so that a user's priority
drops before the next job is chosen.

Pending-reason texts are LSF's (lsb_pendreason); host-based reasons carry a
host count (` Job slot limit reached: 3 hosts`).
"""

from __future__ import annotations

import dataclasses

from lsfemu.sched import hostfile, placement, shapes
# the pass's data, defined beside it; its callers import them from here too
from lsfemu.sched.passdata import HostInfo, PassInput, PassResult, PendingJob, QueueInfo  # noqa: F401

# LSF's pending reason texts (the non-host ones are printed with a trailing ';').
NEW_JOB = "New job is waiting for scheduling"
QUEUE_INACTIVE = "The queue is inactivated by the administrator"
QUEUE_JOB_LIMIT = "The queue has reached its job slot limit"
QUEUE_PJOB_LIMIT = "The queue has not enough job slots for the parallel job"
QUEUE_USER_LIMIT = "User has reached the per-user job slot limit of the queue"
QUEUE_USER_PLIMIT = "Not enough per-user job slots of the queue for the parallel job"
USER_JOB_LIMIT = "The user has reached his/her job slot limit"
USER_PJOB_LIMIT = "The user has not enough job slots for the parallel job"
USER_STOP = "The job was suspended by the user while pending"
ADMIN_STOP = "The job was suspended by LSF admin or root while pending"
# Host-based reasons.
HOST_CLOSED = "Closed by LSF administrator"
#: a host whose load passes its lsb.hosts loadSched (closed_Busy): OpenLava's lsb.reason.c
#: PEND_HOST_LOAD texts, per load index
LOAD_REASONS = {
    "r15s": "The 15s effective CPU queue length (r15s) is beyond threshold",
    "r1m": "The 1 min effective CPU queue length (r1m) is beyond threshold",
    "r15m": "The 15 min effective CPU queue length (r15m) is beyond threshold",
    "ut": "The CPU utilization (ut) is beyond threshold",
    "pg": "The paging rate (pg) is beyond threshold",
    "io": "The disk IO rate (io) is beyond threshold",
    "ls": "There are too many login users (ls)",
    "it": "The idle time (it) is not long enough",
    "tmp": "The available /tmp space (tmp) is low",
    "swp": "The available swap space (swp) is low",
    "mem": "The available memory (mem) is low",
}
HOST_JOB_LIMIT = "Job slot limit reached"
HOST_LESS_SLOTS = placement.LESS_SLOTS
QUEUE_HOST_LIMIT = "Queue's per-host job slot limit reached"
QUEUE_PROC_LIMIT = "Queue's per-CPU job slot limit reached"
NOT_USABLE = "Not usable to the queue"
NOT_SPECIFIED = "Not specified in job submission"  # bsub -m: a host the job did not name
HOST_EXCLUSIVE = "Running an exclusive job"  # bsub -x: a host an exclusive job holds
EXCL_NOT_SATISFIED = "Job's requirement for exclusive execution not satisfied"  # -x: the host has jobs
JUST_STARTED = "Just started a job recently"
HOST_UNREACH = "Unable to reach slave batch server"
NO_SPAN = placement.NO_SPAN
RES_REQ = placement.RES_REQ  # select[] fails on the host (PEND_HOST_RES_REQ)
# Job-level reasons decided before the pass (dependencies, lsfemu.sched.depend)
# or in it (the %N limit of a job array).
DEPEND = "Job dependency condition not satisfied"
START_TIME = "The job has a specified start time"  # bsub -b, before that time
DEPEND_NEVER = "Dependency condition invalid or never satisfied"
ARRAY_LIMIT = "The job array has reached its running element limit"
JGRP_LIMIT = "The specified job group has reached its job limit"  # PEND_JGRP_JLIMIT (lsbatch.h)


def fcfs_key(j: PendingJob) -> tuple:
    """Inside a queue: job priority (highest first), then first come first served."""
    return (-j.priority, j.position, j.job_id, j.array_index)


class StaticOrder:
    """The default order of a unit: fcfs_key, fixed for the pass.

    A heap, not a sorted list: a pass usually takes a few jobs off the top
    before every host is full and then needs only :meth:`rest` (heapify is
    linear; sorting a big queue every pass was most of a plain queue's pass).
    Entries are ``fcfs_key(job) + (job,)``: the job rides along, never
    compared (job ID and index differ between jobs). The heap can leave out
    the shapes the hosts refused (:meth:`skip`, lsfemu.sched.shapes)."""

    def __init__(self, jobs: list[PendingJob]):
        self.jobs = jobs  # as given (not to be changed by the caller meanwhile)
        self._heap = shapes.ShapeHeap([(-j.priority, j.position, j.job_id, j.array_index, j) for j in jobs])

    def __iter__(self):
        for entry in self._heap:
            yield entry[-1]

    def started(self, job: PendingJob) -> None:
        """Told of each start; a static order does not change."""

    def skip(self, shape: tuple) -> None:
        """Give out no more jobs of *shape* (lsfemu.sched.shapes); they stay in rest()."""
        self._heap.skip(shape)

    def rest(self) -> list[PendingJob]:
        """The jobs not given out yet (in no particular order). An Order may
        offer it: once no job can start any more the pass needs only the
        reasons of the rest, not their order."""
        return [e[-1] for e in self._heap.left()]


def units(jobs: list[PendingJob], queues: dict[str, QueueInfo], unit_of: dict[str, str] | None = None) -> list[tuple[str, list[PendingJob]]]:
    """Group pending jobs into scheduling units, in the order units are served.

    `unit_of` maps a queue to its unit's name (an APS queue group). A unit is
    served at the priority of its highest-priority queue in the
    configuration, whether or not that queue has pending jobs.
    """
    unit_of = unit_of or {}
    rank = unit_ranks(queues, unit_of)
    present = {unit_of.get(q, q) for q in {j.queue for j in jobs}}
    if len(present) == 1:  # one unit (a big queue, or an APS queue group): the list as it is
        return [(present.pop(), jobs)]
    grouped: dict[str, list[PendingJob]] = {}
    for j in jobs:
        grouped.setdefault(unit_of.get(j.queue, j.queue), []).append(j)
    return sorted(grouped.items(), key=lambda kv: rank.get(kv[0], (0, 0)))


def unit_ranks(queues: dict[str, QueueInfo], unit_of: dict[str, str] | None = None) -> dict[str, tuple]:
    """Each unit's place in the order units are served (smallest first): its
    highest-priority queue's (-PRIORITY, place in lsb.queues)."""
    unit_of = unit_of or {}
    rank: dict[str, tuple] = {}
    for q in queues.values():
        u = unit_of.get(q.name, q.name)
        r = (-q.priority, q.order)
        rank[u] = min(rank.get(u, r), r)
    return rank


def order_jobs(jobs: list[PendingJob], queues: dict[str, QueueInfo]) -> list[PendingJob]:
    """The default order in which jobs are considered (no fairshare, no APS)."""
    return [j for _, group in units(jobs, queues) for j in StaticOrder(group)]


def _host_reason(counts: dict[str, int]) -> list[str]:
    out = []
    for reason, n in counts.items():
        out.append(f"{reason}: {n} host{'s' if n != 1 else ''}")
    return out


def schedule_pass(inp: PassInput, unit_of: dict[str, str] | None = None, order_for=None,
                  yields_all=None) -> PassResult:
    """Start what fits, in order; the state in `inp` is updated as jobs start.

    `order_for(unit_name, jobs)` returns the unit's Order (default StaticOrder).
    `yields_all(unit_name)` says that the unit's Order gives out every job
    (a fairshare order does not: users without a share account never run);
    when every host is full such a unit's jobs get their reasons without
    their Order being made at all.
    """
    started: list[tuple[PendingJob, list[str]]] = []
    reasons: dict[tuple[int, int], list[str]] = {}
    # Whether a job fits depends on the job only through (queue, user, slots)
    # unless it is blocked or an array element under a %N limit, and the state
    # changes only when a job starts: a refusal is remembered per (queue, user,
    # slots) until the next start. Most jobs of a big queue wait behind full
    # hosts; they get the same reasons (the same list) without a host scan.
    refused: dict[str, list[str]] = {}  # PendingJob.fit -> reasons
    # The hosts' answer depends on the job only through (queue, slots): kept
    # likewise until the next start (a big queue has many users, few sizes).
    no_room: dict[tuple[str, int], list[str]] = {}
    early = [0]
    res = inp.reserve
    if res is not None:
        res.apply(inp)  # the reservations kept from the last pass hold their slots
    kinds: list = []  # [the shapes of the jobs that may start], made when first needed

    def stuck() -> bool:
        """Every shape a job may start with (lsfemu.sched.shapes) has been
        refused by the hosts since the last start, so no job can start:
        hosts may have free slots but not what the jobs ask (memory, span,
        select). Never for a pass with -m or host-limited jobs (their answer
        is not kept per shape)."""
        if not kinds:
            kinds.append(shapes.kinds(inp.jobs))
        s = kinds[0]
        return s is not None and len(no_room) >= len(s) and all(k in no_room for k in s)

    def consider(job: PendingJob) -> bool:
        """Try to start the job (True: it started)."""
        plain = job.blocked is None and job.array_limit is None and job.groups is None and job.place is None
        if res is not None and res.concerns(job):
            # Reservation and backfill (sched.reserve): the job's own hold is
            # given back, and a reservation it makes changes the hosts as a
            # start does: the refusals remembered so far no longer hold.
            alloc = res.consider(job, inp, reasons)
            refused.clear()
            no_room.clear()
            if alloc is not None:
                started.append((job, alloc))
                res.started(job, alloc)
                early[0] = len(reasons)
                return True
            early[0] = len(reasons)
            return False
        if plain:
            why = refused.get(job.fit)
            if why is not None:
                reasons[job.key] = why
                return False
        alloc = _try_start(job, inp, reasons, no_room)
        if alloc is not None:
            started.append((job, alloc))
            refused.clear()
            no_room.clear()
            early[0] = len(reasons)
            if res is not None:
                res.started(job, alloc)  # its run limit may free slots a reserving job waits for
            return True
        if plain:
            refused[job.fit] = reasons[job.key]
        return False

    def refuse(jobs, order) -> None:
        """consider() each of *jobs* once every host is full: most are plain
        and get the reasons remembered for their (queue, user, slots), looked
        up here without a call (the bulk of a big pass)."""
        get = refused.get
        for job in jobs:
            if job.blocked is None and job.array_limit is None and job.groups is None and job.place is None:
                why = get(job.fit)
                if why is not None:
                    reasons[job.key] = why
                    continue
            if consider(job):  # cannot happen (every host is full); kept consistent anyway
                order.started(job)

    # Once every host is full no job can start: the remaining jobs need their
    # reasons only, not their order (an Order with rest() skips the ordering;
    # the reasons do not depend on it, the state no longer changing).
    # (With reservations the hosts look full while a reserving job's own
    # slots wait for it, and a backfill job may use reserved slots: no shortcut.)
    full = all_full(inp.hosts) and res is None
    # A shape the hosts refused stays refused for the rest of the pass when its
    # requirement is monotone: an Order with skip() then gives out no more of
    # its jobs; they get their reasons at the end of the pass, from the state
    # it ends with (lsfemu.sched.shapes). Not with reservations (they give slots back).
    lasting = shapes.Lasting(inp.hosts)
    deferred: list = []  # Orders that left out jobs of refused shapes, with them in their rest()
    for unit, group in units(inp.jobs, inp.queues, unit_of):
        # Migrated and rerun jobs go before the unit's pending jobs (LSF: "always
        # scheduled before pending jobs"), among themselves in the default order.
        first = StaticOrder([j for j in group if j.first])
        rest = [j for j in group if not j.first] if first.jobs else group
        if full and (order_for is None or (yields_all is not None and yields_all(unit))):
            refuse(first.jobs + rest, first)  # cannot start: every host is full
            continue
        order = order_for(unit, rest) if order_for else StaticOrder(rest)
        refused_shapes: set = set()  # of this unit (a shape names its queue)
        for o in (first, order):
            if full and hasattr(o, "rest"):
                refuse(o.rest(), order)
                continue
            skips = res is None and hasattr(o, "skip") and hasattr(o, "rest")
            if skips:
                for shape in refused_shapes:  # (refused while the unit's first jobs were tried)
                    o.skip(shape)
            seen = len(no_room)
            for job in o:
                if consider(job):
                    order.started(job)
                    seen = 0
                    if hasattr(o, "rest") and res is None and all_full(inp.hosts):
                        full = True
                        break
                elif len(no_room) > seen:  # a new shape refused: maybe none can start any more
                    seen = len(no_room)
                    if hasattr(o, "rest") and res is None and stuck():
                        full = True
                        break
                    if skips:
                        shape = lasting.shape(job)
                        if shape is not None and shape not in refused_shapes:
                            refused_shapes.add(shape)
                            o.skip(shape)
            if full and hasattr(o, "rest"):
                refuse(o.rest(), order)
            elif skips and refused_shapes:
                deferred.append(o)
    for o in deferred:  # the jobs of refused shapes: their reasons in the state the pass ends with
        refuse(o.rest(), o)
    return PassResult(started, reasons, early[0], res is None and (full or all_full(inp.hosts) or stuck()))


def all_full(hosts: dict[str, HostInfo]) -> bool:
    """No host can take a job any more (so no job can start this pass)."""
    for h in hosts.values():
        if not (h.failed or not h.open or h.busy is not None or not h.accepting or h.exclusive
                or (h.max_slots is not None and h.used >= h.max_slots)):
            return False
    return True


def _try_start(job: PendingJob, inp: PassInput, reasons: dict,
               no_room: dict[tuple[str, int], list[str]] | None = None) -> list[str] | None:
    """Start `job` if it fits (updating the state), else record why not.
    *no_room* keeps the hosts' refusals per (queue, slots) while the state
    does not change (the caller empties it when a job starts)."""
    key = job.key
    if job.blocked:
        reasons[key] = [job.blocked]
        return None
    if job.array_limit is not None and inp.array_started.get(job.job_id, 0) >= job.array_limit:
        reasons[key] = [ARRAY_LIMIT]
        return None
    if job.groups is not None:
        started = inp.group_started
        for g, limit in zip(job.groups, map(inp.group_limits.get, job.groups)):
            if limit is not None and started.get(g, 0) >= limit:
                reasons[key] = [JGRP_LIMIT]
                return None
    q = inp.queues.get(job.queue)
    if q is None or not q.active:
        reasons[key] = [QUEUE_INACTIVE]
        return None
    n = job.slots
    if q.qjob_limit is not None and q.used + n > q.qjob_limit:
        reasons[key] = [QUEUE_JOB_LIMIT if q.used >= q.qjob_limit else QUEUE_PJOB_LIMIT]
        return None
    if q.ujob_limit is not None:
        u = q.used_by_user.get(job.user, 0)
        if u + n > q.ujob_limit:
            reasons[key] = [QUEUE_USER_LIMIT if u >= q.ujob_limit else QUEUE_USER_PLIMIT]
            return None
    limit = inp.user_limits.get(job.user)
    if limit is not None:
        u = inp.user_used.get(job.user, 0)
        if u + n > limit:
            reasons[key] = [USER_JOB_LIMIT if u >= limit else USER_PJOB_LIMIT]
            return None
    if job.limits is not None:  # lsb.resources limits without a host dimension
        why = inp.limits.blocked(job.limits)
        if why is not None:
            reasons[key] = [why]
            return None
    room_key = (job.queue, n, job.req.key if job.req is not None else None)
    roomy = job.place is None and (job.limits is None or not job.limits.by_host)  # host answers per room_key
    if no_room is not None and roomy:
        why = no_room.get(room_key)
        if why is not None:
            reasons[key] = why
            return None
    alloc, host_reasons, alternative = _allocate(job, q, inp.hosts, inp.limits)
    if alloc is None:
        why = reasons[key] = _host_reason(host_reasons) or [NO_SPAN]
        if no_room is not None and roomy:
            no_room[room_key] = why
        return None
    if job.req is not None:
        job.alternative = alternative
        for h, amounts in placement.reservation(job.req, alternative, alloc, n).items():
            hi = inp.hosts[h]
            for name, amount in amounts.items():
                if name in hi.avail:
                    hi.avail[name] -= amount
            hi._view = None
    if job.place is not None and job.place.exclusive:
        for h in set(alloc):
            inp.hosts[h].exclusive = True
    for h in alloc:
        inp.hosts[h].used += 1
        q.used_on_host[h] = q.used_on_host.get(h, 0) + 1
        if inp.hosts[h].accept_once:
            inp.hosts[h].accepting = False
    q.used += n
    q.used_by_user[job.user] = q.used_by_user.get(job.user, 0) + n
    inp.user_used[job.user] = inp.user_used.get(job.user, 0) + n
    if job.groups is not None:
        for g in job.groups:
            inp.group_started[g] = inp.group_started.get(g, 0) + 1
    if job.array_index:
        inp.array_started[job.job_id] = inp.array_started.get(job.job_id, 0) + 1
    if job.limits is not None:
        inp.limits.hold(job.limits, alloc)
    return alloc


def _allocate(job: PendingJob, q: QueueInfo, hosts: dict[str, HostInfo],
              limits=None) -> tuple[list[str] | None, dict[str, int], int]:
    """Take free slots host by host (cluster order, or as the job's
    requirement says: sched.placement) until the job has enough.

    Returns the allocation (one host per slot), the count of hosts per reason
    that could not contribute, and the requirement's alternative used (-1:
    not placed, 0 without a requirement).
    """
    free_by_host: list[tuple[str, int]] = []
    why: dict[str, int] = {}

    def note(reason: str) -> None:
        why[reason] = why.get(reason, 0) + 1

    place = job.place
    names = q.hosts
    exclusive = False
    want = None
    if place is not None:
        exclusive = place.exclusive
        if place.listed is not None:  # bsub -hostfile: its hosts only, each with its slots
            want = hostfile.needs(list(place.listed))
            usable = set(q.hosts)
            names = [n for n in want if n in usable]
            for _ in range(len(usable) - len(names)):
                note(NOT_SPECIFIED)
            for _ in range(len(want) - len(names)):
                note(NOT_USABLE)
        elif place.hosts is not None:  # bsub -m: the hosts it named, best first; the queue's others refuse
            usable = set(q.hosts)
            names = [n for n in place.hosts if n in usable]
            for _ in range(len(usable) - len(names)):
                note(NOT_SPECIFIED)
    for name in names:
        h = hosts.get(name)
        if h is None:
            note(NOT_USABLE)
            continue
        if h.exclusive:
            note(HOST_EXCLUSIVE)
            continue
        if exclusive and h.used > 0:
            note(EXCL_NOT_SATISFIED)
            continue
        if h.failed:
            note(HOST_UNREACH)
            continue
        if not h.open:
            note(HOST_CLOSED)
            continue
        if h.busy is not None:
            note(LOAD_REASONS[h.busy])
            continue
        if not h.accepting:
            note(JUST_STARTED)
            continue
        free = None if h.max_slots is None else h.max_slots - h.used
        if q.hjob_limit is not None:
            qfree = q.hjob_limit - q.used_on_host.get(name, 0)
            if qfree <= 0:
                note(QUEUE_HOST_LIMIT)
                continue
            free = qfree if free is None else min(free, qfree)
        if q.pjob_limit is not None:
            pfree = q.pjob_limit * h.ncpus - q.used_on_host.get(name, 0)
            if pfree <= 0:
                note(QUEUE_PROC_LIMIT)
                continue
            free = pfree if free is None else min(free, pfree)
        if free is not None and free <= 0:
            note(HOST_JOB_LIMIT)
            continue
        free_by_host.append((name, job.slots if free is None else free))
    if job.limits is not None and job.limits.by_host:  # lsb.resources HOSTS / PER_HOST limits
        free_by_host = limits.cap(job.limits, free_by_host, note)
    if want is not None:
        alloc_l, short = hostfile.fit(place.listed, want, dict(free_by_host))
        for _ in short:
            note(HOST_LESS_SLOTS)
        return alloc_l, why, (-1 if alloc_l is None else 0)
    need = job.slots
    if job.req is not None:
        cands = [placement.Cand(name, free, hosts[name].view(), hosts[name].avail, hosts[name].ncpus)
                 for name, free in free_by_host]
        alloc_r, alternative, req_why = placement.fit(job.req, need, cands)
        if alloc_r is not None:
            return alloc_r, why, alternative
        for reason, count in req_why.items():
            why[reason] = why.get(reason, 0) + count
        return None, why, -1
    alloc: list[str] = []
    for name, free in free_by_host:
        take = min(free, need - len(alloc))
        alloc.extend([name] * take)
        if len(alloc) == need:
            return alloc, why, 0
    if free_by_host:
        # Some hosts had room, but not enough in all for this job.
        for name, _ in free_by_host:
            note(HOST_LESS_SLOTS)
    return None, why, -1


def host_by_host(job: PendingJob, inp: PassInput) -> list[tuple[str, list[str], int]]:
    """Each host of the job's queue as the pass judges it for *job* alone, for
    `lsfemu explain pending`: (host, the LSF reasons it gives -- none when the
    job could take slots there -- and the slots it could take). The same
    checks as a pass (`_allocate`), one host at a time, nothing changed."""
    q = inp.queues.get(job.queue)
    if q is None:
        return []
    out = []
    for name in q.hosts:
        one = _one_host(q, name)
        if job.place is not None and job.place.listed is not None:  # a host file: its slots on this host alone
            n = hostfile.needs(list(job.place.listed)).get(name)
            if n is None:
                out.append((name, [NOT_SPECIFIED], 0))
                continue
            alloc, why, _ = _allocate(_trial(job, name, n), one, inp.hosts, inp.limits)
            out.append((name, [], n) if alloc is not None else (name, list(why), _room(job, one, inp, n - 1)))
            continue
        alloc, why, _ = _allocate(job, one, inp.hosts, inp.limits)  # (it changes nothing)
        if alloc is not None:
            out.append((name, [], len(alloc)))
            continue
        room = 0
        if not why or set(why) <= {HOST_LESS_SLOTS, NO_SPAN}:
            room = _room(job, one, inp)
        out.append((name, list(why) or [HOST_LESS_SLOTS], room))
    return out


def _one_host(q: QueueInfo, name: str) -> QueueInfo:
    """Queue *q* as if host *name* were its only host (its per-host counts shared)."""
    return QueueInfo(name=q.name, priority=q.priority, order=q.order, active=q.active, hosts=[name],
                     hjob_limit=q.hjob_limit, pjob_limit=q.pjob_limit, used_on_host=q.used_on_host)


def _trial(job: PendingJob, name: str, n: int) -> PendingJob:
    """*job* asking *n* slots (on host *name* alone, for a host file: its lines cut to that host)."""
    trial = PendingJob(job.job_id, job.array_index, job.user, job.queue, n, job.priority, job.position)
    trial.place, trial.req, trial.limits = job.place, job.req, job.limits
    if job.place is not None and job.place.listed is not None:
        trial.place = dataclasses.replace(job.place, listed=((name, n),))
    return trial


def _room(job: PendingJob, q: QueueInfo, inp: PassInput, upto: int | None = None) -> int:
    """The most slots (at most *upto*, default one less than the job's) a
    one-host queue *q* could give *job* (a smaller job of the same kind; a
    host file's job: at most the slots its file asks there)."""
    if job.place is not None and job.place.listed is not None:
        asked = hostfile.needs(list(job.place.listed)).get(q.hosts[0], 0)
        upto = asked if upto is None else min(upto, asked)
    for n in range(job.slots - 1 if upto is None else upto, 0, -1):
        trial = _trial(job, q.hosts[0], n)
        alloc, _, _ = _allocate(trial, q, inp.hosts, inp.limits)
        if alloc is not None:
            return n
    return 0
