"""Job control: kill (and any signal), stop, resume, switch, migrate, requeue.

Each operation takes a `select.Selection` and returns one `Outcome` per
target, in order: what LSF says happened (`said`) or why it refused
(`reason`, an lsberrno string); `cli/control.py` renders them. A selection
that is wrong as a whole (an unknown -q queue, no job matched) raises an
LsfError instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from lsfemu.errors import BadJobIds, JobError, LsfError, NoJobFound
from lsfemu.jobstate import ANY_SUSPENDED, FINISHED, ON_HOST, PENDING
from lsfemu.ops import permissions
from lsfemu.ops.permissions import Caller
from lsfemu.ops.select import Selection, hosts_named, targets
from lsfemu.render import messages as M

# Signals that leave a simulated job running (their default action is to ignore).
_IGNORED = {"CHLD", "URG", "WINCH", "CONT"}
_STOPS = {"STOP", "TSTP", "TTIN", "TTOU"}
# What a pending job takes (mbatchd's sigPFjob): bkill's own signals kill it, bstop's
# suspends it, bresume's resumes it; any other signal is refused (LSBE_NOT_STARTED).
_PENDING_KILLS = {"KILL", "TERM", "INT"}

#: what LSF says happened to a job (the success line's verb; `cli/control.py` has the lines)
TERMINATED, SIGNALED, STOPPED, RESUMED, SWITCHED, MIGRATED, REQUEUED = (
    "terminated", "signaled", "stopped", "resumed", "switched", "migrated", "requeued")


@dataclass
class Outcome:
    """One target's answer. `job` is the job when the target is one job (None for
    an unknown ID or a whole job array); exactly one of `said`, `reason` is set."""

    job: object | None
    typed: str
    said: str | None = None
    reason: str | None = None


def _chosen(cluster, caller: Caller, sel: Selection, keep=None, *, check: bool = True) -> list:
    """The targets of `sel` (those `keep(job, typed)` accepts). Job IDs that did not
    parse are an error; with `check`, so are an unknown -q queue (asked first) and
    an empty selection (LSF's `No unfinished job found`)."""
    if check and sel.queue is not None and cluster.config.queue(sel.queue) is None:
        raise LsfError(M.NO_SUCH_QUEUE, sel.queue)
    if check and sel.job_group is not None and cluster.job_groups.get(sel.job_group) is None:
        raise LsfError(M.NO_JOB_GROUP, sel.job_group)
    if check and sel.app is not None and sel.app not in cluster.config.applications:
        raise LsfError(M.NO_SUCH_APP, sel.app)
    if sel.host is not None and hosts_named(cluster.config, sel.host) is None:
        raise LsfError(M.BAD_HOST, sel.host)
    if sel.bad:
        raise BadJobIds(list(sel.bad))
    found = targets(cluster, caller.user, sel)
    if keep is not None:
        found = [t for t in found if keep(*t)]
    if check and not found:
        raise NoJobFound(sel.name, sel.queue, sel.host, _STAT_KIND.get(sel.stat, "unfinished"))
    return found


#: bkill -stat's word -> how "No ... job found" names the jobs
_STAT_KIND = {"run": "running", "pend": "pending", "susp": "suspended"}


def apply(cluster, caller: Caller, found: list, action: Callable[[object], str]) -> list[Outcome]:
    """Run `action(job)` on each target the caller may control: it returns what was
    said, or raises JobError. A whole job array (a list of elements) answers once:
    what the first element that took the action said, else the first element's error."""
    cfg = cluster.config
    outcomes: list[Outcome] = []

    def one(job) -> tuple[str | None, str | None]:
        if not permissions.allows(cfg, caller, "control", job=job):
            return None, M.PERM_DENIED
        try:
            return action(job), None
        except JobError as e:
            return None, e.reason

    for job, typed in found:
        if isinstance(job, list):
            said, reasons = None, []
            for element in job:
                s, r = one(element)
                if r:
                    reasons.append(r)
                elif said is None:
                    said = s
            if len(reasons) < len(job):
                outcomes.append(Outcome(None, typed, said=said))
            else:
                outcomes.append(Outcome(None, typed, reason=reasons[0]))
            continue
        if job is None:
            outcomes.append(Outcome(None, typed, reason=M.NO_MATCHING_JOB))
            continue
        said, reason = one(job)
        outcomes.append(Outcome(job, typed, said=said, reason=reason))
    return outcomes


def kill(cluster, caller: Caller, sel: Selection, signal: tuple[str, int] | None, *, remove: bool = False,
         as_done: bool = False, why: str | None = None, bucket: bool = False) -> list[Outcome]:
    """bkill [-s signal]: `signal` is (name without SIG, number), None for bkill's own kill.
    `remove` (-r): the jobs leave at once, their processes killed without waiting;
    `as_done` (-d): a started job is recorded DONE when it ends (ignored with -s
    or -r, and for jobs that have not started, as LSF documents); `why` (-C):
    the reason given, kept with each job killed (not with other signals);
    `bucket` (-b, ignored with -r or -s as LSF documents): TERM_BUCKET_KILL,
    pending jobs cleaned at once, and with job ID 0 the jobs that cannot be
    killed skipped silently."""
    signame, signum = signal or ("KILL", 9)
    user = caller.user
    bucket = bucket and signal is None and not remove

    def on_pending(job) -> str:
        """No process to signal: only a kill, a suspend or a resume means anything."""
        if signame in _PENDING_KILLS:
            cluster.kill(job, user, signum=signum)
        elif signame == "STOP":
            if job.status == "PEND":
                cluster.stop(job, user)
        elif signame == "CONT":
            if job.status == "PSUSP":
                cluster.resume(job, user)
        else:
            raise JobError(M.JOB_NOT_STARTED)
        return SIGNALED

    def one(job) -> str:
        if job.status in FINISHED:
            raise JobError(M.JOB_FINISHED)
        if job.status in PENDING and signal is not None:
            return on_pending(job)
        if signal is None:
            pending = job.status in PENDING
            cluster.kill(job, user, remove=remove, as_done=as_done and not remove and job.status in ON_HOST,
                         why=why, bucket=bucket)
            if bucket and pending:
                cluster.clean(job)
            return TERMINATED
        if signame in ("KILL", "TERM", "INT"):
            cluster.kill(job, user, signum=signum)
            return SIGNALED
        if signame in _STOPS:
            cluster.stop(job, user)
        elif signame in _IGNORED:
            if signame == "CONT":
                cluster.resume(job, user)
            else:
                cluster.note_signal(job, user, signame)
        else:  # any other signal's default action ends the simulated job
            cluster.kill(job, user, signum=signum)
        return SIGNALED

    outcomes = apply(cluster, caller, _chosen(cluster, caller, sel), one)
    if bucket and any(r[0] == 0 for r in sel.refs):  # bkill -b 0: the jobs that cannot be killed, skipped silently
        outcomes = [o for o in outcomes if o.reason is None]
    return outcomes


def stop(cluster, caller: Caller, sel: Selection, why: str | None = None) -> list[Outcome]:
    """bstop (`why`: -C's reason, kept with each job stopped)."""

    def one(job) -> str:
        if job.status in FINISHED:
            raise JobError(M.JOB_FINISHED)
        if job.status in ("PEND", "RUN", "SSUSP"):
            cluster.stop(job, caller.user, why)
        return STOPPED

    return apply(cluster, caller, _chosen(cluster, caller, sel), one)


def resume(cluster, caller: Caller, sel: Selection, why: str | None = None) -> list[Outcome]:
    """bresume (`why`: -C's reason, kept with each job resumed)."""

    def one(job) -> str:
        if job.status in FINISHED:
            raise JobError(M.JOB_FINISHED)
        if job.status not in ANY_SUSPENDED:
            raise JobError(M.JOB_NOT_SUSPENDED)
        cluster.resume(job, caller.user, why)
        return RESUMED

    return apply(cluster, caller, _chosen(cluster, caller, sel), one)


def switch(cluster, caller: Caller, sel: Selection, dest: str) -> list[Outcome]:
    """bswitch dest: each job's checks against the destination queue, as at submission."""
    cfg = cluster.config
    found = _chosen(cluster, caller, sel)

    def one(job) -> str:
        q = cfg.queue(dest)
        if q is None:
            raise JobError(M.NO_SUCH_QUEUE)
        if job.status in FINISHED:
            raise JobError(M.JOB_FINISHED)
        if not cluster.queue_open(dest):
            raise JobError(M.QUEUE_CLOSED)
        if not cfg.queue_allows_user(q, job.user):
            raise JobError(M.QUEUE_USE_DENIED)
        if job.run_limit_min is not None and q.run_limit is not None and job.run_limit_min > q.run_limit:
            # mbatchd's acceptJob checks the job's own limits against the new queue's maximum, as at submission.
            raise JobError(M.EXCEED_QUEUE_LIMIT)
        if job.queue != dest:
            cluster.switch(job, dest, caller.user)
        return SWITCHED

    return apply(cluster, caller, found, one)


def migrate(cluster, caller: Caller, sel: Selection) -> list[Outcome]:
    """bmig: running rerunnable jobs pend again, first in line, keeping their priority.
    Without job IDs the pending jobs of the selection are left out."""
    keep = None if sel.refs else (lambda j, t: j is None or isinstance(j, list) or j.status not in PENDING)

    def one(job) -> str:
        if job.status in FINISHED:
            raise JobError(M.JOB_FINISHED)
        if job.status in PENDING:
            raise JobError(M.JOB_NOT_STARTED)
        if not job.rerunnable:
            raise JobError(M.NOT_CHKPNTABLE)
        cluster.migrate(job, caller.user)
        return MIGRATED

    return apply(cluster, caller, _chosen(cluster, caller, sel, keep), one)


def requeue(cluster, caller: Caller, sel: Selection, states: set[str], hold: bool = False) -> list[Outcome]:
    """brequeue: jobs in `states` pend again (an empty `states`: LSF's default,
    exited and running jobs); `hold` (-H): held (PSUSP) until bresume."""
    states = states or {"EXIT", "RUN", "USUSP", "SSUSP"}

    def one(job) -> str:
        if job.status in PENDING:
            raise JobError(M.JOB_NOT_STARTED)
        if job.status not in states:
            raise JobError(M.JOB_FINISHED if job.status in FINISHED else M.JOB_STARTED)
        cluster.requeue(job, caller.user, hold)
        return REQUEUED

    return apply(cluster, caller, _chosen(cluster, caller, sel, check=not sel.refs), one)  # -J alone: LSF's "not found"


#: the states each brequeue flag adds (-a: all of them)
REQUEUE_STATES = {"-d": {"DONE"}, "-e": {"EXIT"}, "-r": set(ON_HOST)}
