"""Job group commands: bgadd, bgmod, bgdel (their LSF lines on stdout, `path:
reason` on stderr with exit 255) and bjgroup's table (lsfemu.render.jobgroups).
"""

from __future__ import annotations

from typing import Optional

from lsfemu.cli.base import Ctx, Result, UsageExit, ctx, run_command
from lsfemu.errors import LsfError
from lsfemu.ops import jobgroups as ops
from lsfemu.render import messages
from lsfemu.render.jobgroups import bjgroup_table


def _one_path(args: list[str] | None) -> str:
    if not args or len(args) != 1:
        raise UsageExit()
    return args[0]


def bgadd(limit: Optional[str] = None, args: Optional[list[str]] = None) -> None:
    c = ctx()
    path = _one_path(args)
    try:
        made = ops.add(c.cluster, c.caller, path, limit)
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    c.print(messages.job_group_done(made, "added"))


def bgmod(limit: Optional[str] = None, no_limit: bool = False, owner: Optional[str] = None,
          args: Optional[list[str]] = None) -> None:
    c = ctx()
    path = _one_path(args)
    if (limit is not None and no_limit) or (limit is None and not no_limit and owner is None):
        raise UsageExit()  # -L or -Ln (not both), or -u, as bgmod(1)'s synopsis has them
    try:
        done = ops.modify(c.cluster, c.caller, path, limit, no_limit, owner)
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    c.print(messages.job_group_modified(done))


def bgdel(below: Optional[str] = None, user: Optional[str] = None, args: Optional[list[str]] = None) -> None:
    c = ctx()
    if below is not None and args:
        raise UsageExit()  # bgdel -c job_group_name: no other group
    path = below if below is not None else _one_path(args)
    try:
        gone = ops.delete(c.cluster, c.caller, path, below=below is not None, user=user)
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    for p in gone:
        c.print(messages.job_group_done(p, "deleted"))
    if not gone:
        c.error(messages.NO_JOB_GROUP_FOUND)


def bjgroup(sort: bool = False, args: Optional[list[str]] = None) -> None:
    c = ctx()
    if args and (len(args) > 1 or not sort):
        raise UsageExit()  # a group name only after -s (bjgroup [-N] [-s [group_name]])
    try:
        rows = ops.listing(c.cluster, sort, args[0] if args else None)
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    if not rows:
        c.error(messages.NO_JOB_GROUP_FOUND)
        return
    c.out.append(bjgroup_table(rows))


def run_bgadd(c: Ctx) -> Result:
    return run_command(c, bgadd)


def run_bgmod(c: Ctx) -> Result:
    return run_command(c, bgmod)


def run_bgdel(c: Ctx) -> Result:
    return run_command(c, bgdel)


def run_bjgroup(c: Ctx) -> Result:
    return run_command(c, bjgroup)
