"""``zloutch score``: every legal keep of a throw with its points, and ``--advise``.

A light command: it needs the rules and a Rich table; the strategy (the turn solver) is
imported only with ``--advise`` (see ``zloutch.adapters.cli.support`` on imports).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zloutch.adapters.cli.support import DEFAULT_RULES, RulesOption, console, user_errors

if TYPE_CHECKING:
    from zloutch.app.throw_advice import ThrowAdvice
    from zloutch.rules import Dice, HandContext, RuleSet, ScoredKeep, ThrowScore

# ---------------------------------------------------------------------------- input


def read_faces(tokens: Sequence[str], *, max_dice: int) -> Dice:
    """Faces as a person types them: separate ("1 1 5") or packed ("115")."""
    from zloutch.rules import InvalidDiceError, parse_dice

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
    from zloutch.rules import NO_CONTEXT, HandContext, InvalidDiceError, parse_dice

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


def keep_json(keep: ScoredKeep) -> dict[str, Any]:
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


def describe_combinations(keep: ScoredKeep) -> str:
    return " + ".join(
        f"{c.name} (wins the game)" if c.wins else f"{c.name} {c.points}" for c in keep.combinations
    )


def render_score(
    rules: RuleSet, score: ThrowScore, context: HandContext, *, advised: bool = False
) -> None:
    """The keeps of a throw; ``advised``: the advice follows, and it alone says "best"."""
    """The keeps as a table in the core's best-first order (a keep that wins comes first)."""
    from rich.markup import escape
    from rich.table import Table

    from zloutch.rules import format_dice

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
    elif advised:  # the most points now, which the advice below may not take
        out.print(f"most points: keep {format_dice(best.dice)} for {best.points}")
    else:
        out.print(f"best: keep {format_dice(best.dice)} for {best.points}")


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
        typer.Option(
            "--total",
            min=0,
            metavar="POINTS",
            help="With --advise: the turn total before this throw.",
        ),
    ] = None,
    banked: Annotated[
        int | None,
        typer.Option(
            "--score", min=0, metavar="POINTS", help="With --advise: the player's banked score."
        ),
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
            metavar="N",
            help=(
                "With --advise, under the consecutive-farkle penalty (F-1): the player's "
                "farkles in a row so far."
            ),
        ),
    ] = None,
    opponent: Annotated[
        int | None,
        typer.Option(
            "--opponent",
            min=0,
            metavar="POINTS",
            help=(
                "With --advise: the opponent's banked score; the advice is then the game "
                "solver's, in the chance to win (two players; the game is solved first if "
                "it is not in the cache)."
            ),
        ),
    ] = None,
) -> None:
    """Show every legal keep of a throw, best first, with its combinations and points."""
    # A throw is scored by the rules alone: whether the game can end is not asked here.
    from zloutch.rules import ZloutchError, load_rules, score_throw

    with user_errors():
        given = {
            "--total": total is not None,
            "--score": banked is not None,
            "--not-entered": not_entered,
            "--farkles": farkles is not None,
            "--opponent": opponent is not None,
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
        advice: ThrowAdvice | None = None
        if advise:  # the turn solver, only when asked for
            from zloutch.adapters.cli.support import solved_game_with_progress
            from zloutch.app.throw_advice import advise_typed_throw

            advice = advise_typed_throw(
                rules,
                throw,
                result,
                context,
                total=total or 0,
                entered=not not_entered,
                score=banked or 0,
                farkles=farkles or 0,
                opponent=opponent,
                solved=solved_game_with_progress,
            )
    if as_json:
        document = score_json(rules, result, context)
        if advice is not None:
            document["advice"] = {**advice_json(advice), "note": advice.note}
        typer.echo(json.dumps(document))
    else:
        render_score(rules, result, context, advised=advice is not None)
        if advice is not None:
            render_advice(advice)
            if advice.note:
                console().print(f"Note: {advice.note}")
        from zloutch.rules.loader import dropped_from_base

        for note in dropped_from_base(rules):  # a table that dropped its base's: said here too
            typer.echo(f"note: {note}", err=True)


def advice_json(advice: ThrowAdvice) -> dict[str, Any]:
    keeps = [
        {"dice": list(k.dice), "points": k.points, "value": k.value, "then": k.then}
        for k in advice.keeps
    ]
    return {
        "total": advice.total,
        "objective": advice.objective,
        "keeps": keeps,
        "best": keeps[0] if keeps else None,
    }


def render_advice(throw_advice: ThrowAdvice) -> None:
    from rich.table import Table

    from zloutch.app.shown import percent
    from zloutch.rules import format_dice
    from zloutch.strategy.expert import POINTS, WIN_PROBABILITY

    out = console()
    total, advice, objective = throw_advice.total, throw_advice.keeps, throw_advice.objective
    if not advice:
        out.print(f"No keep: the turn total of {total} is lost: {throw_advice.why_none}.")
        return
    win = objective == WIN_PROBABILITY
    what = {POINTS: "expected points banked by the turn", WIN_PROBABILITY: "chance to win"}.get(
        objective, "long-run value, F-1"
    )
    table = Table(title=f"Advice at a turn total of {total} ({what})")
    table.add_column("keep")
    table.add_column("points", justify="right")
    table.add_column("value", justify="right")
    table.add_column("then")
    for i, k in enumerate(advice):
        mark = "best: " if i == 0 else ""
        then = {
            "bank": "bank",
            "throw": "throw again",
            "over": "turn over (T-9)",
            "win": "the game is won",
        }[k.then]
        points = "wins" if k.then == "win" else str(k.points)
        value = percent(k.value, 2) if win else f"{k.value:.1f}"
        table.add_row(mark + format_dice(k.dice), points, value, then)
    out.print(table)
    best = advice[0]
    if best.then == "win":
        out.print(f"Best: keep {format_dice(best.dice)}: it wins the game at once (G-5).")
    else:
        after = "bank" if best.then == "bank" else "throw again"
        out.print(f"Best: keep {format_dice(best.dice)}, then {after}.")
    if objective not in (POINTS, WIN_PROBABILITY):
        out.print(
            "Values for the long run (F-1): the points the turn banks, plus what the count of "
            "farkles in a row it leaves is worth in the turns to come."
        )
