"""bapp: the application profiles of lsb.applications (lsfemu.ops.applications),
as a table or (-l) one block each (lsfemu.render.bapp)."""

from __future__ import annotations

from typing import Optional

from lsfemu.cli.base import Ctx, Result, ctx, run_command
from lsfemu.errors import LsfError
from lsfemu.ops.applications import profiles
from lsfemu.render import bapp as R
from lsfemu.render import messages


def bapp(long: bool = False, wide: bool = False, names: Optional[list[str]] = None) -> None:
    c = ctx()
    try:
        rows = profiles(c.cluster, names)
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    if not rows:
        c.error(messages.NO_APP_FOUND)
        return
    c.out.append(R.long(rows, c.cluster.limits_unit()) if long else R.table(rows, wide=wide))


def run_bapp(c: Ctx) -> Result:
    return run_command(c, bapp)
