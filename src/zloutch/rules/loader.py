"""Reading rule sets: TOML rule files, presets, and spec strings with options.

Every mistake in a file or a spec becomes one ``InvalidRulesError`` naming the key and what
is wrong with it; nothing here lets a ``KeyError`` or a ``TypeError`` through.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
import tomllib
from collections.abc import Callable, Mapping
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from zloutch.rules.dice import FACES, Dice, format_dice
from zloutch.rules.errors import InvalidRulesError
from zloutch.rules.ruleset import (
    KIND_WORDS,
    OPTIONS,
    SECTIONS,
    KindRule,
    OptionValue,
    Pattern,
    RuleSet,
    format_option,
    option_choices,
    option_kind,
    resolve_kinds,
)
from zloutch.rules.scoring import throw_extremes

PRESETS: tuple[str, ...] = (
    "dix-mille",
    "dix-mille-6",
    "impair",
    "charentaise",
    "cinq-mille",
    "farkle",
    "farkle-minimal",
    "zilch",
    "greed",
)

_RULES_KEYS = {"name", "summary", "dice", "extends"}
_REQUIRED = ("rules.name", "rules.dice", "game.target")
_KIND_RULE = re.compile(r"^(\d+)\s*x\s*face$")


def _is_number(text: str) -> bool:
    """ASCII digits only: ``"²".isdigit()`` is true, but ``int("²")`` raises."""
    return text.isascii() and text.isdigit()


def _suggest(word: str, choices: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


# ---------------------------------------------------------------------------- values


def _as_bool(value: object, key: str) -> bool:
    if isinstance(value, bool):
        return value
    raise InvalidRulesError(f"expected true or false, got {value!r}", key)


def _as_int(value: object, key: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRulesError(f"expected a whole number, got {value!r}", key)
    if value < minimum:
        raise InvalidRulesError(f"must be at least {minimum}, got {value}", key)
    return value


def _as_str(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise InvalidRulesError(f"expected text, got {value!r}", key)
    return value


def _convert_option(name: str, value: object, key: str) -> OptionValue:
    kind = option_kind(name)
    if kind == "bool":
        return _as_bool(value, key)
    if kind == "int":
        return _as_int(value, key)
    return _choice(name, _as_str(value, key), key)


def _choice(name: str, text: str, key: str) -> str:
    """A choice option's word, in any case (``ANY`` is ``any``)."""
    choices = option_choices(name)
    word = text.strip().lower()
    if word not in choices:
        raise InvalidRulesError(
            f"{text!r} is not one of {', '.join(choices)}{_suggest(word, choices)}", key
        )
    return word


def _normalise_kind_rule(value: object, key: str) -> str:
    if isinstance(value, bool):
        if value is False:
            return "none"
        raise InvalidRulesError('true is not a kind rule; write a value such as "double"', key)
    if isinstance(value, int):
        if value <= 0:
            raise InvalidRulesError(f"points must be positive, got {value}", key)
        return str(value)
    if not isinstance(value, str):
        raise InvalidRulesError(f"expected a kind rule, got {value!r}", key)
    text = " ".join(value.lower().replace("\u00d7", "x").split())
    compact = text.replace(" ", "")
    if text in ("none", "win", "double"):
        return text
    if text.isascii() and text.isdigit() and int(text) > 0:
        return str(int(text))
    if compact in ("(n-2)xthree", "n-2xthree"):
        return "(n-2) x three"
    match = _KIND_RULE.match(text)
    if match and int(match.group(1)) > 0:
        return f"{int(match.group(1))} x face"
    raise InvalidRulesError(
        f'{value!r} is not a kind rule: write points (1000), "K x face", "double", '
        '"(n-2) x three", "win" or "none"',
        key,
    )


def _parse_face(text: str, key: str) -> int:
    if not _is_number(text) or int(text) not in FACES:
        raise InvalidRulesError(f"{text!r} is not a face: faces are 1 to 6", key)
    return int(text)


# ---------------------------------------------------------------------------- scoring


def _parse_kinds(data: object, dice: int, base: tuple[KindRule, ...]) -> tuple[KindRule, ...]:
    if not isinstance(data, Mapping):
        raise InvalidRulesError("expected a table of counts 3 to 6", "scoring.kinds")
    by_count = {k.count: k for k in base}
    for count_text, rule in data.items():
        key = f"scoring.kinds.{count_text}"
        if not _is_number(count_text) or int(count_text) not in KIND_WORDS:
            raise InvalidRulesError("the count of a kind must be 3, 4, 5 or 6", key)
        count = int(count_text)
        if count > dice:
            raise InvalidRulesError(
                f"{KIND_WORDS[count]} of a kind cannot be thrown with {dice} dice", key
            )
        if isinstance(rule, Mapping):
            default = "none"
            overrides: list[tuple[int, str]] = []
            for face_text, face_rule in rule.items():
                if face_text == "default":
                    default = _normalise_kind_rule(face_rule, f"{key}.default")
                else:
                    face = _parse_face(face_text, f"{key}.{face_text}")
                    overrides.append((face, _normalise_kind_rule(face_rule, f"{key}.{face}")))
            by_count[count] = KindRule(count, default, tuple(sorted(overrides)))
        else:
            by_count[count] = KindRule(count, _normalise_kind_rule(rule, key))
    kinds = tuple(
        by_count[c] for c in sorted(by_count) if by_count[c].default != "none" or by_count[c].faces
    )
    return kinds


def _parse_singles(data: object) -> tuple[tuple[int, int], ...]:
    if not isinstance(data, Mapping):
        raise InvalidRulesError("expected a table of face = points", "scoring.singles")
    singles = []
    for face_text, points in data.items():
        key = f"scoring.singles.{face_text}"
        face = _parse_face(face_text, key)
        singles.append((face, _as_int(points, key, minimum=1)))
    return tuple(sorted(singles))


def _parse_patterns(data: object, dice: int) -> tuple[Pattern, ...]:
    if not isinstance(data, list):
        raise InvalidRulesError(
            "expected a list of [[scoring.patterns]] tables", "scoring.patterns"
        )
    patterns = []
    for i, item in enumerate(data):
        key = f"scoring.patterns[{i}]"
        if not isinstance(item, Mapping):
            raise InvalidRulesError("expected a table with name, faces and points", key)
        unknown = set(item) - {"name", "faces", "points", "thrown"}
        if unknown:
            word = sorted(unknown)[0]
            raise InvalidRulesError(
                f"unknown key{_suggest(word, ['name', 'faces', 'points', 'thrown'])}",
                f"{key}.{word}",
            )
        for required in ("faces", "points"):
            if required not in item:
                raise InvalidRulesError("missing key", f"{key}.{required}")
        faces_value = item["faces"]
        if not isinstance(faces_value, list) or not faces_value:
            raise InvalidRulesError(
                "expected a list of faces such as [1, 2, 3, 4, 5]", f"{key}.faces"
            )
        faces = tuple(sorted(_parse_face(str(f), f"{key}.faces") for f in faces_value))
        if len(faces) < 2:
            raise InvalidRulesError(
                "a pattern needs at least two dice (use singles for one)", f"{key}.faces"
            )
        if len(faces) > dice:
            raise InvalidRulesError(
                f"{len(faces)} faces cannot be thrown with {dice} dice", f"{key}.faces"
            )
        points = _as_int(item["points"], f"{key}.points", minimum=1)
        thrown = _as_int(item.get("thrown", 0), f"{key}.thrown")
        if thrown and not len(faces) <= thrown <= dice:
            raise InvalidRulesError(
                f"must be 0 (any throw) or between {len(faces)} and {dice}", f"{key}.thrown"
            )
        run = len(set(faces)) == len(faces) and faces[-1] - faces[0] == len(faces) - 1
        default_name = ("straight " if run else "pattern ") + "-".join(map(str, faces))
        name = _as_str(item.get("name", default_name), f"{key}.name").strip() or default_name
        patterns.append(Pattern(name, faces, points, thrown))
    return tuple(patterns)


# ---------------------------------------------------------------------------- files


def parse_rules(
    data: Mapping[str, Any],
    *,
    source: str = "",
    load_base: Callable[[str], RuleSet] | None = None,
) -> RuleSet:
    """Build a RuleSet from the parsed TOML of a rule file (see docs/rules-format.md).

    ``load_base`` resolves ``rules.extends``; without it a file cannot extend another.
    """
    try:
        return _parse_rules(data, source=source, load_base=load_base)
    except InvalidRulesError as exc:
        if exc.file is None:
            exc.file = source  # the mistake is in this file's own text
        raise


def _load_extends(
    value: object, source: str, load_base: Callable[[str], RuleSet] | None
) -> RuleSet:
    """The base a file extends; an error names ``rules.extends`` or the file it is in."""
    key = "rules.extends"
    name = _as_str(value, key).strip()
    if load_base is None:
        raise InvalidRulesError("this rule file cannot extend another here", key)
    if not name:
        raise InvalidRulesError("give a preset name or the path of a rule file", key)
    if "(" in name and not name.endswith(".toml"):
        raise InvalidRulesError(_extends_options_message(name), key)
    try:
        return load_base(name)
    except InvalidRulesError as exc:
        if exc.file is None and not exc.chain:
            # The base cannot be loaded at all (unknown preset, unreadable file, not TOML, a
            # loop): what is wrong is the name written here.
            reason = exc.reason if exc.key in (None, key) else f"{exc.key}: {exc.reason}"
            raise InvalidRulesError(reason, key) from None
        # A mistake inside the base: say which file it is in, and which files extend it.
        chain = exc.chain or (exc.file or name,)
        raise InvalidRulesError(
            exc.reason, exc.key, chain=(*chain, source) if source else chain
        ) from None


def _extends_options_message(name: str) -> str:
    """Why ``extends = "dix-mille(joker)"`` is refused, and how to write it."""
    try:
        base, options = split_spec(name)
    except InvalidRulesError:
        base, options = name[: name.index("(")].strip(), []
    keys = []
    for option, raw in options:
        if option not in OPTIONS:
            keys.append(f"{option} (not an option{_suggest(option, sorted(OPTIONS))})")
            continue
        kind = option_kind(option)
        if raw is None or (kind == "bool" and raw.lower() in _TRUE):
            value = "true"
        elif kind == "bool" and raw.lower() in _FALSE:
            value = "false"
        elif kind == "choice":
            value = _toml_string(raw.lower())
        else:
            value = raw
        keys.append(f"{option} = {value} under [{OPTIONS[option][0]}]")
    how = f"; here: {', '.join(keys)}" if keys else ""
    return (
        f"{name!r}: extends names a preset or a rule file, without options: write "
        f"extends = {_toml_string(base)} and give the options as keys of this file{how}"
    )


def _parse_rules(
    data: Mapping[str, Any],
    *,
    source: str,
    load_base: Callable[[str], RuleSet] | None,
) -> RuleSet:
    for section in data:
        if section != "rules" and section not in SECTIONS:
            raise InvalidRulesError(
                f"unknown section{_suggest(section, ['rules', *SECTIONS])}", section
            )
    for section in ("rules", *SECTIONS):
        if section in data and not isinstance(data[section], Mapping):
            raise InvalidRulesError("expected a table", section)
    head: Mapping[str, Any] = data.get("rules", {})
    for key in head:
        if key not in _RULES_KEYS:
            raise InvalidRulesError(
                f"unknown key{_suggest(key, sorted(_RULES_KEYS))}", f"rules.{key}"
            )

    base: RuleSet | None = None
    if "extends" in head:
        base = _load_extends(head["extends"], source, load_base)
    else:
        for required in _REQUIRED:
            section, key = required.split(".")
            if key not in data.get(section, {}):
                raise InvalidRulesError(
                    "missing key (a rule file must give it, or start from a preset with "
                    "rules.extends)",
                    required,
                )

    if "name" in head:
        name = _as_str(head["name"], "rules.name").strip()
    else:
        name = base.name if base else ""
    if not name:
        raise InvalidRulesError("the name must not be empty", "rules.name")
    if "summary" in head:
        summary = _as_str(head["summary"], "rules.summary")
    else:
        summary = base.summary if base else ""
    dice = (
        _as_int(head["dice"], "rules.dice", minimum=1)
        if "dice" in head
        else (base.dice if base else 5)
    )
    if dice > 6:
        raise InvalidRulesError(f"at most 6 dice, got {dice}", "rules.dice")

    start = base or RuleSet(name=name, summary=summary, dice=dice)
    sections: dict[str, object] = {}
    for section, cls in SECTIONS.items():
        table: Mapping[str, Any] = data.get(section, {})
        current = getattr(start, section)
        changes: dict[str, object] = {}
        names = [f.name for f in dataclasses.fields(cls)]
        for key, value in table.items():
            full = f"{section}.{key}"
            if key not in names:
                other = next(
                    (
                        s
                        for s, c in SECTIONS.items()
                        if key in [f.name for f in dataclasses.fields(c)]
                    ),
                    None,
                )
                hint = f" (it belongs in [{other}])" if other else _suggest(key, names)
                raise InvalidRulesError(f"unknown key{hint}", full)
            if key == "singles":
                changes[key] = _parse_singles(value)
            elif key == "kinds":
                changes[key] = _parse_kinds(value, dice, current.kinds)
            elif key == "patterns":
                changes[key] = _parse_patterns(value, dice)
            else:
                changes[key] = _convert_option(key, value, full)
        sections[section] = dataclasses.replace(current, **changes)
    rules = dataclasses.replace(
        start,
        name=name,
        summary=summary,
        dice=dice,
        source=source,
        options=(),
        **sections,  # type: ignore[arg-type]
    )
    validate(rules)
    return rules


def validate(rules: RuleSet) -> None:
    """Refuse what the rules cannot mean together, naming the key and the reason."""
    s, t, g, v = rules.scoring, rules.turn, rules.game, rules.variants
    dice = rules.dice
    try:
        resolve_kinds(s.kinds, g.five_ones_win, dice)
    except ValueError as exc:
        raise InvalidRulesError(str(exc), "scoring.kinds") from None
    for kind in s.kinds:
        if kind.count > dice:
            raise InvalidRulesError(
                f"{KIND_WORDS[kind.count]} of a kind cannot be thrown with {dice} dice",
                f"scoring.kinds.{kind.count}",
            )
    if not _anything_scores(rules):
        raise InvalidRulesError(
            "nothing can ever score: no single die scores (singles), no multiple "
            "([scoring.kinds]), no pattern and no other combination, so every throw would be "
            "a farkle",
            "scoring",
        )
    same_faces: dict[Dice, int] = {}
    for j, pattern in enumerate(s.patterns):
        faces = tuple(sorted(pattern.faces))
        i = same_faces.setdefault(faces, j)
        if i != j:
            raise InvalidRulesError(
                f"{pattern.name!r} has the same faces ({format_dice(faces)}) as "
                f"scoring.patterns[{i}] {s.patterns[i].name!r}: one set of faces can be only "
                "one pattern, with one value",
                f"scoring.patterns[{j}]",
            )
    for pattern in s.patterns:
        if pattern.thrown > dice:
            raise InvalidRulesError(
                f"{pattern.name} counts only when {pattern.thrown} dice are thrown, "
                f"this rule set has {dice}",
                "scoring.patterns",
            )
        if len(pattern.faces) > dice:
            raise InvalidRulesError(
                f"{pattern.name} needs {len(pattern.faces)} dice, this rule set has {dice}",
                "scoring.patterns",
            )
    for key in ("three_pairs", "four_and_pair", "two_triplets"):
        if getattr(s, key) and dice < 6:
            raise InvalidRulesError(f"needs six dice, this rule set has {dice}", f"scoring.{key}")
    if s.full_house != "off" and dice < 5:
        raise InvalidRulesError(
            f"a full house needs five dice, this rule set has {dice}", "scoring.full_house"
        )
    if g.target <= 0:
        raise InvalidRulesError("the target must be positive", "game.target")
    if g.exact_target and g.target % rules.unit:
        raise InvalidRulesError(
            f"{g.target} cannot be reached exactly with points in steps of {rules.unit}",
            "game.target",
        )
    if g.exact_target:
        _check_exact_target(rules)
    if g.exact_target and not g.ticks_to_cross and not t.farkle_penalty:
        step = math.lcm(rules.unit, 100) if t.bank_multiple_of_100 else rules.unit
        smallest = max(t.min_bank, step)
        gaps = [r for r in range(step, smallest, step) if not (t.petit_palier and r == 100)]
        if gaps:
            raise InvalidRulesError(
                f"a player left {gaps[0]} short of an exact target (T-9) could never finish: "
                f"the smallest bank is {t.min_bank} (min_bank), and without ticks (G-3) or "
                "a penalty (F-1) nothing would ever move them back; lower min_bank, allow "
                "petit_palier, or switch ticks on",
                "game.exact_target",
            )
    if g.final_round and g.final_turns:
        raise InvalidRulesError(
            "final_round (G-6) and final_turns (F-4) are two different endings: choose one",
            "game.final_turns",
        )
    if g.min_players < 1 or g.max_players > 8 or g.min_players > g.max_players:
        raise InvalidRulesError(
            "players must satisfy 1 <= min_players <= max_players <= 8", "game.max_players"
        )
    if g.last_thousand and g.target <= 1000:
        raise InvalidRulesError(
            "the last 1000 in one turn (G-7) needs a target above 1000", "game.last_thousand"
        )
    if g.five_ones_win and dice < 5:
        raise InvalidRulesError(f"five 1s cannot be thrown with {dice} dice", "game.five_ones_win")
    if t.full_hand_win and not g.exact_target:
        raise InvalidRulesError(
            "winning on a full hand that lands exactly on the target (T-10) needs exact_target",
            "turn.full_hand_win",
        )
    if t.farkle_penalty and t.farkle_penalty_after < 1:
        raise InvalidRulesError("must be at least 1", "turn.farkle_penalty_after")
    if v.joker and s.keep_all_scoring:
        raise InvalidRulesError(
            "jokers (V-2) set scoring dice aside without keeping them, which keep_all_scoring "
            "forbids (V-5: charentaise is played without jokers)",
            "variants.joker",
        )
    if v.four_two_one and dice < 3:
        raise InvalidRulesError(f"4-2-1 cannot be thrown with {dice} dice", "variants.four_two_one")
    if v.straights_over_throws:
        if dice != 5:
            raise InvalidRulesError(
                "straights over several throws (V-6) are a 5-dice variant",
                "variants.straights_over_throws",
            )
        if not any(len(set(p.faces)) == dice for p in s.patterns):
            raise InvalidRulesError(
                "straights over several throws (V-6) need a five-dice straight in scoring.patterns",
                "variants.straights_over_throws",
            )
    if v.multiples_over_throws and not any(k.count == 3 for k in s.kinds):
        raise InvalidRulesError(
            "multiples over several throws (V-7) need three of a kind to score",
            "variants.multiples_over_throws",
        )
    if t.entry and t.entry_by == "throw":
        most, wins = throw_extremes(rules)
        if t.entry > most and not wins:
            raise InvalidRulesError(
                f"entry by one throw (entry_by = throw, T-7) needs a single throw worth "
                f"{t.entry}, but no throw of this rule set scores more than {most} and none "
                "wins the game: no player could ever enter",
                "turn.entry",
            )


def _anything_scores(rules: RuleSet) -> bool:
    """Whether some throw can score at all (a rule set where none can is a mistake)."""
    s = rules.scoring
    kinds = resolve_kinds(s.kinds, rules.game.five_ones_win, rules.dice)
    shapes = (s.three_pairs, s.four_and_pair, s.two_triplets, s.no_score_bonus)
    return bool(s.singles or kinds or s.patterns or any(shapes) or rules.variants.four_two_one)


def _check_exact_target(rules: RuleSet) -> None:
    """T-9: refuse an exact target that no player could ever hit."""
    t, g = rules.turn, rules.game
    if t.bank_multiple_of_100:
        # T-6: every bank is a multiple of 100 (and of the unit); only an F-1 penalty can
        # move a score off that step.
        step = math.lcm(rules.unit, 100)
        reach = math.gcd(step, t.farkle_penalty) if t.farkle_penalty else step
        if g.target % reach:
            raise InvalidRulesError(
                f"{g.target} can never be hit exactly: with bank_multiple_of_100 (T-6) every "
                f"bank is a multiple of {step}",
                "game.target",
            )
    if t.entry > g.target:
        raise InvalidRulesError(
            f"the entry {t.entry} (T-7) is above the exact target {g.target} (T-9): the first "
            "bank would always pass the target, so no player could ever enter",
            "turn.entry",
        )
    if t.min_bank > g.target:
        raise InvalidRulesError(
            f"the smallest bank {t.min_bank} (F-3) is above the exact target {g.target} (T-9): "
            "every bank would pass the target",
            "turn.min_bank",
        )


def parse_rules_text(
    text: str, *, source: str = "", load_base: Callable[[str], RuleSet] | None = None
) -> RuleSet:
    """Parse the text of a rule file; TOML syntax errors become InvalidRulesError."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidRulesError(f"not valid TOML: {exc}", source or None) from None
    return parse_rules(data, source=source, load_base=load_base)


def preset_text(name: str) -> str:
    """The TOML text of a preset shipped with the package."""
    if name not in PRESETS:
        raise InvalidRulesError(
            f"unknown preset{_suggest(name, PRESETS)}; presets: {', '.join(PRESETS)}", name
        )
    return (
        resources.files("zloutch.rules.presets")
        .joinpath(f"{name}.toml")
        .read_text(encoding="utf-8")
    )


def _looks_like_file(source: str) -> bool:
    return Path(source).suffix == ".toml" or "/" in source or "\\" in source


def _is_unloadable_spec(source: str) -> bool:
    """``<house>``: the spec of a rule set built from text or in code (see RuleSet.spec)."""
    return source.startswith("<") and source.endswith(">")


def _load_source(source: str, seen: tuple[str, ...] = ()) -> RuleSet:
    if source in seen:
        raise InvalidRulesError(
            f"rule files extend each other in a loop: {' -> '.join((*seen, source))}",
            "rules.extends",
        )
    chain = (*seen, source)
    if source in PRESETS:
        return _preset(source)
    if _is_unloadable_spec(source):
        raise InvalidRulesError(
            "this is the spec of a rule set built from text or in code, which names no preset "
            "and no file, so it cannot be loaded: write the rule set to a file with to_toml "
            "(zloutch rules show --toml) and load that file",
            source,
        )
    if not _looks_like_file(source):
        raise InvalidRulesError(
            f"unknown preset{_suggest(source, PRESETS)}; presets: {', '.join(PRESETS)} "
            "(or give the path of a .toml rule file)",
            source,
        )
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidRulesError(f"cannot read the rule file: {exc.strerror}", source) from None
    except UnicodeDecodeError:
        raise InvalidRulesError("a rule file must be UTF-8 text", source) from None

    def base(name: str) -> RuleSet:
        if name in PRESETS or not _looks_like_file(name):
            # A preset, or a misspelt one: say "unknown preset", not "cannot read the file".
            return _load_source(name, chain)
        return _load_source(str(path.parent / name), chain)

    return parse_rules_text(text, source=source, load_base=base)


@cache
def _preset(name: str) -> RuleSet:
    """A preset, loaded once (rule sets are immutable)."""
    return parse_rules_text(
        preset_text(name), source=name, load_base=lambda b: _load_source(b, (name,))
    )


# ---------------------------------------------------------------------------- specs


def split_spec(spec: str) -> tuple[str, list[tuple[str, str | None]]]:
    """Split ``name(a=1,b)`` into the source and its raw options."""
    text = spec.strip()
    if not text:
        raise InvalidRulesError("the rule spec is empty: give a preset name or a rule file")
    if not text.endswith(")"):
        if "(" in text and ")" not in text:
            raise InvalidRulesError(f"missing ')' in {spec!r}")
        return text, []
    open_at = text.rfind("(", 0, text.rfind(")"))
    if open_at <= 0:
        raise InvalidRulesError(f"cannot read the spec {spec!r}: write name(option=value,...)")
    source, inner = text[:open_at].strip(), text[open_at + 1 : -1]
    options: list[tuple[str, str | None]] = []
    if not inner.strip():
        return source, options  # name() is the name alone
    for part in inner.split(","):
        part = part.strip()
        if not part:
            raise InvalidRulesError(
                f"an empty option in {spec!r}: remove the extra comma, or name an option"
            )
        name, eq, value = part.partition("=")
        name = name.strip().replace("-", "_")
        if not name:
            raise InvalidRulesError(f"an option with no name in {spec!r}: write name=value")
        options.append((name, value.strip() if eq else None))
    return source, options


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def parse_option_value(name: str, raw: str | None) -> OptionValue:
    """Read an option value written in a spec; ``None`` (a bare name) means true."""
    if name not in OPTIONS:
        raise InvalidRulesError(f"unknown option{_suggest(name, sorted(OPTIONS))}", name)
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
        raise InvalidRulesError(f"expected true or false, got {raw!r}", name)
    if kind == "int":
        digits = raw.replace("_", "")
        if not _is_number(digits):
            raise InvalidRulesError(f"expected a whole number, got {raw!r}", name)
        return int(digits)
    return _choice(name, raw, name)


def with_options(rules: RuleSet, values: Mapping[str, OptionValue]) -> RuleSet:
    """Switch options on a rule set, validate the result, and record them canonically."""
    checked: dict[str, OptionValue] = {}
    for name, value in values.items():
        if name not in OPTIONS:
            raise InvalidRulesError(f"unknown option{_suggest(name, sorted(OPTIONS))}", name)
        # Values from the API are checked as strictly as a file's (joker=1 is not a bool).
        checked[name] = _convert_option(name, value, name)
    # The values of the source itself: options already switched are measured from there.
    source_rules = rules
    if rules.options and rules.source:
        try:
            source_rules = _load_source(rules.source)
        except InvalidRulesError:  # its file is gone: measure from here
            source_rules = rules
    base_values = source_rules.option_values()
    merged = dict(rules.options)
    merged.update(checked)
    changed = rules.replace_options(dict(merged))
    recorded = tuple(sorted((n, v) for n, v in merged.items() if base_values[n] != v))
    changed = dataclasses.replace(changed, options=recorded)
    try:
        validate(changed)
    except InvalidRulesError as exc:
        raise InvalidRulesError(f"with these options: {exc}") from None
    return changed


def load_rules(spec: str | RuleSet) -> RuleSet:
    """Load a rule set from a spec: ``dix-mille``, ``my-table.toml(entry=800,joker)``.

    ``load_rules(rules.spec) == rules`` for every rule set loaded here.
    """
    if isinstance(spec, RuleSet):
        return spec
    source, raw_options = split_spec(spec)
    rules = _load_source(source)
    if not raw_options:
        return rules
    values: dict[str, OptionValue] = {}
    for name, raw in raw_options:
        if name in values:
            raise InvalidRulesError("option given twice", name)
        values[name] = parse_option_value(name, raw)
    return with_options(rules, values)


@lru_cache(maxsize=1024)
def canonical_spec(rules: RuleSet) -> str:
    """``RuleSet.spec``: the spec that loads this rule set, or ``<name>`` when none can.

    A rule file is named by its path with the options recorded on it. A preset is named with
    the options that differ from it, measured afresh, and only when the preset with those
    options is this rule set (a rule set changed in code is not its preset any more). A rule
    set built from text or in code is named as the preset of its name when that is what it
    is, with the options that differ; otherwise nothing can load it.
    """
    source = rules.source
    if source and source not in PRESETS and _looks_like_file(source):
        return _spec_text(source, rules.options)
    for name in dict.fromkeys((source, rules.name)):
        if name in PRESETS:
            options = _options_over(_preset(name), rules)
            if options is not None:
                return _spec_text(name, options)
    return f"<{rules.name}>"


def _options_over(base: RuleSet, rules: RuleSet) -> tuple[tuple[str, OptionValue], ...] | None:
    """The options that make ``base`` into ``rules``, or None when options cannot."""
    values = rules.option_values()
    changed = {name: value for name, value in values.items() if base.option(name) != value}
    candidate = base.replace_options(changed)
    if dataclasses.replace(candidate, source=rules.source, options=rules.options) != rules:
        return None
    return tuple(sorted(changed.items()))


def _spec_text(source: str, options: tuple[tuple[str, OptionValue], ...]) -> str:
    if not options:
        return source
    return f"{source}({','.join(format_option(n, v) for n, v in options)})"


# ---------------------------------------------------------------------------- writing


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
    """The canonical rule file of a rule set: every key written, loads back equal."""
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
        if kind.faces:
            parts = [f"default = {_kind_value(kind.default)}"]
            parts += [f"{face} = {_kind_value(rule)}" for face, rule in kind.faces]
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
