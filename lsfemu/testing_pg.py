"""A throwaway PostgreSQL server for tests (used by the `lsfemu.testing` plugin).

`PostgresServer.start()` runs the distribution's own server binaries (Debian:
`/usr/lib/postgresql/<version>/bin/{initdb,pg_ctl}`; elsewhere `initdb` on PATH)
on a fresh data folder, listening on 127.0.0.1 on a free port only, with trust
authentication and no durability (fsync off: it lives for one test session).
PostgreSQL refuses to run as root; as root the server runs as the `postgres`
OS user (`runuser -u postgres --`) in a folder that user owns.

Each test gets its own database, cloned from a template database that already
holds the schema at Alembic's head (`CREATE DATABASE ... TEMPLATE ...` copies
files: a few milliseconds, where running the migrations costs far more).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

TEMPLATE_DB = "lsfemu_template"


class PostgresUnavailable(RuntimeError):
    """The server binaries (or the OS user to run them as root) are missing, or it would not start."""


def find_bindir() -> Path | None:
    """Where initdb and pg_ctl are: the newest Debian/Ubuntu version folder, else PATH."""
    def version(p: str) -> tuple[int, ...]:
        v = Path(p).parent.parent.name
        return tuple(int(x) for x in v.split(".") if x.isdigit()) or (0,)

    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version, reverse=True)
    candidates += glob.glob("/usr/pgsql-*/bin/initdb")  # the PGDG RPM layout
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(on_path)
    for initdb in candidates:
        bindir = Path(initdb).parent
        if (bindir / "pg_ctl").exists() and (bindir / "postgres").exists():
            return bindir
    return None


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (the servers of the tests bind it next)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One private server: `start()`, `new_database()` per test, `stop()` at the end."""

    def __init__(self) -> None:
        self.bindir = find_bindir()
        self.root: Path | None = None
        self.port: int | None = None
        self._as: list[str] = []
        self._names = itertools.count(1)

    # -- running the binaries ----------------------------------------------------------------------
    def _run(self, tool: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        assert self.bindir is not None
        p = subprocess.run(self._as + [str(self.bindir / tool), *args], capture_output=True, text=True,
                           timeout=timeout, cwd=str(self.root))
        if p.returncode != 0:
            raise PostgresUnavailable(f"{tool} failed (rc {p.returncode}): {(p.stderr or p.stdout).strip()}")
        return p

    def start(self) -> None:
        if self.bindir is None:
            raise PostgresUnavailable("PostgreSQL's server binaries (initdb, pg_ctl) are not installed")
        self.root = Path(tempfile.mkdtemp(prefix="lsfemu-pg-"))
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise PostgresUnavailable("running as root and there is no 'postgres' OS user to run the server as")
            runuser = shutil.which("runuser")
            if runuser is None:
                raise PostgresUnavailable("running as root and runuser(1) is missing")
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
            self._as = [runuser, "-u", "postgres", "--"]
        data = self.root / "data"
        self._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--locale=C", "--no-sync", "--data-checksums")
        last = None
        for _ in range(5):  # another process may take the free port between probe and bind
            self.port = free_port()
            opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories={self.root} "
                    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                    "-c max_connections=200 -c shared_buffers=32MB")
            try:
                self._run("pg_ctl", "-D", str(data), "-l", str(self.root / "server.log"), "-o", opts,
                          "-w", "-t", "60", "start")
                break
            except PostgresUnavailable as e:
                last = e
        else:
            raise PostgresUnavailable(f"the server would not start: {last}; log: {self.log_tail()}")
        self._watch()
        self._make_template()

    def _watch(self) -> None:
        """A watchdog that stops the server and removes its folder if this process dies
        without stop() (a killed pytest run must not leave servers behind)."""
        script = (
            "import os, shutil, subprocess, sys, time\n"
            "parent, cmd, root = int(sys.argv[1]), sys.argv[2:-1], sys.argv[-1]\n"
            "while os.path.isdir(root):\n"
            "    try:\n"
            "        os.kill(parent, 0)\n"
            "    except ProcessLookupError:\n"
            "        subprocess.run(cmd, capture_output=True)\n"
            "        shutil.rmtree(root, ignore_errors=True)\n"
            "        break\n"
            "    time.sleep(1)\n")
        stop = self._as + [str(self.bindir / "pg_ctl"), "-D", str(self.root / "data"), "-m", "immediate", "stop"]
        subprocess.Popen([sys.executable, "-c", script, str(os.getpid()), *stop, str(self.root)],
                         start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)

    def log_tail(self, n: int = 20) -> str:
        try:
            return "".join((self.root / "server.log").read_text().splitlines(True)[-n:])
        except (OSError, TypeError):
            return ""

    def stop(self) -> None:
        if self.root is None:
            return
        data = self.root / "data"
        if (data / "postmaster.pid").exists():
            try:
                self._run("pg_ctl", "-D", str(data), "-m", "immediate", "-w", "stop", timeout=60)
            except (PostgresUnavailable, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(self.root, ignore_errors=True)
        self.root = None

    # -- databases ---------------------------------------------------------------------------------
    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def _admin(self, sql: str) -> None:
        import psycopg  # the postgresql extra: only when a server is wanted

        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as conn:
            conn.execute(sql)

    def _make_template(self) -> None:
        """A database at the schema's head, the template of every test's database."""
        from lsfemu.store.db import open_store  # the store (SQLAlchemy) off the plugin's loading

        self._admin(f"CREATE DATABASE {TEMPLATE_DB}")
        engine, _ = open_store(self.url(TEMPLATE_DB))
        engine.dispose()  # CREATE DATABASE ... TEMPLATE needs the template without connections

    def new_database(self, prefix: str = "t", schema: bool = True) -> str:
        """A fresh database of its own, its SQLAlchemy URL: an empty store with the
        schema at head, or (`schema=False`) with no tables at all (migration tests)."""
        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        self._admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE_DB if schema else 'template0'}")
        return self.url(name)

    @contextlib.contextmanager
    def scratch(self, prefix: str):
        """(folder, database URL) of one test, both new and both removed afterwards."""
        root = Path(tempfile.mkdtemp(prefix=prefix))
        url = self.new_database()
        try:
            yield root, url
        finally:
            self.drop_database(url)
            shutil.rmtree(root, ignore_errors=True)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        # FORCE: a daemon a test left behind (or killed) may still hold a connection.
        self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
