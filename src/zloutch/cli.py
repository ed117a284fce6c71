"""The ``zloutch`` command line: parse input, call ``zloutch.rules``, render the result.

No rule lives here. Each command is a small function that reads its arguments, asks the core,
and hands the answer to a renderer (``render_*``: Rich tables for people, ``*_json`` for
programs). Every ``ZloutchError`` is caught at the edge (``user_errors``) and printed as one
``error: ...`` line on stderr with exit code 2.

To add a command: write it under "commands" with ``@app.command()`` (or on a sub-app added
with ``app.add_typer``), take the rule set with the shared ``RulesOption``, wrap its body in
``with user_errors():``, and keep its rendering in a ``render_*`` function.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from zloutch import __version__
from zloutch.rules import (
    NO_CONTEXT,
    OPTIONS,
    PRESETS,
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
from zloutch.rules import ruleset as ruleset_module

EXIT_USER_ERROR = 2
"""Exit code of every mistake in the input (a bad face, a bad rule spec): the usage code."""

DEFAULT_RULES = "dix-mille"

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


# ---------------------------------------------------------------------------- the edge


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn a ``ZloutchError`` into one ``error: ...`` line on stderr and exit code 2."""
    try:
        yield
    except ZloutchError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USER_ERROR) from None


def console() -> Console:
    """A console on the current stdout (made per call so test runners can capture it)."""
    return Console(highlight=False)


RulesOption = Annotated[
    str,
    typer.Option(
        "--rules",
        "-r",
        metavar="SPEC",
        help=(
            "The rule set: a preset name or a .toml rule file, optionally with options, "
            "e.g. 'dix-mille(bump=any,entry=800,joker)'. See: zloutch rules list."
        ),
    ),
]


# ---------------------------------------------------------------------------- input


def read_faces(tokens: Sequence[str], *, max_dice: int) -> Dice:
    """Faces as a person types them: separate ("1 1 5") or packed ("115")."""
    for token in tokens:
        if token.startswith("--"):
            raise InvalidDiceError(f"unknown option {token!r} (see --help)")
    return parse_dice(list(tokens), max_dice=max_dice)


def count_dice(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


def read_context(rules: RuleSet, set_aside: str | None, throw: Dice) -> HandContext:
    """The hand context from ``--set-aside``; set aside + thrown must be the whole hand."""
    if set_aside is None:
        return NO_CONTEXT
    try:
        aside = parse_dice(set_aside, max_dice=rules.dice)
    except InvalidDiceError as exc:
        raise InvalidDiceError(f"--set-aside: {exc}") from None
    total = len(aside) + len(throw)
    if throw and total != rules.dice:
        raise InvalidDiceError(
            f"{count_dice(len(aside))} set aside and {len(throw)} thrown make {total}, "
            f"but {rules.name} has {rules.dice} dice: together they must make the whole hand"
        )
    return HandContext.from_set_aside(aside)


# ---------------------------------------------------------------------------- score


def ordered_keeps(score: ThrowScore) -> list[Keep]:
    """The legal keeps by points, highest first, as the JSON contract says.

    Ties keep the core's best-first order. The core puts a keep that wins the game (G-5,
    worth 0 points) first; here it goes by its points, and ``"wins"`` marks it.
    """
    return sorted(score.keeps, key=lambda keep: -keep.points)


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
    """The ``--json`` object of ``zloutch score`` (a contract: add keys, never rename)."""
    keeps = ordered_keeps(score)
    return {
        "rules": rules.spec,
        "throw": list(score.throw),
        "set_aside": list(context.set_aside),
        "farkle": score.farkle,
        "best": keeps[0].points if keeps else 0,
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
        out.print(f"best: keep {format_dice(best.dice)}: it wins the game at once")
    else:
        out.print(f"best: keep {format_dice(best.dice)} for {best.points}")


# ---------------------------------------------------------------------------- rules


_RULE_ID = re.compile(r"[STGVF]-\d+(?:\s*(?:\.\.|,|/)\s*[STGVF]-\d+)*")
_LEADING_ID = re.compile(rf"^(?P<id>{_RULE_ID.pattern})(?P<reading> Reading)?(?: option)?:\s*")


@lru_cache(maxsize=1)
def option_docs() -> dict[str, str]:
    """The attribute docstring of every rule field, read from the rule set's source.

    The core keeps what each option means next to its field; Python does not store
    attribute docstrings, so they are read back from the source (empty if it is absent).
    """
    try:
        tree = ast.parse(inspect.getsource(ruleset_module))
    except (OSError, TypeError):  # pragma: no cover - only without the source files
        return {}
    sections = {cls.__name__ for cls in ruleset_module.SECTIONS.values()}
    docs: dict[str, str] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or node.name not in sections:
            continue
        for field, after in zip(node.body, node.body[1:], strict=False):
            if (
                isinstance(field, ast.AnnAssign)
                and isinstance(field.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[field.target.id] = " ".join(after.value.value.split())
    return docs


def option_meaning(name: str) -> tuple[str, str]:
    """An option's rule ids (``"T-5"``, ``"G-4 Reading"``; ``""`` if none) and meaning."""
    doc = option_docs().get(name, "").replace("``", "")
    leading = _LEADING_ID.match(doc)
    if leading:
        rule_id = leading["id"] + (leading["reading"] or "")
        doc = doc[leading.end() :]
    else:
        rule_id = ", ".join(dict.fromkeys(_RULE_ID.findall(doc)))
    return rule_id, doc[:1].upper() + doc[1:]


def format_value(value: object) -> str:
    if value is True:
        return "on"
    if value is False:
        return "off"
    return str(value)


def format_target(rules: RuleSet) -> str:
    target = f"{rules.game.target:,}"
    return f"exactly {target}" if rules.game.exact_target else f"{target} or more"


def presets_table() -> Table:
    table = Table(title="Preset rule sets", title_justify="left")
    table.add_column("name", no_wrap=True)
    table.add_column("dice", justify="right")
    table.add_column("target", no_wrap=True)
    table.add_column("summary")
    for name in PRESETS:
        rules = load_rules(name)
        table.add_row(name, str(rules.dice), format_target(rules), escape(rules.summary))
    return table


def kinds_table(rules: RuleSet) -> Table:
    """Three to six of a kind: the rule as written, and its value for every face."""
    table = Table(title="n of a kind (S-3..S-6, S-11)", title_justify="left")
    table.add_column("count")
    table.add_column("rule")
    for face in range(1, 7):
        table.add_column(f"{face}s", justify="right")
    values = rules.kinds_values()
    written = {kind.count: kind for kind in rules.scoring.kinds}
    for count, word in ruleset_module.KIND_WORDS.items():
        if count > rules.dice:
            continue
        kind = written.get(count)
        if kind is None:
            rule = "not a combination"
        else:
            rule = kind.default
            rule += "".join(f"; {face}s: {face_rule}" for face, face_rule in kind.faces)
        cells = []
        for face in range(1, 7):
            value = values.get((count, face))
            cells.append("-" if value is None else "wins" if value == "win" else str(value))
        table.add_row(f"{word} of a kind", escape(rule), *cells)
    return table


def combinations_table(rules: RuleSet) -> Table:
    """Every other combination of the rule set, with its points."""
    s, v = rules.scoring, rules.variants
    rows: list[tuple[str, ...]] = []

    def add(*cells: str) -> None:
        rows.append(cells)

    for face, points in s.singles:
        add(f"single {face}", str(face), str(points), "")
    for pattern in s.patterns:
        note = f"only when exactly {pattern.thrown} dice are thrown" if pattern.thrown else ""
        add(escape(pattern.name), format_dice(pattern.faces), str(pattern.points), note)
    if s.three_pairs:
        also = [
            text
            for on, text in (
                (s.four_and_pair_as_three_pairs, "four of a kind + a pair"),
                (s.six_of_a_kind_as_three_pairs, "six of a kind"),
            )
            if on
        ]
        note = f"also counted: {', '.join(also)}" if also else ""
        add("three pairs", "six dice", str(s.three_pairs), note)
    if s.four_and_pair:
        add("four of a kind + a pair", "six dice", str(s.four_and_pair), "")
    if s.two_triplets:
        add("two triplets", "six dice", str(s.two_triplets), "")
    if s.full_house == "sum":
        formula = f"three + {s.full_house_pair} x pair"
        add("full house", "three + a pair", formula, "S-13, a full hand")
    elif s.full_house == "times":
        add("full house", "three + a pair", "three x pair", "S-14, a full hand")
    if v.four_two_one:
        add("421", "4 2 1", "2000", "S-15: exactly three dice thrown, a full hand")
    if v.straights_over_throws:
        add("straight over throws", "with 1 / 2 set aside", "500 / 300", "V-6, a full hand")
    if v.multiples_over_throws:
        add(
            "multiple over throws",
            "a later die of it",
            "doubles it",
            f"V-7; a later pair: {s.full_house_pair} x face",
        )
    if s.no_score_bonus:
        add("no-score bonus", f"all {rules.dice} dice", str(s.no_score_bonus), "F-2: throw again")
    notes = any(row[-1] for row in rows)
    table = Table(title="Combinations", title_justify="left")
    table.add_column("combination")
    table.add_column("dice")
    table.add_column("points", justify="right")
    if notes:
        table.add_column("note")
    for row in rows:
        table.add_row(*(row if notes else row[:-1]))
    return table


def options_table(rules: RuleSet, section: str, title: str) -> Table:
    """The options of one section: rule id, name, value (``*`` = switched by the spec)."""
    switched = {name for name, _ in rules.options}
    table = Table(title=title, title_justify="left")
    table.add_column("rule", no_wrap=True)
    table.add_column("option", no_wrap=True)
    table.add_column("value", no_wrap=True)
    table.add_column("meaning")
    for name, (where, _) in OPTIONS.items():
        if where != section:
            continue
        rule_id, meaning = option_meaning(name)
        value = format_value(rules.option(name)) + (" *" if name in switched else "")
        table.add_row(rule_id, name, value, escape(meaning))
    return table


def render_rules(rules: RuleSet) -> None:
    out = console()
    out.print(f"[bold]{escape(rules.name)}[/]: {escape(rules.summary)}")
    out.print(f"dice: {rules.dice}    target: {format_target(rules)}")
    out.print(f"spec: {escape(rules.spec)}")
    out.print()
    out.print(combinations_table(rules))
    out.print(kinds_table(rules))
    out.print(options_table(rules, "scoring", "Scoring and keep rules"))
    out.print(options_table(rules, "turn", "Turn rules"))
    out.print(options_table(rules, "game", "Game rules"))
    out.print(options_table(rules, "variants", "Variants"))
    if rules.options:
        out.print("* switched by the spec")
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
        str | None,
        typer.Option(
            "--set-aside",
            "-s",
            metavar="FACES",
            help=(
                "Dice already set aside in this hand (e.g. 1 or '1 5'), for the variants "
                "that score across throws (V-6, V-7). Set aside and thrown dice must make "
                "the whole hand."
            ),
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of a table.")
    ] = False,
) -> None:
    """Show every legal keep of a throw, best first, with its combinations and points."""
    with user_errors():
        rules = load_rules(rules_spec)
        throw = read_faces(faces or [], max_dice=rules.dice)
        context = read_context(rules, set_aside, throw)
        result = score_throw(rules, throw, context)
    if as_json:
        typer.echo(json.dumps(score_json(rules, result, context)))
    else:
        render_score(rules, result, context)


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


def main() -> None:
    """The ``zloutch`` console script."""
    app()
