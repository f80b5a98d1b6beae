"""job priority escalation base, APS system/admin values, rerun and migration
flags, GPU usage, failed hosts

Revision ID: 0002
Revises: 0001
"""
from alembic import op
import sqlalchemy as sa

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ZERO = sa.text("0")
# A boolean's default: `false` on PostgreSQL (which refuses the integer 0 for a
# boolean column), `0` on SQLite.
FALSE = sa.false()


def upgrade() -> None:
    with op.batch_alter_table("host_state") as batch_op:
        batch_op.add_column(sa.Column("failed", sa.Boolean(), nullable=False, server_default=FALSE))
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.add_column(sa.Column("priority_base_time", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("pend_since", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("aps_system", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("aps_admin", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("rerunnable", sa.Boolean(), nullable=False, server_default=FALSE))
        batch_op.add_column(sa.Column("migrated", sa.Boolean(), nullable=False, server_default=FALSE))
        batch_op.add_column(sa.Column("ngpus", sa.Integer(), nullable=False, server_default=ZERO))
    with op.batch_alter_table("user_usage") as batch_op:
        batch_op.add_column(sa.Column("hist_gpu_s", sa.Float(), nullable=False, server_default=ZERO))


def downgrade() -> None:
    with op.batch_alter_table("user_usage") as batch_op:
        batch_op.drop_column("hist_gpu_s")
    with op.batch_alter_table("jobs") as batch_op:
        for col in ("ngpus", "migrated", "rerunnable", "aps_admin", "aps_system", "pend_since", "priority_base_time"):
            batch_op.drop_column(col)
    with op.batch_alter_table("host_state") as batch_op:
        batch_op.drop_column("failed")
