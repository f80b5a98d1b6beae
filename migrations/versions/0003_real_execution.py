"""real execution in wall clock mode: the real-run flag and measured usage

Revision ID: 0003
Revises: 0002
"""
from alembic import op
import sqlalchemy as sa

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.add_column(sa.Column("real_run", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("usage_json", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.drop_column("usage_json")
        batch_op.drop_column("real_run")
