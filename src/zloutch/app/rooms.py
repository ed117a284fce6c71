"""Games played on a server: seats, tokens, intents, the action log, the bots, the dice.

A ``Rooms`` service holds the games of one server process over a ``GameStore`` (the durable
log, ``zloutch.app.gamedb``; ``MemoryStore`` below for tests). Nothing here decides a rule:
an intent is checked by the engine (``why_illegal``) and a refusal carries the engine's
reason and its rule id. Nothing here does I/O either, apart from the store it is given.

The log is the game. Each accepted intent becomes one or more entries (``throw`` and the
``roll`` the server draws for it) appended in one transaction with the next sequence numbers;
an entry is acknowledged or broadcast only after the store committed it. ``check_intent``
checks an intent in memory and gives the ``Pending`` entries, applied to a copy of the room;
the store commits them (``append_many``: the entries of many games in one transaction, which
the server's writer thread uses for group commit), and ``settle`` moves the room on, or
leaves it as it was. ``intent`` does the three at once. The store refuses a
sequence number taken (``StoreConflict``: another process got there first; the room reloads
the log and checks the intent again) and a client message id seen before (``DuplicateIntent``:
a retry, answered with the version it led to, applied once). A game is rebuilt by replaying
its log through the engine: entries are engine actions, or seeds a player added to the dice
(``seed TEXT``), which count from the next throw on.

Seats: an invite code per seat (and an open code that seats whoever comes next) is shown
once to the creator; opening it gives the seat's token. Codes and tokens are random
(``secrets``) and only their SHA-256 is stored.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Literal, Protocol

from zloutch.app.fairdice import check_seed, commitment_of, fair_roll, new_secret
from zloutch.app.session import BOT_PREFIX, bot_of, parse_players
from zloutch.engine import (
    CHANCE,
    TERMINAL,
    Action,
    Bank,
    Fresh,
    GameState,
    Joker,
    Keep,
    Off,
    Phase,
    Roll,
    Take,
    Throw,
    current_player,
    is_terminal,
    legal_actions,
    parse_action,
    step,
    turn_player,
    why_illegal,
)
from zloutch.engine.events import Event
from zloutch.engine.record import (
    DiceCommitment,
    PlayerSeed,
    Record,
    dump_record,
    load_record,
    rules_from_text,
)
from zloutch.rules import ZloutchError, load_rules, to_toml
from zloutch.rules.ruleset import RuleSet

MAX_SEATS = 8
SEED_WORD = "seed"
UNDO_WORD = "undo"
"""At a real table, an entry that takes back the last entry typed (and the bots' moves after
it): the log keeps it, the record and the state are as if the undone actions never were."""
DEFAULT_LEAVE_BOT = "medium"
MAX_PACE = 60.0

RULE_ID = re.compile(r"\(([STGVF]-\d+)\)")

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


class UnknownGameError(RoomError):
    """No game has this id (or invite code)."""


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


@dataclass(frozen=True)
class LogEntry:
    """One entry of a game's log: an engine action or a seed (``seed TEXT``)."""

    seq: int
    text: str
    at: str
    seat: int | None = None
    """The seat that sent it; None for the server (dice, bots, a continued record)."""
    client_id: str | None = None


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


# ---------------------------------------------------------------------------- a room


@dataclass(frozen=True)
class Played:
    """An entry of the log with the events it caused (none for a seed)."""

    entry: LogEntry
    events: tuple[Event, ...]
    undone: tuple[str, ...] = ()
    """For an undo: the actions it took back, the last first."""


@dataclass
class Room:
    """One game in memory: its stored row and seats, and its log replayed to a state."""

    game: GameRow
    seats: list[SeatRow]
    record: Record
    state: GameState
    played: list[Played] = field(default_factory=list)
    seeds: list[PlayerSeed] = field(default_factory=list)
    throws: int = 0
    revision: int = field(default=0, compare=False)
    """Counts the changes of what is shown (``touch``)."""
    memo: dict[object, tuple[int, str]] = field(default_factory=dict, repr=False, compare=False)
    """What the front ends made of this room as it stands (the state's JSON per language),
    made once for every socket and every catch-up, each with the ``revision`` it was made
    at: a text made while another thread changed the room is never served as current."""
    entry_memo: dict[tuple[int, str], str] = field(default_factory=dict, repr=False, compare=False)
    """The same for the entries of the log, by (seq, language): an entry never changes."""

    @classmethod
    def rebuild(cls, game: GameRow, seats: Sequence[SeatRow], log: Sequence[LogEntry]) -> Room:
        """The game replayed from its log through the engine."""
        rules = rules_from_text(game.rules_toml) if game.rules_toml else load_rules(game.rules)
        record = Record(rules.spec, game.players, table_mode=game.table_mode)
        record = replace(record, rules_toml=game.rules_toml)
        room = cls(game, list(seats), record, record.start())
        for entry in log:
            room.take(entry)
        return room

    @property
    def version(self) -> int:
        return len(self.played)

    def touch(self) -> None:
        """Something shown changed (a move, a seat, the game's status): forget the memo."""
        self.revision += 1
        self.memo.clear()

    def set_game(self, game: GameRow) -> None:
        self.game = game
        self.touch()

    def set_seat(self, row: SeatRow) -> None:
        self.seats[row.seat] = row
        self.touch()

    def set_seats(self, rows: Sequence[SeatRow]) -> None:
        self.seats = list(rows)
        self.touch()

    def take(self, entry: LogEntry) -> Played:
        """Add an entry of the log (already stored, or about to be)."""
        if entry.seq != self.version + 1:
            raise RoomError(f"log of {self.game.id}: entry {entry.seq} after {self.version}")
        self.touch()
        events: tuple[Event, ...] = ()
        if entry.text == UNDO_WORD:
            played = Played(entry, (), self._undo())
            self.played.append(played)
            return played
        if entry.text.startswith(SEED_WORD + " "):
            seat = entry.seat if entry.seat is not None else -1
            self.seeds.append(PlayerSeed(seat, entry.text[len(SEED_WORD) + 1 :], self.throws))
        else:
            action = parse_action(entry.text)
            self.state, events = step(self.state, action)
            self.record = self.record.extended([action], [entry.at])
            self.throws += isinstance(action, Roll)
        played = Played(entry, events)
        self.played.append(played)
        return played

    def _undo(self) -> tuple[str, ...]:
        """Take back the last action, and those before it that no person typed (the bots'),
        by replaying the record without them; the actions taken back, the last first."""
        actions, times = list(self.record.actions), list(self.record.times)
        removed: list[str] = []
        while actions:
            removed.append(actions.pop())
            if times:
                times.pop()
            record = replace(self.record, actions=tuple(actions), times=tuple(times))
            self.record, self.state = record, record.replay()
            if self.person_acts():
                break
        self.throws = sum(a.startswith("roll") for a in self.record.actions)
        return tuple(removed)

    def person_acts(self) -> bool:
        """A person acts now: a person's move, or real dice to type in."""
        who = current_player(self.state)
        if who == CHANCE:
            return self.game.table_mode
        return who >= 0 and self.seats[who].bot is None

    def undo_refusal(self) -> str | None:
        """Why the last entry cannot be taken back now (None: it can)."""
        if not self.game.table_mode:
            return "undo exists only at a real table (real dice)"
        if not self.record.actions:
            return "there is nothing to undo"
        return None

    def try_entries(self, entries: Sequence[LogEntry]) -> Room:
        """A copy with entries added (the room itself is unchanged until they are stored)."""
        copy = Room(
            self.game,
            list(self.seats),
            self.record,
            self.state,
            list(self.played),
            list(self.seeds),
            self.throws,
        )
        for entry in entries:
            copy.take(entry)
        return copy

    # -- questions

    @property
    def over(self) -> bool:
        return is_terminal(self.state)

    def bot_for(self, seat: int) -> str | None:
        """Who plays a seat on the server: its bot, or the stand-in of a person away."""
        row = self.seats[seat]
        if row.bot is not None:
            return row.bot
        return self.game.leave_bot if row.away else None

    def acting_seats(self) -> tuple[int, ...]:
        """The seats that may act now: the player to move; at a real table, while the dice
        are in the air, the player whose turn it is types the faces (or anyone seated when
        that is a bot)."""
        who = current_player(self.state)
        if who == TERMINAL:
            return ()
        if who == CHANCE:
            if not self.game.table_mode:
                return ()
            who = turn_player(self.state)
            if self.seats[who].bot is not None:
                return tuple(s.seat for s in self.seats if s.bot is None)
        return (who,)

    def bot_to_move(self) -> int | None:
        """The seat a bot plays now, if the server is to move for one."""
        who = current_player(self.state)
        if who >= 0 and self.bot_for(who) is not None:
            return who
        return None

    def dice(self) -> DiceCommitment:
        """The commitment and the seeds; the secret once the game is over."""
        secret = self.game.secret if self.over else None
        return DiceCommitment(
            self.game.commitment, secret, tuple(self.seeds), self.game.first_throw
        )

    def full_record(self) -> Record:
        if self.game.table_mode:
            return self.record
        return replace(self.record, dice=(self.dice(),))

    def record_text(self) -> str:
        return dump_record(self.full_record(), self.state)

    def throw_dice(self, at: str) -> list[LogEntry]:
        """The server's rolls while the dice are in the air, taken into this room (a copy's,
        see ``try_entries``); none at a real table, where the faces are typed in."""
        if self.game.table_mode:
            return []
        entries: list[LogEntry] = []
        while current_player(self.state) == CHANCE:
            roll = fair_roll(self.game.secret, self.seeds, self.throws, self.state.turn.rolling)
            entry = LogEntry(self.version + 1, str(roll), at)
            self.take(entry)
            entries.append(entry)
        return entries

    def adopt(self, probe: Room) -> None:
        """Stand where a copy of this room stands, its entries now stored (no replay)."""
        self.state, self.record, self.throws = probe.state, probe.record, probe.throws
        self.played, self.seeds = list(probe.played), list(probe.seeds)
        self.touch()


# ---------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class Refused:
    """An intent not applied, and why: the engine's reason and rule id where it is a rule."""

    code: RefusalCode
    reason: str
    rule: str | None = None
    version: int = 0


@dataclass(frozen=True)
class Accepted:
    """An intent applied (or applied before: ``duplicate``); ``played`` are the new entries."""

    version: int
    played: tuple[Played, ...] = ()
    duplicate: bool = False


@dataclass(frozen=True)
class Append:
    """One game's entries to append to its log (``GameStore.append_many``)."""

    game_id: str
    entries: tuple[LogEntry, ...]
    over: bool
    """The game is over after them."""
    at: datetime


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
        return Append(self.game_id, self.entries, self.probe.over, self.at)


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


@dataclass(frozen=True)
class Created:
    """A new game and the codes that only its creator sees, once."""

    game_id: str
    commitment: str
    invites: tuple[tuple[int, str], ...]
    """(seat, invite code) for each person's seat."""
    open_code: str


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


# ---------------------------------------------------------------------------- the service


class Rooms:
    """The games of one server process, over a durable store."""

    def __init__(
        self,
        store: GameStore,
        *,
        clock: Callable[[], datetime] = now_utc,
        token: Callable[[], str] = lambda: secrets.token_urlsafe(24),
    ) -> None:
        self.store = store
        self.clock = clock
        self.token = token
        self.rooms: dict[str, Room] = {}

    # -- making games

    def create(self, request: NewGame) -> Created:
        """A new game; raises a ZloutchError with the CLI's words for a bad rule set or seats."""
        return self.add(self.store_new(self.new_game(request)))

    def continue_record(self, text: str, request: NewGame) -> Created:
        """A new game that goes on from an uploaded record (its players, its rules)."""
        return self.add(self.store_new(self.new_from_record(text, request)))

    def new_game(self, request: NewGame) -> NewRoom:
        """A new game checked and built, nothing stored (``store_new``, then ``add``)."""
        rules, rules_toml = self._rules(request.rules, request.rules_toml)
        names = self._names(request.seats)
        return self._new_room(rules, rules_toml, names, request, ())

    def store_new(self, new: NewRoom) -> NewRoom:
        """Store a new game (its row, its seats, the log it starts from): the only part of
        making a game that waits on the disk, which the server runs off its event loop."""
        self.store.create(new.room.game, new.room.seats, new.log)
        return new

    def add(self, new: NewRoom) -> Created:
        """A stored new game, now served."""
        self.rooms[new.room.game.id] = new.room
        return new.created

    def new_from_record(self, text: str, request: NewGame) -> NewRoom:
        """A new game going on from an uploaded record, checked and built, nothing stored."""
        record, state = load_record(text)
        if is_terminal(state):
            raise RoomError("this game is over: there is nothing to continue")
        rules = record.rule_set()
        at = stamp(self.clock())
        log = tuple(
            LogEntry(i, a, (record.times[i - 1] if record.times else None) or at)
            for i, a in enumerate(record.actions, start=1)
        )
        if record.dice:
            log = self._with_seeds(record, log)
        spec = replace(request, table_mode=record.table_mode)
        return self._new_room(rules, record.rules_toml, record.players, spec, log)

    @staticmethod
    def _with_seeds(record: Record, log: tuple[LogEntry, ...]) -> tuple[LogEntry, ...]:
        # The old game's seeds travel as the entries they were, before the throws they
        # counted for; they are kept for the record, the new secret ignores the old throws.
        seeds = [s for d in record.dice if isinstance(d, DiceCommitment) for s in d.seeds]
        out: list[LogEntry] = []
        throws = 0
        pending = sorted(seeds, key=lambda s: s.from_throw)
        for entry in log:
            while pending and pending[0].from_throw <= throws:
                seed = pending.pop(0)
                out.append(LogEntry(0, f"{SEED_WORD} {seed.seed}", entry.at, seed.seat))
            out.append(entry)
            throws += entry.text.startswith("roll")
        return tuple(replace(e, seq=i) for i, e in enumerate(out, start=1))

    def _rules(self, spec: str, toml: str | None) -> tuple[RuleSet, str | None]:
        if toml is None:
            return load_rules(spec), None
        rules = rules_from_text(toml)
        try:
            if load_rules(rules.spec) == rules:
                return rules, None
        except ZloutchError:
            pass
        return rules, to_toml(rules)

    @staticmethod
    def _names(seats: Sequence[SeatSpec]) -> tuple[str, ...]:
        if not 1 <= len(seats) <= MAX_SEATS:
            raise RoomError(f"a game has 1 to {MAX_SEATS} seats, not {len(seats)}")
        parts = []
        for i, seat in enumerate(seats, start=1):
            if seat.bot is not None:
                parts.append(BOT_PREFIX + seat.bot)
            else:
                name = seat.name.strip() or f"Player {i}"
                if name.lower().startswith(BOT_PREFIX) or "," in name:
                    raise RoomError(f"seat {i}: a person's name has no comma and no 'bot:'")
                parts.append(name)
        return parse_players(",".join(parts))

    def _new_room(
        self,
        rules: RuleSet,
        rules_toml: str | None,
        names: Sequence[str],
        request: NewGame,
        log: Sequence[LogEntry],
        rematch_of: str | None = None,
        heirs: Sequence[str | None] = (),
    ) -> NewRoom:
        if not 0 <= request.pace <= MAX_PACE:
            raise RoomError(f"a bot's pace is 0 to {MAX_PACE:g} seconds")
        if request.leave_after is not None and request.leave_after < 0:
            raise RoomError("the delay before a bot plays for a player away cannot be negative")
        bot_of(BOT_PREFIX + request.leave_bot)  # an unknown bot is refused with the list
        moment = self.clock()
        secret = new_secret()
        game_id = secrets.token_urlsafe(9)
        open_code = self.token()
        invites: list[tuple[int, str]] = []
        seats: list[SeatRow] = []
        for seat, name in enumerate(names):
            bot = name[len(BOT_PREFIX) :].split("#")[0] if name.startswith(BOT_PREFIX) else None
            code = None
            if bot is None:
                code = self.token()
                invites.append((seat, code))
            heir = heirs[seat] if seat < len(heirs) else None
            seats.append(
                SeatRow(game_id, seat, name, bot, digest(code) if code else None, None, heir)
            )
        game = GameRow(
            id=game_id,
            rules=rules.spec,
            players=tuple(names),
            secret=secret,
            commitment=commitment_of(secret),
            created_at=moment,
            updated_at=moment,
            rules_toml=rules_toml,
            table_mode=request.table_mode,
            pace=request.pace,
            leave_after=request.leave_after,
            leave_bot=request.leave_bot,
            first_throw=sum(e.text.startswith("roll") for e in log),
            open_hash=digest(open_code),
            rematch_of=rematch_of,
        )
        # The engine's word on the number of players; a continued record replays here too.
        room = Room.rebuild(game, seats, log)
        if room.over:
            raise RoomError("this game is over: there is nothing to continue")
        # The server may have to move first (dice in the air, a bot): the caller asks.
        created = Created(game_id, game.commitment, tuple(invites), open_code)
        return NewRoom(room, tuple(log), created)

    # -- seats

    def join(self, invite: str) -> Joined:
        """The seat of an invite code, and its token (the code then seats nobody else)."""
        row = self.store.seat_by_invite(digest(invite))
        if row is None:
            raise UnknownGameError("this invitation is unknown or was used already")
        return self._seat(row)

    def join_open(self, game_id: str, code: str) -> Joined:
        """The next free person's seat of a game's open link."""
        room = self.room(game_id)
        if room.game.open_hash is None or not hmac.compare_digest(
            room.game.open_hash, digest(code)
        ):
            raise UnknownGameError("this open link is unknown")
        for row in room.seats:
            if row.bot is None and row.token_hash is None and row.heir_hash is None:
                return self._seat(row)
        raise RoomError("every seat of this game is taken")

    def _seat(self, row: SeatRow) -> Joined:
        token = self.token()
        self.store.update_seat(row.game_id, row.seat, token_hash=digest(token), invite_hash=None)
        room = self.room(row.game_id)
        room.set_seat(replace(room.seats[row.seat], token_hash=digest(token), invite_hash=None))
        return Joined(row.game_id, row.seat, token)

    def seat_of(self, game_id: str, token: str | None) -> int | None:
        """The seat a token holds in a game; None for a spectator (no token)."""
        if token is None:
            return None
        hashed = digest(token)
        for row in self.room(game_id).seats:
            if row.token_hash is not None and hmac.compare_digest(row.token_hash, hashed):
                return row.seat
        raise RoomError("this seat token is not one of this game's")

    def set_away(self, game_id: str, seat: int, away: bool) -> bool:
        """A person leaves (a bot plays for them) or takes the seat back; True if it changed."""
        room = self.room(game_id)
        row = room.seats[seat]
        if row.bot is not None or row.away == away:
            return False
        self.store.update_seat(game_id, seat, away=away)
        room.set_seat(replace(row, away=away))
        return True

    def rematch(self, game_id: str, token: str) -> Joined:
        """The same seats in a new game of the same rules; each person follows with their
        token of this game and gets their seat's token there (the first one creates it)."""
        seat = self.seat_of(game_id, token)
        if seat is None:  # pragma: no cover - seat_of raises without a token
            raise RoomError("a spectator has no seat for a rematch")
        room = self.room(game_id)
        if not room.over:
            raise RoomError("a rematch starts when the game is over")
        new_id = room.game.rematch or self._stored_rematch(game_id)
        if not new_id:
            g = room.game
            request = NewGame(
                (),
                g.rules,
                g.rules_toml,
                g.table_mode,
                g.pace,
                g.leave_after,
                g.leave_bot,
            )
            heirs = [r.token_hash for r in room.seats]
            rules = room.state.rules
            new = self._new_room(rules, g.rules_toml, g.players, request, (), game_id, heirs)
            new_id = self.add(self.store_new(new)).game_id
            self.store.update_game(game_id, rematch=new_id)
            room.set_game(replace(room.game, rematch=new_id))
        new_room = self.room(new_id)
        row = new_room.seats[seat]
        if row.heir_hash is None or not hmac.compare_digest(row.heir_hash, digest(token)):
            raise RoomError("this seat of the rematch is not yours")
        return self._seat(row)

    def _stored_rematch(self, game_id: str) -> str | None:
        game = self.store.game(game_id)
        return game.rematch if game else None

    # -- the games

    def room(self, game_id: str) -> Room:
        """The game, from memory or rebuilt from the store."""
        room = self.rooms.get(game_id)
        if room is not None:
            return room
        game = self.store.game(game_id)
        if game is None:
            raise UnknownGameError(f"there is no game {game_id!r}")
        room = Room.rebuild(game, self.store.seats(game_id), self.store.log(game_id))
        self.rooms[game_id] = room
        return room

    def forget(self, game_id: str) -> bool:
        """Drop a game from memory (it is rebuilt from the store when asked for again)."""
        return self.rooms.pop(game_id, None) is not None

    def refresh(self, game_id: str) -> tuple[Played, ...]:
        """Entries another process appended since this one last looked (and seat changes)."""
        room = self.rooms.get(game_id)
        if room is None:
            return ()
        new = self.store.log(game_id, after=room.version)
        played = tuple(room.take(e) for e in new)
        room.set_seats(self.store.seats(game_id))
        game = self.store.game(game_id)
        if game is not None:
            room.set_game(game)
        return played

    def intent(
        self, game_id: str, token: str | None, version: int, client_id: str, text: str
    ) -> Accepted | Refused:
        """A client's intent, checked against its seat token, the player to move, the version
        it saw and the engine; applied (and stored) or refused with the reason."""
        checked = self.check_intent(game_id, token, version, client_id, text)
        return self.commit(checked) if isinstance(checked, Pending) else checked

    def check_intent(
        self, game_id: str, token: str | None, version: int, client_id: str, text: str
    ) -> Accepted | Refused | Pending:
        """An intent checked in memory, nothing stored: the answer (a refusal, or a retry
        applied before), or the ``Pending`` entries to store, then ``settle``."""
        room = self.room(game_id)
        if room.game.status == "expired":
            return Refused("expired", "this game expired without a move", version=room.version)
        try:
            seat = self.seat_of(game_id, token)
        except RoomError as exc:
            return Refused("bad_token", str(exc), version=room.version)
        if seat is None:
            return Refused("spectator", "a spectator watches: only a seated player acts")
        seen = self._seen(room, client_id)
        if seen is not None:
            return Accepted(seen, duplicate=True)
        if version != room.version:
            return Refused(
                "stale",
                f"the game has moved on since version {version} (it is at {room.version}): "
                "catch up and try again",
                version=room.version,
            )
        if room.seats[seat].away:
            self.set_away(game_id, seat, False)  # acting takes the seat back
        return self._check(room, seat, client_id, text)

    @staticmethod
    def _seen(room: Room, client_id: str) -> int | None:
        """The version an intent applied before led to: its entry and the server's rolls."""
        for played in reversed(room.played):
            if played.entry.client_id == client_id:
                seq = played.entry.seq
                while seq < room.version and _server_roll(room.played[seq].entry):
                    seq += 1
                return seq
        return None

    def _check(self, room: Room, seat: int, client_id: str, text: str) -> Refused | Pending:
        """An intent of the seat to act, checked through the engine."""
        at = stamp(self.clock())
        words = text.strip()
        if words.lower().startswith(SEED_WORD + " ") or words.lower() == SEED_WORD:
            try:
                seed = check_seed(words[len(SEED_WORD) :])
            except ZloutchError as exc:
                return Refused("invalid", str(exc), version=room.version)
            if room.over:
                return Refused("over", "the game is over", version=room.version)
            return self._pending(
                room, LogEntry(room.version + 1, f"{SEED_WORD} {seed}", at, seat, client_id)
            )
        if room.over:
            return Refused("over", "the game is over", version=room.version)
        if words.lower() == UNDO_WORD:
            # At a real table whoever keeps the score takes back a mistyped entry.
            why = room.undo_refusal()
            if why is not None:
                return Refused("illegal", why, version=room.version)
            return self._pending(room, LogEntry(room.version + 1, UNDO_WORD, at, seat, client_id))
        try:
            action = parse_action(words)
        except ZloutchError as exc:
            return Refused("invalid", str(exc), version=room.version)
        if seat not in room.acting_seats():
            return Refused("not_your_turn", self._whose_turn(room), version=room.version)
        reason = self._refusal(room, action)
        if reason is not None:
            match = RULE_ID.search(reason)
            return Refused(
                "illegal", reason, match.group(1) if match else None, version=room.version
            )
        return self._pending(room, LogEntry(room.version + 1, str(action), at, seat, client_id))

    def _pending(self, room: Room, first: LogEntry | None) -> Pending:
        """The entries of a move (and the server's rolls after it) on a copy of the room."""
        head = [first] if first else []
        probe = room.try_entries(head)
        rolls = probe.throw_dice(first.at if first else stamp(self.clock()))
        return Pending(room.game.id, room.version, (*head, *rolls), probe, self.clock())

    @staticmethod
    def _refusal(room: Room, action: Action) -> str | None:
        return action_refusal(room, action)

    @staticmethod
    def _whose_turn(room: Room) -> str:
        who = turn_player(room.state)
        return f"it is {room.state.names[who]}'s turn"

    def commit(self, pending: Pending) -> Accepted | Refused:
        """Store pending entries now (one transaction of their own) and settle them."""
        (outcome,) = self.store.append_many([pending.append])
        return self.settle(pending, outcome)

    def settle(self, pending: Pending, outcome: Exception | None) -> Accepted | Refused:
        """What became of pending entries once the store answered: stored (None), and they
        are applied to the room; or not, and the room is as it was (it never saw them)."""
        game_id = pending.game_id
        if isinstance(outcome, DuplicateIntent):
            # Applied before through another process: catch up, and answer as the first time.
            self.refresh(game_id)
            first = pending.entries[0].client_id or ""
            return Accepted(
                self._seen(self.room(game_id), first) or outcome.version, duplicate=True
            )
        if isinstance(outcome, StoreConflict):
            self.refresh(game_id)  # another process appended first: what the client saw is old
            version = self.room(game_id).version
            return Refused(
                "stale",
                f"the game has moved on (it is at {version}): catch up and try again",
                version=version,
            )
        if outcome is not None:
            # The store failed (the disk, the connection): nothing is applied, and the game
            # is read again from its log when next asked for, whatever the commit did.
            self.rooms.pop(game_id, None)
            return Refused(
                "not_stored",
                f"the server could not store this move ({type(outcome).__name__}): "
                "nothing was applied, send it again",
                version=pending.base,
            )
        room = self.rooms.get(game_id)
        if room is None or room.version != pending.base:
            # Something moved the room meanwhile (another process's entries were read): the
            # stored log, ours included, is the truth.
            room = self.room(game_id)
            self.refresh(game_id)
            seqs = {e.seq for e in pending.entries}
            played = tuple(p for p in room.played if p.entry.seq in seqs)
        else:
            room.adopt(pending.probe)
            played = tuple(room.played[pending.base :])
        if pending.probe.over:
            room.set_game(replace(room.game, status="over"))
        return Accepted(room.version, played)

    def bot_turn(self, game_id: str, version: int) -> BotTurn | None:
        """The move the server is to choose for a bot (or a person away) if it is still to
        move at ``version``; None when there is nothing to do."""
        room = self.room(game_id)
        seat = room.bot_to_move()
        if seat is None or room.version != version or room.game.status != "playing":
            return None
        bot = room.bot_for(seat) or DEFAULT_LEAVE_BOT
        # Its random choices depend on the game and the move; it sees the state, not the dice.
        return BotTurn(game_id, version, seat, bot, room.state, f"zloutch-bot:{game_id}:{version}")

    def check_bot(self, turn: BotTurn, action: Action) -> Pending | None:
        """The bot's chosen action as pending entries; None if the game moved on since."""
        room = self.room(turn.game_id)
        if room.version != turn.version or room.bot_to_move() != turn.seat:
            return None
        return self._pending(
            room, LogEntry(room.version + 1, str(action), stamp(self.clock()), turn.seat)
        )

    def bot_move(self, game_id: str, version: int) -> Accepted | None:
        """The server moves for a bot (or a person away) if it is still to move at
        ``version``; None when there is nothing to do (the game moved, another process
        played it)."""
        turn = self.bot_turn(game_id, version)
        pending = None if turn is None else self.check_bot(turn, turn.choose())
        answer = None if pending is None else self.commit(pending)
        return answer if isinstance(answer, Accepted) else None

    def check_start(self, game_id: str) -> Pending | None:
        """Dice in the air at the start (a continued record): the rolls the server throws."""
        pending = self._pending(self.room(game_id), None)
        return pending if pending.entries else None

    def start(self, game_id: str) -> Accepted | None:
        """Dice in the air at the start (a continued record): the server throws them."""
        pending = self.check_start(game_id)
        answer = None if pending is None else self.commit(pending)
        return answer if isinstance(answer, Accepted) else None

    # -- lists

    def waiting(self, tokens: Iterable[str]) -> list[tuple[str, int]]:
        """(game, seat) of the games where a token's seat is to move now."""
        found: list[tuple[str, int]] = []
        for token in tokens:
            row = self.store.seat_by_token(digest(token))
            if row is None:
                continue
            room = self.room(row.game_id)
            if room.game.status == "playing" and row.seat in room.acting_seats():
                found.append((row.game_id, row.seat))
        return found

    def expire(self, older_than: timedelta) -> tuple[str, ...]:
        """Unfinished games with no move for ``older_than`` expire (finished ones are kept)."""
        gone = self.store.expire(self.clock() - older_than)
        for game_id in gone:
            room = self.rooms.get(game_id)
            if room is not None:
                room.set_game(replace(room.game, status="expired"))
        return gone

    def legal(self, game_id: str) -> tuple[Action, ...]:
        room = self.room(game_id)
        if room.state.phase is Phase.ROLL:
            return ()
        return legal_actions(room.state)


def action_refusal(room: Room, action: Action) -> str | None:
    """Why an action cannot be played in a room now (None: it can): the engine's reason,
    and the server's dice (it throws them, except at a real table)."""
    state = room.state
    if isinstance(action, Roll) and not room.game.table_mode:
        return "the server throws the dice: send throw"
    if state.phase is Phase.ROLL and not isinstance(action, Roll):
        return f"the dice are in the air: send their faces (roll and {state.turn.rolling})"
    return why_illegal(state, action)


Refusal = tuple[str, str | None]
"""A reason and its rule id (``("you need 500 to enter the game (T-7)", "T-7")``)."""


def refusals(room: Room) -> dict[str, Refusal | None]:
    """For each kind of action of this game, why it cannot be played now (None: it can),
    for the player to move: what a client shows under its buttons. ``keep`` and ``joker``
    are None when some keep (or joker) is legal: which dice, the legal actions say."""
    state = room.state
    rules = state.rules
    t = state.turn

    def why(action: Action) -> Refusal | None:
        return _with_rule(action_refusal(room, action))

    if room.over:
        over = _with_rule("the game is over")
        kinds = ["throw", "bank", "keep"]
        kinds += ["take", "fresh"] if rules.game.take_back else []
        kinds += ["joker"] if rules.variants.joker else []
        kinds += ["roll", "off", "undo"] if room.game.table_mode else []
        return dict.fromkeys(kinds, over)
    legal = () if state.phase is Phase.ROLL else legal_actions(state)
    found: dict[str, Refusal | None] = {
        "throw": why(Throw()),
        "bank": why(Bank()),
        "keep": None if state.phase is Phase.KEEP else why(Keep((1,))),
    }
    if rules.game.take_back:
        found["take"] = why(Take())
        found["fresh"] = why(Fresh())
    if rules.variants.joker:
        jokers = any(isinstance(a, Joker) for a in legal)
        found["joker"] = None if jokers else why(Joker(t.left or (1,)))
    if room.game.table_mode:
        found["roll"] = None if state.phase is Phase.ROLL else _with_rule("no dice are rolling")
        found["off"] = why(Off())
        found["undo"] = _with_rule(room.undo_refusal())
    return found


def _with_rule(reason: str | None) -> Refusal | None:
    if reason is None:
        return None
    match = RULE_ID.search(reason)
    return (reason, match.group(1) if match else None)


def _server_roll(entry: LogEntry) -> bool:
    return entry.seat is None and entry.text.startswith("roll")


# ---------------------------------------------------------------------------- in memory


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
        self, game_id: str, entries: Sequence[LogEntry], *, over: bool, at: datetime
    ) -> None:
        log = self.logs[game_id]
        for entry in entries:
            if entry.client_id is not None:
                for old in log:
                    if old.client_id == entry.client_id:
                        raise DuplicateIntent(old.seq)
        if entries and entries[0].seq != len(log) + 1:
            raise StoreConflict()
        log.extend(entries)
        changes: dict[str, object] = {"updated_at": at}
        if over:
            changes["status"] = "over"
        self.update_game(game_id, **changes)

    def append_many(self, batch: Sequence[Append]) -> list[Exception | None]:
        outcomes: list[Exception | None] = []
        for item in batch:
            try:
                self.append(item.game_id, item.entries, over=item.over, at=item.at)
                outcomes.append(None)
            except (StoreConflict, DuplicateIntent) as exc:
                outcomes.append(exc)
        return outcomes

    def update_game(self, game_id: str, **changes: object) -> None:
        self.games[game_id] = replace(self.games[game_id], **changes)  # type: ignore[arg-type]

    def update_seat(self, game_id: str, seat: int, **changes: object) -> None:
        key = (game_id, seat)
        self.seat_rows[key] = replace(self.seat_rows[key], **changes)  # type: ignore[arg-type]

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
