"""Opening the store: engine, SQLite WAL pragmas, schema upgrade through Alembic.

`LSFEMU_DB` may name any SQLAlchemy URL; without it the store is SQLite (WAL)
at `LSFEMU_HOME/lsfemu.db`.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker


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
    return create_engine(url, pool_pre_ping=True)


def migrations_dir() -> Path:
    """Where the Alembic scripts are: installed package, or the checkout."""
    try:
        import lsfemu.migrations as m

        return Path(m.__file__).parent
    except ImportError:
        return Path(__file__).resolve().parents[2] / "migrations"


#: the newest migration's revision (tests/unit/test_store.py holds it equal to
#: Alembic's head): a store at this revision is opened without loading Alembic,
#: which costs most of a command's time in in-process mode
SCHEMA_HEAD = "0005"


def _current_revision(engine: Engine) -> str | None:
    try:
        with engine.connect() as conn:
            return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except Exception:  # no table yet (a new store), or not readable: let Alembic decide
        return None


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest revision (no-op when it is current)."""
    if _current_revision(engine) == SCHEMA_HEAD:
        return
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
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def open_store(url: str) -> tuple[Engine, sessionmaker[Session]]:
    engine = make_engine(url)
    upgrade(engine)
    return engine, sessionmaker(engine, expire_on_commit=False)


def integrity_ok(engine: Engine) -> bool:
    if engine.dialect.name != "sqlite":
        return True
    with engine.connect() as conn:
        return conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"


# -- when the store cannot be written ------------------------------------------------------------

_ERRNO_OF_SQLITE = (
    ("database or disk is full", errno.ENOSPC),
    ("readonly database", errno.EROFS),
    ("disk i/o error", errno.EIO),
)


def storage_failure(exc: BaseException, home: str | None = None) -> str | None:
    """One line saying why the store or the state folder cannot be written, in
    LSF's words (`System call failed: <strerror>`, its wording for a failed
    system call), or None when `exc` is not such a failure (a bug)."""
    seen = set()
    todo = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        where = f" ({home})" if home else ""
        if isinstance(e, sqlite3.OperationalError):
            msg = str(e).lower()
            if "locked" in msg or "busy" in msg:
                store = f"the store in {home}" if home else "the store"
                return (f"Operation cannot be performed right now: {store} is locked by another process "
                        f"(waited {lock_timeout():g} s)")
            for text, code in _ERRNO_OF_SQLITE:
                if text in msg:
                    return f"System call failed: {os.strerror(code)}{where}"
            if "unable to open database file" in msg:
                return f"System call failed: cannot open the store{where}"
        elif isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES,
                                                     errno.EPERM, errno.EIO):
            if isinstance(e.filename, str):
                where = f" ({e.filename})"
            return f"System call failed: {os.strerror(e.errno)}{where}"
        todo += [getattr(e, "orig", None), e.__cause__, e.__context__]
    return None
