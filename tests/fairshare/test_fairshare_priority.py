"""The dynamic priority formula, its factors and decay: the seeds' worked examples."""

from __future__ import annotations

import math

import pytest

from lsfemu.config.model import Params
from lsfemu.sched.fairshare import (
    Factors, FairshareState, Usage, accrued, build_tree, decay_factor, decayed, dynamic_priority,
    effective_factors, job_usage, priority_terms,
)

H = 3600.0


def test_user1_with_10_shares_and_nothing_used_is_3_333():
    # Seed 5.2 sample: "user1  10  3.333  0  0  0.0  0" under LSF's defaults: 10 / ((1 + 0) x 3).
    assert dynamic_priority(10, Usage(), Factors()) == pytest.approx(10 / 3)
    tree = build_tree("USER_SHARES[[user1, 10] [default, 1]]", {}, {"user1"})
    row = FairshareState(tree, Factors(), {}).share_info()[0]
    assert (row.name, row.shares, f"{row.priority:.3f}", row.started, row.reserved, row.cpu_time_s, row.run_time_s) \
        == ("user1", 10, "3.333", 0, 0, 0.0, 0)


def test_defaults_are_lsf_defaults():
    f, src = effective_factors(Params(), None)
    assert f == Factors(cpu_time_factor=0.7, run_time_factor=0.7, run_job_factor=3.0, committed_run_time_factor=0.0,
                        fairshare_adjustment_factor=0.0, fwd_job_factor=None, gpu_run_time_factor=0.0, hist_hours=5.0,
                        enable_hist_run_time=False, run_time_decay=False)
    assert set(src.values()) == {"default"}


def test_factor_sources_queue_then_params_then_default(lsb_params, lsb_queues):
    params = lsb_params("CPU_TIME_FACTOR = 0.2\nRUN_JOB_FACTOR = 5\nHIST_HOURS = 10\nFWD_JOB_FACTOR = 0.5")
    q = lsb_queues("Begin Queue\nQUEUE_NAME = fs\nFAIRSHARE = USER_SHARES[[default, 1]]\n"
                   "RUN_JOB_FACTOR = 1\nENABLE_HIST_RUN_TIME = Y\nEnd Queue\n")["fs"]
    f, src = effective_factors(params, q)
    assert (f.cpu_time_factor, src["CPU_TIME_FACTOR"]) == (0.2, "lsb.params")
    assert (f.run_job_factor, src["RUN_JOB_FACTOR"]) == (1.0, "queue")
    assert (f.run_time_factor, src["RUN_TIME_FACTOR"]) == (0.7, "default")
    assert (f.hist_hours, src["HIST_HOURS"]) == (10.0, "lsb.params")
    assert (f.fwd_job_factor, src["FWD_JOB_FACTOR"]) == (0.5, "lsb.params")
    assert (f.enable_hist_run_time, src["ENABLE_HIST_RUN_TIME"]) == (True, "queue")
    # The plug-in sees lsb.params only (queue=None).
    f2, src2 = effective_factors(params, None)
    assert f2.run_job_factor == 5.0 and src2["RUN_JOB_FACTOR"] == "lsb.params"
    assert f2.enable_hist_run_time is False


def test_params_value_equal_to_default_still_counts_as_lsb_params(lsb_params):
    _f, src = effective_factors(lsb_params("RUN_JOB_FACTOR = 3"), None)
    assert src["RUN_JOB_FACTOR"] == "lsb.params"


def test_decay_one_hour_becomes_a_tenth_after_hist_hours():
    assert decay_factor(5, 5) == pytest.approx(0.1)
    assert decayed(1.0, 5, 5) == pytest.approx(0.1)
    assert decayed(1.0, 10, 5) == pytest.approx(0.01)
    assert decayed(1.0, 8, 8) == pytest.approx(0.1)  # HIST_HOURS=8
    assert decayed(2.0, 0, 5) == 2.0
    assert decay_factor(100, 0) == 1.0  # HIST_HOURS=0: no decay (LSF's documentation)


def test_cpu_time_of_a_finished_job_decays_to_a_tenth_after_hist_hours():
    # A very short burst of 1 CPU hour at t=0, looked at 5 hours later.
    u = job_usage(slots=1, start_s=0, end_s=1, now_s=5 * H + 1, cpu_s=H)
    assert u.cpu_time == pytest.approx(0.1, rel=1e-3)
    # The decayed accrual of a steady rate is below the raw value, and equals it without decay.
    assert accrued(2, 5) < 2 and accrued(2, 0) == 2


def test_denominator_floor_caps_priority_at_100_times_shares():
    f = Factors(cpu_time_factor=0, run_time_factor=1, run_job_factor=0)
    assert dynamic_priority(7, Usage(), f) == pytest.approx(700)
    terms = priority_terms(7, Usage(), f)
    assert sum(t.weighted for t in terms) == 0


def test_terms_present_exactly_when_lsf_includes_them():
    names = lambda f: [t.name for t in priority_terms(1, Usage(), f) if t.present]  # noqa: E731
    assert names(Factors()) == ["cpu_time", "run_time", "(1 + job_slots)", "fairshare_adjustment",
                                "gpu_run_time * ngpus_physical"]
    full = Factors(enable_hist_run_time=True, committed_run_time_factor=0.5, fwd_job_factor=1.0,
                   enable_gpu_hist_run_time=True)
    assert names(full) == ["cpu_time", "(historical_run_time + run_time)", "(committed_run_time - run_time)",
                           "(1 + job_slots)", "(1 + fwd_job_slots)", "fairshare_adjustment",
                           "(historical_gpu_run_time + gpu_run_time) * ngpus_physical"]


def test_full_formula_by_hand():
    f = Factors(cpu_time_factor=0.5, run_time_factor=0.25, run_job_factor=2, committed_run_time_factor=0.1,
                fairshare_adjustment_factor=3, fwd_job_factor=4, gpu_run_time_factor=0.2, enable_hist_run_time=True,
                enable_gpu_hist_run_time=True)
    u = Usage(cpu_time=2, hist_run_time=1, run_time=3, committed_run_time=10, job_slots=4, reserved_slots=1,
              fwd_job_slots=2, gpu_run_time=1.5, hist_gpu_run_time=0.5, ngpus_physical=2, adjustment=0.5)
    den = 2 * 0.5 + (1 + 3) * 0.25 + (10 - 3) * 0.1 + (1 + 5) * 2 + (1 + 2) * 4 + 0.5 * 3 + (0.5 + 1.5) * 2 * 0.2
    assert dynamic_priority(100, u, f) == pytest.approx(100 / den)


def test_hist_run_time_example_only_run_time_counts(lsb_params):
    # Seed 002: CPU_TIME_FACTOR = 0, RUN_JOB_FACTOR = 0, RUN_TIME_FACTOR = 1 ->
    # priority = shares / (run_time x RUN_TIME_FACTOR); with ENABLE_HIST_RUN_TIME=Y the
    # historical run time joins run_time and the priority rises gradually after the job ends.
    plain, _ = effective_factors(lsb_params("CPU_TIME_FACTOR = 0\nRUN_JOB_FACTOR = 0\nRUN_TIME_FACTOR = 1"))
    hist, src = effective_factors(lsb_params("CPU_TIME_FACTOR = 0\nRUN_JOB_FACTOR = 0\nRUN_TIME_FACTOR = 1\n"
                                             "ENABLE_HIST_RUN_TIME = Y"))
    assert src["ENABLE_HIST_RUN_TIME"] == "lsb.params"
    shares = 10
    running = job_usage(slots=4, start_s=0, now_s=2 * H, cpu_s=8 * H, factors=hist)
    assert dynamic_priority(shares, running, hist) == pytest.approx(shares / 2)  # slots and CPU do not count
    assert dynamic_priority(shares, running, plain) == pytest.approx(shares / 2)
    # Without historical run time: the priority jumps back to its maximum as the job ends.
    done = job_usage(slots=4, start_s=0, end_s=2 * H, now_s=2 * H, cpu_s=8 * H, factors=plain)
    assert dynamic_priority(shares, done, plain) == pytest.approx(100 * shares)
    # With it: continuous at the end, then rising as the 2 hours decay (0.2 h after HIST_HOURS).
    prios = [dynamic_priority(shares, job_usage(slots=4, start_s=0, end_s=2 * H, now_s=2 * H + t * H,
                                                factors=hist), hist) for t in (0, 1, 2.5, 5, 10, 20)]
    assert prios[0] == pytest.approx(shares / 2)
    assert prios[3] == pytest.approx(shares / 0.2)
    assert prios[4] == pytest.approx(shares / 0.02)
    assert all(a < b for a, b in zip(prios, prios[1:5]))
    assert prios[5] == pytest.approx(100 * shares)  # 2 x 0.0001 h < 0.01: floored


def test_hist_run_time_through_state_events():
    f = Factors(cpu_time_factor=0, run_job_factor=0, run_time_factor=1, enable_hist_run_time=True)
    st = FairshareState(build_tree("USER_SHARES[[u1, 10]]"), f, {"u1": Usage(run_time=2, job_slots=1)})
    assert st.user_priority("u1") == pytest.approx(5)
    st.job_finished("u1", 1, run_time_h=2)
    assert st.user_priority("u1") == pytest.approx(5)  # now historical, decays from here
    st_plain = FairshareState(build_tree("USER_SHARES[[u1, 10]]"), replace_hist(f, False),
                              {"u1": Usage(run_time=2, job_slots=1)})
    st_plain.job_finished("u1", 1, run_time_h=2)
    assert st_plain.user_priority("u1") == pytest.approx(1000)  # rises at once


def replace_hist(f: Factors, on: bool) -> Factors:
    from dataclasses import replace
    return replace(f, enable_hist_run_time=on)


def test_committed_run_time_drops_priority_at_dispatch_and_holds_it():
    # LSF 7.3 example: CPU_TIME_FACTOR=0, RUN_JOB_FACTOR=0, RUN_TIME_FACTOR=1, COMMITTED_RUN_TIME_FACTOR=1.
    f = Factors(cpu_time_factor=0, run_job_factor=0, run_time_factor=1, committed_run_time_factor=1)
    prios = [dynamic_priority(10, job_usage(slots=1, start_s=0, now_s=t * H, committed_s=4 * H, factors=f), f)
             for t in (0, 1, 2, 3.5)]
    assert prios == pytest.approx([10 / 4] * 4)
    # A job without -W / RUNLIMIT adds no commitment (the term is not "considered").
    u = job_usage(slots=1, start_s=0, now_s=2 * H, factors=f)
    assert dynamic_priority(10, u, f) == pytest.approx(10 / 2)


def test_run_time_decay_decays_running_time():
    f = Factors(run_time_decay=True)
    u = job_usage(slots=1, start_s=0, now_s=5 * H, factors=f)
    assert u.run_time == pytest.approx(accrued(5, 5))
    assert u.run_time < 5
    assert job_usage(slots=1, start_s=0, now_s=5 * H).run_time == pytest.approx(5)


def test_gpu_jobs_accrue_gpu_run_time():
    f = Factors(gpu_run_time_factor=1, enable_gpu_hist_run_time=True)
    a = job_usage(slots=1, start_s=0, now_s=2 * H, ngpus_physical=2, factors=f)
    b = job_usage(slots=1, start_s=0, end_s=H, now_s=H, ngpus_physical=4, factors=f)
    assert a.gpu_hours() == pytest.approx(4)
    assert b.gpu_hours() == pytest.approx(4)
    total = a + b
    assert total.gpu_hours() == pytest.approx(8)
    assert total.gpu_hours(with_history=False) == pytest.approx(4)
    no_gpu = job_usage(slots=1, start_s=0, now_s=2 * H, factors=f)
    assert no_gpu.gpu_hours() == 0
    assert dynamic_priority(1, a, f) < dynamic_priority(1, no_gpu, f)


def test_usage_sum_keeps_per_job_commitment():
    with_limit = Usage(run_time=1, committed_run_time=10, job_slots=1)
    no_limit = Usage(run_time=5, committed_run_time=0, job_slots=1)
    total = sum([with_limit, no_limit], Usage())
    assert total.remaining_commitment == pytest.approx(9)
    assert total.run_time == 6 and total.job_slots == 2
    assert sum([with_limit]) == with_limit


def test_state_job_started_and_finished_update_at_once():
    st = FairshareState(build_tree("USER_SHARES[[u1, 10] [u2, 10]]"), Factors(), {})
    assert st.user_priority("u1") == pytest.approx(10 / 3)
    st.job_started("u1", 2)
    assert st.user_priority("u1") == pytest.approx(10 / 9)
    st.job_finished("u1", 2, run_time_h=0)
    assert st.user_priority("u1") == pytest.approx(10 / 3)
    st.reserve("u2", 1)
    row = {r.name: r for r in st.share_info()}["u2"]
    assert row.reserved == 1 and row.priority == pytest.approx(10 / 6)
    assert math.isclose(st.user_priority("u2"), 10 / 6)
