"""Slot and resource reservation, and backfill, inside one pass (issue 19, part 4): pure.

LSF 10.1's greedy reservation ("Slot reservation", "Memory reservation",
"Backfill scheduling"):

* a queue with ``SLOT_RESERVE = MAX_RESERVE_TIME[n]`` lets a pending parallel
  job (more than one slot) that cannot start reserve the free slots it could
  use; ``RESOURCE_RESERVE = MAX_RESERVE_TIME[n]`` does so for parallel jobs
  and for jobs with an rusage[] (sequential ones too), and also holds the
  resources those slots would reserve (mem, swp, tmp, numeric resources).
  Reserved slots count as used on their host: no other job takes them (LSF:
  "By default, a reserved job slot cannot be used by another job");
* the reservation is renewed each pass (the job takes back what it holds,
  tries to start, and reserves again what is free for it) and is dropped
  once it has been held n x MBD_SLEEP_TIME; the job then reserves nothing for
  one pass ("so other pending jobs have a chance to be dispatched") and may
  reserve anew after it;
* its predicted start is the earliest instant at which running jobs' run
  limits free enough slots on the hosts it may use (jobs without a run limit
  do not count as ending; None when that never happens);
* a job of a ``BACKFILL = Y`` queue with a run limit may take reserved slots
  of a reservation whose predicted start it ends before (now + its run limit
  <= the predicted start); a job without a run limit never backfills.

`PassReserve` is the pass's view of it (`dispatch.schedule_pass` calls it for
the jobs of the queues concerned only: with no such queue the pass never
builds one). The engine (lsfemu.engine.reserve) keeps the `Hold`s between
passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from lsfemu.config.values import max_reserve_time
from lsfemu.sched import dispatch, placement

# The host reasons of a reservation that does not fit start so (placement.rsv_reason).
_RSV_PREFIX = placement.rsv_reason("\0").split("\0")[0]


@dataclass(frozen=True)
class Policy:
    """A queue's reservation and backfill settings."""

    cycles: int | None = None  # MAX_RESERVE_TIME[n] (None: the queue does not reserve)
    resources: bool = False  # RESOURCE_RESERVE (else SLOT_RESERVE)
    backfill: bool = False  # BACKFILL = Y


def policy_of(extra: dict[str, str]) -> Policy | None:
    """A queue's Policy from its lsb.queues keys (None: neither reservation nor backfill).
    RESOURCE_RESERVE wins over SLOT_RESERVE when both are set (LSF ignores SLOT_RESERVE then)."""
    res = max_reserve_time(extra.get("RESOURCE_RESERVE"))
    slot = max_reserve_time(extra.get("SLOT_RESERVE"))
    backfill = (extra.get("BACKFILL") or "").strip().upper() == "Y"
    if res is None and slot is None and not backfill:
        return None
    return Policy(res if res is not None else slot, res is not None, backfill)


@dataclass
class Hold:
    """One job's reservation: what it reserved and since when."""

    key: tuple[int, int]
    queue: str
    since: float  # when it first reserved (the MAX_RESERVE_TIME clock)
    need: int  # the job's slots
    hosts: dict[str, int] = field(default_factory=dict)  # slots it reserves per host
    amounts: dict[str, dict[str, float]] = field(default_factory=dict)  # RESOURCE_RESERVE: per host
    held: dict[str, int] = field(default_factory=dict)  # of those, counted as used in this pass
    predicted: float | None = None  # its predicted start (None: unknown)
    user: str = ""  # the job's user: reserved slots count against its user's limits

    @property
    def slots(self) -> int:
        return sum(self.hosts.values())


class PassReserve:
    """Reservations and backfill during one pass (see the module docstring).

    *policies*: queue -> Policy; *now*: the pass's instant; *holds*: the
    reservations kept from the last pass (job key -> Hold); *ends*: host ->
    [(end instant, slots)] of the started jobs with a run limit; *limit_of(job)*:
    a pending job's run limit in seconds (None: none); *cooldown*: jobs whose
    reservation just expired (they reserve nothing this pass)."""

    def __init__(self, policies: dict[str, Policy], now: float, holds: dict[tuple[int, int], Hold],
                 ends: dict[str, list[tuple[float, int]]], limit_of: Callable[[Any], float | None],
                 cooldown: set | None = None):
        self.policies = policies
        self.now = now
        self.holds = holds
        self.ends = ends
        self.limit_of = limit_of
        self.cooldown = cooldown or set()
        self.backfilled: list[tuple[Any, list[str], list[Hold]]] = []  # job, hosts, the holds it used
        self.inp = None  # the pass's dispatch.PassInput (apply): its queue and user counts hold reserved slots too

    def concerns(self, job) -> bool:
        """Does *job* need the reservation path (its queue reserves or backfills, or it holds slots)?"""
        return job.queue in self.policies or job.key in self.holds

    def consider(self, job, inp, reasons: dict) -> list[str] | None:
        """dispatch._try_start for a job of a queue that reserves or
        backfills: its own reservation given back, a start on the free slots,
        else on the slots of reservations it ends before (BACKFILL), else a
        reservation of what is free for it (SLOT_RESERVE / RESOURCE_RESERVE)
        when only the hosts refused it. (The pass's own steps, from
        sched.dispatch: this module is its reservation phase.)"""
        self.release(job, inp.hosts)
        alloc = dispatch._try_start(job, inp, reasons)
        if alloc is not None:
            return alloc
        why = reasons[job.key]
        alloc = self.backfill(job, inp.hosts, lambda: dispatch._try_start(job, inp, reasons))
        if alloc is not None:
            return alloc
        reasons[job.key] = why  # (the reasons of the start on free slots, not of the backfill try)
        if not (self.may_reserve(job) and all(r == placement.NO_SPAN or r.endswith((" host", " hosts"))
                                              for r in why)):
            self.forget(job)
            return None
        q = inp.queues[job.queue]
        req = job.req
        amounts = (lambda alloc: placement.reservation(req, 0, alloc, job.slots)) if req is not None else (lambda alloc: {})
        hold = self.reserve(job, inp.hosts, lambda name, upto: dispatch._room(job, dispatch._one_host(q, name), inp, upto),
                            amounts, q.hosts)
        if not hold.hosts and job.slots == 1 and self.policies[job.queue].resources and req is not None:
            # RESOURCE_RESERVE, a sequential job short of resources: what is
            # left of them on the first host of its queue that only they refuse
            for name in q.hosts:
                placed, host_why, _ = dispatch._allocate(job, dispatch._one_host(q, name), inp.hosts, inp.limits)
                if placed is None and host_why and all(r.startswith(_RSV_PREFIX) for r in host_why):
                    wanted = placement.reservation(req, 0, [name], 1).get(name, {})
                    if wanted:
                        self.accumulate(job, inp.hosts, name, wanted)
                    break
        return None

    def apply(self, inp) -> None:
        """At the pass's start (*inp*: its dispatch.PassInput): each kept
        reservation holds what is still free of what it reserved (a
        backfilled job may sit on a reserved slot)."""
        self.inp = inp
        for hold in self.holds.values():
            self._hold(hold, inp.hosts, hold.hosts)

    def release(self, job, hosts: dict) -> Hold | None:
        """The job's own reservation given back before it tries to start."""
        hold = self.holds.get(job.key)
        if hold is not None:
            self._unhold(hold, hosts)
        return hold

    def started(self, job, alloc: list[str]) -> None:
        """A job started: its reservation ends; its run limit frees its slots then."""
        self.holds.pop(job.key, None)
        limit = self.limit_of(job)
        if limit is not None:
            for h in set(alloc):
                self.ends.setdefault(h, []).append((self.now + limit, alloc.count(h)))

    def may_reserve(self, job) -> bool:
        pol = self.policies.get(job.queue)
        if pol is None or pol.cycles is None or job.key in self.cooldown:
            return False
        return job.slots > 1 or (pol.resources and job.req is not None and has_rusage(job.req))

    def reserve(self, job, hosts: dict, room: Callable[[str, int], int], amounts, usable: list[str]) -> Hold:
        """After a refusal: the job reserves, host by host in the queue's
        order, the free slots it could take there (*room(host, upto)*), up to
        its size; *amounts(alloc)* gives what they would reserve per host
        (RESOURCE_RESERVE). An existing hold keeps its `since`."""
        old = self.holds.get(job.key)
        hold = Hold(job.key, job.queue, old.since if old is not None else self.now, job.slots, user=job.user)
        need = job.slots
        for name in usable:
            if need <= 0:
                break
            n = room(name, need)
            if n > 0:
                hold.hosts[name] = n
                need -= n
        if not hold.hosts:  # nothing free for it: no reservation (its MAX_RESERVE_TIME clock starts at the first)
            self.holds.pop(job.key, None)
            return hold
        pol = self.policies[job.queue]
        if pol.resources:
            hold.amounts = amounts([h for h, n in hold.hosts.items() for _ in range(n)])
        self._hold(hold, hosts, hold.hosts)
        hold.predicted = predicted_start(job.slots, hold.slots, usable, self.ends, self.now)
        self.holds[job.key] = hold
        return hold

    def accumulate(self, job, hosts: dict, name: str, wanted: dict[str, float]) -> Hold:
        """RESOURCE_RESERVE for a job short of a resource on every host: one
        slot on host *name* (the first the resources alone refuse) and, of each
        amount it *wanted* there, what the host has left. It gives them back at
        its next turn and reserves again, the amounts freed meanwhile added: so
        it accumulates until it can start (LSF's memory reservation). Its
        predicted start is not computed (the run limits free slots, not memory,
        here): such a reservation lends nothing to backfill."""
        old = self.holds.get(job.key)
        hold = Hold(job.key, job.queue, old.since if old is not None else self.now, job.slots, hosts={name: 1},
                    user=job.user)
        avail = hosts[name].avail
        hold.amounts = {name: {res: max(0.0, min(amount, avail.get(res, 0.0))) for res, amount in wanted.items()}}
        self._hold(hold, hosts, hold.hosts)
        self.holds[job.key] = hold
        return hold

    def forget(self, job) -> None:
        """The job does not reserve this pass (its hold, if any, is gone)."""
        self.holds.pop(job.key, None)

    def backfill(self, job, hosts: dict, try_start: Callable[[], list[str] | None]) -> list[str] | None:
        """A job of a BACKFILL queue refused on the free slots: try again with
        the slots of the reservations it ends before; the reservations then
        hold again what is left free. Returns the allocation (None: no start)."""
        pol = self.policies.get(job.queue)
        if pol is None or not pol.backfill:
            return None
        limit = self.limit_of(job)
        if limit is None:
            return None  # LSF: a job without a run limit cannot be backfilled
        end = self.now + limit
        usable = [h for h in self.holds.values()
                  if h.key != job.key and h.predicted is not None and end <= h.predicted and h.held]
        if not usable:
            return None
        for hold in usable:
            self._unhold(hold, hosts)
        alloc = try_start()
        for hold in usable:
            self._hold(hold, hosts, hold.hosts)
        if alloc is not None:
            self.backfilled.append((job, alloc, usable))
        return alloc

    def _hold(self, hold: Hold, hosts: dict, wanted: dict[str, int]) -> None:
        held = {}
        for name, n in wanted.items():
            h = hosts.get(name)
            if h is None:
                continue
            if h.max_slots is not None:
                n = min(n, h.max_slots - h.used)
            if n > 0:
                held[name] = n
                h.used += n
                for res, amount in hold.amounts.get(name, {}).items():
                    if res in h.avail:
                        h.avail[res] -= amount * n / wanted[name]
                        h._view = None
                self._count(hold, name, n)
        hold.held = held

    def _unhold(self, hold: Hold, hosts: dict) -> None:
        for name, n in hold.held.items():
            h = hosts[name]
            h.used -= n
            for res, amount in hold.amounts.get(name, {}).items():
                if res in h.avail:
                    h.avail[res] += amount * n / hold.hosts[name]
                    h._view = None
            self._count(hold, name, -n)
        hold.held = {}

    def _count(self, hold: Hold, host: str, n: int) -> None:
        """Reserved slots count against the queue's and the user's slot limits
        too (LSF: "job slots that are reserved by pending jobs also count
        against all job slot limits"): *n* more (or fewer) of *hold*'s on *host*."""
        inp = self.inp
        if inp is None:
            return
        q = inp.queues.get(hold.queue)
        if q is not None:
            q.used += n
            q.used_by_user[hold.user] = q.used_by_user.get(hold.user, 0) + n
            q.used_on_host[host] = q.used_on_host.get(host, 0) + n
        inp.user_used[hold.user] = inp.user_used.get(hold.user, 0) + n


def has_rusage(req) -> bool:
    """Does the compiled requirement (sched.placement.Req) reserve anything (rusage[])?"""
    return any(term.rusage for terms in req.alternatives for term in terms)


def predicted_start(need: int, have: int, usable: list[str], ends: dict[str, list[tuple[float, int]]],
                    now: float) -> float | None:
    """The earliest instant at which the started jobs' run limits free the
    `need - have` slots a reserving job still lacks on its *usable* hosts
    (*now* when it lacks none; None when they never do)."""
    if have >= need:
        return now
    freed = sorted((end, n) for h in usable for end, n in ends.get(h, ()))
    for end, n in freed:
        have += n
        if have >= need:
            return max(end, now)
    return None
