"""PostgreSQL takes what SQLite always took: user, queue, host, project and
group names were VARCHAR(256), which PostgreSQL enforces (a longer -P or
LSFEMU_USER failed the command) and SQLite never did; the -M limit in KB and
the counters (lsb.events' committed length in bytes) were INTEGER, 32 bits on
PostgreSQL and 64 on SQLite (bsub -M 3000000000 failed). SQLite is left as it is.

Revision ID: 0006
Revises: 0005
"""
from alembic import op
import sqlalchemy as sa

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

COLUMNS = {
    "jobs": ("user", "queue", "from_host", "project", "user_group"),
    "job_events": ("actor",),
    "user_usage": ("user", "queue"),
    "queue_state": ("name",),
    "host_state": ("name",),
}


BIG = {"jobs": ("mem_limit_kb",), "counters": ("value",)}


def _retype(name: sa.types.TypeEngine, old_name: sa.types.TypeEngine,
            big: sa.types.TypeEngine, old_big: sa.types.TypeEngine) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite enforces no VARCHAR length, and its INTEGER has 64 bits
    for table, cols in COLUMNS.items():
        for col in cols:
            op.alter_column(table, col, type_=name, existing_type=old_name)
    for table, cols in BIG.items():
        for col in cols:
            op.alter_column(table, col, type_=big, existing_type=old_big)


def upgrade() -> None:
    _retype(sa.String(), sa.String(length=256), sa.BigInteger(), sa.Integer())


def downgrade() -> None:
    _retype(sa.String(length=256), sa.String(), sa.Integer(), sa.BigInteger())
