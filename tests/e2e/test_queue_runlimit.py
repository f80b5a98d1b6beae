"""RUNLIMIT = default maximum (lsb.queues): the default limits jobs without -W,
the maximum bounds -W at bsub and at bswitch; committed run time and bqueues -l
follow (issue 16, item 3)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow(10)  # seconds, quiet machine: scheduled early (tests/conftest.py)

QUEUES = """Begin Queue
QUEUE_NAME = normal
PRIORITY   = 30
RUNLIMIT   = 120 240
FAIRSHARE  = USER_SHARES[[default, 1]]
End Queue

Begin Queue
QUEUE_NAME = short
PRIORITY   = 20
RUNLIMIT   = 60
End Queue
"""
PARAMS = """Begin Parameters
DEFAULT_QUEUE  = normal
MBD_SLEEP_TIME = 10
COMMITTED_RUN_TIME_FACTOR = 1
End Parameters
"""
KILLED = "TERM_RUNLIMIT: job killed after reaching LSF run time limit"


@pytest.fixture
def c(lsf_cluster_factory):
    return lsf_cluster_factory(files={"lsb.queues": QUEUES, "lsb.params": PARAMS})


def _ended(c, job: int) -> str:
    return c.run(["bjobs", "-a", "-noheader", "-o", "stat exit_code run_time exit_reason", str(job)]).out


def test_a_job_without_w_gets_the_default_limit_and_w_may_go_up_to_the_maximum(c):
    assert c.run("bsub sleep 20000", user="user1").rc == 0  # no -W: the default, 120 minutes
    assert c.run("bsub -W 200 sleep 20000", user="user1").rc == 0  # above the default, below the maximum
    assert c.run("bsub -W 240 sleep 20000", user="user1").rc == 0  # the maximum itself
    r = c.run("bsub -W 241 sleep 1", user="user1")
    assert (r.out, r.err, r.rc) == ("", "RUNLIMIT: Cannot exceed queue's hard limit(s). Job not submitted.\n", 255)
    assert " 120.0 min\n" in c.run("bjobs -l 1").out
    c.advance("2h1m")  # 11:01:10: only the job without -W has ended, at its 120 minutes
    assert _ended(c, 1) == f"EXIT 140 7200 second(s) {KILLED}\n"
    assert [_ended(c, j).split()[0] for j in (2, 3)] == ["RUN", "RUN"]
    c.advance("2h")
    assert _ended(c, 2) == f"EXIT 140 12000 second(s) {KILLED}\n"
    assert _ended(c, 3) == f"EXIT 140 14400 second(s) {KILLED}\n"


def test_committed_run_time_follows_the_effective_limit(c):
    c.run("bsub sleep 20000", user="user1")  # commits 120 minutes, not the maximum's 240
    c.run("bsub -W 200 sleep 20000", user="user1")
    c.advance("70s")  # both start at 09:00:10 and have run one minute
    text = c.run("lsfemu explain priority user1").out
    line = next(l for l in text.splitlines() if l.lstrip().startswith("(committed_run_time - run_time)"))
    committed = (120 + 200) / 60 - 2 * (1 / 60)  # hours committed, less the two minutes run
    assert line.split()[3] == f"{committed:.3f}", text


def test_bswitch_to_a_queue_whose_maximum_is_below_the_jobs_w_is_refused(c):
    c.run("bsub -W 90 sleep 20000", user="user1")
    c.run("bsub sleep 20000", user="user1")
    r = c.run("bswitch short 1", user="user1")
    assert (r.out, r.err, r.rc) == ("", "Job <1>: Cannot exceed queue's hard limit(s)\n", 255)
    assert c.run("bjobs -noheader -o queue 1").out == "normal\n"
    # A job without -W takes the new queue's limit instead.
    assert c.run("bswitch short 2", user="user1").out == "Job <2> is switched to queue <short>\n"
    c.advance("2h")
    assert _ended(c, 2) == f"EXIT 140 3600 second(s) {KILLED}\n"


def test_bqueues_l_shows_the_default_and_the_maximum(c):
    out = c.run("bqueues -l normal short").out
    assert ("Interval for a host to accept two jobs is 0 seconds\n"
            "\n"
            "DEFAULT LIMITS:\n"
            " RUNLIMIT                \n"
            " 120.0 min\n"
            "\n"
            "MAXIMUM LIMITS:\n"
            " RUNLIMIT                \n"
            " 240.0 min\n"
            "\n"
            "SCHEDULING PARAMETERS\n") in out
    short = out.split("QUEUE: short")[1]
    assert "DEFAULT LIMITS" not in short and "\n RUNLIMIT                \n 60.0 min\n\nSCHEDULING PARAMETERS\n" in short
