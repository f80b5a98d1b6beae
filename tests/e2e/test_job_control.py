"""Job control of issue 18, part 5, end to end on the virtual clock: brun (an
administrator forces a dispatch), bkill's -r -d -l -stat -m, and the -m host
filter of bstop, bresume and bswitch.

The fixture's cluster: hostA..hostC with 4 slots each, MBD_SLEEP_TIME 10 s,
user1 may run 8 jobs at once, lsfadmin is the cluster administrator; the
clock starts Mon Jan 5 09:00:00 2026 UTC.
"""

from __future__ import annotations

import pytest

from lsfemu.events.log import read_events
from lsfemu.events.records import JobForce, JobRequeue, JobSignal, JobStart, JobStatus
from lsfemu.testing import temporary_cluster

pytestmark = pytest.mark.slow(63)  # seconds, quiet machine; CPU 27.6 -> 22.1 s with its daemons, A/B at load 13


def _stat(c, jid, field="stat"):
    return c.run(f"bjobs -a -noheader -o '{field}' {jid}", user="lsfadmin").out.strip()


def _records(c, kind):
    return [r for _, r in read_events(c.home / "logdir" / "lsb.events") if isinstance(r, kind)]


def _fill(c, n=9):
    """user1's limit of 8 running jobs: the 9th pends (its user's job slot limit)."""
    for _ in range(n):
        c.run("bsub sleep 600", user="user1")
    c.advance("10s")


# -- brun ------------------------------------------------------------------


def test_brun_forces_a_pending_job_past_the_user_limit(lsf_cluster):
    c = lsf_cluster
    _fill(c)
    assert _stat(c, 9) == "PEND"
    r = c.run("brun -m hostC 9", user="lsfadmin")
    assert (r.out, r.err, r.rc) == ("Job <9> is being forced to run.\n", "", 0)
    assert _stat(c, 9, "stat exec_host start_time") == "RUN hostC Jan  5 09:00"
    force = _records(c, JobForce)
    assert [(f.job_id, f.exec_hosts, f.user_name, f.options) for f in force] == [(9, ("hostC",), "lsfadmin", 0)]
    starts = [s for s in _records(c, JobStart) if s.job_id == 9]
    assert len(starts) == 1 and starts[0].event_time == force[0].event_time
    lines = c.run("bhist -l 9", user="user1").out.replace("\n                     ", "").splitlines()
    at = lines.index("Mon Jan  5 09:00:10: Job is forced to run by user or administrator <lsfadmin>;")
    assert lines[at + 1] == "Mon Jan  5 09:00:10: Dispatched to <hostC>, Effective RES_REQ <select[type == local] order[r15s:pg] >;"
    c.advance("10m")  # the forced job runs its course like any other
    assert _stat(c, 9) == "DONE"


def test_brun_places_every_slot_on_the_hosts_named(lsf_cluster):
    c = lsf_cluster
    _fill(c, 8)
    c.run("bsub -n 6 sleep 600", user="user2")  # 9: 4 slots are left, on hostC
    c.run("bsub -n 5 sleep 600", user="user2")  # 10
    c.advance("10s")
    assert (_stat(c, 9), _stat(c, 10)) == ("PEND", "PEND")
    assert c.run("brun -m 'hostA hostB' 9", user="lsfadmin").rc == 0
    assert _stat(c, 9, "exec_host") == "hostA:hostA:hostA:hostA:hostB:hostB"
    assert c.run("brun -m 'hostC#1 hostB#2 hostA' 10", user="lsfadmin").rc == 0
    assert _stat(c, 10, "exec_host") == "hostC:hostB:hostB:hostA:hostA"


def test_brun_refusals_change_nothing(lsf_cluster):
    c = lsf_cluster
    for _ in range(9):
        c.run("bsub sleep 600", user="user1")  # 1-8 run, 9 pends (user1's limit)
    c.run("bsub sleep 1", user="user2")  # 10: runs and ends
    c.run("bsub -n 10 sleep 600", user="user2")  # 11: pends
    c.run("bsub -J 'arr[1-6]' sleep 600", user="user2")  # 12: 12[5] and 12[6] pend
    c.advance("10s")
    c.run("bstop 1", user="user1")
    c.advance("1m")
    assert [_stat(c, j) for j in (9, 10, 11, "'12[6]'")] == ["PEND", "DONE", "PEND", "PEND"]
    refused = {
        ("brun -m hostA 9", "user1"): "User permission denied",
        ("brun -m hostA 99", "lsfadmin"): "No matching job found",
        ("brun -m hostA 12", "lsfadmin"): "Cannot operate on job array",
        ("brun -m hostA 1", "lsfadmin"): "Operation not supported for a suspended job",
        ("brun -m hostA 2", "lsfadmin"): "Job has already started",
        ("brun -m hostA 10", "lsfadmin"): "Job has already finished",
        ("brun -m hostZ 9", "lsfadmin"): "Bad host name, host group name or cluster name",
        ("brun -m 'hostA#x' 9", "lsfadmin"): "Bad host name, host group name or cluster name",
        ("brun -m 'hostA hostB' 11", "lsfadmin"): "Too many processors requested",
    }
    before = c.run("bjobs -a -u all -noheader -o 'jobid stat exec_host'", user="lsfadmin").out
    for (cmd, user), reason in refused.items():
        r = c.run(cmd, user=user)
        assert (r.out, r.err, r.rc) == ("", f"Failed to run the job: {reason}\n", 255), cmd
    usage = c.run("brun -h", user="user1").err
    for cmd in ("brun 9", "brun -m hostA", "brun -m hostA 9 10", "brun -m hostA x9"):
        r = c.run(cmd, user="lsfadmin")
        assert (r.out, r.err, r.rc) == ("", usage, 255), cmd
    assert c.run("bjobs -a -u all -noheader -o 'jobid stat exec_host'", user="lsfadmin").out == before
    assert _records(c, JobForce) == []
    r = c.run("brun -m hostA '12[6]'", user="lsfadmin")  # one element of the array may be forced
    assert (r.out, r.rc) == ("Job <12[6]> is being forced to run.\n", 0)
    assert _stat(c, "'12[6]'", "stat exec_host") == "RUN hostA"


# -- bkill -l -stat -d, and -m for bkill, bstop, bresume, bswitch ---------------------------------------


@pytest.fixture(scope="module")
def killing():
    """One cluster for the bkill -l, -d and -r tests, each on jobs of its own:
    user1's 1-8 run (4 on hostA, 4 on hostB), 9-10 pend (its limit of 8)."""
    with temporary_cluster() as c:
        _fill(c, 10)
        yield c


def test_bkill_l_lists_the_signal_names(killing):
    r = killing.run("bkill -l", user="user1")
    assert (r.out, r.err, r.rc) == (
        "HUP INT QUIT ILL TRAP IOT EMT FPE KILL BUS SEGV SYS PIPE ALRM TERM STOP TSTP CONT CHLD TTIN TTOU IO "
        "XCPU XFSZ VTALRM PROF WINCH LOST USR1 USR2 \n", "", 0)


def test_bkill_stat_kills_the_jobs_in_that_state_only(lsf_cluster):
    c = lsf_cluster
    _fill(c, 10)  # 1-8 RUN, 9-10 PEND
    c.run("bstop 2 9", user="user1")  # 2 USUSP, 9 PSUSP
    c.run("bsub sleep 600", user="user2")  # 11: user2's, left alone
    c.advance("10s")
    r = c.run("bkill -stat susp", user="user1")
    assert (r.out, r.err, r.rc) == ("Job <2> is being terminated\nJob <9> is being terminated\n", "", 0)
    r = c.run("bkill -stat pend 10 3", user="user1")  # job IDs too: 3 runs, and is left out silently
    assert (r.out, r.err, r.rc) == ("Job <10> is being terminated\n", "", 0)
    assert [_stat(c, j) for j in (2, 3, 9, 10, 11)] == ["EXIT", "RUN", "EXIT", "EXIT", "RUN"]
    r = c.run("bkill -stat pend", user="user1")
    assert (r.out, r.err, r.rc) == ("", "No pending job found\n", 255)
    r = c.run("bkill -stat run -q normal", user="user1")
    assert r.out.count("is being terminated") == 7 and _stat(c, 11) == "RUN"
    assert c.run("bkill -stat susp", user="user1").err == "No suspended job found\n"
    assert c.run("bkill -stat run", user="user1").err == "No running job found\n"


def test_bkill_d_records_a_started_job_done_and_a_pending_one_exit(killing):
    c = killing
    assert c.run("bkill -d 1 9", user="user1").out == "Job <1> is being terminated\nJob <9> is being terminated\n"
    assert (_stat(c, 1), _stat(c, 9)) == ("DONE", "EXIT")  # -d counts for started jobs only
    done = [r for r in _records(c, JobStatus) if r.job_id == 1]
    assert done[-1].status & 64  # JOB_STAT_DONE (with the post-job bit)
    sig = [r for r in _records(c, JobSignal) if r.job_id == 1]
    assert [(s.signal_symbol, s.user_name) for s in sig] == [("KILL", "user1")]


def test_bkill_r_removes_a_job_at_once(killing):
    c = killing
    r = c.run("bkill -r 2 10", user="user1")
    assert (r.out, r.rc) == ("Job <2> is being terminated\nJob <10> is being terminated\n", 0)
    assert (_stat(c, 2, "stat exit_code"), _stat(c, 10)) == ("EXIT 130", "EXIT")
    r = c.run("bkill -r -s KILL 3", user="user1")  # -r and -s exclude each other: the usage, nothing done
    assert (r.out, r.rc) == ("", 255) and r.err.startswith("Usage: bkill ")
    assert _stat(c, 3) == "RUN"


def test_m_selects_the_jobs_on_a_host(lsf_cluster):
    c = lsf_cluster
    c.write("lsb.hosts", c.path_of("lsb.hosts").read_text()
            + "\nBegin HostGroup\nGROUP_NAME GROUP_MEMBER\nbc_hosts (hostB hostC)\nEnd HostGroup\n")
    assert c.run("badmin reconfig", user="lsfadmin").rc == 0
    _fill(c, 8)  # 1-4 on hostA, 5-8 on hostB
    assert [_stat(c, j, "exec_host") for j in (1, 5)] == ["hostA", "hostB"]
    r = c.run("bstop -m hostB", user="user1")
    assert r.out == "".join(f"Job <{j}> is being stopped\n" for j in (5, 6, 7, 8))
    assert [_stat(c, j) for j in (4, 5)] == ["RUN", "USUSP"]
    r = c.run("bresume -m bc_hosts", user="user1")  # a host group
    assert r.out == "".join(f"Job <{j}> is being resumed\n" for j in (5, 6, 7, 8))
    r = c.run("bswitch -m hostA priority", user="user1")
    assert r.out == "".join(f"Job <{j}> is switched to queue <priority>\n" for j in (1, 2, 3, 4))
    assert [_stat(c, j, "queue") for j in (1, 5)] == ["priority", "normal"]
    r = c.run("bkill -m hostC", user="user1")
    assert (r.out, r.err, r.rc) == ("", "No unfinished job found on host/group <hostC>\n", 255)
    r = c.run("bkill -m nosuch", user="user1")
    assert (r.out, r.err, r.rc) == ("", "nosuch: Bad host name, host group name or cluster name\n", 255)
    r = c.run("bkill -m hostB", user="user1")
    assert r.out == "".join(f"Job <{j}> is being terminated\n" for j in (5, 6, 7, 8))
    assert [_stat(c, j) for j in (1, 5)] == ["RUN", "EXIT"]


# -- bpeek on the virtual clock: jobs write nothing -------------------------------------------------------


def test_bpeek_answers_as_lsf_for_jobs_that_wrote_nothing(lsf_cluster):
    c = lsf_cluster
    _fill(c)  # 1-8 RUN (1-4 on hostA), 9 PEND
    c.run("bsub -J 'arr[1-2]' sleep 600", user="user2")  # 10
    c.run("bsub -q priority -J late sleep 5", user="user2")  # 11
    c.advance("10s")
    c.run("bkill 8", user="user1")
    cases = {
        ("bpeek 1", "user1"): "Job <1>: No output so far\n",
        ("bpeek", "user1"): "Job <9> : Not yet started.\n",  # the caller's last unfinished job
        ("bpeek -m hostA", "user1"): "Job <4>: No output so far\n",
        ("bpeek -J late", "user1"): "Job <11>: User permission denied\n",  # not the caller's: anyone's by that name
        ("bpeek -q priority", "user2"): "Job <11>: No output so far\n",
        ("bpeek 8", "user1"): "Job <8> : Already finished.\n",
        ("bpeek 10", "user2"): "bpeek: Cannot operate on job array\n",
        ("bpeek '10[2]'", "user2"): "Job <10[2]>: No output so far\n",
        ("bpeek 99", "user1"): "Job <99> is not found\n",
        ("bpeek -q nosuch", "user1"): "nosuch: No such queue\n",
        ("bpeek -m hostZ", "user1"): "hostZ: Bad host name, host group name or cluster name\n",
        ("bpeek -m hostC", "user1"): "No unfinished job found on host/group <hostC>\n",
    }
    for (cmd, user), err in cases.items():
        r = c.run(cmd, user=user)
        assert (r.out, r.err, r.rc) == ("", err, 255), cmd
    usage = c.run("bpeek -h", user="user1").err
    r = c.run("bpeek -q normal 1", user="user1")
    assert (r.out, r.err, r.rc) == (
        "", "Command syntax error: more than one of -m , -q, -J or jobId are specified.\n" + usage, 255)
    assert c.run("bpeek 1 2", user="user1").err == usage


# -- bjdepinfo over bsub -w's conditions ------------------------------------------------------------------

_HEAD = "JOBID          PARENT         PARENT_STATUS  PARENT_NAME  LEVEL\n"


def _flow(c):
    """pre1 (1) runs, pre2 (2) is DONE, exe[1-2] (3) waits for both, post (4) for exe."""
    c.run("bsub -J pre1 sleep 100", user="user1")
    c.run("bsub -J pre2 sleep 30", user="user1")
    c.run("bsub -J 'exe[1-2]' -w 'done(1) && done(2)' sleep 10", user="user1")
    c.run("bsub -J post -w 'ended(3)' sleep 10", user="user1")
    c.advance("50s")


def test_bjdepinfo_lists_parents_children_and_what_keeps_a_job_pending(lsf_cluster):
    c = lsf_cluster
    _flow(c)
    r = c.run("bjdepinfo '3[1]'", user="user1")
    assert (r.out, r.err, r.rc) == (_HEAD + "3[1]           1              RUN            pre1         1\n"
                                    "3[1]           2              DONE           pre2         1\n", "", 0)
    r = c.run("bjdepinfo -p 3", user="user1")  # the array's ID: every element; -p: only pre1 keeps them pending
    assert r.out == (_HEAD + "3[1]           1              RUN            pre1         1\n"
                     "3[2]           1              RUN            pre1         1\n")
    r = c.run("bjdepinfo -lp '3[2]'", user="user1")
    assert r.out == ("The dependency condition of job <3[2]> is not satisfied: done(1) && done(2)\n" + _HEAD
                     + "3[2]           1              RUN            pre1         1\n")
    r = c.run("bjdepinfo -r 2 4", user="user2")  # anyone may look
    assert r.out.splitlines()[1:] == [
        "4              3[1]           PEND           exe          1",
        "4              3[2]           PEND           exe          1",
        "3[1]           1              RUN            pre1         2",
        "3[1]           2              DONE           pre2         2",
        "3[2]           1              RUN            pre1         2",
        "3[2]           2              DONE           pre2         2"]
    r = c.run("bjdepinfo -c -r 2 1", user="user1")
    assert r.out == ("JOBID          CHILD          CHILD_STATUS   CHILD_NAME   LEVEL\n"
                     "1              3[1]           PEND           exe          1\n"
                     "1              3[2]           PEND           exe          1\n"
                     "3[1]           4              PEND           post         2\n"
                     "3[2]           4              PEND           post         2\n")
    assert c.run("bjdepinfo 1", user="user1").err == "No dependency job found\n"
    c.advance("1m")  # pre1 ends DONE: the condition is met
    r = c.run("bjdepinfo -l '3[1]'", user="user1")
    assert r.out.startswith("The dependency condition of job <3[1]> is satisfied: done(1) && done(2)\n")


# -- brequeue -H -J, bmig -J ----------------------------------------------------------------------------


def test_brequeue_h_holds_the_job_and_j_selects_by_name(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -J keep -r sleep 600", user="user1")  # 1
    c.run("bsub -J redo sleep 600", user="user1")  # 2
    c.advance("10s")
    r = c.run("brequeue -H 1", user="user1")
    assert (r.out, r.err, r.rc) == ("Job <1> is being requeued \n", "", 0)  # (sic: OpenLava's blank)
    assert _stat(c, 1, "stat exec_host") == "PSUSP -"
    c.advance("1m")  # held: no pass starts it
    assert _stat(c, 1) == "PSUSP"
    status = [r for r in _records(c, JobStatus) if r.job_id == 1]
    assert (status[-1].status, status[-1].reason) == (2, 607)  # JOB_STAT_PSUSP, PEND_USER_STOP
    assert "Suspended by the user or administrator while pending;" in c.run("bhist -l 1", user="user1").out
    assert c.run("bresume 1", user="user1").rc == 0
    c.advance("10s")
    assert _stat(c, 1) == "RUN"
    r = c.run("brequeue -J redo", user="user1")  # -J alone names the jobs
    assert (r.out, r.rc) == ("Job <2> is being requeued \n", 0)
    assert [r.job_id for r in _records(c, JobRequeue)] == [1, 2]
    r = c.run("bmig -J keep", user="user1")
    assert (r.out, r.rc) == ("Job <1> is being migrated\n", 0)
    assert [(r.status, r.reason) for r in _records(c, JobStatus) if r.job_id == 1][-1] == (1, 5)  # PEND_JOB_MIG
    assert c.run("brequeue -J nosuch", user="user1").err == "Job <nosuch> is not found\n"
