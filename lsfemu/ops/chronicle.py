"""``bhist -t``: every event of the selected jobs in time order, one line
each -- the straightforward way (:func:`chronicle`, from histories built
whole) and streamed while the log is read once (:class:`ChronicleStream`,
in bounded memory; ``cli.bhist`` picks).

The stream is the hot path of ``bhist -t -f`` on a long log (issue 23): the
lines of the common record types in their canonical shape (JOB_NEW, the
dispatch, start, execute and status records: what a busy log is made of)
are taken by readers of its own (:meth:`ChronicleStream._taker`) -- decoded
only in the fields the history builder reads, and handed straight to the
builder's code for that type (for the types that add one change, TOLD_AS,
the change is added here), without the general reading's layers; every
other line goes the general way (:func:`~lsfemu.events.log.read_events`,
which decodes it, reports its problems and feeds the builder). Both paths
end in the same builder methods and the same rendering, so the output is
the same (tests/events/test_chronicle_stream.py holds it equal to the
straightforward one).
"""

from __future__ import annotations

import bisect
import itertools
import math
import operator
from pathlib import Path
from typing import Any, Callable

from lsfemu.events.fastdecode import shape_reader
from lsfemu.events import lsbatch
from lsfemu.events.history import (
    BUILDER_FIELDS, BUILDER_UNUSED, SUBMIT_FIELDS, TOLD_AS, CannotStream, Change, HistoryBuilder, JobHistory,
    display_id, finish_data, submit_data,
)
from lsfemu.events.log import EventWarning, read_events
from lsfemu.jobstate import FINISHED
from lsfemu.render import bhist as R
from lsfemu.render.timefmt import RecordStamps
from lsfemu.render.wrap import SOFT_SPACE


def _modify_line(h: JobHistory, d: dict, style: str, ran: bool | None) -> list[str]:
    items = list(d.get("items") or [])
    return ["Parameters of Job are changed: " + "; ".join(items) + ";"] if items else []


#: change kind -> its texts (bhist -l's, but MODIFY's items on one line)
_TEXTS = {**R.EVENT_TEXTS, "MODIFY": _modify_line}


def chronicle_lines(h: JobHistory, ch: Change, ran: bool, stamps: RecordStamps) -> list[str]:
    """The ``bhist -t`` lines of one change of *h* (*ran*: dispatched since
    its submission or last requeue, this change included); *stamps* makes
    the time stamps (events share their seconds: each is formatted once)."""
    texts = _TEXTS.get(ch.kind)
    if texts is None:
        return []
    texts = texts(h, ch.data, "auto", ran)
    if not texts:
        return []
    head = f"{stamps[ch.time]}Job <{h.display_id}>, "
    return [head + tail for tail in _tails(texts)]


def _tails(texts: list[str]) -> list[str]:
    """The -t lines of record *texts* after their time stamp and job: the
    first letter lowered, never wrapped."""
    out = []
    for text in texts:
        line = f"{text[:1].lower()}{text[1:]}\n"
        out.append(line.replace(SOFT_SPACE, " ") if SOFT_SPACE in line else line)
    return out


def chronicle(histories: list[JobHistory], *, year: bool = False,
              window: tuple[float, float] | None = None) -> str:
    """``bhist -t``: every event of *histories* (in *window*: -T) in time order, one line each."""
    rows: list[tuple[float, int, str]] = []  # (time, sequence in job order and change order, line)
    stamps = RecordStamps(year)
    for h in histories:
        ran = False
        for ch in h.changes:
            if ch.kind == "DISPATCH":
                ran = True
            elif ch.kind == "REQUEUE":
                ran = False
            if window is not None and not window[0] <= ch.time <= window[1]:
                continue
            for line in chronicle_lines(h, ch, ran, stamps):
                rows.append((ch.time, len(rows), line))
    rows.sort()  # by time, then as listed (job order, change order): the sequence is unique
    return "".join([r[2] for r in rows])


class ChronicleStream:
    """``bhist -t`` of every job of *users* (None: all) while the log is read
    once, in bounded memory: the builder hands each change over as it is
    made (:class:`HistoryBuilder` streaming); its lines wait in a buffer and
    are written to *out*, in the order :func:`chronicle` gives (time, then
    the order in which the jobs appeared, then the order of their changes),
    once no record can come with an earlier time -- which the log's time
    order says of lines more than :attr:`SLACK` seconds older than the
    record being read. A line that would go before one already written
    raises :class:`CannotStream` (the log is not in time order there): the
    caller then reads it again the straightforward way.

    The jobs whose records are all common (see :class:`_Lean`) are not the
    builder's: they are held here as a few values each, their lines made
    straight from their records; the first record of one that is not
    common hands it to the builder (:meth:`_Lean.promote`)."""

    #: how far back in time a record may put a change (a finish logged after it happened)
    SLACK = 600.0
    #: records read between two flushes
    EVERY = 4096

    def __init__(self, out: Any, users: set[str] | None, year: bool,
                 window: tuple[float, float] | None = None):
        self.out = out
        self.users = users
        self.year = year
        self.window = window  # -T: the events in it
        self.buffer: list[tuple[float, int, int, str]] = []  # (time, job order, sequence, line)
        self.seq = itertools.count()
        self.written: tuple[float, int, int] | None = None  # the key of the last line written
        self.lines = 0
        self.peak = 0  # the most lines waiting at once
        self.stamps = RecordStamps(year)
        self.builder = HistoryBuilder(stream=self.change)
        self.lean = _Lean(self)
        self.count = [0]  # records read since the last flush (a list: the lean takers count in it too)

    def _tick(self, t: int) -> None:
        """Before a record of time *t* is fed: every EVERY records, write
        the lines older than the slack and forget the jobs finished then."""
        count = self.count
        count[0] += 1
        if count[0] == self.EVERY:
            self.due(t)

    def due(self, t: int) -> None:
        """:meth:`_tick`'s work, every EVERY records."""
        self.count[0] = 0
        before = t - self.SLACK
        self.flush(before)
        self.builder.forget_finished(before)
        self.lean.forget_finished(before)

    def put(self, t: float, order: int, lines: list[str]) -> None:
        """Buffer *lines* (complete) of the job of *order* at time *t*."""
        written, seq = self.written, self.seq
        append = self.buffer.append
        for line in lines:
            n = next(seq)
            if written is not None and t <= written[0] and (t, order, n) < written:
                raise CannotStream(f"a line at {t} after one at {written[0]} was written")
            append((t, order, n, line))

    def change(self, h: JobHistory, ch: Change) -> None:
        if self.users is not None and h.user not in self.users:
            return
        t = ch.time
        if self.window is not None and not self.window[0] <= t <= self.window[1]:
            return
        self.put(t, h.order, chronicle_lines(h, ch, h.started, self.stamps))

    def flush(self, before: float) -> None:
        """Write the lines older than *before*."""
        buf = self.buffer
        self.peak = max(self.peak, len(buf))
        if len(self.stamps) > 4096:
            self.stamps.clear()
        buf.sort()
        cut = bisect.bisect_left(buf, (before,))
        if cut:
            self.out.write("".join([r[3] for r in buf[:cut]]))
            self.written = buf[cut - 1][:3]
            self.lines += cut
            del buf[:cut]

    def read(self, paths: list[Path], warn: Callable[[EventWarning], None]) -> int:
        """Read *paths* and write the chronicle; the number of lines written."""
        feed, tick = self.builder.feed, self._tick
        lean = self.lean
        held, promote = lean.jobs, lean.promote
        for _, rec in read_events(paths, warn, unused=BUILDER_UNUSED, fields=BUILDER_FIELDS, fast=lean.takers()):
            tick(rec.event_time)
            if held:
                key = rec.job_key
                if key is not None:
                    if key in held:
                        promote(key)
                    elif key[1] and (key[0], 0) in held:  # an element of a lean job: its head's
                        promote((key[0], 0))
            feed(rec)
        self.flush(math.inf)
        return self.lines


#: a lean job's values (a list, changed in place)
_ORDER, _HEAD, _STATUS, _STARTED, _SHOWN, _FINISH, _USER = range(7)
_POST_BITS = lsbatch.JOB_STAT_PDONE | lsbatch.JOB_STAT_PERR
#: the fields of JOB_NEW the lean reading reads: the job's identity and what its text shows
_NEW_FIELDS = ("job_id", "idx", "user_name", "job_name", "submit_time", *SUBMIT_FIELDS)


class _Lean:
    """The lean path of :class:`ChronicleStream` (issue 23, streams): the
    lines of the common record types in their canonical shape (JOB_NEW,
    JOB_START, JOB_START_ACCEPT, JOB_EXECUTE, and JOB_STATUS of a finish or
    a post-job process: what a busy log is made of) decoded only in the
    fields their texts read (:func:`~lsfemu.events.fastdecode.shape_reader`)
    and made into their lines here, for jobs held as a few values
    (``jobs``: order, line head, state, dispatched, shown, finish time,
    user) -- no history, no change objects. The texts are bhist -l's
    (``_TEXTS``), and those of a submission and a dispatch are made once per
    distinct set of the fields they read (``SUBMIT_FIELDS``; the hosts and
    the effective resource requirement). The state kept is what the
    builder's code for these types reads (:meth:`HistoryBuilder._status`),
    and nothing here is a record the builder would treat otherwise: a job
    array's JOB_NEW, any other record of a lean job (a signal, a state
    change, a requeue, an element of it, a line not in the canonical shape)
    hands the job to the builder first (:meth:`promote`), which goes on
    from the same state; the order of the jobs is one count for both.
    tests/events/test_chronicle_stream.py holds the output equal to
    :func:`chronicle`'s on logs of every record type."""

    #: the most distinct texts kept for submissions and dispatches
    MEMO = 4096

    def __init__(self, stream: ChronicleStream):
        self.stream = stream
        self.jobs: dict[tuple[int, int], list] = {}
        self._finished: list[tuple[float, tuple[int, int], list]] = []  # to forget, as the builder's

    def promote(self, key: tuple[int, int]) -> None:
        """Hand the lean job *key* to the builder, in the state it is in."""
        st = self.jobs.pop(key)
        h = JobHistory(job_id=key[0], array_index=key[1], user=st[_USER], status=st[_STATUS],
                       started=st[_STARTED], finish_time=st[_FINISH], order=st[_ORDER])
        b = self.stream.builder
        b.histories[key] = h
        if st[_STATUS] in FINISHED:
            b._finished.append((st[_FINISH], key, h))

    def forget_finished(self, before: float) -> None:
        """:meth:`HistoryBuilder.forget_finished` of the lean jobs (their keys
        join the builder's forgotten ones: a later record raises CannotStream)."""
        keep = []
        jobs, gone = self.jobs, self.stream.builder._gone
        for item in self._finished:
            t, key, st = item
            if t >= before:
                keep.append(item)
            elif st[_STATUS] in FINISHED and jobs.get(key) is st:
                del jobs[key]
                gone.add(key)
        self._finished[:] = keep  # (in place: the takers append to it)

    def takers(self) -> dict[str, Callable[[str], bool]]:
        """Event type -> the reader that takes its common lines (for
        :func:`~lsfemu.events.log.read_events`' *fast*); a line it leaves
        goes the general way."""
        stream = self.stream
        builder, jobs, finished = stream.builder, self.jobs, self._finished
        histories, gone = builder.histories, builder._gone
        count, every, due, stamps = stream.count, stream.EVERY, stream.due, stream.stamps
        users, window, seq, append = stream.users, stream.window, stream.seq, stream.buffer.append
        stub = JobHistory(job_id=0)  # the texts read the change's data, not the history
        memo = self.MEMO

        def emit(st: list, t: float, tails: list[str]) -> None:  # ChronicleStream.put of the job's lines
            if st[_SHOWN] and (window is None or window[0] <= t <= window[1]):
                head = stamps[t] + st[_HEAD]
                order, written = st[_ORDER], stream.written
                for tail in tails:
                    n = next(seq)
                    if written is not None and t <= written[0] and (t, order, n) < written:
                        raise CannotStream(f"a line at {t} after one at {written[0]} was written")
                    append((t, order, n, head + tail))

        submits: dict[tuple, tuple[list[str], str]] = {}
        submit_key = operator.attrgetter(*SUBMIT_FIELDS)
        submit_texts = _TEXTS["SUBMIT"]
        read_new = shape_reader("JOB_NEW", _NEW_FIELDS)

        def job_new(line: str) -> bool:
            rec = read_new(line)
            if rec is None or rec.options & lsbatch.SUB_JOB_NAME and not rec.idx and "[" in rec.job_name:
                return False  # (a job array: the builder makes its elements)
            key = (rec.job_id, rec.idx)
            if key in jobs or key in histories or key in gone:
                raise CannotStream(f"job <{key[0]}> submitted again")
            t = rec.event_time
            count[0] += 1
            if count[0] == every:
                due(t)
            k = submit_key(rec)
            made = submits.get(k)
            if made is None:
                if len(submits) >= memo:
                    submits.clear()
                data = submit_data(rec)
                made = submits[k] = (_tails(submit_texts(stub, data, "auto", False)),
                                     "PSUSP" if data["hold"] else "PEND")
            order = builder._made
            builder._made += 1
            user = rec.user_name
            st = jobs[key] = [order, f"Job <{display_id(*key)}>, ", made[1], False,
                              users is None or user in users, None, user]
            emit(st, rec.submit_time or t, made[0])
            return True

        def job_record(etype: str, tails_of: Callable[[list, Any], list[str]]) -> Callable[[str], bool]:
            read = shape_reader(etype, BUILDER_FIELDS[etype])

            def take(line: str) -> bool:
                rec = read(line)
                st = None if rec is None else jobs.get((rec.job_id, rec.idx))
                if st is None:
                    return False
                t = rec.event_time
                count[0] += 1
                if count[0] == every:
                    due(t)
                emit(st, t, tails_of(st, rec))
                return True
            return take

        dispatches: dict[tuple, list[str]] = {}
        dispatch_texts, dispatch_data = _TEXTS["DISPATCH"], TOLD_AS["JOB_START"][1]

        def dispatch(st: list, rec: Any) -> list[str]:  # JOB_START
            st[_STATUS] = "RUN"
            st[_STARTED] = True
            k = (rec.exec_hosts, rec.effective_res_req)  # what the text reads
            tails = dispatches.get(k)
            if tails is None:
                if len(dispatches) >= memo:
                    dispatches.clear()
                tails = dispatches[k] = _tails(dispatch_texts(stub, dispatch_data(rec), "auto", True))
            return tails

        def told_as(etype: str) -> Callable[[list, Any], list[str]]:
            kind, data = TOLD_AS[etype]
            texts = _TEXTS[kind]

            def tails(st: list, rec: Any) -> list[str]:  # a change of no state: its texts
                return _tails(texts(stub, data(rec), "auto", st[_STARTED])) if st[_SHOWN] else []
            return tails

        finish_texts = _TEXTS["FINISH"]
        post_tails = {ok: _tails(_TEXTS["POST"](stub, {"ok": ok}, "auto", False)) for ok in (True, False)}
        read_status = shape_reader("JOB_STATUS", BUILDER_FIELDS["JOB_STATUS"])

        def job_status(line: str) -> bool:  # HistoryBuilder._status, of a finish and a post-job process
            rec = read_status(line)
            key = None if rec is None else (rec.job_id, rec.idx)
            st = None if key is None else jobs.get(key)
            if st is None:
                return False
            code = rec.status
            status = st[_STATUS]
            done = status in FINISHED
            t = rec.event_time
            if code & _POST_BITS and done:
                count[0] += 1
                if count[0] == every:
                    due(t)
                emit(st, t, post_tails[not code & lsbatch.JOB_STAT_PERR])
                return True
            name = lsbatch.status_name(code)
            if name not in FINISHED:
                return False  # a state of the accounting: the builder's
            count[0] += 1
            if count[0] == every:
                due(t)
            if done and status == name:
                return True  # a repeated finish record
            started = st[_STARTED]
            end = rec.end_time or t
            st[_STATUS] = name
            st[_FINISH] = end
            finished.append((end, key, st))
            emit(st, end, _tails(finish_texts(stub, finish_data(rec, name, started), "auto", started)))
            if code & _POST_BITS:
                emit(st, t, post_tails[not code & lsbatch.JOB_STAT_PERR])
            return True

        return {"JOB_NEW": job_new, "JOB_START": job_record("JOB_START", dispatch), "JOB_STATUS": job_status,
                "JOB_START_ACCEPT": job_record("JOB_START_ACCEPT", told_as("JOB_START_ACCEPT")),
                "JOB_EXECUTE": job_record("JOB_EXECUTE", told_as("JOB_EXECUTE"))}
