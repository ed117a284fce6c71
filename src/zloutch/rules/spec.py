"""Spec strings: ``name(option=value,...)`` read into parts, and written back.

Loading a spec, switching options and naming a rule set by its canonical spec are in the
loader (``load_rules``, ``with_options``, ``canonical_spec``), which knows the presets.
"""

from __future__ import annotations

import dataclasses

from zloutch.rules.errors import InvalidRulesError, excerpt
from zloutch.rules.ruleset import OPTIONS, OptionValue, RuleSet, format_option, option_kind
from zloutch.rules.values import _choice, _number_text, unknown_option


def split_spec(spec: str) -> tuple[str, list[tuple[str, str | None]]]:
    """Split ``name(a=1,b)`` into the source and its raw options."""
    text = spec.strip()
    if not text:
        raise InvalidRulesError("the rule spec is empty: give a preset name or a rule file")
    if not text.endswith(")"):
        if "(" in text and ")" not in text:
            raise InvalidRulesError(f"missing ')' in {excerpt(spec)}")
        return text, []
    open_at = text.rfind("(", 0, text.rfind(")"))
    if open_at <= 0:
        raise InvalidRulesError(
            f"cannot read the spec {excerpt(spec)}: write name(option=value,...)"
        )
    source, inner = text[:open_at].strip(), text[open_at + 1 : -1]
    options: list[tuple[str, str | None]] = []
    if not inner.strip():
        return source, options  # name() is the name alone
    for part in inner.split(","):
        part = part.strip()
        if not part:
            raise InvalidRulesError(
                f"an empty option in {excerpt(spec)}: remove the extra comma, or name an option"
            )
        name, eq, value = part.partition("=")
        name = name.strip().replace("-", "_")
        if not name:
            raise InvalidRulesError(f"an option with no name in {excerpt(spec)}: write name=value")
        options.append((name, value.strip() if eq else None))
    return source, options


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def parse_option_value(name: str, raw: str | None) -> OptionValue:
    """Read an option value written in a spec; ``None`` (a bare name) means true."""
    if name not in OPTIONS:
        raise InvalidRulesError(unknown_option(name, sorted(OPTIONS)), name)
    kind = option_kind(name)
    if raw is None:
        if kind == "bool":
            return True
        raise InvalidRulesError(f"needs a value: {name}=...", name)
    if kind == "bool":
        lowered = raw.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise InvalidRulesError(f"expected true or false, got {excerpt(raw)}", name)
    if kind == "int":
        sign = -1 if raw.startswith("-") else 1  # then refused by the option's bounds, in words
        digits = raw.removeprefix("-").replace("_", "")
        try:
            number = _number_text(digits)
        except InvalidRulesError as exc:
            raise InvalidRulesError(exc.reason, name) from None
        if number is None:
            raise InvalidRulesError(f"expected a whole number, got {excerpt(raw)}", name)
        return sign * number
    return _choice(name, raw, name)


def _options_over(base: RuleSet, rules: RuleSet) -> tuple[tuple[str, OptionValue], ...] | None:
    """The options that make ``base`` into ``rules``, or None when options cannot."""
    values = rules.option_values()
    changed = {name: value for name, value in values.items() if base.option(name) != value}
    # an option of the base that cannot act here is back at its default by itself
    # (``zilch(three_pairs=0)``: not ``four_and_pair_as_three_pairs=false`` too)
    inert = rules.inert_options()
    changed = {n: v for n, v in changed.items() if n not in inert or v != OPTIONS[n].default}
    candidate = base.replace_options(changed).settled()
    if dataclasses.replace(candidate, source=rules.source, options=rules.options) != rules:
        return None
    return tuple(sorted(changed.items()))


def _spec_text(source: str, options: tuple[tuple[str, OptionValue], ...]) -> str:
    if not options:
        return source
    return f"{source}({','.join(format_option(n, v) for n, v in options)})"
