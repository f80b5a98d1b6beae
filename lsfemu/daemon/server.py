"""The daemon (mbatchd's role): a Unix-socket server in LSFEMU_HOME that owns
the cluster state and runs every command; with LSB_MBD_PORT in lsf.conf also a
TCP server for signed commands from the cluster's other hosts (lsfemu/daemon/tcp.py).

- One daemon per LSFEMU_HOME, guaranteed by an exclusive lock on
  `mbatchd.lock`; a stale socket left by a crash is removed by the next
  daemon that holds the lock.
- Requests are served by threads but executed one at a time (one writer).
  Submissions that arrive while another request runs wait for it and then
  run together, committed once (group commit, issue 23): one transaction and
  one lsb.events append for the group; each is answered after that commit.
- Limits: a request may be at most MAX_REQUEST bytes and must arrive within
  READ_TIMEOUT seconds; otherwise the connection is dropped.
- In wall mode a ticker runs due scheduling passes and job ends: at the
  instant the next pass is due (Loop.due), at once when a job's wrapper says
  on the wake socket `mbatchd.wake` that its job ended, or when a request made
  a pass due sooner; at least every second.
- In a shared cluster (LSF_MASTER_LIST with a PostgreSQL store) the daemon is
  a master candidate (lsfemu.daemon.master): it serves the cluster only while
  it holds the master lock, and answers NOT_MASTER_RC otherwise.
"""

from __future__ import annotations

import fcntl
import logging
import os
import queue
import select
import signal
import socket
import socketserver
import struct
import sys
import threading
import time

from lsfemu.config.semantic import load_all
from lsfemu.daemon import dispatch, master
from lsfemu.daemon.tcp import NON_LSF_HOST, REFUSAL_READ_LIMIT, TcpGate, ensure_key, normal_address, refusal
from lsfemu.engine.cluster import Cluster
from lsfemu.events import emit
from lsfemu.protocol import KeyFileError, decode_request, encode_response, recv_exact
from lsfemu.store.db import storage_failure

MAX_REQUEST = 64 * 1024 * 1024
ALREADY_RUNNING = 3  # exit status of a daemon that found another one holding the lock
READ_TIMEOUT = 30.0
TICK = 1.0  # seconds: the ticker's longest sleep (usage, run limits, kill sequences, simulated ends)
WAKE = "mbatchd.wake"  # in LSFEMU_HOME: the ticker's datagram socket (job ends, requests)
log = logging.getLogger("lsfemu.daemon")


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        daemon: Daemon = self.server.daemon  # type: ignore[attr-defined]
        sock: socket.socket = self.request
        sock.settimeout(READ_TIMEOUT)
        try:
            creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            _pid, uid, _gid = struct.unpack("3i", creds)
            n = int.from_bytes(recv_exact(sock, 4), "big")
            if n > MAX_REQUEST:
                sock.sendall(encode_response("", f"lsfemu: request larger than {MAX_REQUEST} bytes refused\n", 255))
                return
            req = decode_request(recv_exact(sock, n))
        except (OSError, ValueError, struct.error, ConnectionError) as e:
            log.info("dropped a connection: %s", e)
            return
        resp = daemon.serve(req, uid)
        try:
            sock.sendall(encode_response(resp["out"], resp["err"], resp["rc"]))
        except OSError as e:
            log.info("client went away before the answer: %s", e)
        if daemon.stop_pending:
            daemon.stopping.set()


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """Each connection served by a thread of a pool (issue 23: a thread started and
    waited for per request cost the sequential submission about a quarter of a
    millisecond): a connection goes to an idle worker, or to a new one when none
    is idle (a request that waits long, bsub -K, never holds up the others);
    at most IDLE_WORKERS stay waiting for the next."""

    daemon_threads = True
    allow_reuse_address = True
    IDLE_WORKERS = 8

    def __init__(self, *args, **kwargs):
        self._connections: queue.SimpleQueue = queue.SimpleQueue()
        self._idle = 0  # workers waiting on _connections, or about to, with none promised to them
        self._idle_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def process_request(self, request, client_address) -> None:
        with self._idle_lock:
            spawn = self._idle == 0
            if not spawn:
                self._idle -= 1  # an idle worker's: each connection put has a taker
        self._connections.put((request, client_address))
        if spawn:
            threading.Thread(target=self._work, daemon=True).start()

    def _work(self) -> None:
        while True:
            request, client_address = self._connections.get()
            self.process_request_thread(request, client_address)  # (handles errors, closes the connection)
            with self._idle_lock:
                if self._idle >= self.IDLE_WORKERS:
                    return
                self._idle += 1


class _TcpHandler(socketserver.BaseRequestHandler):
    """A command from another host (lsfemu/daemon/tcp.py decides whether to trust it)."""

    def handle(self) -> None:
        daemon: Daemon = self.server.daemon  # type: ignore[attr-defined]
        gate = daemon.tcp
        sock: socket.socket = self.request
        sock.settimeout(READ_TIMEOUT)
        addr = normal_address(str(self.client_address[0]))
        cluster = daemon.cluster  # None in a standby master candidate: the start's configuration
        cfg = cluster.config if cluster is not None else daemon.tcp_config
        host = gate.host_of(addr, [h.name for h in cfg.cluster_hosts])
        try:
            n = int.from_bytes(recv_exact(sock, 4), "big")
            if host is None:
                log.warning("refused a TCP connection from %s: no host of %s has this address",
                            addr, cfg.files.get("lsf.cluster", "lsf.cluster." + cfg.cluster_name))
                if n <= REFUSAL_READ_LIMIT:
                    recv_exact(sock, n)  # read it, so the refusal is not lost to a reset
                    sock.sendall(refusal(NON_LSF_HOST))
                return
            if n > MAX_REQUEST:
                sock.sendall(refusal(f"lsfemu: request larger than {MAX_REQUEST} bytes refused"))
                return
            raw = recv_exact(sock, n)
        except (OSError, ValueError, ConnectionError) as e:
            log.info("dropped a TCP connection from %s: %s", addr, e)
            return
        # A standby that took over (lsfemu.daemon.master) does not know the nonces the
        # old master saw: it refuses requests signed before it became the master.
        since = getattr(getattr(daemon, "candidate", None), "became_master", None)
        verdict = gate.verify(raw, not_before=since)
        try:
            if isinstance(verdict, str):
                log.warning("refused a request from host %s (%s): %s", host, addr, verdict)
                sock.sendall(refusal(f"User permission denied: {verdict}; nothing was changed"))
                return
            user, nonce, req = verdict
            if req["cmd"] == "lsfemu" and req["argv"][:1] == ["daemon"]:
                # Stopping or inspecting a daemon is for its own host (the Unix socket).
                sock.sendall(gate.answer(nonce, "", "lsfemu: 'lsfemu daemon ...' acts on the daemon of "
                                         "this host only; run it on the master host\n", 255))
                return
            # The submission host is the peer's, whatever the request says.
            req["env"]["LSFEMU_SUBMIT_HOST"] = host
            resp = daemon.serve(req, -1, user=user)
            sock.sendall(gate.answer(nonce, resp["out"], resp["err"], resp["rc"]))
        except OSError as e:
            log.info("host %s went away before the answer: %s", host, e)
        if daemon.stop_pending:
            daemon.stopping.set()


class _TcpServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64

    def __init__(self, port: int, fd: int | None = None, address: str | None = None):
        if address:
            # LSFEMU_MBD_ADDRESS: one address only, so that two master candidates can
            # share a machine (127.0.0.1 and 127.0.0.2, say) and LSB_MBD_PORT.
            info = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)[0]
            self.address_family, host = info[0], info[4][0]
        else:
            # All addresses, dual stack where the system has it (IPv4 peers then look like ::ffff:a.b.c.d).
            self.address_family = socket.AF_INET6 if socket.has_dualstack_ipv6() else socket.AF_INET
            host = "::" if self.address_family == socket.AF_INET6 else "0.0.0.0"
        self.wildcard = not address
        if fd is None:
            super().__init__((host, port), _TcpHandler)
        else:
            super().__init__((host, port), _TcpHandler, bind_and_activate=False)
            self.socket.close()
            self.socket = socket.socket(fileno=fd)

    def server_bind(self) -> None:
        if self.address_family == socket.AF_INET6 and self.wildcard:
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


#: the commands whose requests are committed in groups (Daemon.serve)
GROUPED = frozenset({"bsub"})


class _Waiting:
    """A grouped request waiting for the daemon, and its answer once run."""

    __slots__ = ("req", "uid", "user", "answer")

    def __init__(self, req: dict, uid: int, user: str | None):
        self.req, self.uid, self.user = req, uid, user
        self.answer: dict | None = None


class Daemon:
    def __init__(self, home: str, envdir: str):
        self.home = home
        self.envdir = envdir
        self.lock = threading.Lock()
        self.waiting: list[_Waiting] = []  # grouped requests not yet taken (under waiting_lock)
        self.waiting_lock = threading.Lock()
        self.cluster = None
        self.stopping = threading.Event()
        self.restart_requested = False
        self.stop_pending = False
        self.started_at = time.time()
        self.tcp = None  # lsfemu.daemon.tcp.TcpGate when LSB_MBD_PORT is set
        self.tcp_server: _TcpServer | None = None
        self.tcp_config = None  # the configuration at start (hosts), for a daemon without a cluster
        self.candidate = None  # lsfemu.daemon.master.Candidate in a shared cluster
        self.wake_sock: socket.socket | None = None  # the ticker's wake socket (None: ticks only)
        self.wake_path: str | None = None
        self.next_tick = 0.0  # the wall instant the ticker sleeps until

    # Called by commands (lsfemu daemon stop, badmin mbdrestart): the daemon
    # stops once the answer to that command has been sent.
    def stop_after_reply(self, restart: bool = False) -> None:
        self.restart_requested = restart
        self.stop_pending = True

    def serve(self, req: dict, uid: int, user: str | None = None) -> dict:
        """Run a request; `user` is set for a signed TCP request (from another host).

        A submission (GROUPED) joins the waiting ones; whichever thread gets
        the daemon next runs all that wait then as one group (dispatch.handle_group)."""
        if req.get("cmd") not in GROUPED:
            with self.lock:
                refused = self._refusal(req, user)
                if refused is not None:
                    return refused
                self._before()
                r = dispatch.handle(self.cluster, req, uid, user=user, daemon=self)
                self._after()
                return self._answer(r)
        me = _Waiting(req, uid, user)
        with self.waiting_lock:
            self.waiting.append(me)
        with self.lock:
            if me.answer is None:  # not run by the group before: this thread runs the group
                with self.waiting_lock:
                    group, self.waiting = self.waiting, []
                self._run_group(group)
        return me.answer  # type: ignore[return-value]

    def _run_group(self, group: list[_Waiting]) -> None:
        run = []
        for w in group:
            w.answer = self._refusal(w.req, w.user)
            if w.answer is None:
                run.append(w)
        if run:
            self._before()
            results = dispatch.handle_group(self.cluster, [(w.req, w.uid, w.user) for w in run], daemon=self)
            self._after()
            for w, r in zip(run, results):
                w.answer = self._answer(r)

    def _before(self) -> None:
        if self.cluster is not None:
            self.cluster.runner.wake = self.wake_path

    def _after(self) -> None:
        cl = self.cluster
        if cl is not None and cl.clock.mode == "wall" and self.wake_path is not None:
            due = cl.loop.due()  # (a submission with JOB_SCHEDULING_INTERVAL: a pass due before the next tick)
            if due is not None and due < self.next_tick:
                self.next_tick = due
                self.poke()

    def _refusal(self, req: dict, user: str | None) -> dict | None:
        """The answer to a request this daemon does not run (another LSF_ENVDIR; a standby), or None."""
        env = req.get("env") or {}
        want = env.get("LSF_ENVDIR") if isinstance(env, dict) and user is None else None
        # (the same string is the same folder: no realpath's lstat per component then)
        if (want and want != self.envdir and os.path.realpath(want) != os.path.realpath(self.envdir)
                and req.get("cmd") != "lsfemu"):
            return {"out": "", "err": (
                f"lsfemu: the daemon in {self.home} serves LSF_ENVDIR={self.envdir}, not {want}; "
                f"run 'lsfemu daemon stop' or set LSFEMU_HOME to another folder\n"), "rc": 255}
        if self.candidate is not None:
            return self.candidate.answer(req)
        return None

    def _answer(self, r) -> dict:
        if self.candidate is not None and self.candidate.lost:
            return self.candidate.not_master()  # fenced: nothing was committed; the client asks the next one
        return {"out": r.out, "err": r.err, "rc": r.rc}

    # -- the ticker ------------------------------------------------------------------
    def open_wake(self) -> None:
        """Bind the wake socket (we hold the lock: a file left by a crash is stale). A
        path too long for a socket (or any failure) leaves the ticker on its TICK."""
        path = os.path.join(self.home, WAKE)
        try:
            if os.path.exists(path):
                os.unlink(path)
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            old_umask = os.umask(0o077)
            try:
                sock.bind(path)
            finally:
                os.umask(old_umask)
            sock.setblocking(False)
        except OSError as e:
            log.info("no wake socket (%s): job ends are collected every %g s", e, TICK)
            return
        self.wake_sock, self.wake_path = sock, path

    def poke(self) -> None:
        """Wake the ticker now (best effort)."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
                s.setblocking(False)
                s.sendto(b"r", self.wake_path)
        except (OSError, TypeError):
            pass

    def wait_tick(self) -> None:
        """Sleep until the next tick is due, a wrapper's or a request's datagram, or the stop."""
        wait = min(TICK, max(0.0, self.next_tick - time.time()))
        sock = self.wake_sock
        if sock is None:
            self.stopping.wait(wait)
            return
        try:
            if select.select([sock], [], [], wait)[0]:
                while True:  # several ends at once: one tick for all
                    sock.recv(64)
        except (BlockingIOError, InterruptedError):
            pass
        except (OSError, ValueError):  # closed at the stop
            self.stopping.wait(wait)

    def tick(self) -> None:
        while not self.stopping.is_set():
            self.wait_tick()
            if self.stopping.is_set():
                break
            self.next_tick = time.time() + TICK
            if self.cluster is None or self.cluster.clock.mode != "wall":
                continue  # a standby master candidate, or the virtual clock
            with self.lock:
                cl = self.cluster
                if cl is None:
                    continue
                cl.runner.wake = self.wake_path
                try:
                    cl.catch_up()
                    cl.commit()
                    due = cl.loop.due()
                    if due is not None:
                        self.next_tick = min(self.next_tick, due)
                except Exception as e:
                    why = storage_failure(e, self.home)
                    if why is not None:  # full, read-only, locked: one line a second, no traceback
                        log.error("scheduling tick failed: %s", why)
                    else:
                        log.exception("scheduling tick failed")
                    cl.session.rollback()
                    cl.reload_jobs()

    def run(self) -> int:
        """Start (one line to the log and the starting client when that fails), serve, stop."""
        try:
            started = self._start()
        except Exception as e:
            why = storage_failure(e, self.home)
            if why is None:  # a bug: the traceback goes to the log, above the message
                log.exception("the daemon could not start")
                why = f"{type(e).__name__}: {e}"
            report_start(why)  # first: the log may not take the message (a full disk)
            _say(f"lsfemu: cannot start the daemon:\n{why}")
            return 1
        if isinstance(started, int):
            report_start(None)
            return started
        lockf, server = started
        report_start(None)
        return self._serve(lockf, server)

    def _start(self):
        """Lock, open the store, bind the socket: (lock file, server), or an exit status."""
        os.makedirs(self.home, mode=0o700, exist_ok=True)
        mode = os.stat(self.home).st_mode & 0o777
        if mode & 0o077:
            # The store, the socket and the log are the owner's only. Only ever take
            # permissions away: a folder its owner made read-only stays so.
            os.chmod(self.home, mode & 0o700)
        inherited = os.environ.pop("LSFEMU_LOCK_FD", None)
        if inherited is not None:
            # Re-exec'd by badmin mbdrestart: the lock was kept across exec.
            lockf = os.fdopen(int(inherited), "a+")
        else:
            lockf = open(os.path.join(self.home, "mbatchd.lock"), "a+")
            try:
                fcntl.flock(lockf, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                _say(f"lsfemu: a daemon already runs for {self.home}")
                return ALREADY_RUNNING
        lockf.seek(0)
        lockf.truncate()
        lockf.write(f"{os.getpid()}\n")
        lockf.flush()
        try:
            setup = master.shared_setup(self.envdir, self.home)
            if setup is None:  # SQLite: the flock above is all
                self.cluster = Cluster(self.envdir, self.home)
            else:  # PostgreSQL: the cluster comes with the store's master lock
                self.candidate = master.Candidate(self, setup)
                if not self.candidate.first_attempt(0.0 if setup.shared else master.SOLO_WAIT) and not setup.shared:
                    raise master.SetupError(
                        f"lsfemu: cannot start the daemon: another daemon runs cluster {setup.cluster_name} on "
                        f"this store (LSFEMU_DB); several daemons on one store are the master candidates of "
                        f"a shared cluster: LSF_MASTER_LIST and LSB_SHAREDIR in {setup.conf}")
                # a shared cluster's standby serves its socket and tries the lock every second
        except master.SetupError as e:
            lockf.close()
            _say(str(e))
            return 1
        except Exception as e:  # config or store error: say it and stop
            lockf.close()
            if storage_failure(e, self.home) is not None:
                raise
            _say(f"lsfemu: cannot start the daemon:\n{e}")
            return 1
        try:
            self._listen_tcp()
        except RuntimeError as e:  # no key, port taken: say it and stop, before MBD_START
            lockf.close()
            _say(f"lsfemu: cannot start the daemon:\n{e}")
            return 1
        if self.candidate is None:  # (a master candidate did this when it took the lock)
            cfg = self.cluster.config
            # Like mbatchd, a (re)started daemon knows only the jobs finished within CLEAN_PERIOD.
            self.cluster.restart_usage()
            self.cluster.events.stage(emit.mbd_start(self.cluster.now(), cfg.cluster_name, cfg.master_host,
                                                     num_hosts=len(cfg.host_names), num_queues=len(cfg.queues)))
            self.cluster.commit()

        path = os.path.join(self.home, "mbatchd.sock")
        inherited_sock = os.environ.pop("LSFEMU_SOCKET_FD", None)
        if inherited_sock is not None:
            # badmin mbdrestart handed over the listening socket: connections
            # that queued up during the restart are served by this image.
            server = _Server(path, _Handler, bind_and_activate=False)
            server.socket = socket.socket(fileno=int(inherited_sock))
        else:
            if os.path.exists(path):
                os.unlink(path)  # stale: we hold the lock, so no daemon owns it
            old_umask = os.umask(0o077)
            try:
                server = _Server(path, _Handler)
            finally:
                os.umask(old_umask)
            os.chmod(path, 0o700)
        return lockf, server

    def _listen_tcp(self) -> None:
        """LSB_MBD_PORT in lsf.conf: also serve signed commands from the cluster's hosts."""
        if self.cluster is not None:
            self.tcp_config = self.cluster.config
        else:
            self.tcp_config = load_all(self.envdir)
        port = self.tcp_config.lsf_conf.get("LSB_MBD_PORT", "").strip()
        inherited = os.environ.pop("LSFEMU_TCP_FD", None)
        if not port:
            if inherited is not None:
                os.close(int(inherited))
            return
        try:
            key = ensure_key(self.envdir)
        except (KeyFileError, OSError) as e:
            raise RuntimeError(f"LSB_MBD_PORT is set but the cluster key cannot be used: {e}") from None
        self.tcp = TcpGate(key)
        address = os.environ.get("LSFEMU_MBD_ADDRESS", "").strip() or None
        where = f"{address} port {port}" if address else f"TCP port {port}"
        try:
            self.tcp_server = _TcpServer(int(port), int(inherited) if inherited is not None else None, address)
        except OSError as e:
            raise RuntimeError(f"cannot listen on {where} (LSB_MBD_PORT): {e.strerror or e}") from None
        log.info("listening on %s for signed commands from the hosts of the cluster", where)

    def _serve(self, lockf, server) -> int:
        path = os.path.join(self.home, "mbatchd.sock")
        server.daemon = self  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
        if self.tcp_server is not None:
            self.tcp_server.daemon = self  # type: ignore[attr-defined]
            threading.Thread(target=self.tcp_server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
        self.open_wake()
        threading.Thread(target=self.tick, daemon=True).start()
        if self.candidate is not None:
            self.candidate.start()
        signal.signal(signal.SIGTERM, lambda *_: self.stopping.set())
        signal.signal(signal.SIGINT, lambda *_: self.stopping.set())
        log.info("daemon %d serving %s (envdir %s)", os.getpid(), path, self.envdir)
        self.stopping.wait()
        server.shutdown()
        if self.tcp_server is not None:
            self.tcp_server.shutdown()
        with self.lock:
            if not self.restart_requested:
                server.server_close()
                if self.tcp_server is not None:
                    self.tcp_server.server_close()
                for name in (path, self.wake_path):
                    try:
                        if name:
                            os.unlink(name)
                    except FileNotFoundError:
                        pass
            if self.cluster is not None:  # else a standby master candidate: nothing to record
                # exit code as mbatchd logs it (lsbatch.h): MASTER_RECONFIG (202) for badmin mbdrestart,
                # else the signal that stops it (15, SIGTERM); badmin mbdhist prints the reason from it
                self.cluster.events.stage(emit.mbd_die(self.cluster.now(), self.cluster.master_name
                                                       or self.cluster.config.master_host,
                                                       exit_code=202 if self.restart_requested else 15))
                try:
                    self.cluster.commit()
                except Exception as e:  # a full disk: stop all the same; the next start recovers
                    log.error("could not record the daemon's stop: %s", e)
                self.cluster.events.close()
                self.cluster.engine.dispose()
            if self.candidate is not None:
                self.candidate.close()  # the master lock goes with its connection: a standby takes over
        if self.restart_requested:
            # Keep holding the lock through exec so that no other daemon starts meanwhile.
            os.set_inheritable(lockf.fileno(), True)
            os.environ["LSFEMU_LOCK_FD"] = str(lockf.fileno())
            os.set_inheritable(server.socket.fileno(), True)
            os.environ["LSFEMU_SOCKET_FD"] = str(server.socket.fileno())
            if self.tcp_server is not None:  # the TCP port too: no gap for other hosts
                os.set_inheritable(self.tcp_server.socket.fileno(), True)
                os.environ["LSFEMU_TCP_FD"] = str(self.tcp_server.socket.fileno())
            os.execv(sys.executable, [sys.executable, "-m", "lsfemu.daemon"])
        lockf.close()
        return 0


_start_fd: int | None = None


def _say(text: str) -> None:
    """A line for the log (stderr); a full disk must not turn it into a crash."""
    try:
        print(text, file=sys.stderr, flush=True)
    except OSError:
        pass


def report_start(failure: str | None) -> None:
    """Tell the client that started this daemon (LSFEMU_START_FD, a pipe) why
    the start failed, in one line; then close the pipe. Works on a full disk,
    where the log cannot take the message."""
    global _start_fd
    fd, _start_fd = _start_fd, None
    if fd is None:
        return
    try:
        if failure:
            os.write(fd, (" ".join(failure.split()) + "\n").encode("utf-8", "replace"))
    except OSError:
        pass
    finally:
        try:
            os.close(fd)
        except OSError:
            pass


def main() -> int:
    global _start_fd
    fd = os.environ.pop("LSFEMU_START_FD", None)
    _start_fd = int(fd) if fd and fd.isdigit() else None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    dispatch.remember_timezone()
    home = os.environ.get("LSFEMU_HOME") or os.path.join(os.path.expanduser("~"), ".lsfemu")
    envdir = os.environ.get("LSF_ENVDIR")
    if not envdir:
        print("lsfemu: LSF_ENVDIR is not set; run 'lsfemu init DIR' and 'export LSF_ENVDIR=DIR'", file=sys.stderr)
        return 1
    return Daemon(home, envdir).run()
