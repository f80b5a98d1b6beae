"""Refused shapes (issue 19, part 6; docs/semantics.md "Refused shapes"):
which requirements stay refused once the hosts refuse them (sched.select
and sched.placement's `monotone`), the heap that leaves a refused shape's
jobs out (sched.shapes.ShapeHeap), and the pass that uses them: the same
starts, the left-out jobs' reasons from the state the pass ends with."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.sched import dispatch as D
from lsfemu.sched import hostpick, hostres, placement, resreq, select, shapes

pytestmark = pytest.mark.slow(4)

CONSUMABLE = frozenset({"mem", "swp", "tmp", "lic"})


@pytest.mark.parametrize("text,want", [
    (None, True), ("type==X86_64", True), ("r15s<1 && ut<0.5", True),
    ("mem>2000", True), ("mem>=2G", True), ("2000<mem", True), ("2000<=swap", True), ("defined(mem)", True),
    ("(mem>1000 || tmp>5) && hname!=hostA", True), ("lic>0", True),
    # a drop may turn these from false to true
    ("mem<2000", False), ("mem<=2000", False), ("mem==2000", False), ("mem!=2000", False), ("!(mem>2000)", False),
    ("mem - 100>2000", False), ("(mem>2000)==0", False), ("5<mem<10", False), ("mem", False), ("mem>-5", False),
])
def test_which_selections_stay_false_as_resources_drop(text, want):
    assert select.monotone(text, CONSUMABLE) is want


_ATOMS = ["mem>4000", "mem<4000", "4000<mem", "mem>=8G", "mem==4000", "r15s<1", "type==X86_64",
          "defined(mem)", "mem", "mem - 1000>2000", "mem*2>9000"]
_expr = st.recursive(st.sampled_from(_ATOMS),
                     lambda inner: st.one_of(st.tuples(inner, st.sampled_from(["&&", "||"]), inner).map(
                         lambda t: f"({t[0]} {t[1]} {t[2]})"), inner.map(lambda e: f"!({e})")), max_leaves=5)


@settings(max_examples=200, deadline=None)
@given(text=_expr, high=st.floats(0, 20000), drop=st.floats(0, 20000), r15s=st.sampled_from([0.5, 2.0]))
def test_a_monotone_selection_never_turns_true_as_memory_drops(text, high, drop, r15s):
    """The syntactic reading is sound: what it calls monotone, false at some
    memory, stays false with less (the real evaluator decides)."""
    if not select.monotone(text, CONSUMABLE):
        return
    sel = select.compile_select(text, "X86_64")
    host = hostres.HostResources("hostA", ncpus=4, maxmem=20000)

    def holds(mem):
        return sel(hostres.namespace(host, {"mem": mem, "r15s": r15s}))
    assert holds(high) or not holds(max(0.0, high - drop))


def _req(text):
    return placement.compile_req(text, resreq.parse(text), lambda s: select.compile_select(s, "X86_64"),
                                 select.compile_order, False)


@pytest.mark.parametrize("text,want", [
    ("rusage[mem=4000]", True), ("select[mem>2000] rusage[mem=4000] span[hosts=1]", True),
    ("span[ptile=2] order[r15s]", True), ("{select[mem>1000]} || {select[type==any]}", True),
    ("select[mem<10000]", False), ("{select[type==any]} || {select[mem<10000]}", False),
    ("span[ptile=2] order[mem]", False), ("span[ptile=2] rusage[mem=100/job]", False),
    ("2*{select[type==any]} + 2*{rusage[mem=100]}", False),
])
def test_which_requirements_stay_refused(text, want):
    assert placement.monotone(_req(text), CONSUMABLE) is want


class _J:
    """A job as the heap reads it (its shape's parts, and its fit: what names them, as a PendingJob's)."""

    def __init__(self, n, queue):
        self.n, self.queue, self.slots, self.req, self.place, self.limits = n, queue, 1, None, None, None
        self.fit = f"{queue}\0u\0{self.slots}"


@settings(max_examples=150, deadline=None)
@given(ranks=st.lists(st.tuples(st.integers(0, 30), st.sampled_from("abc")), min_size=1, max_size=40),
       skips=st.lists(st.tuples(st.integers(0, 40), st.sampled_from("abc")), max_size=3),
       pushes=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 30), st.sampled_from("abc")), max_size=5))
def test_shape_heap_gives_the_smallest_entry_of_a_shape_not_skipped(ranks, skips, pushes):
    """Entries come out smallest first among the shapes not skipped at that
    moment; a pushed entry joins; left() holds every entry not given out."""
    entries = [(r, i, _J(i, q)) for i, (r, q) in enumerate(ranks)]
    heap = shapes.ShapeHeap(list(entries))
    pending = set(map(id, entries))
    live = {id(e): e for e in entries}
    dead: set = set()
    out = []
    for step, entry in enumerate(heap):
        assert id(entry) in pending and shapes.shape_of(entry[-1]) not in dead
        others = [e for e in live.values() if shapes.shape_of(e[-1]) not in dead]
        assert entry == min(others, key=lambda e: e[:2])
        pending.discard(id(entry))
        del live[id(entry)]
        out.append(entry)
        for at, q in skips:
            if at == step:
                heap.skip((q, 1, None))
                dead.add((q, 1, None))
        for at, r, q in pushes:
            if at == step:
                e = (r, 1000 + len(live) + len(out), _J(-1, q))
                heap.push(e)
                if (q, 1, None) not in dead:
                    pending.add(id(e))
                    live[id(e)] = e
    assert not [e for e in live.values() if shapes.shape_of(e[-1]) not in dead]
    assert {id(e) for e in heap.left()} == set(live)


def _hosts(slots=3, mem=16384.0):
    res = hostres.HostResources("hA", ncpus=slots, maxmem=mem)
    return {"hA": D.HostInfo(name="hA", max_slots=slots, ncpus=slots, res=res, load={"r15s": 0.0},
                             avail={"mem": mem, "swp": 0.0, "tmp": 0.0})}


def _job(jid, slots=1, text=None):
    j = D.PendingJob(jid, 0, "u1", "normal", slots, 0, float(jid))
    if text is not None:
        j.require(_req(text))
    return j


def _pass(jobs, hosts):
    q = {"normal": D.QueueInfo(name="normal", priority=30, order=0, hosts=list(hosts))}
    return D.schedule_pass(D.PassInput(jobs, q, hosts, {}, {}))


def test_a_refused_shapes_later_jobs_get_the_reason_of_the_state_the_pass_ends_with():
    # 3 slots: job 1 (2 slots) starts; job 2 (2 slots) finds 1 slot; job 3
    # (2 slots) is left out; job 4 (1 slot) takes the last slot
    res = _pass([_job(1, 2), _job(2, 2), _job(3, 2), _job(4, 1)], _hosts())
    assert [j.job_id for j, _ in res.started] == [1, 4]
    assert res.reasons[(2, 0)] == ["Not enough job slot(s): 1 host"]  # as the pass reached it
    assert res.reasons[(3, 0)] == ["Job slot limit reached: 1 host"]  # as the pass ends
    # job 2's reason was decided before the last start (early); job 3's holds at the end
    assert list(res.reasons)[:res.early] == [(2, 0)]


def test_a_requirement_a_start_may_satisfy_is_not_left_out():
    # select[mem<10000] fails while 16 GB are free; once job 2 reserves 8 GB it holds
    # (left out, job 3 would start only after job 4, at the end of the pass)
    res = _pass([_job(1, 1, "select[mem<10000]"), _job(2, 1, "rusage[mem=8000]"),
                 _job(3, 1, "select[mem<10000]"), _job(4, 1, "rusage[mem=8000]")], _hosts())
    assert [j.job_id for j, _ in res.started] == [2, 3, 4]
    assert res.reasons[(1, 0)] == ["Job's resource requirements not satisfied: 1 host"]


def test_kinds_are_the_distinct_shapes_of_the_jobs_not_blocked():
    """shapes.kinds (what the pass's stuck() test reads, found by the jobs'
    fit) is the set of shape_of of the unblocked jobs: jobs of one fit share
    a shape; a job whose fit names no requirement although it has one (set
    without require()) is not taken for another of the same fit; None as
    soon as one of them is judged by more than its shape (-m), unless that
    job is blocked."""
    a, b = _job(1, 2, "rusage[mem=100]"), _job(2, 2)
    b.require(a.req)  # (one compiled requirement for the jobs that share it, as the engine gives them)
    c, g = _job(3, 2), _job(6, 2)
    e = _job(5, 2)
    e.req = _req("rusage[mem=200]")  # (its fit is c's)
    blocked = _job(7, 4)
    blocked.blocked = D.DEPEND
    jobs = [a, b, c, e, g, blocked, _job(8, 1)]
    assert shapes.kinds(jobs) == {shapes.shape_of(j) for j in jobs if j.blocked is None}
    assert len(shapes.kinds(jobs)) == 4
    d = _job(4, 2)
    d.place = hostpick.Placement(("hA",), False)
    assert shapes.kinds(jobs + [d]) is None
    d.blocked = D.DEPEND
    assert shapes.kinds(jobs + [d]) == shapes.kinds(jobs)
