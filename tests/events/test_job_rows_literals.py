"""store.bulk.BulkRows on SQLite: a column with one value in a whole batch is
written as a literal in the statement -- the store must hold exactly what
binding the value (SQLAlchemy's insert) holds, value and storage class."""

from __future__ import annotations

import sqlite3

import pytest

from lsfemu.replay.tracker import _NEW_ROW
from lsfemu.store.bulk import BulkRows, _sqlite_literal
from lsfemu.store.db import open_store
from lsfemu.store.models import Job


def _row(i: int) -> dict:
    """A job row as the tracker makes it (every column it sets)."""
    row = dict(_NEW_ROW)
    row.update(id=i, array_index=0, user="u1", status="DONE", queue="normal", from_host="h", command="sleep 1",
               name=None, project="default", user_group=None, cwd="/w", home="/h", output_file=None,
               error_file=None, output_overwrite=False, error_overwrite=False, num_processors=1,
               max_processors=None, res_req=None, mem_req_mb=None, run_limit_min=None, submit_priority=None,
               priority=None, priority_base_time=100.0, pend_since=100.0, submit_time=100.0, position=float(i))
    return row


#: batches: (column, value of row i) -- constants of every kind, and equal values of different types
_BATCHES = {
    "quotes and marks": [("command", lambda i: "it's \"q\" ? :x %s"), ("name", lambda i: "")],
    "not ascii, NUL": [("cwd", lambda i: "/w/é"), ("home", lambda i: "a\x00b")],
    "not UTF-8": [("user", lambda i: "\udcff")],
    "numbers": [("num_processors", lambda i: 2**62), ("run_limit_min", lambda i: 2.5),
                ("submit_time", lambda i: 1767603601.0), ("priority", lambda i: -7),
                ("mem_req_mb", lambda i: 2.0**60), ("max_processors", lambda i: True)],
    "equal across types": [("exit_code", lambda i: (0, False, 0.0)[i % 3]),
                           ("run_limit_min", lambda i: (5, 5.0, True * 5)[i % 3]),
                           ("output_overwrite", lambda i: (1, True, 1.0)[i % 3]),
                           ("array_limit", lambda i: (1, 1.0)[i % 2]), ("sim_exit_code", lambda i: (3, 3.0)[i % 2])],
    "one row": [],
}


@pytest.mark.parametrize("batch", sorted(_BATCHES))
def test_literal_columns_store_what_binding_stores(tmp_path, batch):
    rows = [_row(i) for i in range(1, 2 if batch == "one row" else 8)]
    for i, row in enumerate(rows):
        for col, value in _BATCHES[batch]:
            row[col] = value(i)

    def store(name, write):
        engine, _ = open_store(f"sqlite:///{tmp_path / name}.db")
        try:
            with engine.begin() as conn:
                write(conn, [dict(r) for r in rows])
        except Exception as e:  # the same failure either way (a value neither can store)
            return type(e).__name__
        finally:
            engine.dispose()
        with sqlite3.connect(tmp_path / f"{name}.db") as db:
            cols = [c[1] for c in db.execute("PRAGMA table_info(jobs)")]
            sel = ", ".join(f"typeof({c}), quote({c})" for c in cols)
            return db.execute(f"SELECT {sel} FROM jobs ORDER BY id").fetchall()

    def by_sqlalchemy(conn, rs):
        from sqlalchemy import insert

        from lsfemu.store.models import Job

        conn.execute(insert(Job), rs)

    statements = []

    def by_job_rows(conn, rs):
        conn.exec_driver_sql = lambda sql, params, run=conn.exec_driver_sql: (statements.append(sql), run(sql, params))
        BulkRows(conn, Job).insert(rs)

    literal = store("literal", by_job_rows)
    assert literal == store("bound", by_sqlalchemy)
    if batch == "not UTF-8":
        assert literal == "UnicodeEncodeError"
    else:
        assert len(literal) == len(rows) and statements[0].count("?") < 20  # most columns literal


def test_sqlite_literal():
    lit = _sqlite_literal
    assert [lit(None, True), lit(None, False)] == ["NULL", "NULL"]
    assert [lit(5, True), lit(-2**63, True), lit(2**63, True)] == ["5", str(-2**63), None]
    assert [lit(5.0, True), lit(5.5, True), lit(2.0**53, True), lit(float("nan"), True)] == ["5.0", None, None, None]
    assert [lit(True, True), lit("5", True), lit(5, False)] == [None, None, None]  # bools and strings: bound
    assert [lit("it's", False), lit("é", False), lit("a\x00", False)] == ["'it''s'", None, None]
