"""The scheduling pass with job arrays and dependencies: the %N running-element
limit and jobs blocked by a dependency condition (lsfemu.sched.dispatch)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.sched import dispatch as D


def _inp(jobs, slots=12, started=None):
    queues = {"normal": D.QueueInfo(name="normal", priority=30, order=0, hosts=["hA", "hB", "hC"])}
    hosts = {h: D.HostInfo(name=h, max_slots=slots // 3) for h in ("hA", "hB", "hC")}
    return D.PassInput(jobs, queues, hosts, {}, {}, dict(started or {}))


def _el(jid, idx, limit=None, blocked=None, pos=None):
    return D.PendingJob(jid, idx, "u1", "normal", 1, 0, float(pos if pos is not None else jid * 1000 + idx),
                        blocked=blocked, array_limit=limit)


def test_limit_counts_elements_already_started():
    jobs = [_el(7, i, limit=3) for i in range(1, 6)]
    res = D.schedule_pass(_inp(jobs, started={7: 2}))
    assert [(j.job_id, j.array_index) for j, _ in res.started] == [(7, 1)]
    assert res.reasons[(7, 2)] == [D.ARRAY_LIMIT]


def test_blocked_jobs_keep_their_reason_and_free_the_slots():
    jobs = [_el(1, 0, blocked=D.DEPEND), _el(2, 0, blocked=D.DEPEND_NEVER), _el(3, 0)]
    res = D.schedule_pass(_inp(jobs, slots=3))
    assert [j.job_id for j, _ in res.started] == [3]
    assert res.reasons == {(1, 0): ["Job dependency condition not satisfied"],
                           (2, 0): ["Dependency condition invalid or never satisfied"]}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.integers(1, 20), st.booleans()), max_size=40),
       st.dictionaries(st.integers(1, 4), st.integers(1, 6)), st.dictionaries(st.integers(1, 4), st.integers(0, 6)),
       st.integers(3, 30))
def test_never_more_started_elements_than_the_limit(elements, limits, already, slots):
    seen, jobs = set(), []
    for jid, idx, blocked in elements:
        if (jid, idx) not in seen:
            seen.add((jid, idx))
            jobs.append(_el(jid, idx, limit=limits.get(jid), blocked=D.DEPEND if blocked else None))
    res = D.schedule_pass(_inp(jobs, slots=slots - slots % 3, started=already))
    started_by = {}
    for j, _ in res.started:
        assert j.blocked is None
        started_by[j.job_id] = started_by.get(j.job_id, 0) + 1
    for jid, n in started_by.items():
        if jid in limits:
            assert already.get(jid, 0) + n <= limits[jid]
    for j in jobs:  # everything left pending says why
        if not any(j is s for s, _ in res.started):
            assert res.reasons[(j.job_id, j.array_index)]
