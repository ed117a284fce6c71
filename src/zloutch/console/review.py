"""A review as Rich tables, shared by ``zloutch review`` and the full-screen review screen.

The grading is ``zloutch.app.review``, its game table and its words
``zloutch.app.review_words``; here is how a review reads as tables.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
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
from zloutch.app.shown import percent


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
            "-" if s.accuracy is None else percent(s.accuracy, 0),
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


PLAYER_WIDTH = 24
"""A longer name folds over lines in the tables of decisions (from ``NARROW`` columns: under
it the decisions are blocks of lines, where a name has the line)."""


NARROW = 110
"""Under this width a list of decisions is written as blocks of lines (``DecisionBlocks``),
not as a table: at 80 columns the table's eight columns left the situation and the moves
about ten letters each, and a decision took four or five lines of broken phrases."""


class DecisionBlocks:
    """Decisions as a table where the width allows it, else as blocks of three lines:

    ``  6 turn 1, Ana, score 0: cost 28.7``, then ``threw 3 3 4 5 5, turn total 100``, then
    ``played keep 5 5 (100); best keep 5 (50)``, each under the first line's words."""

    def __init__(self, review: Review, decisions: Sequence[Decision], title: str, table: Table):
        self.review = review
        self.decisions = decisions
        self.title = title
        self.table = table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if options.max_width >= NARROW:
            yield self.table
            return
        yield Text(self.title, style="table.title")
        grid = Table.grid(padding=(0, 1))
        grid.add_column(justify="right", no_wrap=True)
        grid.add_column(overflow="fold")
        review = self.review
        for d in self.decisions:
            head = Text.assemble(f"turn {d.turn}, ", (d.player, "bold"), f", score {d.score}: ")
            head.append_text(_cost(review, d) if d.forced else _cost_words(review, d))
            moves = Text("played ")
            moves.append_text(_played(review, d))
            if d.best == d.chosen:
                moves.append(": the best", style="dim")
            else:
                moves.append("; best ")
                moves.append(d.best.words, style="green")
            grid.add_row(str(d.number), Text("\n").join([head, Text(situation_words(d)), moves]))
        yield grid


def _cost_words(review: Review, decision: Decision) -> Text:
    return Text.assemble("cost ", _cost(review, decision))


def mistakes_table(review: Review) -> DecisionBlocks:
    """Each player's biggest mistakes, the costliest first."""
    title = f"Biggest mistakes (cost in {cost_unit(review)})"
    table = _table(title)
    table.add_column("Player", max_width=PLAYER_WIDTH, overflow="fold")
    table.add_column("#", justify="right")
    table.add_column("Turn", justify="right")
    table.add_column("Situation", min_width=len("Situation"))  # its header whole
    table.add_column("Played")
    table.add_column("Best")
    table.add_column("Cost", justify="right", no_wrap=True, min_width=5)
    mistakes = [d for s in review.summaries for d in s.mistakes]
    for d in mistakes:
        table.add_row(
            escape(d.player),
            str(d.number),
            str(d.turn),
            situation_words(d),
            _played(review, d),
            Text(d.best.words, style="green"),
            _cost(review, d),
        )
    return DecisionBlocks(review, mistakes, title, table)


def decisions_table(review: Review, decisions: Sequence[Decision]) -> DecisionBlocks:
    """Decisions in the order played: the situation, the move, the best move, the cost."""
    title = f"Decisions (cost in {cost_unit(review)})"
    table = _table(title)
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
    return DecisionBlocks(review, decisions, title, table)


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
