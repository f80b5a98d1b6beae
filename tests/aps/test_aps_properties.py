"""Properties: the parsers return or raise their documented error only; limits always
bound the weighted factor; system values outrank every calculated value."""

from __future__ import annotations

import math

from hypothesis import given, settings, strategies as st

from lsfemu.config import aps as C
from lsfemu.sched import aps as A
from lsfemu.sched import aps_rank as AR
from lsfemu.sched import priority as P
from lsfemu.sched.resreq import ResReqError, rusage_amounts

import pytest

pytestmark = pytest.mark.slow(17)  # seconds, quiet machine: scheduled early (tests/conftest.py)

FAST = settings(max_examples=150, deadline=None)
ALPHABET = "WEIGHTLIMGRACE_PODFSMJQXYZwght[], :=0123456789.-+shm{}|*/()rusagemswp"
any_text = st.one_of(st.text(max_size=80), st.text(alphabet=ALPHABET, max_size=80))

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
nonzero = finite.filter(lambda x: abs(x) >= 1e-3)
positive = st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


@FAST
@given(any_text)
def test_parse_aps_priority_total(text):
    try:
        cfg = C.parse_aps_priority(text)
    except C.ApsSyntaxError as e:
        assert str(e)
    else:
        assert all(v != 0 for v in cfg.weights.values())
        assert all(v > 0 for v in cfg.limits.values()) and all(v > 0 for v in cfg.grace.values())


@FAST
@given(any_text)
def test_parse_aps_mod_total(text):
    try:
        kind, value = A.parse_aps_mod(text)
    except C.ApsSyntaxError as e:
        assert str(e) and not str(e).endswith(".")
    else:
        assert kind in ("system", "admin") and value != 0


@FAST
@given(any_text, st.integers(1, 64), st.booleans())
def test_rusage_amounts_total(text, slots, per_slot):
    try:
        out = rusage_amounts(text, slots, per_slot)
    except ResReqError as e:
        assert e.lsf_message == "Bad resource requirement syntax"
    else:
        assert isinstance(out, dict)


@FAST
@given(st.text(max_size=20), st.one_of(st.none(), st.integers(1, 1000)), st.booleans())
def test_check_user_priority_total(text, mup, admin):
    try:
        v = P.check_user_priority(text, mup, admin)
    except P.PriorityError as e:
        assert e.lsf_message in ("Bad user priority", "Job priority control undefined")
    else:
        assert 1 <= v <= P.INT_MAX and (admin or v <= mup)


factors = st.sampled_from(C.ALL_FACTORS)


@st.composite
def configs(draw):
    weights = draw(st.dictionaries(factors, nonzero, min_size=1))
    limits = draw(st.dictionaries(factors, positive))
    grace = draw(st.dictionaries(factors, st.integers(1, 5000)))
    text = "WEIGHT[" + " ".join(f"[{k}, {v!r}]" for k, v in weights.items()) + "]"
    if limits:
        text += " LIMIT[" + " ".join(f"[{k}, {v!r}]" for k, v in limits.items()) + "]"
    if grace:
        text += " GRACE_PERIOD[" + " ".join(f"[{k}, {v}s]" for k, v in grace.items()) + "]"
    return C.parse_aps_priority(text)


jobs = st.builds(
    AR.ApsJobInput,
    pend_seconds=st.integers(0, 10000),
    proc=st.integers(1, 1024),
    mem_mb=st.floats(0, 1e12),
    swap_mb=st.floats(0, 1e12),
    job_priority=st.integers(0, P.INT_MAX),
    queue_priority=st.integers(0, 1000),
    fs_priority=st.one_of(st.none(), finite),
    admin_value=st.one_of(st.none(), nonzero),
)


@FAST
@given(configs(), jobs)
def test_limits_bound_every_weighted_factor(cfg, job):
    r = AR.aps_value(cfg, job)
    for t in r.terms:
        if t.limit is not None:
            assert abs(t.limited) <= t.limit
        if t.in_grace:
            assert t.contributes == 0
        if t.limit is None:
            assert t.limited == t.weighted
    top = sum(t.contributes for t in r.terms if t.parent is None)
    assert abs(r.value - top) <= 1e-6 * max(1.0, abs(top))


@FAST
@given(configs(), jobs, nonzero, st.lists(st.tuples(jobs, st.integers(0, 10**6)), max_size=6))
def test_system_values_rank_above_calculated(cfg, job, system, others):
    from lsfemu.config.model import QueueConf

    queues = [QueueConf("q", priority=1, aps_priority=cfg.text)]
    listed = [A.ListedJob(0, "q", 10**7, result=AR.aps_value(cfg, AR.ApsJobInput(
        pend_seconds=job.pend_seconds, system_value=system)))]
    listed += [A.ListedJob(i + 1, "q", pos, result=AR.aps_value(cfg, j)) for i, (j, pos) in enumerate(others)]
    assert A.order(listed, queues)[0].job_id == 0


# round6: the pass's rounding of APS values, held to round(v, 6) over every
# finite float and, above all, the values next to a 6-decimal tie (k + 1/2)
# 10**-6, where the fast path must step aside.
near_tie = st.builds(lambda k, ulps: math.nextafter((k + 0.5) / 1e6, math.inf if ulps > 0 else -math.inf)
                     if ulps else (k + 0.5) / 1e6,
                     st.integers(min_value=-10**13, max_value=10**13), st.integers(min_value=-1, max_value=1))


@settings(max_examples=2000, deadline=None)
@given(st.one_of(st.floats(allow_nan=False, allow_infinity=False), near_tie,
                 st.floats(min_value=-2e6, max_value=2e6), st.integers(-10**12, 10**12).map(lambda n: n / 1e6)))
def test_round6_is_round_to_six_decimals(v):
    assert AR.round6(v) == round(v, 6)


def test_round6_at_ties_and_bounds():
    for v in (0.0000005, -0.0000005, 0.0000015, 2.5e-6, 1234.5678905, 999999.9999995, 1e6, -1e6, 1e12, 1e308,
              -1e308, 5e-324, 0.1 + 0.2, 1 / 3):
        assert AR.round6(v) == round(v, 6), v
