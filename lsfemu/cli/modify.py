"""bmod, btop, bbot, brequeue: their signatures; argv -> `ops.bmod` (bmod),
`ops.modify` (btop, bbot), `ops.control.requeue` (brequeue) -> LSF's lines.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Optional


from lsfemu.cli.base import Ctx, Result, UsageExit, bad_id_message, ctx, parse_job_refs, run_command
from lsfemu.cli.control import answer, selection
from lsfemu.errors import LsfError
from lsfemu.ops import bmod as ops_bmod
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
    cwd: Optional[str] = None,
    cwd_n: bool = False,
    err: Optional[str] = None,
    err_over: Optional[str] = None,
    err_n: bool = False,
    group: Optional[str] = None,
    group_n: bool = False,
    job_name: Optional[str] = None,
    job_name_n: bool = False,
    mem_limit: Optional[str] = None,
    mem_limit_n: bool = False,
    nproc: Optional[str] = None,
    nproc_n: bool = False,
    out: Optional[str] = None,
    out_over: Optional[str] = None,
    out_n: bool = False,
    project: Optional[str] = None,
    project_n: bool = False,
    queue: Optional[str] = None,
    queue_n: bool = False,
    res_req: Optional[list[str]] = None,
    res_req_n: bool = False,
    rerun: bool = False,
    rerun_n: bool = False,
    runlimit: Optional[str] = None,
    runlimit_n: bool = False,
    depend_cond: Optional[str] = None,
    depend_n: bool = False,
    command: Optional[str] = None,
    description: Optional[str] = None,
    description_n: bool = False,
    begin: Optional[str] = None,
    begin_n: bool = False,
    term: Optional[str] = None,
    term_n: bool = False,
    login_shell: Optional[str] = None,
    login_shell_n: bool = False,
    input_file: Optional[str] = None,
    input_file_n: bool = False,
    outdir: Optional[str] = None,
    outdir_n: bool = False,
    mail_user: Optional[str] = None,
    mail_user_n: bool = False,
    notify_begin: bool = False,
    notify_begin_n: bool = False,
    notify_end: bool = False,
    notify_exit: bool = False,
    notify_end_n: bool = False,
    exclusive: bool = False,
    exclusive_n: bool = False,
    hosts: Optional[str] = None,
    hosts_n: bool = False,
    host_file: Optional[str] = None,
    host_file_n: bool = False,
    pre_exec: Optional[str] = None,
    pre_exec_n: bool = False,
    post_exec: Optional[str] = None,
    post_exec_n: bool = False,
    estimate: Optional[str] = None,
    estimate_n: bool = False,
    cpulimit: Optional[str] = None,
    cpulimit_n: bool = False,
    pend_limit: Optional[str] = None,
    pend_limit_n: bool = False,
    epend_limit: Optional[str] = None,
    epend_limit_n: bool = False,
    sp: Optional[str] = None,
    spn: bool = False,
    aps: Optional[str] = None,
    apsn: bool = False,
    job_group: Optional[str] = None,
    job_group_n: bool = False,
    app: Optional[str] = None,
    app_n: bool = False,
    args: Optional[list[str]] = None,
) -> None:
    c = ctx()
    req = ops_bmod.ModifyRequest(
        None, submit_dir=c.cwd, queue=queue, queue_n=queue_n, nproc=nproc, nproc_n=nproc_n,
        res_req=tuple(res_req) if res_req else None, res_req_n=res_req_n, runlimit=runlimit,
        runlimit_n=runlimit_n, job_name=job_name, job_name_n=job_name_n, out=out, out_over=out_over, out_n=out_n,
        err=err, err_over=err_over, err_n=err_n, project=project, project_n=project_n, mem_limit=mem_limit,
        mem_limit_n=mem_limit_n, depend=depend_cond, depend_n=depend_n, group=group, group_n=group_n,
        command=command, rerun=rerun, rerun_n=rerun_n, cwd=cwd, cwd_n=cwd_n, description=description,
        description_n=description_n, begin=begin, begin_n=begin_n, term=term, term_n=term_n,
        login_shell=login_shell, login_shell_n=login_shell_n, input_file=input_file, input_file_n=input_file_n,
        outdir=outdir, outdir_n=outdir_n, mail_user=mail_user, mail_user_n=mail_user_n,
        notify_begin=notify_begin, notify_begin_n=notify_begin_n, notify_end=notify_end, notify_exit=notify_exit,
        notify_end_n=notify_end_n, exclusive=exclusive, exclusive_n=exclusive_n, hosts=hosts, hosts_n=hosts_n,
        host_file=host_file, host_file_n=host_file_n,
        pre_exec=pre_exec, pre_exec_n=pre_exec_n, post_exec=post_exec, post_exec_n=post_exec_n,
        estimate=estimate, estimate_n=estimate_n, cpulimit=cpulimit, cpulimit_n=cpulimit_n,
        pend_limit=pend_limit, pend_limit_n=pend_limit_n, epend_limit=epend_limit, epend_limit_n=epend_limit_n, sp=sp, spn=spn, aps=aps, apsn=apsn,
        job_group=job_group, job_group_n=job_group_n, app=app, app_n=app_n)
    if not req.given():
        raise UsageExit()
    if (sp is not None and spn) or (aps is not None and apsn):
        raise UsageExit(messages.BMOD_EXCLUSIVE)
    ref = _job_ref(c, args)
    if ref is None:
        return
    try:
        times = ops_bmod.modify(c.cluster, c.caller, dataclasses.replace(req, ref=ref))
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    c.print(messages.being_changed(ref[2]))
    for line in messages.submit_times(*times):  # -b / -t: bmod says them as bsub does (prtBETime_)
        c.err.append(line + "\n")


def _move(c: Ctx, args: list[str] | None, to_top: bool, owner_list: bool = False) -> None:
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
        moved = ops.move(c.cluster, c.caller, ids[0], position, to_top, owner_list)
    except LsfError as e:
        c.error(messages.error_text(e))
        return
    if moved.beyond:
        c.err.append(messages.beyond_movable(position) + "\n")
    # LSF (as OpenLava's code) writes this line to stderr.
    c.err.append(messages.moved(ids[0][2], moved.position, top=to_top) + "\n")


def btop(owner_list: bool = False, args: Optional[list[str]] = None) -> None:
    _move(ctx(), args, True, owner_list)


def bbot(owner_list: bool = False, args: Optional[list[str]] = None) -> None:
    _move(ctx(), args, False, owner_list)


def brequeue(
    done: bool = False,
    exited: bool = False,
    running: bool = False,
    all_: bool = False,
    hold: bool = False,
    user: Optional[str] = None,
    name: Optional[str] = None,
    job_ids: Optional[list[str]] = None,
) -> None:
    c = ctx()
    if not job_ids and name is None:
        raise UsageExit(messages.NEED_JOB_ID)
    states = set()
    for flag, on in (("-d", done), ("-e", exited), ("-r", running)):
        if on or all_:
            states |= ops_control.REQUEUE_STATES[flag]
    sel = selection(job_ids, user, name=name)
    answer(c, lambda: ops_control.requeue(c.cluster, c.caller, sel, states, hold))


def run_bmod(c: Ctx) -> Result:
    return run_command(c, bmod)


def run_btop(c: Ctx) -> Result:
    return run_command(c, btop)


def run_bbot(c: Ctx) -> Result:
    return run_command(c, bbot)


def run_brequeue(c: Ctx) -> Result:
    return run_command(c, brequeue)
