"""bsub: validate a submission and store it; answer `Job <N> is submitted...`.

The command comes from the arguments, or, when there are none, from the
script on stdin, whose `#BSUB` lines carry options (command-line options win).
Nothing is stored unless every check passes.

`-J "name[1-10:2,15]%5"` submits a job array (lsfemu.sched.arrayspec): one
answer, one job ID, an element per index. `-w` takes a dependency condition
(lsfemu.sched.depend), resolved against the jobs that exist now.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from typing import Optional

import typer

from lsfemu.cli.base import Ctx, Result, ctx, run_typer
from lsfemu.engine.jobs import NoJobId, SubmitSpec
from lsfemu.render import messages as M
from lsfemu.sched import depend, resreq
from lsfemu.sched.arrayspec import ArraySpecError, parse_array_name

app = typer.Typer(add_completion=False)

MAX_LIMIT_MINUTES = 2147483647 // 60  # LSF keeps limits in 32-bit seconds


class SubmitError(Exception):
    """A rejected submission: `<object>: <message>. Job not submitted.`"""

    def __init__(self, message: str, obj: str | None = None):
        self.text = f"{obj}: {message}" if obj else message
        super().__init__(self.text)


def parse_runlimit(text: str) -> float:
    """`-W [hour:]minute[/host]` -> minutes."""
    value = text.split("/", 1)[0]
    m = re.fullmatch(r"(?:([0-9]{1,9}):)?([0-9]{1,9})", value.strip())
    if not m:
        raise SubmitError("Bad RUNLIMIT specification", text)
    hours = int(m.group(1) or 0)
    minutes = int(m.group(2))
    total = hours * 60 + minutes
    if total <= 0 or total > MAX_LIMIT_MINUTES:
        raise SubmitError("Bad RUNLIMIT specification", text)
    return float(total)


_LIMIT_UNITS = {"K": 0, "KB": 0, "M": 1, "MB": 1, "G": 2, "GB": 2, "T": 3, "TB": 3, "P": 4, "PB": 4,
                "E": 5, "EB": 5, "Z": 6, "ZB": 6}
_MEMLIMIT = re.compile(r"\s*([0-9]{1,19})\s*([KMGTPEZ]B?)?\s*(!?)\s*", re.IGNORECASE)


def parse_mem_limit(text: str, default_unit: str) -> tuple[int, bool]:
    """`-M mem_limit[!]` -> (KB, hard). The number is in LSF_UNIT_FOR_LIMITS
    (default_unit; KB when unset) unless a unit follows it (`-M 2GB`); `!`
    asks for a hard limit. OpenLava's message for a bad value (its spelling)."""
    m = _MEMLIMIT.fullmatch(text)
    if not m or int(m.group(1)) <= 0:
        raise SubmitError("MEMLIMT value should be a positive integer", text)
    unit = (m.group(2) or default_unit or "KB").upper()
    kb = int(m.group(1)) * 1024 ** _LIMIT_UNITS.get(unit, 0)
    if kb > 2**63 - 1:
        raise SubmitError("MEMLIMT value should be a positive integer", text)
    return kb, m.group(3) == "!"


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
            raise SubmitError("Bad GPU requirement syntax", text)
        if k.strip() == "num":
            if not re.fullmatch(r"[0-9]{1,4}", v.strip()) or int(v) < 1:
                raise SubmitError("Bad GPU requirement syntax", text)
            num = int(v)
    return num


def parse_script(text: str) -> tuple[list[str], str]:
    """`#BSUB` option lines and the script body of a job script on stdin."""
    opts: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#BSUB"):
            try:
                opts.extend(shlex.split(s[5:], comments=True))
            except ValueError:
                raise SubmitError("Bad argument", s) from None
    return opts, text


@app.command()
def bsub(
    queue: Optional[str] = typer.Option(None, "-q"),
    nproc: Optional[str] = typer.Option(None, "-n"),
    job_name: Optional[str] = typer.Option(None, "-J"),
    out: Optional[str] = typer.Option(None, "-o"),
    out_over: Optional[str] = typer.Option(None, "-oo"),
    err: Optional[str] = typer.Option(None, "-e"),
    err_over: Optional[str] = typer.Option(None, "-eo"),
    runlimit: Optional[str] = typer.Option(None, "-W"),
    sp: Optional[str] = typer.Option(None, "-sp"),
    res_req: Optional[list[str]] = typer.Option(None, "-R"),
    project: Optional[str] = typer.Option(None, "-P"),
    group: Optional[str] = typer.Option(None, "-G"),
    cwd: Optional[str] = typer.Option(None, "-cwd"),
    rerun: bool = typer.Option(False, "-r"),
    gpu: Optional[str] = typer.Option(None, "-gpu"),
    depend_cond: Optional[str] = typer.Option(None, "-w"),
    mem_limit: Optional[str] = typer.Option(None, "-M"),
    command: Optional[list[str]] = typer.Argument(None),
) -> None:
    c = ctx()
    opts = dict(queue=queue, nproc=nproc, job_name=job_name, out=out, out_over=out_over, err=err,
                err_over=err_over, runlimit=runlimit, sp=sp, res_req=res_req or [], project=project,
                group=group, cwd=cwd, rerun=rerun or None, gpu=gpu, depend=depend_cond, mem_limit=mem_limit)
    try:
        if command and not _parse_job_script(c, command):
            cmdline = " ".join(command)
        else:
            script = c.stdin
            if script is None or not script.strip():
                raise SubmitError("Empty job")
            script_opts, cmdline = parse_script(script)
            if not any(l.strip() and not l.strip().startswith("#") for l in cmdline.splitlines()):
                raise SubmitError("Empty job")  # only comments and #BSUB lines
            _merge_script_options(opts, script_opts)
        job = _submit(c, cmdline, opts)
    except SubmitError as e:
        c.error(f"{e.text}. Job not submitted.")
        return
    where = "default queue" if job.default_queue_used else "queue"
    c.print(f"Job <{job.id}> is submitted to {where} <{job.queue}>.")


def _parse_job_script(c: Ctx, command: list[str]) -> bool:
    """`bsub [options] job_script` with LSB_BSUB_PARSE_SCRIPT=Y (lsf.conf): the
    file's `#BSUB` lines are options and its contents run as the job, as with
    `bsub < job_script`. The client sends the contents of a one-word command
    that names a text file (lsfemu.client._job_script); without the parameter
    the file runs as a command."""
    if len(command) != 1 or c.stdin is None:
        return False
    return c.cluster.config.lsf_conf.get("LSB_BSUB_PARSE_SCRIPT", "N").strip().upper() in ("Y", "YES")


def _merge_script_options(opts: dict, script_opts: list[str]) -> None:
    """Fill options the command line did not give from `#BSUB` lines."""
    parsed = _parse_bsub_flags(script_opts)
    for k, v in parsed.items():
        if k == "res_req":
            if not opts["res_req"]:
                opts["res_req"] = v
        elif opts.get(k) is None:
            opts[k] = v


_SCRIPT_SWITCHES = {"-r": "rerun"}
_SCRIPT_FLAGS = {"-gpu": "gpu", "-q": "queue", "-n": "nproc", "-J": "job_name", "-o": "out", "-oo": "out_over",
                 "-e": "err", "-eo": "err_over", "-W": "runlimit", "-sp": "sp", "-R": "res_req",
                 "-P": "project", "-G": "group", "-cwd": "cwd", "-w": "depend", "-M": "mem_limit"}


def _parse_bsub_flags(args: list[str]) -> dict:
    out: dict = {}
    i = 0
    while i < len(args):
        flag = args[i]
        if flag in _SCRIPT_SWITCHES:
            out[_SCRIPT_SWITCHES[flag]] = True
            i += 1
            continue
        key = _SCRIPT_FLAGS.get(flag)
        if key is None or i + 1 >= len(args):
            raise SubmitError("Bad argument", f"#BSUB {flag}")
        if key == "res_req":
            out.setdefault("res_req", []).append(args[i + 1])
        else:
            out[key] = args[i + 1]
        i += 2
    return out


def _submit(c: Ctx, cmdline: str, o: dict):
    cl = c.cluster
    cfg = cl.config
    if not cmdline.strip():
        raise SubmitError("Empty job")
    if c.user == "root" and cfg.lsf_conf.get("LSF_ROOT_USER", "N").upper() not in ("Y", "YES"):
        raise SubmitError("Root job submission is disabled")
    # Queue
    default_used = o["queue"] is None
    if default_used:
        # DEFAULT_QUEUE (or LSB_DEFAULTQUEUE), else LSF's queue named "default".
        candidates = c.env.get("LSB_DEFAULTQUEUE", "").split() or cfg.params.default_queues or ["default"]
        qname = next((q for q in candidates if cfg.queue(q) is not None), None)
        if qname is None:
            raise SubmitError("Queue name must be specified")
    else:
        qname = o["queue"]
    q = cfg.queue(qname)
    if q is None:
        raise SubmitError("No such queue", qname)
    if not cl.queue_open(qname):
        raise SubmitError("Queue has been closed", qname)
    if not cfg.queue_allows_user(q, c.user) and not c.allows("use_any_queue"):
        raise SubmitError("User cannot use the queue", qname)
    if q.fairshare:
        from lsfemu.sched.fairshare import build_tree

        # A user with no share account in a fairshare queue could never run there.
        if build_tree(q.fairshare, cfg.user_groups, {c.user}).account_path(c.user) is None:
            raise SubmitError("User cannot use the queue", qname)
    # Processors
    nmin, nmax = 1, None
    if o["nproc"] is not None:
        m = re.fullmatch(r"\s*([0-9]{1,9})\s*(?:,\s*([0-9]{1,9})\s*)?", o["nproc"])
        if not m:
            raise SubmitError("Bad argument for option -n")
        nmin = int(m.group(1))
        nmax = int(m.group(2)) if m.group(2) else None
        if nmin < 1 or (nmax is not None and nmax < nmin):
            raise SubmitError("Bad argument for option -n")
        if nmax is not None and nmax == nmin:
            nmax = None
    total_slots = _cluster_slots(cl, q)
    if total_slots is not None and nmin > total_slots:
        raise SubmitError("Too many processors requested")
    # Name
    name = o["job_name"]
    if name is not None:
        if not name.strip() or len(name) > 4094 or any(ch in name for ch in "\n\r\x00"):
            raise SubmitError("Bad job name", name if name.strip() else None)
    array = None
    if name is not None:
        try:
            array = parse_array_name(name, cfg.params.max_job_array_size)
        except ArraySpecError as e:
            raise SubmitError(e.text) from None
    # Run limit
    run_limit = parse_runlimit(o["runlimit"]) if o["runlimit"] is not None else None
    # Only the maximum bounds -W; the default applies to jobs without one (Cluster.effective_run_limit).
    if run_limit is not None and q.run_limit is not None and run_limit > q.run_limit:
        raise SubmitError(M.EXCEED_QUEUE_LIMIT, "RUNLIMIT")
    # Priority
    prio = None
    if o["sp"] is not None:
        mup = cfg.params.max_user_priority
        if mup is None:
            raise SubmitError("Job priority control undefined")
        if not re.fullmatch(r"\s*[0-9]{1,10}\s*", o["sp"]):
            raise SubmitError("Bad user priority")
        prio = int(o["sp"])
        admin = c.allows("administer_queue", queue=qname)
        if prio < 1 or prio > 2147483647 or (prio > mup and not admin):
            raise SubmitError("Bad user priority")
    # Resource requirements
    res_req = " ".join(o["res_req"]) if o["res_req"] else None
    mem = None
    if res_req is not None:
        try:
            # The amount one slot reserves, as the fairshare plug-in's memory in use counts it.
            mem = resreq.rusage_amounts(res_req, 1, False, cl.rusage_units).get("mem")
        except resreq.ResReqError:
            raise SubmitError(M.BAD_RESREQ, res_req) from None
    mem_limit_kb, mem_hard = None, False
    if o.get("mem_limit") is not None:
        mem_limit_kb, mem_hard = parse_mem_limit(o["mem_limit"], cl.limits_unit())
    # User group (-G): the user must belong to it
    ugroup = o["group"]
    if ugroup is not None:
        if ugroup not in cfg.user_groups:
            raise SubmitError("Bad user group name", ugroup)
        members = cfg.group_members(ugroup)
        if c.user not in members and "all" not in cfg.user_groups[ugroup].members:
            raise SubmitError("User not in the specified user group", ugroup)
    ngpus = 0
    if o.get("gpu") is not None:
        ngpus = parse_gpu(o["gpu"])
    project = o["project"] or c.env.get("LSB_DEFAULTPROJECT") or cfg.params.default_project
    home = c.env.get("HOME", "")
    spec_cwd = None
    if o["cwd"] is not None:
        spec_cwd = o["cwd"] if os.path.isabs(o["cwd"]) else os.path.normpath(os.path.join(c.cwd, o["cwd"]))
    outf, oover = (o["out_over"], True) if o["out_over"] is not None else (o["out"], False)
    errf, eover = (o["err_over"], True) if o["err_over"] is not None else (o["err"], False)
    dep, dep_json = o.get("depend"), None
    if dep is not None:
        dep_json = _resolve_dependency(c, dep, array)
    spec = SubmitSpec(
        user=c.user, queue=qname, default_queue_used=default_used, command=cmdline.rstrip("\n"),
        name=name, num_processors=nmin, max_processors=nmax, cwd=c.cwd, home=home,
        specified_cwd=spec_cwd, output_file=outf, error_file=errf, output_overwrite=oover,
        error_overwrite=eover, run_limit_min=run_limit, submit_priority=prio, res_req=res_req,
        mem_req_mb=mem, project=project, user_group=ugroup, env=c.env,
        from_host=c.local_host,
        rerunnable=bool(o.get("rerun")) or q.extra.get("RERUNNABLE", "").lower() == "yes", ngpus=ngpus,
        array=array, dependency=dep, depend_json=dep_json, mem_limit_kb=mem_limit_kb, mem_limit_hard=mem_hard,
    )
    try:
        return cl.submit(spec)
    except NoJobId as e:
        raise SubmitError(e.message) from None


def _resolve_dependency(c: Ctx, text: str, array) -> str:
    """`-w`: parse the condition and bind its job references to the jobs that
    exist now (lsfemu.sched.depend); the resolved tree as JSON."""
    cfg = c.cluster.config
    try:
        tree = depend.parse(text)
        depend.resolve(tree, c.cluster.depend_known(), c.user,
                       submitting_ranges=array.ranges if array is not None else None,
                       last_sub=cfg.params.extra.get("JOB_DEP_LAST_SUB", "").strip() == "1")
    except depend.DependError as e:
        obj = (text if text.strip() else None) if e.text == depend.SYNTAX else e.obj
        raise SubmitError(e.text, obj) from None
    return json.dumps(depend.to_data(tree))


def _cluster_slots(cl, q) -> int | None:
    total = 0
    for h in cl.config.queue_hosts(q):
        mxj = cl.config.host_mxj(h)
        if mxj is None:
            return None
        total += mxj
    return total


def run(c: Ctx) -> Result:
    return run_typer(c, app, interspersed=False)

