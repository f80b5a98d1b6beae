"""bjdepinfo: a job's dependencies over the `bsub -w` conditions the cluster
keeps (lsfemu.engine.depends): the jobs it depends on (parents, by default),
those that keep it pending (-p), the jobs that depend on it (-c), to `level`
degrees of separation (-r), and, with -l, whether each queried job's
condition is met. A job array's ID alone stands for all its elements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lsfemu.errors import NoJobFound
from lsfemu.ops.select import jobs_of


@dataclass(frozen=True)
class DepRequest:
    job_id: int
    index: int = 0
    children: bool = False  # -c
    pending_only: bool = False  # -p
    detail: bool = False  # -l
    level: int = 1  # -r


@dataclass(frozen=True)
class DepRow:
    """One line of the table: `job` depends on `other` (-c: `other` depends on
    `job`), `level` degrees from the queried job."""

    job: str
    other: str
    status: str
    name: str
    level: int


@dataclass
class DepInfo:
    #: -l: (job as typed, its condition as given, TRUE / FALSE / INVALID) of each job whose parents are listed
    conditions: list[tuple[str, str, str]] = field(default_factory=list)
    rows: list[DepRow] = field(default_factory=list)


def typed(job) -> str:
    return f"{job.id}[{job.array_index}]" if job.array_index else str(job.id)


def depinfo(cluster, req: DepRequest) -> DepInfo:
    """The dependencies of the job (or every element of the array) asked for."""
    found = jobs_of(cluster.jobs, req.job_id, ((req.index, req.index, 1),) if req.index else None)
    if not found:
        raise NoJobFound(f"{req.job_id}[{req.index}]" if req.index else str(req.job_id))
    deps = cluster.depends
    out = DepInfo()
    seen: set[tuple[int, int]] = set()
    frontier = [(j, 1) for j in found]
    while frontier:
        job, level = frontier.pop(0)
        if (job.id, job.array_index) in seen:
            continue
        seen.add((job.id, job.array_index))
        if req.children:
            linked = deps.children(job)
        else:
            linked = deps.parents(job, pending_only=req.pending_only)
            if req.detail and job.depend_json:
                out.conditions.append((typed(job), job.dependency or "", deps.state_of(job)))
        for other in linked:
            name = other.name if other.name is not None else other.command
            out.rows.append(DepRow(typed(job), typed(other), other.status, name, level))
            if level < req.level:
                frontier.append((other, level + 1))
    return out
