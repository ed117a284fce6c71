"""Two server processes on one store, in one test process: two ``Rooms`` (each with its
``Hub``) over one ``MemoryStore``. What PostgreSQL's NOTIFY would tell the other process is
handed over by hand (``Hub.follow``), at the moment a test chooses: after, or too late for,
a move of its own; or by ``NotingStore``, as it comes. No socket of either process may miss
an entry or a change of seat, and one process plays a game's bots."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from served import queued

from zloutch.adapters.web.protocol import WIRE
from zloutch.server import (
    Accepted,
    Append,
    MemoryStore,
    NewGame,
    Note,
    Rooms,
    SeatSpec,
    StoreConflict,
)
from zloutch.server.hub import Client, Hub

ANA_BOB = (SeatSpec("Ana"), SeatSpec("Bob"))


class Inbox:
    """A socket that keeps nothing (the hub's queue of each client is read instead)."""

    async def send_text(self, data: str) -> None:
        pass

    async def close(self, code: int = 1000) -> None:
        pass


async def notes(*items: Note) -> AsyncIterator[Note]:
    for note in items:
        yield note


class NotingStore(MemoryStore):
    """A store that tells its listeners what was written, after the write, as PostgreSQL's
    NOTIFY does (each listener on its own loop), and counts the appends refused because
    another one took their place (``conflicts``: a move played twice)."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()  # two writer threads, one per process
        self.listeners: list[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Note]]] = []
        self.conflicts = 0

    async def listen(self) -> AsyncIterator[Note]:
        queue: asyncio.Queue[Note] = asyncio.Queue()
        self.listeners.append((asyncio.get_running_loop(), queue))
        while True:
            yield await queue.get()

    def tell(self, note: Note) -> None:
        for loop, queue in self.listeners:
            loop.call_soon_threadsafe(queue.put_nowait, note)

    def append_many(self, batch: Sequence[Append]) -> list[Exception | None]:
        with self.lock:
            outcomes = super().append_many(batch)
        for item, outcome in zip(batch, outcomes, strict=True):
            if outcome is None and item.entries:
                self.tell(Note(item.game_id, item.entries[-1].seq))
            self.conflicts += isinstance(outcome, StoreConflict)
        return outcomes

    def update_seat(self, game_id: str, seat: int, **changes: object) -> None:
        with self.lock:
            super().update_seat(game_id, seat, **changes)
        self.tell(Note(game_id, changed="seats"))


def hears(hub: Hub, store: NotingStore) -> None:
    """The hub follows the store's notes, as ``zloutch serve`` follows PostgreSQL's."""
    hub.spawn(lambda: hub.follow(store.listen()))


async def until(condition: Callable[[], bool], timeout: float = 10) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("not met in time")


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
        hub = Hub(two, wire=WIRE)
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
        hub = Hub(two, wire=WIRE)
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


def test_one_process_plays_the_stand_in_of_a_person_away() -> None:
    """Ana leaves process one: its stand-in plays her turn, and process two, which hears of
    her absence and of every move, plays none of them (no move stored twice, none tried
    there); its watcher is told all of them, in order."""
    store = NotingStore()
    one, two = Rooms(store), Rooms(store)
    created = one.create(NewGame(ANA_BOB, pace=0.05, leave_after=0.05))
    game = created.game_id
    for code in dict(created.invites).values():
        one.join(code)

    async def scenario() -> None:
        first, second = (
            Hub(one, wire=WIRE, takeover_after=2.0),
            Hub(two, wire=WIRE, takeover_after=2.0),
        )
        hears(first, store)
        hears(second, store)
        await second.room(game)
        watcher = Client(Inbox(), game, None)
        second.join(watcher)
        ana = Client(Inbox(), game, 0)
        first.join(ana)
        first.leave(ana)  # after 0.05 s process one's stand-in plays for her
        # Her turn ends (a bank or a bust): Bob, who is not away, is to move.
        await until(lambda: store.logs[game] != [] and one.room(game).bot_to_move() is None)
        version = len(store.logs[game])
        await until(lambda: second.rooms.room(game).version == version)
        told = queued(watcher)
        assert told[0] == {"type": "seat", "seat": 0, "away": True}
        assert seqs(told) == list(range(1, version + 1))
        assert store.conflicts == 0 and second.writer.stats.appends == 0
        assert first.writer.stats.appends >= 1
        # She is back, on process two: told there, and heard of on process one.
        second.join(Client(Inbox(), game, 0))
        assert queued(watcher) == [{"type": "seat", "seat": 0, "away": False}]
        await until(lambda: not one.room(game).seats[0].away)
        await first.stop()
        await second.stop()

    asyncio.run(scenario())


def two_processes_and_a_bots_game() -> tuple[NotingStore, Rooms, Rooms, str]:
    """One store, two processes' rooms, and a game of two bots made on the first."""
    store = NotingStore()
    one, two = Rooms(store), Rooms(store)
    created = one.create(NewGame((SeatSpec(bot="easy"), SeatSpec(bot="easy")), pace=0.05))
    return store, one, two, created.game_id


def test_a_bot_whose_process_is_gone_is_played_by_another() -> None:
    """A game's bots are played by the process that made the game; another process serving
    it plays nothing while that one lives, and takes over once it is gone (after the pace
    and ``takeover_after``). Two bots: one of them is to move until the game is over."""
    store, one, two, game = two_processes_and_a_bots_game()

    async def scenario() -> None:
        # 2 s of takeover: far past a bot's move on a loaded machine, so that process two
        # plays nothing while process one lives.
        first, second = (
            Hub(one, wire=WIRE, takeover_after=2.0),
            Hub(two, wire=WIRE, takeover_after=2.0),
        )
        hears(first, store)
        hears(second, store)
        await second.room(game)
        watcher = Client(Inbox(), game, None)
        second.join(watcher)
        first.broadcast(game, ())  # a new game on process one: it plays the bot
        second.kick(game, backup=True)  # as a process that starts and finds it (resume_all)
        await until(lambda: second.rooms.room(game).version >= 4)
        assert store.conflicts == 0 and second.writer.stats.appends == 0
        await first.stop()  # process one is gone
        stored = len(store.logs[game])
        assert not one.room(game).over
        # A move process one had in flight may still land after its stop: wait for one of
        # process two's own (under load that one came first, and the check raced it).
        await until(lambda: second.writer.stats.appends >= 1)
        assert len(store.logs[game]) > stored and store.conflicts == 0
        await until(lambda: second.rooms.room(game).version == len(store.logs[game]))
        assert seqs(queued(watcher)) == list(range(1, len(store.logs[game]) + 1))
        await second.stop()

    asyncio.run(scenario())


def test_a_socket_on_a_process_that_never_held_the_game_gets_its_bot_moving() -> None:
    """Process one made the game and played its bots, then went away with a bot to move;
    a socket opening the game on process two (which never loaded it, so heard of no move)
    has that bot played there, after the pace and ``takeover_after``."""
    store, one, two, game = two_processes_and_a_bots_game()

    async def scenario() -> None:
        first, second = (
            Hub(one, wire=WIRE, takeover_after=0.3),
            Hub(two, wire=WIRE, takeover_after=0.3),
        )
        first.broadcast(game, ())  # process one drives the game
        await until(lambda: len(store.logs[game]) >= 2)
        await first.stop()  # gone, with the game not over and a bot to move
        assert not one.room(game).over
        stored = len(store.logs[game])
        await second.room(game)  # loaded from the log: no move of it was ever heard here
        watcher = Client(Inbox(), game, None)
        second.join(watcher)
        # A move process one had in flight may still land after its stop: wait for one of
        # process two's own (under load that one came first, and the check raced it).
        await until(lambda: second.writer.stats.appends >= 1)
        assert len(store.logs[game]) > stored and store.conflicts == 0
        await second.stop()

    asyncio.run(scenario())
