"""Opening the store: engine, SQLite WAL pragmas, schema upgrade through Alembic.

`LSFEMU_DB` may name any SQLAlchemy URL; without it the store is SQLite (WAL)
at `LSFEMU_HOME/lsfemu.db`.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker


def default_url(home: str) -> str:
    return os.environ.get("LSFEMU_DB") or f"sqlite:///{os.path.join(home, 'lsfemu.db')}"


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

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


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest revision (no-op when it is current)."""
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
