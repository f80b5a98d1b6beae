"""Shared by the hardening tests: every row of every table of a cluster's
store, read without writing (to check that a refused command changed nothing)."""

from __future__ import annotations

import sqlite3


def snapshot(c) -> dict[str, list]:
    """Every row of every table of `c`'s store (an LsfCluster), read-only."""
    con = sqlite3.connect(f"file:{c.home / 'lsfemu.db'}?mode=ro", uri=True)
    try:
        tables = [t for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: sorted(con.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr) for t in tables}
    finally:
        con.close()
