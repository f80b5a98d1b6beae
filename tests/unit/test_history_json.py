"""A history row's data as the cluster writes it (lsfemu.engine.historyjson.to_json,
json.dumps's C encoder made once): the text json.dumps gives, the error it raises."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.engine.historyjson import to_json

pytestmark = pytest.mark.slow(1)

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=8))
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(st.text(max_size=4), inner, max_size=3)),
                       max_leaves=8)


@settings(max_examples=100, deadline=None)
@given(data=st.dictionaries(st.text(max_size=6), _values, max_size=4))
def test_the_text_of_json_dumps(data):
    assert to_json(data) == json.dumps(data)


def test_what_json_cannot_write_raises_as_dumps():
    with pytest.raises(TypeError, match="not JSON serializable"):
        to_json({"x": object()})
