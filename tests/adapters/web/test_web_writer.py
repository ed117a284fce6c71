"""Group commit (``writer.GroupCommit``) and the hub over it: intents of many games in one
transaction, nothing told before the commit, and a failed commit leaves every game as it was."""

from __future__ import annotations

import asyncio
import gc
import json
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import pytest
from served import queued

from zloutch.adapters.web.protocol import WIRE
from zloutch.server import (
    Accepted,
    Append,
    MemoryStore,
    NewGame,
    Pending,
    Refused,
    Rooms,
    SeatSpec,
)
from zloutch.server.hub import Client, Hub
from zloutch.server.service import seat_client_id
from zloutch.server.writer import GroupCommit

ANA_BOB = (SeatSpec("Ana"), SeatSpec("Bob"))


class CountingStore(MemoryStore):
    """A store that counts its transactions, can hold the first one back, and can fail."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []
        self.failing = False
        self.hold: threading.Event | None = None

    def append_many(self, batch: Sequence[Append]) -> list[Exception | None]:
        if self.hold is not None:
            self.hold.wait(10)
        if self.failing:
            raise OSError("disk I/O error")
        self.batches.append(len(batch))
        return super().append_many(batch)


class Inbox:
    """A socket that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, data: str) -> None:
        self.sent.append(json.loads(data))

    async def close(self, code: int = 1000) -> None:
        pass


def seated_games(rooms: Rooms, count: int) -> list[tuple[str, str]]:
    """``count`` games of two people, and the token of the first to move in each."""
    games = []
    for _ in range(count):
        created = rooms.create(NewGame(ANA_BOB))
        tokens = {seat: rooms.join(code).token for seat, code in created.invites}
        games.append((created.game_id, tokens[0]))
    return games


def throws(rooms: Rooms, games: list[tuple[str, str]]) -> list[Pending]:
    """Each game's first throw, checked and not stored."""
    out = []
    for game_id, token in games:
        pending = rooms.check_intent(game_id, token, 0, f"c-{game_id}", "throw")
        assert isinstance(pending, Pending), pending
        out.append(pending)
    return out


def test_appends_that_arrive_together_go_in_one_transaction() -> None:
    store = CountingStore()
    rooms = Rooms(store)
    games = seated_games(rooms, 40)
    pending = throws(rooms, games)

    async def commit_all() -> list[Exception | None]:
        writer = GroupCommit(store)
        outcomes = await asyncio.gather(*(writer.append(p.append) for p in pending))
        assert (writer.stats.commits, writer.stats.appends, writer.stats.largest) == (1, 40, 40)
        await writer.close()
        return list(outcomes)

    assert asyncio.run(commit_all()) == [None] * 40
    assert store.batches == [40]
    assert all(len(store.log(g)) == 2 for g, _ in games)  # the throw and the server's roll


def test_appends_made_during_a_commit_go_together_in_the_next() -> None:
    store = CountingStore()
    rooms = Rooms(store)
    games = seated_games(rooms, 21)
    pending = throws(rooms, games)

    async def commit() -> None:
        writer = GroupCommit(store)
        store.hold = threading.Event()
        first = asyncio.ensure_future(writer.append(pending[0].append))
        await asyncio.sleep(0.05)  # the first commit has begun, and waits
        rest = [asyncio.ensure_future(writer.append(p.append)) for p in pending[1:]]
        await asyncio.sleep(0.05)
        store.hold.set()
        assert await asyncio.gather(first, *rest) == [None] * 21
        await writer.close()

    asyncio.run(commit())
    assert store.batches == [1, 20]


def test_a_failed_commit_tells_nobody_and_leaves_every_game_as_it_was() -> None:
    store = CountingStore()
    rooms = Rooms(store)
    games = seated_games(rooms, 5)
    before = {g: rooms.room(g).state for g, _ in games}

    async def play() -> None:
        hub = Hub(rooms, wire=WIRE)
        players = {g: Client(Inbox(), g, 0) for g, _ in games}
        watchers = {g: Client(Inbox(), g, None) for g, _ in games}
        for g, _ in games:
            hub.join(players[g])
            hub.join(watchers[g])
        store.failing = True
        await asyncio.gather(*(hub.intent(players[g], t, 0, "i-1", "throw") for g, t in games))
        for g, _ in games:
            (answer,) = queued(players[g])
            assert answer["type"] == "refused" and answer["code"] == "not_stored", answer
            assert "OSError" in answer["reason"] and answer["version"] == 0
            assert queued(watchers[g]) == []  # no event of what was not stored
            assert rooms.room(g).version == 0 and rooms.room(g).state == before[g]
            assert store.log(g) == ()
        # said to the operator: the health's counts, one warning line a refused write
        stats = hub.writer.stats
        assert stats.failing and stats.failures >= 1
        assert stats.last_failure == "OSError: disk I/O error"
        # The disk is back: the same intents (the same ids) are applied, once each.
        store.failing = False
        await asyncio.gather(*(hub.intent(players[g], t, 0, "i-1", "throw") for g, t in games))
        for g, _ in games:
            ack, events = queued(players[g])
            assert not hub.writer.stats.failing  # a write went through again
            assert ack == {"type": "ack", "id": "i-1", "version": 2, "duplicate": False}
            assert events["type"] == "events" and events["to"] == 2
            assert queued(watchers[g]) == [events]
            assert [e.text.split()[0] for e in store.log(g)] == ["throw", "roll"]
        assert store.batches == [5]
        await hub.stop()

    asyncio.run(play())


def test_a_conflict_in_a_batch_refuses_that_game_only() -> None:
    store = CountingStore()
    rooms = Rooms(store)
    games = seated_games(rooms, 3)
    pending = throws(rooms, games)
    # Another process stores a move of the second game first.
    other = Rooms(store)
    (late_game, late_token) = games[1]
    assert isinstance(other.intent(late_game, late_token, 0, "elsewhere", "throw"), Accepted)

    async def commit() -> list[Accepted | Refused]:
        writer = GroupCommit(store)
        outcomes = await asyncio.gather(*(writer.append(p.append) for p in pending))
        await writer.close()
        return [rooms.settle(p, o) for p, o in zip(pending, outcomes, strict=True)]

    answers = asyncio.run(commit())
    assert isinstance(answers[0], Accepted) and isinstance(answers[2], Accepted)
    assert isinstance(answers[1], Refused) and answers[1].code == "stale"
    assert rooms.room(late_game).state == other.room(late_game).state
    assert [e.client_id for e in store.log(late_game)][:1] == [seat_client_id(0, "elsewhere")]


def test_what_lives_on_is_frozen_and_collected_now_and_then() -> None:
    """The cycle collector skips the frozen (the server's long-lived objects), and a full
    collection comes every ``collect_every`` rounds: a cycle dropped after it was frozen is
    collected all the same."""
    hub = Hub(Rooms(MemoryStore()), wire=WIRE)

    class Node:
        link: object = None

    async def tidy() -> tuple[int, weakref.ref[Node]]:
        task = asyncio.ensure_future(hub.tidy_forever(freeze_every=0.01, collect_every=5))
        await asyncio.sleep(0)
        frozen_at_start = gc.get_freeze_count()
        node = Node()
        node.link = node  # a cycle: only the collector frees it
        dropped = weakref.ref(node)
        await asyncio.sleep(0.02)  # a round: the cycle is frozen with the rest
        del node
        await asyncio.sleep(0.3)  # past a full round
        task.cancel()
        return frozen_at_start, dropped

    try:
        frozen, dropped = asyncio.run(tidy())
        assert frozen > 0 and gc.get_freeze_count() > 0
        assert dropped() is None
    finally:
        gc.unfreeze()


def test_a_refused_write_of_a_new_game_is_one_line_without_its_values() -> None:
    """A read-only database: creating a game answered a bare 500, and the log got the
    statement with its values, the new game's dice secret among them. The write is
    StoreUnavailableError (the server's 503), its reason the driver's first line."""
    import sqlite3

    import sqlalchemy.exc

    from zloutch.server import StoreUnavailableError

    secret = "0f" * 32

    def insert() -> None:
        raise sqlalchemy.exc.OperationalError(
            "INSERT INTO games (id, secret) VALUES (?, ?)",
            ("g1", secret),
            sqlite3.OperationalError("attempt to write a readonly database"),
        )

    async def run() -> str:
        writer = GroupCommit(MemoryStore())
        try:
            with pytest.raises(StoreUnavailableError) as refused:
                await writer.write(insert)
            with pytest.raises(ZeroDivisionError):  # a bug of ours stays a bug, not a store's
                await writer.write(lambda: 1 // 0)
            assert writer.stats.failures == 1 and writer.stats.failing
            with pytest.raises(sqlalchemy.exc.OperationalError):  # a read is no write
                await writer.run(insert)
            assert writer.stats.failures == 1
            assert await writer.write(lambda: 7) == 7  # a write went through: not failing
            assert not writer.stats.failing
            return str(refused.value)
        finally:
            await writer.close()

    said = asyncio.run(run())
    assert "OperationalError: attempt to write a readonly database" in said
    assert secret not in said and "INSERT" not in said and "\n" not in said
