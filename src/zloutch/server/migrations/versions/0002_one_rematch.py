"""One rematch per game: ``games.rematch_of`` unique, so that two server processes asked for
the rematch of a game at the same moment cannot both create one.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_index("uq_games_rematch_of", "games", ["rematch_of"], unique=True)


def downgrade() -> None:
    op.drop_index("uq_games_rematch_of", table_name="games")
