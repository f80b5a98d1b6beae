"""The generated lsb.events encoders (lsfemu.events.fastencode) against the
reference (lsfemu.events.codec.encode): the same line for every record, the
same error for every record the reference refuses."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.events import codec, fastencode
from lsfemu.events.records import JobNew, JobStart, JobStatus
from tests.events.test_events_props import _ODD, _records

pytestmark = pytest.mark.slow(2)


def _outcome(fn, rec):
    try:
        return fn(rec)
    except (TypeError, ValueError) as exc:
        return (type(exc), str(exc))


@settings(max_examples=150, deadline=None)  # every record type (some 9 each a run), plain and odd strings
@given(rec=st.one_of(_records(), _records(_ODD)))
def test_generated_encoder_writes_the_reference_line(rec):
    assert fastencode.encode(rec) == codec.encode(rec)


_BAD = st.sampled_from([True, 1.5, -0.0, math.inf, math.nan, 10**30, -(10**30), "7", None, b"x", 3])


@settings(max_examples=150, deadline=None)
@given(rec=_records(), field=st.integers(0, 200), value=_BAD, extra=st.lists(st.sampled_from(['"x"', "1"]), max_size=2))
def test_unusual_values_give_the_reference_outcome(rec, field, value, extra):
    """A value of another type, out of range or not finite, set on any field
    (gated ones too), and trailing unknown fields: the reference's line or its error."""
    names = ["event_time", "version"] + [s.name for s in rec._SCHEMA]
    rec.__dict__[names[field % len(names)]] = value
    rec.extra = tuple(extra)
    assert _outcome(fastencode.encode, rec) == _outcome(codec.encode, rec)


def test_clock_records_and_negative_zero():
    """The records the clock writes most, and a float that prints as -0.0000."""
    new = JobNew(job_id=7, user_name="u1", queue="normal", command="sleep 60", num_processors=1,
                 max_num_processors=1, submit_time=100, event_time=100)
    start = JobStart(job_id=7, exec_hosts=("h1",), event_time=110)
    status = JobStatus(job_id=7, status=64, end_time=170, cpu_time=-0.00001, event_time=170)
    for rec in (new, start, status):
        assert fastencode.encode(rec) == codec.encode(rec)
    assert " 0.0000 " in fastencode.encode(status) and "-0.0" not in fastencode.encode(status)
