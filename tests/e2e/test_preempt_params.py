"""lsb.params' preemption parameters (issue 19, part 4) on the virtual clock:
PREEMPT_FOR=LEAST_RUN_TIME and the NO_PREEMPT_* protections. The `lsfemu
init` cluster: hostA, hostB, hostC with 4 slots each; the queues of
tests/e2e/test_preemption.py (high preempts low)."""

from __future__ import annotations

import pytest

from tests.e2e.test_preemption import PARAMS, _stat, queues

pytestmark = pytest.mark.slow(6)  # two clusters


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
