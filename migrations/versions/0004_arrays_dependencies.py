"""job arrays and job dependencies: the array specification and running-element
limit of each element, the dependency condition as given and as resolved

Revision ID: 0004
Revises: 0003
"""
from alembic import op
import sqlalchemy as sa

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.add_column(sa.Column("array_spec", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("array_limit", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("dependency", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("depend_json", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch_op:
        batch_op.drop_column("depend_json")
        batch_op.drop_column("dependency")
        batch_op.drop_column("array_limit")
        batch_op.drop_column("array_spec")
