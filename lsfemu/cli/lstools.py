"""LSF's base commands about hosts: lshosts (static resources), lsload (load
indices), lsinfo (resources, host types and models); options: lsfemu.options.
`ops.hosts` builds the views, `render.lstools` makes the text. Their failures
are LIM's, printed as OpenLava's commands print them (ls_perror: the prefix
they pass, then LSF's text) with their exit codes.
"""

from __future__ import annotations

from typing import Optional

from lsfemu.cli.base import Ctx, Result, UsageExit, ctx, run_command
from lsfemu.errors import LsfError
from lsfemu.ops import hosts as ops
from lsfemu.render import lstools as R
from lsfemu.render import messages


def lshosts(wide: bool = False, long: bool = False, res_req: Optional[str] = None,
            hosts: Optional[list[str]] = None) -> None:
    c = ctx()
    try:
        views = ops.load_views(c.cluster, hosts, res_req, c.local_host, clients=True)
    except LsfError as e:
        # OpenLava lshosts.c: ls_perror("ls_gethostinfo()") without host names, "ls_gethostinfo" with
        c.error(messages.object_error("ls_gethostinfo" if hosts else "ls_gethostinfo()", e.reason))
        return
    c.out.append(R.lshosts_long(views) if long else R.lshosts(views, wide=wide))


def lsload(wide: bool = False, long: bool = False, res_req: Optional[str] = None, num_hosts: Optional[str] = None,
           indices: Optional[str] = None, normalized: bool = False, effective: bool = False,
           hosts: Optional[list[str]] = None) -> None:
    c = ctx()
    if num_hosts is not None and not (num_hosts.isdigit() and int(num_hosts) > 0):
        raise UsageExit()  # OpenLava lsload.c: -n needs a positive number, else the usage
    if normalized and effective:
        raise UsageExit()  # -N and -E exclude each other (lsload.c: the usage)
    try:
        shown = ops.index_list(indices) if indices is not None else None
        views = ops.load_views(c.cluster, hosts, res_req, c.local_host, by_load=True)
    except LsfError as e:
        c.error(messages.object_error("lsload", e.reason), rc=246)  # exit(-10)
        return
    if num_hosts is not None:
        views = views[:int(num_hosts)]
    if normalized or effective:
        ops.run_queues(views, "normalized" if normalized else "effective")
    c.out.append(R.lsload(views, wide=wide, long=long, indices=shown))


def lsinfo(long: bool = False, resources: bool = False, types: bool = False, models: bool = False,
           all_models: bool = False, names: Optional[list[str]] = None) -> None:
    c = ctx()
    info, missing = ops.lsinfo_view(c.cluster.config, names, all_models)
    models = models or all_models
    if not (names or resources or types or models):
        resources = types = models = True
    elif names:
        resources = True
    c.out.append(R.lsinfo(info, resources=resources, types=types, models=models, long=long, not_found=missing))


def run_lshosts(c: Ctx) -> Result:
    return run_command(c, lshosts)


def run_lsload(c: Ctx) -> Result:
    return run_command(c, lsload)


def run_lsinfo(c: Ctx) -> Result:
    return run_command(c, lsinfo)
