"""Failover of a shared cluster (issue #9, lsfemu.daemon.master): two master
candidates ("hosts" fo-a and fo-b on this machine: LSFEMU_HOSTNAME, a
LSFEMU_HOME each, one LSF_ENVDIR, one PostgreSQL database, LSB_SHAREDIR for
lsb.events). The master is killed with SIGKILL during a submission burst; the
standby takes over within seconds and every acknowledged job is there, once,
in the store, in bjobs and in lsb.events. A master that loses its lock
connection stops acting at once.

The clients walk over the candidates' Unix sockets as LSF's clients walk over
LSF_MASTER_LIST (the TCP walk is lsfemu.client's): the next candidate when one
does not answer or answers NOT_MASTER_RC, rounds until a deadline."""

from __future__ import annotations

import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lsfemu.config.sample import write_cluster
from lsfemu.client import _connect, socket_path
from lsfemu.protocol import NOT_MASTER_RC, decode_fields, encode_request, recv_frame
from lsfemu.events.records import JobNew, MbdStart
from lsfemu.events.log import read_events

pytestmark = pytest.mark.slow(42)  # seconds, quiet machine: scheduled early (tests/conftest.py)

SUBMITTED = re.compile(r"^Job <(\d+)> is submitted to default queue <normal>\.\n$")
HOSTS = ("fo-a", "fo-b")


class SharedCluster:
    """Two master candidates of one cluster on this machine, and a client that walks over them."""

    def __init__(self, root: Path, db_url: str, shared: bool = True, clock: str = "virtual"):
        self.root = root
        self.envdir = root / "conf"
        write_cluster(str(self.envdir), clock=clock)
        conf = self.envdir / "lsf.conf"
        if shared:  # else lsfemu init's LSF_MASTER_LIST="hostA" and no LSB_SHAREDIR: not a shared cluster
            text = re.sub(r'^LSF_MASTER_LIST=.*$', f'LSF_MASTER_LIST="{" ".join(HOSTS)}"', conf.read_text(), flags=re.M)
            conf.write_text(text + f"LSB_SHAREDIR={root / 'share'}\n")
        self.db_url = db_url
        self.homes = {h: root / h for h in HOSTS}
        self.procs: dict[str, subprocess.Popen] = {}
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
        self.env.update({"LSF_ENVDIR": str(self.envdir), "LSFEMU_DB": db_url, "LSFEMU_AUTOSTART": "0",
                         "TZ": "UTC", "LSFEMU_CLOCK_START": "1767603600"})

    def start(self, host: str) -> subprocess.Popen:
        env = dict(self.env, LSFEMU_HOME=str(self.homes[host]), LSFEMU_HOSTNAME=host)
        self.homes[host].mkdir(exist_ok=True)
        log = open(self.homes[host] / "daemon.log", "a")
        p = subprocess.Popen([sys.executable, "-m", "lsfemu.daemon"], env=env, stdin=subprocess.DEVNULL,
                             stdout=log, stderr=log, start_new_session=True)
        log.close()
        self.procs[host] = p
        deadline = time.monotonic() + 30
        while True:  # a socket file left by a killed daemon does not count: it must answer
            s = _connect(socket_path(str(self.homes[host])))
            if s is not None:
                s.close()
                return p
            assert p.poll() is None, self.log(host)
            assert time.monotonic() < deadline, f"{host} did not bind its socket: {self.log(host)}"
            time.sleep(0.05)

    def log(self, host: str) -> str:
        try:
            return (self.homes[host] / "daemon.log").read_text()
        except OSError:
            return ""

    def ask(self, host: str, argv: list[str]) -> tuple[str, str, int] | None:
        """One command to one candidate: None when it cannot be reached, rc -1 when the
        request went out and no answer came back (not acknowledged, maybe carried out)."""
        req = {"cmd": argv[0], "argv": argv[1:], "cwd": str(self.root), "stdin": None, "tty": False,
               "env": dict(self.env, LSFEMU_HOME=str(self.homes[host]))}
        try:
            s = _connect(socket_path(str(self.homes[host])))
        except OSError:
            return None
        if s is None:
            return None
        try:
            s.settimeout(30)
            s.sendall(encode_request(req))
            rc, out, err = decode_fields(recv_frame(s))
            return out, err, int(rc)
        except (OSError, ConnectionError, ValueError) as e:
            return "", str(e), -1
        finally:
            s.close()

    def run(self, argv: list[str] | str, deadline: float = 30.0) -> tuple[str, str, int, str]:
        """A command through the candidates in LSF_MASTER_LIST order: (out, err, rc, host that answered)."""
        if isinstance(argv, str):
            argv = argv.split()
        end = time.monotonic() + deadline
        last = None
        while time.monotonic() < end:
            for host in HOSTS:
                r = self.ask(host, argv)
                if r is None or r[2] in (NOT_MASTER_RC, -1):
                    last = r
                    continue
                return (*r, host)
            time.sleep(0.1)
        raise AssertionError(f"no master answered {argv} within {deadline} s (last answer {last})")

    def stop(self) -> None:
        for p in self.procs.values():
            if p.poll() is None:
                p.kill()
                p.wait()


@pytest.fixture(params=[{}])
def shared(lsfemu_postgres, request):
    """A SharedCluster; parametrise indirectly with its options ({"shared": False}, {"clock": "wall"})."""
    with lsfemu_postgres.scratch("lsfemu-fo-") as (root, url):
        sc = SharedCluster(root, url, **request.param)
        try:
            yield sc
        finally:
            sc.stop()


def _wait_master(sc: SharedCluster, host: str, timeout: float = 15.0) -> None:
    out, _err, rc, who = sc.run("lsid", deadline=timeout)
    assert rc == 0 and who == host and f"My master name is {host}\n" in out, (who, out)


def test_sigkill_of_the_master_during_a_burst_loses_no_acknowledged_job(shared, record_property):
    sc = shared
    sc.start("fo-a")
    _wait_master(sc, "fo-a")
    sc.start("fo-b")
    # A standby names the master from the lock's holder; while its own
    # connection is busy retrying the lock (a loaded machine) it says there
    # is none "at the moment": ask again for a while.
    deadline = time.monotonic() + 15
    while True:
        standby = sc.ask("fo-b", ["bjobs"])
        assert standby is not None and standby[2] == NOT_MASTER_RC
        if "the master is" in standby[1] or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert standby[1] == "lsfemu: fo-b is a master candidate on standby, not the master; the master is fo-a\n"
    assert standby[0] == ""

    acked: list[tuple[int, str, float]] = []  # (job ID, host that acknowledged, when)
    lock = threading.Lock()
    kill_at: list[float] = []
    stop = threading.Event()

    def client(n: int) -> int:
        unanswered = 0
        i = 0
        while not stop.is_set() and i < 400:
            i += 1
            for host in HOSTS:
                r = sc.ask(host, ["bsub", "-J", f"c{n}-{i}", "sleep", "60"])
                if r is None or r[2] in (NOT_MASTER_RC, -1):
                    if r is not None and r[2] == -1:
                        unanswered += 1
                    continue
                out, err, rc = r
                m = SUBMITTED.match(out)
                assert m and rc == 0, (out, err, rc)  # never a partial or false acknowledgement
                with lock:
                    acked.append((int(m.group(1)), host, time.monotonic()))
                break
            else:
                time.sleep(0.05)
        return unanswered

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(client, n) for n in range(4)]
        while len(acked) < 60:
            assert all(not f.done() for f in futures), [f.result() for f in futures if f.done()]
            time.sleep(0.01)
        os.kill(sc.procs["fo-a"].pid, signal.SIGKILL)
        kill_at.append(time.monotonic())
        sc.procs["fo-a"].wait()
        # the burst goes on until the new master has acknowledged 60 jobs too
        deadline = time.monotonic() + 30
        while sum(1 for _, h, _ in acked if h == "fo-b") < 60:
            assert time.monotonic() < deadline, "fo-b did not take over within 30 s:\n" + sc.log("fo-b")
            time.sleep(0.01)
        stop.set()
        unanswered = sum(f.result() for f in futures)

    by_a = [j for j, h, _ in acked if h == "fo-a"]
    by_b = [(j, t) for j, h, t in acked if h == "fo-b"]
    takeover = min(t for _, t in by_b) - kill_at[0]
    ids = [j for j, _, _ in acked]
    assert len(ids) == len(set(ids)), "a job ID was acknowledged twice"
    assert max(by_a) < min(j for j, _ in by_b)  # the new master goes on from the store's counter

    out, err, rc, who = sc.run(["bjobs", "-a", "-u", "all", "-noheader", "-o", "jobid name stat"])
    assert rc == 0 and who == "fo-b", err
    rows = [line.split() for line in out.splitlines()]
    listed = [int(r[0]) for r in rows]
    assert len(listed) == len(set(listed))
    lost = set(ids) - set(listed)
    assert not lost, f"acknowledged jobs lost in the failover: {sorted(lost)}"
    # A request in flight when fo-a died may have been committed without its answer
    # reaching the client: at most one per client, never acknowledged.
    assert len(set(listed) - set(ids)) <= 4

    # lsb.events (in LSB_SHAREDIR, written by both masters) holds exactly the store's jobs,
    # and the takeover is recorded as LSF records a new master: MBD_START naming it.
    logdir = sc.root / "share" / "cluster1" / "logdir"
    records = [r for _, r in read_events([logdir / "lsb.events"])]
    assert sorted(r.job_id for r in records if isinstance(r, JobNew)) == sorted(listed)
    starts = [r.master for r in records if isinstance(r, MbdStart)]
    assert starts == ["fo-a", "fo-b"]
    out, _, _, _ = sc.run(["bhist", "-a", "-u", "all"])
    assert {int(line.split()[0]) for line in out.splitlines()[2:]} == set(listed)

    assert "taking over from fo-a" in sc.log("fo-b")
    out, _, _, who = sc.run("lsid")
    assert "My master name is fo-b\n" in out and who == "fo-b"

    # The new master schedules: the virtual clock moves on from the store's, jobs start.
    out, err, rc, _ = sc.run(["lsfemu", "clock", "advance", "1m"])
    assert rc == 0, err
    out, _, _, _ = sc.run(["bjobs", "-u", "all", "-noheader", "-o", "stat"])
    assert "RUN" in out.split()

    # The old master comes back as a standby and names the new one.
    sc.start("fo-a")
    r = sc.ask("fo-a", ["bjobs"])
    assert r is not None and r[2] == NOT_MASTER_RC and r[1].endswith("the master is fo-b\n"), r

    record_property("takeover_seconds", round(takeover, 2))
    record_property("jobs_lost", len(lost))
    print(f"\nfailover: {len(by_a)} jobs acknowledged by fo-a, {len(by_b)} by fo-b after SIGKILL of fo-a; "
          f"took over in {takeover:.2f} s; jobs lost: {len(lost)}; requests unanswered: {unanswered}")
    assert takeover < 10.0, f"took {takeover:.1f} s to take over"


def test_a_master_that_loses_its_lock_connection_stops_at_once(shared, lsfemu_postgres):
    """Fencing: the master's lock connection is ended by the server (as a network cut or a
    database restart would); it must not commit anything more, and a master is back within seconds."""
    import psycopg
    from sqlalchemy.engine import make_url

    sc = shared
    sc.start("fo-a")
    _wait_master(sc, "fo-a")
    sc.start("fo-b")
    first = sc.run(["bsub", "sleep", "60"])
    assert first[2] == 0 and first[3] == "fo-a"

    u = make_url(sc.db_url)
    conninfo = u.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        ended = conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                             "WHERE application_name = 'lsfemu-candidate:fo-a'").fetchall()
    assert ended == [(True,)]
    t0 = time.monotonic()
    # fo-a's next request finds the lock connection gone: refused, nothing committed
    r = sc.ask("fo-a", ["bsub", "sleep", "60"])
    assert r is not None and r[2] == NOT_MASTER_RC and r[0] == "", r
    out, err, rc, who = sc.run(["bsub", "sleep", "60"])
    took = time.monotonic() - t0
    assert rc == 0 and SUBMITTED.match(out), err
    assert took < 10.0
    assert "master role lost" in sc.log("fo-a")
    assert "no longer the master" in sc.log("fo-a")
    assert "Traceback" not in sc.log("fo-a")  # an expected event: one line, not a crash report
    out, _, _, _ = sc.run(["bjobs", "-a", "-u", "all", "-noheader", "-o", "jobid"])
    assert [int(x) for x in out.split()] == [1, 2]  # the refused submission left nothing behind
    print(f"\nfencing: a master was back in {took:.2f} s (on {who})")


def test_a_host_not_in_the_master_list_refuses_to_start(shared):
    sc = shared
    env = dict(sc.env, LSFEMU_HOME=str(sc.root / "c"), LSFEMU_HOSTNAME="fo-c")
    p = subprocess.run([sys.executable, "-m", "lsfemu.daemon"], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert p.stderr.strip() == (f'lsfemu: cannot start the daemon: host <fo-c> is not a master candidate: it is not in '
                                f'LSF_MASTER_LIST="fo-a fo-b" ({sc.envdir / "lsf.conf"}); set LSFEMU_HOSTNAME if '
                                f'this host is known by another name')
    assert not (sc.root / "c" / "mbatchd.sock").exists()


@pytest.mark.parametrize("shared", [{"shared": False}], indirect=True)
def test_without_a_shared_cluster_a_second_daemon_on_the_store_refuses(shared):
    """PostgreSQL without LSB_SHAREDIR (lsfemu init's lsf.conf): one daemon runs the cluster,
    as before, and holds the same lock, so that a second daemon on the store cannot run it too."""
    sc = shared
    sc.start("fo-a")
    out, err, rc = sc.ask("fo-a", ["bsub", "sleep", "60"])
    assert rc == 0 and SUBMITTED.match(out), err
    out, _, _ = sc.ask("fo-a", ["lsid"])
    assert "My master name is hostA\n" in out  # the emulated host, as without PostgreSQL
    env = dict(sc.env, LSFEMU_HOME=str(sc.homes["fo-b"]), LSFEMU_HOSTNAME="fo-b")
    p = subprocess.run([sys.executable, "-m", "lsfemu.daemon"], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 1
    assert p.stderr.strip() == ("lsfemu: cannot start the daemon: another daemon runs cluster cluster1 on this store "
                                "(LSFEMU_DB); several daemons on one store are the master candidates of a shared "
                                f"cluster: LSF_MASTER_LIST and LSB_SHAREDIR in {sc.envdir / 'lsf.conf'}")
    # once the first one is gone (even by SIGKILL), another daemon runs the cluster with its jobs
    os.kill(sc.procs["fo-a"].pid, signal.SIGKILL)
    sc.procs["fo-a"].wait()
    sc.start("fo-b")
    out, err, rc = sc.ask("fo-b", ["bjobs", "-noheader", "-o", "jobid stat"])
    assert rc == 0 and out == "1 PEND\n", err


@pytest.mark.parametrize("shared", [{"clock": "wall"}], indirect=True)
def test_a_running_job_outlives_its_master_and_the_new_one_collects_it_once(shared):
    """Wall clock: the job spool is in LSB_SHAREDIR, so the new master (here on the same
    machine) watches the job the old one started, and records its end once."""
    sc = shared
    sc.start("fo-a")
    _wait_master(sc, "fo-a")
    sc.start("fo-b")
    work = sc.root / "work"
    work.mkdir()
    out, err, rc = sc.ask("fo-a", ["bsub", "-o", str(work / "out.txt"), "sleep 3; echo ran-here"])
    assert rc == 0, err
    jid = int(re.search(r"Job <(\d+)>", out).group(1))
    deadline = time.monotonic() + 15
    while sc.run(["bjobs", "-noheader", "-o", "stat", str(jid)])[0].strip() != "RUN":
        assert time.monotonic() < deadline
        time.sleep(0.1)
    os.kill(sc.procs["fo-a"].pid, signal.SIGKILL)
    sc.procs["fo-a"].wait()
    out, _, _, who = sc.run(["bjobs", "-noheader", "-o", "stat", str(jid)])
    assert who == "fo-b" and out.strip() == "RUN"
    deadline = time.monotonic() + 20
    while sc.run(["bjobs", "-noheader", "-o", "stat", str(jid)])[0].strip() != "DONE":
        assert time.monotonic() < deadline, sc.log("fo-b")
        time.sleep(0.2)
    text = (work / "out.txt").read_text()
    assert text.count("Sender: LSF System") == 1 and text.splitlines().count("ran-here") == 1, text
    events = (sc.root / "share" / "cluster1" / "logdir" / "lsb.events").read_text().splitlines()
    statuses = [l.split()[4] for l in events if l.startswith('"JOB_STATUS"') and l.split()[3] == str(jid)]
    assert statuses == ["64", "192"]  # DONE, then DONE|PDONE: collected once
    assert list((sc.root / "share" / "cluster1" / "jobs").iterdir()) == []


def test_a_new_master_reads_the_store_only_after_the_old_masters_write_in_flight(shared):
    """The fence's other half: a master that passed its fence holds the store's writer lock
    until its commit; whoever takes the master lock waits for that lock before reading the
    store, so the last commit of the old master is in the new master's state."""
    import psycopg
    from sqlalchemy.engine import make_url

    from lsfemu.store.db import WRITER_LOCK_KEY

    sc = shared
    sc.start("fo-a")
    _wait_master(sc, "fo-a")
    sc.start("fo-b")
    conninfo = make_url(sc.db_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(conninfo) as inflight, psycopg.connect(conninfo, autocommit=True) as admin:
        # stands for a write transaction of fo-a between its fence and its commit
        inflight.execute("SELECT pg_advisory_xact_lock(%s)", (WRITER_LOCK_KEY,))
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE application_name = 'lsfemu-candidate:fo-a'")
        time.sleep(3)  # a candidate has taken the master lock by now, and waits
        waiting = admin.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").fetchone()
        assert waiting == (1,)
        for host in HOSTS:  # nobody serves the cluster meanwhile
            r = sc.ask(host, ["lsid"])
            assert r is not None and r[2] == NOT_MASTER_RC, (host, r)
        inflight.commit()
    out, err, rc, who = sc.run(["bsub", "sleep", "60"], deadline=15)
    assert rc == 0 and SUBMITTED.match(out), err
