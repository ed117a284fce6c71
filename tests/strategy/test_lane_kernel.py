"""The game solver's lane kernel against the plain kernel, the pair kernel and itself on
any number of threads."""

from __future__ import annotations

import collections
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zloutch.rules import PRESETS, load_rules
from zloutch.strategy.game_solver import _Game, solve_game, unsupported_reason
from zloutch.strategy.kernels import (
    LANES,
    Lanes,
    PairsProblem,
    Tables,
    aligned_empty,
    build_tables,
    scheduler,
    solve_pairs,
    thread_stats,
)
from zloutch.strategy.kernels import lanes as lane_layout
from zloutch.strategy.turn_solver import TurnModel

# The game solver's Numba kernels compiled once for a fresh clone, by the worker that runs
# the simulator's (about 5 s of CPU each time a worker compiles them): tests/conftest.py.
pytestmark = pytest.mark.xdist_group("sim-kernels")


@cache
def tables_of(spec: str) -> Tables:
    return build_tables(TurnModel(load_rules(spec)))


@pytest.mark.default_cases(4)
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
    problem = PairsProblem(t, rows, bank, same, farkle, win, boundary, boundary_is_farkle)
    plain = solve_pairs(problem, backend="python")
    lanes = solve_pairs(problem, backend="numba", threads=threads)
    for p, top in enumerate(rows.tolist()):  # below a pair's rows both leave zeros
        assert np.array_equal(plain[0][p, :top], lanes[0][p, :top])
        assert np.array_equal(plain[1][p, :top], lanes[1][p, :top])
    starts = Lanes(t, rows, bank, same).starts(farkle, win, boundary, boundary_is_farkle, threads)
    assert np.array_equal(starts[0], plain[0][:, 0, t.start_col])
    assert np.array_equal(starts[1], plain[1][:, 0, t.start_col])
    # Without derivatives (the F-1 sweeps): the same values, and no derivative to misread.
    alone = Lanes(t, rows, bank, same, derivative=False)
    values, deriv = alone.starts(farkle, win, boundary, boundary_is_farkle, threads, keep=True)
    assert np.array_equal(values, starts[0])
    assert np.isnan(deriv).all()
    kept, no_deriv = alone.tables_of_pairs()
    for p, top in enumerate(rows.tolist()):
        assert np.array_equal(kept[p, :top], plain[0][p, :top])
    assert np.isnan(no_deriv).all()


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
    problem = PairsProblem(game.tables, rows, bank, same, farkle, ones, boundary, exact)
    before = solve_pairs(problem, "numba-pairs")
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
    # To the bit: the banks read in the kernel from the tables by score, Newton's step taken
    # in the kernel, against level_inputs and the step in NumPy around the plain kernel.
    assert np.array_equal(one.win, before.win, equal_nan=True)
    assert one.passes == before.passes and one.residual == before.residual < 1e-12
    for threads in (2, 3):
        other = solve_game(rules, threads=threads, **kwargs)
        assert np.array_equal(other.win, one.win, equal_nan=True)
        assert other.passes == one.passes and other.residual == one.residual


@pytest.mark.parametrize(
    "spec",
    [
        "farkle",  # F-4: the last turns; the entry (T-7)
        "dix-mille(ticks_to_cross=0,bump=off,take_back=false)",  # T-9: the exact target
        "farkle-minimal(last_thousand=true)",  # G-7: banks that write nothing
    ],
)
def test_banks_read_by_score_are_the_level_inputs(spec: str) -> None:
    """The kernel's banks read from the tables by score (ScoreBanks) give what level_inputs
    lays out, to the bit, on levels of random win probabilities."""
    rules = load_rules(spec)
    assert unsupported_reason(rules) is None
    game = _Game(rules, "numba", None)
    T = game.T
    win = np.random.default_rng(5).random((T, T))
    game.tabulate_banks(0, win)
    assert game._score_banks is not None
    for s in (T - 1, T // 2, 3 * T // 2):
        a = np.arange(max(0, s - T + 1), min(s, T - 1) + 1, dtype=np.int64)
        b = s - a
        rows, bank, same = game.level_inputs(a, b, win)
        farkle = 1.0 - win[b, a]
        ones = np.ones(len(a))
        boundary = farkle if game.exact else ones
        plain = Lanes(game.tables, rows, bank, same).starts(farkle, ones, boundary, game.exact)
        entered = (b > 0) | (not rules.turn.entry)
        scores = game._score_banks.of(a, b, entered)
        lanes = Lanes(game.tables, game.rows_of(a), scores=scores)
        for threads in (1, 2):
            by_score = lanes.starts(farkle, ones, boundary, game.exact, threads)
            assert np.array_equal(by_score[0], plain[0])
            assert np.array_equal(by_score[1], plain[1])


def test_items_whose_holder_stopped_are_done_again() -> None:
    """Every item handed out to a holder that never writes a row (a thread the machine's
    other work holds back): the thread left does them all again, to the same values."""
    game = _Game(load_rules("farkle"), "numba", None)
    T = game.T
    a = np.arange(T, dtype=np.int64)
    b = T - 1 - a
    win = np.random.default_rng(7).random((T, T))
    rows, bank, same = game.level_inputs(a, b, win)
    farkle, ones = 1.0 - win[b, a], np.ones(T)
    lanes = Lanes(game.tables, rows, bank, same)
    expected = lanes.starts(farkle, ones, ones, False)
    job = lanes.job(farkle, ones, ones, False, 1, False, lane_layout.ONE_PASS)
    sync = job[0]
    ctrl, taken, finished, done = sync.ctrl, sync.taken, sync.finished, sync.done
    items = len(done)
    taken[0] = items  # all handed out, to a holder that never wrote a row (heartbeat 0)
    stats = np.zeros((1, 16), dtype=np.int64)
    clock = np.ones(1, dtype=np.int64)  # a row takes a tick: the holder stopped long ago
    stopped = sync._replace(clock=clock, stats=stats)
    scheduler._solve(0, stopped, *job[1:])
    assert ctrl[0] == scheduler.DONE and finished[0] == items and (done == 0).all()
    assert stats[0, scheduler.AGAIN] == items and stats[0, scheduler.ITEMS] == 0
    assert np.array_equal(job[7], expected[0]) and np.array_equal(job[8], expected[1])


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity")
def test_two_threads_on_one_cpu() -> None:
    """The calling thread and its helper on one CPU (as when other work holds the others):
    a thread with nothing left does the item of a holder that last ran on its own CPU (that
    waits for it), and the solve ends with the same values."""
    rules = load_rules("greed(target=600)")
    one = solve_game(rules, threads=1)
    solve_game(rules, threads=2)  # the helper thread started
    helpers = [t for t in threading.enumerate() if t.name.startswith("zloutch-solver-")]
    ids = [0, *(t.native_id for t in helpers if t.native_id is not None)]
    before = {i: os.sched_getaffinity(i) for i in ids}
    cpu = min(before[0])
    try:
        for i in ids:
            os.sched_setaffinity(i, {cpu})
        two = solve_game(rules, threads=2)
    finally:
        for i, cpus in before.items():
            os.sched_setaffinity(i, cpus)
    assert np.array_equal(two.win, one.win, equal_nan=True) and two.passes == one.passes


def test_threads_below_one_are_refused() -> None:
    with pytest.raises(ValueError, match="threads must be at least 1"):
        solve_game(load_rules("greed(target=300)"), threads=0)


class GivenUp(Exception):
    pass


def settled(read: Callable[[], object], quiet: float = 0.2, most: float = 10.0) -> None:
    """Wait until ``read()`` holds still for ``quiet`` seconds (the helpers see a stop at
    their next item: at once on a quiet machine, later where other work holds them back)."""
    last, since, began = read(), time.monotonic(), time.monotonic()
    while time.monotonic() - since < quiet and time.monotonic() - began < most:
        time.sleep(0.02)
        now = read()
        if now != last:
            last, since = now, time.monotonic()


def test_a_sweep_given_up_stops_and_the_next_solve_is_whole() -> None:
    """The calling thread tells the progress while the helpers sweep the levels: an error
    there (an interrupt) stops the helpers at their next item, and the next solve starts
    afresh with the same values."""
    rules = load_rules("farkle-minimal(target=5000)")
    thread_stats(reset=True)
    whole = solve_game(rules, threads=2)
    items = sum(one["items"] + one["again"] for one in thread_stats(reset=True))
    told: list[int] = []

    def give_up(done: int, levels: int) -> None:
        told.append(done)
        raise GivenUp

    with pytest.raises(GivenUp):
        solve_game(rules, threads=2, progress=give_up)
    assert told and told[0] < whole.levels
    settled(lambda: [one["items"] + one["again"] for one in thread_stats()])
    stopped = thread_stats(reset=True)
    assert sum(one["items"] + one["again"] for one in stopped) < items
    again = solve_game(rules, threads=2)
    assert np.array_equal(again.win, whole.win, equal_nan=True)
    assert again.passes == whole.passes


def test_the_threads_tables_begin_on_cache_lines() -> None:
    """Each thread's table on a cache line: an option's eight doubles, one line (a read
    across two lines made the kernel 1.4 times slower)."""
    for size in (1, 7, 1000, 100_000):
        assert aligned_empty(size).ctypes.data % lane_layout.ALIGN == 0
    tables = tables_of("greed")
    rows = np.arange(1, 20, dtype=np.int64)
    shape = (19, 19, len(tables.hand_col))
    lanes = Lanes(tables, rows, np.zeros(shape), np.zeros(shape, dtype=np.bool_))
    for threads, keep in ((1, False), (3, False), (2, True)):
        job = lanes.job(
            np.zeros(19), np.ones(19), np.ones(19), False, threads, keep, lane_layout.ONE_PASS
        )
        assert all(row.ctypes.data % lane_layout.ALIGN == 0 for row in job[1])


@pytest.mark.slow
def test_each_kernel_is_compiled_once_on_a_fresh_install(tmp_path: Path) -> None:
    """A first solve on an empty Numba cache compiles each lane kernel for one set of
    argument types: a literal ``True`` or ``False`` passed between kernels would compile a
    kernel once more (seconds of a fresh install's first solve, and of each test worker)."""
    code = (
        "from zloutch.rules import load_rules\n"
        "from zloutch.strategy.game_solver import solve_game\n"
        "solve_game(load_rules('greed(target=300)'), backend='numba', threads=2)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=300)
    compiled = collections.Counter(path.name.split("-")[0] for path in tmp_path.rglob("*.nbc"))
    assert compiled["item._item_python"] == 1
    assert compiled and set(compiled.values()) == {1}, compiled


def test_levels_go_on_for_as_many_passes_as_allowed() -> None:
    """A level's Newton passes past the eighth (tolerance 0: every pass allowed is made):
    each item checks whether its pass was written already against the pass it is given, not
    a lane's index (a level of nine passes or more once spun for ever). The values are the
    solve's own, which stops at its tolerance long before."""
    from zloutch.strategy.game_solver import score_levels

    rules = load_rules("greed(target=300)")
    expected = solve_game(rules, threads=2)
    game = _Game(rules, "numba", None, threads=2)
    game.margin = expected.margin
    win = np.full((game.T, game.T), np.nan)
    game.tabulate_banks(0, win)
    results = game.sweep(score_levels(game.can_win()), 0.0, None, passes=12)
    assert len(results) and (results[:, 1] == 12).all()
    assert np.allclose(win, expected.win, atol=1e-12, equal_nan=True)


def test_compiled_loops_older_than_the_kernel_they_carry_are_dropped(tmp_path: Path) -> None:
    """Numba knows a cache stale only when its function's own file changes; the scheduler's
    loops carry the item kernel and the intrinsics: an index older than either is emptied,
    a newer one kept, and a cache Numba lays out otherwise is left alone."""

    class Cache:
        def __init__(self, index: Path) -> None:
            self._cache_file = type("File", (), {"_index_path": str(index)})()
            self.flushed = False

        def flush(self) -> None:
            self.flushed = True

    source = tmp_path / "item.py"
    source.write_text("")
    old, new = tmp_path / "old.nbi", tmp_path / "new.nbi"
    old.write_text("")
    new.write_text("")
    os.utime(old, (1_000, 1_000))
    os.utime(source, (2_000, 2_000))
    os.utime(new, (3_000, 3_000))
    stale, fresh = Cache(old), Cache(new)
    missing = Cache(tmp_path / "never-written.nbi")
    dispatchers = tuple(type("D", (), {"_cache": c})() for c in (stale, fresh, missing))
    scheduler._drop_stale((*dispatchers, object()), (str(source),))
    assert stale.flushed and not fresh.flushed and not missing.flushed
