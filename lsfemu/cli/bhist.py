"""bhist: job histories read from the event log (reference section 4).

Files. Without ``-f`` bhist reads ``<LSFEMU_HOME>/logdir`` (the cluster's
``home``): by default only the current ``lsb.events`` (its preserved head
included, so unfinished jobs submitted before the last log switch are
there); ``-n N`` the current file and the N-1 most recent archives
(``lsb.events.1`` ...), ``-n 0`` every file, ``-n min,max`` the files
numbered min to max (0 = ``lsb.events``); with job IDs and no ``-n`` every
file (OpenLava searches back a week; lsfemu reads them all). A missing
``lsb.events`` counts as an empty log. ``-f FILE`` reads that one file (relative
to the caller's cwd) and needs no cluster: ``c.cluster`` may be None, and
then "now" is the time of the file's last event. ``-f`` and ``-n`` exclude
each other. Before reading, bhist commits the cluster's session, so
the log holds every change up to the request (the writer logs on commit).
With a cluster, bhist as some users (not -u all, not -G) or with job IDs reads
the cluster's files through their index (`ops.histindex`): only the records
of the jobs it may print are read and decoded; the output is the same.

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
``-hostfile`` (with -l) adds the job's host file (its path, its table last).
``-t`` every event of the selected jobs (default: all states) in time order,
one line each, never wrapped::

    Tue Nov 14 22:13:30: Job <101>, dispatched 2 Task(s) on Host(s) <h1> <h1>, ...;

(the -l record text with its first letter lowered; a bmod record lists its
items separated by ``; ``). Nothing selected: ``No matching job found`` (with
-t ``No matching job/event found``) on stdout as OpenLava prints it, exit
255.
"""

from __future__ import annotations

import copy
import fnmatch
import io
import os
import shutil
import tempfile
import time as _time
from pathlib import Path
from typing import Callable, Optional


from lsfemu.cli.base import Ctx, Result, UsageExit, ctx, parse_job_refs, run_collector_paused, run_command
from lsfemu.events.history import BUILDER_FIELDS, BUILDER_UNUSED, CannotStream, HistoryBuilder, JobHistory
from lsfemu.events.log import CURRENT, EventWarning, JobFilter, archive_number, event_files, read_events
from lsfemu.ops import histindex, history
from lsfemu.ops.chronicle import ChronicleStream, chronicle  # noqa: F401 -- chronicle: the tests' reference
from lsfemu.ops.select import name_matches
from lsfemu.render import bhist as R
from lsfemu.render import messages
from lsfemu.sched.arrayspec import in_ranges


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
          window: tuple[float, float] | None = None,
          users: set[str] | None = None) -> tuple[list[JobHistory], int | None]:
    """The histories in *paths* (of the jobs *want*, when given) and the time of
    the last record read. The cluster's own log (no -f) is read through its
    index (ops.histindex) when only some jobs are wanted -- *want*'s, or
    *users*' -- and the index can serve it: then the last time is None (the
    cluster's clock is bhist's "now")."""
    builder = HistoryBuilder()
    if c.cluster is not None and (want is not None or users is not None):
        records = histindex.indexed_records(paths, want, users)
        if records is not None:
            for rec in records:
                if window is None or window[0] <= rec.event_time <= window[1]:
                    builder.feed(rec)
            return list(builder.histories.values()), None
    last: int | None = None
    jobs = JobFilter(want) if want is not None else None  # other jobs' records are skimmed, not decoded
    for _, rec in read_events(paths, _warner(c), jobs=jobs, unused=BUILDER_UNUSED, fields=BUILDER_FIELDS):
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
    host_file: bool = False,
    job_ids: Optional[list[str]] = None,
) -> None:
    c = ctx()
    if host_file and not long:  # IBM's synopsis: bhist [-l [-aff] [-gpu] [-hostfile]]
        raise UsageExit()
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
        own_log = logfile is None and want is None and not every_user
        histories, last = _read(c, paths, want, None if chron else window_t,
                                users=history.users(c.cluster, c.user, user) if own_log else None)
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
        # (bhist -u all tests every job of the log: the windows' tests only when asked)
        w_complete, w_submit, w_dispatch = windows["C"], windows["S"], windows["D"]
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
            if w_complete is not None and not history.in_window(h.finish_time if h.finished else None, w_complete):
                continue
            if w_submit is not None and not history.in_window(h.submit_time, w_submit):
                continue
            if w_dispatch is not None and not history.in_window(history.dispatch_time(h), w_dispatch):
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
    for h in selected if long or brief else ():  # (the limits' lines: -l and -b print them, the summary not)
        if not h.limit_lines:
            sub = next((ch.data for ch in h.changes if ch.kind == "SUBMIT"), {})
            h.limit_lines = R.runlimit_lines(sub.get("run_limit_min"), sub.get("cpu_limit_min"))
    if long:
        c.out.append(R.long(selected, now=now, year=year, wide=wide, host_file=host_file))
    elif brief:
        c.out.append(R.long([_brief(h) for h in selected], now=now, year=year, wide=wide))
    else:
        c.out.append(R.summary_table(selected, now=now, wide=wide))


def run(c: Ctx) -> Result:
    if "-t" in c.argv:  # a stream (-t) leaves a cycle a record: the collector stays on, memory flat
        return run_command(c, bhist)
    # The histories bhist prints leave no cyclic garbage (at 10,000 jobs bhist
    # -u all set off ~100 collections, 3 of them full: ~40 ms of its ~600)
    return run_collector_paused(c, bhist)
