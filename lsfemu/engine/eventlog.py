"""The daemon's lsb.events: every stored job event becomes LSF's records in
`LSFEMU_HOME/logdir/lsb.events`, in step with the store.

Agreement with the store: the records of a request are appended *before*
the store commits, and the file's length after them is committed in the same
transaction (counter `events_offset`). A crash between the two leaves
records the store never acknowledged at the end of the file; the next start
cuts the file back to the committed length. So the log never holds a change
the store does not, and never misses one it does.

Switching (LSF's MAX_JOB_NUM): when the file holds MAX_JOB_NUM finished
jobs, it becomes lsb.events.1 (older ones shift) and the new lsb.events
starts with the records of the jobs still unfinished.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import pwd
from pathlib import Path

from lsfemu.events import emit
from lsfemu.events import lsbatch
from lsfemu.events.fastdecode import reader
from lsfemu.events.fastencode import encode
from lsfemu.events.records import RECORD_TYPES, JobStatus
from lsfemu.events.log import EventWriter, read_events
from lsfemu.jobstate import UNFINISHED
from lsfemu.sched import simulate


@functools.lru_cache(maxsize=None)
def uid_of(user: str) -> int:
    """JOB_NEW's uid: the account's, else the daemon's own (LSFEMU_USER names
    are honoured only for the daemon's uid, and tools such as the snakemake
    plugin compare this field with their geteuid())."""
    try:
        return pwd.getpwnam(user).pw_uid
    except KeyError:
        return os.getuid()


class StagedLog:
    """A log file in step with the store (lsb.events here, lsb.acct in
    lsfemu.engine.acctlog): a request's records are staged, appended before
    its commit and taken back when the commit (or the file) fails. A subclass
    says how records are appended (`_append`) and how its writer is closed and
    opened again (`_close`, `_reopen`)."""

    def __init__(self, path: Path):
        self.path = path
        self.staged: list = []

    def _append(self, records: list) -> None:
        raise NotImplementedError

    def _close(self) -> None:
        raise NotImplementedError

    def _reopen(self) -> None:
        raise NotImplementedError

    def write_staged(self) -> tuple[int, int]:
        """Append the staged records; (offset before, offset after)."""
        before = self.size()
        if not self.staged:
            return before, before  # (nothing appended: no second stat)
        try:
            self._append(self.staged)
        except BaseException:
            # Disk full, read-only: part of the records may be in the file, the rest
            # in the writer's buffer (to be flushed by a later write). Drop both.
            self.undo(before)
            raise
        self.staged = []
        return before, self.size()

    def size(self) -> int:
        try:  # (one stat, not exists() and stat(): called several times a commit)
            return os.stat(self.path).st_size
        except (FileNotFoundError, NotADirectoryError):  # (as Path.exists() said no)
            return 0

    def undo(self, offset: int) -> None:
        """The store refused the commit (or the file the records): take the records back."""
        try:
            self._close()
        except OSError:
            pass  # a buffer that cannot be flushed is dropped with the file
        if self.path.exists():
            os.truncate(self.path, offset)
        self._reopen()


class _Line:
    """What the switch reads of a line this log appended: its job key and time."""

    __slots__ = ("job_key", "event_time")

    def __init__(self, job_key, event_time: int) -> None:
        self.job_key, self.event_time = job_key, event_time


#: lines whose keys a log keeps between switches at most (a bound on memory: past it,
#: the switch reads the rest, as it reads lines another process wrote)
KNOWN_MAX = 50_000


class EventLog(StagedLog):
    def __init__(self, logdir: str):
        super().__init__(Path(logdir) / "lsb.events")
        self.writer: EventWriter | None = None
        # The lines appended since the last switch and those it kept, by byte offset (the
        # switch's keep test reads a line's job key: issue 23, part 4, a tenth of a simulated
        # job's CPU), valid while the file is the one they were written to (inode) and ends
        # where they end.
        self.known: dict[int, _Line] = {}
        self.known_end: tuple[int, int] | None = None  # (inode, offset after the last line known)

    def _append(self, records: list) -> None:
        lines = [encode(r).encode("utf-8", "surrogateescape") + b"\n" for r in records]
        try:
            st = os.stat(self.path)
            at = (st.st_ino, st.st_size)
        except OSError:
            at = None
        self.writer.write_encoded(b"".join(lines))
        if at is None or at != self.known_end:
            self.known = {}  # (another writer, an undo, a new file: what was known no longer holds)
        known = self.known
        offset = at[1] if at is not None else 0
        if len(known) < KNOWN_MAX:
            for r, line in zip(records, lines):
                known[offset] = _Line(r.job_key, r.event_time)
                offset += len(line)
        else:
            offset += sum(map(len, lines))
        self.known_end = (at[0], offset) if at is not None else None

    def _known(self):
        """The switch's look-up of the lines known, None when they may not hold."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return self.known.get if self.known_end == (st.st_ino, st.st_size) else None

    def _close(self) -> None:
        self.writer.close()

    def _reopen(self) -> None:
        self.writer = EventWriter(self.path)
        self.known, self.known_end = {}, None

    # -- start ---------------------------------------------------------------
    def recover(self, committed_offset: int | None) -> None:
        """Cut records past the committed length (written, never acknowledged)."""
        if committed_offset is not None and self.path.exists() and self.path.stat().st_size > committed_offset:
            os.truncate(self.path, committed_offset)
        self._reopen()

    # -- a request -------------------------------------------------------------
    def stage_job(self, job, kind: str, t: float, actor: str | None, data: dict) -> None:
        work = simulate.work_at(job.work_done, job.segment_start, t)
        cpu = simulate.cpu_at(job.sim_runtime, job.sim_cputime, work) if job.start_time is not None else 0.0
        self.staged.extend(emit.records_for(job, kind, t, actor, data, uid_of=uid_of, cpu_time=cpu))

    def stage(self, record) -> None:
        self.staged.append(record)

    def redate(self, latest: int) -> None:
        """Date every record later than `latest` at `latest`, keeping their order
        (the clock of a cluster that has had no job was set back; its log holds
        only daemon starts and queue or host changes). The new file replaces the
        old one at once; the caller commits its length."""
        records = [r if r.event_time <= latest else dataclasses.replace(r, event_time=latest)
                   for _, r in read_events(self.path, skip_preserved=False)] if self.path.exists() else []
        new = self.path.with_name(self.path.name + ".redated")
        new.unlink(missing_ok=True)
        with EventWriter(new) as w:
            w.write_many(records)
        self.writer.close()
        os.replace(new, self.path)
        self._reopen()

    # -- switching -------------------------------------------------------------
    def finished_in_staged(self) -> int:
        """Jobs that end in the staged records (for the MAX_JOB_NUM switch)."""
        return sum(1 for r in self.staged
                   if isinstance(r, JobStatus) and r.status in (lsbatch.JOB_STAT_DONE, lsbatch.JOB_STAT_EXIT))

    def switch(self, max_files: int | None, live: "LiveJobs") -> None:
        head: dict[int, _Line] = {}  # (the new file's lines: known to the next switch as well)

        def kept(at: int, r) -> None:
            if len(head) < KNOWN_MAX:
                head[at] = _Line(getattr(r, "job_key", None), r.event_time)

        self.writer.rotate(max_files, keep=lambda r: getattr(r, "job_key", None) in live, read=_key_reader(),
                           known=self._known(), kept=kept)
        try:
            st = os.stat(self.path)
            self.known, self.known_end = head, (st.st_ino, st.st_size)
        except OSError:
            self.known, self.known_end = {}, None

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


@functools.cache
def _key_reader():
    """A reader of lsb.events lines that decodes of each record its job key
    only (and its time): what the switch looks at (lsfemu.events.fastdecode.reader)."""
    names = ("job_id", "idx", "job_id_str")
    return reader(fields={t: [f.name for f in cls._SCHEMA if f.name in names] for t, cls in RECORD_TYPES.items()})


class LiveJobs:
    """The job keys whose records a switch keeps (``key in live``): the
    unfinished jobs of *jobs*, and an array's JOB_NEW key ``(id, 0)`` while
    any of its elements is unfinished. Looked up per record of the file,
    not built from every job held (issue 23: the clock holds ~100,000 jobs
    and switches every MAX_JOB_NUM ends); the arrays' live IDs are gathered
    once, the first time a ``(id, 0)`` the cluster does not hold is asked."""

    def __init__(self, jobs: dict) -> None:
        self.jobs = jobs
        self.arrays: set[int] | None = None

    def __contains__(self, key) -> bool:
        job = self.jobs.get(key)
        if job is not None:  # (an (id, 0) held is no array: its elements have indices from 1)
            return job.status in UNFINISHED
        if key is None or key[1]:
            return False
        if self.arrays is None:
            self.arrays = {jid for (jid, idx), j in self.jobs.items() if idx and j.status in UNFINISHED}
        return key[0] in self.arrays
