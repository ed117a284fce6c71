"""The game solver's lane kernel against the plain kernel, the pair kernel and itself on
any number of threads."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zloutch.rules import PRESETS, load_rules
from zloutch.strategy.game_solver import _Game, solve_game
from zloutch.strategy.kernels import LANES, Lanes, Tables, build_tables, solve_pairs
from zloutch.strategy.turn_solver import TurnModel


@cache
def tables_of(spec: str) -> Tables:
    return build_tables(TurnModel(load_rules(spec)))


@pytest.mark.parametrize("spec", [*sorted(PRESETS), "dix-mille(joker)"])
def test_options_at_the_same_total_read_columns_solved_before(spec: str) -> None:
    """The lane kernel relies on it (as the plain one does): within one total, an option
    that adds no points leads to a farkle, a win or a throw node solved earlier (jokers'
    throws first, V-2), and every column is a node's or a hand's, so nothing reads a value
    that the row has not written."""
    t = tables_of(spec)
    solved = {0, 1}
    for n in range(len(t.node_col)):
        for s in range(t.sig_start[n], t.sig_start[n + 1]):
            for o in range(t.opt_start[s], t.opt_start[s + 1]):
                assert t.opt_pts[o] >= 0
                assert t.opt_pts[o] > 0 or int(t.opt_dest[o]) in solved
        solved.add(int(t.node_col[n]))
    assert solved | set(t.hand_col.tolist()) == set(range(t.columns))
    assert set(t.hand_throw_col.tolist()) <= set(t.node_col.tolist())


@st.composite
def batches(draw: st.DrawFn) -> tuple[np.ndarray, ...]:
    """A batch of pairs of the greed turn: any rows, banks allowed or not (-inf), worth
    anything in [0, 1] or what a farkle is, any farkle and boundary values."""
    t = tables_of("greed")
    pairs = draw(st.integers(1, 2 * LANES + 3))
    rows = np.asarray(draw(st.lists(st.integers(1, 30), min_size=pairs, max_size=pairs)))
    height, hands = int(rows.max()), len(t.hand_col)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    bank = np.where(
        rng.random((pairs, height, hands)) < 0.3, -np.inf, rng.random((pairs, height, hands))
    )
    same = rng.random((pairs, height, hands)) < 0.1
    farkle, boundary = rng.random(pairs), rng.random(pairs)
    return rows.astype(np.int64), bank, same, farkle, rng.random(pairs) + 0.5, boundary


@settings(max_examples=20, deadline=None)
@given(batch=batches(), boundary_is_farkle=st.booleans(), threads=st.integers(1, 3))
def test_lane_kernel_equals_the_plain_kernel(
    batch: tuple[np.ndarray, ...], boundary_is_farkle: bool, threads: int
) -> None:
    """Every (pair, total, column) value and derivative, bit for bit: the same operations in
    the same order, only laid out with the pairs innermost."""
    t = tables_of("greed")
    rows, bank, same, farkle, win, boundary = batch
    args = (t, rows, bank, same, farkle, win, boundary, boundary_is_farkle)
    plain = solve_pairs(*args, backend="python")
    lanes = solve_pairs(*args, backend="numba", threads=threads)
    for p, top in enumerate(rows.tolist()):  # below a pair's rows both leave zeros
        assert np.array_equal(plain[0][p, :top], lanes[0][p, :top])
        assert np.array_equal(plain[1][p, :top], lanes[1][p, :top])
    starts = Lanes(t, rows, bank, same).starts(farkle, win, boundary, boundary_is_farkle, threads)
    assert np.array_equal(starts[0], plain[0][:, 0, t.start_col])
    assert np.array_equal(starts[1], plain[1][:, 0, t.start_col])


@pytest.mark.parametrize("exact", [False, True], ids=["reach", "exact"])
def test_lane_kernel_equals_the_pair_kernel_on_a_farkle_level(exact: bool) -> None:
    """The largest level of ``farkle`` (200 pairs, 41 to 240 rows), on 1 and 2 threads,
    against the kernel the solver had before (pairs outermost), compiled the same way."""
    game = _Game(load_rules("farkle"), "numba", None)
    T = game.T
    a = np.arange(T, dtype=np.int64)
    b = T - 1 - a
    win = np.random.default_rng(3).random((T, T))
    rows, bank, same = game.level_inputs(a, b, win)
    farkle = 1.0 - win[b, a]
    ones = np.ones(T)
    boundary = farkle if exact else ones
    before = solve_pairs(
        game.tables, rows, bank, same, farkle, ones, boundary, exact, "numba-pairs"
    )
    lanes = Lanes(game.tables, rows, bank, same)
    for threads in (1, 2):
        value, deriv = lanes.starts(farkle, ones, boundary, exact, threads)
        assert np.array_equal(value, before[0][:, 0, game.tables.start_col])
        assert np.array_equal(deriv, before[1][:, 0, game.tables.start_col])


@pytest.mark.parametrize(
    ("spec", "floor"),
    [
        ("greed(target=600)", 0),  # F-4: the last turns
        ("dix-mille(ticks_to_cross=0,bump=off,take_back=false,target=1500)", 0),  # T-9
        ("zilch(target=300)", 100),  # F-1: the penalty's sweeps
    ],
)
def test_solve_game_is_the_same_on_any_threads_and_as_the_pair_kernel(
    spec: str, floor: int
) -> None:
    rules = load_rules(spec)
    kwargs = {"floor": floor} if floor else {}
    one = solve_game(rules, threads=1, **kwargs)
    before = solve_game(rules, backend="numba-pairs", **kwargs)
    assert (np.isnan(one.win) == np.isnan(before.win)).all()
    assert np.nanmax(np.abs(one.win - before.win)) <= 1e-12
    assert one.passes == before.passes and one.residual < 1e-12
    for threads in (2, 3):
        other = solve_game(rules, threads=threads, **kwargs)
        assert np.array_equal(other.win, one.win, equal_nan=True)


def test_threads_below_one_are_refused() -> None:
    with pytest.raises(ValueError, match="threads must be at least 1"):
        solve_game(load_rules("greed(target=300)"), threads=0)
