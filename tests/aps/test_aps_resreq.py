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


# -- LSF's grammar: one parser for bsub's check, APS and accounting (issue 16, item 4) ---------------

from lsfemu.sched.resreq import RusageBlock, RusageItem, check, parse, units_from_conf  # noqa: E402

VALID = [
    "rusage[mem=(500 200):duration=(10 20)]",  # seed 001's multi-phase reservation
    "rusage[mem=(500 200 100):duration=(10 20):decay=(0 1)]",  # the last phase needs no duration
    "rusage[mem=16G]", "rusage[mem=500MB]", "rusage[mem=2g:swp=1TB:tmp=100k]",
    "rusage[mem=20, license=1:duration=2]", "rusage[app_lic_v201=1||app_lic_v15=1]",
    "rusage[mem=1:duration=2h:decay=1]", "rusage[mem=10:duration=30s]", "rusage[mem=100/job:swp=10/task]",
    "rusage[ngpus_physical=2.00/host]", "rusage[mem=5:threshold=2]",
    "select[type==any && (mem>100 || swp>2)] order[r15s:pg] rusage[mem=10] span[hosts=1] same[model]",
    "select[mem>4G]", "select[defined(verilog_lic)]", "select[hname!=hostA.example.com]",
    'select[type=="LINUX"]', "select[!mg && ut<0.5*2]", "rhel6 || rhel7", "type==any", "mem>100 rusage[mem=100]",
    "order[-mem:r1m]", "order[!ut]", "span[ptile=4]", "span[ptile='!']", "span[ptile='!',HPPA:8]",
    "span[hosts=-1]", "span[block=4]", "span[stripe]", "same[type:model]",
    "cu[type=enclosure:pref=maxavail:maxcus=2:balance:excl]", "affinity[core(1):cpubind=core:membind=localonly]",
    "1*{select[type==any]} + 4*{select[mem>4G] rusage[mem=4096]}", "{rusage[mem=100]} || {rusage[mem=50]}@4",
    "{2*{rusage[mem=100]} + {rusage[mem=7]}} || {select[mem>1] span[hosts=1]}",
]
INVALID = [
    "rusage[mem=(200 500):duration=(10 20)]",  # phases must not increase
    "rusage[mem=(500 200)]", "rusage[mem=(500 200 100):duration=(10)]",  # every phase but the last needs one
    "rusage[mem=1:duration=(1 2)]", "rusage[mem=(1 1):duration=(1 1 1)]",
    "rusage[mem=1:mem=2]", "rusage[mem=1, mem=2]",  # a resource at most once
    "rusage[mem=1:decay=2]", "rusage[mem=1:duration=x]", "rusage[mem=-1]", "rusage[]", "rusage[mem=1,]",
    "rusage[duration=10]", "rusage[mem=1 junk]",
    "select[mem=100]", "select[]", "select[mem>]", "select[(mem>1]", "select[a b]", "select[defined(1)]",
    "foo[bar]", "rusage[mem=1] junk", "rusage[mem=1] select[x", "order[1x]", "order[]", "same[]",
    "span[hosts=0]", "span[foo=1]", "span[ptile=0]", "span[]", "cu[type=]", "affinity[]",
    "{rusage[mem=1]} || rusage[mem=2]", "{rusage[mem=1]} ||", "2*{rusage[mem=1]} + x", "{select[a]}@x",
    "{{rusage[mem=1]}@2}",
]


@pytest.mark.parametrize("text", VALID)
def test_lsf_grammar_valid(text):
    check(text)


@pytest.mark.parametrize("text", INVALID)
def test_lsf_grammar_invalid(text):
    with pytest.raises(ResReqError) as e:
        check(text)
    assert e.value.lsf_message == "Bad resource requirement syntax"


def test_parsed_form_of_a_multi_phase_reservation():
    req = parse("select[mem>1] rusage[mem=(500 200):duration=(10 20h):decay=(0 1), lic=1 || lic2=1] span[hosts=1]")
    (alt,) = req.alternatives
    simple = alt.terms[0].simple
    assert (alt.compound, simple.select, simple.span) == (False, "mem>1", "hosts=1")
    first, second = simple.rusage[0]
    assert first == (RusageBlock((RusageItem("mem", (500.0, 200.0)),), (10.0, 1200.0), (0, 1)),
                     RusageBlock((RusageItem("lic", (1.0,)),)))
    assert second == (RusageBlock((RusageItem("lic2", (1.0,)),)),)
    compound = parse("2*{rusage[mem=1]} + {span[ptile=2]}@5").alternatives[0]
    assert (compound.compound, compound.delay, [t.count for t in compound.terms]) == (True, 5, [2, None])


def test_units_follow_lsf_unit_for_limits():
    assert units_from_conf({}) == {"mem": "MB", "swp": "MB", "tmp": "MB"}
    gb = units_from_conf({"LSF_UNIT_FOR_LIMITS": "GB"})
    assert gb == {"mem": "GB", "swp": "GB", "tmp": "MB"}  # tmp only with LSF_ENABLE_TMP_UNIT=Y
    assert units_from_conf({"LSF_UNIT_FOR_LIMITS": "gb", "LSF_ENABLE_TMP_UNIT": "Y"})["tmp"] == "GB"
    assert rusage_amounts("rusage[mem=2:swp=1:tmp=3]", units=gb) == {"mem": 2048.0, "swp": 1024.0, "tmp": 3.0}
    assert rusage_amounts("rusage[mem=500MB]", units=gb) == {"mem": 500.0}  # a written unit wins
    assert rusage_amounts("rusage[mem=16G]") == {"mem": 16384.0}
    assert rusage_amounts("rusage[mem=(500 200):duration=(10 20)]") == {"mem": 500.0}
