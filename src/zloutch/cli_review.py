"""``zloutch review``: replay a saved game and grade each decision of each player.

The grading is ``zloutch.review``; this module finds the game table (the cache, or solved
now with ``--solve``), renders the review as Rich tables, and writes ``--json`` and
``--plot``. The tables are also drawn by the full-screen app's review screen.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from zloutch.cli_support import console, progress_bar, user_errors, write_output
from zloutch.commands.solve import solved_game
from zloutch.dice_sources import read_text
from zloutch.engine.record import load_record
from zloutch.plots import new_picture, output_format, review_figure
from zloutch.review import (
    WIN,
    Decision,
    Review,
    review_record,
    situation_words,
    win_probability_reason,
)
from zloutch.rules import RuleSet, ZloutchError, load_rules
from zloutch.store import load_game_solution
from zloutch.strategy.game_solver import GameSolution


class ReviewError(ZloutchError):
    """Options of ``zloutch review`` that do not go together, or a picture it cannot draw."""


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


def _solve_with_progress(
    rules: RuleSet, players: int, *, solve: bool, quiet: bool
) -> tuple[GameSolution | None, str]:
    if not solve:
        return game_table(rules, players, solve=False)
    with progress_bar("Solving the game", "score levels", disable=quiet) as progress:
        return game_table(rules, players, solve=True, progress=progress)


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


# ---------------------------------------------------------------------------- the command


def review(
    record: Annotated[
        str, typer.Argument(metavar="RECORD", help="A game record (JSON), as --record saves it.")
    ],
    json_file: Annotated[
        str | None,
        typer.Option(
            "--json",
            metavar="FILE",
            help="Write the review (JSON) to FILE; '-' prints it instead of the tables.",
        ),
    ] = None,
    plot_file: Annotated[
        str | None,
        typer.Option(
            "--plot",
            metavar="FILE",
            help="Draw the win-probability (or expected-score) curve to FILE, .png or .svg "
            "(needs matplotlib, the 'plot' extra of zloutch).",
        ),
    ] = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="List every move, the forced ones too.")
    ] = False,
    mistakes_only: Annotated[
        bool, typer.Option("--mistakes-only", help="List only the decisions that cost something.")
    ] = False,
    top: Annotated[
        int, typer.Option("--top", metavar="N", help="Biggest mistakes shown per player.")
    ] = 3,
    solve: Annotated[
        bool,
        typer.Option(
            "--solve",
            help="Solve the two-player game now when no solved table is cached, to grade in "
            "win probability (farkle: about 90 s).",
        ),
    ] = False,
    points: Annotated[
        bool,
        typer.Option("--points", help="Grade in expected points even when a game is solved."),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No tables: only write --json and --plot.")
    ] = False,
) -> None:
    """Replay a saved game and grade each decision: the best action and what the chosen one
    cost, in win probability where a solved two-player game applies, else in expected points.

    Then a summary per player (accuracy, biggest mistakes); --plot draws the game's curve.
    """
    with user_errors():
        if show_all and mistakes_only:
            raise ReviewError("--all and --mistakes-only do not go together: choose one")
        if solve and points:
            raise ReviewError("--solve and --points do not go together: choose one")
        if top < 0:
            raise ReviewError(f"--top must be 0 or more, not {top}")
        if plot_file is not None:
            output_format(plot_file)
            new_picture("", "", 1, 1)  # matplotlib is there, before any work
        saved, state = load_record(read_text(record, "record"))
        players = len(state.sheets)
        if points:
            solution, note = None, "expected points, as asked (--points)"
        else:
            rules = load_rules(saved.rules)
            solution, note = _solve_with_progress(
                rules, players, solve=solve, quiet=quiet or json_file == "-"
            )
            if solution is None and win_probability_reason(rules, players) is None:
                note += " (add --solve to solve it and grade in win probability)"
        result = review_record(saved, solution=solution, note=note, top=top)
        if json_file == "-":
            typer.echo(json.dumps(result.to_json()))
        elif json_file is not None:
            write_output(json_file, json.dumps(result.to_json(), indent=2) + "\n")
        if plot_file is not None:
            review_figure(result).save(plot_file)
    if quiet or json_file == "-":
        return
    listing = "all" if show_all else "mistakes" if mistakes_only else "decisions"
    render_review(result, listing=listing, out=console())
