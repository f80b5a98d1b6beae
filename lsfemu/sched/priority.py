"""User-assigned job priority and its automatic escalation, as pure functions.

LSF's rules (lsb.params ``MAX_USER_PRIORITY`` and ``JOB_PRIORITY_OVER_TIME``):

* ``bsub -sp N`` / ``bmod -sp N`` take 1..MAX_USER_PRIORITY; anything else is
  ``Bad user priority``. Without MAX_USER_PRIORITY the answer is ``Job priority
  control undefined``. LSF and queue administrators may go beyond
  MAX_USER_PRIORITY for jobs *they own* (the caller decides whether that holds
  and passes ``is_admin``); nobody goes below 1 or above max_int.
* ``bmod -spn`` and jobs submitted without ``-sp`` get the default,
  MAX_USER_PRIORITY/2 (integer division, at least 1).
* ``JOB_PRIORITY_OVER_TIME=increment/interval``: every full *interval* minutes
  a job stays pending its priority grows by *increment*, beyond
  MAX_USER_PRIORITY, capped at max_int (2147483647).

lsfemu's choice for what the escalation counts (see docs/semantics.md): the
pending time since the job's user-assigned priority was last *set* - at
submission, at ``bmod -sp``/``-spn``, and at ``brequeue`` (a requeued job starts
over as if newly submitted). So right after ``bmod -sp 40`` the job shows 40,
as its owner expects; the escalation then resumes from there. A job escalates
only while pending (PEND or PSUSP); once dispatched its priority stays at the
value it had then (:func:`frozen_at_dispatch`). A rerun job (host failure,
``bmig``) keeps that priority and escalates on from it when it pends again,
with the part of an interval it had pended before its dispatch: its running
time never counts (:func:`pending_clock_after_run`).

Pending time is kept as a *clock origin*: an instant such that, while the job
pends, ``now - origin`` is the pending time counted (the daemon's
``priority_base_time`` for escalation, ``pend_since`` for APS grace periods).
A job that pends again after a run moves its origins forward by the run.

Order of pending jobs outside APS queues: job priority (high first), then FCFS;
``btop``/``bbot`` move a job only among jobs of the same priority (the daemon's
``position``), never changing the priority.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable

#: max_int on LSF's platforms: priorities never grow beyond it.
INT_MAX = 2147483647

BAD_USER_PRIORITY = "Bad user priority"
NO_JOB_PRIORITY = "Job priority control undefined"

_INT_RE = re.compile(r"^\s*\+?[0-9]+\s*$")


class PriorityError(ValueError):
    """A refused ``-sp``/``-spn``; ``lsf_message`` is LSF's lsberrno text
    (the caller appends ``. Job not submitted.`` / ``. Job not modified.``)."""

    def __init__(self, lsf_message: str):
        self.lsf_message = lsf_message
        super().__init__(lsf_message)


def check_user_priority(value_text: str, max_user_priority: int | None, is_admin: bool = False) -> int:
    """Validate the argument of ``-sp``; return the priority.

    ``is_admin`` means: an LSF or queue administrator acting on a job they own
    (only then may the value exceed MAX_USER_PRIORITY). Non-integers, values
    below 1 and values above max_int are always ``Bad user priority``.
    """
    if max_user_priority is None:
        raise PriorityError(NO_JOB_PRIORITY)
    if not isinstance(value_text, str) or not _INT_RE.match(value_text):
        raise PriorityError(BAD_USER_PRIORITY)
    value = int(value_text.strip())
    if value < 1 or value > INT_MAX:
        raise PriorityError(BAD_USER_PRIORITY)
    if value > max_user_priority and not is_admin:
        raise PriorityError(BAD_USER_PRIORITY)
    return value


def default_priority(max_user_priority: int | None) -> int:
    """The priority of jobs submitted without ``-sp`` and after ``bmod -spn``:
    MAX_USER_PRIORITY/2 (at least 1). 0 when user priorities are off."""
    if max_user_priority is None:
        return 0
    return max(1, max_user_priority // 2)


def reset_priority(max_user_priority: int | None) -> int:
    """``bmod -spn``: the default priority; refused without MAX_USER_PRIORITY."""
    if max_user_priority is None:
        raise PriorityError(NO_JOB_PRIORITY)
    return default_priority(max_user_priority)


def escalates(over_time: tuple[int, int] | None) -> bool:
    """Does JOB_PRIORITY_OVER_TIME *over_time* ((increment, interval minutes), None: unset) move priorities?"""
    return over_time is not None and over_time[0] > 0 and over_time[1] > 0


@lru_cache(maxsize=32)
def escalation(over_time: tuple[int, int] | None) -> Callable[[int, float], int]:
    """The job priority after escalation, for one JOB_PRIORITY_OVER_TIME:
    ``f(base, pending_seconds)``.

    *over_time* is ``(increment, interval_minutes)`` from JOB_PRIORITY_OVER_TIME
    (None = no escalation). Only whole intervals count; the result never
    exceeds max_int. *pending_seconds* counts from the moment *base* was set
    (see the module docstring).

    The one escalation formula: the scheduling pass, ``bjobs -aps``, ``bjobs``
    and ``lsfemu explain`` all call it (the pass once per pending job, hence a
    function made once per setting)."""
    if not escalates(over_time):
        def none(base: int, pending_seconds: float) -> int:
            return base if base < INT_MAX else INT_MAX
        return none
    increment, interval = over_time
    step = interval * 60

    def steps(base: int, pending_seconds: float) -> int:
        if pending_seconds > 0:
            base += int(pending_seconds // step) * increment
        return base if base < INT_MAX else INT_MAX
    return steps


def frozen_at_dispatch(base: int, base_since: float, now: float,
                       over_time: tuple[int, int] | None) -> tuple[int, float]:
    """A job is dispatched at *now*: its priority stops escalating.

    Returns the new (base, base_since): the priority it has now (what bjobs
    shows while it runs, and what a rerun keeps), and the origin moved on by
    the whole intervals that priority took in, so that the part of an
    interval already pended still counts should the job pend again."""
    if not escalates(over_time):
        return min(base, INT_MAX), base_since
    step = over_time[1] * 60
    whole = int(max(0.0, now - base_since) // step)
    return escalation(over_time)(base, now - base_since), base_since + whole * step


def pending_clock_after_run(origin: float, dispatched: float, now: float) -> float:
    """The origin of a pending-time clock (see the module docstring) for a job
    that pends again at *now* after a run dispatched at *dispatched*: the time
    it pended from *origin* to its dispatch still counts, the run does not.
    (An origin set while the job ran - ``bmod -sp`` - counts from *now*.)"""
    return now - max(0.0, dispatched - origin)
