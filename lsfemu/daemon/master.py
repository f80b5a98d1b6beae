"""Master and candidates of a shared cluster (LSF_MASTER_LIST with a PostgreSQL store).

Owns who runs the cluster when several daemons, one per host of
LSF_MASTER_LIST, share one PostgreSQL database:

- **Candidacy.** A daemon is a candidate when the store is PostgreSQL and
  lsf.conf sets LSF_MASTER_LIST and LSB_SHAREDIR (lsb.events and the job spool
  live in LSB_SHAREDIR/<cluster>, as in LSF, so that every candidate sees
  them); its host (`LSFEMU_HOSTNAME`, else the system's host name) must be in
  the list. With SQLite nothing here is used: one daemon per LSFEMU_HOME, as
  before. With PostgreSQL but no LSB_SHAREDIR (`lsfemu init` writes
  LSF_MASTER_LIST="hostA", an emulated host) the daemon runs alone as before,
  but holds the same lock: a second daemon on the store refuses to start
  rather than run the cluster a second time.
- **The master role** is a session-level PostgreSQL advisory lock
  (`pg_try_advisory_lock`) taken on a dedicated connection that stays open.
  The server releases it when that connection ends, so a master that dies
  (even by SIGKILL) or loses its database frees the role. A standby retries the
  lock every RETRY seconds; when it gets it, it builds the cluster from the
  store (everything acknowledged was committed before its acknowledgement),
  writes MBD_START naming itself into lsb.events (LSF has no takeover record: a
  new master's mbatchd starts, and logs MBD_START) and serves.
- **Fencing.** Before every commit (`Cluster.fence`, called before the records
  reach the shared lsb.events) the master checks its lock connection, takes the
  store's writer lock in the commit's transaction and checks again; if the
  connection is gone, so may be the lock: the commit is refused, the request is
  answered NOT_MASTER_RC (it changed nothing, the client asks the next
  candidate) and the daemon stops acting at once and stands by again. The
  election thread checks every RETRY seconds, so an idle master also notices.
  A new master waits for the writer lock before it reads the store
  (`_barrier`), so a commit that passed the fence is in what it reads
  (docs/semantics.md).
- **Standby answers.** Every command sent to a standby gets NOT_MASTER_RC and
  one line naming the master (read from the database: the holder of the lock
  announces itself in its connection's application_name); `lsfemu daemon
  status|stop` are answered by the standby itself.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import zlib
from dataclasses import dataclass

from lsfemu.config.semantic import load_all
from lsfemu.engine.cluster import Cluster
from lsfemu.events import emit
from lsfemu.jobstate import FINISHED
from lsfemu.protocol import NOT_MASTER_RC
from lsfemu.store.db import WRITER_LOCK_KEY, default_url, lock_timeout, unpooled_engine

log = logging.getLogger("lsfemu.daemon")

RETRY = 1.0  # seconds between a standby's attempts at the lock (and the master's check of it)
SOLO_WAIT = 5.0  # seconds a daemon alone on its store waits for the lock at start (a killed predecessor's session)
#: how long a standby's answer waits for its lock connection, busy with a statement of its own
#: (connecting, a try of the lock), to name the master: a standby just started said "no master
#: holds the cluster" while one did (test_failover under CI's load); a takeover's wait at the
#: barrier lasts longer, and then no master holds it indeed
MASTER_NAME_WAIT = 1.0
LOCK_CLASS = 0x4C534645  # first key of the advisory lock: "LSFE"
APP_PREFIX = "lsfemu-candidate:"  # application_name of a candidate's lock connection: prefix + host


class SetupError(RuntimeError):
    """This daemon may not run as a master candidate; str() is the line to print."""


class NotMaster(RuntimeError):
    """The master role was lost: the change in progress must not be committed."""

    #: the one line lsfemu.store.db.storage_failure gives for it (logged without a traceback)
    storage_reason = "this daemon is not the master (its lock connection to the store failed)"


def hostname() -> str:
    """This daemon's host name: LSFEMU_HOSTNAME (several "hosts" on one machine), else the system's."""
    return os.environ.get("LSFEMU_HOSTNAME") or socket.gethostname()


def same_host(a: str, b: str) -> bool:
    """LSF host names compare without case; a short name matches its fully qualified one."""
    a, b = a.lower(), b.lower()
    return a == b or a.split(".")[0] == b.split(".")[0] and ("." not in a or "." not in b)


def lock_key(cluster_name: str) -> int:
    """Second key of the advisory lock: the cluster's name as a signed 32-bit number."""
    k = zlib.crc32(cluster_name.encode("utf-8"))
    return k - (1 << 32) if k >= (1 << 31) else k


def is_postgres(url: str) -> bool:
    return url.split(":", 1)[0].split("+", 1)[0] in ("postgresql", "postgres")


@dataclass
class Setup:
    url: str
    host: str  # as written in LSF_MASTER_LIST
    candidates: list[str]
    cluster_name: str
    shared_dir: str | None  # LSB_SHAREDIR/<cluster>; None: a daemon alone on its store (files in LSFEMU_HOME)
    conf: str = "lsf.conf"

    @property
    def shared(self) -> bool:
        return self.shared_dir is not None


def shared_setup(envdir: str, home: str) -> Setup | None:
    """How this daemon holds its PostgreSQL store: None for SQLite (the flock on
    LSFEMU_HOME is all); a Setup that is `shared` when lsf.conf sets both
    LSF_MASTER_LIST and LSB_SHAREDIR (a master candidate, this host must be in the
    list); else a daemon alone on its store, which takes the same lock so that a
    second daemon on the store cannot run the cluster too. Raises SetupError when
    it may not run here."""
    url = default_url(home)
    if not is_postgres(url):
        return None
    cfg = load_all(envdir)
    candidates = cfg.lsf_conf.get("LSF_MASTER_LIST", "").split()
    conf = cfg.files.get("lsf.conf", os.path.join(envdir, "lsf.conf"))
    sharedir = cfg.lsf_conf.get("LSB_SHAREDIR", "")
    if not candidates or not sharedir:
        # lsfemu init writes LSF_MASTER_LIST="hostA", a host of the emulated cluster that
        # maps to this machine like every other: without LSB_SHAREDIR it is not a shared cluster.
        return Setup(url=url, host=cfg.master_host, candidates=[cfg.master_host], cluster_name=cfg.cluster_name,
                     shared_dir=None, conf=conf)
    me = hostname()
    mine = [h for h in candidates if same_host(h, me)]
    if not mine:
        raise SetupError(f"lsfemu: cannot start the daemon: host <{me}> is not a master candidate: it is not in "
                         f"LSF_MASTER_LIST=\"{' '.join(candidates)}\" ({conf}); set LSFEMU_HOSTNAME if this "
                         f"host is known by another name")
    if not os.path.isabs(sharedir):
        raise SetupError(f"lsfemu: cannot start the daemon: LSB_SHAREDIR={sharedir} in {conf} is not an absolute "
                         f"path; the master candidates of LSF_MASTER_LIST keep lsb.events in "
                         f"LSB_SHAREDIR/<cluster>/logdir, a folder they all see")
    return Setup(url=url, host=mine[0], candidates=candidates, cluster_name=cfg.cluster_name,
                 shared_dir=os.path.join(sharedir, cfg.cluster_name), conf=conf)


class Candidate:
    """This daemon's part in the election: standby until it holds the lock, then master."""

    def __init__(self, daemon, setup: Setup):
        self.daemon = daemon  # lsfemu.daemon.server.Daemon
        self.setup = setup
        self.key = lock_key(setup.cluster_name)
        self.is_master = False
        self.lost = False  # the master role was lost in the middle of a request
        self.standby_since = time.time()
        self.became_master: float | None = None
        self._engine = None
        self._raw = None  # the lock connection (SQLAlchemy's proxy of a psycopg connection)
        self._conn_lock = threading.Lock()  # the lock connection serves one statement at a time
        self._thread: threading.Thread | None = None
        self._last_error: str | None = None

    # -- the lock connection ------------------------------------------------------
    def _connect(self) -> None:
        if self._engine is None:
            # Keepalives and a user timeout: a master cut off from the database notices
            # within seconds rather than when the kernel gives up on the connection.
            args = {"application_name": APP_PREFIX + self.setup.host, "connect_timeout": 5, "keepalives": 1,
                    "keepalives_idle": 5, "keepalives_interval": 2, "keepalives_count": 2, "tcp_user_timeout": 8000}
            self._engine = unpooled_engine(self.setup.url, args)
        raw = self._engine.raw_connection()
        raw.driver_connection.autocommit = True
        self._raw = raw

    def _query(self, sql: str, params: tuple = (), reconnect: bool = True, wait: bool | float = True):
        """One statement on the lock connection. `wait=False`, or a number of seconds:
        raise BlockingIOError rather than wait (longer) while another statement runs
        (a takeover waiting at `_barrier`)."""
        got = (self._conn_lock.acquire() if wait is True else
               self._conn_lock.acquire(timeout=wait) if wait else self._conn_lock.acquire(blocking=False))
        if not got:
            raise BlockingIOError("the lock connection is busy")
        try:
            if self._raw is None:
                if not reconnect:
                    raise ConnectionError("the lock connection was closed")
                self._connect()
            cur = self._raw.driver_connection.execute(sql, params)
            return cur.fetchone() if cur.description is not None else None
        finally:
            self._conn_lock.release()

    def _drop_connection(self) -> None:
        with self._conn_lock:
            raw, self._raw = self._raw, None
            if raw is not None:
                try:
                    raw.invalidate()  # closes it: the server releases the lock with the session
                except Exception:
                    pass

    def try_lock(self) -> bool:
        return bool(self._query("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, self.key))[0])

    def check(self) -> None:
        """The fence: raise NotMaster unless the lock connection still answers (so the lock is held)."""
        if self.lost or not self.is_master:
            raise NotMaster("this daemon is not the master")
        try:
            self._query("SELECT 1", reconnect=False)  # a new connection would not hold the lock
        except Exception as e:
            self.lost = True
            log.error("master role lost: the lock connection to the store failed (%s); nothing more is committed",
                      " ".join(str(e).split()))
            raise NotMaster("the master role was lost") from None

    def _fence_for(self, cl):
        """The fence of `cl`'s commits: the lock connection answers, checked while the
        commit's transaction holds the store's writer lock (lsfemu.store.db.WRITER_LOCK_KEY,
        which a new master waits for before it reads the store: `_barrier`). So a commit
        that passes the fence ends before any new master reads the store."""
        def fence() -> None:
            self.check()  # fail fast, without waiting for the writer lock
            cl.session.connection().exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITER_LOCK_KEY})")
            self.check()

        return fence

    def _barrier(self) -> None:
        """Just taken the lock: wait until no write transaction of a former master is in
        flight (it holds the writer lock from its fence to its commit), at most
        LSFEMU_DB_TIMEOUT seconds; raises when it does not end."""
        self._query(f"SET lock_timeout = {int(lock_timeout() * 1000)}")
        self._query("SELECT pg_advisory_lock(%s)", (WRITER_LOCK_KEY,))
        self._query("SELECT pg_advisory_unlock(%s)", (WRITER_LOCK_KEY,))

    def master_name(self) -> str | None:
        """The host of the candidate holding the lock, from its connection's application_name."""
        if self.is_master and not self.lost:
            return self.setup.host
        hi, lo = LOCK_CLASS & 0xFFFFFFFF, self.key & 0xFFFFFFFF
        try:
            row = self._query(
                "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = %s AND l.objid::bigint = %s "
                "AND l.objsubid = 2 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
                (hi, lo), wait=MASTER_NAME_WAIT)
        except BlockingIOError:
            return None  # taking over: not the master yet, and no other
        except Exception:
            self._drop_connection()
            return None
        if row is None or not row[0] or not row[0].startswith(APP_PREFIX):
            return None
        return row[0][len(APP_PREFIX):]

    # -- the election ---------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="master-election", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        stopping = self.daemon.stopping
        while not stopping.is_set():
            if self.is_master:
                try:
                    self.check()
                except NotMaster:
                    self.step_down()
            else:
                try:
                    if self.try_lock():
                        self.take_over()
                    elif self._last_error is not None:
                        log.info("the store answers again; standing by")
                        self._last_error = None
                except Exception as e:
                    why = " ".join(str(e).split()) or type(e).__name__
                    if why != self._last_error:  # one line per kind of failure, not one a second
                        log.error("standby: cannot reach the store to try the master lock: %s", why)
                        self._last_error = why
                    self._drop_connection()
            stopping.wait(RETRY)

    def first_attempt(self, wait: float) -> bool:
        """At start, before the socket is bound: take the lock (trying for `wait`
        seconds) and the cluster with it. False: another daemon holds it. Errors
        (configuration, store) are raised, to fail the start as without a lock."""
        deadline = time.monotonic() + wait
        while True:
            if self.try_lock():
                self.take_over(raise_errors=True)
                return True
            if time.monotonic() >= deadline:
                return False
            # a daemon killed a moment ago: its session ends as soon as the server reads the closed socket
            time.sleep(0.1)

    def take_over(self, raise_errors: bool = False) -> None:
        """We hold the lock: read the cluster from the store and serve as its master."""
        t0 = time.time()
        d = self.daemon
        before = self.master_name_seen
        try:
            self._barrier()
            with d.lock:
                if d.stopping.is_set():
                    self._drop_connection()
                    return
                cl = Cluster(d.envdir, d.home, db_url=self.setup.url, shared_dir=self.setup.shared_dir)
                cl.master_name = self.setup.host if self.setup.shared else None  # None: lsid as before
                cl.fence = self._fence_for(cl)
                self.lost = False
                self.is_master = True
                try:
                    cfg = cl.config
                    cl.restart_usage()  # as any new mbatchd: usage from the jobs within CLEAN_PERIOD
                    cl.events.stage(emit.mbd_start(cl.now(), cfg.cluster_name, self.setup.host,
                                                   num_hosts=len(cfg.host_names), num_queues=len(cfg.queues)))
                    cl.commit()
                except BaseException:
                    self.is_master = False
                    _close_cluster(cl)
                    raise
                d.cluster = cl
                self.became_master = time.time()
        except Exception as e:
            self.is_master = False
            self._drop_connection()
            if raise_errors:
                raise
            log.error("took the master lock but could not load the cluster (%s); releasing it",
                      " ".join(str(e).split()) or type(e).__name__)
            return
        if not self.setup.shared:
            return  # a daemon alone on its store: nothing to announce
        unfinished = sum(1 for j in cl.jobs.values() if j.status not in FINISHED)
        log.info("master of cluster %s on host %s (LSF_MASTER_LIST: %s)%s: state read from the store in %.2f s "
                 "(%d unfinished jobs), standby for %.1f s", self.setup.cluster_name, self.setup.host,
                 " ".join(self.setup.candidates), f", taking over from {before}" if before else "",
                 self.became_master - t0, unfinished, t0 - self.standby_since)

    master_name_seen: str | None = None  # the last master a standby answer named

    def step_down(self) -> None:
        """The lock connection failed: stop acting at once and stand by again."""
        d = self.daemon
        with d.lock:
            cl, d.cluster = d.cluster, None
            self.is_master = False
            self.lost = False
            self.standby_since = time.time()
            if cl is not None:
                _close_cluster(cl)
        self._drop_connection()
        log.error("no longer the master of cluster %s: standing by for the master lock (every %g s)",
                  self.setup.cluster_name, RETRY)

    def close(self) -> None:
        """The daemon stops: release the lock (by closing its connection)."""
        self.is_master = False
        self._drop_connection()
        if self._engine is not None:
            self._engine.dispose()

    # -- answers ------------------------------------------------------------------------
    def answer(self, req: dict) -> dict | None:
        """The answer of a standby (under the daemon's lock), or None when this daemon is the master."""
        if self.is_master and not self.lost and self.daemon.cluster is not None:
            return None
        argv = req.get("argv") or []
        if req.get("cmd") == "lsfemu" and argv[:2] == ["daemon", "stop"]:
            self.daemon.stop_after_reply()
            return {"out": "daemon stopping\n", "err": "", "rc": 0}
        master = self.master_name()
        if master:
            self.master_name_seen = master
        if req.get("cmd") == "lsfemu" and argv[:2] == ["daemon", "status"]:
            role = (f"master candidate on standby on host {self.setup.host} "
                    f"(LSF_MASTER_LIST: {' '.join(self.setup.candidates)})" if self.setup.shared
                    else "waiting to take the store's lock again")
            lines = [f"daemon: running, pid {os.getpid()}, up {time.time() - self.daemon.started_at:.0f} s",
                     f"role: {role}",
                     f"master: {master or 'none at the moment'}",
                     f"LSF_ENVDIR: {self.daemon.envdir}",
                     f"LSFEMU_HOME: {self.daemon.home}"]
            return {"out": "\n".join(lines) + "\n", "err": "", "rc": 0}
        return self.not_master(master)

    def not_master(self, master: str | None = None) -> dict:
        if not self.setup.shared:
            return {"out": "", "err": "lsfemu: the daemon lost its hold on the store (LSFEMU_DB) and is taking it "
                                      "again; nothing was changed; try again\n", "rc": NOT_MASTER_RC}
        where = f"the master is {master}" if master else "no master holds the cluster at the moment"
        return {"out": "", "err": f"lsfemu: {self.setup.host} is a master candidate on standby, not the master; "
                                  f"{where}\n", "rc": NOT_MASTER_RC}


def _close_cluster(cl) -> None:
    """Let go of a cluster this daemon no longer runs (nothing is committed)."""
    for step in (cl.session.rollback, cl.session.close, cl.events.close, cl.engine.dispose):
        try:
            step()
        except Exception:
            pass
