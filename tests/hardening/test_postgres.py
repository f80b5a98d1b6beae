"""A PostgreSQL store that fails: server unreachable, the store locked by
another connection, the daemon's connection cut by the server. Each gives one
LSF-style line (never a traceback), changes nothing, and the cluster works
again once the cause is gone. And several in-process commands at once on one
store (either dialect) allocate job IDs without duplicates or gaps."""

import concurrent.futures
import re
import signal
import subprocess
import sys
import time

import pytest
from store_snapshot import snapshot

from lsfemu.events.records import JobNew
from lsfemu.events.log import read_events
from lsfemu.store.db import WRITER_LOCK_KEY

pytestmark = pytest.mark.slow(31)  # seconds, quiet machine: scheduled early (tests/conftest.py)

SUBMITTED = re.compile(r"^Job <(\d+)> is submitted to default queue <normal>\.\n$")


def _submit(c, name: str, **kw) -> int:
    r = c.run(["bsub", "-J", name, "sleep", "1000"], user="user1", **kw)
    m = SUBMITTED.match(r.out)
    assert m and r.rc == 0, r.text
    return int(m.group(1))


def _one_line_refusal(r, pattern: str) -> None:
    assert r.rc != 0 and r.out == "", r.text
    assert "Traceback" not in r.err, r.err
    assert re.fullmatch(pattern + r"\n", r.err), r.err


def _closed_port() -> int:
    import socket

    with socket.socket() as s:  # bound, never listening: connections are refused
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("inprocess", [False, True])
def test_unreachable_server_is_one_line(lsf_cluster_factory, inprocess):
    """No server at LSFEMU_DB's address: the daemon cannot start (said in one line
    by the command that tried to start it), in-process commands say the same."""
    url = f"postgresql+psycopg://postgres@127.0.0.1:{_closed_port()}/lsfemu"
    c = lsf_cluster_factory(db_url=url, inprocess=inprocess)
    unreachable = (r"Operation cannot be performed right now: cannot reach the store's database server: "
                   r'connection to server at "127\.0\.0\.1", port \d+ failed: Connection refused')
    prefix = "lsfemu: " if inprocess else "LSF is down: mbatchd cannot start: "
    _one_line_refusal(c.run("bsub sleep 10", user="user1"), re.escape(prefix) + unreachable)
    _one_line_refusal(c.run("bjobs"), re.escape(prefix) + unreachable)


HOLD_LOCK = """
import sys, psycopg
conn = psycopg.connect(sys.argv[1], autocommit=True)
conn.execute("SELECT pg_advisory_lock(%d)" % int(sys.argv[2]))
print("locked", flush=True)
sys.stdin.read()
"""


def test_locked_store_waits_then_refuses_in_one_line(lsf_cluster, lsfemu_postgres):
    """Another connection holds the store's writer lock (as a second daemon's
    transaction would): a command waits LSFEMU_DB_TIMEOUT seconds (1 here), then
    fails in one line and changes nothing; released, the next job gets the next ID."""
    c = lsf_cluster
    c.db_url = lsfemu_postgres.new_database()
    c.env["LSFEMU_DB"] = c.db_url
    c.env["LSFEMU_DB_TIMEOUT"] = "1"
    assert _submit(c, "before") == 1
    before = snapshot(c)
    dsn = c.db_url.replace("postgresql+psycopg://", "postgresql://")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, dsn, str(WRITER_LOCK_KEY)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "locked\n"
        locked = re.escape(f"Operation cannot be performed right now: the store in {c.home} is locked "
                           f"by another process (waited 1 s)")
        t0 = time.monotonic()
        _one_line_refusal(c.run(["bsub", "-J", "blocked", "sleep", "10"], user="user1"),
                          locked + r"\. Job not submitted\.")
        assert 0.9 <= time.monotonic() - t0 < 10
        _one_line_refusal(c.run(["bkill", "1"], user="user1"), "bkill: " + locked + "; nothing was changed")
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert snapshot(c) == before
    assert _submit(c, "after") == 2
    assert c.run("bjobs -u all -noheader -o 'jobid job_name stat'").out == "1 before PEND\n2 after PEND\n"
    lsfemu_postgres.drop_database(c.db_url)


def test_daemon_survives_its_connection_cut(lsf_cluster, lsfemu_postgres):
    """The server ends the daemon's connections (a restart, an administrator's
    pg_terminate_backend): the next commands reconnect; nothing acknowledged is lost."""
    c = lsf_cluster
    c.db_url = lsfemu_postgres.new_database()
    c.env["LSFEMU_DB"] = c.db_url
    assert _submit(c, "one") == 1
    lsfemu_postgres._admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           f"WHERE datname = '{c.db_url.rsplit('/', 1)[1]}' AND pid <> pg_backend_pid()")
    # The daemon may answer with a one-line refusal while it reconnects (and, holding
    # the master lock on its own connection, takes the lock again: lsfemu.daemon.master);
    # within seconds commands work again.
    results = []
    deadline = time.monotonic() + 20
    while sum(r.rc == 0 for r in results) < 3 and time.monotonic() < deadline:
        results.append(c.run(["bsub", "-J", f"after{len(results)}", "sleep", "10"], user="user1"))
        if results[-1].rc != 0:
            time.sleep(0.5)
    for r in results:  # never a traceback, never a partial acknowledgement
        assert "Traceback" not in r.err and (r.rc == 0 or (r.out == "" and len(r.err.splitlines()) == 1)), r.text
    assert sum(r.rc == 0 for r in results) == 3, [r.text for r in results]
    ids = [int(SUBMITTED.match(r.out).group(1)) for r in results if r.rc == 0]
    assert ids == [2, 3, 4]  # a refused submission used no ID
    assert c.run("bjobs -u all -noheader -o jobid").out.split() == [str(i) for i in [1] + ids]
    assert c.store_intact()
    c.stop()
    lsfemu_postgres.drop_database(c.db_url)


def test_a_cut_idle_connection_fails_no_request(lsf_cluster, lsfemu_postgres):
    """The daemon's store connection, cut by the server while the daemon was
    idle (a restart, an idle-session timeout), is replaced before the next
    transaction's first statement (the pool's check): the request that comes
    after the cut does not fail (docs/semantics.md, "One connection kept")."""
    from sqlalchemy import text

    from lsfemu.engine.cluster import Cluster

    c = lsf_cluster
    url = lsfemu_postgres.new_database()
    cl = Cluster(str(c.envdir), str(c.home / "pg"), db_url=url)
    try:
        assert cl.session.execute(text("SELECT pg_backend_pid()")).scalar() > 0
        cl.session.commit()
        lsfemu_postgres._admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                               f"WHERE datname = '{url.rsplit('/', 1)[1]}' AND pid <> pg_backend_pid()")
        assert cl.session.execute(text("SELECT count(*) FROM jobs")).scalar() == 0  # no OperationalError
        cl.session.commit()
    finally:
        cl.close()
    lsfemu_postgres.drop_database(url)


@pytest.mark.lsfemu_stores
def test_inprocess_commands_at_once_allocate_ids_without_race(lsf_cluster_factory):
    """Three processes in in-process mode (no daemon) submit 3 jobs each at once to
    one store: IDs 1..9, each once, and lsb.events holds exactly those jobs."""
    c = lsf_cluster_factory(inprocess=True)
    assert c.run("lsid").rc == 0  # the store exists before the burst (see docs/semantics.md)

    def burst(n):
        return [_submit(c, f"p{n}-{i}") for i in range(3)]

    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        ids = [i for got in pool.map(burst, range(3)) for i in got]
    assert sorted(ids) == list(range(1, 10))
    assert sorted(r[0] for r in c.store_rows("SELECT id FROM jobs")) == list(range(1, 10))
    logged = [r.job_id for _, r in read_events([c.home / "logdir" / "lsb.events"]) if isinstance(r, JobNew)]
    assert sorted(logged) == list(range(1, 10))
    assert c.store_intact()


def test_replay_into_a_postgresql_store(lsf_cluster, lsfemu_postgres, tmp_path):
    """`lsfemu replay --into` with LSFEMU_DB set loads the history into that store
    (not into a SQLite file the daemon would not read): an occupied store is
    refused without --force and left as it was; with --force it is replaced."""
    c = lsf_cluster  # the history: a SQLite cluster
    for args in ("-n 2 -J a sleep 600", "-J b sleep 60", "-J c sleep 900"):
        assert c.run(f"bsub {args}", user="user1").rc == 0
    c.advance("2m")
    assert c.run("bkill 3", user="user1").rc == 0
    live = c.run("bjobs -a -u all -noheader -o 'jobid job_name stat'").out
    lsb = str(c.home / "logdir" / "lsb.events")
    url = lsfemu_postgres.new_database()
    into = tmp_path / "into"
    env = {"LSFEMU_DB": url, "LSF_ENVDIR": str(into), "LSFEMU_HOME": str(into / "state")}
    try:
        r = c.run(["lsfemu", "replay", lsb, "--into", str(into)], env={"LSFEMU_DB": url})
        assert r.rc == 0, r.text
        assert c.run("bjobs -a -u all -noheader -o 'jobid job_name stat'", env=env).out == live
        assert not (into / "state" / "lsfemu.db").exists()
        assert c.run("lsfemu daemon stop", env=env).rc == 0
        assert sorted(r[0] for r in c.store_rows("SELECT id FROM jobs")) == [1, 2, 3]  # the source, untouched
        r = c.run(["lsfemu", "replay", lsb, "--into", str(tmp_path / "again")], env={"LSFEMU_DB": url})
        assert r.rc != 0 and "holds jobs; use --force" in r.err and "Traceback" not in r.err, r.text
        assert c.run("bjobs -a -u all -noheader -o 'jobid job_name stat'", env=env).out == live  # left as it was
        r = c.run(["lsfemu", "replay", lsb, "--into", str(tmp_path / "again"), "--force"], env={"LSFEMU_DB": url})
        assert r.rc != 0 and "a daemon is connected to the store LSFEMU_DB names; stop it first" in r.err, r.text
        assert c.run("lsfemu daemon stop", env=env).rc == 0
        r = c.run(["lsfemu", "replay", lsb, "--into", str(tmp_path / "again"), "--force"], env={"LSFEMU_DB": url})
        assert r.rc == 0, r.text
        env2 = dict(env, LSF_ENVDIR=str(tmp_path / "again"), LSFEMU_HOME=str(tmp_path / "again" / "state"))
        assert c.run("bjobs -a -u all -noheader -o 'jobid job_name stat'", env=env2).out == live
    finally:
        c.run("lsfemu daemon stop", env=env)
        c.run("lsfemu daemon stop", env=dict(env, LSF_ENVDIR=str(tmp_path / "again"),
                                              LSFEMU_HOME=str(tmp_path / "again" / "state")))
        lsfemu_postgres.drop_database(url)


@pytest.mark.lsfemu_stores
def test_long_names_and_big_limits_are_stored_on_both(lsf_cluster_factory):
    """A 300-character project, user and submission host, and a -M limit past 2**31 KB:
    SQLite always took them, and PostgreSQL (VARCHAR(256) and 32-bit INTEGER before
    migration 0006) no longer refuses them."""
    c = lsf_cluster_factory()
    long = "x" * 300
    r = c.run(["bsub", "-P", long, "-M", "3000000000KB", "sleep", "10"], user=long,
              env={"LSFEMU_SUBMIT_HOST": "h" * 300})
    assert r.rc == 0, r.text
    out = c.run("bjobs -u all -noheader -o 'jobid user proj from_host delimiter=\",\"'").out
    assert out == f"1,{long},{long},{'h' * 300}\n"
    assert c.store_rows("SELECT mem_limit_kb FROM jobs") == [(3000000000,)]
