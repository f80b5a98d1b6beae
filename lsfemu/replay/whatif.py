"""``lsfemu replay --what-if CONFDIR``: the log's jobs scheduled again by our
scheduler under another configuration, and the two histories compared.

Pass one (:func:`_collect`) puts the submissions (time, user, queue, slots,
run limit, resource requirement, user priority) and the run times of the
log into a temporary SQLite table; pass two (:func:`_simulate`) submits
them in submission order to a Cluster on the virtual clock with the other
configuration, driving it through its public event loop (``run_until``,
``next_finish``, ``next_pass``); :func:`_compare` fills the
:class:`~lsfemu.replay.report.WhatIfReport`: wait times, dispatch order and
the share of slots over time, per user and per queue."""

from __future__ import annotations

import math
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from lsfemu.events.records import JobNew
from lsfemu.replay.common import BATCH, Progress, ReplayError, Warnings, checked_config, collector_paused
from lsfemu.replay.report import WhatIfReport
from lsfemu.replay.tracker import JobTracker, records

_SUBS = """CREATE TABLE subs (
    job_id INTEGER, idx INTEGER, user TEXT, queue TEXT, slots INTEGER, submit REAL,
    priority INTEGER, run_limit_min REAL, res_req TEXT, mem_req_mb REAL, command TEXT, name TEXT,
    project TEXT, cwd TEXT, home TEXT, from_host TEXT,
    runtime REAL, cputime REAL, exit_code INTEGER,
    orig_start REAL, orig_end REAL, wi_start REAL, wi_end REAL, wi_queue TEXT,
    orig_rank INTEGER, wi_rank INTEGER,
    PRIMARY KEY (job_id, idx))"""


def _nice_bucket(span: float) -> float:
    """An interval width that cuts *span* into at most about a dozen pieces."""
    for w in (60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 7 * 86400, 30 * 86400):
        if span / w <= 12:
            return float(w)
    return float(math.ceil(span / 12 / 86400) * 86400)


def _collect(paths: list[Path], db: sqlite3.Connection, until: float | None, warns: Warnings,
             progress: bool | None) -> tuple[int, int]:
    """Pass one: every job of the log with its submission and run, into ``subs``.
    Returns (jobs stored, jobs that never ran)."""
    tr = JobTracker()
    bar = Progress(sum(p.stat().st_size for p in paths), "reading", progress)
    rows: list[tuple] = []
    never = 0
    stored = 0
    last = 0.0

    def add(r: dict[str, Any], end: float | None) -> None:
        nonlocal never, stored
        if r["start_time"] is None:
            never += 1
            return
        runtime = r["sim_runtime"] if end is not None else r["work_done"] + (
            max(0.0, last - r["segment_start"]) if r["segment_start"] is not None else 0.0)
        rows.append((r["id"], r["array_index"], r["user"], r["queue"], r["num_processors"], r["submit_time"],
                     r["priority"], r["run_limit_min"], r["res_req"], r["mem_req_mb"], r["command"], r["name"],
                     r["project"], r["cwd"], r["home"], r["from_host"], runtime,
                     r["sim_cputime"] if end is not None else runtime * r["num_processors"],
                     r["sim_exit_code"], r["start_time"], end))
        stored += 1
        if len(rows) >= BATCH:
            flush()

    def flush() -> None:
        db.executemany("INSERT OR REPLACE INTO subs (job_id, idx, user, queue, slots, submit, priority, "
                       "run_limit_min, res_req, mem_req_mb, command, name, project, cwd, home, from_host, "
                       "runtime, cputime, exit_code, orig_start, orig_end) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
        rows.clear()

    try:
        with collector_paused():
            for _lineno, _text, rec in records(paths, warns, bar):
                if until is not None and isinstance(rec, JobNew) and (rec.submit_time or rec.event_time) > until:
                    continue
                last = max(last, float(rec.event_time))
                done = tr.feed(rec)
                if done is not None:
                    add(done, done["finish_time"])
    finally:
        bar.close()
    for r in list(tr.rows.values()):  # alive at the end: the run time so far
        add(r, None)
    flush()
    db.commit()
    return stored, never


def what_if(paths: list[Path], confdir: Path, *, until: float | None = None, bucket: float | None = None,
            progress: bool | None = None) -> WhatIfReport:
    """Schedule the log's jobs under the configuration in *confdir* and compare."""
    confdir = checked_config(confdir, "--what-if")
    rep = WhatIfReport(confdir=str(confdir))
    tmp = Path(tempfile.mkdtemp(prefix="lsfemu-whatif-"))
    try:
        db = sqlite3.connect(str(tmp / "subs.db"))
        db.execute(_SUBS)
        db.execute("CREATE INDEX subs_submit ON subs (submit, job_id, idx)")
        rep.jobs, rep.never_ran = _collect(paths, db, until, rep.warnings, progress)
        if rep.jobs == 0:
            raise ReplayError("no job in the files both was submitted and ran: nothing to compare")
        rep.first_submit, rep.last_submit = db.execute("SELECT MIN(submit), MAX(submit) FROM subs").fetchone()
        _simulate(db, confdir, tmp / "home", rep, progress)
        _compare(db, rep, bucket)
        db.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rep


def _simulate(db: sqlite3.Connection, confdir: Path, home: Path, rep: WhatIfReport, progress: bool | None) -> None:
    """Pass two: the submissions, in order, into a Cluster on the virtual clock."""
    # here: the daemon's Cluster (the store, SQLAlchemy, the scheduler) is for this pass only,
    # and `replay --into` imports this package too
    from lsfemu.engine.cluster import Cluster
    from lsfemu.engine.jobs import SubmitSpec
    from lsfemu.jobstate import FINISHED

    # the what-if store is a private SQLite file, whatever LSFEMU_DB names
    cl = Cluster(str(confdir), str(home), db_url=f"sqlite:///{home / 'lsfemu.db'}",
                 clock_start=float(rep.first_submit))
    cl.clock.mode = "virtual"
    cl.clock.virtual_now = rep.first_submit
    names = [q.name for q in cl.config.queues]
    default = (cl.config.params.default_queues or names)[0]
    origin: dict[tuple[int, int], tuple[int, int]] = {}
    updates: list[tuple] = []

    def evict() -> None:
        cl.commit()
        for key, job in list(cl.jobs.items()):
            if job.status in FINISHED:
                updates.append((job.start_time, job.finish_time, job.queue, *origin.pop(key)))
                cl.drop(key)
        if updates:
            db.executemany("UPDATE subs SET wi_start=?, wi_end=?, wi_queue=? WHERE job_id=? AND idx=?", updates)
            updates.clear()

    bar = Progress(rep.jobs, "scheduling", progress)
    n = 0
    cur = db.execute("SELECT job_id, idx, user, queue, slots, submit, priority, run_limit_min, res_req, "
                     "mem_req_mb, command, name, project, cwd, home, from_host, runtime, cputime, exit_code "
                     "FROM subs ORDER BY submit, job_id, idx")
    while True:
        chunk = cur.fetchmany(BATCH)
        if not chunk:
            break
        for (jid, idx, user, queue, slots, submit, prio, rlim, res_req, mem, command, name, project,
             cwd, home_dir, from_host, runtime, cputime, exit_code) in chunk:
            cl.run_until(submit)
            q = queue
            if q not in names:
                was = rep.remapped.get(queue, (default, 0))
                rep.remapped[queue] = (default, was[1] + 1)
                q = default
            spec = SubmitSpec(
                user=user, queue=q, default_queue_used=False, command=command, name=name,
                num_processors=slots, max_processors=None, cwd=cwd, home=home_dir, specified_cwd=None,
                output_file=None, error_file=None, output_overwrite=False, error_overwrite=False,
                run_limit_min=rlim, submit_priority=prio, res_req=res_req, mem_req_mb=mem,
                project=project, user_group=None, env={}, from_host=from_host)
            job = cl.submit(spec)
            job.sim_runtime, job.sim_cputime, job.sim_exit_code = runtime, cputime, exit_code
            origin[(job.id, job.array_index)] = (jid, idx)
            n += 1
            bar(n)
        evict()
    # then until nothing more can happen (jobs that can never start stay pending)
    steps = 0
    while True:
        fin = cl.next_finish()
        nxt = cl.next_pass()
        due = [t for t in ((fin[0] if fin else None), nxt) if t is not None]
        if not due:
            break
        cl.run_until(min(due))
        steps += 1
        if not steps % 256:
            evict()
    evict()
    bar.close()
    rep.unstarted = len(origin)
    cl.close()


def _compare(db: sqlite3.Connection, rep: WhatIfReport, bucket: float | None) -> None:
    """Wait times, dispatch order and slot shares, from the ``subs`` table."""
    both = "orig_start IS NOT NULL AND wi_start IS NOT NULL"
    db.execute(f"CREATE TEMP TABLE r1 AS SELECT job_id, idx, ROW_NUMBER() OVER (ORDER BY orig_start, submit, job_id, idx) AS rk FROM subs WHERE {both}")
    db.execute(f"CREATE TEMP TABLE r2 AS SELECT job_id, idx, ROW_NUMBER() OVER (ORDER BY wi_start, submit, job_id, idx) AS rk FROM subs WHERE {both}")
    db.execute("UPDATE subs SET orig_rank = (SELECT rk FROM r1 WHERE r1.job_id = subs.job_id AND r1.idx = subs.idx), "
               "wi_rank = (SELECT rk FROM r2 WHERE r2.job_id = subs.job_id AND r2.idx = subs.idx)")
    n, d2 = db.execute("SELECT COUNT(*), SUM((orig_rank - wi_rank) * (orig_rank - wi_rank)) FROM subs "
                       "WHERE orig_rank IS NOT NULL").fetchone()
    rep.order_jobs = n or 0
    if n and n > 1:
        rep.order_rho = 1.0 - 6.0 * float(d2) / (n * (n * n - 1.0))
    for col, target in (("user", rep.per_user), ("queue", rep.per_queue)):
        for row in db.execute(
                f"SELECT {col}, COUNT(*), AVG(orig_start - submit), AVG(wi_start - submit), "
                f"MAX(orig_start - submit), MAX(wi_start - submit), AVG(wi_rank - orig_rank), "
                f"SUM(wi_start IS NULL) FROM subs GROUP BY {col} ORDER BY {col}"):
            target.append(dict(zip((col, "jobs", "mean_wait_log", "mean_wait_whatif", "max_wait_log",
                                    "max_wait_whatif", "order_shift", "unstarted"), row)))
    lo = rep.first_submit
    hi = db.execute("SELECT MAX(MAX(COALESCE(orig_end, orig_start), COALESCE(wi_end, wi_start, 0))) FROM subs").fetchone()[0] or lo
    rep.bucket = bucket or _nice_bucket(max(1.0, hi - lo))
    acc: dict[tuple[int, str], list[float]] = {}
    for user, slots, os_, oe, ws, we in db.execute(
            "SELECT user, slots, orig_start, orig_end, wi_start, wi_end FROM subs"):
        for col, start, end in ((0, os_, oe if oe is not None else hi), (1, ws, we if we is not None else hi)):
            if start is None:
                continue
            b = int((start - lo) // rep.bucket)
            while True:
                b0 = lo + b * rep.bucket
                b1 = b0 + rep.bucket
                part = min(end, b1) - max(start, b0)
                if part > 0:
                    acc.setdefault((b, user), [0.0, 0.0])[col] += part * slots
                if end <= b1:
                    break
                b += 1
    totals: dict[int, list[float]] = {}
    for (b, _u), v in acc.items():
        t = totals.setdefault(b, [0.0, 0.0])
        t[0] += v[0]
        t[1] += v[1]
    for (b, user), v in sorted(acc.items()):
        t = totals[b]
        rep.shares.append(dict(start=lo + b * rep.bucket, user=user,
                               share_log=v[0] / t[0] if t[0] else 0.0,
                               share_whatif=v[1] / t[1] if t[1] else 0.0))
