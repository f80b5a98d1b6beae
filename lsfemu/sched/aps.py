"""Absolute Priority Scheduling (APS): the order of pending jobs, and the
job facts APS reads that are not values (PROC, bmod -aps), as pure functions.

The configuration (APS_PRIORITY) is parsed by lsfemu.config.aps; a job's
value and its rank inside an APS block are lsfemu.sched.aps_rank's (the one
ranker).

Order (:func:`order`, used by ``bjobs -aps`` and dispatch): queues by PRIORITY
(highest first, equal priorities in lsb.queues order); an APS queue and the
queues of its QUEUE_GROUP form one block that sits at the highest PRIORITY
among its queues (normally the APS queue's own; fixed by the configuration,
not by which queues have pending jobs). Inside a block: system values (high to
low), then calculated values (high to low); equal values by FCFS position
(submission order unless btop/bbot moved the job). Outside APS blocks: job
priority, then FCFS. This is the rule that reproduces the seed's listing: the
``priority`` queue (PRIORITY above the ``normal`` APS queue's 30) lists first,
the ``Idle`` queue (below 30) last, and the ``Short`` queue's jobs (PRIORITY
20, in normal's QUEUE_GROUP) mix with ``normal``'s by APS value. (The seed's
sentence "finally, jobs not in an APS queue are listed" holds inside one
priority level only; its own example lists the ``priority`` queue's job first.)

Inside a scheduling pass, :class:`ApsOrder` gives an APS block's jobs best
first, ranking again after each start only the jobs whose value it changed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

from lsfemu.config.aps import ApsSyntaxError, aps_groups
from lsfemu.sched.aps_rank import ApsResult, aps_rank
from lsfemu.sched.shapes import ShapeHeap

# -- job facts ----------------------------------------------------------------


def proc_value(n_min: int | None, n_max: int | None = None, proclimit: str | None = None) -> int:
    """PROC: the max of ``-n min,max``, the ``-n min``, else the processors
    PROCLIMIT gives a job without -n (``min default max`` -> default,
    ``min max`` -> min, ``max`` -> 1), else 1."""
    if n_min is not None or n_max is not None:
        return max(n for n in (n_min, n_max) if n is not None)
    if proclimit:
        parts = proclimit.split()
        try:
            nums = [int(p) for p in parts]
        except ValueError:
            return 1
        if len(nums) == 3:
            return nums[1]
        if len(nums) == 2:
            return nums[0]
    return 1


# -- bmod -aps ----------------------------------------------------------------

_MOD_RE = re.compile(r"^\s*([A-Za-z]+)\s*=\s*(\S*)\s*$")


def parse_aps_mod(text: str) -> tuple[str, float]:
    """``bmod -aps "system=V"`` / ``"admin=V"`` -> ("system"|"admin", V).

    V is a non-zero finite number; anything else raises :class:`ApsSyntaxError`
    whose message (no trailing period) suits ``<text>: <message>. Job not modified.``
    """
    expected = 'expected "system=value" or "admin=value" with a non-zero number'
    if not isinstance(text, str):
        raise ApsSyntaxError(expected)
    m = _MOD_RE.match(text)
    if m is None:
        raise ApsSyntaxError(expected)
    kind = m.group(1).lower()
    if kind not in ("system", "admin"):
        raise ApsSyntaxError(f"unknown factor {m.group(1)}; {expected}")
    if not m.group(2):
        raise ApsSyntaxError(f"{kind}= has no value; {expected}")
    try:
        value = float(m.group(2))
    except ValueError:
        raise ApsSyntaxError(f"the {kind} value is not a number; {expected}") from None
    if not math.isfinite(value):
        raise ApsSyntaxError(f"the {kind} value must be a finite number; {expected}")
    if value == 0:
        raise ApsSyntaxError(f"the {kind} value cannot be 0")
    return kind, value


# -- order --------------------------------------------------------------------


@dataclass(frozen=True)
class QueueSlot:
    """Where a queue's jobs are ordered: ``rank`` (block priority, block file
    order) and the APS queue whose order applies (None: not an APS queue)."""

    name: str
    priority: int
    order: int
    block_priority: int
    block_order: int
    aps_queue: str | None



def plan_queues(queues: Sequence[Any]) -> dict[str, QueueSlot]:
    """QueueSlot per queue, from QueueConf-like objects (name, priority,
    aps_priority, queue_group) in lsb.queues order. An APS block sits at the
    highest PRIORITY among its queues (equal priorities: the earlier in
    lsb.queues), whichever of them have pending jobs."""
    groups = aps_groups(queues)
    block: dict[str, tuple[int, int]] = {}  # APS queue -> (-priority, index) of its best queue
    for i, q in enumerate(queues):
        owner = groups.get(q.name)
        if owner is not None:
            r = (-q.priority, i)
            block[owner] = min(block.get(owner, r), r)
    plan: dict[str, QueueSlot] = {}
    for i, q in enumerate(queues):
        owner = groups.get(q.name)
        bp, bo = (-block[owner][0], block[owner][1]) if owner is not None else (q.priority, i)
        plan[q.name] = QueueSlot(q.name, q.priority, i, bp, bo, owner)
    return plan


@dataclass(frozen=True)
class ListedJob:
    """A pending job as the order needs it. ``result`` is None for jobs in
    non-APS queues. ``position`` is the FCFS order (smaller = earlier)."""

    job_id: int
    queue: str
    position: float
    job_priority: int = 0
    result: ApsResult | None = None
    array_index: int = 0


def block_head(slot: QueueSlot | None) -> tuple:
    """The leading part of a job's sort key: where its queue's block lists."""
    if slot is None:
        return (1, 0, 0)  # unknown queue: after all known ones
    return (0, -slot.block_priority, slot.block_order)


def listing_key(head: tuple, rank: tuple[int, float] | None, job_priority: int, position: float, job_id: int,
                array_index: int) -> tuple:
    """The sort key of the -aps / dispatch order (see module doc): *head*
    from :func:`block_head`, *rank* the job's rank (lsfemu.sched.aps_rank) when its queue
    is in an APS block (None outside APS blocks)."""
    return head + block_key(rank, job_priority, position, job_id, array_index)


def block_key(rank: tuple[int, float] | None, job_priority: int, position: float, job_id: int,
              array_index: int) -> tuple:
    """A job's sort key within its block: :func:`listing_key` after the block
    head (six items, the last two the job's ID and index: no two jobs alike)."""
    if rank is not None:
        return rank + (0, position, job_id, array_index)
    return (0, 0.0, -job_priority, position, job_id, array_index)


def sort_key(job: ListedJob, plan: Mapping[str, QueueSlot]) -> tuple:
    """The sort key of the -aps / dispatch order (see module doc)."""
    slot = plan.get(job.queue)
    rank = aps_rank(job.result) if slot is not None and slot.aps_queue is not None else None
    return listing_key(block_head(slot), rank, job.job_priority, job.position, job.job_id, job.array_index)


def order(jobs: Iterable[ListedJob], queues: Sequence[Any] | Mapping[str, QueueSlot]) -> list[ListedJob]:
    """Pending jobs in the order they are considered for dispatch (bjobs -aps).
    *queues* is the lsb.queues list (QueueConf-like) or a :func:`plan_queues` result."""
    plan = queues if isinstance(queues, Mapping) else plan_queues(queues)
    return sorted(jobs, key=lambda j: sort_key(j, plan))


class ApsOrder:
    """A dispatch ``Order`` for one APS block (see lsfemu.sched.dispatch).

    *result_of(job)* gives a job's current :class:`ApsResult`; jobs need
    ``position``, ``job_id``, ``array_index`` and ``user``. After each
    :meth:`started` the jobs whose value the start may have changed are
    ranked again, reading the current state through *result_of* (the FS
    factor of that user drops): *affected(job)* names the users whose jobs
    to rank again (``None``: every job). The next job is always the best by
    the current values -- the order a full re-sort after every start gives
    -- while a start costs only the affected users' jobs.

    The jobs' ranks form one heap built at once (heapify: a pass usually
    takes a few jobs off the top before every host is full, and then needs
    only :meth:`rest`); ranks that change after a start are pushed onto it,
    and an entry whose job was ranked again since is skipped (its version is
    outdated). An entry is flat, ``rank + (position, job_id, array_index,
    version, job)``: the job rides along (never compared: job ID and index
    differ between jobs, the version between two entries of one job), so no
    table maps entries back to jobs. The heap can leave out the shapes the
    hosts refused (:meth:`skip`, lsfemu.sched.shapes).
    """

    def __init__(self, jobs: Iterable[Any], result_of: Callable[[Any], ApsResult | None] | None = None,
                 affected: Callable[[Any], Iterable[str] | None] | None = None,
                 rank_of: Callable[[Any], tuple] | None = None, entries: list[tuple] | None = None,
                 ranks_of: Callable[[list], list[tuple]] | None = None):
        """*rank_of(job)*, if given, is ``aps_rank(result_of(job))`` computed
        directly (lsfemu.sched.aps_rank.ApsRanker); *ranks_of(jobs)*, if given, the
        ranks of several jobs at once (those a start affects); *entries*, if
        given, are the jobs' heap entries now, ``rank + (position, job_id,
        array_index, 0, job)`` for each of *jobs* (made by the caller in
        bulk; the list is taken over)."""
        self._rank_of = rank_of if rank_of is not None else (lambda j: aps_rank(result_of(j)))
        self._ranks_of = ranks_of if ranks_of is not None else (lambda js: [self._rank_of(j) for j in js])
        self._affected = affected
        self._version: dict[int, int] = {}  # id(job) -> version, only for jobs ranked again (the first is 0)
        self._jobs = jobs = list(jobs)
        self._given: set[int] = set()  # id() of the jobs given out
        self._by_user: dict[str, list[Any]] | None = None  # user -> its jobs, made at the first start
        if entries is None:
            rank_of = self._rank_of
            entries = [rank_of(j) + (j.position, j.job_id, j.array_index, 0, j) for j in jobs]
        self._heap = ShapeHeap(entries)

    def _push(self, jobs: list) -> None:
        """Rank *jobs* again (their entries so far are outdated)."""
        versions, push = self._version, self._heap.push
        for j, rank in zip(jobs, self._ranks_of(jobs)):
            version = versions.get(id(j), 0) + 1
            versions[id(j)] = version
            push(rank + (j.position, j.job_id, j.array_index, version, j))

    def __iter__(self):
        given, versions = self._given, self._version
        for entry in self._heap:
            job = entry[-1]
            if id(job) in given or versions.get(id(job), 0) != entry[-2]:
                continue  # already given out, or ranked again since
            given.add(id(job))
            yield job

    def skip(self, shape: tuple) -> None:
        """Give out no more jobs of *shape* (lsfemu.sched.shapes); they stay in rest()."""
        self._heap.skip(shape)

    def rest(self) -> list[Any]:
        """The jobs not given out yet, in no particular order (see
        lsfemu.sched.dispatch.StaticOrder.rest)."""
        given = self._given
        return [j for j in self._jobs if id(j) not in given] if given else list(self._jobs)

    def started(self, job: Any) -> None:
        """Told of each start: rank again the jobs whose value may have changed."""
        users = self._affected(job) if self._affected is not None else None
        if users is None:
            pool = self._jobs
        else:
            if self._by_user is None:
                self._by_user = {}
                for j in self._jobs:
                    self._by_user.setdefault(j.user, []).append(j)
            pool = [j for user in set(users) for j in self._by_user.get(user, ())]
        given = self._given
        again = [j for j in pool if id(j) not in given]
        if again:
            self._push(again)
