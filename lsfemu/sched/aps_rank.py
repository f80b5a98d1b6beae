"""THE APS ranker: the value of pending jobs and their rank in an APS block,
in bulk, as pure functions over plain data (issue 17: one ranker for the
scheduling pass, ``bjobs -aps`` and ``lsfemu explain aps``).

Value of a job (APS_PRIORITY parsed by lsfemu.config.aps)::

    APS = Σ_top  limit_top( W_top × Σ_sub limit_sub( w_sub × value_sub ) )   (RSRC, WORK)
        + limit_FS( W_FS × fs_priority )
        + ADMIN

``limit_x(v)`` clamps v to [-LIMIT_x, +LIMIT_x] (the limit bounds the absolute
value of the *weighted* factor). A factor or subfactor in its grace period
(the job has pended less than the grace period) contributes 0; it counts from
the moment the pending time reaches the grace period. Undefined weights are 0
(the factor is ignored). FS is ignored (contributes 0) for jobs whose queue has
no FAIRSHARE (``fs_priority`` None). A system value (bmod -aps "system=V")
replaces the calculation: the job ranks above every calculated value. Values
are ranked at 6 decimals (:func:`round6`).

Where the values come from (the caller gathers them): PROC -
:func:`lsfemu.sched.aps.proc_value` (``-n``, else the queue's PROCLIMIT);
MEM/SWAP - :func:`lsfemu.sched.resreq.rusage_amounts` with
RESOURCE_RESERVE_PER_SLOT; JPRIORITY - the escalated job priority
(:func:`lsfemu.sched.priority.escalation`); QPRIORITY - the PRIORITY of the
job's own queue; FS - the user's dynamic priority in the queue's fairshare tree.

The arithmetic is written once: the factors in :func:`_fs` and :func:`_work`,
their sum and its rounding in :meth:`ApsRanker.ranked`. It is used two ways:

* :class:`ApsRanker` ranks many jobs at once (the pass ranks every pending
  job of an APS block; ``bjobs -aps`` lists them all): the value depends on
  the pending time only through the grace periods it reached, so the parts
  other than FS are computed once per distinct (resources and queue, escalated
  job priority, grace state), the FS part once per (user, queue, grace
  state); what is left per job is their sum;
* :func:`aps_value` gives one job's value with every term (``lsfemu explain
  aps``): the same factor functions, asked for the terms, and the value
  ranked by an ApsRanker of that one job.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, NamedTuple

from lsfemu.config.aps import SUBFACTORS, TOP_FACTORS, ApsConfig


@dataclass(frozen=True)
class ApsJobInput:
    """What APS needs of one pending job, for :func:`aps_value` (gathered by the caller)."""

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


# -- the arithmetic (once) ------------------------------------------------------


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


_PLANS: dict[str, tuple] = {}
_SUB_INDEX = {"PROC": 0, "MEM": 1, "SWAP": 2, "JPRIORITY": 3, "QPRIORITY": 4}
_IMPLIED = "weight 1 implied by a weighted subfactor"
_NO_QUEUE = (0, False)  # (PRIORITY, has FAIRSHARE) of a queue the ranker is not told of


def _plan(cfg: ApsConfig) -> tuple:
    """The weighted factors of *cfg* in evaluation order (FS, RSRC, WORK),
    looked up once: ((top, weight, limit, grace, note, ((sub, weight, limit,
    grace, index of its value), ...)), ...)."""
    plan = _PLANS.get(cfg.text)
    if plan is None:
        out = []
        for top in TOP_FACTORS:
            w_top = cfg.weight(top)
            if w_top is None:
                continue
            subs = tuple((sub, cfg.weight(sub), cfg.limits.get(sub), cfg.grace.get(sub), _SUB_INDEX[sub])
                         for sub in SUBFACTORS.get(top, ()) if cfg.weight(sub) is not None)
            out.append((top, w_top, cfg.limits.get(top), cfg.grace.get(top),
                        _IMPLIED if top in cfg.implied else "", subs))
        plan = _PLANS[cfg.text] = tuple(out)
    return plan


def _fs(plan: tuple, fs_priority: float | None, pend: float, terms: list | None) -> float | None:
    """The FS factor's contribution (None: FS not weighted, the queue has no
    FAIRSHARE, or the job is in FS's grace period); its term appended to
    *terms* when given."""
    if not plan or plan[0][0] != "FS":  # (FS, when weighted, is the first factor)
        return None
    _top, w, lim, g, _note, _subs = plan[0]
    in_grace = g is not None and pend < g
    if terms is not None:
        weighted = _mul(w, fs_priority) if fs_priority is not None else 0.0
        limited = _clamp(weighted, lim)
        terms.append(ApsTerm("FS", None, fs_priority, w, weighted, lim, limited, g, in_grace,
                             0.0 if (in_grace or fs_priority is None) else limited,
                             "" if fs_priority is not None else "the queue has no FAIRSHARE: ignored"))
    if fs_priority is None or in_grace:
        return None
    return _clamp(_mul(w, fs_priority), lim)


def _work(plan: tuple, pend: float, values: tuple[float, ...], terms: list | None) -> tuple[float, ...]:
    """The contributions of the weighted top factors other than FS (RSRC,
    WORK), in order, each after its weight, limit and grace period; a factor
    in its grace period is left out. *values*: (PROC, MEM, SWAP, JPRIORITY,
    QPRIORITY). Each factor's term, followed by its subfactors', appended to
    *terms* when given."""
    out = []
    for top, w_top, lim_top, g_top, note, subs in plan:
        if top == "FS":
            continue
        raw = 0.0
        sub_terms = [] if terms is not None else None
        for sub, w, lim, g, i in subs:
            weighted = _mul(w, values[i])
            limited = _clamp(weighted, lim)
            in_grace = g is not None and pend < g
            if not in_grace:
                raw += limited
            if sub_terms is not None:
                sub_terms.append(ApsTerm(sub, top, values[i], w, weighted, lim, limited, g, in_grace,
                                         0.0 if in_grace else limited))
        if math.isinf(raw):
            raw = math.copysign(1e308, raw)
        in_grace = g_top is not None and pend < g_top
        weighted = _mul(w_top, raw)
        limited = _clamp(weighted, lim_top)
        if not in_grace:
            out.append(limited)
        if terms is not None:
            terms.append(ApsTerm(top, None, raw, w_top, weighted, lim_top, limited, g_top, in_grace,
                                 0.0 if in_grace else limited, note))
            terms.extend(sub_terms)
    return tuple(out)


class _Facts(NamedTuple):
    """One job's facts as :class:`ApsRanker` reads them (for :func:`aps_value`)."""

    plain: bool
    aps_system: float | None
    aps_admin: float | None
    since: float
    proc: float
    mem: float
    swap: float
    queue: str
    user: str
    parts_key: int
    fs_key: int


class _Job(NamedTuple):
    row: _Facts
    priority: float


def aps_value(cfg: ApsConfig, job: ApsJobInput) -> ApsResult:
    """One job's APS value and every factor that went into it (``lsfemu
    explain aps``): the terms from the ranker's own arithmetic, asked for
    them, and the value from the ranker itself (a ranker of this one job)."""
    plan = _plan(cfg)
    pend = job.pend_seconds
    terms: list[ApsTerm] = []
    _fs(plan, job.fs_priority, pend, terms)
    _work(plan, pend, (float(job.proc), float(job.mem_mb), float(job.swap_mb), float(job.job_priority),
                       float(job.queue_priority)), terms)
    if job.admin_value is not None:
        a = float(job.admin_value)
        terms.append(ApsTerm("ADMIN", None, a, None, a, None, a, None, False, a, 'set by bmod -aps "admin=..."'))
    # (the calculated value is shown also when a system value replaces it: ranked without it)
    facts = _Facts(job.admin_value is None, None, job.admin_value, 0.0, job.proc, job.mem_mb, job.swap_mb, "", "", 0, 0)
    ranker = ApsRanker(cfg, pend, {"": (job.queue_priority, job.fs_priority is not None)},
                       lambda _user, _queue: job.fs_priority)
    total = ranker.ranked((_Job(facts, job.job_priority),))[0][3]
    if job.system_value is not None:
        return ApsResult(None, float(job.system_value), total, pend, tuple(terms))
    return ApsResult(total, None, total, pend, tuple(terms))


# -- ranks ---------------------------------------------------------------------


def round6(v: float) -> float:
    """``round(v, 6)`` -- the precision APS values are ranked and shown at --
    at about half its cost in the common case: v * 10**6 to the nearest
    integer n, when clear of a tie (under 10**12 the product's error is
    below 1e-4), and n / 10**6, IEEE's correctly rounded quotient, is the
    float nearest to the 6-decimal value, which is what round() returns.
    Near a tie, or beyond, round() itself. Equal as a number (a zero may
    come out without its sign)."""
    y = v * 1e6
    if -1e12 < y < 1e12:
        n = int(y + 0.5) if y >= 0.0 else -int(0.5 - y)
        if -0.499 < y - n < 0.499:
            return n / 1e6
    return round(v, 6)


def value_rank(system: float | None, calculated: float | None) -> tuple[int, float]:
    """The rank inside an APS block of a job with this system value (None:
    none) and calculated value: system values (class 0) before calculated
    ones (class 1), each high to low."""
    if system is not None:
        return (0, -round6(system))
    return (1, -round6(calculated))


def aps_rank(result: ApsResult | None) -> tuple[int, float]:
    """The rank of an :class:`ApsResult`; jobs without a value (class 2) last."""
    if result is None:
        return (2, 0.0)
    return value_rank(result.system, result.value if result.value is not None else result.calculated)


class ApsRanker:
    """The ranks and values of pending jobs of one APS block at instant *t*.

    *cfg* is the block's APS_PRIORITY; *queues* maps each queue name to its
    (PRIORITY, has FAIRSHARE) (a queue not in it: (0, False));
    *fs_priority(user, queue)* is the user's dynamic priority in the queue's
    fairshare tree at *t*, asked once per (user, queue, grace state) and
    only for queues with FAIRSHARE.

    A job is given as its job priority escalated to *t* (``priority``)
    and its facts (``row``: the engine's ``passrows.Row``), of which the
    ranker reads ``plain`` (no bmod -aps value), ``aps_system``,
    ``aps_admin``, ``since`` (the origin of its pending time), ``proc``,
    ``mem``, ``swap``, ``queue``, ``user``, and two keys that stand for
    what the value depends on: ``parts_key`` one number per distinct
    (PROC, MEM, SWAP, queue), ``fs_key`` one per distinct (user, queue).
    """

    def __init__(self, cfg: ApsConfig, t: float, queues: Mapping[str, tuple[int, bool]],
                 fs_priority: Callable[[str, str], float | None]):
        self.cfg = cfg
        self.t = t
        self.queues = queues
        self.fs_priority = fs_priority
        self.plan = _plan(cfg)
        self.fs_weighted = bool(self.plan) and self.plan[0][0] == "FS"  # does the FS factor count
        self.graces = tuple(sorted(set(cfg.grace.values())))
        self._parts: dict[tuple, tuple] = {}  # (parts_key, job priority, grace state) -> _work(...)
        self._fs: dict = {}  # fs_key (with the grace state, if any grace period) -> _fs(...), before any start
        self._users: set[str] = set()  # of the jobs whose value FS may change (see users())

    def ranked(self, jobs: Iterable[Any], again: bool = False, entries: bool = False) -> list[tuple]:
        """Per job of *jobs* (each with its facts as ``row`` and its job
        priority escalated to *t* as ``priority``, as the pass's
        lsfemu.sched.dispatch.PendingJob has them):
        ``(class, -value at 6 decimals, system value, calculated value)``
        -- the rank (:func:`value_rank`) and the values ``bjobs -aps``
        shows (a system value, else the calculated one; the other None).

        *entries* (the pass's PendingJobs): per job, its heap entry in
        :class:`lsfemu.sched.aps.ApsOrder` instead, ``(class, -value,
        position, job_id, array_index, 0, job)`` (made here: at 100k jobs a
        second tuple per job shows in the pass's time).

        *again*: the users' FS factors changed since the last call (a job
        started): none is reused. The parts other than FS always are."""
        # The pass's hottest loop (every pending job of the block, every full
        # pass): everything in locals, the memos looked up once per job, the
        # pending time computed only where grace periods or a memo miss need
        # it; the value's sum and its rounding (round6) written out here, once.
        t = self.t
        graces = self.graces
        parts_memo = self._parts
        fs_memo = {} if again else self._fs
        users = None if again else self._users
        plan = self.plan
        queues = self.queues
        fs_priority = self.fs_priority
        isnan, copysign = math.isnan, math.copysign
        out = []
        append = out.append
        reached = 0  # grace periods the pending time reached (none configured: 0)
        for job in jobs:
            row = job.row
            prio = job.priority
            if not row.plain and row.aps_system is not None:
                system = float(row.aps_system)
                append((0, -round6(system), system, None) if not entries else
                       (0, -round6(system), job.position, job.job_id, job.array_index, 0, job))
                continue
            if graces:
                pend = t - row.since
                reached = bisect_right(graces, pend if pend > 0.0 else 0.0)
            pk = (row.parts_key, prio, reached)
            parts = parts_memo.get(pk)
            if parts is None:
                pend = t - row.since
                parts = parts_memo[pk] = _work(plan, pend if pend > 0.0 else 0.0,
                                               (float(row.proc), float(row.mem), float(row.swap), float(prio),
                                                float(queues.get(row.queue, _NO_QUEUE)[0])), None)
            fk = (row.fs_key, reached) if graces else row.fs_key
            fs = fs_memo.get(fk, fs_memo)
            if fs is fs_memo:  # one FS part per user, queue and grace state (until a start)
                if users is not None:
                    users.add(row.user)
                pend = t - row.since
                fs = fs_memo[fk] = _fs(plan, fs_priority(row.user, row.queue)
                                       if queues.get(row.queue, _NO_QUEUE)[1] else None,
                                       pend if pend > 0.0 else 0.0, None)
            # the calculated value: FS first, then the others in order, then ADMIN
            total = 0.0
            if fs is not None:
                total += fs
            for c in parts:
                total += c
            if not row.plain:
                total += float(row.aps_admin)
            if total - total != 0.0:  # inf or nan
                total = copysign(1e308, total) if not isnan(total) else 0.0
            # -round6(total), inline
            y = total * 1e6
            if -1e12 < y < 1e12:
                n = int(y + 0.5) if y >= 0.0 else -int(0.5 - y)
                if -0.499 < y - n < 0.499:
                    append((1, -(n / 1e6), None, total) if not entries else
                           (1, -(n / 1e6), job.position, job.job_id, job.array_index, 0, job))
                    continue
            append((1, -round(total, 6), None, total) if not entries else
                   (1, -round(total, 6), job.position, job.job_id, job.array_index, 0, job))
        return out

    def users(self) -> list[str]:
        """The users of the jobs ranked so far whose value the FS factor may
        change (a system value never does), sorted."""
        return sorted(self._users)
