"""Resource-aware placement in the pure pass (issue 19): the issue's examples
on a 3 hosts x 4 slots x 16 GB cluster, reservations, span, same, compound
requirements and alternatives, and the property that a pass never gives a
host more slots or more reserved memory than it has."""

from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.sched import dispatch as D
from lsfemu.sched import hostres
from lsfemu.sched import placement as P
from lsfemu.sched import resreq

GB16 = 16384.0


def _hosts(n=3, slots=4, mem=GB16, **extra):
    out = {}
    for i in range(n):
        name = "host" + "ABCDEFGH"[i]
        res = hostres.HostResources(name, ncpus=slots, maxmem=mem, maxswp=4096.0, maxtmp=10240.0,
                                    booleans=frozenset(extra.get(name, ())))
        out[name] = D.HostInfo(name=name, max_slots=slots, ncpus=slots, res=res,
                               load={"r15s": 0.0}, avail={"mem": mem, "swp": 4096.0, "tmp": 10240.0})
    return out


def _sel(text):
    """A select[] for these tests: `name op value` terms joined by &&, or a
    bare boolean name (the real compiler is sched.select's; placement only
    calls it)."""
    if not text:
        return None
    terms = [t.strip() for t in text.split("&&")]

    def one(t, ns):
        for op in ("==", "!=", ">=", "<=", ">", "<"):
            if op in t:
                k, v = (x.strip() for x in t.split(op))
                have = ns.get(k)
                if have is None:
                    return False
                if op in ("==", "!="):
                    return (str(have) == v) == (op == "==")
                v = float(v)
                return {"<": have < v, "<=": have <= v, ">": have > v, ">=": have >= v}[op]
        return bool(ns.get(t))
    return lambda ns: all(one(t, ns) for t in terms)


def _order(text):
    keys = [k for k in text.split(":")]
    return lambda ns: tuple((ns[k[1:]] if k.startswith("-") else -ns[k]) for k in keys)


def _req(text, per_slot=False):
    return P.compile_req(text, resreq.parse(text), _sel, _order, per_slot)


def _job(jid, text=None, slots=1, queue="normal", user="u1", per_slot=False):
    j = D.PendingJob(jid, 0, user, queue, slots, 0, float(jid))
    if text is not None:
        j.require(_req(text, per_slot))
    return j


def _pass(jobs, hosts):
    q = {"normal": D.QueueInfo(name="normal", priority=30, order=0, hosts=list(hosts))}
    inp = D.PassInput(jobs, q, hosts, {}, {})
    return D.schedule_pass(inp), inp


def test_ptile_1_spreads_over_three_hosts():
    res, _ = _pass([_job(1, "span[ptile=1]", slots=3)], _hosts())
    assert res.started[0][1] == ["hostA", "hostB", "hostC"]


def test_ptile_takes_whole_tiles_and_the_remainder_last():
    hosts = _hosts()
    hosts["hostA"].used = 1  # 3 free: less than a tile of 4
    res, _ = _pass([_job(1, "span[ptile=4]", slots=6)], hosts)
    assert res.started[0][1] == ["hostB"] * 4 + ["hostC"] * 2


def test_ptile_bang_is_the_hosts_ncpus():
    res, _ = _pass([_job(1, "span[ptile='!']", slots=8)], _hosts())
    assert res.started[0][1] == ["hostA"] * 4 + ["hostB"] * 4


def test_rusage_larger_than_any_host_pends_with_the_reservation_reason():
    res, _ = _pass([_job(1, "rusage[mem=20000]")], _hosts())
    assert not res.started
    assert res.reasons[(1, 0)] == ["Job's requirements for reserving resource (mem) not satisfied: 3 hosts"]


def test_select_nothing_satisfies_pends_with_lsf_reason():
    res, _ = _pass([_job(1, "select[mem>999999]")], _hosts())
    assert res.reasons[(1, 0)] == ["Job's resource requirements not satisfied: 3 hosts"]


def test_select_hname_runs_on_that_host():
    res, _ = _pass([_job(1, "select[hname==hostC]")], _hosts())
    assert res.started[0][1] == ["hostC"]


def test_span_hosts_1_never_splits():
    res, _ = _pass([_job(1, "span[hosts=1]", slots=6)], _hosts())
    assert not res.started
    assert res.reasons[(1, 0)] == ["Not enough processors to meet the job's spanning requirement: 3 hosts"]
    res, _ = _pass([_job(1, "span[hosts=1]", slots=3)], _hosts())
    assert res.started[0][1] == ["hostA"] * 3


def test_reservations_add_up_within_a_pass_and_the_next_job_goes_elsewhere():
    res, inp = _pass([_job(1, "rusage[mem=10000]"), _job(2, "rusage[mem=10000]"), _job(3, "rusage[mem=10000]"),
                      _job(4, "rusage[mem=10000]")], _hosts())
    assert [a for _, a in res.started] == [["hostA"], ["hostB"], ["hostC"]]
    assert res.reasons[(4, 0)] == ["Job's requirements for reserving resource (mem) not satisfied: 3 hosts"]
    assert inp.hosts["hostA"].avail["mem"] == GB16 - 10000


def test_select_reads_memory_left_after_reservations():
    res, _ = _pass([_job(1, "rusage[mem=10000]"), _job(2, "select[mem>8000]", slots=1)], _hosts(n=1))
    assert [j.job_id for j, _ in res.started] == [1]
    assert res.reasons[(2, 0)] == ["Job's resource requirements not satisfied: 1 host"]


def test_per_host_by_default_per_slot_when_configured_or_task():
    # RESOURCE_RESERVE_PER_SLOT=N: 4 slots on one host reserve the amount once
    res, inp = _pass([_job(1, "rusage[mem=5000] span[hosts=1]", slots=4)], _hosts(n=1))
    assert res.started and inp.hosts["hostA"].avail["mem"] == GB16 - 5000
    # =Y (or /task): each slot reserves it, so 4 x 5000 does not fit in 16 GB
    res, _ = _pass([_job(1, "rusage[mem=5000] span[hosts=1]", slots=4, per_slot=True)], _hosts(n=1))
    assert not res.started
    res, inp = _pass([_job(1, "rusage[mem=4000/task]", slots=4)], _hosts(n=1))
    assert inp.hosts["hostA"].avail["mem"] == GB16 - 16000
    # per slot, the host gives as many slots as the memory holds; the rest goes elsewhere
    res, _ = _pass([_job(1, "rusage[mem=6000/task]", slots=4)], _hosts())
    assert res.started[0][1] == ["hostA", "hostA", "hostB", "hostB"]


def test_per_job_amount_is_held_once_on_the_first_host():
    res, inp = _pass([_job(1, "rusage[mem=12000/job]", slots=8)], _hosts())
    assert res.started[0][1] == ["hostA"] * 4 + ["hostB"] * 4
    assert inp.hosts["hostA"].avail["mem"] == GB16 - 12000 and inp.hosts["hostB"].avail["mem"] == GB16


def test_order_takes_the_best_host_first():
    hosts = _hosts()
    hosts["hostA"].avail["mem"] = 1000.0
    hosts["hostC"].avail["mem"] = 9000.0
    res, _ = _pass([_job(1, "order[mem]", slots=2)], hosts)
    assert res.started[0][1] == ["hostB", "hostB"]


def test_same_keeps_all_hosts_on_one_value():
    hosts = _hosts(hostA=("x",), hostC=("x",))
    for h in hosts.values():
        h.res = hostres.HostResources(h.name, model="M1" if h.name != "hostB" else "M2", ncpus=4, maxmem=GB16)
        h._view = None
    hosts["hostA"].used = 2
    res, _ = _pass([_job(1, "same[model]", slots=6)], hosts)
    assert sorted(set(res.started[0][1])) == ["hostA", "hostC"]


def test_compound_places_each_term_with_its_own_select():
    res, _ = _pass([_job(1, "1*{select[hname==hostC]} + 2*{select[hname!=hostC] span[ptile=1]}", slots=3)],
                   _hosts())
    assert res.started[0][1] == ["hostC", "hostA", "hostB"]


def test_alternatives_fall_through_to_the_next_and_remember_which():
    job = _job(1, "{select[bigmem] rusage[mem=1000]} || {select[hname==hostB]}")
    res, inp = _pass([job], _hosts())
    assert res.started[0][1] == ["hostB"] and job.alternative == 1
    assert inp.hosts["hostB"].avail["mem"] == GB16  # the second alternative reserves nothing
    job = _job(2, "{select[bigmem] rusage[mem=1000]} || {select[hname==hostB]}")
    res, inp = _pass([job], _hosts(hostC=("bigmem",)))
    assert res.started[0][1] == ["hostC"] and job.alternative == 0
    assert inp.hosts["hostC"].avail["mem"] == GB16 - 1000


def test_reservation_phases_duration_and_decay():
    r = P.Rsv("mem", (500.0, 200.0), "host", (10.0, 20.0), (0, 1))
    assert [r.at(m) for m in (0, 9.9, 10, 20, 30, 31)] == [500.0, 500.0, 200.0, 100.0, 0.0, 0.0]
    assert P.Rsv("mem", (300.0,), "host", (), ()).at(1e6) == 300.0  # no duration: until the job ends


def test_requirements_share_refusals_per_requirement_not_across():
    # two jobs of one user and queue with different requirements: the first's
    # refusal must not be given to the second
    res, _ = _pass([_job(1, "select[mem>999999]"), _job(2, "select[hname==hostB]")], _hosts())
    assert [a for _, a in res.started] == [["hostB"]]


def test_unsupported_sections_are_named():
    assert P.unsupported(resreq.parse("cu[maxcus=1]")) == "cu[]"
    assert P.unsupported(resreq.parse("span[block=2]")) == "span[block]"
    assert P.unsupported(resreq.parse("select[mem>1] span[ptile=2]")) is None


_REQS = ["", "span[hosts=1]", "span[ptile=2]", "span[ptile=1]", "rusage[mem=3000]", "rusage[mem=2000/task]",
         "rusage[mem=5000/job]", "select[mem>6000] rusage[mem=6000]", "rusage[mem=1500] span[ptile=3]",
         "{rusage[mem=9000]} || {span[hosts=1]}", "1*{rusage[mem=4000]} + 2*{span[ptile=1]}"]


@settings(max_examples=60, deadline=None)
@given(hosts=st.lists(st.tuples(st.integers(1, 6), st.sampled_from([2000.0, 8000.0, GB16])), min_size=1, max_size=4),
       jobs=st.lists(st.tuples(st.integers(1, 6), st.sampled_from(_REQS), st.booleans()), min_size=1, max_size=12))
def test_a_pass_never_overcommits_slots_or_reserved_memory(hosts, jobs):
    hinfo = {}
    for i, (slots, mem) in enumerate(hosts):
        name = f"h{i}"
        hinfo[name] = D.HostInfo(name=name, max_slots=slots, ncpus=slots,
                                 res=hostres.HostResources(name, ncpus=slots, maxmem=mem),
                                 avail={"mem": mem})
    pjobs = []
    for k, (slots, text, per_slot) in enumerate(jobs):
        if text.startswith("1*"):
            slots = 3
        pjobs.append(_job(k + 1, text or None, slots=slots, per_slot=per_slot))
    res, _ = _pass(pjobs, hinfo)
    used: dict[str, int] = {}
    held: dict[str, float] = {}
    for job, alloc in res.started:
        assert len(alloc) == job.slots
        for h in alloc:
            used[h] = used.get(h, 0) + 1
        if job.req is not None:
            for h, amounts in P.reservation(job.req, job.alternative, alloc, job.slots).items():
                held[h] = held.get(h, 0.0) + amounts.get("mem", 0.0)
            terms = job.req.alternatives[job.alternative]
            if len(terms) == 1 and terms[0].one_host:
                assert len(set(alloc)) == 1
            if len(terms) == 1 and terms[0].ptile:
                assert all(alloc.count(h) <= terms[0].ptile for h in alloc)
    for name, h in hinfo.items():
        assert used.get(name, 0) <= h.max_slots
        assert held.get(name, 0.0) <= h.res.maxmem + 1e-6
        assert abs(h.avail["mem"] - (h.res.maxmem - held.get(name, 0.0))) < 1e-6
