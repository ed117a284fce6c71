"""``zloutch solve``: the value of a turn and when to bank, or (``--game``) who wins.

The numbers come from ``zloutch.app.solve`` (the turn solver, and the two-player game
solver with its cache); this module shows a progress bar while they are computed and renders
them as Rich tables, or prints them as one JSON object with ``--json``.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zloutch.adapters.cli.support import (
    DEFAULT_RULES,
    EXIT_INTERRUPTED,
    EXIT_USER_ERROR,
    RulesOption,
    console,
    off_terminal,
    progress_bar,
    user_errors,
    warnings_as_lines,
)

if TYPE_CHECKING:
    from zloutch.rules import RuleSet


def solve(
    rules_spec: RulesOption = DEFAULT_RULES,
    game: Annotated[
        bool,
        typer.Option("--game", help="Solve the two-player game: play to win, not for points."),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of tables.")
    ] = False,
    compensation: Annotated[
        bool,
        typer.Option("--compensation", help="With --game: the fair head start for player two."),
    ] = False,
    device: Annotated[
        str,
        typer.Option(
            "--device",
            metavar="cpu|cuda",
            help="With --game: cpu (Numba, all cores) or cuda (an NVIDIA GPU, Numba CUDA).",
        ),
    ] = "cpu",
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            min=1,
            metavar="N",
            help="With --game on the cpu: threads sharing the work (default: one per CPU).",
        ),
    ] = None,
    not_entered: Annotated[
        bool, typer.Option("--not-entered", help="Solve the turn of a player not entered yet.")
    ] = False,
    banked: Annotated[
        int,
        typer.Option(
            "--score", min=0, metavar="POINTS", help="The banked score (exact targets, G-7)."
        ),
    ] = 0,
) -> None:
    """Solve a rule set: the value of a turn and when to bank, or (--game) who wins."""
    # The solvers (Numba kernels) are imported by the command, not by zloutch --help.
    from zloutch.app.solve import cached_turn_summary
    from zloutch.engine.endings import load_rules
    from zloutch.rules import ZloutchError

    if device not in ("cpu", "cuda"):
        typer.echo("error: --device must be cpu or cuda", err=True)
        raise typer.Exit(EXIT_USER_ERROR)
    with user_errors(), warnings_as_lines():
        rules = load_rules(rules_spec)
        if not game:
            flags = (
                ("--compensation", compensation),
                ("--device", device != "cpu"),
                ("--threads", threads is not None),
            )
            for flag, given in flags:
                if given:
                    raise ZloutchError(f"{flag} only applies with --game")
        elif threads is not None and device == "cuda":
            raise ZloutchError("--threads is for --device cpu: the GPU runs its own threads")
        elif not_entered or banked:
            flag = "--not-entered" if not_entered else "--score"
            raise ZloutchError(
                f"{flag} is for the turn solver (without --game): the game solver covers "
                "every pair of scores"
            )
        try:
            if game:
                document = solve_game_command(
                    rules, device, compensation, quiet=as_json, threads=threads
                )
            else:
                # The bar counts the rows of the turn total, then (F-1) the long-run iterations.
                quiet = as_json or off_terminal()
                with progress_bar("Solving the turn", "steps", disable=quiet) as progress:
                    document, _ = cached_turn_summary(
                        rules, not not_entered, banked, progress=progress
                    )
        except KeyboardInterrupt:  # half a solution says nothing: none is kept
            typer.echo("Interrupted: nothing solved is kept.", err=True)
            raise typer.Exit(EXIT_INTERRUPTED) from None
    if not game:
        for note in ignored_situation(document, not not_entered, banked):
            typer.echo(f"note: {note}", err=True)
    if as_json:
        typer.echo(json.dumps(document))
    elif game:
        render_game(document)
    else:
        render_turn(document, rules, banked)


def ignored_situation(document: dict[str, Any], entered: bool, score: int) -> list[str]:
    """What of --not-entered and --score the rule set ignores (the solver keys a turn by what
    changes its value): said, not dropped silently."""
    solved = document.get("situation", {})
    notes = []
    if not entered and solved.get("entered", True):
        notes.append(
            f"--not-entered changes nothing in {document['rules']}: there is no entry minimum "
            "(T-7), so the turn was solved as any other"
        )
    if score and solved.get("score", 0) != score:
        notes.append(
            f"--score {score} changes nothing in {document['rules']}: the value of a turn "
            "depends on the banked score only with an exact target (T-9), the last 1000 "
            "(G-7), a full hand that wins (T-10) or a combination that wins; solved at 0"
        )
    return notes


def solve_game_command(
    rules: RuleSet, device: str, compensation: bool, *, quiet: bool, threads: int | None = None
) -> dict[str, Any]:
    from zloutch.app.solve import game_summary, solved_game

    # No bar off a terminal: in a pipe or a log it would leave a blank line on stderr.
    with progress_bar(
        "Solving the game", "score levels", disable=quiet or off_terminal()
    ) as progress:
        begin = time.perf_counter()
        solution, cached = solved_game(rules, device=device, progress=progress, threads=threads)
        seconds = time.perf_counter() - begin
    document = game_summary(solution, None if cached else seconds)
    document["cached"] = cached
    if not compensation:
        document.pop("compensation")
    return document


def render_turn(document: dict[str, Any], rules: RuleSet, score: int = 0) -> None:
    from rich.markup import escape
    from rich.table import Table

    out = console()
    situation = document.get("situation", {})
    whose = []  # the situation the turn was solved in, where it changes the value
    if not situation.get("entered", True):
        whose.append("not entered")
    if situation.get("score"):
        whose.append(f"with {situation['score']:,} banked")
    who = f" for a player {' and '.join(whose)}" if whose else ""
    out.print(
        f"[bold]{escape(document['rules'])}[/bold]: a fresh turn{who} is worth "
        f"{document['expected_turn']:.3f} points on average, played optimally."
    )
    if "long_run_average" in document:
        out.print(
            f"With the consecutive-farkle penalty (F-1), the long-run average is "
            f"{document['long_run_average']:.3f} points per turn."
        )
    table = Table(title="By dice in hand")
    table.add_column("dice", justify="right")
    table.add_column("bank from", justify="right")
    table.add_column("farkle probability", justify="right")
    for n, threshold in document["thresholds"].items():
        exact = document["farkle_probability_exact"][n]
        table.add_row(
            n,
            _threshold_text(threshold),
            f"{document['farkle_probability'][n]:.4f} ({exact})",
        )
    out.print(table)
    out.print(
        "Bank from: the smallest turn total at which banking is best with that many dice to "
        "throw next (all of them: a full hand), in the plain hand, or else in any hand a "
        "turn can reach (dice set aside under V-6 and V-7, entry by one throw under T-7). "
        "Never: no such hand ever banks (throwing on is better, or the rules forbid it)."
    )
    from zloutch.app.throw_advice import thresholds_note

    note = thresholds_note(rules, score, document["thresholds"].values())
    if note:
        out.print(f"Note: {note}")
    by_farkles: dict[str, dict[str, int | None]] = document.get("thresholds_by_farkles", {})
    if by_farkles:
        table = Table(title="Bank from, by farkles in a row before the turn (F-1, long run)")
        table.add_column("dice", justify="right")
        for z in by_farkles:
            table.add_column(f"{z} farkle{'' if z == '1' else 's'}", justify="right")
        for n in document["thresholds"]:
            table.add_row(n, *(_threshold_text(by_farkles[z][n]) for z in by_farkles))
        out.print(table)


def _threshold_text(threshold: int | None) -> str:
    return "never" if threshold is None else str(threshold)


def render_game(document: dict[str, Any]) -> None:
    from rich.markup import escape

    out = console()
    out.print(f"[bold]{escape(document['rules'])}[/bold], two players playing to win:")
    out.print(f"the first player wins with probability {document['first_player']:.5f}.")
    if "compensation" in document:
        c = document["compensation"]
        out.print(
            f"A head start of {c['points']} points for the second player is fairest "
            f"(the first player then wins with {c['first_player']:.5f})."
        )
    how = (
        "read from the cache"
        if document.get("cached")
        else f"solved in {document['seconds']:.1f} s"
    )
    low = document.get("lowest_score", 0)
    scores = f" (scores from {low})" if low < 0 else ""
    out.print(
        f"{document['score_pairs']:,} score pairs{scores}, {document['turn_states']:,} states "
        f"(pairs, farkles in a row, turn totals, dice), {document['passes']} passes, "
        f"residual {document['residual']:.1e}; {how}."
    )
