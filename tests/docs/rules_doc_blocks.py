"""The parts of docs/rules.md written from the rule data: the options, and what each preset sets.

Between ``<!-- begin NAME -->`` and ``<!-- end NAME -->`` the page holds exactly what
``BLOCKS[NAME]()`` writes; the tests compare them, and only ``python scripts/regen_rules_doc.py``
rewrites them. Everything else on the page is written by hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from zloutch.rules import OPTIONS, PRESETS, RuleSet, load_rules
from zloutch.rules.ruleset import KIND_WORDS, OptionInfo, format_option

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"

SECTION_TITLES = {
    "scoring": "`[scoring]`",
    "turn": "`[turn]`",
    "game": "`[game]`",
    "variants": "`[variants]`",
}


def _values(info: OptionInfo) -> str:
    if info.kind == "bool":
        return "on / off"
    if info.kind == "int":
        return "whole number"
    return " / ".join(info.choices)


def _default(info: OptionInfo) -> str:
    if isinstance(info.default, bool):
        return "on" if info.default else "off"
    return str(info.default)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def options_block() -> str:
    """One table of every option, in the order of the sections, from ``OPTIONS``."""
    lines = [
        "| option | under | values | default | rule | meaning |",
        "|---|---|---|---|---|---|",
    ]
    for name, info in OPTIONS.items():
        lines.append(
            f"| `{name}` | {SECTION_TITLES[info.section]} | {_values(info)} | "
            f"{_default(info)} | {info.rule} | {_cell(info.meaning)} |"
        )
    return "\n".join(lines)


def _kinds(rules: RuleSet) -> str:
    parts = []
    for kind in sorted(rules.scoring.kinds, key=lambda k: k.count):
        text = f"{KIND_WORDS[kind.count]} of a kind {kind.default}"
        text += "".join(f", {face}s {rule}" for face, rule in kind.faces)
        parts.append(text)
    return "; ".join(parts) or "none"


def _scoring(rules: RuleSet) -> str:
    parts = [", ".join(f"single {face} = {points}" for face, points in rules.scoring.singles)]
    parts.append(_kinds(rules))
    parts += [f"{pattern.name} = {pattern.points}" for pattern in rules.scoring.patterns]
    return "; ".join(part for part in parts if part)


_OWN_COLUMNS = {"target", "exact_target", "full_hand"}


def _options(rules: RuleSet) -> str:
    changed = [
        format_option(name, value).replace("=", " = ")
        for name, value in rules.option_values().items()
        if value != OPTIONS[name].default and name not in _OWN_COLUMNS
    ]
    return ", ".join(f"`{text}`" for text in changed) or "none"


def presets_block() -> str:
    """What every preset sets: dice, target, full hand, scoring, and its other options."""
    lines = [
        "| preset | dice | target | full hand | scoring | other options it sets |",
        "|---|---|---|---|---|---|",
    ]
    for name in PRESETS:
        rules = load_rules(name)
        target = f"{'exactly' if rules.game.exact_target else 'at least'} {rules.game.target}"
        lines.append(
            f"| `{name}` | {rules.dice} | {target} | {rules.turn.full_hand} | "
            f"{_cell(_scoring(rules))} | {_cell(_options(rules))} |"
        )
    return "\n".join(lines)


BLOCKS: dict[str, Callable[[], str]] = {"options": options_block, "presets": presets_block}


def block_pattern(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"(<!-- begin {name} -->\n)(.*?)(\n<!-- end {name} -->)",
        re.DOTALL,
    )


def written_block(text: str, name: str) -> str | None:
    """The text between the markers of block ``name`` on the page, or None without them."""
    found = block_pattern(name).search(text)
    return None if found is None else found[2]


def rewrite(text: str) -> str:
    """The page with every generated block written afresh from the data."""
    for name, make in BLOCKS.items():
        text = block_pattern(name).sub(lambda m, make=make: m[1] + make() + m[3], text)
    return text
