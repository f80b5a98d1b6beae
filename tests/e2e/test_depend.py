"""Job dependencies (bsub -w) end to end on the virtual clock.

The fixture's cluster: 12 slots (hostA..hostC, 4 each), MBD_SLEEP_TIME 10 s,
user1 may run 8 jobs at once; the clock starts Mon Jan 5 09:00:00 2026 UTC.
"""

from lsfemu.events import lsbatch
from lsfemu.events.records import JobNew
from lsfemu.events.log import read_events

import pytest

pytestmark = pytest.mark.slow(37)  # seconds, quiet machine: scheduled early (tests/conftest.py)

NOT_YET = "Job dependency condition not satisfied"
NEVER = "Dependency condition invalid or never satisfied"


def _stat(c, jid, user="user1"):
    return c.run(f"bjobs -a -noheader -o 'stat' {jid}", user=user).out.split()


def _reason(c, jid, user="user1"):
    return c.run(f"bjobs -noheader -o 'pend_reason' {jid}", user=user).out.strip()


def test_done_waits_then_runs(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -J parent sleep 60", user="user1")
    r = c.run('bsub -w "done(1)" -J child sleep 10', user="user1")
    assert (r.out, r.err, r.rc) == ("Job <2> is submitted to default queue <normal>.\n", "", 0)
    c.advance("10s")
    assert _stat(c, 1) == ["RUN"] and _stat(c, 2) == ["PEND"]
    assert _reason(c, 2) == NOT_YET + ";"
    r = c.run("bjobs -l 2", user="user1")
    assert ("Mon Jan  5 09:00:00: Submitted from host <hostA>, CWD <$HOME>, Dependency Condi\n"
            "                     tion <done(1)>;\n PENDING REASONS:\n Job dependency condition not satisfied;\n") in r.out
    assert c.run("bjobs -noheader -o dependency 2", user="user1").out == "done(1)\n"
    c.advance("1m")  # the parent ends at 09:01:10, the next pass starts the child
    assert c.run("bjobs -a -noheader -o 'stat finish_time' 1", user="user1").out == "DONE Jan  5 09:01\n"
    assert c.run("bjobs -noheader -o 'stat start_time' 2", user="user1").out == "RUN Jan  5 09:01\n"


def test_exit_conditions_and_never_satisfied(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -J bad sleep 30", user="user1", env={"LSFEMU_EXIT_CODE": "3"})
    c.run('bsub -w "exit(1, != 0)" sleep 600', user="user1")  # 2
    c.run('bsub -w "exit(bad, > 3)" sleep 600', user="user1")  # 3
    c.run('bsub -w "done(1)" sleep 600', user="user1")  # 4
    c.run('bsub -w "ended(1) && !done(1)" sleep 600', user="user1")  # 5
    c.run('bsub -w "done(1) || exit(1, 3)" sleep 600', user="user1")  # 6
    c.advance("50s")  # job 1 exits with code 3 at 09:00:40; the pass at 09:00:50 decides
    states = {j: _stat(c, j)[0] for j in range(2, 7)}
    assert states == {2: "RUN", 3: "PEND", 4: "PEND", 5: "RUN", 6: "RUN"}
    assert _reason(c, 3) == NEVER + ";"
    assert _reason(c, 4) == NEVER + ";"
    r = c.run("bjobs -p 4", user="user1")
    assert r.out.endswith(" Dependency condition invalid or never satisfied;\n")


def test_names_wildcards_and_own_jobs_only(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -J step1 sleep 20", user="user1")
    c.run("bsub -J step2 sleep 40", user="user1")
    c.run("bsub -J step3 sleep 600", user="user2")  # not user1's: not part of step*
    c.run('bsub -w "ended(step*)" -J final sleep 600', user="user1")
    r = c.run('bsub -w "done(step3)" sleep 5', user="user1")
    assert (r.out, r.err, r.rc) == ("", "step3: No matching job found. Job not submitted.\n", 255)
    c.advance("40s")
    assert _stat(c, 4) == ["PEND"]
    c.advance("20s")  # step2 ends at 09:00:50; user2's step3 still runs
    assert _stat(c, 4) == ["RUN"]


def test_bare_job_id_and_started(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 100", user="user1")
    c.run('bsub -w "1" sleep 600', user="user1")  # a bare job: done(1)
    c.run('bsub -w "started(1)" sleep 600', user="user1")
    c.advance("10s")  # job 1 starts at the first pass; dependencies are checked again at the next
    assert (_stat(c, 2), _stat(c, 3)) == (["PEND"], ["PEND"])
    c.advance("10s")
    assert (_stat(c, 2), _stat(c, 3)) == (["PEND"], ["RUN"])


def test_killed_while_pending_never_started(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -n 12 sleep 100", user="user2")
    c.run("bsub sleep 100", user="user1")  # 2: waits for slots
    c.run('bsub -w "started(2)" sleep 5', user="user1")
    c.run('bsub -w "ended(2)" sleep 5', user="user1")
    c.advance("10s")
    c.run("bkill 2", user="user1")
    c.advance("10s")
    assert _reason(c, 3) == NEVER + ";"
    assert _stat(c, 4) == ["PEND"] and _reason(c, 4) == "Job slot limit reached: 3 hosts;"


def test_array_counters_and_one_to_one(lsf_cluster):
    c = lsf_cluster
    c.run('bsub -J "A[1-3]" sleep 30', user="user1", env={"LSFEMU_RUNTIME": "30"})
    c.run('bsub -w "numdone(1, >= 2)" sleep 600', user="user1")  # 2
    c.run('bsub -w "numended(1, *)" sleep 600', user="user1")  # 3
    c.run('bsub -J "B[1-3]" -w "done(A[*])" sleep 600', user="user1")  # 4
    r = c.run('bsub -J "C[1-2]" -w "done(A[*])" sleep 5', user="user1")
    assert (r.err, r.rc) == ("Dependent arrays do not have the same size. Job not submitted.\n", 255)
    r = c.run('bsub -w "numdone(2)" sleep 5', user="user1")
    assert (r.err, r.rc) == ("2: Job array does not exist. Job not submitted.\n", 255)
    c.run('bkill "1[3]"', user="user1")
    c.advance("50s")  # A[1], A[2] done at 09:00:40
    assert _stat(c, 2) == ["RUN"] and _stat(c, 3) == ["RUN"]
    r = c.run("bjobs -a -noheader -o 'jobindex stat pend_reason' 4", user="user1")
    assert r.out.splitlines() == ["1 RUN -", "2 RUN -", f"3 PEND {NEVER};"]


def test_bad_conditions_leave_the_store_unchanged(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -J one sleep 5", user="user1")
    bad = {
        'done(1': "done(1: Dependency condition syntax error",
        'done(1) &&': "done(1) &&: Dependency condition syntax error",
        'exit(1, >)': "exit(1, >): Dependency condition syntax error",
        'done(1) done(1)': "done(1) done(1): Dependency condition syntax error",
        'done(99)': "99: No matching job found",
        'ended("nosuch")': '"nosuch: No matching job found',
        'done(1[2])': "1[2]: No matching job found",
        'numrun(1)': "1: Job array does not exist",
    }
    for cond, msg in bad.items():
        r = c.run(["bsub", "-w", cond, "sleep", "1"], user="user1")
        assert (r.out, r.err, r.rc) == ("", f"{msg}. Job not submitted.\n", 255), cond
    r = c.run("bjobs -a -noheader -o jobid -u all")
    assert r.out == "1\n"
    assert c.run("bsub sleep 1", user="user1").out == "Job <2> is submitted to default queue <normal>.\n"


def test_script_option_event_log_and_bhist(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -J first sleep 20", user="user1")
    r = c.run("bsub", user="user1", stdin="#!/bin/sh\n#BSUB -w 'done(first)'\n#BSUB -J second\nsleep 5\n")
    assert r.rc == 0
    c.advance("1m")
    new = [r for _, r in read_events(c.home / "logdir" / "lsb.events") if isinstance(r, JobNew)]
    assert [(r.job_id, r.depend_cond, bool(r.options & lsbatch.SUB_DEPEND_COND)) for r in new] == [
        (1, "", False), (2, "done(first)", True)]
    r = c.run("bhist -l 2", user="user1")
    assert "Dependency Condition <done(first)>;" in r.out.replace("\n                     ", "")
    assert "Mon Jan  5 09:00:30: Dispatched to <hostA>, Effective RES_REQ <select[type == local] order[r15s:pg] >;" in r.out.replace("\n                     ", "")
    # (the pass right after first ended)


def test_wall_clock_dependency_chain(lsf_cluster_factory):
    """Wall clock: a child starts only after its parent really ended, and only
    if the condition holds."""
    import time

    params = "Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 1\nEnd Parameters\n"
    c = lsf_cluster_factory(clock="wall", files={"lsb.params": params})
    work = c.root / "work"
    work.mkdir()
    assert c.run(["bsub", "-J", "p", "sleep 1; exit 4"], user="user1", cwd=str(work)).rc == 0
    assert c.run(["bsub", "-w", "exit(p, 4)", "echo ran > child.out"], user="user1", cwd=str(work)).rc == 0
    assert c.run(["bsub", "-w", "done(p)", "echo ran > never.out"], user="user1", cwd=str(work)).rc == 0
    deadline = time.time() + 30
    while time.time() < deadline and c.run("bjobs -a -noheader -o stat 2", user="user1").out.strip() != "DONE":
        time.sleep(0.2)
    assert (work / "child.out").read_text() == "ran\n"
    assert c.run("bjobs -noheader -o 'stat pend_reason' 3", user="user1").out == f"PEND {NEVER};\n"
    assert not (work / "never.out").exists()


def test_daemon_restart_keeps_conditions(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -J p sleep 30", user="user1")
    c.run('bsub -w "done(p)" sleep 600', user="user1")
    c.advance("10s")
    assert c.run("lsfemu daemon restart").rc == 0
    c.advance("10s")
    assert _reason(c, 2) == NOT_YET + ";"
    c.advance("30s")
    assert _stat(c, 2) == ["RUN"]


def test_dependency_on_a_job_older_than_clean_period(lsf_cluster_factory):
    """mbatchd keeps a job a condition names; lsfemu reads it back from the store."""
    c = lsf_cluster_factory()
    text = c.path_of("lsb.params").read_text().replace("End Parameters", "CLEAN_PERIOD = 60\nEnd Parameters")
    c.write("lsb.params", text)
    c.run("badmin reconfig", user="lsfadmin")
    c.run("bsub -n 11 sleep 300", user="user2")  # 1: leaves one slot
    c.run("bsub sleep 10", user="user1")  # 2: runs at once, DONE at 09:00:20
    c.run("bsub sleep 700", user="user1")  # 3: waits for job 1, runs 09:05:10 - 09:16:50
    c.run('bsub -w "done(2) && done(3)" sleep 600', user="user1")  # 4
    c.advance("10m")
    assert c.run("lsfemu daemon restart").rc == 0  # a restarted mbatchd holds no job finished before CLEAN_PERIOD
    assert c.run("bjobs -a -noheader -o stat 2", user="user1").err == "Job <2> is not found\n"
    assert _reason(c, 4) == NOT_YET + ";"
    c.advance("8m")
    assert _stat(c, 3) == ["DONE"] and _stat(c, 4) == ["RUN"]
