"""A pending job's place in line (btop, bbot), and the job a bmod, btop or
bbot names (`target`; bmod itself: lsfemu.ops.bmod).

Permissions (`permissions.RULES`): the owner may change its own jobs, queue
administrators the jobs in their queues, cluster administrators any job.
btop/bbot move a job among the
pending jobs of the same queue and priority; an owner moves it among its own
jobs only. A job array named by its ID is checked on its first pending
element (else its first unfinished, else its first); changes apply to every
pending element.
"""

from __future__ import annotations

from dataclasses import dataclass

from lsfemu.errors import JobError
from lsfemu.jobstate import FINISHED, PENDING
from lsfemu.ops import permissions
from lsfemu.ops.permissions import Caller
from lsfemu.ops.select import jobs_of
from lsfemu.render import messages as M


class ArrayTarget:
    """A job array named by its ID in bmod/btop/bbot: checks read its first
    pending element (else its first unfinished, else its first); changes apply
    to every pending element."""

    def __init__(self, elements: list):
        self.elements = elements
        pend = [e for e in elements if e.status in PENDING]
        live = [e for e in elements if e.status not in FINISHED]
        self.lead = (pend or live or elements)[0]
        self.pending = pend

    def __getattr__(self, name: str):
        return getattr(self.lead, name)


def target(cluster, jid: int, ranges):
    """A plain job or one element; a job array (or an index list of it) as an ArrayTarget; None."""
    elements = jobs_of(cluster.jobs, jid, ranges)
    if not elements:
        return None
    if len(elements) == 1 and (ranges is None or not elements[0].array_index or ranges[0][0] == ranges[0][1] and len(ranges) == 1):
        return elements[0]
    return ArrayTarget(elements)


@dataclass(frozen=True)
class Moved:
    """Where btop/bbot put the job (`position`), and whether the asked position
    was beyond the jobs the caller may move past (`beyond`; said for one job only)."""

    position: int
    beyond: bool = False


def move(cluster, caller: Caller, ref: tuple, position: int, to_top: bool, owner_list: bool = False) -> Moved:
    """btop (to_top) / bbot: the job `ref` to `position` from the top or bottom
    among the pending jobs of its queue and priority: an administrator's among
    all of them, or with `owner_list` (-u) among the job owner's own; a user's
    among the user's own (-u changes nothing for a user, as LSF documents)."""
    jid, ranges, typed = ref
    job = target(cluster, jid, ranges)
    if job is None:
        raise JobError(M.NO_MATCHING_JOB, typed)
    cfg = cluster.config
    admin = permissions.allows(cfg, caller, "administer_queue", job=job)
    if not permissions.allows(cfg, caller, "modify", job=job):
        raise JobError(M.PERM_DENIED, typed)
    if job.status in FINISHED:
        raise JobError(M.JOB_FINISHED, typed)
    if job.status != "PEND":
        raise JobError(M.JOB_STARTED, typed)
    now = cluster.now()
    among = (job.user if owner_list else None) if admin else caller.user  # whose jobs count (None: all)
    if isinstance(job, ArrayTarget):  # every pending element, keeping their order
        elements = [e for e in job.pending if e.status == "PEND"]
        for e in (reversed(elements) if to_top else elements):
            used, _ = _move_one(cluster, caller, e, to_top, position, among, now)
        return Moved(used)
    return Moved(*_move_one(cluster, caller, job, to_top, position, among, now))


def _move_one(cluster, caller: Caller, job, to_top: bool, position: int, among: str | None,
              now: float) -> tuple[int, bool]:
    prio = cluster.effective_priority(job, now)
    same = [j for j in cluster.jobs.values() if j.status == "PEND" and j.queue == job.queue
            and cluster.effective_priority(j, now) == prio]
    same.sort(key=lambda j: (j.position, j.id, j.array_index))
    movable = [j for j in same if among is None or j.user == among]
    return cluster.move(job, to_top, position, same, movable, caller.user), position > len(movable)
