"""APS ranks of a scheduling pass, in bulk: what `Cluster.aps_rank` gives job
by job, for every pending job of an APS unit at once.

The pass ranks every pending job of an APS block; at 100k jobs the per-job
work decides the pass's cost. Here a job's facts come from the pass's rows
(lsfemu.daemon.passrows, kept between passes), its escalated priority from
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

from lsfemu.sched import aps
from lsfemu.sched.priority import INT_MAX


class UnitRanker:
    """Ranks of one APS unit's pending jobs at instant *t* (one pass)."""

    def __init__(self, cluster, unit: str, t: float, live):
        self.cl = cluster
        self.cfg = cluster.aps_cfg[unit]
        self.t = t
        self.live = live
        self._queues: dict[str, tuple] = {}  # queue -> (priority, PROCLIMIT, has FAIRSHARE)
        self._parts_memo: dict[tuple, tuple] = {}
        self._graces = tuple(sorted(set(self.cfg.grace.values())))
        self._over_time = over = cluster.config.params.job_priority_over_time
        # escalation: `increment` every `step` seconds (None: none)
        self._step = over[1] * 60 if over is not None and over[0] > 0 and over[1] > 0 else None
        self._increment = over[0] if over is not None else 0
        self._fs_memo: dict[tuple, float | None] = {}  # (user, queue, grace flags) -> FS part, before any start
        self._same_instant = cluster._pass_now == t

    def _queue(self, name: str) -> tuple:
        info = self._queues.get(name)
        if info is None:
            q = self.cl.config.queue(name)
            info = self._queues[name] = ((q.priority, q.extra.get("PROCLIMIT"), bool(q.fairshare)) if q
                                         else (0, None, False))
        return info

    def rank_all(self, jobs: list) -> list[tuple]:
        """The ranks of *jobs* (PendingJobs of this unit, with their rows), in their order."""
        return [self._rank(pj, True) for pj in jobs]

    def rank_of(self, pj) -> tuple:
        """A job's rank now (after starts changed its user's FS factor)."""
        return self._rank(pj, False)

    def _rank(self, pj, memo_fs: bool) -> tuple:
        row = pj.row
        t = self.t
        qinfo = self._queues.get(row.queue)
        if qinfo is None:
            qinfo = self._queue(row.queue)
        qprio, has_fs = qinfo[0], qinfo[2]
        pend = t - row.since
        if pend < 0.0:
            pend = 0.0
        if self._same_instant:
            jprio = pj.priority  # escalated at this instant by Cluster.pass_input
        else:  # lsfemu.sched.priority.escalated, inline (Cluster.effective_priority at t)
            jprio = row.priority
            if jprio is None:
                jprio = 0
            else:
                pending = t - row.base_time
                if self._step is None or pending <= 0:
                    jprio = min(jprio, INT_MAX) or 0
                else:
                    jprio = min(jprio + int(pending // self._step) * self._increment, INT_MAX) or 0
        graces = self._graces
        flags = tuple([pend < g for g in graces]) if graces else ()
        mk = (id(row.rsrc), jprio, qprio, flags)  # (rsrc: one object per distinct value, alive all pass)
        parts = self._parts_memo.get(mk)
        if parts is None:
            parts = self._parts_memo[mk] = aps.aps_parts(self.cfg, pend, row.proc, row.mem, row.swap, jprio, qprio)
        system = row.aps_system
        if system is not None:
            return (0, -aps._round(float(system)))
        admin = row.aps_admin
        if not memo_fs:  # a start changed the FS factor: no memo
            fs_in = self.live.priority(row.user, row.queue) if has_fs else None
            return aps.rank_from_parts(parts, aps.fs_part(self.cfg, fs_in, pend), admin)
        fk = (row.user, row.queue, flags)
        fs = self._fs_memo.get(fk, self)
        if fs is self:  # one FS part per user, queue and grace state until a start
            fs_in = self.live.priority(row.user, row.queue) if has_fs else None
            fs = self._fs_memo[fk] = aps.fs_part(self.cfg, fs_in, pend)
        # aps.rank_from_parts, inline: the same additions in the same order
        total = 0.0
        if fs is not None:
            total += fs
        for c in parts:
            total += c
        if admin is not None:
            total += float(admin)
        if total - total != 0.0:  # inf or nan
            total = math.copysign(1e308, total) if not math.isnan(total) else 0.0
        return (1, -round(total, 6))
