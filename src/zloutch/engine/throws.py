"""The throws of one rule set as the engine plays them: each throw read once, then a table.

``ScoreTable`` (``zloutch.rules.scoring``) says what a throw is worth: its keeps, best first.
This module adds, per throw and hand context, what the engine reads at every move, so that
no move works it out again: the legal ``Keep`` actions in the order ``legal_actions`` lists
them, each keep's points and the dice it leaves on the table, the faces of the multiples it
sets aside (V-7), whether it confirms pending figures (V-1), and whether the throw wins at
once (G-5) or farkles (T-4). The rolls of ``n`` dice are tabled the same way: every ``Roll``
action once, found by the counts of its faces.

Each throw is read the first time it comes up (``Throws.facts``), then kept: the tables are
memos of pure functions of the rule set and the throw, and what they give is what the
functions give (``tests/engine/test_fast_engine.py`` compares every move with the plain
engine's).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from zloutch.engine.actions import Keep, Roll
from zloutch.rules.dice import Dice, Face, difference, multisets, probability
from zloutch.rules.ruleset import RuleSet
from zloutch.rules.scoring import HandContext, ScoredKeep, ScoreTable, ThrowScore, score_table


@dataclass(frozen=True, eq=False)
class KeepFacts:
    """One legal keep of a throw, with what setting it aside reads."""

    keep: ScoredKeep
    left: Dice
    """The dice of the throw the keep leaves on the table."""
    faces: frozenset[Face]
    """The faces of the multiples (three of a kind or more) it sets aside (V-7)."""
    confirms: bool
    """It holds a single 1 or 5: it confirms the figures pending (V-1)."""
    figure: bool
    whole: bool
    bonus: bool

    @classmethod
    def of(cls, keep: ScoredKeep, throw: Dice) -> KeepFacts:
        """The facts of ``keep`` set aside from ``throw``."""
        combos = keep.combinations
        return cls(
            keep=keep,
            left=difference(throw, keep.dice),
            faces=frozenset(
                c.dice[0] for c in combos if c.figure and len(c.dice) >= 3 and len(set(c.dice)) == 1
            ),
            # V-1: a keep with a single 1 or 5 confirms the figures pending
            confirms=any(not c.figure and len(c.dice) == 1 and c.dice[0] in (1, 5) for c in combos),
            figure=keep.figure,
            whole=keep.whole,
            bonus=keep.bonus,
        )


@dataclass(frozen=True, eq=False)
class ThrowFacts:
    """A throw on the table in one hand context, read for every move that follows it."""

    reading: ThrowScore
    keeps: dict[Dice, KeepFacts]
    """The legal keep of each dice kept: its first reading (a win before points)."""
    actions: tuple[Keep, ...]
    """``Keep`` for each legal keep, sorted as ``legal_actions`` sorts them."""
    wins: bool
    """A keep wins the game at once (G-5)."""
    least: int
    """The fewest points a legal keep adds (0 on a farkle): T-9 loses the turn when even
    that passes an exact target."""

    @classmethod
    def of(cls, reading: ThrowScore) -> ThrowFacts:
        keeps: dict[Dice, KeepFacts] = {}
        for k in reading.keeps:
            if k.dice not in keeps:
                keeps[k.dice] = KeepFacts.of(k, reading.throw)
        actions = [Keep(k.dice) for k in reading.keeps]
        return cls(
            reading=reading,
            keeps=keeps,
            actions=tuple(sorted(actions, key=lambda a: a.sort_key())),
            wins=any(k.wins for k in reading.keeps),
            least=min((k.points for k in reading.keeps), default=0),
        )


class Throws:
    """The throws of one rule set, each read when first asked, then kept."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.dice = rules.dice
        self.table: ScoreTable = score_table(rules)
        self._across = rules.variants.across_throws
        self._plain: dict[Dice, ThrowFacts] = {}
        self._hands: dict[tuple[Dice, tuple[Face, ...], Dice], ThrowFacts] = {}
        self._contexts: dict[tuple[Dice, tuple[Face, ...]], HandContext] = {}

    def context(self, set_aside: Dice, multiples: tuple[Face, ...]) -> HandContext:
        """``HandContext(set_aside, multiples)``, built (and so checked) once per value."""
        key = (set_aside, multiples)
        found = self._contexts.get(key)
        if found is None:
            found = self._contexts[key] = HandContext(set_aside, multiples)
        return found

    def facts(self, throw: Dice, set_aside: Dice, multiples: tuple[Face, ...]) -> ThrowFacts:
        """The facts of ``throw`` with these dice set aside in the hand: what
        ``ThrowFacts.of(score_table(rules).lookup(throw, HandContext(set_aside, multiples)))``
        gives, and the same errors for a throw or a context that cannot be."""
        context = self.context(set_aside, multiples)
        if not self._across:
            found = self._plain.get(throw)
            # Too many dice with those set aside is refused, whatever the context scores.
            if found is None or len(throw) + len(set_aside) > self.dice:
                found = ThrowFacts.of(self.table.lookup(throw, context))
                self._plain[throw] = found
            return found
        key = (set_aside, multiples, throw)
        found = self._hands.get(key)
        if found is None:
            found = self._hands[key] = ThrowFacts.of(self.table.lookup(throw, context))
        return found


@lru_cache(maxsize=64)
def throws_of(rules: RuleSet) -> Throws:
    """The throw tables of a rule set, built once (each throw when first asked)."""
    return Throws(rules)


@lru_cache(maxsize=8)
def outcomes(n: int) -> tuple[tuple[Roll, Fraction], ...]:
    """Every roll of ``n`` dice (``multisets`` order, which is the actions' order) with its
    exact probability."""
    return tuple((Roll(d), probability(d)) for d in multisets(n))


@lru_cache(maxsize=8)
def rolls(n: int) -> tuple[Roll, ...]:
    """Every roll of ``n`` dice as an action, in ``outcomes`` order."""
    return tuple(r for r, _ in outcomes(n))


@lru_cache(maxsize=8)
def rolls_by_code(n: int) -> dict[int, Roll]:
    """Every roll of ``n`` dice by its code: the sum of ``8 ** (face - 1)`` over its dice
    (the counts of faces 1..6 as base-8 digits)."""
    return {sum(8 ** (f - 1) for f in r.dice): r for r in rolls(n)}
