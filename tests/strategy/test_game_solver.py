"""The game solver (issue: Strategy II): brute force, backends, simulation, published figures."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from cuda_sim_cases import game_rules
from reference_game import normalise, solve

from zloutch.engine import CHANCE, Level, Phase, apply, current_player, is_terminal, new_game
from zloutch.engine.record import roll
from zloutch.rules import load_rules, parse_rules_text, with_options
from zloutch.rules.ruleset import RuleSet
from zloutch.strategy.game_solver import (
    MARGIN,
    GameSolution,
    UnsupportedRulesError,
    solve_game,
    unsupported_reason,
)
from zloutch.strategy.optimal import OptimalBot

# The game solver's Numba kernels compiled once for a fresh clone, by the worker that runs
# the simulator's (about 5 s of CPU each time a worker compiles them): tests/conftest.py.
pytestmark = pytest.mark.xdist_group("sim-kernels")

TINY = """
[rules]
name = "tiny"
dice = {dice}

[scoring]
singles = {{ 1 = 100, 5 = 50 }}

{kinds}

[turn]
{turn}

[game]
target = {target}
{game}
"""


def tiny(dice: int = 2, turn: str = "", game: str = "", target: int = 250) -> RuleSet:
    kinds = '[scoring.kinds]\n3 = { default = "100 x face", 1 = 1000 }' if dice >= 3 else ""
    text = TINY.format(dice=dice, turn=turn, game=game, target=target, kinds=kinds)
    return parse_rules_text(text, source="tiny")


CASES = {
    "reach, optional full hand": tiny(),
    # T-1 with T-9, as dix-mille: no bank ends in 50, so no score does.
    "exact target, banks of 100s": tiny(
        dice=3, turn="bank_multiple_of_100 = true", game="exact_target = true", target=300
    ),
    "forced full hand": tiny(turn='full_hand = "forced"'),
    "exact target (T-9)": tiny(game="exact_target = true"),
    "entry 200 (T-7)": tiny(turn="entry = 200"),
    "final turns (F-4)": tiny(game="final_turns = true", target=200),
    "three dice": tiny(dice=3, target=200),
}


PENALTY_CASES = {
    # F-1: the second farkle in a row costs 50 points; scores stop at the floor, -100.
    "farkle penalty (F-1)": tiny(turn="farkle_penalty = 50\nfarkle_penalty_after = 2", target=150),
    "farkle penalty, exact target": tiny(
        turn="farkle_penalty = 100\nfarkle_penalty_after = 2",
        game="exact_target = true",
        target=150,
    ),
}
QUICK_PENALTY_TARGET = 100
"""The twin of each penalty case: the same rules to 100 points (under half the states of the
brute force). The default run plays the first case's twin; the others and the target of 150
run under slow."""


def penalty_cases() -> list[object]:
    params: list[object] = []
    for n, case in enumerate(sorted(PENALTY_CASES)):
        quick = () if n == 0 else pytest.mark.slow  # the first by default: F-1 alone
        quick_id = f"{case}-{QUICK_PENALTY_TARGET}"
        params.append(pytest.param(case, QUICK_PENALTY_TARGET, id=quick_id, marks=quick))
        params.append(pytest.param(case, None, id=case, marks=pytest.mark.slow))
    return params


@pytest.mark.parametrize(("case", "target"), penalty_cases())
def test_penalty_game_equals_brute_force_through_the_engine(case: str, target: int | None) -> None:
    rules = PENALTY_CASES[case]
    if target is not None:
        rules = with_options(rules, {"target": target})
    assert rules.turn.farkle_penalty and rules.game.target == (target or 150)
    floor = 100
    solution = solve_game(rules, backend="array", margin=2, floor=floor, tolerance=1e-13)
    start = new_game(rules, ["Ana", "Bob"])
    values = solve(start, margin=2 * rules.unit, floor=floor)
    assert solution.counts is not None and solution.sweeps > 1
    assert solution.residual < 1e-13
    assert solution.first_player == pytest.approx(values[normalise(start, floor)], abs=1e-9)
    unit, low = rules.unit, solution.low
    checked = 0
    for state, value in values.items():
        if state.phase is not Phase.START or state.offer is not None:
            continue
        me, other = state.sheets[state.turn.player], state.sheets[1 - state.turn.player]
        expected = solution.counts[
            me.farkles_in_row,
            other.farkles_in_row,
            me.score // unit - low,
            other.score // unit - low,
        ]
        assert expected == pytest.approx(value, abs=1e-9), (me, other)
        checked += 1
    negative = [s for s in values if min(x.score for x in s.sheets) < 0]
    assert checked >= 20 and negative


def at_scores(rules: RuleSet, a: int, b: int) -> object:
    state = new_game(rules, ["Ana", "Bob"])
    sheets = (
        replace(state.sheets[0], levels=(Level(a),) if a else ()),
        replace(state.sheets[1], levels=(Level(b),) if b else ()),
    )
    return normalise(replace(state, sheets=sheets))


@pytest.mark.default_cases(4)
@pytest.mark.parametrize("case", sorted(CASES))
def test_game_solver_equals_brute_force_through_the_engine(case: str) -> None:
    rules = CASES[case]
    solution = solve_game(rules, backend="array", margin=2)
    values = solve(new_game(rules, ["Ana", "Bob"]), margin=2 * rules.unit)
    assert solution.first_player == pytest.approx(
        values[normalise(new_game(rules, ["Ana", "Bob"]))], abs=1e-9
    )
    unit = rules.unit
    checked = 0
    for a in range(0, rules.game.target, unit):
        for b in range(0, rules.game.target, unit):
            state = at_scores(rules, a, b)
            if state in values:
                assert solution.win[a // unit, b // unit] == pytest.approx(values[state], abs=1e-9)
                checked += 1
    assert checked >= 4


@pytest.mark.parametrize(
    "target", [600, pytest.param(1000, marks=pytest.mark.slow)], ids=lambda t: f"target={t}"
)
def test_backends_agree(target: int) -> None:
    """The default run compares the two kernels on a game to 600; to 1000, under slow."""
    rules = load_rules(f"greed(target={target})")
    fast = solve_game(rules, backend="numba")
    plain = solve_game(rules, backend="array")
    assert (np.isnan(fast.win) == np.isnan(plain.win)).all()
    assert np.nanmax(abs(fast.win - plain.win)) < 1e-12
    assert fast.residual < 1e-12 and fast.passes >= fast.levels


def test_unsupported_rule_sets_are_refused_with_the_reason() -> None:
    assert unsupported_reason(load_rules("greed")) is None
    with pytest.raises(UnsupportedRulesError, match="ticks_to_cross=0"):
        solve_game(load_rules("dix-mille"))
    reason = unsupported_reason(load_rules("dix-mille(ticks_to_cross=0,bump=off,take_back=false)"))
    assert reason is None
    assert unsupported_reason(load_rules("zilch")) is None  # F-1, bounded below
    assert "F-1) together with an entry (T-7)" in str(
        unsupported_reason(load_rules("zilch(entry=500)"))
    )
    assert "a blank first throw (fresh_farkle_penalty)" in str(
        unsupported_reason(load_rules("greed(fresh_farkle_penalty=2000)"))
    )
    # Past the exact target a throw that wins at once (G-5) would still count: not modelled.
    plain = "dix-mille(ticks_to_cross=0,bump=off,take_back=false,overshoot=throw_on)"
    assert unsupported_reason(load_rules(plain)) is None  # past the target: lost in the end
    assert "wins at once past an exact target" in str(
        unsupported_reason(load_rules(plain.replace(")", ",five_ones_win)")))
    )


def self_play(full: int, quick: int) -> pytest.MarkDecorator:
    """A self-play count: ``full`` games under slow, the first ``quick`` of the same seed in
    the default run (the same 4-standard-error bound, wider with fewer games)."""
    return pytest.mark.parametrize(
        "games",
        [
            pytest.param(quick, id=f"{quick}"),
            pytest.param(full, id=f"{full}", marks=pytest.mark.slow),
        ],
    )


@self_play(full=1500, quick=300)
def test_optimal_bot_self_play_agrees_with_the_solved_first_player_chance(games: int) -> None:
    # Seat one's measured win rate against itself must lie within 4 standard errors.
    rules = load_rules("greed(target=800)")
    solution = solve_game(rules)
    bot = OptimalBot(solution)
    rng = random.Random(7)
    first = 0
    for _ in range(games):
        state = new_game(rules, ["Ana", "Bob"])
        while not is_terminal(state):
            if current_player(state) == CHANCE:
                state = apply(state, roll(state, rng))
            else:
                state = apply(state, bot.choose(state, rng))
        first += state.winners == (0,)
    p = solution.first_player
    error = (p * (1 - p) / games) ** 0.5
    assert abs(first / games - p) < 4 * error


def test_pairs_from_which_nobody_can_win_are_left_out() -> None:
    """Banks ending in 50 refused (T-1) and an exact target (T-9), as dix-mille: from 150
    against 250 nobody can ever land on the target; such pairs have no value and are not
    solved (NaN); every other pair converges, head starts ending in 50 included."""
    rules = load_rules("dix-mille(ticks_to_cross=0,bump=off,take_back=false,target=1500)")
    solution = solve_game(rules)
    unit = rules.unit
    held = ~np.isnan(solution.win)
    assert held[0, 0] and held[500 // unit, 600 // unit] and held[0, 150 // unit]
    assert not held[150 // unit, 250 // unit] and not held[350 // unit, 350 // unit]
    assert held.sum() == (rules.game.target // unit) ** 2 - (rules.game.target // 100) ** 2
    assert np.nanmin(solution.win) >= 0.0 and np.nanmax(solution.win) <= 1.0
    assert solution.residual < 1e-12
    assert solution.win[0, 150 // unit] > solution.win[0, 200 // unit]  # 150 never wins


@pytest.fixture(scope="module")
def penalty_solution() -> tuple[GameSolution, list[tuple[int, int]]]:
    """F-1's penalty case solved once for the module (the default backend, floor -100), with
    the progress the solve reported."""
    seen: list[tuple[int, int]] = []
    rules = PENALTY_CASES["farkle penalty (F-1)"]
    solution = solve_game(rules, floor=100, progress=lambda d, n: seen.append((d, n)))
    return solution, seen


@self_play(full=3000, quick=500)
def test_optimal_bot_reads_both_players_farkles_in_a_row_under_the_penalty(
    games: int, penalty_solution: tuple[GameSolution, list[tuple[int, int]]]
) -> None:
    """F-1: the advice at the start of a turn is the solved chance for the scores and the
    farkles in a row of both players; self-play from seat one agrees with it."""
    rules = PENALTY_CASES["farkle penalty (F-1)"]
    solution, _ = penalty_solution
    assert solution.rules == rules and solution.counts is not None
    bot = OptimalBot(solution)
    advisor = bot.advisor(rules)
    assert advisor is not None
    unit, low = rules.unit, solution.low
    start = new_game(rules, ["Ana", "Bob"])
    for a, b, fa, fb in [(0, 0, 0, 0), (-50, 100, 1, 0), (50, -100, 0, 1), (100, 100, 1, 1)]:
        sheets = (
            replace(
                start.sheets[0], levels=(Level(a, penalty=a < 0),) if a else (), farkles_in_row=fa
            ),
            replace(
                start.sheets[1], levels=(Level(b, penalty=b < 0),) if b else (), farkles_in_row=fb
            ),
        )
        state = replace(start, sheets=sheets)
        expected = solution.counts[fa, fb, a // unit - low, b // unit - low]
        assert advisor.advise(state).values[0][1] == pytest.approx(expected, abs=1e-12)
    rng = random.Random(5)
    first = 0.0
    for _ in range(games):
        state = new_game(rules, ["Ana", "Bob"])
        while not is_terminal(state):
            actor = current_player(state)
            state = apply(state, roll(state, rng) if actor == CHANCE else bot.choose(state, rng))
        first += state.winners == (0,)
    p = solution.first_player
    assert abs(first / games - p) < 4 * (p * (1 - p) / games) ** 0.5


def test_penalty_tables_are_saved_and_loaded_whole(
    penalty_solution: tuple[GameSolution, list[tuple[int, int]]],
) -> None:
    from zloutch.app.store import load_game_solution, save_game_solution

    rules = PENALTY_CASES["farkle penalty (F-1)"]
    solution, seen = penalty_solution
    assert seen[-1][0] == seen[-1][1] == solution.sweeps * solution.levels
    assert save_game_solution(solution) is not None
    loaded = load_game_solution(rules)
    assert loaded is not None and loaded.counts is not None and solution.counts is not None
    assert (loaded.counts == solution.counts).all() and (loaded.win == solution.win).all()
    assert (loaded.low, loaded.sweeps) == (solution.low, solution.sweeps)


def test_the_penalty_solve_estimates_its_sweeps_from_the_last_fall() -> None:
    """The progress of an F-1 solve: its changes fall geometrically, so the sweeps left are
    read from the last fall (the bar's time left), never past the most allowed. The
    estimate at most doubles a sweep: zilch's second fall was by 0.54, its next ones by 0.04
    to 0.07, and the bar's total went 998, 1497, 20958, 4990 score levels."""
    from zloutch.strategy.game_solver import _sweeps_expected

    assert _sweeps_expected([], 1e-12, 500) == 2
    assert _sweeps_expected([0.3], 1e-12, 500) == 3
    # 1e-2 then 1e-3: a tenth a sweep, 1e-12 nine sweeps later; the estimate doubled at most
    assert _sweeps_expected([1e-2, 1e-3], 1e-12, 500) == 6
    assert _sweeps_expected([1e-1, 1e-2, 1e-3], 1e-12, 500) == 3 + 9
    assert _sweeps_expected([1e-2, 1e-3], 1e-12, 5) == 5
    assert _sweeps_expected([1e-2, 1e-13], 1e-12, 500) == 2
    assert _sweeps_expected([1e-3, 1e-3], 1e-12, 500) == 3  # no fall: one more at a time
    # the full zilch solve's largest changes, sweep by sweep (its tolerance 1e-12)
    zilch = [5.37e-2, 2.92e-2, 1.25e-3, 4.68e-5, 3.01e-6, 2.01e-7, 2.71e-9, 5.13e-11, 2.35e-12]
    zilch.append(1e-13)
    estimates = [_sweeps_expected(zilch[:n], 1e-12, 500) for n in range(len(zilch) + 1)]
    # by hand: after two, a fall of 0.54 asks 40 more (42), capped at twice 3; after three,
    # 1.25e-3 / 2.92e-2 = 0.043 asks ceil(ln(8e-10) / ln(0.043)) = 7 more (10); after four,
    # 0.037 asks ceil(ln(2.1e-8) / ln(0.037)) = 6 more (10); after five, 0.064 asks 6 (11)
    assert estimates == [2, 3, 6, 10, 10, 11, 11, 9, 9, 10, 10]  # ten sweeps in all
    # a fall that slows (fast, then by half a sweep): the estimate follows it up
    slowing = [1e-1, 1e-4, *(1e-4 * 0.5**k for k in range(1, 8))]
    estimates = [_sweeps_expected(slowing[:n], 1e-12, 500) for n in range(len(slowing) + 1)]
    assert estimates[-1] >= 29 and estimates == sorted(estimates)


def test_mixing_finds_the_fixed_point_of_an_affine_map_in_few_steps() -> None:
    """Anderson's mixing of the F-1 sweeps (``_Mixing``): on an affine map of six values that
    contracts by a half, remembering six steps reaches the fixed point to 1e-12 in eight,
    where taking each output as it is still misses it by more than 1e-4."""
    from zloutch.strategy.game_solver import _Mixing

    rng = np.random.default_rng(3)
    a = rng.normal(size=(6, 6))
    a *= 0.5 / max(abs(np.linalg.eigvals(a)))
    fixed = rng.uniform(0.2, 0.8, size=6)  # chances to win: the mix stays between 0 and 1
    b = fixed - a @ fixed
    errors = []
    for memory in (6, 0):
        mixing, x = _Mixing(memory), np.full(6, 0.5)
        for _ in range(8):
            x = mixing.next(x, a @ x + b)
        errors.append(float(np.max(np.abs(x - fixed))))
    assert errors[0] < 1e-12 < 1e-4 < errors[1]


def test_mixed_penalty_sweeps_reach_the_same_values_in_fewer_sweeps() -> None:
    """The F-1 solve with Anderson's mixing (the default) against plain sweeps, each reading
    the sweep before as it is: the same values to 1e-12, in fewer sweeps."""
    from zloutch.strategy.game_solver import _Game, _solve_penalty

    rules = load_rules("zilch(target=300)")
    solved = [
        _solve_penalty(
            _Game(rules, "numba", None), tolerance=1e-12, progress=None, floor=300, mixing=m
        )
        for m in (5, 0)
    ]
    mixed, plain = solved
    assert mixed.counts is not None and plain.counts is not None
    assert max(mixed.residual, plain.residual) < 1e-12
    assert float(np.max(np.abs(mixed.counts - plain.counts))) < 1e-12
    assert mixed.sweeps < plain.sweeps


MARGIN_CASES = {
    # F-1 and F-2: six dice that score nothing are thrown again, never a farkle, so that hand
    # is worth 1 past the target though it may not bank; 300 to bank.
    "zilch to 300": (load_rules("zilch(target=300)"), 6),
    # 300 to bank (6 units): from a score one unit short, totals of 1 to 5 units past the
    # target may not bank, so the rows stop after the 6th; with no such rule, after the 1st.
    "300 to bank": (tiny(dice=3, turn="min_bank = 300", target=300), 6),
    "nothing but the bank": (tiny(dice=3, target=300), 1),
    "entry 300 (T-7)": (tiny(dice=3, turn="entry = 300", target=300), 1),
    "the last 1000 (G-7)": (tiny(dice=3, game="last_thousand = true", target=1500), 1),
    # V-2: a farkle throws the jokers, which may farkle again: no total is surely won.
    "jokers (V-2)": (load_rules("cinq-mille(joker,target=1000)"), MARGIN),
    # A forced full hand throws on and may farkle: no total is surely won.
    "forced full hand": (tiny(dice=3, turn='full_hand = "forced"', target=300), MARGIN),
    "final turns (F-4)": (tiny(game="final_turns = true", target=200), MARGIN),
}


@pytest.mark.default_cases(3)
@pytest.mark.parametrize("case", sorted(MARGIN_CASES))
def test_the_rows_past_the_target_stop_where_every_total_is_a_won_bank(case: str) -> None:
    """The solve takes the totals past its rows as a won bank: by default it stops them as
    soon as every total from there is surely won (``_Game.least_margin``), with the values
    of the full margin."""
    rules, margin = MARGIN_CASES[case]
    floor = 500
    cut = solve_game(rules, floor=floor, tolerance=1e-13)
    full = solve_game(rules, floor=floor, tolerance=1e-13, margin=MARGIN)
    assert (cut.margin, full.margin) == (margin, MARGIN)
    assert cut.states <= full.states
    values = (cut.win, full.win) if cut.counts is None else (cut.counts, full.counts)
    assert np.array_equal(np.isnan(values[0]), np.isnan(values[1]))
    assert float(np.nanmax(np.abs(values[0] - values[1]))) < 1e-15


def test_the_summary_counts_the_score_pairs_solved_below_zero_too(
    penalty_solution: tuple[GameSolution, list[tuple[int, int]]],
) -> None:
    """Under F-1 scores go down to the floor: the summary counts the pairs from there (the
    solve's own table), not the slice from 0 that ``win`` keeps."""
    from zloutch.app.solve import game_summary

    solution, _ = penalty_solution
    summary = game_summary(solution)
    n = solution.target - solution.low
    assert solution.low < 0
    assert summary["score_pairs"] == n * n > solution.win.size
    assert summary["lowest_score"] == solution.low * solution.unit
    assert summary["farkles_in_a_row"] == solution.rules.turn.farkle_penalty_after
    assert summary["sweeps"] == solution.sweeps


@pytest.mark.parametrize("case", list(PENALTY_CASES))
def test_the_penalty_solve_reads_the_same_banks_by_score_and_by_hand(case: str) -> None:
    """F-1 on the Numba backend: the lane kernel reads the banks from the tables by score,
    with every count's win table in one (``_score_batches``); the array backend lays them
    out a hand. Both give the same values."""
    rules = PENALTY_CASES[case]
    by_score = solve_game(rules, backend="numba", floor=100, tolerance=1e-13)
    by_hand = solve_game(rules, backend="array", floor=100, tolerance=1e-13)
    assert by_score.counts is not None and by_hand.counts is not None
    np.testing.assert_allclose(by_score.counts, by_hand.counts, rtol=0, atol=1e-12)


def test_device_cuda_with_a_gpu_solves_on_the_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    """``solved_game(device="cuda")`` where a GPU is found asks the solver for the CUDA
    backend (here the CPU's solve stands in for it: this worker has the CPU's kernels
    compiled, tests/conftest.py; the CUDA kernel itself: test_cuda_kernel.py)."""
    from zloutch.app import solve as app_solve
    from zloutch.strategy.kernels import cuda as cuda_kernel

    asked: list[str | None] = []

    def solve(*args: object, backend: str | None = None, **kwargs: object) -> object:
        asked.append(backend)
        return solve_game(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(cuda_kernel, "unavailable_reason", lambda check=False: None)
    monkeypatch.setattr(app_solve, "solve_game", solve)
    solution, cached = app_solve.solved_game(game_rules("reach target")[0], device="cuda")
    assert asked == ["cuda"] and not cached and 0.5 < solution.first_player < 1
