"""The `lsfemu` command: its subcommands, every one declared here (typer), so
that `lsfemu --help` and `lsfemu SUB --help` show them all.

`init`, `demo`, `replay` and `daemon ...` manage a cluster from outside and run
in the caller's process. `clock`, `explain` and `host` act on the cluster's
state: the thin client sends them to the daemon without importing this module
(lsfemu.client.DAEMON_SUBCOMMANDS; the daemon's side is lsfemu.cli.admin); their
declarations here give the help texts, and forward to the daemon when typer
runs them.

A tool on top of the others (as replay and demo are; not a command the daemon
serves, so not in cli/). The subcommands that need the store, the scheduler or
the daemon import them in their bodies: `lsfemu --help` and `lsfemu init` must
not pay for SQLAlchemy.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Optional

import typer

from lsfemu import client, lessons
from lsfemu.clock import parse_duration, parse_start, parse_time
from lsfemu.config.sample import CLUSTER, write_cluster
from lsfemu.lessons.script import init_lesson
from lsfemu.protocol import KeyFileError

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="lsfemu: an IBM Spectrum LSF emulator on one machine.")
daemon_app = typer.Typer(add_completion=False, no_args_is_help=True, help="Start, stop or inspect the daemon.")
app.add_typer(daemon_app, name="daemon")
clock_app = typer.Typer(add_completion=False, invoke_without_command=True,
                        help="Show or move the cluster's clock (moving it: LSFEMU_CLOCK=virtual).")
explain_app = typer.Typer(add_completion=False, no_args_is_help=True,
                          help="The numbers behind the scheduler, term by term.")
host_app = typer.Typer(add_completion=False, no_args_is_help=True,
                       help="Fail or recover a host on purpose (cluster administrators).")
app.add_typer(clock_app, name="clock")
app.add_typer(explain_app, name="explain")
app.add_typer(host_app, name="host")
lesson_app = typer.Typer(add_completion=False, no_args_is_help=True,
                         help="Lessons to teach with: a tour's cluster and steps as files.")
app.add_typer(lesson_app, name="lesson")
plot_app = typer.Typer(add_completion=False, no_args_is_help=True,
                       help="Pictures of the cluster's history (from its lsb.events): priorities, slots.")
app.add_typer(plot_app, name="plot")

@app.command()
def init(directory: str = typer.Argument(..., help="folder for lsf.conf and the lsb.* files"),
         clock: str = typer.Option("virtual", help="virtual (time moves with 'lsfemu clock') or wall"),
         force: bool = typer.Option(False, help="overwrite an existing configuration"),
         start: Optional[str] = typer.Option(None, "--start", metavar="TIME",
                                             help="virtual clock: the cluster's first instant, e.g. '2026-01-05 09:00' "
                                                  "(local time) or epoch seconds")) -> None:
    """Write a small working cluster: 2 queues, 3 hosts, 3 users and an admin."""
    if clock not in ("virtual", "wall"):
        typer.echo("lsfemu: --clock must be virtual or wall", err=True)
        raise typer.Exit(2)
    first = None
    if start is not None:
        if clock != "virtual":
            typer.echo("lsfemu: --start goes with --clock virtual (a wall clock is real time)", err=True)
            raise typer.Exit(2)
        try:
            first = parse_start(start)
        except ValueError as e:
            typer.echo(f"lsfemu: --start: {e}", err=True)
            raise typer.Exit(2)

    try:
        d = write_cluster(directory, clock=clock, force=force, start=first)
    except (OSError, FileExistsError, KeyFileError) as e:
        typer.echo(f"lsfemu: {e}", err=True)
        raise typer.Exit(1)
    typer.echo(f"Cluster <{CLUSTER}> written to {d} (clock: {clock}).\nNow run:\n    export LSF_ENVDIR={d}")


@app.command()
def demo(topic: str = typer.Argument("basics", help="basics, fairshare, priority, aps or history (--list)"),
         list_: bool = typer.Option(False, "--list", help="list the topics"),
         pause: Optional[bool] = typer.Option(None, "--pause/--no-pause",
                                              help="wait for Enter between steps (default: when stdout is a terminal)"),
         keep: bool = typer.Option(False, help="keep the temporary cluster folder"),
         dir_: Optional[str] = typer.Option(None, "--dir", metavar="DIR",
                                            help="play the tour in DIR (a new folder) and keep its cluster there")) -> None:
    """A guided tour on a fresh temporary cluster: the basics, or fairshare, job priority, APS, history."""
    if list_:
        for name in lessons.NAMES:
            typer.echo(f"{name:<10} {lessons.topic(name).summary}")
        return
    if topic not in lessons.NAMES:
        typer.echo(f"lsfemu demo: no topic <{topic}>; the topics: {', '.join(lessons.NAMES)}", err=True)
        raise typer.Exit(2)
    from lsfemu.lessons.tour import run_demo  # (heavy: see the module's docstring)

    if dir_ is not None and Path(dir_).exists() and any(Path(dir_).iterdir()):
        typer.echo(f"lsfemu demo: {dir_}: the folder is not empty; the tour needs a fresh cluster", err=True)
        raise typer.Exit(1)
    raise typer.Exit(run_demo(topic, keep=keep, pause=sys.stdout.isatty() if pause is None else pause, root=dir_))


@lesson_app.command("init")
def lesson_init(directory: str = typer.Argument(..., help="folder for the lesson (conf/, lesson.sh)"),
                topic: str = typer.Argument(..., help="basics, fairshare, priority, aps or history"),
                force: bool = typer.Option(False, help="overwrite an existing lesson")) -> None:
    """Write a topic's cluster and its steps (lesson.sh, a shell script) into DIRECTORY, to change and run again."""
    if topic not in lessons.NAMES:
        typer.echo(f"lsfemu lesson: no topic <{topic}>; the topics: {', '.join(lessons.NAMES)}", err=True)
        raise typer.Exit(2)
    try:
        d = init_lesson(directory, lessons.topic(topic), force=force)
    except (OSError, FileExistsError, KeyFileError) as e:
        typer.echo(f"lsfemu lesson: {e}", err=True)
        raise typer.Exit(1)
    typer.echo(f"Lesson <{topic}> written to {d}: the cluster in {d}/conf, the steps in {d}/lesson.sh.\n"
               f"Run it:\n    sh {d}/lesson.sh")


_FROM = typer.Option(None, "--from", metavar="TIME", help="from this instant (ISO 8601 or epoch seconds; default: the log's first)")
_TO = typer.Option(None, "--to", metavar="TIME", help="to this instant (default: the log's last)")
_SVG = typer.Option(None, "--svg", metavar="FILE", help="also draw the series as an SVG chart into FILE")
_PNG = typer.Option(None, "--png", metavar="FILE", help="refused: lsfemu draws SVG (docs/semantics.md, 'Plots')")


def _plot(make, svg: Optional[str], png: Optional[str]) -> None:
    """Make a plot (make(history) -> Plot), print its table, write its SVG."""
    from lsfemu import plot as pl  # (heavy: see the module's docstring)
    from lsfemu.render import plot as render

    if png is not None:
        typer.echo("lsfemu plot: --png is not supported: lsfemu draws SVG itself and installs no plotting library; "
                   "use --svg FILE (a browser shows it; rsvg-convert or inkscape make a PNG of it)", err=True)
        raise typer.Exit(2)
    if svg is not None and not Path(svg).absolute().parent.is_dir():
        typer.echo(f"lsfemu plot: {svg}: No such file or directory", err=True)
        raise typer.Exit(1)
    try:
        p = make(pl.History.from_env())
    except (pl.PlotError, ValueError) as e:
        typer.echo(f"lsfemu plot: {e}", err=True)
        raise typer.Exit(1)
    typer.echo(render.table(p), nl=False)
    if svg is not None:
        try:
            Path(svg).write_text(render.svg(p), encoding="utf-8")
        except OSError as e:
            typer.echo(f"lsfemu plot: {e}", err=True)
            raise typer.Exit(1)


def _window(h, start: Optional[str], end: Optional[str]) -> tuple[float, float]:
    t0 = parse_time(start, h.first) if start is not None else h.first
    t1 = parse_time(end, h.last) if end is not None else h.last
    if t1 <= t0:
        raise ValueError("--to must be after --from")
    return t0, t1


@plot_app.command("priority")
def plot_priority(queue: Optional[str] = typer.Option(None, "-q", metavar="QUEUE", help="the fairshare queue (default: the only one)"),
                  users: Optional[str] = typer.Option(None, "--users", metavar="USERS", help="these users only ('user1 user2' or user1,user2)"),
                  start: Optional[str] = _FROM, end: Optional[str] = _TO,
                  step: Optional[str] = typer.Option(None, "--step", metavar="DURATION", help="sample every DURATION (default: 60 samples)"),
                  svg: Optional[str] = _SVG, png: Optional[str] = _PNG) -> None:
    """Each user's dynamic fairshare priority over an interval of the cluster's history, with job starts and ends."""
    def make(h):
        q = h.fairshare_queue(queue)
        t0, t1 = _window(h, start, end)
        every = parse_duration(step) if step is not None else max(1.0, float(-(-(t1 - t0) // 60)))
        if every <= 0:
            raise ValueError(f"bad duration <{step}>: must be more than 0")
        return h.priority(q, users.replace(",", " ").split() if users else None, t0, t1, every)

    _plot(make, svg, png)


@plot_app.command("slots")
def plot_slots(by: str = typer.Option("user", "--by", metavar="user|queue", help="a series per user (default) or per queue"),
               start: Optional[str] = _FROM, end: Optional[str] = _TO,
               svg: Optional[str] = _SVG, png: Optional[str] = _PNG) -> None:
    """The job slots each user (or queue) held over an interval of the cluster's history."""
    def make(h):
        if by not in ("user", "queue"):
            raise ValueError(f"--by {by}: user or queue")
        return h.slots(by, *_window(h, start, end))

    _plot(make, svg, png)


@app.command()
def replay(files: list[str] = typer.Argument(..., help="lsb.events or lsb.acct files (or their folder), oldest first"),
           into: Optional[str] = typer.Option(None, "--into", help="folder for the replayed cluster"),
           what_if: Optional[str] = typer.Option(None, "--what-if", help="LSF_ENVDIR of another configuration to schedule the same jobs under"),
           conf: Optional[str] = typer.Option(None, "--conf", help="--into: the real cluster's LSF_ENVDIR, used instead of a configuration made from the log"),
           until: Optional[str] = typer.Option(None, "--until", help="replay up to this instant (epoch seconds or ISO 8601)"),
           bucket: Optional[str] = typer.Option(None, "--bucket", help="what-if: width of the slot-share intervals (e.g. 1h)"),
           json_out: Optional[str] = typer.Option(None, "--json", help="what-if: also write the report as JSON to this file"),
           html_out: Optional[str] = typer.Option(None, "--html", help="what-if: also write the report as one self-contained HTML page (tables, SVG charts)"),
           force: bool = typer.Option(False, help="replace an existing cluster in --into"),
           progress: Optional[bool] = typer.Option(None, "--progress/--no-progress", help="progress bar (default: when stderr is a terminal)")) -> None:
    """Load a real cluster's lsb.events into a fresh cluster (--into), or schedule its jobs (from lsb.events and/or lsb.acct) under another configuration (--what-if)."""
    from lsfemu import replay as rp  # (heavy: see the module's docstring)

    if (into is None) == (what_if is None):
        typer.echo("lsfemu replay: give exactly one of --into DIR and --what-if CONFDIR", err=True)
        raise typer.Exit(2)
    if (json_out is not None or html_out is not None or bucket is not None) and what_if is None:
        typer.echo("lsfemu replay: --json, --html and --bucket go with --what-if", err=True)
        raise typer.Exit(2)
    for out in (json_out, html_out):  # before the work: a report with nowhere to go is refused at once
        if out is not None and not Path(out).absolute().parent.is_dir():
            typer.echo(f"lsfemu replay: {out}: No such file or directory", err=True)
            raise typer.Exit(1)
    if conf is not None and into is None:
        typer.echo("lsfemu replay: --conf goes with --into (--what-if takes its configuration itself)", err=True)
        raise typer.Exit(2)
    try:
        t_until = parse_time(until, time.time()) if until is not None else None
        width = parse_duration(bucket) if bucket is not None else None
        if width is not None and width <= 0:
            raise ValueError(f"bad duration <{bucket}>: must be more than 0")
        paths, acct = rp.split_logs(files)
        if into is not None:
            named = [a for a in acct if a in {Path(f) for f in files}]  # a logdir's lsb.acct is left aside
            if named or not paths:
                raise rp.ReplayError(f"{(named or acct)[0]}: an accounting file (lsb.acct) holds finished jobs "
                                     "only; --into reads lsb.events (lsb.acct goes with --what-if)")
            s = rp.replay_into(paths, Path(into), until=t_until, force=force, progress=progress,
                               conf=Path(conf).expanduser().resolve() if conf else None)
        else:
            rep = rp.what_if(paths, Path(what_if), acct=acct, until=t_until, bucket=width, progress=progress)
    except (rp.ReplayError, ValueError, OSError) as e:
        typer.echo(f"lsfemu replay: {e}", err=True)
        raise typer.Exit(1)
    if into is not None:
        for line in s.warnings.lines():
            typer.echo(f"lsfemu replay: {line}", err=True)
        typer.echo(rp.into_message(s))
        return
    for line in rep.warnings.lines():
        typer.echo(f"lsfemu replay: {line}", err=True)
    typer.echo(rp.render_report(rep), nl=False)
    try:
        if json_out:
            Path(json_out).write_text(rp.report_json(rep))
        if html_out:
            from lsfemu.render.whatif_html import render_page  # the page's renderer: --html only

            Path(html_out).write_text(render_page(rp.report_dict(rep)), encoding="utf-8")
    except OSError as e:
        typer.echo(f"lsfemu replay: {e}", err=True)
        raise typer.Exit(1)


def _envdir() -> str:
    envdir = os.environ.get("LSF_ENVDIR")
    if not envdir:
        typer.echo("lsfemu: LSF_ENVDIR is not set; run 'lsfemu init DIR' and 'export LSF_ENVDIR=DIR'", err=True)
        raise typer.Exit(1)
    return envdir


@daemon_app.command("start")
def daemon_start() -> None:
    """Start the daemon for LSFEMU_HOME (no-op when one runs)."""
    _envdir()
    try:
        client.start_daemon(client.state_dir())
    except RuntimeError as e:
        typer.echo(f"lsfemu: {e}", err=True)
        raise typer.Exit(1)
    typer.echo(f"daemon running for {client.state_dir()}")


@daemon_app.command("status")
def daemon_status() -> None:
    """Is the daemon running, and how is it set up."""
    if client._connect(client.socket_path()) is None:
        typer.echo(f"daemon: not running (LSFEMU_HOME={client.state_dir()})")
        raise typer.Exit(1)
    out, err, rc = client.call_daemon(["daemon", "status"])
    typer.echo(out + err, nl=False)
    raise typer.Exit(rc)


@daemon_app.command("stop")
def daemon_stop(kill_jobs: bool = typer.Option(False, "--kill-jobs", help="kill the running jobs too (they keep running otherwise)")) -> None:
    """Stop the daemon (the store keeps every job; running jobs keep running)."""
    raise typer.Exit(client.daemon_stop(kill_jobs=kill_jobs))  # (the thin client's own path too)


def _running_clock() -> float | None:
    """The running daemon's time (`lsfemu clock show`: `... (EPOCH)`), None when none answers."""
    if client._connect(client.socket_path()) is None:
        return None
    out, _, rc = client.call_daemon(["clock", "show"])
    try:
        return float(out.rsplit("(", 1)[1].split(")")[0]) if rc == 0 else None
    except (IndexError, ValueError):
        return None


@daemon_app.command("restart")
def daemon_restart() -> None:
    """Check the configuration, then stop and start the daemon."""
    from lsfemu.ops.admin import check_config  # (heavy: see the module's docstring)

    # A configuration the new daemon could not load stops the restart before the old
    # daemon is stopped: it is kept (as badmin mbdrestart keeps it), not the cluster lost.
    text, fatal = check_config(_envdir(), _running_clock())
    if fatal:
        typer.echo(text + "No restart: the running daemon is kept.", err=True)
        raise typer.Exit(1)
    try:
        client.stop_daemon()
    except RuntimeError as e:
        typer.echo(f"lsfemu: {e}", err=True)
        raise typer.Exit(1)
    daemon_start()


@daemon_app.command("run")
def daemon_run() -> None:
    """Run the daemon in the foreground (for service managers)."""
    from lsfemu.daemon.server import main  # (heavy: see the module's docstring)

    raise typer.Exit(main())


def _forward(argv: list[str]) -> None:
    """Carry out a daemon subcommand (as the thin client would) and exit with its status."""
    raise typer.Exit(client.run("lsfemu", argv))


@clock_app.callback()
def clock_main(ctx: typer.Context) -> None:
    """Without a subcommand: the same as `lsfemu clock show`."""
    if ctx.invoked_subcommand is None:
        _forward(["clock", "show"])


@clock_app.command("show")
def clock_show() -> None:
    """The clock's mode and the cluster's current time."""
    _forward(["clock", "show"])


@clock_app.command("set")
def clock_set(time_: str = typer.Argument(..., metavar="TIME",
                                          help="epoch seconds, ISO 8601 (2026-01-05T09:00) or +DURATION")) -> None:
    """Move the virtual clock to TIME, running every pass and job end on the way (never back, but on a cluster that has had no job yet)."""
    _forward(["clock", "set", time_])


@clock_app.command("advance")
def clock_advance(duration: str = typer.Argument(..., help="90, 15m, 2h, 7d, 1h30m")) -> None:
    """Move the virtual clock forward by DURATION, running every pass and job end on the way."""
    _forward(["clock", "advance", duration])


@explain_app.command("aps")
def explain_aps(job_id: str = typer.Argument(..., metavar="JOBID")) -> None:
    """A pending job's APS value: every factor, weighted, limited, in or out of its grace period."""
    _forward(["explain", "aps", job_id])


@explain_app.command("pending")
def explain_pending(job_id: str = typer.Argument(..., metavar="JOBID")) -> None:
    """Why a pending job is not running: what holds it back, host by host, in plain words."""
    _forward(["explain", "pending", job_id])


@explain_app.command("priority")
def explain_priority(user: str = typer.Argument(..., metavar="USER"),
                     queue: Optional[str] = typer.Option(None, "-q", metavar="QUEUE",
                                                         help="only this fairshare queue")) -> None:
    """A user's dynamic fairshare priority: the formula term by term, and where each factor came from."""
    _forward(["explain", "priority", user] + (["-q", queue] if queue is not None else []))


@host_app.command("fail")
def host_fail(host: str = typer.Argument(..., metavar="HOST")) -> None:
    """Mark HOST unavail: its rerunnable jobs rerun, the others are UNKWN until it recovers."""
    _forward(["host", "fail", host])


@host_app.command("recover")
def host_recover(host: str = typer.Argument(..., metavar="HOST")) -> None:
    """Bring HOST back; the jobs lost with it end EXIT."""
    _forward(["host", "recover", host])


def local_main(argv: list[str]) -> int:
    try:
        app(args=argv, prog_name="lsfemu", standalone_mode=True)
    except SystemExit as e:
        return int(e.code or 0) if not isinstance(e.code, str) else 1
    return 0
