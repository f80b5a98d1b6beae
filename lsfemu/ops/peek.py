"""bpeek: a started job's output so far.

Which job, as OpenLava's bpeek asks mbatchd (LAST_JOB): the job ID given (the
caller's, else anyone's), or the caller's most recently submitted unfinished
job, in -q's queue, on -m's host or named -J (then anyone's when the caller
has none by that name). Then LSF's refusals in bpeek's order: a whole job
array, an interactive job, a job not started, a finished job; and, the job
being someone else's, `User permission denied` (the owner and administrators
may peek). Virtual clock jobs write nothing: `No output so far`.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsfemu.errors import LsfError, NoJobFound
from lsfemu.jobstate import FINISHED, PENDING
from lsfemu.ops import permissions
from lsfemu.ops.permissions import Caller
from lsfemu.ops.select import hosts_named, jobs_of, name_matches
from lsfemu.render import messages as M

@dataclass(frozen=True)
class PeekRequest:
    """The job ID (None: the last job of the selection) and its index, or the filters."""

    job_id: int | None = None
    index: int = 0
    queue: str | None = None
    host: str | None = None
    name: str | None = None


@dataclass
class Peeked:
    """The job (as LSF names it) and its output so far: None for a part not shown."""

    typed: str
    stdout: bytes | None
    stderr: bytes | None


def _typed(job) -> str:
    return f"{job.id}[{job.array_index}]" if job.array_index else str(job.id)


def _chosen(cluster, caller: Caller, req: PeekRequest):
    if req.job_id is not None:
        ranges = ((req.index, req.index, 1),) if req.index else None
        found = jobs_of(cluster.jobs, req.job_id, ranges)
        if not found:
            raise NoJobFound(str(req.job_id) if not req.index else f"{req.job_id}[{req.index}]")
        if not req.index and found[0].array_index:
            raise LsfError(M.ARRAY_OP_NOT_SUPPORTED, "bpeek")
        return found[0]
    if req.queue is not None and cluster.config.queue(req.queue) is None:
        raise LsfError(M.NO_SUCH_QUEUE, req.queue)
    on = None
    if req.host is not None:
        on = hosts_named(cluster.config, req.host)
        if on is None:
            raise LsfError(M.BAD_HOST, req.host)

    def last(users) -> object | None:
        best = None
        for j in cluster.jobs.values():
            if j.status in FINISHED or (users is not None and j.user not in users):
                continue
            if req.queue is not None and j.queue != req.queue:
                continue
            if on is not None and on.isdisjoint(j.exec_hosts.split()):
                continue
            if req.name is not None and not name_matches(req.name, j):
                continue
            if best is None or (j.submit_time, j.id, j.array_index) > (best.submit_time, best.id, best.array_index):
                best = j
        return best

    job = last({caller.user})
    if job is None and req.name is not None:
        job = last(None)
    if job is None:
        raise NoJobFound(req.name, req.queue, req.host)
    return job


def peek(cluster, caller: Caller, req: PeekRequest) -> Peeked:
    """The chosen job's output so far, or LSF's refusal (LsfError)."""
    job = _chosen(cluster, caller, req)
    typed = _typed(job)
    own = f"Job <{typed}> "  # bpeek's own refusals: `Job <N> : text` (OpenLava bpeek.c)
    if job.interactive in ("I", "Ip", "Is"):
        raise LsfError(M.PEEK_INTERACTIVE, own)
    if job.status in PENDING:
        raise LsfError(M.PEEK_NOT_STARTED, own)
    if job.status in FINISHED:
        raise LsfError(M.PEEK_FINISHED, own)
    if not permissions.allows(cluster.config, caller, "control", job=job):
        raise LsfError(M.PERM_DENIED, f"Job <{typed}>")
    got = cluster.output_so_far(job) if job.real_run else None
    if got is None:
        raise LsfError(M.NO_OUTPUT, f"Job <{typed}>")
    return Peeked(typed, got[0], got[1])
