"""The event log files: appending, LSF's log switch, and streaming reads.

Layout (``LSB_SHAREDIR/<cluster>/logdir`` in LSF, ``$LSFEMU_HOME/logdir`` in
lsfemu): the current file ``lsb.events`` and archives ``lsb.events.1`` (the
most recent) ... ``lsb.events.N`` (the oldest).

* ``lsb.events`` starts with ``#<history seek position>`` padded with blanks
  to 38 characters (mbatchd writes ``#`` + 37 blanks, then overwrites the
  front with the number): the byte offset where this file's own history
  starts. Records before that offset are copies, made at the last switch, of
  the records of jobs that were still unfinished (so a reader of the current
  file alone -- bhist without -n, the snakemake plugin's awk -- still sees
  their JOB_NEW).
* ``lsb.events.N`` starts with ``#<time of its most recent event>``.

:func:`rotate` performs the switch (LSF does it when MAX_JOB_NUM jobs have
finished since the last one): archives shift up by one (``.1`` -> ``.2`` ...,
dropping those beyond ``max_files``), the current file's own history becomes
``lsb.events.1``, and a new ``lsb.events`` is started with the records that
``keep`` selects (the unfinished jobs' records) before its seek position.

:func:`read_events` streams records (constant memory in the file length).
Problems never stop it; they go to the ``on_warning`` callback as
:class:`EventWarning` values: a corrupt line (with its line number), an
unknown event type, and -- once per event type and file -- trailing fields
beyond the ones lsfemu knows (newer LSF versions).
"""

from __future__ import annotations

import io
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from lsfemu.events.codec import EventSyntaxError, UnknownEventError
from lsfemu.events.fastencode import encode
from lsfemu.events.fastdecode import decode, reading_table
from lsfemu.events.records import RECORD_TYPES, Record

CURRENT = "lsb.events"
#: width of the header line without its newline (``#`` + 37 blanks in LSF)
HEADER_WIDTH = 38

_ARCHIVE_RE = re.compile(r"lsb\.events\.(\d+)\Z")


@dataclass(frozen=True)
class EventWarning:
    """A problem met while reading: ``kind`` is ``corrupt``, ``unknown`` or
    ``extra``; ``lineno`` is 1-based within ``path``."""

    path: str
    lineno: int
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.lineno}: {self.message}"


WarningCallback = Callable[[EventWarning], None]


def header_line(number: int) -> bytes:
    """``#<number>`` padded to the fixed header width, with its newline."""
    return (f"#{number}".ljust(HEADER_WIDTH) + "\n").encode("ascii")


def archive_number(path: str | os.PathLike[str]) -> int | None:
    """N for ``lsb.events.N``, 0 for ``lsb.events``, None for other names."""
    name = Path(path).name
    if name == CURRENT:
        return 0
    m = _ARCHIVE_RE.match(name)
    return int(m.group(1)) if m else None


def event_files(logdir: str | os.PathLike[str]) -> list[Path]:
    """The existing event files of *logdir*, oldest first (``lsb.events.N``
    ... ``lsb.events.1``, ``lsb.events``) -- the order to read them in."""
    d = Path(logdir)
    archives = []
    if d.is_dir():
        for p in d.iterdir():
            n = archive_number(p)
            if n:
                archives.append((n, p))
    files = [p for _, p in sorted(archives, reverse=True)]
    cur = d / CURRENT
    if cur.exists():
        files.append(cur)
    return files


def _parse_header(first: bytes) -> int | None:
    if not first.startswith(b"#"):
        return None
    try:
        return int(first[1:].strip() or b"x")
    except ValueError:
        return None


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------


class EventWriter:
    """Appends encoded records to one event file (normally
    ``logdir/lsb.events``), creating it with a header when it does not exist
    or is empty. Every :meth:`write` is flushed; with ``fsync=True`` it is
    also forced to disk. Thread-safe; usable as a context manager."""

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False):
        self.path = Path(path)
        self.fsync = fsync
        self._lock = threading.Lock()
        self._fh = None
        self._open()

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "ab")
        if fh.tell() == 0:
            fh.write(header_line(HEADER_WIDTH + 1))
            fh.flush()
        self._fh = fh

    def write(self, record: Record) -> None:
        self.write_many([record])

    def write_many(self, records: Iterable[Record]) -> None:
        self.write_encoded(b"".join(
            encode(r).encode("utf-8", "surrogateescape") + b"\n" for r in records
        ))

    def write_encoded(self, data: bytes) -> None:
        """Append lines already encoded (each ending in a newline)."""
        with self._lock:
            if self._fh is None:
                raise ValueError("event writer is closed")
            self._fh.write(data)
            self._fh.flush()
            if self.fsync:
                os.fsync(self._fh.fileno())

    def rotate(
        self, max_files: int | None = None, keep: Callable[[Record], bool] | None = None,
        read: Callable[[str], Record] = decode, known: Callable[[int], Record | None] | None = None,
        kept: Callable[[int, Record], None] | None = None,
    ) -> Path | None:
        """Switch the file this writer appends to (see :func:`rotate`)."""
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None
            try:
                return rotate(self.path.parent, max_files, keep=keep, name=self.path.name, read=read, known=known,
                              kept=kept)
            finally:
                self._open()

    def close(self) -> None:
        with self._lock:
            if self._fh is not None:
                self._fh.close()
                self._fh = None

    def __enter__(self) -> "EventWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------


def _lines(path: Path, skip_head: bool, on_bytes: Callable[[int], None] | None = None) -> Iterator[tuple[int, str]]:
    """(lineno, text) of the record lines of one file (header, comments and
    blank lines skipped; with *skip_head* the copies before the history seek
    position of a current file too). *on_bytes* hears, now and then and at
    the end, how many bytes of the file have been read.

    The header and the preserved head are read as bytes (their offsets
    matter); the rest through one text decoder, which gives the same text as
    decoding each line (UTF-8 never has a newline inside a character)."""
    with open(path, "rb") as fh:
        seek = None
        offset = 0
        lineno = 0
        for raw in iter(fh.readline, b""):
            lineno += 1
            start = offset
            offset += len(raw)
            if lineno == 1 and raw.startswith(b"#"):
                seek = _parse_header(raw) if skip_head else None
                continue
            if seek is not None and start < seek:
                continue
            text = raw.decode("utf-8", "surrogateescape").rstrip("\n").rstrip("\r")
            stripped = text.strip(" \t")
            if stripped and not stripped.startswith("#"):
                yield lineno, text
            break
        rest = io.TextIOWrapper(fh, encoding="utf-8", errors="surrogateescape", newline="\n")
        for lineno, text in enumerate(rest, lineno + 1):
            if on_bytes is not None and not lineno & 4095:
                on_bytes(fh.tell())
            text = text.rstrip("\n").rstrip("\r")
            if text[:1] != '"':  # a record starts with its quoted type
                stripped = text.strip(" \t")
                if not stripped or stripped.startswith("#"):
                    continue
            yield lineno, text
        if on_bytes is not None:
            on_bytes(fh.tell())


def read_events(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    on_warning: WarningCallback | None = None,
    *,
    skip_preserved: bool | None = None,
    jobs: JobFilter | None = None,
    unused: frozenset[str] = frozenset(),
    fields: dict[str, frozenset[str]] | None = None,
    fast: dict[str, Callable[[str], bool]] | None = None,
) -> Iterator[tuple[int, Record]]:
    """Stream ``(lineno, record)`` from one file or several (given oldest
    first, as :func:`event_files` lists them); line numbers are per file.

    Corrupt lines, unknown event types and unknown trailing fields are
    reported to *on_warning* (see :class:`EventWarning`) and reading goes on.
    *skip_preserved*: skip the records a current ``lsb.events`` holds before
    its history seek position (copies of records already in
    ``lsb.events.1``); by default they are skipped exactly when an archive
    file is read in the same call. *jobs*: see :class:`JobFilter`; *unused*,
    *fields* and *fast*: see :func:`read_event_lines`."""
    for lineno, _text, record in read_event_lines(paths, on_warning, skip_preserved=skip_preserved, jobs=jobs,
                                                  unused=unused, fields=fields, fast=fast):
        yield lineno, record


def _job_id_positions() -> dict[str, int]:
    """Event type (as quoted in a line) -> token position of its job ID, for
    the job record types whose job ID follows nothing but plain integers
    (JOB_MODIFY2's is a quoted ``"123[4]"`` string at position 3)."""
    out: dict[str, int] = {}
    for etype, cls in RECORD_TYPES.items():
        for i, spec in enumerate(cls._SCHEMA):
            if spec.name == "job_id":
                out[f'"{etype}"'] = 3 + i
                break
            if spec.kind != "i" or spec.when is not None or spec.optional:
                break
    out['"JOB_MODIFY2"'] = 3
    return out


_JOB_ID_POS = _job_id_positions()
_MAX_JOB_ID_POS = max(_JOB_ID_POS.values())


class JobFilter:
    """Read only the records of these job IDs (bhist with job IDs): a job
    record of another job is recognised from its first tokens and skipped
    without being decoded -- its problems, if any, go unreported, as LSF's
    bhist reads only the files its job index names. Records that are not job
    records, and lines too unusual to skim, are decoded as usual.
    ``last_time`` is the latest event time seen among the skipped records."""

    __slots__ = ("ids", "last_time")

    def __init__(self, ids: Iterable[int]):
        self.ids = frozenset(ids)
        self.last_time: int | None = None

    def skip(self, text: str) -> bool:
        sp = text.split(None, _MAX_JOB_ID_POS + 1)
        pos = _JOB_ID_POS.get(sp[0]) if sp else None
        if pos is None or len(sp) <= pos:
            return False
        tok = sp[pos]
        if pos == 3 and tok[:1] == '"':  # JOB_MODIFY2: "123" or "123[4]"
            tok = tok[1:-1].partition("[")[0] if tok[-1:] == '"' else ""
        if not (tok.isdigit() and tok.isascii()) or int(tok) in self.ids:
            return False
        t = sp[2]
        if t.isdigit() and t.isascii():
            t = int(t)
            if self.last_time is None or t > self.last_time:
                self.last_time = t
        return True


def read_event_lines(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    on_warning: WarningCallback | None = None,
    *,
    skip_preserved: bool | None = None,
    on_bytes: Callable[[int], None] | None = None,
    jobs: JobFilter | None = None,
    unused: frozenset[str] = frozenset(),
    fields: dict[str, frozenset[str]] | None = None,
    fast: dict[str, Callable[[str], bool]] | None = None,
) -> Iterator[tuple[int, str, Record]]:
    """As :func:`read_events`, with each record's line as read (so that a
    copy keeps newer versions' fields byte for byte). *on_bytes* hears how
    many bytes of all the files have been read so far (for progress bars).
    *jobs*: only those jobs' records (and the non-job records). *unused*:
    event types whose fields the caller does not read but their event time:
    their records may come as :class:`~lsfemu.events.fastdecode.Skimmed`.
    *fields*: event type -> the only fields the caller reads of it: its
    records may come with just those decoded. The same lines are accepted
    and warned about either way (see :func:`~lsfemu.events.fastdecode.reader`).
    *fast*: event type -> a reader that takes a line of that type itself
    (True: nothing is yielded for it; it must take only lines that decode
    reads without a warning) or leaves it to be read here (False)."""
    if isinstance(paths, (str, os.PathLike)):
        path_list = [Path(paths)]
    else:
        path_list = [Path(p) for p in paths]
    if skip_preserved is None:
        skip_preserved = any(archive_number(p) for p in path_list)
    warn = on_warning or (lambda w: None)
    # the reading of each type (fastdecode.reader's, without its call): else decode
    read = reading_table(unused, fields).get if unused or fields else None
    done = 0
    for path in path_list:
        head_skip = skip_preserved and archive_number(path) == 0
        extra_seen: set[str] = set()
        per_file = None if on_bytes is None else (lambda n, base=done: on_bytes(base + n))
        for lineno, text in _lines(path, head_skip, per_file):
            if jobs is not None and jobs.skip(text):
                continue
            if fast is not None:
                taker = fast.get(text[1:text.find('"', 1)])
                if taker is not None and taker(text):
                    continue
            try:
                record = read(text[1:text.find('"', 1)], decode)(text) if read else decode(text)
            except UnknownEventError as exc:
                warn(EventWarning(str(path), lineno, "unknown",
                                  f"unknown event type {exc.event_type}; record skipped"))
                continue
            except EventSyntaxError as exc:
                warn(EventWarning(str(path), lineno, "corrupt", f"corrupt record skipped: {exc}"))
                continue
            if record.extra and record.TYPE not in extra_seen:
                extra_seen.add(record.TYPE)
                warn(EventWarning(
                    str(path), lineno, "extra",
                    f"{record.TYPE} version {record.version} has {len(record.extra)} field(s) "
                    "after the ones lsfemu knows; ignored",
                ))
            yield lineno, text, record
        if on_bytes is not None:
            done += path.stat().st_size


def last_event_time(path: str | os.PathLike[str]) -> int | None:
    """The event time of the last readable record of *path* (streaming)."""
    last = None
    for _, rec in read_events(path, skip_preserved=False):
        last = rec.event_time
    return last


# ---------------------------------------------------------------------------
# the log switch
# ---------------------------------------------------------------------------


def rotate(
    logdir: str | os.PathLike[str],
    max_files: int | None = None,
    *,
    keep: Callable[[Record], bool] | None = None,
    name: str = CURRENT,
    read: Callable[[str], Record] = decode,
    known: Callable[[int], Record | None] | None = None,
    kept: Callable[[int, Record], None] | None = None,
) -> Path | None:
    """LSF's event log switch in *logdir*.

    1. ``lsb.events.K`` becomes ``lsb.events.K+1`` for every archive (the ones
       that would get a number above *max_files* are deleted; ``None`` keeps
       all);
    2. the records of ``lsb.events`` after its history seek position become
       ``lsb.events.1``, headed ``#<time of its last event>``;
    3. a new ``lsb.events`` holds the records of the old one (preserved head
       included) for which ``keep(record)`` is true, followed by the history
       seek position pointing after them.

    Corrupt lines are dropped from the new head (they stay in the archive).
    *read* decodes a line: :func:`~lsfemu.events.fastdecode.decode`, or a
    :func:`~lsfemu.events.fastdecode.reader` of the fields *keep* looks at
    (the same lines accepted, the same errors). *known*: the record of the
    line at a byte offset of the current file when the caller knows it
    (it wrote the line: lsfemu.engine.eventlog), else None -- the line is
    then read. *kept*: told the byte offset in the new file of each record
    it keeps, and the record.
    Returns the new archive's path, or None when there was no current file
    (an empty one is then created). Not safe against a concurrent writer:
    use :meth:`EventWriter.rotate` for a file a writer holds open."""
    d = Path(logdir)
    d.mkdir(parents=True, exist_ok=True)
    cur = d / name
    if not cur.exists():
        cur.write_bytes(header_line(HEADER_WIDTH + 1))
        return None

    # 1. shift the archives (highest first)
    archives = sorted(
        ((archive_number(p), p) for p in d.iterdir() if archive_number(p)), reverse=True
    )
    for n, p in archives:
        if max_files is not None and n + 1 > max_files:
            p.unlink()
        else:
            os.replace(p, d / f"{CURRENT}.{n + 1}")

    # 2./3. one pass over the current file: its own history -> archive, kept
    # records -> the new head
    arch_tmp = d / f"{CURRENT}.1.tmp"
    new_tmp = d / f"{name}.tmp"
    last_time = 0
    with open(cur, "rb") as src, open(arch_tmp, "wb") as arch, open(new_tmp, "wb") as new:
        arch.write(header_line(0))
        new.write(header_line(0))
        seek = None
        offset = 0
        for lineno, raw in enumerate(src, 1):
            start = offset
            offset += len(raw)
            if lineno == 1 and raw.startswith(b"#"):
                seek = _parse_header(raw)
                continue
            if not raw.endswith(b"\n"):
                raw += b"\n"
            in_head = seek is not None and start < seek
            record = known(start) if known is not None else None
            if record is None:
                text = raw.decode("utf-8", "surrogateescape")
                if text.strip() and not text.lstrip().startswith("#"):
                    try:
                        record = read(text)
                    except EventSyntaxError:
                        record = None
            if not in_head:
                arch.write(raw)
                if record is not None:
                    last_time = record.event_time
            if record is not None and keep is not None and keep(record):
                if kept is not None:
                    kept(new.tell(), record)
                new.write(raw)
        pos = new.tell()
        arch.seek(0)
        arch.write(header_line(last_time))
        new.seek(0)
        new.write(header_line(pos))
    os.replace(arch_tmp, d / f"{CURRENT}.1")
    if max_files is not None and max_files < 1:
        (d / f"{CURRENT}.1").unlink()
    os.replace(new_tmp, cur)
    return d / f"{CURRENT}.1" if max_files is None or max_files >= 1 else None
