"""Where games live: the ``GameStore`` protocol (``zloutch.server.gamedb.SqlStore`` in a
database, ``memory.MemoryStore`` for tests)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from zloutch.server.rows import (
    Append,
    GameRow,
    LogEntry,
    SeatRow,
)


@dataclass(frozen=True)
class Note:
    """What another server process on the same database changed in a game (PostgreSQL's
    LISTEN/NOTIFY): its log up to ``seq``, or its ``seats`` (a person away or back, a seat
    taken) or its row (``game``: a rematch, its status)."""

    game_id: str
    seq: int | None = None
    changed: Literal["log", "seats", "game"] = "log"


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
        self,
        game_id: str,
        entries: Sequence[LogEntry],
        *,
        over: bool,
        at: datetime,
        reopens: bool = False,
    ) -> None:
        """Append entries (their ``seq`` follow the last one) in one transaction, and mark
        the game over (``over``) or playing again (``reopens``: an undo at a real table);
        raises StoreConflict or DuplicateIntent, having written nothing."""
        ...

    def append_many(self, batch: Sequence[Append]) -> list[Exception | None]:
        """Group commit: the appends of many games in one transaction (one write to disk).
        Each gets None (stored), or StoreConflict or DuplicateIntent (nothing of it stored,
        the others stored all the same); raises, having stored nothing, if the transaction
        itself fails."""
        ...

    def update_game(self, game_id: str, **changes: object) -> None: ...

    def create_rematch(self, old_id: str, game: GameRow, seats: Sequence[SeatRow]) -> str:
        """Store ``game`` as the rematch of ``old_id`` unless the old game has one already
        (another request, another process, got there first: then nothing is stored). The
        id of the rematch either way: one game, however many ask at once."""
        ...

    def update_seat(self, game_id: str, seat: int, **changes: object) -> None: ...

    def rename_seat(self, game_id: str, seat: int, name: str) -> tuple[str, ...]:
        """A person's seat called ``name``, in its row and in the game's ``players``, in one
        transaction; the players as stored after it. ``RoomError``, having changed nothing,
        where another seat has that name (two processes renaming at once: one at a time)."""
        ...

    def claim_seat(self, row: SeatRow, token_hash: str) -> bool:
        """Give ``row``'s seat the token ``token_hash`` (its invite then seats nobody) if the
        seat's invite and token are still those of ``row``; False, having changed nothing,
        if another request or process changed them first. One person a seat, however many
        open the same invitation at once."""
        ...

    def seat_by_invite(self, invite_hash: str) -> SeatRow | None: ...

    def seat_by_token(self, token_hash: str) -> SeatRow | None: ...

    def expire(self, before: datetime) -> tuple[str, ...]:
        """Mark the unfinished games not changed since ``before`` expired; their ids."""
        ...

    def playing(self) -> tuple[str, ...]:
        """The ids of the games not over and not expired."""
        ...
