"""A daemon template for test suites (issue 23, suite time): one process that
has imported the daemon and every command once, and forks a daemon for each
start instead of a new interpreter importing them all again.

Every test cluster starts a daemon of its own, and a start was ~1 s of CPU,
nearly all of it imports (SQLAlchemy, the engine, the commands): hundreds of
starts a suite run. With `LSFEMU_FORKSERVER` naming a template's socket,
`python -m lsfemu.daemon` (what lsfemu.client starts) hands its start to the
template (`delegate`): it sends its environment, its directory and its
standard streams (and the start pipe, LSFEMU_START_FD) over the socket; the
template forks; the child makes them its own, leaves the template's session
and runs `lsfemu.daemon.server.main` as a fresh daemon would. The process
that asked stays until the daemon ends and exits with its status, so the
client's wait for the start (its exit status 3: another daemon holds the
lock) reads as before.

The template serves only its own checkout and interpreter; otherwise, when
it does not answer, or for a re-exec by `badmin mbdrestart` (which inherits
the lock and the sockets), the daemon starts in place, as without it.
lsfemu.testing starts one per test process for the clusters it makes; its
commands' environment names it (LsfCluster.run), nothing else does.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys

ENV = "LSFEMU_FORKSERVER"
#: a daemon re-exec'd by badmin mbdrestart inherits these: it must start in this process
_INHERITED = ("LSFEMU_LOCK_FD", "LSFEMU_SOCKET_FD", "LSFEMU_TCP_FD")
_MAX_REQUEST = 1 << 20
_HIGH_FD = 100  # received descriptors are moved above the ones they go to


def _here() -> str:
    """This checkout's lsfemu package folder."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# -- the side of `python -m lsfemu.daemon` ----------------------------------------------


def _ask(kind: str, fds: list[int]) -> tuple[socket.socket, object, list[str]] | None:
    """Send the template named by LSFEMU_FORKSERVER a request of `kind` (this
    process's environment, directory and `fds`): (the connection, its reader,
    the first answer's words), or None when no template serves it."""
    path = os.environ.get(ENV)
    if not path:
        return None
    request = {"kind": kind, "env": dict(os.environ), "cwd": os.getcwd(), "package": _here(),
               "python": sys.executable}
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        return sock, *_send(sock, request, fds)
    except OSError:
        return None


def _send(sock: socket.socket, request: dict, fds: list[int]) -> tuple[object, list[str]]:
    socket.send_fds(sock, [json.dumps(request).encode()], fds)
    answer = sock.makefile("r")
    return answer, answer.readline().split()


def delegate() -> int | None:
    """Start the daemon through the template named by LSFEMU_FORKSERVER and wait
    for its end: its exit status. None: no template serves this start (start here)."""
    if any(name in os.environ for name in _INHERITED):
        return None
    start_fd = os.environ.get("LSFEMU_START_FD", "")
    fds = [0, 1, 2] + ([int(start_fd)] if start_fd.isdigit() else [])
    asked = _ask("daemon", fds)
    if asked is None or asked[2][:1] != ["started"]:
        return None  # none, another checkout's template, or it could not fork
    sock, answer, first = asked
    if len(fds) > 3:
        os.close(fds[3])  # the daemon has it: the client sees the pipe's end when the daemon closes it
    pid = int(first[1])

    def forward(signum, _frame):  # a signal for this process is meant for the daemon
        try:
            os.kill(pid, signum)
        except OSError:
            pass

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    try:
        last = answer.readline().split()
    except OSError:
        last = []
    return int(last[1]) if last[:1] == ["exit"] else 0


def run_request(req: dict) -> tuple[str, str, int] | None:
    """An in-process request (lsfemu.daemon.inprocess) run by a child of the
    template, which has the engine imported: (out, err, rc), or None when no
    template serves it (run it here). The child builds the cluster from the
    store as this process would; it writes on this process's streams."""
    asked = _ask("request", [0, 1, 2])
    if asked is None or asked[2][:1] != ["started"]:
        return None
    sock, answer, _first = asked
    sock.sendall(json.dumps(req).encode() + b"\n")
    result, status = None, None
    try:
        for line in answer:
            word, _, rest = line.partition(" ")
            if word == "result":
                result = json.loads(rest)
            elif word == "exit":
                status = rest.strip()
                break
    except (OSError, ValueError):
        pass
    sock.close()
    if result is None:  # the child ended without an answer: never run the command twice
        return "", f"lsfemu: the command ended without an answer (exit status {status})\n", 255
    out, err, rc = result
    return out, err, rc


# -- the template ------------------------------------------------------------------------


def serve(path: str) -> int:
    """The template's loop: fork a daemon for each request on the socket `path`;
    tell each requester its daemon's PID, then its exit status. Ends when the
    process that started it has gone."""
    # The daemon and all its commands, imported once here, before any fork
    # (the point of the template; nothing else in this module needs them).
    import ctypes  # noqa: F401  (for the children: _end_with_template)
    import gc

    from lsfemu.cli import registry
    from lsfemu.daemon import inprocess, server  # noqa: F401  (imported for the children)
    from lsfemu.store.db import preload

    for name in registry.COMMANDS:
        registry.command(name)
    preload()
    gc.collect()
    gc.freeze()  # the children's collections do not touch (copy) the template's objects

    parent = os.getppid()
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.set_wakeup_fd(wake_w)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    os.rename(path + ".tmp", path)  # the path exists once it answers
    listener.listen(64)
    waiting: dict[int, socket.socket] = {}  # child PID -> its requester's connection
    while os.getppid() == parent:
        try:
            ready = select.select([listener, wake_r], [], [], 1.0)[0]
        except InterruptedError:
            ready = []
        if wake_r in ready:
            os.read(wake_r, 4096)
        _reap(waiting)
        if listener in ready:
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            pid = _fork_one(conn, [listener.fileno(), wake_r, wake_w] + [c.fileno() for c in waiting.values()])
            if pid is None:
                conn.close()
            else:
                waiting[pid] = conn
    listener.close()
    os.unlink(path)
    return 0


def _reap(waiting: dict[int, socket.socket]) -> None:
    """Tell the requesters of the daemons that ended how they ended."""
    while waiting:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = waiting.pop(pid, None)
        if conn is not None:
            try:
                conn.sendall(f"exit {os.waitstatus_to_exitcode(status) % 256}\n".encode())
            except OSError:
                pass
            conn.close()


def _fork_one(conn: socket.socket, close_in_child: list[int]) -> int | None:
    """Read one request and fork its daemon: the child's PID (the requester told),
    or None (refused: the requester starts its daemon itself)."""
    try:
        conn.settimeout(5)  # a silent requester holds the template up that long at most
        data, fds, _flags, _addr = socket.recv_fds(conn, _MAX_REQUEST, 8)
        request = json.loads(data)
        if request.get("package") != _here() or request.get("python") != sys.executable or len(fds) < 3:
            raise ValueError("another checkout or interpreter")
    except (OSError, ValueError, TypeError):
        try:
            conn.sendall(b"refused\n")
        except OSError:
            pass
        for fd in locals().get("fds") or []:
            os.close(fd)
        return None
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            for fd in close_in_child:
                os.close(fd)
            if request.get("kind") == "request":
                _take_over(request, fds, own_session=False)
                code = _run_request(conn)
            else:
                conn.close()  # first: its descriptor may be the number the start pipe takes
                _take_over(request, fds, own_session=True)
                code = _run_daemon()
        finally:
            os._exit(code)
    for fd in fds:
        os.close(fd)
    conn.sendall(f"started {pid}\n".encode())
    return pid


def _take_over(request: dict, fds: list[int], own_session: bool) -> None:
    """In the forked child: take the requester's streams, environment and
    directory (a daemon also leaves the template's session)."""
    import random  # (the child's only: its own random sequence, not the template's)
    import time

    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    if own_session:
        os.setsid()
        _end_with_template()
    env = request["env"]
    high = [os.dup2(fd, _HIGH_FD + i) for i, fd in enumerate(fds)]
    for fd in fds:
        os.close(fd)
    for target, fd in zip((0, 1, 2), high):
        os.dup2(fd, target)
    start_fd = env.get("LSFEMU_START_FD", "")
    if len(high) > 3 and start_fd.isdigit():
        os.dup2(high[3], int(start_fd), inheritable=False)
    for fd in high:
        if fd != (int(start_fd) if start_fd.isdigit() else -1):
            os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(env)
    time.tzset()
    random.seed()


def _end_with_template() -> None:
    """A forked daemon is told SIGTERM (its orderly stop) when the template
    ends, as the template ends when the test process that started it has gone:
    a test run that is killed (SIGKILL, a timeout) leaves no daemons behind.
    Without it they lived on, each holding its store (one killed run left 90,
    4.2 GB). Linux's prctl(PR_SET_PDEATHSIG); elsewhere nothing changes."""
    try:
        import ctypes  # (imported by serve before the fork: no cost here)

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the template ended before the prctl: no signal will come
        os.kill(os.getpid(), signal.SIGTERM)


def _run_daemon() -> int:
    """In the forked child: the daemon, as `python -m lsfemu.daemon` runs it."""
    from lsfemu.daemon import server  # (imported by serve before the fork: no cost here)

    try:
        rc = server.main()
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else 1
    sys.stdout.flush()
    sys.stderr.flush()
    return rc


def _run_request(conn: socket.socket) -> int:
    """In the forked child: read the in-process request, run it, answer it."""
    from lsfemu.daemon.inprocess import run_here  # (imported by serve before the fork)

    conn.settimeout(None)
    req = json.loads(conn.makefile("r").readline())
    out, err, rc = run_here(req)
    sys.stdout.flush()
    sys.stderr.flush()
    conn.sendall(("result " + json.dumps([out, err, rc]) + "\n").encode())
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1]))
