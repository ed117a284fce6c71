"""One game in memory (``Room``): its stored rows and its log replayed through the engine, and
what it says of itself (who acts, why an action cannot be played)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from zloutch.app.fairdice import fair_roll
from zloutch.app.rooms.rows import (
    RULE_ID,
    SEED_WORD,
    UNDO_WORD,
    GameRow,
    LogEntry,
    RoomError,
    SeatRow,
)
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
    rules_from_text,
)
from zloutch.rules import load_rules


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
        # A stored row is the server's own: a new game names a preset or keeps its rule text
        # (a client's path is refused when the game is made, ``load_preset``); a game stored
        # before that may name a rule file of the server, read as it was then.
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


def server_roll(entry: LogEntry) -> bool:
    return entry.seat is None and entry.text.startswith("roll")
