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
import math
from pathlib import Path
from typing import Any, Callable

from lsfemu.events.fastdecode import shape_reader
from lsfemu.events.history import (
    BUILDER_FIELDS, BUILDER_UNUSED, TOLD, TOLD_AS, CannotStream, Change, HistoryBuilder, JobHistory,
)
from lsfemu.events.log import EventWarning, read_events
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
    lines = []
    for text in texts:
        line = f"{head}{text[:1].lower()}{text[1:]}\n"
        lines.append(line.replace(SOFT_SPACE, " ") if SOFT_SPACE in line else line)
    return lines


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
    caller then reads it again the straightforward way."""

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
        self.seq = 0
        self.written: tuple[float, int, int] | None = None  # the key of the last line written
        self.lines = 0
        self.peak = 0  # the most lines waiting at once
        self.stamps = RecordStamps(year)
        self.builder = HistoryBuilder(stream=self.change)
        self._count = 0  # records read since the last flush

    def _tick(self, t: int) -> None:
        """Before a record of time *t* is fed: every EVERY records, write
        the lines older than the slack and forget the jobs finished then."""
        self._count += 1
        if self._count == self.EVERY:
            self._count = 0
            before = t - self.SLACK
            self.flush(before)
            self.builder.forget_finished(before)

    def _takers(self) -> dict[str, Callable[[str], bool]]:
        """Event type -> the reader that takes its canonical lines (see the
        module docstring): the record read in part and fed to the builder's
        code for its type, as :meth:`HistoryBuilder.feed` would; a line it
        does not take (another shape, or a job it does not hold: feed then
        says what happens) is left to the general reading."""
        builder = self.builder
        held = builder.histories
        tick = self._tick
        takers: dict[str, Callable[[str], bool]] = {}

        def job_new(read: Callable[[str], Any]) -> Callable[[str], bool]:
            def take(line: str) -> bool:
                rec = read(line)
                if rec is None:
                    return False
                t = rec.event_time
                tick(t)
                builder.job_new(rec, float(t))
                return True
            return take

        def job_record(read: Callable[[str], Any], told: Callable[..., None]) -> Callable[[str], bool]:
            def take(line: str) -> bool:
                rec = read(line)
                if rec is None:
                    return False
                h = held.get((rec.job_id, rec.idx))
                if h is None:
                    return False
                t = rec.event_time
                tick(t)
                told(builder, h, float(t), rec)
                return True
            return take

        change = self.change

        def told_as(kind: str, data: Callable[[Any], dict]) -> Callable[..., None]:
            # what TOLD's _told_as does, without the builder's layers: the change appended, handed
            # to the stream, and the history kept to it, as builder._told does
            def told(builder: HistoryBuilder, h: JobHistory, t: float, rec: Any) -> None:
                ch = h.append(t, kind, data(rec))
                change(h, ch)
                del h.changes[:-1]
                h.transitions.clear()
            return told

        for etype in ("JOB_NEW", "JOB_START", "JOB_START_ACCEPT", "JOB_EXECUTE", "JOB_STATUS"):
            read = shape_reader(etype, BUILDER_FIELDS[etype])
            if read is None:
                continue
            if etype == "JOB_NEW":
                takers[etype] = job_new(read)
            else:
                takers[etype] = job_record(read, told_as(*TOLD_AS[etype]) if etype in TOLD_AS else TOLD[etype])
        return takers

    def change(self, h: JobHistory, ch: Change) -> None:
        if self.users is not None and h.user not in self.users:
            return
        t = ch.time
        if self.window is not None and not self.window[0] <= t <= self.window[1]:
            return
        lines = chronicle_lines(h, ch, h.started, self.stamps)
        written, order, seq = self.written, h.order, self.seq
        append = self.buffer.append
        for line in lines:
            if written is not None and t <= written[0] and (t, order, seq) < written:
                raise CannotStream(f"a line at {t} after one at {written[0]} was written")
            append((t, order, seq, line))
            seq += 1
        self.seq = seq

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
        for _, rec in read_events(paths, warn, unused=BUILDER_UNUSED, fields=BUILDER_FIELDS, fast=self._takers()):
            tick(rec.event_time)
            feed(rec)
        self.flush(math.inf)
        return self.lines
