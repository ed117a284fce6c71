"""The compiled form of the turn: the engine's rules tabulated once per rule set.

The turn solver, the game solver, the fast simulation kernel, the bots' tables and the advice
read the rules from here (or from the engine's public functions), never restated. Every
table is built by calling the engine's own rule functions (``turn_after_keep``,
``roll_verdict``, ``bank_refusal_of``, ``banked_score``...) on turns standing for each
state, and ``tests/engine/test_compiled.py`` checks them against games played through the
engine.

Layout (documented here and nowhere else)
-----------------------------------------

Nodes. A turn is a finite graph of nodes: *throw nodes* (``ThrowNode``: dice about to be
thrown, a chance node) and *decision nodes* (``Hand``: after a keep, before banking or
throwing). A node keeps only what the rules read: the number of dice, the dice set aside
and their multiples where the variants score across throws (V-6, V-7, ``track_aside``),
a figure awaiting confirmation (V-1), whether one throw reached the entry (T-7 by throw,
``track_met``), the F-2 rethrow, jokers (V-2).

Columns. A packed turn state is ``(t, c)``: ``t`` the turn total in units of the rule set's
smallest step (``rules.unit``), ``c`` a column: ``FARKLE`` (0: the turn is lost), ``WIN``
(1: an instant win, G-5), then ``column[node]`` for each node (from 2, in the order the
graph is discovered from ``start``, depth first); ``nodes[c - 2]`` reads a column back.
Value tables of the solvers are ``values[t, c]``.

Rolls. ``rolls[n]``: every multiset of ``n`` faces (``multisets(n)`` order) with its exact
probability; ``face_code(dice)`` is the counts of faces 1..6 as base-7 digits, and
``roll_index[face_code(dice)]`` the index of a roll among the rolls of its size.

Options. ``options[node][j]``: what roll ``j`` of throw node ``node`` offers, sorted
``(points, column)`` pairs (points in units): one per distinct destination of its legal
keeps (a keep, or a keep then jokers set aside); ``((0, WIN),)`` for an instant win,
``((0, FARKLE),)`` for a farkle, ``((0, c),)`` when the jokers are thrown after a farkle.

Flat form. ``flat`` (``FlatTurn``) is the graph as arrays (CSR), which the turn solver, the
game solver's kernels (on the CPU and the GPU) and the fast simulator take as they are.
Throw nodes are in *solving order*, by dependency level: a node of level ``k`` reads, at its
own total (an option worth no points, V-2's jokers thrown after a farkle), only nodes of
lower levels; ``level_start[k]:level_start[k + 1]`` are the nodes of level ``k`` (one level
without jokers), each level in column order; ``node_col[k]`` is the column of throw node
``k``. Per roll: ``roll_start[k]:roll_start[k + 1]`` are the rolls of node ``k`` (``rolls[n]``
order), and ``roll_opt_start[r]:roll_opt_start[r + 1]`` the options of roll ``r``, each
``(roll_opt_pts, roll_opt_dest)``, ``roll_prob[r]`` its probability: the fast simulator draws
a roll and reads its options, the turn solver takes the expectation over them. Per
signature (the rolls of a node merged when they offer the same options, their probabilities
added): ``sig_start[k]:sig_start[k + 1]`` are the signatures of node ``k`` (so the
signatures of a level are contiguous too), ``sig_prob`` their probabilities,
``opt_start[s]:opt_start[s + 1]`` the options of signature ``s``, each ``(opt_pts,
opt_dest)``: the solvers take the expectation over them. Decision nodes: ``hand_col[h]`` is
the column of ``hands[h]``, ``hand_throw_col[h]`` the column of the throw it leads to,
``hand_free[h]`` its dice not set aside; ``throw_hands[throw_hand_start[k]:throw_hand_start[k
+ 1]]`` are the hands that throw from node ``k``. ``start_col`` is the fresh turn's column,
``columns`` the width of a value table, ``max_points`` the most one roll adds. The arrays are
read-only and int64 (float64 for probabilities); the GPU takes int32 copies of the same.

Banks. ``bank_refusals(situation, rows)[t, h]``: 0 where decision node ``hands[h]`` may bank
a total of ``t`` units, else ``1 + BANK_RULES.index(rule)`` for the first rule that
refuses (``bankable`` is ``== 0``). ``bank_points(situation, rows)[t]``: the points a bank
of ``t`` units writes, in points (G-7 may stop it below the target).

Game end. ``bank_outcomes(score, rows)``: for a player at ``score`` units and each total
``t < rows``: the score a bank writes (units), whether it reaches the target (G-2), whether
the turn is lost past an exact target (T-9). ``game_end(rows)`` stacks them for every score
from 0 to the target, for the fast kernel (see ``GameEnd``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

from zloutch.engine.game import (
    BANK_RULES,
    bank_refusal_of,
    banked_score,
    joker_choices,
    jokers_owed,
    lands_on_target,
    passes_target,
    reaches_target,
    roll_verdict,
    turn_after_joker_farkle,
    turn_after_jokers,
    turn_after_keep,
    turn_after_throw,
    turn_taken_back,
)
from zloutch.engine.state import TakeBackOffer, TurnState
from zloutch.rules.dice import Dice, Face, multisets, probability
from zloutch.rules.ruleset import RuleSet
from zloutch.rules.scoring import NO_CONTEXT, HandContext, ScoredKeep, ScoreTable, score_table

FARKLE, WIN = 0, 1
"""The two columns that end a turn: lost, and won at once (G-5)."""
UNSEEN: Face = 2
"""The face given to dice set aside that a node does not track (no V-6, V-7): only their
count matters then."""
ROWS_STEP = 256
"""Bank tables are built for a multiple of this many totals and cut to the rows asked."""

if TYPE_CHECKING:  # NumPy is imported by the tables that need it, not by the graph
    import numpy as np
    import numpy.typing as npt

    Ints = npt.NDArray[np.int64]
    Bools = npt.NDArray[np.bool_]
    Floats = npt.NDArray[np.float64]
Option = tuple[int, int]
"""``(points in units, column)``."""


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


@dataclass(frozen=True)
class Situation:
    """Who plays the turn: it changes which banks are allowed and what points are worth."""

    entered: bool = True
    score: int = 0
    inherited: int = 0
    """Points taken back (G-8) that do not count toward entry (``take_back_counts_for_entry``
    off): the player must add the entry on top of them."""

    @classmethod
    def normalise(cls, rules: RuleSet, entered: bool, score: int, inherited: int = 0) -> Situation:
        """Drop what this rule set ignores, so that equal solutions share one key."""
        t = rules.turn
        needs_entered = t.entering_matters
        needs_score = cls.score_matters(rules)
        entered = entered if needs_entered else True
        counts_apart = not rules.game.take_back_counts_for_entry and t.entry_by == "turn"
        needs_inherited = not entered and bool(t.entry) and counts_apart
        return cls(entered, score if needs_score else 0, inherited if needs_inherited else 0)

    @staticmethod
    def score_matters(rules: RuleSet) -> bool:
        """Whether the banked score changes the turn (T-9, G-7, T-10, a keep that wins)."""
        t, g = rules.turn, rules.game
        needs_score = g.exact_target or g.last_thousand or t.full_hand_win
        return needs_score or any(v == "win" for v in rules.kinds_values().values())


@dataclass(frozen=True)
class BankOutcomes:
    """What banking each total (units, from 0) does to a player at one score."""

    score: Ints
    """The score written (units; G-7 may stop it below the target)."""
    reached: Bools
    """It reaches the target (G-2; exactly, T-9)."""
    lost: Bools
    """The turn is lost before any bank: it passes an exact target (T-9). With ``overshoot =
    "throw_on"`` the engine throws on past it, which only ends in a farkle (the solvers do
    not model an instant win there: ``strategy.game_solver.unsupported_reason``)."""


@dataclass(frozen=True, eq=False)
class GameEnd:
    """The end of a game for the fast kernel, by score ``a`` (units, 0 to the target) and
    total ``t`` (units; a total past the last column reads the last column)."""

    target: int
    """In units."""
    final_turns: bool
    """F-4: reaching the target gives every other player one more turn."""
    final_round: bool
    """G-6: reaching the target finishes the round; a player who also reaches it in that
    round crosses the first one's level and opens a new round (``engine.game``)."""
    cut: Ints
    """``cut[a, t]``: ``a + t`` less the score a bank writes (G-7)."""
    lost: Bools
    """``lost[a, t]``: the turn is lost, past an exact target (T-9)."""
    reached: Bools
    """``reached[x]``: a score of ``x`` units reaches the target (past the end: the last)."""


@dataclass(frozen=True, eq=False)
class FlatTurn:
    """The compiled turn as flat arrays (CSR), the one form the kernels read (the module's
    docstring, "Flat form")."""

    columns: int
    node_col: Ints
    sig_start: Ints
    sig_prob: Floats
    opt_start: Ints
    opt_pts: Ints
    opt_dest: Ints
    hand_col: Ints
    hand_throw_col: Ints
    start_col: int
    max_points: int
    roll_start: Ints
    roll_opt_start: Ints
    roll_opt_pts: Ints
    roll_opt_dest: Ints
    node_dice: Ints
    hand_free: Ints
    roll_prob: Floats
    level_start: Ints
    throw_hand_start: Ints
    throw_hands: Ints

    @property
    def options(self) -> int:
        """The number of options over every signature."""
        return int(self.opt_pts.shape[0])

    @property
    def levels(self) -> int:
        """The number of dependency levels (the module's docstring, "Flat form")."""
        return int(self.level_start.shape[0]) - 1

    def level_error(self) -> str | None:
        """Why these arrays break the solving order (a sentence), or None: a node that reads,
        at its own total, a column not solved before its level (the kernels would read a
        value not written yet), options with negative points (rows are solved downwards), or
        a roll with no option at all (the kernels would read the next roll's).
        """
        import numpy as np

        if (self.opt_pts < 0).any():
            return "an option with negative points: the rows are solved downwards"
        if (np.diff(self.roll_opt_start) <= 0).any():
            # every roll leads somewhere (a farkle and a win are columns): a roll without one
            # would make the kernels read the next roll's options
            return "a roll with no option: a throw that the rules leave with no way on"
        level_of = {}
        for k in range(self.levels):
            for n in range(int(self.level_start[k]), int(self.level_start[k + 1])):
                level_of[int(self.node_col[n])] = k
        for k in range(self.levels):
            for n in range(int(self.level_start[k]), int(self.level_start[k + 1])):
                for s in range(int(self.sig_start[n]), int(self.sig_start[n + 1])):
                    for o in range(int(self.opt_start[s]), int(self.opt_start[s + 1])):
                        dest = int(self.opt_dest[o])
                        if self.opt_pts[o] == 0 and dest > 1 and level_of.get(dest, k) >= k:
                            return (
                                f"node {n} reads column {dest} at its own total before it is solved"
                            )
        return None


def face_code(dice: Dice) -> int:
    """The code of a multiset of faces: the counts of faces 1..6 as base-7 digits."""
    return sum(7 ** (f - 1) for f in dice)


_Array = TypeVar("_Array", bound="npt.NDArray[Any]")


def _frozen(array: _Array) -> _Array:
    """The array, marked read-only: compiled tables are shared by every reader."""
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class CompiledTurn:
    """The turn of one rule set as a graph and tables (see the module's docstring)."""

    rules: RuleSet
    unit: int
    table: ScoreTable
    track_aside: bool
    """V-6, V-7: what a throw scores depends on the dice set aside, so nodes keep them."""
    track_met: bool
    """T-7 by one throw: nodes keep whether a throw reached the entry."""
    start: ThrowNode
    nodes: tuple[Node, ...]
    column: Mapping[Node, int]
    options: Mapping[ThrowNode, tuple[tuple[Option, ...], ...]]
    rolls: Mapping[int, tuple[tuple[Dice, float], ...]]

    @cached_property
    def roll_index(self) -> Ints:
        """``roll_index[face_code(dice)]``: the index of a roll among the rolls of its size."""
        import numpy as np

        found = np.full(7**6, -1, dtype=np.int64)
        for group in self.rolls.values():
            for j, (d, _) in enumerate(group):
                found[face_code(d)] = j
        return _frozen(found)

    # ------------------------------------------------------------------ engine <-> nodes

    def turn_at(self, node: Node, throw: Dice = ()) -> TurnState:
        """A turn of the engine that stands for a node (total 0; ``throw`` on the table)."""
        dice = self.rules.dice
        best = self.rules.turn.entry if node.met else 0
        if isinstance(node, Hand):
            count = dice - node.free if node.free else dice
            aside = node.aside if self.track_aside and node.free else (UNSEEN,) * count
            return TurnState(
                player=0,
                set_aside=aside,
                multiples=node.multiples,
                full_hand=node.free == 0,
                pending=node.pending,
                best_throw=best,
                rethrow=node.rethrow,
            )
        count = dice - node.n - len(node.jokers) - node.waiting
        aside = node.aside if self.track_aside else (UNSEEN,) * count
        return TurnState(
            player=0,
            set_aside=aside,
            multiples=node.multiples,
            jokers=node.jokers,
            joker_points=node.joker_points * self.unit,
            rolling=node.n,
            joker_roll=node.joker_roll,
            throw=throw,
            pending=node.pending,
            best_throw=best,
        )

    def _met(self, t: TurnState) -> bool:
        return self.track_met and t.best_throw >= self.rules.turn.entry

    def hand_of(self, t: TurnState) -> Hand:
        """The decision node of an engine turn after a keep."""
        met = self._met(t)
        if t.full_hand:
            return Hand(0, (), (), t.pending, met, t.rethrow)
        free = self.rules.dice - len(t.set_aside)
        if self.track_aside:
            return Hand(free, t.set_aside, t.multiples, t.pending, met, t.rethrow)
        return Hand(free, pending=t.pending, met=met, rethrow=t.rethrow)

    def throw_node_of(self, t: TurnState) -> ThrowNode:
        """The throw node of an engine turn whose dice roll, or lie on the table unkept."""
        waiting = self.rules.dice - len(t.set_aside) - len(t.jokers) - t.rolling
        track = self.track_aside
        return ThrowNode(
            t.rolling,
            t.set_aside if track else (),
            t.multiples if track else (),
            t.pending,
            self._met(t),
            jokers=t.jokers,
            joker_points=t.joker_points // self.unit,
            waiting=waiting if t.joker_roll else 0,
            joker_roll=t.joker_roll,
        )

    def throw_of(self, hand: Hand) -> ThrowNode:
        """The throw a decision node leads to (all the dice again after a full hand)."""
        return self.throw_node_of(turn_after_throw(self.rules, self.turn_at(hand), fresh=False))

    def take_node(self, offer: TakeBackOffer) -> ThrowNode:
        """The throw of a turn taken back (G-8): the previous player's dice left."""
        return self.throw_node_of(turn_taken_back(0, offer))

    def context(self, node: ThrowNode) -> HandContext:
        return HandContext(node.aside, node.multiples) if self.track_aside else NO_CONTEXT

    def keep_options(self, node: ThrowNode, roll: Dice, keep: ScoredKeep) -> list[Option]:
        """Where a keep of ``roll`` at ``node`` leads: ``(points, column)``, then each set of
        jokers set aside after it (V-2)."""
        return _keep_options(self, node, roll, keep, self._lookup)

    def _lookup(self, node: Node) -> int:
        return self.column[node]

    # ------------------------------------------------------------------ views

    @property
    def hands(self) -> list[Hand]:
        return [n for n in self.nodes if isinstance(n, Hand)]

    @property
    def throw_nodes(self) -> list[ThrowNode]:
        return list(self.options)

    @cached_property
    def throw_levels(self) -> tuple[tuple[ThrowNode, ...], ...]:
        """The throw nodes by dependency level, each in column order (the module's docstring,
        "Flat form"): a node's options worth no points (V-2's jokers thrown after a farkle)
        lead only to nodes of lower levels."""
        depth: dict[int, int] = {}
        nodes = {self.column[n]: n for n in self.options}

        def level(node: ThrowNode, seen: frozenset[int]) -> int:
            col = self.column[node]
            if col not in depth:
                if col in seen:
                    raise ValueError(f"throw column {col} reads itself at the same total")
                below = [
                    level(nodes[dest], seen | {col})
                    for options in self.options[node]
                    for points, dest in options
                    if points == 0 and dest in nodes
                ]
                depth[col] = 1 + max(below, default=-1)
            return depth[col]

        for node in self.options:
            level(node, frozenset())
        top = max(depth.values(), default=-1)
        return tuple(
            tuple(n for n in self.options if depth[self.column[n]] == k) for k in range(top + 1)
        )

    @property
    def throw_order(self) -> list[ThrowNode]:
        """The throw nodes in solving order (the module's docstring, "Flat form")."""
        return [n for level in self.throw_levels for n in level]

    @cached_property
    def flat(self) -> FlatTurn:
        """The graph as flat arrays (``FlatTurn``), built once."""
        return _flat(self)

    @property
    def max_points(self) -> int:
        """The largest points one roll can add, in units."""
        return max((p for opts in self.options.values() for o in opts for p, _ in o), default=0)

    # ------------------------------------------------------------------ banks, game end

    def bank_refusals(self, situation: Situation, rows: int) -> npt.NDArray[np.int8]:
        """``[t, h]``: 0 where ``hands[h]`` may bank ``t`` units, else 1 + the index in
        ``BANK_RULES`` of the rule that refuses (read-only)."""
        return _bank_refusals(self, situation, _rounded(rows))[:rows]

    def bankable(self, situation: Situation, rows: int) -> Bools:
        """``[t, h]``: whether ``hands[h]`` may bank a total of ``t`` units (read-only)."""
        return _bankable(self, situation, _rounded(rows))[:rows]

    def bank_points(self, situation: Situation, rows: int) -> Floats:
        """``[t]``: the points a bank of ``t`` units adds to the score (G-7), read-only."""
        return _bank_points(self, situation, _rounded(rows))[:rows]

    def bank_outcomes(self, score: int, rows: int) -> BankOutcomes:
        """What a bank of each total below ``rows`` units does at ``score`` units."""
        full = _bank_outcomes(self, score, _rounded(rows))
        return BankOutcomes(full.score[:rows], full.reached[:rows], full.lost[:rows])

    def game_end(self, rows: int) -> GameEnd:
        """The end of the game by score and total (totals below ``rows`` units at least)."""
        return _game_end(self, rows)


def _flat(ct: CompiledTurn) -> FlatTurn:
    import numpy as np

    node_col: list[int] = []
    sig_start, opt_start, roll_start, roll_opt_start = [0], [0], [0], [0]
    opt_pts: list[int] = []
    opt_dest: list[int] = []
    roll_pts: list[int] = []
    roll_dest: list[int] = []
    sig_prob_f: list[float] = []
    roll_prob: list[float] = []
    order = ct.throw_order
    for node in order:
        merged: dict[tuple[Option, ...], float] = {}
        for (_, p), options in zip(ct.rolls[node.n], ct.options[node], strict=True):
            merged[options] = merged.get(options, 0.0) + p
            roll_prob.append(p)
            for points, dest in options:
                roll_pts.append(points)
                roll_dest.append(dest)
            roll_opt_start.append(len(roll_pts))
        roll_start.append(len(roll_opt_start) - 1)
        node_col.append(ct.column[node])
        for options, p in merged.items():
            sig_prob_f.append(p)
            for points, dest in options:
                opt_pts.append(points)
                opt_dest.append(dest)
            opt_start.append(len(opt_pts))
        sig_start.append(len(sig_prob_f))
    hands = ct.hands
    position = {ct.column[node]: k for k, node in enumerate(order)}
    throw_of = [position[ct.column[ct.throw_of(h)]] for h in hands]
    throw_hands = [h for k in range(len(order)) for h, m in enumerate(throw_of) if m == k]
    throw_hand_start = [0, *np.cumsum([throw_of.count(k) for k in range(len(order))]).tolist()]

    def ints(values: list[int]) -> Ints:
        return _frozen(np.asarray(values, dtype=np.int64))

    flat = FlatTurn(
        columns=len(ct.nodes) + 2,
        node_col=ints(node_col),
        sig_start=ints(sig_start),
        sig_prob=_frozen(np.asarray(sig_prob_f, dtype=np.float64)),
        opt_start=ints(opt_start),
        opt_pts=ints(opt_pts),
        opt_dest=ints(opt_dest),
        hand_col=ints([ct.column[h] for h in hands]),
        hand_throw_col=ints([ct.column[ct.throw_of(h)] for h in hands]),
        start_col=ct.column[ct.start],
        max_points=ct.max_points,
        roll_start=ints(roll_start),
        roll_opt_start=ints(roll_opt_start),
        roll_opt_pts=ints(roll_pts),
        roll_opt_dest=ints(roll_dest),
        node_dice=ints([n.n for n in order]),
        hand_free=ints([h.free for h in hands]),
        roll_prob=_frozen(np.asarray(roll_prob, dtype=np.float64)),
        level_start=ints([0, *np.cumsum([len(k) for k in ct.throw_levels]).tolist()]),
        throw_hand_start=ints(throw_hand_start),
        throw_hands=ints(throw_hands),
    )
    error = flat.level_error()
    if error is not None:  # pragma: no cover - the levels above are built to prevent it
        raise AssertionError(f"the compiled turn's solving order is broken: {error}")
    return flat


def _rounded(rows: int) -> int:
    return max(-(-rows // ROWS_STEP), 1) * ROWS_STEP


# ---------------------------------------------------------------------- building the graph


def _keep_options(
    ct: CompiledTurn, node: ThrowNode, roll: Dice, keep: ScoredKeep, col: Callable[[Node], int]
) -> list[Option]:
    rules, unit = ct.rules, ct.unit
    after = turn_after_keep(rules, ct.turn_at(node, roll), keep)
    points = after.total // unit
    # keep_all_scoring with jokers: a keep that leaves scoring dice leads to its jokers only
    found = [] if jokers_owed(rules, after) else [(points, col(ct.hand_of(after)))]
    for joker in joker_choices(rules, after):
        jokers = turn_after_throw(rules, turn_after_jokers(after, joker), fresh=False)
        found.append((points, col(ct.throw_node_of(jokers))))
    return found


def _roll_options(
    ct: CompiledTurn, node: ThrowNode, roll: Dice, col: Callable[[Node], int]
) -> tuple[Option, ...]:
    rules = ct.rules
    turn = ct.turn_at(node, roll)
    reading = ct.table.lookup(roll, ct.context(node))
    verdict = roll_verdict(rules, turn, reading)
    if verdict == "win":
        return ((0, WIN),)
    if verdict == "jokers":
        return ((0, col(ct.throw_node_of(turn_after_joker_farkle(rules, turn)))),)
    if verdict == "farkle":
        return ((0, FARKLE),)
    found: set[Option] = set()
    for keep in reading.keeps:
        found.update(_keep_options(ct, node, roll, keep, col))
    return tuple(sorted(found))


@lru_cache(maxsize=32)
def compile_turn(rules: RuleSet) -> CompiledTurn:
    """The compiled turn of a rule set, built once."""
    dice = rules.dice
    rolls = {n: tuple((d, float(probability(d))) for d in multisets(n)) for n in range(1, dice + 1)}
    nodes: list[Node] = []
    column: dict[Node, int] = {}
    options: dict[ThrowNode, tuple[tuple[Option, ...], ...]] = {}
    todo: list[Node] = []
    ct = CompiledTurn(
        rules=rules,
        unit=rules.unit,
        table=score_table(rules),
        track_aside=rules.variants.across_throws,
        track_met=rules.turn.entry_by == "throw" and rules.turn.entry > 0,
        start=ThrowNode(0),  # set below, from the engine's fresh throw
        nodes=(),
        column=MappingProxyType(column),
        options=MappingProxyType(options),
        rolls=MappingProxyType(rolls),
    )

    def col(node: Node) -> int:
        if node not in column:
            column[node] = len(nodes) + 2
            nodes.append(node)
            todo.append(node)
        return column[node]

    start = ct.throw_node_of(turn_after_throw(rules, TurnState(player=0), fresh=True))
    col(start)
    while True:
        while todo:
            node = todo.pop()
            if isinstance(node, Hand):
                col(ct.throw_of(node))
            else:
                options[node] = tuple(
                    _roll_options(ct, node, roll, col) for roll, _ in rolls[node.n]
                )
        # Every hand left with dice on the table may be taken back by the next player (G-8).
        extra = [
            ct.take_node(TakeBackOffer(0, h.free, ct.turn_at(h).set_aside, h.multiples))
            for h in list(nodes)
            if isinstance(h, Hand) and h.free > 0
        ]
        added = [x for x in extra if x not in column]
        if not added:
            break
        for node in added:
            col(node)
    return replace(ct, start=start, nodes=tuple(nodes))


# ---------------------------------------------------------------------- banks and game end


@lru_cache(maxsize=64)
def _refusal_classes(
    ct: CompiledTurn, entered: bool, inherited: int, lands: bool, rows: int
) -> npt.NDArray[np.int8]:
    """Refusal codes for each total and each hand, asked of the engine once per kind of
    hand: the bank rules read the hand's flags (full hand, V-1, F-2, T-7 by throw), no die."""
    import numpy as np

    rules, unit = ct.rules, ct.unit
    hands = ct.hands
    codes = np.zeros((rows, len(hands)), dtype=np.int8)
    kinds: dict[tuple[bool, bool, bool, bool], list[int]] = {}
    for h, hand in enumerate(hands):
        kinds.setdefault((hand.free == 0, hand.pending, hand.rethrow, hand.met), []).append(h)
    for members in kinds.values():
        base = replace(ct.turn_at(hands[members[0]]), inherited=inherited)
        column = np.zeros(rows, dtype=np.int8)
        for t in range(rows):
            turn = replace(base, total=t * unit)
            refusal = bank_refusal_of(rules, turn, entered=entered, lands=lands)
            column[t] = 0 if refusal is None else 1 + BANK_RULES.index(refusal.rule)
        codes[:, members] = column[:, None]
    return _frozen(codes)


@lru_cache(maxsize=1024)
def _bank_refusals(ct: CompiledTurn, situation: Situation, rows: int) -> npt.NDArray[np.int8]:
    import numpy as np

    rules, unit = ct.rules, ct.unit
    entered, inherited = situation.entered, situation.inherited
    plain = _refusal_classes(ct, entered, inherited, False, rows)
    lands = [lands_on_target(rules, situation.score, t * unit) for t in range(rows)]
    if not any(lands):
        return plain
    landing = _refusal_classes(ct, entered, inherited, True, rows)
    return _frozen(np.where(np.asarray(lands)[:, None], landing, plain))


@lru_cache(maxsize=1024)
def _bankable(ct: CompiledTurn, situation: Situation, rows: int) -> Bools:
    return _frozen(_bank_refusals(ct, situation, rows) == 0)


@lru_cache(maxsize=1024)
def _bank_points(ct: CompiledTurn, situation: Situation, rows: int) -> Floats:
    import numpy as np

    rules, unit, score = ct.rules, ct.unit, situation.score
    points = [banked_score(rules, score, t * unit) - score for t in range(rows)]
    return _frozen(np.asarray(points, dtype=np.float64))


@lru_cache(maxsize=4096)
def _bank_outcomes(ct: CompiledTurn, score: int, rows: int) -> BankOutcomes:
    import numpy as np

    rules, unit = ct.rules, ct.unit
    points = score * unit
    written = [banked_score(rules, points, t * unit) for t in range(rows)]
    return BankOutcomes(
        score=_frozen(np.asarray([w // unit for w in written], dtype=np.int64)),
        reached=_frozen(np.asarray([reaches_target(rules, w) for w in written], dtype=np.bool_)),
        lost=_frozen(
            np.asarray(
                [passes_target(rules, points, t * unit) for t in range(rows)], dtype=np.bool_
            )
        ),
    )


@lru_cache(maxsize=8)
def _game_end(ct: CompiledTurn, rows: int) -> GameEnd:
    import numpy as np

    rules, unit = ct.rules, ct.unit
    target = -(-rules.game.target // unit)
    width = max(rows, target + 2)
    outcomes = [ct.bank_outcomes(a, width) for a in range(target + 1)]
    t = np.arange(width, dtype=np.int64)
    cut = np.stack([a + t - o.score for a, o in enumerate(outcomes)])
    lost = np.stack([o.lost for o in outcomes])
    reached = np.asarray(
        [reaches_target(rules, x * unit) for x in range(target + 2)], dtype=np.bool_
    )
    return GameEnd(
        target=target,
        final_turns=rules.game.final_turns,
        final_round=rules.game.final_round,
        cut=_frozen(cut),
        lost=_frozen(lost),
        reached=_frozen(reached),
    )


__all__ = [
    "BANK_RULES",
    "FARKLE",
    "WIN",
    "BankOutcomes",
    "CompiledTurn",
    "FlatTurn",
    "GameEnd",
    "Hand",
    "Node",
    "Situation",
    "ThrowNode",
    "compile_turn",
    "face_code",
]
