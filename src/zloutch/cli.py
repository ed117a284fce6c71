"""The ``zloutch`` command line: parse input, call the core, render the result.

No rule lives here. Each command is a small function that reads its arguments, asks the core,
and hands the answer to a renderer (``render_*``: Rich tables for people, ``*_json`` for
programs). Every ``ZloutchError`` is caught at the edge (``user_errors``) and printed as one
``error: ...`` line on stderr with exit code 2.

To add a command: write it under "commands" with ``@app.command()`` (or in a module
``zloutch.cli_<name>`` registered at the end of this file), take the rule set with the shared
``RulesOption`` (``zloutch.cli_support``), wrap its body in ``with user_errors():``, and keep
its rendering in a ``render_*`` function.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from zloutch import __version__
from zloutch.cli_support import (
    DEFAULT_RULES,
    EXIT_USER_ERROR,
    RULES_HELP,
    RulesOption,
    console,
    off_terminal,
    progress_bar,
    user_errors,
    write_output,
)
from zloutch.commands.solve import cached_turn_summary, game_summary, solved_game
from zloutch.dice_sources import DiceSource, choose_dice, read_text
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
from zloutch.session import PLAY_PLAYERS, TABLE_PLAYERS, Session, SessionError
from zloutch.strategy.expert import POINTS, KeepAdvice, advise_throw
from zloutch.strategy.expert import objective as advice_objective

# The rule set's tables moved to zloutch.render (the game screens draw them too); their
# names stay importable from here.
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
    "presets_table",
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


# ---------------------------------------------------------------------------- the edge


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


# ---------------------------------------------------------------------------- score


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

    ``keeps``: the legal keeps sorted by points, highest first, except that a keep that wins
    the game (G-5, worth no points itself) comes above any points, as in the table; ties keep
    the core's order, so the same dice read as points follow their win. ``best``: the most
    points any reading of the throw is worth (five 1s in cinq-mille: 1200, and ``wins``).
    """
    keeps = sorted(score.keeps, key=lambda keep: (not keep.wins, -keep.points))
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


# ---------------------------------------------------------------------------- rules


def render_rules(rules: RuleSet) -> None:
    out = console()
    for part in rules_renderables(rules):
        out.print(part)
    out.print(
        "Switch any option by name: "
        + escape(f"zloutch rules show '{rules.source or rules.name}(option=value,...)'")
    )


# ---------------------------------------------------------------------------- commands


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


# ---------------------------------------------------------------------------- solve


@app.command()
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
        typer.Option("--device", help="With --game: cpu (Numba, all cores) or cuda (CuPy)."),
    ] = "cpu",
    not_entered: Annotated[
        bool, typer.Option("--not-entered", help="Solve the turn of a player not entered yet.")
    ] = False,
    banked: Annotated[
        int, typer.Option("--score", min=0, help="The banked score (exact targets, G-7).")
    ] = 0,
) -> None:
    """Solve a rule set: the value of a turn and when to bank, or (--game) who wins."""
    if device not in ("cpu", "cuda"):
        typer.echo("error: --device must be cpu or cuda", err=True)
        raise typer.Exit(EXIT_USER_ERROR)
    with user_errors():
        rules = load_rules(rules_spec)
        if game:
            document = solve_game_command(rules, device, compensation, quiet=as_json)
        else:
            # The bar counts the rows of the turn total, then (F-1) the long-run iterations.
            quiet = as_json or off_terminal()
            with progress_bar("Solving the turn", "steps", disable=quiet) as progress:
                document, _ = cached_turn_summary(rules, not not_entered, banked, progress=progress)
    if as_json:
        typer.echo(json.dumps(document))
    elif game:
        render_game(document)
    else:
        render_turn(document)


def solve_game_command(
    rules: RuleSet, device: str, compensation: bool, *, quiet: bool
) -> dict[str, Any]:
    with progress_bar("Solving the game", "score levels", disable=quiet) as progress:
        begin = time.perf_counter()
        solution, cached = solved_game(rules, device=device, progress=progress)
        seconds = time.perf_counter() - begin
    document = game_summary(solution, None if cached else seconds)
    document["cached"] = cached
    if not compensation:
        document.pop("compensation")
    return document


def render_turn(document: dict[str, Any]) -> None:
    out = console()
    out.print(
        f"[bold]{escape(document['rules'])}[/bold]: a fresh turn is worth "
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
    out.print(
        f"{document['score_pairs']} score pairs, {document['passes']} passes, "
        f"residual {document['residual']:.1e}; {how}."
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


# ---------------------------------------------------------------------------- play and table

GameRulesOption = Annotated[
    str | None,
    typer.Option(
        "--rules",
        "-r",
        metavar="SPEC",
        help=RULES_HELP + " Given with or without --players, it skips the new-game screen.",
        show_default=False,
    ),
]
PlayersOption = Annotated[
    str | None,
    typer.Option(
        "--players",
        "-p",
        metavar="NAMES",
        help=(
            "Who plays, in order, separated by commas: a name is a person, bot:LEVEL a bot "
            "(beginner, easy, medium, strong, best; or random, cautious, greedy, expert, "
            "optimal, threshold:N). Example: Ana,Bob,bot:strong."
        ),
        show_default=False,
    ),
]
PlainOption = Annotated[
    bool,
    typer.Option(
        "--plain",
        help=(
            "Line mode, for screen readers, pipes and scripts: the game in plain text, "
            "one command per line (keep 1 1 5, throw, bank, take, fresh, joker 5 5, off, "
            "undo, hint, sheet, save FILE, help, quit)."
        ),
    ),
]
DiceOption = Annotated[
    str | None,
    typer.Option(
        "--dice",
        metavar="FILE",
        help=(
            "Take the throws from a file: one throw per line, faces separated by spaces "
            "(not with --seed)."
        ),
        show_default=False,
    ),
]
SeedOption = Annotated[
    int | None,
    typer.Option(
        "--seed",
        metavar="N",
        help="Fix the random dice (and the bots' choices); not with --dice.",
        show_default=False,
    ),
]
RecordOption = Annotated[
    str | None,
    typer.Option(
        "--record",
        metavar="FILE",
        help="Write the game record (JSON) to FILE at the end of the game or on quit.",
        show_default=False,
    ),
]
ResumeOption = Annotated[
    str | None,
    typer.Option(
        "--resume",
        metavar="FILE",
        help="Go on with a saved game (a record written by save or --record).",
        show_default=False,
    ),
]
PaceOption = Annotated[
    float | None,
    typer.Option(
        "--pace",
        metavar="SECONDS",
        help="Seconds between two moves of a bot (0: at once). Default 0.8 on a terminal.",
        show_default=False,
    ),
]


def open_session(
    *,
    table_mode: bool,
    rules_spec: str | None,
    players: str | None,
    dice: DiceSource | None,
    resume: str | None,
    ask: bool,
) -> Session | None:
    """The game the flags describe; None when the new-game screen should ask for it."""
    if resume is not None:
        if rules_spec is not None or players is not None:
            raise SessionError(
                "--resume goes on with the saved game, its rules and its players: "
                "leave out --rules and --players"
            )
        return Session.resume(read_text(resume, "record"), dice=dice)
    if ask and rules_spec is None and players is None:
        return None
    if players is None:  # an empty --players "" is refused by Session.new, not replaced
        players = TABLE_PLAYERS if table_mode else PLAY_PLAYERS
    return Session.new(
        DEFAULT_RULES if rules_spec is None else rules_spec,
        players,
        table_mode=table_mode,
        dice=dice or choose_dice(dice_file=None, seed=None, table_mode=table_mode),
    )


def run_game(
    *,
    table_mode: bool,
    rules_spec: str | None,
    players: str | None,
    plain: bool,
    dice_file: str | None,
    seed: int | None,
    record_path: str | None,
    resume: str | None,
    pace: float | None,
) -> None:
    """``zloutch play`` and ``zloutch table``: check every flag, then start the game."""
    with user_errors():
        if pace is not None and not pace >= 0:
            raise SessionError(f"--pace {pace}: the pace is a number of seconds, 0 or more")
        if dice_file is not None and seed is not None:
            raise SessionError(
                "--dice and --seed: the throws come from the dice file, so a seed would "
                "change nothing; leave out one of them"
            )
        if record_path is not None:  # found now, not when the game ends
            from zloutch.session import check_record_path

            check_record_path(record_path)
        dice = None
        if dice_file is not None or seed is not None:
            dice = choose_dice(dice_file=dice_file, seed=seed, table_mode=table_mode)
        session = open_session(
            table_mode=table_mode,
            rules_spec=rules_spec,
            players=players,
            dice=dice,
            resume=resume,
            ask=not plain,
        )
    if plain:
        assert session is not None
        from zloutch.plain import PlainGame
        from zloutch.tui.app import DEFAULT_PACE

        if pace is None:
            pace = DEFAULT_PACE if sys.stdout.isatty() else 0.0
        game = PlainGame(
            session,
            sys.stdin,
            sys.stdout,
            stderr=sys.stderr,
            pace=pace,
            record_path=record_path,
            echo=not sys.stdin.isatty(),
        )
        code = game.run()
        if code:
            raise typer.Exit(code)
        return
    from zloutch.tui import DEFAULT_PACE as TUI_PACE
    from zloutch.tui import AppConfig, ZloutchApp

    config = AppConfig(
        session=session,
        table_mode=table_mode if session is None else session.state.table_mode,
        pace=TUI_PACE if pace is None else pace,
        record_path=record_path,
        dice=dice,
        resume_path=resume,
    )
    ZloutchApp(config).run()


@app.command()
def play(
    rules_spec: GameRulesOption = None,
    players: PlayersOption = None,
    plain: PlainOption = False,
    dice_file: DiceOption = None,
    seed: SeedOption = None,
    record_path: RecordOption = None,
    resume: ResumeOption = None,
    pace: PaceOption = None,
) -> None:
    """Play a game against people and bots: a new-game screen, the table, the sheet.

    With no flags, a new-game screen asks for the rules and players (Enter: against a bot).

    --rules and --players start at once; --plain plays in lines of text; --resume goes on.
    """
    run_game(
        table_mode=False,
        rules_spec=rules_spec,
        players=players,
        plain=plain,
        dice_file=dice_file,
        seed=seed,
        record_path=record_path,
        resume=resume,
        pace=pace,
    )


@app.command()
def table(
    rules_spec: GameRulesOption = None,
    players: PlayersOption = None,
    plain: PlainOption = False,
    dice_file: DiceOption = None,
    seed: SeedOption = None,
    record_path: RecordOption = None,
    resume: ResumeOption = None,
    pace: PaceOption = None,
) -> None:
    """Keep the score of a game with real dice: type each throw's faces, the rules are kept.

    Shows the legal keeps of every throw and the sheet.

    'off' loses the turn when a die falls off the table; 'undo' takes back the last entry.
    """
    run_game(
        table_mode=True,
        rules_spec=rules_spec,
        players=players,
        plain=plain,
        dice_file=dice_file,
        seed=seed,
        record_path=record_path,
        resume=resume,
        pace=pace,
    )


# ---------------------------------------------------------------------------- simulate


@app.command()
def simulate(
    rules_spec: RulesOption = DEFAULT_RULES,
    players: Annotated[
        str,
        typer.Option(
            "--players",
            "-p",
            metavar="BOTS",
            help="The bots, comma-separated: random, cautious, threshold:N, greedy, expert, "
            "optimal (e.g. expert,threshold:300).",
        ),
    ] = "expert,threshold:300",
    games: Annotated[int, typer.Option("--games", "-n", help="Number of games.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="The seed: same seed, same result.")] = 0,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", help="Processes to use (default: every core)."),
    ] = None,
    json_file: Annotated[
        str | None,
        typer.Option("--json", metavar="FILE", help="Write the result document (JSON) to FILE."),
    ] = None,
    csv_file: Annotated[
        str | None,
        typer.Option("--csv", metavar="FILE", help="Write one row per player (CSV) to FILE."),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bar and no tables.")
    ] = False,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            "-m",
            metavar="auto|engine|fast",
            help="engine: every game through the engine; fast: the compiled fast path "
            "(table bots: cautious, threshold:N, greedy, expert; rule sets without ticks, "
            "bumps, take-back, final round, F-1 penalty, jokers); auto: fast where it can.",
        ),
    ] = "auto",
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            metavar="local|ray",
            help="local: this machine; ray: the same games as Ray tasks on a cluster "
            "(pip install 'zloutch[ray]'), with the same result for the same seed.",
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            metavar="ADDR",
            help="With --backend ray: the cluster (auto, ray://HOST:10001); "
            "default: a Ray instance started on this machine for the run.",
        ),
    ] = None,
) -> None:
    """Play many games of bots and report win rates (95% intervals), scores and seats.

    Seats rotate fairly (game g starts with player g mod n); every game is seeded from the
    seed and its index, so the result is the same for any --jobs. The fast path plays other
    dice than the engine for the same seed: the two agree in distribution, not game by game.
    """
    from zloutch.sim import SimulationError, default_jobs
    from zloutch.sim import simulate as run_simulation
    from zloutch.store import load_game_solution

    with user_errors():
        rules = load_rules(rules_spec)
        names = [name.strip() for name in players.split(",")]
        if not players.strip() or any(not name for name in names):
            raise SimulationError(f"--players needs bot names separated by commas: {players!r}")
        if games < 1:
            raise SimulationError(f"--games must be at least 1, not {games}")
        if jobs is not None and jobs < 1:
            raise SimulationError(f"--jobs must be at least 1, not {jobs}")
        workers = default_jobs() if jobs is None else jobs
        result = _simulate_with_progress(
            lambda progress: run_simulation(
                rules,
                names,
                games,
                seed,
                jobs=workers,
                solutions=load_game_solution,
                progress=progress,
                method=method.strip().lower(),
                backend=backend.strip().lower(),
                address=address,
            ),
            games,
            quiet=quiet,
        )
        document = result.to_json()
        document["jobs"] = workers
        if json_file is not None:
            write_output(json_file, json.dumps(document, indent=2) + "\n")
        if csv_file is not None:
            write_output(csv_file, simulation_csv(document))
    if not quiet:
        render_simulation(document)


def _simulate_with_progress(run: Any, games: int, *, quiet: bool) -> Any:
    """``run(progress)`` under a progress bar on stderr (games done, games per second)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("Simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=quiet,
        transient=True,
    ) as bar:
        task = bar.add_task("simulate", total=games, rate="")
        begin = time.perf_counter()

        def progress(done: int) -> None:
            seconds = time.perf_counter() - begin
            rate = f"{done / seconds:,.0f} games/s" if seconds > 0 else ""
            bar.update(task, completed=done, rate=rate)

        return run(progress)


SIMULATION_CSV_FIELDS = (
    "name",
    "policy",
    "games",
    "finished",
    "wins",
    "win_rate",
    "win_low",
    "win_high",
    "average_score",
    "average_turns",
    "farkle_rate",
    "average_bank",
    "ticks",
    "bumps",
    "bumped",
    "take_backs",
    "penalties",
)


def simulation_csv(document: dict[str, Any]) -> str:
    """One row per player of a ``simulate`` result document."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=["rules", "seed", *SIMULATION_CSV_FIELDS])
    writer.writeheader()
    for player in document["players"]:
        row = {key: player.get(key) for key in SIMULATION_CSV_FIELDS}
        row["win_low"], row["win_high"] = player["win_rate_ci95"]
        writer.writerow({"rules": document["rules"], "seed": document["seed"], **row})
    return out.getvalue()


def render_simulation(document: dict[str, Any]) -> None:
    out = console()
    finished, games = document["finished"], document["games"]
    head = f"{escape(document['rules'])}: {games:,} games, seed {document['seed']}"
    if finished != games:
        head += f" ({games - finished:,} unfinished at {document['max_turns']:,} turns)"
    out.print(head)
    # The counts that these rules can make: a column of zeros says nothing.
    extras = [
        (key, title)
        for key, title in (("ticks", "Tick"), ("bumps", "Bump"), ("take_backs", "Take"))
        if any(p["per_game"][key] for p in document["players"])
    ]
    caption = "Score: average final score; Bank: average bank; Farkle: farkled turns"
    if extras:
        caption += "; " + ", ".join(t.lower() + "s" for _, t in extras) + ": per game"
    from rich import box

    table = Table(
        title="Players", caption=caption, box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 0, 0, 1)
    )
    table.add_column("Player", no_wrap=True, min_width=8)
    for name in ("Wins", "95% CI", "Score", "Turns", "Farkle", "Bank"):
        table.add_column(name, justify="right", no_wrap=True)
    for _, title in extras:
        table.add_column(title, justify="right")
    for p in document["players"]:
        low, high = p["win_rate_ci95"]
        table.add_row(
            escape(p["name"]),
            f"{p['win_rate']:.1%}",
            f"{100 * low:.1f}-{100 * high:.1f}",
            f"{p['average_score']:,.0f}",
            f"{p['average_turns']:.1f}",
            f"{p['farkle_rate']:.0%}",
            f"{p['average_bank']:,.0f}",
            *(f"{p['per_game'][key]:.2f}" for key, _ in extras),
        )
    out.print(table)
    seats = Table(title="Seats (seat 1 plays first)", box=box.SIMPLE_HEAD, pad_edge=False)
    for name in ("Seat", "Win rate", "95% interval", "vs fair share"):
        seats.add_column(name, justify="right")
    for s in document["seats"]:
        low, high = s["win_rate_ci95"]
        seats.add_row(
            str(s["seat"]),
            f"{s['win_rate']:.1%}",
            f"{low:.1%} - {high:.1%}",
            f"{s['advantage']:+.1%}",
        )
    out.print(seats)


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


from zloutch.cli_plot import plot_app  # noqa: E402  (registered after the core commands)
from zloutch.cli_review import review  # noqa: E402

app.add_typer(plot_app, name="plot")
app.command()(review)


def main() -> None:
    """The ``zloutch`` console script."""
    app()
