"""LSF's base commands: lsclusters, lshosts (static resources; -o, -json),
lsload (load indices; -o, -json), lsinfo (resources, host types and models), lsadmin
showconf lim; options: lsfemu.options. `ops.hosts` builds the views,
`render.lstools` makes the text. Their failures are LIM's, printed as
OpenLava's commands print them (ls_perror: the prefix they pass, then LSF's
text) with their exit codes.
"""

from __future__ import annotations

from typing import Optional

from lsfemu import options
from lsfemu.cli.base import Ctx, Result, UsageExit, ctx, parse_subcommand, run_command
from lsfemu.errors import LsfError
from lsfemu.ops import hosts as ops
from lsfemu.ops import showconf
from lsfemu.render import admin as RA
from lsfemu.render import lstools as R
from lsfemu.render import messages, timefmt
from lsfemu.render import shared as RS
from lsfemu.render.outfmt import FormatError


def _custom(c, fmt: Optional[str], json_: bool, table: bool, variable: str, default: str, parse):
    """The -o format to print with (None: the command's table): -o, else the
    LSF_*_FORMAT variable (the caller's environment, then lsf.conf as it is
    now) unless -l or -w ask for their tables (*table*); -json without any
    format takes the default table's columns. Raises FormatError."""
    spec = fmt if table else c.setting(variable, fmt)
    if spec is None and json_:
        spec = default
    return parse(spec) if spec is not None else None


def _shared(c, names: Optional[list[str]], other_form: bool, static: bool) -> None:
    """lshosts -s / lsload -s [resource_name ...] (OpenLava intlib/resourcecmd.c
    displayShareResource): the static shared and host-based resources, or the
    dynamic ones (lsfemu has none: no ELIM); LIM's errors printed by ls_perror.
    -s with -R, -l or -w is the usage (lshosts.c, lsload.c)."""
    if other_form:
        raise UsageExit()
    try:
        views = ops.shared_views(c.cluster, names, host_based=True)
    except LsfError as e:
        c.error(messages.object_error("ls_sharedresourceinfo", e.reason))
        return
    text = RS.lshosts_shared(views) if static else ""
    c.out.append(text or (messages.NO_STATIC_SHARED if static else messages.NO_DYNAMIC_SHARED))


def _static_shared(c) -> list:
    """The static shared and host-based resources lshosts -l shows under each host (none: no rows)."""
    try:
        return ops.shared_views(c.cluster, None, host_based=True)
    except LsfError:  # none configured
        return []


def lshosts(wide: bool = False, long: bool = False, res_req: Optional[str] = None, fmt: Optional[str] = None,
            json_: bool = False, shared: bool = False, all_: bool = False,
            hosts: Optional[list[str]] = None) -> None:
    # -a (lshosts, lsload): every host, those a resource connector relinquished too; lsfemu has none of
    # those, so the hosts listed are all of them (docs/semantics.md)
    c = ctx()
    if shared:
        _shared(c, hosts, wide or long or res_req is not None or fmt is not None or json_, static=True)
        return
    if fmt is not None and (wide or long):
        raise UsageExit()  # [-w | -l] and -o are separate forms (LSF 10.1 lshosts synopsis)
    try:
        custom = _custom(c, fmt, json_, wide or long, "LSF_LSHOSTS_FORMAT", R.DEFAULT_HOSTS_FORMAT, R.hosts_format)
    except FormatError as e:
        c.error(e.message)
        return
    try:
        views = ops.load_views(c.cluster, hosts, res_req, c.local_host, clients=True)
    except LsfError as e:
        # OpenLava lshosts.c: ls_perror("ls_gethostinfo()") without host names, "ls_gethostinfo" with
        c.error(messages.object_error("ls_gethostinfo" if hosts else "ls_gethostinfo()", e.reason))
        return
    if custom is not None:
        c.out.append(R.lshosts_json(views, custom) if json_ else R.lshosts_custom(views, custom))
    else:
        c.out.append(R.lshosts_long(views, _static_shared(c)) if long else R.lshosts(views, wide=wide))


def lsload(wide: bool = False, long: bool = False, res_req: Optional[str] = None, num_hosts: Optional[str] = None,
           indices: Optional[str] = None, normalized: bool = False, effective: bool = False,
           fmt: Optional[str] = None, json_: bool = False, shared: bool = False, all_: bool = False,
           hosts: Optional[list[str]] = None) -> None:
    c = ctx()
    if shared:
        _shared(c, hosts, wide or long or res_req is not None or fmt is not None or json_ or normalized
                or effective or indices is not None or num_hosts is not None, static=False)
        return
    if num_hosts is not None and not (num_hosts.isdigit() and int(num_hosts) > 0):
        raise UsageExit()  # OpenLava lsload.c: -n needs a positive number, else the usage
    if normalized and effective:
        raise UsageExit()  # -N and -E exclude each other (lsload.c: the usage)
    if fmt is not None and (wide or long):
        raise UsageExit()  # [-l | -w | -o ...] (LSF 10.1 lsload synopsis)
    try:
        custom = _custom(c, fmt, json_, wide or long, "LSF_LSLOAD_FORMAT", R.DEFAULT_LOAD_FORMAT, R.load_format)
    except FormatError as e:
        c.error(e.message)
        return
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
    if custom is not None:
        c.out.append(R.lsload_json(views, custom) if json_ else R.lsload_custom(views, custom))
    else:
        c.out.append(R.lsload(views, wide=wide, long=long, indices=shown))


def lsclusters(wide: bool = False, clusters: Optional[list[str]] = None) -> None:
    c = ctx()
    try:
        rows = ops.cluster_rows(c.cluster, clusters)
    except LsfError as e:
        c.error(messages.object_error("ls_clusterinfo()", e.reason))
        return
    c.out.append(R.lsclusters(rows, wide=wide))


def lsinfo(long: bool = False, wide: bool = False, resources: bool = False, types: bool = False,
           models: bool = False, all_models: bool = False, names: Optional[list[str]] = None) -> None:
    c = ctx()
    info, missing = ops.lsinfo_view(c.cluster.config, names, all_models)
    models = models or all_models
    if not (names or resources or types or models):
        resources = types = models = True
    elif names:
        resources = True
    if long and wide:
        raise UsageExit()  # [-l | -w] (LSF 10.1 lsinfo synopsis)
    c.out.append(R.lsinfo(info, resources=resources, types=types, models=models, long=long, not_found=missing,
                          wide=wide))


def run_lshosts(c: Ctx) -> Result:
    return run_command(c, lshosts)


def run_lsload(c: Ctx) -> Result:
    return run_command(c, lsload)


def run_lsinfo(c: Ctx) -> Result:
    return run_command(c, lsinfo)


def run_lsclusters(c: Ctx) -> Result:
    return run_command(c, lsclusters)


def lsadmin(c: Ctx) -> Result:
    """lsadmin: `showconf lim [host_name ... | all]`; LSF's other subcommands
    are refused naming them, anything else is OpenLava's `Invalid command`."""
    parsed = parse_subcommand("lsadmin", options.LSADMIN, list(c.argv))
    if isinstance(parsed, Result):
        return parsed
    sub, opts, args = parsed
    if opts is None:
        if sub in options.LSADMIN_UNBUILT:
            return Result("", f"lsadmin: subcommand {sub} is not supported by lsfemu yet\n", 255)
        return Result("", f"Invalid command <{sub}> \n" + messages.usage("lsadmin"), 255)
    if args[:1] != ["lim"]:
        return Result("", messages.usage("lsadmin"), 255)
    cl = c.cluster
    names = [n for n in args[1:] if n != "all"]
    known = {h.name for h in cl.config.cluster_hosts if h.server}
    unknown = [n for n in names if n not in known]
    if unknown:  # every LIM named answers, or the request fails (ls_perror's prefix: the host)
        return Result("", "".join(messages.object_error(n, messages.LIM_BAD_HOST) + "\n" for n in unknown), 255)
    return Result(RA.showconf(f"LSF Configuration for LIM {timefmt.ctime(cl.now())}", showconf.lim_conf(cl)), "", 0)
