"""``zloutch rules list|show``: the presets, and every combination and rule of a rule set."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from zloutch.adapters.cli.support import Command, Group, console, user_errors

if TYPE_CHECKING:
    from zloutch.rules import RuleSet

rules_app = typer.Typer(
    cls=Group,
    help="List the preset rule sets, or show every combination and rule of one.",
    no_args_is_help=True,
)


# ---------------------------------------------------------------------------- rules


def render_rules(rules: RuleSet) -> None:
    from rich.markup import escape

    from zloutch.console.render import rules_renderables

    out = console()
    for part in rules_renderables(rules):
        out.print(part)
    out.print(
        "Switch any option by name: "
        + escape(f"zloutch rules show '{rules.source or rules.name}(option=value,...)'")
    )


@rules_app.command("list", cls=Command)
def rules_list() -> None:
    """List the preset rule sets: name, dice, target and a one-line summary."""
    from zloutch.console.render import presets_table

    with user_errors():
        table = presets_table()
    console().print(table)
    console().print("Details: zloutch rules show NAME")


@rules_app.command("show", cls=Command)
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
    from zloutch.engine.endings import load_rules
    from zloutch.rules import to_toml
    from zloutch.rules.loader import dropped_from_base

    with user_errors():
        rules = load_rules(spec)
    if as_toml:
        typer.echo(to_toml(rules), nl=False)
    else:
        render_rules(rules)
        for note in dropped_from_base(rules):
            typer.echo(f"note: {note}", err=True)
