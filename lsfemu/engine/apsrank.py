"""The scheduling pass's APS ranks: the inputs of one APS unit gathered for
the one ranker (lsfemu.sched.aps_rank.ApsRanker), and its ranks turned into
the heap entries of lsfemu.sched.aps.ApsOrder; and one job's APS value
with every term (`job_aps_result`: `Cluster.aps_result`, for bjobs -aps and
lsfemu explain aps).

A job's facts are its pass row (lsfemu.engine.passrows, kept between
passes), its escalated priority the one its PendingJob carries (escalated to
the pass's instant by `Passes.pass_input`; the ranker reads both of the
PendingJob), the queues' PRIORITY and FAIRSHARE come from the
configuration, the users' FS factors from the pass's live fairshare. The ranks equal `Cluster.aps_rank`'s exactly (a property
test compares the two passes).
"""

from __future__ import annotations

from lsfemu.sched import aps
from lsfemu.sched.aps_rank import ApsJobInput, ApsRanker, aps_value
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


#: the columns _aps_input reads
_APS_COLUMNS = frozenset(("queue", "res_req", "num_processors", "max_processors", "pend_since", "submit_time",
                          "user", "aps_admin", "aps_system"))


def job_aps_result(cl, job, now: float, live=None):
    """One job's APS value with every term (lsfemu.sched.aps_rank.ApsResult) at
    *now*, None outside APS queues (`Cluster.aps_result`; bjobs -aps, explain)."""
    unit = cl.aps_unit.get(job.queue)
    if unit is None:
        return None
    return aps_value(cl.aps_cfg[unit], _aps_input(cl, job, now, live))


def _aps_input(cl, job, now: float, live) -> ApsJobInput:
    d = job.__dict__  # loaded column values: no ORM attribute machinery per read
    if not _APS_COLUMNS <= d.keys():  # expired attributes: load them the ORM way
        d = {k: getattr(job, k) for k in _APS_COLUMNS}
    q = cl.config.queue(d["queue"])
    amounts = cl.rusage(d["res_req"], d["num_processors"])
    since = d["pend_since"] if d["pend_since"] is not None else d["submit_time"]
    return ApsJobInput(
        pend_seconds=max(0.0, now - since),
        proc=aps.proc_value(d["num_processors"], d["max_processors"], q.extra.get("PROCLIMIT") if q else None),
        mem_mb=amounts.get("mem", 0.0), swap_mb=amounts.get("swp", 0.0),
        job_priority=cl.effective_priority(job, now) or 0,
        queue_priority=q.priority if q else 0,
        fs_priority=(live or cl.fairshare(now)).priority(d["user"], d["queue"]) if q and q.fairshare else None,
        admin_value=d["aps_admin"], system_value=d["aps_system"])
