"""The pure scheduling pass: order, slots, limits, reasons."""

from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.sched import dispatch as D

import pytest

pytestmark = pytest.mark.slow(9)  # seconds, quiet machine: scheduled early (tests/conftest.py)


def _q(name, prio, order=0, hosts=("hA", "hB"), **kw):
    return D.QueueInfo(name=name, priority=prio, order=order, hosts=list(hosts), **kw)


def _hosts(**slots):
    return {h: D.HostInfo(name=h, max_slots=n) for h, n in slots.items()}


def _job(jid, user="u1", queue="normal", slots=1, prio=0, pos=None):
    return D.PendingJob(jid, 0, user, queue, slots, prio, float(pos if pos is not None else jid))


def test_higher_priority_queue_first_then_fcfs():
    queues = {"normal": _q("normal", 30, 0), "priority": _q("priority", 43, 1)}
    jobs = [_job(1), _job(2), _job(3, queue="priority")]
    inp = D.PassInput(jobs, queues, _hosts(hA=1, hB=1), {}, {})
    res = D.schedule_pass(inp)
    assert [j.job_id for j, _ in res.started] == [3, 1]
    assert res.reasons[(2, 0)] == ["Job slot limit reached: 2 hosts"]


def test_job_priority_orders_within_queue():
    queues = {"normal": _q("normal", 30)}
    jobs = [_job(1, prio=50), _job(2, prio=80), _job(3, prio=50, pos=0.5)]
    order = [j.job_id for j in D.order_jobs(jobs, queues)]
    assert order == [2, 3, 1]


def test_parallel_job_spans_hosts_in_cluster_order():
    queues = {"normal": _q("normal", 30)}
    inp = D.PassInput([_job(1, slots=3)], queues, _hosts(hA=2, hB=2), {}, {})
    res = D.schedule_pass(inp)
    assert res.started[0][1] == ["hA", "hA", "hB"]
    assert inp.hosts["hA"].used == 2 and inp.hosts["hB"].used == 1


def test_fcfs_blocks_nothing_but_reports_less_slots():
    # A job too big for the free slots waits; a later small job may still start (no reservation).
    queues = {"normal": _q("normal", 30)}
    hosts = _hosts(hA=2, hB=2)
    hosts["hA"].used = 1
    inp = D.PassInput([_job(1, slots=4), _job(2)], queues, hosts, {}, {})
    res = D.schedule_pass(inp)
    assert [j.job_id for j, _ in res.started] == [2]
    assert res.reasons[(1, 0)] == ["Not enough job slot(s): 2 hosts"]


def test_user_and_queue_limits():
    queues = {"normal": _q("normal", 30, qjob_limit=3, ujob_limit=2)}
    jobs = [_job(1), _job(2), _job(3), _job(4, user="u2"), _job(5, user="u2")]
    inp = D.PassInput(jobs, queues, _hosts(hA=10), {"u1": 5, "u2": 5}, {})
    res = D.schedule_pass(inp)
    assert [j.job_id for j, _ in res.started] == [1, 2, 4]
    assert res.reasons[(3, 0)] == [D.QUEUE_USER_LIMIT]
    assert res.reasons[(5, 0)] == [D.QUEUE_JOB_LIMIT]


def test_user_max_jobs_counts_running_slots():
    queues = {"normal": _q("normal", 30)}
    inp = D.PassInput([_job(1, slots=2), _job(2)], queues, _hosts(hA=10), {"u1": 2}, {"u1": 1})
    res = D.schedule_pass(inp)
    # 1 of 2 slots in use: the 2-slot job cannot start, the 1-slot job takes the last slot.
    assert [j.job_id for j, _ in res.started] == [2]
    assert res.reasons[(1, 0)] == [D.USER_PJOB_LIMIT]
    inp2 = D.PassInput([_job(3)], {"normal": _q("normal", 30)}, _hosts(hA=10), {"u1": 2}, {"u1": 2})
    assert D.schedule_pass(inp2).reasons[(3, 0)] == [D.USER_JOB_LIMIT]


def test_inactive_queue_and_closed_host():
    queues = {"normal": _q("normal", 30, active=False), "other": _q("other", 10, hosts=("hA",))}
    hosts = _hosts(hA=4)
    hosts["hA"].open = False
    inp = D.PassInput([_job(1), _job(2, queue="other")], queues, hosts, {}, {})
    res = D.schedule_pass(inp)
    assert res.reasons[(1, 0)] == [D.QUEUE_INACTIVE]
    assert res.reasons[(2, 0)] == ["Closed by LSF administrator: 1 host"]


def test_unlimited_hosts_start_everything():
    queues = {"normal": _q("normal", 30, hosts=("hA",))}
    hosts = {"hA": D.HostInfo(name="hA", max_slots=None)}
    inp = D.PassInput([_job(i, slots=3) for i in range(1, 6)], queues, hosts, {}, {})
    assert len(D.schedule_pass(inp).started) == 5


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 4), st.sampled_from(["u1", "u2", "u3"]), st.sampled_from(["a", "b"])), max_size=30),
    st.lists(st.integers(0, 4), min_size=1, max_size=4),
)
def test_never_oversubscribes(jobs, slots):
    hosts = {f"h{i}": D.HostInfo(name=f"h{i}", max_slots=n) for i, n in enumerate(slots)}
    queues = {"a": _q("a", 20, 0, hosts=hosts), "b": _q("b", 10, 1, hosts=hosts, ujob_limit=3)}
    pending = [_job(i + 1, user=u, queue=q, slots=n) for i, (n, u, q) in enumerate(jobs)]
    inp = D.PassInput(pending, queues, hosts, {"u1": 5}, {})
    res = D.schedule_pass(inp)
    used: dict[str, int] = {}
    for job, alloc in res.started:
        assert len(alloc) == job.slots
        for h in alloc:
            used[h] = used.get(h, 0) + 1
    for h, n in used.items():
        assert n <= hosts[h].max_slots
    per_user_b: dict[str, int] = {}
    for job, _ in res.started:
        if job.queue == "b":
            per_user_b[job.user] = per_user_b.get(job.user, 0) + job.slots
    assert all(v <= 3 for v in per_user_b.values())
    assert sum(j.slots for j, _ in res.started if j.user == "u1") <= 5
    started = {j.job_id for j, _ in res.started}
    assert started.isdisjoint({k[0] for k in res.reasons})
    assert started | {k[0] for k in res.reasons} == {j.job_id for j in pending}


def test_job_accept_interval_one_job_per_host_per_pass():
    queues = {"normal": _q("normal", 30)}
    hosts = _hosts(hA=4, hB=4)
    for h in hosts.values():
        h.accept_once = True
    hosts["hB"].accepting = False  # took a job within the interval
    inp = D.PassInput([_job(1), _job(2)], queues, hosts, {}, {})
    res = D.schedule_pass(inp)
    assert [(j.job_id, a) for j, a in res.started] == [(1, ["hA"])]
    assert res.reasons[(2, 0)] == ["Just started a job recently: 2 hosts"]


_order_jobs = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 30), st.sampled_from(["normal", "short", "night"])),
                       max_size=40, unique_by=lambda t: t[1])


@settings(max_examples=200, deadline=None)
@given(_order_jobs, st.integers(0, 45))
def test_static_order_gives_fcfs_order_and_the_rest(spec, taken):
    """StaticOrder (a heap) gives the jobs in fcfs_key order, and after some
    were given out, rest() is exactly the others."""
    jobs = [_job(i + 1, queue=q, prio=p, pos=pos) for i, (p, pos, q) in enumerate(spec)]
    order = D.StaticOrder(list(jobs))
    given = []
    for job in order:
        if len(given) == taken:
            break
        given.append(job)
    want = sorted(jobs, key=D.fcfs_key)
    # (the job at the break was taken off the heap too: given out, not offered)
    assert given == want[:len(given)]
    left = {j.job_id for j in order.rest()}
    assert left == {j.job_id for j in want[len(given) + (1 if len(given) == taken and taken < len(jobs) else 0):]}


@settings(max_examples=200, deadline=None)
@given(_order_jobs, st.dictionaries(st.sampled_from(["normal", "short", "night"]), st.sampled_from(["normal", "grp"])))
def test_units_group_jobs_by_scheduling_unit(spec, unit_of):
    """units() gives every job once, in its queue's unit, units by queue
    PRIORITY (the one-unit shortcut included)."""
    queues = {"normal": _q("normal", 30, 0), "short": _q("short", 40, 1), "night": _q("night", 20, 2)}
    jobs = [_job(i + 1, queue=q, prio=p, pos=pos) for i, (p, pos, q) in enumerate(spec)]
    got = D.units(jobs, queues, unit_of)
    assert sorted(j.job_id for _, group in got for j in group) == sorted(j.job_id for j in jobs)
    for unit, group in got:
        assert all(unit_of.get(j.queue, j.queue) == unit for j in group)
        assert [j.job_id for j in group] == [j.job_id for j in jobs if unit_of.get(j.queue, j.queue) == unit]
    rank = {}
    for q in queues.values():
        u = unit_of.get(q.name, q.name)
        rank[u] = min(rank.get(u, (-q.priority, q.order)), (-q.priority, q.order))
    assert [rank[u] for u, _ in got] == sorted(rank[u] for u, _ in got)


def test_host_file_takes_exactly_its_hosts_and_slots_in_its_order():
    # bsub -hostfile (issue 21): hC twice (3 slots), hA once; the other hosts are not candidates, the
    # allocation follows the file's lines (LSB_HOSTS' order); a host short of slots keeps it pending.
    from lsfemu.sched import hostfile
    from lsfemu.sched.hostpick import Placement
    entries = hostfile.parse("# benchmark geometry\nhC 2\nhA\nhC   1  # again\n\n")
    assert entries == [("hC", 2), ("hA", 1), ("hC", 1)]
    queues = {"normal": _q("normal", 30, hosts=("hA", "hB", "hC"))}
    job = _job(1, slots=hostfile.total(entries))
    job.place = Placement(listed=tuple(entries))
    inp = D.PassInput([job], queues, _hosts(hA=4, hB=4, hC=4), {}, {})
    assert D.schedule_pass(inp).started[0][1] == ["hC", "hC", "hA", "hC"]
    assert inp.hosts["hB"].used == 0
    hosts = _hosts(hA=4, hB=4, hC=4)
    hosts["hC"].used = 2  # 2 free on hC: the file wants 3 there
    waiting = _job(2, slots=4)
    waiting.place = Placement(listed=tuple(entries))
    res = D.schedule_pass(D.PassInput([waiting], queues, hosts, {}, {}))
    assert res.started == []
    assert sorted(res.reasons[(2, 0)]) == ["Not enough job slot(s): 1 host", "Not specified in job submission: 1 host"]
    # lsfemu explain pending, host by host: hB is not in the file, hC gives 2 of its 3, hA its 1
    hosts = _hosts(hA=4, hB=4, hC=4)
    hosts["hC"].used = 2
    assert D.host_by_host(waiting, D.PassInput([], queues, hosts, {}, {})) == [
        ("hA", [], 1), ("hB", ["Not specified in job submission"], 0), ("hC", ["Not enough job slot(s)"], 2)]


def test_host_file_text_and_kept_form():
    from lsfemu.sched import hostfile
    for bad in ("hA 0\n", "hA two\n", "hA 1 2\n", "# nothing\n", ""):
        with pytest.raises(hostfile.HostFileError):
            hostfile.parse(bad)
    kept = hostfile.encode("/home/u/hf", [("hA", 2), ("hB", 1)])
    assert hostfile.decode(kept) == ("/home/u/hf", [("hA", 2), ("hB", 1)])
    assert hostfile.decode("hA hB+2") is None and hostfile.decode(None) is None
    # lsb.events' asked-hosts list: the kept lines, or -m's words; and back
    assert hostfile.log_words(kept) == ("@hostfile /home/u/hf", "hA 2", "hB 1")
    assert hostfile.from_log_words(hostfile.log_words(kept)) == kept
    assert hostfile.log_words("hA  hB+2") == ("hA", "hB+2") and hostfile.from_log_words(("hA", "hB+2")) == "hA hB+2"
