"""names without a length limit on PostgreSQL: user, queue, host, project and
group names were VARCHAR(256), which PostgreSQL enforces (a longer -P or
LSFEMU_USER failed the command) and SQLite never did; SQLite is left as it is

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


def _retype(new: sa.types.TypeEngine, old: sa.types.TypeEngine) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite does not enforce a VARCHAR's length
    for table, cols in COLUMNS.items():
        for col in cols:
            op.alter_column(table, col, type_=new, existing_type=old)


def upgrade() -> None:
    _retype(sa.String(), sa.String(length=256))


def downgrade() -> None:
    _retype(sa.String(length=256), sa.String())
