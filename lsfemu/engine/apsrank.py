"""APS ranks of a scheduling pass, in bulk: what `Cluster.aps_rank` gives job
by job, for every pending job of an APS unit at once.

The pass ranks every pending job of an APS block; at 100k jobs the per-job
work decides the pass's cost. Here a job's facts come from the pass's rows
(lsfemu.engine.passrows, kept between passes), its escalated priority from
its PendingJob, the queue facts and the users' FS factors are looked up once
per queue and user, and the non-FS parts of the value
(lsfemu.sched.aps.aps_parts) once per distinct set of inputs (many jobs
share proc, memory, priority and queue). After a start only the FS part of
the affected users' jobs is computed again. The arithmetic is
lsfemu.sched.aps's own (aps_parts / fs_part / rank_from_parts, which
aps_rank_of is made of): the ranks equal `Cluster.aps_rank`'s exactly (a
property test compares the two passes).
"""

from __future__ import annotations

import math
from bisect import bisect_right

from lsfemu.sched import aps
from lsfemu.sched.priority import escalation


class UnitRanker:
    """Ranks of one APS unit's pending jobs at instant *t* (one pass)."""

    def __init__(self, cluster, unit: str, t: float, live):
        self.cl = cluster
        self.cfg = cluster.aps_cfg[unit]
        self.t = t
        self.live = live
        self._queues: dict[str, tuple] = {}  # queue -> (PRIORITY, has FAIRSHARE); PROCLIMIT is in the rows
        self._parts_memo: dict[tuple, tuple] = {}
        self._graces = tuple(sorted(set(self.cfg.grace.values())))
        self._escalate = escalation(cluster.config.params.job_priority_over_time)
        self._fs_memo: dict[int | tuple, float | None] = {}  # Row.fs_key (with the grace periods reached, if any) -> FS part, before any start
        self._users: set[str] = set()  # of the jobs whose value FS may change (see users())
        self._same_instant = cluster._pass_now == t

    def _queue(self, name: str) -> tuple:
        info = self._queues.get(name)
        if info is None:
            q = self.cl.config.queue(name)
            info = self._queues[name] = (q.priority, bool(q.fairshare)) if q else (0, False)
        return info

    def entries(self, jobs: list) -> list[tuple]:
        """What `ApsOrder` heaps for *jobs* (PendingJobs of this unit, with
        their rows): ``rank + (position, job_id, array_index, 0, job)`` each,
        the rank being what `Cluster.aps_rank` gives."""
        return self._entries(jobs, True)

    def users(self) -> list[str]:
        """The users of the jobs given to :meth:`entries` whose value the FS
        factor may change (a system value never does), sorted."""
        return sorted(self._users)

    def rank_of(self, pj) -> tuple:
        """A job's rank now (after starts changed its user's FS factor)."""
        return self._entries((pj,), False)[0][:2]

    def ranks_of(self, jobs: list) -> list[tuple]:
        """The ranks of *jobs* now (those of the users a start affected: their
        FS parts computed again, once per user)."""
        return [e[:2] for e in self._entries(jobs, False)]

    def _entries(self, jobs, memo_fs: bool) -> list[tuple]:
        # The pass's hottest loop (every pending job of the unit, every full
        # pass): everything in locals, the memos looked up once per distinct
        # input, the pending time computed only where grace periods or a memo
        # miss need it. memo_fs False: a start changed FS factors, none is reused.
        t = self.t
        graces = self._graces
        parts_memo = self._parts_memo
        fs_memo = self._fs_memo if memo_fs else {}
        cfg = self.cfg
        live = self.live
        same_instant = self._same_instant
        escalate = self._escalate
        aps_parts, fs_part = aps.aps_parts, aps.fs_part
        isnan, copysign = math.isnan, math.copysign
        out = []
        append = out.append
        reached = 0  # grace periods the pending time reached (none configured: 0)
        for pj in jobs:
            row = pj.row
            if not row.plain and row.aps_system is not None:
                append((0, -round(float(row.aps_system), 6), pj.position, pj.job_id, pj.array_index, 0, pj))
                continue
            if same_instant:
                jprio = pj.priority  # escalated at this instant by Cluster.pass_input
            else:  # Cluster.effective_priority at t
                jprio = row.priority
                jprio = (escalate(jprio, t - row.base_time) or 0) if jprio is not None else 0
            if graces:
                reached = bisect_right(graces, self._pend(row))
            # (Row.parts_key stands for the job's resources and its queue's PRIORITY)
            mk = (row.parts_key, jprio, reached)
            parts = parts_memo.get(mk)
            if parts is None:
                parts = parts_memo[mk] = aps_parts(cfg, self._pend(row), row.proc, row.mem, row.swap, jprio,
                                                   self._queue(row.queue)[0])
            fk = (row.fs_key, reached) if graces else row.fs_key
            fs = fs_memo.get(fk, self)
            if fs is self:  # one FS part per user, queue and grace state until a start
                self._users.add(row.user)
                fs = fs_memo[fk] = fs_part(cfg, live.priority(row.user, row.queue) if self._queue(row.queue)[1]
                                           else None, self._pend(row))
            # aps.rank_from_parts, inline: the same additions in the same order
            total = 0.0
            if fs is not None:
                total += fs
            for c in parts:
                total += c
            if not row.plain:
                total += float(row.aps_admin)
            if total - total != 0.0:  # inf or nan
                total = copysign(1e308, total) if not isnan(total) else 0.0
            # -round(total, 6) (aps.value_rank): aps.round6, inline
            y = total * 1e6
            if -1e12 < y < 1e12:
                n = int(y + 0.5) if y >= 0.0 else -int(0.5 - y)
                if -0.499 < y - n < 0.499:
                    append((1, -(n / 1e6), pj.position, pj.job_id, pj.array_index, 0, pj))
                    continue
            append((1, -round(total, 6), pj.position, pj.job_id, pj.array_index, 0, pj))
        return out

    def _pend(self, row) -> float:
        """The job's pending time at the pass's instant (what grace periods count)."""
        pend = self.t - row.since
        return pend if pend > 0.0 else 0.0
