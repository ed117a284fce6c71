"""The live side of the server: the sockets of each game, the bots' timers, the absent.

Everything runs on the event loop's one thread, and the calls into ``Rooms`` do not await, so
each intent is checked, stored and applied without another one in between. Each socket has a
queue and a writer task, so that a slow client delays only itself. Other server processes on
the same PostgreSQL database are heard through LISTEN/NOTIFY: their entries are read from the
log and sent to this process's sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

from zloutch.adapters.web.protocol import dumps, events_message
from zloutch.app.rooms import Accepted, Played, Rooms, UnknownGameError

log = logging.getLogger("zloutch.serve")

QUEUE_LIMIT = 1000
"""Messages waiting for one socket; a client this far behind is dropped (it can reconnect)."""


class Socket(Protocol):
    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000) -> None: ...


@dataclass(eq=False)
class Client:
    """One connected socket: a seat's or a spectator's (``seat`` None)."""

    socket: Socket
    game_id: str
    seat: int | None
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))

    def send(self, message: dict[str, Any]) -> None:
        self.send_text(dumps(message))

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
                    await self.socket.close(1013)
                return
            await self.socket.send_text(text)


class Hub:
    """The sockets of every game of this process, and what the server plays by itself."""

    def __init__(self, rooms: Rooms, *, expire_after: timedelta | None = None) -> None:
        self.rooms = rooms
        self.clients: dict[str, set[Client]] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.leave_timers: dict[tuple[str, int], asyncio.TimerHandle] = {}
        self.expire_after = expire_after
        self.tasks: set[asyncio.Task[Any]] = set()

    # -- sockets

    def join(self, client: Client) -> None:
        self.clients.setdefault(client.game_id, set()).add(client)
        if client.seat is not None:
            timer = self.leave_timers.pop((client.game_id, client.seat), None)
            if timer is not None:
                timer.cancel()
            if self.rooms.set_away(client.game_id, client.seat, False):
                self.seat_changed(client.game_id, client.seat, away=False)

    def leave(self, client: Client) -> None:
        game = self.clients.get(client.game_id, set())
        game.discard(client)
        if not game:
            self.clients.pop(client.game_id, None)
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

    # -- entries

    def broadcast(self, game_id: str, played: tuple[Played, ...]) -> None:
        """Send entries (already stored) to every socket of the game, then let the server
        play what it plays (bots)."""
        if played:
            room = self.rooms.room(game_id)
            text = dumps(events_message(room, played))
            for client in self.clients.get(game_id, ()):
                client.send_text(text)
        self.kick(game_id)

    def kick(self, game_id: str) -> None:
        """If a bot is to move, play it after the game's pace (one timer per game)."""
        try:
            room = self.rooms.room(game_id)
        except UnknownGameError:
            return
        if room.over or room.bot_to_move() is None or game_id in self.timers:
            return
        version = room.version
        loop = asyncio.get_running_loop()
        self.timers[game_id] = loop.call_later(room.game.pace, self._bot, game_id, version)

    def _bot(self, game_id: str, version: int) -> None:
        self.timers.pop(game_id, None)
        try:
            answer = self.rooms.bot_move(game_id, version)
        except Exception:  # a failing bot must not stop the others
            log.exception("the bot of %s could not move", game_id)
            return
        if isinstance(answer, Accepted):
            self.broadcast(game_id, answer.played)
        else:
            self.kick(game_id)

    def resume_all(self) -> None:
        """After a start: the games where the server is to move go on."""
        for game_id in self.rooms.store.playing():
            try:
                started = self.rooms.start(game_id)
                if started is not None:
                    self.broadcast(game_id, started.played)
                self.kick(game_id)
            except Exception:
                log.exception("game %s cannot go on", game_id)

    # -- background

    def spawn(self, work: Callable[[], Any]) -> None:
        task = asyncio.get_running_loop().create_task(work())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def expire_forever(self, every: float = 3600.0) -> None:
        if self.expire_after is None:
            return
        while True:
            gone = self.rooms.expire(self.expire_after)
            if gone:
                log.info("%d unfinished games expired", len(gone))
            await asyncio.sleep(every)

    async def follow(self, notes: AsyncIterator[tuple[str, int]]) -> None:
        """Entries other processes appended (PostgreSQL NOTIFY): read them, send them on."""
        async for game_id, seq in notes:
            room = self.rooms.rooms.get(game_id)
            if room is None or room.version >= seq:
                continue
            played = self.rooms.refresh(game_id)
            if played:
                self.broadcast(game_id, played)

    def stop(self) -> None:
        for timer in (*self.timers.values(), *self.leave_timers.values()):
            timer.cancel()
        for task in self.tasks:
            task.cancel()
