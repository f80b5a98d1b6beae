"""APS values: the seed's formulas, limits, grace periods, weights, admin/system values
and bmod -aps (lsfemu.sched.aps)."""

from __future__ import annotations

import pytest

from lsfemu.config import aps as C
from lsfemu.sched import aps as A
from lsfemu.sched import aps_rank as AR

J = AR.ApsJobInput


def _term(result, factor):
    return next(t for t in result.terms if t.factor == factor)


def test_seed_example_formula():
    cfg = C.parse_aps_priority("WEIGHT [[JPRIORITY, 1] [QPRIORITY, 10]]")
    r = AR.aps_value(cfg, J(pend_seconds=60, job_priority=50, queue_priority=30))
    assert r.value == 1 * (1 * 50 + 10 * 30)
    assert [t.factor for t in r.terms] == ["WORK", "JPRIORITY", "QPRIORITY"]
    assert _term(r, "WORK").weight == 1.0 and "implied" in _term(r, "WORK").note


def test_seed_example_2_and_3_with_fairshare_and_negative_swap_weight():
    cfg = C.parse_aps_priority("WEIGHT [[JPRIORITY, 1] [QPRIORITY, 10] [FS, 100] [SWAP, -10]]")
    job = J(pend_seconds=60, job_priority=50, queue_priority=30, fs_priority=3.5, swap_mb=20)
    r = AR.aps_value(cfg, job)
    assert r.value == pytest.approx(1 * (1 * 50 + 10 * 30) + 100 * 3.5 + 1 * (-10 * 20))
    assert _term(r, "SWAP").contributes == -200
    # FS is ignored for a queue without FAIRSHARE
    r2 = AR.aps_value(cfg, J(pend_seconds=60, job_priority=50, queue_priority=30, swap_mb=20))
    assert r2.value == pytest.approx(350 - 200)
    assert _term(r2, "FS").contributes == 0 and "FAIRSHARE" in _term(r2, "FS").note


def test_undefined_factors_are_ignored_and_explicit_parent_weight_multiplies():
    cfg = C.parse_aps_priority("WEIGHT[[RSRC, 2] [MEM, 0.5] [PROC, 3]]")
    r = AR.aps_value(cfg, J(pend_seconds=0, proc=4, mem_mb=1000, swap_mb=99, job_priority=7, queue_priority=9))
    assert r.value == 2 * (0.5 * 1000 + 3 * 4)
    assert {t.factor for t in r.terms} == {"RSRC", "PROC", "MEM"}


def test_limit_clamps_the_absolute_value_of_the_weighted_factor():
    cfg = C.parse_aps_priority("WEIGHT[[MEM, 10] [JPRIORITY, -999999]] LIMIT[[MEM, 500] [JPRIORITY, 10000]]")
    r = AR.aps_value(cfg, J(pend_seconds=0, mem_mb=1000, job_priority=50))
    assert _term(r, "MEM").weighted == 10000 and _term(r, "MEM").limited == 500
    assert _term(r, "JPRIORITY").limited == -10000
    assert r.value == 500 - 10000
    # a top factor's limit bounds the weighted sum of its subfactors
    cfg2 = C.parse_aps_priority("WEIGHT[[WORK, 3] [JPRIORITY, 1] [QPRIORITY, 1]] LIMIT[[WORK, 100]]")
    assert AR.aps_value(cfg2, J(pend_seconds=0, job_priority=60, queue_priority=40)).value == 100
    assert AR.aps_value(cfg2, J(pend_seconds=0, job_priority=10, queue_priority=10)).value == 60


def test_grace_period_boundary():
    cfg = C.parse_aps_priority("WEIGHT[[MEM, 1] [QPRIORITY, 10]] GRACE_PERIOD[[MEM, 10m] [WORK, 1]]")
    base = dict(mem_mb=100, queue_priority=20)
    r = AR.aps_value(cfg, J(pend_seconds=599, **base))
    assert r.value == 0 and _term(r, "MEM").in_grace and _term(r, "WORK").in_grace
    r = AR.aps_value(cfg, J(pend_seconds=600, **base))
    assert r.value == 100 and not _term(r, "MEM").in_grace
    r = AR.aps_value(cfg, J(pend_seconds=3599, **base))
    assert r.value == 100
    r = AR.aps_value(cfg, J(pend_seconds=3600, **base))  # "1" = 1 hour
    assert r.value == 300


def test_admin_value_is_added_and_system_value_replaces_the_calculation():
    cfg = C.parse_aps_priority("WEIGHT[[QPRIORITY, 10]]")
    r = AR.aps_value(cfg, J(pend_seconds=0, queue_priority=20, admin_value=-5.5))
    assert r.value == 194.5 and r.terms[-1].factor == "ADMIN"
    r = AR.aps_value(cfg, J(pend_seconds=0, queue_priority=20, system_value=10))
    assert r.value is None and r.system == 10 and r.calculated == 200


def test_proc_value():
    assert A.proc_value(2, 8) == 8
    assert A.proc_value(4) == 4
    assert A.proc_value(None, None, "2 4 8") == 4
    assert A.proc_value(None, None, "2 8") == 2
    assert A.proc_value(None, None, "8") == 1
    assert A.proc_value(None) == 1
    assert A.proc_value(3, None, "2 4 8") == 3


@pytest.mark.parametrize("text, want", [
    ("system=10", ("system", 10.0)), ("admin=10.00", ("admin", 10.0)), (" admin = -3 ", ("admin", -3.0)),
    ("SYSTEM=2.5", ("system", 2.5)),
])
def test_parse_aps_mod(text, want):
    assert A.parse_aps_mod(text) == want


@pytest.mark.parametrize("text", ["system=0", "admin=0.0", "admin=", "foo=1", "system", "", "system=abc",
                                  "system=10 admin=5", "admin=inf", "system=nan", "=5"])
def test_parse_aps_mod_refuses(text):
    with pytest.raises(C.ApsSyntaxError) as e:
        A.parse_aps_mod(text)
    msg = str(e.value)
    assert ("cannot be 0" in msg or 'expected "system=value" or "admin=value"' in msg) and not msg.endswith(".")
