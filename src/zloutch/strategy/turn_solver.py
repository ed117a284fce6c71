"""Exact turn-optimal play: the policy that maximises the expected points banked by a turn.

The turn is a finite graph of *hand states* (what is set aside, flags of the variants) whose
edges add points. Points only grow within a turn, so the values are computed by one pass over
the turn total, from the highest total down to 0, each step vectorised over every throw,
keep and hand state (NumPy). The graph is built once per rule set from the scoring tables;
the engine is never replayed.

Layout of the value table ``values[t, column]``: ``t`` is the turn total in units of the rule
set's smallest step; column 0 is a farkle, column 1 an instant win, then one column per node
of the graph (decision nodes after a keep, and throw nodes before a roll).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import numpy as np
import numpy.typing as npt

from zloutch.rules.dice import Dice, Face, contains, difference, multisets, probability
from zloutch.rules.errors import ZloutchError
from zloutch.rules.ruleset import RuleSet
from zloutch.rules.scoring import (
    NO_CONTEXT,
    HandContext,
    Keep,
    ScoreTable,
    score_table,
)

SOLVER_VERSION = 2
FARKLE, WIN = 0, 1
Progress = Callable[[int, int], None]
"""``progress(done, total)``: how far a long solve has gone."""
Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True, order=True)
class Hand:
    """A decision node: after a keep, before banking or throwing."""

    free: int
    """Dice not set aside (0: a full hand, all the dice are thrown next)."""
    aside: Dice = ()
    """Dice set aside in this hand, tracked only for the cross-throw variants (V-6, V-7)."""
    multiples: tuple[Face, ...] = ()
    pending: bool = False
    """A figure waits for confirmation (V-1)."""
    met: bool = False
    """One throw of the turn reached the entry (T-7 by throw)."""
    rethrow: bool = False
    """The keep was the no-score bonus: all the dice are thrown again, no bank (F-2)."""


@dataclass(frozen=True, order=True)
class ThrowNode:
    """A chance node: ``n`` dice about to be thrown."""

    n: int
    aside: Dice = ()
    multiples: tuple[Face, ...] = ()
    pending: bool = False
    met: bool = False
    jokers: Dice = ()
    """Jokers set aside before this throw (V-2)."""
    joker_points: int = 0
    """Their points, in units."""
    waiting: int = 0
    """In a throw of the jokers: the dice of the throw that failed, waiting to be thrown."""
    joker_roll: bool = False


Node = Hand | ThrowNode


class SituationError(ZloutchError):
    """A banked score or a turn total that no turn under the rule set can have."""


def check_total(rules: RuleSet, total: int) -> None:
    """Refuse a turn total off the rule set's step (every keep adds a multiple of it)."""
    if total < 0 or total % rules.unit:
        raise SituationError(
            f"the turn total must be a multiple of {rules.unit} "
            f"(the smallest step of {rules.spec}), not {total}"
        )


def check_score(rules: RuleSet, score: int) -> None:
    """Refuse a banked score off the rule set's step, or past an exact target (T-9)."""
    if score % rules.unit:
        raise SituationError(
            f"the banked score must be a multiple of {rules.unit} "
            f"(the smallest step of {rules.spec}), not {score}"
        )
    target = rules.game.target
    if rules.game.exact_target and score > target:
        raise SituationError(
            f"a banked score of {score} is past the target: {rules.spec} must reach "
            f"{target} exactly, and a turn that would pass it is lost (T-9)"
        )


@dataclass(frozen=True)
class Situation:
    """Who plays the turn: it changes which banks are allowed and what points are worth."""

    entered: bool = True
    score: int = 0

    @classmethod
    def normalise(cls, rules: RuleSet, entered: bool, score: int) -> Situation:
        """Drop what this rule set ignores, so that equal solutions share one key."""
        t = rules.turn
        needs_entered = bool(t.entry) or t.petit_palier
        needs_score = cls.score_matters(rules)
        return cls(entered if needs_entered else True, score if needs_score else 0)

    @staticmethod
    def score_matters(rules: RuleSet) -> bool:
        """Whether the banked score changes the turn (T-9, G-7, T-10, a keep that wins)."""
        t, g = rules.turn, rules.game
        needs_score = g.exact_target or g.last_thousand or t.full_hand_win
        return needs_score or any(v == "win" for v in rules.kinds_values().values())


@dataclass
class _Group:
    """Throw nodes solved together: every option of every roll as flat arrays."""

    columns: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    dests: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    roll_node: list[int] = field(default_factory=list)
    roll_prob: list[float] = field(default_factory=list)

    def arrays(self) -> tuple[Ints, Ints, Ints, Ints, Floats, Ints]:
        return (
            np.asarray(self.points, dtype=np.int64),
            np.asarray(self.dests, dtype=np.int64),
            np.asarray(self.starts, dtype=np.int64),
            np.asarray(self.roll_node, dtype=np.int64),
            np.asarray(self.roll_prob, dtype=np.float64),
            np.asarray(self.columns, dtype=np.int64),
        )


class TurnModel:
    """The graph of a turn under one rule set, built from its scoring tables."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.unit = rules.unit
        self.table: ScoreTable = score_table(rules)
        self.track_aside = rules.variants.across_throws
        self.track_met = rules.turn.entry_by == "throw" and rules.turn.entry > 0
        self.start = ThrowNode(rules.dice)
        self.nodes: list[Node] = []
        self.column: dict[Node, int] = {}
        self.options: dict[ThrowNode, list[list[tuple[int, int]]]] = {}
        self.rolls: dict[int, list[tuple[Dice, float]]] = {
            n: [(d, float(probability(d))) for d in multisets(n)] for n in range(1, rules.dice + 1)
        }
        self._build()

    # -------------------------------------------------------------- graph

    def col(self, node: Node) -> int:
        if node not in self.column:
            self.column[node] = len(self.nodes) + 2
            self.nodes.append(node)
            self._todo.append(node)
        return self.column[node]

    def throw_of(self, hand: Hand) -> ThrowNode:
        """The throw a decision node leads to (all the dice again after a full hand)."""
        if hand.free == 0:
            return ThrowNode(self.rules.dice, pending=hand.pending, met=hand.met)
        return ThrowNode(hand.free, hand.aside, hand.multiples, hand.pending, hand.met)

    def take_node(self, dice: int, aside: Dice, multiples: tuple[Face, ...]) -> ThrowNode:
        """The throw of a turn taken back (G-8): the previous player's dice left."""
        if self.track_aside:
            return ThrowNode(dice, aside, multiples)
        return ThrowNode(dice)

    def _build(self) -> None:
        self._todo: list[Node] = []
        self.col(self.start)
        while True:
            while self._todo:
                node = self._todo.pop()
                if isinstance(node, Hand):
                    self.col(self.throw_of(node))
                else:
                    self.options[node] = [
                        self._roll_options(node, roll) for roll, _ in self.rolls[node.n]
                    ]
            # Every hand left with dice on the table may be taken back by the next player.
            extra = [
                self.take_node(h.free, h.aside, h.multiples)
                for h in list(self.nodes)
                if isinstance(h, Hand) and h.free > 0
            ]
            added = [x for x in extra if x not in self.column]
            if not added:
                break
            for node in added:
                self.col(node)

    def context(self, node: ThrowNode) -> HandContext:
        return HandContext(node.aside, node.multiples) if self.track_aside else NO_CONTEXT

    def _roll_options(self, node: ThrowNode, roll: Dice) -> list[tuple[int, int]]:
        rules = self.rules
        entry = self.table.lookup(roll, self.context(node))
        if any(k.wins for k in entry.keeps):
            return [(0, WIN)]
        if entry.farkle:
            if node.jokers and not node.joker_roll:
                kept = node.joker_points if rules.variants.joker_keeps_points else 0
                jokers = ThrowNode(
                    len(node.jokers),
                    node.aside,
                    node.multiples,
                    node.pending,
                    node.met,
                    joker_points=kept,
                    waiting=node.n,
                    joker_roll=True,
                )
                return [(0, self.col(jokers))]
            return [(0, FARKLE)]
        found: set[tuple[int, int]] = set()
        for keep in entry.keeps:
            found.update(self.keep_options(node, roll, keep))
        return sorted(found)

    def keep_options(self, node: ThrowNode, roll: Dice, keep: Keep) -> list[tuple[int, int]]:
        """Where a keep leads: (points added in units, column), jokers set aside included."""
        rules = self.rules
        aside_count = rules.dice - node.n - len(node.jokers) - node.waiting
        points = keep.points // self.unit + node.joker_points
        free = rules.dice - (aside_count + len(keep.dice) + len(node.jokers))
        if rules.turn.figure_full_hand and keep.whole:
            free = 0  # S-16 Reading: the figure is a full hand, all the dice are thrown again
        aside: Dice = ()
        multiples: tuple[Face, ...] = ()
        if self.track_aside and free:
            aside = tuple(sorted(node.aside + keep.dice + node.jokers))
            faces = set(node.multiples)
            for combo in keep.combinations:
                if combo.figure and len(combo.dice) >= 3 and len(set(combo.dice)) == 1:
                    faces.add(combo.dice[0])
            multiples = tuple(sorted(faces))
        pending = node.pending
        if rules.variants.confirmation:
            confirms = any(
                not c.figure and len(c.dice) == 1 and c.dice[0] in (1, 5) for c in keep.combinations
            )
            pending = (pending and not confirms) or keep.figure
        met = node.met or (self.track_met and keep.points >= rules.turn.entry)
        # F-2: after the no-score bonus all the dice are thrown again; the hand cannot bank.
        rethrow = keep.bonus
        found = [(points, self.col(Hand(free, aside, multiples, pending, met, rethrow)))]
        if rules.variants.joker and free:
            left = difference(roll, keep.dice)
            for joker in self.table.lookup(roll).scoring:
                if joker.wins or len(joker.dice) >= len(left) or not contains(left, joker.dice):
                    continue
                throw = self.joker_node(free, aside, multiples, pending, met, joker)
                found.append((points, self.col(throw)))
        return found

    def joker_node(
        self,
        free: int,
        aside: Dice,
        multiples: tuple[Face, ...],
        pending: bool,
        met: bool,
        joker: Keep,
    ) -> ThrowNode:
        """The throw that follows setting ``joker`` aside as jokers (V-2)."""
        return ThrowNode(
            free - len(joker.dice),
            aside,
            multiples,
            pending,
            met,
            jokers=joker.dice,
            joker_points=joker.points // self.unit,
        )

    # -------------------------------------------------------------- groups

    @cached_property
    def arrays(self) -> list[tuple[Ints, Ints, Ints, Ints, Floats, Ints]]:
        """The groups as flat arrays, built once."""
        return [g.arrays() for g in self.groups()]

    def groups(self) -> list[_Group]:
        """Throw nodes in solving order: joker throws, throws with jokers, the rest."""
        order = [
            [n for n in self.options if n.joker_roll],
            [n for n in self.options if n.jokers and not n.joker_roll],
            [n for n in self.options if not n.jokers and not n.joker_roll],
        ]
        groups = []
        for nodes in order:
            group = _Group()
            for i, node in enumerate(nodes):
                group.columns.append(self.column[node])
                for (_, p), options in zip(self.rolls[node.n], self.options[node], strict=True):
                    group.starts.append(len(group.points))
                    group.roll_node.append(i)
                    group.roll_prob.append(p)
                    for points, dest in options:
                        group.points.append(points)
                        group.dests.append(dest)
            groups.append(group)
        return groups

    @property
    def hands(self) -> list[Hand]:
        return [n for n in self.nodes if isinstance(n, Hand)]

    @property
    def max_points(self) -> int:
        """The largest points one roll can add, in units."""
        return max((p for opts in self.options.values() for o in opts for p, _ in o), default=0)

    def reachable(self, rows: int) -> npt.NDArray[np.bool_]:
        """``reach[t, column]``: whether a fresh turn can be at a node with a total of ``t``
        units, whatever is kept and whenever banked (totals below ``rows``)."""
        if rows not in self._reach:
            self._reach[rows] = self._reachable(rows)
        return self._reach[rows]

    @cached_property
    def _reach(self) -> dict[int, npt.NDArray[np.bool_]]:
        return {}

    def _reachable(self, rows: int) -> npt.NDArray[np.bool_]:
        reach = np.zeros((rows + self.max_points + 1, len(self.nodes) + 2), dtype=np.bool_)
        reach[0, self.column[self.start]] = True
        hands = self.hands
        hand_cols = np.asarray([self.column[h] for h in hands], dtype=np.int64)
        throw_cols = np.asarray([self.column[self.throw_of(h)] for h in hands], dtype=np.int64)
        flat = []
        for points, dests, starts, roll_node, _, columns in self.arrays:
            if not len(columns):
                continue
            sizes = np.diff(np.append(starts, len(points)))
            flat.append((points, dests, columns[np.repeat(roll_node, sizes)]))
        for t in range(rows):
            row = reach[t]
            while True:  # a throw of the jokers adds no points: it stays on this row
                before = int(np.count_nonzero(row))
                row[throw_cols[row[hand_cols]]] = True
                for points, dests, sources in flat:
                    on = row[sources]
                    reach[t + points[on], dests[on]] = True
                if int(np.count_nonzero(row)) == before:
                    break
        return reach[:rows]


@dataclass(frozen=True)
class Terminal:
    """What the end of a turn is worth: the objective is pluggable (average reward, F-1)."""

    bank_bonus: float = 0.0
    farkle: float = 0.0


class TurnSolution:
    """The values of every turn state for one rule set and one situation.

    ``terminal`` is what the end of the turn was worth in the solve (``solve_turn``); with it
    the solution values totals past its table as the solve did: banked past the cap, lost
    past an exact target (T-9). Without it (the game solver's tables) the last row stands
    for every total past the table.
    """

    def __init__(
        self,
        model: TurnModel,
        situation: Situation,
        values: Floats,
        bank_values: Floats,
        bankable: npt.NDArray[np.bool_],
        rows: int,
        terminal: Terminal | None = None,
    ) -> None:
        self.model = model
        self.rules = model.rules
        self.situation = situation
        self.values = values
        self.bank_values = bank_values
        self.bankable = bankable
        self.rows = rows
        self.unit = model.unit
        self.terminal = terminal

    # Values in points.
    @property
    def expected_turn(self) -> float:
        """The expected points banked by a fresh turn under optimal play."""
        return float(self.values[0, self.model.column[self.model.start]])

    def value(self, total: int, node: Node) -> float:
        """The value of a node at a turn total (points), past the solved totals included."""
        if node not in self.model.column:
            raise KeyError(f"{node} is not a state of this turn")
        return self.column_value(total, self.model.column[node])

    def column_value(self, total: int, column: int) -> float:
        """The value of a column of the table (a node, a farkle, a win) at a turn total."""
        t = total // self.unit
        if t < self.values.shape[0]:
            return float(self.values[t, column])
        if column in (FARKLE, WIN) or self.terminal is None:
            return float(self.values[-1, column])
        if self.rules.game.exact_target:
            return self.terminal.farkle  # T-9: past the target the turn is lost
        return self._bank_beyond(t)  # past the cap the turn is taken as banked

    def bank_value(self, total: int) -> float:
        """What banking a turn total is worth (points, or the objective's terminal value)."""
        t = total // self.unit
        if t < self.bank_values.shape[0]:
            return float(self.bank_values[t])
        if self.terminal is None:
            return float(self.bank_values[-1])
        return self._bank_beyond(t)

    def _bank_beyond(self, t: int) -> float:
        assert self.terminal is not None
        totals = np.asarray([t * self.unit], dtype=np.float64)
        bank = _bank_values(self.rules, self.situation, totals)
        return float(bank[0]) + self.terminal.bank_bonus

    def can_bank(self, total: int, hand: Hand) -> bool:
        t = total // self.unit
        return t < self.rows and bool(self.bankable[t, self.model.column[hand] - 2])

    def thresholds(self) -> dict[int, int | None]:
        """For each number of dice in hand, the smallest total at which banking is optimal.

        ``n`` dice in hand are the decision nodes with ``n`` dice to throw next (``n`` = the
        rule set's dice: a full hand), leaving out those that may never bank (a figure
        awaiting confirmation, V-1; the rethrow after the no-score bonus, F-2). The plain
        node ``Hand(n)`` answers when banking is ever optimal there. Otherwise the answer is
        the smallest total at which banking is optimal in any node with ``n`` dice in hand:
        under V-6 and V-7 each set of dice set aside is its own node, and a player who has not
        entered by one throw (T-7) banks only once a throw reached the entry. None ("never"):
        no such node ever banks within the totals solved.
        """
        dice = self.rules.dice
        by_count: dict[int, list[Hand]] = {}
        for hand in self.model.hands:
            if not (hand.pending or hand.rethrow):
                by_count.setdefault(hand.free or dice, []).append(hand)
        result: dict[int, int | None] = {}
        for n in range(1, dice + 1):
            plain = Hand(0) if n == dice else Hand(n)
            found = self._first_bank(plain) if plain in self.model.column else None
            if found is None:
                firsts = [self._first_bank(h, reachable=True) for h in by_count.get(n, [])]
                found = min((f for f in firsts if f is not None), default=None)
            result[n] = found
        return result

    def _first_bank(self, hand: Hand, reachable: bool = False) -> int | None:
        """The smallest total (from one step up) at which banking is optimal in ``hand``
        (``reachable``: among the totals a fresh turn can have there)."""
        column = self.model.column[hand]
        throw = self.model.column[self.model.throw_of(hand)]
        rows = slice(1, self.rows)
        best = self.bankable[rows, column - 2] & (
            self.bank_values[rows] >= self.values[rows, throw] - 1e-9
        )
        if reachable:
            best &= self.model.reachable(self.rows)[rows, column]
        if not best.any():
            return None
        return (int(np.argmax(best)) + 1) * self.unit


def farkle_probabilities(rules: RuleSet) -> dict[int, Fraction]:
    """The exact probability that a fresh throw of n dice has no legal keep."""
    table = score_table(rules)
    return {
        n: sum((probability(d) for d in multisets(n) if table.lookup(d).farkle), Fraction(0))
        for n in range(1, rules.dice + 1)
    }


def _cap(rules: RuleSet, situation: Situation) -> int:
    if rules.game.exact_target:
        return max(rules.game.target - situation.score, 0)
    return max(2 * rules.game.target, 20000)


def solve_turn(
    rules: RuleSet,
    situation: Situation | None = None,
    *,
    model: TurnModel | None = None,
    terminal: Terminal = Terminal(),
    cap: int | None = None,
    progress: Progress | None = None,
) -> TurnSolution:
    """Solve a turn exactly (totals above ``cap`` are taken as banked, see docs/strategy.md).

    ``progress(done, total)`` is called every few rows of the turn total (rows solved, rows).
    """
    model = model or TurnModel(rules)
    situation = situation or Situation()
    unit = model.unit
    exact = rules.game.exact_target
    # T-9: with an exact target the room left is the natural bound, and no cap is needed.
    top = (cap if cap is not None and not exact else _cap(rules, situation)) // unit
    rows = top + 1
    width = len(model.nodes) + 2
    pad = model.max_points + 1
    values = np.zeros((rows + pad, width), dtype=np.float64)
    totals = np.arange(rows + pad, dtype=np.float64) * unit
    bank_values = _bank_values(rules, situation, totals) + terminal.bank_bonus
    if exact:
        values[rows:, :] = terminal.farkle  # T-9: past the target the turn is lost
    else:
        values[rows:, :] = bank_values[rows:, None]
    values[:, FARKLE] = terminal.farkle
    values[:, WIN] = max(rules.game.target - situation.score, 0) + terminal.bank_bonus
    hands = model.hands
    hand_cols = np.asarray([model.column[h] for h in hands], dtype=np.int64)
    throw_cols = np.asarray([model.column[model.throw_of(h)] for h in hands], dtype=np.int64)
    bankable = _bankable(rules, situation, hands, rows, unit)
    allowed_cols = np.zeros((rows, width - 2), dtype=np.bool_)
    allowed_cols[:, hand_cols - 2] = bankable
    groups = model.arrays
    every = max(rows // 100, 1)
    for t in range(top, -1, -1):
        row = values[t]
        for points, dests, starts, roll_node, roll_prob, columns in groups:
            if not len(columns):
                continue
            options = values[t + points, dests]
            best = np.maximum.reduceat(options, starts)
            row[columns] = np.bincount(roll_node, weights=best * roll_prob, minlength=len(columns))
        throw = row[throw_cols]
        row[hand_cols] = np.where(bankable[t], np.maximum(bank_values[t], throw), throw)
        if progress is not None and (t % every == 0):
            progress(rows - t, rows)
    return TurnSolution(model, situation, values, bank_values, allowed_cols, rows, terminal)


def _bank_values(rules: RuleSet, situation: Situation, totals: Floats) -> Floats:
    g = rules.game
    if not g.last_thousand:
        return totals.copy()
    score = situation.score
    reached = score + totals >= g.target
    capped = np.minimum(score + totals, max(g.target - 1000, score)) - score
    return np.where(reached, totals, capped)


def _bankable(
    rules: RuleSet, situation: Situation, hands: Iterable[Hand], rows: int, unit: int
) -> npt.NDArray[np.bool_]:
    """Whether each hand may bank at each total: the engine's bank_refusal, as arrays."""
    t = rules.turn
    g = rules.game
    totals = np.arange(rows, dtype=np.int64) * unit
    columns = []
    for hand in hands:
        ok = (totals > 0) & (not hand.pending) & (not hand.rethrow)
        if hand.free == 0 and t.full_hand == "forced":
            t10 = (
                t.full_hand_win
                & (totals >= t.full_hand_win_from)
                & (situation.score + totals == g.target)
            )
            ok &= t10
        if not situation.entered and t.entry:
            if t.entry_by == "throw":
                ok &= hand.met
            else:
                ok &= totals >= t.entry
        if t.bank_multiple_of_100:
            ok &= totals % 100 != 50
        small_pp = t.petit_palier and situation.entered
        ok &= (totals >= t.min_bank) | (small_pp & (totals == 100))
        columns.append(ok)
    return np.stack(columns, axis=1) if columns else np.zeros((rows, 0), dtype=np.bool_)


@dataclass(frozen=True)
class AverageReward:
    """The long-run average points per turn when turns depend on each other (F-1)."""

    average: float
    bias: tuple[float, ...]
    """Relative values of each count of farkles in a row."""
    solutions: tuple[TurnSolution, ...]
    iterations: int
    residual: float


def solve_average_reward(
    rules: RuleSet,
    *,
    tolerance: float = 1e-10,
    max_iterations: int = 500,
    model: TurnModel | None = None,
    progress: Progress | None = None,
) -> AverageReward:
    """Relative value iteration over the count of consecutive farkles (F-1).

    From a count z, banking ends the streak (bias h[0]); a farkle moves to z + 1, or costs
    the penalty and restarts at 0 on the last one. ``progress(done, total)`` is called after
    each iteration: iterations done, and those expected in all (estimated from how fast the
    residual falls; exact once converged).
    """
    model = model or TurnModel(rules)
    after = max(rules.turn.farkle_penalty_after, 1)
    penalty = rules.turn.farkle_penalty
    bias = [0.0] * after
    average = 0.0
    residual = float("inf")
    first = float("inf")
    solutions: list[TurnSolution] = []
    for iteration in range(1, max_iterations + 1):
        solutions = []
        gains = []
        for z in range(after):
            last = z == after - 1
            farkle = (-penalty + bias[0]) if last else bias[z + 1]
            solution = solve_turn(rules, model=model, terminal=Terminal(bias[0], farkle))
            solutions.append(solution)
            gains.append(solution.expected_turn)
        average = gains[0]
        new_bias = [g - average for g in gains]
        residual = max(abs(a - b) for a, b in zip(new_bias, bias, strict=True))
        bias = new_bias
        if residual < tolerance:
            if progress is not None:
                progress(iteration, iteration)
            return AverageReward(average, tuple(bias), tuple(solutions), iteration, residual)
        if progress is not None:
            progress(
                iteration,
                _expected_iterations(iteration, residual, first, tolerance, max_iterations),
            )
        first = residual if iteration == 1 else first
    return AverageReward(average, tuple(bias), tuple(solutions), max_iterations, residual)


def _expected_iterations(
    iteration: int, residual: float, first: float, tolerance: float, most: int
) -> int:
    """How many iterations the solve should take in all, the residual falling geometrically
    at its mean rate since the first iteration."""
    if iteration < 2 or not 0 < residual < first < float("inf"):
        return min(iteration + 1, most)
    rate = (residual / first) ** (1 / (iteration - 1))
    left = math.ceil(math.log(tolerance / residual) / math.log(rate))
    return min(iteration + max(left, 1), most)
