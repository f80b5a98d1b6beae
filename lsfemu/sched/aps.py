"""Absolute Priority Scheduling (APS): a job's value and the order, as pure functions.

The configuration (APS_PRIORITY, :class:`lsfemu.config.aps.ApsConfig`) is
parsed by lsfemu.config.aps. Value of a job (:func:`aps_value`)::

    APS = Σ_top  limit_top( W_top × Σ_sub limit_sub( w_sub × value_sub ) )   (RSRC, WORK)
        + limit_FS( W_FS × fs_priority )
        + ADMIN

``limit_x(v)`` clamps v to [-LIMIT_x, +LIMIT_x] (the limit bounds the absolute
value of the *weighted* factor). A factor or subfactor in its grace period
(the job has pended less than the grace period) contributes 0; it counts from
the moment the pending time reaches the grace period. Undefined weights are 0
(the factor is ignored). FS is ignored (contributes 0) for jobs whose queue has
no FAIRSHARE (``fs_priority`` None). A system value (bmod -aps "system=V")
replaces the calculation: the job ranks above every calculated value.

Where the values come from (the caller gathers them, see :class:`ApsJobInput`):
PROC - :func:`proc_value` (``-n``, else the queue's PROCLIMIT); MEM/SWAP -
:func:`lsfemu.sched.resreq.rusage_amounts` with RESOURCE_RESERVE_PER_SLOT;
JPRIORITY - the escalated job priority (:mod:`lsfemu.sched.priority`);
QPRIORITY - the PRIORITY of the job's own queue; FS - the user's dynamic
priority in the queue's fairshare tree.

Order (:func:`order`, used by ``bjobs -aps`` and dispatch): queues by PRIORITY
(highest first, equal priorities in lsb.queues order); an APS queue and the
queues of its QUEUE_GROUP form one block that sits at the highest PRIORITY
among its queues (normally the APS queue's own; fixed by the configuration,
not by which queues have pending jobs). Inside a block: system values (high to
low), then calculated values (high to low); equal values by FCFS position
(submission order unless btop/bbot moved the job). Outside APS blocks: job
priority, then FCFS. This is the rule that reproduces the seed's listing: the
``priority`` queue (PRIORITY above the ``normal`` APS queue's 30) lists first,
the ``Idle`` queue (below 30) last, and the ``Short`` queue's jobs (PRIORITY
20, in normal's QUEUE_GROUP) mix with ``normal``'s by APS value. (The seed's
sentence "finally, jobs not in an APS queue are listed" holds inside one
priority level only; its own example lists the ``priority`` queue's job first.)
"""

from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from lsfemu.config.aps import SUBFACTORS, TOP_FACTORS, ApsConfig, ApsSyntaxError, aps_groups

# -- job values ---------------------------------------------------------------


def proc_value(n_min: int | None, n_max: int | None = None, proclimit: str | None = None) -> int:
    """PROC: the max of ``-n min,max``, the ``-n min``, else the processors
    PROCLIMIT gives a job without -n (``min default max`` -> default,
    ``min max`` -> min, ``max`` -> 1), else 1."""
    if n_min is not None or n_max is not None:
        return max(n for n in (n_min, n_max) if n is not None)
    if proclimit:
        parts = proclimit.split()
        try:
            nums = [int(p) for p in parts]
        except ValueError:
            return 1
        if len(nums) == 3:
            return nums[1]
        if len(nums) == 2:
            return nums[0]
    return 1


@dataclass(frozen=True)
class ApsJobInput:
    """What APS needs of one pending job (gathered by the caller)."""

    pend_seconds: float  # since submission (or requeue): for grace periods
    proc: float = 1
    mem_mb: float = 0.0
    swap_mb: float = 0.0
    job_priority: float = 0  # already escalated
    queue_priority: float = 0  # PRIORITY of the job's own queue
    fs_priority: float | None = None  # None: the queue has no FAIRSHARE -> FS ignored
    admin_value: float | None = None
    system_value: float | None = None


@dataclass(frozen=True)
class ApsTerm:
    """One factor's share. ``raw`` is the job's value (for RSRC/WORK the sum of
    the subfactors' contributions), ``weighted`` = weight × raw, ``limited``
    after the limit, ``contributes`` what is added to the parent (or the total):
    0 in the grace period or when ignored."""

    factor: str
    parent: str | None
    raw: float | None
    weight: float | None
    weighted: float
    limit: float | None
    limited: float
    grace: int | None  # seconds
    in_grace: bool
    contributes: float
    note: str = ""


@dataclass(frozen=True)
class ApsResult:
    value: float | None  # the APS value; None when a system value replaces it
    system: float | None
    calculated: float  # the calculated value (also when a system value is set)
    pend_seconds: float = 0.0
    terms: tuple[ApsTerm, ...] = ()


def _clamp(value: float, limit: float | None) -> float:
    if limit is None:
        return value
    return max(-limit, min(limit, value))


def _mul(a: float, b: float) -> float:
    """a × b without inf/nan from huge inputs (saturates at ±1e308)."""
    v = a * b
    if math.isnan(v):
        return 0.0
    if math.isinf(v):
        return math.copysign(1e308, v)
    return v


def aps_value(cfg: ApsConfig, job: ApsJobInput) -> ApsResult:
    """The job's APS value and every factor that went into it (see module doc)."""
    raw_sub = {
        "PROC": float(job.proc), "MEM": float(job.mem_mb), "SWAP": float(job.swap_mb),
        "JPRIORITY": float(job.job_priority), "QPRIORITY": float(job.queue_priority),
    }
    terms: list[ApsTerm] = []
    total = 0.0

    def in_grace(factor: str) -> bool:
        g = cfg.grace.get(factor)
        return g is not None and job.pend_seconds < g

    for top in TOP_FACTORS:
        w_top = cfg.weight(top)
        if w_top is None:
            continue
        if top == "FS":
            raw: float | None = job.fs_priority
            note = "" if raw is not None else "the queue has no FAIRSHARE: ignored"
            sub_terms: list[ApsTerm] = []
        else:
            sub_terms = []
            raw = 0.0
            note = ""
            for sub in SUBFACTORS[top]:
                w = cfg.weight(sub)
                if w is None:
                    continue
                weighted = _mul(w, raw_sub[sub])
                limited = _clamp(weighted, cfg.limits.get(sub))
                g = in_grace(sub)
                contributes = 0.0 if g else limited
                sub_terms.append(ApsTerm(sub, top, raw_sub[sub], w, weighted, cfg.limits.get(sub), limited,
                                         cfg.grace.get(sub), g, contributes))
                raw += contributes
            if math.isinf(raw):
                raw = math.copysign(1e308, raw)
        if top in cfg.implied:
            note = "weight 1 implied by a weighted subfactor"
        weighted = _mul(w_top, raw) if raw is not None else 0.0
        limited = _clamp(weighted, cfg.limits.get(top))
        g = in_grace(top)
        contributes = 0.0 if (g or raw is None) else limited
        terms.append(ApsTerm(top, None, raw, w_top, weighted, cfg.limits.get(top), limited,
                             cfg.grace.get(top), g, contributes, note))
        terms.extend(sub_terms)
        total += contributes
    if job.admin_value is not None:
        a = float(job.admin_value)
        terms.append(ApsTerm("ADMIN", None, a, None, a, None, a, None, False, a, 'set by bmod -aps "admin=..."'))
        total += a
    if math.isinf(total) or math.isnan(total):
        total = math.copysign(1e308, total) if not math.isnan(total) else 0.0
    if job.system_value is not None:
        return ApsResult(None, float(job.system_value), total, job.pend_seconds, tuple(terms))
    return ApsResult(total, None, total, job.pend_seconds, tuple(terms))


_PLANS: dict[str, tuple] = {}


def _plan(cfg: ApsConfig) -> tuple:
    """The weighted factors of *cfg* in evaluation order, looked up once:
    ((top, weight, limit, grace, ((sub, weight, limit, grace), ...)), ...)."""
    plan = _PLANS.get(cfg.text)
    if plan is None:
        out = []
        for top in TOP_FACTORS:
            w_top = cfg.weight(top)
            if w_top is None:
                continue
            subs = tuple((sub, cfg.weight(sub), cfg.limits.get(sub), cfg.grace.get(sub))
                         for sub in SUBFACTORS.get(top, ()) if cfg.weight(sub) is not None)
            out.append((top, w_top, cfg.limits.get(top), cfg.grace.get(top), subs))
        plan = _PLANS[cfg.text] = tuple(out)
    return plan


def aps_rank_of(cfg: ApsConfig, job: ApsJobInput) -> tuple[int, float]:
    """``aps_rank(aps_value(cfg, job))`` without building the terms: the
    scheduling pass ranks every pending job with it. The arithmetic is
    aps_value's, operation for operation (a property test holds them equal)."""
    if job.system_value is not None:
        return (0, -round6(float(job.system_value)))
    return rank_from_parts(aps_parts(cfg, job.pend_seconds, job.proc, job.mem_mb, job.swap_mb, job.job_priority,
                                     job.queue_priority),
                           fs_part(cfg, job.fs_priority, job.pend_seconds), job.admin_value)


_SUB_INDEX = {"PROC": 0, "MEM": 1, "SWAP": 2, "JPRIORITY": 3, "QPRIORITY": 4}


def aps_parts(cfg: ApsConfig, pend: float, proc: float, mem: float, swap: float, job_priority: float,
              queue_priority: float) -> tuple[float, ...]:
    """The contributions of the weighted top factors other than FS (RSRC,
    WORK), in evaluation order, each after its weight, limit and grace
    period; a factor in its grace period is left out. With :func:`fs_part`
    and :func:`rank_from_parts` this is :func:`aps_rank_of` split in two:
    the scheduling pass keeps a job's parts for the pass and, after a start,
    recomputes only the FS part of the users it affects."""
    values = (float(proc), float(mem), float(swap), float(job_priority), float(queue_priority))
    out = []
    for top, w_top, lim_top, g_top, subs in _plan(cfg):
        if top == "FS":
            continue
        raw = 0.0
        for sub, w, lim, g in subs:
            limited = _clamp(_mul(w, values[_SUB_INDEX[sub]]), lim)
            if not (g is not None and pend < g):
                raw += limited
        if math.isinf(raw):
            raw = math.copysign(1e308, raw)
        if g_top is not None and pend < g_top:
            continue
        out.append(_clamp(_mul(w_top, raw), lim_top))
    return tuple(out)


def fs_part(cfg: ApsConfig, fs_priority: float | None, pend: float) -> float | None:
    """The FS factor's contribution (None: FS not weighted, the queue has no
    FAIRSHARE, or the job is in FS's grace period)."""
    for top, w_top, lim_top, g_top, _subs in _plan(cfg):
        if top == "FS":
            if fs_priority is None or (g_top is not None and pend < g_top):
                return None
            return _clamp(_mul(w_top, fs_priority), lim_top)
    return None


def fs_first(cfg: ApsConfig) -> bool:
    """Is FS weighted (it is then the first term of the sum)?"""
    return any(top == "FS" for top, *_ in _plan(cfg))


def calculated_from_parts(parts: tuple[float, ...], fs: float | None, admin: float | None) -> float:
    """The calculated APS value (``ApsResult.calculated``) from its parts: FS
    first, then the others in order, then ADMIN (aps_value's order of
    additions; a left-out factor adds 0.0, which changes no sum)."""
    total = 0.0
    if fs is not None:
        total += fs
    for c in parts:
        total += c
    if admin is not None:
        total += float(admin)
    if math.isinf(total) or math.isnan(total):
        total = math.copysign(1e308, total) if not math.isnan(total) else 0.0
    return total


def rank_from_parts(parts: tuple[float, ...], fs: float | None, admin: float | None) -> tuple[int, float]:
    """The rank of a calculated APS value from its parts (see :func:`calculated_from_parts`)."""
    return value_rank(None, calculated_from_parts(parts, fs, admin))


# -- bmod -aps ----------------------------------------------------------------

_MOD_RE = re.compile(r"^\s*([A-Za-z]+)\s*=\s*(\S*)\s*$")


def parse_aps_mod(text: str) -> tuple[str, float]:
    """``bmod -aps "system=V"`` / ``"admin=V"`` -> ("system"|"admin", V).

    V is a non-zero finite number; anything else raises :class:`ApsSyntaxError`
    whose message (no trailing period) suits ``<text>: <message>. Job not modified.``
    """
    expected = 'expected "system=value" or "admin=value" with a non-zero number'
    if not isinstance(text, str):
        raise ApsSyntaxError(expected)
    m = _MOD_RE.match(text)
    if m is None:
        raise ApsSyntaxError(expected)
    kind = m.group(1).lower()
    if kind not in ("system", "admin"):
        raise ApsSyntaxError(f"unknown factor {m.group(1)}; {expected}")
    if not m.group(2):
        raise ApsSyntaxError(f"{kind}= has no value; {expected}")
    try:
        value = float(m.group(2))
    except ValueError:
        raise ApsSyntaxError(f"the {kind} value is not a number; {expected}") from None
    if not math.isfinite(value):
        raise ApsSyntaxError(f"the {kind} value must be a finite number; {expected}")
    if value == 0:
        raise ApsSyntaxError(f"the {kind} value cannot be 0")
    return kind, value


# -- order --------------------------------------------------------------------


@dataclass(frozen=True)
class QueueSlot:
    """Where a queue's jobs are ordered: ``rank`` (block priority, block file
    order) and the APS queue whose order applies (None: not an APS queue)."""

    name: str
    priority: int
    order: int
    block_priority: int
    block_order: int
    aps_queue: str | None



def plan_queues(queues: Sequence[Any]) -> dict[str, QueueSlot]:
    """QueueSlot per queue, from QueueConf-like objects (name, priority,
    aps_priority, queue_group) in lsb.queues order. An APS block sits at the
    highest PRIORITY among its queues (equal priorities: the earlier in
    lsb.queues), whichever of them have pending jobs."""
    groups = aps_groups(queues)
    block: dict[str, tuple[int, int]] = {}  # APS queue -> (-priority, index) of its best queue
    for i, q in enumerate(queues):
        owner = groups.get(q.name)
        if owner is not None:
            r = (-q.priority, i)
            block[owner] = min(block.get(owner, r), r)
    plan: dict[str, QueueSlot] = {}
    for i, q in enumerate(queues):
        owner = groups.get(q.name)
        bp, bo = (-block[owner][0], block[owner][1]) if owner is not None else (q.priority, i)
        plan[q.name] = QueueSlot(q.name, q.priority, i, bp, bo, owner)
    return plan


@dataclass(frozen=True)
class ListedJob:
    """A pending job as the order needs it. ``result`` is None for jobs in
    non-APS queues. ``position`` is the FCFS order (smaller = earlier)."""

    job_id: int
    queue: str
    position: float
    job_priority: int = 0
    result: ApsResult | None = None
    array_index: int = 0


def round6(v: float) -> float:
    """``round(v, 6)`` -- the precision APS values are ranked and shown at --
    at about half its cost in the common case (the scheduling pass rounds
    every pending job's value; lsfemu.engine.apsrank has it inline): v * 10**6
    to the nearest integer n, when clear of a tie (under 10**12 the
    product's error is below 1e-4), and n / 10**6, IEEE's correctly rounded
    quotient, is the float nearest to the 6-decimal value, which is what
    round() returns. Near a tie, or beyond, round() itself. Equal as a
    number (a zero may come out without its sign)."""
    y = v * 1e6
    if -1e12 < y < 1e12:
        n = int(y + 0.5) if y >= 0.0 else -int(0.5 - y)
        if -0.499 < y - n < 0.499:
            return n / 1e6
    return round(v, 6)


def aps_rank(result: ApsResult | None) -> tuple[int, float]:
    """(class, -value) inside an APS block: system values (class 0) before
    calculated ones (class 1) before jobs without a value (class 2)."""
    if result is None:
        return (2, 0.0)
    return value_rank(result.system, result.value if result.value is not None else result.calculated)


def value_rank(system: float | None, calculated: float | None) -> tuple[int, float]:
    """:func:`aps_rank` of a job with this system value (None: none) and calculated value."""
    if system is not None:
        return (0, -round6(system))
    return (1, -round6(calculated))


def block_head(slot: QueueSlot | None) -> tuple:
    """The leading part of a job's sort key: where its queue's block lists."""
    if slot is None:
        return (1, 0, 0)  # unknown queue: after all known ones
    return (0, -slot.block_priority, slot.block_order)


def listing_key(head: tuple, rank: tuple[int, float] | None, job_priority: int, position: float, job_id: int,
                array_index: int) -> tuple:
    """The sort key of the -aps / dispatch order (see module doc): *head*
    from :func:`block_head`, *rank* the job's :func:`aps_rank` when its queue
    is in an APS block (None outside APS blocks)."""
    if rank is not None:
        return head + rank + (0, position, job_id, array_index)
    return head + (0, 0.0, -job_priority, position, job_id, array_index)


def sort_key(job: ListedJob, plan: Mapping[str, QueueSlot]) -> tuple:
    """The sort key of the -aps / dispatch order (see module doc)."""
    slot = plan.get(job.queue)
    rank = aps_rank(job.result) if slot is not None and slot.aps_queue is not None else None
    return listing_key(block_head(slot), rank, job.job_priority, job.position, job.job_id, job.array_index)


def order(jobs: Iterable[ListedJob], queues: Sequence[Any] | Mapping[str, QueueSlot]) -> list[ListedJob]:
    """Pending jobs in the order they are considered for dispatch (bjobs -aps).
    *queues* is the lsb.queues list (QueueConf-like) or a :func:`plan_queues` result."""
    plan = queues if isinstance(queues, Mapping) else plan_queues(queues)
    return sorted(jobs, key=lambda j: sort_key(j, plan))


class ApsOrder:
    """A dispatch ``Order`` for one APS block (see lsfemu.sched.dispatch).

    *result_of(job)* gives a job's current :class:`ApsResult`; jobs need
    ``position``, ``job_id``, ``array_index`` and ``user``. After each
    :meth:`started` the jobs whose value the start may have changed are
    ranked again, reading the current state through *result_of* (the FS
    factor of that user drops): *affected(job)* names the users whose jobs
    to rank again (``None``: every job). The next job is always the best by
    the current values -- the order a full re-sort after every start gives
    -- while a start costs only the affected users' jobs.

    The jobs' ranks form one heap built at once (heapify: a pass usually
    takes a few jobs off the top before every host is full, and then needs
    only :meth:`rest`); ranks that change after a start go to a second heap
    merged with the first, and an entry whose job was ranked again since is
    skipped (its version is outdated). An entry is flat, ``rank +
    (position, job_id, array_index, version, job)``: the job rides along
    (never compared: job ID and index differ between jobs, the version
    between two entries of one job), so no table maps entries back to jobs.
    """

    def __init__(self, jobs: Iterable[Any], result_of: Callable[[Any], ApsResult | None] | None = None,
                 affected: Callable[[Any], Iterable[str] | None] | None = None,
                 rank_of: Callable[[Any], tuple] | None = None, entries: list[tuple] | None = None,
                 ranks_of: Callable[[list], list[tuple]] | None = None):
        """*rank_of(job)*, if given, is ``aps_rank(result_of(job))`` computed
        directly (see :func:`aps_rank_of`); *ranks_of(jobs)*, if given, the
        ranks of several jobs at once (those a start affects); *entries*, if
        given, are the jobs' heap entries now, ``rank + (position, job_id,
        array_index, 0, job)`` for each of *jobs* (made by the caller in
        bulk; the list is taken over)."""
        self._rank_of = rank_of if rank_of is not None else (lambda j: aps_rank(result_of(j)))
        self._ranks_of = ranks_of if ranks_of is not None else (lambda js: [self._rank_of(j) for j in js])
        self._affected = affected
        self._heap: list[tuple] = []
        self._version: dict[int, int] = {}  # id(job) -> version, only for jobs ranked again (the first is 0)
        self._jobs = jobs = list(jobs)
        self._given: set[int] = set()  # id() of the jobs given out
        self._by_user: dict[str, list[Any]] | None = None  # user -> its jobs, made at the first start
        if entries is None:
            rank_of = self._rank_of
            entries = [rank_of(j) + (j.position, j.job_id, j.array_index, 0, j) for j in jobs]
        heapq.heapify(entries)  # a pass usually takes a few jobs off the top, then every host is full
        self._base = entries

    def _push(self, jobs: list) -> None:
        """Rank *jobs* again (their entries so far are outdated)."""
        versions, heap = self._version, self._heap
        for j, rank in zip(jobs, self._ranks_of(jobs)):
            version = versions.get(id(j), 0) + 1
            versions[id(j)] = version
            heapq.heappush(heap, rank + (j.position, j.job_id, j.array_index, version, j))

    def __iter__(self):
        heap, base, given, versions = self._heap, self._base, self._given, self._version
        pop = heapq.heappop
        while True:
            if heap and (not base or heap[0] < base[0]):
                entry = pop(heap)
            elif base:
                entry = pop(base)
            else:
                return
            job = entry[-1]
            if id(job) in given or versions.get(id(job), 0) != entry[-2]:
                continue  # already given out, or ranked again since
            given.add(id(job))
            yield job

    def rest(self) -> list[Any]:
        """The jobs not given out yet, in no particular order (see
        lsfemu.sched.dispatch.StaticOrder.rest)."""
        given = self._given
        return [j for j in self._jobs if id(j) not in given] if given else list(self._jobs)

    def started(self, job: Any) -> None:
        """Told of each start: rank again the jobs whose value may have changed."""
        users = self._affected(job) if self._affected is not None else None
        if users is None:
            pool = self._jobs
        else:
            if self._by_user is None:
                self._by_user = {}
                for j in self._jobs:
                    self._by_user.setdefault(j.user, []).append(j)
            pool = [j for user in set(users) for j in self._by_user.get(user, ())]
        given = self._given
        again = [j for j in pool if id(j) not in given]
        if again:
            self._push(again)
