"""Core statements run on the session's own DBAPI connection (issue 23, part 3:
the submission path).

A statement through the ORM's `Session.execute` runs the session's
`do_orm_execute` listeners (the writer lock, new rows first, the listings'
generation) and SQLAlchemy's execution context (parameters built, bind
values processed, a result object): for a submission's few small
statements that machinery costs more than SQLite does. `run` compiles a
statement once per dialect and set of keys and executes it on the DBAPI
cursor of the connection the session's transaction holds -- the same
transaction, committed or rolled back with it -- applying the bind
processors SQLAlchemy would (so the store holds the same values).

Only for statements that need none of those listeners: a caller writing
through `run` takes the store's writer lock itself (`run` does, see
lsfemu.store.db.take_writer_lock), writes no job that new rows not yet
written (lsfemu.store.newrows) could precede, and changes nothing a
listing's table shows. A driver error is raised as SQLAlchemy's
(`DBAPIError.instance`), as through the session.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from lsfemu.store.db import take_writer_lock

# (statement, dialect name, keys) -> (SQL text, parameter order or None, processors, renamed,
# the values of the statement's own literals, positional: a row's values getter and the processors by position)
_COMPILED: dict[tuple, tuple] = {}


def _compiled(stmt, dialect, keys: tuple[str, ...]):
    key = (stmt, dialect.name, keys)
    found = _COMPILED.get(key)
    if found is None:
        c = stmt.compile(dialect=dialect, column_keys=list(keys))
        escaped = getattr(c, "escaped_bind_names", None) or {}
        procs = c._bind_processors  # (what Connection.execute applies to each value)
        if c.positional:
            order = tuple(c.positiontup)
            names = order
        else:
            order = None
            names = tuple(c.bind_names.values())
        found = _COMPILED[key] = (c.string, order, tuple((n, procs[n]) for n in names if n in procs),
                                  tuple((n, escaped[n]) for n in names if escaped.get(n, n) != n),
                                  {n: b.effective_value for n, b in c.binds.items() if n not in keys},
                                  # positional: a row's values in one C call, the processors by position
                                  None if order is None else itemgetter(*order) if len(order) > 1
                                  else (lambda r, n=order[0]: (r[n],)) if order else (lambda r: ()),
                                  tuple((i, procs[n]) for i, n in enumerate(order) if n in procs) if order else ())
        if len(_COMPILED) > 256:  # (statements are module constants: a handful; a bound all the same)
            _COMPILED.pop(next(iter(_COMPILED)))
    return found


def run(session: Session, stmt, params: dict[str, Any] | list[dict[str, Any]]):
    """Execute *stmt* with *params* (a dict; a list of dicts: executemany, all
    with the same keys) in *session*'s transaction; the DBAPI cursor (its
    rows: RETURNING's). A write takes the writer lock first where the
    session has one (lsfemu.store.db.one_writer_at_a_time); a read does not."""
    # The transaction's connection, its DBAPI connection and dialect, looked up once
    # per transaction (Session.connection() costs about as much as the statement).
    tx = session.get_transaction()
    held = session.info.get("rawsql")
    if tx is None or held is None or held[0] is not tx:
        conn = session.connection()
        held = session.info["rawsql"] = (session.get_transaction(), conn, conn.connection.dbapi_connection,
                                         conn.dialect)
    _, conn, dbapi, dialect = held
    if not stmt.is_select and session.info.get("one_writer"):
        take_writer_lock(session, conn)  # (once a transaction; a read takes nothing, as through the session)
    many = isinstance(params, list)
    first = params[0] if many else params
    text, order, procs, renamed, literals, values, at = _compiled(stmt, dialect, tuple(first))
    rows = params if many else [params]
    if literals:
        rows = [{**literals, **r} for r in rows]
    if order is not None:  # (SQLite's ?: a row's values in order, processed in place -- a bsub -pack's thousands)
        args = [list(values(r)) for r in rows] if at else [values(r) for r in rows]
        for a in args if at else ():
            for i, proc in at:
                v = a[i]
                if v is not None:
                    a[i] = proc(v)
    else:
        if procs:
            rows = [dict(r) for r in rows] if not literals else rows
            for r in rows:
                for name, proc in procs:
                    v = r.get(name)
                    if v is not None:
                        r[name] = proc(v)
        args = rows if not renamed else [{**r, **{e: r[n] for n, e in renamed}} for r in rows]
    cursor = dbapi.cursor()
    if conn._has_events or conn.engine._has_events:  # (an engine's statement listeners, as tests have, hear it)
        for fn in conn.dispatch.before_cursor_execute:
            fn(conn, cursor, text, args if many else args[0], None, many)
    try:
        if many:
            cursor.executemany(text, args)
        else:
            cursor.execute(text, args[0])
    except Exception as e:
        if isinstance(e, dialect.loaded_dbapi.Error):
            raise DBAPIError.instance(text, args, e, dialect.loaded_dbapi.Error) from e
        raise
    return cursor
