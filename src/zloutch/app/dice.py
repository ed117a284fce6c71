"""Where the dice of a game come from: a committed secret, a seed, a file of throws, or a
person typing.

Every source answers ``draw(state, actions, throws)`` with the roll of the dice in the air;
real dice (``TypedDice``) are typed in by a person instead, through the match
(``zloutch.app.match``). Each source says how
its throws are written in the record (``segment``): computer dice nobody can know before
they are thrown (``CommittedDice``, the default) as a commitment to their secret; a seed
asked for (``SeededDice``, ``--seed``), a file (``ScriptedDice``, ``--dice``) and real dice
as what they are, which nothing can check.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Protocol

from zloutch.app.fairdice import commitment_of, fair_roll, new_secret
from zloutch.engine import GameState, Roll
from zloutch.engine.record import (
    FILE_SCHEME,
    REAL_SCHEME,
    SEED_SCHEME,
    DiceCommitment,
    DiceSegment,
    PlayerSeed,
    UncommittedDice,
    roll,
)
from zloutch.rules import Dice, InvalidDiceError, RuleSet, ZloutchError, format_dice, parse_dice


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

    def draw(self, state: GameState, actions: int, throws: int) -> Roll:
        """The roll of the dice in the air; ``actions`` is the number of actions of the game so
        far, ``throws`` the number of its rolls (the index of this one)."""
        ...

    def undraw(self, count: int) -> None:
        """Put back the last ``count`` throws drawn (undo)."""
        ...

    def segment(self, first_throw: int, *, reveal: bool = False) -> DiceSegment:
        """How the record says this source's throws from ``first_throw`` on were drawn;
        ``reveal``: with the secret that checks them, where there is one (game over)."""
        ...


@dataclass
class CommittedDice:
    """Computer dice nobody can know before they are thrown (``app.fairdice``).

    A secret drawn from the operating system's secure source; throw number ``i`` of the
    game is HMAC-SHA256 of the secret over ``i``. The record carries the commitment (the
    secret's SHA-256) and, only once the game is over or stopped here, the secret: a game
    resumed later throws from a new secret (``fresh`` at its next throw), so no record ever
    tells a throw still to come. On a server, seated players may add seeds of their own
    (``with_seed``): each counts from the next throw on, and the record lists them.
    """

    secret: str
    first_throw: int = 0
    """The first throw this secret draws: the game's throws before it came from elsewhere."""
    seeds: tuple[PlayerSeed, ...] = ()
    typed: bool = False

    @classmethod
    def fresh(cls, first_throw: int = 0) -> CommittedDice:
        return cls(new_secret(), first_throw)

    @property
    def commitment(self) -> str:
        return commitment_of(self.secret)

    def draw(self, state: GameState, actions: int, throws: int) -> Roll:
        return fair_roll(self.secret, self.seeds, throws, state.turn.rolling)

    def undraw(self, count: int) -> None:
        pass  # a throw is drawn from its index in the game: undone throws are drawn again

    def with_seed(self, seat: int, seed: str, from_throw: int) -> CommittedDice:
        """The same dice with a player's seed added from throw ``from_throw`` on."""
        return replace(self, seeds=(*self.seeds, PlayerSeed(seat, seed, from_throw)))

    def segment(self, first_throw: int, *, reveal: bool = False) -> DiceSegment:
        secret = self.secret if reveal else None
        return DiceCommitment(self.commitment, secret, self.seeds, first_throw)


@dataclass
class SeededDice:
    """Random dice from a seed: the throw at each point of the game depends only on the seed
    and the number of actions before it, so a resumed game throws what it would have thrown.
    """

    seed: int
    typed: bool = False

    def draw(self, state: GameState, actions: int, throws: int) -> Roll:
        return roll(state, random.Random(f"zloutch-dice:{self.seed}:{actions}"))

    def undraw(self, count: int) -> None:
        pass

    def segment(self, first_throw: int, *, reveal: bool = False) -> DiceSegment:
        return UncommittedDice(SEED_SCHEME, first_throw, self.seed)


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
                # Any count here (a line holds at most as many faces as characters): ``check``
                # refuses more dice than the game throws, naming the rule set (a line of
                # seven said "at most 6 are thrown" where one of six named the rules).
                throws.append((number, parse_dice(line.split(), max_dice=len(line))))
            except InvalidDiceError as exc:
                raise DiceFileError(f"{name} line {number}: {exc}") from None
        if not throws:
            raise DiceFileError(
                f"{name}: the dice file has no throw (one throw a line, faces separated by "
                "spaces: 1 1 4 4 3)"
            )
        return cls(name, tuple(throws))

    def check(self, rules: RuleSet) -> None:
        """Refuse, before the game starts, a throw of more dice than ``rules`` has: the
        other counts are checked as each throw is drawn (a turn throws fewer dice as it
        sets some aside)."""
        for number, dice in self.throws:
            if len(dice) > rules.dice:
                raise DiceFileError(
                    f"{self.name} line {number}: {count_dice(len(dice))} "
                    f"({format_dice(dice)}), but {rules.spec} throws "
                    f"{count_dice(rules.dice)} at most"
                )

    @classmethod
    def from_file(cls, path: str) -> ScriptedDice:
        return cls.from_text(read_text(path, "dice file"), path)

    def draw(self, state: GameState, actions: int, throws: int) -> Roll:
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

    def segment(self, first_throw: int, *, reveal: bool = False) -> DiceSegment:
        return UncommittedDice(FILE_SCHEME, first_throw)


@dataclass
class TypedDice:
    """Real dice: a person types the faces (``zloutch table``)."""

    typed: bool = True

    def draw(self, state: GameState, actions: int, throws: int) -> Roll:  # pragma: no cover
        raise ZloutchError("the faces of real dice are typed in")

    def undraw(self, count: int) -> None:
        pass

    def segment(self, first_throw: int, *, reveal: bool = False) -> DiceSegment:
        return UncommittedDice(REAL_SCHEME, first_throw)


def choose_dice(
    *, dice_file: str | None, seed: int | None, table_mode: bool, first_throw: int = 0
) -> DiceSource:
    """A file of throws first, then a seed; real dice at a table; else computer dice from a
    fresh secret, from throw ``first_throw`` on."""
    if dice_file is not None:
        return ScriptedDice.from_file(dice_file)
    if seed is not None:
        return SeededDice(seed)
    if table_mode:
        return TypedDice()
    return CommittedDice.fresh(first_throw)


def read_text(path: str, what: str) -> str:
    """A file the user names, as text: a regular file of at most 16 MB (``read_regular``),
    in UTF-8; ``UnreadableFileError`` in one line otherwise."""
    from zloutch.app.files import read_regular

    try:
        return read_regular(path).decode("utf-8")
    except OSError as exc:
        raise UnreadableFileError(f"cannot read the {what} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UnreadableFileError(f"cannot read the {what} {path}: it is not text") from None


def count_dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"
