"""bpeek (a started job's output so far) and bjdepinfo (a job's dependencies):
argv -> `ops.peek` / `ops.depinfo` -> LSF's text."""

from __future__ import annotations

from typing import Optional

from lsfemu.cli.base import Ctx, Result, UsageExit, ctx, parse_job_ids, run_command
from lsfemu.errors import LsfError
from lsfemu.ops.depinfo import DepRequest, depinfo
from lsfemu.ops.peek import PeekRequest, peek
from lsfemu.render import depinfo as dep_render
from lsfemu.render import messages


def bpeek(
    queue: Optional[str] = None,
    host: Optional[str] = None,
    name: Optional[str] = None,
    args: Optional[list[str]] = None,
) -> None:
    """The output so far of a job: the one named, or the caller's last unfinished job (of -q, -m, -J)."""
    c = ctx()
    args = list(args or [])
    if sum(x is not None for x in (queue, host, name)) + bool(args) > 1:
        raise UsageExit(messages.PEEK_ONE_OF)
    if len(args) > 1:
        raise UsageExit()
    req = PeekRequest(queue=queue, host=host, name=name)
    if args:
        ids, bad = parse_job_ids(args)
        if bad:
            raise UsageExit()
        req = PeekRequest(job_id=ids[0][0], index=ids[0][1])
    try:
        got = peek(c.cluster, c.caller, req)
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    if got.stdout is not None:
        c.out.append(messages.PEEK_STDOUT + "\n" + got.stdout.decode("utf-8", "replace"))
    if got.stderr is not None:
        c.out.append("\n" + messages.PEEK_STDERR + "\n" + got.stderr.decode("utf-8", "replace"))


def run_bpeek(c: Ctx) -> Result:
    return run_command(c, bpeek)


def bjdepinfo(
    children: bool = False,
    detail: bool = False,
    pending_only: bool = False,
    level: Optional[str] = None,
    args: Optional[list[str]] = None,
) -> None:
    """The jobs a job depends on (or, -c, that depend on it), to -r levels."""
    c = ctx()
    args = list(args or [])
    ids, bad = parse_job_ids(args)
    if len(args) != 1 or bad or (children and (detail or pending_only)):
        raise UsageExit()
    depth = 1
    if level is not None:
        if not level.isdigit() or not level.isascii() or int(level) < 1:
            raise UsageExit(messages.BAD_LEVEL)
        depth = int(level)
    try:
        got = depinfo(c.cluster, DepRequest(ids[0][0], ids[0][1], children, pending_only, detail, depth))
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    for job, condition, state in got.conditions:
        c.print(dep_render.condition_line(job, state, condition))
    if not got.rows:
        c.error(messages.NO_DEPENDENCY)
        return
    for line in dep_render.table(got.rows, children):
        c.print(line)


def run_bjdepinfo(c: Ctx) -> Result:
    return run_command(c, bjdepinfo)
