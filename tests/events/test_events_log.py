"""Event files: the writer, streaming reads with warnings, and the log switch."""

from __future__ import annotations

import itertools
import tracemalloc
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lsfemu.engine import eventlog
from lsfemu.engine.eventlog import EventLog, LiveJobs
from lsfemu.events import codec, lsbatch
from lsfemu.events.records import JobClean, JobNew, JobSignal, JobStart, JobStatus, MbdStart, Record
from lsfemu.events import log as L
from lsfemu.events.log import (
    HEADER_WIDTH,
    EventWarning,
    EventWriter,
    event_files,
    header_line,
    last_event_time,
    read_events,
    _parse_header,
    rotate,
)


def _job(jid: int, t: int) -> list[Record]:
    return [
        JobNew(event_time=t, job_id=jid, user_name="u", submit_time=t, queue="normal", command="true"),
        JobStart(event_time=t + 1, job_id=jid, exec_hosts=("h",)),
    ]


def _done(jid: int, t: int) -> Record:
    return JobStatus(event_time=t, job_id=jid, status=lsbatch.JOB_STAT_DONE, end_time=t)


def _read(paths, **kw):
    warnings: list[EventWarning] = []
    out = list(read_events(paths, warnings.append, **kw))
    return out, warnings


def test_writer_header_append_and_read(tmp_path):
    path = tmp_path / "logdir" / "lsb.events"
    with EventWriter(path, fsync=True) as w:
        w.write(MbdStart(event_time=10, master="h", cluster="c", num_hosts=1, num_queues=2))
        w.write_many(_job(1, 11))
    first = path.read_bytes().split(b"\n")[0]
    assert first == b"#39".ljust(HEADER_WIDTH)
    with EventWriter(path) as w:  # reopening appends, no second header
        w.write(_done(1, 20))
    data = path.read_text()
    assert data.count("#") == 1 and data.count("\n") == 5
    out, warnings = _read(path)
    assert warnings == []
    assert [ln for ln, _ in out] == [2, 3, 4, 5]
    assert [r.TYPE for _, r in out] == ["MBD_START", "JOB_NEW", "JOB_START", "JOB_STATUS"]
    assert last_event_time(path) == 20
    w = EventWriter(path)
    w.close()
    with pytest.raises(ValueError):
        w.write(_done(1, 21))


def test_corrupt_unknown_and_extra_are_warnings(tmp_path):
    path = tmp_path / "lsb.events"
    lines = [
        "#39",
        codec.encode(_job(1, 1)[0]),
        '"JOB_NEW" "10.1" 1 broken',
        '"JOB_FINISH" "10.1" 5 1 2 3',
        "",
        codec.encode(_done(1, 6)) + ' 7 "newer"',
        '"JOB_STATUS" "10.1" 7 1 4 0 0 0.0000 0 0 0 0 0 1 2',
        "garbage \"",
        codec.encode(JobClean(event_time=9, job_id=1)),
    ]
    path.write_text("\n".join(lines) + "\n")
    out, warnings = _read(path)
    assert [(ln, r.TYPE) for ln, r in out] == [
        (2, "JOB_NEW"), (6, "JOB_STATUS"), (7, "JOB_STATUS"), (9, "JOB_CLEAN"),
    ]
    assert out[1][1].extra == ("7", '"newer"')
    assert [(w.lineno, w.kind) for w in warnings] == [
        (3, "corrupt"), (4, "unknown"), (6, "extra"), (8, "corrupt"),
    ]
    assert str(warnings[0]).startswith(f"{path}:3: corrupt record skipped: JOB_NEW:")
    assert "JOB_FINISH" in warnings[1].message


def test_read_without_callback_and_crlf(tmp_path):
    path = tmp_path / "lsb.events"
    path.write_bytes(b"#39\r\n" + codec.encode(_done(3, 4)).encode() + b"\r\nbad line\n")
    assert [r.job_id for _, r in read_events(path)] == [3]


def test_non_utf8_bytes_survive(tmp_path):
    path = tmp_path / "lsb.events"
    line = codec.encode(JobSignal(event_time=1, job_id=1, signal_symbol="KILL", user_name="x"))
    path.write_bytes(line.encode().replace(b'"x"', b'"caf\xe9"') + b"\n")
    (_, rec), = read_events(path)
    with EventWriter(tmp_path / "copy") as w:
        w.write(rec)
    assert (tmp_path / "copy").read_bytes().endswith(b'"caf\xe9" ""\n')  # (lsfemu's JOB_SIGNAL reason tail)


def test_reading_streams_in_constant_memory(tmp_path):
    path = tmp_path / "lsb.events"
    line = codec.encode(JobNew(event_time=1, job_id=1, user_name="u", command="x" * 4000)) + "\n"
    with open(path, "w") as fh:
        fh.write("#39\n")
        for _ in range(1500):
            fh.write(line)
    assert path.stat().st_size > 5_000_000
    it = read_events(path)
    next(it)
    tracemalloc.start()
    count = 1
    for _ in it:
        count += 1
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == 1500
    assert peak < 1_000_000


def test_rotate_keeps_unfinished_jobs_and_shifts_archives(tmp_path):
    logdir = tmp_path / "logdir"
    w = EventWriter(logdir / "lsb.events")
    w.write_many(_job(1, 100) + _job(2, 110) + [_done(1, 120)])
    unfinished = {2}

    def keep(rec: Record) -> bool:
        return rec.job_key is not None and rec.job_key[0] in unfinished

    arch = w.rotate(keep=keep)
    assert arch == logdir / "lsb.events.1"
    arch_lines = arch.read_text().splitlines()
    assert arch_lines[0] == "#120".ljust(HEADER_WIDTH)
    assert len(arch_lines) == 6
    cur = (logdir / "lsb.events").read_bytes()
    seek = int(cur.split(b"\n")[0][1:])
    assert cur[:seek].count(b"\n") == 3  # header + job 2's two records
    assert seek == len(cur)
    # the writer goes on appending after the switch
    w.write_many(_job(3, 130) + [_done(2, 140)])
    unfinished = {3}
    w.rotate(keep=keep)
    w.write(_done(3, 150))
    w.close()
    files = event_files(logdir)
    assert [p.name for p in files] == ["lsb.events.2", "lsb.events.1", "lsb.events"]
    # all files oldest first: every record once, in order
    out, warnings = _read(files)
    assert warnings == []
    times = [r.event_time for _, r in out]
    assert times == [100, 101, 110, 111, 120, 130, 131, 140, 150]
    # the current file alone also shows the preserved head (job 3's JOB_NEW)
    out, _ = _read(logdir / "lsb.events")
    assert [r.event_time for _, r in out] == [130, 131, 150]
    out, _ = _read([logdir / "lsb.events"], skip_preserved=True)
    assert [r.event_time for _, r in out] == [150]


def test_rotate_max_files_and_missing_file(tmp_path):
    logdir = tmp_path / "ld"
    assert rotate(logdir, 2) is None
    assert (logdir / "lsb.events").read_bytes() == header_line(39)
    for i in range(4):
        with EventWriter(logdir / "lsb.events") as w:
            w.write(_done(i, 1000 + i))
        rotate(logdir, 2)
    assert [p.name for p in event_files(logdir)] == ["lsb.events.2", "lsb.events.1", "lsb.events"]
    assert (logdir / "lsb.events.1").read_text().splitlines()[0].strip() == "#1003"
    assert (logdir / "lsb.events.2").read_text().splitlines()[0].strip() == "#1002"
    out, _ = _read(event_files(logdir))
    assert [r.event_time for _, r in out] == [1002, 1003]
    # max_files=0 keeps no archive at all
    with EventWriter(logdir / "lsb.events") as w:
        w.write(_done(9, 2000))
    assert rotate(logdir, 0) is None
    assert event_files(logdir) == [logdir / "lsb.events"]


def test_rotate_drops_corrupt_lines_from_head_only(tmp_path):
    logdir = tmp_path
    (logdir / "lsb.events").write_text(
        "#39".ljust(HEADER_WIDTH) + "\n" + codec.encode(_job(1, 5)[0]) + "\nbroken \"\n"
    )
    rotate(logdir, keep=lambda r: True)
    assert "broken" in (logdir / "lsb.events.1").read_text()
    assert "broken" not in (logdir / "lsb.events").read_text()


def _lines_per_line(path, skip_head):
    """The record lines of a file, each line decoded on its own from the
    file's bytes (what _lines did before it read through one text decoder)."""
    pieces = path.read_bytes().split(b"\n")
    raws = [p + b"\n" for p in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
    header = bool(raws) and raws[0].startswith(b"#")
    seek = _parse_header(raws[0]) if header and skip_head else None
    starts = itertools.accumulate([len(r) for r in raws], initial=0)
    out = []
    for lineno, (start, raw) in enumerate(zip(starts, raws), 1):
        if (lineno == 1 and header) or (seek is not None and start < seek):
            continue
        text = raw.decode("utf-8", "surrogateescape").rstrip("\n").rstrip("\r")
        if text.strip(" \t") and not text.strip(" \t").startswith("#"):
            out.append((lineno, text))
    return out


_PIECES = [b'"JOB_NEW" 1\n', b"#c\n", b"  \n", b"\r\n", b"\t# x\n", b"\xe2\x82\n", b"\xff\xfe abc\n",
           b"x\r\r\n", b'   "A"\n', "\u00e9\u2400\n".encode(), b"\n", b"#12\n", b"#\n", b"\xe2\x82\xac"]


@settings(max_examples=300, deadline=None)
@given(head=st.one_of(st.none(), st.integers(0, 60)), pieces=st.lists(st.sampled_from(_PIECES), max_size=12),
       skip=st.booleans())
def test_lines_read_as_line_by_line(tmp_path_factory, head, pieces, skip):
    data = (b"" if head is None else b"#%d     \n" % head) + b"".join(pieces)
    path = tmp_path_factory.mktemp("lines") / "lsb.events"
    path.write_bytes(data)
    seen = []
    assert list(L._lines(path, skip, seen.append)) == _lines_per_line(path, skip)
    assert seen[-1] == len(data)


def test_switch_reads_job_keys_only_and_keeps_the_live_jobs(tmp_path):
    """The clock's switch (EventLog.switch): lines read for their job key only
    give the files a full decode gives; LiveJobs keeps an unfinished job's
    records and an array's JOB_NEW while one of its elements is unfinished."""
    jobs = {(1, 0): SimpleNamespace(status="DONE"), (2, 0): SimpleNamespace(status="RUN"),
            (5, 1): SimpleNamespace(status="DONE"), (5, 2): SimpleNamespace(status="PEND"),
            (6, 1): SimpleNamespace(status="EXIT")}
    live = LiveJobs(jobs)
    assert [k in live for k in [(1, 0), (2, 0), (5, 0), (5, 1), (5, 2), (6, 0), (7, 0), (7, 3), None]] == \
        [False, True, True, False, True, False, False, False, False]
    records = _job(1, 100) + _job(2, 110) + _job(5, 115) + [_done(1, 120), b'"JOB_NEW" broken\n']
    dirs = []
    for full in (True, False):
        logdir = tmp_path / f"full{full}"
        log = EventLog(str(logdir))
        log.recover(None)
        log.writer.write_many(records[:-1])
        log.writer.close()
        with open(logdir / "lsb.events", "ab") as fh:
            fh.write(records[-1])
        log.writer = EventWriter(logdir / "lsb.events")
        if full:  # (the full decode, as rotate reads by default)
            log.writer.rotate(None, keep=lambda r: getattr(r, "job_key", None) in live)
        else:
            log.switch(None, live)
        log.close()
        dirs.append({p.name: p.read_bytes() for p in logdir.iterdir()})
    assert dirs[0] == dirs[1]
    head = dirs[1]["lsb.events"].decode().splitlines()[1:]
    assert [line.split()[3] for line in head] == ["2", "2", "5", "5"]


def test_switch_takes_the_keys_of_the_lines_it_appended(tmp_path, monkeypatch):
    """EventLog keeps the job key of each line it appends and of each line
    its switch keeps: the switch reads only the lines it did not write
    (another writer's) and gives the files a full decode gives; a line another
    process appended, an undo or a new file make it read every line again."""
    jobs = {(1, 0): SimpleNamespace(status="DONE"), (2, 0): SimpleNamespace(status="RUN"),
            (3, 0): SimpleNamespace(status="RUN")}
    live = LiveJobs(jobs)
    reads = []

    def counting(text):
        reads.append(text)
        return L.decode(text)

    monkeypatch.setattr(eventlog, "_key_reader", lambda: counting)
    dirs, logs = [], []
    for full in (True, False):
        logdir = tmp_path / f"full{full}"
        log = EventLog(str(logdir))
        log.recover(None)
        for batch in (_job(1, 100), _job(2, 110) + [_done(1, 120)], _job(3, 130)):
            log.staged = list(batch)
            log.write_staged()
        reads.clear()
        if full:
            log.writer.rotate(None, keep=lambda r: getattr(r, "job_key", None) in live, read=counting)
        else:
            assert log._known() is not None and len(log.known) == 7
            log.switch(None, live)
        assert len(reads) == (7 if full else 0)
        dirs.append({p.name: p.read_bytes() for p in logdir.iterdir()})
        logs.append(log)
    assert dirs[0] == dirs[1]
    log = logs[1]  # its kept head is known too: a second switch reads nothing
    assert len(log.known) == 4
    log.staged = [_done(2, 140)]
    log.write_staged()
    log.switch(None, live)
    assert reads == [] and b"JOB_NEW" in (tmp_path / "fullFalse" / "lsb.events").read_bytes()
    for log in logs:
        log.close()
    # another writer's line, an undo: what was known is not used, and is dropped
    log = EventLog(str(tmp_path / "other"))
    log.recover(None)
    log.staged = _job(1, 100)
    log.write_staged()
    assert log._known() is not None
    with open(log.path, "ab") as fh:
        fh.write((codec.encode(_done(1, 101)) + "\n").encode())
    assert log._known() is None
    log.staged = [_done(1, 102)]
    before, _ = log.write_staged()
    assert list(log.known) == [before] and log._known() is not None
    log.undo(before)
    assert log.known == {} and log._known() is None
    log.close()
