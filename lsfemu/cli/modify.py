"""Changing pending jobs: bmod (-sp, -spn, -aps, -apsn), btop, bbot, brequeue.

Permissions (LSF's): the owner may change its own jobs; cluster
administrators any job; queue administrators the jobs in their queues.
APS values are for administrators only. btop/bbot move a job among the
pending jobs of the same queue and priority; an owner moves it among its own
jobs only.
"""

from __future__ import annotations

from typing import Optional

import re

import typer

from lsfemu.cli.base import Ctx, Result, UsageExit, bad_id_message, ctx, parse_job_refs, run_typer
from lsfemu.cli.control import answer, selection
from lsfemu.jobstate import FINISHED, ON_HOST, PENDING
from lsfemu.ops import control as ops_control
from lsfemu.ops.select import jobs_of

bmod_app = typer.Typer(add_completion=False)


def _one_job(c: Ctx, args: list[str] | None):
    """The single job bmod names, or None after printing LSF's error."""
    if not args:
        raise UsageExit("Job ID must be specified.")
    if len(args) > 1:
        raise UsageExit()  # bmod takes one job ID
    ids, bad = parse_job_refs(args[:1])
    if bad or not ids or ids[0][0] == 0:
        c.error(f"{args[0]}: {bad_id_message(args[0])}")
        return None, args[0]
    jid, ranges, typed = ids[0]
    return _target(c, jid, ranges), typed


def _target(c: Ctx, jid: int, ranges):
    """A plain job or one element; a job array (or an index list of it) as an _ArrayTarget; None."""
    elements = jobs_of(c.cluster.jobs, jid, ranges)
    if not elements:
        return None
    if len(elements) == 1 and (ranges is None or not elements[0].array_index or ranges[0][0] == ranges[0][1] and len(ranges) == 1):
        return elements[0]
    return _ArrayTarget(elements)


class _ArrayTarget:
    """A job array named by its ID in bmod/btop/bbot: checks read its first
    pending element (else its first unfinished, else its first); changes apply
    to every pending element."""

    def __init__(self, elements: list):
        self.elements = elements
        pend = [e for e in elements if e.status in PENDING]
        live = [e for e in elements if e.status not in FINISHED]
        self.lead = (pend or live or elements)[0]
        self.pending = pend

    def __getattr__(self, name: str):
        return getattr(self.lead, name)


@bmod_app.command()
def bmod(
    sp: Optional[str] = typer.Option(None, "-sp"),
    spn: bool = typer.Option(False, "-spn"),
    aps: Optional[str] = typer.Option(None, "-aps"),
    apsn: bool = typer.Option(False, "-apsn"),
    args: Optional[list[str]] = typer.Argument(None),
) -> None:
    c = ctx()
    cl = c.cluster
    if sum(x is not None and x is not False for x in (sp, spn or None, aps, apsn or None)) == 0:
        raise UsageExit()
    if (sp is not None and spn) or (aps is not None and apsn):
        raise UsageExit("bmod: -sp and -spn, and -aps and -apsn, cannot be used together.")
    job, typed = _one_job(c, args)
    if job is None:
        if c.rc == 0:
            c.error(f"{typed}: No matching job found. Job not modified.")
        return
    admin = c.allows("administer_queue", job=job)
    if not c.allows("modify", job=job):
        c.error("User permission denied. Job not modified.")
        return
    if job.status in FINISHED:
        c.error(f"{typed}: Job has already finished. Job not modified.")
        return
    if job.status not in PENDING:
        c.error("Only the following parameters can be used to modify a running job: -c, -M, -W, -o, -e, -r. Job not modified.")
        return
    from lsfemu.config.aps import ApsSyntaxError
    from lsfemu.sched.aps import parse_aps_mod
    from lsfemu.sched.priority import PriorityError, check_user_priority

    mup = cl.config.params.max_user_priority
    new_sp = None
    if sp is not None or spn:
        if mup is None:
            c.error("Job priority control undefined. Job not modified.")
            return
        if sp is not None:
            try:
                # Administrators may go beyond MAX_USER_PRIORITY for jobs they own.
                new_sp = check_user_priority(sp, mup, admin and job.user == c.user)
            except PriorityError as e:
                c.error(f"{e}. Job not modified.")
                return
    aps_change = None
    if aps is not None or apsn:
        if not admin:
            c.error("User permission denied. Job not modified.")
            return
        if aps is not None:
            try:
                aps_change = parse_aps_mod(aps)
            except ApsSyntaxError as e:
                c.error(f"{aps}: {e}. Job not modified.")
                return
    # Every check passed: apply (to every pending element of a job array).
    for target in (job.pending if isinstance(job, _ArrayTarget) else [job]):
        if sp is not None or spn:
            cl.set_priority(target, new_sp, c.user)
        if aps is not None:
            cl.set_aps(target, aps_change[0], aps_change[1], c.user)
        elif apsn:
            cl.set_aps(target, None, None, c.user)
    c.print(f"Parameters of job <{typed}> are being changed")


def _move(c: Ctx, args: list[str] | None, to_top: bool) -> None:
    cl = c.cluster
    if not args:
        raise UsageExit("Job ID must be specified.")
    if len(args) > 2:
        raise UsageExit()
    position = 1
    if len(args) == 2:
        if not re.fullmatch(r"[0-9]{1,9}", args[1]) or int(args[1]) < 1:
            c.error(f"{args[1]}: Position value must be a positive integer.")
            return
        position = int(args[1])
    ids, bad = parse_job_refs(args[:1])
    if bad:
        c.error(f"{args[0]}: {bad_id_message(args[0])}")
        return
    jid, ranges, typed = ids[0]
    if jid == 0:
        c.error("Job Id = 0 is out of valid range.")
        return
    job = _target(c, jid, ranges)
    if job is None:
        c.error(f"Job <{typed}>: No matching job found")
        return
    admin = c.allows("administer_queue", job=job)
    if not c.allows("modify", job=job):
        c.error(f"Job <{typed}>: User permission denied")
        return
    if job.status in FINISHED:
        c.error(f"Job <{typed}>: Job has already finished")
        return
    if job.status != "PEND":
        c.error(f"Job <{typed}>: Job has already started")
        return
    now = cl.now()
    if isinstance(job, _ArrayTarget):  # every pending element, keeping their order
        elements = [e for e in job.pending if e.status == "PEND"]
        for e in (reversed(elements) if to_top else elements):
            used = _move_one(c, e, to_top, position, admin, now)
        c.err.append(f"Job <{typed}> has been moved to position {used} from {'top' if to_top else 'bottom'}.\n")
        return
    used = _move_one(c, job, to_top, position, admin, now, warn=True)
    # LSF (as OpenLava's code) writes this line to stderr.
    c.err.append(f"Job <{typed}> has been moved to position {used} from {'top' if to_top else 'bottom'}.\n")


def _move_one(c: Ctx, job, to_top: bool, position: int, admin: bool, now: float, warn: bool = False) -> int:
    cl = c.cluster
    prio = cl.effective_priority(job, now)
    same = [j for j in cl.jobs.values() if j.status == "PEND" and j.queue == job.queue
            and cl.effective_priority(j, now) == prio]
    same.sort(key=lambda j: (j.position, j.id, j.array_index))
    movable = [j for j in same if admin or j.user == c.user]
    if warn and position > len(movable):
        c.err.append(f"Warning: position value <{position}> is beyond movable range.\n")
    return cl.move(job, to_top, position, same, movable, c.user)


btop_app = typer.Typer(add_completion=False)


@btop_app.command()
def btop(args: Optional[list[str]] = typer.Argument(None)) -> None:
    _move(ctx(), args, True)


bbot_app = typer.Typer(add_completion=False)


@bbot_app.command()
def bbot(args: Optional[list[str]] = typer.Argument(None)) -> None:
    _move(ctx(), args, False)


brequeue_app = typer.Typer(add_completion=False)


@brequeue_app.command()
def brequeue(
    done: bool = typer.Option(False, "-d"),
    exited: bool = typer.Option(False, "-e"),
    running: bool = typer.Option(False, "-r"),
    all_: bool = typer.Option(False, "-a"),
    user: Optional[str] = typer.Option(None, "-u"),
    job_ids: Optional[list[str]] = typer.Argument(None),
) -> None:
    c = ctx()
    if not job_ids:
        raise UsageExit("Job ID must be specified.")
    states = set()
    for flag, on in (("-d", done), ("-e", exited), ("-r", running)):
        if on or all_:
            states |= ops_control.REQUEUE_STATES[flag]
    sel = selection(job_ids, user)
    answer(c, lambda: ops_control.requeue(c.cluster, c.caller, sel, states))


def run_bmod(c: Ctx) -> Result:
    return run_typer(c, bmod_app)


def run_btop(c: Ctx) -> Result:
    return run_typer(c, btop_app)


def run_bbot(c: Ctx) -> Result:
    return run_typer(c, bbot_app)


def run_brequeue(c: Ctx) -> Result:
    return run_typer(c, brequeue_app)
