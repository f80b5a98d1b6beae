"""blimits: the resource allocation limits of lsb.resources and what the
started jobs use of them (lsfemu.ops.limits), as LSF's tables or (-c) as
configured (lsfemu.render.blimits)."""

from __future__ import annotations

from typing import Optional

from lsfemu.cli.base import Ctx, Result, ctx, run_command
from lsfemu.ops import limits as ops
from lsfemu.render import blimits as R
from lsfemu.render import messages


def _words(values: Optional[list[str]]) -> Optional[list[str]]:
    """An option's values, each possibly several names in one word (`-u "user1 user2"`)."""
    return [w for v in values for w in v.split()] if values else None


def blimits(all_: bool = False, config: bool = False, wide: bool = False, names: Optional[list[str]] = None,
            projects: Optional[list[str]] = None, queues: Optional[list[str]] = None,
            users: Optional[list[str]] = None, hosts: Optional[list[str]] = None,
            apps: Optional[list[str]] = None) -> None:
    c = ctx()
    if config:
        c.out.append(R.configuration(ops.configured(c.cluster, _words(names))))
        return
    rows = ops.limit_rows(c.cluster, all_, _words(names), _words(users), _words(queues), _words(hosts),
                          _words(projects), _words(apps))
    if not rows:
        c.out.append(messages.NO_LIMIT_USAGE + "\n")
        return
    c.out.append(R.tables(rows, wide=wide))


def run_blimits(c: Ctx) -> Result:
    return run_command(c, blimits)
