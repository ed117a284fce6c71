"""Events: every change of a game, in words an adapter can render."""

from __future__ import annotations

from dataclasses import dataclass

from zloutch.rules.dice import Dice, format_dice


@dataclass(frozen=True)
class Event:
    """Base of every event; ``player`` is the seat it concerns."""

    player: int

    def describe(self, names: tuple[str, ...]) -> str:  # pragma: no cover - overridden
        return type(self).__name__


@dataclass(frozen=True)
class TurnStarted(Event):
    def describe(self, names: tuple[str, ...]) -> str:
        return f"{names[self.player]} to play"


@dataclass(frozen=True)
class TookBack(Event):
    total: int
    dice: int

    def describe(self, names: tuple[str, ...]) -> str:
        dice = f"{self.dice} die" if self.dice == 1 else f"{self.dice} dice"
        return f"{names[self.player]} takes it back: {self.total} with {dice} (G-8)"


@dataclass(frozen=True)
class Thrown(Event):
    dice: Dice
    jokers: bool = False

    def describe(self, names: tuple[str, ...]) -> str:
        what = "throws the jokers" if self.jokers else "throws"
        return f"{names[self.player]} {what}: {format_dice(self.dice)}"


@dataclass(frozen=True)
class Kept(Event):
    dice: Dice
    points: int
    total: int
    full_hand: bool

    def describe(self, names: tuple[str, ...]) -> str:
        hand = ", full hand" if self.full_hand else ""
        return (
            f"{names[self.player]} keeps {format_dice(self.dice)} for {self.points} "
            f"(turn total {self.total}{hand})"
        )


@dataclass(frozen=True)
class Jokered(Event):
    dice: Dice
    points: int

    def describe(self, names: tuple[str, ...]) -> str:
        what = "a joker" if len(self.dice) == 1 else "jokers"
        return f"{names[self.player]} sets {format_dice(self.dice)} aside as {what} (V-2)"


@dataclass(frozen=True)
class Confirmed(Event):
    def describe(self, names: tuple[str, ...]) -> str:
        return f"{names[self.player]} confirms the figures (V-1)"


@dataclass(frozen=True)
class Banked(Event):
    total: int
    level: int
    pp: bool = False
    written: bool = True
    """False: the score stays at ``level`` and no level is written (G-7, at target - 1000)."""

    def describe(self, names: tuple[str, ...]) -> str:
        if not self.written:
            return (
                f"{names[self.player]} banks {self.total}: the score stays at {self.level} "
                "(G-7: the last 1000 in one turn)"
            )
        mark = " (pp)" if self.pp else ""
        return f"{names[self.player]} banks {self.total}: new level {self.level}{mark}"


@dataclass(frozen=True)
class Entered(Event):
    level: int

    def describe(self, names: tuple[str, ...]) -> str:
        return f"{names[self.player]} enters the game with {self.level}"


@dataclass(frozen=True)
class Farkled(Event):
    lost: int
    reason: str = "farkle"
    """``farkle`` (T-4), ``overshoot`` (T-9) or ``off`` (a die off the table)."""

    def describe(self, names: tuple[str, ...]) -> str:
        why = {
            "farkle": "no combination",
            "overshoot": "past the target (T-9)",
            "off": "a die went off the table",
        }[self.reason]
        return f"{names[self.player]} loses the turn ({why}): {self.lost} lost"


@dataclass(frozen=True)
class Ticked(Event):
    level: int
    ticks: int

    def describe(self, names: tuple[str, ...]) -> str:
        beside = f"beside {self.level}" if self.level else "with no level"
        count = "1 tick" if self.ticks == 1 else f"{self.ticks} ticks"  # ("(4)" read as what?)
        return f"{names[self.player]} gets a tick {beside} ({count} now) (G-3)"


@dataclass(frozen=True)
class Crossed(Event):
    level: int
    back_to: int
    reason: str
    """``ticks`` (G-3), ``bump`` (G-4) or ``final_round`` (G-6)."""

    def describe(self, names: tuple[str, ...]) -> str:
        # a level below the current one (a bump of any level, G-4) moves nobody back
        where = (
            f"still at {self.back_to}" if self.back_to > self.level else f"back to {self.back_to}"
        )
        return f"{names[self.player]}'s level {self.level} is crossed ({self.reason}); {where}"


@dataclass(frozen=True)
class Bumped(Event):
    victim: int
    level: int

    def describe(self, names: tuple[str, ...]) -> str:
        return f"{names[self.player]} bumps {names[self.victim]} off {self.level} (G-4)"


@dataclass(frozen=True)
class Penalised(Event):
    points: int
    level: int
    why: str = "row"
    """``row``: farkles in a row (F-1, ``farkle_penalty``); ``blank``: a turn's first throw,
    of every die, that scored nothing (``fresh_farkle_penalty``)."""

    def describe(self, names: tuple[str, ...]) -> str:
        who = names[self.player]
        if self.why == "blank":
            return (
                f"{who} loses {self.points} for a blank first throw (fresh_farkle_penalty): "
                f"{self.level}"
            )
        return f"{who} loses {self.points} for farkles in a row (F-1): {self.level}"


@dataclass(frozen=True)
class FinalRound(Event):
    def describe(self, names: tuple[str, ...]) -> str:
        return f"{names[self.player]} reached the target: last round"


@dataclass(frozen=True)
class Won(Event):
    winners: tuple[int, ...]

    def describe(self, names: tuple[str, ...]) -> str:
        return " and ".join(names[w] for w in self.winners) + " won"
