"""Exact turn-optimal play: the policy that maximises the expected points banked by a turn.

The turn is a finite graph of *hand states* (what is set aside, flags of the variants) whose
edges add points. Points only grow within a turn, so the values are computed by one pass over
the turn total, from the highest total down to 0, each step vectorised over every throw,
keep and hand state (NumPy). The graph is the compiled turn (``zloutch.engine.compiled``),
built once per rule set from the engine's rules; the engine is never replayed.

The value table is ``values[t, column]``, in the compiled turn's layout (packed states
``(total in units, column)``, documented in ``zloutch.engine.compiled``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import numpy.typing as npt

from zloutch.engine.compiled import (
    FARKLE,
    WIN,
    Hand,
    Node,
    Situation,
    ThrowNode,
    compile_turn,
)
from zloutch.engine.game import banked_score
from zloutch.rules.dice import Dice, multisets, probability
from zloutch.rules.errors import ZloutchError
from zloutch.rules.ruleset import RuleSet
from zloutch.rules.scoring import ScoredKeep, score_table

SOLVER_VERSION = 3
"""The cached turn summaries' version: 3 since F-1's long run counts its steps (the average's
root, then the check) where it counted iterations from 0."""
Progress = Callable[[int, int], None]
"""``progress(done, total)``: how far a long solve has gone."""
Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


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
    """Refuse a banked score off the rule set's step, not round where only round totals are
    banked and nothing else writes a score (T-6), past an exact target (T-9), or at the
    target (or past it): a player there has won or waits for the others' last turns (F-4,
    G-6), and plays no turn from there."""
    if score % rules.unit:
        raise SituationError(
            f"the banked score must be a multiple of {rules.unit} "
            f"(the smallest step of {rules.spec}), not {score}"
        )
    target = rules.game.target
    t, g = rules.turn, rules.game
    if (
        score % 100
        and t.bank_multiple_of_100
        and not (t.farkle_penalty % 100 or t.fresh_farkle_penalty % 100)
        and not (g.last_thousand and (target - 1000) % 100)
    ):  # every score written is a sum of round banks (and round penalties, a round cap)
        raise SituationError(
            f"a banked score of {score} is never written in {rules.spec}: only a round turn "
            "total, a multiple of 100, is banked (T-6)"
        )
    if rules.game.exact_target and score > target:
        raise SituationError(
            f"a banked score of {score} is past the target: {rules.spec} must reach "
            f"{target} exactly, and a turn that would pass it is lost (T-9)"
        )
    if score >= target:
        raise SituationError(
            f"a banked score of {score} has reached the target of {target}: no turn is "
            "played from there"
        )


class TurnModel:
    """The turn solver's view of the compiled turn (``zloutch.engine.compiled``): its throw
    nodes by dependency level (slices of the flat form), and the states a fresh turn can
    reach."""

    def __init__(self, rules: RuleSet) -> None:
        compiled = compile_turn(rules)
        self.compiled = compiled
        self.rules = rules
        self.unit = compiled.unit
        self.table = compiled.table
        self.track_aside = compiled.track_aside
        self.track_met = compiled.track_met
        self.start = compiled.start
        self.nodes = compiled.nodes
        self.column = compiled.column
        self.options = compiled.options
        self.rolls = compiled.rolls

    def throw_of(self, hand: Hand) -> ThrowNode:
        """The throw a decision node leads to (all the dice again after a full hand)."""
        return self.compiled.throw_of(hand)

    def keep_options(self, node: ThrowNode, roll: Dice, keep: ScoredKeep) -> list[tuple[int, int]]:
        """Where a keep leads: (points added in units, column), jokers set aside included."""
        return self.compiled.keep_options(node, roll, keep)

    # -------------------------------------------------------------- levels

    @cached_property
    def arrays(self) -> list[tuple[Ints, Ints, Ints, Ints, Floats, Ints]]:
        """Each dependency level of the compiled turn's flat form (``FlatTurn``), sliced as the
        solver reads it: ``(points, dests, starts, roll_node, roll_prob, columns)``, the
        option offsets and the node of each roll counted from the level's own start."""
        flat = self.compiled.flat
        found = []
        for g in range(len(flat.level_start) - 1):
            k0, k1 = int(flat.level_start[g]), int(flat.level_start[g + 1])
            r0, r1 = int(flat.roll_start[k0]), int(flat.roll_start[k1])
            o0, o1 = int(flat.roll_opt_start[r0]), int(flat.roll_opt_start[r1])
            rolls = np.diff(flat.roll_start[k0 : k1 + 1])
            found.append(
                (
                    flat.roll_opt_pts[o0:o1],
                    flat.roll_opt_dest[o0:o1],
                    flat.roll_opt_start[r0:r1] - o0,
                    np.repeat(np.arange(k1 - k0, dtype=np.int64), rolls),
                    flat.roll_prob[r0:r1],
                    flat.node_col[k0:k1],
                )
            )
        return found

    @cached_property
    def hands(self) -> list[Hand]:
        return self.compiled.hands

    @cached_property
    def max_points(self) -> int:
        """The largest points one roll can add, in units."""
        return self.compiled.max_points

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

    def column_values(self, totals: Ints, columns: Ints) -> Floats:
        """``[i, j]``: ``column_value`` of throw ``columns[j]`` at ``totals[i]`` units, at once
        (the same rule for totals past the table)."""
        t = np.asarray(totals, dtype=np.int64)
        last = self.values.shape[0] - 1
        found: Floats = self.values[np.minimum(t, last)][:, columns]
        beyond = t > last
        if not beyond.any() or self.terminal is None:
            return found
        if self.rules.game.exact_target:
            found[beyond] = self.terminal.farkle  # T-9: past the target the turn is lost
            return found
        for i in np.flatnonzero(beyond):
            found[i] = [self.column_value(int(t[i]) * self.unit, int(c)) for c in columns]
        return found

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
        score = self.situation.score
        bank = banked_score(self.rules, score, t * self.unit) - score
        return float(bank) + self.terminal.bank_bonus

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


def turn_cap(rules: RuleSet, situation: Situation) -> int:
    """The turn totals solved (points): up to the room left under an exact target (T-9),
    else far enough that a larger total is taken as banked."""
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
    top = (cap if cap is not None and not exact else turn_cap(rules, situation)) // unit
    rows = top + 1
    width = len(model.nodes) + 2
    pad = model.max_points + 1
    values = np.zeros((rows + pad, width), dtype=np.float64)
    bank_values = model.compiled.bank_points(situation, rows + pad) + terminal.bank_bonus
    if exact:
        values[rows:, :] = terminal.farkle  # T-9: past the target the turn is lost
    else:
        values[rows:, :] = bank_values[rows:, None]
    values[:, FARKLE] = terminal.farkle
    values[:, WIN] = max(rules.game.target - situation.score, 0) + terminal.bank_bonus
    hands = model.hands
    hand_cols = np.asarray([model.column[h] for h in hands], dtype=np.int64)
    throw_cols = np.asarray([model.column[model.throw_of(h)] for h in hands], dtype=np.int64)
    bankable = model.compiled.bankable(situation, rows)
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


@dataclass(frozen=True)
class AverageReward:
    """The long-run average points per turn when turns depend on each other (F-1)."""

    average: float
    bias: tuple[float, ...]
    """Relative values of each count of farkles in a row."""
    solutions: tuple[TurnSolution, ...]
    """Each count's turn, solved with the biases the last iteration started from."""
    iterations: int
    """The steps the solve took: the average's root, then relative value iteration's check."""
    residual: float
    """The largest change of a bias in the last iteration."""


def solve_average_reward(
    rules: RuleSet,
    *,
    tolerance: float = 1e-10,
    max_iterations: int = 500,
    model: TurnModel | None = None,
    progress: Progress | None = None,
) -> AverageReward:
    """The long-run average points per turn under F-1, and each count's turn (relative value
    iteration's fixed point).

    From a count z, banking ends the streak (bias h[0] = 0); a farkle moves to z + 1, or
    costs the penalty and restarts at 0 on the last one. The fixed point of relative value
    iteration (``bias[z] = gain[z] - gain[0]``, each gain a turn solved with the bias it
    leads to) has one unknown, the average ``A = gain[0]``: the last count's turn does not
    depend on it, and from there down each count's farkle is worth ``gain[z + 1] - A``. So
    ``A`` is found as the root of ``gain[0](A) - A``. Each gain is convex in what a farkle
    is worth, with a slope between 0 and 1 (the chance of the farkle), so that function falls
    with a slope between -1 and -k (k the farkles of the penalty): secant steps land on its
    one root in a few solves, where relative value iteration from 0 took 17 iterations of
    every count for zilch. A last iteration from the root checks it: its largest change of
    a bias is the residual, and while it is above ``tolerance`` relative value iteration
    goes on from there (``max_iterations`` steps in all).

    ``progress(done, total)`` is called after each step: the steps done, and those expected
    in all (at most ``max_iterations``); the last call is ``(iterations, iterations)``.
    """
    model = model or TurnModel(rules)
    after = max(rules.turn.farkle_penalty_after, 1)
    penalty = rules.turn.farkle_penalty
    top = solve_turn(rules, model=model, terminal=Terminal(0.0, -penalty))
    steps = 0

    def step(expected: int) -> None:
        """One step done; ``expected``: the steps expected in all (at most
        ``max_iterations``, and the steps done once the solve ends)."""
        nonlocal steps
        steps += 1
        if progress is not None:
            progress(steps, min(max(expected, steps), max_iterations))

    def gains_at(average: float) -> list[float]:
        """Each count's gain where a farkle is worth the next count's gain less ``average``."""
        gains = [top.expected_turn] * after
        for z in range(after - 2, -1, -1):
            farkle = gains[z + 1] - average
            gains[z] = solve_turn(rules, model=model, terminal=Terminal(0.0, farkle)).expected_turn
        return gains

    bias = [0.0] * after
    if after > 1 and max_iterations > 1:  # the root of h(A) = gain[0](A) - A: a fixed-point
        # step, then secant steps, leaving one step to the check
        a0 = solve_turn(rules, model=model, terminal=Terminal(0.0, 0.0)).expected_turn
        gains = gains_at(a0)
        h0 = gains[0] - a0
        step(4)
        a1 = a0 + h0
        while steps < max_iterations - 1:
            gains = gains_at(a1)
            h1 = gains[0] - a1
            step(steps + 3)
            if abs(h1) < tolerance / 4 or h1 == h0:
                break
            a0, h0, a1 = a1, h1, a1 - h1 * (a1 - a0) / (h1 - h0)
        bias = [g - gains[0] for g in gains]
    # Relative value iteration from there: one iteration checks the root.
    residual = float("inf")
    average = 0.0
    solutions: list[TurnSolution] = []
    while True:  # at least once: the solutions returned are this iteration's
        solutions, gains = [], []
        for z in range(after):
            farkle = -penalty if z == after - 1 else bias[z + 1]
            solution = (
                top
                if z == after - 1
                else solve_turn(rules, model=model, terminal=Terminal(0.0, farkle))
            )
            solutions.append(solution)
            gains.append(solution.expected_turn)
        average = gains[0]
        new_bias = [g - average for g in gains]
        residual = max(abs(a - b) for a, b in zip(new_bias, bias, strict=True))
        bias = new_bias
        done = residual < tolerance or steps + 1 >= max_iterations
        step(steps + 1 if done else steps + 2)
        if done:
            break
    return AverageReward(average, tuple(bias), tuple(solutions), steps, residual)


__all__ = [
    "FARKLE",
    "SOLVER_VERSION",
    "WIN",
    "AverageReward",
    "Hand",
    "Node",
    "Progress",
    "Situation",
    "SituationError",
    "Terminal",
    "ThrowNode",
    "TurnModel",
    "TurnSolution",
    "check_score",
    "check_total",
    "farkle_probabilities",
    "solve_average_reward",
    "solve_turn",
    "turn_cap",
]
