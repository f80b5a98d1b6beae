"""lsfemu.store.newrows (issue 23): a new job written with the INSERT of its
group stores what the ORM would have stored, is a loaded object of the
session from the start, reaches the store before any other statement or
flush of the session, and a rollback takes it back (the same ID can be
used again). lsfemu.store.changedrows (part 4): a loaded job's columns
assigned in bulk reach the store the same way, after the new rows, and the
latest value wins over the ORM's own changes."""

from __future__ import annotations

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from lsfemu.store.changedrows import ChangedRows
from lsfemu.store.db import open_store
from lsfemu.store.models import Job, JobEvent
from lsfemu.store.newrows import NewRows

pytestmark = pytest.mark.slow(3)

# Some columns given, the others left to their defaults.
VALUES = dict(array_index=0, user="user1", status="PEND", queue="normal", from_host="hostA", command="sleep 1",
              name=None, num_processors=2, priority=50, priority_base_time=10.0, pend_since=10.0, submit_time=10.0,
              position=3.0, exec_hosts="", pend_reasons="1", env_json='{"A": "b"}', mem_limit_kb=2**40,
              rerunnable=True)


@pytest.fixture
def session(tmp_path):
    engine, make = open_store(f"sqlite:///{tmp_path / 's.db'}")
    with make() as s:
        yield s
    engine.dispose()


def _row(s: Session, jid: int) -> dict:
    r = s.execute(select(Job.__table__).where(Job.id == jid)).mappings().one()
    return {k: v for k, v in r.items() if k != "id"}


def test_the_row_is_the_orms_and_the_object_is_loaded(session):
    s = session
    s.add(Job(id=1, **VALUES))
    s.flush()
    rows = NewRows(s)
    job = rows.job(dict(VALUES, id=2))
    assert s.execute(text("SELECT count(*) FROM jobs")).scalar() == 2  # the query wrote it first
    assert _row(s, 2) == _row(s, 1)
    assert job in s and not s.new and s.get(Job, (2, 0)) is job and job.project == "default"
    assert all(k in job.__dict__ for k in Job.__table__.columns.keys())  # nothing left to load


def test_written_before_a_flush_or_the_commit(session):
    s = session
    rows = NewRows(s)
    job = rows.job(dict(VALUES, id=5))
    job.status = "RUN"  # an UPDATE at the flush: the INSERT goes first
    s.add(JobEvent(job_id=5, array_index=0, time=11.0, kind="START", actor=None, data="{}"))
    rows.history(5, 0, 10.0, "SUBMIT", "user1", '{"queue": "normal"}')
    s.flush()
    assert s.execute(select(Job.status).where(Job.id == 5)).scalar() == "RUN"
    s.commit()
    other = NewRows(s)
    other.job(dict(VALUES, id=6))
    s.commit()  # nothing else in the transaction: the commit writes it
    assert [r[0] for r in s.execute(text("SELECT id FROM jobs ORDER BY id"))] == [5, 6]
    assert [tuple(r) for r in s.execute(text("SELECT kind, data FROM job_events ORDER BY id"))] == [
        ("SUBMIT", '{"queue": "normal"}'), ("START", "{}")]


def test_a_changed_new_job_then_a_query(session):
    """A new job changed before its row is written, then any statement: the
    INSERT goes first, the change after it (the what-if replay sets a job's
    simulated run time right after submitting it)."""
    s = session
    job = NewRows(s).job(dict(VALUES, id=8))
    job.sim_runtime = 99.0
    assert s.execute(select(Job.sim_runtime).where(Job.id == 8)).scalar() == 99.0
    s.commit()
    assert _row(s, 8)["sim_runtime"] == 99.0


def test_a_rollback_takes_the_new_jobs_back(session):
    s = session
    rows = NewRows(s)
    first = rows.job(dict(VALUES, id=7))
    s.execute(text("SELECT 1"))  # written within the transaction
    s.rollback()
    assert first not in s and s.execute(text("SELECT count(*) FROM jobs")).scalar() == 0
    again = rows.job(dict(VALUES, id=7, command="sleep 2"))  # the same ID again: no clash in the session
    s.commit()
    assert s.get(Job, (7, 0)) is again and _row(s, 7)["command"] == "sleep 2"


def test_the_job_listeners_hear_of_a_new_job(session):
    """rowcache's listeners (the pass's rows, the bjobs -aps listing, the tally)
    are told of a new job as of an expired one: by the ORM's "expire" event,
    which they all listen to (lsfemu.store.rowcache)."""
    from sqlalchemy import event

    heard: list = []

    def listener(job, *_):
        heard.append(job)

    event.listen(Job, "expire", listener)
    try:
        job = NewRows(session).job(dict(VALUES, id=9))
    finally:
        event.remove(Job, "expire", listener)
    assert heard == [job]


def test_changed_rows_reach_the_store_before_any_statement(session):
    """A start's columns assigned through ChangedRows: in memory at once, no
    ORM change pending, in the store before the next query -- also for a new
    job whose INSERT is still kept (it goes first) -- and at the commit."""
    from sqlalchemy import event

    s = session
    s.add(Job(id=1, **VALUES))
    s.commit()
    new, changed = NewRows(s), ChangedRows(s)
    old = s.get(Job, (1, 0))
    fresh = new.job(dict(VALUES, id=2))
    heard: list = []

    def listener(job, *_):
        heard.append(job)

    event.listen(Job, "expire", listener)
    try:
        for job in (old, fresh):
            changed.assign(job, {"status": "RUN", "start_time": 20.0, "exec_hosts": "hostA hostA"})
    finally:
        event.remove(Job, "expire", listener)
    assert heard == [old, fresh]  # each job's listeners told once (the caches drop what they held)
    assert old.status == "RUN" and not s.dirty
    assert s.execute(select(Job.id, Job.status, Job.exec_hosts).order_by(Job.id)).all() == [
        (1, "RUN", "hostA hostA"), (2, "RUN", "hostA hostA")]
    changed.assign(old, {"status": "DONE", "finish_time": 30.0})
    s.commit()
    assert (_row(s, 1)["status"], _row(s, 1)["finish_time"], _row(s, 1)["start_time"]) == ("DONE", 30.0, 20.0)


def test_changed_rows_and_the_orms_own_changes_latest_wins(session):
    s = session
    s.add_all([Job(id=1, **VALUES), Job(id=2, **VALUES)])
    s.commit()
    changed = ChangedRows(s)
    a, b = s.get(Job, (1, 0)), s.get(Job, (2, 0))
    a.status = "PSUSP"  # the ORM's change first, then the bulk one
    changed.assign(a, {"status": "RUN"})
    changed.assign(b, {"status": "RUN"})
    b.status = "USUSP"  # the bulk change first, then the ORM's
    s.flush()
    assert s.execute(select(Job.status).order_by(Job.id)).scalars().all() == ["RUN", "USUSP"]


def test_a_rollback_drops_the_changed_rows(session):
    s = session
    s.add(Job(id=1, **VALUES))
    s.commit()
    changed = ChangedRows(s)
    job = s.get(Job, (1, 0))
    s.execute(text("SELECT 1"))  # a transaction under way (without one a rollback is a no-op, as for the ORM)
    changed.assign(job, {"status": "RUN"})
    s.rollback()
    s.commit()  # nothing kept to write
    assert job.status == "PEND" and _row(s, 1)["status"] == "PEND"


def test_a_record_changed_stays_a_record(session):
    """A job held as a record (lsfemu.store.records) takes the values in its
    slots, stays a record (no ORM object made for it), and its row reaches the
    store before the next statement."""
    from lsfemu.store.records import Records, is_record

    s = session
    s.add(Job(id=1, **VALUES))
    s.commit()
    s.expunge_all()
    rec = Records(s).load(0.0)[(1, 0)]
    ChangedRows(s).assign(rec, {"status": "RUN", "exec_hosts": "hostA"})
    assert is_record(rec) and (rec.status, rec.exec_hosts) == ("RUN", "hostA") and not s.dirty
    assert s.execute(select(Job.status, Job.exec_hosts).where(Job.id == 1)).one() == ("RUN", "hostA")
