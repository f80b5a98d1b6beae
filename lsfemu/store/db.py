"""Opening the store: engine per dialect, schema upgrade through Alembic, the
integrity check, and the one-line reasons a store cannot be written; a
master candidate's lock connection, and the looks at a store from outside a
cluster (does it hold jobs; a test's query).

`LSFEMU_DB` names the store's SQLAlchemy URL; without it the store is SQLite
(WAL) at `LSFEMU_HOME/lsfemu.db`. The other supported dialect is PostgreSQL
(`postgresql+psycopg://user@host:port/db`, the extra `lsfemu[postgresql]`).
Everything dialect-specific in lsfemu lives here (and in store.counters'
portable UPDATE ... RETURNING); both dialects are tested by the same suites.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import Connection, Engine, create_engine, event, func, inspect, select, text
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from lsfemu.store.models import Base, Job


def default_url(home: str) -> str:
    return os.environ.get("LSFEMU_DB") or f"sqlite:///{os.path.join(home, 'lsfemu.db')}"


DEFAULT_LOCK_TIMEOUT = 30.0  # seconds a write waits for another process's lock on the store


def lock_timeout() -> float:
    """How long a write waits for a lock held by another process
    (`LSFEMU_DB_TIMEOUT` seconds, default 30), then fails."""
    try:
        value = float(os.environ.get("LSFEMU_DB_TIMEOUT", DEFAULT_LOCK_TIMEOUT))
    except ValueError:
        return DEFAULT_LOCK_TIMEOUT
    return value if 0 <= value <= 3600 else DEFAULT_LOCK_TIMEOUT


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": lock_timeout(), "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):  # noqa: ANN001
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode survives a crash of the process (the case we
            # guarantee: kill -9 of the daemon); only a power loss may lose the
            # last commits.
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    if url.startswith("postgresql"):
        # lock_timeout plays SQLite's busy timeout: a write waits that long for a row or
        # table another connection holds, then fails (storage_failure: "locked").
        # connect_timeout: an unreachable server fails the command instead of hanging it.
        ms = int(lock_timeout() * 1000)
        return create_engine(url, pool_pre_ping=True,
                             connect_args={"connect_timeout": 10, "options": f"-c lock_timeout={ms}"})
    return create_engine(url, pool_pre_ping=True)


def unpooled_engine(url: str, connect_args: dict) -> Engine:
    """An engine that keeps no connection once it is given back (NullPool): a
    master candidate's lock connection, whose session-level advisory lock
    must go with the connection."""
    return create_engine(url, poolclass=NullPool, connect_args=connect_args)


#: the key of the PostgreSQL advisory lock that makes the store's transactions one
#: writer at a time (the ASCII of "lsfemuW"); master election must use another key
WRITER_LOCK_KEY = int.from_bytes(b"lsfemuW", "big")


def one_writer_at_a_time(session: Session) -> None:
    """Give `session` SQLite's locking on PostgreSQL too: one writing transaction at a time.

    On SQLite a transaction takes the database's write lock at its first write
    and keeps it to the commit; the code built on the store relies on that (the
    lsb.events append and its committed offset, several in-process commands at
    once). PostgreSQL locks only the rows written, so there each transaction
    of the session takes a transaction-level advisory lock (`pg_advisory_xact_lock`)
    at its first write (a flush or an ORM UPDATE/INSERT/DELETE), released by its
    commit or rollback and waited for at most `lock_timeout()` seconds like any
    other lock. Reading takes nothing (a transaction that only read, left open
    between requests, blocks no one); one daemon alone is never held up."""
    session.info["one_writer"] = True  # (lsfemu.store.rawsql takes the lock itself then)

    @event.listens_for(session, "before_flush")
    def _on_flush(sess, _context, _instances):  # noqa: ANN001
        take_writer_lock(sess)

    @event.listens_for(session, "do_orm_execute")
    def _on_write(state):  # noqa: ANN001
        if state.is_insert or state.is_update or state.is_delete:
            take_writer_lock(state.session)


def take_writer_lock(sess: Session, conn: Connection | None = None) -> None:
    """The writer lock of one_writer_at_a_time for *sess*'s transaction, taken
    once (a statement run outside the session's listeners, lsfemu.store.rawsql,
    takes it itself, handing over the transaction's *conn* it looked up)."""
    tx = sess.get_transaction()
    if tx is None or sess.info.get("_writer_lock_tx") is tx:
        return
    if conn is None:
        conn = sess.connection()
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITER_LOCK_KEY})")
    sess.info["_writer_lock_tx"] = tx


def migrations_dir() -> Path:
    """Where the Alembic scripts are: installed package, or the checkout."""
    try:  # installed: lsfemu.migrations; a checkout has them in migrations/ beside lsfemu/
        import lsfemu.migrations as m

        return Path(m.__file__).parent
    except ImportError:
        return Path(__file__).resolve().parents[2] / "migrations"


#: the newest migration's revision (tests/unit/test_store.py holds it equal to
#: Alembic's head): a store at this revision is opened without loading Alembic,
#: which costs most of a command's time in in-process mode
SCHEMA_HEAD = "0010"


def _current_revision(engine: Engine) -> str | None:
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except Exception:  # no table yet (a new store), or not readable: let Alembic decide
        return None


def upgrade(engine: Engine, snapshot: bool = True) -> None:
    """Bring the schema to the newest revision (no-op when it is current).
    A new SQLite store is made from the migrations' schema in one
    transaction (lsfemu.store.sqlite_schema) unless *snapshot* is False."""
    if _current_revision(engine) == SCHEMA_HEAD:
        return
    if snapshot and engine.dialect.name == "sqlite" and _made_from_snapshot(engine):
        return
    # only when the store must be migrated: Alembic costs every daemon start a tenth of a second
    from alembic import command
    from alembic.config import Config
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir()))
    head = ScriptDirectory.from_config(cfg).get_current_head()
    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    if current == head:
        return
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # Daemons starting together on one new database: one migrates, the others
            # wait here and then find the schema current (DDL is transactional there).
            conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITER_LOCK_KEY})")
            if MigrationContext.configure(conn).get_current_revision() == head:
                return
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def _made_from_snapshot(engine: Engine) -> bool:
    """A new (empty) SQLite store given the schema at once (True); False
    when the store is not empty or the snapshot is not of the newest revision."""
    from lsfemu.store import sqlite_schema  # it imports this module (its generator)

    if sqlite_schema.HEAD != SCHEMA_HEAD:
        return False  # (a migration newer than the snapshot: tests/unit/test_store_schema.py says so)
    raw = engine.raw_connection()
    try:
        dbapi = raw.driver_connection
        level = dbapi.isolation_level
        dbapi.isolation_level = None  # autocommit: make() says BEGIN IMMEDIATE and COMMIT itself
        try:
            return sqlite_schema.make(dbapi)
        finally:
            dbapi.isolation_level = level
    finally:
        raw.close()


def preload() -> None:
    """Do now, once, what each store's first use would do in every process: import
    the dialects (SQLite's; PostgreSQL's and its driver when installed) and
    configure the ORM's mappers. For a process that forks daemons
    (lsfemu.daemon.forkserver): each child starts with them done. Opens no connection."""
    import importlib  # (only here: a process about to fork)

    from sqlalchemy.orm import configure_mappers

    for module in ("sqlalchemy.dialects.sqlite.pysqlite", "sqlalchemy.dialects.postgresql.psycopg", "psycopg"):
        try:
            importlib.import_module(module)
        except ImportError:  # the extra lsfemu[postgresql] is not installed
            pass
    configure_mappers()


def open_store(url: str) -> tuple[Engine, sessionmaker[Session]]:
    engine = make_engine(url)
    upgrade(engine)
    return engine, sessionmaker(engine, expire_on_commit=False)


def held_session(engine: Engine, maker: sessionmaker[Session]) -> Session:
    """A session of *maker* that keeps one connection of *engine* for all its
    transactions (a cluster's: issue 23, the submission path). Through the pool
    each transaction checked a connection out at its first statement and back
    in at its end (and the pool reset it): some 8% of a lone submission's CPU.
    The session begins and ends its transactions on the connection as before
    (commit, rollback: the same statements); between them the connection is in
    none, so it holds no lock (SQLite begins a transaction at the first write,
    PostgreSQL's writer lock is the transaction's). A connection the server
    cut is invalidated at its next statement (that request fails) and made
    again after the rollback, as a pooled one was at its next checkout. The
    connection is closed when the engine is disposed (every caller's way of
    letting a cluster go), not given back to the pool dispose replaced.

    SQLite only: a PostgreSQL session takes a connection from the pool at each
    transaction as before, so that the pool's check before each (pool_pre_ping)
    replaces a connection the server cut -- a restart, an idle-session timeout
    of the server or of a firewall between -- without failing the request that
    finds it (docs/semantics.md, "One connection kept")."""
    if engine.dialect.name != "sqlite":
        return maker()
    conn = engine.connect()

    @event.listens_for(engine, "engine_disposed")
    def _close(_engine) -> None:  # noqa: ANN001
        try:
            conn.invalidate()  # (closes the driver's connection now)
            conn.close()
        except Exception:  # already closed or cut: nothing to let go of
            pass

    return maker(bind=conn)


def secondary_indexes(conn: Connection, table: str) -> list[tuple[str, str]]:
    """The indexes of *table* that no constraint owns (not its primary key's,
    not a UNIQUE constraint's), as (name, the statement that makes it) read
    from the store's own catalog: exactly what the migrations made. Sorted by name."""
    if conn.dialect.name == "sqlite":
        # a constraint's index has no statement of its own (sql IS NULL)
        rows = conn.exec_driver_sql(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL "
            "ORDER BY name", (table,))
    elif conn.dialect.name == "postgresql":
        rows = conn.execute(text(
            "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i "
            "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid "
            "JOIN pg_namespace n ON n.oid = t.relnamespace "
            "WHERE t.relname = :t AND n.nspname = current_schema() "
            "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) "
            "ORDER BY c.relname"), {"t": table})
    else:
        raise NotImplementedError(f"no index catalog for the {conn.dialect.name} dialect")
    return [(name, sql) for name, sql in rows]


@contextmanager
def indexes_deferred(conn: Connection, table: str) -> Iterator[None]:
    """A bulk load of *table* in *conn*'s transaction with its secondary
    indexes dropped, and made again from their saved statements when the load
    is done: sorting every key once costs less than inserting each row's key
    into each B-tree. All of it is one transaction, so a load that fails or is
    interrupted rolls back to the indexes as they were (the context does not
    make them again when the load raises: the rollback does). On SQLite the
    transaction is begun here, since its driver begins one only before a DML
    statement and the DROPs would otherwise commit on their own."""
    if conn.dialect.name == "sqlite" and not conn.connection.dbapi_connection.in_transaction:
        conn.exec_driver_sql("BEGIN")
    saved = secondary_indexes(conn, table)
    for name, _sql in saved:
        conn.exec_driver_sql(f'DROP INDEX "{name}"')
    yield
    for _name, sql in saved:
        conn.exec_driver_sql(sql)


def integrity_ok(engine: Engine) -> bool:
    """The store's own consistency check. SQLite: `PRAGMA integrity_check`.
    PostgreSQL has no such statement: every table of the schema is read in full
    (a damaged page fails the read; with data checksums, a flipped bit too), and
    when the `amcheck` extension is installed in the database every B-tree index
    is verified against its table (`bt_index_check(index, heapallindexed)`)."""
    with engine.connect() as conn:
        if engine.dialect.name == "sqlite":
            return conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        if engine.dialect.name != "postgresql":
            raise NotImplementedError(f"no integrity check for the {engine.dialect.name} dialect")
        try:
            for table in Base.metadata.sorted_tables:
                # every row, every column (detoasted): the row's text form
                conn.execute(text(f'SELECT sum(length(CAST(t AS text))) FROM "{table.name}" AS t')).scalar()
            if conn.execute(text("SELECT 1 FROM pg_extension WHERE extname = 'amcheck'")).scalar():
                conn.execute(text(
                    "SELECT bt_index_check(c.oid, true) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                    "JOIN pg_am a ON a.oid = c.relam JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE a.amname = 'btree' AND n.nspname = current_schema()")).all()
        except Exception:  # a read or a check that fails is the answer: not intact
            return False
        return True


# -- when the store cannot be written ------------------------------------------------------------

_ERRNO_OF_SQLITE = (
    ("database or disk is full", errno.ENOSPC),
    ("readonly database", errno.EROFS),
    ("disk i/o error", errno.EIO),
)


def _locked(home: str | None) -> str:
    """The line of a write that waited LSFEMU_DB_TIMEOUT for the store's lock (SQLite or PostgreSQL)."""
    store = f"the store in {home}" if home else "the store"
    return (f"Operation cannot be performed right now: {store} is locked by another process "
            f"(waited {lock_timeout():g} s)")


def _postgres_failure(e: BaseException, home: str | None) -> str | None:
    """storage_failure for psycopg's errors, by SQLSTATE (psycopg is imported only
    when the store is PostgreSQL, so it is recognised by module, not by class)."""
    if not type(e).__module__.startswith("psycopg"):
        return None
    state = getattr(e, "sqlstate", None) or ""
    first = (str(e).strip().splitlines() or [""])[0].strip()
    first = first.removeprefix("connection failed: ").rstrip(".")
    if state in ("55P03", "40P01", "40001"):  # lock_not_available, deadlock, serialization failure
        return _locked(home)
    if state == "53100":
        return "System call failed: No space left on device (the store's database server)"
    if state == "25006":
        return "System call failed: Read-only file system (the store's database is read-only)"
    if state.startswith("28") or state in ("3D000", "42501"):  # authentication, no such database, privilege
        return f"System call failed: cannot open the store: {first}"
    if state.startswith("53"):  # too many connections, out of memory
        return f"Operation cannot be performed right now: the store's database server: {first}"
    # No SQLSTATE: the connection itself failed or broke (refused, closed, timed out);
    # class 08 connection exception; 57 operator intervention (server shutting down).
    if (not state and type(e).__name__ in ("OperationalError", "InterfaceError")) or state[:2] in ("08", "57"):
        return f"Operation cannot be performed right now: cannot reach the store's database server: {first}"
    return None


def storage_failure(exc: BaseException, home: str | None = None) -> str | None:
    """One line saying why the store or the state folder cannot be written, in
    LSF's words (`System call failed: <strerror>`, its wording for a failed
    system call), or None when `exc` is not such a failure (a bug). Knows
    SQLite's errors and PostgreSQL's (by SQLSTATE)."""
    seen = set()
    todo = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(getattr(e, "storage_reason", None), str):
            return e.storage_reason  # says itself why the store may not be written (lsfemu.daemon.master.NotMaster)
        where = f" ({home})" if home else ""
        if isinstance(e, sqlite3.OperationalError):
            msg = str(e).lower()
            if "locked" in msg or "busy" in msg:
                return _locked(home)
            for text, code in _ERRNO_OF_SQLITE:
                if text in msg:
                    return f"System call failed: {os.strerror(code)}{where}"
            if "unable to open database file" in msg:
                return f"System call failed: cannot open the store{where}"
        elif (why := _postgres_failure(e, home)) is not None:
            return why
        elif isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES,
                                                     errno.EPERM, errno.EIO):
            if isinstance(e.filename, str):
                where = f" ({e.filename})"
            return f"System call failed: {os.strerror(e.errno)}{where}"
        todo += [getattr(e, "orig", None), e.__cause__, e.__context__]
    return None


def holds_jobs(url: str) -> bool:
    """Does the store *url* names hold any job (False: no schema yet, or no row)?
    Raises what the store raises (see storage_failure)."""
    engine = make_engine(url)
    try:
        if "jobs" not in inspect(engine).get_table_names():
            return False
        with engine.connect() as conn:
            return bool(conn.execute(select(func.count()).select_from(Job)).scalar())
    finally:
        engine.dispose()


def query_rows(url: str, sql: str, params: dict) -> list[tuple]:
    """The rows of one SQL query on the store *url* names, whichever its dialect
    (lsfemu.testing's look at a cluster's store)."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql), params)]
    finally:
        engine.dispose()
