"""bsub as an operation: check a submission (`SubmitRequest`) against the
configuration and store it, or raise NotSubmitted (`[object: ]reason. Job not
submitted.`); nothing is stored unless every check passes.

`-J "name[1-10:2,15]%5"` submits a job array (lsfemu.sched.arrayspec): one
job ID, an element per index. `-w` takes a dependency condition
(lsfemu.sched.depend), resolved against the jobs that exist now.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

from lsfemu.engine import userlimits
from lsfemu.engine.cpulimit import cpu_factor
from lsfemu.engine.jobs import NoJobId, SubmitSpec
from lsfemu.errors import NotSubmitted
from lsfemu.ops import jobgroups, permissions, subopts
from lsfemu.ops.permissions import Caller
from lsfemu.render import messages as M
from lsfemu.sched import depend
from lsfemu.sched.arrayspec import ArraySpecError, parse_array_name
from lsfemu.sched.fairshare import build_tree

MAX_LIMIT_MINUTES = 2147483647 // 60  # LSF keeps limits in 32-bit seconds


@dataclass
class SubmitRequest:
    """One submission: the command, bsub's options as typed (None: not given;
    `lsfemu.bsub_options` names them), and where it comes from."""

    command: str
    submit_dir: str  # the caller's working directory
    env: dict
    from_host: str
    queue: str | None = None
    nproc: str | None = None
    job_name: str | None = None
    out: str | None = None
    out_over: str | None = None
    err: str | None = None
    err_over: str | None = None
    runlimit: str | None = None
    sp: str | None = None
    res_req: list = field(default_factory=list)
    project: str | None = None
    group: str | None = None
    cwd: str | None = None
    rerun: bool | None = None
    gpu: str | None = None
    depend: str | None = None
    mem_limit: str | None = None
    script: str | None = None  # `bsub < script`: the script that runs; command is its lines joined with `;`
    job_group: str | None = None
    description: str | None = None  # -Jd
    hold: bool | None = None  # -H
    begin: str | None = None  # -b
    term: str | None = None  # -t
    rerun_never: bool | None = None  # -rn
    #: bsub -K ("K"), -I ("I"), -Ip ("Ip"), -Is ("Is"): the caller waits for the job (lsfemu.bsubwait)
    interactive: str | None = None
    env_spec: str | None = None  # -env
    outdir: str | None = None  # -outdir
    login_shell: str | None = None  # -L
    input_file: str | None = None  # -i
    input_spool: str | None = None  # -is
    app: str | None = None  # -app: an lsb.applications profile
    exclusive: bool | None = None  # -x
    asked_hosts: str | None = None  # -m
    host_file: str | None = None  # -hostfile: the file's path as given
    pre_exec: str | None = None  # -E
    post_exec: str | None = None  # -Ep
    notify_begin: bool | None = None  # -B
    notify_end: bool | None = None  # -N
    notify_exit: bool | None = None  # -Ne
    mail_user: str | None = None  # -u
    est_runtime: str | None = None  # -We
    cpulimit: str | None = None  # -c
    pend_limit: str | None = None  # -ptl
    epend_limit: str | None = None  # -eptl


#: bsub's waiting modes (the `interactive` column): -K waits, the others also talk to the job
WAIT_MODES = ("K", "I", "Ip", "Is")


def parse_runlimit(text: str, estimate: bool = False) -> float:
    """`-W [hour:]minute[/host]` -> minutes; *estimate*: -We's, whose bad value is LSF's
    `Bad runtime specification. Job not submitted.` (no object)."""
    value = text.split("/", 1)[0]
    m = re.fullmatch(r"(?:([0-9]{1,9}):)?([0-9]{1,9})", value.strip())
    if not m:
        raise NotSubmitted(M.BAD_RUNTIME) if estimate else NotSubmitted(M.BAD_RUNLIMIT, text)
    hours = int(m.group(1) or 0)
    minutes = int(m.group(2))
    total = hours * 60 + minutes
    if total <= 0 or total > MAX_LIMIT_MINUTES:
        raise NotSubmitted(M.BAD_RUNTIME) if estimate else NotSubmitted(M.BAD_RUNLIMIT, text)
    return float(total)


def parse_cpulimit(text: str, cfg) -> tuple[float, str | None]:
    """`-c [hour:]minute[/host_name | /host_model]` -> (minutes, the host or model
    named or None), read as OpenLava's bsub does (lsb.sub.c): `value: Bad
    CPULIMIT specification` for what is not [hour:]minute, `CPULIMIT value is
    too big` past LSF's 32-bit seconds; a name that is neither a host nor a
    host model: LSBE_BAD_HOST_SPEC. A limit of 0 minutes is refused as -W's is."""
    value, _, host = text.partition("/")
    m = re.fullmatch(r"(?:([0-9]{1,9}):)?([0-9]{1,9})", value)
    if not m or int(m.group(1) or 0) * 60 + int(m.group(2)) <= 0:
        raise NotSubmitted(M.BAD_CPULIMIT, text)
    total = int(m.group(1) or 0) * 60 + int(m.group(2))
    if total > MAX_LIMIT_MINUTES:
        raise NotSubmitted(M.CPULIMIT_TOO_BIG, text)
    if host and cpu_factor(cfg, host) is None:
        raise NotSubmitted(M.BAD_HOST_SPEC)
    return float(total), host or None


_LIMIT_UNITS = {"K": 0, "KB": 0, "M": 1, "MB": 1, "G": 2, "GB": 2, "T": 3, "TB": 3, "P": 4, "PB": 4,
                "E": 5, "EB": 5, "Z": 6, "ZB": 6}
_MEMLIMIT = re.compile(r"\s*([0-9]{1,19})\s*([KMGTPEZ]B?)?\s*(!?)\s*", re.IGNORECASE)


def parse_mem_limit(text: str, default_unit: str) -> tuple[int, bool]:
    """`-M mem_limit[!]` -> (KB, hard). The number is in LSF_UNIT_FOR_LIMITS
    (default_unit; KB when unset) unless a unit follows it (`-M 2GB`); `!`
    asks for a hard limit. OpenLava's message for a bad value (its spelling)."""
    m = _MEMLIMIT.fullmatch(text)
    if not m or int(m.group(1)) <= 0:
        raise NotSubmitted(M.BAD_MEMLIMIT, text)
    unit = (m.group(2) or default_unit or "KB").upper()
    kb = int(m.group(1)) * 1024 ** _LIMIT_UNITS.get(unit, 0)
    if kb > 2**63 - 1:
        raise NotSubmitted(M.BAD_MEMLIMIT, text)
    return kb, m.group(3) == "!"


def parse_nproc(text: str) -> tuple[int, int | None]:
    """`-n min_tasks[,max_tasks]` -> (min, max or None when it is min)."""
    m = re.fullmatch(r"\s*([0-9]{1,9})\s*(?:,\s*([0-9]{1,9})\s*)?", text)
    if not m:
        raise NotSubmitted(M.BAD_NPROC)
    nmin = int(m.group(1))
    nmax = int(m.group(2)) if m.group(2) else None
    if nmin < 1 or (nmax is not None and nmax < nmin):
        raise NotSubmitted(M.BAD_NPROC)
    return nmin, (None if nmax == nmin else nmax)


def exec_command(text: str | None) -> str | None:
    """-E / -Ep: the command as mbatchd keeps it (newlines deleted, as its
    subNewLine_ does); LSF takes up to 4094 characters."""
    if text is None:
        return None
    text = text.replace("\n", "")
    if len(text) > 4094:
        raise NotSubmitted(M.BAD_ARG)
    return text


def parse_gpu(text: str) -> int:
    """`-gpu "num=2:mode=shared"` -> 2; `-gpu -` -> 1 (LSF's default of one GPU).

    Only the GPU count matters to lsfemu (fairshare's GPU run time); the other
    keys are checked for syntax and otherwise not used."""
    if text.strip() == "-":
        return 1
    num = 1
    for item in text.split(":"):
        k, eq, v = item.strip().partition("=")
        if not eq or not k.strip():
            raise NotSubmitted(M.BAD_GPU_REQ, text)
        if k.strip() == "num":
            if not re.fullmatch(r"[0-9]{1,4}", v.strip()) or int(v) < 1:
                raise NotSubmitted(M.BAD_GPU_REQ, text)
            num = int(v)
    return num


def default_queue(cfg, env: dict) -> str:
    """The queue of a job submitted without -q: the first of LSB_DEFAULTQUEUE
    (the submission environment) or DEFAULT_QUEUE that exists, else LSF's
    queue named "default"."""
    candidates = env.get("LSB_DEFAULTQUEUE", "").split() or cfg.params.default_queues or ["default"]
    qname = next((q for q in candidates if cfg.queue(q) is not None), None)
    if qname is None:
        raise NotSubmitted(M.QUEUE_NAME_REQUIRED)
    return qname


def check_queue(cl, caller: Caller, user: str, qname: str):
    """The queue `qname` for a job of `user` (bsub, bmod -q): it exists, is
    open, and lets the user in (or the caller may use any queue)."""
    cfg = cl.config
    q = cfg.queue(qname)
    if q is None:
        raise NotSubmitted(M.NO_SUCH_QUEUE, qname)
    if not cl.queue_open(qname):
        raise NotSubmitted(M.QUEUE_CLOSED, qname)
    if not cfg.queue_allows_user(q, user) and not permissions.allows(cfg, caller, "use_any_queue"):
        raise NotSubmitted(M.QUEUE_USE_DENIED, qname)
    if q.fairshare:
        # A user with no share account in a fairshare queue could never run there.
        if build_tree(q.fairshare, cfg.user_groups, {user}).account_path(user) is None:
            raise NotSubmitted(M.QUEUE_USE_DENIED, qname)
    return q


def check_user_group(cfg, user: str, group: str) -> None:
    """-G group: a user group the user belongs to."""
    if group not in cfg.user_groups:
        raise NotSubmitted(M.BAD_USER_GROUP, group)
    if user not in cfg.group_members(group) and "all" not in cfg.user_groups[group].members:
        raise NotSubmitted(M.NOT_IN_USER_GROUP, group)


def submit(cl, caller: Caller, r: SubmitRequest):
    """Check a submission and store it (the stored job, or NotSubmitted: nothing stored)."""
    cfg = cl.config
    cmdline = r.command
    if not cmdline.strip():
        raise NotSubmitted(M.EMPTY_JOB)
    if caller.user == "root" and cfg.lsf_conf.get("LSF_ROOT_USER", "N").upper() not in ("Y", "YES"):
        raise NotSubmitted(M.ROOT_SUBMIT_DISABLED)
    # Queue
    default_used = r.queue is None
    qname = default_queue(cfg, r.env) if default_used else r.queue
    q = check_queue(cl, caller, caller.user, qname)
    # Processors (-hostfile: the slots of its lines; it excludes -n, -m and -R)
    nmin, nmax = parse_nproc(r.nproc) if r.nproc is not None else (1, None)
    listed = None
    if r.host_file is not None:
        if r.nproc is not None or r.asked_hosts is not None or r.res_req:
            raise NotSubmitted(M.HOSTFILE_CONFLICT)
        listed, nmin = subopts.host_file_fields(r.host_file, r.submit_dir, cfg, q)
    total_slots = cluster_slots(cl, q)
    if total_slots is not None and nmin > total_slots:
        raise NotSubmitted(M.TOO_MANY_PROCS)
    # Name
    name = r.job_name
    if name is not None:
        if not name.strip() or len(name) > 4094 or any(ch in name for ch in "\n\r\x00"):
            raise NotSubmitted(M.BAD_JOB_NAME, name if name.strip() else None)
    array = None
    if name is not None:
        try:
            array = parse_array_name(name, cfg.params.max_job_array_size)
        except ArraySpecError as e:
            raise NotSubmitted(e.text) from None
    _check_waiting(cl, r.interactive, array)
    # Application profile: its limits are the job's unless the job sets its own
    app = None
    if r.app is not None:
        app = cfg.applications.get(r.app)
        if app is None:
            raise NotSubmitted(M.NO_SUCH_APP, r.app)
    # Run limit
    run_limit = parse_runlimit(r.runlimit) if r.runlimit is not None else (app.run_limit if app else None)
    estimate = parse_runlimit(r.est_runtime, estimate=True) if r.est_runtime is not None else None  # -We
    cpu_limit, cpu_host = parse_cpulimit(r.cpulimit, cfg) if r.cpulimit is not None else (None, None)  # -c
    # Only the maximum bounds -W; the default applies to jobs without one (Cluster.effective_run_limit).
    if run_limit is not None and q.run_limit is not None and run_limit > q.run_limit:
        raise NotSubmitted(M.EXCEED_QUEUE_LIMIT, "RUNLIMIT")
    # Priority
    prio = None
    if r.sp is not None:
        mup = cfg.params.max_user_priority
        if mup is None:
            raise NotSubmitted(M.PRIORITY_UNDEFINED)
        if not re.fullmatch(r"\s*[0-9]{1,10}\s*", r.sp):
            raise NotSubmitted(M.BAD_USER_PRIORITY)
        prio = int(r.sp)
        admin = permissions.allows(cfg, caller, "administer_queue", queue=qname)
        if prio < 1 or prio > 2147483647 or (prio > mup and not admin):
            raise NotSubmitted(M.BAD_USER_PRIORITY)
    # Resource requirements
    res_req = " ".join(r.res_req) if r.res_req else None
    mem = None
    if res_req is not None:
        mem = subopts.res_req_mem(res_req, cl.rusage_units, cfg)
    mem_limit_kb, mem_hard = None, False
    if r.mem_limit is not None:
        mem_limit_kb, mem_hard = parse_mem_limit(r.mem_limit, cl.limits_unit())
    elif app is not None and app.mem_limit is not None:
        mem_limit_kb, mem_hard = parse_mem_limit(str(app.mem_limit), cl.limits_unit())
    # User group (-G): the user must belong to it
    ugroup = r.group
    if ugroup is not None:
        check_user_group(cfg, caller.user, ugroup)
    ngpus = 0
    if r.gpu is not None:
        ngpus = parse_gpu(r.gpu)
    project = r.project or r.env.get("LSB_DEFAULTPROJECT") or cfg.params.default_project
    home = r.env.get("HOME", "")
    spec_cwd = None
    if r.cwd is not None:
        spec_cwd = r.cwd if os.path.isabs(r.cwd) else os.path.normpath(os.path.join(r.submit_dir, r.cwd))
    outf, oover = (r.out_over, True) if r.out_over is not None else (r.out, False)
    errf, eover = (r.err_over, True) if r.err_over is not None else (r.err, False)
    group = jobgroups.group_path(r.job_group, NotSubmitted) if r.job_group is not None else None
    more = subopts.submission_fields(r, cl.now())
    more.update(subopts.placement_fields(r, cfg, q))
    if listed is not None:
        more.update(listed)
    more.update(subopts.pend_limits(r.pend_limit, r.epend_limit, cfg))
    spooled = more.pop("spooled_input")  # bsub -is: the file's contents, kept once the job has its ID
    dep, dep_json = r.depend, None
    if dep is not None:
        dep_json = resolve_dependency(cl, caller, dep, array)
    spec = SubmitSpec(
        user=caller.user, queue=qname, default_queue_used=default_used, command=cmdline.rstrip("\n"),
        name=name, num_processors=nmin, max_processors=nmax, cwd=r.submit_dir, home=home,
        specified_cwd=spec_cwd, output_file=outf, error_file=errf, output_overwrite=oover,
        error_overwrite=eover, run_limit_min=run_limit, submit_priority=prio, res_req=res_req,
        mem_req_mb=mem, project=project, user_group=ugroup, env=r.env,
        from_host=r.from_host,
        rerunnable=not more["rerun_never"] and (bool(r.rerun) or q.extra.get("RERUNNABLE", "").lower() == "yes"),
        ngpus=ngpus,
        array=array, dependency=dep, depend_json=dep_json, mem_limit_kb=mem_limit_kb, mem_limit_hard=mem_hard,
        script=r.script,
        job_group=group, app_profile=app.name if app else None,
        pre_exec=exec_command(r.pre_exec), post_exec=exec_command(r.post_exec),
        est_runtime_min=estimate, cpu_limit_min=cpu_limit, cpu_limit_host=cpu_host, **more,
        interactive=r.interactive,
    )
    # lsb.users MAX_PEND_JOBS: an array counts its elements (lsfemu.engine.userlimits)
    over = userlimits.pend_refusal(cl, caller.user, len(array.indices()) if array is not None else 1)
    if over is not None:
        raise NotSubmitted(M.PEND_THRESHOLD, over)
    if group is not None and cl.job_groups.get(group) is None:
        cl.job_groups.add(group, caller.user)  # LSF makes the group and its missing parents
    try:
        job = cl.submit(spec)
    except NoJobId as e:
        raise NotSubmitted(e.message) from None
    if spooled is not None:
        subopts.spool_input(cl, job, spooled)
    return job


def _check_waiting(cl, mode: str | None, array) -> None:
    """-K and -I*: not for job arrays (OpenLava's texts); -I* needs a job that
    really runs (LSFEMU_CLOCK=wall): a virtual clock simulates jobs."""
    if mode is None:
        return
    if mode not in WAIT_MODES:
        raise NotSubmitted(M.BAD_ARG)
    if array is not None:
        raise NotSubmitted(M.BLOCK_ARRAY if mode == "K" else M.INTERACTIVE_ARRAY)
    if mode != "K" and cl.clock.mode != "wall":
        raise NotSubmitted(M.INTERACTIVE_VIRTUAL)


def resolve_dependency(cl, caller: Caller, text: str, array) -> str:
    """`-w`: parse the condition and bind its job references to the jobs that
    exist now (lsfemu.sched.depend); the resolved tree as JSON."""
    cfg = cl.config
    try:
        tree = depend.parse(text)
        depend.resolve(tree, cl.depend_known(), caller.user,
                       submitting_ranges=array.ranges if array is not None else None,
                       last_sub=cfg.params.extra.get("JOB_DEP_LAST_SUB", "").strip() == "1")
    except depend.DependError as e:
        obj = (text if text.strip() else None) if e.text == depend.SYNTAX else e.obj
        raise NotSubmitted(e.text, obj) from None
    return json.dumps(depend.to_data(tree))


def cluster_slots(cl, q) -> int | None:
    """The slots the queue's hosts have in all; None when one has no MXJ (no bound)."""
    total = 0
    for h in cl.config.queue_hosts(q):
        mxj = cl.config.host_mxj(h)
        if mxj is None:
            return None
        total += mxj
    return total
