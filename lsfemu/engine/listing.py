"""`bjobs -aps` in bulk: the listed pending jobs ranked at once by the one
APS ranker (lsfemu.sched.aps_rank.ApsRanker, the scheduling pass's too),
and each job's table line kept between listings; the plain table's (bjobs,
bjobs -w) lines kept the same way (`ApsListing.table_lines`).

`Cluster.aps_result` builds one job's full APS result (every term, for
`lsfemu explain aps`); a listing of 10,000 pending jobs did that, and a view
and a table row, job by job. Here:

- what a job's place and value need comes from its pass row
  (lsfemu.engine.passrows: kept between passes, dropped when the job
  changes), not from ORM attributes; its job priority is escalated here
  (lsfemu.sched.priority.escalation), the users' FS factors asked of the
  live fairshare once per (user, queue);
- the ranker computes each distinct value once (see lsfemu.sched.aps_rank);
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

Values and order are those of the one-job-at-a-time listing
(`Cluster.aps_result` and aps.order) at the listing's instant (a property
test compares the two).
"""

from __future__ import annotations

import weakref
from functools import partial
from typing import Iterable, NamedTuple

from lsfemu.jobstate import PENDING
from lsfemu.sched import aps
from lsfemu.sched.aps_rank import ApsRanker
from lsfemu.sched.priority import escalation
from lsfemu.store.models import Job
from lsfemu.store.rowcache import on_job_change, on_store_write

#: the formats of the plain table (bjobs, bjobs -w, ...) whose job lines are kept
TABLE_FORMATS = 3

#: (job, system value, calculated value) of a listed job; the values are
#: those bjobs shows (None: not shown; both None outside APS blocks)
Listed = tuple[Job, "float | None", "float | None"]


class ApsListing:
    """One cluster's `bjobs -aps` listings."""

    def __init__(self, cluster):
        self.cl = cluster
        self._lines: dict[Job, str] = {}  # job -> its kept line in self._format (see lines)
        self._format: tuple | None = None
        self._tables: dict[tuple, tuple] = {}  # format -> (configuration, job -> its plain table entry)
        self.generation = 0  # changes with any job, and with any write to the store (events below)
        self._last: tuple | None = None  # (generation, configuration, instant, key, text) of the last table
        self._start = 0  # the generation the table being made started from
        self._made: dict[tuple, tuple] = {}  # the entries of the last listing (order), per block head, as columns
        self._made_at: tuple = (None, None)  # (instant, configuration) of those entries
        self._fs_used: dict = {}  # (user, queue) -> the FS input the last listing used
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
        for _config, kept in self._tables.values():
            kept.pop(job, None)

    def table_lines(self, fmt: tuple) -> dict[Job, tuple]:
        """The kept entries of the default / -w table in format *fmt* (with
        this configuration): job -> (its place in the listing's order, its
        lines: render.bjobs.table_job_text); the caller adds those it makes.
        Both depend only on the job's columns, the format and the
        configuration (the queues' order): an entry is kept until the job
        changes (the same events as the -aps lines). The entries of the last
        TABLE_FORMATS formats are kept (bjobs and bjobs -w alternating do not
        make each other's anew); jobs gone from the cluster (cleaned,
        reloaded as new objects) are dropped when a format's entries
        outnumber the cluster's jobs twice."""
        made = self._tables.pop(fmt, None)
        if made is None or made[0] is not self.cl.config or len(made[1]) > 2 * len(self.cl.jobs) + 1000:
            made = (self.cl.config, {})
        self._tables[fmt] = made  # (the most recent last)
        while len(self._tables) > TABLE_FORMATS:
            del self._tables[next(iter(self._tables))]
        return made[1]

    def lines(self, fmt: tuple) -> dict[Job, str]:
        """The kept lines of the table format *fmt*: job -> its line before
        the APS value; the caller adds the lines it makes."""
        if fmt != self._format:
            self._lines = {}
            self._format = fmt
        return self._lines

    def pending(self, jobs: Iterable[Job]) -> list[tuple[Job, object]]:
        """(job, its passrows.Row) of the pending jobs among *jobs* (what
        order takes), the rows read where the pass keeps them."""
        passes = self.cl.passes
        rows = passes.cache.rows
        out = []
        append = out.append
        for job in jobs:
            row = rows.get(job)
            if row is None:
                row = passes.row(job)
            if row.status in PENDING:
                append((job, row))
        return out

    def order(self, pending: Iterable[tuple[Job, object]], now: float) -> list[Listed]:
        """*pending* ((job, its passrows.Row) of pending jobs) in the order
        they are considered for dispatch at *now*, with their APS values."""
        # One pass over the jobs, everything in locals (10,000 pending jobs at a
        # new instant: each is escalated and ranked anew): each queue's block
        # head looked up once, and the jobs sorted per block head, heads in
        # order, with aps.block_key as the key (listing_key after the head: the
        # head is the same in a block).
        cl = self.cl
        plan = aps.plan_queues(cl.config.queues)
        escalate = escalation(cl.config.params.job_priority_over_time)
        block_key = aps.block_key
        queues: dict[str, tuple] = {}
        rankers: dict[str, ApsRanker] = {}  # APS unit -> its ranker at *now*
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

        # A job's entry depends on its row, the instant, the configuration and,
        # where FS counts, its user's dynamic priority (other jobs' runs): an
        # entry is kept for the next listing at the same instant, and used
        # while the row is the same object and that priority the same value
        # (the value the last listing used for its (user, queue): self._fs_used).
        # An entry: one tuple, its sort key after the block head (six items,
        # the last two the job's ID and index: no two alike) followed by the
        # job, its system and calculated values, its row, does FS count and its
        # block head. The last listing's are kept as columns (the items of
        # every entry of a block, one tuple each: a dozen objects, where a
        # tuple per job would be 10,000 new objects for the cyclic collector's
        # first look when bjobs turns it back on, ~10 ms at 10,000 jobs) and
        # made into entries again, by job, only when a listing at the same
        # instant asks.
        last = None
        if self._made_at[0] == now and self._made_at[1] is cl.config:
            last = {e[6]: e for columns in self._made.values() for e in zip(*columns)}
        used = self._fs_used
        blocks: dict[tuple, list] = {}  # block head -> its entries
        to_rank: dict[ApsRanker, list] = {}  # the jobs of each APS block whose entry is made anew
        heads: dict[ApsRanker, tuple] = {}  # (an APS block's queues share its head)
        qname = None
        for job, row in pending:
            if last is not None:
                entry = last.get(job)
                if entry is not None and entry[9] is row and (
                        not entry[10] or fs_input(row.user, row.queue) == used.get((row.user, row.queue), used)):
                    block = blocks.get(entry[11])
                    if block is None:
                        block = blocks[entry[11]] = []
                    block.append(entry)
                    qname = None  # (*block* is no longer the queue's)
                    continue
            if row.queue != qname:  # (jobs come grouped by queue more often than not)
                qname = row.queue
                qinfo = queues.get(qname)
                if qinfo is None:
                    qinfo = queues[qname] = self._queue(qname, plan, rankers, now, fs_input)
                head, ranker, fs_counts = qinfo
                if ranker is None:
                    block = blocks.get(head)
                    if block is None:
                        block = blocks[head] = []
                else:
                    heads[ranker] = head
                    ranks = to_rank.get(ranker)
                    if ranks is None:
                        ranks = to_rank[ranker] = []
            jprio = row.priority  # Cluster.effective_priority
            jprio = escalate(jprio, now - row.base_time) if jprio is not None else 0
            position = row.position - 1e12 if row.migrated else row.position
            if ranker is None:  # outside APS blocks
                key = row.key
                block.append(block_key(None, jprio, position, key[0], key[1]) + (job, None, None, row, False, head))
            else:
                ranks.append(_new_pending((row, jprio, job, position, fs_counts)))
        for ranker, jobs in to_rank.items():
            head = heads[ranker]
            block = blocks.get(head)
            if block is None:
                block = blocks[head] = []
            append = block.append
            for (row, _jprio, job, position, fs_counts), (cls, value_key, system, value) in zip(
                    jobs, ranker.ranked(jobs)):
                key = row.key
                append(block_key((cls, value_key), 0, position, key[0], key[1])
                       + (job, system, value, row, fs_counts and system is None, head))
        out = []
        made = {}
        for head in sorted(blocks):
            block = blocks[head]
            block.sort()  # (by the key: its last two items, the job's ID and index, differ)
            out += [(e[6], e[7], e[8]) for e in block]
            made[head] = tuple(zip(*block))
        self._made, self._made_at, self._fs_used = made, (now, cl.config), fs_ins
        return out

    def _queue(self, name: str, plan: dict, rankers: dict, now: float, fs_input) -> tuple:
        """(block head, the ranker of its APS block or None, does the FS
        factor count (weighted, with FAIRSHARE)) of a queue, for one listing."""
        cl = self.cl
        unit = cl.aps_unit.get(name)
        ranker = None
        if unit is not None and unit in cl.aps_cfg:
            ranker = rankers.get(unit)
            if ranker is None:
                queues = {q.name: (q.priority, bool(q.fairshare)) for q in cl.config.queues}
                ranker = rankers[unit] = ApsRanker(cl.aps_cfg[unit], now, queues, fs_input)
        q = cl.config.queue(name)
        return aps.block_head(plan.get(name)), ranker, bool(q and q.fairshare) and ranker is not None \
            and ranker.fs_weighted


class _Pending(NamedTuple):
    """A listed job to rank: its facts and escalated priority (what the ranker
    reads), and what its place in the listing needs."""

    row: object  # passrows.Row
    priority: int
    job: Job
    position: float
    fs_counts: bool


_new_pending = partial(tuple.__new__, _Pending)  # _Pending(...) without the named tuple's Python-level __new__
_listings: "weakref.WeakSet[ApsListing]" = weakref.WeakSet()


def _changed(target, *_args) -> None:
    if not _listings:  # (no listing made yet: a WeakSet's iteration alone costs, on every job's start and end)
        return
    for ref in tuple(_listings.data):  # (its weak references: the WeakSet's own iteration guards itself, a cost)
        listing = ref()
        if listing is not None:
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


on_job_change(_changed)


def watch_writes(session) -> None:
    """Any flush (objects of any table added, changed or deleted) and any
    statement that writes through *session* (a cluster's: every cluster of the
    process installs it on its own) makes every listing's table old."""
    on_store_write(session, _flushed, _executed)
