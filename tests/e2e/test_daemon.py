"""The daemon: one per LSFEMU_HOME, durable acknowledgements, restarts, and
the in-process mode giving the same answers. The tests that touch the store
run on SQLite and on PostgreSQL (mark lsfemu_stores)."""

import concurrent.futures
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lsfemu.daemon.dispatch import user_for
from lsfemu.testing import daemon_template, temporary_cluster

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow(25)  # seconds, quiet machine; alone: 173 s at load ~12 -> 40 s at load ~7 (forked daemons)


@pytest.fixture(scope="module")
def shared():
    """One cluster for the tests that neither stop nor restart its daemon (each
    with a user of its own): a daemon start each saved."""
    with temporary_cluster() as c:
        yield c


def _daemon_pid(c) -> int:
    return int((c.home / "mbatchd.lock").read_text().split()[0])


@pytest.mark.lsfemu_stores
def test_ten_concurrent_first_calls_start_one_daemon(lsf_cluster):
    c = lsf_cluster
    with concurrent.futures.ThreadPoolExecutor(10) as pool:
        results = list(pool.map(lambda i: c.run(f"bsub -J j{i} sleep 10", user="user1"), range(10)))
    assert all(r.rc == 0 for r in results), [r.text for r in results]
    ids = sorted(int(r.out.split("<")[1].split(">")[0]) for r in results)
    assert ids == list(range(1, 11))
    log = (c.home / "daemon.log").read_text()
    assert log.count(" serving ") == 1, log
    assert log.count("already runs") == 0


@pytest.mark.lsfemu_stores
def test_acknowledged_job_survives_sigkill(lsf_cluster):
    c = lsf_cluster
    r = c.run("bsub -q priority -n 3 -J keep sleep 100", user="user2")
    assert r.rc == 0
    os.kill(_daemon_pid(c), signal.SIGKILL)
    time.sleep(0.2)
    assert (c.home / "mbatchd.sock").exists()  # stale socket left behind
    # The next command finds no daemon, starts one, which removes the stale socket.
    r = c.run("bjobs -noheader -o 'jobid user queue slots job_name stat' 1")
    assert (r.out, r.rc) == ("1 user2 priority 3 keep PEND\n", 0)
    assert c.store_intact()
    assert c.store_rows("SELECT kind FROM job_events WHERE job_id=1") == [("SUBMIT",)]


@pytest.mark.lsfemu_stores
def test_daemon_stop_start_keeps_state_and_clock(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 100", user="user1")
    c.advance("30s")
    assert c.run("lsfemu daemon stop").out == "daemon stopped\n"
    assert c.run("lsfemu daemon status").rc == 1
    r = c.run("lsfemu clock show")
    assert r.out == "virtual clock: Mon Jan  5 09:00:30 2026 (1767603630)\n"
    assert c.run("bjobs -noheader -o stat 1").out == "RUN\n"
    r = c.run("lsfemu daemon status")
    assert r.rc == 0 and "jobs: simulated" in r.out and "clock: virtual" in r.out


@pytest.mark.lsfemu_stores
def test_mbdrestart(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 100", user="user1")
    pid = _daemon_pid(c)
    r = c.run("badmin mbdrestart", user="lsfadmin")
    assert (r.out, r.rc) == ("MBD restart initiated\n", 0)
    deadline = time.time() + 10
    while time.time() < deadline:
        r = c.run("bjobs -noheader -o 'jobid stat' 1")
        if r.rc == 0:
            break
        time.sleep(0.1)
    assert r.out == "1 PEND\n"
    assert c.run("lsfemu daemon status").rc == 0
    assert _daemon_pid(c) == pid  # exec'd in place: same process, new image


def test_daemon_forked_from_the_template(lsf_cluster):
    """A test cluster's daemon is forked by the test process's daemon template
    (lsfemu.daemon.forkserver) once it listens: the template's child, serving the
    cluster. A second start through it gets the daemon's own message on its own
    stderr and its exit status 3 (the lock is held), importing nothing of the
    daemon itself; so does an in-process command; the template refuses a start
    for another checkout."""
    c = lsf_cluster
    path = daemon_template()
    assert path is not None
    deadline = time.monotonic() + 60
    while not os.path.exists(path):  # started by the first cluster of the process, not waited for
        assert time.monotonic() < deadline, "the daemon template did not start"
        time.sleep(0.05)
    assert c.run("bsub -J forked sleep 100", user="user1").rc == 0
    parent = Path(f"/proc/{_daemon_pid(c)}/stat").read_text().rsplit(")", 1)[1].split()[1]
    assert b"lsfemu.daemon.forkserver" in Path(f"/proc/{parent}/cmdline").read_bytes()
    assert c.run("bjobs -noheader -o 'job_name stat' -u user1").out == "forked PEND\n"

    env = dict(c.env, LSFEMU_FORKSERVER=path, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-X", "importtime", "-m", "lsfemu.daemon"], env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 3 and f"lsfemu: a daemon already runs for {c.home}" in p.stderr, p.stderr[-2000:]
    assert "lsfemu.daemon.forkserver" in p.stderr and "sqlalchemy" not in p.stderr  # imported by the template only

    # An in-process command (LSFEMU_DAEMON=off) is run by a child of the template too: the same answer
    p = subprocess.run([sys.executable, "-X", "importtime", str(ROOT / "bin" / "bjobs"), "-noheader", "-o",
                        "job_name stat"], env=dict(env, LSFEMU_DAEMON="off", LSFEMU_USER="user1"),
                       capture_output=True, text=True, timeout=60)
    assert p.stdout == "forked PEND\n" and "lsfemu.daemon.inprocess" in p.stderr, p.stderr[-2000:]
    assert "sqlalchemy" not in p.stderr

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s, open(os.devnull) as null:
        s.connect(path)
        fd = null.fileno()
        socket.send_fds(s, [json.dumps({"env": {}, "cwd": "/", "package": "/elsewhere/lsfemu",
                                        "python": sys.executable}).encode()], [fd, fd, fd])
        assert s.makefile("r").readline() == "refused\n"


def test_forked_daemon_ends_with_its_template(lsf_cluster):
    """A daemon forked by a template is stopped (SIGTERM, its orderly stop) when
    the template ends -- as the template ends when its test process has gone, a
    killed test run leaves no daemons behind. Here a template of the test's own
    is killed outright (SIGKILL) under a daemon it forked."""
    c = lsf_cluster
    root = Path(c.root) / "tpl"
    root.mkdir()
    path = str(root / "t.sock")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LSF", "LSB_"))}
    env["PYTHONPATH"] = str(ROOT)
    tpl = subprocess.Popen([sys.executable, "-m", "lsfemu.daemon.forkserver", path], env=env, cwd="/",
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not os.path.exists(path):
            assert time.monotonic() < deadline and tpl.poll() is None, "the template did not start"
            time.sleep(0.05)
        assert c.run("bsub -J mine sleep 100", user="user1", env={"LSFEMU_FORKSERVER": path}).rc == 0
        pid = _daemon_pid(c)
        parent = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
        assert int(parent) == tpl.pid  # forked by this template, not the suite's
    finally:
        tpl.kill()
        tpl.wait()
    deadline = time.monotonic() + 30
    while Path(f"/proc/{pid}").exists() and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline, "the daemon outlived its template"
        time.sleep(0.05)
    # an orderly stop: mbatchd's exit (MBD_DIE, exit code 15: SIGTERM) is recorded in lsb.events
    events = [p.read_text() for p in Path(c.root).rglob("lsb.events")]
    assert any(line.startswith('"MBD_DIE" ') and line.split()[-2] == "15" for text in events
               for line in text.splitlines()), events
    # The job acknowledged before is kept: the next command starts a daemon of its own
    assert c.run("bjobs -noheader -o 'job_name stat' -u user1").out == "mine PEND\n"


def test_inprocess_mode_gives_the_same_answers(lsf_cluster_factory):
    script = [
        ("bsub -q normal -n 2 -J hello sleep 600", "user1"),
        ("bsub -q priority sleep 60", "user2"),
        ("lsfemu clock advance 20s", None),
        ("bkill 2", "user1"),
        ("bstop 1", "user1"),
        ("bjobs -u all -a", None),
        ("bjobs -l 1", None),
        ("bqueues", None),
        ("busers all", None),
    ]
    outputs = []
    for inprocess in (False, True):
        c = lsf_cluster_factory(inprocess=inprocess)
        same = {"HOME": "/home/tester"}  # paths in bjobs -l must not differ between the two clusters
        outputs.append([c.run(cmd, user=u, cwd="/tmp", env=same).text for cmd, u in script])
    assert outputs[0] == outputs[1]


def test_identity_lsfemu_user_only_for_own_uid():
    me = os.getuid()
    assert user_for(me, {"LSFEMU_USER": "alice"}) == "alice"
    other = 65534 if me != 65534 else 65533
    assert user_for(other, {"LSFEMU_USER": "alice"}) != "alice"


def test_no_envdir_is_a_clear_error(shared):
    r = shared.run("bjobs", env={"LSF_ENVDIR": ""})
    assert (r.err, r.rc) == ("lsfemu: LSF_ENVDIR is not set; run 'lsfemu init DIR' and 'export LSF_ENVDIR=DIR'\n", 255)


def test_garbage_on_the_socket_does_not_hurt(shared):
    import socket

    c = shared
    jid = c.run("bsub sleep 10", user="user1").job_id
    for payload in (b"", b"\x00\x00\x00\x05hello", b"\xff\xff\xff\xff", b"GET / HTTP/1.0\r\n\r\n"):
        s = socket.socket(socket.AF_UNIX)
        s.connect(str(c.home / "mbatchd.sock"))
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)
        s.settimeout(5)
        try:
            s.recv(100)
        except OSError:
            pass
        s.close()
    assert c.run("bjobs -noheader -o jobid", user="user1").out == f"{jid}\n"


def test_state_folder_is_private(shared):
    c = shared
    c.run("lsid")
    assert (c.home.stat().st_mode & 0o777) == 0o700


def test_silent_and_oversized_clients_block_no_one(shared):
    import socket
    import struct

    c = shared
    jid = c.run("bsub sleep 10", user="user3").job_id
    silent = socket.socket(socket.AF_UNIX)
    silent.connect(str(c.home / "mbatchd.sock"))  # connects and sends nothing
    big = socket.socket(socket.AF_UNIX)
    big.connect(str(c.home / "mbatchd.sock"))
    big.sendall(struct.pack(">I", 100 * 1024 * 1024))  # announces 100 MB
    big.settimeout(10)
    answer = big.recv(4096)
    assert b"request larger than" in answer
    t0 = time.time()
    assert c.run("bjobs -noheader -o jobid", user="user3").out == f"{jid}\n"
    assert time.time() - t0 < 5
    silent.close()
    big.close()
