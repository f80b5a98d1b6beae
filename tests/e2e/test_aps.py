"""APS end to end: the seed's bjobs -aps example on the virtual clock, bmod -aps
rules, bjobs -l items, the bqueues -l table, explain."""

import pytest

pytestmark = pytest.mark.slow(34)  # seconds, quiet machine: scheduled early (tests/conftest.py)

SEED_QUEUES = """Begin Queue
QUEUE_NAME = priority
PRIORITY = 43
End Queue

Begin Queue
QUEUE_NAME = normal
PRIORITY = 30
APS_PRIORITY = WEIGHT[[QPRIORITY, 10] [JPRIORITY, 1]]
QUEUE_GROUP = Short
End Queue

Begin Queue
QUEUE_NAME = Short
PRIORITY = 20
End Queue

Begin Queue
QUEUE_NAME = Idle
PRIORITY = 10
End Queue
"""
SEED_PARAMS = """Begin Parameters
DEFAULT_QUEUE = normal
MBD_SLEEP_TIME = 10
MAX_USER_PRIORITY = 100
JOB_PRIORITY_OVER_TIME = 5/10
End Parameters
"""
ONE_SLOT = "Begin Host\nHOST_NAME MXJ\nhostA 1\nhostB 0\nhostC 0\nEnd Host\n"
DEC21_1100 = 1797850800  # Mon Dec 21 11:00:00 2026 UTC


@pytest.fixture
def seed(lsf_cluster_factory):
    return lsf_cluster_factory(files={"lsb.queues": SEED_QUEUES, "lsb.params": SEED_PARAMS, "lsb.hosts": ONE_SLOT},
                               start=DEC21_1100)


def _submit(c, queue, user, host, expect_id):
    r = c.run(f"bsub -q {queue} -J myjob sleep 100", user=user, env={"LSFEMU_SUBMIT_HOST": host})
    assert r.out.startswith(f"Job <{expect_id}> is submitted"), r.text


def _filler(c, n):
    for _ in range(n):
        r = c.run("bsub -q Idle sleep 1", user="filler")
        c.run(["bkill", r.out.split("<")[1].split(">")[0]], user="filler")


@pytest.mark.lsfemu_stores  # also on PostgreSQL
def test_seed_bjobs_aps_example(seed):
    c = seed
    c.run("bsub -q priority sleep 100000", user="filler")  # job 1 takes the only slot at 11:00:10
    c.advance("10s")
    _submit(c, "Short", "User1", "HostA", 2)  # 11:00
    c.advance("3h")
    _filler(c, 1)
    _submit(c, "Short", "User1", "HostA", 4)  # 14:00
    c.advance("1m")
    _submit(c, "Idle", "User1", "HostA", 5)  # 14:01
    c.advance("29m")
    _filler(c, 6)
    _submit(c, "normal", "User2", "HostB", 12)  # 14:30
    _filler(c, 2)
    _submit(c, "priority", "User2", "HostB", 15)
    _filler(c, 6)
    _submit(c, "Short", "User1", "HostA", 22)
    assert c.run("bmod -aps system=60 22", user="lsfadmin").rc == 0
    c.advance("11m")  # 14:41
    r = c.run("bjobs -u all -aps")
    assert r.out == (
        "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME     APS\n"
        "15      User2   PEND  priority   HostB                   myjob      Dec 21 14:30      -\n"
        "22      User1   PEND  Short      HostA                   myjob      Dec 21 14:30   (60)\n"
        "2       User1   PEND  Short      HostA                   myjob      Dec 21 11:00 360.00\n"
        "12      User2   PEND  normal     HostB                   myjob      Dec 21 14:30 355.00\n"
        "4       User1   PEND  Short      HostA                   myjob      Dec 21 14:00 270.00\n"
        "5       User1   PEND  Idle       HostA                   myjob      Dec 21 14:01      -\n")
    # -prio: the same listing and each factor's share, the terms explain shows (WORK = JPRIORITY + QPRIORITY
    # with WORK's implied weight 1); a system value keeps its calculated shares; outside APS queues `-`
    prio = c.run("bjobs -u all -prio").out.splitlines()
    dash = "         -"
    assert prio[0] == ("JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME     APS"
                       "        FS      RSRC      PROC       MEM      SWAP      WORK JPRIORITY QPRIORITY     ADMIN")
    assert [line[:87] for line in prio[1:]] == [line[:87] for line in r.out.splitlines()[1:]]
    assert prio[3][87:] == dash * 5 + "    360.00    160.00    200.00" + dash
    assert prio[2][87:] == dash * 5 + "    255.00     55.00    200.00" + dash
    assert prio[1][87:] == prio[6][87:] == dash * 9
    text = c.run("lsfemu explain aps 2").out
    assert text.startswith("Job <2>, queue <Short>, ordered by the APS queue <normal> (QUEUE_GROUP)\n")
    assert "  JPRIORITY         160.00        1.00        160.00           -        160.00\n" in text
    assert "  QPRIORITY          20.00       10.00        200.00           -        200.00\n" in text
    assert text.endswith("APS value: 360.00\n")


@pytest.mark.lsfemu_stores  # also on PostgreSQL
def test_bmod_aps_rules(seed):
    c = seed
    c.run("bsub -q Idle sleep 100000", user="user2")
    c.advance("10s")  # job 1 takes the only slot
    c.run("bsub -q normal sleep 100", user="user1")
    r = c.run("bmod -aps system=10 2", user="user1")
    assert (r.err, r.rc) == ("User permission denied. Job not modified.\n", 255)
    for bad in ("system=0", "admin=", "foo=1", "admin=0", "system=abc"):
        r = c.run(["bmod", "-aps", bad, "2"], user="lsfadmin")
        assert r.rc == 255 and r.err.endswith(". Job not modified.\n") and r.out == "", bad
    assert c.run("bmod -aps system=10 2", user="lsfadmin").out == "Parameters of job <2> are being changed\n"
    assert "System Absolute Priority <10>" in c.run("bjobs -UF 2").out
    c.run("bmod -aps admin=10.00 2", user="lsfadmin")  # a later -aps replaces the earlier
    long = c.run("bjobs -UF 2").out
    assert "Admin factor value <10>" in long and "System Absolute Priority" not in long
    assert c.run("bjobs -aps -noheader 2").out.split()[-1] == f"{10 * 30 + 50 + 10:.2f}"
    c.run("bmod -apsn 2", user="lsfadmin")
    assert "Admin factor value" not in c.run("bjobs -UF 2").out
    # Values survive reconfiguration and a daemon restart.
    c.run("bmod -aps system=7 2", user="lsfadmin")
    c.run("badmin reconfig", user="lsfadmin")
    c.run("lsfemu daemon stop")
    assert "System Absolute Priority <7>" in c.run("bjobs -UF 2").out


def test_bqueues_l_shows_the_aps_table(seed):
    out = seed.run("bqueues -l normal").out
    assert ("APS_PRIORITY:\n"
            "                   WEIGHT FACTORS    LIMIT FACTORS    GRACE PERIOD\n"
            "  WORK                     1.00                -              -\n"
            "    JOB PRIORITY           1.00                -              -\n"
            "    QUEUE PRIORITY        10.00                -              -\n") in out
    assert "SCHEDULING POLICIES:  APS_PRIORITY\n" in out


def test_ckconfig_catches_forbidden_combinations(seed):
    c = seed
    assert c.run("lsid").rc == 0  # the daemon runs with the good configuration
    c.write("lsb.queues", SEED_QUEUES.replace("QUEUE_GROUP = Short", "QUEUE_GROUP = Short\nDISPATCH_ORDER = QUEUE"))
    r = c.run("badmin ckconfig")
    assert r.rc == 255 and "There are fatal errors." in r.err and "DISPATCH_ORDER" in r.err and "lsb.queues(" in r.err
    c.write("lsb.queues", SEED_QUEUES.replace("[JPRIORITY, 1]", "[JPRIORITY, 0]"))
    r = c.run("badmin reconfig", user="lsfadmin")
    assert r.rc == 255 and "lsb.queues(9)" in r.err


def test_explain_aps_of_a_job_that_is_not_pending_shows_its_state_and_no_value(seed):
    c = seed
    c.run("bsub -q normal sleep 6000", user="user1")  # job 1 takes the only slot at 11:00:10
    c.run("bsub -q Short sleep 600", user="user2")  # job 2 pends behind it
    c.advance("80m")
    pending = c.run("lsfemu explain aps 2").out
    # 10 x QPRIORITY 20 + JPRIORITY 50 escalated 8 x 5
    assert "Pending for 1h20m00s\n" in pending and pending.endswith("APS value: 290.00\n"), pending

    def not_pending(job, queue, status):
        group = ", ordered by the APS queue <normal> (QUEUE_GROUP)" if queue != "normal" else ""
        return (f"Job <{job}>, queue <{queue}>{group}\n"
                "APS_PRIORITY = WEIGHT[[QPRIORITY, 10] [JPRIORITY, 1]]\n"
                f"Status <{status}>: not pending. APS orders pending jobs only; the value a job had when it\n"
                "was dispatched is not kept, so none is shown (bjobs -aps lists pending jobs only).\n")

    assert c.run("lsfemu explain aps 1").out == not_pending(1, "normal", "RUN")
    c.advance("30m")  # job 1 ends at 12:40:10, job 2 starts
    assert c.run("lsfemu explain aps 1").out == not_pending(1, "normal", "DONE")
    assert c.run("lsfemu explain aps 2").out == not_pending(2, "Short", "RUN")
