"""Cluster information: bqueues, bparams, bhosts, busers, lsid.

Each builds plain views from the configuration and the live job counts
(counted in slots, as LSF does) and hands them to `lsfemu.render`.
"""

from __future__ import annotations

from typing import Optional

import typer

from lsfemu.cli.base import Ctx, Result, ctx, run_typer
from lsfemu.jobstate import FINISHED, STARTED
from lsfemu.render import bhosts as RH
from lsfemu.render import bparams as RP
from lsfemu.render import bqueues as RQ
from lsfemu.render import busers as RU
from lsfemu.render import messages
from lsfemu.render import lsid as RL
from lsfemu.views import HostView, ParamsView, QueueView, UserView


def _count(jobs, key):
    """Slots per `key(job)` and state bucket: PEND (incl. PSUSP), RUN, SSUSP, USUSP."""
    out: dict = {}
    for j in jobs:
        if j.status in FINISHED:
            continue
        k = key(j)
        bucket = {"PSUSP": "PEND"}.get(j.status, j.status)
        d = out.setdefault(k, {"PEND": 0, "RUN": 0, "SSUSP": 0, "USUSP": 0})
        if bucket in d:
            d[bucket] += j.num_processors
    return out


def queue_views(c: Ctx, names: list[str] | None = None) -> list[QueueView]:
    cl = c.cluster
    cfg = cl.config
    counts = _count(cl.jobs.values(), lambda j: j.queue)
    defaults = [q for q in cfg.params.default_queues if cfg.queue(q)]
    views = []
    for q in cfg.queues:
        if names is not None and q.name not in names:
            continue
        d = counts.get(q.name, {"PEND": 0, "RUN": 0, "SSUSP": 0, "USUSP": 0})
        status = ("Open" if cl.queue_open(q.name) else "Closed") + ":" + ("Active" if cl.queue_active(q.name) else "Inact")
        policies = []
        if q.fairshare:
            policies.append("FAIRSHARE")
        if q.aps_priority:
            policies.append("APS_PRIORITY")
        views.append(QueueView(
            name=q.name, priority=q.priority, nice=q.nice, status=status, max_slots=q.qjob_limit,
            jl_u=q.ujob_limit, jl_p=q.pjob_limit, jl_h=q.hjob_limit,
            njobs=sum(d.values()), pend=d["PEND"], run=d["RUN"], ssusp=d["SSUSP"], ususp=d["USUSP"],
            description=q.description, is_default=q.name in defaults, several_defaults=len(defaults) > 1,
            users=[u + "/" if u in cfg.user_groups else u for u in q.users],
            hosts=q.hosts, administrators=q.administrators, run_limit=q.run_limit,
            run_limit_default=q.run_limit_default,
            job_accept_interval_s=cfg.params.job_accept_interval * cfg.params.mbd_sleep_time,
            policies=policies,
        ))
    # bqueues lists by priority, highest first; equal priorities keep file order.
    views.sort(key=lambda v: -v.priority)
    return views


bqueues_app = typer.Typer(add_completion=False)


@bqueues_app.command()
def bqueues(
    wide: bool = typer.Option(False, "-w"),
    long: bool = typer.Option(False, "-l"),
    recursive: bool = typer.Option(False, "-r"),
    queues: Optional[list[str]] = typer.Argument(None),
) -> None:
    c = ctx()
    cfg = c.cluster.config
    names = None
    if queues:
        names = []
        for q in queues:
            if cfg.queue(q) is None:
                c.error(messages.object_error(q, messages.NO_SUCH_QUEUE))
            else:
                names.append(q)
        if not names:
            return
    views = queue_views(c, names)
    if long or recursive:
        c.out.append(RQ.long(views, extra_sections=queue_sections(c, recursive)))
    else:
        c.out.append(RQ.table(views, wide=wide))


def queue_sections(c: Ctx, recursive: bool = False) -> dict[str, str]:
    """The scheduling sections of bqueues -l: the APS_PRIORITY table, then
    USER_SHARES and SHARE_INFO_FOR (the top level; every level with -r)."""
    from lsfemu.render.aps import aps_table
    from lsfemu.render.fairshare import fairshare_section, share_info_block
    from lsfemu.config.fairshare import parse_user_shares

    cl = c.cluster
    out = {name: aps_table(cfg) for name, cfg in cl.aps_cfg.items()}
    live = cl.fairshare()
    for q in cl.config.queues:
        if not q.fairshare:
            continue
        state = live.state(q.name)
        levels = state.tree.levels() if recursive else [()]
        blocks = [share_info_block("/".join((q.name,) + tuple(level)) + "/", state.share_info(level)) for level in levels]
        text = fairshare_section(parse_user_shares(q.fairshare), blocks)
        out[q.name] = (out[q.name] + "\n" if q.name in out else "") + text
    return out


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


bparams_app = typer.Typer(add_completion=False)


@bparams_app.command()
def bparams(long: bool = typer.Option(False, "-l")) -> None:
    c = ctx()
    pv = params_view(c.cluster.config)
    c.out.append(RP.long(pv) if long else RP.short(pv))


bhosts_app = typer.Typer(add_completion=False)


@bhosts_app.command()
def bhosts(
    wide: bool = typer.Option(False, "-w"),
    hosts: Optional[list[str]] = typer.Argument(None),
) -> None:
    c = ctx()
    cl = c.cluster
    cfg = cl.config
    per_host: dict[str, dict[str, int]] = {}
    for j in cl.jobs.values():
        if j.status in STARTED:
            for h in j.exec_hosts.split():
                d = per_host.setdefault(h, {"RUN": 0, "USUSP": 0, "SSUSP": 0, "UNKWN": 0})
                d[j.status] += 1
    names = cfg.host_names
    if hosts:
        unknown = [h for h in hosts if h not in names]
        for h in unknown:
            c.error(messages.object_error(h, messages.BAD_HOST))
        names = [h for h in names if h in hosts]
        if not names:
            return
    views = []
    for h in names:
        d = per_host.get(h, {"RUN": 0, "USUSP": 0, "SSUSP": 0, "UNKWN": 0})
        mxj = cfg.host_mxj(h)
        njobs = sum(d.values())
        if cl.host_failed(h):
            status = "unavail"
        elif not cl.host_open(h):
            status = "closed_Adm"
        elif mxj is not None and njobs >= mxj:
            status = "closed_Full"
        else:
            status = "ok"
        if not wide and status.startswith("closed"):
            status = "closed"
        row = cfg.hosts.get(h) or cfg.hosts.get("default")
        views.append(HostView(name=h, status=status, jl_u=row.jl_u if row else None, max_slots=mxj,
                              njobs=njobs, run=d["RUN"], ssusp=d["SSUSP"], ususp=d["USUSP"]))
    c.out.append(RH.table(views, wide=wide))


busers_app = typer.Typer(add_completion=False)


def _os_account(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except (KeyError, ValueError):  # ValueError: a name with a NUL byte
        return False
    return True


@busers_app.command()
def busers(
    wide: bool = typer.Option(False, "-w"),
    names: Optional[list[str]] = typer.Argument(None),
) -> None:
    c = ctx()
    cl = c.cluster
    cfg = cl.config
    counts = _count(cl.jobs.values(), lambda j: j.user)
    wanted: list[str]
    if not names:
        wanted = [c.user]
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
                c.error(messages.object_error(name, messages.UNKNOWN_USER))
                return
    views = []
    for name in wanted:
        if name in cfg.user_groups:
            members = cfg.group_members(name)
            d = {"PEND": 0, "RUN": 0, "SSUSP": 0, "USUSP": 0}
            for u, du in counts.items():
                if u in members or "all" in cfg.user_groups[name].members:
                    for k in d:
                        d[k] += du[k]
            row = cfg.user_limits.get(name)
            views.append(UserView(name=name + "/", max_jobs=row.max_jobs if row else None,
                                  jl_p=row.jl_p if row else None, njobs=sum(d.values()), pend=d["PEND"],
                                  run=d["RUN"], ssusp=d["SSUSP"], ususp=d["USUSP"]))
            continue
        d = counts.get(name, {"PEND": 0, "RUN": 0, "SSUSP": 0, "USUSP": 0})
        row = cfg.user_limits.get(name)
        views.append(UserView(name=name, max_jobs=cl.user_limit(name), jl_p=row.jl_p if row else None,
                              njobs=sum(d.values()), pend=d["PEND"], run=d["RUN"], ssusp=d["SSUSP"],
                              ususp=d["USUSP"]))
    c.out.append(RU.table(views, wide=wide))


lsid_app = typer.Typer(add_completion=False)


@lsid_app.command()
def lsid() -> None:
    c = ctx()
    cfg = c.cluster.config
    c.out.append(RL.banner(cfg.cluster_name, c.cluster.master_name or cfg.master_host))


def run_bqueues(c: Ctx) -> Result:
    return run_typer(c, bqueues_app)


def run_bparams(c: Ctx) -> Result:
    return run_typer(c, bparams_app)


def run_bhosts(c: Ctx) -> Result:
    return run_typer(c, bhosts_app)


def run_busers(c: Ctx) -> Result:
    return run_typer(c, busers_app)


def run_lsid(c: Ctx) -> Result:
    return run_typer(c, lsid_app)
