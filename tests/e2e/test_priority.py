"""User-assigned job priority, escalation, btop/bbot and brequeue, end to end."""

import pytest

pytestmark = pytest.mark.slow(83)  # seconds, quiet machine: scheduled early (tests/conftest.py)

ONE_SLOT = {"lsb.hosts": "Begin Host\nHOST_NAME MXJ\nhostA 1\nhostB 0\nhostC 0\nEnd Host\n"}
PARAMS = ("Begin Parameters\nDEFAULT_QUEUE = normal\nMBD_SLEEP_TIME = 10\nMAX_USER_PRIORITY = 100\n"
          "{extra}End Parameters\n")


@pytest.fixture
def one_slot(lsf_cluster_factory):
    return lsf_cluster_factory(files=dict(ONE_SLOT, **{"lsb.params": PARAMS.format(extra="")}))


def order(c):
    return c.run("bjobs -u all -noheader -o 'jobid stat'").out.split()


def test_bsub_sp_orders_and_shows_in_bjobs_l(one_slot):
    c = one_slot
    c.run("bsub sleep 100", user="user1")
    c.run("bsub -sp 80 sleep 100", user="user2")
    c.run("bsub -sp 20 sleep 100", user="user3")
    c.advance("10s")
    assert order(c) == ["2", "RUN", "1", "PEND", "3", "PEND"]
    long1 = c.run("bjobs -UF 3").out
    assert "Job Priority <20>" in long1 and "User Priority <20>" in long1
    assert "Job Priority <50>" in c.run("bjobs -UF 1").out


@pytest.mark.lsfemu_stores  # also on PostgreSQL
def test_bmod_sp_rules(one_slot):
    c = one_slot
    c.run("bsub sleep 100", user="user1")
    r = c.run("bmod -sp 70 1", user="user1")
    assert (r.out, r.err, r.rc) == ("Parameters of job <1> are being changed\n", "", 0)
    for bad in ("101", "0", "-3", "abc", "1e3"):
        r = c.run(["bmod", "-sp", bad, "1"], user="user1")
        assert (r.out, r.err, r.rc) == ("", "Bad user priority. Job not modified.\n", 255), bad
    r = c.run("bmod -sp 60 1", user="user2")
    assert (r.err, r.rc) == ("User permission denied. Job not modified.\n", 255)
    # A cluster administrator may change anyone's job, but exceed the maximum only for its own.
    assert c.run("bmod -sp 90 1", user="lsfadmin").rc == 0
    assert c.run("bmod -sp 500 1", user="lsfadmin").err == "Bad user priority. Job not modified.\n"
    c.run("bsub sleep 100", user="lsfadmin")
    assert c.run("bmod -sp 500 2", user="lsfadmin").rc == 0
    assert "Job Priority <500>" in c.run("bjobs -UF 2").out
    r = c.run("bmod -spn 1", user="user1")
    assert r.rc == 0 and "Job Priority <50>" in c.run("bjobs -UF 1").out
    r = c.run("bmod -sp 10 99", user="user1")
    assert (r.err, r.rc) == ("99: No matching job found. Job not modified.\n", 255)


def test_escalation_goes_past_the_maximum(lsf_cluster_factory):
    c = lsf_cluster_factory(files=dict(ONE_SLOT, **{"lsb.params": PARAMS.format(extra="JOB_PRIORITY_OVER_TIME = 5/10\n")}))
    c.run("bsub sleep 100000", user="user1")
    c.advance("10s")  # job 1 takes the only slot
    c.run("bsub -sp 100 sleep 100", user="user2")
    c.advance("25m")
    assert "Job Priority <110>" in c.run("bjobs -UF 2").out  # 2 intervals of 10 min
    c.run("bmod -sp 40 2", user="user2")
    assert "Job Priority <40>" in c.run("bjobs -UF 2").out  # counted again from the change
    c.advance("10m")
    assert "Job Priority <45>" in c.run("bjobs -UF 2").out


@pytest.mark.lsfemu_stores  # also on PostgreSQL
def test_btop_bbot(one_slot):
    c = one_slot
    c.run("bsub sleep 1000", user="user1")  # runs
    for u in ("user1", "user2", "user1", "user2"):
        c.run("bsub sleep 100", user=u)  # jobs 2..5 pend
    c.advance("10s")
    r = c.run("btop 5", user="lsfadmin")
    assert (r.out, r.err, r.rc) == ("", "Job <5> has been moved to position 1 from top.\n", 0)
    assert order(c)[2::2] == ["5", "2", "3", "4"]
    r = c.run("bbot 5 2", user="lsfadmin")
    assert r.err == "Job <5> has been moved to position 2 from bottom.\n"
    assert order(c)[2::2] == ["2", "3", "5", "4"]
    # An owner moves a job among its own jobs only: user2's job 5 goes right above
    # user2's job 3, not above user1's job 2.
    r = c.run("btop 5", user="user2")
    assert (r.err, r.rc) == ("Job <5> has been moved to position 1 from top.\n", 0)
    assert order(c)[2::2] == ["2", "5", "3", "4"]
    assert c.run("btop 2", user="user2").err == "Job <2>: User permission denied\n"
    assert c.run("btop 1", user="user1").err == "Job <1>: Job has already started\n"
    r = c.run("btop 2 9", user="lsfadmin")
    assert r.err == ("Warning: position value <9> is beyond movable range.\n"
                     "Job <2> has been moved to position 4 from top.\n")
    assert order(c)[2::2] == ["5", "3", "4", "2"]
    assert c.run("btop 2 x", user="lsfadmin").err == "x: Position value must be a positive integer.\n"
    # Moving never changes the priority.
    assert "Job Priority <50>" in c.run("bjobs -UF 2").out


def test_btop_bbot_u_moves_among_the_owners_jobs(one_slot):
    """-u (administrators): the position counts among the job owner's own pending
    jobs, as the owner's btop would; for a user -u changes nothing (LSF 10.1)."""
    c = one_slot
    c.run("bsub sleep 1000", user="user1")  # runs
    for u in ("user1", "user2", "user1", "user2"):
        c.run("bsub sleep 100", user=u)  # jobs 2..5 pend
    c.advance("10s")
    r = c.run("btop -u 5", user="lsfadmin")  # top of user2's list: right above job 3, not above job 2
    assert (r.err, r.rc) == ("Job <5> has been moved to position 1 from top.\n", 0)
    assert order(c)[2::2] == ["2", "5", "3", "4"]
    r = c.run("bbot -u 2", user="lsfadmin")  # bottom of user1's list: below job 4
    assert r.err == "Job <2> has been moved to position 1 from bottom.\n"
    assert order(c)[2::2] == ["5", "3", "4", "2"]
    r = c.run("btop -u 2 5", user="lsfadmin")  # user1 has 2 pending jobs
    assert r.err == ("Warning: position value <5> is beyond movable range.\n"
                     "Job <2> has been moved to position 2 from top.\n")
    assert c.run("btop -u 3", user="user2").rc == 0  # a user's -u: its own list, as without -u
    assert order(c)[2::2] == ["3", "5", "4", "2"]


@pytest.mark.lsfemu_stores  # also on PostgreSQL
def test_brequeue_resets_priority(one_slot):
    c = one_slot
    c.run("bsub -sp 30 sleep 1000", user="user1")
    c.advance("10s")
    c.run("bmod -sp 90 1", user="user1")  # refused: running
    r = c.run("brequeue 1", user="user1")
    assert (r.out, r.rc) == ("Job <1> is being requeued \n", 0)
    assert c.run("bjobs -noheader -o 'stat pend_reason' 1").out == "PEND Requeued job is waiting for rescheduling;\n"
    assert "Job Priority <30>" in c.run("bjobs -UF 1").out
    c.advance("10s")
    assert order(c) == ["1", "RUN"]
    assert c.run("brequeue 1", user="user2").err == "Job <1>: User permission denied\n"


@pytest.mark.lsfemu_stores  # also on PostgreSQL
def test_host_failure_reruns_rerunnable_jobs_keeping_priority(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -r -sp 70 -n 4 sleep 1000", user="user1")  # fills hostA, rerunnable
    c.run("bsub -n 4 sleep 1000", user="user2")  # fills hostB
    c.advance("10s")
    c.run("bmod -sp 90 1", user="user1")  # refused while running: priority stays 70
    assert c.run("lsfemu host fail hostA", user="user1").err == "User permission denied\n"
    r = c.run("lsfemu host fail hostA", user="lsfadmin")
    assert r.out == "Host <hostA> failed\nJob <1> will rerun\n"
    assert c.run("bhosts -w hostA").out.splitlines()[1].split()[1] == "unavail"
    c.run("bsub -sp 99 -n 4 sleep 10", user="user3")  # a higher priority newcomer
    c.advance("10s")
    # The rerun job goes first (to hostC, hostA being down), keeping its priority.
    assert c.run("bjobs -u all -noheader -o 'jobid stat exec_host'").out.splitlines()[:2] == [
        "2 RUN hostB:hostB:hostB:hostB", "1 RUN hostC:hostC:hostC:hostC"]
    assert "Job Priority <70>" in c.run("bjobs -UF 1").out
    c.run("lsfemu host fail hostB", user="lsfadmin")
    assert c.run("bjobs -noheader -o stat 2").out == "UNKWN\n"
    r = c.run("lsfemu host recover hostB", user="lsfadmin")
    assert r.out == "Host <hostB> recovered\nJob <2> was lost with the host: EXIT\n"


def test_bmig_keeps_priority(lsf_cluster):
    c = lsf_cluster
    c.run("bsub -r -sp 60 sleep 1000", user="user1")
    c.run("bsub sleep 1000", user="user1")
    c.advance("10s")
    assert c.run("bmig 2", user="user1").err == "Job <2>: Job is not checkpointable\n"
    r = c.run("bmig 1", user="user1")
    assert (r.out, r.rc) == ("Job <1> is being migrated\n", 0)
    assert c.run("bjobs -noheader -o 'stat pend_reason' 1").out == "PEND Migrating job is waiting for rescheduling;\n"
    assert "Job Priority <60>" in c.run("bjobs -UF 1").out


def _job_priority(c, jobid):
    out = c.run(f"bjobs -UF {jobid}").out
    return int(out.split("Job Priority <")[1].split(">")[0])


@pytest.mark.parametrize("how", ["host fail", "bmig"])
def test_rerun_keeps_the_priority_and_escalates_on_pending_time_only(lsf_cluster_factory, how):
    """Issue 16: -sp 10 with JOB_PRIORITY_OVER_TIME = 1/1, pends 10 min, runs 5 min, is
    rerun: it showed 35, then 37 (the pending minutes counted again, the run as pending)."""
    c = lsf_cluster_factory(files=dict(ONE_SLOT, **{"lsb.params": PARAMS.format(extra="JOB_PRIORITY_OVER_TIME = 1/1\n")}))
    c.run("bsub sleep 600", user="user1")  # runs 09:00:10 - 09:10:10
    c.run("bsub -r -sp 10 sleep 100000", user="user2")  # pends from 09:00:00
    c.advance("10m")
    assert _job_priority(c, 2) == 20  # 10 whole minutes pending
    c.advance("10s")  # 09:10:10: dispatched after 10 min 10 s of pending
    assert "Status <RUN>" in c.run("bjobs -UF 2").out
    assert _job_priority(c, 2) == 20
    c.advance("5m")  # 09:15:10
    assert _job_priority(c, 2) == 20  # frozen while it runs
    if how == "host fail":
        assert c.run("lsfemu host fail hostA", user="lsfadmin").out.endswith("Job <2> will rerun\n")
    else:
        c.run("badmin hclose hostA", user="lsfadmin")  # (so that it stays pending)
        assert c.run("bmig 2", user="user2").rc == 0
    assert "Status <PEND>" in c.run("bjobs -UF 2").out
    assert _job_priority(c, 2) == 20  # kept (seed 001), the 5 min run not counted
    c.advance("49s")  # the 10 s of a minute pended before the dispatch + 49 s
    assert _job_priority(c, 2) == 20
    c.advance("1s")
    assert _job_priority(c, 2) == 21
    c.advance("1m")
    assert _job_priority(c, 2) == 22


APS_GRACE_QUEUES = """Begin Queue
QUEUE_NAME = normal
PRIORITY = 30
APS_PRIORITY = WEIGHT[[QPRIORITY, 10]] GRACE_PERIOD[[QPRIORITY, 10m]]
End Queue
"""


def _aps(c, jobid):
    """The APS column of a job in bjobs -aps."""
    rows = c.run("bjobs -u all -aps -noheader").out.splitlines()
    return next(r.split()[-1] for r in rows if r.split()[0] == str(jobid))


def test_aps_grace_period_counts_pending_time_only(lsf_cluster_factory):
    """Issue 16: a job that pended 1 min, ran 20 and was rerun at once was past its
    10-minute grace period; it has pended 1 minute."""
    c = lsf_cluster_factory(files=dict(ONE_SLOT, **{"lsb.params": PARAMS.format(extra=""),
                                                    "lsb.queues": APS_GRACE_QUEUES}))
    c.run("bsub sleep 60", user="user1")  # runs 09:00:10 - 09:01:10
    c.run("bsub -r sleep 100000", user="user2")  # pends from 09:00:00
    c.advance("1m10s")  # 09:01:10: dispatched after 70 s of pending
    assert "Status <RUN>" in c.run("bjobs -UF 2").out
    c.advance("20m")
    assert c.run("lsfemu host fail hostA", user="lsfadmin").rc == 0
    assert _aps(c, 2) == "0.00"  # within the grace period: QPRIORITY does not count yet
    c.advance("8m49s")  # 70 s + 529 s = 599 s pending
    assert _aps(c, 2) == "0.00"
    c.advance("1s")
    assert _aps(c, 2) == "300.00"  # 10 x PRIORITY 30 once pending 10 min
