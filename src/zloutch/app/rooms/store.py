"""Where games live: the ``GameStore`` protocol (``zloutch.app.gamedb.SqlStore`` in a
database, ``memory.MemoryStore`` for tests)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from zloutch.app.rooms.rows import (
    Append,
    GameRow,
    LogEntry,
    SeatRow,
)


class GameStore(Protocol):
    """Where games live. ``append`` is atomic and durable when it returns."""

    def create(self, game: GameRow, seats: Sequence[SeatRow], log: Sequence[LogEntry]) -> None:
        """Store a new game with its seats and any entries it starts from."""
        ...

    def game(self, game_id: str) -> GameRow | None: ...

    def seats(self, game_id: str) -> tuple[SeatRow, ...]: ...

    def log(self, game_id: str, after: int = 0) -> tuple[LogEntry, ...]:
        """The entries with ``seq > after``, in order."""
        ...

    def append(
        self, game_id: str, entries: Sequence[LogEntry], *, over: bool, at: datetime
    ) -> None:
        """Append entries (their ``seq`` follow the last one) in one transaction, and mark
        the game over; raises StoreConflict or DuplicateIntent, having written nothing."""
        ...

    def append_many(self, batch: Sequence[Append]) -> list[Exception | None]:
        """Group commit: the appends of many games in one transaction (one write to disk).
        Each gets None (stored), or StoreConflict or DuplicateIntent (nothing of it stored,
        the others stored all the same); raises, having stored nothing, if the transaction
        itself fails."""
        ...

    def update_game(self, game_id: str, **changes: object) -> None: ...

    def update_seat(self, game_id: str, seat: int, **changes: object) -> None: ...

    def seat_by_invite(self, invite_hash: str) -> SeatRow | None: ...

    def seat_by_token(self, token_hash: str) -> SeatRow | None: ...

    def expire(self, before: datetime) -> tuple[str, ...]:
        """Mark the unfinished games not changed since ``before`` expired; their ids."""
        ...

    def playing(self) -> tuple[str, ...]:
        """The ids of the games not over and not expired."""
        ...
