"""Property tests of the lsb.events codec: decode never fails with anything
but EventSyntaxError, and any string survives encode -> decode on one line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.events import codec, fastdecode, lsbatch
from lsfemu.events.bmodrecord import job_modify
from lsfemu.events.records import (
    JobMove, JobNew, JobSignal, JobStart, JobStatus, RECORD_TYPES, Record,
)
from lsfemu.events.schema import _default

import pytest

pytestmark = pytest.mark.slow(27)  # seconds, quiet machine: scheduled early (tests/conftest.py)

_FRAGMENTS = st.sampled_from([
    '"JOB_NEW"', '"JOB_STATUS"', '"JOB_START"', '"JOB_SIGNAL"', '"JOB_MODIFY2"', '"MBD_START"',
    '"JOB_CLEAN"', '"X"', '"10.1"', '"9.13"', '"0"', "0", "1", "-1", "19", "2", "1.5", "nan",
    "1e400", '""', '"a b"', '"a""b"', '"', '"\u2426', "\u2400", "#", " ", "  ", "\t", "x",
])

_text = st.text(alphabet=st.characters(), max_size=40)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_decode_arbitrary_text(line):
    try:
        rec = fastdecode.decode(line)
    except codec.EventSyntaxError:
        return
    assert isinstance(rec, Record)


@settings(max_examples=400, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=60))
def test_decode_token_soup(parts):
    line = " ".join(parts)
    try:
        rec = fastdecode.decode(line)
    except codec.EventSyntaxError:
        return
    # whatever decodes encodes again, and that is stable
    again = fastdecode.decode(codec.encode(rec))
    assert codec.encode(again) == codec.encode(rec)


@settings(max_examples=200, deadline=None)
@given(st.lists(_FRAGMENTS, min_size=3, max_size=60))
def test_decode_prefixed_record_soup(parts):
    line = '"JOB_NEW" "10.1" 5 ' + " ".join(parts)
    try:
        fastdecode.decode(line)
    except codec.EventSyntaxError:
        pass


@settings(max_examples=300, deadline=None)
@given(user=_text, sig=_text, hosts=st.lists(_text, max_size=4), cmd=_text, name=_text)
def test_round_trip_arbitrary_strings(user, sig, hosts, cmd, name):
    recs = [
        JobSignal(event_time=1, job_id=2, signal_symbol=sig, user_name=user),
        JobStart(event_time=1, job_id=2, exec_hosts=tuple(hosts), effective_res_req=cmd),
        JobNew(event_time=1, job_id=2, user_name=user, job_name=name, command=cmd,
               asked_hosts=tuple(hosts), cwd=sig),
    ]
    for rec in recs:
        line = codec.encode(rec)
        assert "\n" not in line and "\r" not in line
        assert not any(ord(c) < 0x20 or c == "\x7f" for c in line)
        assert fastdecode.decode(line) == rec
        assert fastdecode.decode(line + "\n") == rec


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(2**40), max_value=2**40), st.integers(min_value=0, max_value=2**31))
def test_round_trip_numbers(n, t):
    rec = JobMove(event_time=t, user_id=n, job_id=abs(n), position=n, base=n, idx=n)
    assert fastdecode.decode(codec.encode(rec)) == rec


def _outcome(fn, line):
    try:
        rec = fn(line)
    except codec.EventSyntaxError as e:
        return (type(e).__name__, str(e))
    return (type(rec).__name__, rec.__dict__)


_REAL_LINES = [codec.encode(r) for r in (
    JobNew(event_time=7, job_id=3, user_name="u", queue="q", command='a "b" c', job_name="n\u2400",
           options=lsbatch.SUB_JOB_NAME, asked_hosts=("h1", "h2"), xfiles=(("a", "b", 2),), rlimits=(-1,) * 11),
    JobStatus(event_time=9, job_id=3, status=lsbatch.JOB_STAT_EXIT, cpu_time=1.5, end_time=9, exit_status=256),
    JobStart(event_time=8, job_id=3, exec_hosts=("h1",) * 3, effective_res_req="select[mem>1]"),
    job_modify(3, event_time=10, user_name="u", user_priority=70, aps_string="system=10"),
)]


@settings(max_examples=500, deadline=None)
@given(base=st.sampled_from(_REAL_LINES), cut=st.integers(0, 400), insert=st.lists(_FRAGMENTS, max_size=3))
def test_fast_decoder_agrees_with_the_reference(base, cut, insert):
    """decode's fast path (regex split + generated per-type code) accepts
    exactly what the token-by-token reference accepts, with equal records."""
    toks = base.split(" ")
    at = cut % (len(toks) + 1)
    line = " ".join(toks[:at] + insert + toks[at:])
    assert _outcome(fastdecode.decode, line) == _outcome(codec._decode_slow, line)


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=40))
def test_fast_decoder_agrees_on_soup(parts):
    line = '"JOB_STATUS" "10.1" 5 ' + " ".join(parts)
    assert _outcome(fastdecode.decode, line) == _outcome(codec._decode_slow, line)


# -- the canonical-shape path (decode's first) against the general paths ------

_PLAIN = st.text(alphabet="ab -_./[]=", max_size=8)
_ODD = st.text(alphabet=st.sampled_from(['a', ' ', '"', '\t', '\u2400', '\u2426', '\x01', 'é', '\udcff']), max_size=6)


def _field_value(spec, strings):
    k = spec.kind
    if k == "i":
        return st.one_of(st.integers(0, 3), st.integers(-(2**40), 2**62))
    if k == "f":
        return st.floats(-1e6, 1e6, allow_nan=False)
    if k == "s":
        return strings
    if k == "slist":
        return st.lists(strings, max_size=3).map(tuple)
    if k == "ints":
        return st.lists(st.integers(-2, 2**31), min_size=spec.size, max_size=spec.size).map(tuple)
    if k == "floats":
        return st.lists(st.floats(0, 1e6), min_size=spec.size, max_size=spec.size).map(tuple)
    if k == "xf":
        return st.lists(st.tuples(strings, strings, st.integers(0, 9)), max_size=2).map(tuple)
    raise AssertionError(k)


@st.composite
def _records(draw, strings=_PLAIN):
    """A record of any type, every field drawn (option words too, so gated
    fields come and go); fields its option bits switch off keep their default."""
    cls = draw(st.sampled_from(list(RECORD_TYPES.values())))
    values = {}
    for spec in cls._SCHEMA:
        values[spec.name] = draw(_field_value(spec, strings))
        if spec.when is not None and not spec.when(values):
            values[spec.name] = _default(cls, spec.name)
    if "ru" in values:  # JOB_STATUS: a rusage block exactly when ru != 0
        values["rusage"] = tuple(float(i) for i in range(lsbatch.NUM_RUSAGE)) if values["ru"] else ()
    return cls(event_time=draw(st.integers(0, 2**40)), version=draw(st.sampled_from(["10.1", "9.13", "7"])),
               **values)


@settings(max_examples=300, deadline=None)  # 16 types: each some 19 times a run (no fixed seed)
@given(_records())
def test_shape_path_decodes_canonical_lines(rec):
    """Every record lsfemu writes with plain strings takes the first path, and
    gives the record the general path gives."""
    line = codec.encode(rec)
    if rec.TYPE not in fastdecode._SHAPES:
        assert rec.TYPE == "JOB_MODIFY2"  # no shape: its gated strings follow each other
        return
    match, convert, both = fastdecode._SHAPES[rec.TYPE]
    m = match(line)
    assert m is not None, line
    if rec._RARE_GATES and _gated_run_given(rec):  # JOB_NEW with -g and -sla...: the shape may read it otherwise
        assert fastdecode.decode(line).__dict__ == codec._decode_slow(line).__dict__
        return
    fast = convert(m.groups())
    assert fast.__dict__ == fastdecode._decode_split(line).__dict__ == codec._decode_slow(line).__dict__
    for end in ("", "\n", "\r", "\r\n"):
        assert both(line + end).__dict__ == fast.__dict__


def _gated_run_given(rec) -> bool:
    """A gated field of *rec*'s optional tail is present (JOB_NEW's LSF 9/10
    strings: next to others that may be absent, the shape's expression may
    take the one for the other)."""
    values = {f.name: getattr(rec, f.name) for f in rec._SCHEMA}
    return any(spec.optional and spec.when is not None and spec.when(values) for spec in rec._SCHEMA)


_EDITS = st.sampled_from(["drop", "dup", "tab", "blank2", "quote", "sign", "float", "trail", "extra"])


@settings(max_examples=400, deadline=None)  # 16 types, each some 25 times a run with fresh damage
@given(rec=st.one_of(_records(), _records(_ODD)), edits=st.lists(st.tuples(_EDITS, st.integers(0, 200)), max_size=3))
def test_shape_path_agrees_on_edited_lines(rec, edits):
    """Damaged or unusual lines: decode (all paths) says what the token-by-token
    reference says -- the same record or the same error."""
    toks = codec.encode(rec).split(" ")
    sep = " "
    for what, at in edits:
        i = at % len(toks)
        if what == "drop":
            del toks[i]
        elif what == "dup":
            toks.insert(i, toks[i])
        elif what == "tab":
            sep = "\t"
        elif what == "blank2":
            toks[i] = toks[i] + " "
        elif what == "quote":
            toks[i] = toks[i].replace('"', "") if '"' in toks[i] else f'"{toks[i]}"'
        elif what == "sign":
            toks[i] = "+" + toks[i]
        elif what == "float":
            toks[i] = toks[i] + ".5"
        elif what == "trail":
            toks[-1] = toks[-1] + " "
        elif what == "extra":
            toks.append("7")
        if not toks:
            return
    line = sep.join(toks)
    assert _outcome(fastdecode.decode, line) == _outcome(codec._decode_slow, line)
