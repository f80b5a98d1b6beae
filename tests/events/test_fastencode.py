"""The generated lsb.events encoders (lsfemu.events.fastencode) against the
reference (lsfemu.events.codec.encode), and lsb.acct's JOB_FINISH encoder
against lsfemu.events.acct.format_record: the same line for every record,
the same error for every record the reference refuses."""

from __future__ import annotations

import dataclasses
import math
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.events import codec, fastencode
from lsfemu.events.acct import MIN_FIELDS, SCHEMA, AcctRecord, Rusage, format_record
from lsfemu.events.acctemit import job_finish
from lsfemu.events.records import JobNew, JobStart, JobStatus
from tests.events.test_acct import golden_record
from tests.events.test_events_props import _ODD, _records

pytestmark = pytest.mark.slow(2)


def _outcome(fn, rec, *also):
    try:
        return fn(rec)
    except (TypeError, ValueError, *also) as exc:  # (format_record's: a rusage that is no Rusage)
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


def _plain_acct():
    """The golden record with its quoted strings made plain (the encoder's common case)."""
    return dataclasses.replace(golden_record(), job_name="say hi", command="sleep 60")


_ACCT_NAMES = ["event_time", "version", "fields_present"] + [s.name for s in SCHEMA]
_ACCT_VALUES = st.one_of(
    _BAD, st.text(max_size=6), st.text(st.sampled_from('a"\n\x7f\u2400\u2421 '), max_size=4),
    st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.text("ab\"", max_size=3), max_size=2).map(tuple),
    st.lists(st.tuples(st.text("ab", max_size=2), st.integers(-3, 3)), max_size=2).map(tuple),
    st.builds(Rusage, ru_utime=st.one_of(st.floats(-1e3, 1e3), st.integers(-3, 3)), ru_maxrss=st.integers(-1, 9)),
    st.sampled_from(["10.108", "10.1", "x", MIN_FIELDS, len(SCHEMA), len(SCHEMA) + 1]))


@settings(max_examples=150, deadline=None)
@given(changes=st.lists(st.tuples(st.integers(0, 200), _ACCT_VALUES), max_size=3),
       extra=st.lists(st.sampled_from(['"x"', "1"]), max_size=2))
def test_generated_acct_encoder_gives_the_reference_outcome(changes, extra):
    """A JOB_FINISH with up to three fields set to anything (other types, odd
    text, big ints, non-finite floats, lists, another version or length) and
    trailing unknown fields: format_record's line or its error."""
    rec = _plain_acct()
    for field, value in changes:
        object.__setattr__(rec, _ACCT_NAMES[field % len(_ACCT_NAMES)], value)
    object.__setattr__(rec, "extra", tuple(extra))
    assert _outcome(fastencode.encode_acct, rec, AttributeError) == _outcome(format_record, rec, AttributeError)


def test_acct_encoder_on_the_clock_record():
    """The common record takes the generated path (no call of the reference)
    and writes its line; a negative zero is written 0.000000."""
    rec = dataclasses.replace(_plain_acct(), lsf_rusage=Rusage(ru_utime=-0.0000001, ru_stime=0.0))
    fastencode.encode_acct(rec)
    enc = fastencode._ACCT[0]
    slow = enc.__globals__["_slow"]
    enc.__globals__["_slow"] = None  # (a call would raise)
    try:
        line = fastencode.encode_acct(rec)
    finally:
        enc.__globals__["_slow"] = slow
    assert line == format_record(rec) and " 0.000000 0.000000 " in line


@pytest.mark.parametrize("started", [True, False])
def test_job_finish_record_is_the_constructors(started):
    """acctemit.job_finish makes its record without AcctRecord's __init__: the
    same fields, values and types as the constructor's, none more."""
    job = types.SimpleNamespace(
        id=5, array_index=0, user="u1", queue="normal", command="sleep 1", name="n", cwd="/tmp", submit_time=100.0,
        start_time=110.0 if started else None, exec_hosts="h1 h1" if started else "", num_processors=2,
        run_limit_min=2.0, est_runtime_min=None)
    rec = job_finish(job, 170.0, {"status": "EXIT", "exit_code": 3}, uid_of=lambda u: 7, cpu_time=50.0, run_time=60.0)
    built = AcctRecord(**rec.__dict__)
    assert rec == built and rec.__dict__ == built.__dict__ and type(rec) is AcctRecord
    assert rec.lsf_rusage.__dict__ == dataclasses.replace(rec.lsf_rusage).__dict__
    assert format_record(rec) == format_record(built) == fastencode.encode_acct(rec)
