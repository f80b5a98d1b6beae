"""Turning one request (argv, user, cwd, env, stdin) into (stdout, stderr, rc).

Shared by the socket server and in-process mode, so that there is one
implementation of each command. Identity: the peer's uid maps to its user
name; LSFEMU_USER is honoured only when the peer runs as the daemon's uid.
"""

from __future__ import annotations

import logging
import os
import pwd
import sys
import time
import traceback

from lsfemu.cli.base import Ctx, Result
from lsfemu.cli.registry import command

log = logging.getLogger("lsfemu.daemon")

MAX_ARGV_BYTES = 2 * 1024 * 1024
_DAEMON_TZ = os.environ.get("TZ")  # the process's own (in-process mode); a daemon's: remember_timezone


def remember_timezone() -> None:
    """The daemon's TZ at its start: what a request that sends none renders in
    (taken at the start, not at import: a daemon forked from a template that
    imported this module, lsfemu.daemon.forkserver, has the environment it was started with)."""
    global _DAEMON_TZ
    _DAEMON_TZ = os.environ.get("TZ")


def use_timezone(tz: str | None) -> None:
    """Render times in the caller's time zone, as LSF's client-side formatting does."""
    want = tz if tz is not None else _DAEMON_TZ
    if os.environ.get("TZ") != want:
        if want is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = want
        time.tzset()


def _clean(text: str) -> str:
    """Bytes that are not UTF-8 (arguments arrive with surrogate escapes) become
    U+FFFD: the store keeps text, and LSF accepts such input rather than failing."""
    if text.isascii():  # nearly every argument and variable: nothing to check (issue 23)
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


#: uid -> user name, looked up once per uid (issue 23: a request's getpwuid read
#: the password database each time; mbatchd keeps its user table too)
_NAMES: dict[int, str] = {}


def _clean_env(env: dict) -> dict[str, str]:
    """The request's environment as text (see _clean)."""
    try:  # all text and ASCII, as nearly always: a copy, not a check per variable (issue 23)
        if "".join(env).isascii() and "".join(env.values()).isascii():
            return dict(env)
    except TypeError:  # a name or value not a string (a malformed request): as below
        pass
    return {_clean(str(k)): _clean(str(v)) for k, v in env.items()}


def user_for(peer_uid: int, env: dict[str, str]) -> str:
    if peer_uid == os.getuid() and env.get("LSFEMU_USER"):
        return env["LSFEMU_USER"]
    name = _NAMES.get(peer_uid)
    if name is None:
        try:
            name = pwd.getpwuid(peer_uid).pw_name
        except KeyError:
            return str(peer_uid)  # (not kept: an account added later is found)
        _NAMES[peer_uid] = name
    return name


def handle(cluster, req: dict, peer_uid: int, user: str | None = None, stdout=None, daemon=None) -> Result:
    """Run one request against `cluster`; never raises. `user`: the name a signed
    TCP request carries (its peer has no uid here; `peer_uid` is then -1).
    `stdout`: the caller's, when the request runs in the caller's process
    (see `Ctx.stdout`). `daemon`: the daemon.server.Daemon serving it (see `Ctx.daemon`)."""
    made = _request(cluster, req, peer_uid, user, stdout, daemon)
    if isinstance(made, Result):
        return made
    return _run(cluster, made)[0]


def handle_group(cluster, reqs: list[tuple[dict, int, str | None]], daemon=None) -> list[Result]:
    """Run requests that arrived together (`(req, peer_uid, user)` each, as
    `handle` takes them) and commit them once (issue 23: group commit): one
    transaction, one lsb.events append. The caller answers none of them
    before this returns, so an acknowledged request is a committed one.

    The cluster catches up once, before the first: the group is one instant
    of the scheduler. A request that fails (a bug; its rollback takes the
    group's uncommitted requests with it) gets its error, and the requests
    before it run again, each committed on its own: none was answered yet.
    A failed commit fails every request of the group (of one command: the
    answer is that command's)."""
    made = [_request(cluster, req, uid, user, None, daemon) for req, uid, user in reqs]
    results: list[Result | None] = [m if isinstance(m, Result) else None for m in made]
    todo = [i for i, r in enumerate(results) if r is None]
    if cluster is None or len(todo) < 2:
        return [r if r is not None else _run(cluster, made[i])[0] for i, r in enumerate(results)]
    pending: list[int] = []  # run, not committed
    for n, i in enumerate(todo):
        results[i], failed = _run(cluster, made[i], commit=False, catch_up=n == 0)
        if failed:
            for j in pending:
                results[j] = _run(cluster, made[j])[0]
            pending = []
        else:
            pending.append(i)
    if pending:
        try:
            cluster.commit()
        except Exception:
            failure = _failed(cluster, made[pending[0]])
            for j in pending:
                results[j] = failure
    return results  # type: ignore[return-value]


def _request(cluster, req: dict, peer_uid: int, user: str | None, stdout, daemon):
    """The request checked: (command function, Ctx arguments), or the Result refusing it."""
    cmd = req.get("cmd")
    argv = req.get("argv")
    env = req.get("env") or {}
    if not isinstance(cmd, str) or not isinstance(argv, list) or not all(isinstance(a, str) for a in argv) or not isinstance(env, dict):
        return Result("", "lsfemu: malformed request\n", 255)
    fn = command(cmd)
    if fn is None:
        return Result("", f"lsfemu: unknown command <{cmd}>\n", 255)
    if any("\x00" in a for a in argv):
        return Result("", f"{cmd}: Bad argument\n", 255)
    argv = [_clean(a) for a in argv]
    if sum(len(a.encode()) for a in argv) > MAX_ARGV_BYTES:
        return Result("", f"{cmd}: Bad argument: the command line is longer than {MAX_ARGV_BYTES} bytes\n", 255)
    return fn, dict(
        cluster=cluster,
        cmd=cmd,
        argv=argv,
        user=user if user is not None else user_for(peer_uid, env),
        uid=peer_uid,
        cwd=req.get("cwd") or "/",
        env=_clean_env(env),
        stdin=_clean(req["stdin"]) if isinstance(req.get("stdin"), str) else None,
        stdout=stdout,
        daemon=daemon,
        tty=bool(req.get("tty")),
    )


def _run(cluster, made, commit: bool = True, catch_up: bool = True) -> tuple[Result, bool]:
    """Run a checked request (a new Ctx each time: a request may run again,
    see handle_group): (its Result, whether it failed and rolled back)."""
    fn, args = made
    ctx = Ctx(**args)
    use_timezone(ctx.env.get("TZ"))
    try:
        if cluster is not None:
            if catch_up:
                cluster.catch_up()
            cluster.perfmon.request(ctx.cmd, cluster.now())  # badmin perfmon's request counters
        result = fn(ctx)
        if cluster is not None and commit:
            cluster.commit()
        return result, False
    except Exception:  # a bug must not kill the daemon nor show a traceback
        return _failed(cluster, made), True


def _failed(cluster, made) -> Result:
    """The answer to a request whose run or commit raised (being handled): logged, rolled back."""
    e = sys.exc_info()[1]
    cmd, argv = made[1]["cmd"], made[1]["argv"]
    # imported here, not at the top: `bhist -f` runs handle() in the caller's process, and the store
    # (SQLAlchemy, ~0.5 s of CPU) is not on its path (issue 23, streams)
    from lsfemu.store.db import storage_failure

    why = storage_failure(e, getattr(cluster, "home", None))
    if why is not None:  # the state folder or the store refused: not a bug, say why
        log.error("command %s %r failed: %s", cmd, argv, why)
    else:
        log.error("command %s %r failed:\n%s", cmd, argv, traceback.format_exc())
    if cluster is not None:
        try:
            cluster.session.rollback()
            cluster.reload_jobs()
        except Exception:
            log.error("rollback failed:\n%s", traceback.format_exc())
    if why is not None:
        if cmd == "bsub":
            return Result("", f"{why}. Job not submitted.\n", 255)
        return Result("", f"{cmd}: {why}; nothing was changed\n", 255)
    return Result("", f"{cmd}: internal error in lsfemu (details in the daemon log); nothing was changed\n", 255)
