"""APS_PRIORITY parsing and the ckconfig checks (lsfemu.config.aps)."""

from __future__ import annotations

import pytest

from lsfemu.config.model import Params, QueueConf
from lsfemu.config import aps as C


def test_parse_full_configuration():
    cfg = C.parse_aps_priority(
        "WEIGHT[[FS, 10000] [RSRC, 101010] [PROC, -10.01] [MEM, 1000] [SWAP, 10111] [WORK, 1] "
        "[JPRIORITY, -999999] [QPRIORITY, 10000]] LIMIT[[MEM, 20010] [JPRIORITY, 10000] [QPRIORITY, 10]] "
        "GRACE_PERIOD[[MEM, 3h] [JPRIORITY, 4131s] [RSRC, 1010]]")
    assert cfg.weights["PROC"] == -10.01 and cfg.weights["JPRIORITY"] == -999999
    assert cfg.limits == {"MEM": 20010, "JPRIORITY": 10000, "QPRIORITY": 10}
    assert cfg.grace == {"MEM": 3 * 3600, "JPRIORITY": 4131, "RSRC": 1010 * 3600}
    assert cfg.grace_text == {"MEM": "3h", "JPRIORITY": "4131s", "RSRC": "1010h"}
    assert cfg.implied == frozenset()


def test_seed_grace_example_and_spaces():
    cfg = C.parse_aps_priority("  WEIGHT [ [MEM,1] ]   GRACE_PERIOD [[MEM,10h] [JPRIORITY, 10m] [QPRIORITY,10s] [RSRC, 10]] ")
    assert cfg.grace == {"MEM": 36000, "JPRIORITY": 600, "QPRIORITY": 10, "RSRC": 36000}


def test_subfactor_weight_implies_parent_weight_one():
    cfg = C.parse_aps_priority("WEIGHT[[JPRIORITY, 1] [QPRIORITY, 10] [SWAP, -10]]")
    assert cfg.implied == {"WORK", "RSRC"}
    assert cfg.weight("WORK") == 1.0 and cfg.weight("RSRC") == 1.0 and cfg.weight("FS") is None
    cfg = C.parse_aps_priority("WEIGHT[[WORK, 5] [JPRIORITY, 1]]")
    assert cfg.implied == frozenset() and cfg.weight("WORK") == 5


def test_names_are_case_insensitive():
    cfg = C.parse_aps_priority("weight[[jpriority, 2]] limit[[Mem, 4]]")
    assert cfg.weights == {"JPRIORITY": 2.0} and cfg.limits == {"MEM": 4.0}


@pytest.mark.parametrize("text, words", [
    ("WEIGHT[[MEM, 0]]", "WEIGHT of MEM cannot be 0"),
    ("WEIGHT[[MEM, 1]] LIMIT[[MEM, 0.0]]", "LIMIT of MEM cannot be 0"),
    ("WEIGHT[[MEM, 1]] GRACE_PERIOD[[MEM, 0m]]", "GRACE_PERIOD of MEM cannot be 0"),
    ("WEIGHT[[MEM, 1]] LIMIT[[MEM, -5]]", "must be positive"),
    ("WEIGHT[[CPU, 1]]", "unknown factor CPU"),
    ("WEIGHT[[ADMIN, 1]]", "ADMIN cannot be configured"),
    ("WEIGHT[[MEM, 1] [MEM, 2]]", "MEM is given twice"),
    ("WEIGHT[[MEM, 1]] WEIGHT[[SWAP, 1]]", "WEIGHT is given twice"),
    ("LIMIT[[MEM, 1]]", "no WEIGHT"),
    ("WEIGHT[[MEM, x]]", "expected a number"),
    ("WEIGHT[[MEM, 1]] GRACE_PERIOD[[MEM, 1d]]", "seconds (s), minutes (m) or hours (h"),
    ("WEIGHT[[MEM, 1]] GRACE_PERIOD[[MEM, 1.5h]]", "positive whole number"),
    ("WEIGHT[MEM, 1]", "expected [factor, value] pairs"),
    ("WEIGHT[[MEM, 1]", "not closed"),
    ("WEIGHT[[]]", "expected [factor, value] pairs"),
    ("WEIGHT[]", "lists no factor"),
    ("PRIORITY[[MEM, 1]]", "unknown section PRIORITY"),
    ("JPRIORITY, 1", "expected WEIGHT[[factor, value] ...]"),
    ("", "empty"),
    ("WEIGHT[[MEM, inf]]", "finite"),
])
def test_refused(text, words):
    with pytest.raises(C.ApsSyntaxError) as e:
        C.parse_aps_priority(text)
    assert words in str(e.value)
    assert str(e.value).startswith("APS_PRIORITY")


def _q(name, prio=30, **kw):
    lines = kw.pop("lines", {})
    return QueueConf(name, priority=prio, lines=lines, **kw)


APS = "WEIGHT[[JPRIORITY, 1] [QPRIORITY, 10]]"
PARAMS = Params(max_user_priority=100)


def test_clean_configuration_has_no_issue():
    queues = [_q("normal", aps_priority=APS, queue_group=["short"]), _q("short", 20)]
    assert C.check_issues(queues, PARAMS) == []
    assert C.check_conflicts(queues, PARAMS) == []


def test_dispatch_order_queue_is_fatal():
    queues = [_q("normal", aps_priority=APS, extra={"DISPATCH_ORDER": "QUEUE"})]
    msgs = C.check_conflicts(queues, PARAMS)
    assert msgs == ["Queue <normal>: APS_PRIORITY cannot be used together with DISPATCH_ORDER=QUEUE; remove one of them"]
    assert C.check_issues(queues, PARAMS)[0].key == "DISPATCH_ORDER"
    # a group member with DISPATCH_ORDER=QUEUE too
    queues = [_q("normal", aps_priority=APS, queue_group=["s"]), _q("s", extra={"DISPATCH_ORDER": "queue"})]
    assert any("QUEUE_GROUP of the APS queue normal" in m for m in C.check_conflicts(queues, PARAMS))


def test_fairshare_queues_is_fatal():
    queues = [_q("normal", aps_priority=APS, lines={"FAIRSHARE_QUEUES": 7})]
    (msg,) = C.check_conflicts(queues, PARAMS)
    assert "cross-queue fairshare (FAIRSHARE_QUEUES)" in msg and "QUEUE_GROUP" in msg
    queues = [_q("normal", aps_priority=APS, queue_group=["s"]), _q("s", extra={"FAIRSHARE_QUEUES": "normal"})]
    assert any("FAIRSHARE_QUEUES cannot be used in the QUEUE_GROUP" in m for m in C.check_conflicts(queues, PARAMS))


def test_host_partition_fairshare_is_fatal():
    parts = {"part1": {"HPART_NAME": "part1", "HOSTS": "hostA hostB", "USER_SHARES": "[default, 1]"}}
    queues = [_q("normal", aps_priority=APS, hosts=["hostB"]), _q("other", aps_priority=APS, hosts=["hostC"]),
              _q("grouped", aps_priority=APS, hosts=["hg1"]), _q("all", aps_priority=APS)]
    msgs = C.check_conflicts(queues, PARAMS, host_partitions=parts, host_groups={"hg1": ["hostA"]})
    assert [m.split(":")[0] for m in msgs] == ["Queue <normal>", "Queue <grouped>", "Queue <all>"]
    assert "host-partition fairshare (host partition part1" in msgs[0]


def test_queue_level_fairshare_is_allowed_fs_without_it_warns():
    with_fs = [_q("normal", aps_priority="WEIGHT[[FS, 100]]", fairshare="USER_SHARES[[default, 1]]")]
    assert C.check_issues(with_fs, PARAMS) == []
    no_fs = [_q("normal", aps_priority="WEIGHT[[FS, 100]]")]
    (issue,) = C.check_issues(no_fs, PARAMS)
    assert not issue.fatal and "FS factor" in issue.message and "no FAIRSHARE" in issue.message
    assert C.check_conflicts(no_fs, PARAMS) == []


def test_warnings():
    issues = C.check_issues([_q("a", aps_priority="WEIGHT[[RSRC, 5] [JPRIORITY, 1]]"), _q("b", queue_group=["a"])],
                            Params())
    texts = [(i.queue, i.fatal, i.message) for i in issues]
    assert all(not fatal for _, fatal, _ in texts)
    assert any("weight of RSRC has no effect" in m for _, _, m in texts)
    assert any("needs MAX_USER_PRIORITY" in m for _, _, m in texts)
    assert any(q == "b" and "QUEUE_GROUP has no effect without APS_PRIORITY" in m for q, _, m in texts)


def test_syntax_error_and_double_membership_are_fatal():
    queues = [_q("a", aps_priority="WEIGHT[[MEM, 0]]"), _q("b", aps_priority=APS, queue_group=["s"]),
              _q("c", aps_priority=APS, queue_group=["s", "b"]), _q("s")]
    msgs = C.check_conflicts(queues, PARAMS)
    assert msgs[0] == "Queue <a>: APS_PRIORITY: WEIGHT of MEM cannot be 0"
    assert "Queue <c>: queue s is already ordered by the APS queue b" in msgs[1]
    assert "Queue <c>: queue b is already ordered by the APS queue b" in msgs[2]
    assert C.aps_groups(queues)["s"] == "b"


def test_sla_conflict_only_for_time_based_goals():
    assert C.sla_conflict(["velocity"]) is not None
    assert "throughput" in C.sla_conflict(["Throughput", "guarantee"])
    assert C.sla_conflict(["guarantee"]) is None
    assert C.sla_conflict([]) is None
