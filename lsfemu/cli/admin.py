"""badmin (configuration checks, reconfiguration, restart, queue and host
control, showconf; the operations are `ops.admin`'s) and the daemon-side
`lsfemu` subcommands (clock, explain, host, daemon status and stop).

badmin never prompts (there is no terminal behind the daemon): it prints the
detailed messages that LSF would offer to show, as `badmin -v` does.
"""

from __future__ import annotations

import os
import time

from lsfemu import options
from lsfemu.cli import watch
from lsfemu.cli.base import Ctx, Result, parse_job_ids, parse_subcommand
from lsfemu.errors import LsfError
from lsfemu.ops import admin as ops
from lsfemu.ops import history, mbdinfo, showconf
from lsfemu.ops import clock as ops_clock
from lsfemu.ops import explain as ops_explain
from lsfemu.render.aps import explain_aps, explain_aps_not_pending
from lsfemu.render.explain_pending import explain_pending
from lsfemu.render.fairshare import explain_priority
from lsfemu.render import admin as RA
from lsfemu.render import messages, timefmt

def badmin(c: Ctx) -> Result:
    parsed = parse_subcommand("badmin", options.BADMIN, list(c.argv))
    if isinstance(parsed, Result):
        return parsed
    sub, opts, args = parsed
    if opts is None:
        if sub == "rc":
            return Result("", messages.RC_NOT_ENABLED + "\n", 255)
        if sub in options.BADMIN_UNBUILT:
            return Result("", f"badmin: subcommand {sub} is not supported by lsfemu yet\n", 255)
        return Result("", f"Invalid command <{sub}> \n" + messages.usage("badmin"), 255)
    if args and sub in ("ckconfig", "reconfig", "mbdrestart"):
        return Result("", messages.usage("badmin"), 255)
    comment = opts.get("comment") or ""
    cl = c.cluster
    if sub == "ckconfig":
        text, fatal = ops.check_config(cl.envdir, cl.now())
        return Result("", text, 255 if fatal else 0)
    if sub == "showconf":
        if args not in (["mbd"], ["mbd", "all"]):
            return Result("", "badmin: showconf: only 'mbd' is supported\n" + messages.usage("badmin"), 255)
        return Result(RA.showconf(f"MBD configuration at {timefmt.ctime(cl.now())}", showconf.mbd_conf(cl)), "", 0)
    if sub == "showstatus":
        if args:
            return Result("", messages.usage("badmin"), 255)
        return Result(RA.showstatus(mbdinfo.mbd_status(cl, os.getpid())), "", 0)
    if sub in mbdinfo.HIST_KINDS:
        return _hist(c, sub, opts, args)
    if sub == "perfmon":
        return _perfmon(c, opts, args)
    if not c.allows("administer_cluster"):
        return Result("", messages.PERM_DENIED + "\n", 255)
    if sub in ("reconfig", "mbdrestart"):
        text, fatal = ops.check_config(cl.envdir, cl.now())
        if fatal:
            return Result("", text + messages.RECONFIG_REFUSED + "\n", 255)
        if sub == "reconfig":
            cl.reconfig()
            return Result(messages.RECONFIG_DONE + "\n", text, 0)
        if c.daemon is not None:
            c.daemon.stop_after_reply(restart=True)
        else:
            cl.reconfig()
            cl.reload_jobs()
        return Result(messages.RESTART_DONE + "\n", text, 0)
    if sub in ("qopen", "qclose", "qact", "qinact"):
        return _queue_ctrl(c, sub, args, comment)
    if sub in ("hopen", "hclose"):
        return _host_ctrl(c, sub, args, comment)
    return Result("", f"badmin: unknown subcommand <{sub}>\n" + messages.usage("badmin"), 255)


def _hist(c: Ctx, sub: str, opts: dict, names: list[str]) -> Result:
    """badmin hist, mbdhist, qhist, hhist [-t time0,time1] [-f logfile]: the
    daemon records of lsb.events (OpenLava cmd.hist.c)."""
    if names and sub in ("hist", "mbdhist"):
        return Result("", messages.usage("badmin"), 255)
    window = None
    if opts.get("window") is not None:
        try:
            window = history.parse_window(opts["window"], c.cluster.now())
        except history.BadTime:
            return Result("", messages.object_error(opts["window"], messages.BAD_TIME) + "\n", 255)
    path = opts.get("logfile")
    if path is not None:
        path = path if os.path.isabs(path) else os.path.join(c.cwd, path)
        if not os.path.isfile(path):  # OpenLava: perror(file name)
            return Result("", f"{opts['logfile']}: No such file or directory\n", 255)
    records = mbdinfo.daemon_history(c.cluster, sub, names, window, path)
    if not records:
        return Result("", "No matching event found\n", 0)
    return Result(RA.hist(records), "", 0)


def _perfmon(c: Ctx, opts: dict, args: list[str]) -> Result:
    """badmin perfmon start [sample_period] | stop | setperiod sample_period |
    view [-json]: the daemon's counters (engine/perfmon.py)."""
    action = args[0] if args else None
    ok = (action == "view" and len(args) == 1) or (action == "stop" and len(args) == 1 and not opts["json_"]) \
        or (action == "start" and len(args) <= 2 and not opts["json_"]) \
        or (action == "setperiod" and len(args) == 2 and not opts["json_"])
    if not ok:
        return Result("", messages.usage("badmin"), 255)
    try:
        if action == "view":
            view = mbdinfo.perfmon_view(c.cluster)
            return Result(RA.perfmon_json(view) if opts["json_"] else RA.perfmon(view), "", 0)
        mbdinfo.perfmon_control(c.cluster, c.caller, action, args[1] if len(args) > 1 else None)
    except LsfError as e:
        # before the first period ends, LSF answers view with a text on stdout (clients read it there)
        if e.reason in (messages.PERFMON_NO_DATA, messages.PERFMON_NOT_STARTED) and action == "view":
            return Result(e.reason + "\n", "", 0)
        return Result("", messages.error_text(e) + "\n", 255)
    done = {"start": messages.PERFMON_STARTED, "stop": messages.PERFMON_STOPPED, "setperiod": messages.PERFMON_STARTED}
    return Result(done[action] + "\n", "", 0)


def _queue_ctrl(c: Ctx, sub: str, names: list[str], comment: str) -> Result:
    try:
        done = ops.control_queues(c.cluster, c.caller, sub, names, comment)
    except LsfError as e:
        return Result("", messages.error_text(e) + "\n", 255)
    out = "".join(messages.queue_done(n, ops.QUEUE_ACTIONS[sub]) + "\n" for n, why in done if why is None)
    err = "".join(messages.object_error(n, why) + "\n" for n, why in done if why is not None)
    return Result(out, err, 255 if err else 0)


def _host_ctrl(c: Ctx, sub: str, names: list[str], comment: str) -> Result:
    done = ops.control_hosts(c.cluster, c.caller, sub == "hopen", names, c.local_host, comment)
    err = "".join((messages.object_error(n, why) if why is not None else messages.host_done(n, sub == "hopen")) + "\n"
                  for n, why in done)
    return Result("", err, 255 if any(why is not None for _, why in done) else 0)


def _explain(c: Ctx, args: list[str]) -> Result:
    """`lsfemu explain aps JOBID` (and `priority USER [-q QUEUE]`): the numbers behind the scheduler."""
    if len(args) == 2 and args[0] == "aps":
        ids, bad = parse_job_ids(args[1:])
        if bad or not ids:
            return Result("", messages.object_error(args[1], messages.ILLEGAL_JOB_ID) + "\n", 255)
        typed = ids[0][2]
        try:
            e = ops_explain.aps(c.cluster, ids[0])
        except LsfError as err:
            return Result("", messages.error_text(err) + "\n", 255)
        job = e.job
        if e.not_pending:
            text = explain_aps_not_pending(job.status, job_id=typed, queue=job.queue, aps_queue=e.aps_queue,
                                           aps_text=e.aps_text)
        else:
            text = explain_aps(e.result, job_id=typed, queue=job.queue, aps_queue=e.aps_queue, aps_text=e.aps_text)
        return Result(text, "", 0)
    if args[:1] == ["priority"]:
        return _explain_priority(c, args[1:])
    if len(args) == 2 and args[0] == "pending":
        return _explain_pending(c, args[1])
    return Result("", "Usage: lsfemu explain aps JOBID | pending JOBID | priority USER [-q QUEUE]\n", 255)


def _explain_pending(c: Ctx, arg: str) -> Result:
    """`lsfemu explain pending JOBID`: why the job is not running, host by host."""
    ids, bad = parse_job_ids([arg])
    if bad or not ids:
        return Result("", messages.object_error(arg, messages.ILLEGAL_JOB_ID) + "\n", 255)
    try:
        e = ops_explain.pending(c.cluster, ids[0])
    except LsfError as err:
        return Result("", messages.error_text(err) + "\n", 255)
    text = explain_pending(job_id=ids[0][2], queue=e.job.queue, slots=e.job.num_processors, reasons=e.reasons,
                           blocked=e.blocked, requirement=e.requirement, hosts=e.hosts, reads=e.reads,
                           values=e.values)
    return Result(text, "", 0)


def _explain_priority(c: Ctx, args: list[str]) -> Result:
    """`lsfemu explain priority USER [-q QUEUE]`: the dynamic priority formula, term by term."""
    queue = None
    if len(args) == 3 and args[1] == "-q":
        queue = args[2]
    elif len(args) != 1:
        return Result("", "Usage: lsfemu explain priority USER [-q QUEUE]\n", 255)
    try:
        found = ops_explain.priority(c.cluster, args[0], queue)
    except LsfError as e:
        return Result("", messages.error_text(e) + "\n", 255)
    return Result("\n".join(explain_priority(terms, sources, qname) for terms, sources, qname in found), "", 0)


def _host_failure(c: Ctx, args: list[str]) -> Result:
    """`lsfemu host fail|recover HOST`: simulate a host failure (administrators)."""
    if len(args) != 2 or args[0] not in ("fail", "recover"):
        return Result("", "Usage: lsfemu host fail|recover HOST\n", 255)
    host = args[1]
    try:
        hit = ops.fail_host(c.cluster, c.caller, host, recover=args[0] == "recover")
    except LsfError as e:
        return Result("", messages.error_text(e) + "\n", 255)
    if args[0] == "fail":
        lines = [f"Host <{host}> failed"] + [
            f"Job <{j.id}> {'will rerun' if j.status == 'PEND' else 'is UNKWN until the host recovers'}" for j in hit]
    else:
        lines = [f"Host <{host}> recovered"] + [f"Job <{j.id}> was lost with the host: EXIT" for j in hit]
    return Result("\n".join(lines) + "\n", "", 0)


def _clock(c: Ctx, args: list[str]) -> Result:
    """`lsfemu clock [show] | set TIME | advance DURATION`."""
    cl = c.cluster
    sub = args[0] if args else "show"
    if sub == "show" and len(args) <= 1:
        now = cl.now()
        return Result(f"{cl.clock.mode} clock: {timefmt.ctime(now)} ({now:.0f})\n", "", 0)
    if sub in ("set", "advance") and len(args) == 2:
        try:
            moved = ops_clock.move(cl, sub, args[1])
        except LsfError as e:
            return Result("", messages.error_text(e) + "\n", 255)
        return Result(messages.clock_moved(moved.now, moved.passes, moved.finished) + "\n", "", 0)
    return Result("", "Usage: lsfemu clock show | set TIME | advance DURATION\n", 255)


def _daemon(c: Ctx, args: list[str]) -> Result:
    """`lsfemu daemon status|stop [--kill-jobs]` (the daemon's side)."""
    cl = c.cluster
    if args[:1] == ["status"]:
        d = c.daemon
        lines = [
            f"daemon: running, pid {os.getpid()}" + (f", up {time.time() - d.started_at:.0f} s" if d else " (in-process)"),
            *([f"role: master of the shared cluster on host {cl.master_name}"] if cl.master_name else []),
            f"LSF_ENVDIR: {cl.envdir}",
            f"LSFEMU_HOME: {cl.home}",
            f"store: {cl.engine.url.render_as_string(hide_password=True)}",
            f"clock: {cl.clock.mode}, now {timefmt.ctime(cl.now())}",
            ("jobs: real processes on this machine (wall clock; with LSFEMU_CLOCK=virtual they are simulated), "
             f"{len(cl.runner.active)} running" if cl.clock.mode == "wall" else
             "jobs: simulated (run time from 'sleep N', LSFEMU_RUNTIME, LSFEMU_CPUTIME); virtual time"),
            f"jobs in memory: {len(cl.jobs)}",
        ]
        return Result("\n".join(lines) + "\n", "", 0)
    if args[:1] == ["stop"]:
        if c.daemon is None:
            return Result("", "lsfemu: no daemon in this process (in-process mode)\n", 255)
        killed = ""
        if "--kill-jobs" in args[1:]:  # else running jobs keep running and are collected by the next daemon
            if not c.allows("administer_cluster"):
                return Result("", messages.PERM_DENIED + "\n", 255)
            killed = f"{cl.kill_real_jobs(c.user)} running job(s) killed\n"
        c.daemon.stop_after_reply()
        return Result(killed + "daemon stopping\n", "", 0)
    return _usage()


def _usage() -> Result:
    return Result("", "Usage: lsfemu init DIR | demo | clock show|set|advance | daemon start|stop|status|restart\n", 255)

#: the `lsfemu` subcommands the daemon carries out (the thin client sends
#: lsfemu.client.DAEMON_SUBCOMMANDS here; `lsfemu daemon status|stop` come from lsfemu.command)
REMOTE = {"clock": _clock, "explain": _explain, "host": _host_failure, "daemon": _daemon}
#: requests of lsfemu's own clients, not subcommands people type: a waiting bsub's looks
#: (lsfemu.bsubwait -> lsfemu/cli/watch.py)
INTERNAL = {"watch": watch.run}


def lsfemu_remote(c: Ctx) -> Result:
    """`lsfemu clock|explain|host ...` and `lsfemu daemon status|stop`, run inside the daemon."""
    run = (REMOTE.get(c.argv[0]) or INTERNAL.get(c.argv[0])) if c.argv else None
    return run(c, c.argv[1:]) if run is not None else _usage()
