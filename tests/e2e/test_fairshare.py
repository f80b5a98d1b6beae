"""Fairshare end to end: dispatch order from dynamic user priorities, the
seed's historical-run-time scenario, bqueues -l share tables, explain."""

import pytest

pytestmark = pytest.mark.slow(64)  # seconds, quiet machine: scheduled early (tests/conftest.py)

FAIR_QUEUES = """Begin Queue
QUEUE_NAME = fair
PRIORITY = 30
FAIRSHARE = USER_SHARES[[user1, 10] [user2, 10] [default, 1]]
End Queue
"""
PARAMS = """Begin Parameters
DEFAULT_QUEUE = fair
MBD_SLEEP_TIME = 10
CPU_TIME_FACTOR = 0
RUN_JOB_FACTOR = 0
RUN_TIME_FACTOR = 1
{extra}End Parameters
"""
PLAIN_PARAMS = "Begin Parameters\nDEFAULT_QUEUE = fair\nMBD_SLEEP_TIME = 10\nEnd Parameters\n"
ONE_SLOT = "Begin Host\nHOST_NAME MXJ\nhostA 1\nhostB 0\nhostC 0\nEnd Host\n"


def _cluster(factory, extra=""):
    return factory(files={"lsb.queues": FAIR_QUEUES, "lsb.params": PARAMS.format(extra=extra), "lsb.hosts": ONE_SLOT})


def _finish_order(c):
    for u in ("user1",) * 4 + ("user2",) * 4:
        assert c.run("bsub sleep 60", user=u).rc == 0
    c.advance("15m")
    return [int(x) for x in c.run("bjobs -a -u all -noheader -o jobid").out.split()]


def test_without_history_the_first_user_keeps_winning(lsf_cluster_factory):
    # Only run time counts (the seed's example factors); a finished job no longer
    # counts, so user1 (listed first) wins every tie and runs all its jobs first.
    c = _cluster(lsf_cluster_factory)
    assert _finish_order(c) == [1, 2, 3, 4, 5, 6, 7, 8]


@pytest.mark.lsfemu_stores  # also on PostgreSQL
def test_with_historical_run_time_users_alternate(lsf_cluster_factory):
    c = _cluster(lsf_cluster_factory, "ENABLE_HIST_RUN_TIME = Y\n")
    assert _finish_order(c) == [1, 5, 2, 6, 3, 7, 4, 8]


def test_bqueues_l_share_info_and_explain(lsf_cluster_factory):
    c = lsf_cluster_factory(files={"lsb.queues": FAIR_QUEUES, "lsb.hosts": ONE_SLOT, "lsb.params": PLAIN_PARAMS})
    c.run("bsub -q fair sleep 3600", user="user1")
    c.run("bsub -q fair sleep 3600", user="user2")
    c.advance("30m")
    out = c.run("bqueues -l fair").out
    assert "SCHEDULING POLICIES:  FAIRSHARE\n" in out
    assert "USER_SHARES:  [user1, 10] [user2, 10] [default, 1] \n" in out
    # user1 runs since 09:00:10 (1 slot, 1790 s of run and CPU time), user2 waits.
    # Defaults: user1 = 10 / (0.444 h decayed CPU x 0.7 + 0.497 h run x 0.7 + (1+1) x 3) = 1.502;
    # user2 = 10 / (1 x 3) = 3.333.
    lines = out.split("SHARE_INFO_FOR: fair/\n")[1].splitlines()
    assert lines[0].startswith(" USER/GROUP   SHARES  PRIORITY  STARTED  RESERVED  CPU_TIME  RUN_TIME")
    u1 = lines[1].split()
    u2 = lines[2].split()
    assert u1[0] == "user1" and u1[1] == "10" and u1[3] == "1" and u1[6] == "1790"
    assert u1[2] == "1.502"
    assert u2[:4] == ["user2", "10", "3.333", "0"]
    text = c.run("lsfemu explain priority user2 -q fair").out
    assert "priority = 10 / 3.000 = 3.333" in text
    assert "  (1 + job_slots)                       1.000 x RUN_JOB_FACTOR 3              =      3.000  LSF default" in text
    r = c.run("bsub -q fair sleep 1", user="nobody-listed")
    assert r.rc == 0  # [default, 1] gives everyone else an account


def test_no_share_no_submission(lsf_cluster_factory):
    q = FAIR_QUEUES.replace(" [default, 1]", "")
    c = lsf_cluster_factory(files={"lsb.queues": q, "lsb.params": PLAIN_PARAMS})
    r = c.run("bsub -q fair sleep 1", user="user3")
    assert (r.err, r.rc) == ("fair: User cannot use the queue. Job not submitted.\n", 255)


def test_bparams_l_lists_every_factor(lsf_cluster_factory):
    c = _cluster(lsf_cluster_factory, "ENABLE_HIST_RUN_TIME = Y\nHIST_HOURS = 2\n")
    out = c.run("bparams -l").out
    for line in ("    RUN_TIME_FACTOR = 1.000000\n", "    CPU_TIME_FACTOR = 0.000000\n",
                 "    RUN_JOB_FACTOR = 0.000000\n", "    HIST_HOURS = 2.000000\n",
                 "    ENABLE_HIST_RUN_TIME = Y\n", "    COMMITTED_RUN_TIME_FACTOR = 0.000000\n"):
        assert line in out, line


HPART_HOSTS = """Begin Host
HOST_NAME MXJ
hostA 1
hostB 1
hostC 1
End Host

Begin HostPartition
HPART_NAME = part1
HOSTS = hostA hostB
USER_SHARES = [user2, 1] [user1, 1]
End HostPartition
"""
TWO_QUEUES_ON_PART = """Begin Queue
QUEUE_NAME = normal
PRIORITY = 30
HOSTS = hostA hostB
End Queue

Begin Queue
QUEUE_NAME = other
PRIORITY = 30
HOSTS = hostA hostB
End Queue
"""


def test_host_partition_one_priority_across_queues(lsf_cluster_factory):
    c = lsf_cluster_factory(files={"lsb.hosts": HPART_HOSTS, "lsb.queues": TWO_QUEUES_ON_PART})
    # Equal shares, user2 listed first and submitting first: first come first
    # served or a tie would start user2's job 2. But user2's job in queue
    # 'other' runs on the partition's hosts, so it counts in 'normal' too:
    # user1 = 1/3 = 0.333 > user2 = 1/(2*3 + ...) < 0.167, and user1's job 3 starts.
    c.run("bsub -q other sleep 1000", user="user2")
    c.advance("10s")
    c.run("bsub -q normal sleep 1000", user="user2")
    c.run("bsub -q normal sleep 1000", user="user1")
    c.advance("10s")
    started = c.run("bjobs -u all -noheader -o 'jobid stat' -q normal").out.split()
    assert started == ["3", "RUN", "2", "PEND"]
    out = c.run("bhpart -r").out
    assert out.startswith("HOST_PARTITION_NAME: part1\nHOSTS: hostA hostB\n\nSHARE_INFO_FOR: part1/\n")
    assert c.run("bhpart").out == "HOST_PARTITION_NAME  NUM_HOSTS  HOST_NAME\npart1                2          hostA hostB\n"


def test_bugroup(lsf_cluster):
    c = lsf_cluster
    assert c.run("bugroup").out == "GROUP_NAME    USERS\nresearch      user1 user2\n"
    assert c.run("bugroup -l research").out == (
        "GROUP_NAME:  research\nUSERS:  user1 user2 \nSHARES:  [user1, 2] [user2, 1] \n")
    assert c.run("bugroup nosuch").err == "nosuch: No such user/host group\n"


POOL_QUEUES = """Begin Queue
QUEUE_NAME = big
PRIORITY = 40
SLOT_POOL = poolA
SLOT_SHARE = 75
End Queue

Begin Queue
QUEUE_NAME = small
PRIORITY = 30
SLOT_POOL = poolA
SLOT_SHARE = 25
End Queue
"""


def test_slot_pool_shares_while_competing(lsf_cluster_factory):
    c = lsf_cluster_factory(files={"lsb.queues": POOL_QUEUES, "lsb.params": PLAIN_PARAMS.replace("fair", "big")})
    for _ in range(12):
        c.run("bsub -q big sleep 1000", user="user3")
    c.advance("10s")
    # Alone, 'big' may use the whole pool (12 slots).
    assert c.run("bqueues big").out.split("\n")[1].split()[-2] == "12"
    c.run("bkill 0", user="user3")
    for _ in range(12):
        c.run("bsub -q big sleep 1000", user="user3")
        c.run("bsub -q small sleep 1000", user="user2")
    c.advance("10s")
    run = {q: c.run(f"bqueues {q}").out.split("\n")[1].split()[-2] for q in ("big", "small")}
    assert run == {"big": "9", "small": "3"}  # 75% / 25% of 12 slots


@pytest.mark.lsfemu_stores  # also on PostgreSQL
def test_gpu_run_time_and_adjustment_plugin_terms(lsf_cluster_factory):
    params = ("Begin Parameters\nDEFAULT_QUEUE = fair\nMBD_SLEEP_TIME = 10\nGPU_RUN_TIME_FACTOR = 1\n"
              "FAIRSHARE_ADJUSTMENT_FACTOR = 1\n"
              "FAIRSHARE_ADJUSTMENT_PLUGIN = lsfemu.sched.fairshare_plugins:memory_adjustment\nEnd Parameters\n")
    c = lsf_cluster_factory(files={"lsb.queues": FAIR_QUEUES, "lsb.params": params})
    c.run(["bsub", "-q", "fair", "-gpu", "num=2", "-R", "rusage[mem=8192]", "sleep", "7200"], user="user1")
    c.advance("1h")
    text = c.run("lsfemu explain priority user1 -q fair").out
    gpu = next(l for l in text.splitlines() if l.strip().startswith("gpu_run_time"))
    adj = next(l for l in text.splitlines() if l.strip().startswith("fairshare_adjustment"))
    # 0.997 h of run time (started 09:00:10) on 2 GPUs, GPU_RUN_TIME_FACTOR 1.
    assert "1.994 x GPU_RUN_TIME_FACTOR 1" in gpu, gpu
    # memory_adjustment: (1 + slots) x ((used_memory / used_slots) / (slot_memory x 1)) = 2 x 8192 / 4096 = 4
    # (LSFEMU_HOST_MEMORY_MB defaults to 16384 per host of 4 slots).
    assert adj.split()[1] == "4.000", adj
    r = c.run("badmin ckconfig")
    assert r.rc == 0
    c.write("lsb.params", params.replace("memory_adjustment", "no_such_thing"))
    r = c.run("badmin ckconfig")
    assert r.rc == 255 and "lsb.params(6)" in r.err and "no_such_thing" in r.err


HIST_PARAMS = """Begin Parameters
DEFAULT_QUEUE = fair
MBD_SLEEP_TIME = 10
CLEAN_PERIOD = 3600
ENABLE_HIST_RUN_TIME = Y
CPU_TIME_FACTOR = 0
RUN_JOB_FACTOR = 0
RUN_TIME_FACTOR = 1
End Parameters
"""


def _prio(c, user):
    lines = [l for l in c.run(f"lsfemu explain priority {user} -q fair").out.splitlines()
             if l.startswith("priority = ")]
    return lines[-1].split("= ")[-1]  # the last: "priority = 10 / 0.795 = 12.573"


@pytest.mark.lsfemu_stores  # also on PostgreSQL
def test_restart_forgets_jobs_cleaned_before_it(lsf_cluster_factory):
    """Seed 002: mbatchd restart reads back only jobs finished within CLEAN_PERIOD;
    the historical run time of older jobs no longer counts in dynamic priority."""
    c = lsf_cluster_factory(files={"lsb.queues": FAIR_QUEUES, "lsb.params": HIST_PARAMS})
    c.run("bsub sleep 3600", user="user1")
    c.advance("1h")  # started 09:00:10, finishes 10:00:10
    c.advance("30m")  # 10:30:00: finished 30 minutes ago, within CLEAN_PERIOD
    within = _prio(c, "user1")
    c.run("badmin mbdrestart", user="lsfadmin")
    assert _prio(c, "user1") == within  # read back: its history still counts
    assert float(within) < 100 * 10
    c.advance("1h")  # 11:30:00: the job is older than CLEAN_PERIOD
    before = _prio(c, "user1")
    assert float(before) < 100 * 10  # still counted (decayed) while the daemon runs
    c.run("badmin mbdrestart", user="lsfadmin")
    assert _prio(c, "user1") == "1000.000"  # 10 / 0.01: nothing left after the restart
    assert "No job found" in c.run("bjobs -a -u all").err  # and bjobs -a no longer shows it


def _term(c, user, name):
    """The usage column of one term of `lsfemu explain priority`."""
    text = c.run(f"lsfemu explain priority {user} -q fair").out
    return next(l.strip()[len(name):].split()[0] for l in text.splitlines() if l.strip().startswith(name + " "))


def _share_info(c, user):
    """(PRIORITY, CPU_TIME, RUN_TIME) of a user's SHARE_INFO_FOR row in bqueues -l."""
    out = c.run("bqueues -l fair").out.split("SHARE_INFO_FOR: fair/\n")[1]
    row = next(l.split() for l in out.splitlines() if l.split()[:1] == [user])
    return row[2], row[5], row[6]


def test_usage_does_not_jump_when_a_job_ends(lsf_cluster_factory):
    """Issue 16: a finished run is charged as it counted while it ran (decayed
    from each moment of use), not whole; seed 000: the priority rises when the
    job finishes, and 1 hour of CPU time counts 0.1 hour after HIST_HOURS."""
    params = PLAIN_PARAMS.replace("End Parameters", "ENABLE_HIST_RUN_TIME = Y\nEnd Parameters")
    c = lsf_cluster_factory(files={"lsb.queues": FAIR_QUEUES, "lsb.params": params})
    c.run("bsub -n 2 sleep 3600", user="user1")  # 09:00:10 to 10:00:10, 2 h of CPU time
    c.advance("10s")
    c.advance("3599s")  # 10:00:09, one second before the end
    # 2 h used evenly over the last hour, each moment decayed since: 2 x (1 - 0.1^(1/5)) / (ln 10 / 5)
    assert _term(c, "user1", "cpu_time") == "1.602"
    prio, cpu, run = _share_info(c, "user1")
    assert (cpu, run) == ("5768.6", "3599")
    c.advance("2s")  # 10:00:11, one second after
    assert _term(c, "user1", "cpu_time") == "1.603"  # not 2.000
    assert _term(c, "user1", "(historical_run_time + run_time)") == "1.000"
    after, cpu2, _ = _share_info(c, "user1")
    assert cpu2 == "5769.1"  # not 7200.0
    assert float(after) > float(prio)  # the slots are free: the priority rises
    c.run("badmin mbdrestart", user="lsfadmin")  # rebuilt from the finished job: the same usage
    assert _share_info(c, "user1")[:2] == (after, cpu2)
    c.advance("5h")  # HIST_HOURS later: a tenth of it
    assert _term(c, "user1", "cpu_time") == "0.160"
    assert _term(c, "user1", "(historical_run_time + run_time)") == "0.100"
