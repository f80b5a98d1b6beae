"""Job groups as mbatchd keeps them (bgadd, bgmod, bgdel, bsub -g): a tree of
paths (`/risk_group/portfolio1`), each with its owner and an optional job
limit, stored in the `job_groups` table and held here in creation order.

A group's job limit counts the started jobs (RUN, SSUSP, USUSP) of the group
and of every group below it, one per job whatever its slots (LSF's bgadd -L);
the pass asks `limits()` and each pending job's group (lsfemu.sched.dispatch).
"""

from __future__ import annotations

from lsfemu.jobstate import STARTED
from lsfemu.store.jobs import job_groups
from lsfemu.store.models import JobGroup


def chain(path: str) -> list[str]:
    """The group and its ancestors below the root, top first:
    `/a/b/c` -> [`/a`, `/a/b`, `/a/b/c`]."""
    parts = [p for p in path.split("/") if p]
    return ["/" + "/".join(parts[:i + 1]) for i in range(len(parts))]


def within(path: str, top: str) -> bool:
    """Whether group `path` is `top` or below it."""
    return path == top or path.startswith(top.rstrip("/") + "/")


def pass_input(cl, inp, held) -> None:
    """The job group limits (bgadd -L) in a pass input (a dispatch.PassInput):
    each limited group's started jobs (its own and its subgroups', of *held*),
    and each pending job's chain of limited groups. Only while some group has
    a limit: the pass reads no group otherwise."""
    limits = cl.job_groups.limits()
    inp.group_limits = dict(limits)
    chains: dict[str | None, tuple[str, ...] | None] = {None: None}

    def limited(path: str | None) -> tuple[str, ...] | None:
        c = chains.get(path, ())
        if c == ():
            c = chains[path] = tuple(g for g in chain(path) if g in limits) or None
        return c

    started = inp.group_started
    for job in held:
        if job.status in STARTED:
            for g in limited(job.job_group) or ():
                started[g] = started.get(g, 0) + 1
    jobs = cl.jobs
    for pj in inp.jobs:
        pj.groups = limited(jobs[pj.key].job_group)


class JobGroups:
    """The cluster's job groups (loaded from the store on first use)."""

    def __init__(self, cluster):
        self.cl = cluster
        self._groups: dict[str, JobGroup] | None = None
        self._limits: dict[str, int] | None = None

    @property
    def groups(self) -> dict[str, JobGroup]:
        if self._groups is None:
            self._groups = {g.path: g for g in job_groups(self.cl.session)}
        return self._groups

    def get(self, path: str) -> JobGroup | None:
        return self.groups.get(path)

    def all(self) -> list[JobGroup]:
        """Every group, in the order they were made."""
        return list(self.groups.values())

    def limits(self) -> dict[str, int]:
        """path -> job limit, for the groups that have one (empty: the pass skips groups)."""
        if self._limits is None:
            self._limits = {p: g.job_limit for p, g in self.groups.items() if g.job_limit is not None}
        return self._limits

    def add(self, path: str, owner: str, limit: int | None = None) -> list[str]:
        """Make the group and any missing parent (owned by `owner`, no limit);
        the limit is the lowest group's. The paths made, top first."""
        made = []
        # `created` orders the groups (bjgroup lists them in creation order): two
        # groups made at one instant (a virtual clock) a millisecond apart
        last = max((g.created for g in self.groups.values()), default=None)
        for p in chain(path):
            if p in self.groups:
                continue
            now = self.cl.now() if last is None else max(self.cl.now(), last + 0.001)
            last = now
            g = JobGroup(path=p, owner=owner, job_limit=limit if p == path else None, created=now)
            self.cl.session.add(g)
            self.groups[p] = g
            made.append(p)
        self._changed()
        return made

    def set_limit(self, path: str, limit: int | None) -> None:
        self.groups[path].job_limit = limit
        self._changed()

    def set_owner(self, path: str, owner: str) -> None:
        self.groups[path].owner = owner

    def delete(self, path: str) -> list[str]:
        """Remove the group and every group below it; the paths removed."""
        gone = [p for p in self.groups if within(p, path)]
        for p in gone:
            self.cl.session.delete(self.groups.pop(p))
        self._changed()
        return gone

    def _changed(self) -> None:
        self._limits = None
        self.cl.mark_dirty()  # a limit changed: pending jobs may start, or stay
