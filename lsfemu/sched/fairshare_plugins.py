"""The fairshare adjustment plug-in interface (LSF's libfairshareadjust.*).

LSF loads ``libfairshareadjust.so`` and adds its result, times
FAIRSHARE_ADJUSTMENT_FACTOR, to the dynamic priority's denominator. lsfemu
loads a Python callable named in lsb.params::

    FAIRSHARE_ADJUSTMENT_PLUGIN = "package.module:callable"

(loaded by :func:`lsfemu.config.fairshare.load_plugin`, with the
configuration). The callable receives one :class:`AdjustmentInput` —
what the seed says LSF passes: everything in the formula but the shares,
plus the memory in use over the whole cluster and the average memory per
slot — and returns a float. As in LSF the plug-in is not queue-specific and
sees the lsb.params factors (``effective_factors(params, None)``), never a
queue's overrides.

:func:`make_adjust` turns a plug-in and the cluster's memory figures into the
``adjust`` callable :class:`lsfemu.sched.fairshare.FairshareState` takes.
:func:`memory_adjustment` is the seed's example, ready to use as
``FAIRSHARE_ADJUSTMENT_PLUGIN = "lsfemu.sched.fairshare_plugins:memory_adjustment"``::

    fairshare_adjustment = (1 + slots) × ((used_memory / used_slots) / (slot_memory × THRESHOLD))

Pure: no clock, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

from lsfemu.sched.fairshare import Factors, ShareNode, Usage

#: THRESHOLD of the seed's example when the caller gives none: a share
#: account whose started jobs use exactly a slot's worth of memory per slot
#: gets an adjustment of (1 + slots), i.e. weighs like its job slots.
DEFAULT_MEMORY_THRESHOLD = 1.0


@dataclass(frozen=True)
class AdjustmentInput:
    """What the plug-in sees for one share account (a user or a group).

    Formula inputs (hours / slots, summed over the account's jobs): cpu_time,
    hist_run_time, run_time, committed_run_time, job_slots (started +
    reserved), fwd_job_slots, gpu_run_time, hist_gpu_run_time,
    ngpus_physical, and ``factors`` (lsb.params values). Memory (MB):
    ``cluster_used_memory_mb`` in use by all started jobs of the cluster,
    ``slot_memory_mb`` the average memory that exists per slot in the
    cluster (total memory / total slots), ``used_memory_mb`` in use by the
    account's started jobs and ``used_slots`` their slots.
    """

    account: str
    is_group: bool
    cpu_time: float
    hist_run_time: float
    run_time: float
    committed_run_time: float
    job_slots: float
    fwd_job_slots: float
    gpu_run_time: float
    hist_gpu_run_time: float
    ngpus_physical: float
    factors: Factors = field(default_factory=Factors)
    cluster_used_memory_mb: float = 0.0
    slot_memory_mb: float = 0.0
    used_memory_mb: float = 0.0
    used_slots: float = 0.0


Plugin = Callable[[AdjustmentInput], float]


def memory_adjustment(inp: AdjustmentInput, threshold: float = DEFAULT_MEMORY_THRESHOLD) -> float:
    """The seed's memory-based example:
    ``(1 + slots) × ((used_memory / used_slots) / (slot_memory × THRESHOLD))``.

    Reading taken: ``used_memory`` / ``used_slots`` are the memory and slots
    of the *account's own* started jobs (so the ratio is its memory per
    slot, compared with what one slot of the cluster has), and ``slots`` is
    the account's job_slots of the formula. An account whose jobs hog memory
    beyond THRESHOLD × a slot's share gets a larger denominator, i.e. a lower
    priority. Nothing started, no slot memory or a non-positive threshold
    -> 0 (no division by zero).
    """
    if inp.used_slots <= 0 or inp.slot_memory_mb <= 0 or threshold <= 0:
        return 0.0
    value = (1.0 + inp.job_slots) * ((inp.used_memory_mb / inp.used_slots) / (inp.slot_memory_mb * threshold))
    return value if math.isfinite(value) else 0.0


def memory_adjustment_with_threshold(threshold: float) -> Plugin:
    """The example with another THRESHOLD, e.g. for a small wrapper module."""
    def plugin(inp: AdjustmentInput) -> float:
        return memory_adjustment(inp, threshold)
    return plugin


def make_input(node: ShareNode | str, usage: Usage, factors: Factors, *, cluster_used_memory_mb: float = 0.0,
               slot_memory_mb: float = 0.0, used_memory_mb: float = 0.0, used_slots: float | None = None,
               is_group: bool | None = None) -> AdjustmentInput:
    name = node if isinstance(node, str) else node.name
    group = (not isinstance(node, str) and node.is_group) if is_group is None else is_group
    return AdjustmentInput(
        account=name, is_group=group, cpu_time=usage.cpu_time, hist_run_time=usage.hist_run_time,
        run_time=usage.run_time, committed_run_time=usage.committed_run_time,
        job_slots=usage.job_slots + usage.reserved_slots, fwd_job_slots=usage.fwd_job_slots,
        gpu_run_time=usage.gpu_run_time, hist_gpu_run_time=usage.hist_gpu_run_time,
        ngpus_physical=usage.ngpus_physical, factors=factors, cluster_used_memory_mb=cluster_used_memory_mb,
        slot_memory_mb=slot_memory_mb, used_memory_mb=used_memory_mb,
        used_slots=usage.job_slots if used_slots is None else used_slots,
    )


class Adjuster:
    """The ``adjust(node, usage)`` callable for FairshareState, built by :func:`make_adjust`.

    A group account's memory is the sum of its members' (``memory_by_user``
    over the users whose account path goes through it; the caller passes
    ``members_of`` for that, else only the node's own name is looked up).
    A plug-in that raises or returns a non-number gives 0 and its message is
    kept in ``errors`` (the scheduler must not stop because of a plug-in).
    """

    def __init__(self, plugin: Plugin, factors: Factors, *, cluster_used_memory_mb: float, slot_memory_mb: float,
                 memory_by_user: Mapping[str, float], members_of: Callable[[ShareNode], list[str]] | None = None):
        self.plugin = plugin
        self.factors = factors
        self.cluster_used_memory_mb = float(cluster_used_memory_mb)
        self.slot_memory_mb = float(slot_memory_mb)
        self.memory_by_user = dict(memory_by_user)
        self.members_of = members_of
        self.errors: list[str] = []

    def __call__(self, node: ShareNode, usage: Usage) -> float:
        users = self.members_of(node) if self.members_of is not None else [node.name]
        mem = sum(self.memory_by_user.get(u, 0.0) for u in users)
        inp = make_input(node, usage, self.factors, cluster_used_memory_mb=self.cluster_used_memory_mb,
                         slot_memory_mb=self.slot_memory_mb, used_memory_mb=mem)
        try:
            value = float(self.plugin(inp))
        except Exception as e:  # a plug-in bug must not stop scheduling
            self.errors.append(f"{node.name}: {type(e).__name__}: {e}")
            return 0.0
        return value if math.isfinite(value) else 0.0


def make_adjust(plugin: Plugin, factors: Factors, *, cluster_used_memory_mb: float, slot_memory_mb: float,
                memory_by_user: Mapping[str, float],
                members_of: Callable[[ShareNode], list[str]] | None = None) -> Adjuster:
    """See :class:`Adjuster`. *factors* should be the lsb.params ones."""
    return Adjuster(plugin, factors, cluster_used_memory_mb=cluster_used_memory_mb, slot_memory_mb=slot_memory_mb,
                    memory_by_user=memory_by_user, members_of=members_of)


def slot_memory(total_memory_mb: float, total_slots: float) -> float:
    """Average memory that exists per slot in the cluster (0 without slots)."""
    return total_memory_mb / total_slots if total_slots > 0 else 0.0
