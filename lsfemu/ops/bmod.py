"""bmod as an operation: change the parameters of a job (`ModifyRequest`),
or raise NotModified (`[object: ]reason. Job not modified.`); nothing changes
unless every check passes. One call is one JOB_MODIFY2 record per job.

What bmod may change here: -q/-qn, -n/-nn, -R/-Rn, -W/-Wn, -J/-Jn, -o/-oo/-on,
-e/-eo/-en, -P/-Pn, -M/-Mn, -w/-wn, -G/-Gn, -Z, -r/-rn, -cwd/-cwdn, -Jd/-Jdn,
-b/-bn, -t/-tn, -L/-Ln, -i/-in, -outdir/-outdirn, -u/-un, -B/-Bn, -N/-Ne/-Nn,
-x/-xn, -m/-mn, -E/-En, -Ep/-Epn, -We/-Wen, -ptl/-ptln, -eptl/-eptln, -sp/-spn, -aps/-apsn, -g/-gn (alone, as LSF's own
form), -app/-appn. Each
value is checked as bsub checks it (lsfemu.ops.submit's and
lsfemu.ops.subopts' parsers), against the job's owner and its (new) queue.

LSF's rules (OpenLava's modifyJob/modifyAJob; LSF 10's LSB_MOD_ALL_JOBS):

* who: the owner, an administrator of the job's queue, a cluster
  administrator (`permissions.RULES["modify"]`); -aps only administrators;
* a started job (RUN, USUSP, SSUSP) takes only -M -W -o -e -r (their `n`
  forms, -oo, -eo) and -R; anything else is `Only the following parameters
  can be used to modify a running job: -c, -M, -W, -o, -e, -r`; its memory
  limit only with LSB_JOB_MEMLIMIT=Y; its error file only if it had one;
* a job array named by its ID: -q/-qn are refused (`Options -q and -O cannot
  be applied on job array`), -J only as `%N` (the limit of running elements);
  the change goes to every element that takes it (pending ones, or all
  unfinished ones for the options a started job takes);
* a value and its reset form together: `You cannot modify and set default at
  the same time` (-sp/-spn and -aps/-apsn keep the usage error of the CLI).
"""

from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, fields
from types import SimpleNamespace

from lsfemu.errors import NotModified, NotSubmitted
from lsfemu.jobstate import FINISHED, PENDING
from lsfemu.ops import permissions
from lsfemu.ops.jobgroups import group_path
from lsfemu.ops import submit as sub
from lsfemu.ops import subopts
from lsfemu.ops.modify import ArrayTarget, target
from lsfemu.ops.permissions import Caller
from lsfemu.render import messages as M
from lsfemu.sched import hostfile
from lsfemu.sched import aps as aps_mod
from lsfemu.sched.arrayspec import ArraySpecError, parse_array_name
from lsfemu.sched.priority import PriorityError, check_user_priority


@dataclass(frozen=True)
class ModifyRequest:
    """bmod on the job `ref` ((job ID, index ranges, as typed)): each option as
    typed (None / False: not given); `submit_dir` is the caller's working
    directory (a relative -cwd is taken from it)."""

    ref: tuple
    submit_dir: str = ""
    queue: str | None = None
    queue_n: bool = False
    nproc: str | None = None
    nproc_n: bool = False
    res_req: tuple | None = None
    res_req_n: bool = False
    runlimit: str | None = None
    runlimit_n: bool = False
    job_name: str | None = None
    job_name_n: bool = False
    out: str | None = None
    out_over: str | None = None
    out_n: bool = False
    err: str | None = None
    err_over: str | None = None
    err_n: bool = False
    project: str | None = None
    project_n: bool = False
    mem_limit: str | None = None
    mem_limit_n: bool = False
    depend: str | None = None
    depend_n: bool = False
    group: str | None = None
    group_n: bool = False
    command: str | None = None
    rerun: bool = False
    rerun_n: bool = False
    cwd: str | None = None
    cwd_n: bool = False
    description: str | None = None
    description_n: bool = False
    begin: str | None = None
    begin_n: bool = False
    term: str | None = None
    term_n: bool = False
    login_shell: str | None = None
    login_shell_n: bool = False
    input_file: str | None = None
    input_file_n: bool = False
    outdir: str | None = None
    outdir_n: bool = False
    mail_user: str | None = None
    mail_user_n: bool = False
    notify_begin: bool = False
    notify_begin_n: bool = False
    notify_end: bool = False
    notify_exit: bool = False
    notify_end_n: bool = False
    exclusive: bool = False
    exclusive_n: bool = False
    hosts: str | None = None
    hosts_n: bool = False
    host_file: str | None = None  # -hostfile
    host_file_n: bool = False  # -hostfilen
    pre_exec: str | None = None
    pre_exec_n: bool = False
    post_exec: str | None = None
    post_exec_n: bool = False
    estimate: str | None = None
    estimate_n: bool = False
    cpulimit: str | None = None  # -c
    cpulimit_n: bool = False  # -cn
    pend_limit: str | None = None  # -ptl
    pend_limit_n: bool = False  # -ptln
    epend_limit: str | None = None  # -eptl
    epend_limit_n: bool = False  # -eptln
    sp: str | None = None
    spn: bool = False
    aps: str | None = None
    apsn: bool = False
    job_group: str | None = None
    job_group_n: bool = False
    app: str | None = None
    app_n: bool = False

    def given(self) -> set[str]:
        return {f.name for f in fields(self) if f.name not in ("ref", "submit_dir")
                and getattr(self, f.name) not in (None, False)}


#: what a started job takes (LSF 10 with LSB_MOD_ALL_JOBS=Y, its default: -c -M -W -o -e -r and -R)
RUNNING_OK = frozenset({"cpulimit", "cpulimit_n", "runlimit", "runlimit_n", "mem_limit", "mem_limit_n", "out", "out_over", "out_n",
                        "err", "err_over", "err_n", "rerun", "rerun_n", "res_req", "res_req_n"})
#: a value and its reset form
_PAIRS = (("queue", "queue_n"), ("nproc", "nproc_n"), ("res_req", "res_req_n"), ("runlimit", "runlimit_n"),
          ("job_name", "job_name_n"), ("out", "out_n"), ("out_over", "out_n"), ("err", "err_n"),
          ("err_over", "err_n"), ("project", "project_n"), ("mem_limit", "mem_limit_n"), ("depend", "depend_n"),
          ("group", "group_n"), ("rerun", "rerun_n"), ("cwd", "cwd_n"), ("description", "description_n"),
          ("begin", "begin_n"), ("term", "term_n"), ("login_shell", "login_shell_n"), ("input_file", "input_file_n"),
          ("outdir", "outdir_n"), ("mail_user", "mail_user_n"), ("notify_begin", "notify_begin_n"),
          ("notify_end", "notify_end_n"), ("notify_exit", "notify_end_n"), ("exclusive", "exclusive_n"),
          ("hosts", "hosts_n"), ("host_file", "host_file_n"), ("pre_exec", "pre_exec_n"), ("post_exec", "post_exec_n"),
          ("estimate", "estimate_n"), ("cpulimit", "cpulimit_n"), ("pend_limit", "pend_limit_n"),
          ("epend_limit", "epend_limit_n"),
          ("job_group", "job_group_n"), ("app", "app_n"))
_ARRAY_LIMIT = re.compile(r"%([0-9]{1,9})")


@contextmanager
def _as_not_modified():
    """bsub's checks, reused: their refusal becomes bmod's."""
    try:
        yield
    except NotSubmitted as e:
        raise NotModified(e.reason, e.subject) from None


def modify(cluster, caller: Caller, req: ModifyRequest) -> tuple[float | None, float | None]:
    """Check every change, then apply them all (see the module docstring).
    Returns the begin and termination times -b and -t set (None: not given)."""
    jid, ranges, typed = req.ref
    cfg = cluster.config
    given = req.given()
    for a, b in _PAIRS:
        if a in given and b in given:
            raise NotModified(M.MOD_AND_DEFAULT)
    if given & {"job_group", "job_group_n"} and given - {"job_group", "job_group_n"}:
        raise NotModified(M.MOD_JGRP_MIX)  # bmod(1): `bmod [-g job_group_name | -gn] job_ID`, a form of its own
    job = target(cluster, jid, ranges)
    if job is None:
        raise NotModified(M.NO_MATCHING_JOB, typed)
    if ranges is not None and given & {"job_group", "job_group_n"}:
        raise NotModified(M.MOD_JGRP_ARRAY)
    if not permissions.allows(cfg, caller, "modify", job=job):
        raise NotModified(M.PERM_DENIED)
    if job.status in FINISHED:
        raise NotModified(M.JOB_FINISHED, typed)
    array = isinstance(job, ArrayTarget)
    if array and given & {"queue", "queue_n"}:
        raise NotModified(M.ARRAY_QUEUE_MOD)
    if job.status not in PENDING:
        _check_started(cluster, job, req, given)
    with _as_not_modified():
        attrs, data = _changes(cluster, caller, job, req, array)
    if array:
        runnable = given <= RUNNING_OK
        elements = [e for e in job.elements if e.status in PENDING or runnable and e.status not in FINISHED]
    else:
        elements = [job]
    for one in elements:
        cluster.modify_job(one, dict(attrs), data, caller.user)
    return (attrs.get("begin_time") if req.begin is not None else None,
            attrs.get("term_time") if req.term is not None else None)


def _check_started(cluster, job, req: ModifyRequest, given: set[str]) -> None:
    if given - RUNNING_OK:
        raise NotModified(M.RUNNING_JOB_MOD)
    conf = cluster.config.lsf_conf
    if "mem_limit" in given or "mem_limit_n" in given:
        if conf.get("LSB_JOB_MEMLIMIT", "N").strip().upper() not in ("Y", "YES"):
            raise NotModified(M.MOD_MEMLIMIT)
    if given & {"cpulimit", "cpulimit_n"} and conf.get("LSB_JOB_CPULIMIT", "N").strip().upper() not in ("Y", "YES"):
        raise NotModified(M.MOD_CPULIMIT)
    if given & {"err", "err_over"} and not job.error_file:
        raise NotModified(M.MOD_ERRFILE)


def _changes(cl, caller: Caller, job, req: ModifyRequest, array: bool) -> tuple[dict, dict]:
    """The job's new attributes and the MODIFY record's data (a key with None:
    its `n` form), every value checked; NotSubmitted for bsub's refusals."""
    cfg = cl.config
    attrs: dict = {}
    data: dict = {}
    env = _env(job)
    # Queue first: the other checks are against the queue the job will be in.
    qname = job.queue
    if req.queue is not None or req.queue_n:
        qname = req.queue if req.queue is not None else sub.default_queue(cfg, env)
        sub.check_queue(cl, caller, job.user, qname)
        attrs.update(queue=qname, default_queue_used=req.queue is None)
        data["queue"] = req.queue
    q = cfg.queue(qname)
    nmin = job.num_processors
    if req.nproc is not None:
        nmin, nmax = sub.parse_nproc(req.nproc)
        attrs.update(num_processors=nmin, max_processors=nmax)
        data["nproc"] = [nmin, nmax]
    elif req.nproc_n:
        nmin = 1
        attrs.update(num_processors=1, max_processors=None)
        data["nproc"] = None
    if "num_processors" in attrs or "queue" in attrs:
        total = sub.cluster_slots(cl, q)
        if total is not None and nmin > total:
            raise NotSubmitted(M.TOO_MANY_PROCS)
    if req.res_req is not None:
        text = " ".join(req.res_req)
        mem = subopts.res_req_mem(text, cl.rusage_units, cl.config)
        attrs.update(res_req=text, mem_req_mb=mem)
        data["res_req"] = text
    elif req.res_req_n:
        attrs.update(res_req=None, mem_req_mb=None)
        data["res_req"] = None
    limit = job.run_limit_min
    if req.runlimit is not None:
        limit = sub.parse_runlimit(req.runlimit)
        attrs["run_limit_min"] = limit
        data["run_limit"] = limit
    elif req.runlimit_n:
        limit = attrs["run_limit_min"] = None
        data["run_limit"] = None
    if limit is not None and q.run_limit is not None and limit > q.run_limit:
        raise NotSubmitted(M.EXCEED_QUEUE_LIMIT, "RUNLIMIT")
    _name(cfg, job, req, array, attrs, data)
    _files(req, attrs, data)
    if req.project is not None or req.project_n:
        attrs["project"] = req.project if req.project is not None else (
            env.get("LSB_DEFAULTPROJECT") or cfg.params.default_project)
        data["project"] = req.project
    if req.cpulimit is not None:
        minutes, host = sub.parse_cpulimit(req.cpulimit, cfg)
        attrs.update(cpu_limit_min=minutes, cpu_limit_host=host)
        data["cpu_limit"] = minutes
    elif req.cpulimit_n:
        attrs.update(cpu_limit_min=None, cpu_limit_host=None)
        data["cpu_limit"] = None
    if req.mem_limit is not None:
        kb, hard = sub.parse_mem_limit(req.mem_limit, cl.limits_unit())
        attrs.update(mem_limit_kb=kb, mem_limit_hard=hard)
        data["mem_limit_kb"] = kb
    elif req.mem_limit_n:
        attrs.update(mem_limit_kb=None, mem_limit_hard=False)
        data["mem_limit_kb"] = None
    if req.depend is not None:
        spec = parse_array_name(job.array_spec, None) if array and job.array_spec else None
        # job names in the condition are the owner's, as at submission
        attrs.update(dependency=req.depend, depend_json=sub.resolve_dependency(
            cl, Caller(job.user, caller.uid), req.depend, spec))
        data["depend"] = req.depend
    elif req.depend_n:
        attrs.update(dependency=None, depend_json=None)
        data["depend"] = None
    if req.group is not None:
        sub.check_user_group(cfg, job.user, req.group)
    if req.group is not None or req.group_n:
        attrs["user_group"] = req.group
        data["group"] = req.group
    if req.command is not None:
        if not req.command.strip():
            raise NotSubmitted(M.NO_COMMAND)
        attrs["command"] = data["command"] = req.command
    if req.rerun or req.rerun_n:  # -rn: never rerunnable, as bsub -rn (even in a RERUNNABLE queue)
        attrs["rerunnable"] = data["rerun"] = bool(req.rerun)
        attrs["rerun_never"] = bool(req.rerun_n)
    if req.cwd is not None:
        attrs["specified_cwd"] = data["cwd"] = (
            req.cwd if os.path.isabs(req.cwd) else os.path.normpath(os.path.join(req.submit_dir, req.cwd)))
    elif req.cwd_n:
        attrs["specified_cwd"] = data["cwd"] = None
    _submission_fields(cl, job, req, attrs, data)
    _priorities(cl, caller, job, req, attrs, data)
    _group_and_app(cl, caller, req, attrs, data)
    return attrs, data


def _submission_fields(cl, job, req: ModifyRequest, attrs: dict, data: dict) -> None:
    """-Jd, -b, -t, -L, -i, -outdir, -u, -E, -B, -N, -x, -m and their `n` forms,
    checked as bsub checks them (lsfemu.ops.subopts, lsfemu.ops.submit); -x
    and -m against the queue the job will be in."""
    if req.description is not None or req.description_n:
        attrs["description"] = data["description"] = (
            req.description[:subopts.MAX_DESCRIPTION] if req.description is not None else None)
    now = cl.now()
    begin, term = job.begin_time, job.term_time
    if req.begin is not None or req.begin_n:
        begin = attrs["begin_time"] = data["begin"] = (
            subopts.parse_time(req.begin, now) if req.begin is not None else None)
    if req.term is not None or req.term_n:
        term = attrs["term_time"] = data["term"] = subopts.parse_time(req.term, now) if req.term is not None else None
    if begin is not None and term is not None and begin > term:
        raise NotSubmitted(M.START_AFTER_TERM)
    for key, col, value, reset in (("login_shell", "login_shell", req.login_shell, req.login_shell_n),
                                   ("in_file", "input_file", req.input_file, req.input_file_n),
                                   ("outdir", "outdir", req.outdir, req.outdir_n)):
        if value is not None or reset:
            attrs[col] = data[key] = subopts.check_path(value) if value is not None else None
    if "input_file" in attrs:
        attrs["input_spooled"] = False
    if req.mail_user is not None or req.mail_user_n:
        attrs["mail_user"] = data["mail_user"] = (
            subopts.check_mail_user(req.mail_user) if req.mail_user is not None else None)
    if req.pre_exec is not None or req.pre_exec_n:
        attrs["pre_exec"] = data["pre_exec"] = sub.exec_command(req.pre_exec)
    if req.post_exec is not None or req.post_exec_n:
        attrs["post_exec"] = data["post_exec"] = sub.exec_command(req.post_exec)
    if req.estimate is not None or req.estimate_n:
        attrs["est_runtime_min"] = data["estimate"] = (
            sub.parse_runlimit(req.estimate, estimate=True) if req.estimate is not None else None)
    limits = subopts.pend_limits(req.pend_limit, req.epend_limit, cl.config)  # -ptl/-eptl as bsub checks them
    for key, given, reset in (("pend_limit_min", req.pend_limit, req.pend_limit_n),
                              ("epend_limit_min", req.epend_limit, req.epend_limit_n)):
        if given is not None or reset:
            attrs[key] = data[key] = limits.get(key)
    _notify(job, req, attrs, data)
    q = cl.config.queue(attrs.get("queue", job.queue))
    if req.exclusive or req.hosts is not None:
        placed = subopts.placement_fields(SimpleNamespace(exclusive=req.exclusive, asked_hosts=req.hosts),
                                          cl.config, q)
        for key in ("exclusive", "asked_hosts"):
            if key in placed:
                attrs[key] = data[key] = placed[key]
    if req.exclusive_n:
        attrs["exclusive"] = data["exclusive"] = False
    listed = hostfile.decode(job.asked_hosts) is not None
    if req.hosts_n and not listed:
        attrs["asked_hosts"] = data["asked_hosts"] = None
    _host_file(cl, job, req, q, attrs, data, listed)


def _host_file(cl, job, req: ModifyRequest, q, attrs: dict, data: dict, listed: bool) -> None:
    """-hostfile: bsub's (the file read now, its hosts checked; the job's tasks its
    slots), not with -n, -m or -R (given here, or the job's own -R); -hostfilen
    takes a job's host file away (one task again)."""
    if req.host_file is not None:
        if req.nproc is not None or req.hosts is not None or req.res_req is not None or (
                job.res_req and not req.res_req_n):
            raise NotSubmitted(M.HOSTFILE_CONFLICT)
        fields_, n = subopts.host_file_fields(req.host_file, req.submit_dir, cl.config, q)
        attrs.update(asked_hosts=fields_["asked_hosts"], num_processors=n, max_processors=None)
        data.update(asked_hosts=fields_["asked_hosts"], nproc=[n, None])
    elif req.host_file_n and listed:
        attrs.update(asked_hosts=None, num_processors=1, max_processors=None)
        data.update(asked_hosts=None, nproc=None)


def _notify(job, req: ModifyRequest, attrs: dict, data: dict) -> None:
    """-B/-Bn, -N/-Ne/-Nn: the job's notification flags (bsub's "B,N,Ne")."""
    if not (req.notify_begin or req.notify_begin_n or req.notify_end or req.notify_exit or req.notify_end_n):
        return
    flags = set(filter(None, (job.notify or "").split(",")))
    if req.notify_begin or req.notify_begin_n:
        flags.discard("B")
        if req.notify_begin:
            flags.add("B")
        data["notify_begin"] = bool(req.notify_begin)
    if req.notify_end or req.notify_exit or req.notify_end_n:
        flags -= {"N", "Ne"}
        flags |= {"N"} if req.notify_end else {"Ne"} if req.notify_exit else set()
        data["notify_end"] = bool(req.notify_end or req.notify_exit)
    attrs["notify"] = ",".join(f for f in ("B", "N", "Ne") if f in flags)


def _group_and_app(cl, caller: Caller, req: ModifyRequest, attrs: dict, data: dict) -> None:
    """-g / -gn (the job moves to the group, made as bsub -g makes it; -gn: to
    the root group) and -app / -appn (the profile; the limits it gave at
    submission stay the job's, see docs/semantics.md)."""
    if req.job_group is not None:
        path = group_path(req.job_group, NotSubmitted)
        if cl.job_groups.get(path) is None:
            cl.job_groups.add(path, caller.user)  # (after every check: _changes is the last to refuse)
        attrs["job_group"] = data["job_group"] = path
    elif req.job_group_n:
        attrs["job_group"] = data["job_group"] = None
    if req.app is not None:
        if req.app not in cl.config.applications:
            raise NotSubmitted(M.NO_SUCH_APP, req.app)
        attrs["app_profile"] = data["app"] = req.app
    elif req.app_n:
        attrs["app_profile"] = data["app"] = None


def _env(job) -> dict:
    """The job's submission environment (-qn and -Pn read LSB_DEFAULTQUEUE, LSB_DEFAULTPROJECT)."""
    return json.loads(job.env_json or "{}")


def _name(cfg, job, req: ModifyRequest, array: bool, attrs: dict, data: dict) -> None:
    """-J / -Jn. A job array keeps its name: only its limit of running
    elements changes (`-J %N`), as OpenLava's modifyJob has it."""
    if req.job_name is None and not req.job_name_n:
        return
    if array or job.array_spec:
        m = _ARRAY_LIMIT.fullmatch(req.job_name or "")
        if m is None:
            raise NotSubmitted(M.ARRAY_NAME_MOD)
        n = int(m.group(1))
        head = job.array_spec.split("]", 1)[0] + "]"
        try:
            parse_array_name(f"{head}%{n}", cfg.params.max_job_array_size)
        except ArraySpecError as e:
            raise NotSubmitted(e.text) from None
        attrs.update(array_limit=n or None, array_spec=f"{head}%{n}" if n else head)
        data["name"] = req.job_name
        return
    if req.job_name_n:
        attrs["name"] = data["name"] = None
        return
    name = req.job_name
    if not name.strip() or "[" in name or len(name) > 4094 or any(ch in name for ch in "\n\r\x00"):
        raise NotSubmitted(M.BAD_JOB_NAME, name if name.strip() else None)
    attrs["name"] = data["name"] = name


def _files(req: ModifyRequest, attrs: dict, data: dict) -> None:
    """-o/-oo/-on and -e/-eo/-en (the overwrite flag goes with the name)."""
    for key, plain, over, reset in (("out", req.out, req.out_over, req.out_n),
                                    ("err", req.err, req.err_over, req.err_n)):
        col = "output" if key == "out" else "error"
        if plain is not None or over is not None:
            name = over if over is not None else plain
            attrs.update({f"{col}_file": name, f"{col}_overwrite": over is not None})
            data[key] = name
            data[f"{key}_over"] = over is not None
        elif reset:
            attrs.update({f"{col}_file": None, f"{col}_overwrite": False})
            data[key] = None


def _priorities(cl, caller: Caller, job, req: ModifyRequest, attrs: dict, data: dict) -> None:
    """-sp/-spn (MAX_USER_PRIORITY set; administrators may go beyond it for
    jobs they own) and -aps/-apsn (administrators only)."""
    cfg = cl.config
    if req.sp is not None or req.spn:
        mup = cfg.params.max_user_priority
        if mup is None:
            raise NotModified(M.PRIORITY_UNDEFINED)
        value = None
        if req.sp is not None:
            admin = permissions.allows(cfg, caller, "administer_queue", job=job)
            try:
                value = check_user_priority(req.sp, mup, admin and job.user == caller.user)
            except PriorityError as e:
                raise NotModified(str(e)) from None
        a, d = cl.priority_change(value)
        attrs.update(a)
        data.update(d)
    if req.aps is not None or req.apsn:
        if not permissions.allows(cfg, caller, "administer_queue", job=job):
            raise NotModified(M.PERM_DENIED)
        kind = value = None
        if req.aps is not None:
            try:
                kind, value = aps_mod.parse_aps_mod(req.aps)
            except aps_mod.ApsSyntaxError as e:
                raise NotModified(str(e), req.aps) from None
        a, d = cl.aps_change(kind, value)
        attrs.update(a)
        data.update(d)
