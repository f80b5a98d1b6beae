"""The bjobs -aps / dispatch order (lsfemu.sched.aps.order) - the seed's example reproduced."""

from __future__ import annotations

import random
from typing import NamedTuple

from aps_seed import EXPECTED, JOBS, NOW, QUEUES, listed_jobs

from lsfemu.config import aps as C
from lsfemu.config.model import QueueConf
from lsfemu.render.aps import aps_cell
from lsfemu.sched import aps as A
from lsfemu.sched import aps_rank as AR

import pytest

pytestmark = pytest.mark.slow(10)  # seconds, quiet machine: scheduled early (tests/conftest.py)


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
    return AR.ApsResult(value=value, system=system, calculated=value or 0.0)


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
        return AR.aps_value(cfg, AR.ApsJobInput(pend_seconds=0, fs_priority=fs[j.user],
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
        left.sort(key=lambda j: AR.aps_rank(result_of(j)) + (j.position, j.job_id, j.array_index))
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
            return AR.aps_value(cfg, AR.ApsJobInput(pend_seconds=0, fs_priority=fs[j.user], job_priority=j.prio,
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


class _Facts(NamedTuple):
    """What the ranker reads of a job (the engine gives it its passrows.Row)."""

    user: str
    queue: str
    proc: float
    mem: float
    swap: float
    since: float
    aps_admin: float | None
    aps_system: float | None
    parts_key: int
    fs_key: int
    plain: bool


class _Pending(NamedTuple):
    """A job as the ranker is given it (the pass gives its PendingJob)."""

    row: _Facts
    priority: int


def _rank_in_bulk(cfg, now, queues, fs, jobs):
    """ApsRanker.ranked over *jobs* ((user, queue, proc, mem, swap, since, job priority, admin, system))."""
    parts_keys, fs_keys, rows = {}, {}, []
    for user, queue, proc, mem, swap, since, _jp, admin, system in jobs:
        pk = parts_keys.setdefault((proc, mem, swap, queue), len(parts_keys))
        fk = fs_keys.setdefault((user, queue), len(fs_keys))
        rows.append(_Facts(user, queue, proc, mem, swap, since, admin, system, pk, fk, admin is None and system is None))
    ranker = AR.ApsRanker(cfg, now, queues, lambda user, queue: fs[(user, queue)])
    return ranker.ranked([_Pending(row, j[6]) for row, j in zip(rows, jobs)])


def test_the_bulk_ranker_gives_the_seeds_values():
    """The seed's worked example (aps_seed): the one ranker, in bulk, gives its values."""
    by_name = {q.name: q for q in QUEUES}
    cfg = C.parse_aps_priority(by_name["normal"].aps_priority)
    queues = {q.name: (q.priority, False) for q in QUEUES}
    jobs = [(f"u{job_id}", queue, 1, 0.0, 0.0, submit * 60, j.job_priority, None, system)
            for (job_id, queue, submit, system), j in zip(JOBS, listed_jobs()) if queue in ("normal", "Short")]
    got = [(system, value) for _cls, _key, system, value in _rank_in_bulk(cfg, NOW * 60, queues, {}, jobs)]
    assert got == [(None, 360.0), (None, 270.0), (None, 355.0), (60.0, None)]  # jobs 2, 4, 12, 22


_shape_st = st.tuples(st.sampled_from(["ua", "ub", "uc"]), st.sampled_from(["q1", "q2"]), st.sampled_from([1, 2, 64]),
                      st.sampled_from([0.0, 100.0, 2.5, 1e6]), st.sampled_from([0.0, 7.0]), st.integers(-10, 1000),
                      st.one_of(st.none(), st.none(), st.floats(-1e3, 1e3)),
                      st.one_of(st.none(), st.none(), st.floats(-1e3, 1e3)))
# Jobs of a few shapes, pending since different instants: as in a real queue,
# many share every input but the pending time (and its grace periods).
_jobs_st = st.lists(_shape_st, min_size=1, max_size=4).flatmap(lambda shapes: st.lists(
    st.tuples(st.sampled_from(shapes), st.sampled_from([0.0, 9970.0, 9999.5, 10_000.0, 10_030.0, 12_000.0,
                                                         13_000.0, 13_590.0, 13_600.0, 14_000.0])),
    min_size=1, max_size=30).map(lambda js: [shape[:5] + (since,) + shape[5:] for shape, since in js]))


@settings(max_examples=400, deadline=None)
@given(weights=st.dictionaries(st.sampled_from(["FS", "RSRC", "PROC", "MEM", "SWAP", "WORK", "JPRIORITY", "QPRIORITY"]),
                               st.sampled_from([1, 2.5, -3, 1e300, 0.001]), min_size=1),
       limits=st.dictionaries(st.sampled_from(["FS", "RSRC", "PROC", "MEM", "WORK", "JPRIORITY"]),
                              st.sampled_from([1, 50, 1e9])),
       grace=st.dictionaries(st.sampled_from(["FS", "MEM", "JPRIORITY", "WORK"]), st.sampled_from(["10m", "1h", "30s"])),
       qp=st.tuples(st.integers(0, 100), st.integers(0, 100)),
       fs=st.lists(st.floats(-1e6, 1e6), min_size=3, max_size=3),
       jobs=_jobs_st)
def test_the_bulk_ranker_equals_aps_value_job_by_job(weights, limits, grace, qp, fs, jobs):
    """The pass and bjobs -aps rank in bulk (ApsRanker: values looked up by
    their inputs, the pending time only through the grace periods reached);
    explain shows aps_value: the two never disagree."""
    def section(name, d):
        return f"{name}[" + " ".join(f"[{k}, {v}]" for k, v in d.items()) + "]" if d else ""
    cfg = C.parse_aps_priority(" ".join(x for x in (section("WEIGHT", weights), section("LIMIT", limits),
                                                     section("GRACE_PERIOD", grace)) if x))
    now = 13_600.0
    queues = {"q1": (qp[0], True), "q2": (qp[1], False)}  # q2 has no FAIRSHARE
    fs_of = {(u, q): (fs[i] if q == "q1" else None) for i, u in enumerate(["ua", "ub", "uc"]) for q in ("q1", "q2")}
    for (user, queue, proc, mem, swap, since, jp, admin, system), (cls, key, got_system, got_value) in zip(
            jobs, _rank_in_bulk(cfg, now, queues, fs_of, jobs)):
        r = AR.aps_value(cfg, AR.ApsJobInput(pend_seconds=max(0.0, now - since), proc=proc, mem_mb=mem, swap_mb=swap,
                                             job_priority=jp, queue_priority=queues[queue][0],
                                             fs_priority=fs_of[(user, queue)], admin_value=admin,
                                             system_value=system))
        assert (cls, key) == AR.aps_rank(r)
        assert (got_system, got_value) == ((r.system, None) if r.system is not None else (None, r.calculated))
