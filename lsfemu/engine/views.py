"""A job as the commands see it: `job_view` makes a JobView (lsfemu.views)
from a job object, with its run time, CPU time, pending time and escalated
priority at an instant, and the usage a really run job measured.

`Cluster.view` is `job_view`; bjobs makes one per job listed, so the job's
loaded values are read straight from the instance (`_Row`).
"""

from __future__ import annotations

import json

from lsfemu import jobpaths
from lsfemu.engine import eligibility
from lsfemu.jobstate import PENDING, STARTED
from lsfemu.sched import simulate
from lsfemu.store.models import Job
from lsfemu.views import JobView


class _Row:
    """Fast read-only attribute access over a loaded ORM instance: loaded
    values come from its __dict__, anything else from the instance itself."""

    __slots__ = ("_d", "_job")

    def __init__(self, job: Job):
        self._d = job.__dict__
        self._job = job

    def __getattr__(self, name: str):
        try:
            return self._d[name]
        except KeyError:
            return getattr(self._job, name)


def usage_fields(usage_json: str | None, running: bool) -> dict:
    """JobView fields from a really run job's measured usage."""
    if not usage_json:
        return {}
    try:
        u = json.loads(usage_json)
    except ValueError:
        return {}
    out = {"max_mem_kb": u.get("max_mem_kb"), "avg_mem_kb": u.get("avg_mem_kb")}
    if running:
        out.update(mem_kb=u.get("mem_kb"), swap_kb=u.get("swap_kb"), nthreads=u.get("nthreads"),
                   pids=list(u.get("pids") or []), pgid=u.get("pgid"))
    return out


def job_view(cluster, job: Job, now: float | None = None) -> JobView:
    """A job as the commands show it, at *now* (default: the cluster's now)."""
    now = cluster.now() if now is None else now
    # Read the loaded column values directly: SQLAlchemy's instrumented
    # attribute access costs ~1 us each, and bjobs builds a view per job. A
    # job held as a record (lsfemu.store.records) is read as it is: its slots
    # are the fast path, and its __dict__ is empty (through _Row every read
    # raised a KeyError first: 250 us a view instead of 20).
    if job.__dict__:
        job = _Row(job)
    work = simulate.work_at(job.work_done, job.segment_start, now)
    started = job.start_time is not None
    end = job.finish_time if job.finish_time is not None else now
    return JobView(
        job_id=job.id, array_index=job.array_index, user=job.user, status=job.status,
        queue=job.queue, from_host=job.from_host, command=job.command,
        submit_time=job.submit_time, name=job.name, project=job.project,
        user_group=job.user_group, exec_hosts=job.exec_hosts.split(),
        start_time=job.start_time, finish_time=job.finish_time, cwd=job.cwd, home=job.home,
        specified_cwd=job.specified_cwd, output_file=job.output_file, error_file=job.error_file,
        output_overwrite=job.output_overwrite, error_overwrite=job.error_overwrite,
        num_processors=job.num_processors, max_processors=job.max_processors,
        res_req=job.res_req, run_limit=cluster.effective_run_limit(job),
        run_limit_from_queue=job.run_limit_min is None,
        priority=cluster.effective_priority(job, now) if job.status in PENDING else job.priority,
        submit_priority=job.submit_priority,
        exit_code=job.exit_code, exit_reason=job.exit_reason,
        cpu_time=simulate.cpu_at(job.sim_runtime, job.sim_cputime, work) if started else 0.0,
        run_time=work if started else 0.0,
        exec_home=job.home if started else None,
        exec_cwd=jobpaths.exec_cwd(job, job.exec_hosts.split()[0] if job.exec_hosts else None) if started else None,
        pend_reasons=[r for r in job.pend_reasons.split("\n") if r],
        susp_reasons=[job.susp_reason] if job.susp_reason else [],
        pend_time=max(0.0, (job.start_time if started else end) - job.submit_time),
        ineligible_pend_time=(eligibility.ineligible_seconds(job.ipend_time, job.ipend_since, now)
                              if cluster.config.params.track_eligible_pendinfo else None),
        aps_system=job.aps_system, aps_admin=job.aps_admin,
        share_group=None, dependency=job.dependency,
        mem_limit_kb=job.mem_limit_kb, limits_unit=cluster.limits_unit(), job_group=job.job_group,
        description=job.description, begin_time=job.begin_time, term_time=job.term_time,
        rerunnable=job.rerunnable, rerun_never=job.rerun_never, interactive=job.interactive,
        input_file=job.input_file, input_spooled=job.input_spooled, login_shell=job.login_shell,
        application=job.app_profile,
        **_res_req_fields(cluster, job, started),
        exclusive=job.exclusive, asked_hosts=job.asked_hosts, mail_user=job.mail_user, notify=job.notify or "",
        est_runtime_min=job.est_runtime_min, ngpus=job.ngpus, output_dir=job.outdir, mem_req_mb=job.mem_req_mb,
        cpu_limit_min=job.cpu_limit_min,
        kill_reason=job.kill_reason, suspend_reason=job.suspend_reason, resume_reason=job.resume_reason,
        pre_exec=job.pre_exec, post_exec=job.post_exec,
        **usage_fields(job.usage_json, job.status in STARTED),
        **reserve_fields(cluster, job),
        **pend_limit_fields(cluster.config, job),
    )


def pend_limits(cfg, job) -> tuple[float | None, float | None]:
    """A job's effective pending time limit and eligible pending time limit, in
    minutes (None: none): its own (bsub/bmod -ptl, -eptl) over its application
    profile's, over its queue's, over lsb.params' PEND_TIME_LIMIT /
    ELIGIBLE_PEND_TIME_LIMIT (IBM's bsub -ptl: the job-level limit "overrides
    any application-level or queue-level limits"); the eligible one only with
    TRACK_ELIGIBLE_PENDINFO=Y, which counts the eligible pending time."""
    app = cfg.applications.get(job.app_profile) if job.app_profile else None
    queue = cfg.queue(job.queue)
    out = []
    for own, attr in ((job.pend_limit_min, "pend_time_limit"), (job.epend_limit_min, "eligible_pend_time_limit")):
        levels = (own, getattr(app, attr, None), getattr(queue, attr, None), getattr(cfg.params, attr))
        out.append(next((v for v in levels if v is not None), None))
    return out[0], out[1] if cfg.params.track_eligible_pendinfo else None


def pend_limit_fields(cfg, job) -> dict:
    """JobView's pending time limits, in seconds."""
    if job.pend_limit_min is None and job.epend_limit_min is None and not _configured(cfg):
        return {}  # the common case, without a lookup per job
    plimit, eplimit = pend_limits(cfg, job)
    return {"plimit": _secs(job.pend_limit_min), "eplimit": _secs(job.epend_limit_min),
            "effective_plimit": _secs(plimit), "effective_eplimit": _secs(eplimit)}


def _configured(cfg) -> bool:
    """Whether lsb.params, a queue or an application profile sets a pending time limit
    (kept on the configuration object, which a reconfig replaces)."""
    known = cfg.__dict__.get("_pend_limits_set")
    if known is None:
        attrs = ("pend_time_limit", "eligible_pend_time_limit")
        known = any(getattr(o, a) is not None for o in (cfg.params, *cfg.queues, *cfg.applications.values())
                    for a in attrs)
        cfg.__dict__["_pend_limits_set"] = known
    return known


def _secs(minutes: float | None) -> float | None:
    return None if minutes is None else minutes * 60


def reserve_fields(cluster, job) -> dict:
    """A pending job's reservation (SLOT_RESERVE / RESOURCE_RESERVE): its
    hosts, since when, and its predicted start (LSF computes it only when a
    backfill queue exists)."""
    res = cluster.passes.reserve
    if not res.active or job.status not in PENDING:
        return {}
    hold = res.of((job.id, job.array_index))
    if hold is None:
        return {}
    hosts = [h for h, n in hold.held.items() for _ in range(n)]
    predicted = hold.predicted if res.backfill_queues() else None
    return {"reserved_hosts": hosts, "reserve_time": hold.since, "predicted_start": predicted}


def _res_req_fields(cluster, job, started: bool) -> dict:
    """bjobs -l's RESOURCE REQUIREMENT DETAILS: the Combined requirement (-R
    merged with the application's and the queue's RES_REQ), the Effective one
    once the job started, and the levels BJOBS_RES_REQ_DISPLAY=full lists."""
    combined = cluster.effective_req(job.res_req, job.app_profile, job.queue)[1]
    cfg = cluster.config
    app = cfg.applications.get(job.app_profile) if job.app_profile else None
    queue = cfg.queue(job.queue)
    return {"combined_res_req": combined, "effective_res_req": cluster.effective_res_req(job) if started else "",
            "app_res_req": app.res_req if app else None, "queue_res_req": queue.res_req if queue else None}
