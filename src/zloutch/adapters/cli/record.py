"""``zloutch record show``: the sheet and the result of a saved game."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from zloutch.adapters.cli.support import Command, Group, console, user_errors

if TYPE_CHECKING:
    from zloutch.engine import GameState

record_app = typer.Typer(
    cls=Group,
    help="Game records: show the sheet and the result of a saved game.",
    no_args_is_help=True,
)


# ---------------------------------------------------------------------------- record


def result_line(state: GameState) -> str:
    from zloutch.engine import Phase

    if state.phase is Phase.OVER:
        names = [state.sheets[w].name for w in state.winners]
        return f"finished: {' and '.join(names)} won"
    return f"in progress: {state.sheets[state.turn.player].name} to play"


def render_record(state: GameState) -> None:
    from rich.markup import escape

    from zloutch.console.render import ranking_table, sheet_table
    from zloutch.engine import Phase

    out = console()
    out.print(f"{escape(state.rules.spec)}: {result_line(state)}")
    # Off a terminal (a pipe, a file, a screen reader's text) no strike-through is drawn.
    out.print(sheet_table(state, title="Sheet", words=not out.is_terminal))
    if state.phase is Phase.OVER:
        out.print(ranking_table(state))


@record_app.command("show", cls=Command)
def record_show(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A game record (JSON).")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the sheet.")
    ] = False,
) -> None:
    """Show the sheet and the result of a saved game (the record is replayed and checked)."""
    from zloutch.app.dice import read_text
    from zloutch.engine.record import load_record, sheet_json

    with user_errors():
        _, state = load_record(read_text(file, "record"))
    if as_json:
        typer.echo(json.dumps(sheet_json(state, loose_ticks=True)))
    else:
        render_record(state)
