"""TRACK_ELIGIBLE_PENDINFO's accounting (lsb.params; bjobs -o ependtime / ipendtime):
the time a job pends ineligible for scheduling, kept as it happens.

A pending job is ineligible while it is held (PSUSP) or its pending reasons say it
waits for a start time, a dependency, an inactive queue or run window
(`lsfemu.jobstate.ineligible`, the classification bjobs -pe / -pi and -o pendstate
use). Its state changes in two places only -- the transitions of
`engine.jobs.Transitions` (submission, bstop/bresume, dispatch, requeue, rerun, the
end) and the pending reasons each scheduling pass writes (`engine.passes`) -- and
each calls :func:`note` when the job may have crossed from one side to the other.
A job keeps the seconds of its ineligible stretches that ended (``ipend_time``)
and when the current one began (``ipend_since``): exact to the instant of each
change, which for the reasons a pass writes is the pass's instant, as LSF judges
them at its scheduling sessions. Its eligible pending time is its pending time
without them.
"""

from __future__ import annotations

from lsfemu.jobstate import ineligible


def note(job, t: float, now_ineligible: bool | None = None) -> None:
    """The job's state or pending reasons changed at *t*: start an ineligible
    stretch, or end one (its seconds added), when it crossed over.
    *now_ineligible*: the new side when the caller knows it (a pass that
    has not stored the new reasons on the object yet)."""
    if now_ineligible is None:
        now_ineligible = ineligible(job.status, job.pend_reasons or "")
    since = job.ipend_since
    if now_ineligible:
        if since is None:
            job.ipend_since = t
    elif since is not None:
        job.ipend_time = (job.ipend_time or 0.0) + max(0.0, t - since)
        job.ipend_since = None


def ineligible_seconds(ipend_time: float | None, ipend_since: float | None, now: float) -> float:
    """The seconds pended ineligible up to *now* (the stretch under way included)."""
    return (ipend_time or 0.0) + (max(0.0, now - ipend_since) if ipend_since is not None else 0.0)


def starts_ineligible(hold: bool, dependency: str | None, begin_time: float | None, now: float) -> bool:
    """A new job held (bsub -H), with a dependency (-w) or a start time to come (-b) is
    ineligible from its submission (the first pass says why; judging it only then would
    count the wait for that pass as eligible)."""
    return hold or bool(dependency) or (begin_time is not None and begin_time > now)
