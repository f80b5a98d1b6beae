"""Queue-based fairshare: SLOT_POOL / SLOT_SHARE."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.sched.fairshare import parse_slot_pools, slot_pool_allocation


def test_competing_queues_get_their_share():
    assert slot_pool_allocation([("q1", 50, 100), ("q2", 30, 100), ("q3", 20, 100)], 10) == {"q1": 5, "q2": 3, "q3": 2}


def test_one_queue_alone_uses_everything():
    assert slot_pool_allocation([("q1", 50, 100), ("q2", 30, 0), ("q3", 20, 0)], 10) == {"q1": 10, "q2": 0, "q3": 0}


def test_unused_share_goes_to_queues_with_demand():
    assert slot_pool_allocation([("q1", 50, 2), ("q2", 30, 100), ("q3", 20, 100)], 10) == {"q1": 2, "q2": 5, "q3": 3}


def test_shares_need_not_add_up_to_100():
    assert slot_pool_allocation([("a", 10, 50), ("b", 30, 50)], 8) == {"a": 2, "b": 6}


def test_rounding_gives_every_slot_in_order():
    assert slot_pool_allocation([("a", 1, 10), ("b", 1, 10), ("c", 1, 10)], 10) == {"a": 4, "b": 3, "c": 3}


def test_demand_below_total():
    assert slot_pool_allocation([("a", 50, 3), ("b", 50, 2)], 100) == {"a": 3, "b": 2}
    assert slot_pool_allocation([], 10) == {}
    assert slot_pool_allocation([("a", 50, 5)], 0) == {"a": 0}


def test_zero_share_only_gets_leftovers():
    assert slot_pool_allocation([("a", 0, 10), ("b", 50, 4)], 10) == {"a": 6, "b": 4}


def test_parse_slot_pools(lsb_queues):
    qs = lsb_queues("""\
Begin Queue
QUEUE_NAME = q1
SLOT_POOL = poolA
SLOT_SHARE = 50
End Queue
Begin Queue
QUEUE_NAME = q2
SLOT_POOL = poolA
SLOT_SHARE = 30%
End Queue
Begin Queue
QUEUE_NAME = q3
SLOT_POOL = poolB
SLOT_SHARE = 100
End Queue
Begin Queue
QUEUE_NAME = plain
End Queue
""")
    assert parse_slot_pools(qs.values()) == {"poolA": [("q1", 50.0), ("q2", 30.0)], "poolB": [("q3", 100.0)]}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 100), st.integers(0, 60)), min_size=1, max_size=6), st.integers(0, 200))
def test_allocation_properties(specs, total):
    queues = [(f"q{i}", float(s), d) for i, (s, d) in enumerate(specs)]
    out = slot_pool_allocation(queues, total)
    assert set(out) == {n for n, _s, _d in queues}
    assert all(0 <= out[n] <= d for n, _s, d in queues)
    assert sum(out.values()) == min(total, sum(d for _n, _s, d in queues))
    busy = [q for q in queues if q[2] > 0]
    if len(busy) == 1:
        assert out[busy[0][0]] == min(total, busy[0][2])
