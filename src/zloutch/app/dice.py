"""Where the dice of a game come from: a seed, a file of throws, or a person typing.

Every source answers ``draw(state, index)`` with the roll of the dice in the air; real dice
(``TypedDice``) are typed in by a person instead, through the session.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from zloutch.engine import GameState, Roll
from zloutch.engine.record import roll
from zloutch.rules import Dice, InvalidDiceError, ZloutchError, format_dice, parse_dice


class DiceFileError(ZloutchError):
    """A file of throws with a line that cannot be thrown (the message names the line)."""


class DiceExhaustedError(ZloutchError):
    """A file of throws that has no throw left."""


class UnreadableFileError(ZloutchError):
    """A file named on the command line that cannot be read."""


class DiceSource(Protocol):
    """Where the faces of a throw come from."""

    @property
    def typed(self) -> bool:
        """True when a person types the faces of real dice (nothing is drawn)."""
        ...

    def draw(self, state: GameState, index: int) -> Roll:
        """The roll of the dice in the air; ``index`` is the number of actions so far."""
        ...

    def undraw(self, count: int) -> None:
        """Put back the last ``count`` throws drawn (undo)."""
        ...


def fresh_seed() -> int:
    """A seed for a game nobody fixed one for (written in its record)."""
    return random.SystemRandom().randrange(2**31)


@dataclass
class SeededDice:
    """Random dice from a seed: the throw at each point of the game depends only on the seed
    and the number of actions before it, so a resumed game throws what it would have thrown.
    """

    seed: int
    typed: bool = False

    def draw(self, state: GameState, index: int) -> Roll:
        return roll(state, random.Random(f"zloutch-dice:{self.seed}:{index}"))

    def undraw(self, count: int) -> None:
        pass


@dataclass
class ScriptedDice:
    """Throws from a file: one throw per line, faces separated by spaces.

    Blank lines and lines starting with ``#`` are skipped; the line numbers in messages are
    the file's own.
    """

    name: str
    throws: tuple[tuple[int, Dice], ...]
    position: int = 0
    typed: bool = False

    @classmethod
    def from_text(cls, text: str, name: str) -> ScriptedDice:
        throws: list[tuple[int, Dice]] = []
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                throws.append((number, parse_dice(line.split())))
            except InvalidDiceError as exc:
                raise DiceFileError(f"{name} line {number}: {exc}") from None
        return cls(name, tuple(throws))

    @classmethod
    def from_file(cls, path: str) -> ScriptedDice:
        return cls.from_text(read_text(path, "dice file"), path)

    def draw(self, state: GameState, index: int) -> Roll:
        if self.position >= len(self.throws):
            raise DiceExhaustedError(
                f"the dice file {self.name} has no more throws "
                f"(all {len(self.throws)} used): the game stops here"
            )
        number, dice = self.throws[self.position]
        wanted = state.turn.rolling
        if len(dice) != wanted:
            raise DiceFileError(
                f"{self.name} line {number}: {count_dice(len(dice))} ({format_dice(dice)}), "
                f"but {count_dice(wanted)} {'is' if wanted == 1 else 'are'} thrown now"
            )
        self.position += 1
        return Roll(dice)

    def undraw(self, count: int) -> None:
        self.position = max(0, self.position - count)


@dataclass
class TypedDice:
    """Real dice: a person types the faces (``zloutch table``)."""

    typed: bool = True

    def draw(self, state: GameState, index: int) -> Roll:  # pragma: no cover - never asked
        raise ZloutchError("the faces of real dice are typed in")

    def undraw(self, count: int) -> None:
        pass


def choose_dice(
    *, dice_file: str | None, seed: int | None, table_mode: bool, record_seed: int | None = None
) -> DiceSource:
    """A file of throws first, then a seed; real dice at a table; else a fresh seed."""
    if dice_file is not None:
        return ScriptedDice.from_file(dice_file)
    if seed is not None:
        return SeededDice(seed)
    if table_mode:
        return TypedDice()
    return SeededDice(record_seed if record_seed is not None else fresh_seed())


def read_text(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UnreadableFileError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UnreadableFileError(f"cannot read the {what} {path}: it is not text") from None


def count_dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"
