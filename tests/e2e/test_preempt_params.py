"""lsb.params' preemption parameters (issue 19, part 4) on the virtual clock:
PREEMPT_FOR=LEAST_RUN_TIME, the protections (NO_PREEMPT_RUN_TIME,
NO_PREEMPT_FINISH_TIME, NO_PREEMPT_INTERVAL, MAX_TOTAL_TIME_PREEMPT) and
PREEMPT_JOBTYPE. The `lsfemu
init` cluster: hostA, hostB, hostC with 4 slots each; the queues of
tests/e2e/test_preemption.py (high preempts low)."""

from __future__ import annotations

import pytest

from tests.e2e.test_preemption import PARAMS, _stat, queues

pytestmark = pytest.mark.slow(45)  # seventeen clusters (51 s measured on a loaded machine)


def _cluster(factory, *params: str):
    text = PARAMS.replace("End Parameters", "\n".join(params) + "\nEnd Parameters")
    return factory(files={"lsb.queues": queues(), "lsb.params": text})


def _fill_old_low_then_new_high(c) -> None:
    """Job 1 (-sp 10) started first; jobs 2, 3 (-sp 90) ten seconds later: all 12 slots taken."""
    assert c.run("bsub -q low -n 4 -sp 10 sleep 3600", user="user3").rc == 0
    c.advance("10s")
    for _ in range(2):
        assert c.run("bsub -q low -n 4 -sp 90 sleep 3600", user="user3").rc == 0
    c.advance("10s")
    assert _stat(c, 1, 2, 3) == ["RUN", "RUN", "RUN"]


@pytest.mark.parametrize("preempt_for, victim", [(None, 1), ("LEAST_RUN_TIME", 3)])
def test_least_run_time_preempts_the_newest_job_whatever_its_priority(lsf_cluster_factory, preempt_for, victim):
    """LSF 10.1 lsb.params PREEMPT_FOR: "LEAST_RUN_TIME: Preempts the job that
    has been running for the shortest time". By default the lowest job
    priority goes first (job 1, -sp 10, the oldest); with LEAST_RUN_TIME the
    newest (job 3) goes."""
    params = ["MAX_USER_PRIORITY = 100"] + ([f"PREEMPT_FOR = {preempt_for}"] if preempt_for else [])
    c = _cluster(lsf_cluster_factory, *params)
    _fill_old_low_then_new_high(c)
    c.run("bsub -q high -n 4 sleep 600", user="user2")  # job 4
    c.advance("10s")
    expect = ["SSUSP" if j == victim else "RUN" for j in (1, 2, 3)]
    assert _stat(c, 1, 2, 3, 4) == expect + ["RUN"]


def _fill_with_limits(c, *limits: str) -> None:
    """Three 4-slot low jobs started together, each with its bsub limit options (jobs 1-3)."""
    for opts in limits:
        assert c.run(f"bsub -q low -n 4 {opts} sleep 7200", user="user3").rc == 0
    c.advance("10s")
    assert _stat(c, 1, 2, 3) == ["RUN", "RUN", "RUN"]


def _high_job_after(c, ran: str) -> list[str]:
    """After *ran*, a 4-slot high job (job 4) is submitted; jobs 1-4's statuses a pass later."""
    c.advance(ran)
    c.run("bsub -q high -n 4 sleep 600", user="user2")
    c.advance("10s")
    return _stat(c, 1, 2, 3, 4)


@pytest.mark.parametrize("ran, expect", [("29m", ["RUN", "RUN", "SSUSP"]), ("31m", ["SSUSP", "RUN", "RUN"])])
def test_no_preempt_run_time_percent_protects_a_job_past_half_its_run_limit(lsf_cluster_factory, ran, expect):
    """IBM's example: "if the job run limit is 60 minutes and
    NO_PREEMPT_RUN_TIME=50%, the job cannot be preempted after it running 30
    minutes or longer". Jobs 2 and 3 have -W 60, job 1 -W 120: after 29
    minutes the newest (3) goes as usual; after 31 only job 1 (under 60 of
    its 120 minutes) may go."""
    c = _cluster(lsf_cluster_factory, "NO_PREEMPT_RUN_TIME = 50%")
    _fill_with_limits(c, "-W 120", "-W 60", "-W 60")
    assert _high_job_after(c, ran) == expect + ["RUN"]


def test_no_preempt_finish_time_protects_jobs_about_to_end_and_the_queue_overrides_params(lsf_cluster_factory):
    """IBM's example: "if the job run limit is 60 minutes and
    NO_PREEMPT_FINISH_TIME=10%, the job cannot be preempted after it runs 54
    minutes or longer". After 55 minutes jobs 2 (-W 60) and 3 (-We 60, the
    estimate counting as the duration) finish within 6 minutes; job 1
    (-W 120) does not and goes. The queue's own NO_PREEMPT_FINISH_TIME (a
    number of minutes) takes the place of lsb.params'."""
    c = _cluster(lsf_cluster_factory, "NO_PREEMPT_FINISH_TIME = 10%")
    _fill_with_limits(c, "-W 120", "-W 60", "-We 60")
    assert _high_job_after(c, "55m") == ["SSUSP", "RUN", "RUN", "RUN"]

    # the low queue's own value: 70 minutes before the end protects job 1 (65 left) too
    text = PARAMS.replace("End Parameters", "NO_PREEMPT_FINISH_TIME = 10%\nEnd Parameters")
    d = lsf_cluster_factory(files={"lsb.queues": queues(low="NO_PREEMPT_FINISH_TIME = 70"), "lsb.params": text})
    _fill_with_limits(d, "-W 120", "-W 60", "-We 60")
    assert _high_job_after(d, "55m") == ["RUN", "RUN", "RUN", "PEND"]


def test_no_preempt_run_time_in_minutes_needs_no_run_limit(lsf_cluster_factory):
    """NO_PREEMPT_RUN_TIME = 30 (minutes) protects jobs without any limit once
    they have run 30 minutes: the high job waits for slots."""
    c = _cluster(lsf_cluster_factory, "NO_PREEMPT_RUN_TIME = 30")
    _fill_with_limits(c, "", "", "")
    assert _high_job_after(c, "31m") == ["RUN", "RUN", "RUN", "PEND"]


def test_no_preempt_interval_protects_a_job_that_started_or_resumed_lately(lsf_cluster_factory):
    """NO_PREEMPT_INTERVAL = 10: a job that has run less than 10 minutes
    uninterrupted since it started or resumed is not preempted. Job 3 started
    5 minutes ago: job 2 (13 minutes) goes in its place; once job 4 ends and
    job 2 resumes, an 8-slot high job takes jobs 3 and 1, not job 2 (resumed
    a minute ago)."""
    c = _cluster(lsf_cluster_factory, "NO_PREEMPT_INTERVAL = 10")
    for _ in range(2):
        c.run("bsub -q low -n 4 sleep 7200", user="user3")  # jobs 1, 2
    c.advance("8m")
    c.run("bsub -q low -n 4 sleep 7200", user="user3")  # job 3
    c.advance("10s")
    assert _high_job_after(c, "5m") == ["RUN", "SSUSP", "RUN", "RUN"]
    c.advance("10m")  # job 4 (600 s) ends: job 2 resumes
    assert _stat(c, 2, 4) == ["RUN", "DONE"]
    c.advance("1m")
    c.run("bsub -q high -n 8 sleep 600", user="user2")  # job 5
    c.advance("10s")
    assert _stat(c, 1, 2, 3, 5) == ["SSUSP", "RUN", "SSUSP", "RUN"]


@pytest.mark.parametrize("most, second_victim", [(None, 3), (10, 2)])
def test_max_total_time_preempt_spares_a_job_preempted_that_long(lsf_cluster_factory, most, second_victim):
    """MAX_TOTAL_TIME_PREEMPT = 10: job 3, preempted for the 10 minutes of a
    high job, is not preempted again; the next high job takes job 2 instead
    (without the parameter, job 3 again)."""
    c = _cluster(lsf_cluster_factory, *([f"MAX_TOTAL_TIME_PREEMPT = {most}"] if most else []))
    _fill_with_limits(c, "", "", "")
    assert _high_job_after(c, "1m") == ["RUN", "RUN", "SSUSP", "RUN"]
    c.advance("10m")  # job 4 ends; job 3 resumes after 10 minutes and some seconds preempted
    assert _stat(c, 3, 4) == ["RUN", "DONE"]
    c.run("bsub -q high -n 4 sleep 600", user="user2")  # job 5
    c.advance("10s")
    assert _stat(c, 2, 3) == ["SSUSP" if j == second_victim else "RUN" for j in (2, 3)]


def _jobtype_cluster(factory, jobtype: str | None, **queue_lines):
    text = PARAMS.replace("End Parameters", (f"PREEMPT_JOBTYPE = {jobtype}\n" if jobtype else "") + "End Parameters")
    return factory(files={"lsb.queues": queues(**queue_lines), "lsb.params": text})


@pytest.mark.parametrize("jobtype, expect", [(None, ["RUN", "PEND"]), ("BACKFILL", ["SSUSP", "RUN"])])
def test_jobs_of_a_backfill_queue_are_preempted_only_with_preempt_jobtype_backfill(lsf_cluster_factory, jobtype,
                                                                                    expect):
    """LSF 10.1 PREEMPT_JOBTYPE: "BACKFILL: Enables preemption of backfill
    jobs. Jobs from higher priority queues can preempt jobs from backfill
    queues"; not defined, they are not preempted."""
    c = _jobtype_cluster(lsf_cluster_factory, jobtype, low="BACKFILL = Y")
    _fill_with_limits(c, "-W 60", "-W 60", "-W 60")
    assert _high_job_after(c, "1m")[2:] == expect


@pytest.mark.parametrize("jobtype, expect", [(None, ["RUN", "PEND"]), ("EXCLUSIVE", ["SSUSP", "RUN"])])
def test_exclusive_jobs_are_preempted_only_with_preempt_jobtype_exclusive(lsf_cluster_factory, jobtype, expect):
    """PREEMPT_JOBTYPE: "EXCLUSIVE: Enables preemption of and preemption by
    exclusive jobs". Three exclusive low jobs hold the three hosts: the
    high job takes job 3's host only with EXCLUSIVE."""
    c = _jobtype_cluster(lsf_cluster_factory, jobtype, low="EXCLUSIVE = Y")
    _fill_with_limits(c, "-x -n 1", "-x -n 1", "-x -n 1")
    assert _high_job_after(c, "1m")[2:] == expect


@pytest.mark.parametrize("jobtype, expect", [(None, ["RUN", "RUN", "RUN", "PEND"]),
                                             ("EXCLUSIVE", ["RUN", "RUN", "SSUSP", "RUN"])])
def test_an_exclusive_job_preempts_only_with_preempt_jobtype_exclusive(lsf_cluster_factory, jobtype, expect):
    """The other half: an exclusive high job (-x) preempts the jobs of a host
    for itself only with PREEMPT_JOBTYPE=EXCLUSIVE (job 3, the newest, holds
    hostC alone)."""
    c = _jobtype_cluster(lsf_cluster_factory, jobtype, high="PREEMPTION = PREEMPTIVE\nEXCLUSIVE = Y")
    _fill_with_limits(c, "", "", "")
    c.advance("1m")
    c.run("bsub -q high -x sleep 600", user="user2")  # job 4
    c.advance("10s")
    assert _stat(c, 1, 2, 3, 4) == expect
