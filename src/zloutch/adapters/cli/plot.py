"""``zloutch plot``: pictures of strategies and simulations, written as PNG or SVG.

Each sub-command computes its numbers with the solvers or the engine, hands them to a figure
builder of ``zloutch.adapters.plots`` and writes the file named by ``--out`` (its suffix picks the
format). Mistakes (a bad suffix, an unknown rule set, a rule set the game solver does not
model, a file that is not a simulation result) are one ``error:`` line and exit code 2.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from zloutch.adapters.cli.support import (
    DEFAULT_RULES,
    Command,
    Group,
    RulesOption,
    ThreadsOption,
    check_outputs,
    off_terminal,
    progress_bar,
    solved_game_with_progress,
    user_errors,
    warnings_as_lines,
)

if TYPE_CHECKING:
    from zloutch.rules import RuleSet

plot_app = typer.Typer(
    cls=Group,
    help="Draw pictures (PNG or SVG): policies, thresholds, win rates, turn scores.",
    no_args_is_help=True,
)

OutOption = Annotated[
    str | None,
    typer.Option(
        "--out", "-o", metavar="FILE", help="The picture to write (required): FILE.png or FILE.svg."
    ),
]
NotEnteredOption = Annotated[
    bool, typer.Option("--not-entered", help="For a player who has not entered the game yet.")
]
ScoreOption = Annotated[
    int, typer.Option("--score", metavar="POINTS", help="The player's banked score.")
]
MaxTotalOption = Annotated[
    int | None,
    typer.Option(
        "--max-total",
        metavar="POINTS",
        help="The largest turn total drawn (by default a quarter past the highest "
        "threshold short of a full hand, in 500s, at least 1500).",
    ),
]


def checked_out(out: str | None) -> str:
    """The picture file, checked before any work: named, .png or .svg, and writable; and
    matplotlib there to draw it (its install hint before a solve, not after)."""
    from zloutch.adapters.plots import PlotError, output_format, require_matplotlib

    if not out:
        raise PlotError("name the picture to write with --out FILE.png or --out FILE.svg")
    output_format(out)
    check_outputs(("--out", out))
    require_matplotlib()
    return out


def who(entered: bool, score: int) -> str:
    if not entered:
        return "a player not entered yet"
    return f"a player who has entered, with {score} banked"


def check_entered(entered: bool, score: int) -> None:
    from zloutch.adapters.plots import PlotError

    if not entered and score:
        raise PlotError("a player not entered yet has no banked score: drop --score")


# ---------------------------------------------------------------------------- policy


@plot_app.command("policy", cls=Command)
def policy(
    rules_spec: RulesOption = DEFAULT_RULES,
    out: OutOption = None,
    game: Annotated[
        bool,
        typer.Option("--game", help="Play to win (the game solver) at --score and --opponent."),
    ] = False,
    score: ScoreOption = 0,
    opponent: Annotated[
        int,
        typer.Option(
            "--opponent", metavar="POINTS", help="With --game: the opponent's banked score."
        ),
    ] = 0,
    not_entered: NotEnteredOption = False,
    max_total: MaxTotalOption = None,
    threads: ThreadsOption = None,
) -> None:
    """The policy map: bank or throw, by turn total and dice in hand.

    From the turn solver (the most points per turn), or with --game from the game solver
    (the best chance to win, two players) at the two banked scores.
    """
    from zloutch.adapters import plots
    from zloutch.engine.endings import load_rules

    with user_errors(), warnings_as_lines():
        path = checked_out(out)
        rules = load_rules(rules_spec)
        if opponent and not game:
            raise plots.PlotError("--opponent only applies with --game (the game solver)")
        if threads is not None and not game:
            raise plots.PlotError("--threads only applies with --game (the game solver)")
        if game:
            if not_entered:
                raise plots.PlotError(
                    "--not-entered is for the turn solver: with --game, a score of 0 "
                    "is a player not entered yet"
                )
            from zloutch.strategy.game_solver import PairSolutions

            plots.check_score(rules, score, "--score")
            plots.check_score(rules, opponent, "--opponent")
            plots.check_mappable(rules)
            solution = solved_game_with_progress(rules, threads)
            chance = float(solution.win[score // rules.unit, opponent // rules.unit])
            if chance != chance:  # NaN: a pair of scores no game reaches
                raise plots.PlotError(
                    f"no game of {rules.spec} reaches {score} against {opponent}: "
                    "no bank leads to one of these scores"
                )
            turn = PairSolutions(solution).turn(score, opponent)
            title = f"{rules.name}: bank or throw to win, at {score} against {opponent}"
            entry = " (not entered yet)" if score == 0 and rules.turn.entry else ""
            caption = (
                f"rules: {rules.spec}. Game solver: the play that maximises the chance to win "
                f"against an optimal opponent, with {score} banked{entry} against {opponent} "
                f"(the chance to win from the start of this turn is {chance:.1%}). "
                "Each cell: the decision after a keep, at that turn total with those dice "
                "to throw next."
            )
        else:
            check_entered(not not_entered, score)
            turn = plots.turn_solution(rules, not not_entered, score)
            title = f"{rules.name}: bank or throw, by turn total and dice in hand"
            caption = (
                f"rules: {rules.spec}. Turn solver: the play that maximises the expected "
                f"points banked by the turn, for {who(not not_entered, score)}. "
                "Each cell: the decision after a keep, at that turn total with those dice "
                "to throw next."
            )
        grid = plots.policy_grid(turn, max_total)
        plots.policy_figure(grid, title=title, caption=caption).save(path)
    typer.echo(f"wrote {path}")


@plot_app.command("values", cls=Command)
def values(
    rules_spec: RulesOption = DEFAULT_RULES,
    out: OutOption = None,
    score: ScoreOption = 0,
    not_entered: NotEnteredOption = False,
    max_total: Annotated[
        int,
        typer.Option("--max-total", metavar="POINTS", help="The largest turn total drawn."),
    ] = 3000,
) -> None:
    """Expected points of throwing on, by turn total and dice in hand, against banking."""
    from zloutch.adapters import plots
    from zloutch.engine.endings import load_rules

    with user_errors():
        path = checked_out(out)
        rules = load_rules(rules_spec)
        check_entered(not not_entered, score)
        if max_total < rules.unit:
            raise plots.PlotError(f"--max-total must be at least {rules.unit}")
        turn = plots.turn_solution(rules, not not_entered, score)
        caption = (
            f"rules: {rules.spec}. Turn solver (expected points), "
            f"{who(not not_entered, score)}. A line: what the turn is worth if the "
            "dice in hand are thrown now and the rest is played optimally; dots: banking now, "
            "where the rules allow it."
        )
        picture = plots.turn_values_figure(turn, max_total=max_total, caption=caption)
        picture.save(path)
    typer.echo(f"wrote {path}")


# ---------------------------------------------------------------------------- threshold


@plot_app.command("threshold", cls=Command)
def threshold(
    rules_spec: RulesOption = DEFAULT_RULES,
    out: OutOption = None,
    dice: Annotated[
        int | None,
        typer.Option(
            "--dice", metavar="N", help="Only this number of dice in hand (default: each)."
        ),
    ] = None,
    threads: ThreadsOption = None,
) -> None:
    """The game solver's banking threshold as a function of both banked scores.

    One heat map per number of dice in hand: the smallest turn total at which banking gives
    the best chance to win. Solves the game first (then kept in the cache) if needed.
    """
    from zloutch.adapters import plots
    from zloutch.engine.endings import load_rules

    with user_errors(), warnings_as_lines():
        path = checked_out(out)
        rules = load_rules(rules_spec)
        if dice is not None and not 1 <= dice <= rules.dice:
            raise plots.PlotError(
                f"--dice must be between 1 and {rules.dice} for {rules.spec}, not {dice}"
            )
        plots.check_mappable(rules)  # before a solve that would be for nothing
        solution = solved_game_with_progress(rules, threads)
        bar = progress_bar("Thresholds of every score pair", "pairs", disable=off_terminal())
        with bar as advance:
            tmap = plots.game_thresholds(
                solution, None if dice is None else [dice], progress=advance
            )
        title = f"{rules.name}: when to bank to win, by both banked scores"
        caption = (
            f"rules: {rules.spec}. Game solver, two players playing to win (from 0 to 0 the "
            f"first player wins {tmap.first_player:.1%}). Colour: the smallest turn total at "
            "which banking gives the best chance to win, after a keep that leaves those dice "
            "to throw (the scale stops at the 95th percentile: an arrow); grey: throwing "
            "on is always better, or banking is never allowed."
        )
        if solution.counts is not None:  # F-1: the thresholds move with the farkles in a row
            caption += (
                " Both players with no farkle in a row (F-1: a penalty after "
                f"{rules.turn.farkle_penalty_after} in a row)."
            )
        plots.threshold_figure(tmap, title=title, caption=caption).save(path)
    typer.echo(f"wrote {path}")


# ---------------------------------------------------------------------------- win rates


@plot_app.command("winrates", cls=Command)
def winrates(
    result_file: Annotated[
        str,
        typer.Argument(metavar="SIM_JSON", help="A result of zloutch simulate --json FILE (JSON)."),
    ],
    out: OutOption = None,
) -> None:
    """Win rates with 95% intervals, by player (strategy) and by seat, of a simulation."""
    from zloutch.adapters import plots
    from zloutch.app.dice import read_text

    with user_errors():
        path = checked_out(out)
        document = plots.simulation_document(
            read_text(result_file, "simulation result"), result_file
        )
        n = len(document["players"])
        finished = document.get("finished", document["games"])
        title = f"{document['rules']}: win rate by player and by seat"
        caption = (
            f"rules: {document['rules']}. {document['games']:,} games ({finished:,} finished), "
            f"seed {document.get('seed', '?')}, seats rotated (zloutch simulate). Bars: 95% "
            f"Wilson intervals; dashed: the fair share 1/{n}."
        )
        plots.winrates_figure(document, title=title, caption=caption).save(path)
    typer.echo(f"wrote {path}")


@plot_app.command("first-player", cls=Command)
def first_player(
    result_files: Annotated[
        list[str],
        typer.Argument(
            metavar="SIM_JSON",
            help="Results of zloutch simulate --json FILE (JSON), one row each.",
        ),
    ],
    out: OutOption = None,
) -> None:
    """Seat 1's win rate with its 95% interval, one row per simulation: the first player's
    edge under each rule set."""
    from zloutch.adapters import plots
    from zloutch.app.dice import read_text

    with user_errors():
        path = checked_out(out)
        documents = [
            plots.simulation_document(read_text(f, "simulation result"), f) for f in result_files
        ]
        seats = {len(d["seats"]) for d in documents}
        if len(seats) > 1:
            raise plots.PlotError(
                "the simulations seat different numbers of players: compare like with like"
            )
        games = sorted({d["games"] for d in documents})
        counts = " or ".join(f"{g:,}" for g in games)
        lineups = {plots.lineup(d) for d in documents}
        players = f", {lineups.pop()}" if len(lineups) == 1 else ", the players under each row"
        caption = (
            f"{counts} games each (zloutch simulate, seats rotated{players}); bars: 95% "
            f"Wilson intervals; dashed: the fair share."
        )
        title = "The first player's win rate, by rule set"
        plots.first_player_figure(documents, title=title, caption=caption).save(path)
    typer.echo(f"wrote {path}")


# ---------------------------------------------------------------------------- turn scores


@plot_app.command("turn-scores", cls=Command)
def turn_scores(
    rules_spec: RulesOption = DEFAULT_RULES,
    out: OutOption = None,
    players: Annotated[
        str,
        typer.Option(
            "--players",
            "-p",
            metavar="BOTS",
            help="The bots, comma-separated (e.g. expert,threshold:300,greedy).",
        ),
    ] = "expert,threshold:300",
    turns: Annotated[int, typer.Option("--turns", "-n", help="Turns simulated per bot.")] = 10000,
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", help="The seed: same seed, same picture.")
    ] = 0,
    width: Annotated[
        int | None,
        typer.Option("--bin", metavar="POINTS", help="Bin width (default: two score steps)."),
    ] = None,
    score: ScoreOption = 0,
    not_entered: NotEnteredOption = False,
) -> None:
    """The distribution of points banked per turn (0 for a farkle), one line per bot.

    The turns are simulated through the engine; the turn solver's exact mean is drawn for
    the expert bot.
    """
    from zloutch.adapters import plots
    from zloutch.app.store import load_game_solution
    from zloutch.engine.endings import load_rules
    from zloutch.sim.turns import simulate_turns
    from zloutch.strategy.bots import make_bot

    with user_errors(), warnings_as_lines():
        path = checked_out(out)
        rules = load_rules(rules_spec)
        names = [name.strip() for name in players.split(",")]
        if any(not name for name in names):
            raise plots.PlotError(f"--players needs bot names separated by commas: {players!r}")
        if turns < 1:
            raise plots.PlotError(f"--turns must be at least 1, not {turns}")
        if width is not None and width < 1:
            raise plots.PlotError(f"--bin must be at least 1 point, not {width}")
        check_entered(not not_entered, score)
        plots.check_score(rules, score, "--score")
        bots = [make_bot(name, load_game_solution) for name in names]
        check_game_bots(rules, bots, not not_entered, score)
        scores = []
        with progress_bar("Simulating turns", "turns", disable=off_terminal()) as advance:
            for i, bot in enumerate(bots):
                scores.append(
                    simulate_turns(
                        rules,
                        bot,
                        turns,
                        seed,
                        entered=not not_entered,
                        score=score,
                        progress=_offset(advance, i * turns, len(bots) * turns),
                    )
                )
        solved = None
        if any(bot.name == "expert" for bot in bots):
            solved = plots.turn_solution(rules, not not_entered, score).expected_turn
        title = f"{rules.name}: points banked per turn"
        caption = (
            f"rules: {rules.spec}. {turns:,} turns per bot simulated through the engine "
            f"(seed {seed}), each a fresh turn of {who(not not_entered, score)}; "
            "a lost turn banks 0. Dotted lines: each bot's mean (its 95% interval: ± in the "
            "legend)."
        )
        picture = plots.turn_scores_figure(
            rules, scores, width=width, solved_mean=solved, title=title, caption=caption
        )
        picture.save(path)
    typer.echo(f"wrote {path}")


def check_game_bots(rules: RuleSet, bots: Sequence[object], entered: bool, score: int) -> None:
    """A bot that plays the whole game (optimal) reads the sheet as the game solver does
    (``entered_at``): where it reads a player as not entered, its turns are the not-entered
    player's, which a caption that says "entered" would misname."""
    from zloutch.adapters.plots import PlotError
    from zloutch.strategy.game_solver import entered_at
    from zloutch.strategy.optimal import OptimalBot

    if entered and not entered_at(rules, score):
        for bot in bots:
            if isinstance(bot, OptimalBot):
                raise PlotError(
                    f"{bot.name} plays the whole game, where a player at {score} has not "
                    f"entered yet ({rules.turn.entry} to enter, T-7): give --not-entered, or "
                    f"a score it has banked (e.g. --score {rules.turn.entry})"
                )


def _offset(advance: Callable[[int, int], None], before: int, total: int) -> Callable[[int], None]:
    """Report the turns of one bot as turns of the whole run."""
    return lambda done: advance(before + done, total)
