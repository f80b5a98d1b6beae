"""Shared by the hardening tests: every row of every table of a cluster's
store (SQLite or PostgreSQL), read without writing (to check that a refused
command changed nothing)."""

from __future__ import annotations

import sqlite3


def snapshot(c) -> dict[str, list]:
    """Every row of every table of `c`'s store (an LsfCluster), read-only."""
    if c.db_url:  # PostgreSQL (lsfemu_db): the same through SQLAlchemy
        from sqlalchemy import inspect

        from lsfemu.store.db import make_engine

        engine = make_engine(c.store_url)
        try:
            tables = inspect(engine).get_table_names()
        finally:
            engine.dispose()
        return {t: sorted(c.store_rows(f'SELECT * FROM "{t}"'), key=repr) for t in tables}
    con = sqlite3.connect(f"file:{c.home / 'lsfemu.db'}?mode=ro", uri=True)
    try:
        tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: sorted(con.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in tables}
    finally:
        con.close()
