"""The bulk insert: many rows of one table written in one executemany of the
driver, without SQLAlchemy's per-row parameter processing (:class:`BulkRows`).
``lsfemu replay --into`` loads a log's jobs with it, and the benchmark fills a
store with it (tests/bench/fill.py); what it stores is exactly what
SQLAlchemy's insert stores (tests/events/test_job_rows_literals.py and the
replay tests compare the two).
"""

from __future__ import annotations

import operator
from typing import Any

from sqlalchemy import Boolean, Connection, Float, Integer, insert

from lsfemu.store.models import Base


class _Processed(dict):
    """A bind processor's results for a type of few values (Boolean: None,
    True, False), each computed once and then looked up without a Python
    call; a value not met yet goes through the processor (and fails as it does)."""

    def __init__(self, proc: Any):
        super().__init__()
        self.proc = proc

    def __missing__(self, value: Any) -> Any:
        out = self[value] = self.proc(value)
        return out


class BulkRows:
    """Rows of one table (*model*: ``Job``, ``JobEvent``, ...; dicts with the
    same keys) written with the driver's executemany: SQLAlchemy's insert
    builds each row's parameters in Python, most of a replay's store time.
    The statement is compiled once for the rows' keys plus the columns with a
    scalar default (as the insert would fill them), each row becomes a tuple
    (a dict for drivers with named parameters), and the columns' bind
    processors apply as they would.

    On SQLite, binding is half of the insert's own time (every parameter of
    every row, some 55 a row): a batch is taken column by column, and a
    column with one value in every row of the batch is written once, as a
    literal in the statement (:func:`_sqlite_literal`: only values whose
    literal stores exactly what binding them stores), the others bound."""

    def __init__(self, conn: Connection, model: type[Base]):
        self.conn = conn
        self.model = model
        self.keys: tuple[str, ...] | None = None

    def _compile(self, keys: tuple[str, ...]) -> None:
        table = self.model.__table__
        dialect = self.conn.dialect
        self.defaults = {c.key: c.default.arg for c in table.columns
                         if c.key not in keys and c.default is not None and c.default.is_scalar}
        compiled = insert(table).compile(dialect=dialect, column_keys=[*keys, *self.defaults])
        self.sql = str(compiled)
        self.positional = compiled.positional
        self.names = list(compiled.positiontup) if compiled.positional else [*keys, *self.defaults]
        self.values = operator.itemgetter(*self.names)
        self.procs = []
        self.proc_of: dict[str, Any] = {}
        for i, k in enumerate(self.names):
            proc = table.c[k].type.dialect_impl(dialect).bind_processor(dialect)
            if proc is not None:
                self.proc_of[k] = proc
                if isinstance(table.c[k].type, Boolean):
                    proc = _Processed(proc).__getitem__
                self.procs.append((i, proc))
        self.keys = keys
        head, sep, _ = self.sql.rpartition(" VALUES (")
        self.by_column = dialect.name == "sqlite" and compiled.positional and bool(sep) and len(keys) > 1
        if self.by_column:
            self.head = head + sep
            self.row_values = operator.itemgetter(*keys)
            self.numeric = {k for k in self.names if isinstance(table.c[k].type, (Integer, Float, Boolean))}

    def insert(self, rows: list[dict[str, Any]]) -> None:
        """Write *rows* (each may be completed with the defaults: the caller's rows are done with)."""
        if not rows:
            return
        keys = tuple(rows[0])
        if any(len(r) != len(keys) for r in rows):
            self.conn.execute(insert(self.model), rows)  # keys differ: SQLAlchemy sorts them out
            return
        if keys != self.keys:
            self._compile(keys)
        if self.by_column:
            self._insert_by_column(rows)
            return
        params = []
        defaults, values, procs = self.defaults, self.values, self.procs
        for row in rows:
            row.update(defaults)
            vals = values(row)
            if procs:
                vals = list(vals)
                for i, proc in procs:
                    vals[i] = proc(vals[i])
            params.append(tuple(vals) if self.positional else dict(zip(self.names, vals)))
        self.conn.exec_driver_sql(self.sql, params)

    def _insert_by_column(self, rows: list[dict[str, Any]]) -> None:
        n = len(rows)
        columns = dict(zip(self.keys, zip(*map(self.row_values, rows))))
        sql: list[str] = []
        bound: list[Any] = []
        for name in self.names:
            column = columns.get(name)
            if column is None:
                column = (self.defaults[name],) * n
            proc = self.proc_of.get(name)
            first = column[0]
            if column.count(first) == n:  # one value (numbers equal across types: see _sqlite_literal)
                literal = _sqlite_literal(proc(first) if proc else first, name in self.numeric)
                if literal is not None:
                    sql.append(literal)
                    continue
            sql.append("?")
            bound.append(list(map(proc, column)) if proc else column)
        params = list(zip(*bound)) if bound else [()] * n
        self.conn.exec_driver_sql(self.head + ", ".join(sql) + ")", params)


def _sqlite_literal(value: Any, numeric: bool) -> str | None:
    """*value* as an SQLite literal that stores what binding it stores, or
    None. In a numeric column (INTEGER, REAL or NUMERIC affinity) a number
    may stand for the equal numbers of other types in a batch (1, 1.0,
    True): the column's affinity stores them alike; in a text column only a
    string or NULL, which equal only their own kind."""
    if value is None:
        return "NULL"
    kind = type(value)
    if numeric:
        if kind is int and -2**63 <= value < 2**63:
            return str(value)
        if kind is float and value.is_integer() and abs(value) < 2**53:
            return f"{int(value)}.0"
        return None
    if kind is str and value.isascii() and "\x00" not in value:
        return "'" + value.replace("'", "''") + "'"
    return None
