"""A ``GameStore`` in memory, for tests: the same rules as the database's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from zloutch.server.rows import (
    REOPENED,
    Append,
    DuplicateIntent,
    GameRow,
    LogEntry,
    RoomError,
    SeatRow,
    StoreConflict,
    name_clash,
    taken_name,
)


class MemoryStore:
    """A ``GameStore`` in memory: the same rules as the database's, for tests."""

    def __init__(self) -> None:
        self.games: dict[str, GameRow] = {}
        self.seat_rows: dict[tuple[str, int], SeatRow] = {}
        self.logs: dict[str, list[LogEntry]] = {}

    def create(self, game: GameRow, seats: Sequence[SeatRow], log: Sequence[LogEntry]) -> None:
        self.games[game.id] = game
        for row in seats:
            self.seat_rows[(game.id, row.seat)] = row
        self.logs[game.id] = list(log)

    def game(self, game_id: str) -> GameRow | None:
        return self.games.get(game_id)

    def seats(self, game_id: str) -> tuple[SeatRow, ...]:
        rows = [r for (g, _), r in self.seat_rows.items() if g == game_id]
        return tuple(sorted(rows, key=lambda r: r.seat))

    def log(self, game_id: str, after: int = 0) -> tuple[LogEntry, ...]:
        return tuple(e for e in self.logs.get(game_id, []) if e.seq > after)

    def append(
        self,
        game_id: str,
        entries: Sequence[LogEntry],
        *,
        over: bool,
        at: datetime,
        reopens: bool = False,
    ) -> None:
        log = self.logs[game_id]
        if entries and self.games[game_id].status == "expired":
            raise StoreConflict()  # it takes no move (``SqlStore.append``)
        for entry in entries:
            if entry.client_id is not None:
                for old in log:
                    if old.client_id == entry.client_id:
                        raise DuplicateIntent(old.seq)
        if entries and entries[0].seq != len(log) + 1:
            raise StoreConflict()
        if entries and reopens and not over and self.games[game_id].rematch is not None:
            raise StoreConflict()  # its rematch was stored first: its result stands
        log.extend(entries)
        changes: dict[str, object] = {"updated_at": at}
        if over or reopens:
            changes["status"] = "over" if over else "playing"
        self.update_game(game_id, **changes)

    def append_many(self, batch: Sequence[Append]) -> list[Exception | None]:
        outcomes: list[Exception | None] = []
        for item in batch:
            try:
                self.append(
                    item.game_id, item.entries, over=item.over, at=item.at, reopens=item.reopens
                )
                outcomes.append(None)
            except (StoreConflict, DuplicateIntent) as exc:
                outcomes.append(exc)
        return outcomes

    def update_game(self, game_id: str, **changes: object) -> None:
        self.games[game_id] = replace(self.games[game_id], **changes)  # type: ignore[arg-type]

    def create_rematch(self, old_id: str, game: GameRow, seats: Sequence[SeatRow]) -> str:
        stored = self.games[old_id].rematch
        if stored is not None:
            return stored
        if self.games[old_id].status != "over":
            raise RoomError(REOPENED)
        self.create(game, seats, ())
        self.update_game(old_id, rematch=game.id)
        return game.id

    def update_seat(self, game_id: str, seat: int, **changes: object) -> None:
        key = (game_id, seat)
        self.seat_rows[key] = replace(self.seat_rows[key], **changes)  # type: ignore[arg-type]

    def rename_seat(self, game_id: str, seat: int, name: str) -> tuple[str, ...]:
        players = list(self.games[game_id].players)
        clash = name_clash(name, players, seat)
        if clash is not None:
            raise RoomError(taken_name(clash))
        players[seat] = name
        self.update_seat(game_id, seat, name=name)
        self.update_game(game_id, players=tuple(players))
        return tuple(players)

    def claim_seat(self, row: SeatRow, token_hash: str) -> bool:
        key = (row.game_id, row.seat)
        stored = self.seat_rows[key]
        if (stored.invite_hash, stored.token_hash) != (row.invite_hash, row.token_hash):
            return False
        self.seat_rows[key] = replace(stored, token_hash=token_hash)
        return True

    def seat_by_invite(self, invite_hash: str) -> SeatRow | None:
        return next((r for r in self.seat_rows.values() if r.invite_hash == invite_hash), None)

    def seat_by_token(self, token_hash: str) -> SeatRow | None:
        return next((r for r in self.seat_rows.values() if r.token_hash == token_hash), None)

    def expire(self, before: datetime) -> tuple[str, ...]:
        gone = tuple(
            g.id for g in self.games.values() if g.status == "playing" and g.updated_at < before
        )
        for game_id in gone:
            self.update_game(game_id, status="expired")
        return gone

    def playing(self) -> tuple[str, ...]:
        return tuple(g.id for g in self.games.values() if g.status == "playing")
