"""The live side of the server: the sockets of each game, the bots' timers, the absent.

The games live on the event loop's thread; the loop never waits on the disk. An intent is
checked by ``Rooms`` in memory, under its game's lock (one move of a game at a time, in
order; the games do not wait for each other), and its entries go to the one writer
(``writer.GroupCommit``), which commits those of many games together. Only once they are
committed is the room moved on, the sender acknowledged and the events broadcast; a failed
commit leaves the room as it was and answers ``not_stored``. A bot chooses its move on a
thread of its own. Each socket has a queue and a writer task, so that a slow client delays
only itself, and each broadcast is encoded to JSON once per language for all the sockets of
its game (the engine's words translated at the edge, ``i18n``).
Other server processes on the same PostgreSQL database are heard through LISTEN/NOTIFY:
their entries are read from the log and sent to this process's sockets, and so are the
entries a move of ours found there first (a conflict: the room catches up with the log).
One process plays a game's bots (and the stand-in of a person away) at a time: the one that
made the last move of the game, or set the person away. The others keep a later timer only,
``takeover_after`` seconds past the pace, and play if nobody has moved by then (the driving
process is gone); were two to play the same move, the store keeps one and the other catches
up.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal, Protocol, TypeVar

from zloutch.server import (
    Accepted,
    GameRow,
    Note,
    Pending,
    Played,
    Refused,
    Room,
    Rooms,
    SeatRow,
    UnknownGameError,
)
from zloutch.server.writer import GroupCommit

T = TypeVar("T")

log = logging.getLogger("zloutch.serve")


def one_line(exc: BaseException) -> str:
    """An error in one line of the log: its kind and its first line."""
    words = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {words[0]}" if words else type(exc).__name__


QUEUE_LIMIT = 1000
"""Messages waiting for one socket; a client this far behind is dropped (it can reconnect)."""

EXPIRED_NAMED = 50
"""How many of the games one sweep expired the log names (the count says how many)."""
TAKEOVER_AFTER = 5.0
"""Seconds past a bot's pace after which a process plays a bot that another process was to
play (with PostgreSQL, where other processes serve the same games)."""


class Wire(Protocol):
    """How the hub's messages are written for a socket, in its language: the front end's
    protocol (the web's JSON, ``zloutch.adapters.web.protocol.WIRE``)."""

    def answer(self, client_id: str, answer: Accepted | Refused, lang: str) -> dict[str, Any]:
        """The answer to an intent."""
        ...

    def events(self, room: Room, played: Sequence[Played], lang: str) -> str:
        """Entries of a game's log with the state they lead to, encoded."""
        ...


def dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


class Socket(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000) -> None: ...


@dataclass(eq=False)
class Client:
    """One connected socket: a seat's or a spectator's (``seat`` None), and the language
    the engine's words are sent to it in."""

    socket: Socket
    game_id: str
    seat: int | None
    lang: str = "en"
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    close_code: int = 1013
    """The code the socket is closed with when told to stop: 1013 (try again later) for a
    client too far behind, 1008 for a seat whose token stopped working."""

    def send(self, message: dict[str, Any]) -> None:
        self.send_text(dumps(message))

    def close(self, code: int) -> None:
        """Close the socket once what is queued is sent."""
        self.close_code = code
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(None)

    def send_text(self, text: str) -> None:
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("dropping a client of %s: too far behind", self.game_id)
            self.queue = asyncio.Queue(1)
            self.queue.put_nowait(None)

    async def write(self) -> None:
        """Send what is queued until told to stop (None) or the socket fails."""
        while True:
            text = await self.queue.get()
            if text is None:
                with contextlib.suppress(Exception):
                    await self.socket.close(self.close_code)
                return
            await self.socket.send_text(text)


@dataclass(eq=False)
class BotTimer:
    """A bot's move planned for a game at ``version``; ``backup``: only if the process
    driving the game has not moved it by then."""

    handle: asyncio.TimerHandle
    version: int
    backup: bool


class GameLocks:
    """One lock per game, kept while someone holds or waits for it."""

    def __init__(self) -> None:
        self.locks: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, game_id: str) -> AsyncIterator[None]:
        lock, users = self.locks.get(game_id, (None, 0))
        lock = lock or asyncio.Lock()
        self.locks[game_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self.locks[game_id]
            if users == 1:
                del self.locks[game_id]
            else:
                self.locks[game_id] = (lock, users - 1)


class Hub:
    """The sockets of every game of this process, and what the server plays by itself."""

    def __init__(
        self,
        rooms: Rooms,
        *,
        wire: Wire,
        expire_after: timedelta | None = None,
        takeover_after: float | None = None,
    ) -> None:
        """``takeover_after``: None where this process is alone on its store (it plays every
        bot at its pace); else the seconds past the pace after which it plays a bot that
        another process was to play (see the module's docstring)."""
        self.rooms = rooms
        self.wire = wire
        self.writer = GroupCommit(rooms.store)
        self.locks = GameLocks()
        self.bots = ThreadPoolExecutor(1, thread_name_prefix="zloutch-bots")
        self.clients: dict[str, set[Client]] = {}
        self.timers: dict[str, BotTimer] = {}
        self.takeover_after = takeover_after
        self.leave_timers: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self.expire_after = expire_after
        self.tasks: set[asyncio.Task[Any]] = set()
        self.listener: Literal["starting", "up", "down"] | None = None
        """The other processes' notes: None where this process is alone on its store."""

    # -- sockets

    def join(self, client: Client) -> None:
        self.clients.setdefault(client.game_id, set()).add(client)
        if client.seat is not None:
            timer = self.leave_timers.pop((client.game_id, client.seat), None)
            if timer is not None:
                timer.cancel()
            if self.rooms.set_away(client.game_id, client.seat, False):
                self.seat_changed(client.game_id, client.seat, away=False)
        # A game this process has just loaded heard of no move: should its bot be to move
        # (the process that drove it gone), it is played here, as a backup would.
        self.kick(client.game_id, backup=True)

    def leave(self, client: Client) -> None:
        game = self.clients.get(client.game_id, set())
        game.discard(client)
        if not game:
            self.clients.pop(client.game_id, None)
            self.evict(client.game_id)
        seat = client.seat
        if seat is None or any(c.seat == seat for c in game):
            return
        room = self.rooms.rooms.get(client.game_id)
        if room is None or room.over or room.game.leave_after is None:
            return
        loop = asyncio.get_running_loop()
        key = (client.game_id, seat)
        self.leave_timers[key] = loop.call_later(
            room.game.leave_after, self._gone, client.game_id, seat
        )

    def _gone(self, game_id: str, seat: int) -> None:
        """A person away past the game's delay: a bot plays for them until they are back."""
        self.leave_timers.pop((game_id, seat), None)
        if any(c.seat == seat for c in self.clients.get(game_id, ())):
            return
        if self.rooms.set_away(game_id, seat, True):
            self.seat_changed(game_id, seat, away=True)
            self.kick(game_id)

    def seat_changed(self, game_id: str, seat: int, *, away: bool) -> None:
        for client in self.clients.get(game_id, ()):
            client.send({"type": "seat", "seat": seat, "away": away})

    def seats_changed(self, game_id: str) -> None:
        """A seat taken or its invitation reissued: every socket of the game is sent the
        seats as the state shows them."""
        room = self.rooms.rooms.get(game_id)
        if room is None:
            return
        message = {"type": "seats", "seats": room.seat_entries()}
        for client in self.clients.get(game_id, ()):
            client.send(message)

    async def rename(self, game_id: str, token: str, name: str) -> SeatRow:
        """A person names their own seat (``Rooms.rename``), under the game's lock (a move
        being stored would put back the match as it stood before), and every socket of the
        game is sent the seats."""
        await self.room(game_id)
        async with self.locks.hold(game_id):
            row = await self.writer.write(self.rooms.rename, game_id, token, name)
        self.seats_changed(game_id)
        return row

    def drop_seat(self, game_id: str, seat: int, reason: str) -> None:
        """A seat whose token stopped working (its invitation reissued): its sockets are told
        why and closed (1008); they may watch again with no token."""
        for client in list(self.clients.get(game_id, ())):
            if client.seat == seat:
                client.send({"type": "error", "reason": reason})
                client.close(1008)

    def rows_changed(self, game_id: str, seats: Sequence[SeatRow], game: GameRow) -> None:
        """Tell the sockets what another process changed in a game's seats and row, read
        since they were ``seats`` and ``game`` (a person away or back, a rematch), as they
        would have been told had it changed here."""
        room = self.rooms.rooms.get(game_id)
        if room is None:
            return
        for old, new in zip(seats, room.seats, strict=False):
            if old.away != new.away:
                self.seat_changed(game_id, new.seat, away=new.away)
        if [(s.token_hash, s.name) for s in seats] != [(s.token_hash, s.name) for s in room.seats]:
            self.seats_changed(game_id)
        rematch = room.game.rematch
        if rematch is not None and game.rematch != rematch:
            for client in self.clients.get(game_id, ()):
                client.send({"type": "rematch", "game": rematch})

    # -- moves

    async def intent(
        self, client: Client, token: str | None, version: int, client_id: str, text: str
    ) -> None:
        """A client's intent: checked, stored with others, then acknowledged to the sender and
        broadcast to every socket of the game (in that order, and only once committed)."""
        await self._finish(self._intent(client, token, version, client_id, text))

    async def _intent(
        self, client: Client, token: str | None, version: int, client_id: str, text: str
    ) -> None:
        game_id = client.game_id
        async with self.locks.hold(game_id):
            answer = self.rooms.check_intent(game_id, token, version, client_id, text)
            if isinstance(answer, Pending):
                answer = await self.store(answer)
            client.send(self.wire.answer(client_id, answer, client.lang))
            if isinstance(answer, Accepted) and answer.played:
                self.broadcast(game_id, answer.played)
        self.evict(game_id)

    async def room(self, game_id: str) -> Room:
        """The game from memory, or rebuilt from its log on the writer's thread (a read and
        a replay through the engine: not on the loop)."""
        room = self.rooms.rooms.get(game_id)
        if room is None:
            room = await self.writer.run(self.rooms.room, game_id)
        return room

    async def store(self, pending: Pending) -> Accepted | Refused:
        """Pending entries committed by the writer (with other games'), then settled. Where
        another process appended first, what the room caught up with is told to this
        process's sockets now: the NOTIFY of it, when it comes, finds nothing new."""
        outcome = await self.writer.append(pending.append)
        room = self.rooms.rooms.get(pending.game_id)
        before = None if room is None else (tuple(room.seats), room.game)
        answer = self.rooms.settle(pending, outcome)
        if answer.caught_up:
            self.broadcast(pending.game_id, answer.caught_up, followed=True)
        if before is not None:
            self.rows_changed(pending.game_id, *before)
        return answer

    async def start(self, game_id: str) -> Accepted | None:
        """Dice in the air at the start (a continued record): the server throws them."""
        async with self.locks.hold(game_id):
            pending = self.rooms.check_start(game_id)
            answer = None if pending is None else await self.store(pending)
            if isinstance(answer, Accepted):
                self.broadcast(game_id, answer.played)
                return answer
        return None

    async def _finish(self, work: Coroutine[Any, Any, T]) -> T:
        """Run a move to its end even if its caller is cancelled (a socket closing): what is
        committed is applied and told."""
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return await asyncio.shield(task)

    # -- entries

    def broadcast(
        self, game_id: str, played: tuple[Played, ...], *, followed: bool = False
    ) -> None:
        """Send entries (already stored) to every socket of the game, then let the server
        play what it plays (bots): as the driver of the game, or as a backup where the
        entries are another process's (``followed``). The message is encoded once per
        language, for all the sockets of that language."""
        if played:
            room = self.rooms.room(game_id)
            texts: dict[str, str] = {}
            for client in self.clients.get(game_id, ()):
                text = texts.get(client.lang)
                if text is None:
                    text = texts[client.lang] = self.wire.events(room, played, client.lang)
                client.send_text(text)
        self.kick(game_id, backup=followed)
        self.evict(game_id)

    def evict(self, game_id: str) -> bool:
        """A finished game that no socket watches and nothing here works on leaves memory:
        it is rebuilt from its log when next asked for (its record, a reconnection, a
        rematch). True if it was dropped."""
        if game_id in self.clients or game_id in self.locks.locks or game_id in self.timers:
            return False
        room = self.rooms.rooms.get(game_id)
        if room is None or not room.over:
            return False
        return self.rooms.forget(game_id)

    def kick(self, game_id: str, *, backup: bool = False) -> None:
        """If a bot is to move, play it after the game's pace (one timer per game); a
        ``backup`` (the game is driven by another process) only ``takeover_after`` seconds
        later, should nobody have moved it by then. A timer planned for an older version
        is replaced; one for this version stays, unless a backup's, replaced by a driver's."""
        try:
            room = self.rooms.room(game_id)
        except UnknownGameError:
            return
        if room.over or room.bot_to_move() is None:
            return
        backup = backup and self.takeover_after is not None
        planned = self.timers.get(game_id)
        if planned is not None:
            if planned.version == room.version and (backup or not planned.backup):
                return
            planned.handle.cancel()
        version = room.version
        delay = room.game.pace
        if backup and self.takeover_after is not None:
            delay += self.takeover_after
        handle = asyncio.get_running_loop().call_later(delay, self._bot, game_id, version)
        self.timers[game_id] = BotTimer(handle, version, backup)

    def _bot(self, game_id: str, version: int) -> None:
        self.timers.pop(game_id, None)
        self.spawn(lambda: self._bot_move(game_id, version))

    async def _bot_move(self, game_id: str, version: int) -> None:
        try:
            await self._bot_play(game_id, version)
        finally:
            self.evict(game_id)

    async def _bot_play(self, game_id: str, version: int) -> None:
        try:
            async with self.locks.hold(game_id):
                turn = self.rooms.bot_turn(game_id, version)
                pending = None
                if turn is not None:
                    # A bot may think (or build its tables) for a while: not on the loop.
                    loop = asyncio.get_running_loop()
                    action = await loop.run_in_executor(self.bots, turn.choose)
                    pending = self.rooms.check_bot(turn, action)
                answer = None if pending is None else await self.store(pending)
                if isinstance(answer, Accepted):
                    self.broadcast(game_id, answer.played)
                    return
        except Exception:  # a failing bot must not stop the others
            log.exception("the bot of %s could not move", game_id)
            return
        # Nothing played: the game moved (another process plays it, as a rule) or the store
        # failed. Played again only if nobody has moved it by the takeover.
        self.kick(game_id, backup=True)

    def resume_all(self) -> None:
        """After a start: the games where the server is to move go on (as a backup: other
        processes on the same database may be playing them)."""
        for game_id in self.rooms.store.playing():
            try:
                started = self.rooms.start(game_id)
                if started is not None:
                    self.broadcast(game_id, started.played)
                self.kick(game_id, backup=True)
            except Exception:
                log.exception("game %s cannot go on", game_id)

    # -- background

    def spawn(self, work: Callable[[], Any]) -> None:
        task = asyncio.get_running_loop().create_task(work())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def expire_forever(self, every: float = 3600.0) -> None:
        """Expire the games past ``expire_after`` now and every ``every`` seconds, their ids
        in the log (the first ``EXPIRED_NAMED``)."""
        if self.expire_after is None:
            return
        while True:
            gone = self.rooms.expire(self.expire_after)
            if gone:  # each named: an operator asked about one finds it
                shown = ", ".join(gone[:EXPIRED_NAMED]) + (
                    ", ..." if len(gone) > EXPIRED_NAMED else ""
                )
                log.info("%d unfinished games expired: %s", len(gone), shown)
            await asyncio.sleep(every)

    async def tidy_forever(self, freeze_every: float = 5.0, collect_every: int = 120) -> None:
        """Keep Python's cycle collector off the moves. A full collection looks at every
        object: with a thousand games and five thousand sockets it stopped the loop for 0.3
        to 1.3 s every few seconds here. So what lives on is frozen (``gc.freeze``: the
        collector skips it) every ``freeze_every`` seconds, the collections look at the
        newer objects only, and every ``collect_every``-th time everything is collected once
        (one pause, logged) before it is frozen again. The collector's own full collections
        are off (its third threshold out of reach): measured under the benchmark, they still
        came every few seconds (after a freeze the collector finds the old generation
        "small" and collects it often), 0.05 to 0.3 s each, the tail of the latencies."""
        first, second, third = gc.get_threshold()
        gc.set_threshold(first, second, 1_000_000)
        try:
            await self._tidy(freeze_every, collect_every)
        finally:
            gc.set_threshold(first, second, third)

    async def _tidy(self, freeze_every: float, collect_every: int) -> None:
        gc.freeze()
        rounds = 0
        while True:
            await asyncio.sleep(freeze_every)
            rounds += 1
            if rounds % collect_every == 0:
                began = time.perf_counter()
                gc.unfreeze()
                found = gc.collect()
                log.info(
                    "collected %d objects in %.0f ms", found, (time.perf_counter() - began) * 1e3
                )
            gc.freeze()

    async def follow_forever(
        self,
        listen: Callable[[Callable[[], Awaitable[None]]], AsyncIterator[Note]],
        *,
        first_delay: float = 0.25,
        longest_delay: float = 8.0,
    ) -> None:
        """Follow the other processes for the life of this one: ``listen(ready)`` (the store's
        LISTEN, which awaits ``ready`` once it listens) is started again whenever its
        connection is lost (a terminated backend, a restart of the database), after a delay
        that doubles from ``first_delay`` up to ``longest_delay`` while it keeps failing.
        Each time it listens, every game in memory is caught up with the log and its seats
        (what its sockets missed meanwhile is sent to them): no note is missed between the
        two. ``listener`` says where it stands (``/api/health``)."""
        delay = first_delay

        async def ready() -> None:
            nonlocal delay
            again = self.listener == "down"
            await self.catch_up()
            self.listener, delay = "up", first_delay
            if again:
                log.warning(
                    "listening to the other processes again (%d games caught up)",
                    len(self.rooms.rooms),
                )

        while True:
            try:
                await self.follow(listen(ready))
                why = "the connection ended"
            except Exception as exc:  # any loss is answered the same way
                why = one_line(exc)
            self.listener = "down"
            log.warning(
                "lost the other processes' notes (%s): listening again in %.2g s", why, delay
            )
            await asyncio.sleep(delay)
            delay = min(delay * 2, longest_delay)

    async def catch_up(self) -> None:
        """Every game in memory read again from the store: the entries and seat changes other
        processes made while this one heard nothing, sent to its sockets."""
        for game_id in list(self.rooms.rooms):
            await self._follow_log(game_id, None)
            await self._follow_rows(game_id)
            await asyncio.sleep(0)  # the other requests go on between two games

    async def follow(self, notes: AsyncIterator[Note]) -> None:
        """What other processes changed (PostgreSQL NOTIFY), sent on to this process's
        sockets: the entries they appended, read from the log; a person away or back; a
        rematch started. Only for the games this process holds in memory (the others are
        read from the store when asked for). Our own notes come back too: they find nothing
        new, and nothing is said twice."""
        async for note in notes:
            try:
                if note.game_id not in self.rooms.rooms:
                    continue
                if note.seq is not None:
                    await self._follow_log(note.game_id, note.seq)
                else:
                    await self._follow_rows(note.game_id)
            except Exception:  # one game read badly must not stop the others
                log.exception("could not follow a change of %s", note.game_id)

    async def _follow_log(self, game_id: str, seq: int | None) -> None:
        """The entries of a game past this process's version, up to ``seq`` at least (None:
        whatever the log holds)."""
        room = self.rooms.rooms.get(game_id)
        if room is None or (seq is not None and room.version >= seq):
            return
        # Under the game's lock: this process's own commits are settled first.
        async with self.locks.hold(game_id):
            room = self.rooms.rooms.get(game_id)
            if room is None or (seq is not None and room.version >= seq):
                return
            before = tuple(room.seats), room.game
            played = self.rooms.refresh(game_id)
            if played:
                self.broadcast(game_id, played, followed=True)
            self.rows_changed(game_id, *before)

    async def _follow_rows(self, game_id: str) -> None:
        """A game's seats or row changed elsewhere: tell this process's sockets what they
        would have been told had it changed here (``seat``, ``rematch``)."""
        # Read under the game's lock: rows read before a rename of this process, applied
        # after it, put the old name back until the rename's own note came.
        async with self.locks.hold(game_id):
            rows = await self.writer.run(self.rooms.read_rows, game_id)
            if rows is None:
                return
            game, seats = rows
            room = self.rooms.rooms.get(game_id)
            if room is None:
                return
            before = tuple(room.seats), room.game
            room.set_seats(seats)
            room.set_game(game)
            self.rows_changed(game_id, *before)
        # A person away: their stand-in may be to move, played by the process that set them
        # away (this one takes over only if nobody does).
        self.kick(game_id, backup=True)

    async def stop(self) -> None:
        """Stop the bots and the background work; what the writer holds is committed."""
        for timer in (*(t.handle for t in self.timers.values()), *self.leave_timers.values()):
            timer.cancel()
        for task in self.tasks:
            task.cancel()
        await self.writer.close()
        self.bots.shutdown(wait=False, cancel_futures=True)
