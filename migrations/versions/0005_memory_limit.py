"""bsub -M: the job's memory limit (KB, as LSF keeps rLimits[RLIMIT_RSS]) and
whether it was given as a hard limit (`-M N!`)

Revision ID: 0005
Revises: 0004
"""
from alembic import op
import sqlalchemy as sa

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.add_column(sa.Column("mem_limit_kb", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("mem_limit_hard", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.drop_column("mem_limit_hard")
        batch_op.drop_column("mem_limit_kb")
