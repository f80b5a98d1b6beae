"""The thin client behind every LSF command (bsub, bjobs, ...) and `lsfemu`.

Standard library only: this module runs on every command call, so it must
import fast. It sends argv, the caller's cwd and environment (and stdin for
`bsub < script`) to the daemon over a Unix socket in LSFEMU_HOME, prints what
comes back and exits with the daemon's exit code. When no daemon answers it
starts one, under a lock so that concurrent first calls start exactly one.

The wire format is lsfemu.protocol's. No json or socket module on this path:
they pull in re and enum, which cost more than the whole command may take.

The commands run under `python -I -S` (bin/'s shebang): no site-packages, no
.pth files, no `from __future__` (a module of its own to import). The few
paths that load the engine or typer call `full_interpreter()` first. No `os`
on the command path either: it brings posixpath, stat and _collections_abc,
~3 ms of a command's ~20 ms start-up. `posix` (built in, loaded before any
script runs) gives what a command needs; the paths that start or stop a
daemon, or that fail, import os where they need it.
"""

import _socket
import posix
import sys

from lsfemu.protocol import (NOT_MASTER_RC, PROTOCOL, KeyFileError, decode_fields, encode_request, join, key_path,
                             read_answer, read_key, recv_frame, sign_request)

CONNECT_TIMEOUT = 60.0  # seconds to wait for a reply (a busy daemon may take a while)
START_TIMEOUT = 30.0  # seconds to wait for a freshly started daemon's socket


_decoded: dict[str, str] | None = None


def environ() -> dict[str, str]:
    """The process's environment, as os.environ holds it. os.environ itself
    once os is imported (it is the live one: changes to it do not reach
    posix.environ); before, posix.environ decoded as os decodes it."""
    global _decoded
    os = sys.modules.get("os")
    if os is not None:
        return os.environ  # type: ignore[return-value]
    if _decoded is None:
        enc = sys.getfilesystemencoding()
        _decoded = {k.decode(enc, "surrogateescape"): v.decode(enc, "surrogateescape")
                    for k, v in posix.environ.items()}
    return _decoded


def state_dir() -> str:
    home = environ().get("LSFEMU_HOME")
    if home:
        return home
    user_home = environ().get("HOME")
    if not user_home:
        import os  # no HOME: os.path.expanduser asks the password database

        user_home = os.path.expanduser("~")
    return join(user_home, ".lsfemu")


def socket_path(home: str | None = None) -> str:
    return join(home or state_dir(), "mbatchd.sock")


def _connect(path: str):
    s = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        s.connect(path)
        return s
    except (FileNotFoundError, ConnectionRefusedError):
        s.close()
        return None
    except OSError as e:
        s.close()
        if len(path) > 100:
            raise OSError(f"socket path too long for a Unix socket: {path}") from e
        raise


def full_interpreter() -> None:
    """Make this interpreter what plain `python` would have been: the commands
    run under -I -S, and the engine's and typer's paths need site-packages
    (with their .pth files, also the user's) and PYTHONPATH."""
    import os  # (these paths load far more than os)

    if sys.flags.no_site:
        import site  # only on the paths that load more than the standard library

        if sys.flags.no_user_site and not os.environ.get("PYTHONNOUSERSITE"):
            # -I turned the user's site-packages off; plain python has them (site's own rule)
            site.ENABLE_USER_SITE = os.getuid() == os.geteuid() and os.getgid() == os.getegid()
        site.main()
    if sys.flags.ignore_environment:
        extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p not in sys.path]
        sys.path[1:1] = extra  # after the script's own entry (lsfemu's folder), as PYTHONPATH would be


class Unreachable(RuntimeError):
    """No daemon can serve this caller; str() is the one line to print."""


def _not_yours(home: str) -> str | None:
    """The state folder belongs to another OS user: say whose (clusters are per OS user)."""
    try:
        owner = posix.stat(home).st_uid
    except OSError:
        return None
    if owner == posix.getuid():
        return None
    import pwd  # only on this error path: the command path imports what every command needs

    try:
        name = pwd.getpwuid(owner).pw_name
    except KeyError:
        name = f"uid {owner}"
    return f"the cluster in {home} belongs to user {name}; each OS user has a cluster of its own"


def _down(home: str, e: OSError) -> Unreachable:
    """The daemon cannot start because the state folder refuses (read-only, full, not ours)."""
    why = f"System call failed: {e.strerror or e} ({home})"
    whose = _not_yours(home)
    return Unreachable(f"LSF is down: mbatchd cannot start: {why}" + (f"; {whose}" if whose else ""))


def start_daemon(home: str, quiet: bool = True) -> None:
    """Start a daemon for `home` unless one answers; concurrent callers start one."""
    # only when no daemon answers: subprocess alone costs a command milliseconds of start-up
    import fcntl
    import os
    import subprocess

    path = socket_path(home)
    try:
        os.makedirs(home, mode=0o700, exist_ok=True)
        lock = open(os.path.join(home, "autostart.lock"), "a")
    except OSError as e:
        raise _down(home, e) from None
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        s = _connect(path)
        if s is not None:
            s.close()
            return
        try:
            log = open(os.path.join(home, "daemon.log"), "a")
            since = os.fstat(log.fileno()).st_size  # what this start writes comes after
        except OSError as e:
            raise _down(home, e) from None
        # The daemon says on this pipe why it could not start (one line): the log
        # may not take it (a full disk).
        status_r, status_w = os.pipe()
        env = dict(os.environ)
        env["LSFEMU_HOME"] = home
        env["LSFEMU_START_FD"] = str(status_w)
        pkg_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            proc = subprocess.Popen(
                [sys.executable, "-m", "lsfemu.daemon"],
                env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True, cwd="/", pass_fds=(status_w,),
            )
        finally:
            log.close()
            os.close(status_w)
        try:
            _wait_for_daemon(home, path, proc, status_r, since)
        finally:
            os.close(status_r)


def _wait_for_daemon(home: str, path: str, proc, status_r: int, since: int = 0) -> None:
    import os  # only when starting a daemon, as start_daemon's imports
    import time

    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        s = _connect(path)
        if s is not None:
            s.close()
            return
        code = proc.poll()
        if code is not None and code != 3:  # 3: another daemon holds the lock and is starting
            os.set_blocking(status_r, False)
            try:
                why = os.read(status_r, 4096).decode("utf-8", "replace").strip()
            except OSError:
                why = ""
            if why:
                raise Unreachable(f"LSF is down: mbatchd cannot start: {why}")
            tail = _log_tail(os.path.join(home, "daemon.log"), since=since)
            if not tail:
                raise RuntimeError(f"the daemon could not start (exit status {code}; nothing in {home}/daemon.log)")
            raise RuntimeError("the daemon could not start:\n" + tail)
        time.sleep(0.02)
    raise RuntimeError(f"the daemon did not start within {START_TIMEOUT:.0f} s (see {home}/daemon.log)")


def _log_tail(path: str, lines: int = 15, since: int = 0) -> str:
    """What the daemon wrote to its log from offset `since` on, from its `cannot start` line."""
    try:
        with open(path, "rb") as f:
            f.seek(since)
            text = f.read().decode("utf-8", "replace")[-8000:]
    except OSError:
        return ""
    tail = text.splitlines()
    start = max((i for i, l in enumerate(tail) if l.startswith("lsfemu: cannot start")), default=max(0, len(tail) - lines))
    return "\n".join(tail[start:start + 40])


def build_request(cmd: str, argv: list[str], stdin_text: str | None) -> dict:
    return {
        "v": PROTOCOL,
        "cmd": cmd,
        "argv": argv,
        "cwd": _cwd(),
        "env": dict(environ()),
        "stdin": stdin_text,
        "tty": _has_terminal(),
    }


def _has_terminal() -> bool:
    """The caller's stdin or stdout is a terminal (bsub -Ip/-Is make a pty only then, as LSF's bsub)."""
    try:
        return bool((sys.stdin and sys.stdin.isatty()) or (sys.stdout and sys.stdout.isatty()))
    except (OSError, ValueError):
        return False


def _cwd() -> str:
    try:
        return posix.getcwd()
    except OSError:
        return environ().get("PWD", "/")


SCRIPT_MAX = 8 << 20  # bytes of a job script `bsub job_script` sends along


def _job_script(path: str) -> str | None:
    """`bsub [options] job_script`: the contents of the one-word command when it
    names a text file (the daemon may not read the caller's files). The daemon
    uses them only with LSB_BSUB_PARSE_SCRIPT=Y in lsf.conf; otherwise the file
    runs as a command, as in LSF."""
    try:
        with open(path, "rb") as f:
            st = posix.fstat(f.fileno())
            if st.st_mode & 0o170000 != 0o100000 or st.st_size > SCRIPT_MAX:  # a regular file (S_ISREG)
                return None
            data = f.read(SCRIPT_MAX + 1)
    except OSError:
        return None
    if b"\0" in data:
        return None  # LSF: a job script is an ASCII text file, not a binary
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _pack_file(path: str) -> str | None:
    """`bsub -pack file`: the file's text for the daemon (None: unreadable);
    bytes that are not UTF-8 text arrive as U+FFFD, which the daemon refuses
    as LSF refuses a file that is not text."""
    try:
        with open(path, "rb") as f:
            data = f.read(SCRIPT_MAX + 1)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace")


def _read_stdin(cmd: str, argv: list[str]) -> str | None:
    """bsub without a command reads a script from stdin (LSF's `bsub < script`);
    `bsub job_script` sends the script file's contents in the same field."""
    if cmd != "bsub":
        return None
    # here, not at the top: only bsub reads its option table on the client side
    # (1.5 ms of building every command's table, kept off the other commands)
    from lsfemu.options import command_words

    words = command_words(argv)
    if words is None:
        return None  # options that are not bsub's: the daemon answers, stdin unread
    # `bsub -pack file` takes no other option and no command (the daemon refuses other forms)
    if argv[:1] == ["-pack"] and len(argv) == 2:
        return _pack_file(argv[1])
    if len(argv) == 1 and argv[0].startswith("-pack") and argv[0] != "-pack":
        return _pack_file(argv[0][5:])
    if words:
        return _job_script(words[0]) if len(words) == 1 else None
    if sys.stdin is None or sys.stdin.isatty():
        return None
    try:
        return sys.stdin.read()
    except (OSError, UnicodeDecodeError):
        return None


# -- A shared cluster: commands from other hosts over TCP -----------------------
#
# Only when lsf.conf sets both LSF_MASTER_LIST and LSB_MBD_PORT, and only when no
# daemon answers on the local Unix socket (or the local one is a standby that
# answers NOT_MASTER_RC): the Unix-socket path above does not read lsf.conf nor
# import hmac/hashlib. The signed wire format: lsfemu.protocol.

DOWN = "LSF is down. Please wait ...\n"
STILL_TRYING = "batch system daemon not responding ... still trying\n"
NTRIES = 6  # rounds over LSF_MASTER_LIST (LSB_NTRIES overrides) ...
RETRY_INTERVAL = 2.0  # ... this many seconds apart: long enough to span a failover
CONNTIMEOUT = 10.0  # seconds per TCP connect (LSB_API_CONNTIMEOUT overrides)




def read_conf_keys(envdir: str, keys: tuple[str, ...]) -> dict[str, str]:
    """A few `KEY=value` settings of lsf.conf, read the way a shell sources it
    (quotes removed, `# comments` dropped), without lsfemu.config (not stdlib-cheap)."""
    out: dict[str, str] = {}
    try:
        with open(join(envdir, "lsf.conf"), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return out
    for line in lines:
        k, sep, v = line.strip().partition("=")
        k = k.strip().upper()
        if not sep or k not in keys:
            continue
        v = v.strip()
        if v[:1] in ("'", '"') and v[0] in v[1:]:
            v = v[1:v.index(v[0], 1)]
        else:
            v = v.split("#", 1)[0].strip()
        out[k] = v
    return out


def shared_cluster(envdir: str | None) -> tuple[list[str], int, float] | None:
    """(LSF_MASTER_LIST, LSB_MBD_PORT, connect timeout) when lsf.conf sets both:
    the cluster may be served from another host. Raises ValueError on a bad port."""
    if not envdir:
        return None
    conf = read_conf_keys(envdir, ("LSF_MASTER_LIST", "LSB_MBD_PORT", "LSB_API_CONNTIMEOUT"))
    masters = conf.get("LSF_MASTER_LIST", "").split()
    port = conf.get("LSB_MBD_PORT", "")
    if not masters or not port:
        return None
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"LSB_MBD_PORT in {envdir}/lsf.conf is not a port number: {port}")
    t = conf.get("LSB_API_CONNTIMEOUT", "")
    return masters, int(port), float(t) if t.isdigit() and int(t) > 0 else CONNTIMEOUT


def login_name() -> str:
    import pwd  # TCP clients only (the Unix socket gives the daemon the peer's uid)

    try:
        return pwd.getpwuid(posix.getuid()).pw_name
    except KeyError:
        return str(posix.getuid())


def call_remote(envdir: str, masters: list[str], port: int, req: dict, conntimeout: float = CONNTIMEOUT) -> tuple[str, str, int]:
    """Send one signed request to the master: each host of LSF_MASTER_LIST in
    order; a host that refuses or cannot be reached, or answers NOT_MASTER_RC,
    is skipped. LSF's messages when none answers."""
    import time  # TCP clients only

    try:
        key = read_key(key_path(envdir))
    except KeyFileError as e:
        return "", f"lsfemu: {e}\n", 255
    # The key holder names the user (LSFEMU_USER as for the daemon's own OS user).
    user = environ().get("LSFEMU_USER") or login_name()
    body = encode_request(req)[4:]
    env_tries = environ().get("LSB_NTRIES", "")
    tries = int(env_tries) if env_tries.isdigit() and int(env_tries) > 0 else NTRIES
    for attempt in range(tries):
        if attempt:
            try:
                sys.stderr.write(STILL_TRYING)
                sys.stderr.flush()
            except OSError:
                pass
            time.sleep(RETRY_INTERVAL)
        for host in masters:
            s = _tcp_connect(host, port, conntimeout)
            if s is None:
                continue  # refused, unreachable, unknown name: try the next candidate
            where = f"{host}:{port}"
            frame, nonce = sign_request(key, user, body)
            try:
                s.settimeout(CONNECT_TIMEOUT)
                s.sendall(frame)
                out, err, rc = read_answer(key, nonce, recv_frame(s), where)
            except (OSError, ConnectionError, ValueError) as e:
                return "", f"lsfemu: no answer from {where} ({e}); the request may not have been carried out\n", 255
            finally:
                s.close()
            if rc == NOT_MASTER_RC:
                continue
            return out, err, rc
    return "", DOWN, 255


def _tcp_connect(host: str, port: int, timeout: float):
    """A connected TCP socket to host:port (each of its addresses in turn), or None.
    _socket, not socket: the socket module costs more to import than the rest of the call."""
    try:
        infos = _socket.getaddrinfo(host, port, 0, _socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    for family, kind, proto, _name, addr in infos:
        s = _socket.socket(family, kind, proto)
        try:
            s.settimeout(timeout)
            s.connect(addr)
            return s
        except OSError:
            s.close()
    return None


def _remote(req: dict) -> tuple[str, str, int] | None:
    """The answer through LSF_MASTER_LIST when this is a shared cluster, else None."""
    envdir = environ().get("LSF_ENVDIR")
    try:
        shared = shared_cluster(envdir)
    except ValueError as e:
        return "", f"lsfemu: {e}\n", 255
    if shared is None:
        return None
    masters, port, conntimeout = shared
    return call_remote(envdir, masters, port, req, conntimeout)  # type: ignore[arg-type]


def _names_a_file(argv: list[str]) -> bool:
    """`-f FILE` among the words (`-f -`, the cluster's archives, needs the daemon)."""
    i = argv.index("-f") if "-f" in argv else -1
    return 0 <= i < len(argv) - 1 and argv[i + 1] != "-"


def call(cmd: str, argv: list[str], stdin_text: str | None = None) -> tuple[str, str, int]:
    """Run one command through the daemon (starting it if needed)."""
    if cmd == "bhist" and "-f" in argv:
        full_interpreter()
        # bhist -f reads any lsb.events file, also with no cluster at all.
        from lsfemu.daemon.dispatch import handle

        r = handle(None, build_request(cmd, argv, stdin_text), posix.getuid(), stdout=sys.stdout)
        return r.out, r.err, r.rc
    if cmd == "bacct" and _names_a_file(argv):
        full_interpreter()
        # bacct -f FILE reads any lsb.acct, also a real cluster's, here: no daemon, no store
        from lsfemu.cli.bacct import run_local

        r = run_local(argv, environ().get("LSFEMU_USER") or login_name(), _cwd(), dict(environ()))
        return r.out, r.err, r.rc
    if environ().get("LSFEMU_DAEMON", "").lower() in ("off", "0", "no", "inprocess"):
        full_interpreter()
        # in-process mode loads the whole engine; the thin client path stays standard library only
        from lsfemu.daemon.inprocess import run_request

        return run_request(build_request(cmd, argv, stdin_text))
    home = state_dir()
    path = socket_path(home)
    req = build_request(cmd, argv, stdin_text)
    try:
        s = _connect(path)
    except PermissionError as e:
        # Another OS user's cluster: its folder and socket are its owner's only.
        whose = _not_yours(home)
        return ("", f"Cannot connect to LSF: {path}: {e.strerror}" + (f"; {whose}" if whose else "") + "\n", 255)
    if s is None:
        answer = _remote(req)  # a shared cluster: its master may be on another host
        if answer is not None:
            return answer
        if not environ().get("LSF_ENVDIR"):
            return ("", "lsfemu: LSF_ENVDIR is not set; run 'lsfemu init DIR' and 'export LSF_ENVDIR=DIR'\n", 255)
        if environ().get("LSFEMU_AUTOSTART", "1") in ("0", "no", "off"):
            return ("", f"lsfemu: no daemon answers at {path} (LSFEMU_AUTOSTART=0)\n", 255)
        try:
            start_daemon(home)
        except Unreachable as e:
            return ("", f"{e}\n", 255)
        s = _connect(path)
        if s is None:
            return ("", f"lsfemu: the daemon does not answer at {path}\n", 255)
    try:
        s.settimeout(CONNECT_TIMEOUT)
        s.sendall(encode_request(req))
        f = decode_fields(recv_frame(s))
        rc, out, err = int(f[0]), f[1], f[2]
    except (OSError, ConnectionError, ValueError, IndexError) as e:
        # No answer means no acknowledgement: say so, never pretend.
        return ("", f"lsfemu: no answer from the daemon ({e}); the request may not have been carried out\n", 255)
    finally:
        s.close()
    if rc == NOT_MASTER_RC:
        # The local daemon is a standby master candidate: ask the master.
        answer = _remote(req)
        if answer is not None:
            return answer
    return out, err, rc


def call_daemon(argv: list[str]) -> tuple[str, str, int]:
    """`lsfemu ARGV` carried out by the running daemon, never starting one."""
    import os  # (environ() is os.environ from here on: this change is seen)

    os.environ["LSFEMU_AUTOSTART"] = "0"
    return call("lsfemu", argv)


def stop_daemon(timeout: float = 15.0, kill_jobs: bool = False) -> bool:
    """Ask the daemon to stop and wait until it has; False when none ran.
    Running jobs keep running (the next daemon collects them) unless `kill_jobs`."""
    import fcntl  # only when stopping a daemon, as start_daemon's imports
    import os
    import time

    if _connect(socket_path()) is None:
        return False
    out, err, rc = call_daemon(["daemon", "stop"] + (["--kill-jobs"] if kill_jobs else []))
    if kill_jobs:
        if rc != 0:
            raise RuntimeError((err or out).strip())
        print(out.splitlines()[0], flush=True)  # N running job(s) killed
    lock = os.path.join(state_dir(), "mbatchd.lock")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(lock, "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                time.sleep(0.05)
    raise RuntimeError("the daemon did not stop in time")


def _emit(out: str, err: str, rc: int) -> int:
    try:
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
        if err:
            sys.stderr.write(err)
            sys.stderr.flush()
    except BrokenPipeError:
        pass
    return rc


def run(cmd: str, argv: list[str]) -> int:
    try:
        stdin_text = _read_stdin(cmd, argv)
        out, err, rc = call(cmd, argv, stdin_text)
        if cmd == "bsub" and rc == 0 and (stdin_text or any(a[:1] == "-" and ("K" in a or a[:2] == "-I") for a in argv)):
            # bsub -K/-I*: wait for the job here (a cheap look at argv first: most bsubs do not wait)
            from lsfemu import bsubwait

            mode = bsubwait.waiting_mode(argv, stdin_text)
            jid = bsubwait.job_id(out)
            if mode is not None and jid is not None:
                _emit(out, err, rc)
                return bsubwait.wait(call, jid, stdin_free=stdin_text is None)
        return _emit(out, err, rc)
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # never a traceback from a command
        return _emit("", f"lsfemu: {e}\n", 255)


def main() -> None:
    """Console-script entry for the LSF commands: the program name is the command."""
    cmd = sys.argv[0].rpartition("/")[2]  # os.path.basename
    sys.exit(run(cmd, sys.argv[1:]))


# `lsfemu` subcommands the daemon carries out (they act on the cluster's state):
# sent to it from here, without typer. Every other subcommand, and any --help,
# runs in this process with typer (lsfemu.command declares them all).
DAEMON_SUBCOMMANDS = ("clock", "explain", "host")


def daemon_stop(kill_jobs: bool = False) -> int:
    """`lsfemu daemon stop [--kill-jobs]`: what it prints, its exit code."""
    try:
        stopped = stop_daemon(kill_jobs=kill_jobs)
    except RuntimeError as e:
        return _emit("", f"lsfemu: {e}\n", 1)
    return _emit("daemon stopped\n" if stopped else "daemon: not running\n", "", 0)


def main_lsfemu() -> None:
    """Console-script entry for `lsfemu`."""
    argv = sys.argv[1:]
    # `lsfemu daemon stop` without typer: every test cluster's teardown and every
    # script's cleanup runs it, and typer (with pydantic) costs it ten times its work.
    if argv in (["daemon", "stop"], ["daemon", "stop", "--kill-jobs"]):
        sys.exit(daemon_stop(kill_jobs=len(argv) == 3))
    # `lsfemu clock` alone shows the clock; `lsfemu explain` alone is typer's help.
    if (argv[:1] and argv[0] in DAEMON_SUBCOMMANDS and (len(argv) > 1 or argv[0] == "clock")
            and not any(a in ("-h", "--help") for a in argv)):
        sys.exit(run("lsfemu", argv))
    full_interpreter()
    try:  # typer and the local subcommands: not on the path of the commands the daemon serves
        from lsfemu.command import local_main
    except ImportError as e:
        sys.exit(_emit("", f"lsfemu: {e.name} is missing for {sys.executable}; install lsfemu (pip install .)\n", 1))
    sys.exit(local_main(argv))
