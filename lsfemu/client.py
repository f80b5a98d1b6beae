"""The thin client behind every LSF command (bsub, bjobs, ...) and `lsfemu`.

Standard library only: this module runs on every command call, so it must
import fast. It sends argv, the caller's cwd and environment (and stdin for
`bsub < script`) to the daemon over a Unix socket in LSFEMU_HOME, prints what
comes back and exits with the daemon's exit code. When no daemon answers it
starts one, under a lock so that concurrent first calls start exactly one.

Wire format (see `encode_fields`): a frame is a 4-byte big-endian length
and a sequence of fields, each a 4-byte length and UTF-8 bytes. No json or
socket module on this path: they pull in re and enum, which cost more than
the whole command may take.
"""

from __future__ import annotations

import _socket
import os
import sys

PROTOCOL = 1
CONNECT_TIMEOUT = 60.0  # seconds to wait for a reply (a busy daemon may take a while)
START_TIMEOUT = 30.0  # seconds to wait for a freshly started daemon's socket
#: exit status in the answer of a master candidate that is not (or no longer) the
#: master (a shared cluster, docs/semantics.md): the client tries the next host
#: of LSF_MASTER_LIST instead of printing the answer
NOT_MASTER_RC = 250


def state_dir() -> str:
    return os.environ.get("LSFEMU_HOME") or os.path.join(os.path.expanduser("~"), ".lsfemu")


def socket_path(home: str | None = None) -> str:
    return os.path.join(home or state_dir(), "mbatchd.sock")


def encode_fields(fields: list[str]) -> bytes:
    parts = []
    for f in fields:
        b = f.encode("utf-8", "surrogateescape")
        parts.append(len(b).to_bytes(4, "big"))
        parts.append(b)
    body = b"".join(parts)
    return len(body).to_bytes(4, "big") + body


def decode_fields(body: bytes) -> list[str]:
    """Inverse of encode_fields (without the frame length). Raises ValueError."""
    out = []
    i, n = 0, len(body)
    while i < n:
        if i + 4 > n:
            raise ValueError("truncated field length")
        k = int.from_bytes(body[i:i + 4], "big")
        i += 4
        if i + k > n:
            raise ValueError("truncated field")
        out.append(body[i:i + k].decode("utf-8", "surrogateescape"))
        i += k
    return out


def encode_request(req: dict) -> bytes:
    """[version, cmd, cwd, has_stdin, stdin, tty, argc, *argv, *"KEY=VALUE"]."""
    stdin = req.get("stdin")
    fields = ["lsfemu/2", req["cmd"], req["cwd"], "1" if stdin is not None else "0", stdin or "",
              "1" if req.get("tty") else "0", str(len(req["argv"]))]
    fields += req["argv"]
    fields += [f"{k}={v}" for k, v in req["env"].items()]
    return encode_fields(fields)


def decode_request(body: bytes) -> dict:
    f = decode_fields(body)
    if len(f) < 7 or f[0] != "lsfemu/2" or not f[6].isdigit():
        raise ValueError("not an lsfemu request")
    argc = int(f[6])
    if 7 + argc > len(f):
        raise ValueError("truncated argv")
    env = {}
    for item in f[7 + argc:]:
        k, _, v = item.partition("=")
        env[k] = v
    return {"v": 2, "cmd": f[1], "cwd": f[2], "stdin": f[4] if f[3] == "1" else None,
            "tty": f[5] == "1", "argv": f[7:7 + argc], "env": env}


def encode_response(out: str, err: str, rc: int) -> bytes:
    return encode_fields([str(rc), out, err])


def _recv_exact(sock, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed by the daemon")
        buf += chunk
    return bytes(buf)


def _recv_frame(sock) -> bytes:
    return _recv_exact(sock, int.from_bytes(_recv_exact(sock, 4), "big"))


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


class Unreachable(RuntimeError):
    """No daemon can serve this caller; str() is the one line to print."""


def _not_yours(home: str) -> str | None:
    """The state folder belongs to another OS user: say whose (clusters are per OS user)."""
    try:
        owner = os.stat(home).st_uid
    except OSError:
        return None
    if owner == os.getuid():
        return None
    import pwd

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
    import fcntl
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
        "env": dict(os.environ),
        "stdin": stdin_text,
        "tty": sys.stdin.isatty() if sys.stdin else False,
    }


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return os.environ.get("PWD", "/")


SCRIPT_MAX = 8 << 20  # bytes of a job script `bsub job_script` sends along


def _job_script(argv: list[str]) -> str | None:
    """`bsub [options] job_script`: the contents of the one-word command when it
    names a text file (the daemon may not read the caller's files). The daemon
    uses them only with LSB_BSUB_PARSE_SCRIPT=Y in lsf.conf; otherwise the file
    runs as a command, as in LSF."""
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        i += 2 if a in _BSUB_VALUE_OPTS else 1
    if len(argv) - i != 1:
        return None
    try:
        with open(argv[i], "rb") as f:
            if not os.path.isfile(argv[i]) or os.fstat(f.fileno()).st_size > SCRIPT_MAX:
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


def _read_stdin(cmd: str, argv: list[str]) -> str | None:
    """bsub without a command reads a script from stdin (LSF's `bsub < script`);
    `bsub job_script` sends the script file's contents in the same field."""
    if cmd != "bsub":
        return None
    if _bsub_has_command(argv):
        return _job_script(argv)
    if sys.stdin is None or sys.stdin.isatty():
        return None
    try:
        return sys.stdin.read()
    except (OSError, UnicodeDecodeError):
        return None


# bsub options that take a value; anything else starting with '-' is a flag.
_BSUB_VALUE_OPTS = {
    "-q", "-n", "-J", "-o", "-oo", "-e", "-eo", "-W", "-We", "-sp", "-R", "-P", "-G", "-cwd",
    "-M", "-u", "-g", "-app", "-env", "-b", "-w", "-m", "-i", "-is", "-c", "-E", "-Ep", "-L",
    "-k", "-t", "-F", "-D", "-S", "-v", "-f", "-Jd", "-sla", "-U", "-C", "-p", "-T", "-ext",
    "-gpu", "-alloc_flags", "-nnodes", "-data", "-datagrp", "-pack", "-rn", "-stage", "-smt",
    "-eptl", "-ptl", "-jsdl", "-jsdl_strict", "-XF", "-tty", "-outdir", "-hostfile",
}


def _bsub_has_command(argv: list[str]) -> bool:
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return i + 1 < len(argv)
        if not a.startswith("-") or a == "-":
            return True
        i += 2 if a in _BSUB_VALUE_OPTS else 1
    return False


def call(cmd: str, argv: list[str], stdin_text: str | None = None) -> tuple[str, str, int]:
    """Run one command through the daemon (starting it if needed)."""
    if cmd == "bhist" and "-f" in argv:
        # bhist -f reads any lsb.events file, also with no cluster at all.
        from lsfemu.daemon.dispatch import handle

        r = handle(None, build_request(cmd, argv, stdin_text), os.getuid())
        return r.out, r.err, r.rc
    if os.environ.get("LSFEMU_DAEMON", "").lower() in ("off", "0", "no", "inprocess"):
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
        if not os.environ.get("LSF_ENVDIR"):
            return ("", "lsfemu: LSF_ENVDIR is not set; run 'lsfemu init DIR' and 'export LSF_ENVDIR=DIR'\n", 255)
        if os.environ.get("LSFEMU_AUTOSTART", "1") in ("0", "no", "off"):
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
        rc, out, err = decode_fields(_recv_frame(s))
        return out, err, int(rc)
    except (OSError, ConnectionError, ValueError) as e:
        # No answer means no acknowledgement: say so, never pretend.
        return ("", f"lsfemu: no answer from the daemon ({e}); the request may not have been carried out\n", 255)
    finally:
        s.close()


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
        return _emit(*call(cmd, argv, stdin_text))
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # never a traceback from a command
        return _emit("", f"lsfemu: {e}\n", 255)


def main() -> None:
    """Console-script entry for the LSF commands: the program name is the command."""
    cmd = os.path.basename(sys.argv[0])
    sys.exit(run(cmd, sys.argv[1:]))


def main_lsfemu() -> None:
    """Console-script entry for `lsfemu`; some subcommands run locally."""
    argv = sys.argv[1:]
    if argv[:1] in (["init"], ["demo"], ["replay"]) or argv[:2] in (["daemon", "start"], ["daemon", "stop"], ["daemon", "status"], ["daemon", "restart"], ["daemon", "run"]) or not argv or argv[0] in ("-h", "--help"):
        # These manage the cluster itself (or run without one): run them here.
        try:
            from lsfemu.cli.lsfemu_cmd import local_main
        except ImportError as e:
            sys.exit(_emit("", f"lsfemu: {e.name} is missing for {sys.executable}; install lsfemu (pip install .)\n", 1))
        sys.exit(local_main(argv))
    sys.exit(run("lsfemu", argv))
