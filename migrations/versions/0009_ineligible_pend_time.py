"""Eligible and ineligible pending time (issue 21; lsb.params TRACK_ELIGIBLE_PENDINFO,
bjobs -o ependtime / ipendtime): the seconds a job pended ineligible for scheduling
in the stretches that ended, and when its current ineligible stretch began.

Revision ID: 0009
Revises: 0008
"""
from alembic import op
import sqlalchemy as sa

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.add_column(sa.Column("ipend_time", sa.Float(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("ipend_since", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.drop_column("ipend_since")
        batch_op.drop_column("ipend_time")
