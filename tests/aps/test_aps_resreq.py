"""rusage amounts as the APS MEM and SWAP factors read them (lsfemu.sched.resreq)."""

from __future__ import annotations

import pytest

from lsfemu.sched.resreq import ResReqError, per_slot_from_params, rusage_amounts


def test_simple_and_empty():
    assert rusage_amounts(None) == {}
    assert rusage_amounts("   ") == {}
    assert rusage_amounts("rusage[mem=4000]") == {"mem": 4000.0}
    assert rusage_amounts("rusage[mem=4000:swp=100]") == {"mem": 4000.0, "swp": 100.0}
    assert rusage_amounts("rusage[mem=20, license=1:duration=2]") == {"mem": 20.0, "license": 1.0}
    assert rusage_amounts("rusage[swap=300]") == {"swp": 300.0}


def test_other_sections_and_bare_select_are_tolerated():
    rr = 'select[type==any && (mem>100 || swp>2)] order[r15s:pg] rusage[mem=10:duration=10:decay=1] span[hosts=1] same[model]'
    assert rusage_amounts(rr) == {"mem": 10.0}
    assert rusage_amounts("type==any && mem > 100") == {}
    assert rusage_amounts("span[ptile=4]") == {}


def test_per_slot_multiplies_simple_requirements_by_slots():
    assert rusage_amounts("rusage[mem=100]", slots=4, per_slot=False) == {"mem": 100.0}
    assert rusage_amounts("rusage[mem=100]", slots=4, per_slot=True) == {"mem": 400.0}
    # /job never multiplied, /task always
    assert rusage_amounts("rusage[mem=100/job:swp=10/task]", slots=4, per_slot=True) == {"mem": 100.0, "swp": 40.0}
    assert rusage_amounts("rusage[mem=100/job:swp=10/task]", slots=4, per_slot=False) == {"mem": 100.0, "swp": 40.0}
    assert rusage_amounts("rusage[mem=100/host]", slots=4, per_slot=True) == {"mem": 400.0}


def test_compound_requirement_per_slot_rule():
    rr = "2*{select[type==any] rusage[mem=100:swp=5]} + 4*{rusage[mem=50]}"
    assert rusage_amounts(rr, slots=6, per_slot=False) == {"mem": 150.0, "swp": 5.0}  # mem1 + mem2
    assert rusage_amounts(rr, slots=6, per_slot=True) == {"mem": 400.0, "swp": 10.0}  # n1*mem1 + n2*mem2
    assert rusage_amounts("3*{rusage[mem=10]} + {rusage[mem=1]}", per_slot=True) == {"mem": 31.0}


def test_requests_right_of_or_are_ignored():
    assert rusage_amounts("rusage[mem=20 || mem=10:swp=10]") == {"mem": 20.0}
    assert rusage_amounts("rusage[mem=20:swp=4 || swp=10]") == {"mem": 20.0, "swp": 4.0}
    assert rusage_amounts("{rusage[mem=100]} || {rusage[mem=50:swp=1]}") == {"mem": 100.0}
    assert rusage_amounts("{2*{rusage[mem=100]} + {rusage[mem=7]}} || {rusage[mem=50]}@4", per_slot=True) == {"mem": 207.0}
    assert rusage_amounts("{rusage[mem=1]}@10 || {rusage[mem=2]}") == {"mem": 1.0}


def test_multi_phase_memory_uses_the_first_phase():
    assert rusage_amounts("rusage[mem=(50 20):duration=(10 5):decay=(0 1)]") == {"mem": 50.0}
    assert rusage_amounts("2*{rusage[mem=(8 2):duration=(1 1)]} + 1*{rusage[mem=4]}", per_slot=True) == {"mem": 20.0}


def test_units_and_first_wins():
    assert rusage_amounts("rusage[mem=4GB:swp=512KB]") == {"mem": 4096.0, "swp": 0.5}
    assert rusage_amounts("rusage[mem=2g]") == {"mem": 2048.0}
    assert rusage_amounts("rusage[mem=10] rusage[mem=20:swp=1]") == {"mem": 10.0, "swp": 1.0}


@pytest.mark.parametrize("bad", [
    "rusage[mem=abc]", "rusage[mem]", "rusage[mem=10", "rusage[mem=10]]", "{rusage[mem=1]",
    "2*{rusage[mem=1]} + x", "rusage[mem=4XB]", "rusage[license=2GB]", "rusage[mem=()]", "|| rusage[mem=1]",
    "0*{rusage[mem=1]} + {rusage[mem=2]}", "rusage[9x=1]",
])
def test_bad_syntax(bad):
    with pytest.raises(ResReqError) as e:
        rusage_amounts(bad)
    assert e.value.lsf_message == "Bad resource requirement syntax"
    assert str(e.value).startswith("Bad resource requirement syntax")


def test_per_slot_from_params():
    assert per_slot_from_params({}) is False
    assert per_slot_from_params(None) is False
    assert per_slot_from_params({"RESOURCE_RESERVE_PER_SLOT": "Y"}) is True
    assert per_slot_from_params({"RESOURCE_RESERVE_PER_SLOT": "n"}) is False
