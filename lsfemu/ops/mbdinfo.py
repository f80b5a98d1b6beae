"""What mbatchd tells of itself (issue 21, part 4): `badmin showstatus`'s
counts (hosts, servers by state, jobs by state, users, the latest job ID, the
daemon's start and reconfiguration), the daemon records of lsb.events that
`badmin hist`, `mbdhist`, `qhist` and `hhist` list, and `badmin perfmon`
(its counters: engine/perfmon.py).

showstatus counts what the daemon holds: the jobs in memory (finished ones
within CLEAN_PERIOD, as mbatchd); users are those configured in lsb.users
and those with jobs; active users those with unfinished jobs. CPUs and cores
are each host's ncpus (lsfemu has no sockets); slots the hosts' MXJ (ncpus
when unset). Servers not unavailable are the current ones; peak is every
server of lsf.cluster. The reconfiguration time is the start's until a
`badmin reconfig`.
"""

from __future__ import annotations

import os
import resource

from lsfemu.events.log import JobFilter, read_events
from lsfemu.engine import hostload, perfmon
from lsfemu.errors import LsfError
from lsfemu.jobstate import ANY_SUSPENDED, FINISHED, PEND, RUN, STARTED, UNFINISHED
from lsfemu.ops import permissions
from lsfemu.ops.info import host_views
from lsfemu.render import messages as M
from lsfemu.views import MbdStatusView, PerfmonView


def mbd_status(cl, pid: int) -> MbdStatusView:
    cfg = cl.config
    servers = [h for h in cfg.cluster_hosts if h.server]
    clients = [h for h in cfg.cluster_hosts if not h.server]
    _, hosts = host_views(cl, None, wide=True)
    states = [h.status for h in hosts]
    up = {h.name for h in hosts if h.status != "unavail"}
    cpus = {h.name: cfg.host_ncpus(h.name) for h in servers}
    slots = {h.name: cfg.host_mxj(h.name) or cpus[h.name] for h in servers}
    jobs = list(cl.jobs.values())
    users = {j.user for j in jobs} | {u for u in cfg.user_limits
                                      if u != "default" and not u.endswith("@") and u not in cfg.user_groups}
    return MbdStatusView(
        clients=(len(clients), len(clients)),
        servers=(len(up), len(servers)),
        cpus=(sum(cpus[n] for n in up), sum(cpus.values())),
        cores=(sum(cpus[n] for n in up), sum(cpus.values())),  # (one core per CPU: lsfemu has no sockets)
        slots=(sum(slots[n] for n in up), sum(slots.values())),
        num_servers=len(hosts), ok=states.count("ok"),
        closed=sum(1 for s in states if s.startswith("closed")),
        unreachable=states.count("unreach"), unavailable=states.count("unavail"),
        num_jobs=len(jobs), running=sum(1 for j in jobs if j.status == RUN),
        suspended=sum(1 for j in jobs if j.status in ANY_SUSPENDED and j.status != "PSUSP"),
        pending=sum(1 for j in jobs if j.status in (PEND, "PSUSP")),
        finished=sum(1 for j in jobs if j.status in FINISHED),
        num_users=len(users), num_user_groups=len(cfg.user_groups),
        active_users=len({j.user for j in jobs if j.status in UNFINISHED}),
        latest_job_id=max((j.id for j in jobs), default=0),
        started=cl.mbd_started, reconfigured=cl.mbd_reconfigured or cl.mbd_started, pid=pid)


#: badmin's history subcommands -> the record types each lists (OpenLava cmd.hist.c)
HIST_KINDS = {
    "hist": ("MBD_START", "MBD_DIE", "QUEUE_CTRL", "HOST_CTRL"),
    "mbdhist": ("MBD_START", "MBD_DIE"),
    "qhist": ("QUEUE_CTRL",),
    "hhist": ("HOST_CTRL",),
}


def daemon_history(cl, sub: str, names: list[str], window: tuple[float, float] | None, path: str | None):
    """The records `badmin <sub>` lists, oldest first: of the queues or hosts
    *names* (qhist, hhist; none or `all` is every one), within *window* (-t),
    from lsb.events or the file *path* (-f)."""
    wanted = {n for n in names if n != "all"}
    out = []
    kinds = HIST_KINDS[sub]
    # no job's records are decoded: JobFilter skips every job record from its first words
    for _, rec in read_events(path or cl.events.path, jobs=JobFilter(())):
        if rec.TYPE not in kinds:
            continue
        if window is not None and not window[0] <= rec.event_time <= window[1]:
            continue
        name = getattr(rec, "queue", None) if rec.TYPE == "QUEUE_CTRL" else getattr(rec, "host", None)
        if wanted and sub in ("qhist", "hhist") and name not in wanted:
            continue
        out.append(rec)
    return out



# --- badmin perfmon ---------------------------------------------------------------------


def perfmon_control(cl, caller, action: str, period: str | None) -> None:
    """badmin perfmon start [period] | stop | setperiod period (administrators):
    start begins a new collection (with SCHED_METRIC_SAMPLE_PERIOD, else 60 s,
    when no period is given); setperiod begins it again with the new period."""
    if not permissions.allows(cl.config, caller, "administer_cluster"):
        raise LsfError(M.PERM_DENIED)
    pm = cl.perfmon
    if action == "stop" or action == "setperiod":
        if pm.start is None:
            raise LsfError(M.PERFMON_NOT_STARTED)
        if action == "stop":
            pm.end()
            return
    if period is not None and not (period.isascii() and period.isdigit() and 1 <= int(period) <= 3600):
        raise LsfError(M.PERFMON_BAD_PERIOD)
    pm.begin(cl.now(), int(period) if period is not None else perfmon.sample_period(cl.config.params.extra))


def perfmon_view(cl) -> PerfmonView:
    """The complete periods' figures, the slots and memory in use now, the
    daemon's file descriptors. Raises LsfError before the first period ends
    (or when sampling is not started)."""
    pm = cl.perfmon
    if pm.start is None:
        raise LsfError(M.PERFMON_NOT_STARTED)
    s = pm.summary(cl.now())
    if s is None:
        raise LsfError(M.PERFMON_NO_DATA)
    cfg = cl.config
    slots = sum(cfg.host_mxj(h) or cfg.host_ncpus(h) for h in cfg.host_names)
    used = sum(j.num_processors for j in cl.jobs.values() if j.status in STARTED)
    loads = hostload.host_loads(cl).values()
    total_mem = sum(h.res.maxmem for h in loads)
    free_mem = sum(h.load.get("mem", 0.0) for h in loads)
    fd_used = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else 0
    fd_total = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return PerfmonView(
        start=s.start, end=s.end, period=s.period, rows=[(m, *s.rows[m]) for m in perfmon.METRICS],
        slot_utilization=f"{100.0 * used / slots if slots else 0.0:.2f}%",
        memory_utilization=f"{100.0 * (total_mem - free_mem) / total_mem if total_mem else 0.0:.2f}%",
        fd=(max(0, fd_total - fd_used), fd_used, fd_total))
