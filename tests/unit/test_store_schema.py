"""A new SQLite store is made from lsfemu.store.sqlite_schema, not by running
the migrations: the two must give the same catalog and revision."""

from __future__ import annotations

from lsfemu.store import sqlite_schema
from lsfemu.store.db import SCHEMA_HEAD, make_engine, upgrade
from concurrency import errors_of_threads  # (tests/unit, beside this file)


def _catalog(url: str, snapshot: bool) -> tuple[set, list]:
    engine = make_engine(url)
    try:
        upgrade(engine, snapshot=snapshot)
        with engine.connect() as conn:
            # (the migrations make some indexes in an order that varies between runs: compared as a set)
            rows = set(conn.exec_driver_sql("SELECT type, name, tbl_name, sql FROM sqlite_master").all())
            revision = [r[0] for r in conn.exec_driver_sql("SELECT version_num FROM alembic_version")]
    finally:
        engine.dispose()
    return rows, revision


def test_the_snapshot_is_of_the_newest_migration():
    assert sqlite_schema.HEAD == SCHEMA_HEAD, (
        "a migration was added: make lsfemu/store/sqlite_schema.py again with "
        "`python -m lsfemu.store.sqlite_schema`")


def test_a_store_made_from_the_snapshot_equals_the_migrated_one(tmp_path):
    migrated = _catalog(f"sqlite:///{tmp_path / 'migrated.db'}", snapshot=False)
    made = _catalog(f"sqlite:///{tmp_path / 'made.db'}", snapshot=True)
    assert made == migrated, (
        "the schema changed: make lsfemu/store/sqlite_schema.py again with `python -m lsfemu.store.sqlite_schema`")
    assert made[1] == [SCHEMA_HEAD]


def test_an_existing_store_is_left_to_the_migrations(tmp_path):
    """A store that is not empty (here: one the migrations made) is never
    given the snapshot again; make() says so and changes nothing."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    before = _catalog(url, snapshot=False)
    engine = make_engine(url)
    try:
        raw = engine.raw_connection()
        try:
            raw.driver_connection.isolation_level = None
            assert sqlite_schema.make(raw.driver_connection) is False
        finally:
            raw.close()
    finally:
        engine.dispose()
    assert _catalog(url, snapshot=True) == before


def test_stores_opened_at_once_are_made_once(tmp_path):
    """Processes opening a new store together: one makes it, the others
    find it made (the write lock is taken before the catalog is looked at)."""
    url = f"sqlite:///{tmp_path / 'race.db'}"

    def open_it():
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()

    assert errors_of_threads(open_it, 4) == []
    assert _catalog(url, snapshot=True)[1] == [SCHEMA_HEAD]
