"""One game in progress, for every front end: ``Match``.

A match holds the engine's state and the game's record, the dice it throws (a committed
secret, a seed, a file of throws, or real dice whose faces a person gives). It answers the
questions every front end asks (who acts, what they may do, why an action cannot be played
now, per kind of action for the buttons) and makes the changes (an action, a throw of its
dice, an undo at a real table). The terminal session (``zloutch.app.session``: the log's
lines, the bots, saving to a file) and the server's room (``zloutch.server.room``: seats,
tokens, versions, the store) wrap a match; none of them decides a rule or words a refusal of
its own.

Nothing here decides a rule either: the engine does (``why_illegal``, ``legal_actions``,
``step``). A match adds only what the dice of a front end imply: dice thrown by the game are
not typed in, and while real dice are in the air their faces come first (or a die falls off
the table, V-1 Reading).

An action is checked once: ``play`` asks ``refusal``, then applies it with ``step_legal``;
``apply_legal`` applies an action a caller has already checked (a roll the match drew, an
intent a server refused nothing to), and ``replay`` one read back from a log (checked by the
engine, as anything read from outside is).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum

from zloutch.app.dice import DiceSource
from zloutch.engine import (
    CHANCE,
    GAME_OVER,
    TERMINAL,
    Action,
    Bank,
    Fresh,
    GameState,
    IllegalActionError,
    Joker,
    Keep,
    Off,
    Phase,
    Roll,
    Take,
    Throw,
    current_player,
    legal_actions,
    step,
    step_legal,
    why_illegal,
)
from zloutch.engine.events import Event
from zloutch.engine.record import Record, count_throws

BOT_PREFIX = "bot:"
"""A player named ``bot:LEVEL`` (or ``bot:NAME``, see ``zloutch.strategy.bots``) is a bot."""

RULE_ID = re.compile(r"\(([STGVF]-\d+)\)")
"""A rule's id in a reason: ``(T-7)``."""

UNDO = "undo"
"""The word of an undo in a server's log."""


class Need(Enum):
    """What the game waits for."""

    PERSON = "person"
    BOT = "bot"
    DICE = "dice"
    """Dice in the air that the match draws (a secret, a seed, a file)."""
    TYPED_DICE = "typed dice"
    """Dice in the air whose faces a person gives (real dice)."""
    OVER = "over"


@dataclass(frozen=True)
class Refusal:
    """Why an action cannot be played now, and the id of the rule that says so (if any)."""

    reason: str
    rule: str | None

    @classmethod
    def of(cls, reason: str | None) -> Refusal | None:
        if reason is None:
            return None
        found = RULE_ID.search(reason)
        return cls(reason, found.group(1) if found else None)


class NothingToUndoError(IllegalActionError):
    """An undo that cannot be played now (not at a real table, or nothing played yet)."""


class Match:
    """One game in progress: its state, its record and its dice.

    ``bots`` are the seats no person plays (by default the players named ``bot:...``): an
    undo takes back their moves with the last thing a person typed.
    """

    def __init__(
        self,
        record: Record,
        state: GameState,
        dice: DiceSource,
        *,
        bots: Sequence[int] | None = None,
    ) -> None:
        self.record = record
        self.state = state
        self.dice = dice
        if bots is None:
            bots = [s for s, name in enumerate(record.players) if is_bot_name(name)]
        self.bots = frozenset(bots)
        self.throws = count_throws(record.actions)
        """The rolls of the game so far: the index of the next one (computer dice)."""
        self.previous = state
        """The state before the last change (to show what it changed)."""
        self.last_events: tuple[Event, ...] = ()

    def copy(self) -> Match:
        """A match standing where this one stands, that changes on its own."""
        other = copy.copy(self)
        other.dice = copy.copy(self.dice)
        return other

    def rename(self, names: Sequence[str]) -> None:
        """Call the players ``names``, one a seat: the record, the state and the state before
        the last change (nothing of the game itself changes)."""
        self.record = replace(self.record, players=tuple(names))
        self.state = self.state.renamed(names)
        self.previous = self.previous.renamed(names)

    # -- questions

    @property
    def names(self) -> tuple[str, ...]:
        return self.state.names

    @property
    def over(self) -> bool:
        return self.state.phase is Phase.OVER

    @property
    def table_mode(self) -> bool:
        return self.state.table_mode

    def need(self) -> Need:
        """What the game waits for now."""
        who = current_player(self.state)
        if who == TERMINAL:
            return Need.OVER
        if who == CHANCE:
            return Need.TYPED_DICE if self.dice.typed else Need.DICE
        return Need.BOT if who in self.bots else Need.PERSON

    def person_acts(self) -> bool:
        """A person acts now: a person's move, or the faces of real dice to give."""
        return self.need() in (Need.PERSON, Need.TYPED_DICE)

    def legal(self) -> tuple[Action, ...]:
        """The actions a player may take now, sorted: the engine's legal actions less the
        chance rolls (a die off the table while real dice are in the air stays)."""
        if self.state.phase is Phase.ROLL:
            return tuple(a for a in legal_actions(self.state) if not isinstance(a, Roll))
        return legal_actions(self.state)

    def refusal(self, action: Action, state: GameState | None = None) -> str | None:
        """Why an action cannot be played now, or in ``state`` (None: it can).

        The engine's reason, and what the dice imply: dice the game throws are not typed in,
        and while real dice are in the air their faces come first (or a die off the table).
        """
        if state is None:
            state = self.state
        if state.phase is Phase.OVER:
            return why_illegal(state, action)
        if isinstance(action, Roll) and not self.dice.typed:
            return "the game throws these dice: there are no faces to give"
        if state.phase is Phase.ROLL and not isinstance(action, Roll | Off):
            n = state.turn.rolling
            return f"the dice are in the air: give their faces first ({n} in the air)"
        return why_illegal(state, action)

    def refused(self, action: Action) -> Refusal | None:
        """``refusal`` with the rule's id."""
        return Refusal.of(self.refusal(action))

    def undo_refusal(self) -> str | None:
        """Why the last entry cannot be taken back now (None: it can). At a real table the
        end of the game is no exception: a winning throw typed wrong is taken back as any
        other entry, and the game goes on from before it."""
        if not self.state.table_mode:
            return GAME_OVER if self.over else "undo exists only at a real table (real dice)"
        if not self.record.actions:
            return "there is nothing to undo"
        return None

    def refusals(self) -> dict[str, Refusal | None]:
        """For each kind of action of this game, why it cannot be played now (None: it can),
        for the player to move: what a front end shows beside its buttons. ``keep`` and
        ``joker`` are None when some keep (or joker) is legal: which dice, ``legal`` says."""
        state = self.state
        rules = state.rules
        kinds = ["throw", "bank", "keep"]
        kinds += ["take", "fresh"] if rules.game.take_back else []
        kinds += ["joker"] if rules.variants.joker else []
        kinds += ["roll", "off", "undo"] if state.table_mode else []
        if self.over:
            ended: dict[str, Refusal | None] = dict.fromkeys(kinds, Refusal.of(GAME_OVER))
            if state.table_mode:
                ended["undo"] = Refusal.of(self.undo_refusal())
            return ended
        legal = self.legal()
        found: dict[str, Refusal | None] = {
            "throw": self.refused(Throw()),
            "bank": self.refused(Bank()),
            "keep": None if state.phase is Phase.KEEP else self.refused(Keep((1,))),
        }
        if rules.game.take_back:
            found["take"] = self.refused(Take())
            found["fresh"] = self.refused(Fresh())
        if rules.variants.joker:
            jokers = any(isinstance(a, Joker) for a in legal)
            left = state.turn.left or (1,)
            found["joker"] = None if jokers else self.refused(Joker(left))
        if state.table_mode:
            rolling = state.phase is Phase.ROLL
            found["roll"] = None if rolling else Refusal.of("no dice are rolling")
            found["off"] = self.refused(Off())
            found["undo"] = Refusal.of(self.undo_refusal())
        return found

    # -- changes

    def play(self, action: Action, *, at: str | None = None) -> tuple[Event, ...]:
        """Play an action for whoever acts; raises IllegalActionError with the reason."""
        reason = self.refusal(action)
        if reason is not None:
            raise IllegalActionError(reason)
        return self.apply_legal(action, at=at)

    def first_refusal(self, actions: Sequence[Action]) -> tuple[GameState, Action, str] | None:
        """The first of actions played in turn from now that cannot be played: the state it
        was tried in, the action and why."""
        state = self.state
        for i, action in enumerate(actions):
            reason = self.refusal(action, state)
            if reason is not None:
                return state, action, reason
            if i + 1 < len(actions):
                state, _ = step_legal(state, action)
        return None

    def apply_legal(self, action: Action, *, at: str | None = None) -> tuple[Event, ...]:
        """Apply an action already checked (``refusal`` passed it, or the match drew it):
        not checked again. ``at``: when it was played, kept in the record."""
        state, events = step_legal(self.state, action)
        self._moved(action, state, events, at)
        return events

    def replay(self, action: Action, *, at: str | None = None) -> tuple[Event, ...]:
        """Apply an action read back from a log: the engine checks it (raises if illegal)."""
        state, events = step(self.state, action)
        self._moved(action, state, events, at)
        return events

    def draw(self) -> Roll:
        """The roll of the dice in the air, from the match's dice (not for real dice)."""
        return self.dice.draw(self.state, len(self.record.actions), self.throws)

    def roll(self, *, at: str | None = None) -> tuple[Event, ...]:
        """Throw the dice in the air from the secret, the seed or the file."""
        return self.apply_legal(self.draw(), at=at)

    def undo(self) -> tuple[str, ...]:
        """Take back the last action at a real table, and those before it that no person
        typed (the bots'), by replaying the record without them; the actions taken back,
        the last first. Raises NothingToUndoError when there is nothing to take back."""
        why = self.undo_refusal()
        if why is not None:
            raise NothingToUndoError(why)
        actions, times = list(self.record.actions), list(self.record.times)
        removed: list[str] = []
        before = self.state
        while actions:
            removed.append(actions.pop())
            if times:
                times.pop()
            self.record = replace(self.record, actions=tuple(actions), times=tuple(times))
            self.state = self.record.replay()
            if self.person_acts():
                break
        self.throws = count_throws(self.record.actions)
        self.dice.undraw(count_throws(removed))
        self.previous, self.last_events = before, ()
        return tuple(removed)

    def _moved(
        self, action: Action, state: GameState, events: tuple[Event, ...], at: str | None
    ) -> None:
        self.previous, self.state = self.state, state
        self.record = self.record.extended([action], [at] if at is not None else ())
        self.throws += isinstance(action, Roll)
        self.last_events = events


def undone_words(actions: Sequence[str]) -> list[str]:
    """Actions taken back, as the front ends say them: a typed throw (the action
    ``roll 2 5 5``) is a throw, as everywhere else people read (``throw 2 5 5``)."""
    return [f"throw {a[len('roll ') :]}" if a.startswith("roll ") else a for a in actions]


def is_bot_name(name: str) -> bool:
    """Whether a player's name calls for a bot (``bot:medium``)."""
    return name.lower().startswith(BOT_PREFIX)
