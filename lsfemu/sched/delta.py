"""The delta pass: a scheduling pass that looks at the head of each order and
at the jobs changed since the last pass, not at every pending job; pure
(issue 23, part 4).

A full pass (lsfemu.sched.dispatch.schedule_pass) gives every pending job
its reasons; those of the jobs it reaches after its last start are the
reasons the state it ends with gives them (a plain job's refusal depends on
the job and that state only). When the order of every unit is fixed between
passes (no fairshare, no APS, no escalation) and the caller keeps it, the
next pass considers, in order, the same jobs a full pass would until every
host is full again: the starts are the full pass's. If the state it then
ends in is the one the last pass ended in (the caller compares), every job
it did not reach keeps its reasons: they are the ones a full pass would
give it. If the state differs the caller runs a full pass instead; if the
orders run out first, every job has been considered and the outcome is a
full pass's as it is.

A fairshare unit's order moves with time (its users' dynamic priorities
do) but each user's own jobs keep theirs (job priority, then submission,
without escalation): `FairWalk` takes the users' kept orders and merges
them as the full pass's fairshare Order does, with the dynamic priorities
of the pass's instant, told of each start.

`delta_pass` gets the units' orders as iterables in the order units are
served (the caller merges the jobs changed since the last pass into them;
an order with a `started` method is told of each of its starts),
and apart from them the jobs it must look at (`later`: those changed
since the last pass, those it decided before its last start, those waiting
on a dependency), which, unless reached in order, get the reasons of the
state the pass ends in. It gives up (None) after
`limit` jobs considered: a full pass costs less then.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from lsfemu.sched import dispatch


def delta_pass(inp: dispatch.PassInput, orders: Iterable[Iterable[dispatch.PendingJob]],
               later: Iterable[dispatch.PendingJob], limit: int) -> tuple[dispatch.PassResult, bool] | None:
    """Start what fits, in order, until every host is full (see the module
    docstring); the state in *inp* is updated as jobs start. Returns the
    result and whether every job was considered (the orders ran out), or
    None after *limit* jobs considered."""
    started: list = []
    reasons: dict = {}
    refused: dict[str, list[str]] = {}  # PendingJob.fit -> reasons, until the next start (as schedule_pass)
    no_room: dict = {}
    early = 0
    full = dispatch.all_full(inp.hosts)
    looked = 0
    for order in () if full else orders:
        on_start = getattr(order, "started", None)
        for job in order:
            looked += 1
            if looked > limit:
                return None
            plain = job.array_limit is None and job.groups is None and job.place is None and job.blocked is None
            if plain:
                why = refused.get(job.fit)
                if why is not None:
                    reasons[job.key] = why
                    continue
            alloc = dispatch._try_start(job, inp, reasons, no_room)
            if alloc is None:
                if plain:
                    refused[job.fit] = reasons[job.key]
                continue
            started.append((job, alloc))
            if on_start is not None:
                on_start(job)
            refused.clear()
            no_room.clear()
            early = len(reasons)
            if dispatch.all_full(inp.hosts):
                full = True
                break
        if full:
            break
    done = {pj.key for pj, _ in started}
    for job in later:  # not reached in order: the reasons of the end state
        if job.key in reasons or job.key in done:
            continue
        plain = job.array_limit is None and job.groups is None and job.place is None and job.blocked is None
        why = refused.get(job.fit) if plain else None
        if why is not None:
            reasons[job.key] = why
        elif dispatch._try_start(job, inp, reasons, no_room) is not None:
            return None  # (it would have started in order: cannot happen, the orders hold every job that may)
        elif plain:
            refused[job.fit] = reasons[job.key]
    return dispatch.PassResult(started, reasons, early, full), not full


class FairWalk:
    """A fairshare unit's order in a delta pass: the order
    lsfemu.engine.fairshare.FairshareOrder gives -- the user the share tree
    chooses among those with jobs left (offered in name order), then that
    user's next job; a start charges the user before the next choice --
    from each user's own order (*heads*: user -> its jobs in fcfs order,
    as iterators). *state_of()* gives the unit's FairshareState at the
    pass's instant, asked when the walk begins (a pass whose hosts are full
    never walks). The choice is made again only after a start or when the
    chosen user has no job left: a refusal changes neither the state nor the
    candidates, so the share tree would choose the same user again."""

    def __init__(self, heads: dict[str, Iterator[dispatch.PendingJob]], state_of: Callable,
                 committed_h: Callable[[dispatch.PendingJob], float]):
        self._heads = heads
        self._state_of = state_of
        self._committed_h = committed_h
        self._state = None
        self._user: str | None = None  # the user chosen, until a start or the end of their jobs

    def __iter__(self):
        state = self._state = self._state_of()
        nexts: dict[str, tuple] = {}
        for user, jobs in self._heads.items():
            job = next(jobs, None)
            if job is not None:
                nexts[user] = (job, jobs)
        names = sorted(nexts)
        while nexts:
            user = self._user
            if user is None:
                user = self._user = state.choose(names)
                if user is None:  # users without a share account never run here
                    return
            job, jobs = nexts[user]
            following = next(jobs, None)
            if following is None:
                del nexts[user]
                names.remove(user)
                self._user = None
            else:
                nexts[user] = (following, jobs)
            yield job

    def started(self, job: dispatch.PendingJob) -> None:
        self._state.job_started(job.user, job.slots, self._committed_h(job))
        self._user = None
