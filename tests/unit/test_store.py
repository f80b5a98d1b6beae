"""The store, on SQLite and on PostgreSQL: Alembic migrations match the models
(up and down), SQLite's WAL mode, the integrity check, atomic counters."""

import threading

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, select, text

from lsfemu.store import db
from lsfemu.store.counters import Takes, ensure_counters, take_counter
from lsfemu.store.db import integrity_ok, open_store
from lsfemu.store.models import Base, Counter
from concurrency import errors_of_threads  # (tests/unit, beside this file)

pytestmark = pytest.mark.slow(8)  # seconds, quiet machine: scheduled early (tests/conftest.py)


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_store_url(request, tmp_path):
    """The URL of a store that does not exist yet (SQLite file) or has no tables (PostgreSQL)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 's.db'}"
        return
    server = request.getfixturevalue("lsfemu_postgres")
    url = server.new_database(schema=False)
    yield url
    server.drop_database(url)


def _alembic() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(db.migrations_dir()))
    return cfg


def test_migrations_create_exactly_the_models(empty_store_url):
    engine, _ = open_store(empty_store_url)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == [], diff
        if engine.dialect.name == "sqlite":
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    assert set(inspect(engine).get_table_names()) >= {"jobs", "job_events", "user_usage", "queue_state",
                                                       "host_state", "clock", "counters", "alembic_version"}
    # Alembic's comparison does not see a VARCHAR's length: names are unbounded on
    # PostgreSQL (0006), and still VARCHAR(256), never enforced, on SQLite.
    lengths = {c["name"]: getattr(c["type"], "length", None) for c in inspect(engine).get_columns("jobs")}
    want = None if engine.dialect.name == "postgresql" else 256
    assert [lengths[c] for c in ("user", "queue", "from_host", "project", "user_group")] == [want] * 5
    with engine.begin() as conn:  # 64-bit integers on both (SQLite's INTEGER; BIGINT on PostgreSQL)
        conn.execute(text("INSERT INTO counters (name, value) VALUES ('events_offset', :v)"), {"v": 3 * 2**31})
        assert conn.execute(text("SELECT value FROM counters WHERE name = 'events_offset'")).scalar() == 3 * 2**31
    assert integrity_ok(engine)
    engine.dispose()


def test_upgrade_is_idempotent(empty_store_url):
    open_store(empty_store_url)[0].dispose()
    engine, _ = open_store(empty_store_url)  # a second start finds the schema current
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1
    engine.dispose()


def test_schema_head_constant_is_alembics_head(empty_store_url):
    """open_store skips Alembic when the store is at SCHEMA_HEAD: that constant
    must name the newest migration, and a store one revision behind still upgrades."""
    cfg = _alembic()
    assert db.SCHEMA_HEAD == ScriptDirectory.from_config(cfg).get_current_head()
    engine, _ = open_store(empty_store_url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "-1")
    engine.dispose()
    engine, _ = open_store(empty_store_url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == db.SCHEMA_HEAD
    engine.dispose()


def test_every_migration_goes_down_and_up_again(empty_store_url):
    """Down to nothing and back to head, on each dialect, with rows in the tables
    (the boolean server defaults of 0002-0005 must suit both dialects)."""
    engine, Session = open_store(empty_store_url)
    with Session() as s:
        ensure_counters(s, ("next_job_id",))
    cfg = _alembic()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0001")
        conn.execute(text("INSERT INTO host_state (name, open) VALUES ('hostA', :t)"), {"t": True})
        command.upgrade(cfg, "head")
        # the row got the added column's default, false, read back as a boolean
        assert conn.execute(text("SELECT failed FROM host_state WHERE name = 'hostA'")).scalar() in (False, 0)
        command.downgrade(cfg, "base")
        assert "jobs" not in inspect(conn).get_table_names()
        command.upgrade(cfg, "head")
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    engine.dispose()


def test_counters_are_taken_atomically_across_connections(empty_store_url):
    """Six connections take the job ID counter 40 times each at once, each take in a
    transaction of its own: every value once, none skipped (1..240). Nothing but the
    UPDATE ... RETURNING serialises them (no advisory lock on these sessions)."""
    engine, Session = open_store(empty_store_url)
    with Session() as s:
        ensure_counters(s, ("next_job_id",))
    got: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(6)

    def taker():
        with Session() as s:
            start.wait()
            for _ in range(40):
                v = take_counter(s, "next_job_id")
                s.commit()
                with lock:
                    got.append(v)

    errors = errors_of_threads(taker, 6)
    assert not errors, errors
    assert sorted(got) == list(range(1, 241))
    with Session() as s:
        assert s.scalar(select(Counter.value).where(Counter.name == "next_job_id")) == 241
    engine.dispose()


def test_counter_rolled_back_leaves_no_gap_and_wraps_at_its_limit(empty_store_url):
    engine, Session = open_store(empty_store_url)
    with Session() as s:
        ensure_counters(s, ("next_job_id",))
        assert take_counter(s, "next_job_id", wrap_at=3) == 1
        s.rollback()  # a refused submission: the ID is not used up
        assert [take_counter(s, "next_job_id", wrap_at=3) for _ in range(4)] == [1, 2, 3, 1]
        s.commit()
        assert take_counter(s, "missing") == 1 and take_counter(s, "missing") == 2  # made on first use
    engine.dispose()


def test_takes_one_update_per_transaction_written_back_at_commit(empty_store_url):
    """Takes (issue 23, group commit): a transaction's takes of a counter cost one
    UPDATE ... RETURNING, the count is written back at the commit (a second
    session sees it), a rolled-back transaction leaves no gap, and the wrap at
    the limit is take_counter's."""
    from sqlalchemy import event

    engine, Session = open_store(empty_store_url)
    with Session() as s, Session() as other:
        ensure_counters(s, ("next_job_id",))
        takes = Takes(s)
        updates = []
        event.listen(engine, "before_cursor_execute",
                     lambda *a: updates.append(a[2]) if a[2].lstrip().upper().startswith("UPDATE") else None)
        assert [takes.take("next_job_id") for _ in range(5)] == [1, 2, 3, 4, 5]
        assert len(updates) == 1
        s.commit()
        assert len(updates) == 2  # the write-back
        assert other.scalar(select(Counter.value).where(Counter.name == "next_job_id")) == 6
        other.commit()
        assert [takes.take("next_job_id") for _ in range(3)] == [6, 7, 8]
        s.rollback()  # refused: none of them used up
        assert [takes.take("next_job_id", wrap_at=7) for _ in range(4)] == [6, 7, 1, 2]
        takes.set("next_job_id", 5)
        assert takes.take("next_job_id", wrap_at=7) == 5
        s.commit()
        assert other.scalar(select(Counter.value).where(Counter.name == "next_job_id")) == 6
    engine.dispose()


def test_indexes_deferred_for_a_load_are_made_again_or_rolled_back(empty_store_url):
    """A bulk load with the jobs table's secondary indexes deferred: afterwards
    they are exactly the migrations' (same names, same statements from the
    catalog); a load that fails leaves them as they were, and no rows."""
    from lsfemu.store.db import indexes_deferred, secondary_indexes

    engine, _ = open_store(empty_store_url)
    row = dict(id=1, array_index=0, user="u1", status="PEND", queue="normal", from_host="h", command="sleep 1",
               project="default", cwd="/", home="/", output_overwrite=False, error_overwrite=False,
               num_processors=1, default_queue_used=False, submit_time=1.0, position=1.0, exec_hosts="",
               pend_reasons="", sim_runtime=0.0, sim_cputime=0.0, sim_exit_code=0, work_done=0.0, env_json="{}")
    from sqlalchemy import insert as sql_insert

    from lsfemu.store.models import Job

    insert = sql_insert(Job)
    with engine.connect() as conn:
        made = secondary_indexes(conn, "jobs")
    assert [name for name, _ in made] == ["ix_jobs_finish_time", "ix_jobs_position", "ix_jobs_queue",
                                          "ix_jobs_status", "ix_jobs_user", "ix_jobs_user_status"]
    with pytest.raises(RuntimeError, match="interrupted"):
        with engine.begin() as conn, indexes_deferred(conn, "jobs"):
            assert secondary_indexes(conn, "jobs") == []
            conn.execute(insert, row)
            raise RuntimeError("interrupted")
    with engine.connect() as conn:
        assert secondary_indexes(conn, "jobs") == made
        assert conn.execute(text("SELECT count(*) FROM jobs")).scalar() == 0
    with engine.begin() as conn, indexes_deferred(conn, "jobs"):
        conn.execute(insert, row)
    with engine.connect() as conn:
        assert secondary_indexes(conn, "jobs") == made
        assert conn.execute(text("SELECT count(*) FROM jobs WHERE status = 'PEND'")).scalar() == 1
    assert integrity_ok(engine)
    engine.dispose()


def test_takes_together_one_statement_unused_ones_written_back(empty_store_url):
    """Counters taken together (a submission's job ID and position, issue 23):
    the transaction's first take of either moves both on in one UPDATE ...
    RETURNING; one not taken in the transaction goes back to its value at the
    commit; the wrap applies to the counter taken with it."""
    from sqlalchemy import event

    engine, Session = open_store(empty_store_url)
    with Session() as s, Session() as other:
        ensure_counters(s, ("next_job_id", "position"))
        takes = Takes(s, ("next_job_id", "position"))
        updates = []
        event.listen(engine, "before_cursor_execute",
                     lambda *a: updates.append(a[2]) if a[2].lstrip().upper().startswith("UPDATE") else None)
        assert [takes.take("next_job_id", wrap_at=3), takes.take("position")] == [1, 1]
        assert len(updates) == 1
        s.commit()
        assert len(updates) == 1  # both in step with the store: nothing to write back
        got = dict(other.execute(select(Counter.name, Counter.value)).all())
        assert (got["next_job_id"], got["position"]) == (2, 2)
        other.commit()
        assert takes.take("position") == 2  # the job ID moved on in the store too, and back at the commit
        s.commit()
        got = dict(other.execute(select(Counter.name, Counter.value)).all())
        assert (got["next_job_id"], got["position"]) == (2, 3)
        other.commit()
        assert [takes.take("next_job_id", wrap_at=3) for _ in range(3)] == [2, 3, 1]
        assert takes.take("position") == 3
        s.commit()
        got = dict(other.execute(select(Counter.name, Counter.value)).all())
        assert (got["next_job_id"], got["position"]) == (2, 4)
    engine.dispose()


def test_takes_read_held_counters_in_the_same_statement(empty_store_url):
    """Takes(read=held): the take's UPDATE ... RETURNING reads the held counters
    (lsb.events' committed length) unchanged, so the commit that sets them
    reads nothing more; a counter missing from the store reads None, as
    HeldCounters.get does (issue 23: a submission's statements)."""
    from sqlalchemy import event

    from lsfemu.store.counters import HeldCounters

    engine, Session = open_store(empty_store_url)
    with Session() as s, Session() as other:
        ensure_counters(s, ("next_job_id", "position", "events_offset"))  # (each made at 1)
        held = HeldCounters(s, ("events_offset", "acct_offset"))
        takes = Takes(s, ("next_job_id", "position"), read=held)
        seen = []
        event.listen(engine, "before_cursor_execute", lambda *a: seen.append(a[2].split()[0].upper()))
        assert (takes.take("next_job_id"), takes.take("position")) == (1, 1)  # a submission's
        assert (held.get("events_offset"), held.get("acct_offset")) == (1, None)
        assert seen == ["UPDATE"]
        held.set("events_offset", 500)
        s.commit()
        assert seen == ["UPDATE", "UPDATE"]  # the take, the length written back
        got = dict(other.execute(select(Counter.name, Counter.value)).all())
        assert (got["next_job_id"], got["position"], got["events_offset"]) == (2, 2, 500)
        assert "acct_offset" not in got
    engine.dispose()
