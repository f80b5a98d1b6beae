"""User-assigned job priority: -sp checks, the default, escalation, dispatch and rerun (lsfemu.sched.priority)."""

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
    esc = P.escalation((5, 10))  # JOB_PRIORITY_OVER_TIME=5/10
    assert esc(50, 0) == 50
    assert esc(50, 9 * 60 + 59) == 50
    assert esc(50, 10 * 60) == 55
    assert esc(50, 221 * 60) == 160  # the seed's job 2: 50 + 220 * 5/10
    assert esc(50, 11 * 60) == 55  # job 12
    assert esc(50, 41 * 60) == 70  # job 4
    assert P.escalation(None)(50, 10_000) == 50


def test_escalation_goes_past_max_user_priority_but_never_past_max_int():
    assert P.escalation((5, 10))(100, 60 * 60) == 130  # beyond MAX_USER_PRIORITY=100
    assert P.escalation((1000, 1))(100, 10**12) == P.INT_MAX
    assert P.escalation((1, 1))(P.INT_MAX, 10**6) == P.INT_MAX


def test_escalation_restarts_at_bmod_sp_and_stops_at_dispatch():
    over = (3, 20)
    esc = P.escalation(over)
    assert esc(50, 40 * 60) == 56  # submitted with 50 at 0, 40 min later
    # bmod -sp 40 at 40 min: a new base, counted from then (shows 40 at once)
    assert esc(40, 0) == 40
    assert esc(40, 20 * 60) == 43
    # dispatched at 60 min: the priority it has then is kept, no more escalation
    base, _since = P.frozen_at_dispatch(40, 40 * 60, 60 * 60, over)
    assert base == 43


def test_rerun_escalates_on_from_the_pending_time_only():
    # Issue 16: -sp 10, JOB_PRIORITY_OVER_TIME=1/1, pends 10.5 min, runs 5 min, rerun.
    over = (1, 1)
    esc = P.escalation(over)
    base, since = P.frozen_at_dispatch(10, 0, 630, over)
    assert base == 20  # what bjobs shows while it runs, and what the rerun keeps
    origin = P.pending_clock_after_run(since, dispatched=630, now=930)
    assert esc(base, 930 - origin) == 20  # not 35: the run does not count
    assert esc(base, 959 - origin) == 20
    assert esc(base, 960 - origin) == 21  # with the half minute pended before the dispatch
    assert esc(base, 1020 - origin) == 22
    # bmod -sp while the job runs (a new origin at 700): escalation counts from the rerun
    assert P.pending_clock_after_run(700, dispatched=630, now=930) == 930


@settings(max_examples=300)
@given(base=st.integers(1, 1000), over=st.none() | st.tuples(st.integers(1, 5), st.integers(1, 30)),
       segments=st.lists(st.tuples(st.integers(0, 20000), st.integers(0, 20000)), min_size=1, max_size=6),
       tail=st.integers(0, 20000))
def test_escalation_counts_pending_time_only(base, over, segments, tail):
    """Pend, run, be rerun, any number of times: the priority is always what a
    job that only pended, for the same total pending time, would have (the
    daemon's dispatch and rerun: frozen_at_dispatch, pending_clock_after_run)."""
    esc = P.escalation(over)
    now = 1767603600
    prio, origin = base, now
    pended = 0
    for pend, run in segments:
        now += pend
        pended += pend
        prio, origin = P.frozen_at_dispatch(prio, origin, now, over)
        assert prio == esc(base, pended)
        dispatched, now = now, now + run
        origin = P.pending_clock_after_run(origin, dispatched, now)
    assert esc(prio, now + tail - origin) == esc(base, pended + tail)
