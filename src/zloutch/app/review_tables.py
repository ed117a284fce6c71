"""A review as Rich tables, shared by ``zloutch review`` and the full-screen review screen.

The grading is ``zloutch.app.review``; here is where its game table comes from (the cache, or
solved now) and how a review reads as tables.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from zloutch.app.review import WIN, Decision, Review, situation_words, win_probability_reason
from zloutch.app.solve import solved_game
from zloutch.app.store import load_game_solution
from zloutch.rules import RuleSet
from zloutch.strategy.game_solver import GameSolution

# ---------------------------------------------------------------------------- the game table


def game_table(
    rules: RuleSet,
    players: int,
    *,
    solve: bool,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[GameSolution | None, str]:
    """The solved game to grade in win probability (None: grade in points), and why."""
    reason = win_probability_reason(rules, players)
    if reason is not None:
        return None, f"expected points: {reason}"
    if not solve:
        found = load_game_solution(rules)
        if found is not None:
            return found, f"win probability, from the solved game of {rules.spec} (cached)"
        return None, f"expected points: no solved game of {rules.spec} in the cache"
    solution, cached = solved_game(rules, progress=progress)
    how = "cached" if cached else "solved now and saved in the cache"
    return solution, f"win probability, from the solved game of {rules.spec} ({how})"


# ---------------------------------------------------------------------------- words and tables


def format_value(review: Review, value: float) -> str:
    """A value in the review's objective: ``54.2%`` to win, or ``412.3`` points."""
    return f"{100 * value:.1f}%" if review.objective == WIN else f"{value:,.1f}"


def format_cost(review: Review, cost: float) -> str:
    return f"{100 * cost:.2f}%" if review.objective == WIN else f"{cost:,.1f}"


def cost_unit(review: Review) -> str:
    return "chance to win" if review.objective == WIN else "expected points"


def _table(title: str) -> Table:
    return Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1)
    )


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
    return [
        f"{review.rules}: {players}, {result}.",
        f"Graded in {review.note}.",
        f"A decision is accurate when it costs less than {tolerance}.",
    ]


def summary_table(review: Review) -> Table:
    """One row per player: decisions, accuracy, total and average cost, forced moves."""
    table = _table(f"Players (cost in {cost_unit(review)})")
    table.add_column("Player", no_wrap=True)
    table.add_column("Decisions", justify="right")
    table.add_column("Accurate", justify="right")
    table.add_column("Accuracy", justify="right")
    table.add_column("Cost", justify="right")
    table.add_column("Per decision", justify="right")
    table.add_column("Forced", justify="right")
    for s in review.summaries:
        table.add_row(
            escape(s.player),
            str(s.decisions),
            str(s.accurate),
            "-" if s.accuracy is None else f"{s.accuracy:.0%}",
            format_cost(review, s.total_cost),
            "-" if s.average_cost is None else format_cost(review, s.average_cost),
            str(s.forced),
        )
    return table


def _played(review: Review, decision: Decision) -> Text:
    style = "red" if review.is_mistake(decision) else ""
    return Text(decision.chosen.words, style=style)


def _cost(review: Review, decision: Decision) -> Text:
    if decision.forced:
        return Text("forced", style="dim")
    style = "bold red" if review.is_mistake(decision) else "dim"
    return Text(format_cost(review, decision.cost), style=style)


def mistakes_table(review: Review) -> Table:
    """Each player's biggest mistakes, the costliest first."""
    table = _table(f"Biggest mistakes (cost in {cost_unit(review)})")
    table.add_column("Player", no_wrap=True)
    table.add_column("#", justify="right")
    table.add_column("Turn", justify="right")
    table.add_column("Situation")
    table.add_column("Played")
    table.add_column("Best")
    table.add_column("Cost", justify="right")
    for s in review.summaries:
        for d in s.mistakes:
            table.add_row(
                escape(s.player),
                str(d.number),
                str(d.turn),
                situation_words(d),
                _played(review, d),
                Text(d.best.words, style="green"),
                _cost(review, d),
            )
    return table


def decisions_table(review: Review, decisions: Sequence[Decision]) -> Table:
    """Decisions in the order played: the situation, the move, the best move, the cost."""
    table = _table(f"Decisions (cost in {cost_unit(review)})")
    table.add_column("#", justify="right")
    table.add_column("Turn", justify="right")
    table.add_column("Player", no_wrap=True)
    table.add_column("Score", justify="right")
    table.add_column("Situation")
    table.add_column("Played")
    table.add_column("Best")
    table.add_column("Cost", justify="right")
    for d in decisions:
        best_style = "dim" if d.best == d.chosen else "green"
        table.add_row(
            str(d.number),
            str(d.turn),
            escape(d.player),
            str(d.score),
            situation_words(d),
            _played(review, d),
            Text(d.best.words, style=best_style),
            _cost(review, d),
        )
    return table


def render_review(review: Review, *, listing: str, out: Console) -> None:
    """The review for people; ``listing`` is ``decisions``, ``all`` or ``mistakes``."""
    for line in review_header(review):
        out.print(escape(line))
    if listing == "all":
        shown = list(review.decisions)
    elif listing == "mistakes":
        shown = list(review.mistakes())
    else:
        shown = [d for d in review.decisions if not d.forced]
    if shown:
        out.print(decisions_table(review, shown))
    elif listing == "mistakes":
        out.print("No mistakes.")
    out.print(summary_table(review))
    if any(s.mistakes for s in review.summaries):
        out.print(mistakes_table(review))
