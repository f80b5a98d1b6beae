"""Who may do what: LSF's roles and, in one table (`RULES`), the roles that
allow each action. Every operation asks `allows` (or `require`) here.

The roles: the job's owner; an administrator of the job's (or the named)
queue (lsb.queues ADMINISTRATORS); a cluster administrator (lsf.cluster's
ClusterAdmins, or root with uid 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from lsfemu.errors import LsfError
from lsfemu.render import messages

OWNER = "owner"
QUEUE_ADMIN = "queue_admin"
CLUSTER_ADMIN = "cluster_admin"
_ANYONE_RESPONSIBLE = frozenset({OWNER, QUEUE_ADMIN, CLUSTER_ADMIN})
_ADMINS = frozenset({QUEUE_ADMIN, CLUSTER_ADMIN})

#: action -> the roles that allow it
RULES: dict[str, frozenset[str]] = {
    # bkill, bstop, bresume, bswitch, bmig, brequeue on a job
    "control": _ANYONE_RESPONSIBLE,
    # bmod -sp, btop, bbot on a job
    "modify": _ANYONE_RESPONSIBLE,
    # the waiting bsub -K/-I's looks at its job (its output, its input)
    "watch": frozenset({OWNER, CLUSTER_ADMIN}),
    # bjobs -env / -script: the job's submission environment and script
    "read_job": frozenset({OWNER, CLUSTER_ADMIN}),
    # bmod -aps/-apsn; bsub/bmod -sp above MAX_USER_PRIORITY; btop/bbot past other users' jobs
    "administer_queue": _ADMINS,
    # brun: force a job to run (mbatchd's runJob: LSF administrators, the queue's administrators)
    "force_run": _ADMINS,
    # bsub to a queue whose USERS leave the caller out
    "use_any_queue": frozenset({CLUSTER_ADMIN}),
    # badmin reconfig|mbdrestart|q*|h*, lsfemu host fail|recover, lsfemu daemon stop --kill-jobs
    "administer_cluster": frozenset({CLUSTER_ADMIN}),
}


@dataclass(frozen=True)
class Caller:
    """Who asks: the LSF user name and the OS uid the daemon saw."""

    user: str
    uid: int


def is_cluster_admin(config, caller: Caller) -> bool:
    return caller.uid == 0 and caller.user == "root" or config.is_cluster_admin(caller.user)


def is_queue_admin(config, caller: Caller, queue: str) -> bool:
    q = config.queue(queue)
    return q is not None and caller.user in q.administrators


def allows(config, caller: Caller, action: str, *, job=None, queue: str | None = None) -> bool:
    """Whether the caller may do `action` (a key of RULES) on `job` / in `queue`
    (the job's queue when a job is given). The cheapest role is asked first:
    bkill 0 asks it for every job of the caller."""
    rule = RULES[action]
    if OWNER in rule and job is not None and job.user == caller.user:
        return True
    if CLUSTER_ADMIN in rule and is_cluster_admin(config, caller):
        return True
    qname = job.queue if job is not None else queue
    return QUEUE_ADMIN in rule and qname is not None and is_queue_admin(config, caller, qname)


def require(config, caller: Caller, action: str, *, job=None, queue: str | None = None) -> None:
    """`allows`, or LSF's `User permission denied` (an LsfError with no subject)."""
    if not allows(config, caller, action, job=job, queue=queue):
        raise LsfError(messages.PERM_DENIED)
