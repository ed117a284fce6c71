"""Writing rule sets: the canonical TOML rule file of any rule set (``to_toml``)."""

from __future__ import annotations

import dataclasses

from zloutch.rules.ruleset import RuleSet


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return _toml_string(str(value))


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out: list[str] = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char != "\t" and (ord(char) < 0x20 or ord(char) == 0x7F):
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _kind_value(rule: str) -> str:
    return rule if rule.isdigit() else _toml_value(rule)


def to_toml(rules: RuleSet) -> str:
    """The canonical rule file of a rule set: every key written, loads back equal (a rule
    set built in code as the loader would give it: ``settled``, an option that cannot act at
    its default, which the loader would refuse written otherwise)."""
    rules = rules.settled()
    lines = [
        "[rules]",
        f"name = {_toml_value(rules.name)}",
        f"summary = {_toml_value(rules.summary)}",
        f"dice = {rules.dice}",
        "",
        "[scoring]",
        "singles = { " + ", ".join(f"{f} = {p}" for f, p in rules.scoring.singles) + " }",
    ]
    for f in dataclasses.fields(rules.scoring):
        if f.name not in ("singles", "kinds", "patterns"):
            lines.append(f"{f.name} = {_toml_value(getattr(rules.scoring, f.name))}")
    lines += ["", "[scoring.kinds]"]
    for kind in rules.scoring.kinds:
        if kind.faces or kind.thrown:
            parts = [f"default = {_kind_value(kind.default)}"]
            parts += [f"{face} = {_kind_value(rule)}" for face, rule in kind.faces]
            parts += [f"thrown = {kind.thrown}"] if kind.thrown else []
            lines.append(f"{kind.count} = {{ " + ", ".join(parts) + " }")
        else:
            lines.append(f"{kind.count} = {_kind_value(kind.default)}")
    for pattern in rules.scoring.patterns:
        lines += [
            "",
            "[[scoring.patterns]]",
            f"name = {_toml_value(pattern.name)}",
            f"faces = [{', '.join(map(str, pattern.faces))}]",
            f"points = {pattern.points}",
        ]
        if pattern.thrown:
            lines.append(f"thrown = {pattern.thrown}")
    for section in ("turn", "game", "variants"):
        part = getattr(rules, section)
        lines += ["", f"[{section}]"]
        for f in dataclasses.fields(part):
            lines.append(f"{f.name} = {_toml_value(getattr(part, f.name))}")
    return "\n".join(lines) + "\n"
