"""A bot's turn as tables, laid over the compiled turn's flat form (for the fast simulator).

A bot whose choices depend only on the situation (``Situation``), the turn total and the
node of the turn can be written as three tables (``PolicyTable``): the option it keeps from
every roll, whether it banks at every decision node, and whether it takes back (G-8) what
the previous player left at a decision node. Such a bot gives its own table
(``Tabulated.turn_table``), so that what it does is stated once, beside its ``choose``: the
fast simulator (``zloutch.sim.fast``) plays the table, never the bot's name.

Indices are the flat form's (``zloutch.engine.compiled``, "Flat form"): roll ``r`` of the
flat turn (``roll_start``), its options ``roll_opt_start[r]:roll_opt_start[r + 1]``, hand
``h`` of ``hand_col``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from zloutch.engine.compiled import Situation
from zloutch.engine.game import takeover_busts_at
from zloutch.strategy.expert import PASSING, blank_cost, long_run
from zloutch.strategy.turn_solver import TurnModel, TurnSolution, solve_average_reward, solve_turn

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class TableFrame:
    """What a table is laid over: a rule set's turn model, the situations the table tells
    apart (its first index), and the turn totals it covers (``rows``, in units; totals past
    the last row read the last).

    Take-back (G-8): ``take_cols[h]`` is the column of the throw of a turn taken back from
    a bank at hand ``h`` (-1: that bank leaves no offer, a full hand), and ``taken[s, t]``
    the situation of a player in situation ``s`` who takes back ``t`` units (the points
    inherited count apart toward the entry, ``Situation.inherited``). Without take-back
    (or a frame built without them) nobody is offered anything."""

    model: TurnModel
    situations: tuple[Situation, ...]
    rows: int
    take_cols: Ints | None = None
    taken: Ints | None = None
    farkles: tuple[int, ...] | None = None
    """Under F-1: the farkles in a row of each situation's player (the long run's turn
    depends on them, ``solve_average_reward``); None: 0 for every situation."""

    @property
    def hands(self) -> int:
        return int(self.model.compiled.flat.hand_col.shape[0])

    def offers(self) -> Bools:
        """``[h]``: whether a bank at hand ``h`` leaves an offer to the next player."""
        if self.take_cols is None:
            return np.zeros(self.hands, dtype=np.bool_)
        found: Bools = self.take_cols >= 0
        return found

    def busts(self) -> Bools:
        """``[s, t]``: taking back ``t`` units in situation ``s`` is certain to lose the turn
        (``engine.game.takeover_busts_at``)."""
        rules, unit = self.model.rules, self.model.rules.unit
        found: Bools = np.zeros((len(self.situations), self.rows), dtype=np.bool_)
        if not rules.game.exact_target:
            return found
        for s, situation in enumerate(self.situations):
            found[s] = [
                takeover_busts_at(rules, situation.score, t * unit) for t in range(self.rows)
            ]
        return found

    @property
    def rolls(self) -> int:
        return int(self.model.compiled.flat.roll_opt_start.shape[0] - 1)

    def allowed(self) -> Bools:
        """``[s, t, h]``: whether the rules let a player in situation ``s`` bank at total
        ``t`` from hand ``h``."""
        compiled = self.model.compiled
        return np.stack([compiled.bankable(s, self.rows) for s in self.situations], axis=0)


@dataclass(frozen=True, eq=False)
class PolicyTable:
    """A policy as tables: what it keeps and when it banks.

    ``keep[s, t, r]``: the option (counted from ``roll_opt_start[r]``) kept from roll ``r``
    at turn total ``t`` in situation ``s`` (a table of one situation or one total applies
    to all). ``bank[s, t, h]``: whether it banks at hand ``h`` (only where banking is
    allowed). ``take[s, t, h]``: whether, at the start of its turn in situation ``s``, it
    takes back (G-8) a total of ``t`` left by a bank at hand ``h`` (else it starts fresh).
    """

    name: str
    keep: npt.NDArray[np.int16]
    bank: Bools
    take: Bools


@runtime_checkable
class Tabulated(Protocol):
    """A bot that can be written as a ``PolicyTable``."""

    @property
    def name(self) -> str: ...

    def turn_table(self, frame: TableFrame) -> PolicyTable: ...


def first_best(values: npt.NDArray[np.float64], frame: TableFrame) -> Ints:
    """For each roll (a segment of options along the last axis), its first best option."""
    flat = frame.model.compiled.flat
    starts = flat.roll_opt_start[:-1]
    best = np.maximum.reduceat(values, starts, axis=-1)
    seg = np.repeat(np.arange(frame.rolls), np.diff(flat.roll_opt_start))
    local = np.arange(flat.roll_opt_pts.shape[0]) - flat.roll_opt_start[seg]
    big = np.iinfo(np.int64).max
    candidates = np.where(values >= best[..., seg], local, big)
    found: Ints = np.minimum.reduceat(candidates, starts, axis=-1)
    return found


def keep_ranks(model: TurnModel) -> Ints:
    """Each option's rank among a roll's keeps: its points, then fewer dice kept (``points x
    64 - dice``), as the bots rank keeps (``bots._best_keep``, ``keep_for_the_win``)."""
    flat = model.compiled.flat
    rolls = int(flat.roll_opt_start.shape[0] - 1)
    seg = np.repeat(np.arange(rolls), np.diff(flat.roll_opt_start))
    node_of_roll = np.searchsorted(flat.roll_start[:-1], np.arange(rolls), side="right") - 1
    thrown = flat.node_dice[node_of_roll][seg]
    hand_of = np.full(flat.columns, -1, dtype=np.int64)
    hand_of[flat.hand_col] = np.arange(flat.hand_col.shape[0])
    dest = hand_of[flat.roll_opt_dest]
    free = np.where(dest >= 0, flat.hand_free[np.maximum(dest, 0)], 0)
    # V-2: an option that sets jokers aside throws the other dice at once; its keep is the
    # dice neither thrown nor set aside as jokers (the engine's Keep counts no joker).
    compiled = model.compiled
    jokers = np.zeros(flat.columns, dtype=np.int64)
    for node in compiled.throw_nodes:
        jokers[compiled.column[node]] = len(node.jokers)
    node_of_col = np.zeros(flat.columns, dtype=np.int64)
    node_of_col[flat.node_col] = np.arange(flat.node_col.shape[0])
    new_jokers = jokers[flat.roll_opt_dest] - jokers[flat.node_col[node_of_roll]][seg]
    thrown_next = flat.node_dice[node_of_col[flat.roll_opt_dest]]
    kept = np.where(
        dest >= 0,
        thrown - free,
        np.where(new_jokers > 0, thrown - thrown_next - new_jokers, thrown),
    )
    ranks: Ints = flat.roll_opt_pts.astype(np.int64) * 64 - kept
    return ranks


def most_points_keep(frame: TableFrame) -> npt.NDArray[np.int16]:
    """The keep with most points; on equal points the one that keeps fewer dice (the
    threshold and greedy bots' keep, ``bots._best_keep``: ``keep_ranks``). Under an exact
    target (T-9) a keep that lands on it comes first and one that passes it last, which
    depends on the score and the total: a table by situation and total; otherwise one for
    all."""
    flat = frame.model.compiled.flat
    hand_of = np.full(flat.columns, -1, dtype=np.int64)
    hand_of[flat.hand_col] = np.arange(flat.hand_col.shape[0])
    dest = hand_of[flat.roll_opt_dest]
    score = keep_ranks(frame.model).astype(np.float64)
    rules = frame.model.rules
    if not rules.game.exact_target:
        choice: npt.NDArray[np.int16] = first_best(score, frame).astype(np.int16)
        return choice[None, None, :]
    # The rank of an option: 2 it wins (lands on the target, and its hand may bank there:
    # ``engine.game.keep_wins``), 0 it passes the target, else 1. Whether a landing hand may
    # bank depends on the situation: situations that agree on it share one table by sum.
    target = _target_units(frame)
    unit = rules.unit
    allowed = frame.allowed()
    scores = np.asarray([s.score // unit for s in frame.situations], dtype=np.int64)
    landing = target - scores  # the total that lands each situation on the target
    inside = (landing >= 0) & (landing < frame.rows)
    at = np.clip(landing, 0, frame.rows - 1)
    hand = dest  # the option's hand (-1: a throw, a farkle or a win)
    may_bank = allowed[np.arange(len(scores))[:, None], at[:, None], np.maximum(hand, 0)[None, :]]
    may_bank &= (hand >= 0)[None, :] & inside[:, None]
    patterns, which = np.unique(may_bank, axis=0, return_inverse=True)
    reached = np.arange(target + 1)[:, None] + flat.roll_opt_pts[None, :]  # [score + total, o]
    sums = _score_plus_total(frame, target)
    keep = np.empty((len(scores), frame.rows, frame.rolls), dtype=np.int16)
    for k, banks in enumerate(patterns):
        wins = (reached == target) & banks[None, :]
        rank = np.where(wins, 2, np.where(reached > target, 0, 1))
        by_sum = first_best(rank * float(2**20) + score[None, :], frame).astype(np.int16)
        mine = which.reshape(-1) == k
        keep[mine] = by_sum[sums[mine]]
    return keep


def _target_units(frame: TableFrame) -> int:
    return -(-frame.model.rules.game.target // frame.model.rules.unit)


def _score_plus_total(frame: TableFrame, target: int) -> Ints:
    """``[s, t]``: the score of situation ``s`` plus the total ``t``, in units, at most the
    target (a total past it is never reached: the turn is lost, T-9)."""
    unit = frame.model.rules.unit
    scores = np.asarray([s.score // unit for s in frame.situations], dtype=np.int64)
    found: Ints = np.minimum(scores[:, None] + np.arange(frame.rows)[None, :], target)
    return found


def threshold_table(name: str, frame: TableFrame, wanted: Ints, take_below: int) -> PolicyTable:
    """Keep most points; bank as soon as the total reaches ``wanted[dice in hand]`` points
    (the dice the hand throws next), or lands on an exact target (``bots.banks_on_target``);
    take back an offer of three dice or more worth less than ``take_below`` points unless
    it is certain to bust (``bots.ThresholdBot._start``)."""
    flat = frame.model.compiled.flat
    totals = np.arange(frame.rows, dtype=np.int64) * frame.model.rules.unit
    node_of_col = np.zeros(flat.columns, dtype=np.int64)
    node_of_col[flat.node_col] = np.arange(flat.node_col.shape[0])
    in_hand = flat.node_dice[node_of_col[flat.hand_throw_col]]
    want = np.broadcast_to(
        totals[:, None] >= wanted[in_hand][None, :], (1, frame.rows, len(in_hand))
    )
    if frame.model.rules.game.exact_target:
        target = _target_units(frame)
        lands = _score_plus_total(frame, target + 1) == target  # [s, t]
        want = want | lands[:, :, None]
    totals_below = totals < take_below
    three = flat.hand_free >= 3
    take = (
        frame.offers()[None, None, :]
        & three[None, None, :]
        & totals_below[None, :, None]
        & ~frame.busts()[:, :, None]
    )
    return PolicyTable(name, most_points_keep(frame), frame.allowed() & want, take)


def expert_table(frame: TableFrame, margin: float = 0.0, name: str = "expert") -> PolicyTable:
    """The turn solver's choices in every situation (``ExpertBot``: ties bank, first keep,
    start fresh rather than take back).

    With a ``margin`` (points, ``BoldBot``): it banks only where banking is worth at least
    that much more than throwing, or where the total lands on an exact target
    (``bots.banks_on_target``); it keeps and takes back as the expert does."""
    flat, model = frame.model.compiled.flat, frame.model
    hands = int(flat.hand_col.shape[0])
    sits = len(frame.situations)
    keep = np.zeros((sits, frame.rows, frame.rolls), dtype=np.int16)
    bank = np.zeros((sits, frame.rows, hands), dtype=np.bool_)
    t = np.arange(frame.rows)
    exact, target = model.rules.game.exact_target, _target_units(frame)
    offers = frame.offers()
    # G-8: a take-back is valued in the taker's situation with the points inherited
    # (``TurnAdvisor.advise``): the rows of each situation that some (s, t) takes into.
    taking = offers.any() and frame.taken is not None
    fresh = np.zeros(sits, dtype=np.float64)
    took = np.zeros((sits, frame.rows, hands), dtype=np.float64)
    into: dict[int, list[tuple[int, int]]] = {}
    if taking:
        assert frame.taken is not None
        for (s0, t0), s1 in np.ndenumerate(frame.taken):
            into.setdefault(int(s1), []).append((s0, t0))
    average: tuple[TurnSolution, ...] = ()
    blank = blank_cost(model.rules)  # a fresh start's first throw may cost its penalty
    # With a margin, a total that lands on an exact target is banked all the same.
    lands = _score_plus_total(frame, target + 1) == target if margin and exact else None
    for s, situation in enumerate(frame.situations):
        if long_run(model.rules, situation.entered, situation.score):
            # F-1: the long-run turn of a player with z farkles in a row (TurnAdvisor).
            if not average:
                average = solve_average_reward(model.rules, model=model).solutions
            z = frame.farkles[s] if frame.farkles is not None else 0
            sol = average[min(max(z, 0), len(average) - 1)]  # as TurnAdvisor.solution
        else:
            sol = solve_turn(model.rules, situation, model=model)
        if taking:
            fresh[s] = sol.column_value(0, flat.start_col) - blank
            assert frame.take_cols is not None
            pairs = into.get(s)
            if pairs:
                where = np.asarray(pairs, dtype=np.int64)
                took[where[:, 0], where[:, 1]] = sol.column_values(
                    where[:, 1], np.maximum(frame.take_cols, 0)
                )
        last = sol.values.shape[0] - 1
        at = np.minimum(t[:, None] + flat.roll_opt_pts[None, :], last)
        values = sol.values[at, flat.roll_opt_dest]
        if exact:  # a keep that passes the target ranks lower by PASSING (TurnAdvisor.advise)
            reached = situation.score // model.rules.unit + t[:, None] + flat.roll_opt_pts
            values = values - np.where(reached > target, PASSING, 0.0)
        keep[s] = first_best(values, frame)
        throw = sol.values[np.minimum(t, last)[:, None], flat.hand_throw_col[None, :]]
        bank_value = sol.bank_values[np.minimum(t, sol.bank_values.shape[0] - 1)]
        allowed = model.compiled.bankable(situation, frame.rows)
        want = bank_value[:, None] - margin >= throw
        if lands is not None:
            want |= lands[s][:, None]
        bank[s] = allowed & want
    take = offers[None, None, :] & (took > fresh[:, None, None])
    return PolicyTable(name, keep, bank, take)
