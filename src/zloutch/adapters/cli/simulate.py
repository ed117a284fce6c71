"""``zloutch simulate``: play many games of bots and report win rates, scores and seats.

The games are played by ``zloutch.sim`` (the engine or the compiled fast path, here or on a
Ray cluster) under a progress bar; the result document is rendered as Rich tables and can be
written as JSON (``--json``) and CSV (``--csv``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Annotated, Any

import typer

from zloutch.adapters.cli.support import (
    DEFAULT_RULES,
    EXIT_INTERRUPTED,
    RulesOption,
    check_outputs,
    console,
    fewer_collections,
    off_terminal,
    progress_bar,
    user_errors,
    warnings_as_lines,
    write_output,
)


def simulate(
    rules_spec: RulesOption = DEFAULT_RULES,
    players: Annotated[
        str,
        typer.Option(
            "--players",
            "-p",
            metavar="BOTS",
            help="The bots, comma-separated: random, cautious, threshold:N, greedy, bold "
            "(bold:N), expert, optimal, or a level as at the table: beginner, easy, medium, "
            "strong, best (e.g. expert,threshold:300).",
        ),
    ] = "expert,threshold:300",
    games: Annotated[
        int, typer.Option("--games", "-n", metavar="N", help="Number of games.")
    ] = 1000,
    seed: Annotated[
        int, typer.Option("--seed", metavar="N", help="The seed: same seed, same result.")
    ] = 0,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Processes to use (default and most: the CPUs this process may use).",
        ),
    ] = None,
    json_file: Annotated[
        str | None,
        typer.Option(
            "--json",
            metavar="FILE",
            help="Write the result document (JSON) to FILE; '-' prints it instead of the tables.",
        ),
    ] = None,
    csv_file: Annotated[
        str | None,
        typer.Option(
            "--csv",
            metavar="FILE",
            help="Write one row per player (CSV) to FILE; '-' prints it instead of the tables.",
        ),
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
            "(bots: cautious, threshold:N, greedy, bold, expert, optimal; every preset; not a "
            "penalty where the score changes the turn); auto: fast where it can.",
        ),
    ] = "auto",
    backend: Annotated[
        str,
        typer.Option(
            "--backend",
            metavar="local|ray",
            help="local: this machine; ray: the same games as Ray tasks on a cluster "
            "(pip install 'zloutch\\[ray]'), with the same result for the same seed.",
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            "--address",
            metavar="ADDR",
            help="With --backend ray: the cluster (auto, HOST:PORT of its head, or "
            "ray://HOST:10001); "
            "default: a Ray instance started on this machine for the run.",
        ),
    ] = None,
) -> None:
    """Play many games of bots and report win rates (95% intervals), scores and seats.

    Seats rotate fairly (game g starts with player g mod n); every game is seeded from the
    seed and its index, so the result is the same for any --jobs. The fast path plays other
    dice than the engine for the same seed: the two agree in distribution, not game by game.
    """
    with user_errors():  # before the games, and before the second their modules take
        check_outputs(("--json", json_file), ("--csv", csv_file))
        if json_file == "-" and csv_file == "-":
            from zloutch.rules import ZloutchError

            raise ZloutchError("--json - and --csv - both print to standard output: choose one")
        if json_file is not None and json_file != "-" and json_file == csv_file:
            from zloutch.rules import ZloutchError

            raise ZloutchError(
                f"--json {json_file} and --csv {csv_file}: one file, the second would replace "
                "the first: give each its own"
            )
        if quiet and json_file is None and csv_file is None:
            from zloutch.rules import ZloutchError

            raise ZloutchError("--quiet leaves nothing to show: add --json FILE or --csv FILE")
    printed = "-" in (json_file, csv_file)  # the document on stdout, in place of the tables

    from zloutch.app.store import cached_fast_games, load_game_solution
    from zloutch.engine.endings import load_rules
    from zloutch.sim import SimulationError, default_jobs
    from zloutch.sim import simulate as run_simulation

    with user_errors(), warnings_as_lines(), fewer_collections():
        rules = load_rules(rules_spec)
        names = [name.strip() for name in players.split(",")]
        if not players.strip() or any(not name for name in names):
            raise SimulationError(f"--players needs bot names separated by commas: {players!r}")
        if games < 1:
            raise SimulationError(f"--games must be at least 1, not {games}")
        if jobs is not None and backend.strip().lower() == "ray":
            raise SimulationError("--jobs is for --backend local: Ray spreads the games itself")
        if jobs is not None and jobs < 1:
            raise SimulationError(f"--jobs must be at least 1, not {jobs}")
        workers = default_jobs() if jobs is None else min(jobs, default_jobs())
        if jobs is not None and jobs > workers:
            typer.echo(
                f"note: --jobs {jobs}: this process may use {workers} CPU"
                f"{'s' if workers > 1 else ''}, so {workers} "
                f"{'play' if workers > 1 else 'plays'} the games (the results are the same "
                "for any --jobs)",
                err=True,
            )
        policies = _policies(rules, names, quiet=quiet)
        result = _interruptible(
            lambda progress, status: run_simulation(
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
                status=status,
                tables=cached_fast_games,
            ),
            games,
            quiet=quiet,
        )
        if result is None:  # Ctrl-C before any chunk of games was done
            typer.echo("Interrupted: no game finished yet.", err=True)
            raise typer.Exit(EXIT_INTERRUPTED)
        interrupted = result.games < games
        document = result.to_json()
        document["jobs"] = workers
        document["policies"] = policies
        if interrupted:
            document["interrupted"] = True
            typer.echo(
                f"Interrupted: the results of the {result.games:,} games played of {games:,}.",
                err=True,
            )
        if json_file is not None:
            _output(json_file, json.dumps(document, indent=2) + "\n")
        if csv_file is not None:
            _output(csv_file, simulation_csv(document))
    if not quiet and not printed:
        render_simulation(document, names)
    if interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)


def _output(path: str, text: str) -> None:
    """``text`` to the file at ``path``, or on standard output where ``path`` is ``-``."""
    if path == "-":
        typer.echo(text, nl=False)
    else:
        write_output(path, text)


def _policies(rules: Any, names: list[str], *, quiet: bool) -> list[str]:
    """What each seat really plays: ``optimal`` (and the ``best`` level) solves its game
    first, under a progress bar, or is refused in one line where it cannot play its name's
    policy; the other bots are what they are named."""
    from zloutch.strategy.bots import make_bot

    words: dict[str, str] = {}
    shown = []
    for name in names:
        bot = make_bot(name)
        if bot.name == "optimal" and "optimal" not in words:
            # Imported here: the game solver's module loads in a fifth of a second, which a
            # simulation without optimal need not wait for.
            from zloutch.app.solve import optimal_policy

            with progress_bar(
                "Solving the game for optimal", "score levels", disable=quiet or off_terminal()
            ) as progress:
                words["optimal"], _ = optimal_policy(rules, len(names), progress=progress)
        shown.append(words["optimal"] if bot.name == "optimal" else bot.name)
    return shown


def _interruptible(run: Any, games: int, *, quiet: bool) -> Any:
    """``run`` under the progress bar; on Ctrl-C the games finished by then (None: none)."""
    from zloutch.sim.parallel import SimulationInterrupted

    try:
        return _simulate_with_progress(run, games, quiet=quiet)
    except SimulationInterrupted as stop:
        return stop.partial
    except KeyboardInterrupt:  # the fast path and Ray keep no partial tally
        return None


def _simulate_with_progress(run: Any, games: int, *, quiet: bool) -> Any:
    """``run(progress, status)`` under a progress bar on stderr (games done, games per
    second); what the run waits for before its first games (``status``) is shown in place of
    the rate until they come. Quiet, there is no bar, and Rich is not imported (0.035 s of
    a short run)."""
    if quiet:
        return run(None, None)
    from rich.console import Console
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
        disable=off_terminal(),  # no bar, and no blank line, in a pipe or a log
        transient=True,
    ) as bar:
        task = bar.add_task("simulate", total=games, rate="")
        begin = time.perf_counter()

        def progress(done: int) -> None:
            seconds = time.perf_counter() - begin
            rate = f"{done / seconds:,.0f} games/s" if seconds > 0 else ""
            bar.update(task, completed=done, rate=rate)

        def status(text: str) -> None:
            bar.update(task, rate=text)

        return run(progress, status)


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


def percent(rate: float | Decimal, *, sign: bool = False, symbol: bool = True) -> str:
    """A rate as a percentage to a tenth, rounded from its decimal digits (0.5185 is
    51.85%, not the binary 0.51849999...) half to even: a rate and its complement always
    add up to 100.0% (51.8% and 48.2%, not 51.8% and 48.1%), and +x and -x read alike."""
    exact = rate if isinstance(rate, Decimal) else Decimal(repr(rate))
    shown = (exact * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_EVEN)
    if shown == 0:
        shown = abs(shown)  # no "-0.0%"
    text = f"{shown:+}" if sign else f"{shown}"
    return f"{text}%" if symbol else text


def advantage(rate: float, seats: int) -> Decimal:
    """A seat's rate less a fair share, from the rate's decimal digits: the document's
    ``advantage`` is the binary difference (0.5185 - 0.5 = 0.01849999...), which
    ``percent`` would show +1.8% against the other seat's -1.9%."""
    return Decimal(repr(rate)) - Decimal(1) / seats


def render_simulation(document: dict[str, Any], asked: Sequence[str] = ()) -> None:
    """The tables of a simulation; ``asked``: the players as typed, whose levels (``medium``)
    are said with the bot each one is, as the tables name the bots."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from zloutch.strategy.bots import LEVELS

    out = console()
    finished, games = document["finished"], document["games"]
    head = f"{escape(document['rules'])}: {games:,} games, seed {document['seed']}"
    if document.get("interrupted"):
        head += " (interrupted: the games played until Ctrl-C)"
    if finished != games:
        head += f" ({games - finished:,} unfinished at {document['max_turns']:,} turns)"
    way = {"fast": "on the fast path", "engine": "through the engine"}.get(
        document.get("method", "")
    )
    if way:  # what --method auto took
        head += f"; played {way}"
    out.print(head)
    # The counts that these rules can make: a column of zeros says nothing.
    extras = [
        (key, title)
        for key, title in (("ticks", "Tick"), ("bumps", "Bump"), ("take_backs", "Take"))
        if any(p["per_game"][key] for p in document["players"])
    ]
    caption = "Score: average final score; Bank: average bank; Farkle: farkled turns"
    if extras:
        caption += "; " + ", ".join(t for _, t in extras) + ": per game"  # as headed
    table = Table(
        title="Players",
        caption=caption,
        caption_justify="left",  # centred, a narrow terminal broke it mid-phrase
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,  # two columns more: at 80 the last figure was cut ("12.…")
        padding=0,  # the box puts a space between columns: one more each cost 10 at 80
    )
    rows = []
    for p in document["players"]:
        low, high = p["win_rate_ci95"]
        rows.append(
            (
                percent(p["win_rate"]),
                f"{percent(low, symbol=False)}-{percent(high)}",
                f"{p['average_score']:,.0f}",
                f"{p['average_turns']:.1f}",
                f"{p['farkle_rate']:.0%}",
                f"{p['average_bank']:,.0f}",
                *(f"{p['per_game'][key]:.2f}" for key, _ in extras),
            )
        )
    # Under 80 columns the widest cells fold onto a second line (a long name first): a
    # figure is never cut ("12.…") nor a column cropped.
    # A name whole, never folded: "threshold:1000" folded read as a bot "threshold:100"
    longest = max((len(p["name"]) for p in document["players"]), default=8)
    table.add_column("Player", min_width=max(8, longest), no_wrap=True)
    for name in ("Wins", "95% CI", "Score", "Turns", "Farkle", "Bank", *(t for _, t in extras)):
        table.add_column(name, justify="right", overflow="fold")
    for p, row in zip(document["players"], rows, strict=True):
        table.add_row(escape(p["name"]), *row)
    out.print(table)
    seats = Table(title="Seats (seat 1 plays first)", box=box.SIMPLE_HEAD, pad_edge=False)
    for name in ("Seat", "Win rate", "95% interval", "vs fair share"):
        seats.add_column(name, justify="right")
    for s in document["seats"]:
        low, high = s["win_rate_ci95"]
        seats.add_row(
            str(s["seat"]),
            percent(s["win_rate"]),
            f"{percent(low, symbol=False)}-{percent(high)}",  # as the players' table writes it
            percent(advantage(s["win_rate"], len(document["seats"])), sign=True),
        )
    out.print(seats)
    levels = dict.fromkeys(
        f"{key} is the {LEVELS[key]} bot"
        for key in (name.strip().lower().removeprefix("bot:") for name in asked)
        if key in LEVELS
    )
    if levels:
        out.print(f"The levels: {'; '.join(levels)}.")
    played = sorted({words for words in document.get("policies", ()) if words.startswith("the ")})
    for words in played:  # what optimal really played: a solved game, or a model of it
        out.print(f"optimal played {escape(words)}.", soft_wrap=False, overflow="fold")
