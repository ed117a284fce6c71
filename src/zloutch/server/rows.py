"""What the game service stores, and its errors: a game's row, its seats, its log's entries
(``GameStore`` keeps them), the refusal codes."""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from zloutch.app.match import UNDO
from zloutch.app.session import MAX_PACE, same_name
from zloutch.rules import ZloutchError

MAX_SEATS = 8
MAX_NAME = 40
"""The characters of a person's name at a seat."""
SEED_WORD = "seed"
UNDO_WORD = UNDO
"""At a real table, an entry that takes back the last entry typed (and the bots' moves after
it): the log keeps it, the record and the state are as if the undone actions never were."""
DEFAULT_LEAVE_BOT = "medium"

__all__ = ["MAX_PACE"]  # the app's rule, named here for the service

RefusalCode = Literal[
    "illegal",
    "stale",
    "not_your_turn",
    "spectator",
    "bad_token",
    "invalid",
    "over",
    "expired",
    "not_stored",
]


class RoomError(ZloutchError):
    """A request the game service cannot do (a bad seat list, an unknown game...)."""


def taken_name(name: str) -> str:
    """Why a seat cannot take a name another seat of its game has."""
    return f"another player of this game is called {name!r}: choose a name of your own"


def name_clash(name: str, players: Sequence[str], seat: int) -> str | None:
    """The name of another seat than ``seat`` that ``name`` is the same as (its case aside),
    or None."""
    return next(
        (p for i, p in enumerate(players) if i != seat and same_name(p, name)),
        None,
    )


class UnknownGameError(RoomError):
    """No game has this id (or invite code)."""


class StoreUnavailableError(ZloutchError):
    """The database did not take a write (read-only, full, gone): nothing of it is stored."""


REOPENED = "this game is played again (an undo took back its end): the rematch waits for its end"
"""Why no rematch is made of a game an undo reopened (``GameStore.create_rematch``)."""


class StoreConflict(Exception):
    """The next sequence number is taken: another process appended first."""


class DuplicateIntent(Exception):
    """This client message id was applied before; ``version`` is the version it led to."""

    def __init__(self, version: int) -> None:
        super().__init__(version)
        self.version = version


# ---------------------------------------------------------------------------- stored rows


def now_utc() -> datetime:
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """An ISO 8601 time in UTC to the millisecond: ``2025-05-01T12:00:00.250Z``."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def digest(secret: str) -> str:
    """What is stored of a token or a code: its SHA-256, hex."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def seat_token(invite_code: str) -> str:
    """The seat token an invitation gives: the same each time it is opened (a chat app's
    browser, then the real one: both hold the seat), another once the host reissues it."""
    mac = hmac.new(invite_code.encode("utf-8"), b"zloutch seat token", hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).decode("ascii").rstrip("=")


@dataclass(frozen=True)
class GameRow:
    """A game as stored: what it was created with, and how it stands."""

    id: str
    rules: str
    players: tuple[str, ...]
    secret: str
    commitment: str
    created_at: datetime
    updated_at: datetime
    rules_toml: str | None = None
    table_mode: bool = False
    pace: float = 0.8
    leave_after: float | None = None
    """Seconds a person may be away on their move before a bot plays for them (None: never)."""
    leave_bot: str = DEFAULT_LEAVE_BOT
    first_throw: int = 0
    status: Literal["playing", "over", "expired"] = "playing"
    open_hash: str | None = None
    rematch_of: str | None = None
    rematch: str | None = None
    host_hash: str | None = None
    """The hash of the host's token (whoever made the game): it may see every seat's
    invitation and reissue one. None for a game stored before hosts were kept."""
    hints: bool = True
    """Anyone at the table may ask for the hint (each legal action's value); off, nobody
    may while the game lasts (its review, once it is over, is for everyone)."""


@dataclass(frozen=True)
class SeatRow:
    game_id: str
    seat: int
    name: str
    bot: str | None = None
    """The bot's level or name (None: a person)."""
    invite_hash: str | None = None
    token_hash: str | None = None
    heir_hash: str | None = None
    """A rematch seat: the hash of the token of the same seat in the game before."""
    away: bool = False
    """A person away past ``leave_after``: the game's ``leave_bot`` plays for them."""
    invite_code: str | None = None
    """A person's seat: its invitation's code, which stays valid once the seat is taken (it
    seats its holder again, with the same token: ``seat_token``) until the host reissues
    it; the seat list shows it to the people at the table."""


@dataclass(frozen=True)
class LogEntry:
    """One entry of a game's log: an engine action or a seed (``seed TEXT``)."""

    seq: int
    text: str
    at: str
    seat: int | None = None
    """The seat that sent it; None for the server (dice, bots, a continued record)."""
    client_id: str | None = None


@dataclass(frozen=True)
class Append:
    """One game's entries to append to its log (``GameStore.append_many``)."""

    game_id: str
    entries: tuple[LogEntry, ...]
    over: bool
    """The game is over after them."""
    at: datetime
    reopens: bool = False
    """The game was over and is not after them (an undo at a real table): it plays again."""
