"""Cluster information as plain views for the renderers: bqueues, bparams,
bhosts, busers (job counts in slots, as LSF counts them)."""

from __future__ import annotations

import pwd

from lsfemu.config.lsb_params import PARAMS_ACTING
from lsfemu.engine import hostload, userlimits
from lsfemu.engine.tally import zero
from lsfemu.errors import LsfError
from lsfemu.jobstate import STARTED
from lsfemu.render import messages as M
from lsfemu.sched import reserve
from lsfemu.views import HostView, ParamsView, QueueView, UserView


def queues_for(cl, names: list[str] | None, user: str | None, host: str | None) -> list[str] | None:
    """The queues bqueues -u/-m keep of *names* (None: every queue): those whose
    USERS take the user (a user group: every member; a cluster administrator or
    `all`: every queue) and whose HOSTS hold the host (a host group: every
    member; `all`: every queue), as mbatchd's checkQueues reads them. None when
    nothing filters. Raises LSF's error (the host's first, as mbatchd checks
    hosts first) when no queue is left, or for a host that is no host or group."""
    if user is None and host is None:
        return names
    cfg = cl.config
    hosts: set[str] | None = None
    if host is not None and host != "all":
        if host in cfg.host_groups:
            hosts = set(cfg.host_groups[host])
        elif host in cfg.host_names or cfg.cluster_host(host) is not None:
            hosts = {host}
        elif host == cfg.cluster_name:
            hosts = None
        else:
            raise LsfError(M.BAD_HOST, host)
    users: set[str] | None = None
    if user is not None and user != "all" and not cfg.is_cluster_admin(user):
        users = cfg.group_members(user) if user in cfg.user_groups else {user}
    kept: list[str] = []
    refused = set()  # LSF's reasons for the queues left out
    for q in cfg.queues:
        if names is not None and q.name not in names:
            continue
        if hosts is not None and not hosts <= set(cfg.queue_hosts(q)):
            refused.add(M.HOST_NOT_USED_BY_QUEUE)
        elif users is not None and not all(cfg.queue_allows_user(q, u) for u in users):
            refused.add(M.QUEUE_USE_DENIED)
        else:
            kept.append(q.name)
    if not kept and M.HOST_NOT_USED_BY_QUEUE in refused:
        raise LsfError(M.HOST_NOT_USED_BY_QUEUE, host)
    if not kept and refused:
        raise LsfError(M.QUEUE_USE_DENIED, user)
    return kept


def queue_views(cl, names: list[str] | None = None) -> list[QueueView]:
    """bqueues' rows: the queues (those named), highest priority first."""
    cfg = cl.config
    counts = cl.tally.by_queue()  # slots per queue and state (kept as the jobs change: no scan of the jobs)
    defaults = [q for q in cfg.params.default_queues if cfg.queue(q)]
    reserved = cl.passes.reserve.slots_by("queue")  # RSV: slots its pending jobs reserve (SLOT_RESERVE ...)
    views = []
    for q in cfg.queues:
        if names is not None and q.name not in names:
            continue
        d = counts.get(q.name) or zero()
        status = ("Open" if cl.queue_open(q.name) else "Closed") + ":" + ("Active" if cl.queue_active(q.name) else "Inact")
        policies = []
        if q.fairshare:
            policies.append("FAIRSHARE")
        if q.aps_priority:
            policies.append("APS_PRIORITY")
        pol = reserve.policy_of(q.extra)
        if pol is not None and pol.backfill:
            policies.append("BACKFILL")
        policies += cl.preemption.rules.policies(q.name)  # PREEMPTIVE, PREEMPTABLE
        views.append(QueueView(
            name=q.name, priority=q.priority, nice=q.nice, status=status, max_slots=q.qjob_limit,
            jl_u=q.ujob_limit, jl_p=q.pjob_limit, jl_h=q.hjob_limit,
            njobs=sum(d.values()), pend=d["PEND"], run=d["RUN"], ssusp=d["SSUSP"], ususp=d["USUSP"],
            description=q.description, is_default=q.name in defaults, several_defaults=len(defaults) > 1,
            users=[u + "/" if u in cfg.user_groups else u for u in q.users],
            hosts=q.hosts, administrators=q.administrators, run_limit=q.run_limit,
            run_limit_default=q.run_limit_default, res_req=q.res_req,
            job_accept_interval_s=cfg.params.job_accept_interval * cfg.params.mbd_sleep_time,
            policies=policies,
            slot_hold_s=pol.cycles * cfg.params.mbd_sleep_time if pol is not None and pol.cycles else None,
            rsv=reserved.get(q.name, 0),
        ))
    # bqueues lists by priority, highest first; equal priorities keep file order.
    views.sort(key=lambda v: -v.priority)
    return views


def params_view(cfg) -> ParamsView:
    p = cfg.params
    jpot = f"{p.job_priority_over_time[0]}/{p.job_priority_over_time[1]}" if p.job_priority_over_time else None
    return ParamsView(
        default_queues=p.default_queues, mbd_sleep_time=p.mbd_sleep_time, sbd_sleep_time=p.sbd_sleep_time,
        job_accept_interval=p.job_accept_interval, pg_susp_it=p.pg_susp_it, clean_period=p.clean_period,
        max_job_num=p.max_job_num, max_sbd_fail=p.max_sbd_fail, default_project=p.default_project,
        job_terminate_interval=p.job_terminate_interval, max_job_array_size=p.max_job_array_size,
        max_user_priority=p.max_user_priority, job_priority_over_time=jpot, max_jobid=p.max_jobid,
        run_time_factor=p.run_time_factor, cpu_time_factor=p.cpu_time_factor,
        run_job_factor=p.run_job_factor, hist_hours=p.hist_hours,
        committed_run_time_factor=p.committed_run_time_factor, enable_hist_run_time=p.enable_hist_run_time,
        run_time_decay=p.run_time_decay, fairshare_adjustment_factor=p.fairshare_adjustment_factor,
        gpu_run_time_factor=p.gpu_run_time_factor, fwd_job_factor=p.fwd_job_factor,
    )


def params_in_force(cfg) -> dict[str, str]:
    """bparams -a: every lsb.params parameter lsfemu acts on, with its value in
    force (the configured one, else LSF 10.1's default), as lsb.params writes
    it. Parameters without a value (MAX_USER_PRIORITY, MAX_JOB_PREEMPT,
    JOB_PRIORITY_OVER_TIME ... unset) are left out; keys lsfemu keeps but has
    not built are not listed (they are not in force)."""
    p = cfg.params

    def num(v) -> str:
        return f"{v:g}" if isinstance(v, float) else str(v)

    out = {
        "DEFAULT_QUEUE": " ".join(p.default_queues), "MBD_SLEEP_TIME": p.mbd_sleep_time,
        "SBD_SLEEP_TIME": p.sbd_sleep_time, "JOB_ACCEPT_INTERVAL": p.job_accept_interval,
        "CLEAN_PERIOD": p.clean_period, "MAX_JOB_NUM": p.max_job_num, "MAX_USER_PRIORITY": p.max_user_priority,
        "MAX_JOBID": p.max_jobid, "DEFAULT_PROJECT": p.default_project,
        "JOB_TERMINATE_INTERVAL": p.job_terminate_interval, "MAX_JOB_ARRAY_SIZE": p.max_job_array_size,
        "PG_SUSP_IT": p.pg_susp_it, "MAX_SBD_FAIL": p.max_sbd_fail, "MAX_JOB_PREEMPT": p.max_job_preempt,
        "HIST_HOURS": p.hist_hours, "CPU_TIME_FACTOR": p.cpu_time_factor, "RUN_TIME_FACTOR": p.run_time_factor,
        "RUN_JOB_FACTOR": p.run_job_factor, "FAIRSHARE_ADJUSTMENT_FACTOR": p.fairshare_adjustment_factor,
        "ENABLE_HIST_RUN_TIME": "Y" if p.enable_hist_run_time else "N",
        "COMMITTED_RUN_TIME_FACTOR": p.committed_run_time_factor,
        "RUN_TIME_DECAY": "Y" if p.run_time_decay else "N", "GPU_RUN_TIME_FACTOR": p.gpu_run_time_factor,
        "TRACK_ELIGIBLE_PENDINFO": "Y" if p.track_eligible_pendinfo else "N",
        "FWD_JOB_FACTOR": p.fwd_job_factor,
        "JOB_PRIORITY_OVER_TIME": (f"{p.job_priority_over_time[0]}/{p.job_priority_over_time[1]}"
                                   if p.job_priority_over_time else None),
        "ACCT_ARCHIVE_AGE": p.acct_archive_age, "ACCT_ARCHIVE_SIZE": p.acct_archive_size,
        "ACCT_ARCHIVE_TIME": "%02d:%02d" % p.acct_archive_time if p.acct_archive_time else None,
        "MAX_ACCT_ARCHIVE_FILE": p.max_acct_archive_file,
        "GLOBAL_EXIT_RATE": p.global_exit_rate, "JOB_EXIT_RATE_DURATION": p.job_exit_rate_duration,
        "PEND_TIME_LIMIT": p.pend_time_limit, "ELIGIBLE_PEND_TIME_LIMIT": p.eligible_pend_time_limit,  # minutes
    }
    out.update({k: v for k, v in p.extra.items() if k in PARAMS_ACTING})
    return {k: num(v) for k, v in out.items() if v is not None and v != ""}


def host_views(cl, hosts: list[str] | None, wide: bool) -> tuple[list[str], list[HostView]]:
    """bhosts' rows (the hosts named, in lsb.hosts order), and the names that are no host."""
    unknown: list[str] = []
    cfg = cl.config
    per_host: dict[str, dict[str, int]] = {}
    exclusive: set[str] = set()  # hosts an exclusive job (bsub -x) holds: closed_Excl
    for j in cl.jobs.values():
        if j.status in STARTED:
            for h in j.exec_hosts.split():
                d = per_host.setdefault(h, {"RUN": 0, "USUSP": 0, "SSUSP": 0, "UNKWN": 0})
                d[j.status] += 1
            if j.exclusive:
                exclusive.update(j.exec_hosts.split())
    names = cfg.host_names
    if hosts:
        unknown = [h for h in hosts if h not in names]
        names = [h for h in names if h in hosts]
        if not names:
            return unknown, []
    busy = hostload.busy_hosts(cl)  # load beyond lsb.hosts' loadSched: closed_Busy
    views = []
    for h in names:
        d = per_host.get(h, {"RUN": 0, "USUSP": 0, "SSUSP": 0, "UNKWN": 0})
        mxj = cfg.host_mxj(h)
        rsv = cl.passes.reserve.on_host(h)  # slots pending jobs reserve there (SLOT_RESERVE / RESOURCE_RESERVE)
        njobs = sum(d.values()) + rsv  # LSF: NJOBS counts the reserved slots too
        if cl.host_failed(h):
            status = "unavail"
        elif not cl.host_open(h):
            status = "closed_Adm"
        elif h in busy:
            status = "closed_Busy"
        elif h in exclusive:
            status = "closed_Excl"
        elif mxj is not None and njobs >= mxj:
            status = "closed_Full"
        else:
            status = "ok"
        if not wide and status.startswith("closed"):
            status = "closed"
        row = cfg.hosts.get(h) or cfg.hosts.get("default")
        views.append(HostView(name=h, status=status, jl_u=row.jl_u if row else None, max_slots=mxj,
                              njobs=njobs, run=d["RUN"], ssusp=d["SSUSP"], ususp=d["USUSP"], rsv=rsv,
                              load_sched=hostload.load_sched(cfg, h)))
    return unknown, views


def _os_account(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except (KeyError, ValueError):  # ValueError: a name with a NUL byte
        return False
    return True


def user_views(cl, caller_user: str, names: list[str] | None) -> list[UserView]:
    """busers' rows: the caller, the users and groups named, or `all`; a name that
    is no user and no group is LSF's `Unknown user` (the first one only)."""
    cfg = cl.config
    counts = cl.tally.by_user()  # slots per user and state (as bqueues')
    wanted: list[str]
    if not names:
        wanted = [caller_user]
    elif "all" in names:
        users = {j.user for j in cl.jobs.values()} | {u for u in cfg.user_limits if not u.endswith("@") and u != "default" and u not in cfg.user_groups}
        for g in cfg.user_groups:
            users |= {m for m in cfg.group_members(g) if m != "all"}
        wanted = sorted(users) + sorted(cfg.user_groups)
    else:
        wanted = list(names)
        # mbatchd answers LSBE_BAD_USER for the first name that is no user and no
        # group, and busers prints that alone (lsb_perror(name)), exit -1.
        with_jobs = None
        for name in wanted:
            if name in cfg.user_groups or cfg.names_user(name) or _os_account(name):
                continue
            with_jobs = with_jobs if with_jobs is not None else {j.user for j in cl.jobs.values()}
            if name not in with_jobs:
                raise LsfError(M.UNKNOWN_USER, name)
    reserved = cl.passes.reserve.slots_by("user")  # RSV: slots the user's pending jobs reserve
    pending = cl.tally.pending_jobs()  # PJOBS (busers -w): pending jobs, not slots
    views = []
    for name in wanted:
        if name in cfg.user_groups:
            members = cfg.group_members(name)
            d = {"PEND": 0, "RUN": 0, "SSUSP": 0, "USUSP": 0}
            for u, du in counts.items():
                if u in members or "all" in cfg.user_groups[name].members:
                    for k in d:
                        d[k] += du[k]
            rsv = sum(n for u, n in reserved.items() if u in members or "all" in cfg.user_groups[name].members)
            row = cfg.user_limits.get(name)
            everyone = "all" in cfg.user_groups[name].members
            views.append(UserView(name=name + "/", max_jobs=row.max_jobs if row else None,
                                  jl_p=row.jl_p if row else None, njobs=sum(d.values()), pend=d["PEND"],
                                  run=d["RUN"], ssusp=d["SSUSP"], ususp=d["USUSP"], rsv=rsv,
                                  pjobs=sum(n for u, n in pending.items() if everyone or u in members),
                                  mpjobs=row.max_pend_jobs if row else None))
            continue
        d = counts.get(name) or zero()
        row = cfg.user_limits.get(name)
        decides = userlimits.user_row(cfg, name)  # (MAX_PEND_JOBS: the row that decides, as MAX_JOBS)
        views.append(UserView(name=name, max_jobs=cl.user_limit(name), jl_p=row.jl_p if row else None,
                              njobs=sum(d.values()), pend=d["PEND"], run=d["RUN"], ssusp=d["SSUSP"],
                              ususp=d["USUSP"], rsv=reserved.get(name, 0), pjobs=pending.get(name, 0),
                              mpjobs=decides.max_pend_jobs if decides else None))
    return views
