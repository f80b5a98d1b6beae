"""bmod (-sp, -spn, -aps, -apsn), btop, bbot, brequeue: their typer signatures;
argv -> `ops.modify` (`ops.control.requeue` for brequeue) -> LSF's lines.
"""

from __future__ import annotations

import re
from typing import Optional


from lsfemu.cli.base import Ctx, Result, UsageExit, bad_id_message, ctx, parse_job_refs, run_command
from lsfemu.cli.control import answer, selection
from lsfemu.errors import LsfError
from lsfemu.ops import control as ops_control
from lsfemu.ops import modify as ops
from lsfemu.render import messages



def _job_ref(c: Ctx, args: list[str] | None) -> tuple | None:
    """The single job bmod names ((job ID, index ranges, as typed)), or None after printing LSF's error."""
    if not args:
        raise UsageExit(messages.NEED_JOB_ID)
    if len(args) > 1:
        raise UsageExit()  # bmod takes one job ID
    ids, bad = parse_job_refs(args[:1])
    if bad or not ids or ids[0][0] == 0:
        c.error(messages.object_error(args[0], bad_id_message(args[0])))
        return None
    return ids[0]


def bmod(
    sp: Optional[str] = None,
    spn: bool = False,
    aps: Optional[str] = None,
    apsn: bool = False,
    args: Optional[list[str]] = None,
) -> None:
    c = ctx()
    if sum(x is not None and x is not False for x in (sp, spn or None, aps, apsn or None)) == 0:
        raise UsageExit()
    if (sp is not None and spn) or (aps is not None and apsn):
        raise UsageExit(messages.BMOD_EXCLUSIVE)
    ref = _job_ref(c, args)
    if ref is None:
        return
    try:
        ops.set_priorities(c.cluster, c.caller, ops.PriorityChange(ref, sp, spn, aps, apsn))
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    c.print(messages.being_changed(ref[2]))


def _move(c: Ctx, args: list[str] | None, to_top: bool) -> None:
    if not args:
        raise UsageExit(messages.NEED_JOB_ID)
    if len(args) > 2:
        raise UsageExit()
    position = 1
    if len(args) == 2:
        if not re.fullmatch(r"[0-9]{1,9}", args[1]) or int(args[1]) < 1:
            c.error(messages.object_error(args[1], messages.BAD_POSITION))
            return
        position = int(args[1])
    ids, bad = parse_job_refs(args[:1])
    if bad:
        c.error(messages.object_error(args[0], bad_id_message(args[0])))
        return
    if ids[0][0] == 0:
        c.error(messages.JOB_ID_ZERO)
        return
    try:
        moved = ops.move(c.cluster, c.caller, ids[0], position, to_top)
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    if moved.beyond:
        c.err.append(messages.beyond_movable(position) + "\n")
    # LSF (as OpenLava's code) writes this line to stderr.
    c.err.append(messages.moved(ids[0][2], moved.position, top=to_top) + "\n")




def btop(args: Optional[list[str]] = None) -> None:
    _move(ctx(), args, True)




def bbot(args: Optional[list[str]] = None) -> None:
    _move(ctx(), args, False)




def brequeue(
    done: bool = False,
    exited: bool = False,
    running: bool = False,
    all_: bool = False,
    user: Optional[str] = None,
    job_ids: Optional[list[str]] = None,
) -> None:
    c = ctx()
    if not job_ids:
        raise UsageExit(messages.NEED_JOB_ID)
    states = set()
    for flag, on in (("-d", done), ("-e", exited), ("-r", running)):
        if on or all_:
            states |= ops_control.REQUEUE_STATES[flag]
    sel = selection(job_ids, user)
    answer(c, lambda: ops_control.requeue(c.cluster, c.caller, sel, states))


def run_bmod(c: Ctx) -> Result:
    return run_command(c, bmod)


def run_btop(c: Ctx) -> Result:
    return run_command(c, btop)


def run_bbot(c: Ctx) -> Result:
    return run_command(c, bbot)


def run_brequeue(c: Ctx) -> Result:
    return run_command(c, brequeue)
