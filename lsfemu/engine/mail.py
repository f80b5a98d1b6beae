"""The mail LSF sends about a job (bsub -u, -B, -N, -Ne; issue 18, part 3),
written to a mailbox file per user: `LSFEMU_HOME/mail/<user>`, in mbox
layout (each message after a `From <sender> <ctime>` line, a blank line after
it), so that a mail reader or a test can read it.

- `-B`: when the job starts, sbatchd's notification (OpenLava's
  sendNotification: `Subject: Job N: <name> started.`, `Job <name> was
  submitted from host <h> by user <u>. Started at <ctime>` ...).
- At the end, the job report (the -o file's report, lsfemu.engine.jobwrap's
  header and body): with -N; with -Ne when the job exited; with -u and no -o
  (LSF mails the report to -u's user when no output file was asked).
- The destination: -u's user, else the job's owner.

The engine calls `started` and `ended` for jobs whose `notify` or `mail_user`
is set. The readings: docs/semantics.md, "bsub's plain options".
"""

from __future__ import annotations

import os
import time

from lsfemu import jobpaths
from lsfemu.engine.jobreport import header, report_body


def mailbox(home: str, user: str) -> str:
    """The mailbox file of *user* (a -u value such as `a@b.org` is a file name; `/` becomes `_`)."""
    return os.path.join(home, "mail", user.replace("/", "_").lstrip(".") or "_")


def _deliver(home: str, to: str, sender: str, text: str, t: float) -> None:
    path = mailbox(home, to)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    with open(path, "a", encoding="utf-8", errors="surrogateescape") as f:
        f.write(f"From {sender} {time.ctime(t)}\n{text}\n")


def _name(job) -> str:
    return job.name if job.name is not None else job.command


def _sender(cl, job) -> str:
    cfg = cl.config
    admin = cfg.admins[0] if cfg.admins else "lsfadmin"
    hosts = job.exec_hosts.split()
    return f"{admin}@{hosts[0] if hosts else job.from_host}"


def started(cl, job, home: str, t: float) -> None:
    """-B: the job started (sbatchd's notification text)."""
    if "B" not in (job.notify or "").split(","):
        return
    hosts = list(dict.fromkeys(job.exec_hosts.split()))
    jid = f"{job.id}[{job.array_index}]" if job.array_index else str(job.id)
    sender = _sender(cl, job)
    lines = [
        f"Sender: LSF System <{sender}>",
        f"Subject: Job {jid}: <{_name(job)}> started.",
        "",
        f"Job <{_name(job)}> was submitted from host <{job.from_host}> by user <{job.user}>. "
        f"Started at {time.ctime(t)}",
        f"under user <{job.user}>, on host(s) <{hosts[0] if hosts else ''}>, while in queue <{job.queue}>.",
    ]
    lines += [f"                   <{h}>" for h in hosts[1:]]
    lines.append(f"Notification reported at {time.ctime(t)}")
    _deliver(home, job.mail_user or job.user, sender, "\n".join(lines) + "\n", t)


def wants_report(job) -> bool:
    """Is the job report mailed at the end (see the module docstring)?"""
    notify = (job.notify or "").split(",")
    return ("N" in notify or ("Ne" in notify and job.status == "EXIT")
            or (job.mail_user is not None and not job.output_file))


def ended(cl, job, home: str, t: float, cpu: float, usage: dict) -> None:
    """The job report, mailed at the job's end when asked."""
    if job.start_time is None or not wants_report(job):
        return
    counts: dict[str, int] = {}
    for h in job.exec_hosts.split():
        counts[h] = counts.get(h, 0) + 1
    cfg = cl.config
    sender = _sender(cl, job)
    spec = {"report": {
        "job_id": f"{job.id}[{job.array_index}]" if job.array_index else str(job.id), "name": _name(job),
        "from_host": job.from_host, "user": job.user, "cluster": cfg.cluster_name,
        "submit_time": job.submit_time, "hosts": [[h, n] for h, n in counts.items()] or [[job.from_host, 1]],
        "queue": job.queue, "home": job.home or "/", "command": job.command, "admin": sender.split("@")[0],
        "mem_req_mb": job.mem_req_mb,
    }}
    code = job.exit_code if job.exit_code is not None else 1  # (killed by a signal with no code kept)
    st = {"status": job.status, "exit_code": code, "reason": job.exit_reason, "start": job.start_time,
          "end": t, "cpu": cpu, "usage": usage, "cwd": jobpaths.exec_cwd(job, job.exec_hosts.split()[0] if job.exec_hosts else None)}
    _deliver(home, job.mail_user or job.user, sender, header(spec, st) + report_body(spec, st, t), t)
