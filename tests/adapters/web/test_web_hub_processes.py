"""Two server processes on one store, in one test process: two ``Rooms`` (each with its
``Hub``) over one ``MemoryStore``. What PostgreSQL's NOTIFY would tell the other process is
handed over by hand (``Hub.follow``), at the moment a test chooses: after, or too late for,
a move of its own. No socket of either process may miss an entry or a change of seat."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from zloutch.adapters.web.hub import Client, Hub
from zloutch.app.rooms import (
    Accepted,
    MemoryStore,
    NewGame,
    Note,
    Rooms,
    SeatSpec,
)

ANA_BOB = (SeatSpec("Ana"), SeatSpec("Bob"))


class Inbox:
    """A socket that keeps nothing (the hub's queue of each client is read instead)."""

    async def send_text(self, data: str) -> None:
        pass

    async def close(self, code: int = 1000) -> None:
        pass


def queued(client: Client) -> list[dict[str, Any]]:
    out = []
    while not client.queue.empty():
        text = client.queue.get_nowait()
        assert text is not None
        out.append(json.loads(text))
    return out


async def notes(*items: Note) -> AsyncIterator[Note]:
    for note in items:
        yield note


def seqs(messages: list[dict[str, Any]]) -> list[int]:
    return [e["seq"] for m in messages if m["type"] == "events" for e in m["entries"]]


def test_a_move_that_finds_another_process_first_tells_what_it_found() -> None:
    """A move stored elsewhere first (her other tab, on the other process) and the same move
    from here, before the NOTIFY of the first: refused ``stale``, and the entries this process
    read in the conflict reach its sockets then. The NOTIFY, later, finds nothing new."""
    store = MemoryStore()
    one, two = Rooms(store), Rooms(store)
    created = one.create(NewGame(ANA_BOB))
    game = created.game_id
    tokens = {seat: one.join(code).token for seat, code in created.invites}

    async def scenario() -> None:
        hub = Hub(two)
        await hub.room(game)
        ana, watcher = Client(Inbox(), game, 0), Client(Inbox(), game, None)
        hub.join(ana)
        hub.join(watcher)
        assert isinstance(one.intent(game, tokens[0], 0, "there", "throw"), Accepted)
        await hub.intent(ana, tokens[0], 0, "here", "throw")
        told = queued(watcher)
        assert seqs(told) == [1, 2] and told[-1]["state"]["version"] == 2
        events, refused = queued(ana)
        assert events == told[-1]
        assert refused["type"] == "refused" and refused["code"] == "stale"
        assert refused["version"] == 2
        await hub.follow(notes(Note(game, 2)))  # the NOTIFY of the first, late
        assert queued(watcher) == [] and queued(ana) == []
        await hub.stop()

    asyncio.run(scenario())


def test_a_stand_in_that_loses_the_race_tells_what_won() -> None:
    """The failure of the two-process away/back test, step by step: Ana is away and both
    processes play her stand-in; the other one stores its move first, and she comes back
    there. This process's stand-in finds the log moved on: its watcher is told the other's
    entries and her return then, and the NOTIFYs, coming after, repeat nothing."""
    store = MemoryStore()
    one, two = Rooms(store), Rooms(store)
    created = one.create(NewGame(ANA_BOB, pace=0.3, leave_after=0.1))
    game = created.game_id
    for code in dict(created.invites).values():
        one.join(code)

    async def scenario() -> None:
        hub = Hub(two)
        await hub.room(game)
        watcher = Client(Inbox(), game, None)
        hub.join(watcher)
        assert one.set_away(game, 0, True)  # Ana left process one
        await hub.follow(notes(Note(game, changed="seats")))
        assert queued(watcher) == [{"type": "seat", "seat": 0, "away": True}]
        assert game in hub.timers  # this process's stand-in moves after the pace (0.3 s)
        # Meanwhile process one's stand-in moves, and Ana comes back there.
        moved = one.bot_move(game, 0)
        assert moved is not None and moved.version >= 1
        assert one.set_away(game, 0, False)
        for _ in range(100):
            if hub.rooms.room(game).version == moved.version:
                break
            await asyncio.sleep(0.02)
        told = queued(watcher)
        assert seqs(told) == list(range(1, moved.version + 1))
        assert told[-1] == {"type": "seat", "seat": 0, "away": False}
        assert store.log(game)[-1].seq == moved.version  # the losing move was not stored
        await hub.follow(notes(Note(game, moved.version), Note(game, changed="seats")))
        assert queued(watcher) == []
        await hub.stop()

    asyncio.run(scenario())
