"""``zloutch play`` and ``zloutch table``: start a game, full-screen or in lines of text.

Both commands take the same options (the ``*Option`` types below) and go through
``run_game``: every flag is checked before the game starts, then the game is handed to the
full-screen app (``zloutch.adapters.tui``) or, with ``--plain``, to the line mode
(``zloutch.adapters.plain``).
``play`` throws the dice; ``table`` keeps the score of a game played with real dice.
The game session (with the bots and their solvers) is imported when a game starts, not when
the ``zloutch`` app is built.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from zloutch.adapters.cli.support import DEFAULT_RULES, RULES_HELP, user_errors, warnings_as_lines

if TYPE_CHECKING:
    from zloutch.app.dice import DiceSource
    from zloutch.app.session import Session

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
            "(beginner, easy, medium, strong, best; or random, cautious, greedy, bold, "
            "bold:N, expert, optimal, threshold:N). Example: Ana,Bob,bot:strong."
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
            "undo, hint, sheet, rules, save FILE, help, quit). The default when the input or the "
            "output is not a terminal."
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
TableDiceOption = Annotated[
    str | None,
    typer.Option(
        "--dice",
        metavar="FILE",
        help=(
            "Read the throws from a file in place of typing them (a game's real throws, "
            "written down): one throw per line, faces separated by spaces."
        ),
        show_default=False,
    ),
]
TableSeedOption = Annotated[
    int | None,
    typer.Option(
        "--seed",
        metavar="N",
        help="Refused here: real dice are typed in, never drawn (zloutch play --seed draws them).",
        show_default=False,
        hidden=True,
    ),
]
RecordOption = Annotated[
    str | None,
    typer.Option(
        "--record",
        metavar="FILE",
        help="Keep the game record (JSON) in FILE: written after every move, and on quit.",
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
        help="Seconds between two moves of a bot, at most 60 (0: at once). Default 0.8 on a "
        "terminal.",
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
    from zloutch.app.dice import choose_dice, read_text
    from zloutch.app.files import shown
    from zloutch.app.session import PLAY_PLAYERS, TABLE_PLAYERS, Session, SessionError

    if resume is not None:
        if rules_spec is not None or players is not None:
            raise SessionError(
                "--resume goes on with the saved game, its rules and its players: "
                "leave out --rules and --players"
            )
        session = Session.resume(read_text(resume, "record"), dice=dice, source=resume)
        if table_mode and not session.state.table_mode:
            raise SessionError(
                f"--resume {shown(resume)}: this game is played with computer dice; it cannot "
                f"go on with real dice (its throws could not be checked): resume it with "
                f"zloutch play --resume {shown(resume)}"
            )
        return session
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
    from zloutch.app.dice import choose_dice
    from zloutch.app.files import shown
    from zloutch.app.session import (
        DEFAULT_PACE,
        SessionError,
        check_record_path,
        pace_refusal,
    )

    with user_errors():
        why = None if pace is None else pace_refusal(pace)
        if why is not None:
            raise SessionError(f"--pace {pace:g}: {why}")
        if dice_file is not None and seed is not None:
            raise SessionError(
                "--dice and --seed: the throws come from the dice file, so a seed would "
                "change nothing; leave out one of them"
            )
        if table_mode and seed is not None:
            raise SessionError(
                "--seed: at a real table the faces are typed in, never drawn; zloutch play "
                "--seed draws the dice from a seed (a file of throws here: --dice FILE)"
            )
        if record_path is not None:  # found now, not when the game ends
            check_record_path(record_path, new_game=resume is None)
        dice = None
        if dice_file is not None or seed is not None:
            dice = choose_dice(dice_file=dice_file, seed=seed, table_mode=table_mode)
        # The full-screen app needs a terminal: on a pipe it would wait for keys that never
        # come, and draw escape codes into a file.
        piped = not plain and not (sys.stdin.isatty() and sys.stdout.isatty())
        plain = plain or piped
        session = open_session(
            table_mode=table_mode,
            rules_spec=rules_spec,
            players=players,
            dice=dice,
            resume=resume,
            ask=not plain,
        )
        if session is not None and resume is not None and record_path is not None:
            # --record FILE of a resumed game: refused now if it holds another game
            session.check_file(record_path, f"--record {shown(record_path)}")
    if piped:  # said once every flag and file is known to be good
        typer.echo("note: not a terminal: the game goes on in lines of text (--plain)", err=True)
    if plain:
        assert session is not None
        from zloutch.adapters.plain import PlainGame

        if pace is None:
            pace = DEFAULT_PACE if sys.stdout.isatty() else 0.0
        saves_to = record_path
        if saves_to is None and resume is not None:  # saved back where it was
            saves_to = resumed_record_path(resume)
        if sys.stdin.isatty():  # a person: the hint and bot:best need not wait for a solve
            session.solve_in_background()
        game = PlainGame(
            session,
            sys.stdin,
            sys.stdout,
            stderr=sys.stderr,
            pace=pace,
            record_path=saves_to,
            echo=not sys.stdin.isatty(),
        )
        with warnings_as_lines():  # the optimal bot's table, read from the cache
            code = game.run()
        if code:
            raise typer.Exit(code)
        return
    from zloutch.adapters.tui import AppConfig, ZloutchApp

    config = AppConfig(
        session=session,
        table_mode=table_mode if session is None else session.state.table_mode,
        pace=DEFAULT_PACE if pace is None else pace,
        record_path=record_path,
        dice=dice,
        resume_path=resume,
        background_solves=True,  # the full-screen app runs only at a terminal
    )
    app = ZloutchApp(config)
    status = app.run()  # 2: a dice file that stopped matching the game (the record is written)
    for path in app.written:  # the screen is gone: say where the games are, as line mode
        typer.echo(f"Record written to {path}.")
    code = app.return_code or (status if isinstance(status, int) else 0)
    if code:  # 129 or 143: SIGHUP or SIGTERM, the record written; 1: a bug
        raise typer.Exit(code)


def resumed_record_path(resume: str) -> str | None:
    """Where a resumed game keeps its record: the file it came from, when it can be written
    (else a warning, and the game is saved only where asked)."""
    from zloutch.app.session import check_record_path
    from zloutch.rules import ZloutchError

    try:
        check_record_path(resume, "--resume")
    except ZloutchError as exc:
        typer.echo(f"warning: {exc}; the game is not saved back (--record FILE saves it)", err=True)
        return None
    return resume


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


def table(
    rules_spec: GameRulesOption = None,
    players: PlayersOption = None,
    plain: PlainOption = False,
    dice_file: TableDiceOption = None,
    seed: TableSeedOption = None,
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
