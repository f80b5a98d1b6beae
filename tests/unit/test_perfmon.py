"""badmin perfmon's counters (lsfemu/engine/perfmon.py, issue 21 part 4):
kept only while started, per sample period of the cluster's clock; the view
reads the complete periods (the reference's sample: 39 then 32 requests give
Last 32, Max 39, Min 32, Avg 35, Total 71)."""

from __future__ import annotations

import pytest

from lsfemu.engine.perfmon import METRICS, Perfmon, sample_period
from lsfemu.events import emit, lsbatch
from lsfemu.events.records import JobNew, JobStart, JobStatus

pytestmark = pytest.mark.slow(1)

T0 = 1_000_000.0


def test_nothing_is_kept_before_start_or_after_stop():
    pm = Perfmon()
    pm.request("bjobs", T0)
    assert pm.counts == {} and pm.summary(T0 + 600) is None
    pm.begin(T0, 60)
    pm.request("bjobs", T0 - 1)  # before the start
    pm.request("lsload", T0 + 1)  # LIM's, not mbatchd's
    pm.request("lsfemu", T0 + 1)
    assert pm.counts == {}
    pm.end()
    pm.request("bjobs", T0 + 2)
    assert pm.start is None and pm.counts == {}


def test_requests_by_kind_and_the_complete_periods():
    pm = Perfmon()
    pm.begin(T0, 60)
    for _ in range(39):
        pm.request("bqueues", T0 + 10)  # period 0
    for _ in range(32):
        pm.request("bjobs", T0 + 70)  # period 1
    pm.request("bhosts", T0 + 130)  # period 2: not complete at T0 + 150
    pm.request("bsub", T0 + 130)
    s = pm.summary(T0 + 150)
    assert (s.start, s.end, s.period) == (T0, T0 + 120, 60)
    # the reference's figures: Last (the latest complete period), Max, Min, Avg (rounded down), Total
    assert s.rows["Processed requests: mbatchd"] == (32, 39, 32, 35, 71)
    assert s.rows["Job information queries"] == (32, 32, 0, 16, 32)
    assert s.rows["Queue information queries"] == (0, 39, 0, 19, 39)
    assert s.rows["Host information queries"] == (0, 0, 0, 0, 0)
    assert list(s.rows) == list(METRICS)
    assert pm.summary(T0 + 180).rows["Job submission requests"] == (1, 1, 0, 0, 1)


def test_jobs_from_the_committed_records_and_the_longest_pass():
    pm = Perfmon()
    pm.begin(T0, 60)
    array = JobNew(event_time=int(T0 + 5), job_id=1, job_name="a[1-10]", options=lsbatch.SUB_JOB_NAME)
    plain = JobNew(event_time=int(T0 + 5), job_id=2, job_name="b", options=lsbatch.SUB_JOB_NAME)
    pm.records([array, plain, JobStart(event_time=int(T0 + 61), job_id=2),
                JobStatus(event_time=int(T0 + 62), job_id=2, status=lsbatch.JOB_STAT_RUN),
                JobStatus(event_time=int(T0 + 63), job_id=2, status=lsbatch.JOB_STAT_DONE),
                emit.mbd_start(T0 + 64, "c", "h")])
    pm.scheduled(T0 + 10, 0.4)
    pm.scheduled(T0 + 20, 2.6)
    pm.scheduled(T0 + 70, 1.2)
    s = pm.summary(T0 + 120)
    assert s.rows["Jobs submitted"] == (0, 11, 0, 5, 11)
    assert s.rows["Jobs dispatched"] == (1, 1, 0, 0, 1)
    assert s.rows["Jobs completed"] == (1, 1, 0, 0, 1)
    assert s.rows["Scheduling interval in second(s)"] == (1, 3, 1, 2, 4)


def test_lsb_params_start_and_period():
    pm = Perfmon()
    pm.configure({"SCHED_METRIC_SAMPLE_PERIOD": "30"}, T0)
    assert pm.start is None
    pm.configure({"SCHED_METRIC_ENABLE": "Y", "SCHED_METRIC_SAMPLE_PERIOD": "30"}, T0)
    assert (pm.start, pm.period) == (T0, 30)
    assert sample_period({}) == 60 and sample_period({"SCHED_METRIC_SAMPLE_PERIOD": "x"}) == 60
