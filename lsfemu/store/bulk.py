"""Loading a store in bulk: emptying it first (:func:`empty_store`), many rows
of one table written in one executemany of the driver without SQLAlchemy's
per-row parameter processing (:class:`BulkRows`), and the rows a loaded
store holds besides its jobs (:func:`write_loaded_state`: the clock, the
counters, the queues' and hosts' states). ``lsfemu replay --into`` loads a
log's jobs with it, and the benchmark fills a store with :class:`BulkRows`
(tests/bench/fill.py); what it stores is exactly what SQLAlchemy's insert
stores (tests/events/test_job_rows_literals.py and the replay tests compare
the two).
"""

from __future__ import annotations

import operator
from typing import Any

from sqlalchemy import Boolean, Connection, Float, Integer, delete, func, insert, inspect, select, text, update

from lsfemu.store.db import make_engine, storage_failure
from lsfemu.store.models import Base, ClockState, Counter, HostState, Job, QueueState


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


def empty_store(url: str, *, force: bool, app_prefix: str, holds_jobs: str, connected: str) -> str | None:
    """Empty the store at *url* for a bulk load; None when done, else why not:
    *connected* when a daemon's lock connection (``application_name`` starting
    with *app_prefix*, PostgreSQL) is there, *holds_jobs* when it has jobs and
    not *force*, or the storage failure. A new database is left to
    ``open_store``, which makes the schema."""
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            if "jobs" not in inspect(conn).get_table_names():
                return None  # a new database: open_store makes the schema
            if conn.dialect.name == "postgresql" and conn.execute(text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND application_name LIKE :p"), {"p": app_prefix + "%"}).scalar():
                return connected
            if not force and conn.execute(select(func.count()).select_from(Job)).scalar():
                return holds_jobs
            for table in reversed(Base.metadata.sorted_tables):  # jobs, and the clock and counters with them
                conn.execute(delete(table))
    except Exception as e:
        why = storage_failure(e)
        if why is None:
            raise
        return why
    finally:
        engine.dispose()
    return None


def write_loaded_state(conn: Connection, *, now: float, counters: dict[str, int], queues: dict[str, dict[str, Any]],
                       hosts: dict[str, bool], priority: int | None = None) -> None:
    """What a store loaded in bulk holds besides its jobs: the clock at *now*
    (its last pass too), the *counters*, the queues' states (name -> columns)
    and the hosts' (name -> open); with *priority*, the job priority of every
    job that has none."""
    if priority is not None:
        conn.execute(update(Job).where(Job.priority.is_(None)).values(priority=priority))
    conn.execute(insert(ClockState), [dict(id=1, virtual_now=now, last_pass=now)])
    conn.execute(insert(Counter), [dict(name=k, value=v) for k, v in counters.items()])
    if queues:
        conn.execute(insert(QueueState), [dict(name=q, **st) for q, st in queues.items()])
    if hosts:
        conn.execute(insert(HostState), [dict(name=h, open=o, failed=False) for h, o in hosts.items()])
