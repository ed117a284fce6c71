"""The service's answers and requests: an intent refused, accepted or pending (checked, not
stored yet), a bot's turn, a new game asked for and made, a seat joined."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime

from zloutch.app.match import BOT_PREFIX
from zloutch.app.session import bot_of
from zloutch.engine import (
    Action,
    GameState,
)
from zloutch.server.room import Played, Room
from zloutch.server.rows import (
    DEFAULT_LEAVE_BOT,
    Append,
    LogEntry,
    RefusalCode,
)


@dataclass(frozen=True)
class Refused:
    """An intent not applied, and why: the engine's reason and rule id where it is a rule."""

    code: RefusalCode
    reason: str
    rule: str | None = None
    version: int = 0
    caught_up: tuple[Played, ...] = ()
    """Entries another process appended first, read while settling (``Rooms.settle``):
    new to this process's sockets too, which must be told of them (their NOTIFY, when it
    comes, finds nothing new)."""


@dataclass(frozen=True)
class Accepted:
    """An intent applied (or applied before: ``duplicate``); ``played`` are the new entries,
    ``caught_up`` those another process appended first (as in ``Refused``)."""

    version: int
    played: tuple[Played, ...] = ()
    duplicate: bool = False
    caught_up: tuple[Played, ...] = ()


@dataclass(frozen=True)
class Pending:
    """Entries checked by the engine and not stored yet, and the room they lead to: a copy
    (``probe``), so that the room itself, and all that anyone is told, stay as they were until
    the store has committed them (``Rooms.settle``)."""

    game_id: str
    base: int
    """The version they follow."""
    entries: tuple[LogEntry, ...]
    probe: Room
    at: datetime

    @property
    def append(self) -> Append:
        probe = self.probe
        reopens = not probe.over and probe.game.status == "over"
        return Append(self.game_id, self.entries, probe.over, self.at, reopens)


@dataclass(frozen=True)
class BotTurn:
    """A move the server is to choose for a seat: the bot, and the state it sees."""

    game_id: str
    version: int
    seat: int
    bot: str
    state: GameState
    seed: str

    def choose(self) -> Action:
        """The bot's action: a pure function of the state (it may run off the event loop)."""
        policy = bot_of(BOT_PREFIX + self.bot)
        assert policy is not None
        return policy.choose(self.state, random.Random(self.seed))


@dataclass(frozen=True)
class SeatSpec:
    """A seat asked for at creation: a person's name, or a bot."""

    name: str = ""
    bot: str | None = None


@dataclass(frozen=True)
class NewGame:
    """What a game is created with."""

    seats: tuple[SeatSpec, ...]
    rules: str = "dix-mille"
    rules_toml: str | None = None
    """An uploaded rule file (which may extend a preset and nothing else)."""
    table_mode: bool = False
    pace: float = 0.8
    leave_after: float | None = None
    leave_bot: str = DEFAULT_LEAVE_BOT
    hints: bool = True
    """The hint is offered (``GameRow.hints``)."""


@dataclass(frozen=True)
class Created:
    """A new game and the codes that only its creator sees, once."""

    game_id: str
    commitment: str
    invites: tuple[tuple[int, str], ...]
    """(seat, invite code) for each person's seat."""
    open_code: str
    host: str = ""
    """The host's token: the seat list with every invitation, and their reissue."""


@dataclass(frozen=True)
class SeatView:
    """A seat as the seat list shows it to someone at the table."""

    seat: int
    name: str
    bot: str | None
    joined: bool
    away: bool
    invite: str | None
    """Its invitation's code, where the asker may see it: a seat nobody took yet (to anyone
    at the table), the asker's own seat (to open on another device), every person's seat
    (to the host)."""
    mine: bool


@dataclass(frozen=True)
class SeatList:
    host: bool
    seats: tuple[SeatView, ...]


@dataclass(frozen=True)
class NewRoom:
    """A new game built and checked, not stored yet: its room, the log it starts from, and
    what its creator is told once it is stored."""

    room: Room
    log: tuple[LogEntry, ...]
    created: Created


@dataclass(frozen=True)
class Joined:
    game_id: str
    seat: int
    token: str
    made: bool = False
    """A rematch: this very request stored the new game (its process drives its bots)."""
