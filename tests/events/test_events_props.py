"""Property tests of the lsb.events codec: decode never fails with anything
but EventSyntaxError, and any string survives encode -> decode on one line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.events import format as F

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
        rec = F.decode(line)
    except F.EventSyntaxError:
        return
    assert isinstance(rec, F.Record)


@settings(max_examples=400, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=60))
def test_decode_token_soup(parts):
    line = " ".join(parts)
    try:
        rec = F.decode(line)
    except F.EventSyntaxError:
        return
    # whatever decodes encodes again, and that is stable
    again = F.decode(F.encode(rec))
    assert F.encode(again) == F.encode(rec)


@settings(max_examples=200, deadline=None)
@given(st.lists(_FRAGMENTS, min_size=3, max_size=60))
def test_decode_prefixed_record_soup(parts):
    line = '"JOB_NEW" "10.1" 5 ' + " ".join(parts)
    try:
        F.decode(line)
    except F.EventSyntaxError:
        pass


@settings(max_examples=300, deadline=None)
@given(user=_text, sig=_text, hosts=st.lists(_text, max_size=4), cmd=_text, name=_text)
def test_round_trip_arbitrary_strings(user, sig, hosts, cmd, name):
    recs = [
        F.JobSignal(event_time=1, job_id=2, signal_symbol=sig, user_name=user),
        F.JobStart(event_time=1, job_id=2, exec_hosts=tuple(hosts), effective_res_req=cmd),
        F.JobNew(event_time=1, job_id=2, user_name=user, job_name=name, command=cmd,
                 asked_hosts=tuple(hosts), cwd=sig),
    ]
    for rec in recs:
        line = F.encode(rec)
        assert "\n" not in line and "\r" not in line
        assert not any(ord(c) < 0x20 or c == "\x7f" for c in line)
        assert F.decode(line) == rec
        assert F.decode(line + "\n") == rec


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-(2**40), max_value=2**40), st.integers(min_value=0, max_value=2**31))
def test_round_trip_numbers(n, t):
    rec = F.JobMove(event_time=t, user_id=n, job_id=abs(n), position=n, base=n, idx=n)
    assert F.decode(F.encode(rec)) == rec


def _outcome(fn, line):
    try:
        rec = fn(line)
    except F.EventSyntaxError as e:
        return (type(e).__name__, str(e))
    return (type(rec).__name__, rec.__dict__)


_REAL_LINES = [F.encode(r) for r in (
    F.JobNew(event_time=7, job_id=3, user_name="u", queue="q", command='a "b" c', job_name="n\u2400",
             options=F.SUB_JOB_NAME, asked_hosts=("h1", "h2"), xfiles=(("a", "b", 2),), rlimits=(-1,) * 11),
    F.JobStatus(event_time=9, job_id=3, status=F.JOB_STAT_EXIT, cpu_time=1.5, end_time=9, exit_status=256),
    F.JobStart(event_time=8, job_id=3, exec_hosts=("h1",) * 3, effective_res_req="select[mem>1]"),
    F.job_modify(3, event_time=10, user_name="u", user_priority=70, aps_string="system=10"),
)]


@settings(max_examples=500, deadline=None)
@given(base=st.sampled_from(_REAL_LINES), cut=st.integers(0, 400), insert=st.lists(_FRAGMENTS, max_size=3))
def test_fast_decoder_agrees_with_the_reference(base, cut, insert):
    """decode's fast path (regex split + generated per-type code) accepts
    exactly what the token-by-token reference accepts, with equal records."""
    toks = base.split(" ")
    at = cut % (len(toks) + 1)
    line = " ".join(toks[:at] + insert + toks[at:])
    assert _outcome(F.decode, line) == _outcome(F._decode_slow, line)


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=40))
def test_fast_decoder_agrees_on_soup(parts):
    line = '"JOB_STATUS" "10.1" 5 ' + " ".join(parts)
    assert _outcome(F.decode, line) == _outcome(F._decode_slow, line)
