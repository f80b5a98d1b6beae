"""The virtual clock: `lsfemu clock set TIME` and `advance DURATION` run every
scheduling pass and job end that falls inside, in order (the engine's
run_until). A wall clock cannot be moved; the clock never goes back, except
on a cluster that has never had a job."""

from __future__ import annotations

from dataclasses import dataclass

from lsfemu.clock import MAX_TIME, parse_duration, parse_time
from lsfemu.errors import LsfError
from lsfemu.jobstate import FINISHED
from lsfemu.render import messages as M


@dataclass(frozen=True)
class Moved:
    """The clock's new time, the passes run and the jobs that finished on the way."""

    now: float
    passes: int
    finished: int


def move(cluster, how: str, text: str) -> Moved:
    """`how` is "set" (TIME: epoch seconds, ISO 8601, +DURATION) or "advance" (DURATION)."""
    if cluster.clock.mode != "virtual":
        raise LsfError(M.CLOCK_IS_WALL, "lsfemu")
    now = cluster.now()
    try:
        target = parse_time(text, now) if how == "set" else now + parse_duration(text)
    except ValueError as e:
        raise LsfError(str(e), "lsfemu") from None
    if target < now and not (how == "set" and cluster.set_back_unused(target)):
        raise LsfError(M.clock_cannot_go_back(now), "lsfemu")
    if target > MAX_TIME:
        raise LsfError(M.clock_past_9999(text), "lsfemu")
    before = sum(1 for j in cluster.jobs.values() if j.status in FINISHED)
    passes = cluster.run_until(target)
    after = sum(1 for j in cluster.jobs.values() if j.status in FINISHED)
    return Moved(cluster.now(), passes, after - before)
