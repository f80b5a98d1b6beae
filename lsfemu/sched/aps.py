"""Absolute Priority Scheduling (APS): configuration, values and order, as pure functions.

Configuration (lsb.queues ``APS_PRIORITY``, kept verbatim in QueueConf.aps_priority)::

    APS_PRIORITY = WEIGHT[[factor, value] ...] LIMIT[[factor, value] ...] GRACE_PERIOD[[factor, value] ...]

Factors: ``FS`` (the user's dynamic fairshare priority), ``RSRC`` with the
subfactors ``PROC``, ``MEM``, ``SWAP``, and ``WORK`` with ``JPRIORITY`` and
``QPRIORITY``. ``ADMIN`` is not configurable (bmod -aps "admin=V" sets it).
Weights and limits are floats, grace periods ``Ns``/``Nm``/``Nh`` (hours
without a unit). Zero is refused everywhere; limits must be positive; weights
may be negative (``[SWAP, -10]``). A subfactor's weight without its parent's
makes the parent's weight 1. Names are case-insensitive; each of WEIGHT,
LIMIT, GRACE_PERIOD appears at most once; ``WEIGHT [[...]]`` with spaces is fine.

Value of a job (:func:`aps_value`)::

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

Seed disagreements and lsfemu's choices (docs/semantics.md repeats them):
queue-level FAIRSHARE *is* allowed in an APS queue (its only effect is the FS
factor; the seed's own examples combine them), FAIRSHARE_QUEUES,
DISPATCH_ORDER=QUEUE and host-partition fairshare are fatal in :func:`check_issues`;
only time-based SLA goals (velocity, deadline, throughput) conflict with APS
(:func:`sla_conflict`).
"""

from __future__ import annotations

import heapq
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

# -- factors ------------------------------------------------------------------

TOP_FACTORS = ("FS", "RSRC", "WORK")
SUBFACTORS = {"RSRC": ("PROC", "MEM", "SWAP"), "WORK": ("JPRIORITY", "QPRIORITY")}
PARENT = {sub: top for top, subs in SUBFACTORS.items() for sub in subs}
#: display order (bqueues -l, explain): each top factor followed by its subfactors
ALL_FACTORS = ("FS", "RSRC", "PROC", "MEM", "SWAP", "WORK", "JPRIORITY", "QPRIORITY")
SECTIONS = ("WEIGHT", "LIMIT", "GRACE_PERIOD")
_GRACE_UNITS = {"s": 1, "m": 60, "h": 3600}


class ApsSyntaxError(ValueError):
    """APS_PRIORITY or a bmod -aps string that cannot be used; the message says
    what was expected."""


@dataclass(frozen=True)
class ApsConfig:
    """A parsed APS_PRIORITY. ``weights``/``limits`` hold the configured values,
    ``grace`` seconds, ``grace_text`` the grace period as shown by bqueues -l
    (``3h``, ``4131s``; a bare number gets ``h``), ``implied`` the parents whose
    weight 1 comes from a weighted subfactor."""

    text: str
    weights: Mapping[str, float]
    limits: Mapping[str, float] = field(default_factory=dict)
    grace: Mapping[str, int] = field(default_factory=dict)
    grace_text: Mapping[str, str] = field(default_factory=dict)
    implied: frozenset[str] = frozenset()

    def weight(self, factor: str) -> float | None:
        """The effective weight (None = undefined, i.e. ignored)."""
        if factor in self.weights:
            return self.weights[factor]
        if factor in self.implied:
            return 1.0
        return None

    def shown(self, factor: str) -> bool:
        """Does the factor have a setting of its own (or an implied weight)?"""
        return factor in self.weights or factor in self.implied or factor in self.limits or factor in self.grace


def _show(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:57] + "...")


def _number(section: str, factor: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ApsSyntaxError(f"APS_PRIORITY: {section} of {factor}: expected a number, got {_show(text)}") from None
    if not math.isfinite(value):
        raise ApsSyntaxError(f"APS_PRIORITY: {section} of {factor}: expected a finite number, got {_show(text)}")
    if value == 0:
        raise ApsSyntaxError(f"APS_PRIORITY: {section} of {factor} cannot be 0")
    return value


def _grace(factor: str, text: str) -> tuple[int, str]:
    m = re.match(r"^([0-9]+)\s*([smhSMH]?)$", text)
    if m is None:
        raise ApsSyntaxError(
            f"APS_PRIORITY: GRACE_PERIOD of {factor}: expected a positive whole number of seconds (s), "
            f"minutes (m) or hours (h, the default), e.g. 10m, got {_show(text)}")
    n = int(m.group(1))
    unit = (m.group(2) or "h").lower()
    if n == 0:
        raise ApsSyntaxError(f"APS_PRIORITY: GRACE_PERIOD of {factor} cannot be 0")
    return n * _GRACE_UNITS[unit], f"{n}{unit}"


_SECTION_RE = re.compile(r"([A-Za-z_]+)\s*\[")
_PAIR_RE = re.compile(r"\[\s*([^\[\],\s]+)\s*,\s*([^\[\],]*?)\s*\]")


def _pairs(section: str, body: str) -> list[tuple[str, str]]:
    """``[a, 1] [b, 2]`` -> pairs; anything else is refused."""
    out: list[tuple[str, str]] = []
    pos = 0
    body = body.strip()
    if not body:
        raise ApsSyntaxError(f"APS_PRIORITY: {section}[[...]] lists no factor; expected {section}[[factor, value] ...]")
    while pos < len(body):
        if body[pos].isspace():
            pos += 1
            continue
        m = _PAIR_RE.match(body, pos)
        if m is None:
            raise ApsSyntaxError(
                f"APS_PRIORITY: {section}: expected [factor, value] pairs, got {_show(body[pos:])}")
        out.append((m.group(1), m.group(2)))
        pos = m.end()
    return out


def _split_sections(text: str) -> list[tuple[str, str]]:
    """``WEIGHT[[..] [..]] LIMIT[[..]]`` -> [("WEIGHT", "[..] [..]"), ...]."""
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        m = _SECTION_RE.match(text, pos)
        if m is None:
            raise ApsSyntaxError(
                "APS_PRIORITY: expected WEIGHT[[factor, value] ...], LIMIT[[factor, value] ...] or "
                f"GRACE_PERIOD[[factor, value] ...], got {_show(text[pos:])}")
        name = m.group(1).upper()
        if name not in SECTIONS:
            raise ApsSyntaxError(
                f"APS_PRIORITY: unknown section {m.group(1)}; expected WEIGHT, LIMIT or GRACE_PERIOD")
        depth = 0
        j = m.end() - 1
        while j < len(text):
            if text[j] == "[":
                depth += 1
            elif text[j] == "]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if depth != 0:
            raise ApsSyntaxError(f"APS_PRIORITY: {name}[ is not closed with ]")
        out.append((name, text[m.end():j]))
        pos = j + 1
    return out


def parse_aps_priority(text: str) -> ApsConfig:
    """Parse an APS_PRIORITY value; :class:`ApsSyntaxError` says what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise ApsSyntaxError("APS_PRIORITY: empty; expected WEIGHT[[factor, value] ...]")
    weights: dict[str, float] = {}
    limits: dict[str, float] = {}
    grace: dict[str, int] = {}
    grace_text: dict[str, str] = {}
    seen_sections: set[str] = set()
    for section, body in _split_sections(text):
        if section in seen_sections:
            raise ApsSyntaxError(f"APS_PRIORITY: {section} is given twice")
        seen_sections.add(section)
        seen: set[str] = set()
        for name, value in _pairs(section, body):
            factor = name.upper()
            if factor == "ADMIN":
                raise ApsSyntaxError(
                    "APS_PRIORITY: ADMIN cannot be configured; administrators set it per job with "
                    'bmod -aps "admin=value"')
            if factor not in ALL_FACTORS:
                raise ApsSyntaxError(
                    f"APS_PRIORITY: unknown factor {name} in {section}; expected one of "
                    "FS, RSRC, PROC, MEM, SWAP, WORK, JPRIORITY, QPRIORITY")
            if factor in seen:
                raise ApsSyntaxError(f"APS_PRIORITY: {factor} is given twice in {section}")
            seen.add(factor)
            if section == "WEIGHT":
                weights[factor] = _number("WEIGHT", factor, value)
            elif section == "LIMIT":
                lim = _number("LIMIT", factor, value)
                if lim < 0:
                    raise ApsSyntaxError(f"APS_PRIORITY: LIMIT of {factor} must be positive, got {_show(value)}")
                limits[factor] = lim
            else:
                grace[factor], grace_text[factor] = _grace(factor, value)
    if "WEIGHT" not in seen_sections:
        raise ApsSyntaxError("APS_PRIORITY: no WEIGHT[[factor, value] ...]; every factor would be ignored")
    implied = frozenset(PARENT[f] for f in weights if f in PARENT and PARENT[f] not in weights)
    return ApsConfig(text=text, weights=weights, limits=limits, grace=grace, grace_text=grace_text, implied=implied)


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


@dataclass(frozen=True)
class ApsMod:
    """A job's administrator settings: at most one of system/admin (a later
    bmod -aps replaces the earlier one); ``text`` is the factor string as typed
    (shown by bhist -l)."""

    system: float | None = None
    admin: float | None = None
    text: str | None = None


NO_APS_MOD = ApsMod()


def apply_aps_mod(text: str | None) -> ApsMod:
    """The job's settings after ``bmod -aps text`` (None = ``bmod -apsn``).
    The previous settings do not matter: the last bmod -aps wins."""
    if text is None:
        return NO_APS_MOD
    kind, value = parse_aps_mod(text)
    shown = text.strip()
    return ApsMod(system=value, text=shown) if kind == "system" else ApsMod(admin=value, text=shown)


def on_requeue(_mod: ApsMod) -> ApsMod:
    """Requeued jobs are new jobs for APS: system and admin values are dropped."""
    return NO_APS_MOD


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


def aps_groups(queues: Sequence[Any]) -> dict[str, str]:
    """queue name -> the APS queue ordering its jobs (itself, or the APS queue
    whose QUEUE_GROUP lists it). The first APS queue in lsb.queues order wins
    when a queue is claimed twice (:func:`check_issues` reports that)."""
    out: dict[str, str] = {}
    for q in queues:
        if getattr(q, "aps_priority", None):
            out.setdefault(q.name, q.name)
    for q in queues:
        if getattr(q, "aps_priority", None):
            for member in getattr(q, "queue_group", []) or []:
                out.setdefault(member, q.name)
    return out


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


# -- configuration checks (badmin ckconfig) -------------------------------------


@dataclass(frozen=True)
class ApsIssue:
    queue: str
    key: str  # the lsb.queues key to point at (its line is the caller's)
    message: str
    fatal: bool = True

    def __str__(self) -> str:
        return self.message


SLA_TIME_GOALS = ("velocity", "deadline", "throughput")


def sla_conflict(goal_types: Iterable[str]) -> str | None:
    """Message when a service class with these goal types meets an APS queue
    (only time-based goals conflict), else None."""
    bad = [g for g in goal_types if g.lower() in SLA_TIME_GOALS]
    if bad:
        return ("APS cannot be used together with time-based SLAs (velocity, deadline or throughput goals); "
                f"this service class has {', '.join(sorted(set(g.lower() for g in bad)))}")
    return None


def _hosts_overlap(a: list[str], b: list[str], groups: Mapping[str, list[str]]) -> bool:
    def expand(hosts: list[str]) -> set[str] | None:
        out: set[str] = set()
        for h in hosts:
            name = re.sub(r"\+[0-9]*$", "", h).rstrip("/")
            if name.startswith("~"):
                continue
            if name in ("all", "others"):
                return None
            out.update(groups.get(name, [name]))
        return out

    ea, eb = expand(a), expand(b)
    if ea is None or eb is None:
        return bool(a) and bool(b)
    return bool(ea & eb)


def check_issues(
    queues: Sequence[Any],
    params: Any = None,
    *,
    host_partitions: Mapping[str, Mapping[str, str]] | None = None,
    host_groups: Mapping[str, list[str]] | None = None,
) -> list[ApsIssue]:
    """Every APS problem of a configuration, fatal or not, in lsb.queues order."""
    issues: list[ApsIssue] = []
    names = {q.name for q in queues}
    claimed: dict[str, str] = {}
    host_groups = host_groups or {}
    for q in queues:
        lines = getattr(q, "lines", {}) or {}
        extra = getattr(q, "extra", {}) or {}
        group = list(getattr(q, "queue_group", []) or [])
        if not q.aps_priority:
            if group:
                issues.append(ApsIssue(q.name, "QUEUE_GROUP",
                                       f"Queue <{q.name}>: QUEUE_GROUP has no effect without APS_PRIORITY; ignored",
                                       fatal=False))
            continue
        try:
            cfg = parse_aps_priority(q.aps_priority)
        except ApsSyntaxError as e:
            issues.append(ApsIssue(q.name, "APS_PRIORITY", f"Queue <{q.name}>: {e}"))
            cfg = None
        if extra.get("DISPATCH_ORDER", "").strip().upper() == "QUEUE":
            issues.append(ApsIssue(q.name, "DISPATCH_ORDER",
                                   f"Queue <{q.name}>: APS_PRIORITY cannot be used together with "
                                   "DISPATCH_ORDER=QUEUE; remove one of them"))
        if "FAIRSHARE_QUEUES" in lines or "FAIRSHARE_QUEUES" in extra:
            issues.append(ApsIssue(q.name, "FAIRSHARE_QUEUES",
                                   f"Queue <{q.name}>: APS_PRIORITY cannot be used together with cross-queue "
                                   "fairshare (FAIRSHARE_QUEUES); use QUEUE_GROUP instead"))
        for hp_name, hp in (host_partitions or {}).items():
            hp_hosts = str(hp.get("HOSTS", "")).split()
            if _hosts_overlap(list(getattr(q, "hosts", ["all"]) or ["all"]), hp_hosts, host_groups):
                issues.append(ApsIssue(q.name, "APS_PRIORITY",
                                       f"Queue <{q.name}>: APS_PRIORITY cannot be used together with host-partition "
                                       f"fairshare (host partition {hp_name} shares this queue's hosts)"))
        if cfg is not None:
            if "FS" in cfg.weights and not getattr(q, "fairshare", None):
                issues.append(ApsIssue(q.name, "APS_PRIORITY",
                                       f"Queue <{q.name}>: the FS factor of APS_PRIORITY is ignored: "
                                       "the queue has no FAIRSHARE", fatal=False))
            for top, subs in SUBFACTORS.items():
                if top in cfg.weights and not any(s in cfg.weights for s in subs):
                    issues.append(ApsIssue(q.name, "APS_PRIORITY",
                                           f"Queue <{q.name}>: the weight of {top} has no effect: none of its "
                                           f"subfactors ({', '.join(subs)}) has a weight", fatal=False))
            if cfg.weight("JPRIORITY") is not None and params is not None \
                    and getattr(params, "max_user_priority", None) is None:
                issues.append(ApsIssue(q.name, "APS_PRIORITY",
                                       f"Queue <{q.name}>: the JPRIORITY factor needs MAX_USER_PRIORITY in "
                                       "lsb.params; without it every job priority is 0", fatal=False))
        members = [q.name] + [m for m in group if m != q.name]
        if q.name in group:
            issues.append(ApsIssue(q.name, "QUEUE_GROUP",
                                   f"Queue <{q.name}>: QUEUE_GROUP lists the queue itself; ignored", fatal=False))
        for m in members:
            if m not in names and m != q.name:
                continue  # the config parser already reports unknown queues
            if m in claimed and claimed[m] != q.name:
                issues.append(ApsIssue(q.name, "QUEUE_GROUP",
                                       f"Queue <{q.name}>: queue {m} is already ordered by the APS queue "
                                       f"{claimed[m]}; a queue belongs to one APS order only"))
            else:
                claimed[m] = q.name
    # members of an APS group: same conflicts as the APS queue itself
    by_name = {q.name: q for q in queues}
    for member, owner in sorted(aps_groups(queues).items()):
        if member == owner or member not in by_name:
            continue
        mq = by_name[member]
        extra = getattr(mq, "extra", {}) or {}
        if extra.get("DISPATCH_ORDER", "").strip().upper() == "QUEUE":
            issues.append(ApsIssue(member, "DISPATCH_ORDER",
                                   f"Queue <{member}>: DISPATCH_ORDER=QUEUE cannot be used in the QUEUE_GROUP of "
                                   f"the APS queue {owner}"))
        if "FAIRSHARE_QUEUES" in (getattr(mq, "lines", {}) or {}) or "FAIRSHARE_QUEUES" in extra:
            issues.append(ApsIssue(member, "FAIRSHARE_QUEUES",
                                   f"Queue <{member}>: FAIRSHARE_QUEUES cannot be used in the QUEUE_GROUP of the "
                                   f"APS queue {owner}; QUEUE_GROUP replaces it"))
    return issues


def check_conflicts(queues: Sequence[Any], params: Any = None, **kw: Any) -> list[str]:
    """The fatal APS problems as ckconfig messages (file/line are the caller's);
    :func:`check_issues` also gives the warnings and the key to point at."""
    return [i.message for i in check_issues(queues, params, **kw) if i.fatal]
