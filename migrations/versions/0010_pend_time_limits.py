"""Pending time limits (issue 21; bsub/bmod -ptl and -eptl): a job's own
pending time limit and eligible pending time limit, in minutes (None: the
job has none; its effective limit is then its application's, its queue's or
lsb.params', read from the configuration when shown).

Revision ID: 0010
Revises: 0009
"""
from alembic import op
import sqlalchemy as sa

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.add_column(sa.Column("pend_limit_min", sa.Float(), nullable=True))
        batch_op.add_column(sa.Column("epend_limit_min", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.drop_column("epend_limit_min")
        batch_op.drop_column("pend_limit_min")
