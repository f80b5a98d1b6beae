"""A waiting bsub's look at its job (bsub -K, -I, -Ip, -Is): one light request
that never blocks the daemon. The thin client (lsfemu.bsubwait) asks it again
and again until the job has ended, as LSF's nios asks mbatchd about the job
it waits for.

Each look gives the job's state and, for an interactive job that really runs
(LSFEMU_CLOCK=wall), the output it wrote since the offsets the caller has
read, after handing the job the caller's new input (lsfemu.engine.jobwrap's
Relay). The job has ended for the caller once it has finished and all its
output has been read; the job's interactive folder is removed then.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsfemu.errors import NoJobFound
from lsfemu.jobstate import FINISHED, PENDING
from lsfemu.ops import permissions
from lsfemu.ops.permissions import Caller

CHUNK = 1 << 16  # bytes of each stream per look: a look stays short
TALKING = ("I", "Ip", "Is")


@dataclass
class Look:
    """What a look found: the job (its row), whether it has started, when (ms;
    0 if not), the output read from the offsets and the offsets after it, and
    whether the caller has seen the end (finished, all output read)."""

    job: object
    started: bool
    start_ms: int
    out: bytes = b""
    err: bytes = b""
    out_off: int = 0
    err_off: int = 0
    ended: bool = False


def look(cl, caller: Caller, job_id: int, out_off: int, err_off: int, since_ms: int,
         data: bytes = b"", eof: bool = False, size: tuple[int, int] | None = None) -> Look:
    """The job's state and its new output. `since_ms`: the start the caller
    has seen (another start, after a requeue, reads the new run's output from
    the beginning); `size`: the caller's terminal's rows and columns, for a
    job on a pseudo-terminal."""
    job = cl.jobs.get((job_id, 0))
    if job is None:
        raise NoJobFound(str(job_id))
    permissions.require(cl.config, caller, "watch", job=job)
    started = job.status not in PENDING and job.start_time is not None and bool(job.exec_hosts)
    start_ms = int(round(job.start_time * 1000)) if started else 0
    seen = Look(job, started, start_ms, out_off=out_off, err_off=err_off)
    finished = job.status in FINISHED
    if job.interactive in TALKING and started and job.real_run:
        if start_ms != since_ms:
            seen.out_off = seen.err_off = 0
        seen.out, seen.err = cl.runner.talk(job.id, seen.out_off, seen.err_off, CHUNK, data, eof, size)
        seen.out_off += len(seen.out)
        seen.err_off += len(seen.err)
        seen.ended = finished and len(seen.out) < CHUNK and len(seen.err) < CHUNK
        if seen.ended:
            cl.runner.forget_talk(job.id)
    else:
        seen.ended = finished
    return seen
