"""Fairshare scheduling as pure functions: factors, usage, dynamic priority,
share trees, the choice of the next user, and queue-based slot pools.

This package owns everything about fairshare that can be computed from plain
data: no database, no clock reads, no printing (the texts are in
:mod:`lsfemu.render.fairshare`, the adjustment plug-ins in
:mod:`lsfemu.sched.fairshare_plugins`, the USER_SHARES syntax in
:mod:`lsfemu.config.fairshare`). The daemon gathers the numbers (jobs, their run
and CPU times, the current time) and applies the results.

Its modules, each importing only those before it:

* :mod:`~lsfemu.sched.fairshare.factors` - the dynamic priority formula
  (every term, as LSF 10 documents it), its factors, decay, :class:`Usage`
  and the :class:`History` of ended runs;
* :mod:`~lsfemu.sched.fairshare.tree` - share trees (:func:`build_tree`):
  the accounts of one queue or host partition, and how a user resolves;
* :mod:`~lsfemu.sched.fairshare.state` - :class:`FairshareState`, the
  choice of the next user and :func:`fairshare_order`, one queue's loop;
* :mod:`~lsfemu.sched.fairshare.pools` - SLOT_POOL / SLOT_SHARE and the
  HostPartition sections.

The names below are the package's API (``from lsfemu.sched import fairshare
as fs; fs.build_tree(...)``).
"""

from lsfemu.sched.fairshare.factors import (
    DEFAULTS, FACTOR_KEYS, MIN_DENOMINATOR, Factors, History, Term, Usage, accrued, decay_factor, decayed,
    denominator, dynamic_priority, effective_factors, job_usage, priority_terms,
)
from lsfemu.sched.fairshare.pools import (apply_slot_pools, parse_slot_pools, partition_hosts, partition_user_shares,
                                          slot_pool_allocation)
from lsfemu.sched.fairshare.state import Explanation, FairshareState, LevelInfo, ShareRow, fairshare_order
from lsfemu.sched.fairshare.tree import ALL, GROUP, OTHERS, ROOT, SUBTREE, USER, ShareNode, ShareTree, build_tree

__all__ = [
    "ALL", "DEFAULTS", "FACTOR_KEYS", "GROUP", "MIN_DENOMINATOR", "OTHERS", "ROOT", "SUBTREE", "USER",
    "Explanation", "Factors", "FairshareState", "LevelInfo", "ShareNode", "ShareRow",
    "History", "ShareTree", "Term", "Usage", "accrued", "apply_slot_pools", "build_tree", "decay_factor",
    "decayed", "denominator",
    "dynamic_priority", "effective_factors", "fairshare_order", "job_usage", "parse_slot_pools",
    "partition_hosts", "partition_user_shares", "priority_terms", "slot_pool_allocation",
]
