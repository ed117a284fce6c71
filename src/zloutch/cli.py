"""The ``zloutch`` command line: parse input, call the core, render the result.

No rule lives here. Each command is a small function that reads its arguments, asks the core,
and hands the answer to a renderer (``render_*``: Rich tables for people, ``*_json`` for
programs). Every ``ZloutchError`` is caught at the edge (``user_errors``) and printed as one
``error: ...`` line on stderr with exit code 2.

The commands are spread over modules, all registered on ``app`` here:

- this module: ``app``, ``--version``, ``score`` (with ``--advise``), ``rules list|show``,
  ``record show``, and ``main``, the console script;
- ``zloutch.cli_solve``: ``solve``; ``zloutch.cli_play``: ``play`` and ``table``;
  ``zloutch.cli_simulate``: ``simulate``; ``zloutch.cli_review``: ``review``;
  ``zloutch.cli_plot``: ``plot ...``;
- ``zloutch.cli_support``: what they share (``user_errors``, ``console``, ``RulesOption``,
  ``progress_bar``, ``write_output``). The ``cli_*`` modules import from it, never from here.

To add a command: write it in a module ``zloutch.cli_<name>`` as a plain function and register
it at the end of this file (the order of registration is the order of ``zloutch --help``),
take the rule set with the shared ``RulesOption``, wrap its body in ``with user_errors():``,
and keep its rendering in a ``render_*`` function.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from zloutch import __version__
from zloutch.cli_support import DEFAULT_RULES, RulesOption, console, user_errors
from zloutch.dice_sources import read_text
from zloutch.engine import GameState, Phase
from zloutch.engine.record import load_record, sheet_json
from zloutch.render import (
    combinations_table,
    format_target,
    format_value,
    kinds_table,
    option_docs,
    option_meaning,
    options_table,
    presets_table,
    ranking_table,
    rules_renderables,
    sheet_table,
)
from zloutch.rules import (
    NO_CONTEXT,
    Dice,
    HandContext,
    InvalidDiceError,
    Keep,
    RuleSet,
    ThrowScore,
    ZloutchError,
    format_dice,
    load_rules,
    parse_dice,
    score_throw,
    to_toml,
)
from zloutch.strategy.expert import POINTS, KeepAdvice, advise_throw
from zloutch.strategy.expert import objective as advice_objective

# The rule set's tables moved to zloutch.render (the game screens draw them too), and the
# commands solve, play, table and simulate to their cli_* modules; their names stay
# importable from here.
__all__ = [
    "app",
    "combinations_table",
    "format_target",
    "format_value",
    "kinds_table",
    "main",
    "option_docs",
    "option_meaning",
    "options_table",
    "play",
    "presets_table",
    "read_context",
    "simulate",
    "solve",
    "table",
    "user_errors",
]


app = typer.Typer(
    name="zloutch",
    help="The dice game 10,000 (dix mille, zilch, farkle) and its family, exactly.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
rules_app = typer.Typer(
    help="List the preset rule sets, or show every combination and rule of one.",
    no_args_is_help=True,
)
app.add_typer(rules_app, name="rules")
record_app = typer.Typer(
    help="Game records: show the sheet and the result of a saved game.",
    no_args_is_help=True,
)
app.add_typer(record_app, name="record")


# ---------------------------------------------------------------------------- input


def read_faces(tokens: Sequence[str], *, max_dice: int) -> Dice:
    """Faces as a person types them: separate ("1 1 5") or packed ("115")."""
    for token in tokens:
        if token.startswith("--"):
            raise InvalidDiceError(f"unknown option {token!r} (see --help)")
    return parse_dice(list(tokens), max_dice=max_dice)


def count_dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


def read_context(rules: RuleSet, set_aside: str | Sequence[str] | None, throw: Dice) -> HandContext:
    """The hand context from ``--set-aside``; set aside + thrown must be the whole hand.

    Several values (a repeated ``--set-aside``) add up: ``-s 1 -s 5`` is ``-s '1 5'``.
    """
    if set_aside is None:
        return NO_CONTEXT
    values = [set_aside] if isinstance(set_aside, str) else list(set_aside)
    try:
        # No limit here: too many dice is said below, with the throw.
        aside = parse_dice(values, max_dice=sys.maxsize)
    except InvalidDiceError as exc:
        raise InvalidDiceError(f"--set-aside: {exc}") from None
    total = len(aside) + len(throw)
    if total > rules.dice:
        raise InvalidDiceError(
            f"--set-aside: {count_dice(len(aside))} set aside and {len(throw)} thrown make "
            f"{total}, more than the {rules.dice} dice of {rules.name}: together they must "
            "make the whole hand"
        )
    if throw and total != rules.dice:
        raise InvalidDiceError(
            f"{count_dice(len(aside))} set aside and {len(throw)} thrown make {total}, "
            f"but {rules.name} has {rules.dice} dice: together they must make the whole hand"
        )
    return HandContext.from_set_aside(aside)


# ---------------------------------------------------------------------------- score: JSON and table


def keep_json(keep: Keep) -> dict[str, Any]:
    return {
        "dice": list(keep.dice),
        "points": keep.points,
        "full_hand": keep.full_hand,
        "wins": keep.wins,
        "combinations": [
            {"name": c.name, "dice": list(c.dice), "points": c.points, "wins": c.wins}
            for c in keep.combinations
        ],
    }


def score_json(rules: RuleSet, score: ThrowScore, context: HandContext) -> dict[str, Any]:
    """The ``--json`` object of ``zloutch score`` (a contract: add keys, never rename).

    ``keeps``: the legal keeps sorted by points, highest first, as the contract says; a keep
    that wins the game (G-5) carries no points of its own, so it sorts by its 0 and its
    ``"wins": true`` marks it (the top-level ``"wins"`` says whether any keep wins). Ties keep
    the core's order. ``best``: the most points any reading of the throw is worth (five 1s in
    cinq-mille: 1200).
    """
    keeps = sorted(score.keeps, key=lambda keep: -keep.points)
    return {
        "rules": rules.spec,
        "throw": list(score.throw),
        "set_aside": list(context.set_aside),
        "farkle": score.farkle,
        "best": score.points,
        "wins": any(keep.wins for keep in keeps),
        "keeps": [keep_json(keep) for keep in keeps],
    }


def describe_combinations(keep: Keep) -> str:
    return " + ".join(
        f"{c.name} (wins the game)" if c.wins else f"{c.name} {c.points}" for c in keep.combinations
    )


def render_score(rules: RuleSet, score: ThrowScore, context: HandContext) -> None:
    """The keeps as a table in the core's best-first order (a keep that wins comes first)."""
    out = console()
    title = f"{escape(rules.spec)}: throw {format_dice(score.throw)}"
    if context.set_aside:
        title += f", set aside {format_dice(context.set_aside)}"
    out.print(title)
    if score.farkle:
        out.print(
            f"[bold red]farkle[/]: {format_dice(score.throw)} scores nothing; "
            "the turn and its total are lost (T-4)"
        )
        return
    table = Table()
    table.add_column("keep")
    table.add_column("points", justify="right")
    table.add_column("combinations")
    table.add_column("full hand", justify="center")
    for keep in score.keeps:
        table.add_row(
            format_dice(keep.dice),
            "wins" if keep.wins else str(keep.points),
            escape(describe_combinations(keep)),
            "yes" if keep.full_hand else "",
        )
    out.print(table)
    best = score.keeps[0]
    if best.wins:
        as_points = f"; read as points, the throw is worth {score.points}" if score.points else ""
        out.print(f"best: keep {format_dice(best.dice)}: it wins the game at once{as_points}")
    else:
        out.print(f"best: keep {format_dice(best.dice)} for {best.points}")


# ---------------------------------------------------------------------------- root and score


def show_version(value: bool) -> None:
    if value:
        typer.echo(f"zloutch {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=show_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """The dice game 10,000 (dix mille, zilch, farkle) and its family, exactly.

    Score a throw with 'zloutch score 1 1 5 3 2'; see the rule sets with 'zloutch rules list'.
    """


@app.command(context_settings={"ignore_unknown_options": True})
def score(
    faces: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="FACES",
            help="The dice thrown, separate (1 1 5 3 2) or packed (11532).",
            show_default=False,
        ),
    ] = None,
    rules_spec: RulesOption = DEFAULT_RULES,
    set_aside: Annotated[
        list[str] | None,
        typer.Option(
            "--set-aside",
            "-s",
            metavar="FACES",
            help=(
                "Dice already set aside in this hand (e.g. 1 or '1 5'; repeat it to add "
                "more), for the variants that score across throws (V-6, V-7). Set aside "
                "and thrown dice must make the whole hand."
            ),
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of a table.")
    ] = False,
    advise: Annotated[
        bool,
        typer.Option(
            "--advise",
            help="Also say which keep to take and whether to bank after it (turn-optimal).",
        ),
    ] = False,
    total: Annotated[
        int | None,
        typer.Option("--total", min=0, help="With --advise: the turn total before this throw."),
    ] = None,
    banked: Annotated[
        int | None,
        typer.Option("--score", min=0, help="With --advise: the player's banked score."),
    ] = None,
    not_entered: Annotated[
        bool,
        typer.Option("--not-entered", help="With --advise: the player has not entered (T-7)."),
    ] = False,
    farkles: Annotated[
        int | None,
        typer.Option(
            "--farkles",
            min=0,
            help=(
                "With --advise, under the consecutive-farkle penalty (F-1): the player's "
                "farkles in a row so far."
            ),
        ),
    ] = None,
) -> None:
    """Show every legal keep of a throw, best first, with its combinations and points."""
    with user_errors():
        given = {
            "--total": total is not None,
            "--score": banked is not None,
            "--not-entered": not_entered,
            "--farkles": farkles is not None,
        }
        if not advise:
            for name, present in given.items():
                if present:
                    raise ZloutchError(f"{name} only applies with --advise")
        rules = load_rules(rules_spec)
        throw = read_faces(faces or [], max_dice=rules.dice)
        context = read_context(rules, set_aside, throw)
        result = score_throw(rules, throw, context)
        if farkles is not None and not rules.turn.farkle_penalty:
            raise ZloutchError(
                f"--farkles only applies to rule sets with the consecutive-farkle penalty "
                f"(F-1), which {rules.spec} does not have"
            )
        total = total or 0
        entered, score_banked = not not_entered, banked or 0
        advice = (
            advise_throw(
                rules,
                throw,
                total,
                context,
                entered=entered,
                score=score_banked,
                farkles=farkles or 0,
            )
            if advise
            else None
        )
        goal = advice_objective(rules, entered, score_banked)
    if as_json:
        document = score_json(rules, result, context)
        if advice is not None:
            document["advice"] = advice_json(total, advice, goal)
        typer.echo(json.dumps(document))
    else:
        render_score(rules, result, context)
        if advice is not None:
            render_advice(total, advice, goal)


def advice_json(
    total: int, advice: Sequence[KeepAdvice], objective: str = POINTS
) -> dict[str, Any]:
    keeps = [
        {"dice": list(k.dice), "points": k.points, "value": k.value, "then": k.then} for k in advice
    ]
    return {
        "total": total,
        "objective": objective,
        "keeps": keeps,
        "best": keeps[0] if keeps else None,
    }


def render_advice(total: int, advice: Sequence[KeepAdvice], objective: str = POINTS) -> None:
    out = console()
    if not advice:
        out.print(f"No keep: the turn total of {total} is lost.")
        return
    what = "expected points banked by the turn" if objective == POINTS else "long-run value, F-1"
    table = Table(title=f"Advice at a turn total of {total} ({what})")
    table.add_column("keep")
    table.add_column("points", justify="right")
    table.add_column("value", justify="right")
    table.add_column("then")
    for i, k in enumerate(advice):
        mark = "best: " if i == 0 else ""
        then = {"bank": "bank", "throw": "throw again", "over": "turn over (T-9)"}[k.then]
        table.add_row(mark + format_dice(k.dice), str(k.points), f"{k.value:.1f}", then)
    out.print(table)
    best = advice[0]
    after = "bank" if best.then == "bank" else "throw again"
    out.print(f"Keep {format_dice(best.dice)}, then {after}.")
    if objective != POINTS:
        out.print(
            "Values for the long run (F-1): the points the turn banks, plus what the count of "
            "farkles in a row it leaves is worth in the turns to come."
        )


# ---------------------------------------------------------------------------- rules


def render_rules(rules: RuleSet) -> None:
    out = console()
    for part in rules_renderables(rules):
        out.print(part)
    out.print(
        "Switch any option by name: "
        + escape(f"zloutch rules show '{rules.source or rules.name}(option=value,...)'")
    )


@rules_app.command("list")
def rules_list() -> None:
    """List the preset rule sets: name, dice, target and a one-line summary."""
    with user_errors():
        table = presets_table()
    console().print(table)
    console().print("Details: zloutch rules show NAME")


@rules_app.command("show")
def rules_show(
    spec: Annotated[
        str,
        typer.Argument(
            metavar="SPEC",
            help="A preset name or a .toml rule file, with options: 'dix-mille(bump=any)'.",
        ),
    ],
    as_toml: Annotated[
        bool,
        typer.Option("--toml", help="Print the canonical rule file (TOML) instead."),
    ] = False,
) -> None:
    """Show every combination and rule of a rule set, generated from its data."""
    with user_errors():
        rules = load_rules(spec)
    if as_toml:
        typer.echo(to_toml(rules), nl=False)
    else:
        render_rules(rules)


# ---------------------------------------------------------------------------- record


def result_line(state: GameState) -> str:
    if state.phase is Phase.OVER:
        names = [state.sheets[w].name for w in state.winners]
        return f"finished: {' and '.join(names)} won"
    return f"in progress: {state.sheets[state.turn.player].name} to play"


def render_record(state: GameState) -> None:
    out = console()
    out.print(f"{escape(state.rules.spec)}: {result_line(state)}")
    out.print(sheet_table(state, title="Sheet"))
    if state.phase is Phase.OVER:
        out.print(ranking_table(state))


@record_app.command("show")
def record_show(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A game record (JSON).")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of the sheet.")
    ] = False,
) -> None:
    """Show the sheet and the result of a saved game (the record is replayed and checked)."""
    with user_errors():
        _, state = load_record(read_text(file, "record"))
    if as_json:
        typer.echo(json.dumps(sheet_json(state)))
    else:
        render_record(state)


# ---------------------------------------------------------------------------- the other commands

# Registered after the core commands, in the order of ``zloutch --help``.
from zloutch.cli_play import play, table  # noqa: E402
from zloutch.cli_plot import plot_app  # noqa: E402
from zloutch.cli_review import review  # noqa: E402
from zloutch.cli_simulate import simulate  # noqa: E402
from zloutch.cli_solve import solve  # noqa: E402

app.command()(solve)
app.command()(play)
app.command()(table)
app.command()(simulate)
app.add_typer(plot_app, name="plot")
app.command()(review)


def main() -> None:
    """The ``zloutch`` console script."""
    app()
