"""The dynamic priority of a share account: the formula's factors, decay,
usage in hours and slots, the history of ended runs, and the formula itself.

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

The committed term counts ``max(0, committed − run)`` per job (lsfemu's
reading; docs/semantics.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

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
