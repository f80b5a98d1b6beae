"""The foundation story, end to end through the real command scripts and a
real daemon: submit, watch, advance the clock, control jobs.

Times: the fixture's virtual clock starts Mon Jan 5 09:00:00 2026 UTC and
MBD_SLEEP_TIME is 10 s, so the first scheduling pass is at 09:00:10.
"""

import pytest

from lsfemu.testing import temporary_cluster

pytestmark = pytest.mark.slow(33)  # seconds, quiet machine; one daemon start of twelve fewer

HEADER = "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"


def test_submit_run_finish(lsf_cluster):
    c = lsf_cluster
    r = c.run("bsub -q normal -n 2 -J hello sleep 600", user="user1")
    assert (r.out, r.err, r.rc) == ("Job <1> is submitted to queue <normal>.\n", "", 0)
    r = c.run("bjobs", user="user1")
    assert r.out == HEADER + "1       user1   PEND  normal     hostA                   hello      Jan  5 09:00\n"
    assert r.rc == 0
    c.advance("10s")
    r = c.run("bjobs", user="user1")
    assert r.out == HEADER + "1       user1   RUN   normal     hostA       2*hostA     hello      Jan  5 09:00\n"
    c.advance("15m")
    assert c.run("bjobs", user="user1").err == "No unfinished job found\n"
    r = c.run("bjobs -a", user="user1")
    assert r.out == HEADER + "1       user1   DONE  normal     hostA       2*hostA     hello      Jan  5 09:00\n"
    r = c.run("bjobs -o 'jobid stat start_time finish_time cpu_used run_time' -noheader 1")
    assert r.out == "1 DONE Jan  5 09:00 Jan  5 09:10 1200.0 second(s) 600 second(s)\n"


@pytest.fixture(scope="module")
def still():
    """One cluster whose clock never moves, for the tests that submit and look
    or switch, each on the job IDs bsub gave it."""
    with temporary_cluster() as c:
        yield c


def test_default_queue_wording_and_script_on_stdin(still):
    c = still
    r = c.run("bsub sleep 5", user="user1")
    assert r.out == f"Job <{r.job_id}> is submitted to default queue <normal>.\n"
    script = "#!/bin/sh\n#BSUB -q priority\n#BSUB -J fromscript\n#BSUB -n 3\nsleep 30\n"
    r = c.run("bsub", user="user2", stdin=script)
    jid = r.job_id
    assert r.out == f"Job <{jid}> is submitted to queue <priority>.\n"
    r = c.run(f"bjobs -noheader -o 'jobid queue job_name slots' {jid}")
    assert r.out == f"{jid} priority fromscript 3\n"
    # Command-line options win over #BSUB lines.
    r = c.run("bsub -q normal", user="user2", stdin=script)
    assert r.out == f"Job <{r.job_id}> is submitted to queue <normal>.\n"


def test_pending_order_limits_and_reasons(lsf_cluster):
    c = lsf_cluster
    for _ in range(3):
        c.run("bsub -n 4 sleep 100", user="user2")  # 12 slots: the whole cluster
    c.run("bsub sleep 100", user="user3")
    c.run("bsub -q priority sleep 100", user="user1")
    c.advance("10s")
    r = c.run("bjobs -u all -noheader -o 'jobid stat queue exec_host'")
    lines = r.out.splitlines()
    # The priority queue's job goes first and takes a slot; two 4-slot jobs fit after it.
    assert lines[:3] == ["5 RUN priority hostA", "1 RUN normal hostA:hostA:hostA:hostB",
                         "2 RUN normal hostB:hostB:hostB:hostC"]
    # No slot reservation: the 1-slot job 4 takes a slot the 4-slot job 3 cannot use.
    assert lines[3:] == ["4 RUN normal hostC", "3 PEND normal -"]
    r = c.run("bjobs -p 3")
    assert " Not enough job slot(s): 1 host;\n" in r.out
    assert " Job slot limit reached: 2 hosts;\n" in r.out


def test_user_max_jobs(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -n 8 sleep 100", user="user1")  # user1: MAX_JOBS 8 in lsb.users
    c.run("bsub sleep 100", user="user1")
    c.advance("10s")
    r = c.run("bjobs -p -noheader -o 'jobid pend_reason' 2")
    assert r.out == "2 The user has reached his/her job slot limit;\n"


def test_control_permissions_and_messages(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 1000", user="user1")
    c.advance("10s")
    r = c.run("bkill 1", user="user2")
    assert (r.out, r.err, r.rc) == ("", "Job <1>: User permission denied\n", 255)
    r = c.run("bstop 1", user="user1")
    assert (r.out, r.rc) == ("Job <1> is being stopped\n", 0)
    assert "USUSP" in c.run("bjobs 1").out
    c.advance("5m")
    r = c.run("bresume 1", user="user1")
    assert r.out == "Job <1> is being resumed\n"
    # Stopped right at its start (09:00:10), resumed at 09:05:10: 1000 s of work end at 09:21:50.
    c.advance("990s")
    assert "RUN" in c.run("bjobs 1").out
    c.advance("10s")
    assert c.run("bjobs -noheader -o 'stat finish_time run_time' 1").out == "DONE Jan  5 09:21 1000 second(s)\n"
    r = c.run("bkill 1", user="user1")
    assert (r.err, r.rc) == ("Job <1>: Job has already finished\n", 255)
    r = c.run("bkill 99", user="user1")
    assert (r.err, r.rc) == ("Job <99>: No matching job found\n", 255)
    r = c.run("bjobs 99")
    assert (r.out, r.err, r.rc) == ("", "Job <99> is not found\n", 255)


def test_admin_may_kill_and_bkill_zero(lsf_cluster):
    c = lsf_cluster
    c.run("bsub sleep 1000", user="user1")
    c.run("bsub sleep 1000", user="user1")
    c.run("bsub sleep 1000", user="user2")
    r = c.run("bkill 1", user="lsfadmin")
    assert (r.out, r.rc) == ("Job <1> is being terminated\n", 0)
    r = c.run("bjobs -l 1")
    assert "Completed <exit>; TERM_ADMIN: job killed by root or LSF administrator" in r.out.replace("\n                     ", "")
    r = c.run("bkill 0", user="user1")
    assert r.out == "Job <2> is being terminated\n"
    assert c.run("bjobs -noheader -o 'jobid stat' 3").out == "3 PEND\n"
    r = c.run("bkill 0", user="user1")
    assert (r.err, r.rc) == ("No unfinished job found\n", 255)
    r = c.run("bkill", user="user1")
    assert r.rc == 255 and r.err.startswith("Job ID or one of '-m', '-u' '-q' and '-J' must be specified.\n")


def test_bswitch(still):
    c = still
    jid = c.run("bsub sleep 100", user="user1").job_id
    r = c.run(f"bswitch priority {jid}", user="user1")
    assert (r.out, r.rc) == (f"Job <{jid}> is switched to queue <priority>\n", 0)
    r = c.run(f"bswitch nosuch {jid}", user="user1")
    assert (r.err, r.rc) == (f"Job <{jid}>: No such queue\n", 255)
    assert c.run(f"bjobs -noheader -o queue {jid}").out == "priority\n"


def test_runlimit(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -W 2 sleep 600", user="user1")
    c.run("bsub -q priority sleep 7200", user="user1")  # queue RUNLIMIT 60 minutes
    c.advance("2h")
    r = c.run("bjobs -a -noheader -o 'jobid stat exit_code run_time exit_reason'", user="user1")
    assert r.out == ("1 EXIT 140 120 second(s) TERM_RUNLIMIT: job killed after reaching LSF run time limit\n"
                     "2 EXIT 140 3600 second(s) TERM_RUNLIMIT: job killed after reaching LSF run time limit\n")


def test_bad_input_changes_nothing(lsf_cluster):
    c = lsf_cluster
    cases = [
        ("bsub -q nosuch sleep 1", "nosuch: No such queue. Job not submitted.\n"),
        ("bsub -sp 500 sleep 1", "Bad user priority. Job not submitted.\n"),
        ("bsub -sp abc sleep 1", "Bad user priority. Job not submitted.\n"),
        ("bsub -n 100 sleep 1", "Too many processors requested. Job not submitted.\n"),
        ("bsub -W 2 -q priority -W 100 sleep 1", "RUNLIMIT: Cannot exceed queue's hard limit(s). Job not submitted.\n"),
        ("bsub -R 'rusage[mem=' sleep 1", "rusage[mem=: Bad resource requirement syntax. Job not submitted.\n"),
        ("bsub -G nosuch sleep 1", "nosuch: Bad user group name. Job not submitted.\n"),
    ]
    for cmd, err in cases:
        r = c.run(cmd, user="user1")
        assert (r.out, r.err, r.rc) == ("", err, 255), cmd
    r = c.run("bjobs -z")
    assert r.rc == 255 and r.err.startswith("bjobs: illegal option -- z\n") and "Usage" in r.err
    r = c.run("bjobs abc")
    assert r.rc == 255 and "Traceback" not in r.err
    assert c.run("bjobs -u all -a").err == "No job found\n"


def test_info_commands(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -n 2 sleep 100", user="user1")
    c.run("bsub -q priority sleep 100", user="user2")
    c.advance("10s")
    assert c.run("bqueues").out == (
        "QUEUE_NAME      PRIO STATUS          MAX JL/U JL/P JL/H NJOBS  PEND   RUN  SUSP \n"
        "priority         43  Open:Active       -    -    -    -     1     0     1     0\n"
        "normal           30  Open:Active       -    -    -    -     2     0     2     0\n")
    assert c.run("bhosts").out == (
        "HOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV \n"
        "hostA              ok              -      4      3      3      0      0      0\n"
        "hostB              ok              -      4      0      0      0      0      0\n"
        "hostC              ok              -      4      0      0      0      0      0\n")
    assert c.run("busers user1").out == (
        "USER/GROUP          JL/P    MAX  NJOBS   PEND    RUN  SSUSP  USUSP    RSV \n"
        "user1                  -      8      2      0      2      0      0      0\n")
    assert c.run("bparams").out == (
        "Default Queues:  normal\nJob Dispatch Interval:  10 seconds\n"
        "Job Checking Interval:  7 seconds\nJob Accepting Interval:  0 seconds\n")
    r = c.run("lsid")
    assert r.out.startswith("IBM Spectrum LSF Standard 10.1.0.13, Jan 04 2023\n")
    assert r.out.endswith("\nMy cluster name is cluster1\nMy master name is hostA\n")


def test_badmin_reconfig(lsf_cluster):
    c = lsf_cluster
    r = c.run("badmin ckconfig")
    assert (r.err, r.rc) == ("\nChecking configuration files ...\n\nNo errors found.\n\n", 0)
    r = c.run("badmin reconfig", user="user1")
    assert (r.err, r.rc) == ("User permission denied\n", 255)
    good = c.path_of("lsb.queues").read_text()
    c.write("lsb.queues", good + "\nBegin Queue\nQUEUE_NAME = night\nPRIORITY = abc\nEnd Queue\n")
    r = c.run("badmin reconfig", user="lsfadmin")
    assert r.rc == 255 and "There are fatal errors." in r.err and "lsb.queues(" in r.err
    assert c.run("bqueues night").err == "night: No such queue\n"  # the running config is kept
    c.write("lsb.queues", good + "\nBegin Queue\nQUEUE_NAME = night\nPRIORITY = 5\nEnd Queue\n")
    r = c.run("badmin reconfig", user="lsfadmin")
    assert (r.out, r.rc) == ("Reconfiguration initiated\n", 0)
    assert c.run("bqueues night").out.splitlines()[1].startswith("night             5  Open:Active")


def test_queue_and_host_control(lsf_cluster):
    c = lsf_cluster
    r = c.run("badmin qclose normal", user="lsfadmin")
    assert r.out == "Queue <normal> is closed\n"
    r = c.run("bsub sleep 1", user="user1")
    assert (r.err, r.rc) == ("normal: Queue has been closed. Job not submitted.\n", 255)
    c.run("badmin qopen normal", user="lsfadmin")
    c.run("badmin qinact normal", user="lsfadmin")
    c.run("bsub sleep 1", user="user1")
    c.advance("10s")
    r = c.run("bjobs -noheader -o 'stat pend_reason' 1")
    assert r.out == "PEND The queue is inactivated by the administrator;\n"
    assert c.run("bqueues normal").out.splitlines()[1].split()[2] == "Open:Inact"
    r = c.run("badmin hclose hostA", user="lsfadmin")
    assert r.err == "Close <hostA> ...... done\n"
    assert c.run("bhosts hostA").out.splitlines()[1].split()[1] == "closed"
