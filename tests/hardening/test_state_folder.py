"""The state folder (LSFEMU_HOME) fails under the daemon: read-only, full,
the store locked by another process, a stale socket and lock left by a crash.

Each time a command gets one clear line on stderr in LSF's words (`System
call failed: <strerror>`, `LSF is down`, `Operation cannot be performed right
now`), a non-zero exit and no traceback; it never says `Job <N> is submitted`
for a job the store does not hold; the store does not change and passes
SQLite's integrity check; lsb.events holds exactly the jobs the store holds;
and once the cause is gone the next command works by itself.

How the failures are made (root ignores file modes, so chmod cannot make a
folder read-only for it):
- read-only: a read-only bind mount over LSFEMU_HOME (needs root and
  mount(8); skipped otherwise),
- full: LSFEMU_HOME is a small tmpfs (needs root), filled with a file,
- locked: another process holds `BEGIN EXCLUSIVE` on lsfemu.db,
- crash: SIGKILL of the daemon (its lock file then names a PID another process has).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from store_snapshot import snapshot

from lsfemu.events.records import JobNew
from lsfemu.events.log import read_events

pytestmark = pytest.mark.slow(49)  # seconds, quiet machine: scheduled early (tests/conftest.py)

SUBMITTED = re.compile(r"^Job <(\d+)> is submitted to (default )?queue <normal>\.\n$")
NO_SPACE = r"System call failed: No space left on device \({home}\)\. Job not submitted\."


# -- helpers --------------------------------------------------------------------------------------

def _daemon_pid(c) -> int | None:
    try:
        return int((c.home / "mbatchd.lock").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _kill_daemon(c) -> None:
    pid = _daemon_pid(c)
    assert pid, "no daemon runs"
    os.kill(pid, signal.SIGKILL)
    for _ in range(200):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.01)


def _submit(c, name: str) -> int:
    r = c.run(["bsub", "-J", name, "sleep", "1000"], user="user1")
    m = SUBMITTED.match(r.out)
    assert m and r.rc == 0, r.text
    return int(m.group(1))


def _stored_jobs(c) -> dict[int, str]:
    con = sqlite3.connect(f"file:{c.home / 'lsfemu.db'}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        return dict(con.execute("SELECT id, name FROM jobs"))
    finally:
        con.close()


def _logged_jobs(c) -> list[int]:
    return sorted(r.job_id for _, r in read_events([c.home / "logdir" / "lsb.events"]) if isinstance(r, JobNew))


def _refused(r, pattern: str) -> None:
    """One line on stderr matching `pattern`, nothing on stdout, non-zero exit, no traceback."""
    assert r.rc != 0 and r.out == "", r.text
    assert "Traceback" not in r.err and "is submitted" not in r.text, r.text
    assert r.err.count("\n") == 1 and r.err.endswith("\n"), r.err
    assert re.fullmatch(pattern, r.err.rstrip("\n")), r.err


def _check_after_stop(c, acked: dict[int, str]) -> None:
    """After a clean stop (no restart to cut lsb.events back): the store passes its
    integrity check, holds exactly the acknowledged jobs, and lsb.events agrees."""
    assert c.run("lsfemu daemon stop").rc == 0
    assert _stored_jobs(c) == acked
    assert _logged_jobs(c) == sorted(acked)


def _need_root(what: str) -> None:
    if os.geteuid() != 0:
        pytest.skip(f"{what} is made with mount(8), which needs root")
    if shutil.which("mount") is None or shutil.which("umount") is None:
        pytest.skip(f"{what} needs mount(8) and umount(8)")


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True)


def _umount(path) -> None:
    if _run(["umount", str(path)]).returncode != 0:
        _run(["umount", "-l", str(path)])


@contextlib.contextmanager
def _read_only(path):
    """`path` through a read-only bind mount of itself."""
    r = _run(["mount", "--bind", str(path), str(path)])
    if r.returncode != 0:
        pytest.skip(f"cannot bind-mount here (no CAP_SYS_ADMIN?): {r.stderr.strip()}")
    try:
        r = _run(["mount", "-o", "remount,bind,ro", str(path)])
        if r.returncode != 0:
            pytest.skip(f"cannot remount read-only here: {r.stderr.strip()}")
        probe = os.path.join(path, "probe")
        with pytest.raises(OSError):  # it really is read-only, also for root
            open(probe, "w").close()
        yield
    finally:
        _umount(path)


@contextlib.contextmanager
def _small_tmpfs(path, size: str):
    os.makedirs(path, mode=0o700, exist_ok=True)
    r = _run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "lsfemu-test", str(path)])
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (no CAP_SYS_ADMIN?): {r.stderr.strip()}")
    try:
        yield
    finally:
        _umount(path)


def _fill(path) -> None:
    with open(path, "wb", buffering=0) as f:
        chunk = b"\0" * 65536
        with pytest.raises(OSError) as e:
            while True:
                f.write(chunk)
        assert e.value.errno == 28  # ENOSPC


def _submit_until_refused(c, acked: dict[int, str], pattern: str, refusals: int = 3) -> None:
    """Submit until the folder has refused `refusals` times. A submission that still
    fits (room left in a page) is a true acknowledgement and is kept in `acked`;
    a refused one must leave the store as it was."""
    refused = 0
    for i in range(40):
        before = snapshot(c)
        r = c.run(["bsub", "-J", f"late{i}", "sleep", "1000"], user="user1")
        m = SUBMITTED.match(r.out)
        if m:
            acked[int(m.group(1))] = f"late{i}"
            continue
        _refused(r, pattern)
        assert snapshot(c) == before
        refused += 1
        if refused == refusals:
            return
    pytest.fail(f"40 submissions, only {refused} refused: the folder never filled up")


# -- read-only ----------------------------------------------------------------------------------

def test_read_only_state_folder_after_a_crash(lsf_cluster):
    """The daemon died (SIGKILL: stale socket and lock, the lock naming a PID that
    another process now has); the folder is now read-only. Commands say LSF is
    down and why; nothing changes; once writable, the next command starts a daemon
    by itself (liveness is the lock's flock, never the PID written in it) and
    every acknowledged job is there. (The plain stale socket after a SIGKILL is
    tests/e2e/test_daemon.py::test_acknowledged_job_survives_sigkill.)"""
    _need_root("a read-only state folder")
    c = lsf_cluster
    acked = {_submit(c, f"ro{i}"): f"ro{i}" for i in range(3)}
    _kill_daemon(c)
    assert (c.home / "mbatchd.sock").exists()
    sleeper = subprocess.Popen(["sleep", "60"])  # a live process with the "reused" PID
    try:
        (c.home / "mbatchd.lock").write_text(f"{sleeper.pid}\n")
        before = snapshot(c)
        events_before = (c.home / "logdir" / "lsb.events").read_bytes()
        down = re.escape(f"LSF is down: mbatchd cannot start: System call failed: Read-only file system ({c.home})")
        with _read_only(c.home):
            for argv in (["bsub", "-J", "lost", "sleep", "10"], ["bjobs", "-u", "all"], ["bkill", "1"]):
                _refused(c.run(argv, user="user1"), down)
            _refused(c.run(["bsub"], user="user1", stdin="#BSUB -J lost2\nsleep 1\n"), down)
        assert snapshot(c) == before
        assert (c.home / "logdir" / "lsb.events").read_bytes() == events_before
        # Writable again: the next command recovers by itself.
        new = _submit(c, "after")
        assert new == max(acked) + 1
        acked[new] = "after"
        assert _daemon_pid(c) not in (None, sleeper.pid)
        assert sleeper.poll() is None  # nobody signalled the innocent process
    finally:
        sleeper.kill()
        sleeper.wait()
    r = c.run(["bjobs", "-u", "all", "-noheader", "-o", "jobid job_name"])
    assert r.out == "".join(f"{j} {n}\n" for j, n in sorted(acked.items())), r.text
    _check_after_stop(c, acked)


# -- full -----------------------------------------------------------------------------------------

def test_full_state_folder(lsf_cluster):
    """LSFEMU_HOME on an 8 MB tmpfs, filled up under a running daemon. Submissions
    fail cleanly (a few may still fit in the last pages: those are acknowledged and
    kept), other writes too, reads go on; removing the filler is enough."""
    _need_root("a full state folder")
    c = lsf_cluster
    with _small_tmpfs(c.home, "8m"):
        try:
            acked = {_submit(c, f"full{i}"): f"full{i}" for i in range(3)}
            _fill(c.home / "filler")
            _submit_until_refused(c, acked, NO_SPACE.format(home=re.escape(str(c.home))))
            # Other writes fail the same way and change nothing; reads still work.
            first = min(acked)
            before = snapshot(c)
            _refused(c.run(["bkill", str(first)], user="user1"),
                     re.escape(f"bkill: System call failed: No space left on device ({c.home}); nothing was changed"))
            assert snapshot(c) == before
            r = c.run(["bjobs", "-u", "all", "-noheader", "-o", "jobid stat"])
            assert r.out == "".join(f"{j} PEND\n" for j in sorted(acked)), r.text
            # Room again: the running daemon goes on, no restart needed.
            os.unlink(c.home / "filler")
            new = _submit(c, "room")
            assert new == max(acked) + 1  # refused submissions used no job ID
            acked[new] = "room"
            assert c.run(["bkill", str(first)], user="user1").rc == 0
            # Full again, and the daemon crashes: a new one cannot start (its first commit
            # needs room; its log cannot take the reason, the start pipe does) or it starts
            # and refuses the write. Either way one line, and nothing changes.
            _fill(c.home / "filler")
            _kill_daemon(c)
            before = snapshot(c)
            down = re.escape(f"LSF is down: mbatchd cannot start: System call failed: No space left on device "
                             f"({c.home})")
            _refused(c.run(["bsub", "-J", "crashed", "sleep", "10"], user="user1"),
                     f"{down}|{NO_SPACE.format(home=re.escape(str(c.home)))}")
            assert snapshot(c) == before
            os.unlink(c.home / "filler")
            r = c.run(["bjobs", "-a", "-u", "all", "-noheader", "-o", "jobid stat"])
            assert r.out == "".join(f"{j} PEND\n" for j in sorted(acked) if j != first) + f"{first} EXIT\n", r.text
            _check_after_stop(c, acked)
        finally:
            c.stop()


def test_full_event_log_volume(lsf_cluster):
    """lsb.events fills up first (logdir on a 1 MB volume of its own) while the
    store has room: the records of a refused request must not stay in the file,
    nor in the writer's buffer to be written out later with another job's."""
    _need_root("a full event log volume")
    c = lsf_cluster
    logdir = c.home / "logdir"
    with _small_tmpfs(logdir, "1m"):
        try:
            acked = {_submit(c, f"ev{i}"): f"ev{i}" for i in range(3)}
            events = logdir / "lsb.events"
            _fill(logdir / "filler")
            _submit_until_refused(c, acked, NO_SPACE.format(home=re.escape(str(c.home))))
            size = events.stat().st_size
            os.unlink(logdir / "filler")
            new = _submit(c, "room")
            assert new == max(acked) + 1
            acked[new] = "room"
            assert events.stat().st_size > size
            _check_after_stop(c, acked)  # one JOB_NEW per stored job, none for refused ones
        finally:
            c.stop()


# -- locked ---------------------------------------------------------------------------------------

HOLD_LOCK = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
db.execute("ROLLBACK")
"""


def test_store_locked_by_another_process(lsf_cluster):
    """Another process holds an exclusive transaction on lsfemu.db. A write waits
    LSFEMU_DB_TIMEOUT seconds (1 here), then fails with one clear line; reads go
    on meanwhile (WAL); nothing is acknowledged falsely; released, all works."""
    c = lsf_cluster
    c.env["LSFEMU_DB_TIMEOUT"] = "1"  # the daemon started by the next command inherits it
    acked = {_submit(c, "before"): "before"}
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(c.home / "lsfemu.db")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "locked\n"
        locked = re.escape(f"Operation cannot be performed right now: the store in {c.home} is locked "
                           f"by another process (waited 1 s)")
        t0 = time.monotonic()
        _refused(c.run(["bsub", "-J", "blocked", "sleep", "10"], user="user1"), locked + r"\. Job not submitted\.")
        waited = time.monotonic() - t0
        assert 0.9 <= waited < 10, waited  # bounded: the lock timeout, not the client's 60 s
        _refused(c.run(["bkill", "1"], user="user1"), "bkill: " + locked + "; nothing was changed")
        r = c.run(["bjobs", "-u", "all", "-noheader", "-o", "jobid job_name stat"])
        assert r.out == "1 before PEND\n", r.text
        # Stopping still works (its record cannot be stored: logged, dropped), and a
        # daemon cannot start while the lock is held (its first commit waits, then fails).
        assert c.run("lsfemu daemon stop").rc == 0
        assert _daemon_pid(c) is None or not (c.home / "mbatchd.sock").exists()
        _refused(c.run(["bsub", "-J", "blocked2", "sleep", "10"], user="user1"),
                 r"LSF is down: mbatchd cannot start: " + locked)
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert holder.returncode == 0
    new = _submit(c, "after")
    assert new == 2
    acked[new] = "after"
    _check_after_stop(c, acked)
