"""bsub's command function (its options: lsfemu.options): the command comes from the arguments, or, when
there are none, from the script on stdin, whose `#BSUB` lines carry options
(command-line options win); `ops.submit` checks and stores it; the answer is
`Job <N> is submitted to [default ]queue <q>.` or `... Job not submitted.`.
"""

from __future__ import annotations

import shlex
from typing import Optional


from lsfemu import options
from lsfemu.cli import bsubpack
from lsfemu.cli.base import Ctx, Result, UsageExit, ctx, run_command
from lsfemu.errors import NotSubmitted
from lsfemu.ops import submit as ops
from lsfemu.render import messages as M
from lsfemu.render.command import join_words, script_command


def parse_script(text: str) -> tuple[list[str], str]:
    """`#BSUB` option lines and the script body of a job script on stdin."""
    opts: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#BSUB"):
            try:
                opts.extend(shlex.split(s[5:], comments=True))
            except ValueError:
                raise NotSubmitted(M.BAD_ARG, s) from None
    return opts, text


def bsub(
    queue: Optional[str] = None,
    nproc: Optional[str] = None,
    job_name: Optional[str] = None,
    out: Optional[str] = None,
    out_over: Optional[str] = None,
    err: Optional[str] = None,
    err_over: Optional[str] = None,
    runlimit: Optional[str] = None,
    sp: Optional[str] = None,
    res_req: Optional[list[str]] = None,
    project: Optional[str] = None,
    group: Optional[str] = None,
    cwd: Optional[str] = None,
    rerun: bool = False,
    gpu: Optional[str] = None,
    depend_cond: Optional[str] = None,
    mem_limit: Optional[str] = None,
    job_group: Optional[str] = None,
    description: Optional[str] = None,
    hold: bool = False,
    begin: Optional[str] = None,
    term: Optional[str] = None,
    rerun_never: bool = False,
    pack_file: Optional[str] = None,
    block: bool = False,
    interactive: bool = False,
    interactive_pty: bool = False,
    interactive_shell: bool = False,
    env_spec: Optional[str] = None,
    outdir: Optional[str] = None,
    login_shell: Optional[str] = None,
    input_file: Optional[str] = None,
    input_spool: Optional[str] = None,
    app: Optional[str] = None,
    exclusive: bool = False,
    asked_hosts: Optional[str] = None,
    host_file: Optional[str] = None,
    pre_exec: Optional[str] = None,
    post_exec: Optional[str] = None,
    notify_begin: bool = False,
    notify_end: bool = False,
    notify_exit: bool = False,
    mail_user: Optional[str] = None,
    est_runtime: Optional[str] = None,
    cpulimit: Optional[str] = None,
    pend_limit: Optional[str] = None,
    epend_limit: Optional[str] = None,
    command: Optional[list[str]] = None,
) -> None:
    c = ctx()
    if pack_file is not None:
        bsubpack.submit_pack(c, pack_file, bsub)
        return
    if any(v is not None and not v.strip() for v in (pre_exec, post_exec)):
        raise UsageExit()  # an empty -E/-Ep command: LSB_BAD_BSUBARGS, the usage
    opts = dict(queue=queue, nproc=nproc, job_name=job_name, out=out, out_over=out_over, err=err,
                err_over=err_over, runlimit=runlimit, sp=sp, res_req=res_req or [], project=project,
                group=group, cwd=cwd, rerun=rerun or None, gpu=gpu, depend=depend_cond, mem_limit=mem_limit,
                job_group=job_group, app=app,
                description=description, hold=hold or None, begin=begin, term=term,
                rerun_never=rerun_never or None,
                block=block or None, interactive=interactive or None, interactive_pty=interactive_pty or None,
                interactive_shell=interactive_shell or None,
                env_spec=env_spec, outdir=outdir, login_shell=login_shell,
                input_file=input_file, input_spool=input_spool, exclusive=exclusive or None,
                asked_hosts=asked_hosts, host_file=host_file,
                pre_exec=pre_exec, post_exec=post_exec,
                notify_begin=notify_begin or None, notify_end=notify_end or None,
                notify_exit=notify_exit or None, mail_user=mail_user, est_runtime=est_runtime,
                cpulimit=cpulimit, pend_limit=pend_limit, epend_limit=epend_limit)
    try:
        script = None
        if command and not _parse_job_script(c, command):
            cmdline = command_line(c.cluster.config.lsf_conf, command)
        else:
            script = c.stdin
            if script is None or not script.strip():
                raise NotSubmitted(M.EMPTY_JOB)
            script_opts, script = parse_script(script)
            cmdline = script
            if not any(l.strip() and not l.strip().startswith("#") for l in cmdline.splitlines()):
                raise NotSubmitted(M.EMPTY_JOB)  # only comments and #BSUB lines
            _merge_script_options(opts, script_opts)
            cmdline = script_command(cmdline)
        mode = _waiting_mode(opts)
        job = ops.submit(c.cluster, c.caller, ops.SubmitRequest(
            cmdline, submit_dir=c.cwd, env=c.env, from_host=c.local_host, script=script, interactive=mode,
            **opts))
    except NotSubmitted as e:
        c.error(M.error_text(e))
        return
    c.print(M.submitted(job.id, job.queue, default_queue=job.default_queue_used))
    for line in M.submit_times(job.begin_time, job.term_time):  # after the submission line, on stderr (lsb.sub.c)
        c.error(line, rc=0)
    if mode is not None and "BSUB_QUIET" not in c.env:
        # the thin client waits now (lsfemu.bsubwait), as LSF's bsub hands over to nios
        c.err.append(M.WAITING_FOR_DISPATCH)


def _waiting_mode(opts: dict) -> str | None:
    """-K, -I, -Ip or -Is (taken out of opts); more than one of them is LSF's
    bad argument combination (lsb.sub.c: the usage, nothing submitted)."""
    given = [mode for key, mode in options.BSUB_WAITING if opts.pop(key, None)]
    if len(given) > 1:
        raise UsageExit()
    if given and given[0] in ("Ip", "Is") and not ctx().tty:
        return "I"  # lsb.sub.c: no terminal on either side, no pty
    return given[0] if given else None


def command_line(lsf_conf: dict, words: list[str]) -> str:
    """The command of `bsub [options] words...`: the words joined and re-quoted
    as LSF's bsub does (lsfemu.render.command), with lsf.conf's
    LSB_API_QUOTE_CMD (quote the first word too) and LSB_32_PAREN_ESC
    (leave parentheses bare)."""
    quote_first = lsf_conf.get("LSB_API_QUOTE_CMD", "").strip().lower() in ("y", "yes")
    return join_words(words, quote_first=quote_first, paren_escape="LSB_32_PAREN_ESC" not in lsf_conf)


def _parse_job_script(c: Ctx, command: list[str]) -> bool:
    """`bsub [options] job_script` with LSB_BSUB_PARSE_SCRIPT=Y (lsf.conf): the
    file's `#BSUB` lines are options and its contents run as the job, as with
    `bsub < job_script`. The client sends the contents of a one-word command
    that names a text file (lsfemu.client._job_script); without the parameter
    the file runs as a command."""
    if len(command) != 1 or c.stdin is None:
        return False
    return c.cluster.config.lsf_conf.get("LSB_BSUB_PARSE_SCRIPT", "N").strip().upper() in ("Y", "YES")


def _merge_script_options(opts: dict, script_opts: list[str]) -> None:
    """Fill options the command line did not give from `#BSUB` lines (read
    with bsub's grammar: an option lsfemu has not built is refused by name)."""
    g = options.grammar("bsub")
    try:
        parsed, rest = options.parse(g, script_opts)
    except options.OptionError as e:
        raise NotSubmitted(M.option_error("bsub", e.kind, e.flag).rstrip("\n")) from None
    except (options.HelpAsked, options.VersionAsked):
        raise NotSubmitted(M.BAD_ARG, "#BSUB") from None
    if rest:
        raise NotSubmitted(M.BAD_ARG, f"#BSUB {rest[0]}")
    for k, v in parsed.items():
        key = "depend" if k == "depend_cond" else k
        if key == "command" or v is None or v is False:
            continue
        if key == "pack_file":  # -pack is a form of the command line, not a job's option
            raise NotSubmitted(M.BAD_ARG, "#BSUB -pack")
        if key == "res_req":
            if not opts["res_req"]:
                opts["res_req"] = v
        elif opts.get(key) is None:
            opts[key] = v


def run(c: Ctx) -> Result:
    return run_command(c, bsub)

