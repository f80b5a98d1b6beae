"""The store: Alembic migrations match the models, WAL mode, history rows."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from lsfemu.store.db import integrity_ok, open_store
from lsfemu.store.models import Base


def test_migrations_create_exactly_the_models(tmp_path):
    engine, _ = open_store(f"sqlite:///{tmp_path / 's.db'}")
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert diff == [], diff
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    assert set(inspect(engine).get_table_names()) >= {"jobs", "job_events", "user_usage", "queue_state",
                                                       "host_state", "clock", "counters", "alembic_version"}
    assert integrity_ok(engine)


def test_upgrade_is_idempotent(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    open_store(url)
    engine, _ = open_store(url)  # a second start finds the schema current
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1
