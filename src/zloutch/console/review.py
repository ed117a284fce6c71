"""A review as Rich tables, shared by ``zloutch review`` and the full-screen review screen.

The grading is ``zloutch.app.review``, its game table and its words
``zloutch.app.review_words``; here is how a review reads as tables.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from zloutch.app.review import Decision, Review, situation_words
from zloutch.app.review_words import (
    cost_unit,
    format_cost,
    format_luck,
    review_header,
)


def _table(title: str) -> Table:
    return Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1)
    )


def summary_table(review: Review) -> Table:
    """One row per player: decisions, accuracy, total and average cost, forced moves, and
    the luck of the player's throws (what the dice brought, beside what the decisions
    cost: luck and skill)."""
    table = _table(f"Players (cost and luck in {cost_unit(review)})")
    # The numbers' headers keep their width (at 80 columns Rich cut them to "Decisi…"); a
    # long name is what gives way.
    table.add_column("Player", overflow="fold")
    for header in ("Decisions", "Accurate", "Accuracy", "Cost", "Average", "Forced"):
        table.add_column(header, justify="right", min_width=len(header))
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
    if any(s.luck is not None for s in review.summaries):
        # luck and skill: what the dice brought each player, beside their decisions' cost
        table.caption = "Luck: " + ", ".join(
            f"{escape(s.player)} {format_luck(review, s.luck)}" for s in review.summaries
        )
        table.caption_justify = "left"
    return table


def _played(review: Review, decision: Decision) -> Text:
    style = "red" if review.is_mistake(decision) else ""
    return Text(decision.chosen.words, style=style)


def _cost(review: Review, decision: Decision) -> Text:
    if decision.forced:
        return Text("forced", style="dim")
    style = "bold red" if review.is_mistake(decision) else "dim"
    return Text(format_cost(review, decision.cost), style=style)


PLAYER_WIDTH = 12
"""A long name folds over lines in the tables of decisions: at 80 columns it took the room
of the situation and the moves, cut to "Situ…" and "Play…"."""


def mistakes_table(review: Review) -> Table:
    """Each player's biggest mistakes, the costliest first."""
    table = _table(f"Biggest mistakes (cost in {cost_unit(review)})")
    table.add_column("Player", max_width=PLAYER_WIDTH, overflow="fold")
    table.add_column("#", justify="right")
    table.add_column("Turn", justify="right")
    table.add_column("Situation", min_width=len("Situation"))  # its header whole
    table.add_column("Played")
    table.add_column("Best")
    table.add_column("Cost", justify="right", no_wrap=True, min_width=5)
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
    table.add_column("Player", max_width=PLAYER_WIDTH, overflow="fold")
    table.add_column("Score", justify="right")
    table.add_column("Situation", min_width=len("Situation"))  # its header whole
    table.add_column("Played")
    table.add_column("Best")
    table.add_column("Cost", justify="right", no_wrap=True, min_width=5)
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
