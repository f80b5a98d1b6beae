"""pytest plugin for people who test against LSF: an isolated lsfemu cluster
per test, driven through the real command scripts.

    def test_submit(lsf_cluster):
        r = lsf_cluster.run("bsub -J hello sleep 60", user="user1")
        assert r.out == "Job <1> is submitted to default queue <normal>.\\n"
        lsf_cluster.advance("2m")
        assert "DONE" in lsf_cluster.run("bjobs -a 1").out

The fixture writes the `lsfemu init` cluster (or your own files) to a fresh
LSF_ENVDIR, uses a fresh LSFEMU_HOME, a virtual clock starting at a fixed
instant (2026-01-05 09:00:00 UTC) with TZ=UTC, and stops its daemon at the
end. Registered through the `pytest11` entry point, so installing lsfemu
makes `lsf_cluster` available everywhere.

Both stores: a test (or module, through `pytestmark`) marked
`@pytest.mark.lsfemu_stores` runs twice, with `lsfemu_db` (and so `lsf_cluster`
and `lsf_cluster_factory`) on SQLite and on PostgreSQL. The PostgreSQL server
is a private throwaway one per test session (per xdist worker), started from
the installed server binaries (`lsfemu.testing_pg`); each test gets a fresh
database. Without the binaries the PostgreSQL variants are skipped, or fail
when `LSFEMU_REQUIRE_POSTGRES=1` (CI).

Daemon starts: each cluster's daemon is forked from a template process that
imported the daemon once (lsfemu.daemon.forkserver; one per test process,
started with the first cluster) rather than started by a new interpreter
importing it all again, about a second of CPU each. Only the commands that
`LsfCluster.run` runs name it; `LSFEMU_TEST_FORKSERVER=0` turns it off.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

FIXED_START = 1767603600  # Mon Jan  5 09:00:00 2026 UTC
COMMANDS = ("bsub", "bjobs", "bkill", "bstop", "bresume", "bswitch", "bqueues", "bparams",
            "bhosts", "busers", "lsid", "badmin", "lsfemu")


@dataclass
class CommandResult:
    out: str
    err: str
    rc: int

    @property
    def text(self) -> str:
        return self.out + self.err

    @property
    def job_id(self) -> str:
        """The ID in bsub's `Job <ID> is submitted ...` (the command must have succeeded)."""
        assert self.rc == 0 and self.out.startswith("Job <"), self.text
        return self.out.split("<", 1)[1].split(">", 1)[0]


_template: dict[str, object] = {}  # this process's daemon template: its "path" (None: none), "proc", "root"


def daemon_template() -> str | None:
    """The socket of this process's daemon template (lsfemu.daemon.forkserver),
    started on the first call; None when turned off or it could not start.
    Not waited for: until it listens, daemons start as without it."""
    if os.environ.get("LSFEMU_TEST_FORKSERVER", "1") in ("0", "no", "off"):
        return None
    if _template.get("pid") == os.getpid():
        proc = _template["proc"]
        return _template["path"] if proc is not None and proc.poll() is None else None
    root = tempfile.mkdtemp(prefix="lsfemu-fs-")  # short: a socket path
    path = os.path.join(root, "template.sock")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
    pkg_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = pkg_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        proc = subprocess.Popen([sys.executable, "-m", "lsfemu.daemon.forkserver", path], env=env, cwd="/",
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        proc = None
    _template.update(pid=os.getpid(), proc=proc, path=path, root=root)
    atexit.register(_stop_template)
    return path if proc is not None else None


def _stop_template() -> None:
    proc = _template.get("proc")
    if proc is not None and _template.get("pid") == os.getpid():
        proc.terminate()  # the daemons it forked are told SIGTERM as it ends (forkserver._end_with_template)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    if _template.get("root"):
        shutil.rmtree(str(_template["root"]), ignore_errors=True)


#: the flags bin/'s scripts start Python with (their sh lines: the client is standard library only)
SCRIPT_FLAGS = ("-I", "-S")


def _command_path(name: str) -> list[str]:
    """The real command: bin/ of a checkout (run as its sh lines run it, by this
    interpreter), else the installed one (the same script, on PATH)."""
    checkout_bin = Path(__file__).resolve().parent.parent / "bin" / name
    if checkout_bin.exists():
        return [sys.executable, *SCRIPT_FLAGS, str(checkout_bin)]
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"command {name} not found (is lsfemu installed?)")
    return [found]


class LsfCluster:
    """One isolated cluster: its folders, its environment, and command runners."""

    def __init__(self, root: Path, files: dict[str, str] | None = None, clock: str = "virtual",
                 inprocess: bool = False, start: float = FIXED_START, db_url: str | None = None):
        from lsfemu.config.sample import write_cluster  # (here: see store_rows)

        self.root = root
        self.envdir = root / "conf"
        self.home = root / "home"
        write_cluster(str(self.envdir), clock=clock, force=True)
        for rel, text in (files or {}).items():
            p = self.path_of(rel)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
        self.env.update({
            "LSF_ENVDIR": str(self.envdir), "LSFEMU_HOME": str(self.home), "TZ": "UTC",
            "LSFEMU_CLOCK_START": str(int(start)), "HOME": str(root / "userhome"),
        })
        if inprocess:
            self.env["LSFEMU_DAEMON"] = "off"
        self.db_url = db_url  # None: SQLite in LSFEMU_HOME
        if db_url:
            self.env["LSFEMU_DB"] = db_url
        (root / "userhome").mkdir(exist_ok=True)

    @property
    def store_url(self) -> str:
        """The SQLAlchemy URL of the cluster's store (SQLite in LSFEMU_HOME, or LSFEMU_DB)."""
        return self.db_url or f"sqlite:///{self.home / 'lsfemu.db'}"

    def store_rows(self, sql: str, **params) -> list[tuple]:
        """The rows of one query on the cluster's store, whichever its dialect."""
        # (here: the plugin loads in every pytest run where lsfemu is installed,
        # SQLAlchemy only when a test looks at a store)
        from lsfemu.store.db import query_rows

        return query_rows(self.store_url, sql, params)

    def store_intact(self) -> bool:
        """The store's integrity check (lsfemu.store.db.integrity_ok) passes."""
        from lsfemu.store.db import integrity_ok, make_engine  # (here: as in store_rows)

        engine = make_engine(self.store_url)
        try:
            return integrity_ok(engine)
        finally:
            engine.dispose()

    def path_of(self, rel: str) -> Path:
        """Where a configuration file lives: lsf.conf and lsf.cluster.* in LSF_ENVDIR, lsb.* in configdir."""
        if rel.startswith("lsb."):
            return self.envdir / "lsbatch" / "cluster1" / "configdir" / rel
        return self.envdir / rel

    def write(self, rel: str, text: str) -> None:
        self.path_of(rel).write_text(text)

    def run(self, cmdline: str | list[str], user: str | None = None, stdin: str | None = None,
            cwd: str | None = None, env: dict[str, str] | None = None, timeout: float = 60) -> CommandResult:
        argv = shlex.split(cmdline) if isinstance(cmdline, str) else list(cmdline)
        full_env = dict(self.env)
        template = daemon_template()
        if template is not None:  # the daemon this command may start is forked from it
            full_env.setdefault("LSFEMU_FORKSERVER", template)
        if user is not None:
            full_env["LSFEMU_USER"] = user
        full_env.update(env or {})
        p = subprocess.run(_command_path(argv[0]) + argv[1:], input=stdin, capture_output=True,
                           text=True, env=full_env, cwd=cwd or str(self.root / "userhome"), timeout=timeout)
        return CommandResult(p.stdout, p.stderr, p.returncode)

    def advance(self, duration: str) -> CommandResult:
        r = self.run(["lsfemu", "clock", "advance", duration])
        assert r.rc == 0, r.text
        return r

    def stop(self) -> None:
        if self.env.get("LSFEMU_DAEMON") == "off":
            return
        self.run(["lsfemu", "daemon", "stop"])


@contextlib.contextmanager
def temporary_cluster(**kw):
    """An LsfCluster (LsfCluster's keywords) in a fresh folder, its daemon stopped
    and the folder removed afterwards: for a fixture of any scope, e.g. one
    cluster that the tests of a module share, each with its own users or jobs."""
    # A short path: Unix socket paths are limited to about 100 bytes.
    root = Path(tempfile.mkdtemp(prefix="lsfemu-"))
    cluster = LsfCluster(root, **kw)
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


STORES = ("sqlite", "postgresql")


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "lsfemu_stores: run the test on SQLite and on PostgreSQL (fixture lsfemu_db)")


def pytest_generate_tests(metafunc) -> None:
    if metafunc.definition.get_closest_marker("lsfemu_stores") and "lsfemu_db" in metafunc.fixturenames:
        metafunc.parametrize("lsfemu_db", STORES, indirect=True)


def _postgres_required() -> bool:
    return os.environ.get("LSFEMU_REQUIRE_POSTGRES", "") not in ("", "0")


@pytest.fixture(scope="session")
def lsfemu_postgres():
    """A throwaway PostgreSQL server for the session (lsfemu.testing_pg.PostgresServer);
    skipped when PostgreSQL is not installed, failed then if LSFEMU_REQUIRE_POSTGRES=1."""
    from lsfemu.testing_pg import PostgresServer, PostgresUnavailable  # (here: see store_rows)

    server = PostgresServer()
    try:
        server.start()
    except BaseException as e:
        server.stop()
        if not isinstance(e, (PostgresUnavailable, ImportError)):  # ImportError: psycopg missing
            raise
        reason = f"PostgreSQL unavailable: {e}"
        if _postgres_required():
            pytest.fail(f"{reason} (and LSFEMU_REQUIRE_POSTGRES=1)", pytrace=False)
        pytest.skip(reason)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def lsfemu_db(request):
    """The store URL of this test: None (SQLite in LSFEMU_HOME, the default), or a
    fresh PostgreSQL database when parametrised "postgresql" (mark `lsfemu_stores`)."""
    kind = getattr(request, "param", "sqlite")
    if kind == "sqlite":
        yield None
        return
    server = request.getfixturevalue("lsfemu_postgres")
    url = server.new_database()
    try:
        yield url
    finally:
        server.drop_database(url)


@pytest.fixture
def lsf_cluster(lsfemu_db):
    """An isolated lsfemu cluster (virtual clock, TZ=UTC); its daemon is stopped afterwards."""
    with temporary_cluster(db_url=lsfemu_db) as cluster:
        yield cluster


@pytest.fixture
def lsf_cluster_factory(lsfemu_db, request):
    """Make clusters with your own files / options: factory(files={...}, clock=..., inprocess=...).
    The first cluster uses the test's store (`lsfemu_db`); on PostgreSQL every further one
    gets a fresh database of its own, as each cluster on SQLite has its own file."""
    made: list[LsfCluster] = []
    extra_dbs: list[str] = []
    server = request.getfixturevalue("lsfemu_postgres") if lsfemu_db else None

    def make(**kw) -> LsfCluster:
        root = Path(tempfile.mkdtemp(prefix="lsfemu-"))
        if "db_url" not in kw and lsfemu_db:
            if made:
                extra_dbs.append(server.new_database())
                kw["db_url"] = extra_dbs[-1]
            else:
                kw["db_url"] = lsfemu_db
        c = LsfCluster(root, **kw)
        made.append(c)
        return c

    yield make
    for c in made:
        c.stop()
        shutil.rmtree(c.root, ignore_errors=True)
    for url in extra_dbs:
        server.drop_database(url)
