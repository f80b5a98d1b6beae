"""bjobs' selection: which jobs a query names (job IDs, `-A` arrays, or the
-u/-q/-J/-g/-app/-P/-G/-m/-Jd/-rusage filters over every job), with the state filters -a/-d/-p/-r/-s, and
the order bjobs lists them in; -N's normalized CPU time and -x's job exceptions. The listing itself (views, the -aps values,
the kept -aps text) stays with the caller: it is rendering.

Hot path: the scan over every job reads the engine's row cache (`cluster.row`),
not ORM attributes.
"""

from __future__ import annotations

import fnmatch
from operator import attrgetter, itemgetter
from dataclasses import dataclass, replace

from lsfemu.config.lsb_queues import job_idle
from lsfemu.engine.cpulimit import cpu_factor
from lsfemu.engine.jobgroups import within
from lsfemu.errors import LsfError
from lsfemu.jobstate import ANY_SUSPENDED, FINISHED, ON_HOST, PENDING
from lsfemu.ops.jobgroups import group_path
from lsfemu.ops.select import jobs_of, name_matches
from lsfemu.render import messages as M
from lsfemu.sched.resreq import amounts_of


@dataclass(frozen=True)
class JobQuery:
    """`refs`: parsed job IDs (cli.base.parse_job_refs); `users`: the users -u
    names (None = all; ops.select.users); the filters and state flags as typed."""

    refs: tuple = ()
    users: frozenset | set | None = None
    queue: str | None = None
    name: str | None = None
    all_: bool = False
    done: bool = False
    pend: bool = False
    run: bool = False
    susp: bool = False
    arrays: bool = False
    job_group: str | None = None  # -g: the group's jobs and its subgroups'
    app: str | None = None  # -app: the jobs submitted with that application profile
    project: str | None = None  # -P: the jobs of that project
    charged_group: str | None = None  # -G: the jobs submitted with bsub -G to that user group
    hosts: frozenset | None = None  # -m: the jobs dispatched to one of these hosts
    description: str | None = None  # -Jd: the jobs whose description matches (wildcards)
    rusage: frozenset | None = None  # -rusage: the jobs whose rusage[] asks for every one of these resources

    @property
    def more(self) -> bool:
        """Whether -P, -G, -m, -Jd or -rusage filter (`more_ok`)."""
        return not (self.project is None and self.charged_group is None and self.hosts is None
                    and self.description is None and self.rusage is None)


def job_group_filter(cluster, text: str) -> str:
    """bjobs -g: the path of an existing job group (LsfError: a bad name,
    `Job group does not exist`)."""
    path = group_path(text)
    if cluster.job_groups.get(path) is None:
        raise LsfError(M.NO_JOB_GROUP, text)
    return path


def more_ok(cluster, q: JobQuery, j) -> bool:
    """The job passes -P, -G, -m, -Jd and -rusage (its requirement merged with its
    application's and queue's, as the pass reserves it)."""
    if q.project is not None and j.project != q.project:
        return False
    if q.charged_group is not None and j.user_group != q.charged_group:
        return False
    if q.hosts is not None and q.hosts.isdisjoint(j.exec_hosts.split()):
        return False
    if q.description is not None and not (j.description and fnmatch.fnmatchcase(j.description, q.description)):
        return False
    return q.rusage is None or q.rusage <= amounts_of(cluster.effective_req(j.res_req, j.app_profile, j.queue)[0]).keys()


def _in_group(job, group: str) -> bool:
    g = job.job_group
    return g is not None and within(g, group)


@dataclass
class Selected:
    """The jobs found; the IDs that matched none (`missing`); the IDs `-A` named
    that are no job array (`not_arrays`)."""

    jobs: list
    missing: list
    not_arrays: list


def by_id(q: JobQuery) -> bool:
    """Whether the query names jobs by ID (else it scans with the filters)."""
    return bool(q.refs) and not (len(q.refs) == 1 and q.refs[0][0] == 0)


def select(cluster, q: JobQuery) -> Selected:
    jobs: list = []
    missing: list[str] = []
    not_arrays: list[str] = []
    if by_id(q):
        for jid, ranges, typed in q.refs:
            found = jobs_of(cluster.jobs, jid, None if q.arrays else ranges)  # -A: the whole array
            if q.arrays and found and not found[0].array_index:
                not_arrays.append(typed)
                continue
            found = [j for j in found if state_ok(j, q.all_ or True, q.done, q.pend, q.run, q.susp)]
            if q.queue is not None:
                found = [j for j in found if j.queue == q.queue]
            if q.job_group is not None:
                found = [j for j in found if _in_group(j, q.job_group)]
            if q.app is not None:
                found = [j for j in found if j.app_profile == q.app]
            if q.more:
                found = [j for j in found if more_ok(cluster, q, j)]
            if not found:
                missing.append(typed)
            jobs.extend(found)
        return Selected(jobs, missing, not_arrays)
    users, queue, name = q.users, q.queue, q.name
    status_ok = states_wanted(q.all_, q.done, q.pend, q.run, q.susp)
    row_of = cluster.row  # its status, user and queue without ORM attribute reads
    more = q.more
    # One user's jobs from the cluster's per-user lists (in the order of its job
    # dict): bjobs as one user costs that user's jobs, not everyone's.
    pool = cluster.tally.jobs_of(next(iter(users))) if users is not None and len(users) == 1 \
        else cluster.jobs.values()
    for j in pool:
        r = row_of(j)
        if users is not None and r.user not in users:
            continue
        if queue is not None and r.queue != queue:
            continue
        if name is not None and not name_matches(name, j):
            continue
        if q.job_group is not None and not _in_group(j, q.job_group):
            continue
        if q.app is not None and j.app_profile != q.app:
            continue
        if not status_ok(r.status):
            continue
        if more and not more_ok(cluster, q, j):
            continue
        jobs.append(j)
    return Selected(jobs, missing, not_arrays)


def unmatched(cluster, q: JobQuery, kept: list, missing: list[str]) -> list[str]:
    """The IDs *q* names whose jobs a filter applied after `select` (bjobs -x, -pe/-pi/-pei) left
    none of, beside those already *missing*: bjobs says of them what it says of an ID -r or -d
    drops (`Job <N> is not found`)."""
    if not by_id(q):
        return missing
    left = {id(j) for j in kept}
    more = [typed for jid, ranges, typed in q.refs if typed not in missing
            and not any(id(j) in left for j in jobs_of(cluster.jobs, jid, None if q.arrays else ranges))]
    return missing + more


def state_ok(j, all_: bool, done: bool, pend: bool, run: bool, susp: bool) -> bool:
    return states_wanted(all_, done, pend, run, susp)(j.status)


def states_wanted(all_: bool, done: bool, pend: bool, run: bool, susp: bool):
    """The test of a status that -a/-d/-p/-r/-s make (a listing asks it of every job:
    made once, a set's membership)."""
    wanted: set[str] = set()
    if pend:
        wanted.update(PENDING)
    if run:
        wanted.add("RUN")
    if susp:
        wanted.update(ANY_SUSPENDED)
    if done:
        wanted.update(("DONE", "EXIT"))
    if wanted:
        return frozenset(wanted).__contains__
    if all_:
        return _any_state
    return _unfinished


def _any_state(_status: str) -> bool:
    return True


def _unfinished(status: str) -> bool:
    return status not in FINISHED



def queue_ranks(config) -> dict[str, tuple[int, int]]:
    """Each queue's place in dispatch order: (-PRIORITY, position in lsb.queues)."""
    ranks: dict[str, tuple[int, int]] = {}
    for i, q in enumerate(config.queues):
        ranks.setdefault(q.name, (-q.priority, i))
    return ranks


def order_key(ranks: dict[str, tuple[int, int]], job) -> tuple:
    """Started jobs by start time (within one pass in dispatch order), then
    pending jobs in dispatch order, then finished jobs by finish time
    (`ranks`: queue_ranks)."""
    d = job.__dict__  # the loaded column values: a listing sorts every job it shows (no ORM machinery per field)
    # (a record -- lsfemu.store.records -- or an expired object: through its attributes)
    queue, priority, position, status, start_time, migrated, finish_time = (
        _order_loaded(d) if _ORDER_COLUMNS <= d.keys() else _order_attrs(job))
    dispatch_order = ranks.get(queue, (0, 0)) + (-(priority or 0), position)
    if status in ON_HOST:
        return (0, start_time or 0) + dispatch_order
    if status in PENDING:
        return (1, 0 if migrated else 1) + dispatch_order
    return (2, finish_time or 0, position)


#: what order_key reads of a job
_ORDER_KEYS = ("queue", "priority", "position", "status", "start_time", "migrated", "finish_time")
_ORDER_COLUMNS = frozenset(_ORDER_KEYS)
_order_loaded = itemgetter(*_ORDER_KEYS)
_order_attrs = attrgetter(*_ORDER_KEYS)


def normalized_cpu(config, views: list, factor: float) -> list:
    """bjobs -N: *views* with their CPU time scaled from their (first) execution host's CPU
    factor to *factor* (OpenLava's displayLong: ``cpuTime * hostFactor / cpuFactor``; the host's
    factor as bhist -N and bacct -N take it). A job that used no CPU keeps 0."""
    out = []
    for v in views:
        if v.cpu_time > 0:
            host_f = (cpu_factor(config, v.exec_hosts[0]) or 1.0) if v.exec_hosts else 1.0
            v = replace(v, cpu_time=v.cpu_time * host_f / factor)
        out.append(v)
    return out


#: how long a job runs before its idle factor is judged: LSF checks for idle jobs once every
#: EADMIN_TRIGGER_DURATION, 1 minute by default (docs/semantics.md)
IDLE_AFTER_S = 60.0


def exceptions(config, v) -> list[str]:
    """The job exceptions of lsb.queues (JOB_OVERRUN, JOB_UNDERRUN, JOB_IDLE) the job *v* (a
    full view: run and CPU time) has raised: `overrun` -- it ran longer than JOB_OVERRUN minutes
    (running or not); `underrun` -- it exited abnormally (EXIT) before JOB_UNDERRUN minutes of
    running; `idle` -- running, after a minute its CPU time over its run time is below JOB_IDLE;
    and, whatever the queue, `runtime_est_exceeded` -- its run time passed its run time estimate
    (bsub/bmod -We: the -WL/-WF/-WP status X, "The real run time has exceeded the estimated run time")."""
    if v.start_time is None:
        return []
    q = config.queue(v.queue)
    extra = q.extra if q is not None else {}
    found = []
    if "JOB_OVERRUN" in extra and v.run_time > int(extra["JOB_OVERRUN"]) * 60:
        found.append("overrun")
    if "JOB_UNDERRUN" in extra and v.status == "EXIT" and v.run_time < int(extra["JOB_UNDERRUN"]) * 60:
        found.append("underrun")
    idle = job_idle(extra["JOB_IDLE"]) if "JOB_IDLE" in extra else None
    if idle is not None and v.status == "RUN" and v.run_time >= IDLE_AFTER_S and v.cpu_time / v.run_time < idle:
        found.append("idle")
    if v.est_runtime_min is not None and v.run_time > v.est_runtime_min * 60:
        found.append("runtime_est_exceeded")
    return found
