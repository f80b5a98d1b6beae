"""The scheduling pass's plain data (lsfemu.sched.dispatch): the pending jobs
as the pass sees them (`PendingJob`, kept by the daemon between passes), the
queues and hosts with what their started jobs use (`QueueInfo`, `HostInfo`),
one pass's input (`PassInput`) and its result (`PassResult`). Built by the
engine (lsfemu.engine.passes, passrows) from the store; read and changed by
the pure pass only.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from lsfemu.sched import hostres


@dataclass(slots=True, eq=False)
class PendingJob:
    """A pending job as the pass sees it. The daemon keeps each job's
    PendingJob between passes and only sets `priority` anew when escalation
    moves it (the pass reads a hundred thousand of them: a slotted class is
    built and read faster than a named tuple, and an update is one store)."""

    job_id: int
    array_index: int
    user: str
    queue: str
    slots: int
    priority: int  # job priority (0 when user priorities are off), escalated to the pass's instant
    position: float  # FCFS order; smaller is earlier
    first: bool = False  # migrated or rerun: scheduled before every pending job of its unit
    blocked: str | None = None  # a reason that keeps it pending this pass (an unmet dependency)
    array_limit: int | None = None  # an array element: at most this many elements started at once
    row: Any = None  # the caller's own record of the job, opaque to the pass (the engine's passrows.Row)
    # (job_id, array_index): its reasons' key. The caller may give its own
    # object of that value (the daemon's key of the job, kept once per job for
    # every pending job between passes: issue 23, part 3)
    key: tuple[int, int] | None = field(default=None, repr=False)
    # queue, user and slots (and the requirement's key, see require): what a
    # refusal depends on. Made here unless the caller gives it (the engine
    # makes one per distinct value for the first pass after a start)
    fit: str | None = field(default=None, repr=False)
    # its job group's chain of limited groups (bsub -g; set by the caller only
    # while some group has a limit): at most their limits started under each
    groups: tuple[str, ...] | None = field(default=None, init=False)
    # bsub -m / -x: a sched.hostpick.Placement, set by the caller (None: any host of its queue, shared)
    place: Any = field(default=None, init=False)
    alternative: int = field(default=0, init=False)  # the requirement's alternative it started with
    # its effective resource requirement, a sched.placement.Req (None: any host
    # with free slots); set through require(), which keys its refusals by it too
    req: Any = field(default=None, init=False)
    # lsb.resources: a sched.limits.Demand, set by the caller (None: no limit covers the job)
    limits: Any = field(default=None, init=False)

    def __post_init__(self) -> None:
        # made once per job (the pass keeps it between passes); the pass reads
        # them for every job. `fit` is a string: its hash is kept in it; one
        # object per distinct value (a queue's jobs share a handful).
        if self.key is None:
            self.key = (self.job_id, self.array_index)
        if self.fit is None:
            self.fit = sys.intern(f"{self.queue}\0{self.user}\0{self.slots}")

    def require(self, req: Any) -> None:
        """Give the job its compiled requirement (jobs sharing one share their refusals)."""
        self.req = req
        self.fit = sys.intern(f"{self.queue}\0{self.user}\0{self.slots}\0{req.key}")


@dataclass
class QueueInfo:
    name: str
    priority: int
    order: int  # index in lsb.queues
    active: bool = True
    hosts: list[str] = field(default_factory=list)  # usable hosts, cluster order
    qjob_limit: int | None = None
    ujob_limit: int | None = None
    hjob_limit: int | None = None
    pjob_limit: int | None = None
    used: int = 0  # slots of this queue's started jobs
    used_by_user: dict[str, int] = field(default_factory=dict)
    used_on_host: dict[str, int] = field(default_factory=dict)


@dataclass
class HostInfo:
    name: str
    max_slots: int | None  # MXJ; None = unlimited
    used: int = 0
    open: bool = True
    ncpus: int = 1  # for per-CPU limits (JL/P)
    # JOB_ACCEPT_INTERVAL > 0: a host takes one job per interval. `accepting`
    # is False while the interval since its last dispatch runs; `accept_once`
    # closes it for the rest of this pass after it takes a job.
    accepting: bool = True
    accept_once: bool = False
    failed: bool = False  # lsfemu host fail
    exclusive: bool = False  # an exclusive job (bsub -x) runs there: no other job may
    busy: str | None = None  # closed_Busy: the first load index beyond its lsb.hosts loadSched
    # Resources (issue 19): its sched.hostres.HostResources (None: slots only),
    # its load indices, and what it has left to reserve (mem, swp, tmp, numeric
    # resources; the running jobs' reservations taken off); `avail` changes
    # as the pass starts jobs there, and `view` is what select[] reads of it
    res: Any = None
    load: dict = field(default_factory=dict)
    avail: dict = field(default_factory=dict)
    _view: dict | None = field(default=None, repr=False)

    def view(self) -> dict:
        """What select[] and order[] read of the host now (memory available after reservations)."""
        v = self._view
        if v is None:
            v = self._view = hostres.namespace(self.res, {**self.load, **self.avail}) if self.res is not None \
                else {"hname": self.name, **self.load, **self.avail}
        return v


@dataclass
class PassInput:
    jobs: list[PendingJob]
    queues: dict[str, QueueInfo]
    hosts: dict[str, HostInfo]
    user_limits: dict[str, int | None]  # effective MAX_JOBS per user (absent = unlimited)
    user_used: dict[str, int]  # slots of each user's started jobs
    array_started: dict[int, int] = field(default_factory=dict)  # job ID -> started elements (RUN, USUSP, SSUSP)
    # job group -> its limit, and its started jobs (its own and its subgroups'); bgadd -L
    group_limits: dict[str, int] = field(default_factory=dict)
    group_started: dict[str, int] = field(default_factory=dict)
    limits: Any = None  # lsb.resources: a sched.limits.Limits with the started jobs' usage (None: no limits)
    # SLOT_RESERVE / RESOURCE_RESERVE / BACKFILL: a sched.reserve.PassReserve
    # (None: no queue has them, and the pass takes none of their paths)
    reserve: Any = None


@dataclass
class PassResult:
    started: list[tuple[PendingJob, list[str]]]  # job, one host name per slot
    reasons: dict[tuple[int, int], list[str]]  # (job_id, index) -> reasons of jobs left pending
    # The first `early` entries of `reasons` were decided before the pass's
    # last start (under a state that no longer holds); the others hold for
    # the state the pass ends with.
    early: int = 0
    # No pending job could start in the state the pass ends with (every host
    # full, or every shape of job refused: see schedule_pass's stuck())
    settled: bool = False
