"""SQLAlchemy 2 typed models of the store: jobs, their event history, usage,
queue and host state, the clock and counters.

The daemon is the only writer. Times are epoch seconds (float) of the
cluster's clock (virtual or wall). Schema changes go through Alembic
(`migrations/`); the daemon upgrades the schema when it starts.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Float, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


#: a name (user, queue, host, project, group): no length limit, as on SQLite, which
#: never enforces one; VARCHAR(256) there only because that is how the schema began
#: (migration 0006 lifts the limit on PostgreSQL, which would refuse longer names)
Name = String(256).with_variant(String(), "postgresql")
#: an integer that may pass 2**31 (a -M limit in KB, a file length): 64 bits, as
#: SQLite's INTEGER always is (migration 0006 widens it on PostgreSQL)
Int64 = Integer().with_variant(BigInteger(), "postgresql")


class JobSlots:
    """The memory layout of a job: one slot per column of the jobs table (and
    an instance dict, which the ORM uses). `Job` (the ORM's) and
    `lsfemu.store.records.JobRecord` (a job held without the ORM, read from
    its slots) share it, so that an object can become the other in place
    (`__class__` assigned): every reference the engine's caches hold stays
    valid. The ORM's attributes on Job shadow the slots (unused there)."""

    __slots__ = ("id", "array_index", "user", "status", "queue", "from_host", "command", "name", "project",
                 "user_group", "cwd", "home", "specified_cwd", "output_file", "error_file", "output_overwrite",
                 "error_overwrite", "num_processors", "max_processors", "res_req", "mem_req_mb", "run_limit_min",
                 "submit_priority", "priority", "priority_base_time", "pend_since", "aps_system", "aps_admin",
                 "rerunnable", "migrated", "ngpus", "default_queue_used", "submit_time", "position", "start_time",
                 "finish_time", "exec_hosts", "exit_code", "exit_reason", "pend_reasons", "susp_reason",
                 "sim_runtime", "sim_cputime", "sim_exit_code", "work_done", "segment_start", "env_json", "real_run",
                 "usage_json", "array_spec", "array_limit", "dependency", "depend_json", "mem_limit_kb",
                 "mem_limit_hard", "description", "env_spec", "outdir", "pre_exec", "post_exec", "login_shell",
                 "input_file", "mail_user", "job_group", "asked_hosts", "est_runtime_min", "begin_time", "term_time",
                 "rerun_never", "input_spooled", "exclusive", "notify", "app_profile", "interactive", "kill_reason",
                 "suspend_reason", "resume_reason", "cpu_limit_host", "clean_time", "cpu_limit_min", "ipend_time",
                 "ipend_since", "pend_limit_min", "epend_limit_min", "__dict__", "__weakref__")


class Job(JobSlots, Base):
    """One batch job, or one element of a job array (same id, array_index >= 1)."""

    __tablename__ = "jobs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    array_index: Mapped[int] = mapped_column(Integer, primary_key=True, default=0)
    user: Mapped[str] = mapped_column(Name, index=True)
    status: Mapped[str] = mapped_column(String(8), index=True)
    queue: Mapped[str] = mapped_column(Name, index=True)
    from_host: Mapped[str] = mapped_column(Name)
    command: Mapped[str] = mapped_column(Text)
    name: Mapped[str | None] = mapped_column(Text, nullable=True)
    project: Mapped[str] = mapped_column(Name, default="default")
    user_group: Mapped[str | None] = mapped_column(Name, nullable=True)
    cwd: Mapped[str] = mapped_column(Text, default="")
    home: Mapped[str] = mapped_column(Text, default="")
    specified_cwd: Mapped[str | None] = mapped_column(Text, nullable=True)
    output_file: Mapped[str | None] = mapped_column(Text, nullable=True)
    error_file: Mapped[str | None] = mapped_column(Text, nullable=True)
    output_overwrite: Mapped[bool] = mapped_column(Boolean, default=False)
    error_overwrite: Mapped[bool] = mapped_column(Boolean, default=False)
    num_processors: Mapped[int] = mapped_column(Integer, default=1)
    max_processors: Mapped[int | None] = mapped_column(Integer, nullable=True)
    res_req: Mapped[str | None] = mapped_column(Text, nullable=True)
    mem_req_mb: Mapped[float | None] = mapped_column(Float, nullable=True)
    run_limit_min: Mapped[float | None] = mapped_column(Float, nullable=True)  # bsub -W
    submit_priority: Mapped[int | None] = mapped_column(Integer, nullable=True)  # bsub -sp
    priority: Mapped[int | None] = mapped_column(Integer, nullable=True)  # as last set; escalated at dispatch
    # Escalation (JOB_PRIORITY_OVER_TIME) counts the pending time since the
    # priority was set (submission, the last bmod -sp/-spn, a requeue), APS
    # grace periods the pending time since submission or the last requeue.
    # Each is kept as a clock origin: while the job pends, now - origin is
    # that pending time; a rerun or bmig moves both on by the run
    # (lsfemu.sched.priority.pending_clock_after_run).
    priority_base_time: Mapped[float | None] = mapped_column(Float, nullable=True)
    pend_since: Mapped[float | None] = mapped_column(Float, nullable=True)
    aps_system: Mapped[float | None] = mapped_column(Float, nullable=True)  # bmod -aps system=
    aps_admin: Mapped[float | None] = mapped_column(Float, nullable=True)  # bmod -aps admin=
    rerunnable: Mapped[bool] = mapped_column(Boolean, default=False)  # bsub -r
    migrated: Mapped[bool] = mapped_column(Boolean, default=False)  # bmig / rerun: scheduled first
    ngpus: Mapped[int] = mapped_column(Integer, default=0)  # bsub -gpu num=N
    default_queue_used: Mapped[bool] = mapped_column(Boolean, default=False)
    submit_time: Mapped[float] = mapped_column(Float)
    # Dispatch order among equal priorities (FCFS; btop/bbot move it later).
    position: Mapped[float] = mapped_column(Float, index=True)
    start_time: Mapped[float | None] = mapped_column(Float, nullable=True)
    finish_time: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    exec_hosts: Mapped[str] = mapped_column(Text, default="")  # space-separated, one per slot
    exit_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    exit_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    pend_reasons: Mapped[str] = mapped_column(Text, default="")  # newline-separated
    susp_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    # Simulation: total work (s) and CPU (s) the job needs, work done so far,
    # and the instant the current run segment began (None when not running).
    sim_runtime: Mapped[float] = mapped_column(Float, default=0.0)
    sim_cputime: Mapped[float] = mapped_column(Float, default=0.0)
    sim_exit_code: Mapped[int] = mapped_column(Integer, default=0)
    work_done: Mapped[float] = mapped_column(Float, default=0.0)
    segment_start: Mapped[float | None] = mapped_column(Float, nullable=True)
    env_json: Mapped[str] = mapped_column(Text, default="{}")  # submission environment
    # Real execution (wall clock, lsfemu.engine.runner): the job runs as a
    # process. Its CPU time is measured: sim_runtime is 0 and sim_cputime
    # holds the CPU seconds so far, so the simulated CPU formula
    # (simulate.cpu_at) yields the measured value everywhere.
    real_run: Mapped[bool] = mapped_column(Boolean, default=False)
    usage_json: Mapped[str | None] = mapped_column(Text, nullable=True)  # measured memory, swap, pids (JSON)
    # Job arrays: every element carries the array's -J value ("name[1-10]%5";
    # `name` holds "name") and its running-element limit (%5).
    array_spec: Mapped[str | None] = mapped_column(Text, nullable=True)
    array_limit: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # bsub -w: the condition as given, and as resolved at submission (JSON, lsfemu.sched.depend).
    dependency: Mapped[str | None] = mapped_column(Text, nullable=True)
    depend_json: Mapped[str | None] = mapped_column(Text, nullable=True)
    # bsub -M: memory limit in KB (rLimits[RLIMIT_RSS]); -M N! makes it a hard limit LSF enforces.
    mem_limit_kb: Mapped[int | None] = mapped_column(Int64, nullable=True)
    mem_limit_hard: Mapped[bool] = mapped_column(Boolean, default=False)
    # The submission surface of LSF 10.1 (issue 18; migration 0007).
    description: Mapped[str | None] = mapped_column(Text, nullable=True)  # -Jd
    env_spec: Mapped[str | None] = mapped_column(Text, nullable=True)  # -env as given
    outdir: Mapped[str | None] = mapped_column(Text, nullable=True)  # -outdir
    pre_exec: Mapped[str | None] = mapped_column(Text, nullable=True)  # -E
    post_exec: Mapped[str | None] = mapped_column(Text, nullable=True)  # -Ep
    login_shell: Mapped[str | None] = mapped_column(Text, nullable=True)  # -L
    input_file: Mapped[str | None] = mapped_column(Text, nullable=True)  # -i / -is
    mail_user: Mapped[str | None] = mapped_column(Text, nullable=True)  # -u
    job_group: Mapped[str | None] = mapped_column(Text, nullable=True)  # -g
    asked_hosts: Mapped[str | None] = mapped_column(Text, nullable=True)  # -m as given
    est_runtime_min: Mapped[float | None] = mapped_column(Float, nullable=True)  # -We
    begin_time: Mapped[float | None] = mapped_column(Float, nullable=True)  # -b
    term_time: Mapped[float | None] = mapped_column(Float, nullable=True)  # -t
    rerun_never: Mapped[bool] = mapped_column(Boolean, default=False)  # -rn
    input_spooled: Mapped[bool] = mapped_column(Boolean, default=False)  # -is
    exclusive: Mapped[bool] = mapped_column(Boolean, default=False)  # -x
    notify: Mapped[str] = mapped_column(String(16), default="")  # -B, -N, -Ne
    app_profile: Mapped[str | None] = mapped_column(Name, nullable=True)  # -app
    interactive: Mapped[str | None] = mapped_column(String(4), nullable=True)  # -I, -Ip, -Is, -K
    # Job control and limits (issue 18; migration 0008).
    kill_reason: Mapped[str | None] = mapped_column(Text, nullable=True)  # bkill -C
    suspend_reason: Mapped[str | None] = mapped_column(Text, nullable=True)  # bstop -C
    resume_reason: Mapped[str | None] = mapped_column(Text, nullable=True)  # bresume -C
    cpu_limit_host: Mapped[str | None] = mapped_column(Text, nullable=True)  # bsub -c .../host_name | /host_model
    clean_time: Mapped[float | None] = mapped_column(Float, nullable=True)  # left mbatchd's memory (bkill -b)
    cpu_limit_min: Mapped[float | None] = mapped_column(Float, nullable=True)  # bsub -c: CPU time limit, minutes
    # TRACK_ELIGIBLE_PENDINFO (lsfemu.engine.eligibility): the seconds the job pended ineligible for
    # scheduling in stretches that ended, and when the current stretch began (None: not in one)
    ipend_time: Mapped[float] = mapped_column(Float, default=0.0, server_default="0")
    ipend_since: Mapped[float | None] = mapped_column(Float, nullable=True)
    # bsub/bmod -ptl and -eptl: the job's own pending time limits, minutes (migration 0010)
    pend_limit_min: Mapped[float | None] = mapped_column(Float, nullable=True)
    epend_limit_min: Mapped[float | None] = mapped_column(Float, nullable=True)

    __table_args__ = (Index("ix_jobs_user_status", "user", "status"),)


# The layout lists every column, and only columns: a new column is a new slot in JobSlots.__slots__.
assert set(JobSlots.__slots__) - {"__dict__", "__weakref__"} == set(Job.__table__.columns.keys())


class JobEvent(Base):
    """Every change of a job's state or parameters, with time and actor."""

    __tablename__ = "job_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(Integer, index=True)
    array_index: Mapped[int] = mapped_column(Integer, default=0)
    time: Mapped[float] = mapped_column(Float)
    kind: Mapped[str] = mapped_column(String(32))  # SUBMIT START FINISH SIGNAL SWITCH MODIFY STATUS
    actor: Mapped[str | None] = mapped_column(Name, nullable=True)
    data: Mapped[str] = mapped_column(Text, default="{}")  # JSON


class UserUsage(Base):
    """Historical usage per user and queue, decayed by the fairshare feature."""

    __tablename__ = "user_usage"

    user: Mapped[str] = mapped_column(Name, primary_key=True)
    queue: Mapped[str] = mapped_column(Name, primary_key=True)
    hist_cpu_s: Mapped[float] = mapped_column(Float, default=0.0)
    hist_run_s: Mapped[float] = mapped_column(Float, default=0.0)
    hist_gpu_s: Mapped[float] = mapped_column(Float, default=0.0)
    updated_at: Mapped[float] = mapped_column(Float, default=0.0)


class QueueState(Base):
    """Administrative state of a queue (badmin qopen/qclose/qact/qinact)."""

    __tablename__ = "queue_state"

    name: Mapped[str] = mapped_column(Name, primary_key=True)
    open: Mapped[bool] = mapped_column(Boolean, default=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)


class HostState(Base):
    """Administrative state of a host (badmin hclose/hopen; lsfemu host fail/recover)."""

    __tablename__ = "host_state"

    name: Mapped[str] = mapped_column(Name, primary_key=True)
    open: Mapped[bool] = mapped_column(Boolean, default=True)
    failed: Mapped[bool] = mapped_column(Boolean, default=False)


class ClockState(Base):
    """The cluster clock: virtual time and the instant of the last scheduling pass."""

    __tablename__ = "clock"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    virtual_now: Mapped[float] = mapped_column(Float)
    last_pass: Mapped[float | None] = mapped_column(Float, nullable=True)


class JobGroup(Base):
    """A job group (bgadd, or made by bsub -g): its path, owner and job limit."""

    __tablename__ = "job_groups"

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    owner: Mapped[str] = mapped_column(Name)
    job_limit: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created: Mapped[float] = mapped_column(Float)


class Counter(Base):
    """Named counters (next job ID)."""

    __tablename__ = "counters"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[int] = mapped_column(Int64)

