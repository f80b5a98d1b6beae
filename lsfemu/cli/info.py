"""Cluster information: bqueues, bparams, bhosts, busers, lsid: their command
functions (options: lsfemu.options); `ops.info` builds the plain views (configuration and live job
counts) and `lsfemu.render` makes the text.
"""

from __future__ import annotations

from typing import Callable, Optional


from lsfemu.cli.base import Ctx, Result, UsageExit, ctx, run_command
from lsfemu.config.fairshare import parse_user_shares
from lsfemu.errors import LsfError
from lsfemu.ops import condense, hostexcept
from lsfemu.ops import hosts as host_ops
from lsfemu.ops import info as ops
from lsfemu.render import bhosts as RH
from lsfemu.render import bparams as RP
from lsfemu.render import bqueues as RQ
from lsfemu.render import busers as RU
from lsfemu.render import messages
from lsfemu.render import shared as RS
from lsfemu.render.outfmt import Format, FormatError
from lsfemu.render import lsid as RL
from lsfemu.render.admin import showconf
from lsfemu.render.aps import aps_table
from lsfemu.render.timefmt import ctime
from lsfemu.render.fairshare import fairshare_section, share_info_block


def custom_format(c: Ctx, fmt: Optional[str], variable: str, parse: Callable[[str], Format], other_form: bool,
                  json_: bool, noheader: bool) -> Optional[tuple[Optional[Format], bool]]:
    """The customised output a query asks for: (its format or None, whether as
    JSON), from -o, else *variable* (the caller's environment, then lsf.conf)
    when no other form (-w, -l ...) is asked; -json without a format has no
    effect (IBM's pages). None after LSF's error for a bad format string."""
    if fmt and other_form:
        raise UsageExit()
    spec = fmt or (None if other_form else c.setting(variable))
    json_ = json_ and spec is not None
    if json_ and noheader:
        raise UsageExit(f"{c.cmd}: -json cannot be used with -noheader")
    if not spec:
        return None, False
    try:
        return parse(spec), json_
    except FormatError as e:
        c.error(e.message)
        return None


def bqueues(
    wide: bool = False,
    long: bool = False,
    recursive: bool = False,
    fmt: Optional[str] = None,
    json_: bool = False,
    noheader: bool = False,
    user: Optional[str] = None,
    host: Optional[str] = None,
    alloc: bool = False,
    queues: Optional[list[str]] = None,
) -> None:
    c = ctx()
    cfg = c.cluster.config
    custom = custom_format(c, fmt, "LSB_BQUEUES_FORMAT", RQ.parse_format, wide or long or recursive, json_, noheader)
    if custom is None:
        return
    parsed, json_ = custom
    names = None
    if queues:
        names = []
        for q in queues:
            if cfg.queue(q) is None:
                c.error(messages.object_error(q, messages.NO_SUCH_QUEUE))
            else:
                names.append(q)
        if not names:
            return
    try:
        names = ops.queues_for(c.cluster, names, user, host)
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    # -alloc: slot counts instead of task counts; a task holds one slot in lsfemu, so the
    # counts are the same (docs/semantics.md).
    views = ops.queue_views(c.cluster, names)
    if parsed is not None:
        c.out.append(RQ.json_out(views, parsed) if json_ else RQ.custom(views, parsed, header=not noheader))
    elif long or recursive:
        c.out.append(RQ.long(views, extra_sections=queue_sections(c, recursive)))
    else:
        c.out.append(RQ.table(views, wide=wide, header=not noheader))


def queue_sections(c: Ctx, recursive: bool = False) -> dict[str, str]:
    """The scheduling sections of bqueues -l: the APS_PRIORITY table, then
    USER_SHARES and SHARE_INFO_FOR (the top level; every level with -r)."""
    cl = c.cluster
    out = {name: aps_table(cfg) for name, cfg in cl.aps_cfg.items()}
    live = cl.fairshare()
    for q in cl.config.queues:
        if not q.fairshare:
            continue
        state = live.state(q.name)
        levels = state.tree.levels() if recursive else [()]
        blocks = [share_info_block("/".join((q.name,) + tuple(level)) + "/", state.share_info(level)) for level in levels]
        text = fairshare_section(parse_user_shares(q.fairshare), blocks)
        out[q.name] = (out[q.name] + "\n" if q.name in out else "") + text
    return out


def bparams(all_: bool = False, long: bool = False) -> None:
    c = ctx()
    cl = c.cluster
    if all_:  # -a: every parameter in force, badmin showconf's layout (docs/semantics.md)
        c.out.append(showconf(f"lsb.params configuration at {ctime(cl.now())}", ops.params_in_force(cl.config)))
        return
    pv = ops.params_view(cl.config)
    c.out.append(RP.long(pv) if long else RP.short(pv))


def bhosts(
    wide: bool = False,
    long: bool = False,
    fmt: Optional[str] = None,
    json_: bool = False,
    noheader: bool = False,
    alloc: bool = False,
    res_req: Optional[str] = None,
    shared: bool = False,
    uncondensed: bool = False,
    exceptions: bool = False,
    all_: bool = False,
    hosts: Optional[list[str]] = None,
) -> None:
    # -a: every host, those a resource connector relinquished too; lsfemu has no resource connector, so the
    # hosts listed without -a are all of them (docs/semantics.md)
    c = ctx()
    if shared:
        _bhosts_shared(c, hosts, noheader, wide or long or fmt is not None or json_ or res_req is not None
                       or uncondensed or exceptions or alloc)
        return
    custom = custom_format(c, fmt, "LSB_BHOSTS_FORMAT", RH.parse_format, wide or long, json_, noheader)
    if custom is None:
        return
    parsed, json_ = custom
    # -alloc: slot counts instead of task counts; the same in lsfemu (a task holds one slot)
    cfg = c.cluster.config
    wanted, groups, unknown = condense.expand(cfg, hosts, uncondensed or long or parsed is not None)
    # every host's full status (the table shortens it): a condensed row counts its members' states
    views = ops.host_views(c.cluster, wanted, True)[1] if wanted is None or wanted else []
    for h in unknown:
        c.error(messages.object_error(h, messages.BAD_HOST))
    if hosts and not views:
        return
    if res_req is not None:  # -R: the hosts whose resources and load satisfy it (mbatchd's checkResReq)
        try:
            chosen = {v.name for v in host_ops.load_views(c.cluster, [v.name for v in views], res_req, c.local_host)}
        except LsfError as e:  # mbatchd's errors: any requirement it cannot read is LSBE_BAD_RESREQ
            c.error(messages.NOT_ENOUGH_HOSTS if e.reason == messages.NOT_ENOUGH_HOSTS else messages.BAD_RESREQ)
            return
        views = [v for v in views if v.name in chosen]
    if exceptions:  # -x: the hosts past their job exit rate threshold (ops/hostexcept.py)
        past = set(hostexcept.exceptional(c.cluster))
        views = [v for v in views if v.name in past]
        if not views:
            c.error(messages.NO_EXCEPTIONAL_HOST)
            return
    views = condense.condense(cfg, views, groups, hosts, wide)
    if long:
        loads = {v.name: v for v in host_ops.load_views(c.cluster, [v.name for v in views])}
        shared = host_ops.shared_views(c.cluster, None, host_based=False) if cfg.resource_map else []
        c.out.append(RH.long(((v, loads[v.name], None if v.max_slots is None else max(0, v.max_slots - v.njobs))
                              for v in views), shared))
        return
    if parsed is not None:
        loads = {}
        if any(f.name in RH.LOAD_FIELDS for f in parsed.fields):
            loads = {v.name: v for v in host_ops.load_views(c.cluster, [v.name for v in views])}
        c.out.append(RH.json_out(views, parsed, loads) if json_ else RH.custom(views, parsed, loads,
                                                                               header=not noheader))
        return
    c.out.append(RH.table(views, wide=wide, header=not noheader))


def _bhosts_shared(c: Ctx, names: Optional[list[str]], noheader: bool, other_form: bool) -> None:
    """bhosts -s [resource_name ...]: the shared numeric resources, TOTAL and
    RESERVED per instance (OpenLava bhosts.c: -s with -l, -w or -R is the
    usage, and so are the host forms' -X, -x and -alloc (LSF 10.1's -s synopsis has none of them);
    mbatchd's errors printed by lsb_perror)."""
    if other_form:
        raise UsageExit()
    try:
        views = host_ops.shared_views(c.cluster, names, host_based=False)
    except LsfError as e:
        if e.reason == messages.UNKNOWN_RESNAME:
            c.error(messages.BAD_RESOURCE_NAME)
        else:
            c.error(messages.object_error("lsb_sharedresourceinfo", messages.NO_RESOURCE_DEFINED))
        return
    text = RS.bhosts_shared(views)
    c.out.append(text.split("\n", 1)[1] if noheader else text)


def busers(
    wide: bool = False,
    alloc: bool = False,
    fmt: Optional[str] = None,
    json_: bool = False,
    names: Optional[list[str]] = None,
) -> None:
    c = ctx()
    custom = custom_format(c, fmt, "LSB_BUSERS_FORMAT", RU.parse_format, wide, json_, False)
    if custom is None:
        return
    parsed, json_ = custom
    try:
        views = ops.user_views(c.cluster, c.user, names)
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    if alloc:  # slot counters: pending jobs hold no slot (LSF: "PEND ... with -alloc, the total is 0")
        views = [RU.allocated(v) for v in views]
    if parsed is not None:
        c.out.append(RU.json_out(views, parsed) if json_ else RU.custom(views, parsed))
        return
    c.out.append(RU.table(views, wide=wide))


def lsid() -> None:
    c = ctx()
    cfg = c.cluster.config
    c.out.append(RL.banner(cfg.cluster_name, c.cluster.master_name or cfg.master_host))


def run_bqueues(c: Ctx) -> Result:
    return run_command(c, bqueues)


def run_bparams(c: Ctx) -> Result:
    return run_command(c, bparams)


def run_bhosts(c: Ctx) -> Result:
    return run_command(c, bhosts)


def run_busers(c: Ctx) -> Result:
    return run_command(c, busers)


def run_lsid(c: Ctx) -> Result:
    return run_command(c, lsid)
