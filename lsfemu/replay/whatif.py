"""``lsfemu replay --what-if CONFDIR``: the log's jobs scheduled again by our
scheduler under another configuration, and the two histories compared.

Pass one (:func:`_collect`) puts the submissions (time, user, queue, slots,
run limit, resource requirement, user priority; -cwd, -Jd, -g, -app, -We
from JOB_NEW's LSF 9/10 tail) and the run times of the
log into a temporary SQLite table -- every job, also those that never
started in the log (with the instant they left it); pass two
(:func:`_simulate`) submits them in submission order to a Cluster on the
virtual clock with the other configuration, driving it through its public
event loop (``run_until``, ``next_finish``, ``next_pass``);
:func:`lsfemu.replay.compare.compare` fills the
:class:`~lsfemu.replay.report.WhatIfReport`: wait times, dispatch order,
the jobs that never start, the share of slots over time, per user and per
queue."""

from __future__ import annotations

import heapq
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from lsfemu.events.records import JobNew
from lsfemu.replay.accounting import acct_rows
from lsfemu.replay.compare import compare
from lsfemu.replay.common import BATCH, Progress, ReplayError, Warnings, checked_config, collector_paused
from lsfemu.replay.report import WhatIfReport
from lsfemu.replay.tracker import JobTracker, records
from lsfemu.sched import simulate

_SUBS = """CREATE TABLE subs (
    job_id INTEGER, idx INTEGER, user TEXT, queue TEXT, slots INTEGER, submit REAL,
    priority INTEGER, run_limit_min REAL, res_req TEXT, mem_req_mb REAL, command TEXT, name TEXT,
    project TEXT, cwd TEXT, home TEXT, from_host TEXT,
    spec_cwd TEXT, description TEXT, job_group TEXT, app TEXT, estimate REAL,
    runtime REAL, cputime REAL, exit_code INTEGER,
    orig_start REAL, orig_end REAL, wi_start REAL, wi_end REAL, wi_queue TEXT,
    orig_rank INTEGER, wi_rank INTEGER, withdraw REAL,
    PRIMARY KEY (job_id, idx))"""


def _given(r: dict[str, Any]) -> tuple:
    """What else bsub was given that the what-if submits with (JOB_NEW's LSF
    9/10 tail; an lsb.acct row has none of it)."""
    return (r.get("specified_cwd"), r.get("description"), r.get("job_group"), r.get("app_profile"),
            r.get("est_runtime_min"))


def _unknown_run(r: dict[str, Any]) -> float:
    """The run time of a job that never started in the log (the log cannot say):
    its run limit (the longest it may run: it ends by TERM_RUNLIMIT there), else
    what its command says (``sleep N``, as lsfemu simulates any job), else 0 s."""
    if r["run_limit_min"] is not None:
        return r["run_limit_min"] * 60.0
    return simulate.runtime_from_command(r["command"] or "") or 0.0


def _collect(paths: list[Path], acct: list[Path], db: sqlite3.Connection, until: float | None, warns: Warnings,
             progress: bool | None) -> tuple[int, int]:
    """Pass one: every job of the logs with its submission and run, into ``subs``:
    those of the lsb.events files *paths*, then those of the lsb.acct files
    *acct* that the events did not show (same job ID and index).
    Returns (jobs stored, jobs that never started)."""
    tr = JobTracker()
    bar = Progress(sum(p.stat().st_size for p in paths), "reading", progress)
    rows: list[tuple] = []
    last = 0.0

    def add(r: dict[str, Any], end: float | None) -> None:
        if r["start_time"] is None:
            # never started in the log: replayed with the run it would have had (_unknown_run),
            # withdrawn where it left the log (killed pending) or at the log's end, if still pending
            runtime = _unknown_run(r)
            rows.append((r["id"], r["array_index"], r["user"], r["queue"], r["num_processors"], r["submit_time"],
                         r["priority"], r["run_limit_min"], r["res_req"], r["mem_req_mb"], r["command"], r["name"],
                         r["project"], r["cwd"], r["home"], r["from_host"], *_given(r), runtime,
                         runtime * r["num_processors"], 0, None, None, end))
        else:
            runtime = r["sim_runtime"] if end is not None else r["work_done"] + (
                max(0.0, last - r["segment_start"]) if r["segment_start"] is not None else 0.0)
            rows.append((r["id"], r["array_index"], r["user"], r["queue"], r["num_processors"], r["submit_time"],
                         r["priority"], r["run_limit_min"], r["res_req"], r["mem_req_mb"], r["command"], r["name"],
                         r["project"], r["cwd"], r["home"], r["from_host"], *_given(r), runtime,
                         r["sim_cputime"] if end is not None else runtime * r["num_processors"],
                         r["sim_exit_code"], r["start_time"], end, None))
        if len(rows) >= BATCH:
            flush()

    verb = "REPLACE"  # the insert of the lsb.events rows; the lsb.acct rows (below) only fill gaps

    def flush() -> None:
        db.executemany(f"INSERT OR {verb} INTO subs (job_id, idx, user, queue, slots, submit, priority, "
                       "run_limit_min, res_req, mem_req_mb, command, name, project, cwd, home, from_host, "
                       "spec_cwd, description, job_group, app, estimate, "
                       "runtime, cputime, exit_code, orig_start, orig_end, withdraw) "
                       "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
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
    # pending at the log's end: withdrawn at its last instant (what happened after is not known)
    db.execute("UPDATE subs SET withdraw = ? WHERE orig_start IS NULL AND withdraw IS NULL", (last,))
    # lsb.acct: a job lsb.events showed keeps the events' row (they know more: pending jobs, user priorities)
    verb = "IGNORE"  # read by flush: an lsb.acct row for a job already stored is dropped
    with collector_paused():
        for r in acct_rows(acct, warns, until):
            add(r, r["finish_time"])
    flush()
    db.commit()
    return db.execute("SELECT COUNT(*), SUM(orig_start IS NULL) FROM subs").fetchone()


def what_if(paths: list[Path], confdir: Path, *, acct: list[Path] | None = None, until: float | None = None,
            bucket: float | None = None, progress: bool | None = None) -> WhatIfReport:
    """Schedule the jobs of the lsb.events files *paths* and of the lsb.acct
    files *acct* under the configuration in *confdir* and compare."""
    confdir = checked_config(confdir, "--what-if")
    rep = WhatIfReport(confdir=str(confdir))
    tmp = Path(tempfile.mkdtemp(prefix="lsfemu-whatif-"))
    try:
        db = sqlite3.connect(str(tmp / "subs.db"))
        db.execute(_SUBS)
        db.execute("CREATE INDEX subs_submit ON subs (submit, job_id, idx)")
        rep.jobs, never = _collect(paths, acct or [], db, until, rep.warnings, progress)
        rep.never_ran = never or 0
        if rep.jobs == 0:
            raise ReplayError("no job submission in the files: nothing to compare")
        rep.first_submit, rep.last_submit = db.execute("SELECT MIN(submit), MAX(submit) FROM subs").fetchone()
        _simulate(db, confdir, tmp / "home", rep, progress)
        compare(db, rep, bucket)
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
    # (instant, job key): a job that never started in the log leaves where it left the log
    withdrawals: list[tuple[float, tuple[int, int]]] = []

    def withdraw(upto: float) -> None:
        """The withdrawals due by *upto*, in order: bkill by the owner if still pending then."""
        while withdrawals and withdrawals[0][0] <= upto:
            t, key = heapq.heappop(withdrawals)
            cl.run_until(t)
            job = cl.jobs.get(key)
            if job is not None and job.start_time is None and job.status not in FINISHED:
                cl.kill(job, job.user)

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
                     "mem_req_mb, command, name, project, cwd, home, from_host, spec_cwd, description, job_group, "
                     "app, estimate, runtime, cputime, exit_code, "
                     "withdraw FROM subs ORDER BY submit, job_id, idx")
    while True:
        chunk = cur.fetchmany(BATCH)
        if not chunk:
            break
        for (jid, idx, user, queue, slots, submit, prio, rlim, res_req, mem, command, name, project,
             cwd, home_dir, from_host, spec_cwd, description, group, app, estimate, runtime, cputime, exit_code,
             leaves) in chunk:
            withdraw(submit)
            cl.run_until(submit)
            q = queue
            if q not in names:
                was = rep.remapped.get(queue, (default, 0))
                rep.remapped[queue] = (default, was[1] + 1)
                q = default
            spec = SubmitSpec(
                user=user, queue=q, default_queue_used=False, command=command, name=name,
                num_processors=slots, max_processors=None, cwd=cwd, home=home_dir, specified_cwd=spec_cwd,
                output_file=None, error_file=None, output_overwrite=False, error_overwrite=False,
                run_limit_min=rlim, submit_priority=prio, res_req=res_req, mem_req_mb=mem,
                project=project, user_group=None, env={}, from_host=from_host, description=description,
                job_group=group, est_runtime_min=estimate,
                app_profile=app if app in cl.config.applications else None,  # a profile the other config has
                plan=(runtime, cputime, exit_code))
            if group is not None and cl.job_groups.get(group) is None:
                cl.job_groups.add(group, user)  # as bsub -g makes it
            job = cl.submit(spec)
            origin[(job.id, job.array_index)] = (jid, idx)
            if leaves is not None:
                heapq.heappush(withdrawals, (max(leaves, submit), (job.id, job.array_index)))
            n += 1
            bar(n)
        evict()
    # then until nothing more can happen (jobs that can never start stay pending)
    steps = 0
    while True:
        fin = cl.next_finish()
        nxt = cl.next_pass()
        due = [t for t in ((fin[0] if fin else None), nxt, withdrawals[0][0] if withdrawals else None)
               if t is not None]
        if not due:
            break
        withdraw(min(due))
        cl.run_until(min(due))
        steps += 1
        if not steps % 256:
            evict()
    evict()
    bar.close()
    cl.close()
    rep.unstarted = db.execute("SELECT COUNT(*) FROM subs WHERE wi_start IS NULL").fetchone()[0]
