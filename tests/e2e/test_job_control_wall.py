"""bkill -r and -d, and bpeek, on really running jobs (wall clock): -r removes
the job at once, without waiting for its processes (which are killed); -d
kills it and records it DONE when it ends; bpeek shows what the job wrote so
far. The module's cluster is test_execution's
(MBD_SLEEP_TIME=1, JOB_TERMINATE_INTERVAL=1)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from lsfemu.events.log import read_events
from lsfemu.events.records import JobSignal, JobStatus
from lsfemu.events import lsbatch
from tests.e2e.test_execution import TRAPS, field, job_pgid, shared, sub, wait_file, wait_stat  # noqa: F401

pytestmark = pytest.mark.slow(6)  # seconds, quiet machine: scheduled early (tests/conftest.py)


def _group_gone(pgid: int, timeout: float = 10.0) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_bkill_r_removes_the_job_without_waiting_for_it(shared):
    c = shared
    jid = sub(c, [TRAPS])  # traps INT and TERM: a plain bkill waits two intervals for the KILL
    wait_file(c.root / "work" / f"ready.{jid}", "ready")
    pgid = job_pgid(c, jid)
    r = c.run(f"bkill -r {jid}", user="user1")
    assert (r.out, r.err, r.rc) == (f"Job <{jid}> is being terminated\n", "", 0)
    assert field(c, jid, "stat exit_code") == "EXIT 130"  # at once, in the same command (as a simulated bkill)
    assert "Completed <exit>; TERM_OWNER: job killed by owner." in c.run(f"bjobs -l {jid}").out.replace(
        "\n" + " " * 21, "")
    assert _group_gone(pgid)  # its processes are killed all the same
    recs = [r for _, r in read_events(c.home / "logdir" / "lsb.events") if getattr(r, "job_id", None) == jid]
    assert [(r.signal_symbol, r.user_name) for r in recs if isinstance(r, JobSignal)] == [("KILL", "user1")]
    assert [r.status for r in recs if isinstance(r, JobStatus)][-1] == lsbatch.JOB_STAT_EXIT


def test_bkill_d_records_a_started_job_done(shared):
    c = shared
    jid = sub(c, [TRAPS])
    wait_file(c.root / "work" / f"ready.{jid}", "ready")
    r = c.run(f"bkill -d {jid}", user="user1")
    assert (r.out, r.rc) == (f"Job <{jid}> is being terminated\n", 0)
    assert field(c, jid, "stat") == "RUN"  # as a plain bkill: the job runs until its process ends
    assert wait_stat(c, jid, ("DONE", "EXIT")) == "DONE"
    sigs = (c.root / "work" / f"sigs.{jid}").read_text().split()
    assert sigs[0::2] == ["INT", "TERM"], sigs  # the kill sequence went out
    hist = c.run(f"bhist -l {jid}").out.replace("\n" + " " * 21, "")
    assert "Signal <KILL> requested by user or administrator <user1>;" in hist
    assert "Done successfully." in hist


GOLDEN = Path(__file__).parent / "golden"


def test_bpeek_shows_the_output_so_far(shared):
    c = shared
    jid = sub(c, ["-e", "peek.err", "echo line1; echo line2; echo err1 >&2; sleep 60"])
    want = (GOLDEN / "bpeek_wall.txt").read_text()
    deadline = time.time() + 15
    while True:  # the job writes its lines once it runs
        r = c.run(f"bpeek {jid}", user="user1")
        if r.out == want or time.time() > deadline:
            break
        time.sleep(0.2)
    assert (r.out, r.err, r.rc) == (want, "", 0)
    r = c.run("bpeek", user="user1")  # the caller's last unfinished job
    assert (r.out, r.rc) == (want, 0)
    r = c.run(f"bpeek {jid}", user="user2")
    assert (r.out, r.err, r.rc) == ("", f"Job <{jid}>: User permission denied\n", 255)
    assert c.run(f"bpeek {jid}", user="lsfadmin").out == want
    c.run(f"bkill {jid}", user="user1")
    wait_stat(c, jid, ("EXIT",))
    r = c.run(f"bpeek {jid}", user="user1")
    assert (r.out, r.err, r.rc) == ("", f"Job <{jid}> : Already finished.\n", 255)
