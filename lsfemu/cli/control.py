"""Job control: bkill, bstop, bresume, bswitch.

One resolver picks the jobs (IDs, `0` for all of the caller's unfinished
jobs, -u/-q/-J filters); each command then acts per job, printing LSF's
success line on stdout or `Job <N>: <reason>` on stderr, exit 255 when any
job failed.
"""

from __future__ import annotations

import signal as _signal
from typing import Callable, Optional

import typer

from lsfemu.cli.base import Ctx, Result, UsageExit, bad_id_message, ctx, jobs_of, name_matches, parse_job_refs, run_typer
from lsfemu.cli.bjobs import select_users
from lsfemu.jobstate import ANY_SUSPENDED, FINISHED, ON_HOST, PENDING
from lsfemu.render import messages


#: jobs a signal can reach: not an UNKWN job (its host is lost), not a finished one
SIGNALLABLE = PENDING + ON_HOST

# Signals that leave a simulated job running (their default action is to ignore).
_IGNORED = {"CHLD", "URG", "WINCH", "CONT"}
_STOPS = {"STOP", "TSTP", "TTIN", "TTOU"}
# What a pending job takes (mbatchd's sigPFjob): bkill's own signals kill it, bstop's
# suspends it, bresume's resumes it; any other signal is refused (LSBE_NOT_STARTED).
_PENDING_KILLS = {"KILL", "TERM", "INT"}


def resolve(c: Ctx, ids_args: list[str], user: str | None, queue: str | None, name: str | None) -> list[tuple[object | None, str]]:
    """(job or None when unknown, the ID as typed) for every job to act on.
    A job array named by its ID alone is one target: the list of its
    elements, answered in one line (`Job <123> is being terminated`); an
    index list (`123[1-5]`) gives one target per element that exists."""
    cl = c.cluster
    ids, bad = parse_job_refs(ids_args)
    for b in bad:
        c.error(f"{b}: {bad_id_message(b)}")
    if bad:
        return []
    out: list[tuple[object | None, str]] = []
    if ids and not any(i[0] == 0 for i in ids):
        for jid, ranges, typed in ids:
            found = jobs_of(cl.jobs, jid, ranges)
            if not found:
                out.append((None, typed))
            elif ranges is None and found[0].array_index:
                out.append((found, typed))
            elif len(found) == 1:
                out.append((found[0], typed))
            else:
                out.extend((j, f"{j.id}[{j.array_index}]") for j in found)
        return out
    users = select_users(c, user)
    for j in sorted(cl.jobs.values(), key=lambda j: j.position):
        if j.status not in SIGNALLABLE:
            continue
        if users is not None and j.user not in users:
            continue
        if queue is not None and j.queue != queue:
            continue
        if name is not None and not name_matches(name, j):
            continue
        out.append((j, str(j.id) if not j.array_index else f"{j.id}[{j.array_index}]"))
    return out


def act(c: Ctx, targets, action: Callable[[object, str], str | None]) -> None:
    """Run `action(job, typed)`; it returns an error text or None on success.
    A whole job array (a list of elements) answers once: the success line if
    any element took the action, else the first element's error. Consecutive
    elements with the same error are condensed as LSF 10 does:
    `Job <123[1-2:1]>: Job has already finished`."""
    run: list | None = None  # [job ID, first index, last index, text]

    def flush() -> None:
        nonlocal run
        if run is not None:
            jid, first, last, text = run
            c.error(f"Job <{jid}[{first}]>: {text}" if first == last else f"Job <{jid}[{first}-{last}:1]>: {text}")
            run = None

    def fail(job, typed: str, text: str) -> None:
        nonlocal run
        if job is not None and job.array_index and typed == f"{job.id}[{job.array_index}]":
            if run is not None and run[0] == job.id and run[2] + 1 == job.array_index and run[3] == text:
                run[2] = job.array_index
                return
            flush()
            run = [job.id, job.array_index, job.array_index, text]
            return
        flush()
        c.error(f"Job <{typed}>: {text}")

    for job, typed in targets:
        if isinstance(job, list):
            mark = len(c.out)
            errors = []
            for element in job:
                err = action(element, typed) if c.may_control(element) else "User permission denied"
                if err:
                    errors.append(err)
            said = c.out[mark:]
            del c.out[mark:]
            if len(errors) < len(job):
                c.out.extend(said[:1])
            else:
                fail(None, typed, errors[0])
            continue
        if job is None:
            fail(None, typed, "No matching job found")
            continue
        if not c.may_control(job):
            fail(job, typed, "User permission denied")
            continue
        err = action(job, typed)
        if err:
            fail(job, typed, err)
    flush()


def _need_selection(c: Ctx, job_ids, user, queue, name) -> bool:
    if not job_ids and user is None and queue is None and name is None:
        raise UsageExit("Job ID or one of '-m', '-u' '-q' and '-J' must be specified.")
    if queue is not None and c.cluster.config.queue(queue) is None:
        c.error(f"{queue}: No such queue")
        return False
    return True


def _nothing(c: Ctx, targets, name: str | None = None, queue: str | None = None) -> bool:
    """LSF's answer when the selection matches no job."""
    if not targets and c.rc == 0:
        if name is not None:
            c.error(f"Job <{name}> is not found")
        else:
            c.error("No unfinished job found" + (f" in queue <{queue}>" if queue else ""))
        return True
    return False


def _signal_number(spec: str) -> tuple[str, int] | None:
    s = spec.upper().removeprefix("SIG")
    if s.isdigit():
        try:
            return _signal.Signals(int(s)).name.removeprefix("SIG"), int(s)
        except ValueError:
            return None
    try:
        return s, int(_signal.Signals["SIG" + s])
    except KeyError:
        return None


kill_app = typer.Typer(add_completion=False)


@kill_app.command()
def bkill(
    sig: Optional[str] = typer.Option(None, "-s"),
    user: Optional[str] = typer.Option(None, "-u"),
    queue: Optional[str] = typer.Option(None, "-q"),
    name: Optional[str] = typer.Option(None, "-J"),
    job_ids: Optional[list[str]] = typer.Argument(None),
) -> None:
    c = ctx()
    signame, signum = "KILL", 9
    if sig is not None:
        parsed = _signal_number(sig)
        if parsed is None:
            c.error(f"{sig}: Illegal signal value")
            return
        signame, signum = parsed
    if not _need_selection(c, job_ids, user, queue, name):
        return
    targets = resolve(c, job_ids or [], user, queue, name)
    if _nothing(c, targets, name, queue):
        return
    cl = c.cluster

    def one(job, typed):
        if job.status in FINISHED:
            return "Job has already finished"
        if job.status in PENDING and sig is not None:
            return signal_pending(job, typed)
        if signame in ("KILL", "TERM", "INT") or sig is None:
            cl.kill(job, c.user, signum=signum if sig is not None else None)
            c.print(f"Job <{typed}> is being {'terminated' if sig is None else 'signaled'}")
        elif signame in _STOPS:
            cl.stop(job, c.user)
            c.print(f"Job <{typed}> is being signaled")
        elif signame in _IGNORED:
            if signame == "CONT":
                cl.resume(job, c.user)
            else:
                cl.note_signal(job, c.user, signame)
            c.print(f"Job <{typed}> is being signaled")
        else:  # any other signal's default action ends the simulated job
            cl.kill(job, c.user, signum=signum)
            c.print(f"Job <{typed}> is being signaled")
        return None

    def signal_pending(job, typed):
        """No process to signal: only a kill, a suspend or a resume means anything."""
        if signame in _PENDING_KILLS:
            cl.kill(job, c.user, signum=signum)
        elif signame == "STOP":
            if job.status == "PEND":
                cl.stop(job, c.user)
        elif signame == "CONT":
            if job.status == "PSUSP":
                cl.resume(job, c.user)
        else:
            return messages.JOB_NOT_STARTED
        c.print(f"Job <{typed}> is being signaled")
        return None

    act(c, targets, one)


stop_app = typer.Typer(add_completion=False)


@stop_app.command()
def bstop(
    user: Optional[str] = typer.Option(None, "-u"),
    queue: Optional[str] = typer.Option(None, "-q"),
    name: Optional[str] = typer.Option(None, "-J"),
    job_ids: Optional[list[str]] = typer.Argument(None),
) -> None:
    c = ctx()
    if not _need_selection(c, job_ids, user, queue, name):
        return
    targets = resolve(c, job_ids or [], user, queue, name)
    if _nothing(c, targets, name, queue):
        return

    def one(job, typed):
        if job.status in FINISHED:
            return "Job has already finished"
        if job.status in ("PEND", "RUN", "SSUSP"):
            c.cluster.stop(job, c.user)
        c.print(f"Job <{typed}> is being stopped")
        return None

    act(c, targets, one)


resume_app = typer.Typer(add_completion=False)


@resume_app.command()
def bresume(
    user: Optional[str] = typer.Option(None, "-u"),
    queue: Optional[str] = typer.Option(None, "-q"),
    name: Optional[str] = typer.Option(None, "-J"),
    job_ids: Optional[list[str]] = typer.Argument(None),
) -> None:
    c = ctx()
    if not _need_selection(c, job_ids, user, queue, name):
        return
    targets = resolve(c, job_ids or [], user, queue, name)
    if _nothing(c, targets, name, queue):
        return

    def one(job, typed):
        if job.status in FINISHED:
            return "Job has already finished"
        if job.status not in ANY_SUSPENDED:
            return "Job is not suspended"
        c.cluster.resume(job, c.user)
        c.print(f"Job <{typed}> is being resumed")
        return None

    act(c, targets, one)


switch_app = typer.Typer(add_completion=False)


@switch_app.command()
def bswitch(
    user: Optional[str] = typer.Option(None, "-u"),
    queue: Optional[str] = typer.Option(None, "-q"),
    name: Optional[str] = typer.Option(None, "-J"),
    args: Optional[list[str]] = typer.Argument(None),
) -> None:
    c = ctx()
    args = list(args or [])
    if not args:
        raise UsageExit("The destination queue name must be specified.")
    dest = args.pop(0)
    if not _need_selection(c, args, user, queue, name):
        return
    cfg = c.cluster.config
    targets = resolve(c, args, user, queue, name)
    if _nothing(c, targets, name, queue):
        return

    def one(job, typed):
        q = cfg.queue(dest)
        if q is None:
            return "No such queue"
        if job.status in FINISHED:
            return "Job has already finished"
        if not c.cluster.queue_open(dest):
            return "Queue has been closed"
        if not cfg.queue_allows_user(q, job.user):
            return "User cannot use the queue"
        if job.run_limit_min is not None and q.run_limit is not None and job.run_limit_min > q.run_limit:
            # mbatchd's acceptJob checks the job's own limits against the new queue's maximum, as at submission.
            return messages.EXCEED_QUEUE_LIMIT
        if job.queue != dest:
            c.cluster.switch(job, dest, c.user)
        c.print(f"Job <{typed}> is switched to queue <{dest}>")
        return None

    act(c, targets, one)


mig_app = typer.Typer(add_completion=False)


@mig_app.command()
def bmig(
    user: Optional[str] = typer.Option(None, "-u"),
    job_ids: Optional[list[str]] = typer.Argument(None),
) -> None:
    """Migrate running rerunnable jobs: they pend again, first in line, keeping their priority."""
    c = ctx()
    if not job_ids and user is None:
        raise UsageExit("Job ID or one of '-m', '-u' '-q' and '-J' must be specified.")
    targets = [(j, t) for j, t in resolve(c, job_ids or [], user, None, None)
               if j is None or isinstance(j, list) or j.status not in PENDING or job_ids]
    if _nothing(c, targets):
        return

    def one(job, typed):
        if job.status in FINISHED:
            return "Job has already finished"
        if job.status in PENDING:
            return "Job has not started yet"
        if not job.rerunnable:
            return "Job is not checkpointable"
        c.cluster.migrate(job, c.user)
        c.print(f"Job <{typed}> is being migrated")
        return None

    act(c, targets, one)


def run_bmig(c: Ctx) -> Result:
    return run_typer(c, mig_app)


def run_bkill(c: Ctx) -> Result:
    return run_typer(c, kill_app)


def run_bstop(c: Ctx) -> Result:
    return run_typer(c, stop_app)


def run_bresume(c: Ctx) -> Result:
    return run_typer(c, resume_app)


def run_bswitch(c: Ctx) -> Result:
    return run_typer(c, switch_app)
