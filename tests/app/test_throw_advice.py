"""The advice on a throw typed in by hand: its values, what it leaves out and why it is
empty are decided in the application layer (``zloutch score --advise`` only shows them)."""

from __future__ import annotations

import pytest

from zloutch.app.throw_advice import ALL_PASS, FARKLE, advise_typed_throw, opponent_model
from zloutch.rules import NO_CONTEXT, ZloutchError, load_rules, score_throw
from zloutch.strategy.expert import POINTS, WIN_PROBABILITY
from zloutch.strategy.game_solver import GameSolution, solve_game


def never_solved(rules: object) -> GameSolution:
    raise AssertionError("no game is solved for this advice")


def advise(spec: str, throw: tuple[int, ...], **situation: int) -> object:
    rules = load_rules(spec)
    return advise_typed_throw(
        rules, throw, score_throw(rules, throw), NO_CONTEXT, solved=never_solved, **situation
    )


def test_a_farkle_has_no_advice_and_says_why() -> None:
    advice = advise("dix-mille", (2, 2, 3, 4, 6), total=300)
    assert advice.keeps == () and advice.why_none == FARKLE and advice.objective == POINTS


def test_where_every_keep_passes_an_exact_target_it_says_so() -> None:
    # 9,950 banked, a 1 (100) is the only keep: it passes 10,000 (T-9)
    advice = advise("dix-mille", (1, 2, 3, 4, 6), score=9950 - 50, total=50)
    assert advice.keeps == () and advice.why_none == ALL_PASS


def test_a_keep_that_reaches_the_target_is_noted_beside_the_points() -> None:
    advice = advise("farkle", (1, 1, 1, 2, 3, 4), score=9800, total=0)
    assert advice.keeps and advice.why_none is None
    assert advice.note is not None and "reaches the target of 10000" in advice.note
    assert advise("farkle", (1, 2, 2, 3, 4, 6), score=0).note is None


def test_the_chance_to_win_is_refused_where_two_scores_do_not_tell_it() -> None:
    with pytest.raises(ZloutchError, match="levels"):
        opponent_model(load_rules("dix-mille"))
    with pytest.raises(ZloutchError, match="levels"):  # refused before anything is solved
        advise("dix-mille", (1, 5, 2, 3, 4), opponent=500)


def test_against_an_opponent_the_values_are_the_chance_to_win() -> None:
    rules = load_rules("farkle-minimal(target=1000)")
    solved: list[object] = []

    def solve(model: object) -> GameSolution:
        solved.append(model)
        return solve_game(rules)

    throw = (1, 5, 2, 3, 4, 6)
    advice = advise_typed_throw(
        rules, throw, score_throw(rules, throw), NO_CONTEXT, opponent=500, solved=solve
    )
    assert solved == [rules]
    assert advice.objective == WIN_PROBABILITY and advice.note is None
    assert all(0.0 <= k.value <= 1.0 for k in advice.keeps)
