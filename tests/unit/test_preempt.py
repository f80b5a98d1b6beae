"""The pure preemption choice (lsfemu.sched.preempt, issue 19 part 4): the
queue relations of PREEMPTIVE / PREEMPTABLE, LSF's default victim order, the
fewest jobs that make a job fit, resuming, and two properties: a choice
never frees more slots than needed by a whole job's worth, and never takes
a job of a queue the preemptor may not preempt."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.config.lsb_queues import Preemption, parse_preemption
from lsfemu.sched import preempt as P


def _rules(**texts):
    prio = {"high": 70, "mid": 40, "low": 20, "idle": 10}
    return P.Rules((q, prio[q], texts.get(q)) for q in prio)


def _v(jid, queue, hosts, start=0.0, prio=0, suspended=False):
    return P.Victim((jid, 0), queue, tuple(hosts), prio, start, suspended)


def test_parse_preemption():
    assert parse_preemption("PREEMPTIVE[low+2 idle]") == Preemption(True, (("low", 2), ("idle", 0)))
    assert parse_preemption(" preemptive  PREEMPTABLE[high] ") == Preemption(True, None, True, ("high",))
    assert parse_preemption("PREEMPTABLE") == Preemption(preemptable=True)
    for bad in ("", "PREEMPT", "PREEMPTIVE[a+b]", "PREEMPTIVE PREEMPTIVE", "PREEMPTABLE[hi+1]", "PREEMPTIVE[x"):
        with pytest.raises(ValueError):
            parse_preemption(bad)


def test_preemptive_without_a_list_preempts_every_lower_queue_only():
    r = _rules(mid="PREEMPTIVE")
    assert r.pairs == {"mid": {"low": 0, "idle": 0}}
    assert not r.can_preempt("mid", "high")
    assert r.policies("mid") == ["PREEMPTIVE"] and r.policies("low") == []


def test_preemptive_with_a_list_and_preemptable_with_a_list():
    r = _rules(high="PREEMPTIVE[idle+3]", low="PREEMPTABLE[mid]")
    assert r.pairs == {"high": {"idle": 3}, "mid": {"low": 0}}
    # a queue named but of higher priority is never preempted
    assert not _rules(low="PREEMPTIVE[high]")


def test_preemptable_without_a_list_lets_every_higher_queue_preempt():
    r = _rules(low="PREEMPTABLE")
    assert set(r.pairs) == {"high", "mid"} and r.preemptable == {"low"}


def test_default_order_preference_queue_priority_job_priority_newest():
    r = _rules(high="PREEMPTIVE[mid low idle+1]")
    vs = [_v(1, "mid", "A", start=5), _v(2, "low", "A", start=1), _v(3, "low", "A", start=9),
          _v(4, "idle", "A", start=0), _v(5, "low", "A", start=9, prio=80), _v(6, "low", "A", suspended=True)]
    assert [v.key[0] for v in P.order(r, "high", vs)] == [6, 4, 3, 2, 5, 1]
    assert P.order(r, "mid", vs) == []


def _fits_count(free: dict[str, int], need: int):
    return lambda freed: sum(free.values()) + sum(freed.values()) >= need


def test_choose_takes_until_the_job_fits_and_gives_back_what_it_does_not_need():
    vs = [_v(1, "low", "A"), _v(2, "low", "BBBB")]
    # one slot was enough at first, but job 2 is needed for the 4: job 1 goes back
    assert [v.key[0] for v in P.choose(vs, _fits_count({}, 4))] == [2]
    assert P.choose(vs, _fits_count({}, 6)) is None
    # hosts the preemptor cannot use: its jobs are not taken
    assert P.choose(vs, _fits_count({}, 1), lambda h: h == "B")[0].key[0] == 2


def test_resumable_in_queue_priority_then_start_order():
    a, b, c = _v(1, "low", "AA", start=5), _v(2, "mid", "AA", start=9), _v(3, "low", "B", start=1)
    out = P.resumable([(a, 20), (b, 40), (c, 20)], {"A": 2, "B": 0})
    assert [v.key[0] for v in out] == [2]
    assert [v.key[0] for v in P.resumable([(a, 20), (c, 20)], {"A": 4, "B": None})] == [3, 1]


QUEUES = ["high", "mid", "low", "idle"]


@settings(max_examples=200, deadline=None)
@given(texts=st.fixed_dictionaries({q: st.sampled_from([None, "PREEMPTIVE", "PREEMPTABLE",
                                                          "PREEMPTIVE[low idle+1]", "PREEMPTABLE[high]"])
                                    for q in QUEUES}),
       jobs=st.lists(st.tuples(st.sampled_from(QUEUES), st.lists(st.sampled_from("ABC"), min_size=1, max_size=4),
                               st.integers(0, 100), st.booleans()), max_size=12),
       free=st.integers(0, 3), need=st.integers(1, 8), who=st.sampled_from(QUEUES))
def test_property_never_too_much_never_a_queue_it_may_not_preempt(texts, jobs, free, need, who):
    r = P.Rules((q, p, texts[q]) for q, p in zip(QUEUES, (70, 40, 20, 10)))
    vs = [_v(i + 1, q, hosts, start=s, suspended=susp) for i, (q, hosts, s, susp) in enumerate(jobs)]
    chosen = P.choose(P.order(r, who, vs), _fits_count({"A": free}, need))
    if chosen is None:
        return
    assert all(r.can_preempt(who, v.queue) for v in chosen)
    assert all(r.priority[v.queue] < r.priority[who] for v in chosen)
    freed = sum(len(v.hosts) for v in chosen)
    if chosen:
        assert free + freed >= need
        # each one chosen was needed: without the smallest the job would not fit
        assert free + freed - min(len(v.hosts) for v in chosen) < need
    else:
        assert free >= need


def test_least_run_time_orders_by_start_alone():
    """PREEMPT_FOR=LEAST_RUN_TIME: the job priority no longer comes first
    within a queue; the most recently started job goes first."""
    r = _rules(high="PREEMPTIVE")
    old_low_prio, new_high_prio = _v(1, "low", ["a"], start=0.0, prio=1), _v(2, "low", ["a"], start=50.0, prio=9)
    assert [v.key[0] for v in P.order(r, "high", [old_low_prio, new_high_prio])] == [1, 2]
    assert [v.key[0] for v in P.order(r, "high", [old_low_prio, new_high_prio], least_run_time=True)] == [2, 1]


def test_no_preempt_values_and_protection():
    """NO_PREEMPT_RUN_TIME / NO_PREEMPT_FINISH_TIME: minutes or a percentage
    of the job's duration; IBM's examples (60-minute run limit: 50% run time
    protects from 30 minutes on, 10% finish time from 54 minutes on); a
    percentage of a job with no duration protects nothing."""
    from lsfemu.config.lsb_params import NoPreempt, no_preempt
    assert no_preempt(" 50% ") == NoPreempt(50, True) and no_preempt("30") == NoPreempt(30, False)
    for bad in ("0", "100%", "0%", "x", "5m", "-1", ""):
        with pytest.raises(ValueError):
            no_preempt(bad)
    half, tenth = no_preempt("50%"), no_preempt("10%")
    assert not P.protected(29.9, 60, half, None) and P.protected(30, 60, half, None)
    assert not P.protected(53.9, 60, None, tenth) and P.protected(54, 60, None, tenth)
    assert not P.protected(500, None, half, tenth)  # no run limit, no estimate
    assert P.protected(30, None, no_preempt("30"), None) and not P.protected(10, None, None, no_preempt("30"))
