"""The table of commands the daemon serves: command name -> function(Ctx) -> Result.

`COMMANDS` maps each name to where its function lives ("module:function" under
lsfemu.cli); `command(name)` imports that module on the command's first
request. A daemon start imports no command module (issue 23, suite time: every
test cluster starts a daemon, and most use a few commands of the 36), and a
command's first request imports only its own path.
"""

from __future__ import annotations

import importlib
from typing import Callable

COMMANDS: dict[str, str] = {
    "bsub": "bsub:run",
    "bjobs": "bjobs:run",
    "bhist": "bhist:run",
    "bacct": "bacct:run",
    "bkill": "control:run_bkill",
    "bstop": "control:run_bstop",
    "bresume": "control:run_bresume",
    "bswitch": "control:run_bswitch",
    "bmig": "control:run_bmig",
    "brun": "control:run_brun",
    "bpeek": "jobinfo:run_bpeek",
    "bjdepinfo": "jobinfo:run_bjdepinfo",
    "bmod": "modify:run_bmod",
    "btop": "modify:run_btop",
    "bbot": "modify:run_bbot",
    "brequeue": "modify:run_brequeue",
    "bqueues": "info:run_bqueues",
    "bparams": "info:run_bparams",
    "bhosts": "info:run_bhosts",
    "busers": "info:run_busers",
    "bugroup": "groups:run_bugroup",
    "bhpart": "groups:run_bhpart",
    "lsid": "info:run_lsid",
    "lshosts": "lstools:run_lshosts",
    "lsload": "lstools:run_lsload",
    "lsinfo": "lstools:run_lsinfo",
    "lsclusters": "lstools:run_lsclusters",
    "lsadmin": "lstools:lsadmin",
    "bgadd": "jobgroups:run_bgadd",
    "bgmod": "jobgroups:run_bgmod",
    "bgdel": "jobgroups:run_bgdel",
    "bjgroup": "jobgroups:run_bjgroup",
    "bapp": "bapp:run_bapp",
    "blimits": "blimits:run_blimits",
    "badmin": "admin:badmin",
    "lsfemu": "admin:lsfemu_remote",
}


def command(name: str) -> Callable | None:
    """The function serving command `name` (its module imported now if not yet), or None."""
    where = COMMANDS.get(name)
    if where is None:
        return None
    module, function = where.split(":")
    return getattr(importlib.import_module(f"lsfemu.cli.{module}"), function)
