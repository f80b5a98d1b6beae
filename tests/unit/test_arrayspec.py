"""Job array specifications (lsfemu.sched.arrayspec)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.sched import arrayspec as A


def test_forms():
    s = A.parse_array_name("name[1-10]", 1000)
    assert (s.name, s.ranges, s.limit, s.indices()) == ("name", ((1, 10, 1),), None, list(range(1, 11)))
    assert A.parse_array_name("n[1-10:2]", 1000).indices() == [1, 3, 5, 7, 9]
    assert A.parse_array_name("n[1,3,5-7]", 1000).indices() == [1, 3, 5, 6, 7]
    s = A.parse_array_name("n[1-100]%5", 1000)
    assert (s.limit, len(s.indices()), s.text) == (5, 100, "n[1-100]%5")
    assert A.parse_array_name("n[2,1-3]", 1000).indices() == [2, 1, 3]  # each index once
    assert A.parse_array_name("plain", 1000) is None


@pytest.mark.parametrize("text,msg", [
    ("n[1-", A.BAD_JOB_NAME), ("n[]", A.BAD_JOB_NAME), ("n[1-3]x", A.BAD_JOB_NAME), ("n[1-3]%0", A.BAD_JOB_NAME),
    ("n[a]", A.BAD_JOB_NAME), ("n]1[", A.BAD_JOB_NAME), ("n[1[2]]", A.BAD_JOB_NAME), ("n[1-3]%", A.BAD_JOB_NAME),
    ("n[0-3]", A.BAD_INDEX), ("n[3-1]", A.BAD_INDEX), ("n[1-5:0]", A.BAD_INDEX),
    ("n[1-1001]", A.BIG_INDEX), ("n[1001]", A.BIG_INDEX), ("n[1-600,1-600]", A.BIG_INDEX),
])
def test_errors(text, msg):
    with pytest.raises(A.ArraySpecError) as e:
        A.parse_array_name(text, 1000)
    assert e.value.text == msg


def test_max_size_is_configurable():
    assert len(A.parse_array_name("n[1-5]", 5).indices()) == 5
    with pytest.raises(A.ArraySpecError):
        A.parse_array_name("n[1-6]", 5)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("n[]-:,%0123456789x")), max_size=20))
def test_any_name_is_a_spec_none_or_an_lsf_error(text):
    try:
        spec = A.parse_array_name(text, 1000)
    except A.ArraySpecError as e:
        assert e.text in (A.BAD_JOB_NAME, A.BAD_INDEX, A.BIG_INDEX)
        return
    if spec is None:
        assert "[" not in text and "]" not in text
        return
    idx = spec.indices()
    assert 1 <= len(idx) <= 1000 and len(set(idx)) == len(idx)
    assert all(1 <= i <= 1000 and A.in_ranges(i, spec.ranges) for i in idx)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 60), min_size=1, max_size=30))
def test_format_ranges_round_trips(indices):
    text = A.format_ranges(indices)
    assert A.indices_of(A.parse_index_list(text)) == sorted(set(indices))
