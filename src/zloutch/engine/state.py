"""Immutable game state: the sheet, the turn in progress, and where the game stands."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import MISSING, dataclass, replace
from dataclasses import fields as dataclass_fields
from enum import Enum
from typing import Any, Generic, TypeVar, overload

from zloutch.rules.dice import Dice, Face, format_dice
from zloutch.rules.ruleset import RuleSet

CHANCE = -1
"""``current_player`` while dice are rolling: chance decides."""
TERMINAL = -2
"""``current_player`` once the game is over."""

_Frozen = TypeVar("_Frozen")


def build(cls: type[_Frozen], values: dict[str, Any]) -> _Frozen:
    """An instance of the frozen dataclass ``cls`` (one with a ``__dict__``, as
    ``PlayerSheet``) whose attributes are ``values``.

    ``values`` names every field (and nothing else but the keys of its derived facts): the
    object is the one ``cls(**values)`` builds, without the per-field ``object.__setattr__``
    calls of a frozen dataclass's ``__init__``. The engine builds sheets this way; the
    slotted ``GameState`` and ``TurnState`` are built on drafts (``game_draft``).
    """
    new = object.__new__(cls)
    object.__setattr__(new, "__dict__", values)
    return new


_Value = TypeVar("_Value")


class _derived(Generic[_Value]):
    """``functools.cached_property`` without its lock: the value is worked out on the first
    read and kept in the instance's ``__dict__``, where later reads find it. (Python 3.11's
    cached_property takes a lock at every first read, which costs more than the value.)
    Two threads may both work a value out; both get the same one: it is a pure function of
    the fields."""

    def __init__(self, compute: Callable[[Any], _Value]) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _derived[_Value]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _Value: ...
    def __get__(self, obj: object | None, owner: type | None = None) -> _derived[_Value] | _Value:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.compute(obj)
        return value


class Phase(Enum):
    """Where the turn stands."""

    START = "start"
    """The turn begins: throw, or take back / start fresh when offered."""
    ROLL = "roll"
    """Dice are in the air: a chance node."""
    KEEP = "keep"
    """A throw that scores is on the table: choose what to keep."""
    DECIDE = "decide"
    """After a keep: bank, throw again, or set jokers aside."""
    OVER = "over"


@dataclass(frozen=True)
class Level:
    """One line of a player's column on the sheet."""

    value: int
    crossed: bool = False
    pp: bool = False
    """A petit palier: a bank of exactly 100 (T-8)."""
    ticks: int = 0
    """Ticks written beside this level."""
    penalty: bool = False
    """Written by a penalty (F-1's farkles in a row, or ``fresh_farkle_penalty``), not by a
    bank."""


@dataclass(frozen=True)
class PlayerSheet:
    """A player's column: the levels written, and the counts the rules keep.

    What it derives from its levels (``current_index``, ``score``, ``entered``...) is worked
    out once per sheet and kept (``_derived``): a sheet lives through many states.
    """

    name: str
    levels: tuple[Level, ...] = ()
    ticks: int = 0
    """Ticks since the current level became current (G-3: crossing at ticks_to_cross)."""
    loose_ticks: int = 0
    """Ticks of a player with no level: they cross nothing (G-3 Reading)."""
    farkles_in_row: int = 0
    """Consecutive farkles since the last bank or penalty (F-1)."""

    @_derived
    def current_index(self) -> int | None:
        """Index of the current level: the last one not crossed."""
        for i in range(len(self.levels) - 1, -1, -1):
            if not self.levels[i].crossed:
                return i
        return None

    @_derived
    def score(self) -> int:
        """The current level's value (0 with no level)."""
        i = self.current_index
        return self.levels[i].value if i is not None else 0

    @_derived
    def entered(self) -> bool:
        """Whether the player has a banked level standing (T-7: else the entry applies).

        A level written by the F-1 penalty is no bank: it does not enter a player.
        """
        return any(not lv.crossed and not lv.penalty for lv in self.levels)

    @_derived
    def entered_once(self) -> bool:
        """Whether the player has ever banked (T-7 with ``reentry`` off: entered for good).

        A bank writes a level that is not a penalty, and levels are never erased."""
        return any(not lv.penalty for lv in self.levels)

    @_derived
    def current_ticks(self) -> int:
        """The ticks that count toward a crossing now (G-3): beside the current level, or the
        loose ticks of a player with no level, which cross nothing."""
        return self.ticks if self.current_index is not None else self.loose_ticks

    def write(self, level: Level) -> PlayerSheet:
        """A new current level: ticks restart (G-3 Reading)."""
        return replace(self, levels=(*self.levels, level), ticks=0)


@dataclass(frozen=True)
class TakeBackOffer:
    """A bank with dice left on the table, which the next player may continue (G-8)."""

    total: int
    dice: int
    set_aside: Dice
    multiples: tuple[Face, ...] = ()


@dataclass(frozen=True, slots=True)
class TurnState:
    """The turn in progress.

    Slotted: the engine builds one at almost every move, through its draft (``turn_draft``).
    """

    player: int
    total: int = 0
    """Points kept this turn, inherited points included."""
    set_aside: Dice = ()
    """Dice kept since the hand began (since the last full hand)."""
    multiples: tuple[Face, ...] = ()
    """Faces of multiples set aside in this hand (V-7)."""
    jokers: Dice = ()
    joker_points: int = 0
    rolling: int = 0
    """How many dice the pending roll throws."""
    joker_roll: bool = False
    """The pending roll (or the throw on the table) is a throw of the jokers (V-2)."""
    throw: Dice = ()
    """The last throw."""
    left: Dice = ()
    """Dice of the last throw not kept."""
    full_hand: bool = False
    pending: bool = False
    """A figure waits for confirmation (V-1)."""
    best_throw: int = 0
    """Points of the best single throw this turn (T-7 entry by throw)."""
    inherited: int = 0
    """Points taken back from the previous player (G-8)."""
    rethrow: bool = False
    """The last keep was the no-score bonus: all the dice are thrown again (F-2)."""

    def __getstate__(self) -> dict[str, Any]:
        """Pickled by field name (as before turns were slotted: those pickles still load)."""
        return {name: getattr(self, name) for name in TURN_FIELDS}

    def __setstate__(self, fields: dict[str, Any]) -> None:
        _restore(self, fields)


@dataclass(frozen=True)
class FinalRoundState:
    """The end of the game is near: who reached the target, and where the game stops."""

    holder: int
    stop_before: int
    """The game ends when the turn would pass to this seat."""


class _Derived:
    """The slots in which a ``GameState`` keeps what the engine derives from it (``DERIVED``):
    its legal actions, the reading of the throw on the table, the throw tables of its rule
    set. None until derived. They are functions of the fields alone: never compared, hashed,
    shown or pickled."""

    __slots__ = ("_legal", "_tables", "_throw")
    _legal: Any
    """The legal actions (``legal_actions``)."""
    _tables: Any
    """The throw tables of the rule set (``zloutch.engine.throws.Throws``)."""
    _throw: Any
    """The throw on the table read in the hand's context (``ThrowFacts``)."""


@dataclass(frozen=True, slots=True, repr=False)
class GameState(_Derived):
    """A whole game at one moment. Build with ``new_game``; change with ``apply``.

    Its repr says what it is in one line, not as code (a state is built by playing):
    ``<GameState farkle: Ana 600, Bob 0; Bob to throw>``.

    A state keeps what the engine derives from it, once derived, in private slots
    (``DERIVED``, see ``_Derived``). A state built from another (``dataclasses.replace``, the
    engine's moves) derives its own; the engine's moves pass on the rule set's tables.

    Slotted, and built by the engine through its draft (``game_draft``): a move builds one,
    and a slotted state is several times cheaper to build than one with a ``__dict__``.
    """

    rules: RuleSet
    sheets: tuple[PlayerSheet, ...]
    turn: TurnState
    phase: Phase = Phase.START
    offer: TakeBackOffer | None = None
    final: FinalRoundState | None = None
    winners: tuple[int, ...] = ()
    table_mode: bool = False
    """Dice are real (``zloutch table``): the ``off`` action exists."""
    turns: int = 0
    """Turns started so far."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.sheets)

    def renamed(self, names: Sequence[str]) -> GameState:
        """The same game with its players called ``names``, one a seat (a person seated by
        an invitation who gave their own name): only the sheets' names change."""
        if len(names) != len(self.sheets):
            raise ValueError(f"{len(names)} names for {len(self.sheets)} players")
        if tuple(names) == self.names:
            return self
        sheets = tuple(replace(s, name=n) for s, n in zip(self.sheets, names, strict=True))
        return replace(self, sheets=sheets)

    @property
    def offered_by(self) -> int | None:
        """The seat that banked and left the dice of a take-back offer (G-8): the offer goes
        to the next player, so it is the seat before the player to move. None: no offer."""
        if self.offer is None:
            return None
        return (self.turn.player - 1) % len(self.sheets)

    def entered(self, seat: int) -> bool:
        """Whether the entry minimum (T-7) no longer applies to a player.

        A player with a banked level standing has entered; with ``reentry`` off (T-7
        Reading) a player who once banked stays entered even when every level is crossed.
        """
        sheet = self.sheets[seat]
        return sheet.entered or (not self.rules.game.reentry and sheet.entered_once)

    @property
    def in_hand(self) -> int:
        """Dice a throw would roll now (all of them after a full hand)."""
        if self.turn.full_hand:
            return self.rules.dice
        return self.rules.dice - len(self.turn.set_aside) - len(self.turn.jokers)

    def __post_init__(self) -> None:
        _no_derived(self)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle the fields only: derived facts are worked out again where needed."""
        return {name: getattr(self, name) for name in GAME_FIELDS}

    def __setstate__(self, fields: dict[str, Any]) -> None:
        _restore(self, fields)
        _no_derived(self)

    def __repr__(self) -> str:
        scores = ", ".join(f"{s.name} {s.score}" for s in self.sheets)
        return f"<GameState {self.rules.spec}: {scores}; {self._where()}>"

    def _where(self) -> str:
        """Where the game stands, in words: who is to do what."""
        t = self.turn
        who = self.sheets[t.player].name
        so_far = f" ({t.total} this turn)" if t.total else ""
        if self.phase is Phase.OVER:
            won = " and ".join(self.sheets[w].name for w in self.winners) or "nobody"
            return f"over, {won} won"
        if self.phase is Phase.START:
            if self.offer is not None:
                offered = _dice(self.offer.dice)
                return f"{who} to take {self.offer.total} with {offered} or start fresh"
            return f"{who} to throw"
        if self.phase is Phase.ROLL:
            return f"{_dice(t.rolling)} rolling for {who}{so_far}"
        if self.phase is Phase.KEEP:
            return f"{who} to keep from {format_dice(t.throw)}{so_far}"
        return f"{who} holds {t.total}, {_dice(self.in_hand)} in hand"


DERIVED = _Derived.__slots__
"""The private slots in which a ``GameState`` keeps what the engine derived from it."""
GAME_FIELDS: tuple[str, ...] = GameState.__slots__
"""The fields of a ``GameState``, in order."""
TURN_FIELDS: tuple[str, ...] = TurnState.__slots__
"""The fields of a ``TurnState``, in order."""


def _restore(value: Any, fields: dict[str, Any]) -> None:
    """Unpickle a slotted dataclass from its fields by name: a field the pickle lacks (one
    added since) takes its default; a name that is no field any more is left out."""
    for f in dataclass_fields(value):
        if f.name in fields:
            object.__setattr__(value, f.name, fields[f.name])
        elif f.default is not MISSING:
            object.__setattr__(value, f.name, f.default)
        elif f.default_factory is not MISSING:
            object.__setattr__(value, f.name, f.default_factory())
        else:
            raise TypeError(f"a pickled {type(value).__name__} without its field {f.name!r}")


def _no_derived(state: GameState) -> None:
    for name in DERIVED:
        object.__setattr__(state, name, None)


# ------------------------------------------------------------------------------ drafts
# A frozen slotted dataclass is built by its ``__init__`` through one ``object.__setattr__``
# per field, which costs more than the rest of a move. The engine builds its states on a
# *draft* instead: an instance of a plain class with the very same slots, filled by ordinary
# attribute writes, then made a ``GameState`` (or ``TurnState``) by assigning its class
# (Python allows it between classes of one memory layout). The object is the one the
# constructor builds; equality, hashing, ``repr`` and pickling read the fields as ever.
# Only the engine's moves use drafts (``zloutch.engine.game``), and every field is written
# before the class is assigned.


class GameDraft(_Derived):
    """A ``GameState`` being built: the same slots, writable. See ``game_draft``."""

    __slots__ = GAME_FIELDS
    rules: RuleSet
    sheets: tuple[PlayerSheet, ...]
    turn: TurnState
    phase: Phase
    offer: TakeBackOffer | None
    final: FinalRoundState | None
    winners: tuple[int, ...]
    table_mode: bool
    turns: int


class TurnDraft:
    """A ``TurnState`` being built: the same slots, writable. See ``turn_draft``."""

    __slots__ = TURN_FIELDS
    player: int
    total: int
    set_aside: Dice
    multiples: tuple[Face, ...]
    jokers: Dice
    joker_points: int
    rolling: int
    joker_roll: bool
    throw: Dice
    left: Dice
    full_hand: bool
    pending: bool
    best_throw: int
    inherited: int
    rethrow: bool


_new = object.__new__


def game_draft(state: GameState) -> GameDraft:
    """A draft of the state after ``state``: its fields and its rule set's tables, nothing
    else derived. Write what changes, then ``done(draft)``."""
    d: GameDraft = _new(GameDraft)
    d.rules = state.rules
    d.sheets = state.sheets
    d.turn = state.turn
    d.phase = state.phase
    d.offer = state.offer
    d.final = state.final
    d.winners = state.winners
    d.table_mode = state.table_mode
    d.turns = state.turns
    d._legal = None
    d._throw = None
    d._tables = state._tables
    return d


def done(draft: GameDraft) -> GameState:
    """The state a draft stands for (the draft is that state from now on: do not write it)."""
    draft.__class__ = GameState  # type: ignore[assignment]
    return draft  # type: ignore[return-value]


def turn_draft(t: TurnState) -> TurnDraft:
    """A draft of a turn with ``t``'s fields. Write what changes, then ``turn_done(draft)``."""
    d: TurnDraft = _new(TurnDraft)
    d.player = t.player
    d.total = t.total
    d.set_aside = t.set_aside
    d.multiples = t.multiples
    d.jokers = t.jokers
    d.joker_points = t.joker_points
    d.rolling = t.rolling
    d.joker_roll = t.joker_roll
    d.throw = t.throw
    d.left = t.left
    d.full_hand = t.full_hand
    d.pending = t.pending
    d.best_throw = t.best_throw
    d.inherited = t.inherited
    d.rethrow = t.rethrow
    return d


def turn_done(draft: TurnDraft) -> TurnState:
    """The turn a draft stands for (the draft is that turn from now on: do not write it)."""
    draft.__class__ = TurnState  # type: ignore[assignment]
    return draft  # type: ignore[return-value]


def evolve(state: GameState, **changes: Any) -> GameState:
    """``dataclasses.replace(state, **changes)`` on a draft: the rule set's tables are passed
    on (unless the rules change), nothing else derived. For the moves that change more than
    the turn and the phase."""
    d = game_draft(state)
    if "rules" in changes:
        d._tables = None
    for name, value in changes.items():
        setattr(d, name, value)
    return done(d)


def _dice(count: int) -> str:
    return f"{count} {'die' if count == 1 else 'dice'}"


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game (G-9)."""

    winners: tuple[int, ...]
    ranking: tuple[tuple[int, int], ...]
    """(seat, rank) pairs, best first; tied scores share a rank."""
    kicks: tuple[tuple[int, int, int], ...]
    """(seat, kicks given, kicks taken): the n-th of N gives N - n and takes n - 1; tied
    players kick neither way (each kicks those ranked below, is kicked by those above)."""
