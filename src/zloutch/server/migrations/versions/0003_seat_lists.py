"""Seats that cannot be lost: a seat keeps its invitation's code (the seat list shows it,
and it seats its holder again), and a game the hash of its host's token (the host sees
every invitation and may reissue one).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("invite_code", sa.String(64)))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("host_hash", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("host_hash")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("invite_code")
