"""Plain data handed from the daemon to the renderers.

The store and the commands build these; `lsfemu.render` turns them into LSF's
text. Nothing here touches the database or the clock: times are epoch seconds
(float) and durations are seconds unless a field name says otherwise.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields


@dataclass
class JobView:
    """One job as the display commands see it."""

    job_id: int
    user: str
    status: str  # PEND PSUSP RUN USUSP SSUSP DONE EXIT UNKWN
    queue: str
    from_host: str
    command: str
    submit_time: float
    name: str | None = None  # bsub -J; None means "the command" in tables
    array_index: int = 0  # 0 = not an array element
    project: str = "default"
    user_group: str | None = None  # bsub -G
    exec_hosts: list[str] = field(default_factory=list)  # one entry per slot, dispatch order
    start_time: float | None = None
    finish_time: float | None = None
    cwd: str = ""  # submission directory (absolute)
    home: str = ""  # submitting user's HOME, for the "$HOME/..." form
    specified_cwd: str | None = None  # bsub -cwd
    output_file: str | None = None
    error_file: str | None = None
    output_overwrite: bool = False  # -oo
    error_overwrite: bool = False  # -eo
    num_processors: int = 1  # bsub -n min (tasks)
    max_processors: int | None = None  # bsub -n min,max
    res_req: str | None = None  # bsub -R, merged
    run_limit: float | None = None  # minutes (bsub -W or queue RUNLIMIT)
    run_limit_from_queue: bool = False
    priority: int | None = None  # current job priority; None when MAX_USER_PRIORITY unset
    submit_priority: int | None = None  # bsub -sp value (None when not given)
    exit_code: int | None = None  # EXIT jobs
    exit_reason: str | None = None  # e.g. "TERM_OWNER: job killed by owner"
    cpu_time: float = 0.0  # seconds
    run_time: float = 0.0  # seconds of RUN so far (or total when finished)
    mem_kb: int | None = None
    swap_kb: int | None = None
    pids: list[int] = field(default_factory=list)
    pgid: int | None = None
    exec_home: str | None = None
    exec_cwd: str | None = None
    pend_reasons: list[str] = field(default_factory=list)  # without trailing ';'
    susp_reasons: list[str] = field(default_factory=list)
    pend_time: float = 0.0  # seconds pending so far
    ineligible_pend_time: float | None = None  # of which ineligible for scheduling (None: not tracked)
    # pending time limits in seconds (None: none): the job's own (-ptl / -eptl) and the effective ones
    # (job > application > queue > lsb.params; the eligible ones only with TRACK_ELIGIBLE_PENDINFO)
    plimit: float | None = None
    eplimit: float | None = None
    effective_plimit: float | None = None
    effective_eplimit: float | None = None
    aps_value: float | None = None  # calculated APS (later issue)
    aps_system: float | None = None  # bmod -aps system=
    aps_admin: float | None = None  # bmod -aps admin=
    share_group: str | None = None  # "/user1"; "Share group charged" in bjobs -l
    exceptions: list[str] = field(default_factory=list)  # overrun underrun idle: bjobs -x, -l, -o exception_status
    dependency: str | None = None
    # --- optional display data (added for lsfemu.render; all default to "unknown") ---
    application: str | None = None  # bsub -app; "Application <app>" in bjobs -l
    job_group: str | None = None  # bsub -g; "Job Group </path>" in bjobs -l
    esub: str | None = None  # "Esub <esub>" in bjobs -l
    nthreads: int | None = None  # "NTHREAD: n" in the bjobs -l usage lines
    max_mem_kb: int | None = None  # MEMORY USAGE block / -o max_mem
    avg_mem_kb: int | None = None  # MEMORY USAGE block / -o avg_mem
    combined_res_req: str | None = None  # " Combined: ..." (None -> res_req)
    effective_res_req: str | None = None  # " Effective: ..." (None -> res_req once started)
    app_res_req: str | None = None  # its application profile's RES_REQ (BJOBS_RES_REQ_DISPLAY=full)
    queue_res_req: str | None = None  # its queue's RES_REQ (BJOBS_RES_REQ_DISPLAY=full)
    mem_limit_kb: int | None = None  # bsub -M (KB); MEMLIMIT block / -o memlimit
    limits_unit: str = "KB"  # LSF_UNIT_FOR_LIMITS: the unit limits are shown in
    # --- bsub's plain options (issue 18, part 3) ---
    description: str | None = None  # -Jd: "Job Description <..>" in the header
    begin_time: float | None = None  # -b: "Specified Start Time <..>"
    term_time: float | None = None  # -t: "Specified Termination Time <..>"
    rerunnable: bool = False  # -r or the queue's RERUNNABLE: "Re-runnable"
    rerun_never: bool = False  # -rn: "Not Re-runnable"
    interactive: str | None = None  # bsub -K ("K"), -I, -Ip, -Is
    input_file: str | None = None  # -i / -is: "Input File <..>" / "Input File(Spooled) <..>"
    input_spooled: bool = False
    login_shell: str | None = None  # -L: "Login Shell <..>"
    exclusive: bool = False  # -x: "Exclusive Execution"
    asked_hosts: str | None = None  # -m: "Specified Hosts <h>, <h+2>"
    pre_exec: str | None = None  # -E: "Pre-execute Command <..>"
    post_exec: str | None = None  # -Ep: "Post-execute Command <..>"
    mail_user: str | None = None  # -u: "Mail <u>" in the header
    notify: str = ""  # -B, -N, -Ne: "Notify when job begins/ends"
    est_runtime_min: float | None = None  # -We: -o estimated_run_time (seconds)
    # --- job control and limits (issue 18) ---
    kill_reason: str | None = None  # bkill -C: -o kill_reason
    suspend_reason: str | None = None  # bstop -C: -o suspend_reason
    resume_reason: str | None = None  # bresume -C: -o resume_reason
    cpu_limit_min: float | None = None  # bsub -c (minutes, as given): the CPULIMIT block of bjobs -l
    # SLOT_RESERVE / RESOURCE_RESERVE: the slots a pending job reserves (one
    # host per slot), since when, and its predicted start (backfill queues only)
    reserved_hosts: list[str] = field(default_factory=list)
    reserve_time: float | None = None
    predicted_start: float | None = None
    # --- more of bjobs -o's fields (issue 21) ---
    ngpus: int = 0  # bsub -gpu num=N: -o gpu_num
    output_dir: str | None = None  # bsub -outdir: -o output_dir
    mem_req_mb: float | None = None  # rusage[mem=]: -o mem_efficiency's denominator

    @property
    def display_id(self) -> str:
        return f"{self.job_id}[{self.array_index}]" if self.array_index else str(self.job_id)

    @property
    def display_name(self) -> str:
        base = self.name if self.name is not None else self.command
        return base


_JOB_FACTORIES = tuple((f.name, f.default_factory) for f in fields(JobView) if f.default_factory is not MISSING)
_JOB_REQUIRED = frozenset(f.name for f in fields(JobView) if f.default is MISSING and f.default_factory is MISSING)
_JOB_FIELDS = frozenset(f.name for f in fields(JobView))


def quick_job_view(**values) -> JobView:
    """JobView(**values) without the dataclass's __init__ (one assignment per
    field, some 90): a listing makes one view per job it shows, and at 10k
    jobs the assignments of fields it does not print were a third of it. The
    fields left out read their default from the class (where dataclass puts
    it); those with a default_factory get their own value. Equal to
    JobView(**values) field by field."""
    if not values.keys() <= _JOB_FIELDS or not _JOB_REQUIRED <= values.keys():
        return JobView(**values)  # (its TypeError)
    d = {name: factory() for name, factory in _JOB_FACTORIES}
    d.update(values)
    view = object.__new__(JobView)
    view.__dict__ = d
    return view


@dataclass
class QueueView:
    """One queue with its configuration and current counts (slots)."""

    name: str
    priority: int
    nice: int = 0
    status: str = "Open:Active"  # Open:Active Open:Inact Closed:Active Closed:Inact
    max_slots: int | None = None  # QJOB_LIMIT
    jl_u: int | None = None  # UJOB_LIMIT
    jl_p: int | None = None  # PJOB_LIMIT
    jl_h: int | None = None  # HJOB_LIMIT
    njobs: int = 0
    pend: int = 0
    run: int = 0
    ssusp: int = 0
    ususp: int = 0
    rsv: int = 0
    description: str | None = None
    is_default: bool = False
    several_defaults: bool = False  # "This is one of the default queues."
    users: list[str] = field(default_factory=lambda: ["all"])  # groups carry a trailing "/"
    hosts: list[str] = field(default_factory=lambda: ["all"])
    administrators: list[str] = field(default_factory=list)
    run_limit: float | None = None  # minutes: RUNLIMIT's maximum
    run_limit_default: float | None = None  # minutes: RUNLIMIT's default, when it has one
    res_req: str | None = None  # RES_REQ as configured ("RES_REQ:  ..." in bqueues -l)
    job_accept_interval_s: int | None = None  # "Interval for a host to accept two jobs is N seconds"
    policies: list[str] = field(default_factory=list)  # e.g. ["FAIRSHARE", "APS_PRIORITY"]
    slot_hold_s: int | None = None  # SLOT_RESERVE / RESOURCE_RESERVE: MAX_RESERVE_TIME x MBD_SLEEP_TIME


@dataclass
class HostView:
    name: str
    status: str = "ok"  # ok closed_Adm closed_Full ...
    jl_u: int | None = None
    max_slots: int | None = None  # MXJ
    njobs: int = 0
    run: int = 0
    ssusp: int = 0
    ususp: int = 0
    rsv: int = 0
    load_sched: dict[str, float] = field(default_factory=dict)  # lsb.hosts loadSched (bhosts -l)


@dataclass
class UserView:
    name: str  # groups end with "/"
    jl_p: float | None = None
    max_jobs: int | None = None
    njobs: int = 0
    pend: int = 0
    run: int = 0
    ssusp: int = 0
    ususp: int = 0
    rsv: int = 0
    mpend: int | None = None
    pjobs: int = 0
    mpjobs: int | None = None
    prio: int = 0


@dataclass
class ParamsView:
    """What bparams shows; every value is already the effective one."""

    default_queues: list[str]
    mbd_sleep_time: int = 10
    sbd_sleep_time: int = 30
    job_accept_interval: int = 0
    default_host_spec: str | None = None
    pg_susp_it: int = 180
    clean_period: int = 3600
    max_job_num: int = 1000
    max_sbd_fail: int = 3
    default_project: str = "default"
    job_terminate_interval: int = 10
    max_job_array_size: int = 1000
    max_user_priority: int | None = None
    job_priority_over_time: str | None = None  # "1/10"
    max_jobid: int = 999999
    run_time_factor: float = 0.7
    cpu_time_factor: float = 0.7
    run_job_factor: float = 3.0
    hist_hours: float = 5.0
    committed_run_time_factor: float = 0.0
    enable_hist_run_time: bool = False
    run_time_decay: bool = False
    fairshare_adjustment_factor: float = 0.0
    gpu_run_time_factor: float = 0.0
    fwd_job_factor: float | None = None


@dataclass
class HostLoadView:
    """A server host for lshosts, lsload and bhosts -l: static resources (MB),
    its RESOURCES as written, LIM's status, load indices after reservations
    (`load`), what started jobs reserve (`reserved`) and its load thresholds."""

    name: str
    type: str
    model: str
    cpuf: float
    ncpus: int
    maxmem: float
    maxswp: float
    maxtmp: float
    server: bool = True
    resources: list[str] = field(default_factory=list)
    status: str = "ok"
    load: dict[str, float] = field(default_factory=dict)
    reserved: dict[str, float] = field(default_factory=dict)
    thresholds: dict[str, float] = field(default_factory=dict)
    busy: frozenset[str] = frozenset()  # the indices beyond their threshold (lsload marks them `*`)


@dataclass
class SharedInstanceView:
    """One instance of a shared (or host-based) static resource: its value as
    configured, the number (Numeric resources), what started jobs reserve of
    it and its hosts (bhosts -s, lshosts -s)."""

    value: str
    number: float | None
    reserved: float
    hosts: list[str]


@dataclass
class SharedResourceView:
    """A static resource and its instances (lsf.cluster's ResourceMap, the Host section's `name=value`)."""

    name: str
    numeric: bool
    instances: list[SharedInstanceView] = field(default_factory=list)


@dataclass
class ResourceInfoView:
    """One resource as lsinfo shows it."""

    name: str
    type: str
    order: str
    description: str
    interval: int = 0
    builtin: bool = False
    release: bool = False


@dataclass
class LsInfoView:
    """lsinfo's sections: resources, host types, host models (name, CPU factor, architecture)."""

    resources: list[ResourceInfoView] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    models: list[tuple[str, float, str]] = field(default_factory=list)


@dataclass
class MbdStatusView:
    """badmin showstatus: (current, peak) host counts, servers and jobs by
    state, users, the latest job ID, the daemon's start and reconfiguration."""

    clients: tuple[int, int]
    servers: tuple[int, int]
    cpus: tuple[int, int]
    cores: tuple[int, int]
    slots: tuple[int, int]
    num_servers: int
    ok: int
    closed: int
    unreachable: int
    unavailable: int
    num_jobs: int
    running: int
    suspended: int
    pending: int
    finished: int
    num_users: int
    num_user_groups: int
    active_users: int
    latest_job_id: int
    started: float
    reconfigured: float
    pid: int


@dataclass
class PerfmonView:
    """badmin perfmon view: the sampling's start, the end of its last complete
    period, the period; (metric, last, max, min, avg, total) rows; slot and
    memory utilization now (`12.50%`); the daemon's file descriptors (free,
    used, total)."""

    start: float
    end: float
    period: int
    rows: list[tuple[str, int, int, int, int, int]]
    slot_utilization: str
    memory_utilization: str
    fd: tuple[int, int, int]
