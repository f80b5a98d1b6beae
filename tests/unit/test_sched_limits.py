"""sched.limits (issue 19), pure: which limit blocks a job and with which of
LSF's texts, the slots each host may still give under HOSTS / PER_HOST, and
the usage a start adds."""

from __future__ import annotations

import pytest

from lsfemu.sched import dispatch
from lsfemu.sched.limits import Limits, Match, Rule

pytestmark = pytest.mark.slow(1)

ALL = Match(False, None)
PER = Match(True, None)


def only(*names, per=False):
    return Match(per, frozenset(names))


def test_cluster_wide_mem_applies_only_to_jobs_that_reserve_mem():
    lim = Limits([Rule(0, "mem_limit1", {}, caps={"mem": 4.0})])
    assert lim.demand("u", "normal", "default", None, 1, {}) is not None  # covered, reserves nothing
    assert lim.blocked(lim.demand("u", "normal", "default", None, 1, {})) is None
    five = lim.demand("u", "normal", "default", None, 1, {"mem": 5.0})
    assert lim.blocked(five) == "Resource (mem) limit defined cluster-wide has been reached"
    three = lim.demand("u", "normal", "default", None, 1, {"mem": 3.0})
    assert lim.blocked(three) is None
    lim.hold(three, ["hostA"])
    assert lim.blocked(three) == "Resource (mem) limit defined cluster-wide has been reached"


def test_per_user_slots_and_jobs_texts_and_exclusions():
    lim = Limits([Rule(0, "u", {"users": Match(True, None, frozenset({"root"}))}, slots=2),
                  Rule(1, "q", {"queues": only("short")}, jobs=1)])
    a = lim.demand("user1", "normal", "default", None, 2, {})
    lim.hold(a, ["hostA", "hostA"])
    assert lim.blocked(lim.demand("user1", "normal", "default", None, 1, {})) == \
        "Resource (slot) limit defined on user or user group has been reached"
    assert lim.blocked(lim.demand("user2", "normal", "default", None, 2, {})) is None  # each user apart
    assert lim.demand("root", "normal", "default", None, 1, {}) is None  # ~root: not covered
    s = lim.demand("user2", "short", "default", None, 1, {})
    lim.hold(s, ["hostB"])
    assert lim.blocked(lim.demand("user3", "short", "default", None, 1, {})) == \
        "JOBS limit defined for the queue has been reached"


def test_project_limit_changes_the_refusal_key():
    lim = Limits([Rule(0, "p", {"projects": only("proj1")}, slots=1)])
    p1 = lim.demand("u", "normal", "proj1", None, 1, {})
    other = lim.demand("u", "normal", "proj2", None, 1, {})
    assert other is None and p1.fit("normal\0u\x001") != "normal\0u\x001"
    assert p1.fit(p1.fit("normal\0u\x001")) == p1.fit("normal\0u\x001")
    lim.hold(p1, ["hostA"])
    assert lim.blocked(p1) == "Resource (slot) limit defined on project has been reached"


def test_per_host_and_shared_host_caps():
    lim = Limits([Rule(0, "ph", {}, hosts=PER, slots=1), Rule(1, "ab", {}, hosts=only("hostA", "hostB"), slots=3)])
    d = lim.demand("u", "normal", "default", None, 4, {})
    notes = []
    assert lim.cap(d, [("hostA", 4), ("hostB", 4), ("hostC", 4)], notes.append) == [
        ("hostA", 1), ("hostB", 1), ("hostC", 1)]
    lim2 = Limits([Rule(0, "ab", {}, hosts=only("hostA", "hostB"), slots=3)])
    d2 = lim2.demand("u", "normal", "default", None, 4, {})
    lim2.hold(lim2.demand("u", "normal", "default", None, 1, {}), ["hostB"])
    # hostA and hostB together: 2 left, taken on hostA first; hostB has none left
    assert lim2.cap(d2, [("hostA", 4), ("hostB", 4), ("hostC", 4)], notes.append) == [("hostA", 2), ("hostC", 4)]
    assert notes == ["Resource (slot) limit defined on host and/or host group has been reached"]


def test_slots_per_processor_and_per_host_mem():
    lim = Limits([Rule(0, "spp", {}, hosts=PER, slots_per_processor=2),
                  Rule(1, "m", {}, hosts=only("hostA", per=True), caps={"mem": 100.0})])
    lim.ncpus = {"hostA": 2, "hostB": 1}
    d = lim.demand("u", "normal", "default", None, 4, {"mem": 120.0})  # 30 MB a slot
    assert lim.cap(d, [("hostA", 8), ("hostB", 8)], print) == [("hostA", 3), ("hostB", 2)]
    lim.hold(d, ["hostA"] * 3 + ["hostB"])
    notes = []
    assert lim.cap(d, [("hostA", 8), ("hostB", 8)], notes.append) == [("hostB", 1)]
    assert notes == ["Resource (mem) limit defined on host and/or host group has been reached"]


def test_the_pass_keeps_limits_across_starts_and_names_hosts():
    """Through dispatch.schedule_pass: three jobs of one user under PER_HOST
    SLOTS=1 on two hosts: two start (one a host), the third gets the host
    text with its host count."""
    lim = Limits([Rule(0, "ph", {"users": only("u")}, hosts=PER, slots=1)])
    hosts = {h: dispatch.HostInfo(h, 4) for h in ("hostA", "hostB")}
    q = {"normal": dispatch.QueueInfo("normal", 30, 0, hosts=["hostA", "hostB"])}
    jobs = [dispatch.PendingJob(i, 0, "u", "normal", 1, 0, float(i)) for i in (1, 2, 3)]
    for j in jobs:
        j.limits = lim.demand("u", "normal", "default", None, 1, {})
        j.fit = j.limits.fit(j.fit)
    inp = dispatch.PassInput(jobs, q, hosts, {}, {}, limits=lim)
    res = dispatch.schedule_pass(inp)
    assert [(pj.job_id, alloc) for pj, alloc in res.started] == [(1, ["hostA"]), (2, ["hostB"])]
    assert res.reasons[(3, 0)] == ["Resource (slot) limit defined on host and/or host group has been reached: 2 hosts"]


def test_the_quiet_pass_state_key_holds_the_usage():
    """Hosts and queues as before but a limit's usage changed (a job of
    another project in the slot): the quiet pass may not reuse the reasons."""
    from lsfemu.engine.passes import Passes

    lim = Limits([Rule(0, "p", {"projects": only("proj1")}, jobs=1)])
    inp = dispatch.PassInput([], {}, {"hostA": dispatch.HostInfo("hostA", 1)}, {}, {}, limits=lim)
    before = Passes.state_key(inp)
    lim.hold(lim.demand("u", "normal", "proj1", None, 1, {}), ["hostA"])
    assert Passes.state_key(inp) != before
