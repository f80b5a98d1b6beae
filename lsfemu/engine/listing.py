"""`bjobs -aps` in bulk: the listed pending jobs ranked at once from the pure
APS parts the scheduling pass is made of, and each job's table line kept
between listings.

`Cluster.aps_result` builds one job's full APS result (every term, for
`lsfemu explain aps`); a listing of 10,000 pending jobs did that, and a view
and a table row, job by job. Here:

- what a job's place and value need comes from its pass row
  (lsfemu.engine.passrows: kept between passes, dropped when the job
  changes), not from ORM attributes;
- the parts of the value other than FS (`aps.aps_parts`) are computed once
  per distinct (PROC, MEM, SWAP, escalated job priority, queue priority,
  grace state), the FS part once per (user, queue, grace state): the pending
  time enters both only through the grace periods (the scheduling pass's
  own memo, lsfemu.engine.apsrank);
- a job's table line is kept until the job changes (an attribute assigned,
  the object expired or refreshed: ORM events) or the table's format does
  (widths, year, time zone, LSB_BJOBS_DISPLAY_ENH); a new value is put after
  the kept part before it;
- a job's place and value are kept for the next listing at the same instant
  and with the same configuration while its row is the same (rows are
  replaced when the job changes) and, where FS counts, its user's dynamic
  priority is the same value (it depends on other jobs: running, finished);
- the last whole table is kept for the same options at the same instant
  while nothing changed: no job attribute assigned, nothing flushed or
  written through a session, the same configuration (no fairshare
  adjustment plug-in: site code, not assumed pure). The values depend on the
  time (escalation, grace periods, fairshare decay and run time), so a table
  is never reused at another instant: this serves a virtual clock that
  stands still between commands.

Values and order are those of the one-job-at-a-time listing (aps_value and
aps.order), computed at the listing's instant: the same functions, the same
additions in the same order (a property test compares the two).
"""

from __future__ import annotations

import weakref
from bisect import bisect_right
from typing import Iterable

from sqlalchemy import event, inspect
from sqlalchemy.orm import Session

from lsfemu.sched import aps
from lsfemu.sched.priority import escalation
from lsfemu.store.models import Job

#: (job, system value, calculated value) of a listed job; the values are
#: those bjobs shows (None: not shown; both None outside APS blocks)
Listed = tuple[Job, "float | None", "float | None"]


class ApsListing:
    """One cluster's `bjobs -aps` listings."""

    def __init__(self, cluster):
        self.cl = cluster
        self._lines: dict[Job, tuple] = {}  # job -> its kept lines in self._format (see lines)
        self._format: tuple | None = None
        self.generation = 0  # changes with any job, and with any write to the store (events below)
        self._last: tuple | None = None  # (generation, configuration, instant, key, text) of the last table
        self._start = 0  # the generation the table being made started from
        self._entries: dict[Job, tuple] = {}  # job -> (its row, its entry, its FS input) in the last listing (order)
        self._entries_at: tuple = (None, None)  # (instant, configuration) of those entries
        _listings.add(self)

    def kept_text(self, key: tuple, now: float) -> str | None:
        """The last table made for *key* (what the caller's options and
        environment select and show), if it was made at this very instant,
        with this configuration, and nothing changed since: no job's
        attribute was assigned (nor an object expired or refreshed), nothing
        was flushed or written to the store. The values move with the clock,
        so another instant never reuses a table."""
        last = self._last
        if self.cl.fs_plugin is not None:  # a fairshare adjustment plug-in is code of the site's: not assumed pure
            self._last = None
            self._start = None
            return None
        if (last is not None and last[0] == self.generation and last[1] is self.cl.config and last[2] == now
                and last[3] == key):
            return last[4]
        self._last = None
        self._start = self.generation  # the changes made while the table is made invalidate it too
        return None

    def keep_text(self, key: tuple, now: float, text: str) -> None:
        """Keep the table just made for *key* (after kept_text said there was none)."""
        if self._start is not None:
            self._last = (self._start, self.cl.config, now, key, text)

    def forget(self, job: Job) -> None:
        self._lines.pop(job, None)

    def lines(self, fmt: tuple) -> dict[Job, tuple]:
        """The kept lines of the table format *fmt*: job -> (its line before
        the APS value, the system and calculated values of its last line,
        that line); the caller adds the lines it makes."""
        if fmt != self._format:
            self._lines = {}
            self._format = fmt
        return self._lines

    def order(self, pending: Iterable[tuple[Job, object]], now: float) -> list[Listed]:
        """*pending* ((job, its passrows.Row) of pending jobs) in the order
        they are considered for dispatch at *now*, with their APS values."""
        cl = self.cl
        plan = aps.plan_queues(cl.config.queues)
        escalate = escalation(cl.config.params.job_priority_over_time)
        queues: dict[str, tuple] = {}
        live = None  # the fairshare state at *now*, once a job needs it
        fs_ins: dict[tuple[str, str], float | None] = {}

        def fs_input(user: str, queue: str) -> float | None:
            """The user's dynamic priority in the queue's fairshare tree now."""
            nonlocal live
            v = fs_ins.get((user, queue), fs_ins)
            if v is fs_ins:
                if live is None:
                    live = cl.fairshare(now)
                v = fs_ins[(user, queue)] = live.priority(user, queue)
            return v

        keyed = []
        append = keyed.append
        # A job's entry depends on its row, the instant, the configuration and,
        # where FS counts, its user's dynamic priority (other jobs' runs): an
        # entry is kept for the next listing at the same instant, and used
        # while the row is the same object and that priority the same value.
        last = self._entries if self._entries_at[0] == now and self._entries_at[1] is cl.config else {}
        entries = {}
        for job, row in pending:
            entry = last.get(job)
            if entry is not None and entry[0] is row and (entry[2] is _NO_FS
                                                          or entry[2] == fs_input(row.user, row.queue)):
                entries[job] = entry
                append(entry[1])
                continue
            qinfo = queues.get(row.queue)
            if qinfo is None:
                qinfo = queues[row.queue] = self._queue(row.queue, plan)
            head, cfg, qprio, has_fs, fs_counts, graces, parts_memo, fs_memo, values = qinfo
            jprio = row.priority  # Cluster.effective_priority
            jprio = (escalate(jprio, now - row.base_time) or 0) if jprio is not None else 0
            position = row.position - (1e12 if row.migrated else 0.0)
            if cfg is None:  # outside APS blocks
                entry = (aps.listing_key(head, None, jprio, position, row.job_id, row.index), job, None, None)
                entries[job] = (row, entry, _NO_FS)
                append(entry)
                continue
            system = row.aps_system
            fs_in = _NO_FS
            if system is not None:
                system = float(system)
                rank = aps.value_rank(system, None)
                value = None
            else:
                pend = max(0.0, now - row.since)
                # The pending time counts only through the grace periods: the
                # number of them it reached (sorted) says which factors count.
                reached = bisect_right(graces, pend) if graces else 0
                # the inputs of the value (rsrc: one object per distinct value, held by the rows: its id is a cheap key)
                vk = (id(row.rsrc), jprio, reached, row.user, row.aps_admin)
                known = values.get(vk)
                if known is None:
                    mk = (id(row.rsrc), jprio, reached)
                    parts = parts_memo.get(mk)
                    if parts is None:
                        parts = parts_memo[mk] = aps.aps_parts(cfg, pend, row.proc, row.mem, row.swap, jprio, qprio)
                    fk = (row.user, reached)
                    fs = fs_memo.get(fk, fs_memo)
                    if fs is fs_memo:
                        fs = fs_memo[fk] = aps.fs_part(cfg, fs_input(row.user, row.queue) if has_fs else None, pend)
                    value = aps.calculated_from_parts(parts, fs, row.aps_admin)
                    known = values[vk] = (value, aps.value_rank(None, value))
                value, rank = known
                if fs_counts:
                    fs_in = fs_input(row.user, row.queue)
            entry = (aps.listing_key(head, rank, jprio, position, row.job_id, row.index), job, system, value)
            entries[job] = (row, entry, fs_in)
            append(entry)
        self._entries, self._entries_at = entries, (now, cl.config)
        keyed.sort()  # (the keys differ: they end with the job's ID and index)
        return [(job, system, value) for _key, job, system, value in keyed]

    def _queue(self, name: str, plan: dict) -> tuple:
        """(block head, ApsConfig of its APS block or None, PRIORITY, has
        FAIRSHARE, does the FS factor count (weighted, with FAIRSHARE), grace
        periods ascending, memo of APS parts, memo of FS parts, memo of
        values) of a queue, for one listing."""
        cl = self.cl
        unit = cl.aps_unit.get(name)
        cfg = cl.aps_cfg.get(unit) if unit is not None else None
        q = cl.config.queue(name)
        has_fs = bool(q and q.fairshare)
        graces = tuple(sorted(set(cfg.grace.values()))) if cfg is not None else ()
        return (aps.block_head(plan.get(name)), cfg, q.priority if q else 0, has_fs,
                has_fs and cfg is not None and aps.fs_first(cfg), graces, {}, {}, {})


_NO_FS = object()  # a kept entry's FS input where FS does not count
_listings: "weakref.WeakSet[ApsListing]" = weakref.WeakSet()


def _changed(target, *_args) -> None:
    for listing in _listings:
        listing.forget(target)
        listing.generation += 1


def _written() -> None:
    for listing in _listings:
        listing.generation += 1


def _flushed(session, _context) -> None:
    # (still the state before the flush; an attribute assigned its own value, as
    # Cluster.commit does with the clock each time, changes nothing)
    if session.new or session.deleted or any(session.is_modified(o) for o in session.dirty):
        _written()


def _executed(state) -> None:
    if not state.is_select:  # a set-based UPDATE or DELETE (pending reasons, usage history): no object events
        _written()


for _attr in inspect(Job).column_attrs:
    event.listen(getattr(Job, _attr.key), "set", _changed)
event.listen(Job, "expire", _changed)
event.listen(Job, "refresh", _changed)
# Any flush (objects of any table added, changed or deleted) and any
# statement that writes, through any session of the process.
event.listen(Session, "after_flush", _flushed)
event.listen(Session, "do_orm_execute", _executed)
