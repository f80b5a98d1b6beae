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


def test_schema_head_constant_is_alembics_head(tmp_path):
    """open_store skips Alembic when the store is at SCHEMA_HEAD: that constant
    must name the newest migration, and a store one revision behind still upgrades."""
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from lsfemu.store import db

    cfg = Config()
    cfg.set_main_option("script_location", str(db.migrations_dir()))
    script = ScriptDirectory.from_config(cfg)
    assert db.SCHEMA_HEAD == script.get_current_head()
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine, _ = open_store(url)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "-1")
    engine.dispose()
    engine, _ = open_store(url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == db.SCHEMA_HEAD
