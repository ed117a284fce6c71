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
