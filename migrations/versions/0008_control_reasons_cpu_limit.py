"""Job control and limits of LSF 10.1 (issue 18): the reasons given to bkill -C,
bstop -C and bresume -C; the instant a finished job left mbatchd's memory
(bkill -b cleans killed pending jobs at once, before CLEAN_PERIOD); the CPU
time limit of bsub -c / bmod -c (minutes, and the host or host model that
normalizes it).

Revision ID: 0008
Revises: 0007
"""
from alembic import op
import sqlalchemy as sa

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

TEXTS = ("kill_reason", "suspend_reason", "resume_reason", "cpu_limit_host")
FLOATS = ("clean_time", "cpu_limit_min")


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        for name in TEXTS:
            batch_op.add_column(sa.Column(name, sa.Text(), nullable=True))
        for name in FLOATS:
            batch_op.add_column(sa.Column(name, sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        for name in FLOATS + TEXTS:
            batch_op.drop_column(name)
