"""Actions: what a player (or chance) does, with a short text notation that round-trips.

``keep 1 1 5``, ``throw``, ``bank``, ``take``, ``fresh``, ``joker 5 5``, ``off``; chance
outcomes are written ``roll 1 1 4 4 3``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from zloutch.rules.dice import MAX_DICE, Dice, format_dice, parse_dice
from zloutch.rules.errors import InvalidDiceError, ZloutchError


class InvalidActionError(ZloutchError):
    """Text that is not an action of the notation."""


class IllegalActionError(ZloutchError):
    """An action that the rules do not allow now; the message says why, with the rule id."""


@dataclass(frozen=True)
class Action:
    """Base of every action; ``str(action)`` is its notation."""

    word: ClassVar[str] = ""
    order: ClassVar[int] = 0

    def __str__(self) -> str:
        return self.word

    def sort_key(self) -> tuple[int, Dice]:
        return (self.order, ())


@dataclass(frozen=True)
class Throw(Action):
    """Throw the dice in hand (all of them at the start of a turn or after a full hand)."""

    word: ClassVar[str] = "throw"
    order: ClassVar[int] = 3


@dataclass(frozen=True)
class Fresh(Action):
    """Start a fresh turn with every die, declining the take-back offer (G-8)."""

    word: ClassVar[str] = "fresh"
    order: ClassVar[int] = 4


@dataclass(frozen=True)
class Take(Action):
    """Take back the previous player's turn: their total and their dice left (G-8)."""

    word: ClassVar[str] = "take"
    order: ClassVar[int] = 5


@dataclass(frozen=True)
class Bank(Action):
    """Stop and write the turn total on the sheet."""

    word: ClassVar[str] = "bank"
    order: ClassVar[int] = 2


@dataclass(frozen=True)
class Off(Action):
    """Table mode: a die went off the table, the turn is lost (V-1)."""

    word: ClassVar[str] = "off"
    order: ClassVar[int] = 6


@dataclass(frozen=True, repr=False)
class _WithDice(Action):
    """An action that names dice; they are kept sorted, so one notation is one value."""

    dice: Dice

    def __post_init__(self) -> None:
        object.__setattr__(self, "dice", tuple(sorted(self.dice)))

    def __str__(self) -> str:
        return f"{self.word} {format_dice(self.dice)}"

    def __repr__(self) -> str:
        """Code that builds the action again: ``Keep((1, 1, 5))``."""
        return f"{type(self).__name__}({self.dice!r})"

    def sort_key(self) -> tuple[int, Dice]:
        return (self.order, self.dice)


@dataclass(frozen=True, repr=False)
class Keep(_WithDice):
    """Set these dice of the throw aside as combinations."""

    word: ClassVar[str] = "keep"
    order: ClassVar[int] = 0


@dataclass(frozen=True, repr=False)
class Joker(_WithDice):
    """Set scoring dice of the throw aside as jokers (V-2)."""

    word: ClassVar[str] = "joker"
    order: ClassVar[int] = 1


@dataclass(frozen=True, repr=False)
class Roll(_WithDice):
    """Chance: the faces a throw showed."""

    word: ClassVar[str] = "roll"
    order: ClassVar[int] = 7


_SIMPLE: dict[str, Action] = {a.word: a for a in (Throw(), Fresh(), Take(), Bank(), Off())}
_WITH_DICE: dict[str, type[Keep] | type[Joker] | type[Roll]] = {
    "keep": Keep,
    "joker": Joker,
    "roll": Roll,
}
WORDS: tuple[str, ...] = ("keep", "throw", "bank", "take", "fresh", "joker", "off", "roll")


def parse_action(text: str, *, max_dice: int = MAX_DICE) -> Action:
    """Read an action from its notation; raises InvalidActionError with a helpful message.

    ``max_dice``: the most dice an action may name (the rule set's dice, where it is known).
    """
    words = text.strip().split(maxsplit=1)
    if not words:
        raise InvalidActionError("no action given: try keep 1 5, throw or bank")
    head = words[0].lower()
    rest = words[1] if len(words) > 1 else ""
    if head in _SIMPLE:
        if rest:
            raise InvalidActionError(f"'{head}' takes no dice")
        return _SIMPLE[head]
    if head in _WITH_DICE:
        try:
            dice = parse_dice(rest, max_dice=max_dice)
        except InvalidDiceError as exc:
            raise InvalidActionError(f"{head}: {exc}") from None
        if not dice:
            raise InvalidActionError(f"'{head}' needs dice, as in '{head} 1 5'")
        return _WITH_DICE[head](dice)
    raise InvalidActionError(
        f"unknown action {words[0]!r}: the actions are {', '.join(WORDS[:-1])}"
    )
