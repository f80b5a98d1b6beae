"""The shape of a pending job, and the heap the pass's Orders give their jobs
out of, which can leave out the shapes the hosts refused; pure (issue 19,
part 6).

A job's *shape* is what the hosts' answer for it depends on: its queue, its
slots and its requirement (the key of lsfemu.sched.dispatch's `no_room`).
The pass keeps that answer only for jobs the hosts judge by their shape
alone: not for -m/-x jobs, nor for jobs under an lsb.resources limit per
host (`shape_of` gives them None).

Once the hosts refuse a shape, and its requirement is monotone
(lsfemu.sched.placement.monotone: a start only takes slots and resources
away, so what does not fit now does not fit later in the pass), no job of
that shape can start for the rest of the pass. The Order is then told to
`skip` the shape: its jobs are no longer given out (they stay in its
``rest()``), and the pass gives them their reasons at its end, from the state
it ends with (docs/semantics.md, "Refused shapes"). Without this, a pass
whose best-ranked jobs (APS's MEM factor ranks memory-heavy jobs first) ask
for memory no host has left walks through every one of them before a job
that fits takes the last slots.
"""

from __future__ import annotations

import heapq
from typing import Any, Iterable, Iterator, Mapping

from lsfemu.sched import placement


def shape_of(job: Any) -> tuple | None:
    """A pending job's shape (see the module docstring); None: judged by more than its shape."""
    if job.place is not None or (job.limits is not None and job.limits.by_host):
        return None
    req = job.req
    return (job.queue, job.slots, req.key if req is not None else None)


def shapes_of(jobs: Iterable[Any]) -> list[tuple | None]:
    """`shape_of` of each of *jobs*, in order; one tuple per distinct shape. A
    job's `fit` names its queue, user, slots and requirement (the pass's
    refusals are kept by it): the shape is looked up by it, the requirement
    checked the same object, instead of made anew for every job -- the pass
    asks for every pending job's shape (issue 23, part 5)."""
    memo: dict[str, tuple] = {}  # PendingJob.fit -> (its req, its shape)
    out: list[tuple | None] = []
    append = out.append
    for job in jobs:
        if job.place is None and job.limits is None:
            got = memo.get(job.fit)
            if got is not None and got[0] is job.req:
                append(got[1])
                continue
            shape = shape_of(job)
            memo[job.fit] = (job.req, shape)
            append(shape)
        else:
            append(shape_of(job))
    return out


def kinds(jobs: Iterable[Any]) -> set[tuple] | None:
    """The distinct shapes of *jobs* not blocked (None: one of them is judged
    by more than its shape): what `shapes_of` gives them, in one loop that
    keeps no list (the pass asks it of every pending job)."""
    memo: dict[str, Any] = {}  # PendingJob.fit -> its req (its shape is in *out*)
    out: set[tuple] = set()
    for job in jobs:
        if job.blocked is not None:
            continue
        if job.place is None and job.limits is None:
            req = job.req
            if memo.get(job.fit, memo) is req:
                continue
            memo[job.fit] = req
            out.add(shape_of(job))
            continue
        shape = shape_of(job)
        if shape is None:
            return None
        out.add(shape)
    return out


class Lasting:
    """Which refusals last for the rest of a pass over *hosts* (the pass's
    HostInfos: what they have to reserve is what a start may take)."""

    def __init__(self, hosts: Mapping[str, Any]):
        self.consumable: set[str] = set()
        for h in hosts.values():
            self.consumable.update(h.avail)
        self._monotone: dict[str, bool] = {}  # requirement key -> placement.monotone

    def shape(self, job: Any) -> tuple | None:
        """The shape of *job*, which the hosts just refused, when no job of
        that shape can start for the rest of the pass (else None)."""
        shape = shape_of(job)
        req = job.req
        if shape is not None and req is not None:
            ok = self._monotone.get(req.key)
            if ok is None:
                ok = self._monotone[req.key] = placement.monotone(req, self.consumable)
            if not ok:
                return None
        return shape


class ShapeHeap:
    """Heap entries -- tuples, no two equal, the job last -- given out
    smallest first; after :meth:`skip` the entries of a shape are left out.

    One heap until the first skip (most passes never skip: the cost is then
    a plain heap's), then one heap per shape, merged through a heap of their
    smallest entries (``(entry, shape)``; an item is stale, and dropped when
    it comes up, once its entry is no longer its shape's smallest)."""

    __slots__ = ("_one", "_shards", "_heads", "_dead")

    def __init__(self, entries: list):
        heapq.heapify(entries)  # (linear: a pass usually takes a few entries off the top)
        self._one: list = entries
        self._shards: dict | None = None  # shape -> its heap, after the first skip
        self._heads: list | None = None
        self._dead: set = set()

    def __iter__(self) -> Iterator[tuple]:
        """The entries smallest first, as they are then (pushes and skips
        made meanwhile count)."""
        pop = heapq.heappop
        while True:
            if self._heads is None:
                one = self._one
                if not one:
                    return
                yield pop(one)
                continue
            entry = self._pop_shard()
            if entry is None:
                return
            yield entry

    def _pop_shard(self) -> tuple | None:
        heads, shards, dead = self._heads, self._shards, self._dead
        pop = heapq.heappop
        while heads:
            entry, shape = heads[0]
            h = shards[shape]
            if shape in dead or not h or h[0] is not entry:
                pop(heads)  # a stale head, or a skipped shape's
                continue
            pop(h)
            if h:
                heapq.heapreplace(heads, (h[0], shape))
            else:
                pop(heads)
            return entry
        return None

    def push(self, entry: tuple) -> None:
        """Add an entry (dropped if its shape is skipped: it would never be given out)."""
        if self._heads is None:
            heapq.heappush(self._one, entry)
            return
        shape = shape_of(entry[-1])
        if shape in self._dead:
            return
        h = self._shards.get(shape)
        if h is None:
            h = self._shards[shape] = []
        heapq.heappush(h, entry)
        if h[0] is entry:
            heapq.heappush(self._heads, (entry, shape))

    def skip(self, shape: tuple) -> None:
        """Give out no more entries of *shape* (their jobs stay in :meth:`left`)."""
        if self._heads is None:
            shards: dict = {}
            for entry, key in zip(self._one, shapes_of([entry[-1] for entry in self._one])):
                h = shards.get(key)
                if h is None:
                    shards[key] = [entry]
                else:
                    h.append(entry)
            for h in shards.values():
                heapq.heapify(h)
            self._heads = [(h[0], key) for key, h in shards.items()]
            heapq.heapify(self._heads)
            self._shards, self._one = shards, []
        self._dead.add(shape)

    def left(self) -> list[tuple]:
        """The entries not given out, skipped ones included (in no particular order)."""
        if self._shards is None:
            return list(self._one)
        return [entry for h in self._shards.values() for entry in h]
