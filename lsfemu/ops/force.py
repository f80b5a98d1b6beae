"""brun: an administrator forces a pending job to run on the hosts named,
whatever the scheduler would decide (the hosts' free slots, the queue's and
users' limits, the job's place in line).

The checks follow mbatchd's runJob in their order: the job exists; the
caller is an LSF administrator or an administrator of the job's queue; it is
one job, not a whole job array; it is not suspended after a start (USUSP,
SSUSP); it has not started; it has not finished (LSF 10.1 forces pending
jobs only: see docs/semantics.md, "Job control (issue 18, part 5)"). Then
the hosts: each one a server host of the cluster, none of them down, enough
slots in all for the job's minimum (`host#num` counts num slots on host; a
host's MXJ otherwise, any number when it has none).
"""

from __future__ import annotations

from dataclasses import dataclass

from lsfemu.errors import LsfError
from lsfemu.jobstate import FINISHED, STARTED
from lsfemu.ops import permissions
from lsfemu.ops.permissions import Caller
from lsfemu.ops.select import jobs_of
from lsfemu.render import messages as M


@dataclass(frozen=True)
class ForceRequest:
    """`brun -m "hosts" job_ID`: the job (index 0 for a plain job or a whole
    array) and the hosts as typed (`name` or `name#num`)."""

    job_id: int
    index: int
    hosts: tuple[str, ...]


def force_run(cluster, caller: Caller, req: ForceRequest):
    """Start the job now on the hosts; returns the job. Raises LsfError with
    LSF's reason (brun prints `Failed to run the job: <reason>`)."""
    found = jobs_of(cluster.jobs, req.job_id, None if req.index == 0 else ((req.index, req.index, 1),))
    if not found:
        raise LsfError(M.NO_MATCHING_JOB)
    job = found[0]
    permissions.require(cluster.config, caller, "force_run", job=job)
    if req.index == 0 and job.array_index:
        raise LsfError(M.ARRAY_OP_NOT_SUPPORTED)
    if job.status in ("USUSP", "SSUSP"):
        raise LsfError(M.SUSPENDED_OP_NOT_SUPPORTED)
    if job.status in STARTED:
        raise LsfError(M.JOB_STARTED)
    if job.status in FINISHED:
        raise LsfError(M.JOB_FINISHED)
    cluster.force_run(job, allocation(cluster, job, req.hosts), caller.user)
    return job


def allocation(cluster, job, asked: tuple[str, ...]) -> list[str]:
    """One host per slot: the hosts in the order named, each filled up to its
    slots, until the job has its maximum (its -n, or min,max's max)."""
    cfg = cluster.config
    known = set(cfg.host_names)
    want_min = job.num_processors or 1
    want_max = max(job.max_processors or want_min, want_min)
    caps: dict[str, int] = {}
    for word in asked:
        name, _, num = word.partition("#")
        if name not in known:
            raise LsfError(M.BAD_HOST)
        if num:
            if not num.isdigit() or int(num) < 1:
                raise LsfError(M.BAD_HOST)
            cap = int(num)
        else:
            mxj = cfg.host_mxj(name)
            cap = want_max if mxj is None else mxj
        if cluster.host_failed(name):
            raise LsfError(M.NOT_ENOUGH_HOSTS)
        caps[name] = caps.get(name, 0) + cap
    if sum(caps.values()) < want_min:
        raise LsfError(M.TOO_MANY_PROCS)
    hosts: list[str] = []
    for name, cap in caps.items():
        take = min(cap, want_max - len(hosts))
        hosts.extend([name] * take)
        if len(hosts) >= want_max:
            break
    return hosts
