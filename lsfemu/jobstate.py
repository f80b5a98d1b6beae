"""A job's states, defined once: the status words LSF prints, and the groups of
them that the rest of lsfemu asks about.

    PEND   waiting to be scheduled            PSUSP  held (bstop) while pending
    RUN    running                            USUSP  suspended by its user or an admin
    SSUSP  suspended by the system            UNKWN  started on a host that was lost
    DONE   ended with exit status 0           EXIT   ended otherwise (or killed)

UNKWN (LSF: "mbatchd has lost contact with the sbatchd on the host on which the
job runs") is why two groups of started jobs exist: an UNKWN job still holds its
slots and is unfinished (STARTED, UNFINISHED), but nothing can reach it -- no
signal, no suspension, no process to watch -- so the commands and the process
runner act on ON_HOST jobs only, and LSF's `numstart()` counts those.

The groups are tuples, not sets: some callers list them in this order, and a
set's order of strings changes from run to run.
"""

from __future__ import annotations

PEND = "PEND"
PSUSP = "PSUSP"
RUN = "RUN"
USUSP = "USUSP"
SSUSP = "SSUSP"
UNKWN = "UNKWN"
DONE = "DONE"
EXIT = "EXIT"

#: not started yet
PENDING = (PEND, PSUSP)
#: started and suspended
SUSPENDED = (USUSP, SSUSP)
#: every kind of suspension, also while pending (bjobs -s, bhist -s)
ANY_SUSPENDED = (PSUSP, USUSP, SSUSP)
#: started, on a host that can be reached: what a signal, a suspension or the runner acts on
ON_HOST = (RUN, USUSP, SSUSP)
#: started and holding slots
STARTED = ON_HOST + (UNKWN,)
#: ended, successfully or not
FINISHED = (DONE, EXIT)
#: pending or started
UNFINISHED = PENDING + STARTED
#: every state, in the order above
ALL = UNFINISHED + FINISHED


#: what makes a pending job ineligible for scheduling (IBM's bjobs -pi list, as lsfemu's reasons word it):
#: held, a start time, an unsatisfied dependency, an inactive queue or run window (matched ignoring case)
INELIGIBLE_REASONS = ("dependency condition", "specified start time", "queue is inactivated",
                      "queue's run window", "job was suspended")


def ineligible(status: str, reasons: str) -> bool:
    """Is a job of this status and these pending reasons (newline-separated) pending and
    ineligible for scheduling (bjobs -pi, -o pendstate IPEND, TRACK_ELIGIBLE_PENDINFO's time)?"""
    if status == PSUSP:
        return True
    if status != PEND or not reasons:
        return False
    low = reasons.lower()
    return any(w in low for w in INELIGIBLE_REASONS)
