"""The scheduling pass's APS ranks: the inputs of one APS unit gathered for
the one ranker (lsfemu.sched.aps_rank.ApsRanker), and its ranks turned into
the heap entries of lsfemu.sched.aps.ApsOrder.

A job's facts are its pass row (lsfemu.engine.passrows, kept between
passes), its escalated priority the one its PendingJob carries (escalated to
the pass's instant by `Passes.pass_input`; the ranker reads both of the
PendingJob), the queues' PRIORITY and FAIRSHARE come from the
configuration, the users' FS factors from the pass's live fairshare. The ranks equal `Cluster.aps_rank`'s exactly (a property
test compares the two passes).
"""

from __future__ import annotations

from lsfemu.sched.aps_rank import ApsRanker
from lsfemu.sched.priority import escalation


class UnitRanker:
    """Ranks of one APS unit's pending jobs at instant *t* (one pass)."""

    def __init__(self, cluster, unit: str, t: float, live):
        queues = {q.name: (q.priority, bool(q.fairshare)) for q in cluster.config.queues}
        self.ranker = ApsRanker(cluster.aps_cfg[unit], t, queues, live.priority)
        self.t = t
        self._escalate = escalation(cluster.config.params.job_priority_over_time)
        self._same_instant = cluster.passes.pass_now == t

    def _escalated(self, jobs: list) -> list:
        """*jobs* with their priorities escalated to the instant ranked at
        (Passes.pass_input did it, unless the Order is asked for another one)."""
        if not self._same_instant:
            t, escalate = self.t, self._escalate
            for pj in jobs:  # Cluster.effective_priority at t
                row = pj.row
                pj.priority = escalate(row.priority, t - row.base_time) if row.priority is not None else 0
        return jobs

    def entries(self, jobs: list) -> list[tuple]:
        """What `ApsOrder` heaps for *jobs* (PendingJobs of this unit, with
        their rows): ``rank + (position, job_id, array_index, 0, job)`` each,
        the rank being what `Cluster.aps_rank` gives."""
        return self.ranker.ranked(self._escalated(jobs), entries=True)

    def users(self) -> list[str]:
        """The users of the jobs given to :meth:`entries` whose value the FS
        factor may change (a system value never does), sorted."""
        return self.ranker.users()

    def rank_of(self, pj) -> tuple:
        """A job's rank now (after starts changed its user's FS factor)."""
        return self.ranks_of([pj])[0]

    def ranks_of(self, jobs: list) -> list[tuple]:
        """The ranks of *jobs* now (those of the users a start affected: their
        FS parts computed again, once per user)."""
        return [r[:2] for r in self.ranker.ranked(self._escalated(jobs), again=True)]
