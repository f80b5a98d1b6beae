"""The replay's job tracker: lsb.events records to job rows, holding only
the jobs alive at one instant (memory does not grow with the file)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lsfemu.events import lsbatch
from lsfemu.events.bmodrecord import job_modify
from lsfemu.events.records import (
    HostCtrl, JobMove, JobNew, JobRequeue, JobStart, JobStatus, JobSwitch, QueueCtrl,
)
from lsfemu.events.log import read_events
from lsfemu.events.synth import RECORDS_PER_JOB, write_events
from lsfemu.replay import ReplayError, split_logs
from lsfemu.replay.tracker import JobTracker

pytestmark = pytest.mark.slow(9)  # seconds, quiet machine: scheduled early (tests/conftest.py)

T = 1767603600


def _max_alive(path: Path) -> tuple[int, int, int]:
    tr = JobTracker()
    peak = finished = 0
    for _, rec in read_events(path):
        if tr.feed(rec) is not None:
            finished += 1
        peak = max(peak, len(tr.rows))
    return peak, finished, tr.jobs_seen


def test_memory_follows_the_jobs_alive_not_the_file_length(tmp_path):
    short, long = tmp_path / "short", tmp_path / "long"
    n_short = write_events(short, 3_000)
    n_long = write_events(long, 30_000)
    peak_s, fin_s, seen_s = _max_alive(short)
    peak_l, fin_l, seen_l = _max_alive(long)
    assert (fin_s, seen_s, fin_l, seen_l) == (n_short, n_short, n_long, n_long)
    # ten times the file, about the same number of jobs held at once
    assert peak_l < 2 * peak_s + 100
    assert peak_l < n_long / 5


def test_synthetic_file_has_six_records_a_job(tmp_path):
    p = tmp_path / "e"
    n = write_events(p, 601)
    assert sum(1 for _ in read_events(p)) == n * RECORDS_PER_JOB + 1


def _new(jid: int, t: int, **kw) -> JobNew:
    return JobNew(event_time=t, job_id=jid, submit_time=t, user_name="u1", queue="normal",
                  command="sleep 1000", num_processors=2, max_num_processors=2, **kw)


def test_suspension_requeue_and_finish_accounting():
    tr = JobTracker()
    assert tr.feed(_new(7, T)) is None
    tr.feed(JobStart(event_time=T + 10, job_id=7, exec_hosts=("h1", "h2")))
    assert tr.host_peak == {"h1": 1, "h2": 1}
    tr.feed(JobStatus(event_time=T + 110, job_id=7, status=lsbatch.JOB_STAT_USUSP))
    row = tr.rows[(7, 0)]
    assert (row["status"], row["work_done"], row["segment_start"]) == ("USUSP", 100.0, None)
    tr.feed(JobStatus(event_time=T + 210, job_id=7, status=lsbatch.JOB_STAT_RUN))
    assert row["segment_start"] == T + 210
    # requeued: pending again from that instant, its run forgotten
    tr.feed(JobRequeue(event_time=T + 300, job_id=7))
    assert (row["status"], row["start_time"], row["exec_hosts"], row["pend_since"]) == ("PEND", None, "", T + 300)
    assert tr.host_used == {"h1": 0, "h2": 0}
    tr.feed(JobStart(event_time=T + 400, job_id=7, exec_hosts=("h1", "h1")))
    assert tr.host_peak["h1"] == 2
    done = tr.feed(JobStatus(event_time=T + 1000, job_id=7, status=lsbatch.JOB_STAT_EXIT, end_time=T + 1000,
                             cpu_time=12.5, exit_status=lsbatch.wait_status(3), exit_info=5))
    assert done is not None and (7, 0) not in tr.rows
    assert (done["status"], done["exit_code"], done["sim_runtime"], done["sim_cputime"]) == ("EXIT", 3, 600.0, 12.5)
    assert done["exit_reason"].startswith("TERM_RUNLIMIT")
    # records of a job the tracker no longer holds (post-job status) are ignored
    assert tr.feed(JobStatus(event_time=T + 1001, job_id=7, status=lsbatch.JOB_STAT_EXIT | lsbatch.JOB_STAT_PDONE)) is None


def test_modifications_moves_switches_and_admin_state():
    tr = JobTracker()
    tr.feed(_new(1, T))
    tr.feed(_new(2, T + 1, options2=lsbatch.SUB2_JOB_PRIORITY, user_priority=70))
    assert tr.rows[(2, 0)]["priority"] == 70 and tr.priorities_seen == 1
    tr.feed(job_modify(1, event_time=T + 5, user_name="u1", user_priority=90))
    tr.feed(job_modify(2, event_time=T + 6, user_name="u1", user_priority_delete=True))
    tr.feed(job_modify(1, event_time=T + 7, user_name="admin", aps_string="admin=5.5"))
    r1, r2 = tr.rows[(1, 0)], tr.rows[(2, 0)]
    assert (r1["priority"], r1["priority_base_time"], r1["aps_admin"], r1["aps_system"]) == (90, T + 5, 5.5, None)
    assert (r2["priority"], r2["priority_base_time"]) == (None, T + 6)
    assert tr.max_priority_seen == 90
    tr.feed(JobMove(event_time=T + 8, job_id=2, base=lsbatch.TO_TOP))
    assert r2["position"] < r1["position"]
    tr.feed(JobMove(event_time=T + 9, job_id=2, base=lsbatch.TO_BOTTOM))
    assert r2["position"] > r1["position"]
    tr.feed(JobSwitch(event_time=T + 10, job_id=1, queue="short"))
    assert r1["queue"] == "short" and list(tr.queues) == ["normal", "short"]
    tr.feed(QueueCtrl(event_time=T + 11, opcode=lsbatch.QUEUE_CLOSED, queue="short"))
    tr.feed(HostCtrl(event_time=T + 12, opcode=lsbatch.HOST_CLOSE, host="h9"))
    assert tr.queue_ctrl == {"short": {"open": False, "active": True}} and tr.host_ctrl == {"h9": False}


def test_split_logs_tells_the_kinds_apart_oldest_first(tmp_path):
    for name in ("lsb.events", "lsb.events.1", "lsb.events.2", "lsb.acct", "lsb.acct.1"):
        (tmp_path / name).write_text("#0\n")
    names = (lambda files: [p.name for p in files])
    events, acct = split_logs([str(tmp_path)])
    assert names(events) == ["lsb.events.2", "lsb.events.1", "lsb.events"] and names(acct) == ["lsb.acct.1", "lsb.acct"]
    given = [str(tmp_path / n) for n in ("lsb.events", "lsb.acct", "lsb.events.2", "lsb.acct.1", "lsb.events.1")]
    assert tuple(map(names, split_logs(given))) == (["lsb.events.2", "lsb.events.1", "lsb.events"],
                                                    ["lsb.acct.1", "lsb.acct"])
    # other names: by the first record
    (tmp_path / "june").write_text('\n"JOB_FINISH" "10.1" 1 2 3\n')
    (tmp_path / "may").write_text('#12\n"JOB_NEW" "10.1" 1\n')
    assert tuple(map(names, split_logs([str(tmp_path / "june"), str(tmp_path / "may")]))) == (["may"], ["june"])
    with pytest.raises(ReplayError, match="No such file"):
        split_logs([str(tmp_path / "missing")])
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ReplayError, match="no lsb.events or lsb.acct files"):
        split_logs([str(empty)])


@pytest.mark.parametrize("seed", range(4))
def test_job_rows_store_what_sqlalchemys_insert_stores(tmp_path, monkeypatch, seed):
    """replay --into writes its rows with BulkRows (the driver's executemany):
    the store holds exactly what SQLAlchemy's insert stores."""
    import sqlite3

    from lsfemu import replay as rp
    from lsfemu.store.bulk import BulkRows
    from test_chronicle_stream import write_log

    path = tmp_path / "lsb.events"
    write_log(path, seed, jobs=120)  # every record type, arrays, jobs alive at the end
    fast = rp.replay_into([path], tmp_path / "fast", progress=False)

    def sqlalchemy_insert(self, rows):
        from sqlalchemy import insert

        from lsfemu.store.models import Job

        self.conn.execute(insert(Job), rows)

    monkeypatch.setattr(BulkRows, "insert", sqlalchemy_insert)
    plain = rp.replay_into([path], tmp_path / "plain", progress=False)
    assert (fast.stored, fast.alive) == (plain.stored, plain.alive) and fast.stored + fast.alive > 50

    def rows(summary):
        with sqlite3.connect(summary.home / "lsfemu.db") as db:
            return db.execute("SELECT * FROM jobs ORDER BY id, array_index").fetchall()

    assert rows(fast) == rows(plain)


def test_replay_store_equals_the_straightforward_paths(tmp_path, monkeypatch):
    """replay --into skims the record types it does not use, loads the jobs
    with their indexes deferred and its own executemany: the store's rows,
    schema and indexes, the copied log and the warnings are those of every
    record decoded and SQLAlchemy's inserts into the table with its indexes
    kept row by row."""
    import contextlib
    import sqlite3

    from lsfemu import replay as rp
    from lsfemu.replay import tracker
    from lsfemu.store.bulk import BulkRows
    from lsfemu.store import db as store_db
    from test_chronicle_stream import write_log

    path = tmp_path / "lsb.events"
    write_log(path, 1, jobs=150)
    with open(path, "a") as fh:  # an unused type's corrupt line, and one in another shape
        fh.write('"JOB_EXECUTE" "10.1" 1709629206 3 0 x "/w" "/h" "u" 0 0\n')
        fh.write('"JOB_EXECUTE"  "10.1" 1709629206 3 0 1 "/w" "/h" "u" 0 0\n')
    fast = rp.replay_into([path], tmp_path / "fast", progress=False)

    def sqlalchemy_insert(self, rows):
        from sqlalchemy import insert

        from lsfemu.store.models import Job

        self.conn.execute(insert(Job), rows)

    monkeypatch.setattr(BulkRows, "insert", sqlalchemy_insert)
    monkeypatch.setattr(store_db, "indexes_deferred", lambda conn, table: contextlib.nullcontext())
    monkeypatch.setattr(tracker, "_UNUSED", frozenset())
    plain = rp.replay_into([path], tmp_path / "plain", progress=False)
    assert fast.warnings.lines() == plain.warnings.lines() and "corrupt" in fast.warnings.counts
    log = "logdir/lsb.events"
    assert (fast.home / log).read_bytes() == (plain.home / log).read_bytes()
    assert b'"JOB_EXECUTE"  "10.1" 1709629206' in (fast.home / log).read_bytes()

    def store(summary):
        with sqlite3.connect(summary.home / "lsfemu.db") as db:
            assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            schema = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
            # the planner's view of each index: its columns, in order
            indexes = {name: db.execute(f'PRAGMA index_info("{name}")').fetchall()
                       for kind, name, _t, _s in schema if kind == "index"}
            return schema, indexes, db.execute("SELECT * FROM jobs ORDER BY id, array_index").fetchall()

    schema, indexes, rows = store(fast)
    assert (schema, indexes, rows) == store(plain)
    assert {"ix_jobs_status", "ix_jobs_user_status", "ix_jobs_position"} <= set(indexes) and len(rows) > 50


def test_a_host_file_is_kept_and_follows_bmod():
    # bsub / bmod -hostfile (issue 21): JOB_NEW's and JOB_MODIFY2's asked-hosts lists carry the kept
    # lines; the replayed row keeps them (and the tasks they make); -m's words are not kept, as before
    tr = JobTracker()
    tr.feed(_new(1, T, options=lsbatch.SUB_HOST, asked_hosts=("@hostfile /home/u1/hf", "hB 2", "hA 1")))
    tr.feed(_new(2, T, options=lsbatch.SUB_HOST, asked_hosts=("hA", "hB+2")))
    assert tr.rows[(1, 0)]["asked_hosts"] == "@hostfile /home/u1/hf\nhB 2\nhA 1"
    assert tr.rows[(2, 0)]["asked_hosts"] is None
    tr.feed(job_modify(1, event_time=T + 5, user_name="u1", asked_hosts=("@hostfile /home/u1/hf2", "hC 3")))
    assert (tr.rows[(1, 0)]["asked_hosts"], tr.rows[(1, 0)]["num_processors"]) == ("@hostfile /home/u1/hf2\nhC 3", 3)
