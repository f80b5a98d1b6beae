"""The adjustment plug-in: loading, the seed's memory example, and its effect on choices."""

from __future__ import annotations

import sys
import textwrap

import pytest

from lsfemu.config.fairshare import load_plugin
from lsfemu.sched.fairshare import Factors, FairshareState, Usage, build_tree, effective_factors
from lsfemu.sched.fairshare_plugins import (
    AdjustmentInput, make_adjust, make_input, memory_adjustment, memory_adjustment_with_threshold, slot_memory,
)


def _inp(**kw) -> AdjustmentInput:
    base = dict(account="u", is_group=False, cpu_time=0, hist_run_time=0, run_time=0, committed_run_time=0,
                job_slots=0, fwd_job_slots=0, gpu_run_time=0, hist_gpu_run_time=0, ngpus_physical=0)
    base.update(kw)
    return AdjustmentInput(**base)


def test_memory_example_formula():
    # (1 + slots) x ((used_memory / used_slots) / (slot_memory x THRESHOLD))
    inp = _inp(job_slots=4, used_memory_mb=16000, used_slots=4, slot_memory_mb=2000)
    assert memory_adjustment(inp) == pytest.approx(5 * (4000 / 2000))
    assert memory_adjustment(inp, threshold=2) == pytest.approx(5 * (4000 / 4000))
    assert memory_adjustment_with_threshold(4)(inp) == pytest.approx(2.5)


@pytest.mark.parametrize("kw", [dict(used_slots=0, used_memory_mb=100, slot_memory_mb=10),
                                dict(used_slots=2, used_memory_mb=100, slot_memory_mb=0)])
def test_memory_example_guards_division_by_zero(kw):
    assert memory_adjustment(_inp(job_slots=2, **kw)) == 0.0
    assert memory_adjustment(_inp(job_slots=2, used_slots=1, used_memory_mb=1, slot_memory_mb=1), threshold=0) == 0.0


def test_slot_memory():
    assert slot_memory(64000, 32) == 2000
    assert slot_memory(64000, 0) == 0


def test_load_shipped_plugin():
    assert load_plugin("lsfemu.sched.fairshare_plugins:memory_adjustment") is memory_adjustment
    assert load_plugin(' "lsfemu.sched.fairshare_plugins:memory_adjustment" ') is memory_adjustment


def test_load_user_plugin(tmp_path, monkeypatch):
    (tmp_path / "site_fs.py").write_text(textwrap.dedent("""
        class Rules:
            @staticmethod
            def adjust(inp):
                return inp.job_slots * 2
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        fn = load_plugin("site_fs:Rules.adjust")
        assert fn(_inp(job_slots=3)) == 6
    finally:
        sys.modules.pop("site_fs", None)


@pytest.mark.parametrize("spec, message", [
    ("", 'expected "module:callable", got an empty value'),
    ("lsfemu.sched.fairshare_plugins", 'expected "module:callable" (one colon)'),
    ("a:b:c", "(one colon)"),
    (":memory_adjustment", "with both parts"),
    ("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz': ModuleNotFoundError"),
    ("lsfemu.sched.fairshare_plugins:nope", "module 'lsfemu.sched.fairshare_plugins' has no 'nope'"),
    ("lsfemu.sched.fairshare_plugins:DEFAULT_MEMORY_THRESHOLD", "is not callable"),
])
def test_load_errors_are_clear(spec, message):
    with pytest.raises(ValueError) as e:
        load_plugin(spec)
    assert message in str(e.value)
    assert "FAIRSHARE_ADJUSTMENT_PLUGIN" in str(e.value)


def test_plugin_gets_everything_but_shares_and_lsb_params_factors(lsb_params):
    params = lsb_params("FAIRSHARE_ADJUSTMENT_FACTOR = 1\n"
                        "FAIRSHARE_ADJUSTMENT_PLUGIN = lsfemu.sched.fairshare_plugins:memory_adjustment")
    assert params.extra["FAIRSHARE_ADJUSTMENT_PLUGIN"].endswith(":memory_adjustment")
    factors, _ = effective_factors(params, None)
    seen: list[AdjustmentInput] = []

    def plugin(inp):
        seen.append(inp)
        return 0.0

    tree = build_tree("USER_SHARES[[u1, 10] [u2, 10]]")
    st = FairshareState(tree, factors, {"u1": Usage(cpu_time=1, run_time=2, job_slots=3, reserved_slots=1)})
    st.adjust = make_adjust(plugin, factors, cluster_used_memory_mb=5000, slot_memory_mb=1000,
                            memory_by_user={"u1": 3000}, members_of=st.users_under)
    st.user_priority("u1")
    inp = seen[-1]
    assert (inp.account, inp.cpu_time, inp.run_time, inp.job_slots, inp.used_slots) == ("u1", 1, 2, 4, 3)
    assert (inp.cluster_used_memory_mb, inp.slot_memory_mb, inp.used_memory_mb) == (5000, 1000, 3000)
    assert inp.factors.fairshare_adjustment_factor == 1
    assert not hasattr(inp, "shares")


def test_memory_hog_loses_priority():
    factors = Factors(fairshare_adjustment_factor=1)
    tree = build_tree("USER_SHARES[[hog, 10] [lean, 10]]")
    usage = {"hog": Usage(job_slots=2), "lean": Usage(job_slots=2)}
    st = FairshareState(tree, factors, usage)
    assert st.choose(["hog", "lean"]) == "hog"  # tie without the plug-in: configuration order
    st.adjust = make_adjust(memory_adjustment, factors, cluster_used_memory_mb=12000, slot_memory_mb=1000,
                            memory_by_user={"hog": 10000, "lean": 2000}, members_of=st.users_under)
    # hog: 3 x (5000/1000) = 15 ; lean: 3 x (1000/1000) = 3
    assert st.explain("hog").usage.adjustment == pytest.approx(15)
    assert st.user_priority("hog") == pytest.approx(10 / (9 + 15))
    assert st.choose(["hog", "lean"]) == "lean"


def test_group_account_memory_is_summed_over_members():
    from lsfemu.config.model import UserGroupConf
    tree = build_tree("USER_SHARES[[g, 10]]", {"g": UserGroupConf("g", ["a", "b"])})
    st = FairshareState(tree, Factors(fairshare_adjustment_factor=1),
                        {"a": Usage(job_slots=1), "b": Usage(job_slots=1)})
    got = []
    st.adjust = make_adjust(lambda i: got.append(i) or 0.0, st.factors, cluster_used_memory_mb=0, slot_memory_mb=1,
                            memory_by_user={"a": 100, "b": 50}, members_of=st.users_under)
    st.user_priority("a")
    assert got[-1].account == "g" and got[-1].is_group and got[-1].used_memory_mb == 150 and got[-1].used_slots == 2


def test_broken_plugin_counts_zero_and_is_reported():
    st = FairshareState(build_tree("USER_SHARES[[u, 1]]"), Factors(fairshare_adjustment_factor=1), {})

    def boom(inp):
        raise RuntimeError("bad plug-in")

    adj = make_adjust(boom, st.factors, cluster_used_memory_mb=0, slot_memory_mb=0, memory_by_user={})
    st.adjust = adj
    assert st.user_priority("u") == pytest.approx(1 / 3)
    assert adj.errors and "RuntimeError: bad plug-in" in adj.errors[0]


def test_make_input_from_usage():
    inp = make_input("x", Usage(job_slots=2, reserved_slots=1, ngpus_physical=1, gpu_run_time=3), Factors())
    assert inp.job_slots == 3 and inp.used_slots == 2 and inp.gpu_run_time == 3 and not inp.is_group
