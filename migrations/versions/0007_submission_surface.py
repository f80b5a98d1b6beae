"""The submission surface of LSF 10.1 (issue 18): the job's description (-Jd),
environment (-env), output directory (-outdir), estimated run time (-We), never
rerunnable (-rn), begin and termination times (-b, -t), pre- and
post-execution commands (-E, -Ep), login shell (-L), input file (-i, -is),
mail (-u, -B, -N, -Ne), job group (-g), application profile (-app), asked
hosts (-m), exclusive execution (-x), interactive or blocking mode (-I, -Ip,
-Is, -K); and the job groups of bgadd.

Revision ID: 0007
Revises: 0006
"""
from alembic import op
import sqlalchemy as sa

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

NAME = sa.String(256).with_variant(sa.String(), "postgresql")

TEXTS = ("description", "env_spec", "outdir", "pre_exec", "post_exec", "login_shell", "input_file",
         "mail_user", "job_group", "asked_hosts")
FLOATS = ("est_runtime_min", "begin_time", "term_time")
FLAGS = ("rerun_never", "input_spooled", "exclusive")


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        for name in TEXTS:
            batch_op.add_column(sa.Column(name, sa.Text(), nullable=True))
        for name in FLOATS:
            batch_op.add_column(sa.Column(name, sa.Float(), nullable=True))
        for name in FLAGS:
            batch_op.add_column(sa.Column(name, sa.Boolean(), nullable=False, server_default=sa.false()))
        batch_op.add_column(sa.Column("notify", sa.String(16), nullable=False, server_default=""))
        batch_op.add_column(sa.Column("app_profile", NAME, nullable=True))
        batch_op.add_column(sa.Column("interactive", sa.String(4), nullable=True))
    op.create_table(
        "job_groups",
        sa.Column("path", sa.Text(), primary_key=True),
        sa.Column("owner", NAME, nullable=False),
        sa.Column("job_limit", sa.Integer(), nullable=True),
        sa.Column("created", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("job_groups")
    with op.batch_alter_table("jobs") as batch_op:
        for name in ("interactive", "app_profile", "notify") + FLAGS + FLOATS + TEXTS:
            batch_op.drop_column(name)
