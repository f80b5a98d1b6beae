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

`delta_pass` gets the units' orders as iterables in the order units are
served (the caller merges the jobs changed since the last pass into them),
and apart from them the jobs it must look at (`later`: those changed
since the last pass, those it decided before its last start, those waiting
on a dependency), which, unless reached in order, get the reasons of the
state the pass ends in. It gives up (None) after
`limit` jobs considered: a full pass costs less then.
"""

from __future__ import annotations

from typing import Iterable

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
