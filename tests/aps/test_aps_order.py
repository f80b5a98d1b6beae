"""The bjobs -aps / dispatch order (lsfemu.sched.aps.order) - the seed's example reproduced."""

from __future__ import annotations

import random

from aps_seed import EXPECTED, QUEUES, listed_jobs

from lsfemu.config import aps as C
from lsfemu.config.model import QueueConf
from lsfemu.render.aps import aps_cell
from lsfemu.sched import aps as A


def _ids(jobs):
    return [j.job_id for j in jobs]


def test_seed_values():
    values = {j.job_id: j.result for j in listed_jobs()}
    assert values[2].value == 360  # 10 * 20 + 1 * (50 + 220 * 5 / 10)
    assert values[12].value == 355  # 10 * 30 + 1 * (50 + 10 * 5 / 10)
    assert values[4].value == 270  # 10 * 20 + 1 * (50 + 40 * 5 / 10)
    assert values[22].value is None and values[22].system == 60
    assert values[5] is None and values[15] is None


def test_seed_listing_order_and_cells():
    jobs = listed_jobs()
    for seed in range(5):  # independent of the input order
        random.Random(seed).shuffle(jobs)
        got = [(j.job_id, j.queue, aps_cell(j.result)) for j in A.order(jobs, QUEUES)]
        assert got == EXPECTED


def test_plan_puts_the_group_at_the_aps_queue_priority():
    plan = A.plan_queues(QUEUES)
    assert plan["Short"].aps_queue == "normal"
    assert (plan["Short"].block_priority, plan["Short"].block_order) == (30, 1)
    assert plan["Idle"].aps_queue is None and plan["priority"].aps_queue is None
    assert C.aps_groups(QUEUES) == {"normal": "normal", "Short": "normal"}


def _res(value=None, system=None):
    return A.ApsResult(value=value, system=system, calculated=value or 0.0)


def test_system_first_high_to_low_then_calculated_ties_by_position():
    queues = [QueueConf("q", priority=30, aps_priority="WEIGHT[[QPRIORITY, 1]]")]
    jobs = [
        A.ListedJob(1, "q", 1, result=_res(99.0)),
        A.ListedJob(2, "q", 2, result=_res(system=5.0)),
        A.ListedJob(3, "q", 3, result=_res(109.0)),
        A.ListedJob(4, "q", 4, result=_res(system=-3.0)),  # negative system values still rank above calculated
        A.ListedJob(5, "q", 0.5, result=_res(99.0)),
        A.ListedJob(6, "q", 6, result=_res(1e9)),
        A.ListedJob(7, "q", 7, result=_res(system=10.0)),
    ]
    assert _ids(A.order(jobs, queues)) == [7, 2, 4, 6, 3, 5, 1]


def test_non_aps_queues_by_job_priority_then_fcfs():
    queues = [QueueConf("hi", priority=50), QueueConf("lo", priority=5)]
    jobs = [
        A.ListedJob(1, "lo", 1, job_priority=90),
        A.ListedJob(2, "hi", 2, job_priority=10),
        A.ListedJob(3, "hi", 3, job_priority=70),
        A.ListedJob(4, "hi", 1.5, job_priority=10),
        A.ListedJob(5, "nowhere", 0, job_priority=100),
    ]
    assert _ids(A.order(jobs, queues)) == [3, 4, 2, 1, 5]


def test_equal_queue_priorities_follow_lsb_queues_order():
    queues = [QueueConf("b", priority=30), QueueConf("a", priority=30, aps_priority="WEIGHT[[JPRIORITY, 1]]")]
    jobs = [A.ListedJob(1, "a", 1, result=_res(5.0)), A.ListedJob(2, "b", 2)]
    assert _ids(A.order(jobs, queues)) == [2, 1]
    assert _ids(A.order(jobs, A.plan_queues(list(reversed(queues))))) == [1, 2]


def test_block_sits_at_its_highest_priority_queue_whichever_queues_have_jobs():
    queues = [QueueConf("mid", priority=25), QueueConf("aps", priority=10, aps_priority="WEIGHT[[QPRIORITY, 1]]",
                                                       queue_group=["hi"]), QueueConf("hi", priority=40)]
    plan = A.plan_queues(queues)
    assert (plan["aps"].block_priority, plan["aps"].block_order) == (40, 2)
    assert (plan["hi"].block_priority, plan["hi"].block_order) == (40, 2)
    jobs = [A.ListedJob(1, "mid", 1), A.ListedJob(2, "aps", 2, result=_res(10.0))]  # no job in "hi"
    assert _ids(A.order(jobs, queues)) == [2, 1]


def test_aps_order_object_reranks_after_each_start():
    from dataclasses import dataclass

    @dataclass
    class PJ:
        job_id: int
        user: str
        position: float
        array_index: int = 0

    fs = {"alice": 10.0, "bob": 6.0}
    cfg = C.parse_aps_priority("WEIGHT[[FS, 1]]")

    def result_of(j):
        return A.aps_value(cfg, A.ApsJobInput(pend_seconds=0, fs_priority=fs[j.user],
                                              system_value=50.0 if j.job_id == 9 else None))

    jobs = [PJ(1, "alice", 1), PJ(2, "alice", 2), PJ(3, "bob", 3), PJ(9, "bob", 9)]
    order = A.ApsOrder(jobs, result_of)
    seen = []
    for j in order:
        seen.append(j.job_id)
        if j.job_id != 9:
            fs[j.user] -= 5  # the user's dynamic priority drops after a start
            order.started(j)
    assert seen == [9, 1, 3, 2]


def _reference_order(jobs, result_of, on_start):
    """The order a full re-sort after every start gives (the definition)."""
    left = list(jobs)
    out = []
    while left:
        left.sort(key=lambda j: A.aps_rank(result_of(j)) + (j.position, j.job_id, j.array_index))
        j = left.pop(0)
        out.append(j.job_id)
        on_start(j)
    return out


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abcde"), st.integers(0, 5), st.booleans()), min_size=1, max_size=30),
       st.dictionaries(st.sampled_from("abcde"), st.floats(0, 50), min_size=5, max_size=5),
       st.sampled_from("abcde"))
def test_incremental_aps_order_equals_a_full_resort(rows, fs0, shared):
    """ApsOrder re-ranks only the affected users' jobs after a start; the
    order must be the one a full re-sort gives. Users 'a' and the user
    `shared` share one account (a start of either changes both)."""
    from dataclasses import dataclass

    @dataclass
    class PJ:
        job_id: int
        user: str
        position: float
        prio: int
        system: bool
        array_index: int = 0

    cfg = C.parse_aps_priority("WEIGHT[[FS, 10] [JPRIORITY, 1]]")
    jobs = [PJ(i + 1, u, float((i * 7) % 11), p, s) for i, (u, p, s) in enumerate(rows)]
    group = {"a", shared}

    def run(incremental: bool) -> list[int]:
        fs = dict(fs0)

        def result_of(j):
            return A.aps_value(cfg, A.ApsJobInput(pend_seconds=0, fs_priority=fs[j.user], job_priority=j.prio,
                                                  system_value=5.0 if j.system else None))

        def on_start(j):
            for u in (group if j.user in group else {j.user}):
                fs[u] = fs[u] * 0.5 - 1

        if not incremental:
            return _reference_order(jobs, result_of, on_start)
        order = A.ApsOrder(jobs, result_of, affected=lambda j: group if j.user in group else [j.user])
        out = []
        for j in order:
            out.append(j.job_id)
            on_start(j)
            order.started(j)
        return out

    assert run(True) == run(False)


@settings(max_examples=400, deadline=None)
@given(weights=st.dictionaries(st.sampled_from(["FS", "RSRC", "PROC", "MEM", "SWAP", "WORK", "JPRIORITY", "QPRIORITY"]),
                               st.sampled_from([1, 2.5, -3, 1e300, 0.001]), min_size=1),
       limits=st.dictionaries(st.sampled_from(["FS", "RSRC", "PROC", "MEM", "WORK", "JPRIORITY"]),
                              st.sampled_from([1, 50, 1e9])),
       grace=st.dictionaries(st.sampled_from(["FS", "MEM", "JPRIORITY", "WORK"]), st.sampled_from(["10m", "1h", "30s"])),
       pend=st.floats(0, 10000), proc=st.integers(1, 64), mem=st.floats(0, 1e6), swap=st.floats(0, 1e6),
       jp=st.integers(-10, 1000), qp=st.integers(0, 100),
       fs=st.one_of(st.none(), st.floats(-1e6, 1e6)), admin=st.one_of(st.none(), st.floats(-1e3, 1e3)),
       system=st.one_of(st.none(), st.floats(-1e3, 1e3)))
def test_aps_rank_of_equals_the_rank_of_aps_value(weights, limits, grace, pend, proc, mem, swap, jp, qp, fs, admin, system):
    """The pass ranks jobs with aps_rank_of; bjobs -aps shows aps_value: the two never disagree."""
    def section(name, d):
        return f"{name}[" + " ".join(f"[{k}, {v}]" for k, v in d.items()) + "]" if d else ""
    cfg = C.parse_aps_priority(" ".join(x for x in (section("WEIGHT", weights), section("LIMIT", limits),
                                                     section("GRACE_PERIOD", grace)) if x))
    job = A.ApsJobInput(pend_seconds=pend, proc=proc, mem_mb=mem, swap_mb=swap, job_priority=jp, queue_priority=qp,
                        fs_priority=fs, admin_value=admin, system_value=system)
    assert A.aps_rank_of(cfg, job) == A.aps_rank(A.aps_value(cfg, job))
