"""User-assigned job priority: -sp checks, the default, escalation, requeue (lsfemu.sched.priority)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.sched import priority as P


@pytest.mark.parametrize("text, value", [("1", 1), ("100", 100), ("50", 50), (" 7 ", 7), ("+3", 3)])
def test_valid_user_priority(text, value):
    assert P.check_user_priority(text, 100, is_admin=False) == value


@pytest.mark.parametrize("text", ["0", "-1", "101", "abc", "", "1.5", "1e2", "2147483648", "10 20"])
def test_bad_user_priority_rejected(text):
    with pytest.raises(P.PriorityError) as e:
        P.check_user_priority(text, 100, is_admin=False)
    assert e.value.lsf_message == "Bad user priority"
    assert str(e.value) == "Bad user priority"


def test_admin_may_exceed_max_user_priority_but_not_leave_the_integer_range():
    assert P.check_user_priority("150", 100, is_admin=True) == 150
    assert P.check_user_priority(str(P.INT_MAX), 100, is_admin=True) == P.INT_MAX
    for bad in ("0", "-5", str(P.INT_MAX + 1), "x"):
        with pytest.raises(P.PriorityError, match="Bad user priority"):
            P.check_user_priority(bad, 100, is_admin=True)


def test_priority_control_undefined_without_max_user_priority():
    for admin in (False, True):
        with pytest.raises(P.PriorityError) as e:
            P.check_user_priority("10", None, is_admin=admin)
        assert e.value.lsf_message == "Job priority control undefined"
    with pytest.raises(P.PriorityError, match="Job priority control undefined"):
        P.reset_priority(None)


def test_default_priority_is_half_of_the_maximum():
    assert P.default_priority(100) == 50
    assert P.default_priority(101) == 50
    assert P.default_priority(1) == 1  # never below the lowest priority
    assert P.default_priority(None) == 0  # user priorities off
    assert P.reset_priority(100) == 50  # bmod -spn


def test_escalation_counts_whole_intervals():
    over = (5, 10)  # JOB_PRIORITY_OVER_TIME=5/10
    assert P.escalated(50, 0, over) == 50
    assert P.escalated(50, 9 * 60 + 59, over) == 50
    assert P.escalated(50, 10 * 60, over) == 55
    assert P.escalated(50, 221 * 60, over) == 160  # the seed's job 2: 50 + 220 * 5/10
    assert P.escalated(50, 11 * 60, over) == 55  # job 12
    assert P.escalated(50, 41 * 60, over) == 70  # job 4
    assert P.escalated(50, 10_000, None) == 50


def test_escalation_goes_past_max_user_priority_but_never_past_max_int():
    assert P.escalated(100, 60 * 60, (5, 10)) == 130  # beyond MAX_USER_PRIORITY=100
    assert P.escalated(100, 10**12, (1000, 1)) == P.INT_MAX
    assert P.escalated(P.INT_MAX, 10**6, (1, 1)) == P.INT_MAX


def test_escalation_restarts_at_bmod_sp_and_stops_at_dispatch():
    over = (3, 20)
    s = P.on_submit(50, now=0)
    assert s.current(now=40 * 60, over_time=over) == 56
    s2 = P.on_modify(s, 40, now=40 * 60)  # bmod -sp 40: shows 40 at once
    assert s2.current(now=40 * 60, over_time=over) == 40
    assert s2.current(now=60 * 60, over_time=over) == 43
    assert s2.submit_priority == 50
    # dispatched at 60 min: no more escalation
    assert s2.current(now=10 * 3600, over_time=over, pending_until=60 * 60) == 43


def test_requeue_resets_job_priority_rerun_keeps_it():
    over = (5, 10)
    s = P.on_modify(P.on_submit(60, now=0), 90, now=100)
    assert s.current(now=100 + 3600, over_time=over) == 120
    r = P.on_requeue(s, now=5000)
    assert (r.base, r.base_since, r.submit_priority) == (60, 5000, 60)
    assert r.current(now=5000, over_time=over) == 60
    again = P.on_rerun(s, dispatched=3000, now=5000)
    assert (again.base, again.submit_priority) == (90, 60)  # a rerun keeps the priority


def test_rerun_escalates_on_from_the_pending_time_only():
    # Issue 16: -sp 10, JOB_PRIORITY_OVER_TIME=1/1, pends 10.5 min, runs 5 min, rerun.
    over = (1, 1)
    d = P.on_dispatch(P.on_submit(10, now=0), now=630, over_time=over)
    assert d.base == 20 and d.current(now=900, over_time=over, pending_until=630) == 20
    r = P.on_rerun(d, dispatched=630, now=930)
    assert r.current(now=930, over_time=over) == 20  # not 35: the run does not count
    assert r.current(now=959, over_time=over) == 20
    assert r.current(now=960, over_time=over) == 21  # with the half minute pended before the dispatch
    assert r.current(now=1020, over_time=over) == 22
    # bmod -sp while the job runs: escalation counts from the rerun
    m = P.on_modify(d, 40, now=700)
    assert P.on_rerun(m, dispatched=630, now=930).base_since == 930


@settings(max_examples=300)
@given(base=st.integers(1, 1000), over=st.none() | st.tuples(st.integers(1, 5), st.integers(1, 30)),
       segments=st.lists(st.tuples(st.integers(0, 20000), st.integers(0, 20000)), min_size=1, max_size=6),
       tail=st.integers(0, 20000))
def test_escalation_counts_pending_time_only(base, over, segments, tail):
    """Pend, run, be rerun, any number of times: the priority is always what a
    job that only pended, for the same total pending time, would have."""
    now = 1767603600
    s = P.on_submit(base, now=now)
    pended = 0
    for pend, run in segments:
        now += pend
        pended += pend
        s = P.on_dispatch(s, now=now, over_time=over)
        assert s.current(now=now + run, over_time=over, pending_until=now) == P.escalated(base, pended, over)
        dispatched, now = now, now + run
        s = P.on_rerun(s, dispatched=dispatched, now=now)
    assert s.current(now=now + tail, over_time=over) == P.escalated(base, pended + tail, over)
