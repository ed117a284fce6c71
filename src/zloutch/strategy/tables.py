"""A bot's turn as tables, laid over the compiled turn's flat form (for the fast simulator).

A bot whose choices depend only on the situation (``Situation``), the turn total and the
node of the turn can be written as two tables (``PolicyTable``): the option it keeps from
every roll, and whether it banks at every decision node. Such a bot gives its own table
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
from zloutch.strategy.turn_solver import TurnModel, solve_turn

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class TableFrame:
    """What a table is laid over: a rule set's turn model, the situations the table tells
    apart (its first index), and the turn totals it covers (``rows``, in units; totals past
    the last row read the last)."""

    model: TurnModel
    situations: tuple[Situation, ...]
    rows: int

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
    allowed).
    """

    name: str
    keep: npt.NDArray[np.int16]
    bank: Bools


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


def most_points_keep(frame: TableFrame) -> npt.NDArray[np.int16]:
    """The keep with most points; on equal points the one that keeps fewer dice (the
    threshold and greedy bots' keep), the same at every situation and total."""
    flat = frame.model.compiled.flat
    seg = np.repeat(np.arange(frame.rolls), np.diff(flat.roll_opt_start))
    node_of_roll = np.searchsorted(flat.roll_start[:-1], np.arange(frame.rolls), side="right") - 1
    thrown = flat.node_dice[node_of_roll][seg]
    hand_of = np.full(flat.columns, -1, dtype=np.int64)
    hand_of[flat.hand_col] = np.arange(flat.hand_col.shape[0])
    dest = hand_of[flat.roll_opt_dest]
    free = np.where(dest >= 0, flat.hand_free[np.maximum(dest, 0)], 0)
    kept = np.where(dest >= 0, thrown - free, thrown)
    score = flat.roll_opt_pts.astype(np.float64) * 64 - kept
    choice: npt.NDArray[np.int16] = first_best(score, frame).astype(np.int16)
    return choice[None, None, :]


def threshold_table(name: str, frame: TableFrame, wanted: Ints) -> PolicyTable:
    """Keep most points; bank as soon as the total reaches ``wanted[dice in hand]`` points
    (the dice the hand throws next)."""
    flat = frame.model.compiled.flat
    totals = np.arange(frame.rows, dtype=np.int64) * frame.model.rules.unit
    node_of_col = np.zeros(flat.columns, dtype=np.int64)
    node_of_col[flat.node_col] = np.arange(flat.node_col.shape[0])
    in_hand = flat.node_dice[node_of_col[flat.hand_throw_col]]
    want = totals[:, None] >= wanted[in_hand][None, :]
    return PolicyTable(name, most_points_keep(frame), frame.allowed() & want[None, :, :])


def expert_table(frame: TableFrame) -> PolicyTable:
    """The turn solver's choices in every situation (``ExpertBot``: ties bank, first keep)."""
    flat, model = frame.model.compiled.flat, frame.model
    hands = int(flat.hand_col.shape[0])
    keep = np.zeros((len(frame.situations), frame.rows, frame.rolls), dtype=np.int16)
    bank = np.zeros((len(frame.situations), frame.rows, hands), dtype=np.bool_)
    t = np.arange(frame.rows)
    for s, situation in enumerate(frame.situations):
        sol = solve_turn(model.rules, situation, model=model)
        last = sol.values.shape[0] - 1
        at = np.minimum(t[:, None] + flat.roll_opt_pts[None, :], last)
        keep[s] = first_best(sol.values[at, flat.roll_opt_dest], frame)
        throw = sol.values[np.minimum(t, last)[:, None], flat.hand_throw_col[None, :]]
        bank_value = sol.bank_values[np.minimum(t, sol.bank_values.shape[0] - 1)]
        allowed = model.compiled.bankable(situation, frame.rows)
        bank[s] = allowed & (bank_value[:, None] >= throw)
    return PolicyTable("expert", keep, bank)
