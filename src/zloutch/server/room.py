"""One game in memory (``Room``): its stored rows and its log replayed through the engine, and
what it says of itself (who acts, why an action cannot be played)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from zloutch.app.dice import CommittedDice, DiceSource, TypedDice
from zloutch.app.match import Match, Need, Refusal
from zloutch.engine import (
    CHANCE,
    TERMINAL,
    Action,
    GameState,
    current_player,
    parse_action,
    turn_player,
)
from zloutch.engine.endings import load_rules
from zloutch.engine.events import Event
from zloutch.engine.record import (
    DiceCommitment,
    PlayerSeed,
    Record,
    dump_record,
    rules_from_text,
)
from zloutch.server.rows import (
    SEED_WORD,
    UNDO_WORD,
    GameRow,
    LogEntry,
    RoomError,
    SeatRow,
)


@dataclass(frozen=True)
class Played:
    """An entry of the log with the events it caused (none for a seed)."""

    entry: LogEntry
    events: tuple[Event, ...]
    undone: tuple[str, ...] = ()
    """For an undo: the actions it took back, the last first."""


@dataclass
class Room:
    """One game on the server: its stored row and seats, and its match (``zloutch.app.match``:
    the state, the record, the dice, the refusals, the undo) with the log's entries it
    played."""

    game: GameRow
    seats: list[SeatRow]
    match: Match
    played: list[Played] = field(default_factory=list)
    revision: int = field(default=0, compare=False)
    """Counts the changes of what is shown (``touch``)."""
    memo: dict[object, tuple[int, str]] = field(default_factory=dict, repr=False, compare=False)
    """What the front ends made of this room as it stands (the state's JSON per language),
    made once for every socket and every catch-up, each with the ``revision`` it was made
    at: a text made while another thread changed the room is never served as current."""
    entry_memo: dict[tuple[int, str], tuple[tuple[str, ...], str]] = field(
        default_factory=dict, repr=False, compare=False
    )
    """The same for the entries of the log, by (seq, language), with the names they were
    worded with: an entry never changes, its players' names may (a seat renamed)."""

    @classmethod
    def rebuild(cls, game: GameRow, seats: Sequence[SeatRow], log: Sequence[LogEntry]) -> Room:
        """The game replayed from its log through the engine."""
        # A stored row is the server's own: a new game names a preset or keeps its rule text
        # (a client's path is refused when the game is made, ``load_preset``); a game stored
        # before that may name a rule file of the server, read as it was then.
        rules = (
            rules_from_text(game.rules_toml, stored=True)
            if game.rules_toml
            else load_rules(game.rules, stored=True)
        )
        record = Record(rules.spec, game.players, table_mode=game.table_mode)
        record = replace(record, rules_toml=game.rules_toml)
        dice: DiceSource = (
            TypedDice() if game.table_mode else CommittedDice(game.secret, game.first_throw)
        )
        bots = [row.seat for row in seats if row.bot is not None]
        room = cls(game, list(seats), Match(record, record.start(), dice, bots=bots))
        for entry in log:
            room.take(entry)
        return room

    # -- the match

    @property
    def state(self) -> GameState:
        return self.match.state

    @property
    def record(self) -> Record:
        return self.match.record

    @property
    def version(self) -> int:
        return len(self.played)

    @property
    def seeds(self) -> tuple[PlayerSeed, ...]:
        """The seeds the players added to the dice."""
        dice = self.match.dice
        return dice.seeds if isinstance(dice, CommittedDice) else ()

    def touch(self) -> None:
        """Something shown changed (a move, a seat, the game's status): forget the memo."""
        self.revision += 1
        self.memo.clear()

    def set_game(self, game: GameRow) -> None:
        """The game's row as stored now; where a player was renamed (``players``), the
        match too, and the log's entries are worded again with the new names."""
        if game.players != self.match.record.players:
            self.match.rename(game.players)
            self.entry_memo.clear()
        self.game = game
        self.touch()

    def set_seat(self, row: SeatRow) -> None:
        self.seats[row.seat] = row
        self.touch()

    def seat_entries(self) -> list[dict[str, object]]:
        """The seats as every client is shown them (no code, no token): a person's name or a
        bot, away, taken (a bot, or a person who opened their invitation)."""
        return [
            {
                "seat": s.seat,
                "name": s.name,
                "bot": s.bot,
                "away": s.away,
                "taken": s.bot is not None or s.token_hash is not None,
            }
            for s in self.seats
        ]

    def set_seats(self, rows: Sequence[SeatRow]) -> None:
        self.seats = list(rows)
        self.touch()

    def take(self, entry: LogEntry, action: Action | None = None) -> Played:
        """Add an entry of the log (already stored, or about to be). ``action``: the entry's
        action, already checked (``Match.refusal``) or drawn by the match, applied as it is;
        without it the entry is read back and the engine checks it (a stored log)."""
        if entry.seq != self.version + 1:
            raise RoomError(f"log of {self.game.id}: entry {entry.seq} after {self.version}")
        self.touch()
        match = self.match
        if entry.text == UNDO_WORD:
            played = Played(entry, (), match.undo())
        elif entry.text.startswith(SEED_WORD + " "):
            seat = entry.seat if entry.seat is not None else -1
            if isinstance(match.dice, CommittedDice):
                seed = entry.text[len(SEED_WORD) + 1 :]
                match.dice = match.dice.with_seed(seat, seed, match.throws)
            played = Played(entry, ())
        elif action is not None:
            played = Played(entry, match.apply_legal(action, at=entry.at))
        else:
            played = Played(entry, match.replay(parse_action(entry.text), at=entry.at))
        self.played.append(played)
        return played

    def person_acts(self) -> bool:
        """A person acts now: a person's move, or real dice to type in."""
        return self.match.person_acts()

    def undo_refusal(self) -> str | None:
        """Why the last entry cannot be taken back now (None: it can). A game over at a real
        table reopens with an undo (a winning throw typed wrong), until its rematch exists:
        then its result stands (the players have moved on to the next game)."""
        if self.over and self.game.rematch is not None and self.game.table_mode:
            return "the rematch has started: this game's result stands"
        return self.match.undo_refusal()

    def try_entries(
        self, entries: Sequence[LogEntry], actions: Sequence[Action | None] = ()
    ) -> Room:
        """A copy with entries added (the room itself is unchanged until they are stored);
        ``actions``: theirs, already checked (see ``take``)."""
        copy = Room(self.game, list(self.seats), self.match.copy(), list(self.played))
        for i, entry in enumerate(entries):
            copy.take(entry, actions[i] if i < len(actions) else None)
        return copy

    # -- questions

    @property
    def over(self) -> bool:
        return self.match.over

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
        """The commitment and the seeds; the secret once the game is over or expired (it
        plays no more: its throws may be checked, ``zloutch verify``)."""
        secret = self.game.secret if self.over or self.game.status == "expired" else None
        return DiceCommitment(self.game.commitment, secret, self.seeds, self.game.first_throw)

    def full_record(self) -> Record:
        if self.game.table_mode:
            return self.record
        return replace(self.record, dice=(self.dice(),))

    def record_text(self) -> str:
        return dump_record(self.full_record(), self.state)

    def throw_dice(self, at: str) -> list[LogEntry]:
        """The server's rolls while the dice are in the air, taken into this room (a copy's,
        see ``try_entries``); none at a real table, where the faces are typed in. Drawn by
        the match, they are not checked again."""
        entries: list[LogEntry] = []
        while self.match.need() is Need.DICE:
            roll = self.match.draw()
            entry = LogEntry(self.version + 1, str(roll), at)
            self.take(entry, roll)
            entries.append(entry)
        return entries

    def adopt(self, probe: Room) -> None:
        """Stand where a copy of this room stands, its entries now stored (no replay)."""
        self.match, self.played = probe.match, list(probe.played)
        self.touch()


def refusals(room: Room) -> dict[str, Refusal | None]:
    """For each kind of action of this game, why it cannot be played now (None: it can), for
    the player to move: what a client shows under its buttons (``Match.refusals``)."""
    found = room.match.refusals()
    if "undo" in found:
        found["undo"] = Refusal.of(room.undo_refusal())
    return found


def server_roll(entry: LogEntry) -> bool:
    return entry.seat is None and entry.text.startswith("roll")
