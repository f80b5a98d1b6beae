"""Slot reservation and backfill in the pure pass (issue 19, part 4;
lsfemu/sched/reserve.py hooked in lsfemu/sched/dispatch.py): who reserves
what, the predicted start, who may backfill, and two properties over random
clusters (a pass never starts more slots than a host has; a backfilled job
always ends, by its run limit, before the predicted start of the
reservations it used)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.sched import dispatch as D
from lsfemu.sched import placement as P
from lsfemu.sched import reserve as R
from lsfemu.sched import resreq

pytestmark = pytest.mark.slow(4)

NOW = 1000.0
RES = R.Policy(cycles=5)  # SLOT_RESERVE = MAX_RESERVE_TIME[5]
BF = R.Policy(backfill=True)  # BACKFILL = Y


def _job(jid, queue="normal", slots=1, user=None):
    return D.PendingJob(jid, 0, user or f"u{jid}", queue, slots, 0, float(jid))


def _input(jobs, used=(4, 4, 2), queues=("normal", "short")):
    hosts = {h: D.HostInfo(name=h, max_slots=4, used=u) for h, u in zip(("hA", "hB", "hC"), used)}
    qs = {q: D.QueueInfo(name=q, priority=30 - 10 * i, order=i, hosts=list(hosts)) for i, q in enumerate(queues)}
    return D.PassInput(jobs, qs, hosts, {}, {})


def _reserve(policies, holds=None, ends=None, limits=None, cooldown=None):
    limits = limits or {}
    return R.PassReserve(policies, NOW, holds if holds is not None else {}, ends or {},
                         lambda pj: limits.get(pj.job_id), cooldown)


def test_policy_of_reads_lsb_queues_values():
    assert R.policy_of({}) is None
    assert R.policy_of({"SLOT_RESERVE": "MAX_RESERVE_TIME[5]"}) == R.Policy(5, False, False)
    assert R.policy_of({"RESOURCE_RESERVE": "max_reserve_time[ 20 ]", "SLOT_RESERVE": "MAX_RESERVE_TIME[5]"}) \
        == R.Policy(20, True, False)  # RESOURCE_RESERVE wins (LSF ignores SLOT_RESERVE then)
    assert R.policy_of({"BACKFILL": "y"}) == R.Policy(None, False, True)
    assert R.policy_of({"SLOT_RESERVE": "MAX_RESERVE_TIME[0]"}) is None
    assert R.policy_of({"SLOT_RESERVE": "5"}) is None


def test_predicted_start_counts_only_jobs_that_end_by_a_run_limit():
    ends = {"hA": [(300.0, 2), (100.0, 1)], "hB": [(200.0, 1)]}
    assert R.predicted_start(4, 2, ["hA", "hB"], ends, 50.0) == 200.0  # 2 now, +1 at 100, +1 at 200
    assert R.predicted_start(4, 4, ["hA"], ends, 50.0) == 50.0
    assert R.predicted_start(4, 1, ["hA"], ends, 50.0) == 300.0
    assert R.predicted_start(9, 1, ["hA", "hB"], ends, 50.0) is None  # never enough: unknown


def test_a_parallel_job_reserves_the_free_slots_and_later_small_jobs_wait():
    inp = _input([_job(1, slots=4), _job(2)])
    inp.reserve = _reserve({"normal": RES})
    res = D.schedule_pass(inp)
    assert res.started == []
    assert res.reasons[(1, 0)] == ["Job slot limit reached: 2 hosts", "Not enough job slot(s): 1 host"]
    assert res.reasons[(2, 0)] == ["Job slot limit reached: 3 hosts"]
    hold = inp.reserve.holds[(1, 0)]
    assert (hold.hosts, hold.held, hold.since) == ({"hC": 2}, {"hC": 2}, NOW)
    assert inp.hosts["hC"].used == 4


def test_without_reservation_the_small_job_takes_the_free_slot():
    inp = _input([_job(1, slots=4), _job(2)])
    res = D.schedule_pass(inp)
    assert [(j.job_id, a) for j, a in res.started] == [(2, ["hC"])]


def test_a_sequential_job_does_not_reserve_slots():
    inp = _input([_job(1), _job(2)], used=(4, 4, 4))
    inp.reserve = _reserve({"normal": RES})
    D.schedule_pass(inp)
    assert inp.reserve.holds == {}


def test_a_kept_reservation_holds_its_slots_against_a_higher_priority_queue():
    hold = R.Hold((1, 0), "short", NOW - 10, 4, hosts={"hC": 2})
    inp = _input([_job(2, queue="normal"), _job(1, queue="short", slots=4)])
    inp.reserve = _reserve({"short": RES}, holds={(1, 0): hold})
    res = D.schedule_pass(inp)
    assert res.started == []
    assert res.reasons[(2, 0)] == ["Job slot limit reached: 3 hosts"]
    assert inp.reserve.holds[(1, 0)].since == NOW - 10  # renewed: its MAX_RESERVE_TIME clock goes on


def test_in_cooldown_a_job_reserves_nothing_and_others_may_start():
    inp = _input([_job(1, slots=4), _job(2)])
    inp.reserve = _reserve({"normal": RES}, cooldown={(1, 0)})
    res = D.schedule_pass(inp)
    assert [j.job_id for j, _ in res.started] == [2]
    assert inp.reserve.holds == {}


def test_the_reserving_job_starts_on_its_reserved_slots_when_enough_are_free():
    hold = R.Hold((1, 0), "normal", NOW - 10, 4, hosts={"hC": 2})
    inp = _input([_job(1, slots=4)], used=(4, 2, 2))
    inp.reserve = _reserve({"normal": RES}, holds={(1, 0): hold})
    res = D.schedule_pass(inp)
    assert res.started[0][1] == ["hB", "hB", "hC", "hC"]
    assert inp.reserve.holds == {}


@pytest.mark.parametrize("limit, starts", [(600.0, True), (1800.0, True), (1801.0, False), (None, False)])
def test_backfill_only_when_the_job_ends_before_the_predicted_start(limit, starts):
    ends = {"hA": [(NOW + 1800, 4)], "hB": [(NOW + 3600, 4)]}  # the reserving job lacks 2: at NOW + 1800
    inp = _input([_job(1, slots=4), _job(2, queue="short")])
    inp.reserve = _reserve({"normal": RES, "short": BF}, ends=ends, limits={2: limit})
    res = D.schedule_pass(inp)
    assert inp.reserve.holds[(1, 0)].predicted == NOW + 1800
    assert [(j.job_id, a) for j, a in res.started] == ([(2, ["hC"])] if starts else [])
    assert inp.hosts["hC"].used == 4  # the backfill job on one reserved slot, the other still held
    if not starts:
        assert res.reasons[(2, 0)] == ["Job slot limit reached: 3 hosts"]


def test_no_backfill_on_a_reservation_without_a_predicted_start():
    inp = _input([_job(1, slots=4), _job(2, queue="short")])  # no running job has a run limit
    inp.reserve = _reserve({"normal": RES, "short": BF}, limits={2: 60.0})
    res = D.schedule_pass(inp)
    assert inp.reserve.holds[(1, 0)].predicted is None
    assert res.started == []


def test_a_job_started_in_the_pass_counts_as_ending_by_its_run_limit():
    ends = {"hA": [(NOW + 1800, 4)]}
    inp = _input([_job(1, slots=2), _job(2, slots=4)], used=(4, 4, 0))
    inp.reserve = _reserve({"normal": RES}, ends=ends, limits={1: 600.0})
    res = D.schedule_pass(inp)
    assert [j.job_id for j, _ in res.started] == [1]
    assert inp.reserve.holds[(2, 0)].predicted == NOW + 600  # job 1's two slots come back first


# --- properties over random clusters ------------------------------------------------

_hosts = st.lists(st.tuples(st.integers(1, 6), st.integers(0, 6)), min_size=1, max_size=4)
_jobs = st.lists(st.tuples(st.sampled_from(["res", "bf", "plain", "resbf"]), st.integers(1, 6),
                           st.one_of(st.none(), st.integers(1, 5000))), min_size=1, max_size=12)
_ends = st.lists(st.tuples(st.integers(0, 3), st.integers(1, 6000), st.integers(1, 3)), max_size=6)


@settings(max_examples=100, deadline=None)
@given(_hosts, _jobs, _ends, st.integers(1, 3))
def test_property_reservations_never_overcommit_and_backfill_ends_in_time(hosts_spec, jobs_spec, ends_spec, passes):
    policies = {"res": R.Policy(cycles=3), "bf": R.Policy(backfill=True), "resbf": R.Policy(3, False, True)}
    names = [f"h{i}" for i in range(len(hosts_spec))]
    running = {n: min(u, m) for n, (m, u) in zip(names, hosts_spec)}
    capacity = {n: m for n, (m, _) in zip(names, hosts_spec)}
    ends: dict[str, list] = {}
    for i, end, n in ends_spec:
        if i < len(names):
            ends.setdefault(names[i], []).append((NOW + end, n))
    limits = {k: (lim if lim is None else float(lim)) for k, (_, _, lim) in enumerate(jobs_spec)}
    holds: dict = {}
    pending = [D.PendingJob(k, 0, f"u{k}", q, n, 0, float(k)) for k, (q, n, _) in enumerate(jobs_spec)]
    for _ in range(passes):
        hosts = {n: D.HostInfo(name=n, max_slots=capacity[n], used=running[n]) for n in names}
        queues = {q: D.QueueInfo(name=q, priority=40 - i, order=i, hosts=list(names))
                  for i, q in enumerate(["res", "resbf", "plain", "bf"])}
        inp = D.PassInput(list(pending), queues, hosts, {}, {})
        inp.reserve = R.PassReserve(policies, NOW, holds, ends, lambda pj: limits[pj.job_id])
        result = D.schedule_pass(inp)
        for job, alloc in result.started:
            for h in alloc:
                running[h] += 1
            pending.remove(job)
        held = {n: sum(h.held.get(n, 0) for h in holds.values()) for n in names}
        for n in names:
            assert running[n] <= capacity[n]  # never more slots started than the host has
            assert running[n] + held[n] <= capacity[n]  # nor reserved beyond what is free
            assert hosts[n].used == running[n] + held[n]
        for job, alloc, used in inp.reserve.backfilled:
            for hold in used:  # ends, by its run limit, no later than each reservation it used may start
                assert NOW + limits[job.job_id] <= hold.predicted


def test_resource_reserve_accumulates_what_is_left_for_a_sequential_job():
    req = P.compile_req("rusage[mem=1000]", resreq.parse("rusage[mem=1000]"), lambda t: None, lambda t: None, False)
    hosts = {"hA": D.HostInfo(name="hA", max_slots=4, avail={"mem": 600.0})}
    queues = {"mem": D.QueueInfo(name="mem", priority=10, order=0, hosts=["hA"])}
    big, small = _job(1, queue="mem"), _job(2, queue="mem")
    big.require(req)
    small.require(P.compile_req("rusage[mem=500]", resreq.parse("rusage[mem=500]"), lambda t: None,
                                lambda t: None, False))
    policies = {"mem": R.Policy(5, True, False)}
    inp = D.PassInput([big, small], queues, hosts, {}, {})
    inp.reserve = _reserve(policies)
    res = D.schedule_pass(inp)
    assert res.started == []  # the 600 MB left are the first job's now: the second, which would fit, waits
    hold = inp.reserve.holds[(1, 0)]
    assert (hold.hosts, hold.amounts, hold.predicted) == ({"hA": 1}, {"hA": {"mem": 600.0}}, None)
    # next pass: 500 MB more came free; the first job takes back its 600 and starts with 1100
    hosts = {"hA": D.HostInfo(name="hA", max_slots=4, avail={"mem": 1100.0})}
    inp = D.PassInput([big, small], queues, hosts, {}, {})
    inp.reserve = _reserve(policies, holds={hold.key: hold})
    res = D.schedule_pass(inp)
    assert [j.job_id for j, _ in res.started] == [1]


def test_reserved_slots_count_against_the_queue_slot_limit():
    # LSF: "job slots that are reserved by pending jobs also count against all job slot limits"
    from lsfemu.sched.hostpick import Placement
    hosts = {h: D.HostInfo(name=h, max_slots=4, used=u) for h, u in (("hA", 4), ("hB", 4), ("hC", 2), ("hD", 0))}
    queues = {"normal": D.QueueInfo(name="normal", priority=30, order=0, hosts=list(hosts), qjob_limit=3)}
    big, first, second = _job(1, slots=3), _job(2), _job(3)
    big.place = Placement(hosts=("hC",))  # bsub -m hC: 2 free there, it reserves them
    inp = D.PassInput([big, first, second], queues, hosts, {}, {})
    inp.reserve = _reserve({"normal": RES})
    res = D.schedule_pass(inp)
    assert [(j.job_id, a) for j, a in res.started] == [(2, ["hD"])]  # 2 reserved + 1 = the queue's 3
    assert res.reasons[(3, 0)] == ["The queue has reached its job slot limit"]
    assert queues["normal"].used == 3 and inp.user_used == {"u1": 2, "u2": 1}


def test_a_host_file_job_reserves_on_its_hosts_up_to_their_lines():
    # bsub -hostfile (issue 21) with SLOT_RESERVE: hC's 2 free slots of the 3 its file asks there are
    # held, hB's free slots (not in the file) are not; the job starts once hC has its 3.
    from lsfemu.sched.hostpick import Placement
    job = _job(1, slots=4)
    job.place = Placement(listed=(("hC", 3), ("hA", 1)))
    inp = _input([job], used=(0, 0, 2))
    inp.reserve = _reserve({"normal": RES})
    assert D.schedule_pass(inp).started == []
    hold = inp.reserve.holds[(1, 0)]
    assert hold.hosts == {"hA": 1, "hC": 2}
    inp = _input([job], used=(0, 0, 1))
    inp.reserve = _reserve({"normal": RES}, holds={hold.key: hold})
    assert D.schedule_pass(inp).started == [(job, ["hC", "hC", "hC", "hA"])]
