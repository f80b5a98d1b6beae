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


def kinds(jobs: Iterable[Any]) -> set[tuple] | None:
    """The distinct shapes of *jobs* not blocked (None: one of them is judged
    by more than its shape). A job's `fit` names its queue, user, slots and
    requirement: a job whose fit and requirement were seen is not looked at
    again (the pass asks this of every pending job; issue 23, part 5)."""
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

    One heap throughout: an entry of a skipped shape is put aside when it
    comes to the top (kept for :meth:`left`), not given out. A pass stops
    taking entries once the hosts are full, so it puts aside only the
    skipped entries ranked above its last start -- each a pop -- where one
    heap per shape cost every entry's shape and a heap of its own at the
    first skip (issue 23, part 5: 5% of the first pass at 100k)."""

    __slots__ = ("_one", "_aside", "_dead")

    def __init__(self, entries: list):
        heapq.heapify(entries)  # (linear: a pass usually takes a few entries off the top)
        self._one: list = entries
        self._aside: list = []  # entries of skipped shapes taken off the heap
        self._dead: set = set()

    def __iter__(self) -> Iterator[tuple]:
        """The entries smallest first, as they are then (pushes and skips
        made meanwhile count)."""
        pop = heapq.heappop
        one, dead = self._one, self._dead
        while one:
            entry = pop(one)
            if dead and shape_of(entry[-1]) in dead:
                self._aside.append(entry)
                continue
            yield entry

    def push(self, entry: tuple) -> None:
        """Add an entry (dropped if its shape is skipped: it would never be given out)."""
        if self._dead and shape_of(entry[-1]) in self._dead:
            return
        heapq.heappush(self._one, entry)

    def skip(self, shape: tuple) -> None:
        """Give out no more entries of *shape* (their jobs stay in :meth:`left`)."""
        self._dead.add(shape)

    def left(self) -> list[tuple]:
        """The entries not given out, skipped ones included (in no particular order)."""
        return self._one + self._aside if self._aside else list(self._one)
