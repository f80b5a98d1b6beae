"""bhist's index of the event files: where each job's records are (issue 23).

bhist as one user (or with job IDs) prints a few jobs' histories; reading the
whole lsb.events for them decodes every job's records (at 10,000 jobs, ~0.6 s
of the daemon's CPU for a hundred histories). The index maps, per event file,
each job ID to the byte offsets of its records' lines and each user to the
job IDs of their JOB_NEW records, so that bhist reads and decodes only the
lines of the jobs it may print.

It is built the first time a file is asked for, then kept up to date
incrementally from the file's tail: lsb.events only grows between log
switches, so a later query decodes only the lines appended since. A file is
known by its device and inode; a switch (lsb.events is replaced, the new
lsb.events.1 is a new file; older archives keep their inodes under their new
names), a truncation (a commit taken back, the daemon's recovery at a start),
or a file rewritten in place (its first or last indexed bytes differ) makes
it be indexed anew. The index lives in the process (the daemon's, across
requests); a restarted daemon builds it again at its first bhist.

Byte-identical output: the index decodes every line the way bhist's reader
does (BUILDER_UNUSED / BUILDER_FIELDS); a file with any line that reader
would warn about (a corrupt line, an unknown event type) or an incomplete last
line is not served from the index (None: the caller reads the files whole and
says what it says about them). Reading a subset of the records, in file
order, gives the same histories: HistoryBuilder's history of a job depends
only on that job's records (non-job records change nothing).
"""

from __future__ import annotations

import os
from array import array
from collections import OrderedDict
from pathlib import Path
from typing import Iterable, Iterator

from lsfemu.events.codec import EventSyntaxError, UnknownEventError
from lsfemu.events.fastdecode import decode, reading_table
from lsfemu.events.history import BUILDER_FIELDS, BUILDER_UNUSED
from lsfemu.events.log import _parse_header, archive_number
from lsfemu.events.records import Record

#: bytes compared at the head and at the indexed end of a file to tell that it is the one indexed
_SIG = 64
#: files whose index a process keeps (the current file and a few archives per cluster)
MAX_FILES = 32


def _read_line(table, text: str) -> Record:
    return table(text[1:text.find('"', 1)], decode)(text)


class FileIndex:
    """The index of one event file (see the module docstring)."""

    __slots__ = ("path", "dev", "ino", "end", "seek", "head", "tail", "by_job", "by_user", "clean", "complete")

    def __init__(self, path: Path, st: os.stat_result):
        self.path = path
        self.dev, self.ino = st.st_dev, st.st_ino
        self.end = 0  # bytes indexed: whole lines only
        self.seek: int | None = None  # the header's history seek position (a current file's)
        self.head = b""
        self.tail = b""
        self.by_job: dict[int, array] = {}
        self.by_user: dict[str, set[int]] = {}
        self.clean = True  # no line bhist's reader would warn about
        self.complete = True  # the file ends with a whole line

    def same_file(self, st: os.stat_result) -> bool:
        if (st.st_dev, st.st_ino) != (self.dev, self.ino) or st.st_size < self.end:
            return False
        if self.end == 0:
            return True
        with open(self.path, "rb") as fh:
            if fh.read(len(self.head)) != self.head:
                return False
            fh.seek(self.end - len(self.tail))
            return fh.read(len(self.tail)) == self.tail

    def catch_up(self, size: int) -> None:
        """Index the lines appended since the last call (up to *size* bytes)."""
        if size <= self.end:
            return
        table = reading_table(BUILDER_UNUSED, BUILDER_FIELDS).get
        by_job, by_user = self.by_job, self.by_user
        with open(self.path, "rb") as fh:
            fh.seek(self.end)
            offset = self.end
            self.complete = True
            for raw in iter(fh.readline, b""):
                if not raw.endswith(b"\n"):
                    self.complete = False  # being written: left for the next call
                    break
                start = offset
                offset += len(raw)
                if start == 0 and raw.startswith(b"#"):
                    self.seek = _parse_header(raw)
                    continue
                text = raw.decode("utf-8", "surrogateescape").rstrip("\n").rstrip("\r")
                if text[:1] != '"':
                    stripped = text.strip(" \t")
                    if not stripped or stripped.startswith("#"):
                        continue
                try:
                    rec = _read_line(table, text)
                except (UnknownEventError, EventSyntaxError):
                    self.clean = False
                    continue
                key = rec.job_key
                if key is None:
                    continue  # MBD_START, QUEUE_CTRL, ...: nothing in a job's history
                offs = by_job.get(key[0])
                if offs is None:
                    offs = by_job[key[0]] = array("q")
                offs.append(start)
                if rec.TYPE == "JOB_NEW":
                    by_user.setdefault(rec.user_name, set()).add(key[0])
            self.end = offset
            if self.end:
                fh.seek(0)
                self.head = fh.read(min(_SIG, self.end))
                fh.seek(max(0, self.end - _SIG))
                self.tail = fh.read(self.end - max(0, self.end - _SIG))

    def offsets(self, jobs: Iterable[int], skip_head: bool) -> list[int]:
        out: list[int] = []
        for j in jobs:
            offs = self.by_job.get(j)
            if offs is not None:
                out.extend(offs)
        if skip_head and self.seek is not None:
            out = [o for o in out if o >= self.seek]
        out.sort()
        return out

    def records(self, offsets: list[int]) -> Iterator[Record]:
        table = reading_table(BUILDER_UNUSED, BUILDER_FIELDS).get
        with open(self.path, "rb") as fh:
            for off in offsets:
                fh.seek(off)
                text = fh.readline().decode("utf-8", "surrogateescape").rstrip("\n").rstrip("\r")
                yield _read_line(table, text)


_INDEXES: OrderedDict[str, FileIndex] = OrderedDict()


def file_index(path: Path) -> FileIndex | None:
    """The up-to-date index of *path* (None when it does not exist)."""
    key = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        _INDEXES.pop(key, None)
        return None
    idx = _INDEXES.get(key)
    if idx is None or not idx.same_file(st):
        idx = FileIndex(path, st)
    idx.catch_up(st.st_size)
    _INDEXES[key] = idx
    _INDEXES.move_to_end(key)
    while len(_INDEXES) > MAX_FILES:
        _INDEXES.popitem(last=False)
    return idx


def indexed_records(paths: list[Path], jobs: set[int] | None = None,
                    users: set[str] | None = None) -> Iterator[Record] | None:
    """The records of *paths* (oldest first, as bhist reads them) of the job
    IDs *jobs*, or of the jobs some JOB_NEW of which names one of *users*
    (a superset of the jobs whose history is theirs), in file order, with the
    preserved head of a current file skipped exactly when an archive is read
    too (as read_events does). None when the files cannot be served from the
    index: the caller then reads them whole."""
    indexes = []
    for p in paths:
        idx = file_index(p)
        if idx is None:
            continue
        if not idx.clean or not idx.complete:
            return None
        indexes.append(idx)
    if jobs is None:
        jobs = set()
        for idx in indexes:
            for u in users or ():
                jobs |= idx.by_user.get(u, set())
    skip_head = any(archive_number(p) for p in paths)
    plan = [(idx, idx.offsets(jobs, skip_head and archive_number(idx.path) == 0)) for idx in indexes]

    def gen() -> Iterator[Record]:
        for idx, offsets in plan:
            yield from idx.records(offsets)

    return gen()
