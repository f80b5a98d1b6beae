"""Preemptive scheduling (issue 19, part 4): lsb.queues PREEMPTION and
TERMINATE_WHEN=PREEMPT on the virtual clock, with LSF's worked example (a
high-priority preemptive queue's job suspends a low queue's job on a full
cluster; it resumes when the preemptor ends). The `lsfemu init` cluster:
hostA, hostB, hostC with 4 slots each."""

from __future__ import annotations

import pytest

from lsfemu.events.lsbatch import JOB_STAT_RUN, JOB_STAT_SSUSP, SUSP_MBD_PREEMPT
from lsfemu.events.log import read_events
from lsfemu.events.records import JobRequeue, JobStatus

pytestmark = pytest.mark.slow(25)  # ten clusters

PARAMS = """Begin Parameters
DEFAULT_QUEUE  = low
MBD_SLEEP_TIME = 10
End Parameters
"""


def queues(high: str = "PREEMPTION = PREEMPTIVE", low: str = "", other: str = "") -> str:
    return f"""Begin Queue
QUEUE_NAME = high
PRIORITY   = 70
{high}
End Queue

Begin Queue
QUEUE_NAME = low
PRIORITY   = 20
{low}
End Queue

Begin Queue
QUEUE_NAME = other
PRIORITY   = 10
{other}
End Queue
"""


@pytest.fixture
def make(lsf_cluster_factory):
    return lambda **kw: lsf_cluster_factory(files={"lsb.queues": queues(**kw), "lsb.params": PARAMS})


def _stat(c, *jobs: int) -> list[str]:
    return [c.run(["bjobs", "-a", "-noheader", "-o", "stat", str(j)]).out.strip() for j in jobs]


def _fill(c, queue: str = "low") -> None:
    """Three 4-slot jobs of *queue*: every slot of the cluster taken (jobs 1-3)."""
    for _ in range(3):
        assert c.run(f"bsub -q {queue} -n 4 sleep 3600", user="user3").rc == 0
    c.advance("10s")
    assert _stat(c, 1, 2, 3) == ["RUN", "RUN", "RUN"]


def _statuses(c, job: int) -> list[tuple[int, int]]:
    return [(r.status, r.reason) for _, r in read_events(c.home / "logdir" / "lsb.events")
            if isinstance(r, JobStatus) and r.job_id == job]


def test_a_preemptive_queue_suspends_the_newest_low_job_and_it_resumes_when_the_preemptor_ends(make):
    c = make()
    _fill(c)
    c.run("bsub -q high sleep 600", user="user2")  # job 4
    c.advance("10s")
    # the three started together: the newest (the highest job ID) goes, its hostC slots to job 4
    assert _stat(c, 1, 2, 3, 4) == ["RUN", "RUN", "SSUSP", "RUN"]
    assert c.run("bjobs -noheader -o exec_host 4").out == "hostC\n"
    long = c.run("bjobs -l 3").out
    assert " SUSPENDING REASONS:\n The job was preempted by a higher priority job;\n" in long
    # its slots stay its own: a low job submitted now does not get them
    c.run("bsub -q low sleep 60", user="user3")  # job 5
    c.advance("10m")  # job 4 ends at 09:10:20 (600 s)
    assert _stat(c, 3, 4, 5) == ["RUN", "DONE", "PEND"]
    assert _statuses(c, 3) == [(JOB_STAT_SSUSP, SUSP_MBD_PREEMPT), (JOB_STAT_RUN, 0)]
    hist = c.run("bhist -l 3").out
    assert "Suspended: The job was preempted by a higher priority job;" in hist
    assert hist.index("Suspended: The job was preempted") < hist.index("Running;")
    # the suspended time does not count as run time: jobs 1 and 2 end at 10:00:10, job 3
    # (10 s run, then suspended for ten minutes) ten minutes later
    c.advance("59m")  # 10:09:20
    assert _stat(c, 1, 2, 3) == ["DONE", "DONE", "RUN"]
    c.advance("1m")
    assert _stat(c, 3) == ["DONE"]


def test_bqueues_l_lists_preemptive_and_preemptable(make):
    c = make(low="PREEMPTION = PREEMPTABLE[high]")
    out = c.run("bqueues -l high low other").out
    blocks = out.split("-" * 79)
    assert "SCHEDULING POLICIES:  PREEMPTIVE\n" in blocks[0]
    assert "SCHEDULING POLICIES:  PREEMPTABLE\n" in blocks[1]
    assert "SCHEDULING POLICIES:" not in blocks[2]


def test_preemptable_on_the_low_side_alone_lets_higher_queues_preempt(make):
    c = make(high="", low="PREEMPTION = PREEMPTABLE")
    _fill(c)
    c.run("bsub -q high sleep 600", user="user2")
    c.advance("10s")
    assert _stat(c, 3, 4) == ["SSUSP", "RUN"]


def test_a_queue_not_named_in_preemptive_is_not_preempted(make):
    c = make(high="PREEMPTION = PREEMPTIVE[other]")
    _fill(c)  # low's jobs: high may not preempt them
    c.run("bsub -q high sleep 600", user="user2")
    c.advance("10s")
    assert _stat(c, 1, 2, 3, 4) == ["RUN", "RUN", "RUN", "PEND"]
    assert c.run("bjobs -noheader -o pend_reason 4").out.strip() == "Job slot limit reached: 3 hosts;"


def test_preference_levels_choose_the_queue_to_preempt_from(make):
    c = make(high="PREEMPTION = PREEMPTIVE[low other+1]")
    for q in ("other", "low", "low"):
        c.run(f"bsub -q {q} -n 4 sleep 3600", user="user3")
    c.advance("10s")
    c.run("bsub -q high sleep 600", user="user2")
    c.advance("10s")
    # other's job (started on hostC, after low's two) goes first: other is named with +1
    assert _stat(c, 1, 2, 3, 4) == ["SSUSP", "RUN", "RUN", "RUN"]
    assert c.run("bjobs -noheader -o exec_host 1 4").out == "hostC:hostC:hostC:hostC\nhostC\n"


def test_a_parallel_preemptor_takes_as_few_jobs_as_it_needs(make):
    c = make()
    for _ in range(6):
        c.run("bsub -q low -n 2 sleep 3600", user="user3")  # jobs 1-6: 2 slots each, two per host
    c.advance("10s")
    c.run("bsub -q high -n 4 -R 'span[hosts=1]' sleep 600", user="user2")  # job 7
    c.advance("10s")
    # the newest two (5 and 6, both on hostC) make room for a one-host job of 4
    assert _stat(c, 1, 2, 3, 4, 5, 6, 7) == ["RUN"] * 4 + ["SSUSP", "SSUSP", "RUN"]
    assert c.run("bjobs -noheader -o exec_host 7").out == "hostC:hostC:hostC:hostC\n"


def test_terminate_when_preempt_requeues_the_preempted_job(make):
    c = make(low="TERMINATE_WHEN = PREEMPT")
    _fill(c)
    c.run("bsub -q high sleep 600", user="user2")
    c.advance("10s")
    assert _stat(c, 3, 4) == ["PEND", "RUN"]
    assert any(isinstance(r, JobRequeue) and r.job_id == 3
               for _, r in read_events(c.home / "logdir" / "lsb.events"))
    assert "Pending: Job has been requeued;" in c.run("bhist -l 3").out
    # job 4 holds one of hostC's slots: the requeued job waits until it ends
    c.advance("10m")
    assert _stat(c, 3) == ["RUN"]


def test_a_bad_preemption_value_is_reported_and_ignored(make):
    c = make(high="PREEMPTION = PREEMPTIVE[low+x]")
    r = c.run("badmin ckconfig")
    assert "PREEMPTION: bad queue name <low+x> in <PREEMPTIVE[low+x]>; ignored" in r.text
    _fill(c)
    c.run("bsub -q high sleep 600", user="user2")
    c.advance("10s")
    assert _stat(c, 3, 4) == ["RUN", "PEND"]


def test_bresume_leaves_a_preempted_job_to_the_scheduler(make):
    c = make()
    _fill(c)
    c.run("bsub -q high sleep 600", user="user2")
    c.advance("10s")
    r = c.run("bresume 3")  # as the LSF administrator
    assert r.out == "Job <3> is being resumed\n", r.text
    assert _stat(c, 3, 4) == ["SSUSP", "RUN"]  # job 4 still holds its slot
    assert _statuses(c, 3) == [(JOB_STAT_SSUSP, SUSP_MBD_PREEMPT)]  # no JOB_STATUS RUN for the bresume
    c.advance("10m")
    assert _stat(c, 3, 4) == ["RUN", "DONE"]


def test_max_job_preempt_protects_a_job_preempted_that_many_times(lsf_cluster_factory):
    params = PARAMS.replace("End Parameters", "MAX_JOB_PREEMPT = 1\nEnd Parameters")
    c = lsf_cluster_factory(files={"lsb.queues": queues(), "lsb.params": params})
    _fill(c)
    c.run("bsub -q high sleep 600", user="user2")  # job 4 preempts job 3 (the newest)
    c.advance("10s")
    assert _stat(c, 2, 3, 4) == ["RUN", "SSUSP", "RUN"]
    c.advance("10m")
    assert _stat(c, 3, 4) == ["RUN", "DONE"]
    c.run("bsub -q high sleep 600", user="user2")  # job 5: job 3 had its one preemption, job 2 goes
    c.advance("10s")
    assert _stat(c, 2, 3, 5) == ["SSUSP", "RUN", "RUN"]
    assert c.run("bjobs -noheader -o exec_host 5").out == "hostB\n"
