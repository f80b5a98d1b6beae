"""Alembic environment: runs migrations on the connection lsfemu hands over
(`config.attributes["connection"]`), or on `sqlalchemy.url` when Alembic's own
command line is used (`alembic -x url=... upgrade head`)."""

from alembic import context
from sqlalchemy import create_engine

from lsfemu.store.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    if context.is_offline_mode():
        context.configure(url=url, target_metadata=target_metadata, literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
    else:
        with create_engine(url).connect() as conn:
            _run(conn)
            conn.commit()
