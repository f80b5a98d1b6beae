"""bhist: job histories read from the event log (reference section 4).

Files. Without ``-f`` bhist reads ``<LSFEMU_HOME>/logdir`` (the cluster's
``home``): by default only the current ``lsb.events`` (its preserved head
included, so unfinished jobs submitted before the last log switch are
there); ``-n N`` the current file and the N-1 most recent archives
(``lsb.events.1`` ...), ``-n 0`` every file, ``-n min,max`` the files
numbered min to max (0 = ``lsb.events``); with job IDs and no ``-n`` every
file (OpenLava searches back a week; lsfemu has no index and reads them all).
A missing ``lsb.events`` counts as an empty log. ``-f FILE`` reads that one
file (relative to the caller's cwd) and needs no cluster: ``c.cluster`` may be
None, and then "now" is the time of the file's last event. ``-f`` and ``-n``
exclude each other. Before reading, bhist commits the cluster's session, so
the log holds every change up to the request (the writer logs on commit).

Problems in the files never stop the reading: a corrupt line is reported on
stderr as ``File <path> at line <n>: corrupt record skipped: <why>`` (every
one), an unknown event type as ``File <path> at line <n>: unknown event type
<T>; record skipped`` (the first record of each type per file -- real LSF
files hold many types lsfemu does not model). Trailing fields of newer LSF
versions are ignored silently, as LSF's own reader does. With job IDs, the
records of other jobs are recognised from their first fields and skipped
undecoded (LSF's bhist reads only the files its job index names), so their
problems go unreported (lsfemu.events.log.JobFilter).

Selection, time windows, ``-T``, ``-m``, ``-N``, ``-P``, ``-G``: `ops.history`
(its docstring). ``-app`` and ``-Jd`` (wildcards as bjobs -Jd) keep the jobs
whose profile / description is that one at the end of the log (JOB_NEW's, as
JOB_MODIFY2 records of bmod -app/-appn/-Jd/-Jdn changed it); ``-Lp`` the
jobs of a License Scheduler project (JOB_NEW's licenseProject: jobs of a real
LSF log, bsub -Lp being refused here); job IDs drop them, as they drop -q
and -J.

Output: the summary table (``-w`` untruncated), ``-l`` long (``-w``: records
not wrapped; LSB_DISPLAY_YEAR from the environment or lsf.conf), ``-b``
brief = ``-l`` without the submission details and limits (OpenLava's short
format: the submit record keeps only host, queue and CWD; ignored with -l),
``-t`` every event of the selected jobs (default: all states) in time order,
one line each, never wrapped::

    Tue Nov 14 22:13:30: Job <101>, dispatched 2 Task(s) on Host(s) <h1> <h1>, ...;

(the -l record text with its first letter lowered; a bmod record lists its
items separated by ``; ``). Nothing selected: ``No matching job found`` (with
-t ``No matching job/event found``) on stdout as OpenLava prints it, exit
255.
"""

from __future__ import annotations

import bisect
import copy
import fnmatch
import io
import math
import os
import shutil
import tempfile
import time as _time
from pathlib import Path
from typing import Any, Callable, Optional


from lsfemu.cli.base import Ctx, Result, ctx, parse_job_refs, run_command
from lsfemu.events.history import CannotStream, Change, HistoryBuilder, JobHistory
from lsfemu.events.log import CURRENT, EventWarning, JobFilter, archive_number, event_files, read_events
from lsfemu.ops import history
from lsfemu.ops.select import name_matches
from lsfemu.render import bhist as R
from lsfemu.render import messages
from lsfemu.sched.arrayspec import in_ranges
from lsfemu.render.timefmt import long_prefix
from lsfemu.render.wrap import SOFT_SPACE


NOT_FOUND_T = "No matching job/event found\n"


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------


def _select_files(c: Ctx, nfiles: tuple[int, int | None] | None, have_ids: bool) -> list[Path]:
    logdir = Path(c.cluster.logdir)
    files = event_files(logdir)
    if nfiles is not None:
        n, top = nfiles
        if top is not None:  # -n min,max: lsb.events.min ... lsb.events.max, oldest first
            return [p for p in files if n <= (archive_number(p) or 0) <= top]
        return files if n == 0 else files[-n:]
    if have_ids:
        return files
    cur = logdir / CURRENT
    return [cur] if cur.exists() else []


def _warner(c: Ctx) -> Callable[[EventWarning], None]:
    """What bhist says on stderr about the problems of the files."""
    seen_unknown: set[tuple[str, str]] = set()

    def warn(w: EventWarning) -> None:
        if w.kind == "extra":
            return
        if w.kind == "unknown":
            key = (w.path, w.message)
            if key in seen_unknown:
                return
            seen_unknown.add(key)
        c.err.append(f"File {w.path} at line {w.lineno}: {w.message}\n")

    return warn


def _read(c: Ctx, paths: list[Path], want: set[int] | None,
          window: tuple[float, float] | None = None) -> tuple[list[JobHistory], int | None]:
    builder = HistoryBuilder()
    last: int | None = None
    jobs = JobFilter(want) if want is not None else None  # other jobs' records are skimmed, not decoded
    for _, rec in read_events(paths, _warner(c), jobs=jobs):
        if last is None or rec.event_time > last:
            last = rec.event_time
        if window is not None and not window[0] <= rec.event_time <= window[1]:
            continue  # -T: only the records logged in the window
        if want is not None:
            key = rec.job_key
            if key is None or key[0] not in want:
                continue
        builder.feed(rec)
    if jobs is not None and jobs.last_time is not None and (last is None or jobs.last_time > last):
        last = jobs.last_time
    return list(builder.histories.values()), last


# ---------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------


def _brief(h: JobHistory) -> JobHistory:
    b = copy.copy(h)
    b.limit_lines = []
    b.changes = [
        ch._replace(data={k: v for k, v in ch.data.items() if k in ("from_host", "queue", "cwd", "home")})
        if ch.kind == "SUBMIT" else ch
        for ch in h.changes
    ]
    return b


def chronicle_lines(h: JobHistory, ch: Change, ran: bool, stamps: dict[float, str], year: bool) -> list[str]:
    """The ``bhist -t`` lines of one change of *h* (*ran*: dispatched since
    its submission or last requeue, this change included); *stamps* caches
    the time stamps (events share their seconds: each is formatted once)."""
    if ch.kind == "MODIFY":
        items = list(ch.data.get("items") or [])
        texts = ["Parameters of Job are changed: " + "; ".join(items) + ";"] if items else []
    else:
        texts = R.event_texts(h, ch, ran=ran)
    if not texts:
        return []
    t = ch.time
    stamp = stamps.get(t)
    if stamp is None:
        stamp = stamps[t] = long_prefix(t, year) + ": "
    head = f"{stamp}Job <{h.display_id}>, "
    lines = []
    for text in texts:
        line = f"{head}{text[:1].lower()}{text[1:]}\n"
        lines.append(line.replace(SOFT_SPACE, " ") if SOFT_SPACE in line else line)
    return lines


def chronicle(histories: list[JobHistory], *, year: bool = False,
              window: tuple[float, float] | None = None) -> str:
    """``bhist -t``: every event of *histories* (in *window*: -T) in time order, one line each."""
    rows: list[tuple[float, int, str]] = []  # (time, sequence in job order and change order, line)
    stamps: dict[float, str] = {}
    for h in histories:
        ran = False
        for ch in h.changes:
            if ch.kind == "DISPATCH":
                ran = True
            elif ch.kind == "REQUEUE":
                ran = False
            if window is not None and not window[0] <= ch.time <= window[1]:
                continue
            for line in chronicle_lines(h, ch, ran, stamps, year):
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
        self.stamps: dict[float, str] = {}
        self.builder = HistoryBuilder(stream=self.change)

    def change(self, h: JobHistory, ch: Change) -> None:
        if self.users is not None and h.user not in self.users:
            return
        if len(self.stamps) > 4096:
            self.stamps.clear()
        t = ch.time
        if self.window is not None and not self.window[0] <= t <= self.window[1]:
            return
        written = self.written
        for line in chronicle_lines(h, ch, h.started, self.stamps, self.year):
            if written is not None and t <= written[0] and (t, h.order, self.seq) < written:
                raise CannotStream(f"a line at {t} after one at {written[0]} was written")
            self.buffer.append((t, h.order, self.seq, line))
            self.seq += 1

    def flush(self, before: float) -> None:
        """Write the lines older than *before*."""
        buf = self.buffer
        self.peak = max(self.peak, len(buf))
        buf.sort()
        cut = bisect.bisect_left(buf, (before,))
        if cut:
            self.out.write("".join([r[3] for r in buf[:cut]]))
            self.written = buf[cut - 1][:3]
            self.lines += cut
            del buf[:cut]

    def read(self, paths: list[Path], warn: Callable[[EventWarning], None]) -> int:
        """Read *paths* and write the chronicle; the number of lines written."""
        builder = self.builder
        n = 0
        for _, rec in read_events(paths, warn):
            n += 1
            if n == self.EVERY:
                n = 0
                before = rec.event_time - self.SLACK
                self.flush(before)
                builder.forget_finished(before)
            builder.feed(rec)
        self.flush(math.inf)
        return self.lines


def _stream_chronicle(c: Ctx, paths: list[Path], users: set[str] | None, year: bool,
                      window: tuple[float, float] | None) -> bool:
    """``bhist -t`` streamed (:class:`ChronicleStream`) into *c*; False when
    the log must be read the straightforward way instead (nothing said)."""
    err_before = len(c.err)
    if c.stdout is not None:  # local: through a file, which a retry can empty
        sink = tempfile.TemporaryFile("w+", encoding="utf-8", errors="surrogateescape")
    else:
        sink = io.StringIO()
    with sink:
        try:
            lines = ChronicleStream(sink, users, year, window).read(paths, _warner(c))
        except CannotStream:
            del c.err[err_before:]
            return False
        if not lines:
            c.out.append(NOT_FOUND_T)
            c.rc = 255
        elif c.stdout is None:
            c.out.append(sink.getvalue())
        else:
            sink.seek(0)
            try:
                shutil.copyfileobj(sink, c.stdout, 1 << 20)
                c.stdout.flush()
            except BrokenPipeError:
                pass
    return True


# ---------------------------------------------------------------------------
# the command
# ---------------------------------------------------------------------------


def bhist(
    all_: bool = False,
    done: bool = False,
    exited: bool = False,
    pend: bool = False,
    run: bool = False,
    susp: bool = False,
    long: bool = False,
    wide: bool = False,
    brief: bool = False,
    chron: bool = False,
    user: Optional[str] = None,
    queue: Optional[str] = None,
    name: Optional[str] = None,
    complete: Optional[str] = None,
    submitted: Optional[str] = None,
    dispatched: Optional[str] = None,
    nfiles: Optional[str] = None,
    logfile: Optional[str] = None,
    events_window: Optional[str] = None,
    hosts: Optional[str] = None,
    normalize: Optional[str] = None,
    project: Optional[str] = None,
    user_group: Optional[str] = None,
    app: Optional[str] = None,
    description: Optional[str] = None,
    license_project: Optional[str] = None,
    job_ids: Optional[list[str]] = None,
) -> None:
    c = ctx()
    if logfile is not None and nfiles is not None:
        c.error("Cannot use option '-f' together with '-n'.")
        return
    n: tuple[int, int | None] | None = None
    if nfiles is not None:
        try:
            n = history.file_numbers(nfiles)
        except history.BadFiles as e:
            c.error(str(e))
            return
    cfg = getattr(c.cluster, "config", None) if c.cluster is not None else None
    factor: float | None = None
    if normalize is not None:
        factor = history.normal_factor(cfg, normalize)
        if factor is None:
            c.error(f"<{normalize}> {messages.BHIST_NOT_A_FACTOR}.")
            return
    on_hosts: set[str] | None = None
    if hosts is not None:
        on_hosts, unknown = history.host_set(cfg, hosts)
        for host in unknown:  # OpenLava warns and goes on
            c.err.append(messages.BHIST_NOT_A_HOST.format(host=host) + "\n")
    ids, bad = parse_job_refs(job_ids or [])
    for b in bad:
        c.error(messages.object_error(b, messages.ILLEGAL_JOB_ID))
    if bad:
        return

    # -- the files --------------------------------------------------------------
    if logfile is not None:
        path = Path(logfile if os.path.isabs(logfile) else os.path.join(c.cwd, logfile))
        if not path.is_file():
            reason = "Not a regular file" if path.exists() else "No such file or directory"
            c.error(f"{logfile}: {reason}")
            return
        paths = [path]
    else:
        if c.cluster is None:
            c.error("bhist: no cluster to read the event log of; use -f logfile_name")
            return
        paths = _select_files(c, n, bool(ids))
    if c.cluster is not None and callable(getattr(c.cluster, "commit", None)):
        c.cluster.commit()  # the writer logs on commit: flush this request's catch-up
    want = {jid for jid, _, _ in ids} if ids else None
    year = c.yes("LSB_DISPLAY_YEAR")
    states = history.wanted_states(all_, done, exited, pend, run, susp, complete is not None, chron)
    window_t: tuple[float, float] | None = None
    if events_window is not None:
        # without a cluster, -T's "now" is the clock's: the window is chosen before the file is read
        try:
            window_t = history.parse_window(events_window, float(c.cluster.now()) if c.cluster is not None
                                            else _time.time())
        except history.BadTime:
            c.error(messages.object_error(events_window, messages.BAD_TIME))
            return
    every_user = user_group is not None and user is None  # -G: the group's jobs, whoever submitted them
    try:
        if chron and want is None and states is None and queue is None and name is None \
                and complete is None and submitted is None and dispatched is None \
                and hosts is None and project is None and user_group is None and factor is None \
                and app is None and description is None and license_project is None:
            # the selection is known at submission: stream in bounded memory
            if _stream_chronicle(c, paths, history.users(c.cluster, c.user, user), year, window_t):
                return
        # -T: -t lists the events in the window; otherwise only its records make the histories
        histories, last = _read(c, paths, want, None if chron else window_t)
    except OSError as e:
        c.error(f"{e.filename or paths}: {e.strerror or e}")
        return
    if c.cluster is not None:
        now = float(c.cluster.now())
    else:
        now = float(last) if last is not None else _time.time()

    # -- the selection ------------------------------------------------------------
    windows: dict[str, tuple[float, float] | None] = {}
    for key, spec in (("C", complete), ("S", submitted), ("D", dispatched)):
        if spec is None:
            windows[key] = None
            continue
        try:
            windows[key] = history.parse_window(spec, now)
        except history.BadTime:
            c.error(messages.object_error(spec, messages.BAD_TIME))
            return

    selected: list[JobHistory] = []
    if ids:
        for h in histories:
            if project is not None and h.project != project:
                continue
            if any(h.job_id == jid and (ranges is None or in_ranges(h.array_index, ranges)) for jid, ranges, _ in ids):
                selected.append(h)
    else:
        users = None if every_user else history.users(c.cluster, c.user, user)
        for h in histories:
            if users is not None and h.user not in users:
                continue
            if user_group is not None and h.user_group != user_group:
                continue
            if project is not None and h.project != project:
                continue
            if on_hosts is not None and not on_hosts.intersection(history.last_hosts(h)):
                continue
            if queue is not None and h.queue != queue:
                continue
            if name is not None and not name_matches(name, h):
                continue
            if app is not None and h.application != app:
                continue
            if description is not None and not (h.description and fnmatch.fnmatchcase(h.description, description)):
                continue
            if license_project is not None and h.license_project != license_project:
                continue
            if states is not None and h.status not in states:
                continue
            if not history.in_window(h.finish_time if h.finished else None, windows["C"]):
                continue
            if not history.in_window(h.submit_time, windows["S"]):
                continue
            if not history.in_window(history.dispatch_time(h), windows["D"]):
                continue
            selected.append(h)

    # -- the output -------------------------------------------------------------------
    if factor is not None:
        selected = [history.normalized(h, factor) for h in selected]
    if chron:
        if not selected:
            c.out.append(NOT_FOUND_T)
            c.rc = 255
            return
        text = chronicle(selected, year=year, window=window_t)
        if not text:
            c.out.append(NOT_FOUND_T)
            c.rc = 255
            return
        c.out.append(text)
        return
    if not selected:
        c.out.append(R.NOT_FOUND)
        c.rc = 255
        return
    for h in selected:
        if not h.limit_lines:
            sub = next((ch.data for ch in h.changes if ch.kind == "SUBMIT"), {})
            h.limit_lines = R.runlimit_lines(sub.get("run_limit_min"), sub.get("cpu_limit_min"))
    if long:
        c.out.append(R.long(selected, now=now, year=year, wide=wide))
    elif brief:
        c.out.append(R.long([_brief(h) for h in selected], now=now, year=year, wide=wide))
    else:
        c.out.append(R.summary_table(selected, now=now, wide=wide))


def run(c: Ctx) -> Result:
    return run_command(c, bhist)
