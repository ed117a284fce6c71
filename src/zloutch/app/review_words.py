"""A review's game table and its words, for every front end (the terminal's tables, the web's
end of game): where the solved game comes from (the cache, or solved now), how a value and a
cost read in the review's objective, and what was graded.

The grading is ``zloutch.app.review``; the Rich tables of the terminal are
``zloutch.console.review``.
"""

from __future__ import annotations

from collections.abc import Callable

from zloutch.app.review import WIN, Review, model_words, win_probability_reason
from zloutch.app.shown import percent
from zloutch.app.solve import solved_game
from zloutch.app.store import load_game_solution
from zloutch.rules import RuleSet
from zloutch.strategy.game_solver import GameSolution, solved_model

# ---------------------------------------------------------------------------- the game table


def game_table(
    rules: RuleSet,
    players: int,
    *,
    solve: bool,
    progress: Callable[[int, int], None] | None = None,
    threads: int | None = None,
) -> tuple[GameSolution | None, str]:
    """The solved game to grade in win probability (None: grade in points), and why;
    ``threads``: the CPU threads of a solve (None: one per CPU)."""
    reason = win_probability_reason(rules, players)
    model = solved_model(rules)
    if reason is not None or model is None:
        return None, f"expected points: {reason}"
    if not solve:
        found = load_game_solution(model)
        if found is not None:
            return found, f"win probability, from {model_words(rules, model)} (cached)"
        return None, f"expected points: no solved game of {model.spec} in the cache"
    solution, cached = solved_game(model, progress=progress, threads=threads)
    how = "cached" if cached else "solved now and saved in the cache"
    return solution, f"win probability, from {model_words(rules, model)} ({how})"


# ---------------------------------------------------------------------------- words


def format_value(review: Review, value: float) -> str:
    """A value in the review's objective: ``54.2%`` to win, or ``412.3`` points."""
    return percent(value, 1) if review.objective == WIN else f"{value:,.1f}"


def format_cost(review: Review, cost: float) -> str:
    """A move's cost: ``1.25%`` of the chance to win (``<0.01%`` for a cost too small to
    show, not ``0.00%``), or ``84.0`` points."""
    return percent(cost, 2) if review.objective == WIN else f"{cost:,.1f}"


def format_luck(review: Review, luck: float | None) -> str:
    """A player's luck, signed ("+12.00%", "-<0.01%", "-320.5"); "-" where it is not
    measured."""
    if luck is None:
        return "-"
    if review.objective == WIN:
        return ("+" if luck >= 0 else "-") + percent(abs(luck), 2)
    return f"{luck:+,.1f}"


def cost_unit(review: Review) -> str:
    return "chance to win" if review.objective == WIN else "expected points"


def review_header(review: Review) -> list[str]:
    """What was graded, how, and what counts as accurate (plain text, one line each)."""
    players = " against ".join(review.players)
    if review.finished:
        winners = " and ".join(review.players[w] for w in review.winners)
        result = f"finished: {winners} won"
    else:
        result = "not finished"
    if review.objective == WIN:
        tolerance = f"{100 * review.tolerance:g}% of the chance to win"
    else:
        plural = "" if review.tolerance == 1 else "s"
        tolerance = f"{review.tolerance:g} expected point{plural}"
    lines = [
        f"{review.rules}: {players}, {result}.",
        f"Graded in {review.note}.",
        f"A decision is accurate when it costs less than {tolerance}.",
    ]
    if review.sheet_blind:
        lines.append(SHEET_BLIND_SUM)
    return lines


SHEET_BLIND_SUM = (
    "Here the luck and the costs do not sum to how the chance to win moved: a bump, a "
    "take-back or a crossed level moves it outside any throw or decision."
)
"""Said under a review graded through a sheet-blind model (``Review.sheet_blind``)."""
