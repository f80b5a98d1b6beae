"""The pass's PendingJobs (lsfemu.sched.passdata), as the engine makes them
from the jobs and their rows (lsfemu.engine.passrows), with their placement
rules: bsub -m / -hostfile / -x, and the compiled resource requirement.

The first pass after a start makes one per pending job (issue 23, part 5):
what a job's rules depend on -- its -x, -m, -R, application and submission
host -- takes a handful of distinct values in a big cluster, so `Maker`
works them out once per distinct value in a pass, and the job's `fit` (what
a refusal depends on: queue, user, slots, requirement) once per distinct
(user, queue, slots, rules), instead of once per job.
"""

from __future__ import annotations

from operator import attrgetter

from lsfemu.sched import hostfile, hostpick
from lsfemu.sched.passdata import PendingJob

#: what a job's placement rules depend on (besides its queue, which its row has)
_RULES = attrgetter("exclusive", "asked_hosts", "res_req", "app_profile", "from_host")


def placement(cl, job) -> hostpick.Placement | None:
    """bsub -m / -hostfile / -x for the pass (None for a job with none: most jobs)."""
    excl, asked = job.exclusive, job.asked_hosts
    if not excl and not asked:
        return None
    hosts = None
    listed = hostfile.decode(asked)
    if listed is not None:  # bsub -hostfile: its lines, as kept at submission
        return hostpick.Placement(None, bool(excl), tuple(listed[1]))
    if asked:
        cfg = cl.config
        try:
            hosts = tuple(hostpick.candidates(asked, cfg.host_names, cfg.host_groups))
        except hostpick.AskedHostError:  # a host gone from the configuration since: none of it
            hosts = ()
    return hostpick.Placement(hosts, bool(excl))


def shape(cl, job, pj: PendingJob) -> None:
    """Give a pending job its placement rules: -m/-x, and its resource requirement."""
    pj.place = placement(cl, job)
    req = cl.requirements.of(job)
    if req is not None:
        pj.require(req)


class Maker:
    """The PendingJobs of one pass (see the module docstring). The memos live
    as long as the pass: the requirements and the hosts -m names follow the
    configuration."""

    def __init__(self, cl):
        self.cl = cl
        self.rules: dict[tuple, tuple] = {}  # (_RULES of a job, queue) -> (Placement, Req or None)
        # (Row.fs_key: user and queue, slots, _RULES of a job) -> (Placement, Req or None, PendingJob.fit)
        self.kinds: dict[tuple, tuple] = {}

    def make(self, job, row, prio: int, blocked: str | None = None) -> PendingJob:
        """*job*'s PendingJob at the pass's instant (*prio*: its escalated
        priority; *blocked*: a reason that keeps it pending), its rules given."""
        # (the row's fields in one unpacking: a named tuple's attribute is a call each)
        (_status, user, queue, slots, _prio, _base, _since, position, migrated, array_limit, _depend, _admin,
         _system, _rsrc, key, fs_key, _parts, _plain) = row
        facts = _RULES(job)
        kk = (fs_key, slots, facts)
        kind = self.kinds.get(kk)
        if kind is None:
            rk = (facts, queue)
            rules = self.rules.get(rk)
            if rules is None:
                rules = self.rules[rk] = (placement(self.cl, job), self.cl.requirements.of(job))
            pj = PendingJob(key[0], key[1], user, queue, slots, prio, position, migrated, blocked, array_limit, row,
                            key)
            place, req = rules
            if req is not None:
                pj.require(req)
            pj.place = place
            self.kinds[kk] = (place, req, pj.fit)
            return pj
        place, req, fit = kind
        pj = PendingJob(key[0], key[1], user, queue, slots, prio, position, migrated, blocked, array_limit, row, key,
                        fit)
        pj.req = req
        pj.place = place
        return pj
