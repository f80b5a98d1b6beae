"""Fairshare scheduling as pure functions: factors, usage, dynamic priority,
share trees, the choice of the next user, and queue-based slot pools.

This module owns everything about fairshare that can be computed from plain
data: no database, no clock reads, no printing (the texts are in
:mod:`lsfemu.render.fairshare`, the adjustment plug-ins in
:mod:`lsfemu.sched.fairshare_plugins`). The daemon gathers the numbers (jobs,
their run and CPU times, the current time) and applies the results.

Dynamic priority (LSF 10, every term; :func:`priority_terms`)::

    priority = shares / ( cpu_time × CPU_TIME_FACTOR
                        + (historical_run_time + run_time) × RUN_TIME_FACTOR
                        + (committed_run_time − run_time) × COMMITTED_RUN_TIME_FACTOR
                        + (1 + job_slots) × RUN_JOB_FACTOR
                        + (1 + fwd_job_slots) × FWD_JOB_FACTOR
                        + fairshare_adjustment × FAIRSHARE_ADJUSTMENT_FACTOR
                        + (historical_gpu_run_time + gpu_run_time) × ngpus_physical × GPU_RUN_TIME_FACTOR )

A term is *present* exactly when LSF includes it: historical run time only with
ENABLE_HIST_RUN_TIME=Y, the committed term only when COMMITTED_RUN_TIME_FACTOR
is not 0, the forwarded-slots term only when FWD_JOB_FACTOR is defined,
historical GPU run time only with ENABLE_GPU_HIST_RUN_TIME=Y; the others are
always there (with LSF's default factors the adjustment and GPU terms weigh
0). A denominator below 0.01 counts as 0.01, so the priority never exceeds
100 × shares. Factors come from the queue (lsb.queues), else lsb.params, else
LSF's defaults (:func:`effective_factors`).

Units: :class:`Usage` holds hours and slots. ``cpu_time`` is decayed so that
1 hour becomes 0.1 hour after HIST_HOURS (:func:`decay_factor`); historical
run time of finished jobs decays the same way; with RUN_TIME_DECAY=Y the run
time of running jobs does too (:func:`job_usage` does the arithmetic from
time stamps in seconds). HIST_HOURS=0 means no decay (LSF: "CPU time and run
time accumulated by running jobs do not decay"). A run that ends adds to its
account's :class:`History` exactly what :func:`job_usage` counted for it at
that instant, so an account's usage is continuous across the end of a run.

Share trees (:func:`build_tree`): a queue's ``FAIRSHARE=USER_SHARES[[...]]``
(or a HostPartition's USER_SHARES) is the top level; a group listed without
``@`` that has USER_SHARES in lsb.users is a subtree, recursively. Accounts:

* ``user``     - one user;
* ``group@``   - every member (recursively) gets its own account with those shares;
* ``group``    - the group is one account; its members compete FCFS inside it
  (unless lsb.users gives it USER_SHARES: then it is a subtree);
* ``default``  - every user not covered by another entry gets its own account
  with default's shares (created for ``known_users`` at build time and lazily
  for anybody else the first time :meth:`ShareTree.account_path` sees them);
* ``others``   - all users not covered by another entry share ONE account;
* ``all``      - all users share one account.

Users covered by nothing have no account and cannot run in the queue.

Choosing (:meth:`FairshareState.choose`): from the root, among the children
that have a candidate below them the highest dynamic priority wins (ties: the
configuration order) and the walk goes down into it; a group's priority uses
its own shares at its level and the summed usage of its members. Usage is
updated as jobs start/finish (:meth:`FairshareState.job_started`,
:meth:`FairshareState.job_finished`) so the next choice in the same pass sees
it. :func:`fairshare_order` is the whole loop for one queue.

Host-partition fairshare needs nothing special: build the tree from the
partition's USER_SHARES (:func:`partition_user_shares`) and sum each user's
usage over the jobs running on the partition's hosts, whatever their queue;
every queue using those hosts then shares that one :class:`FairshareState`.

Queue-based fairshare (SLOT_POOL / SLOT_SHARE in lsb.queues):
:func:`parse_slot_pools` and :func:`slot_pool_allocation`.

lsfemu's choices where LSF's documents leave room (docs/semantics.md repeats
them): a user is resolved at each level by explicit entries first (own name,
``group@`` members, then groups in configuration order), then by the first
of ``default`` / ``others`` / ``all`` in configuration order; when a user is
assigned twice at one level the first assignment wins; ``all`` and
``others`` differ only in name once explicit entries are taken; ``default``
inside a group's USER_SHARES applies to the group's direct members (users
and subgroups) not listed; the committed term counts ``max(0, committed −
run)`` per job; usage is charged to the job's user only (bsub -G is not
modelled).
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence, TypeVar

#: The smallest denominator LSF uses (so priority <= 100 x shares).
MIN_DENOMINATOR = 0.01

# LSF 10's defaults for the formula's parameters.
DEFAULTS: dict[str, Any] = {
    "CPU_TIME_FACTOR": 0.7,
    "RUN_TIME_FACTOR": 0.7,
    "RUN_JOB_FACTOR": 3.0,
    "COMMITTED_RUN_TIME_FACTOR": 0.0,
    "FAIRSHARE_ADJUSTMENT_FACTOR": 0.0,
    "FWD_JOB_FACTOR": None,
    "GPU_RUN_TIME_FACTOR": 0.0,
    "HIST_HOURS": 5.0,
    "ENABLE_HIST_RUN_TIME": False,
    "RUN_TIME_DECAY": False,
    "ENABLE_GPU_HIST_RUN_TIME": False,
}
# lsb.params / lsb.queues key -> Factors attribute.
FACTOR_KEYS: dict[str, str] = {
    "CPU_TIME_FACTOR": "cpu_time_factor",
    "RUN_TIME_FACTOR": "run_time_factor",
    "RUN_JOB_FACTOR": "run_job_factor",
    "COMMITTED_RUN_TIME_FACTOR": "committed_run_time_factor",
    "FAIRSHARE_ADJUSTMENT_FACTOR": "fairshare_adjustment_factor",
    "FWD_JOB_FACTOR": "fwd_job_factor",
    "GPU_RUN_TIME_FACTOR": "gpu_run_time_factor",
    "HIST_HOURS": "hist_hours",
    "ENABLE_HIST_RUN_TIME": "enable_hist_run_time",
    "RUN_TIME_DECAY": "run_time_decay",
    "ENABLE_GPU_HIST_RUN_TIME": "enable_gpu_hist_run_time",
}
_BOOL_KEYS = ("ENABLE_HIST_RUN_TIME", "RUN_TIME_DECAY", "ENABLE_GPU_HIST_RUN_TIME")


# =============================================================================
# Factors
# =============================================================================


@dataclass(frozen=True)
class Factors:
    """The parameters of the dynamic priority formula (LSF's defaults)."""

    cpu_time_factor: float = 0.7
    run_time_factor: float = 0.7
    run_job_factor: float = 3.0
    committed_run_time_factor: float = 0.0
    fairshare_adjustment_factor: float = 0.0
    fwd_job_factor: float | None = None  # None: not defined, the term is absent
    gpu_run_time_factor: float = 0.0
    hist_hours: float = 5.0
    enable_hist_run_time: bool = False
    run_time_decay: bool = False
    enable_gpu_hist_run_time: bool = False


def _yes_no(value: str | None) -> bool | None:
    if value is None:
        return None
    v = value.strip().strip('"').strip().upper()
    if v in ("Y", "YES"):
        return True
    if v in ("N", "NO"):
        return False
    return None


def effective_factors(params: Any, queue: Any = None) -> tuple[Factors, dict[str, str]]:
    """The factors one queue uses, and where each came from.

    *params* is a :class:`lsfemu.config.model.Params`, *queue* a
    :class:`~lsfemu.config.model.QueueConf` or None (cluster-wide values, as
    the adjustment plug-in gets them). Order: the queue's own value
    (``QueueConf.factors``; ENABLE_HIST_RUN_TIME / RUN_TIME_DECAY /
    ENABLE_GPU_HIST_RUN_TIME from ``QueueConf.extra``), else lsb.params when
    the file sets the key (``Params.lines``), else LSF's default. The second
    item maps each upper-case key to ``"queue"``, ``"lsb.params"`` or
    ``"default"``.
    """
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    plines = getattr(params, "lines", {}) or {}
    pextra = getattr(params, "extra", {}) or {}
    qfactors = (getattr(queue, "factors", {}) or {}) if queue is not None else {}
    qextra = (getattr(queue, "extra", {}) or {}) if queue is not None else {}
    for key, attr in FACTOR_KEYS.items():
        if key in _BOOL_KEYS:
            qv = _yes_no(qextra.get(key))
            if qv is not None:
                values[attr], sources[key] = qv, "queue"
                continue
            if key in plines and hasattr(params, attr):
                values[attr], sources[key] = bool(getattr(params, attr)), "lsb.params"
                continue
            pv = _yes_no(pextra.get(key))
            if pv is not None:
                values[attr], sources[key] = pv, "lsb.params"
                continue
            values[attr], sources[key] = DEFAULTS[key], "default"
            continue
        if key in qfactors:
            values[attr], sources[key] = float(qfactors[key]), "queue"
        elif key in plines and getattr(params, attr, None) is not None:
            values[attr], sources[key] = float(getattr(params, attr)), "lsb.params"
        else:
            values[attr], sources[key] = DEFAULTS[key], "default"
    return Factors(**values), sources


# =============================================================================
# Decay
# =============================================================================


def decay_factor(elapsed_hours: float, hist_hours: float) -> float:
    """What 1 hour of usage is worth *elapsed_hours* later: 0.1 after HIST_HOURS.

    ``0.1 ** (elapsed / hist_hours)``; HIST_HOURS <= 0 means no decay (1.0),
    as LSF documents for HIST_HOURS=0. Negative elapsed time counts as 0.
    """
    if hist_hours <= 0:
        return 1.0
    return 0.1 ** (max(0.0, elapsed_hours) / hist_hours)


def decayed(value: float, elapsed_hours: float, hist_hours: float) -> float:
    """*value* (hours) after *elapsed_hours* of decay."""
    return value * decay_factor(elapsed_hours, hist_hours)


def accrued(duration_hours: float, hist_hours: float, since_end_hours: float = 0.0) -> float:
    """Decayed worth, *since_end_hours* after the end, of usage accrued at a
    rate of 1 per hour during *duration_hours* (each moment decays from when
    it happened: ``∫ 0.1^(age/H)``). Without decay it is *duration_hours*."""
    d = max(0.0, duration_hours)
    if hist_hours <= 0:
        return d
    k = math.log(10.0) / hist_hours
    return (math.exp(-k * max(0.0, since_end_hours)) - math.exp(-k * (max(0.0, since_end_hours) + d))) / k


# =============================================================================
# Usage
# =============================================================================


@dataclass(frozen=True)
class Usage:
    """What an account has used, in hours and slots (one job, a user, a group).

    ``cpu_time`` decayed CPU hours; ``hist_run_time`` decayed run hours of
    finished jobs; ``run_time`` run hours of running jobs (decayed when
    RUN_TIME_DECAY=Y); ``committed_run_time`` committed hours (bsub -W or the
    queue's RUNLIMIT) of running jobs; ``job_slots`` slots of started jobs
    (running or suspended: the STARTED column); ``reserved_slots`` slots
    reserved for pending jobs (RESERVED); the formula's job_slots is their
    sum. ``fwd_job_slots`` forwarded slots (multicluster); GPU: the term is
    ``(hist_gpu_run_time + gpu_run_time) × ngpus_physical``; ``adjustment``
    the plug-in's value.

    Adding usages (``+``, ``sum(..., Usage())``) keeps the formula exact:
    the committed term counts ``max(0, committed − run)`` per job (a job with
    no -W/RUNLIMIT adds nothing, as LSF documents), and the GPU times of a
    sum are averages weighted by ngpus_physical, which is the total of the
    GPUs whose time it holds, so ``gpu_hours`` is the sum of the parts.
    """

    cpu_time: float = 0.0
    hist_run_time: float = 0.0
    run_time: float = 0.0
    committed_run_time: float = 0.0
    job_slots: float = 0.0
    reserved_slots: float = 0.0
    fwd_job_slots: float = 0.0
    gpu_run_time: float = 0.0
    hist_gpu_run_time: float = 0.0
    ngpus_physical: float = 0.0
    adjustment: float = 0.0

    @property
    def remaining_commitment(self) -> float:
        """committed_run_time − run_time, never below 0."""
        return max(0.0, self.committed_run_time - self.run_time)

    def gpu_hours(self, with_history: bool = True) -> float:
        return ((self.hist_gpu_run_time if with_history else 0.0) + self.gpu_run_time) * self.ngpus_physical

    def __add__(self, other: object) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        run = self.run_time + other.run_time
        n = self.ngpus_physical + other.ngpus_physical
        if n > 0:
            g = (self.gpu_run_time * self.ngpus_physical + other.gpu_run_time * other.ngpus_physical) / n
            hg = (self.hist_gpu_run_time * self.ngpus_physical + other.hist_gpu_run_time * other.ngpus_physical) / n
        else:
            g = self.gpu_run_time + other.gpu_run_time
            hg = self.hist_gpu_run_time + other.hist_gpu_run_time
        return Usage(
            cpu_time=self.cpu_time + other.cpu_time,
            hist_run_time=self.hist_run_time + other.hist_run_time,
            run_time=run,
            committed_run_time=run + self.remaining_commitment + other.remaining_commitment,
            job_slots=self.job_slots + other.job_slots,
            reserved_slots=self.reserved_slots + other.reserved_slots,
            fwd_job_slots=self.fwd_job_slots + other.fwd_job_slots,
            gpu_run_time=g,
            hist_gpu_run_time=hg,
            ngpus_physical=n,
            adjustment=self.adjustment + other.adjustment,
        )

    def __radd__(self, other: object) -> Usage:
        if other == 0:  # sum() without a start value
            return self
        return NotImplemented  # type: ignore[return-value]


_ZERO = Usage()


def job_usage(
    *,
    slots: float,
    start_s: float | None,
    now_s: float,
    end_s: float | None = None,
    run_s: float | None = None,
    cpu_s: float = 0.0,
    committed_s: float | None = None,
    ngpus_physical: float = 0.0,
    factors: Factors = Factors(),
    reserved: bool = False,
) -> Usage:
    """One job's contribution at *now_s* (all times in seconds, e.g. epoch).

    Running (``end_s`` None): slots, run time (decayed accrual with
    RUN_TIME_DECAY), committed time (``committed_s`` from bsub -W or the
    queue's RUNLIMIT; None = none), CPU time decayed, GPU run time when
    ``ngpus_physical`` > 0. Finished: no slots, its run time becomes
    historical run time (counted only with ENABLE_HIST_RUN_TIME) and GPU run
    time historical GPU run time; all keep decaying from the end. A pending
    job with reserved slots: ``reserved=True`` (only ``reserved_slots``).

    *run_s* is the time the job has run by then (suspended time excluded;
    None: the whole span since *start_s*). CPU and run time are taken as used
    evenly over the span from the start to the end (or *now_s*), each part
    decaying from when it was used. The same arithmetic gives a job's usage
    while it runs and what its end adds to the history (:class:`History`),
    so nothing jumps when a job ends.
    """
    if reserved or start_s is None:
        return Usage(reserved_slots=float(slots) if reserved else 0.0)
    h = factors.hist_hours
    stop = now_s if end_s is None else min(end_s, now_s)
    span_h = max(0.0, stop - start_s) / 3600.0
    ran_h = span_h if run_s is None else min(span_h, max(0.0, run_s) / 3600.0)
    since_end_h = 0.0 if end_s is None else max(0.0, now_s - end_s) / 3600.0
    # What one hour used evenly over the span is worth now (decay since each moment).
    worth = accrued(span_h, h, since_end_h) / span_h if span_h > 0 else decay_factor(since_end_h, h)
    cpu = (cpu_s / 3600.0) * worth
    if end_s is None:
        return Usage(
            cpu_time=cpu, run_time=ran_h * worth if factors.run_time_decay else ran_h,
            committed_run_time=(committed_s or 0.0) / 3600.0, job_slots=float(slots),
            gpu_run_time=ran_h if ngpus_physical > 0 else 0.0, ngpus_physical=float(ngpus_physical),
        )
    # Run time without RUN_TIME_DECAY counts whole while the job runs and
    # decays from its end; with it, as CPU time does.
    run_done = ran_h * worth if factors.run_time_decay else decayed(ran_h, since_end_h, h)
    return Usage(
        cpu_time=cpu,
        hist_run_time=run_done,
        hist_gpu_run_time=decayed(ran_h, since_end_h, h) if ngpus_physical > 0 else 0.0,
        ngpus_physical=float(ngpus_physical),
    )


@dataclass(frozen=True)
class History:
    """An account's usage by runs that ended (finished, requeued, rerun or
    migrated jobs), decayed to the instant *at* (seconds): CPU seconds,
    run seconds (historical run time) and GPU seconds times GPUs. This is
    what the store keeps per user and fairshare scope.

    :meth:`add` takes a run's own :func:`job_usage` at its end, so the
    history grows by exactly what the run counted for while it ran, and
    both decay alike from then on (``0.1 ** (age / HIST_HOURS)``).
    """

    cpu_s: float = 0.0
    run_s: float = 0.0
    gpu_s: float = 0.0
    at: float = 0.0

    def decayed_to(self, t: float, hist_hours: float) -> History:
        """The same history at instant *t* (never earlier than *at*)."""
        t = max(t, self.at)
        k = decay_factor((t - self.at) / 3600.0, hist_hours)
        return History(self.cpu_s * k, self.run_s * k, self.gpu_s * k, t)

    def add(self, end: Usage, t: float, hist_hours: float) -> History:
        """This history at *t* plus a run whose :func:`job_usage` at its end (*t*) is *end*."""
        d = self.decayed_to(t, hist_hours)
        return History(d.cpu_s + end.cpu_time * 3600.0, d.run_s + end.hist_run_time * 3600.0,
                       d.gpu_s + end.hist_gpu_run_time * end.ngpus_physical * 3600.0, d.at)

    def usage(self, t: float, hist_hours: float) -> Usage:
        """What the history counts for at *t*. The GPU seconds are already
        times GPUs: they count as run time on one GPU."""
        d = self.decayed_to(t, hist_hours)
        return Usage(cpu_time=d.cpu_s / 3600.0, hist_run_time=d.run_s / 3600.0, hist_gpu_run_time=d.gpu_s / 3600.0,
                     ngpus_physical=1.0 if d.gpu_s > 0 else 0.0)


# =============================================================================
# The formula
# =============================================================================


@dataclass(frozen=True)
class Term:
    """One term of the denominator, for `lsfemu explain priority`."""

    name: str  # as LSF writes it, e.g. "(1 + job_slots)"
    value: float  # the usage part
    factor: float | None  # None: factor not defined
    factor_name: str  # CPU_TIME_FACTOR, ...
    weighted: float  # value x factor when present, else 0
    present: bool  # whether LSF includes the term with these factors
    why_absent: str = ""


def priority_terms(shares: float, usage: Usage, factors: Factors) -> list[Term]:
    """The seven terms of the denominator (absent ones weigh 0). *shares* is
    accepted for symmetry with :func:`dynamic_priority`; it is not a term."""
    del shares
    out: list[Term] = []

    def add(name, value, factor, fname, present=True, why=""):
        w = value * factor if present and factor is not None else 0.0
        out.append(Term(name, value, factor, fname, w, present, "" if present else why))

    f = factors
    add("cpu_time", usage.cpu_time, f.cpu_time_factor, "CPU_TIME_FACTOR")
    if f.enable_hist_run_time:
        add("(historical_run_time + run_time)", usage.hist_run_time + usage.run_time, f.run_time_factor,
            "RUN_TIME_FACTOR")
    else:
        add("run_time", usage.run_time, f.run_time_factor, "RUN_TIME_FACTOR")
    add("(committed_run_time - run_time)", usage.remaining_commitment, f.committed_run_time_factor,
        "COMMITTED_RUN_TIME_FACTOR", present=f.committed_run_time_factor != 0,
        why="COMMITTED_RUN_TIME_FACTOR is 0")
    add("(1 + job_slots)", 1.0 + usage.job_slots + usage.reserved_slots, f.run_job_factor, "RUN_JOB_FACTOR")
    add("(1 + fwd_job_slots)", 1.0 + usage.fwd_job_slots, f.fwd_job_factor, "FWD_JOB_FACTOR",
        present=f.fwd_job_factor is not None, why="FWD_JOB_FACTOR is not defined")
    add("fairshare_adjustment", usage.adjustment, f.fairshare_adjustment_factor, "FAIRSHARE_ADJUSTMENT_FACTOR")
    gname = ("(historical_gpu_run_time + gpu_run_time) * ngpus_physical" if f.enable_gpu_hist_run_time
             else "gpu_run_time * ngpus_physical")
    add(gname, usage.gpu_hours(f.enable_gpu_hist_run_time), f.gpu_run_time_factor, "GPU_RUN_TIME_FACTOR")
    return out


def denominator(usage: Usage, factors: Factors) -> float:
    """The raw denominator (before the 0.01 floor); the sum of
    :func:`priority_terms`' weighted values, computed without building them."""
    f, u = factors, usage
    d = u.cpu_time * f.cpu_time_factor
    d += ((u.hist_run_time if f.enable_hist_run_time else 0.0) + u.run_time) * f.run_time_factor
    if f.committed_run_time_factor != 0:
        d += u.remaining_commitment * f.committed_run_time_factor
    d += (1.0 + u.job_slots + u.reserved_slots) * f.run_job_factor
    if f.fwd_job_factor is not None:
        d += (1.0 + u.fwd_job_slots) * f.fwd_job_factor
    d += u.adjustment * f.fairshare_adjustment_factor
    if f.gpu_run_time_factor != 0:
        d += u.gpu_hours(f.enable_gpu_hist_run_time) * f.gpu_run_time_factor
    return d


def dynamic_priority(shares: float, usage: Usage, factors: Factors) -> float:
    """shares / max(denominator, 0.01)."""
    d = denominator(usage, factors)
    if not d >= MIN_DENOMINATOR:  # also catches NaN
        d = MIN_DENOMINATOR
    return shares / d


# =============================================================================
# USER_SHARES syntax
# =============================================================================


class ShareSyntaxError(ValueError):
    """A USER_SHARES text LSF would refuse; the message says what was expected."""


_NAME = re.compile(r"[^\s,\[\]()]+")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")


def _show(text: str, pos: int) -> str:
    rest = text[pos:pos + 20]
    return repr(rest) if rest else "the end of the text"


def parse_user_shares(text: str) -> list[tuple[str, float]]:
    """``USER_SHARES[[a, 1] [b, 2]]`` or ``[a, 1] [b, 2]`` -> ``[("a", 1.0), ("b", 2.0)]``.

    Spaces are free around brackets and commas (``USER_SHARES [ [a,1] [b , 2] ]``);
    a parenthesised list (lsb.users style, ``([a, 1])``) is accepted too.
    Shares must be positive numbers; a name may appear once. Empty text -> [].
    """
    if not isinstance(text, str):
        raise ShareSyntaxError(f"USER_SHARES: expected text, got {type(text).__name__}")
    s = text
    pos = 0
    end = len(s)

    def skip(p: int) -> int:
        while p < end and s[p].isspace():
            p += 1
        return p

    def rskip(e: int) -> int:
        while e > pos and s[e - 1].isspace():
            e -= 1
        return e

    pos = skip(pos)
    end = rskip(end)
    m = re.match(r"USER_SHARES", s[pos:end], re.IGNORECASE)
    if m:
        pos = skip(pos + m.end())
        if pos >= end or s[pos] != "[":
            raise ShareSyntaxError(f"USER_SHARES: expected '[' after USER_SHARES "
                                   f"(USER_SHARES[[name, shares] ...]), got {_show(s, pos)}")
        if s[end - 1] != "]":
            raise ShareSyntaxError("USER_SHARES: expected the list to end with ']' "
                                   "(USER_SHARES[[name, shares] ...])")
        pos, end = skip(pos + 1), rskip(end - 1)
    elif pos < end and s[pos] == "(":
        if s[end - 1] != ")":
            raise ShareSyntaxError("USER_SHARES: expected ')' to close the share list that starts with '('")
        pos, end = skip(pos + 1), rskip(end - 1)
    elif pos < end and s[pos] == "[" and skip(pos + 1) < end and s[skip(pos + 1)] == "[":
        # outer brackets without the keyword: [[a, 1] [b, 2]]
        if s[end - 1] != "]":
            raise ShareSyntaxError("USER_SHARES: expected ']' to close the share list that starts with '[['")
        pos, end = skip(pos + 1), rskip(end - 1)

    out: list[tuple[str, float]] = []
    seen: set[str] = set()
    while True:
        pos = skip(pos)
        if pos >= end:
            break
        if s[pos] != "[":
            raise ShareSyntaxError(f"USER_SHARES: expected '[' to open a share assignment [name, shares] "
                                   f"at character {pos + 1}, got {_show(s, pos)}")
        pos = skip(pos + 1)
        nm = _NAME.match(s, pos, end)
        if nm is None:
            raise ShareSyntaxError(f"USER_SHARES: expected a user or group name after '[' "
                                   f"at character {pos + 1}, got {_show(s, pos)}")
        name = nm.group(0)
        pos = skip(nm.end())
        if pos >= end or s[pos] != ",":
            raise ShareSyntaxError(f"USER_SHARES: expected ',' between the name {name!r} and its number of shares "
                                   f"at character {pos + 1}, got {_show(s, pos)}")
        pos = skip(pos + 1)
        num = _NUMBER.match(s, pos, end)
        if num is None:
            raise ShareSyntaxError(f"USER_SHARES: expected a positive number of shares for {name!r} "
                                   f"at character {pos + 1}, got {_show(s, pos)}")
        value = float(num.group(0))
        pos = skip(num.end())
        if pos >= end or s[pos] != "]":
            raise ShareSyntaxError(f"USER_SHARES: expected ']' to close [{name}, {num.group(0)}] "
                                   f"at character {pos + 1}, got {_show(s, pos)}")
        pos += 1
        if not (value > 0 and math.isfinite(value)):
            raise ShareSyntaxError(f"USER_SHARES: expected a positive number of shares for {name!r}, "
                                   f"got {num.group(0)}")
        if name in seen:
            raise ShareSyntaxError(f"USER_SHARES: {name!r} is given shares twice")
        seen.add(name)
        out.append((name, value))
    return out


# =============================================================================
# Share trees
# =============================================================================

ROOT = "root"
USER = "user"  # one user's account
GROUP = "group"  # one account for a whole group (members compete FCFS inside)
SUBTREE = "subtree"  # a group with its own USER_SHARES: an internal node
OTHERS = "others"  # one account for everybody not covered otherwise
ALL = "all"  # one account for all users


@dataclass(eq=False)
class ShareNode:
    """One share account (or the root / a subtree)."""

    name: str
    shares: float
    kind: str
    parent: ShareNode | None = field(default=None, repr=False)
    children: list[ShareNode] = field(default_factory=list, repr=False)
    group: str | None = None  # lsb.users group behind GROUP/SUBTREE
    members: frozenset[str] | None = None  # GROUP: users covered (None with everybody=True)
    everybody: bool = False  # GROUP whose members include "all"
    origin: str = "listed"  # listed | group@ | default
    # internal nodes only: how to catch users nobody lists (config order)
    catch: list[Any] = field(default_factory=list, repr=False)
    default_shares: float | None = None
    default_index: int = 0

    @property
    def is_account_leaf(self) -> bool:
        return self.kind in (USER, GROUP, OTHERS, ALL)

    @property
    def is_group(self) -> bool:
        return self.kind in (GROUP, SUBTREE, OTHERS, ALL)

    def path_names(self) -> tuple[str, ...]:
        out: list[str] = []
        n: ShareNode | None = self
        while n is not None and n.kind != ROOT:
            out.append(n.name)
            n = n.parent
        return tuple(reversed(out))


class ShareTree:
    """The share accounts of one queue or host partition (see the module doc)."""

    def __init__(self, root: ShareNode, user_groups: dict[str, Any], known_users: Iterable[str]):
        self.root = root
        self._groups = user_groups
        self._known = set(known_users)
        self._paths: dict[str, list[ShareNode] | None] = {}
        self._member_cache: dict[str, tuple[frozenset[str], bool]] = {}
        self.grown = 0  # default accounts made on first sight since the build (see account_path)

    # -- membership ---------------------------------------------------------
    def group_members(self, group: str) -> tuple[frozenset[str], bool]:
        """(users of *group* recursively, whether "all" is among them)."""
        if group in self._member_cache:
            return self._member_cache[group]
        users: set[str] = set()
        everybody = False
        stack, seen = [group], set()
        while stack:
            g = stack.pop()
            if g in seen or g not in self._groups:
                continue
            seen.add(g)
            for m in self._groups[g].members:
                if m == "all":
                    everybody = True
                elif m in self._groups:
                    stack.append(m)
                else:
                    users.add(m)
        res = (frozenset(users), everybody)
        self._member_cache[group] = res
        return res

    def _is_member(self, group: str, user: str) -> bool:
        users, everybody = self.group_members(group)
        return everybody or user in users

    # -- resolution ----------------------------------------------------------
    def account_path(self, user: str) -> list[ShareNode] | None:
        """Nodes from the top level down to *user*'s account (root excluded),
        or None when the user has no share account (cannot run here).
        A ``default`` account is created the first time a user needs it."""
        if user not in self._paths:
            self._paths[user] = self._resolve(self.root, user)
        return self._paths[user]

    def account(self, user: str) -> ShareNode | None:
        p = self.account_path(user)
        return p[-1] if p else None

    def _resolve(self, node: ShareNode, user: str) -> list[ShareNode] | None:
        for c in node.children:
            if c.kind == USER and c.name == user:
                return [c]
        for c in node.children:
            if c.kind == GROUP and (c.everybody or (c.members is not None and user in c.members)):
                return [c]
            if c.kind == SUBTREE and c.group is not None and self._is_member(c.group, user):
                sub = self._resolve(c, user)
                if sub is not None:
                    return [c] + sub
        for catch in node.catch:
            if catch == "default":
                self.grown += 1
                leaf = ShareNode(user, node.default_shares or 0.0, USER, parent=node, origin="default")
                node.children.insert(node.default_index, leaf)
                node.default_index += 1
                return [leaf]
            return [catch]
        return None

    # -- queries -------------------------------------------------------------
    def node(self, level_path: Sequence[str] = ()) -> ShareNode:
        """The node at *level_path* (names from the top level down); () is the root."""
        n = self.root
        for name in level_path:
            matches = [c for c in n.children if c.name == name]
            if not matches:
                raise KeyError(f"no share account {'/'.join(level_path)!r}")
            n = next((c for c in matches if c.kind == SUBTREE), matches[0])
        return n

    def levels(self) -> list[tuple[str, ...]]:
        """Paths of the root and every subtree, depth first (bqueues -r order)."""
        out: list[tuple[str, ...]] = []

        def walk(n: ShareNode) -> None:
            out.append(n.path_names())
            for c in n.children:
                if c.kind == SUBTREE:
                    walk(c)

        walk(self.root)
        return out

    def fraction(self, node: ShareNode) -> float:
        """node's shares / the shares of all accounts at its level."""
        if node.parent is None:
            return 1.0
        total = sum(c.shares for c in node.parent.children)
        return node.shares / total if total > 0 else 0.0

    def entitlement(self, user: str) -> float:
        """Product of the user's fractions along the path (0 with no account).
        In a shared account (group, others, all) this is the account's."""
        path = self.account_path(user)
        if not path:
            return 0.0
        out = 1.0
        for n in path:
            out *= self.fraction(n)
        return out

    def iter_nodes(self) -> Iterable[ShareNode]:
        stack = [self.root]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))


def _group_users_ordered(user_groups: dict[str, Any], group: str, known_users: Iterable[str]) -> list[str]:
    """Members of *group* recursively, in configuration order (all -> known users, sorted)."""
    out: list[str] = []
    seen_users: set[str] = set()
    seen_groups: set[str] = set()

    def walk(g: str) -> None:
        if g in seen_groups or g not in user_groups:
            return
        seen_groups.add(g)
        for m in user_groups[g].members:
            if m == "all":
                for u in sorted(known_users):
                    if u not in seen_users:
                        seen_users.add(u)
                        out.append(u)
            elif m in user_groups:
                walk(m)
            elif m not in seen_users:
                seen_users.add(m)
                out.append(m)

    walk(group)
    return out


def build_tree(fairshare_text: str, user_groups: dict[str, Any] | None = None,
               known_users: Iterable[str] = ()) -> ShareTree:
    """The share tree of a queue's FAIRSHARE (or a HostPartition's USER_SHARES).

    *user_groups* maps group names to :class:`~lsfemu.config.model.UserGroupConf`
    (members, user_shares). *known_users*: the users that exist (their
    ``default`` accounts are created now, in name order; anybody else gets one
    on first sight). Raises :class:`ShareSyntaxError` for bad USER_SHARES
    texts (the queue's or a group's) and for ``name@`` that is no group.
    """
    groups = dict(user_groups or {})
    known = set(known_users)
    root = ShareNode("", 0.0, ROOT)
    tree = ShareTree(root, groups, known)
    _build_level(tree, root, parse_user_shares(fairshare_text or ""), groups, known, scope=None, stack=())
    for u in sorted(known):
        tree.account_path(u)
    tree.grown = 0  # (those made here are the tree's own)
    return tree


def _build_level(tree: ShareTree, node: ShareNode, entries: list[tuple[str, float]], groups: dict[str, Any],
                 known: set[str], scope: str | None, stack: tuple[str, ...]) -> None:
    listed_users: set[str] = set()
    listed_groups: set[str] = set()
    for name, shares in entries:
        if name == "default":
            node.default_shares = shares
            node.default_index = len(node.children)
            node.catch.append("default")
        elif name in (OTHERS, ALL):
            child = ShareNode(name, shares, OTHERS if name == OTHERS else ALL, parent=node)
            node.children.append(child)
            node.catch.append(child)
        elif name.endswith("@") and len(name) > 1:
            g = name[:-1]
            if g not in groups:
                raise ShareSyntaxError(f"USER_SHARES: {name!r}: there is no user group {g!r} "
                                       f"(name@ assigns shares to each member of a group)")
            listed_groups.add(g)
            for u in _group_users_ordered(groups, g, known):
                if u in listed_users:
                    continue  # the first assignment of a user wins
                listed_users.add(u)
                node.children.append(ShareNode(u, shares, USER, parent=node, origin="group@"))
        elif name in groups:
            listed_groups.add(name)
            node.children.append(_group_account(tree, name, shares, node, groups, known, stack))
        else:
            if name in listed_users:
                continue
            listed_users.add(name)
            node.children.append(ShareNode(name, shares, USER, parent=node))
    # default inside a group's share tree: each unlisted member (user or subgroup) gets its account now.
    if scope is not None and node.default_shares is not None and node.catch and node.catch[0] == "default":
        for m in groups[scope].members:
            if m == "all" or m in listed_users or m in listed_groups:
                continue
            if m in groups:
                acct = _group_account(tree, m, node.default_shares, node, groups, known, stack)
                acct.origin = "default"
                node.children.insert(node.default_index, acct)
            else:
                node.children.insert(node.default_index, ShareNode(m, node.default_shares, USER, parent=node,
                                                                   origin="default"))
            node.default_index += 1


def _group_account(tree: ShareTree, group: str, shares: float, parent: ShareNode, groups: dict[str, Any],
                   known: set[str], stack: tuple[str, ...]) -> ShareNode:
    conf = groups[group]
    text = getattr(conf, "user_shares", None)
    if text and text.strip() and group not in stack:
        sub = ShareNode(group, shares, SUBTREE, parent=parent, group=group)
        try:
            entries = parse_user_shares(text)
        except ShareSyntaxError as e:
            raise ShareSyntaxError(f"user group {group}: {e}") from None
        _build_level(tree, sub, entries, groups, known, scope=group, stack=stack + (group,))
        return sub
    users, everybody = tree.group_members(group)
    return ShareNode(group, shares, GROUP, parent=parent, group=group, members=users, everybody=everybody)


# =============================================================================
# Scheduling state
# =============================================================================


@dataclass(frozen=True)
class ShareRow:
    """One row of a SHARE_INFO_FOR block."""

    name: str
    shares: float
    priority: float
    started: int
    reserved: int
    cpu_time_s: float
    run_time_s: int
    adjust: float
    is_group: bool = False


@dataclass(frozen=True)
class LevelInfo:
    name: str
    kind: str
    shares: float
    level_shares: float  # total shares of the accounts at this level
    fraction: float
    priority: float


@dataclass(frozen=True)
class Explanation:
    """Everything `lsfemu explain priority` prints for one user."""

    user: str
    covered: bool  # False: no share account, cannot run
    account: str | None
    account_kind: str | None
    levels: list[LevelInfo]
    usage: Usage
    factors: Factors
    terms: list[Term]
    raw_denominator: float
    denominator: float
    floored: bool
    shares: float
    priority: float
    entitlement: float


Adjust = Callable[[ShareNode, Usage], float]


class FairshareState:
    """Dynamic priorities over a share tree, updated as jobs start and finish.

    *usage_by_user* maps each user to their summed :class:`Usage` in this
    queue (or host partition). *adjust*, when given, is called as
    ``adjust(account_node, summed_usage)`` and its result is the
    fairshare_adjustment of that account (see
    :func:`lsfemu.sched.fairshare_plugins.make_adjust`).

    Priorities are cached until the usage under a node changes; call
    :meth:`invalidate` if the data behind *adjust* changes (setting
    ``adjust`` or ``factors`` does it).
    """

    def __init__(self, tree: ShareTree, factors: Factors, usage_by_user: dict[str, Usage] | None = None,
                 adjust: Adjust | None = None):
        self.tree = tree
        self._factors = factors
        self._adjust = adjust
        self._usage: dict[str, Usage] = dict(usage_by_user or {})
        self._agg: dict[int, Usage] | None = None
        self._prio: dict[int, float] = {}

    @property
    def factors(self) -> Factors:
        return self._factors

    @factors.setter
    def factors(self, value: Factors) -> None:
        self._factors = value
        self._prio.clear()

    @property
    def adjust(self) -> Adjust | None:
        return self._adjust

    @adjust.setter
    def adjust(self, value: Adjust | None) -> None:
        self._adjust = value
        self._prio.clear()

    def invalidate(self) -> None:
        """Forget cached sums and priorities."""
        self._agg = None
        self._prio.clear()

    # -- usage ---------------------------------------------------------------
    def user_usage(self, user: str) -> Usage:
        return self._usage.get(user, _ZERO)

    def set_usage(self, user: str, usage: Usage) -> None:
        self._usage[user] = usage
        self.invalidate()

    def _aggregate(self) -> dict[int, Usage]:
        if self._agg is None:
            agg: dict[int, Usage] = {}
            for user in sorted(self._usage):
                path = self.tree.account_path(user)
                if not path:
                    continue
                u = self._usage[user]
                for n in path:
                    agg[id(n)] = agg[id(n)] + u if id(n) in agg else u
            self._agg = agg
        return self._agg

    def users_under(self, node: ShareNode) -> list[str]:
        """Users with recorded usage whose account is *node* or below it
        (e.g. ``make_adjust(..., members_of=state.users_under)``)."""
        out = []
        for user in sorted(self._usage):
            path = self.tree.account_path(user)
            if path and (node.kind == ROOT or any(n is node for n in path)):
                out.append(user)
        return out

    def usage(self, node: ShareNode) -> Usage:
        """The summed usage of everybody under *node* (adjustment applied)."""
        u = self._aggregate().get(id(node), _ZERO)
        if self._adjust is not None and node.kind != ROOT:
            u = replace(u, adjustment=float(self._adjust(node, u)))
        return u

    def priority(self, node: ShareNode) -> float:
        p = self._prio.get(id(node))
        if p is None:
            p = self._prio[id(node)] = dynamic_priority(node.shares, self.usage(node), self._factors)
        return p

    def user_priority(self, user: str) -> float | None:
        """The dynamic priority of the user's account (None: no account)."""
        acct = self.tree.account(user)
        return None if acct is None else self.priority(acct)

    # -- choosing ------------------------------------------------------------
    def choose_account(self, candidates: Iterable[str]) -> tuple[ShareNode, list[str]] | None:
        """The account the walk ends in and its candidates in the given order."""
        cands = _ordered(candidates)
        live: list[tuple[str, list[ShareNode]]] = []
        below: set[int] = set()
        for u in cands:
            p = self.tree.account_path(u)
            if p:
                live.append((u, p))
                below.update(id(n) for n in p)
        if not live:
            return None
        node = self.tree.root
        while not node.is_account_leaf:
            best: ShareNode | None = None
            best_p = -math.inf
            for c in node.children:
                if id(c) not in below:
                    continue
                p = self.priority(c)
                if best is None or (p > best_p and not math.isclose(p, best_p, rel_tol=1e-12, abs_tol=0.0)):
                    best, best_p = c, p
            if best is None:
                return None
            node = best
        return node, [u for u, p in live if p[-1] is node]

    def choose(self, candidates: Iterable[str]) -> str | None:
        """The user whose job goes next, or None when no candidate has an account.

        Inside a shared account (a group without a share tree, ``others``,
        ``all``) members compete first come, first served: the first such
        candidate in the iteration order of *candidates* wins, so pass users
        ordered by their best pending job (a list). A set is taken in name
        order, for determinism.
        """
        res = self.choose_account(candidates)
        return None if res is None else res[1][0]

    # -- events --------------------------------------------------------------
    def job_started(self, user: str, slots: float, committed_run_time_h: float = 0.0,
                    ngpus_physical: float = 0.0) -> None:
        """A job of *user* started: its slots (and committed run time) count at once."""
        delta = Usage(job_slots=float(slots), committed_run_time=float(committed_run_time_h),
                      ngpus_physical=float(ngpus_physical))
        agg, prio = self._agg, self._prio
        self._usage[user] = self.user_usage(user) + delta
        path = self.tree.account_path(user)
        if agg is None or not path:
            self.invalidate()
            return
        # Usage addition is associative for every term: update the sums along the path only.
        for n in path:
            agg[id(n)] = agg[id(n)] + delta if id(n) in agg else delta
            prio.pop(id(n), None)

    def job_finished(self, user: str, slots: float, run_time_h: float = 0.0, committed_run_time_h: float = 0.0,
                     ngpus_physical: float = 0.0, gpu_run_time_h: float | None = None) -> None:
        """A job of *user* finished after *run_time_h* hours (as counted while
        it ran): slots, run time and commitment leave at once, the run time
        becomes historical run time (counted only with ENABLE_HIST_RUN_TIME,
        then decaying), its GPU run time (*gpu_run_time_h*, default the run
        time) becomes historical GPU run time."""
        u = self.user_usage(user)
        r = float(run_time_h)
        rem = max(0.0, u.remaining_commitment - max(0.0, float(committed_run_time_h) - r))
        run = max(0.0, u.run_time - r)
        n = u.ngpus_physical
        g, hg = u.gpu_run_time, u.hist_gpu_run_time
        if ngpus_physical > 0 and n > 0:
            moved = (r if gpu_run_time_h is None else float(gpu_run_time_h)) * float(ngpus_physical)
            g = max(0.0, (u.gpu_run_time * n - moved) / n)
            hg = (u.hist_gpu_run_time * n + moved) / n
        self.set_usage(user, replace(
            u,
            job_slots=max(0.0, u.job_slots - float(slots)),
            run_time=run,
            committed_run_time=run + rem,
            hist_run_time=u.hist_run_time + r,
            gpu_run_time=g,
            hist_gpu_run_time=hg,
        ))

    def reserve(self, user: str, slots: float) -> None:
        """Reserve (positive) or release (negative) slots for a pending job of *user*."""
        u = self.user_usage(user)
        self.set_usage(user, replace(u, reserved_slots=max(0.0, u.reserved_slots + float(slots))))

    # -- display -------------------------------------------------------------
    def share_info(self, level_path: Sequence[str] = ()) -> list[ShareRow]:
        """Rows of the SHARE_INFO_FOR block of one level, in configuration
        order (``default`` accounts where ``default`` is listed, in creation
        order). RUN_TIME is run time plus historical run time when
        ENABLE_HIST_RUN_TIME=Y (LSF: "the sum of the actual, accumulated run
        time and the historical run time")."""
        node = self.tree.node(level_path)
        rows: list[ShareRow] = []
        for c in node.children:
            u = self.usage(c)
            run_h = u.run_time + (u.hist_run_time if self.factors.enable_hist_run_time else 0.0)
            rows.append(ShareRow(
                name=c.name, shares=c.shares, priority=dynamic_priority(c.shares, u, self.factors),
                started=int(round(u.job_slots)), reserved=int(round(u.reserved_slots)),
                cpu_time_s=u.cpu_time * 3600.0, run_time_s=int(round(run_h * 3600.0)),
                adjust=u.adjustment, is_group=c.is_group,
            ))
        return rows

    def entitlement(self, user: str) -> float:
        return self.tree.entitlement(user)

    def explain(self, user: str) -> Explanation:
        path = self.tree.account_path(user)
        if not path:
            u = self.user_usage(user)
            return Explanation(user, False, None, None, [], u, self.factors, priority_terms(0.0, u, self.factors),
                               denominator(u, self.factors), max(denominator(u, self.factors), MIN_DENOMINATOR),
                               False, 0.0, 0.0, 0.0)
        levels = []
        for n in path:
            total = sum(c.shares for c in n.parent.children) if n.parent else n.shares
            levels.append(LevelInfo(n.name, n.kind, n.shares, total, self.tree.fraction(n), self.priority(n)))
        acct = path[-1]
        u = self.usage(acct)
        raw = denominator(u, self.factors)
        floored = not raw >= MIN_DENOMINATOR
        return Explanation(
            user=user, covered=True, account=acct.name, account_kind=acct.kind, levels=levels, usage=u,
            factors=self.factors, terms=priority_terms(acct.shares, u, self.factors), raw_denominator=raw,
            denominator=MIN_DENOMINATOR if floored else raw, floored=floored, shares=acct.shares,
            priority=dynamic_priority(acct.shares, u, self.factors), entitlement=self.tree.entitlement(user),
        )


def _ordered(candidates: Iterable[str]) -> list[str]:
    if isinstance(candidates, (set, frozenset)):
        return sorted(candidates)
    return list(dict.fromkeys(candidates))


J = TypeVar("J")


def fairshare_order(state: FairshareState, jobs: Iterable[J], try_start: Callable[[J], bool], *,
                    committed_h: Callable[[J], float] = lambda j: 0.0,
                    ngpus: Callable[[J], float] = lambda j: 0.0) -> tuple[list[J], list[J]]:
    """Dispatch one fairshare queue's pending jobs in LSF's order.

    Jobs need ``user``, ``slots``, ``priority`` and ``position`` (like
    :class:`lsfemu.sched.dispatch.PendingJob`). Repeatedly: the share tree
    picks the user (:meth:`FairshareState.choose`, users ordered by their best
    job for FCFS inside shared accounts), that user's best job (job priority,
    then submission order) is offered to *try_start*; when it returns True
    the state is charged at once, so the next pick sees the new priority.
    Returns (started, jobs of users without a share account).
    """
    def key(j: J) -> tuple[float, float]:
        return (-getattr(j, "priority", 0), getattr(j, "position", 0))

    queues: dict[str, list[J]] = {}
    for j in sorted(jobs, key=key):
        queues.setdefault(getattr(j, "user"), []).append(j)
    started: list[J] = []
    no_account: list[J] = []
    for user in list(queues):
        if state.tree.account_path(user) is None:
            no_account.extend(queues.pop(user))
    heads = {u: 0 for u in queues}
    # users ordered by their best pending job (FCFS inside shared accounts)
    order = sorted((key(q[0]), n, u) for n, (u, q) in enumerate(queues.items()))
    rank = {u: n for n, u in enumerate(queues)}
    while order:
        user = state.choose([u for _k, _n, u in order])
        if user is None:  # cannot happen: every remaining user has an account
            break
        job = queues[user][heads[user]]
        entry = (key(job), rank[user], user)
        del order[bisect.bisect_left(order, entry)]
        heads[user] += 1
        if heads[user] < len(queues[user]):
            bisect.insort(order, (key(queues[user][heads[user]]), rank[user], user))
        if try_start(job):
            state.job_started(user, getattr(job, "slots", 1), committed_h(job), ngpus(job))
            started.append(job)
    return started, no_account


# =============================================================================
# Queue-based fairshare (SLOT_POOL / SLOT_SHARE)
# =============================================================================


def parse_slot_pools(queues: Iterable[Any]) -> dict[str, list[tuple[str, float]]]:
    """Pools from lsb.queues: pool name -> [(queue, SLOT_SHARE percent)], file order.

    Reads ``QueueConf.extra["SLOT_POOL"]`` / ``["SLOT_SHARE"]`` (``50`` or
    ``50%``); a queue with SLOT_POOL but no valid SLOT_SHARE is left out
    (LSF needs both)."""
    pools: dict[str, list[tuple[str, float]]] = {}
    for q in queues:
        extra = getattr(q, "extra", {}) or {}
        pool = (extra.get("SLOT_POOL") or "").strip()
        share = (extra.get("SLOT_SHARE") or "").strip().rstrip("%").strip()
        if not pool:
            continue
        try:
            value = float(share)
        except ValueError:
            continue
        if not (0 < value <= 100):
            continue
        pools.setdefault(pool, []).append((q.name, value))
    return pools


def slot_pool_allocation(queues: Sequence[tuple[str, float, int]], total_slots: int) -> dict[str, int]:
    """Slots each queue of a pool may use: ``[(name, share, demand_slots)]``.

    Queues with demand compete: each gets slots in proportion to its share
    among the competing queues; what a queue does not need (demand below its
    part) goes to the others, again by share (water filling), so one queue
    alone can use everything. Results are integers (largest remainders, ties
    in the given order), never above a queue's demand, adding up to at most
    *total_slots* (exactly min(total, total demand)). Shares need not add up
    to 100; a share <= 0 only receives slots nobody else wants.
    """
    total = max(0, int(total_slots))
    demand = {n: max(0, int(d)) for n, _s, d in queues}
    share = {n: max(0.0, float(s)) for n, s, _d in queues}
    alloc: dict[str, float] = {n: 0.0 for n, _s, _d in queues}
    remaining = float(min(total, sum(demand.values())))
    active = [n for n, _s, _d in queues if demand[n] > 0]
    # water filling on real numbers
    while remaining > 1e-9 and active:
        weights = {n: share[n] for n in active}
        wsum = sum(weights.values())
        if wsum <= 0:
            weights = {n: 1.0 for n in active}
            wsum = float(len(active))
        sated = [n for n in active if demand[n] - alloc[n] <= remaining * weights[n] / wsum + 1e-12]
        if sated:
            for n in sated:
                remaining -= demand[n] - alloc[n]
                alloc[n] = float(demand[n])
            active = [n for n in active if n not in sated]
            continue
        for n in active:
            alloc[n] += remaining * weights[n] / wsum
        remaining = 0.0
    # integers
    out = {n: min(demand[n], int(math.floor(alloc[n] + 1e-9))) for n in alloc}
    left = min(total, sum(demand.values())) - sum(out.values())
    order = sorted(alloc, key=lambda n: -(alloc[n] - math.floor(alloc[n] + 1e-9)))
    while left > 0:
        progressed = False
        for n in order:
            if left <= 0:
                break
            if out[n] < demand[n]:
                out[n] += 1
                left -= 1
                progressed = True
        if not progressed:
            break
    return out


# =============================================================================
# Host partitions
# =============================================================================


def partition_user_shares(partition: dict[str, str]) -> str | None:
    """The USER_SHARES text of a raw HostPartition section (ClusterConfig.host_partitions[name])."""
    for k, v in partition.items():
        if k.upper() == "USER_SHARES":
            return v
    return None


def partition_hosts(partition: dict[str, str]) -> list[str]:
    """The HOSTS of a raw HostPartition section, verbatim names/groups."""
    for k, v in partition.items():
        if k.upper() == "HOSTS":
            return v.split()
    return []


__all__ = [
    "ALL", "DEFAULTS", "FACTOR_KEYS", "GROUP", "MIN_DENOMINATOR", "OTHERS", "ROOT", "SUBTREE", "USER",
    "Explanation", "Factors", "FairshareState", "LevelInfo", "ShareNode", "ShareRow", "ShareSyntaxError",
    "History", "ShareTree", "Term", "Usage", "accrued", "build_tree", "decay_factor", "decayed", "denominator",
    "dynamic_priority", "effective_factors", "fairshare_order", "job_usage", "parse_slot_pools",
    "parse_user_shares", "partition_hosts", "partition_user_shares", "priority_terms", "slot_pool_allocation",
]