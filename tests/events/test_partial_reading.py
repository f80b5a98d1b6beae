"""fastdecode.reader: records read in part (some fields of some types, only the
event time of others) against decode -- the same lines accepted, the same
errors, and decode's values in every field that was read."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.events import codec, fastdecode, lsbatch
from lsfemu.events.records import JobNew, JobStart, JobStatus, RECORD_TYPES
from lsfemu.replay.tracker import _FIELDS, _UNUSED
from test_events_props import _EDITS, _ODD, _gated_run_given, _records

pytestmark = pytest.mark.slow(30)  # seconds, quiet machine: scheduled early (tests/conftest.py)

_BASE = frozenset(("event_time", "version", "extra"))


@st.composite
def _plan(draw):
    """Some types unused, some read in part (a drawn subset of their fields)."""
    types = sorted(RECORD_TYPES)
    unused = draw(st.sets(st.sampled_from(types)))
    fields = {}
    for t in draw(st.sets(st.sampled_from(types))):
        if t not in unused:
            names = [f.name for f in RECORD_TYPES[t]._SCHEMA]
            fields[t] = frozenset(draw(st.sets(st.sampled_from(names))))
    return frozenset(unused), fields


#: damage to the tokens of a line at position i (test_events_props' edits, as functions)
_DAMAGE = {
    "drop": lambda toks, i: toks[:i] + toks[i + 1:],
    "dup": lambda toks, i: toks[:i + 1] + toks[i:],
    "blank2": lambda toks, i: toks[:i] + [toks[i] + " "] + toks[i + 1:],
    "quote": lambda toks, i: toks[:i] + [toks[i].replace('"', "") if '"' in toks[i] else f'"{toks[i]}"'] + toks[i + 1:],
    "sign": lambda toks, i: toks[:i] + ["+" + toks[i]] + toks[i + 1:],
    "float": lambda toks, i: toks[:i] + [toks[i] + ".5"] + toks[i + 1:],
    "trail": lambda toks, i: toks[:-1] + [toks[-1] + " "],
    "extra": lambda toks, i: toks + ["7"],
}


def _edit(line: str, edits) -> str | None:
    """*line* damaged or made unusual (a "tab" edit: tabs between the fields)."""
    toks = line.split(" ")
    for what, at in edits:
        if what != "tab":
            toks = _DAMAGE[what](toks, at % len(toks))
        if not toks:
            return None
    return ("\t" if any(what == "tab" for what, _ in edits) else " ").join(toks)


def _agree(read, unused, fields, line: str) -> str:
    """Assert that read(line) says what decode(line) says; returns how it was read."""
    try:
        full = fastdecode.decode(line)
    except codec.EventSyntaxError as want:
        with pytest.raises(codec.EventSyntaxError) as got:
            read(line)
        assert (type(got.value), str(got.value)) == (type(want), str(want))
        return "error"
    rec = read(line)
    if type(rec) is fastdecode.Skimmed:
        assert full.TYPE in unused and rec.kind is type(full)
        assert (rec.event_time, rec.version, rec.extra) == (full.event_time, full.version, full.extra)
        return "skimmed"
    if type(rec) is type(full):
        assert rec == full
        return "whole"
    assert full.TYPE in fields and isinstance(rec, type(full))
    have = fastdecode._needed(type(full), fields[full.TYPE])
    for f in RECORD_TYPES[full.TYPE]._SCHEMA:
        if f.name in have:
            assert getattr(rec, f.name) == getattr(full, f.name), f.name
        else:
            with pytest.raises(AttributeError, match="not decoded"):
                getattr(rec, f.name)
    assert (rec.event_time, rec.version, rec.extra) == (full.event_time, full.version, full.extra)
    assert set(rec.__dict__) == have | _BASE
    return "part"


# 400: 16 record types, each drawn some 25 times a run with a fresh plan and fresh damage
# (no fixed seed: each run explores anew); 800 took a minute of a loaded worker.
@settings(max_examples=400, deadline=None)
@given(plan=_plan(), rec=st.one_of(_records(), _records(_ODD)),
       edits=st.lists(st.tuples(_EDITS, st.integers(0, 200)), max_size=3), end=st.sampled_from(["", "\n", "\r\n"]))
def test_reader_agrees_with_decode(plan, rec, edits, end):
    """Canonical, damaged and unusual lines of every type, under any plan:
    the same error as decode, or decode's values in the fields read."""
    unused, fields = plan
    read = fastdecode.reader(unused, fields)
    line = codec.encode(rec)
    _agree(read, unused, fields, line + end)
    edited = _edit(line, edits)
    if edited is not None:
        _agree(read, unused, fields, edited + end)


@settings(max_examples=300, deadline=None)
@given(rec=_records())
def test_replays_plan_reads_canonical_lines_in_part(rec):
    """Under replay's own plan, every canonical line of a type it reads in
    part and that has a shape comes read in part (JOB_MODIFY2: whole)."""
    read = fastdecode.reader(_UNUSED, _FIELDS)
    how = _agree(read, _UNUSED, _FIELDS, codec.encode(rec))
    if rec.TYPE in _FIELDS and rec._RARE_GATES and _gated_run_given(rec):  # JOB_NEW with -g: may go whole
        assert how in ("whole", "part")
    elif rec.TYPE in _FIELDS:
        assert how == ("whole" if rec.TYPE not in fastdecode._SHAPES else "part")
    elif rec.TYPE in fastdecode._SKIM and rec.TYPE in _UNUSED:
        assert how == "skimmed"


def test_a_record_read_in_part_says_what_it_lacks():
    line = codec.encode(JobStatus(event_time=5, job_id=3, status=lsbatch.JOB_STAT_DONE, ru=1,
                                  rusage=tuple(float(i) for i in range(lsbatch.NUM_RUSAGE))))
    rec = fastdecode.reader((), {"JOB_STATUS": {"status"}})(line)
    assert isinstance(rec, JobStatus) and type(rec) is not JobStatus
    assert (rec.status, rec.event_time, rec.ru) == (lsbatch.JOB_STAT_DONE, 5, 1)  # ru: the rusage gate reads it
    with pytest.raises(AttributeError, match="JOB_STATUS record read in part: rusage was not decoded"):
        rec.rusage
    assert "status" in repr(rec) and "rusage" not in repr(rec)
    assert fastdecode.reading_table((), {"JOB_STATUS": {"status"}}) is fastdecode.reading_table((), {"JOB_STATUS": frozenset(["status"])})
    with pytest.raises(ValueError, match="JOB_STATUS has no field bogus"):
        fastdecode.reader((), {"JOB_STATUS": {"bogus"}})


def test_a_list_read_in_part_still_has_its_count_checked():
    """JOB_NEW's asked_hosts not read: a count that disagrees with the items
    is still the line decode rejects (or reads otherwise)."""
    good = codec.encode(JobNew(event_time=5, job_id=3, asked_hosts=("h1", "h2"), user_name="u", queue="q"))
    bad = good.replace(' 2 "h1" "h2"', ' 3 "h1" "h2"')
    assert bad != good
    read = fastdecode.reader((), {"JOB_NEW": {"job_id"}})
    assert read(good).job_id == 3
    for line in (good, bad):
        _agree(read, frozenset(), {"JOB_NEW": {"job_id"}}, line)


@pytest.mark.parametrize("until", [None, 500])
def test_replay_reading_in_part_stores_what_decoding_whole_stores(tmp_path, monkeypatch, until):
    """replay --into with its plan (_FIELDS read in part, _UNUSED skimmed)
    against every record decoded whole: the same rows, log copy, warnings
    and configuration -- with lines of the types read in part that decode
    reads otherwise (another shape) or rejects, before and after --until."""
    import sqlite3

    from lsfemu import replay as rp
    from lsfemu.replay import tracker
    from test_chronicle_stream import T0, write_log

    path = tmp_path / "lsb.events"
    write_log(path, 2, jobs=150)
    new = codec.encode(JobNew(event_time=T0 + 9000, job_id=900, submit_time=T0 + 9000, user_name="u9",
                              queue="late", command="sleep 5", asked_hosts=("h1",)))
    with open(path, "a") as fh:
        fh.write(new.replace(" ", "  ", 5) + "\n")  # another shape: decoded whole
        fh.write(new.replace(' 1 "h1"', ' 2 "h1"').replace(" 900 ", " 901 ") + "\n")  # a bad count: rejected
        fh.write(codec.encode(JobStart(event_time=T0 + 9001, job_id=900, exec_hosts=("h1", "h2"))) + "\n")
        fh.write('"JOB_STATUS" "10.1" 1709629206 900 64 0 0 x 0 0 0 0\n')  # a letter for the CPU time
        fh.write(codec.encode(JobStatus(event_time=T0 + 9100, job_id=900, status=lsbatch.JOB_STAT_EXIT, ru=1,
                                        rusage=(1.5,) * lsbatch.NUM_RUSAGE, exit_status=256, cpu_time=2.5)) + "\n")
    kw = dict(progress=False) if until is None else dict(progress=False, until=float(T0 + until))
    part = rp.replay_into([path], tmp_path / "part", **kw)
    monkeypatch.setattr(tracker, "_FIELDS", {})
    monkeypatch.setattr(tracker, "_UNUSED", frozenset())
    whole = rp.replay_into([path], tmp_path / "whole", **kw)
    assert part.warnings.lines() == whole.warnings.lines() and part.warnings.counts["corrupt"] >= 3
    assert (part.events, part.jobs, part.stored, part.alive, part.until) == \
        (whole.events, whole.jobs, whole.stored, whole.alive, whole.until)
    log = "logdir/lsb.events"
    assert (part.home / log).read_bytes() == (whole.home / log).read_bytes()
    for conf in ("lsf.conf", "lsbatch/c/configdir/lsb.hosts", "lsbatch/c/configdir/lsb.queues"):
        text = (part.into / conf).read_text().replace(str(part.into), "INTO")
        assert text == (whole.into / conf).read_text().replace(str(whole.into), "INTO")

    def rows(summary):
        with sqlite3.connect(summary.home / "lsfemu.db") as db:
            return [db.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
                    for t in ("jobs", "counters", "clock", "queue_state", "host_state")]

    assert rows(part) == rows(whole)
