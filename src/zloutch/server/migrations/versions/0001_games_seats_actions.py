"""The first schema: games, their seats and their action log.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("rules_toml", sa.Text),
        sa.Column("players", sa.Text, nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("table_mode", sa.Boolean, nullable=False),
        sa.Column("pace", sa.Float, nullable=False),
        sa.Column("leave_after", sa.Float),
        sa.Column("leave_bot", sa.String(40), nullable=False),
        sa.Column("first_throw", sa.Integer, nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("open_hash", sa.String(64)),
        sa.Column("rematch_of", sa.String(32)),
        sa.Column("rematch", sa.String(32)),
    )
    op.create_index("ix_games_updated_at", "games", ["updated_at"])
    op.create_index("ix_games_status", "games", ["status"])
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("bot", sa.String(40)),
        sa.Column("invite_hash", sa.String(64), unique=True),
        sa.Column("token_hash", sa.String(64), unique=True),
        sa.Column("heir_hash", sa.String(64)),
        sa.Column("away", sa.Boolean, nullable=False),
    )
    op.create_table(
        "actions",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer),
        sa.Column("client_id", sa.String(100)),
        sa.UniqueConstraint("game_id", "client_id", name="uq_actions_client_id"),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_table("seats")
    op.drop_index("ix_games_status", "games")
    op.drop_index("ix_games_updated_at", "games")
    op.drop_table("games")
