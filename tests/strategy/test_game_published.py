"""Published figures of two-player Farkle that the game solver reproduces (Strategy II).

This solves the full minimal Farkle of Busche and Neller (2017), 40,000 score pairs and
about 79 million values a sweep: around two minutes on two cores, so it runs under
``-m slow``.
"""

from __future__ import annotations

import pytest

from zloutch.rules import load_rules
from zloutch.strategy.game_solver import solve_game


@pytest.mark.slow
def test_minimal_farkle_is_fairest_with_200_points_for_the_second_player() -> None:
    # Busche and Neller (2017): a compensation of 200 points to the second player makes
    # their minimal Farkle (our farkle-minimal) fairest.
    solution = solve_game(load_rules("farkle-minimal"))
    points, chance = solution.fair_compensation()
    assert points == 200
    assert abs(chance - 0.5) < abs(solution.with_head_start(150) - 0.5)
    assert abs(chance - 0.5) < abs(solution.with_head_start(250) - 0.5)
    assert 0.53 < solution.first_player < 0.54  # without it, seat one wins about 53.7%
    assert solution.residual < 1e-12


def test_facebook_farkle_has_busches_state_count() -> None:
    # Busche (2016): "With a lower bound of -2500 points for banked scores, there are
    # 423,765,000 distinct game states" (two scores from -2,500 to 9,950, each player's
    # farkles in a row 0 to 2, the turn total while it cannot win yet or is below the 300
    # to bank, six counts of dice to throw). Without the 300 minimum the count would differ.
    from zloutch.app.solve import turn_states

    rules = load_rules("facebook-farkle")
    assert turn_states(rules, -2500 // rules.unit, 3) == 423_765_000
    assert turn_states(load_rules("facebook-farkle(min_bank=0)"), -50, 3) == 423_562_500


def test_facebook_farkle_throws_six_dice_below_16400() -> None:
    # Busche: with Facebook Farkle's scoring, "if you have 6 dice to roll, then you always
    # roll unless you have 16,400 or more points" (the long run's turn, no farkle in a row).
    from zloutch.strategy.turn_solver import solve_average_reward

    rules = load_rules("facebook-farkle")
    fresh = solve_average_reward(rules).solutions[0]
    assert fresh.thresholds()[6] == 16_400
