"""The specification of a job's run: what the wrapper (lsfemu/engine/jobwrap.py) reads from ``spec.json``.

:func:`job_spec` builds it when :class:`~lsfemu.engine.runner.Runner`
launches a job: the argv (the job file, written here with the host file),
the working directory, the environment (the submission's, without a
submitting job's per-job variables, plus LSF's ``LSB_*``/``LS_*``), the
input and output files (bsub -i, -o, -e, -outdir; LSF's mail kept under
LSFEMU_HOME/output when there is no -o), pre/post-exec commands, the
limits handed to the operating system and the job report's fields.
"""

from __future__ import annotations

import json
import os

from lsfemu import jobpaths
from lsfemu.engine import cpulimit, execopts
from lsfemu.sched import resreq

# Per-job variables a job must not inherit from a submitting job's environment.
_PER_JOB = ("LSB_JOBID", "LSB_JOBNAME", "LSB_QUEUE", "LSB_HOSTS", "LSB_MCPU_HOSTS", "LSB_DJOB_NUMPROC",
            "LSB_DJOB_HOSTFILE", "LSB_SUB_HOST", "LSB_JOBFILENAME", "LSB_JOBINDEX", "LSB_OUTPUTFILE",
            "LSB_ERRORFILE", "LSB_EXEC_CLUSTER", "LSB_PROJECT_NAME", "LSB_JOB_EXECUSER", "LS_SUBCWD",
            "LS_EXECCWD", "LSB_EFFECTIVE_RSRCREQ")


def host_counts(exec_hosts: list[str]) -> list[list]:
    """[[host, slots], ...] in first-allocation order (LSB_MCPU_HOSTS)."""
    counts: dict[str, int] = {}
    for h in exec_hosts:
        counts[h] = counts.get(h, 0) + 1
    return [[h, n] for h, n in counts.items()]


def output_path(spec: str, job_id: int, index: int, cwd: str, kind: str) -> tuple[str, str]:
    """(absolute path, the name as LSF shows it) of a -o/-e file: %J and %I
    replaced, a trailing `/` meaning `DIR/<job ID>.out|err`, relative to the
    job's working directory."""
    shown = spec.replace("%J", str(job_id)).replace("%I", str(index))
    if shown.endswith("/"):
        shown += f"{job_id}.{kind}"
    full = shown if os.path.isabs(shown) else os.path.join(cwd, shown)
    return os.path.normpath(full), shown


def whole_seconds(seconds: float | None) -> int | None:
    """A limit in whole seconds, rounded up (None: no limit)."""
    return None if seconds is None else int(-(-seconds // 1))


def job_spec(cl, job, d: str, *, home: str, script: str | None, interactive_dir: str, wake: str | None) -> dict:
    """What the wrapper needs: the command, where, with which environment and output files.
    *d* is the job's directory (the job file and host file are written there), *home*
    LSFEMU_HOME, *script* the job's kept ``bsub < script`` text (None: none),
    *interactive_dir* where an interactive job meets its bsub, *wake* the daemon's wake socket."""
    cfg = cl.config
    jid, idx = job.id, job.array_index
    hosts = job.exec_hosts.split()
    cwd = jobpaths.exec_cwd(job, hosts[0] if hosts else None)
    if jobpaths.makes_cwd(job):  # LSF creates a -cwd path with dynamic patterns (mode 700, as -outdir)
        try:
            os.makedirs(cwd, mode=0o700, exist_ok=True)
        except OSError:
            pass  # then the job runs in /tmp, as LSF does when the CWD is not there
    out_base = cwd if os.path.isdir(cwd) else "/tmp"
    made = execopts.outdir(job, job.cwd or cwd, hosts[0] if hosts else None)  # bsub -outdir
    out_base = made or out_base
    counts = host_counts(hosts)
    try:
        env = json.loads(job.env_json or "{}")
    except ValueError:
        env = {}
    for k in _PER_JOB:
        env.pop(k, None)
    jobfile = os.path.join(d, f"{int(job.submit_time)}.{jid}")
    command = job.command
    text = command if script is None else script.rstrip("\n")
    shebang = text.startswith("#!")
    with open(jobfile, "w") as f:
        f.write(text + "\n" if shebang else "#! /bin/sh\n\n" + text + "\n")
    os.chmod(jobfile, 0o700)
    hostfile = os.path.join(d, "hostfile")
    with open(hostfile, "w") as f:
        f.write("".join(h + "\n" for h in hosts))
    out = err = None
    out_shown = err_shown = None
    if job.output_file:
        path, out_shown = output_path(job.output_file, jid, idx, out_base, "out")
        out = {"path": path, "overwrite": bool(job.output_overwrite), "mkdir": job.output_file.endswith("/")}
    if job.error_file:
        path, err_shown = output_path(job.error_file, jid, idx, out_base, "err")
        if out is None or path != out["path"]:  # -e naming the -o file: stderr goes to the output
            err = {"path": path, "overwrite": bool(job.error_overwrite), "mkdir": job.error_file.endswith("/")}
        else:
            err_shown = None
    direct = out is not None and cfg.lsf_conf.get("LSB_STDOUT_DIRECT", "N").strip().upper() in ("Y", "YES")
    if out is None:  # LSF mails the report and the output; lsfemu keeps the mail here
        name = f"{jid}.out" if idx == 0 else f"{jid}_{idx}.out"
        out = {"path": os.path.join(home, "output", name), "overwrite": False, "mkdir": True}
    env.update({
        "LSB_JOBID": str(jid), "LSB_JOBNAME": job.name if job.name is not None else command,
        "LSB_QUEUE": job.queue, "LSB_HOSTS": " ".join(hosts),
        "LSB_MCPU_HOSTS": " ".join(f"{h} {n}" for h, n in counts), "LSB_DJOB_NUMPROC": str(len(hosts)),
        "LSB_DJOB_HOSTFILE": hostfile, "LSB_SUB_HOST": job.from_host, "LSB_JOBFILENAME": jobfile,
        "LSB_JOBINDEX": str(idx), "LSB_EXEC_CLUSTER": cfg.cluster_name, "LSB_PROJECT_NAME": job.project,
        "LSB_JOB_EXECUSER": job.user, "LS_SUBCWD": job.cwd, "LS_EXECCWD": cwd,
    })
    if out_shown is not None:
        env["LSB_OUTPUTFILE"] = out_shown
    if err_shown is not None:
        env["LSB_ERRORFILE"] = err_shown
    # LSF sets it for every job: the merged requirement (-R, application, queue) it runs with
    env["LSB_EFFECTIVE_RSRCREQ"] = cl.effective_req(job.res_req, job.app_profile, job.queue)[2].rstrip()
    if made:
        env["LSB_OUTDIR"] = made
    env.setdefault("HOME", job.home or "/")  # sbatchd's: the execution home, whatever -env kept
    try:
        mem = resreq.rusage_amounts(job.res_req, job.num_processors, cl.per_slot, cl.rusage_units).get("mem")
    except resreq.ResReqError:
        mem = None
    return {
        "argv": (execopts.login_argv(job.login_shell, jobfile) if job.login_shell
                 else [jobfile] if shebang else ["/bin/sh", jobfile]), "cwd": cwd, "env": env,
        "stdin": execopts.input_path(job, cwd, os.path.join(home, "spool")),
        "stdout": out, "stderr": err, "direct": direct,
        # bsub -I, -Ip, -Is: the job talks to the waiting bsub (jobwrap.Relay, ops.watch)
        "interactive": ({"mode": job.interactive, "dir": interactive_dir}
                        if job.interactive in ("I", "Ip", "Is") else None),
        "pre_exec": job.pre_exec, "post_exec": job.post_exec,  # bsub -E / -Ep
        "wake": wake,  # the daemon's wake socket: told of the end at once (jobwrap.wake)
        "swap_minus_rss": cfg.lsf_conf.get("EGO_PIM_SWAP_REPORT", "N").strip().upper() in ("Y", "YES"),
        # bsub -M handed to the operating system (setrlimit RLIMIT_RSS, bytes) unless
        # LSB_JOB_MEMLIMIT=Y makes it a per-job limit LSF alone enforces.
        "rlimit_rss": (job.mem_limit_kb * 1024 if job.mem_limit_kb is not None and cfg.lsf_conf.get(
            "LSB_JOB_MEMLIMIT", "N").strip().upper() not in ("Y", "YES") else None),
        # bsub -c: RLIMIT_CPU, whole seconds on this host (lsfemu.engine.cpulimit)
        "rlimit_cpu": whole_seconds(cpulimit.limit_seconds(cfg, job)),
        # lsb.queues NICE: the job's processes run at that UNIX niceness (os.nice in the child)
        "nice": getattr(cfg.queue(job.queue), "nice", 0),
        "report": {
            "job_id": str(jid) if idx == 0 else f"{jid}[{idx}]",
            "name": job.name if job.name is not None else command, "from_host": job.from_host,
            "user": job.user, "cluster": cfg.cluster_name, "submit_time": job.submit_time,
            "hosts": counts, "queue": job.queue, "home": job.home or env.get("HOME") or "/",
            "command": command, "admin": cfg.admins[0] if cfg.admins else "lsfadmin",
            "mem_req_mb": mem, "error_shown": err_shown,
        },
    }
