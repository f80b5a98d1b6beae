"""bhist -t streamed (cli.bhist.ChronicleStream, HistoryBuilder streaming)
against the straightforward path (every history built, then
cli.bhist.chronicle): the same bytes on logs with every record type, and the
retry the straightforward way whenever streaming cannot be exact."""

from __future__ import annotations

import calendar
import io
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from lsfemu.cli import bhist as B
from lsfemu.cli.base import Ctx
from lsfemu.events import codec, lsbatch
from lsfemu.events.bmodrecord import job_modify
from lsfemu.events.records import (
    HostCtrl, JobClean, JobExecute, JobMove, JobNew, JobRequeue, JobSignal, JobStart, JobStartAccept, JobStatus,
    JobSwitch, MbdDie, MbdStart, QueueCtrl, Record,
)
from lsfemu.events.history import CannotStream
from lsfemu.events.log import EventWriter
from lsfemu.events.synth import write_events

pytestmark = pytest.mark.slow(27)  # seconds, quiet machine: scheduled early (tests/conftest.py)

T0 = calendar.timegm((2024, 3, 5, 9, 0, 0))
USERS = ("alice", "bob", "carol")
STATUS = [lsbatch.JOB_STAT_PEND, lsbatch.JOB_STAT_PSUSP, lsbatch.JOB_STAT_RUN, lsbatch.JOB_STAT_USUSP, lsbatch.JOB_STAT_SSUSP,
          lsbatch.JOB_STAT_UNKWN, lsbatch.JOB_STAT_RUN]


def _job_records(rng: random.Random, jid: int, t: int, idx: int = 0) -> list[Record]:
    """A random life of one job (or array element) from time *t* on: every
    job record type, states back and forth, requeues, post-job records."""
    out: list[Record] = []
    for _ in range(rng.randint(0, 9)):
        t += rng.choice((0, 0, 1, 3, 40))
        kind = rng.choice(("start", "status", "signal", "switch", "move", "modify", "requeue", "finish",
                           "post", "clean"))
        if kind == "start":
            hosts = tuple(rng.choice(("h1", "h2")) for _ in range(rng.randint(1, 3)))
            out += [JobStart(event_time=t, job_id=jid, idx=idx, exec_hosts=hosts,
                             effective_res_req=rng.choice(("", "select[mem>1]"))),
                    JobStartAccept(event_time=t, job_id=jid, idx=idx, job_pid=jid * 10),
                    JobExecute(event_time=t, job_id=jid, idx=idx, job_pid=rng.choice((0, jid * 10)),
                               exec_home="/home/x", exec_cwd="/home/x/w")]
        elif kind == "status":
            out.append(JobStatus(event_time=t, job_id=jid, idx=idx, status=rng.choice(STATUS),
                                 reason=rng.choice((0, lsbatch.PEND_JOB_NEW, lsbatch.PEND_JOB_REQUEUED))))
        elif kind == "signal":
            out.append(JobSignal(event_time=t, job_id=jid, idx=idx, user_name="bob",
                                 signal_symbol=rng.choice(("KILL", "STOP", "DELETEJOB"))))
        elif kind == "switch":
            out.append(JobSwitch(event_time=t, job_id=jid, idx=idx, queue="long", user_name="root"))
        elif kind == "move":
            out.append(JobMove(event_time=t, job_id=jid, idx=idx, position=2,
                               base=rng.choice((lsbatch.TO_TOP, lsbatch.TO_BOTTOM)), user_name="root"))
        elif kind == "modify":
            out.append(job_modify(jid, event_time=t, user_name="alice", array_index=idx,
                                  user_priority=rng.choice((None, 40)), run_limit_s=rng.choice((None, 600)),
                                  job_name=rng.choice((None, "renamed"))))
        elif kind == "requeue":
            out.append(JobRequeue(event_time=t, job_id=jid, idx=idx))
        elif kind == "finish":
            ok = rng.random() < 0.6
            end = t - rng.choice((0, 0, 0, 2))  # a finish logged a little after it happened
            out.append(JobStatus(event_time=t, job_id=jid, idx=idx, cpu_time=1.5, end_time=end,
                                 status=lsbatch.JOB_STAT_DONE if ok else lsbatch.JOB_STAT_EXIT,
                                 exit_status=0 if ok else lsbatch.wait_status(3), exit_info=rng.choice((0, 14))))
        elif kind == "post":
            out.append(JobStatus(event_time=t, job_id=jid, idx=idx,
                                 status=lsbatch.JOB_STAT_DONE | rng.choice((lsbatch.JOB_STAT_PDONE, lsbatch.JOB_STAT_PERR))))
        else:
            out.append(JobClean(event_time=t, job_id=jid, idx=idx))
    return out


def write_log(path: Path, seed: int, jobs: int = 60) -> None:
    """A log with every record type lsfemu models (jobs, arrays, control
    records), an unknown type and a corrupt line, in time order."""
    rng = random.Random(seed)
    pending: list[tuple[int, int, Record]] = []
    t = T0
    n = 0
    recs: list[Record] = [MbdStart(event_time=T0, master="m", cluster="c", num_hosts=2, num_queues=2)]
    for jid in range(1, jobs + 1):
        t += rng.choice((0, 1, 2, 30))
        array = rng.random() < 0.1
        name = f"arr[1-{rng.randint(1, 3)}]" if array else rng.choice(("", "named"))
        recs.append(JobNew(event_time=t, job_id=jid, user_name=rng.choice(USERS), queue="normal",
                           options=lsbatch.SUB_JOB_NAME if name else 0, job_name=name or "sleep 1",
                           command="sleep 1", submit_time=t - rng.choice((0, 0, 1)),
                           num_processors=rng.choice((1, 2)), from_host="login1", cwd="/home/x/w",
                           sub_home_dir="/home/x"))
        for idx in (range(1, 4) if array else (0,)):
            for r in _job_records(rng, jid, t, idx):
                n += 1
                pending.append((r.event_time, n, r))
        if rng.random() < 0.05:
            recs.append(QueueCtrl(event_time=t, opcode=lsbatch.QUEUE_CLOSED, queue="normal", user_name="root"))
            recs.append(HostCtrl(event_time=t, opcode=lsbatch.HOST_CLOSE, host="h1", user_name="root"))
    recs += [r for _, _, r in sorted(pending, key=lambda p: (p[0], p[1]))]
    recs.sort(key=lambda r: r.event_time)  # stable: each job's records stay in their order
    recs.append(MbdDie(event_time=recs[-1].event_time, master="m"))
    with EventWriter(path) as w:
        w.write_many(recs[: len(recs) // 2])
    with open(path, "a") as fh:
        fh.write('"LOAD_INDEX" "10.1" 1709629206 0\n')
        fh.write('"JOB_START" "10.1" 1709629205 3 4 0 0 1.0 2 "h1\n')
    with EventWriter(path) as w:
        w.write_many(recs[len(recs) // 2:])


def run_bhist(path: Path, *argv: str, stdout=None) -> tuple[str, str, int]:
    c = Ctx(cluster=None, cmd="bhist", argv=[*argv, "-f", str(path)], user="alice", uid=0, cwd="/",
            env={}, stdout=stdout)
    r = B.run(c)
    if stdout is not None:
        return stdout.getvalue() + r.out, r.err, r.rc
    return r.out, r.err, r.rc


def straightforward(path: Path, users: set[str] | None) -> tuple[str, str, int]:
    """bhist -t the straightforward way: every history built, then chronicle()."""
    c = Ctx(cluster=None, cmd="bhist", argv=[], user="alice", uid=0, cwd="/", env={})
    histories, _ = B._read(c, [path], None)
    selected = [h for h in histories if users is None or h.user in users]
    if not selected:
        return B.NOT_FOUND_T, "".join(c.err), 255
    return B.chronicle(selected), "".join(c.err), 0


def streamed(path: Path, users: set[str] | None) -> str:
    """ChronicleStream itself (raises CannotStream instead of falling back)."""
    out = io.StringIO()
    B.ChronicleStream(out, users, False).read([path], lambda w: None)
    return out.getvalue()


@pytest.fixture(params=[(4096, 600.0), (1, 0.0), (3, 5.0)], ids=["default", "every-record", "small-slack"])
def flushing(request, monkeypatch):
    """How often the stream writes and forgets: as shipped, and far more often
    (every record; a slack of 0 or 5 s) so that small logs exercise it."""
    every, slack = request.param
    monkeypatch.setattr(B.ChronicleStream, "EVERY", every)
    monkeypatch.setattr(B.ChronicleStream, "SLACK", slack)
    return request.param


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("who", [("-u", "all"), ("-u", "bob"), ()])
def test_streamed_chronicle_is_the_straightforward_one(tmp_path, flushing, seed, who):
    path = tmp_path / "lsb.events"
    write_log(path, seed)
    users = None if who == ("-u", "all") else {"bob" if who else "alice"}
    want = straightforward(path, users)
    assert want[0].count("\n") > 20 and "corrupt record skipped" in want[1]
    # through the command: local (the caller's stdout) and in the daemon (the result)
    assert run_bhist(path, "-t", *who, stdout=io.StringIO()) == want
    assert run_bhist(path, "-t", *who) == want
    if flushing[0] == 4096:  # a small log in time order streams without a retry
        assert streamed(path, users) == want[0]


def test_synthetic_log_streams_in_bounded_memory(tmp_path, monkeypatch):
    path = tmp_path / "lsb.events"
    jobs = write_events(path, 6000)
    want = straightforward(path, None)[0]
    monkeypatch.setattr(B.ChronicleStream, "EVERY", 64)
    monkeypatch.setattr(B.ChronicleStream, "SLACK", 60.0)  # the lines of a minute wait (the log spans an hour)
    out = io.StringIO()
    stream = B.ChronicleStream(out, None, False)
    assert stream.read([path], lambda w: None) == want.count("\n")
    assert out.getvalue() == want
    # the jobs finished long before the end were forgotten, the lines written
    assert len(stream.builder.histories) + len(stream.lean.jobs) < jobs / 5
    assert len(stream.buffer) == 0 and stream.peak < len(want.splitlines()) / 5


def test_common_lines_skip_the_general_reading(tmp_path, monkeypatch):
    """The lines of a busy log's common types are taken by the stream's own
    readers (ops.chronicle, issue 23): only the others reach
    HistoryBuilder.feed, and the chronicle is the same."""
    from lsfemu.events.history import HistoryBuilder
    path = tmp_path / "lsb.events"
    write_events(path, 600)
    want = straightforward(path, None)[0]
    fed: list[str] = []
    feed = HistoryBuilder.feed
    monkeypatch.setattr(HistoryBuilder, "feed", lambda self, rec: (fed.append(getattr(rec, "kind", rec).TYPE), feed(self, rec))[1])
    assert streamed(path, None) == want
    assert fed == ["MBD_START"]  # (skimmed: its event time only)


def _log(path: Path, records: list[Record]) -> None:
    with EventWriter(path) as w:
        w.write_many(records)


def _new(jid: int, t: int, **kw) -> JobNew:
    return JobNew(event_time=t, job_id=jid, user_name="alice", queue="normal", command="c", submit_time=t, **kw)


def _done(jid: int, t: int, end: int | None = None, idx: int = 0) -> list[Record]:
    return [JobStatus(event_time=t, job_id=jid, idx=idx, status=lsbatch.JOB_STAT_DONE, end_time=end or t),
            JobStatus(event_time=t, job_id=jid, idx=idx, status=lsbatch.JOB_STAT_DONE | lsbatch.JOB_STAT_PDONE)]


RETRIES = {
    # a job ID used again: the straightforward path keeps one history per ID
    "id-reused": [_new(1, T0), *_done(1, T0 + 5), _new(2, T0 + 6), _new(1, T0 + 900), *_done(1, T0 + 901)],
    # a record of a job forgotten long after it finished (brequeue of a DONE job)
    "late-record": [_new(1, T0), *_done(1, T0 + 5), _new(2, T0 + 6), *_done(2, T0 + 2000),
                    JobRequeue(event_time=T0 + 2000, job_id=1)],
    # an element its JOB_NEW did not list: it copies the job's whole history
    "clone": [_new(1, T0), JobStart(event_time=T0 + 1, job_id=1, idx=2, exec_hosts=("h",))],
    # a finish logged an hour after it happened, after later lines were written
    "late-finish": [_new(1, T0), _new(2, T0 + 1), *_done(2, T0 + 700), _new(3, T0 + 4000),
                    *_done(1, T0 + 4000, end=T0 + 2)],
}


@pytest.mark.parametrize("case", sorted(RETRIES))
def test_what_streaming_cannot_follow_is_read_again(tmp_path, monkeypatch, case):
    path = tmp_path / "lsb.events"
    _log(path, RETRIES[case])
    monkeypatch.setattr(B.ChronicleStream, "EVERY", 1)
    want = straightforward(path, None)
    with pytest.raises(CannotStream):
        streamed(path, None)
    assert run_bhist(path, "-t", "-a", "-u", "all", stdout=io.StringIO()) == want
    assert run_bhist(path, "-t", "-u", "all") == want


def test_nothing_selected(tmp_path):
    path = tmp_path / "lsb.events"
    _log(path, [_new(1, T0)])
    assert run_bhist(path, "-t", "-u", "nobody", stdout=io.StringIO()) == ("No matching job/event found\n", "", 255)


# -- the lean path (ops.chronicle._Lean) against the straightforward one, on generated streams ---------------

_SYNTH_START = 1767603600  # events.synth's first instant


def _damage(line: str, kind: str) -> list[str]:
    """*line* (a synthetic record) and what *kind* puts after it or instead: lines the lean path
    leaves to the general reading (a corrupt line, an unknown type, a line not in its canonical
    shape) and records of the same job it hands to the builder (a signal, a state of the
    accounting, a requeue, a finish said again)."""
    f = line.split()
    t, jid = int(f[2]), int(f[3])
    if kind == "corrupt":
        return [line, f'"JOB_START" "10.1" {t} {jid} 4 0 0 1.0 2 "h1']
    if kind == "unknown":
        return [line, f'"LOAD_INDEX" "10.1" {t} 0']
    if kind == "spaced":
        return [line.replace(" ", "  ", 1)]
    if kind == "again":
        return [line, line] if not line.startswith('"JOB_NEW"') else [line]
    rec = {
        "signal": JobSignal(event_time=t, job_id=jid, user_name="root", signal_symbol="KILL"),
        "suspend": JobStatus(event_time=t, job_id=jid, status=lsbatch.JOB_STAT_USUSP),
        "pend": JobStatus(event_time=t, job_id=jid, status=lsbatch.JOB_STAT_PEND, reason=lsbatch.PEND_JOB_NEW),
        "requeue": JobRequeue(event_time=t, job_id=jid),
        "switch": JobSwitch(event_time=t, job_id=jid, queue="short", user_name="root"),
    }[kind]
    return [line, codec.encode(rec)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), events=st.integers(7, 160),
       damage=st.lists(st.tuples(st.integers(1, 10_000), st.sampled_from(
           ("corrupt", "unknown", "spaced", "again", "signal", "suspend", "pend", "requeue", "switch"))), max_size=6),
       users=st.sampled_from((None, {"user001"}, {"user000", "user002", "user003"})),
       window=st.one_of(st.none(), st.tuples(st.integers(0, 600), st.integers(0, 1200))),
       every=st.sampled_from((1, 7, 4096)))
def test_lean_stream_is_the_straightforward_chronicle(tmp_path_factory, seed, events, damage, users, window, every):
    path = tmp_path_factory.mktemp("lean") / "lsb.events"
    write_events(path, events, users=4, seed=seed)
    head, *lines = path.read_text().splitlines()
    for at, kind in sorted(damage, reverse=True):  # from the end: the positions stay those drawn
        i = at % len(lines)
        if i:  # (not MBD_START)
            lines[i:i + 1] = _damage(lines[i], kind)
    path.write_text("\n".join([head, *lines]) + "\n")
    span = None if window is None else (float(_SYNTH_START + window[0]), float(_SYNTH_START + window[0] + window[1]))
    c = Ctx(cluster=None, cmd="bhist", argv=[], user="alice", uid=0, cwd="/", env={})
    histories, _ = B._read(c, [path], None)
    want = B.chronicle([h for h in histories if users is None or h.user in users], window=span)
    out = io.StringIO()
    stream = B.ChronicleStream(out, users, False, span)
    stream.EVERY = every
    try:
        stream.read([path], lambda w: None)
    except CannotStream:
        event("read again")
        return  # (the command reads it again the straightforward way: test_what_streaming_cannot_follow...)
    event("streamed")
    assert out.getvalue() == want
