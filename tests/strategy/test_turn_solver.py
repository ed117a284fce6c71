"""The turn solver (issue: Strategy I): published figures, a brute-force check, a simulation."""

from __future__ import annotations

import random
import statistics
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from reference_turn import turn_value

from zloutch.engine import CHANCE, Level, apply, current_player, legal_actions, new_game
from zloutch.engine.record import roll
from zloutch.rules import RuleSet, load_rules, parse_rules_text
from zloutch.strategy import turn_solver
from zloutch.strategy.expert import ExpertBot, TurnAdvisor
from zloutch.strategy.turn_solver import (
    Hand,
    Situation,
    Terminal,
    farkle_probabilities,
    solve_average_reward,
    solve_turn,
)


def test_zilch_long_run_average_is_busches_620_855() -> None:
    # Matt Busche's analysis of Zilch: best long-run average 620.855 points per turn (F-1).
    result = solve_average_reward(load_rules("zilch"))
    assert round(result.average, 3) == 620.855
    assert result.residual < 1e-9
    assert result.bias[0] == 0.0 and result.bias[2] < result.bias[1] < 0


def plain_relative_value_iteration(
    rules: RuleSet, tolerance: float
) -> tuple[float, list[float], int]:
    """F-1's long run the plain way: every count's turn solved again from the last biases
    (0 at first) until no bias moves by ``tolerance``; the average, the biases, and the turns
    solved."""
    after, penalty = rules.turn.farkle_penalty_after, rules.turn.farkle_penalty
    bias = [0.0] * after
    for iteration in range(1, 500):
        gains = [
            solve_turn(
                rules, terminal=Terminal(0.0, -penalty if z == after - 1 else bias[z + 1])
            ).expected_turn
            for z in range(after)
        ]
        new = [g - gains[0] for g in gains]
        moved = max(abs(a - b) for a, b in zip(new, bias, strict=True))
        bias = new
        if moved < tolerance:
            return gains[0], bias, iteration * after
    raise AssertionError("no convergence")


@pytest.mark.parametrize(
    "spec",
    [
        # The default run's two (the solver's paths are the same for every count and
        # penalty); the three that take one to two seconds each run under slow.
        "zilch(farkle_penalty_after=2)",
        "zilch(farkle_penalty_after=1)",
        pytest.param("zilch", marks=pytest.mark.slow),
        pytest.param("zilch(farkle_penalty_after=4,farkle_penalty=1000)", marks=pytest.mark.slow),
        pytest.param("farkle(farkle_penalty=500)", marks=pytest.mark.slow),
    ],
)
def test_the_long_run_is_the_fixed_point_of_plain_relative_value_iteration(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The average's root (``solve_average_reward``) is the fixed point that relative value
    iteration reaches from 0, to its tolerance, in fewer turn solves; the turns returned are
    each count's at the biases returned (to the residual: those of the last iteration's
    start)."""
    rules = load_rules(spec)
    average, bias, plain_solves = plain_relative_value_iteration(rules, 1e-10)
    solves = 0
    real_solve = turn_solver.solve_turn

    def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal solves
        solves += 1
        return real_solve(*args, **kwargs)

    monkeypatch.setattr(turn_solver, "solve_turn", counted)
    found = solve_average_reward(rules)  # to 1e-10
    assert found.residual < 1e-10
    assert abs(found.average - average) < 1e-9
    assert all(abs(a - b) < 1e-9 for a, b in zip(found.bias, bias, strict=True))
    assert found.bias[0] == 0.0
    after = rules.turn.farkle_penalty_after
    assert solves > 0  # the count sees the solver's own calls
    assert solves <= plain_solves if after == 1 else solves < plain_solves / 2
    for z, solution in enumerate(found.solutions):
        farkle = -rules.turn.farkle_penalty if z == after - 1 else found.bias[z + 1]
        assert solution.terminal is not None and solution.terminal.bank_bonus == 0.0
        assert solution.terminal.farkle == pytest.approx(farkle, abs=1e-10)  # the residual


@pytest.mark.parametrize("most", [1, 2, 3])
def test_the_long_run_stops_at_its_iterations_with_every_counts_turn(most: int) -> None:
    """Cut short, the solve still returns every count's turn, a residual that says it has
    not converged, and a progress that ends at its steps."""
    calls: list[tuple[int, int]] = []
    found = solve_average_reward(
        load_rules("zilch"), max_iterations=most, progress=lambda d, t: calls.append((d, t))
    )
    assert found.iterations == most and len(found.solutions) == 3
    assert found.residual > 1e-10  # not converged, and says so
    assert [d for d, _ in calls] == list(range(1, most + 1))
    assert all(d <= t <= most for d, t in calls) and calls[-1] == (most, most)


@pytest.mark.parametrize("preset", ["farkle-minimal", "greed"])
def test_farkle_probabilities_under_ones_fives_and_three_of_a_kind(preset: str) -> None:
    published = [
        Fraction(2, 3),
        Fraction(4, 9),
        Fraction(5, 18),
        Fraction(17, 108),
        Fraction(25, 324),
        Fraction(5, 162),
    ]
    rules = load_rules(preset)
    found = farkle_probabilities(rules)
    assert [found[n] for n in range(1, rules.dice + 1)] == published[: rules.dice]


def test_zilch_six_dice_never_farkle_thanks_to_the_bonus() -> None:
    assert farkle_probabilities(load_rules("zilch"))[6] == 0  # F-2


def test_the_cap_does_not_change_the_value() -> None:
    rules = load_rules("zilch")
    low = solve_turn(rules, cap=20000).expected_turn
    high = solve_turn(rules, cap=40000).expected_turn
    assert abs(low - high) < 1e-11 * high  # relative: at floating-point precision


TINY = """
[rules]
name = "tiny"
dice = {dice}

[scoring]
singles = {{ 1 = 100, 5 = 50 }}
{scoring}

[scoring.kinds]
3 = {{ default = "100 x face", 1 = 1000 }}

[turn]
{turn}

[game]
target = {target}
{game}
{extra}
"""

RUN_123 = """
[[scoring.patterns]]
name = "run 1-3"
faces = [1, 2, 3]
points = 500
"""


def tiny(
    turn: str = "",
    game: str = "",
    target: int = 10000,
    *,
    scoring: str = "",
    extra: str = "",
    dice: int = 3,
) -> str:
    return TINY.format(turn=turn, game=game, target=target, scoring=scoring, extra=extra, dice=dice)


CASES = {
    "plain": (tiny(), ""),
    "T-2 keep all scoring": (tiny(), "keep_all_scoring"),
    "T-5 forced, T-6": (tiny('full_hand = "forced"\nbank_multiple_of_100 = true'), ""),
    "T-7 entry by turn": (tiny("entry = 350"), ""),
    "T-7 entry by throw": (tiny('entry = 200\nentry_by = "throw"'), ""),
    "F-3 min bank, T-8 pp": (tiny("min_bank = 300\npetit_palier = true"), ""),
    "T-9 exact target": (tiny(game="exact_target = true", target=1200), ""),
    "T-10 full hand wins": (
        tiny(
            'full_hand = "forced"\nfull_hand_win = true\nfull_hand_win_from = 300',
            game="exact_target = true",
            target=1000,
        ),
        "",
    ),
    # T-9: near an exact target banking after the bonus would beat throwing again, so the
    # rethrow (F-2) changes the value.
    "F-2 no-score bonus": (
        tiny(scoring="no_score_bonus = 500", game="exact_target = true", target=1200),
        "",
    ),
    "G-5 five 1s win": (tiny(dice=5, target=1500), "five_ones_win"),
    "V-1 confirmation": (tiny(), "confirmation"),
    "V-2 jokers": (tiny(), "joker"),
    "V-2 jokers keep points": (tiny(), "joker,joker_keeps_points"),
    "V-3 421": (tiny(), "four_two_one"),
    "V-6 straights over throws": (tiny(extra=RUN_123), "straights_over_throws"),
    "V-7 multiples": (tiny(), "multiples_over_throws"),
    "G-7 last thousand": (tiny(game="last_thousand = true", target=2000), ""),
}
CAPS = {"G-5 five 1s win": 500}
"""Lower caps where the plain recursion is slow (five dice)."""
CAP = 1000
QUICK_CAP = 500
"""The default run's cap: a quarter of the recursion; the cap of 1000 runs under slow."""
QUICK_CAPS = {"G-5 five 1s win": 250}
"""The default run's cap where ``CAPS`` lowers it; that cap runs under slow."""
EXACT = {case for case, (text, _) in CASES.items() if "exact_target = true" in text}
"""With an exact target (T-9) the cap does not bound the turn: the recursion costs the same
at any cap, and grows with the room left to the target. The default run solves these
entered with ``QUICK_ROOM`` points to go; entered as the others, and not entered, under slow."""
QUICK_ROOM = 600


def recursion_cases() -> list[object]:
    params: list[object] = []
    slow = pytest.mark.slow
    for case in sorted(CASES):
        text, _ = CASES[case]
        for entered in (True, False):
            cap = CAPS.get(case, CAP)
            quick = QUICK_CAPS.get(case, QUICK_CAP)
            name = f"{entered}-{case}"
            if case in EXACT:
                if entered:
                    target = parse_rules_text(text, source="tiny").game.target
                    score = target - QUICK_ROOM
                    params.append(pytest.param(case, entered, cap, score, id=f"{name}-at-{score}"))
                params.append(pytest.param(case, entered, cap, None, id=name, marks=slow))
            elif cap > quick:
                params.append(pytest.param(case, entered, quick, None, id=f"{name}-{quick}"))
                params.append(pytest.param(case, entered, cap, None, id=name, marks=slow))
            else:
                params.append(pytest.param(case, entered, cap, None, id=name))
    return params


@pytest.mark.default_cases(12)
@pytest.mark.parametrize(("case", "entered", "cap", "at"), recursion_cases())
def test_solver_equals_a_plain_recursion_through_the_engine(
    case: str, entered: bool, cap: int, at: int | None
) -> None:
    """``at``: the score of the player entered (default: 200, or 600 past a target of 1500)."""
    text, options = CASES[case]
    rules = parse_rules_text(text, source="tiny")
    if options:
        rules = rules.replace_options(dict.fromkeys(options.split(","), True))
    state = new_game(rules, ["Ana", "Bob"])
    score = 0
    if entered:
        score = at if at is not None else 600 if rules.game.target > 1500 else 200
        sheets = (replace(state.sheets[0], levels=(Level(score),)), state.sheets[1])
        state = replace(state, sheets=sheets)
    state = apply(state, legal_actions(state)[0])
    expected = turn_value(state, cap)
    situation = Situation.normalise(rules, entered, score)
    solved = solve_turn(rules, situation, cap=cap).expected_turn
    assert solved == pytest.approx(expected, rel=1e-12, abs=1e-9)


@pytest.mark.parametrize(
    "turns", [1000, pytest.param(3000, marks=pytest.mark.slow)], ids=lambda n: f"{n}-turns"
)
def test_expert_turns_average_the_solved_value(turns: int) -> None:
    # Simulate fresh turns of the expert bot through the engine; the mean must agree with
    # the solver's value within 4 standard errors (a false alarm about once in 16,000 runs).
    # The default run plays the first 1000 turns of the same seed; all 3000 under slow.
    rules = load_rules("farkle-minimal")
    expected = solve_turn(rules).expected_turn
    bot = ExpertBot()
    rng = random.Random(2024)
    banked = []
    start = new_game(rules, ["Ana", "Bob"])
    for _ in range(turns):
        state = start
        while state.turn.player == 0 and state.phase.value != "over":
            if current_player(state) == CHANCE:
                state = apply(state, roll(state, rng))
            else:
                state = apply(state, bot.choose(state, rng))
        banked.append(state.sheets[0].score)
    mean = statistics.fmean(banked)
    error = statistics.stdev(banked) / len(banked) ** 0.5
    assert abs(mean - expected) < 4 * error


def test_advice_values_match_the_solution_at_the_start() -> None:
    rules = load_rules("dix-mille")
    advisor = TurnAdvisor(rules)
    state = new_game(rules, ["Ana", "Bob"])
    advice = advisor.advise(state)
    assert len(advice.values) == 1
    solution = advisor.solution(state)
    assert advice.values[0][1] == pytest.approx(solution.expected_turn)
    assert Situation.normalise(rules, False, 0) == Situation(entered=False, score=0)


@pytest.mark.default_cases(2)
@pytest.mark.parametrize("preset", ["dix-mille", "charentaise", "greed", "farkle-minimal"])
def test_vectorised_solve_equals_the_plain_reference(preset: str) -> None:
    from zloutch.strategy.reference import reference_expected_turn
    from zloutch.strategy.turn_solver import TurnModel

    rules = load_rules(preset)
    model = TurnModel(rules)
    for situation in (Situation(True, 0), Situation(False, 0)):
        fast = solve_turn(rules, situation, model=model).expected_turn
        assert fast == pytest.approx(reference_expected_turn(model, situation), rel=1e-12)


def test_solve_summary_is_cached_on_disk(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from zloutch.app.solve import cached_turn_summary

    monkeypatch.setenv("ZLOUTCH_CACHE", str(tmp_path))
    rules = load_rules("greed")
    first, hit = cached_turn_summary(rules)
    assert not hit
    second, hit = cached_turn_summary(rules)
    assert hit and second == first
    assert first["rules"] == "greed" and set(first["thresholds"]) == {"1", "2", "3", "4", "5"}
    other, hit = cached_turn_summary(load_rules("greed(entry=500)"))
    assert not hit and other["rules"] == "greed(entry=500)"


def test_thresholds_look_at_every_hand_of_a_dice_count() -> None:
    # V-7: every hand holds its dice set aside, so no plain Hand(n) below a full hand.
    rules = load_rules("dix-mille(multiples_over_throws=true)")
    found = solve_turn(rules).thresholds()
    assert all(found[n] is not None for n in range(1, 5)) and found[5] is None  # T-5 forced
    # T-7 by one throw of 1000: a player not entered banks only once a throw made 1000.
    rules = load_rules("dix-mille-6")
    solution = solve_turn(rules, Situation.normalise(rules, False, 0))
    entry = solution.thresholds()
    assert all(t is not None and t >= 1000 for n, t in entry.items() if n < 6)
    assert entry[6] is None  # T-5 forced


def test_values_past_the_cap_are_banked_or_lost() -> None:
    zilch = solve_turn(load_rules("zilch"))
    hand = Hand(3)
    assert zilch.bank_value(50000) == 50000.0
    assert zilch.value(50000, hand) == 50000.0
    assert zilch.value(50000, zilch.model.throw_of(hand)) == 50000.0
    # T-9: past the room left the turn is lost.
    dix = solve_turn(load_rules("dix-mille"), Situation(True, 9000))
    assert dix.value(50000, dix.model.start) == 0.0
    # F-1: the terminal values of a solve (bank bonus, farkle value) count past the cap too.
    terminal = solve_turn(load_rules("zilch"), terminal=Terminal(7.0, -3.0))
    assert terminal.bank_value(50000) == 50007.0
    assert terminal.value(50000, hand) == 50007.0
    exact = solve_turn(load_rules("dix-mille"), Situation(True, 9000), terminal=Terminal(7.0, -3.0))
    assert exact.value(50000, exact.model.start) == -3.0


def test_f2_after_the_no_score_bonus_the_hand_cannot_bank() -> None:
    rules = load_rules("zilch")
    solution = solve_turn(rules)
    rethrow = Hand(0, rethrow=True)
    assert rethrow in solution.model.column and Hand(0) in solution.model.column
    assert not any(solution.can_bank(t * 50, rethrow) for t in range(solution.rows))
    assert solution.can_bank(300, Hand(0))


def test_solves_report_their_progress() -> None:
    rules = load_rules("zilch")
    rows: list[tuple[int, int]] = []
    solution = solve_turn(rules, progress=lambda done, total: rows.append((done, total)))
    assert rows[-1] == (solution.rows, solution.rows) and len(rows) > 10
    assert [d for d, _ in rows] == sorted(d for d, _ in rows)
    steps: list[tuple[int, int]] = []
    average = solve_average_reward(rules, progress=lambda done, total: steps.append((done, total)))
    assert steps[-1] == (average.iterations, average.iterations)
    assert [d for d, _ in steps] == list(range(1, average.iterations + 1))
