"""Exact winning play for two players: the probability that the player to move wins.

State: the mover's banked score ``a``, the opponent's ``b`` (in units of the rule set's step),
and within the turn the total and the hand (the turn graph of ``turn_solver``). Banking moves
to a state whose scores add up to more; a farkle hands the turn over at the same scores. So
the pairs are solved by sum of scores, from the highest down: one sweep, where each level is
a fixed point between (a, b) and (b, a) coupled only by what a farkle is worth. The value of
a turn is piecewise linear and convex in that farkle value, so Newton's method on it (with
derivatives carried through the turn) converges in a few passes; the residual is reported.

Supported: every rule set whose game state is the two scores (no ticks G-3, no bumps G-4,
no take-back G-8, no final round G-6), with exact or reach targets (T-9), the last 1000 in
one turn (G-7), final turns (F-4), instant wins (G-5) and every turn rule and variant of the
turn solver; and the consecutive-farkle penalty (F-1, without entry, final turns or G-7),
whose state adds both players' farkles in a row and scores below 0, bounded below at
``-FLOOR`` points as in Busche's analysis (``_solve_penalty``). Others are refused with the
reason; ``sheet_blind`` gives the model the optimal bot plays dix-mille's sheet rules by.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from zloutch.engine.compiled import CompiledTurn, Situation
from zloutch.rules.errors import ZloutchError
from zloutch.rules.ruleset import RuleSet
from zloutch.strategy.kernels import (
    Lanes,
    LevelBanks,
    PairsProblem,
    ScoreBanks,
    Sweep,
    Tables,
    aligned_empty,
    build_tables,
    default_threads,
    numba_available,
    solve_levels,
    solve_pairs,
)
from zloutch.strategy.turn_solver import TurnModel, TurnSolution

GAME_SOLVER_VERSION = 3
Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
MARGIN = 40
"""Totals this many units past a reach target are taken as banked (a won game); a solve
keeps fewer where every total from there is surely a won bank (``_Game.least_margin``)."""


FLOOR = 2500
"""F-1: the lowest score (points below 0) the solver keeps, as in Busche's analysis (2016)."""
MIXING = 5
"""F-1: the differences between successive sweeps that Anderson's mixing combines (it keeps
the last ``MIXING + 1`` sweeps; ``_Mixing``; 0: every sweep reads the last one's values as
they are)."""
MIXED_BELOW = 1e-3
"""F-1: the mixing starts after the first sweep whose largest change is below this (the
policy settled: from there a sweep is nearly an affine map of the values it reads). A sweep
whose change does not fall below the last one's starts it again from that sweep."""
FIELD_CACHE = 512
"""Turn tables against several opponents that ``PairSolutions.field_turn`` keeps (the
least recently read goes first): a game of three or more rarely meets the same scores twice."""


class UnsupportedRulesError(ZloutchError):
    """A rule set whose game the exact solver does not model."""


def history_rules(rules: RuleSet) -> list[tuple[str, str]]:
    """The rules in force that make the game's state more than the two scores: ticks (G-3),
    bumps (G-4), take-back (G-8), the final round (G-6); each with how to switch it off
    ('' where no option does). The solver does not model them (the fast simulator plays
    them all, but not together with F-1)."""
    g = rules.game
    found = []
    if g.ticks_to_cross:
        found.append((SHEET_WORDS["ticks_to_cross"], "switch them off with ticks_to_cross=0"))
    if g.bump != "off":
        found.append((SHEET_WORDS["bump"], "switch them off with bump=off"))
    if g.take_back:
        found.append((SHEET_WORDS["take_back"], "switch it off with take_back=false"))
    if g.final_round:
        found.append(("the final round (G-6)", ""))
    return found


def unsupported_reason(rules: RuleSet, *, how: bool = True) -> str | None:
    """Why the exact game solver cannot solve this rule set (None: it can); ``how``: with
    the option that switches each rule off (for someone choosing what to solve, not for a
    player reviewing the game they played)."""
    g, t = rules.game, rules.turn
    reasons = [f"{name}: {off}" if off and how else name for name, off in history_rules(rules)]
    if t.farkle_penalty:
        others = [
            name
            for name, on in (
                ("an entry (T-7)", bool(t.entry)),
                ("the small level (T-8)", t.petit_palier),
                ("final turns (F-4)", g.final_turns),
                ("the last 1000 (G-7)", g.last_thousand),
            )
            if on
        ]
        if others:
            together = ", ".join(others)
            reasons.append(f"the consecutive-farkle penalty (F-1) together with {together}")
    if g.max_players < 2:  # it solves the game of two
        reasons.append("a game of one player")
    elif g.min_players > 2:
        reasons.append(f"a game of {g.min_players} players or more, never two")
    if t.fresh_farkle_penalty:
        reasons.append("the penalty for a blank first throw (fresh_farkle_penalty)")
    if g.exact_target and g.overshoot == "throw_on" and "win" in rules.kinds_values().values():
        reasons.append("a throw that wins at once past an exact target (T-9, overshoot = throw_on)")
    if not reasons:
        return None
    return "the exact game solver does not model " + "; ".join(reasons)


SHEET_OPTIONS: dict[str, bool | int | str] = {
    "ticks_to_cross": 0,
    "bump": "off",
    "take_back": False,
}
"""The rules whose state is the sheet's history (G-3 ticks, G-4 bumps, G-8 take-back), off."""

SHEET_NAMES: dict[str, tuple[str, str]] = {
    "ticks_to_cross": ("ticks", "G-3"),
    "bump": ("bumps", "G-4"),
    "take_back": ("take-back", "G-8"),
}
"""Each of ``SHEET_OPTIONS``: its rule in words, and the rule's id."""
SHEET_WORDS = {option: f"{words} ({rule})" for option, (words, rule) in SHEET_NAMES.items()}
"""Each of ``SHEET_OPTIONS`` in words, with its rule id: ``ticks (G-3)``."""


def solved_model(rules: RuleSet) -> RuleSet | None:
    """The rule set whose solved game the optimal bot, the hint and the review read for a
    game of ``rules``: the rules themselves where the solver models them, else their
    sheet-blind model (``sheet_blind``), played one turn ahead on the sheet; None: neither."""
    return rules if unsupported_reason(rules) is None else sheet_blind(rules)


def sheet_blind(rules: RuleSet) -> RuleSet | None:
    """The model the optimal bot plays a rule set by when the sheet's history matters.

    The same rules with ticks (G-3), bumps (G-4) and take-back (G-8) switched off: the game
    solver solves it exactly, and the bot plays its choices under the full rules, reading
    the state by the banked scores, one turn ahead on the sheet (``PairSolutions.sheet_turn``:
    the tick that crosses a level and the bank that bumps are counted at the scores they
    leave). It approximates: past this turn a farkle costs nothing (no tick, no level
    crossed) and a bank neither bumps nor is bumped, and a take-back offer is valued as a
    throw of the dice left, not as a gift to the opponent.
    None when the rule set needs no model (it solves exactly) or another rule is in the
    way (G-6). Under F-1 the model is read without the look-ahead (``looks_ahead``).
    """
    if unsupported_reason(rules) is None:
        return None
    from zloutch.engine.endings import check_endings
    from zloutch.rules.errors import InvalidRulesError
    from zloutch.rules.loader import with_options

    g = rules.game
    current = {"ticks_to_cross": g.ticks_to_cross, "bump": g.bump, "take_back": g.take_back}
    changes = {k: v for k, v in SHEET_OPTIONS.items() if current[k] != v}
    try:  # without ticks a score may be stuck (T-9): such a model has no solution to play by
        blind = with_options(rules, changes, check=check_endings)
    except InvalidRulesError:
        return None
    return blind if unsupported_reason(blind) is None else None


@dataclass(frozen=True)
class GameSolution:
    """Win probabilities at the start of every turn, by the two scores."""

    rules: RuleSet
    unit: int
    target: int
    """The target in units."""
    win: Floats
    """``win[a, b]``: the probability that the mover, at a with the opponent at b, wins."""
    residual: float
    """The largest |w - F(w)| left over all pairs (Newton's stopping test)."""
    passes: int
    """Kernel passes over all the levels (a sweep is one pass per level)."""
    levels: int
    states: int
    """(pair, total, column) values computed in one pass of every level."""
    last_turn: tuple[Floats, Floats] | None = None
    margin: int = MARGIN
    low: int = 0
    """F-1: the lowest score (units, at most 0); a penalty below it stops there."""
    counts: Floats | None = None
    """F-1: ``counts[fa, fb, a - low, b - low]``, the mover having farkled ``fa`` turns in a
    row and the opponent ``fb``; ``win`` is its slice at no farkle and scores from 0."""
    sweeps: int = 1
    """Sweeps over all the levels (F-1: until the penalty's values stop moving)."""

    @property
    def first_player(self) -> float:
        """The first player's chance to win from the start, both playing optimally."""
        return float(self.win[0, 0])

    def with_head_start(self, points: int) -> float:
        """The first player's chance when the second starts with ``points``."""
        return float(self.win[0, points // self.unit])

    def fair_compensation(self) -> tuple[int, float]:
        """The head start for the second player that makes the game fairest."""
        column = self.win[0, :]
        b = int(np.nanargmin(np.abs(column - 0.5)))  # NaN: a pair that has no value
        return b * self.unit, float(column[b])


def _target_units(rules: RuleSet) -> int:
    return -(-rules.game.target // rules.unit)


def entered_at(rules: RuleSet, score: int) -> bool:
    """Whether the game solver reads a player at ``score`` as entered (T-7): its states are
    the scores alone, and a player at 0 (or below, after F-1's penalty) has not entered
    where an entry is needed."""
    return score > 0 or not rules.turn.entry


class _Game:
    """The pieces one solve shares: graph, tables, hands, last-turn table."""

    def __init__(
        self, rules: RuleSet, backend: str, xp: Any, margin: int = MARGIN, threads: int = 1
    ) -> None:
        self.margin = margin
        self.threads = threads
        self._work: Floats = np.empty(0)
        reason = unsupported_reason(rules)
        if reason:
            raise UnsupportedRulesError(reason)
        self.rules = rules
        self.model = TurnModel(rules)
        self.compiled: CompiledTurn = self.model.compiled
        self.tables: Tables = build_tables(self.model)
        self.unit = rules.unit
        self.T = _target_units(rules)
        self.exact = rules.game.exact_target
        self.hands = self.model.hands
        self.backend = backend
        self.xp = xp
        self.last: tuple[Floats, Floats] | None = None
        if rules.game.final_turns:
            self.last = self._last_turn_tables()

    def entered(self, score: int) -> bool:
        return entered_at(self.rules, score)

    def can_win(self) -> npt.NDArray[np.bool_]:
        """The scores (units, below the target) from which some turns lead to the target.

        A pair where neither score can has no value (nobody ever wins): it is not solved and
        stays NaN. Some rules make such scores: with banks ending in 50 refused (T-1) and an
        exact target (T-9), as in dix-mille, a score ending in 50 never lands on the target.
        (No game reaches those scores either, head starts aside.)
        """
        unit, T = self.unit, self.T
        ok = np.zeros(T, dtype=np.bool_)
        if (self.tables.opt_dest == 1).any():  # an instant win (G-5) is always a throw away
            ok[:] = True
            return ok
        for a in range(T - 1, -1, -1):  # banks raise a score: what a leads to is known
            situation = Situation(self.entered(a * unit), a * unit)
            rows = self.rows(a)
            allowed = self.compiled.bankable(situation, rows).any(axis=1)
            bank = self.compiled.bank_outcomes(a, rows)
            on = bank.score[allowed & ~bank.reached & ~bank.lost]
            ok[a] = bool((allowed & bank.reached).any() or ok[on[on > a]].any())
        return ok

    def rows(self, a: int) -> int:
        return self.T - a + 1 if self.exact else self.T - a + self.margin

    def rows_of(self, a: Ints) -> Ints:
        """``rows`` of each score."""
        return (self.T + (1 if self.exact else self.margin) - a).astype(np.int64)

    def least_margin(self, low: int) -> int:
        """The fewest totals past a reach target (scores from ``low``) that give the values
        ``margin`` gives. The solve takes every column past its rows as worth 1, a won bank.
        Past the target a hand that may bank is worth exactly 1 (the bank reaches the
        target and wins: no final turns, F-4); so is a hand that must throw on from a throw
        that cannot farkle into anything but such hands (``_won_past``: zilch's bonus for
        six dice that score nothing, thrown again). Where from some total on every column
        an option leads to is worth 1 at every total, the rows may stop there; where that
        cannot be shown (an exact target, final turns, a hand that may not bank at some
        total up to ``margin``), ``margin``. Zilch and Facebook Farkle: 6 (their 300 to
        bank) where 40, a fifth of the states."""
        most = self.margin
        if self.exact or self.last is not None:
            return most
        scores = np.arange(low, self.T, dtype=np.int64)
        _, reached, _, allowed = self.bank_rows(scores, self.rows(low), 0, tabulated=False)
        won = reached[:, :, None] & allowed  # [score, total, hand]: banking there wins
        hands = won.shape[2]
        # From which total past the target (counted from it) each hand banks to a win.
        since = np.zeros(hands, dtype=np.int64)
        for i, a in enumerate(scores.tolist()):
            past = won[i, self.T - a : self.T - a + most]
            for h in range(hands):
                refused = np.flatnonzero(~past[:, h])
                if len(refused):
                    since[h] = max(since[h], int(refused[-1]) + 1)
        for m in sorted({0, *since.tolist()}):
            if m < most and self._won_past(since <= m):
                return min(m + 1, most)  # with the first total past them (``can_win``)
        return most

    def _won_past(self, banks: Bools) -> bool:
        """Whether every column an option leads to is worth 1 past the target when the
        hands ``banks`` bank to a win there: the largest set of columns where each hand
        banks or throws from a column in the set, and each throw has, for every roll, an
        option to the set (or an instant win). Totals only rise, so from the rows past the
        top (worth 1) down, every column of the set is worth 1 at every total."""
        t = self.tables
        hand_col, throw_col = t.hand_col.tolist(), t.hand_throw_col.tolist()
        node_col, sig_start = t.node_col.tolist(), t.sig_start.tolist()
        opt_start, opt_dest = t.opt_start.tolist(), t.opt_dest.tolist()
        win_col = 1  # the instant win's column (0 is the farkle's)
        worth_one = set(range(2, t.columns)) | {win_col}
        changed = True
        while changed:
            changed = False
            for h, col in enumerate(hand_col):
                if col in worth_one and not banks[h] and throw_col[h] not in worth_one:
                    worth_one.discard(col)
                    changed = True
            for n, col in enumerate(node_col):
                if col not in worth_one:
                    continue
                for sig in range(sig_start[n], sig_start[n + 1]):
                    options = opt_dest[opt_start[sig] : opt_start[sig + 1]]
                    if not any(dest in worth_one for dest in options):
                        worth_one.discard(col)
                        changed = True
                        break
        return all(dest in worth_one for dest in opt_dest if dest != 0)

    def buffer(self, rows: Ints) -> Floats:
        """Memory for the lane kernel's tables on ``threads`` threads (and the calling one),
        the same for every level (as large as the largest): a fresh one costs the system's
        page faults."""
        size = Lanes.work_size(self.tables, rows, self.threads + 1)
        if self._work.shape[0] < size:
            self._work = aligned_empty(size)
        return self._work

    def run(
        self,
        rows: Ints,
        bank: Floats,
        bank_farkle: npt.NDArray[np.bool_],
        farkle: Floats,
        win: Floats,
        boundary: Floats,
    ) -> tuple[Floats, Floats]:
        problem = PairsProblem(
            self.tables, rows, bank, bank_farkle, farkle, win, boundary, self.exact
        )
        return solve_pairs(problem, backend=self.backend, xp=self.xp, threads=self.threads)

    def level_by_score(
        self, a: Ints, b: Ints, entered: npt.NDArray[np.bool_], derivative: bool = True
    ) -> Callable[[Floats, Floats, Floats], tuple[Floats, Floats]]:
        """``level`` for pairs (a, b) whose banks the lane kernel reads itself from the tables
        by score (``tabulate_banks(low, win)``, the Numba backend): nothing laid out a hand.
        Without ``derivative`` the values alone are computed (the derivatives are NaN)."""
        assert self._score_banks is not None, "tabulate_banks(low, win) first"
        rows = self.rows_of(a)
        scores = self._score_banks.of(a, b, entered)
        lanes = Lanes(
            self.tables, rows, buffer=self.buffer(rows), scores=scores, derivative=derivative
        )
        return lambda farkle, win, boundary: lanes.starts(
            farkle, win, boundary, self.exact, self.threads
        )

    def level(self, banks: LevelBanks) -> Callable[[Floats, Floats, Floats], tuple[Floats, Floats]]:
        """The batch's turns, laid out once: farkle, win, boundary -> start values and
        d/d(farkle), for each pass of Newton's method."""
        if self.backend == "cuda":  # the batch sent to the GPU once, one launch a pass
            from zloutch.strategy.kernels.cuda import CudaLevel

            return CudaLevel.by_score(self.tables, banks, self.exact).starts
        rows, bank, bank_farkle = banks.arrays()
        if self.backend == "numba":
            lanes = Lanes(self.tables, rows, bank, bank_farkle, self.buffer(rows))
            return lambda farkle, win, boundary: lanes.starts(
                farkle, win, boundary, self.exact, self.threads
            )

        def starts(farkle: Floats, win: Floats, boundary: Floats) -> tuple[Floats, Floats]:
            values, deriv = self.run(rows, bank, bank_farkle, farkle, win, boundary)
            return values[:, 0, self.tables.start_col], deriv[:, 0, self.tables.start_col]

        return starts

    def newton(
        self, a: Ints, b: Ints, partner: Ints, w: Floats, tolerance: float, passes: int = 100
    ) -> tuple[Floats, float, int]:
        """Newton's method on a level's pairs (a, b) from ``w``: the pair (b, a) of each is
        ``partner``, whose value makes what a farkle is worth. Returns the values, the largest
        residual of the last pass and the passes made (at most ``passes``): the passes go on
        until that residual is below ``tolerance``, and the values take every pass's step.
        Each pass runs with ``level``. (The compiled backend runs all the levels at once in
        its threads, with the same steps: ``sweep``.)"""
        assert self._win is not None, "tabulate_banks(low, win) first"
        level = self.level(self.level_banks(a, b, self._win))
        ones = np.ones(len(a))
        diagonal = partner == np.arange(len(a))
        left = 0.0
        made = 0
        while made < passes:
            made += 1
            farkle = 1.0 - w[partner]
            # Past the rows: an exact target was overshot (a farkle, T-9), or a reach
            # target was passed far enough to count as won.
            boundary = farkle if self.exact else ones
            f, df = level(farkle, ones, boundary)
            r = w - f
            det = 1.0 - df * df[partner]
            step = np.where(diagonal, r / (1.0 + df), (r - df * r[partner]) / det)
            w = np.clip(w - step, 0.0, 1.0)  # a probability: a step past [0, 1] is cut back
            left = float(np.max(np.abs(r)))
            if left < tolerance:
                break
        return w, left, made

    def sweep(
        self,
        levels: list[tuple[int, Ints, Ints, Ints]],
        tolerance: float,
        progress: Callable[[int], None] | None,
        passes: int = 100,
    ) -> Floats:
        """Every level (each one's index, pairs (a, b) and partners: ``score_levels``), solved
        in turn by the lane kernel's threads (``kernels.solve_levels``), at most ``passes``
        Newton passes a level, the values written into the table given to
        ``tabulate_banks``. Returns each level's residual and passes."""
        assert self._score_banks is not None, "tabulate_banks(low, win) first"
        a = np.concatenate([level[1] for level in levels]) if levels else np.zeros(0, np.int64)
        b = np.concatenate([level[2] for level in levels]) if levels else np.zeros(0, np.int64)
        entered = (b > 0) | (not self.rules.turn.entry)
        plan = Sweep.of([(a, b, partner, self.rows_of(a)) for _, a, b, partner in levels])
        return solve_levels(
            self.tables,
            plan,
            self._score_banks.of(a, b, entered),
            self.exact,
            tolerance,
            passes,
            self.threads,
            self.buffer(plan.rows),
            progress,
        )

    def last_turn_inputs(
        self, d: Ints, entered: bool, inherited: int = 0
    ) -> tuple[Ints, Floats, npt.NDArray[np.bool_], Floats, Floats, Floats]:
        """F-4, the last turn: banking more than d units wins, exactly d ties (half a win).

        ``inherited``: points taken back into the turn (G-8, for the entry, T-7)."""
        rows = d + self.margin
        height = int(rows.max())
        t = np.arange(height)[None, :]
        value = np.where(t > d[:, None], 1.0, np.where(t == d[:, None], 0.5, 0.0))
        allowed = self.compiled.bankable(Situation(entered, 0, inherited), height)
        bank = np.ascontiguousarray(np.where(allowed[None, :, :], value[:, :, None], -np.inf))
        zeros = np.zeros(len(d))
        boundary = zeros if self.exact else np.ones(len(d))
        same = np.zeros(bank.shape, dtype=np.bool_)
        return rows, bank, same, zeros, np.ones(len(d)), boundary

    def _last_turn_tables(self) -> tuple[Floats, Floats]:
        """F-4: the chance that the last player banks more than d units (ties count half),
        not entered and entered: both in one batch, on the solver's threads."""
        top = self.T + self.margin + self.tables.max_points + 1
        d = np.arange(top + 1, dtype=np.int64)
        inputs = [self.last_turn_inputs(d, entered) for entered in (False, True)]
        rows, bank, same, farkle, win, boundary = (
            np.concatenate([one[i] for one in inputs]) for i in range(6)
        )
        if self.backend == "numba":
            lanes = Lanes(self.tables, rows, bank, same, derivative=False)
            values, _ = lanes.starts(farkle, win, boundary, self.exact, self.threads)
        else:
            tables, _ = self.run(rows, bank, same, farkle, win, boundary)
            values = tables[:, 0, self.tables.start_col]
        return values[: len(d)].copy(), values[len(d) :].copy()

    def tabulate_banks(self, low: int, win: Floats | None = None) -> None:
        """Read what a bank does (``bank_rows``) for every score from ``low`` (units) to the
        target once, for a solve of every pair: a level then gathers its rows from it.

        ``win``: the table that the solve fills (``win[b - low, x - low]``, as for
        ``level_inputs``), for the lane kernel, which reads the banks from these tables
        itself (``ScoreBanks``)."""
        scores = np.arange(low, self.T, dtype=np.int64)
        x, reached, lost, allowed = self.bank_rows(scores, self.rows(low), 0, tabulated=False)
        self._banks = (low, (x, reached, lost, allowed))
        self._win = win
        self._score_banks = None
        if win is None or self.backend not in ("numba", "cuda"):
            return
        inside = ~reached & ~lost
        nothing = inside & (x == scores[:, None])
        kind = np.where(reached, 3, np.where(nothing, 2, np.where(inside, 1, 0)))
        self._score_banks = ScoreBanks(
            np.ascontiguousarray(kind, dtype=np.int8),
            np.ascontiguousarray(x, dtype=np.int64),
            np.ascontiguousarray(allowed, dtype=np.bool_),
            win,
            low,
            self.last,
        )

    _banks: tuple[int, tuple[Ints, Bools, Bools, Bools]] | None = None
    _win: Floats | None = None
    _score_banks: ScoreBanks | None = None

    def bank_rows(
        self, a: Ints, height: int, inherited: int, tabulated: bool = True
    ) -> tuple[Ints, Bools, Bools, Bools]:
        """``[pair, t]``: the score after a bank of t units at score a, whether it reaches
        the target, whether it is lost (overshot), and ``[pair, t, hand]`` whether the
        hand may bank it, for totals below ``height`` (from the compiled turn)."""
        if tabulated and self._banks is not None and inherited == 0:
            low, (x, reached, lost, allowed) = self._banks
            i = a - low
            return x[i, :height], reached[i, :height], lost[i, :height], allowed[i, :height]
        scores = a.tolist()
        outcomes = [self.compiled.bank_outcomes(ai, height) for ai in scores]
        situations = [
            Situation(self.entered(ai * self.unit), ai * self.unit, inherited) for ai in scores
        ]
        return (
            np.stack([o.score for o in outcomes]),
            np.stack([o.reached for o in outcomes]),
            np.stack([o.lost for o in outcomes]),
            np.stack([self.compiled.bankable(situation, height) for situation in situations]),
        )

    def level_inputs(
        self, a: Ints, b: Ints, win: Floats, low: int = 0, inherited: int = 0
    ) -> tuple[Ints, Floats, npt.NDArray[np.bool_]]:
        """Rows, bank values and 'banking gains nothing' flags of a batch of pairs, a value
        a hand (``[pair, total, hand]``): ``level_banks`` laid out as ``solve_pairs`` takes
        them."""
        return self.level_banks(a, b, win, low, inherited).arrays()

    def level_banks(
        self, a: Ints, b: Ints, win: Floats, low: int = 0, inherited: int = 0
    ) -> LevelBanks:
        """What banking is worth to a batch of pairs (a, b), by (pair, total), and who may
        bank, by score (``LevelBanks``).

        ``win[b - low, x - low]``: what the opponent's turn at b is worth to them when this
        player has banked up to x (``low``: the lowest score, below 0 under F-1).
        ``inherited``: points taken back into the turn (G-8), which the entry may not count.
        """
        rows = self.rows_of(a)
        height = int(rows.max(initial=1))
        if self._banks is not None and inherited == 0:  # the table by score: not gathered
            tabulated, (xs, reacheds, losts, allowed) = self._banks
            score = a - tabulated
            x, reached, lost = xs[score, :height], reacheds[score, :height], losts[score, :height]
        else:
            x, reached, lost, allowed = self.bank_rows(a, height, inherited, tabulated=False)
            score = np.arange(len(a), dtype=np.int64)
        inside = ~reached & ~lost  # the game goes on after the bank
        nothing = inside & (x == a[:, None])  # G-7: the bank writes nothing
        value = np.full(x.shape, -np.inf)  # past an exact target: no bank
        if self.last is not None:
            entered = np.asarray([self.entered(bi * self.unit) for bi in b.tolist()])
            d = np.clip(x - b[:, None], 0, len(self.last[0]) - 1)
            last = np.where(entered[:, None], self.last[1][d], self.last[0][d])
            value = np.where(reached, 1.0 - last, value)
        else:
            value[reached] = 1.0
        idx = np.clip(x - low, 0, win.shape[1] - 1)
        value = np.where(inside, 1.0 - win[(b - low)[:, None], idx], value)
        return LevelBanks(rows, value, nothing, score, allowed)


def solve_game(
    rules: RuleSet,
    *,
    tolerance: float = 1e-12,
    backend: str | None = None,
    xp: Any = None,
    progress: Callable[[int, int], None] | None = None,
    margin: int | None = None,
    floor: int = FLOOR,
    threads: int | None = None,
) -> GameSolution:
    """Solve the two-player game exactly (see the module's docstring).

    ``threads``: how many threads share each level (the compiled backend; None: one per CPU
    this process may use). They take the level's work from one queue, so the values do not
    depend on it; a thread that other work on the machine holds back takes less, and the
    item it holds is done again by a thread that runs.

    Under F-1 (see ``_solve_penalty``) scores below ``-floor`` points are taken as ``-floor``.

    With a reach target, totals ``margin`` units past the target are taken as a bank that
    wins (as a last turn under F-4, past the leader); with an exact target nothing is cut.
    None: the fewest that give the values of ``MARGIN`` (``_Game.least_margin``), else
    ``MARGIN``.
    """
    backend = backend or ("numba" if numba_available() else "array")
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    game = _Game(
        rules, backend, xp, MARGIN if margin is None else margin, threads or default_threads()
    )
    if rules.turn.farkle_penalty:
        return _solve_penalty(
            game, tolerance=tolerance, progress=progress, floor=floor, settle=margin is None
        )
    if margin is None:
        game.margin = game.least_margin(0)
    T = game.T
    win = np.full((T, T), np.nan)
    game.tabulate_banks(0, win)
    can_win = game.can_win()
    passes = 0
    residual = 0.0
    states = 0
    levels = 2 * T - 1
    pairs = score_levels(can_win)
    reported = 0

    def report(until: int) -> None:
        nonlocal reported
        while progress is not None and reported < until:
            reported += 1
            progress(reported, levels)

    for _, a, _, _ in pairs:
        states += int(game.rows_of(a).sum()) * game.tables.columns
    if game.backend == "numba":  # every level in the kernel's threads, the same steps
        results = game.sweep(
            pairs, tolerance, lambda n: report(pairs[n][0] if n < len(pairs) else levels)
        )
        for left, made in results.tolist():
            passes += int(made)
            residual = max(residual, left)
    for done, a, b, partner in pairs if game.backend != "numba" else []:
        report(done)
        # Start Newton from the level above (one more point for the opponent): close by.
        w = np.where(b + 1 < T, win[a, np.minimum(b + 1, T - 1)], 0.5)
        w = np.where(np.isnan(w), 0.5, w)
        w, left, made = game.newton(a, b, partner, w, tolerance)
        passes += made
        residual = max(residual, left)
        win[a, b] = w
        report(done + 1)
    report(levels)
    return GameSolution(
        rules, game.unit, T, win, residual, passes, levels, states, game.last, game.margin
    )


def score_levels(can_win: Bools) -> list[tuple[int, Ints, Ints, Ints]]:
    """The levels by sum of scores, from the highest down, as ``_Game.sweep`` takes them:
    each level's index among all ``2 T - 1``, its pairs (a, b) from which someone can win
    (``can_win``, by score below the target T), and the pair (b, a) of each (on the same
    level, held too: the test is symmetric). Levels without pairs are left out (they only
    count for the progress)."""
    T = len(can_win)
    pairs: list[tuple[int, Ints, Ints, Ints]] = []
    for done, s in enumerate(range(2 * T - 2, -1, -1)):
        a = np.arange(max(0, s - T + 1), min(s, T - 1) + 1, dtype=np.int64)
        b = s - a
        held = can_win[a] | can_win[b]
        a, b = a[held], b[held]
        if len(a):
            slot = np.full(T, -1, dtype=np.int64)
            slot[a] = np.arange(len(a))
            pairs.append((done, a, b, slot[b]))
    return pairs


Batch = tuple[list[tuple[int, int]], LevelBanks]
"""One batch of a level under F-1: its (mover's, opponent's) farkle counts, and the banks of
their pairs one count after the other."""
Level = Callable[[Floats, Floats, Floats], tuple[Floats, Floats]]
"""A batch laid out for its kernel: farkle, win, boundary -> start values, d/d(farkle)."""


def penalty_sweep(game: _Game, low: int, W: Floats) -> Iterator[tuple[Ints, Ints, Iterator[Batch]]]:
    """One sweep of the game under F-1, in the order it is solved (``_solve_penalty``): for
    each level of the score sum, the highest first, its pairs (``i``, ``j``: the scores, less
    ``low``) and its batches, each built as it is asked for, from ``W`` as it stands then.

    ``W[fa, fb, i, j]``: what the mover's turn is worth with ``fa`` and ``fb`` farkles in a
    row. The counts of a batch read the batch before (one farkle more) and lower levels, not
    one another; the highest counts come first. A bank reads the opponent's values at higher
    levels only (a bank that writes nothing, G-7, is worth a farkle instead), so the banks
    of a level depend on the opponent's count alone: they are built once a count, and shared
    by the batches. ``benchmarks/gpu_solver.py --host`` times the same sweep."""
    k = game.rules.turn.farkle_penalty_after
    n = W.shape[-1]
    groups = _count_groups(k)
    for s in range(2 * n - 2, -1, -1):
        i = np.arange(max(0, s - n + 1), min(s, n - 1) + 1, dtype=np.int64)
        j = s - i
        yield i, j, _level_batches(game, low, W, i, j, groups)


def banks_raise_scores(banks: ScoreBanks) -> bool:
    """Whether every bank after which the game goes on raises the score: it then reads the
    opponent's values at a higher level of the score sum, which a sweep solves before (on
    the GPU, in earlier launches: a launch must never read what it writes)."""
    scores = np.arange(banks.kind.shape[0])[:, None] + banks.low
    return not bool(np.any((banks.kind == 1) & (banks.bank_x <= scores)))


def _device_sweep(game: _Game, low: int, W: Floats, penalty: int) -> tuple[Any, int, int]:
    """F-1's sweep laid out for the GPU (``kernels.cuda.CudaSweep``), with the passes and
    states it counts: every level of ``penalty_sweep``, its batches as ``_score_batches``,
    each pair reading its farkle where ``_solve_penalty``'s loop reads it and writing its
    value where that loop writes it, in ``W`` (``[fa, fb, i, j]``) flat."""
    from zloutch.strategy.kernels.cuda import CudaSweep, SweepBatch

    assert game._score_banks is not None, "tabulate_banks(low, win) first"
    k, n = int(W.shape[0]), int(W.shape[-1])

    def at(fa: int, fb: int, x: Ints, y: Ints) -> Ints:
        return np.asarray(((fa * k + fb) * n + x) * n + y, dtype=np.int64)

    banks = game._score_banks
    if not banks_raise_scores(banks):
        raise ZloutchError(
            "the GPU's sweep needs every bank to raise the score (these rules have a bank "
            "that does not): solve on the CPU"
        )
    levels: list[list[SweepBatch]] = []
    passes = states = 0
    for i, j, _ in penalty_sweep(game, low, W):
        rows = game.rows_of(i + low)
        batches = []
        for group in _count_groups(k):
            reads = [
                at(fb, fa + 1, j, i) if fa + 1 < k else at(fb, 0, j, np.maximum(i - penalty, 0))
                for fa, fb in group
            ]
            batches.append(
                SweepBatch(
                    rows=np.concatenate([rows] * len(group)),
                    score=np.concatenate([i] * len(group)),
                    opp=np.concatenate([j + fb * k * n for _, fb in group]),
                    farkle_at=np.concatenate(reads),
                    write_at=np.concatenate([at(fa, fb, i, j) for fa, fb in group]),
                )
            )
            passes += len(group)
            states += int(rows.sum()) * len(group) * game.tables.columns
        levels.append(batches)
    sweep = CudaSweep(
        game.tables,
        banks.kind,
        banks.bank_x,
        banks.allowed,
        low,
        (k * k * n, n),
        game.exact,
        levels,
    )
    return sweep, passes, states


def _count_groups(k: int) -> list[list[tuple[int, int]]]:
    """The batches of a level: the pairs of farkles in a row (fa, fb) by their sum, the
    highest first (a farkle reads the batch before: one more)."""
    return [
        [(fa, fb) for fa in range(k) for fb in range(k) if fa + fb == c]
        for c in range(2 * k - 2, -1, -1)
    ]


def _level_batches(
    game: _Game, low: int, W: Floats, i: Ints, j: Ints, groups: list[list[tuple[int, int]]]
) -> Iterator[Batch]:
    banks_of: dict[int, LevelBanks] = {}
    for group in groups:
        for _, fb in group:
            if fb not in banks_of:
                banks_of[fb] = game.level_banks(i + low, j + low, W[fb, 0], low)
        yield group, LevelBanks.concat([banks_of[fb] for _, fb in group])


def _score_batches(
    game: _Game, low: int, n: int, i: Ints, j: Ints, groups: list[list[tuple[int, int]]]
) -> Iterator[tuple[list[tuple[int, int]], Ints, Level]]:
    """A level's batches as ``_level_batches``, for the lane kernel that reads the banks from
    the tables by score itself (``_Game.level_by_score``), with the whole ``W`` as its win
    table (``W.reshape(k * k * n, n)``): the opponent's row of count ``fb`` is
    ``W[fb, 0, j]``, row ``fb * k * n + j``, so the opponent's score given to the kernel is
    moved along by ``fb * k * n``. Nothing is laid out a hand (a tenth of a sweep's time).
    No Newton's step is taken (a level's batches form no cycle), so the kernel computes the
    values without their derivatives."""
    k = game.rules.turn.farkle_penalty_after
    a = i + low
    entered = ((j + low) > 0) | (not game.rules.turn.entry)
    for group in groups:
        aa = np.concatenate([a] * len(group))
        bb = np.concatenate([j + low + fb * k * n for _, fb in group])
        ee = np.concatenate([entered] * len(group))
        yield group, game.rows_of(aa), game.level_by_score(aa, bb, ee, derivative=False)


def _sweeps_expected(changes: list[float], tolerance: float, most: int) -> int:
    """How many sweeps the F-1 solve will take in all, for its progress: the largest change
    of each sweep falls about geometrically, so the last fall gives the rate at which it
    reaches ``tolerance``. Before two sweeps, two more than done; where the changes do not
    fall, one more; and the estimate at most doubles from one sweep to the next: the first
    falls, far from the fixed point, are slow (zilch's second by 0.54, the next by 0.04 to
    0.07), and one of them promised 42 sweeps where zilch takes 10 (its estimates now: 2,
    3, 6, then 9 to 11)."""
    done = len(changes)
    if done < 2:
        return done + 2
    if changes[-1] < tolerance:
        return done
    if not 0 < changes[-1] < changes[-2]:
        return done + 1
    rate = changes[-1] / changes[-2]
    more = math.ceil(math.log(tolerance / changes[-1]) / math.log(rate))
    before = _sweeps_expected(changes[:-1], tolerance, most)
    return min(done + max(more, 1), 2 * before, most)


def _penalty_start(game: _Game, low: int, n: int, k: int) -> Floats:
    """Where the F-1 sweeps start: the same game without the penalty, solved first (a few
    seconds, a fraction of one sweep's cost), read at each pair with both scores raised
    until the lower is 0 (the lead kept). The sweeps reach the same values from any start;
    from this one they take about two fewer (zilch to 3,000: 12 against 14), the first ones
    no longer spent undoing a flat 0.5. Where the game without the penalty is not one the
    solver models, 0.5 everywhere."""
    from zloutch.rules.loader import with_options

    W = np.full((k, k, n, n), 0.5)
    try:
        plain = with_options(game.rules, {"farkle_penalty": 0})
        start = solve_game(plain, backend=game.backend, threads=game.threads).win
    except ZloutchError:
        return W
    x = np.arange(n)[:, None] + low
    y = np.arange(n)[None, :] + low
    shift = np.minimum(np.minimum(x, y), 0)
    top = start.shape[0] - 1
    guess = start[np.clip(x - shift, 0, top), np.clip(y - shift, 0, top)]
    W[:, :] = np.where(np.isfinite(guess), guess, 0.5)
    return W


def _solve_penalty(
    game: _Game,
    *,
    tolerance: float,
    progress: Callable[[int, int], None] | None,
    floor: int,
    max_sweeps: int = 500,
    mixing: int = MIXING,
    settle: bool = False,
) -> GameSolution:
    """The game under F-1: a third farkle in a row costs points (counted per player).

    The state gains each player's farkles in a row (0 to k - 1) and scores go below 0, kept
    at ``-floor`` at the lowest (a penalty past it stops there). Within a level of the score
    sum a farkle adds one to the mover's count, so the states of a level form no cycle: they
    are solved in one pass, the highest counts first. The penalty goes down to a lower level
    (solved later in the sweep), so sweeps repeat, each reading the penalty's values from
    the sweep before (or this one, once solved), until the largest change is below
    ``tolerance``: that change is the reported residual. Once the changes are small, what a
    sweep reads is mixed from the last ``mixing + 1`` sweeps (``_Mixing``): the same values,
    a sweep or two fewer.
    """
    rules, unit, T = game.rules, game.unit, game.T
    k = rules.turn.farkle_penalty_after
    penalty = -(-rules.turn.farkle_penalty // unit)
    low = -(floor // unit)
    n = T - low
    if settle:  # the fewest rows past the target, for every score from the floor
        game.margin = game.least_margin(low)
    W = _penalty_start(game, low, n, k)
    # The lane kernel reads the banks from W itself, but not F-4's last turns (which read
    # the opponent's score, moved along in W's rows there).
    by_score = game.backend in ("numba", "cuda") and game.last is None
    game.tabulate_banks(low, W.reshape(k * k * n, n) if by_score else None)
    # On a GPU the win table stays on the device: a sweep is one launch a batch, queued.
    device = _device_sweep(game, low, W, penalty) if by_score and game.backend == "cuda" else None
    levels = 2 * n - 1
    ones_cache: dict[int, Floats] = {}
    laid: dict[int, list[tuple[list[tuple[int, int]], Ints, Level]]] = {}
    # One buffer for every batch kept in ``laid``, as large as the lowest score's rows (the
    # most): grown level by level, each batch kept would hold the buffer of its time.
    if game.backend == "numba":
        game.buffer(game.rows_of(np.array([low], dtype=np.int64)))
    passes = states = sweeps = 0
    residual = float("inf")
    changes: list[float] = []
    mixer = _Mixing(mixing)
    while sweeps < max_sweeps and residual >= tolerance:
        expected = _sweeps_expected(changes, tolerance, max_sweeps)
        change = 0.0
        read = W[:, 0].copy()  # what this sweep reads of the sweep before (see _Mixing)
        if device is not None:
            sweep, sweep_passes, sweep_states = device
            before = W.copy()

            def after_level(done: int, sweeps: int = sweeps, expected: int = expected) -> None:
                if progress is not None:
                    progress(sweeps * levels + done + 1, expected * levels)

            sweep.run(W, after_level)
            change = float(np.max(np.abs(W - before)))  # each value is written once a sweep
            passes += sweep_passes
            states += sweep_states
        for done, (i, j, laid_out) in enumerate(
            penalty_sweep(game, low, W) if device is None else []
        ):
            size = len(i)
            if by_score:  # laid out once for every sweep: the banks are read from W
                if done not in laid:
                    laid[done] = list(_score_batches(game, low, n, i, j, _count_groups(k)))
                batches: Iterable[tuple[list[tuple[int, int]], Ints, Level]] = laid[done]
            else:
                batches = ((group, banks.rows, game.level(banks)) for group, banks in laid_out)
            for group, rows, level in batches:
                farkles = []
                for fa, fb in group:
                    if fa + 1 < k:
                        farkles.append(1.0 - W[fb, fa + 1, j, i])
                    else:  # F-1: the penalty, down to a lower level (or the floor)
                        farkles.append(1.0 - W[fb, 0, j, np.maximum(i - penalty, 0)])
                farkle = np.concatenate(farkles)
                ones = ones_cache.setdefault(len(farkle), np.ones(len(farkle)))
                boundary = farkle if game.exact else ones
                new, _ = level(farkle, ones, boundary)
                for g, (fa, fb) in enumerate(group):
                    part = new[g * size : (g + 1) * size]
                    change = max(change, float(np.max(np.abs(part - W[fa, fb, i, j]))))
                    W[fa, fb, i, j] = part
                    passes += 1
                states += int(rows.sum()) * game.tables.columns
            if progress is not None:  # the sweeps to come, estimated from the last ones
                progress(sweeps * levels + done + 1, expected * levels)
        sweeps += 1
        residual = change
        changes.append(change)
        if residual >= tolerance:
            if change >= MIXED_BELOW or (len(changes) > 1 and change >= changes[-2]):
                mixer.forget()  # not settled, or the mix did not help (the play changed)
            if change < MIXED_BELOW:
                W[:, 0] = mixer.next(read, W[:, 0])
    if progress is not None:  # done: the estimate may have counted another sweep
        progress(sweeps * levels, sweeps * levels)
    win = W[0, 0, -low:, -low:].copy()
    return GameSolution(
        rules,
        unit,
        T,
        win,
        residual,
        passes,
        levels,
        states // max(sweeps, 1),
        None,
        game.margin,
        low=low,
        counts=W,
        sweeps=sweeps,
    )


class _Mixing:
    """Anderson's mixing of the F-1 sweeps (Anderson 1965; Walker and Ni 2011, type II).

    A sweep reads from the sweep before only ``W[:, 0]``, what a turn is worth to the player
    who moves after a penalty (at a lower level, or at the floor at the same level, where a
    later batch writes it; the other counts and the banks it reads are this sweep's): it is
    a map ``G`` from those values ``x`` to the ones it writes. Its fixed point is the
    solution. Once the policy has settled, ``G`` is nearly affine, and its residuals
    ``f = G(x) - x`` of the last sweeps tell how to combine them: the next sweep reads
    ``G(x_n) - dG @ c``, where ``c`` minimises ``|f_n - dF @ c|`` over the differences of
    successive residuals (``dF``) and outputs (``dG``), kept between 0 and 1. The stop test
    does not change: a sweep whose output differs from what it read by less than the
    tolerance, and its output is the solution. Full zilch: 10 sweeps where 11, the values
    the same to 1.2e-14.
    """

    def __init__(self, memory: int) -> None:
        self.memory = memory
        self._read: list[Floats] = []
        self._wrote: list[Floats] = []

    def forget(self) -> None:
        """Drop the sweeps kept: the next mix starts from the next sweep."""
        self._read, self._wrote = [], []

    def next(self, read: Floats, wrote: Floats) -> Floats:
        """What the next sweep reads, from what this one read and wrote."""
        if not self.memory or not (np.isfinite(read).all() and np.isfinite(wrote).all()):
            return wrote
        self._read = [*self._read, read.ravel().copy()][-self.memory - 1 :]
        self._wrote = [*self._wrote, wrote.ravel().copy()][-self.memory - 1 :]
        if len(self._read) < 2:
            return wrote
        f = [g - x for g, x in zip(self._wrote, self._read, strict=True)]
        dF = np.stack([b - a for a, b in pairwise(f)], axis=1)
        dG = np.stack([b - a for a, b in pairwise(self._wrote)], axis=1)
        try:
            c, *_ = np.linalg.lstsq(dF, f[-1], rcond=None)
        except np.linalg.LinAlgError:  # no least squares (it did not converge): no mix
            self.forget()
            return wrote
        mixed: Floats = np.clip(self._wrote[-1] - dG @ c, 0.0, 1.0).reshape(wrote.shape)
        return mixed if np.isfinite(mixed).all() else wrote


class SheetEnds(NamedTuple):
    """What the ends of a turn do to one opponent on a sheet with a history (G-3, G-4), in
    points, as the engine writes them: ``sheets_after_farkle``, ``sheets_after_bank``."""

    score: int
    """The opponent's score now."""
    after_farkle: int
    """Their score after a farkle of the mover (a fall back may bump them)."""
    bumped: tuple[tuple[int, int], ...] = ()
    """(the mover's score after a bank, the opponent's score then), for each bank that
    changes the opponent's score (a bump); every other bank leaves it."""


class PairSolutions:
    """Full turn tables for single score pairs, for the optimal bot and the hints."""

    def __init__(self, solution: GameSolution, backend: str | None = None) -> None:
        self.solution = solution
        self.game = _Game(
            solution.rules, backend or ("numba" if numba_available() else "array"), None
        )
        self._cache: dict[tuple[int, int, int, int, int], TurnSolution] = {}
        self._fields: OrderedDict[tuple[object, ...], TurnSolution] = OrderedDict()

    def inputs(
        self, a: Ints, b: Ints, fa: int = 0, fb: int = 0, inherited: int = 0
    ) -> tuple[Ints, Floats, npt.NDArray[np.bool_], Floats, Floats]:
        """The kernel's inputs for the turns of pairs (a, b) (units, the opponent below the
        target): rows, bank values, 'banking gains nothing', the farkle value, the boundary.

        Under F-1 the mover has farkled ``fa`` turns in a row and the opponent ``fb``;
        ``inherited`` points were taken back into the turn (G-8).
        """
        solution, game = self.solution, self.game
        counts = solution.counts
        if counts is None:
            rows, bank, same = game.level_inputs(a, b, solution.win, inherited=inherited)
            farkle = 1.0 - solution.win[b, a]
        else:
            low = solution.low
            i, j = np.maximum(a, low) - low, np.maximum(b, low) - low
            rows, bank, same = game.level_inputs(
                i + low, j + low, counts[fb, 0], low, inherited=inherited
            )
            if fa + 1 < counts.shape[0]:
                farkle = 1.0 - counts[fb, fa + 1, j, i]
            else:  # the penalty (F-1), down to the floor at most
                penalty = -(-game.rules.turn.farkle_penalty // game.unit)
                farkle = 1.0 - counts[fb, 0, j, np.maximum(i - penalty, 0)]
        boundary = farkle if game.exact else np.ones(len(a))
        return rows, bank, same, farkle, boundary

    def turn(
        self, a_points: int, b_points: int, fa: int = 0, fb: int = 0, inherited: int = 0
    ) -> TurnSolution:
        """The win probability of every turn state at these banked scores (points), the
        mover having farkled ``fa`` turns in a row and the opponent ``fb`` (F-1), with
        ``inherited`` points taken back into the turn (G-8)."""
        unit = self.game.unit
        entered = self.game.entered(a_points)
        inherited = Situation.normalise(self.game.rules, entered, 0, inherited).inherited
        key = (a_points // unit, b_points // unit, fa, fb, inherited)
        if key not in self._cache:
            a, b = key[0], key[1]
            if self.solution.counts is not None or b < self.game.T:
                arr_a = np.asarray([a], dtype=np.int64)
                arr_b = np.asarray([b], dtype=np.int64)
                rows, bank, same, farkle, boundary = self.inputs(arr_a, arr_b, fa, fb, inherited)
            else:  # the opponent reached the target: this is the last turn (F-4)
                d = np.asarray([b - a], dtype=np.int64)
                inputs = self.game.last_turn_inputs(d, entered, inherited)
                rows, bank, same, farkle, _, boundary = inputs
            self._cache[key] = self._solved(rows, bank, same, farkle, boundary, a_points, inherited)
        return self._cache[key]

    def _solved(
        self,
        rows: Ints,
        bank: Floats,
        same: npt.NDArray[np.bool_],
        farkle: Floats,
        boundary: Floats,
        a_points: int,
        inherited: int,
    ) -> TurnSolution:
        """The turn table of one batch of kernel inputs (one pair, or one field)."""
        game = self.game
        values, _ = game.run(rows, bank, same, farkle, np.ones(1), boundary)
        height = int(rows[0])
        pad = game.tables.max_points + 2
        table = np.full((height + pad, game.tables.columns), boundary[0])
        table[:height] = values[0]
        table[:, 0] = farkle[0]
        table[:, 1] = 1.0
        bank_values = np.full(height + pad, boundary[0])
        finite = np.where(np.isfinite(bank[0]), bank[0], -np.inf).max(axis=1)
        bank_values[:height] = np.where(same[0].any(axis=1), farkle[0], finite)
        allowed = np.isfinite(bank[0])
        cols = np.zeros((height, game.tables.columns - 2), dtype=np.bool_)
        cols[:, game.tables.hand_col - 2] = allowed
        situation = Situation(game.entered(a_points), a_points, inherited)
        return TurnSolution(game.model, situation, table, bank_values, cols, height)

    def _kept(
        self,
        key: tuple[object, ...],
        rows: Ints,
        bank: Floats,
        same: npt.NDArray[np.bool_],
        farkle: Floats,
        boundary: Floats,
        a_points: int,
        inherited: int,
    ) -> TurnSolution:
        """The turn table of a field's (or a sheet's) inputs, kept for its ``key`` (the
        ``FIELD_CACHE`` most recently read)."""
        solved = self._solved(
            rows, np.ascontiguousarray(bank), same, farkle, boundary, a_points, inherited
        )
        self._fields[key] = solved
        if len(self._fields) > FIELD_CACHE:
            self._fields.popitem(last=False)
        return solved

    def field_turn(
        self,
        a_points: int,
        others: Sequence[tuple[int, int]],
        fa: int = 0,
        inherited: int = 0,
    ) -> TurnSolution:
        """The turn of a player at ``a_points`` against several opponents (``others``: each
        one's banked points and farkles in a row): every end of the turn (each bank, the
        farkle) is worth the solved two-player chance against the opponent most likely to
        win from there, the least of the chances against each. One opponent: ``turn``.

        It bounds the chance to beat them all from above (that chance is at most the least of
        the chances to beat each). The product of the chances, as if the opponents' races
        were independent, bounds it from below, but plays worse: it makes every position
        look lost at a table of six and throws too much (greed, one bot against five expert
        seats: 16.9% of the wins against 20.8% with the least; docs/strategy.md).

        Once an opponent has reached a target that leaves the others a last turn (F-4), the
        last turn is played against the highest score, as in two-player play."""
        if len(others) == 1:
            ((b_points, fb),) = others
            return self.turn(a_points, b_points, fa, fb, inherited)
        unit, game = self.game.unit, self.game
        entered = game.entered(a_points)
        inherited = Situation.normalise(game.rules, entered, 0, inherited).inherited
        if self.solution.counts is None and max(b for b, _ in others) // unit >= game.T:
            return self.turn(a_points, max(b for b, _ in others), fa, 0, inherited)
        field = tuple(
            sorted((b // unit, fb if self.solution.counts is not None else 0) for b, fb in others)
        )
        key = (a_points // unit, field, fa, inherited)
        found = self._fields.get(key)
        if found is not None:
            self._fields.move_to_end(key)
            return found
        arr_a = np.asarray([key[0]], dtype=np.int64)
        rows, bank, same, farkle, boundary = self.inputs(
            arr_a, np.asarray([field[0][0]], dtype=np.int64), fa, field[0][1], inherited
        )
        bank, farkle, boundary = bank.copy(), farkle.copy(), boundary.copy()
        for b, fb in field[1:]:
            _, bank_b, _, farkle_b, boundary_b = self.inputs(
                arr_a, np.asarray([b], dtype=np.int64), fa, fb, inherited
            )
            bank = np.where(np.isfinite(bank), np.minimum(bank, bank_b), bank)
            farkle = np.minimum(farkle, farkle_b)
            boundary = np.minimum(boundary, boundary_b)
        return self._kept(key, rows, bank, same, farkle, boundary, a_points, inherited)

    def sheet_turn(
        self,
        a_points: int,
        farkled_to: int,
        others: Sequence[SheetEnds],
        inherited: int = 0,
    ) -> TurnSolution:
        """The turn of a player at ``a_points`` whose sheet has a history the solved model
        leaves out (ticks, bumps: ``sheet_blind``), looking one turn ahead: each end of the
        turn is valued by the solved game at the scores the sheet will show after it. A
        farkle leaves the mover at ``farkled_to`` (a third tick crosses the level) and each
        opponent at ``after_farkle``; a bank that bumps an opponent drops their score
        (``SheetEnds.bumped``). Against several opponents, each end is worth the least of the
        chances against each (``field_turn``). Unsupported under F-1 (no preset has both)."""
        if self.solution.counts is not None:
            raise UnsupportedRulesError("the sheet's look-ahead does not model F-1's counts")
        unit, game = self.game.unit, self.game
        win = self.solution.win
        entered = game.entered(a_points)
        inherited = Situation.normalise(game.rules, entered, 0, inherited).inherited
        if max(o.score for o in others) // unit >= game.T:  # F-4's last turn
            return self.turn(a_points, max(o.score for o in others), inherited=inherited)
        key = ("sheet", a_points // unit, farkled_to // unit, tuple(others), inherited)
        found = self._fields.get(key)
        if found is not None:
            self._fields.move_to_end(key)
            return found
        a = a_points // unit
        arr_a = np.asarray([a], dtype=np.int64)
        least: tuple[Floats, Floats, Floats] | None = None
        rows = same = None
        for other in others:
            b = other.score // unit
            rows, bank, same, _, _ = self.inputs(
                arr_a, np.asarray([b], dtype=np.int64), 0, 0, inherited
            )
            bank = bank.copy()
            farkle = np.asarray([1.0 - win[other.after_farkle // unit, max(farkled_to // unit, 0)]])
            if other.bumped:
                # Each total whose bank writes the bumping score: with G-7 many totals
                # write target - 1000 (``bank_rows``: the score each total writes).
                x, reached, lost, _ = game.bank_rows(arr_a, bank.shape[1], inherited, False)
                inside = ~reached[0] & ~lost[0]
                for mine, theirs in other.bumped:
                    rows_hit = inside & (x[0] == mine // unit)
                    bumped = 1.0 - win[theirs // unit, mine // unit]
                    hit = rows_hit[:, None] & np.isfinite(bank[0])
                    bank[0] = np.where(hit, bumped, bank[0])
            boundary = farkle.copy() if game.exact else np.ones(1)
            if least is None:
                least = (bank, farkle, boundary)
            else:
                low_bank, low_farkle, low_boundary = least
                least = (
                    np.where(np.isfinite(low_bank), np.minimum(low_bank, bank), low_bank),
                    np.minimum(low_farkle, farkle),
                    np.minimum(low_boundary, boundary),
                )
        assert least is not None and rows is not None and same is not None
        bank, farkle, boundary = least
        return self._kept(key, rows, bank, same, farkle, boundary, a_points, inherited)
