"""bkill -C, bstop -C, bresume -C (a reason kept with the job: bjobs -o
kill_reason / suspend_reason / resume_reason, the JOB_SIGNAL record, bhist -l)
and bkill -b (TERM_BUCKET_KILL; killed pending jobs cleaned at once, before
CLEAN_PERIOD), end to end on the virtual clock (issue 18).

The fixture's cluster: hostA..hostC with 4 slots each, user1 may run 8 jobs
at once, lsfadmin is the cluster administrator; the clock starts Mon Jan 5
09:00:00 2026 UTC.
"""

from __future__ import annotations

import pytest

from lsfemu.events.log import read_events
from lsfemu.testing import temporary_cluster
from lsfemu.events.records import JobClean, JobSignal, JobStatus

pytestmark = pytest.mark.slow(23)  # seconds, quiet machine; one daemon start of eight fewer


def _o(c, jid, fields):
    return c.run(f"bjobs -a -noheader -o '{fields} delimiter=\"|\"' {jid}", user="lsfadmin").out.rstrip("\n")


def _records(c, kind):
    return [r for _, r in read_events(c.home / "logdir" / "lsb.events") if isinstance(r, kind)]


# -- -C ----------------------------------------------------------------------


def test_bkill_C_keeps_the_reason_with_the_job_its_record_and_its_history(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 600", user="user1")
    c.advance("10s")
    r = c.run(["bkill", "-C", "disk quota <full>", "1"], user="user1")
    assert (r.out, r.err, r.rc) == ("Job <1> is being terminated\n", "", 0)
    assert _o(c, 1, "stat kill_reason exit_reason") == "EXIT|disk quota <full>|TERM_OWNER: job killed by owner"
    sig = [s for s in _records(c, JobSignal) if s.job_id == 1]
    assert [(s.signal_symbol, s.user_name, s.reason) for s in sig] == [("KILL", "user1", "disk quota <full>")]
    lines = c.run("bhist -l -w 1", user="user1").out.splitlines()
    assert ("Mon Jan  5 09:00:10: Signal <KILL> requested by user or administrator <user1>, "
            "Kill reason <disk quota <full>>;") in lines


def test_bstop_C_and_bresume_C_keep_their_reasons(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 600", user="user1")
    c.advance("10s")
    assert c.run(["bstop", "-C", "maintenance window", "1"], user="user1").rc == 0
    assert _o(c, 1, "stat suspend_reason resume_reason") == "USUSP|maintenance window|-"
    c.advance("1m")
    assert c.run(["bresume", "-C", "window over", "1"], user="user1").out == "Job <1> is being resumed\n"
    assert _o(c, 1, "stat suspend_reason resume_reason kill_reason") == "RUN|maintenance window|window over|-"
    reasons = [(s.signal_symbol, s.reason) for s in _records(c, JobSignal) if s.job_id == 1]
    assert reasons == [("STOP", "maintenance window"), ("CONT", "window over")]
    text = c.run("bhist -l -w 1", user="user1").out
    assert ("Mon Jan  5 09:00:10: Signal <STOP> requested by user or administrator <user1>, "
            "Suspend reason <maintenance window>;\n") in text
    assert ("Mon Jan  5 09:01:10: Signal <CONT> requested by user or administrator <user1>, "
            "Resume reason <window over>;\n") in text


def test_a_plain_signal_keeps_no_reason_and_an_empty_C_is_none(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 600", user="user1")
    c.run("bsub sleep 600", user="user1")
    c.advance("10s")
    c.run("bstop 1", user="user1")
    c.run(["bkill", "-C", "", "2"], user="user1")
    assert _o(c, 1, "suspend_reason") == "-"
    assert _o(c, 2, "stat kill_reason") == "EXIT|-"
    assert [s.reason for s in _records(c, JobSignal)] == ["", ""]
    assert "reason" not in c.run("bhist -l 1 2", user="user1").out


@pytest.fixture(scope="module")
def still():
    """One cluster whose clock never moves, for the tests that kill a pending job
    of their own with a reason (job IDs as bsub gave them)."""
    with temporary_cluster() as c:
        yield c


def test_a_reason_longer_than_4095_characters_is_cut(still):
    c = still
    jid = c.run("bsub sleep 600", user="user1").job_id
    c.run(["bkill", "-C", "x" * 5000, jid], user="user1")
    assert _o(c, jid, "kill_reason") == "x" * 4095


def test_the_reason_outlives_a_daemon_restart(still):
    c = still
    jid = c.run("bsub sleep 600", user="user1").job_id
    c.run(["bkill", "-C", "kept", jid], user="user1")
    c.run("badmin mbdrestart", user="lsfadmin")
    assert _o(c, jid, "stat kill_reason") == "EXIT|kept"


# -- -b ----------------------------------------------------------------------


def test_bkill_b_kills_with_TERM_BUCKET_KILL_and_cleans_pending_jobs_at_once(lsf_cluster):
    c = lsf_cluster
    for _ in range(10):
        c.run("bsub sleep 600", user="user1")  # 1-8 run, 9 and 10 pend (user1's limit)
    c.advance("10s")
    r = c.run("bkill -b 0", user="user1")
    assert r.out == "".join(f"Job <{j}> is being terminated\n" for j in range(1, 11)) and r.rc == 0
    # the running jobs: killed, kept until their CLEAN_PERIOD is over
    assert _o(c, 1, "stat exit_reason") == "EXIT|TERM_BUCKET_KILL: job killed with bkill -b"
    # the pending ones: gone from mbatchd's memory at once
    gone = c.run("bjobs -a 9 10", user="user1")
    assert (gone.out, gone.err, gone.rc) == ("", "Job <9> is not found\nJob <10> is not found\n", 255)
    assert "9" not in c.run("bjobs -a -noheader -o id", user="user1").out.split()
    status = {(s.job_id, s.status): s.exit_info for s in _records(c, JobStatus) if s.status == 32}
    assert status[(1, 32)] == status[(9, 32)] == 23
    cleaned = [(r.job_id, r.idx) for r in _records(c, JobClean)]
    assert cleaned == [(9, 0), (10, 0)]
    # bhist still reads their history from lsb.events
    assert "Completed <exit>; TERM_BUCKET_KILL: job killed with bkill -b;" in c.run("bhist -l -w 9", user="user1").out
    c.run("badmin mbdrestart", user="lsfadmin")  # a new daemon does not take the cleaned jobs back
    assert c.run("bjobs -a 9", user="user1").rc == 255
    assert _o(c, 1, "stat") == "EXIT"


def test_bkill_b_0_skips_the_jobs_it_cannot_kill_silently(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 600", user="user1")
    c.run("bsub sleep 600", user="user2")
    c.advance("10s")
    plain = c.run("bkill -u all 0", user="user1")  # without -b: user2's job is refused
    assert plain.err == "Job <2>: User permission denied\n" and plain.rc == 255
    c.run("bsub sleep 600", user="user1")  # 3
    r = c.run("bkill -b -u all 0", user="user1")
    assert (r.out, r.err, r.rc) == ("Job <3> is being terminated\n", "", 0)
    assert _o(c, 2, "stat") == "RUN"


def test_bkill_b_is_ignored_with_r_or_s(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 600", user="user1")
    c.run("bsub -H sleep 600", user="user1")
    c.advance("10s")
    assert c.run("bkill -b -r 1", user="user1").rc == 0
    assert _o(c, 1, "exit_reason") == "TERM_OWNER: job killed by owner"
    assert c.run("bkill -b -s KILL 2", user="user1").rc == 0
    assert _o(c, 2, "stat") == "EXIT"  # still known: not cleaned
    assert _records(c, JobClean) == []
