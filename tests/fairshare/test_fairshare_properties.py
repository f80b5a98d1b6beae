"""Hypothesis properties of the formula, decay, parsing and trees."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lsfemu.render.fairshare import user_shares_line
from lsfemu.config.fairshare import ShareSyntaxError, parse_user_shares
from lsfemu.sched.fairshare import Factors, FairshareState, Usage, build_tree, dynamic_priority, job_usage

pytestmark = pytest.mark.slow(37)  # seconds, quiet machine: scheduled early (tests/conftest.py)

H = 3600.0
nonneg = st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False)
small = st.floats(min_value=0, max_value=100, allow_nan=False, allow_infinity=False)
shares_st = st.floats(min_value=0.001, max_value=1e6, allow_nan=False)

usages = st.builds(
    Usage, cpu_time=nonneg, hist_run_time=nonneg, run_time=nonneg, committed_run_time=nonneg, job_slots=nonneg,
    reserved_slots=nonneg, fwd_job_slots=nonneg, gpu_run_time=nonneg, hist_gpu_run_time=nonneg,
    ngpus_physical=nonneg, adjustment=st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
)
factors_st = st.builds(
    Factors, cpu_time_factor=small, run_time_factor=small, run_job_factor=small, committed_run_time_factor=small,
    fairshare_adjustment_factor=small, fwd_job_factor=st.none() | small, gpu_run_time_factor=small,
    hist_hours=small, enable_hist_run_time=st.booleans(), run_time_decay=st.booleans(),
    enable_gpu_hist_run_time=st.booleans(),
)
FIELDS = ["cpu_time", "hist_run_time", "run_time", "committed_run_time", "job_slots", "reserved_slots",
          "fwd_job_slots", "gpu_run_time", "hist_gpu_run_time", "ngpus_physical", "adjustment"]


@settings(max_examples=300, deadline=None)
@given(shares_st, usages, factors_st)
def test_priority_never_above_100_times_shares(shares, usage, factors):
    p = dynamic_priority(shares, usage, factors)
    assert 0 <= p <= 100 * shares * (1 + 1e-12)


@settings(max_examples=400, deadline=None)
@given(shares_st, usages.map(lambda u: replace(u, adjustment=abs(u.adjustment))), factors_st,
       st.sampled_from(FIELDS), st.floats(min_value=0, max_value=1e4, allow_nan=False))
def test_priority_never_increases_as_usage_grows(shares, usage, factors, name, more):
    if name == "run_time":
        # more run time also eats the commitment: (committed - run) x CRTF shrinks while run x RTF grows
        assume(factors.committed_run_time_factor <= factors.run_time_factor)
    bigger = replace(usage, **{name: getattr(usage, name) + more})
    assert dynamic_priority(shares, bigger, factors) <= dynamic_priority(shares, usage, factors) * (1 + 1e-9)


@settings(max_examples=200, deadline=None)
@given(shares_st, st.floats(min_value=0.01, max_value=50), st.floats(min_value=0, max_value=1e4),
       st.floats(min_value=0.5, max_value=24), st.lists(st.floats(min_value=0, max_value=200), min_size=2,
                                                         max_size=6), st.booleans())
def test_decay_rises_monotonically_toward_no_usage_value(shares, ran_h, cpu_s, hist_hours, waits, hist_on):
    f = Factors(hist_hours=hist_hours, enable_hist_run_time=hist_on)
    idle = dynamic_priority(shares, Usage(), f)
    prios = [dynamic_priority(shares, job_usage(slots=1, start_s=0, end_s=ran_h * H, now_s=ran_h * H + w * H,
                                                cpu_s=cpu_s, factors=f), f) for w in sorted(waits)]
    assert all(a <= b * (1 + 1e-9) for a, b in zip(prios, prios[1:]))
    assert all(p <= idle * (1 + 1e-9) for p in prios)
    far = dynamic_priority(shares, job_usage(slots=1, start_s=0, end_s=ran_h * H, now_s=ran_h * H + 400 * hist_hours * H,
                                             cpu_s=cpu_s, factors=f), f)
    assert far == pytest.approx(idle, rel=1e-6)


@settings(max_examples=250, deadline=None)
@given(st.text(max_size=80) | st.from_regex(r"(USER_SHARES)?\s*\[?\s*(\[\s*[a-z@]{0,4}\s*,?\s*-?[0-9.]{0,4}\s*\]?\s*){0,3}\]?",
                                             fullmatch=True))
def test_parse_returns_or_raises_share_syntax_error_only(text):
    try:
        out = parse_user_shares(text)
    except ShareSyntaxError as e:
        assert str(e).startswith("USER_SHARES:")
    else:
        assert all(isinstance(n, str) and n and s > 0 for n, s in out)


names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,10}@?", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(names, st.integers(1, 10**6), min_size=1, max_size=8))
def test_rendered_user_shares_parse_back(entries):
    items = list(entries.items())
    line = user_shares_line(items)
    assert parse_user_shares("USER_SHARES[" + line.removeprefix("USER_SHARES:  ") + "]") == \
        [(n, float(s)) for n, s in items]


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.from_regex(r"u[0-9]{1,3}", fullmatch=True), st.integers(1, 100), min_size=1, max_size=8),
       st.dictionaries(st.from_regex(r"u[0-9]{1,3}", fullmatch=True), st.integers(0, 20), max_size=8))
def test_flat_tree_entitlements_and_choice(shares, slots):
    text = "USER_SHARES[" + " ".join(f"[{u}, {s}]" for u, s in shares.items()) + "]"
    tree = build_tree(text)
    assert sum(tree.entitlement(u) for u in shares) == pytest.approx(1.0)
    state = FairshareState(tree, Factors(), {u: Usage(job_slots=n) for u, n in slots.items()})
    chosen = state.choose(set(shares) | {"outsider"})
    assert chosen in shares
    best = max(state.user_priority(u) for u in shares)
    assert state.user_priority(chosen) == pytest.approx(best)


@settings(max_examples=200, deadline=None)
@given(st.lists(usages, min_size=1, max_size=5))
def test_usage_sum_is_exact_for_the_formula(parts):
    total = sum(parts, Usage())
    assert total.remaining_commitment == pytest.approx(sum(p.remaining_commitment for p in parts), rel=1e-9, abs=1e-6)
    assert total.gpu_hours() == pytest.approx(sum(p.gpu_hours() for p in parts), rel=1e-9, abs=1e-3)
    assert total.job_slots == pytest.approx(sum(p.job_slots for p in parts))


@settings(max_examples=200, deadline=None)
@given(usages, factors_st)
def test_terms_add_up_to_the_denominator(usage, factors):
    from lsfemu.sched.fairshare import denominator, priority_terms
    total = sum(t.weighted for t in priority_terms(1, usage, factors))
    assert denominator(usage, factors) == pytest.approx(total, rel=1e-9, abs=1e-6)
