"""Typed, validated configuration of one cluster.

The parsers (`lsfemu.config.parser` and one module per file: `lsf_conf`,
`lsf_cluster`, `lsb_params`, `lsb_queues`, `lsb_users`, `lsb_hosts`) build
these objects from LSF's own files.
Everything downstream (daemon, scheduler, renderers) reads configuration only
through these classes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lsfemu.config import machine


@dataclass(frozen=True)
class ConfigIssue:
    """One problem found in a configuration file, located by file and line."""

    file: str  # path as given
    line: int  # 1-based; 0 when the problem is about a whole file
    message: str
    fatal: bool = True

    def __str__(self) -> str:
        return f"{self.file}({self.line}): {self.message}"


class ConfigError(Exception):
    """Raised by `load()` when the configuration has fatal problems."""

    def __init__(self, issues: list[ConfigIssue]):
        self.issues = issues
        super().__init__("\n".join(str(i) for i in issues))


@dataclass
class Params:
    """lsb.params, Begin/End Parameters. Defaults are LSF 10.1's."""

    default_queues: list[str] = field(default_factory=list)
    mbd_sleep_time: int = 10
    sbd_sleep_time: int = 30
    job_accept_interval: int = 0
    # JOB_SCHEDULING_INTERVAL in seconds (its `N ms` form too); None: not set, passes on the
    # MBD_SLEEP_TIME grid (lsfemu.engine.loop.Loop.next_pass, docs/semantics.md)
    job_scheduling_interval: float | None = None
    clean_period: int = 3600
    max_job_num: int = 1000
    max_user_priority: int | None = None
    job_priority_over_time: tuple[int, int] | None = None  # (increment, interval minutes)
    max_jobid: int = 999999
    global_exit_rate: int = 2147483647  # GLOBAL_EXIT_RATE: LSF's default, no threshold
    job_exit_rate_duration: int = 5  # JOB_EXIT_RATE_DURATION, minutes
    default_project: str = "default"
    job_terminate_interval: int = 10
    max_job_array_size: int = 1000
    pg_susp_it: int = 180
    max_sbd_fail: int = 3
    max_job_preempt: int | None = None  # MAX_JOB_PREEMPT: times a job may be preempted (None: no limit)
    preempt_for: frozenset[str] = frozenset()  # PREEMPT_FOR's keywords that act (lsfemu.config.lsb_params)
    preempt_jobtype: frozenset[str] = frozenset()  # PREEMPT_JOBTYPE's keywords that act
    hist_hours: float = 5.0
    cpu_time_factor: float = 0.7
    run_time_factor: float = 0.7
    run_job_factor: float = 3.0
    fairshare_adjustment_factor: float = 0.0
    enable_hist_run_time: bool = False
    committed_run_time_factor: float = 0.0
    run_time_decay: bool = False
    track_eligible_pendinfo: bool = False  # bjobs -o ependtime / ipendtime shown (lsfemu.engine.eligibility)
    pend_time_limit: float | None = None  # minutes: PEND_TIME_LIMIT (bjobs -o effective_plimit)
    eligible_pend_time_limit: float | None = None  # minutes: ELIGIBLE_PEND_TIME_LIMIT
    gpu_run_time_factor: float = 0.0
    fwd_job_factor: float | None = None
    # lsb.acct archiving (lsfemu.engine.acctlog); None: not set (no archiving)
    acct_archive_age: int | None = None  # days
    acct_archive_size: int | None = None  # kilobytes
    acct_archive_time: tuple[int, int] | None = None  # (hour, minute), local time
    max_acct_archive_file: int | None = None  # archives kept
    # Keys we accept and keep verbatim for later features (upper-case key -> raw value).
    extra: dict[str, str] = field(default_factory=dict)
    # Upper-case key -> line number, for messages that point back at the file.
    lines: dict[str, int] = field(default_factory=dict)


@dataclass
class QueueConf:
    """One Begin/End Queue section of lsb.queues."""

    name: str
    file: str = ""
    line: int = 0  # line of "Begin Queue"
    priority: int = 1
    nice: int = 0
    description: str | None = None
    users: list[str] = field(default_factory=lambda: ["all"])
    hosts: list[str] = field(default_factory=lambda: ["all"])
    administrators: list[str] = field(default_factory=list)
    run_limit: float | None = None  # minutes: RUNLIMIT's maximum (hard) limit, the last value
    run_limit_default: float | None = None  # minutes: RUNLIMIT's default limit, when two values are given
    pend_time_limit: float | None = None  # minutes: PEND_TIME_LIMIT (over lsb.params')
    eligible_pend_time_limit: float | None = None  # minutes: ELIGIBLE_PEND_TIME_LIMIT
    qjob_limit: int | None = None  # MAX in bqueues
    ujob_limit: int | None = None  # JL/U
    pjob_limit: int | None = None  # JL/P
    hjob_limit: int | None = None  # JL/H
    # Scheduling keys kept verbatim (their parsers belong to the fairshare / APS features).
    fairshare: str | None = None
    aps_priority: str | None = None
    res_req: str | None = None  # RES_REQ, verbatim (merged with bsub -R by sched/resmerge.py)
    queue_group: list[str] = field(default_factory=list)
    # Per-queue fairshare factor overrides (CPU_TIME_FACTOR, ...), upper-case key -> value.
    factors: dict[str, float] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


@dataclass
class AppConf:
    """One Begin/End Application section of lsb.applications."""

    name: str
    file: str = ""
    line: int = 0  # line of "Begin Application"
    description: str | None = None
    run_limit: float | None = None  # minutes (RUNLIMIT)
    mem_limit: int | None = None  # MEMLIMIT, in LSF_UNIT_FOR_LIMITS (KB when unset)
    pend_time_limit: float | None = None  # minutes: PEND_TIME_LIMIT (over the queue's)
    eligible_pend_time_limit: float | None = None  # minutes: ELIGIBLE_PEND_TIME_LIMIT
    res_req: str | None = None  # RES_REQ, verbatim (merged with bsub -R by sched/resmerge.py)
    lines: dict[str, int] = field(default_factory=dict)


@dataclass
class UserGroupConf:
    name: str
    members: list[str]  # user names, group names, or ["all"]
    user_shares: str | None = None  # verbatim "[user1, 5] [default, 1]" (without outer parens)
    file: str = ""
    line: int = 0


@dataclass
class UserLimitConf:
    """A row of the User section of lsb.users (`name` may be `group@` or `default`)."""

    name: str
    max_jobs: int | None = None
    jl_p: float | None = None
    max_pend_jobs: int | None = None
    line: int = 0


@dataclass
class HostConf:
    """A row of the Host section of lsb.hosts (`name` may be `default`)."""

    name: str
    mxj: int | None = None  # None = unlimited
    mxj_is_ncpus: bool = False  # "!"
    jl_u: int | None = None
    line: int = 0
    load_sched: dict[str, float] = field(default_factory=dict)  # load index -> loadSched (closed_Busy beyond it)
    exit_rate: int | None = None  # EXIT_RATE: jobs exited per JOB_EXIT_RATE_DURATION (bhosts -x)


@dataclass
class ClusterHost:
    """A row of the Host section of lsf.cluster.<name>.

    `resources` is the RESOURCES column as written (lshosts shows it);
    `booleans` and `values` are what it gives the host once checked against
    lsf.shared. `ncpus` and `maxmem`/`maxswp`/`maxtmp` (MB) are lsfemu's own
    columns (None = not given: the local machine's, see `hostres`)."""

    name: str
    model: str = "!"
    type: str = "!"
    server: bool = True
    resources: list[str] = field(default_factory=list)
    line: int = 0
    booleans: list[str] = field(default_factory=list)
    values: dict[str, float | str] = field(default_factory=dict)
    ncpus: int | None = None
    maxmem: float | None = None
    maxswp: float | None = None
    maxtmp: float | None = None
    thresholds: dict[str, float] = field(default_factory=dict)  # load index -> LIM's busy threshold


@dataclass(frozen=True)
class ResourceDef:
    """A resource: one of LSF's built-in ones or a row of lsf.shared's Resource section."""

    name: str
    type: str = "Boolean"  # Numeric | Boolean | String
    interval: int = 0  # seconds; > 0 = dynamic
    increasing: bool | None = None  # Numeric only: Y = a higher value is more load; None = N/A
    description: str = ""
    builtin: bool = False
    release: bool = False  # lsinfo -l's RELEASE column

    @property
    def order(self) -> str:
        """lsinfo's ORDER column."""
        return "N/A" if self.increasing is None else ("Inc" if self.increasing else "Dec")


@dataclass(frozen=True)
class SharedInstance:
    """One instance of a ResourceMap resource: the quantity its hosts share
    (`value` as written; `number` for a Numeric resource)."""

    value: str
    number: float | None
    hosts: tuple[str, ...]


@dataclass
class MappedResource:
    """A row of lsf.cluster's ResourceMap (config.resourcemap): a static
    Numeric or String resource and its instances, in file order."""

    name: str
    type: str
    line: int = 0
    instances: list[SharedInstance] = field(default_factory=list)


@dataclass
class SharedConf:
    """lsf.shared: resource definitions (built-in ones first), host types and
    host models (name -> (CPU factor, architecture))."""

    resources: dict[str, ResourceDef] = field(default_factory=dict)
    host_types: list[str] = field(default_factory=list)
    host_models: dict[str, tuple[float, str]] = field(default_factory=dict)
    present: bool = False  # False: no lsf.shared file (built-in resources only; any type and model accepted)


def resolve_host_groups(groups: dict[str, list[str]], host_names: list[str]) -> dict[str, list[str]]:
    """Each lsb.hosts host group as the server hosts it stands for, in cluster
    order. GROUP_MEMBER may name `all`, hosts, other groups, and exclusions
    (`~host`, `~group`: "all ~hostC"); resolving them once here means every
    reader (bsub -m, queue HOSTS, limits, bhosts, bjobs -m) sees host names, where
    each used to expand the written words its own way and took `~hostC` or
    `all` for a host. A group that names itself, directly or through another,
    contributes nothing the second time (lsb.hosts' checks warn of unknown names)."""
    resolved: dict[str, list[str]] = {}

    def members(name: str, seen: frozenset[str]) -> set[str]:
        if name in resolved:
            return set(resolved[name])
        wanted: set[str] = set()
        excluded: set[str] = set()
        for word in groups[name]:
            target = excluded if word.startswith("~") else wanted
            base = word.lstrip("~").rstrip("/")
            if base == "all":
                target.update(host_names)
            elif base in groups:
                if base not in seen:
                    target.update(members(base, seen | {base}))
            else:
                target.add(base)
        return wanted - excluded

    for name in groups:
        resolved[name] = [h for h in host_names if h in members(name, frozenset({name}))]
    return resolved


@dataclass
class ClusterConfig:
    """The whole configuration of one cluster, as the daemon uses it."""

    envdir: str
    confdir: str  # folder holding the lsb.* files
    cluster_name: str
    lsf_conf: dict[str, str]  # lsf.conf, upper-case keys, unquoted values
    admins: list[str]  # ClusterAdmins; the first is the primary admin
    cluster_hosts: list[ClusterHost]
    params: Params
    queues: list[QueueConf]  # file order
    user_groups: dict[str, UserGroupConf]
    user_limits: dict[str, UserLimitConf]
    hosts: dict[str, HostConf]  # lsb.hosts rows by name (incl. "default")
    warnings: list[ConfigIssue] = field(default_factory=list)
    # lsb.hosts HostGroup sections: group name -> members, verbatim (not expanded).
    host_groups: dict[str, list[str]] = field(default_factory=dict)
    # lsb.hosts HostGroup sections with CONDENSE=Y (file order): bhosts shows each as one row (-X: its hosts).
    condensed_groups: list[str] = field(default_factory=list)
    # lsb.hosts HostPartition sections, kept raw: HPART_NAME -> {upper-case key: value}. Not used yet.
    host_partitions: dict[str, dict[str, str]] = field(default_factory=dict)
    # lsb.applications: application profiles by name, in file order (bsub -app, bapp).
    applications: dict[str, AppConf] = field(default_factory=dict)
    # lsb.resources: the resource allocation limits (config.lsb_resources.LimitConf), in file order.
    limits: list = field(default_factory=list)
    # Paths of the files actually read: "lsf.conf", "lsf.cluster", "lsb.params", ... -> path.
    files: dict[str, str] = field(default_factory=dict)
    # lsf.shared: resource definitions, host types and models (built-ins only when the file is absent).
    shared: SharedConf = field(default_factory=SharedConf)
    # lsf.cluster's ResourceMap: resource name -> its instances (config.resourcemap), file order.
    resource_map: dict[str, MappedResource] = field(default_factory=dict)

    # -- lookups used everywhere -------------------------------------------------
    def queue(self, name: str) -> QueueConf | None:
        # An index by name, made again if `queues` is replaced or changes length
        # (the pass and the listings look a queue up once per job).
        index = self.__dict__.get("_queue_index")
        if index is None or index[0] is not self.queues or index[1] != len(self.queues):
            index = (self.queues, len(self.queues), {q.name: q for q in reversed(self.queues)})  # first wins
            self.__dict__["_queue_index"] = index
        return index[2].get(name)

    @property
    def master_host(self) -> str:
        if self.lsf_conf.get("LSF_MASTER_LIST"):
            return self.lsf_conf["LSF_MASTER_LIST"].split()[0]
        return self.cluster_hosts[0].name if self.cluster_hosts else "localhost"

    @property
    def host_names(self) -> list[str]:
        """Server hosts in lsf.cluster order: the hosts jobs can run on."""
        return [h.name for h in self.cluster_hosts if h.server]

    def cluster_host(self, host: str) -> ClusterHost | None:
        """The lsf.cluster row of a host."""
        # Indexed like `queue`: MXJ `!` looks a host up once per host per pass.
        index = self.__dict__.get("_host_index")
        if index is None or index[0] is not self.cluster_hosts or index[1] != len(self.cluster_hosts):
            index = (self.cluster_hosts, len(self.cluster_hosts), {h.name: h for h in self.cluster_hosts})
            self.__dict__["_host_index"] = index
        return index[2].get(host)

    def host_ncpus(self, host: str) -> int:
        """A host's ncpus: lsf.cluster's ncpus column, else the local machine's CPUs."""
        return int(self.host_hardware(host)["ncpus"])

    def host_hardware(self, host: str) -> dict[str, float]:
        """ncpus, maxmem, maxswp, maxtmp (MB) of a host: lsf.cluster's columns, each
        one not given the local machine's (what LIM would detect here)."""
        row = self.cluster_host(host)
        hw = dict(machine.hardware())
        for key in ("ncpus", "maxmem", "maxswp", "maxtmp"):
            v = getattr(row, key) if row is not None else None
            if v is not None:
                hw[key] = float(v)
        return hw

    def host_mxj(self, host: str) -> int | None:
        """Job slots of a host (MXJ), falling back to the `default` row; None = unlimited.
        MXJ `!` is the host's ncpus."""
        row = self.hosts.get(host) or self.hosts.get("default")
        if row is None:
            return None
        if row.mxj_is_ncpus:
            return self.host_ncpus(host)
        return row.mxj

    def is_cluster_admin(self, user: str) -> bool:
        return user in self.admins

    def names_user(self, user: str) -> bool:
        """Whether the configuration names `user` as a user: ClusterAdmins, a User
        row of lsb.users, a member of a user group, a queue's ADMINISTRATORS or USERS."""
        if user in self.admins or (user in self.user_limits and user != "default" and not user.endswith("@")
                                   and user not in self.user_groups):
            return True
        if any(user in g.members for g in self.user_groups.values()):
            return True
        return any(user in q.administrators or user in q.users for q in self.queues)

    def group_members(self, group: str, _seen: frozenset[str] = frozenset()) -> set[str]:
        """All users in a user group, recursively (cycles are rejected by the parser)."""
        g = self.user_groups.get(group)
        if g is None or group in _seen:
            return set()
        out: set[str] = set()
        for m in g.members:
            if m in self.user_groups:
                out |= self.group_members(m, _seen | {group})
            else:
                out.add(m)
        return out

    def queue_allows_user(self, q: QueueConf, user: str) -> bool:
        if "all" in q.users:
            return True
        for u in q.users:
            name = u.rstrip("/")
            if name == user or (name in self.user_groups and ("all" in self.user_groups[name].members or user in self.group_members(name))):
                return True
        return False

    def queue_hosts(self, q: QueueConf) -> list[str]:
        """Hosts a queue may dispatch to, in cluster order (host groups expanded,
        `~host` excluded, `host+N` preference suffixes dropped)."""
        if not q.hosts or "all" in q.hosts:
            return self.host_names
        wanted: set[str] = set()
        excluded: set[str] = set()
        others = False
        for h in q.hosts:
            if h == "others":
                others = True
                continue
            target = excluded if h.startswith("~") else wanted
            name = h.lstrip("~")
            if "+" in name:
                name = name.split("+", 1)[0]
            target.update(self.host_groups.get(name, [name]))
        if others:
            wanted |= set(self.host_names)
        return [h for h in self.host_names if h in wanted and h not in excluded]
