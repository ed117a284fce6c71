"""``zloutch review``: replay a saved game and grade each decision of each player.

The grading is ``zloutch.app.review``; this module finds the game table (the cache, or solved
now with ``--solve``), renders the review
(``zloutch.console.review``), and writes ``--json`` and
``--plot``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from zloutch.adapters.cli.support import (
    ThreadsOption,
    check_outputs,
    console,
    progress_bar,
    user_errors,
    warnings_as_lines,
    write_output,
)

if TYPE_CHECKING:
    from zloutch.rules import RuleSet
    from zloutch.strategy.game_solver import GameSolution


def _solve_with_progress(
    rules: RuleSet, players: int, *, solve: bool, quiet: bool, threads: int | None = None
) -> tuple[GameSolution | None, str]:
    from zloutch.app.review_words import game_table

    if not solve:
        return game_table(rules, players, solve=False)
    with progress_bar("Solving the game", "score levels", disable=quiet) as progress:
        return game_table(rules, players, solve=True, progress=progress, threads=threads)


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
            "win probability (farkle: a few seconds; zilch: about a minute).",
        ),
    ] = False,
    points: Annotated[
        bool,
        typer.Option("--points", help="Grade in expected points even when a game is solved."),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No tables: only write --json and --plot.")
    ] = False,
    threads: ThreadsOption = None,
) -> None:
    """Replay a saved game and grade each decision: the best action, what the chosen one cost.

    The cost is in win probability where a solved two-player game applies, else in expected
    points. Then a summary per player (accuracy, biggest mistakes); --plot draws the game's curve.
    """
    # The solvers and the pictures, imported by the command, not by zloutch --help.
    from zloutch.adapters.plots import new_picture, output_format, review_figure
    from zloutch.app.dice import read_text
    from zloutch.app.review import review_record, win_probability_reason
    from zloutch.console.review import render_review
    from zloutch.engine.record import load_record
    from zloutch.rules import ZloutchError

    with user_errors(), warnings_as_lines():
        if show_all and mistakes_only:
            raise ZloutchError("--all and --mistakes-only do not go together: choose one")
        if solve and points:
            raise ZloutchError("--solve and --points do not go together: choose one")
        if threads is not None and not solve:
            raise ZloutchError("--threads only applies with --solve (the game's solve)")
        if top < 0:
            raise ZloutchError(f"--top must be 0 or more, not {top}")
        tables = not quiet and json_file != "-"
        if quiet and json_file is None and plot_file is None:
            raise ZloutchError("--quiet leaves nothing to show: add --json FILE or --plot FILE")
        if not tables and (show_all or mistakes_only):
            flag = "--all" if show_all else "--mistakes-only"
            why = "--quiet" if quiet else "--json -"
            raise ZloutchError(f"{flag} chooses the rows of the tables, which {why} leaves out")
        if plot_file is not None:
            output_format(plot_file)
            new_picture("", "", 1, 1)  # matplotlib is there, before any work
        check_outputs(("--json", json_file), ("--plot", plot_file))
        saved, state = load_record(read_text(record, "record"))
        players = len(state.sheets)
        if points:
            solution, note = None, "expected points, as asked (--points)"
        else:
            rules = state.rules  # the record's own rule file, when it keeps one
            solution, note = _solve_with_progress(
                rules, players, solve=solve, quiet=quiet or json_file == "-", threads=threads
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
