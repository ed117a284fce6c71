"""The sheet-blind model: how the optimal bot plays rule sets whose sheet's history matters.

Ticks (G-3), bumps (G-4) and take-back (G-8) make the sheet part of the state; the game
solver does not model them. The bot plays the same rules with them switched off, solved
exactly, reading the full game by its two banked scores.
"""

from __future__ import annotations

import random

import pytest

from zloutch.app.solve import solved_game
from zloutch.engine import CHANCE, Phase, apply, current_player, is_terminal, new_game
from zloutch.engine.actions import Fresh, Take
from zloutch.engine.record import roll
from zloutch.rules import load_rules
from zloutch.strategy.expert import ExpertBot
from zloutch.strategy.game_solver import UnsupportedRulesError, sheet_blind, solve_game
from zloutch.strategy.optimal import OptimalBot

# The game solver's Numba kernels compiled once for a fresh clone, by the worker that runs
# the simulator's (about 5 s of CPU each time a worker compiles them): tests/conftest.py.
pytestmark = pytest.mark.xdist_group("sim-kernels")

SMALL = "dix-mille(target=1500,entry=300)"
"""Ticks, bumps, take-back and an exact target (T-9), small enough to solve in a second."""


def test_the_model_switches_off_exactly_the_sheet_rules() -> None:
    blind = sheet_blind(load_rules("dix-mille"))
    assert blind is not None
    assert blind == load_rules("dix-mille(ticks_to_cross=0,bump=off,take_back=false)")
    assert (
        blind.turn == load_rules("dix-mille").turn
        and blind.scoring == load_rules("dix-mille").scoring
    )
    assert sheet_blind(load_rules("farkle")) is None  # solved exactly: no model needed
    assert sheet_blind(load_rules("zilch")) is None  # F-1 is not the sheet's history


def test_solve_names_the_model_when_it_refuses_the_full_rules() -> None:
    with pytest.raises(UnsupportedRulesError, match="sheet-blind model") as error:
        solved_game(load_rules("dix-mille"))
    assert "ticks_to_cross=0" in str(error.value)
    # the same words for every command that solves (solve --game, plot, review --solve)
    assert str(error.value).endswith(
        "give --rules 'dix-mille(bump=off,take_back=false,ticks_to_cross=0)'"
    )


def play(bots: list[object], seed: int) -> tuple[tuple[int, ...], int]:
    """One game to the end: its winners and the take-back offers the first bot answered (G-8)."""
    rules = load_rules(SMALL)
    rng = random.Random(seed)
    state = new_game(rules, ["A", "B"])
    offers = 0
    while not is_terminal(state):
        p = current_player(state)
        if p == CHANCE:
            action = roll(state, rng)
        else:
            action = bots[p].choose(state, rng)  # type: ignore[attr-defined]
            offers += p == 0 and isinstance(action, Take | Fresh)
        state = apply(state, action)
    return state.winners, offers


def test_the_optimal_bot_plays_full_games_by_the_model_and_says_so() -> None:
    rules = load_rules(SMALL)
    blind = sheet_blind(rules)
    assert blind is not None
    solution = solve_game(blind)
    bot = OptimalBot(solution)
    assert bot.advisor(rules) is not None
    answered = 0
    for seed in range(6):
        winners, offers = play([bot, ExpertBot()], seed)
        assert winners
        answered += offers
    assert answered > 0  # the model valued take-back offers it does not contain
    assert "sheet-blind model" in bot.note and blind.spec in bot.note


def test_the_model_reads_a_fresh_turn_by_the_two_scores() -> None:
    """At the start of a turn with nothing on the sheet but the scores, the advice is the
    solved chance to win at those scores."""
    rules = load_rules(SMALL)
    blind = sheet_blind(rules)
    assert blind is not None
    solution = solve_game(blind)
    advisor = OptimalBot(solution).advisor(rules)
    assert advisor is not None
    state = new_game(rules, ["A", "B"])
    assert state.phase is Phase.START
    advice = advisor.advise(state)
    assert advice.values[0][1] == pytest.approx(solution.first_player, abs=1e-9)


def test_without_a_solved_model_the_bot_falls_back_and_names_what_to_solve() -> None:
    bot = OptimalBot(lambda rules: None)
    play([bot, ExpertBot()], 0)
    assert "turn-optimal" in bot.note and "ticks_to_cross=0" in bot.note


def sheet_state(rules, mine, theirs, ticks=0):  # type: ignore[no-untyped-def]
    """A fresh turn of player A with the levels ``mine`` (the last current, ``ticks`` beside
    it) against B's levels ``theirs``."""
    from dataclasses import replace

    from zloutch.engine.state import Level

    state = new_game(rules, ["A", "B"])
    a = replace(
        state.sheets[0],
        levels=tuple(Level(v, ticks=ticks if v == mine[-1] else 0) for v in mine),
        ticks=ticks,
    )
    b = replace(state.sheets[1], levels=tuple(Level(v) for v in theirs))
    return replace(state, sheets=(a, b))


def test_the_look_ahead_counts_the_tick_that_crosses_and_the_bank_that_bumps() -> None:
    """One turn ahead on the sheet: with two ticks beside A's level a farkle falls back a
    level (700 to 400), and a bank of 300 lands on B's 1000 and sends B back to 600; the
    turn's ends are valued by the model at those scores, every other end as the model has
    it."""
    rules = load_rules(SMALL)
    blind = sheet_blind(rules)
    assert blind is not None
    solution = solve_game(blind)
    advisor = OptimalBot(solution).advisor(rules)
    assert advisor is not None and advisor.sheet
    unit, win = rules.unit, solution.win
    calm = sheet_state(rules, (400, 700), (600, 1000))
    risky = sheet_state(rules, (400, 700), (600, 1000), ticks=2)
    farkled_to, ends = advisor.sheet_ends(risky)
    assert farkled_to == 400 and ends[0].score == 1000 and ends[0].after_farkle == 1000
    assert (1000, 600) in ends[0].bumped
    assert advisor.sheet_ends(calm)[0] == 700
    model = advisor.pairs.turn(700, 1000)
    looked = advisor.solution(risky)
    assert looked.values[0, 0] == pytest.approx(1 - win[1000 // unit, 400 // unit])
    assert model.values[0, 0] == pytest.approx(1 - win[1000 // unit, 700 // unit])
    bump = 300 // unit
    assert looked.bank_values[bump] == pytest.approx(1 - win[600 // unit, 1000 // unit])
    assert looked.bank_values[bump] > model.bank_values[bump]  # B sent back is worth more
    others = [t for t in range(1, looked.rows) if t != bump]
    assert looked.bank_values[others] == pytest.approx(model.bank_values[others])
    # The tick that would cross makes every throw worth less than with no tick.
    start = advisor.model.start
    assert looked.value(0, start) < advisor.solution(calm).value(0, start)


def test_every_total_that_bumps_is_valued_with_the_bump() -> None:
    """G-7 writes every bank that would land between target - 1000 and the target at
    target - 1000: each of those totals bumps an opponent sitting there, not only the one
    that lands on it exactly."""
    from zloutch.engine.game import sheets_after_bank

    rules = load_rules("dix-mille(target=2000,last_thousand,take_back=false,ticks_to_cross=0)")
    blind = sheet_blind(rules)
    assert blind is not None
    solution = solve_game(blind)
    advisor = OptimalBot(solution).advisor(rules)
    assert advisor is not None and advisor.sheet
    state = sheet_state(rules, (600,), (500, 1000))
    looked = advisor.solution(state)
    unit, win = rules.unit, solution.win
    bumping = [t for t in range(unit, 1400, unit) if sheets_after_bank(state, t)[1].score == 500]
    assert len(bumping) >= 3, bumping  # 400 and the totals G-7 writes at 1000
    for t in bumping:
        written = sheets_after_bank(state, t)[0].score
        if advisor.solution(state).bank_values[t // unit] > 0:  # a bank it may make
            assert looked.bank_values[t // unit] == pytest.approx(
                1 - win[500 // unit, written // unit]
            ), t


def test_under_the_farkle_penalty_a_sheet_is_read_by_the_scores_alone() -> None:
    """F-1 with a sheet history: the look-ahead does not carry the farkles in a row, so the
    model is read by the scores and the counts, as before, and the bot says so."""
    from tests.strategy.test_game_solver import tiny

    from zloutch.sim.runner import play_games

    rules = tiny(
        turn="farkle_penalty = 50\nfarkle_penalty_after = 2", game='bump = "current"', target=150
    )
    blind = sheet_blind(rules)
    assert blind is not None and blind.turn.farkle_penalty
    solution = solve_game(blind, floor=100)
    bot = OptimalBot(solution)
    advisor = bot.advisor(rules)
    assert advisor is not None and not advisor.sheet
    tally = play_games(rules, [bot, ExpertBot()], 3, 0, 40)
    assert tally.games == 40
    assert "read by the banked scores" in bot.note


def test_a_hint_from_the_model_says_it_is_the_models() -> None:
    """The review and the optimal bot said their chances came from the sheet-blind model;
    the hint, from the same table, did not."""
    from zloutch.app.hints import advice_of
    from zloutch.strategy.optimal import GameAdvisor

    rules = load_rules(SMALL)
    blind = sheet_blind(rules)
    assert blind is not None
    advice = advice_of(GameAdvisor(solve_game(blind), rules), new_game(rules, ["Ana", "Bob"]))
    assert advice is not None
    assert advice.note == (
        "chances of the game solved without ticks, bumps, take-back, read one turn ahead on "
        "the sheet"
    )
    exact = load_rules("farkle-minimal(target=500)")  # its own game solved: nothing to say
    advice = advice_of(GameAdvisor(solve_game(exact), exact), new_game(exact, ["Ana", "Bob"]))
    assert advice is not None and advice.note is None
