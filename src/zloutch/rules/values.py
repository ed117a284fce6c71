"""Reading the values of rule data: typed scalars, options, kinds, singles and patterns.

Each helper turns one value of a parsed rule file (or of an option given in code or in a
spec) into what a ``RuleSet`` holds, or raises one ``InvalidRulesError`` naming the key.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping

from zloutch.rules.dice import FACES
from zloutch.rules.errors import InvalidRulesError, excerpt
from zloutch.rules.ruleset import (
    KIND_WORDS,
    SECTIONS,
    KindRule,
    OptionValue,
    Pattern,
    option_choices,
    option_kind,
)

_KIND_RULE = re.compile(r"^(\d+)\s*x\s*face$")
_THREE_PLUS = re.compile(r"^three\+(\d+)(?:x?perextradie|xextra)$")
"""``three + K per extra die`` written without its spaces (``three + 100 x extra`` too)."""

_CANNOT = "(the rule format's page: what the format cannot express)"


def _belongs(word: str, under: str) -> str:
    """Where a key written under the header ``under`` (a table of ``[scoring]``) belongs,
    if a section has it: TOML gives a key to the last header above it, so ``three_pairs =
    1500`` written after ``[scoring.kinds]`` is one of the kinds' keys (empty where no
    section has it)."""
    for section, cls in SECTIONS.items():
        if word in getattr(cls, "__dataclass_fields__", {}):
            if section != "scoring":  # above [scoring.kinds] it would be [scoring]'s
                return f" (it belongs in [{section}]: write it under a [{section}] header)"
            return (
                f" (it belongs in [{section}]: a key is read as part of the last table header "
                f"above it, so write it above {under})"
            )
    return ""


# ---------------------------------------------------------------------------- limits
# What a rule file or a spec may say, and no more (docs/rules-format.md, "Limits"): the
# solvers size their tables by the target and the points, so the bounds keep them sane.

MAX_NUMBER = 100_000
"""The largest whole number of a rule set: the target, entry, min_bank, a penalty..."""
MAX_POINTS = 100_000
"""The most one combination may be worth, as written and as a kind rule makes it."""
MAX_COUNT = 100
"""The largest count: ticks to cross a level (G-3), farkles in a row (F-1)."""
MAX_DIGITS = 12
"""The most digits of a whole number written in a spec (longer ones are not read)."""
MAX_DEPTH = 8
"""How deep the tables and lists of a rule file may nest (a pattern's faces are at 4)."""
MAX_EXTENDS = 16
"""How many rule files a chain of ``extends`` may hold, the first one included."""
MAX_FILE_BYTES = 256 * 1024
"""The largest rule file, in bytes."""

_OPTION_MAX = {"ticks_to_cross": MAX_COUNT, "farkle_penalty_after": MAX_COUNT}
_OPTION_MIN = {"target": 1}
"""The whole-number options whose least value is not 0 (a game is played to a target)."""


def _is_number(text: str) -> bool:
    """ASCII digits only: ``"²".isdigit()`` is true, but ``int("²")`` raises."""
    return text.isascii() and text.isdigit()


def _suggest(word: str, choices: list[str] | tuple[str, ...]) -> str:
    if len(word) > 2 * max(map(len, choices), default=0):
        return ""  # nothing can be close to a long text, and difflib would read all of it
    # the case aside: JOKER is joker, mistyped with caps lock on
    folded = {choice.casefold(): choice for choice in choices}
    close = difflib.get_close_matches(word.casefold(), list(folded), n=1)
    return f" (did you mean {folded[close[0]]!r}?)" if close else ""


FILE_ONLY_KEYS = {
    "dice": "[rules] dice",
    "name": "[rules] name",
    "summary": "[rules] summary",
    "extends": "[rules] extends",
    "singles": "[scoring] singles",
    "kinds": "[scoring.kinds]",
    "patterns": "[[scoring.patterns]]",
}
"""The keys of a rule file that are no option: a spec cannot switch them."""


_FULL_HOUSE = (
    "a full house of fixed points is written as [[scoring.patterns]], one per three and pair; "
    'full_house = "sum" or "times" scores it from its three of a kind ' + _CANNOT
)
_STRAIGHT = (
    "a straight is written as a [[scoring.patterns]] table: faces = [1, 2, 3, 4, 5, 6], "
    "points = 1500"
)
_KINDS = 'multiples are written in [scoring.kinds], by their count: 4 = 1000, 3 = "100 x face"'
_ENTRY = "entry (T-7) is the least total of a player's first bank; min_bank (F-3) of every bank"
FOREIGN_KEYS: dict[str, str] = {
    "full_house_points": _FULL_HOUSE,
    "full_house_value": _FULL_HOUSE,
    "full_house_score": _FULL_HOUSE,
    "hot_dice": 'a full hand (hot dice) is turn.full_hand = "forced" or "optional" (T-5)',
    "hot_dice_bonus": "a bonus for a full hand cannot be written " + _CANNOT + "; no_score_bonus "
    "is the points of a throw of every die where nothing scores (F-2)",
    "min_keep": "a least keep cannot be written " + _CANNOT + "; " + _ENTRY,
    "minimum_keep": "a least keep cannot be written " + _CANNOT + "; " + _ENTRY,
    "opening_score": _ENTRY,
    "opening": _ENTRY,
    "min_entry": _ENTRY,
    "entry_score": _ENTRY,
    "min_score": _ENTRY,
    "straight": _STRAIGHT,
    "large_straight": _STRAIGHT,
    "small_straight": _STRAIGHT,
    "three_of_a_kind": _KINDS,
    "four_of_a_kind": _KINDS,
    "five_of_a_kind": _KINDS,
    "six_of_a_kind": _KINDS,
    "exact": "the key is exact_target (T-9)",
    "winning_score": "the key is target (G-2)",
    "score_to_win": "the key is target (G-2)",
    "goal": "the key is target (G-2)",
    "first_throw": "a combination that counts only on a throw of all the dice is written with "
    "thrown = the number of dice, in its pattern or its count's table in [scoring.kinds]; one "
    "that counts only on a turn's first throw cannot be written " + _CANNOT,
    "three_farkles": "farkle_penalty (the points) and farkle_penalty_after (how many farkles "
    "in a row, F-1)",
    "farkle_limit": "farkle_penalty (the points) and farkle_penalty_after (how many farkles "
    "in a row, F-1)",
}
"""Keys other tables' rules use, with what this format writes instead: the key nearest in
spelling misled (``full_house_points`` is not ``full_house_pair``; ``hot_dice_bonus`` not
``no_score_bonus``, which pays for the opposite)."""


def foreign_hint(word: str) -> str:
    """`` (what to write instead)`` for a key of another table's rules, or ``""``."""
    hint = FOREIGN_KEYS.get(word.casefold())
    return f" ({hint})" if hint else ""


def unknown_option(name: str, options: list[str]) -> str:
    """Why ``name`` is not an option of a spec, and what to write instead."""
    if name in FILE_ONLY_KEYS:
        return (
            f"not an option: a spec cannot change it; write a rule file with "
            f"{FILE_ONLY_KEYS[name]} (extends = the rule set it starts from)"
        )
    if name.isdigit():
        return (
            "not an option: a spec's numbers take no thousands separator "
            "(target=5000, not target=5,000)"
        )
    return f"unknown option{foreign_hint(name) or _suggest(name, options)}"


# ---------------------------------------------------------------------------- values


def _as_bool(value: object, key: str) -> bool:
    if isinstance(value, bool):
        return value
    raise InvalidRulesError(f"expected true or false, got {excerpt(value)}", key)


def _as_int(value: object, key: str, *, minimum: int = 0, maximum: int = MAX_NUMBER) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRulesError(f"expected a whole number, got {excerpt(value)}", key)
    if value < minimum:
        raise InvalidRulesError(f"must be at least {minimum}, got {excerpt(value)}", key)
    if value > maximum:
        raise InvalidRulesError(f"must be at most {maximum}, got {excerpt(value)}", key)
    return value


def _as_str(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise InvalidRulesError(f"expected text, got {excerpt(value)}", key)
    return value


def _number_text(text: str) -> int | None:
    """The whole number a text of ASCII digits writes, or None; too many digits: refused."""
    if not _is_number(text):
        return None
    if len(text) > MAX_DIGITS:
        raise InvalidRulesError(
            f"{excerpt(text)} is too long: a whole number has at most {MAX_DIGITS} digits"
        )
    return int(text)


def _convert_option(name: str, value: object, key: str) -> OptionValue:
    kind = option_kind(name)
    if kind == "bool":
        return _as_bool(value, key)
    if kind == "int":
        return _as_int(
            value,
            key,
            minimum=_OPTION_MIN.get(name, 0),
            maximum=_OPTION_MAX.get(name, MAX_NUMBER),
        )
    if not isinstance(value, str):
        choices = ", ".join(f'"{c}"' for c in option_choices(name))
        raise InvalidRulesError(
            f"expected one of {choices} (in quotes), got {excerpt(value)}"
            + _CHOICE_NOTES.get(name, ""),
            key,
        )
    return _choice(name, value, key)


_CHOICE_NOTES = {
    "full_house": (
        "; a full house of fixed points is written as patterns, one per three and pair "
        "(the rule format's page: what the format cannot express)"
    ),
}
"""What to write instead of a choice option's value that none of its words says."""


def _choice(name: str, text: str, key: str) -> str:
    """A choice option's word, in any case (``ANY`` is ``any``)."""
    choices = option_choices(name)
    word = text.strip().lower()
    if word not in choices:
        raise InvalidRulesError(
            f"{excerpt(text)} is not one of {', '.join(choices)}{_suggest(word, choices)}"
            + _CHOICE_NOTES.get(name, ""),
            key,
        )
    return word


def _normalise_kind_rule(value: object, key: str) -> str:
    if isinstance(value, bool):
        if value is False:
            return "none"
        raise InvalidRulesError(
            'true is not a kind rule; write a value such as "double" (false means "none")', key
        )
    if isinstance(value, int):
        if value < 0:
            raise InvalidRulesError(
                f"points must be positive, got {excerpt(value)}: a combination that costs "
                f"points or loses the turn cannot be written {_CANNOT}",
                key,
            )
        if value == 0:
            raise InvalidRulesError('points must be positive, got 0; "none" is no combination', key)
        return str(_as_int(value, key, maximum=MAX_POINTS))
    if not isinstance(value, str):
        raise InvalidRulesError(f"expected a kind rule, got {excerpt(value)}", key)
    text = " ".join(value.lower().replace("\u00d7", "x").split())
    compact = text.replace(" ", "")
    if text in ("none", "win", "double"):
        return text
    try:
        points = _number_text(text)
        match = _KIND_RULE.match(text)
        times = _number_text(match.group(1)) if match else None
    except InvalidRulesError as exc:
        raise InvalidRulesError(exc.reason, key) from None
    if points is not None and points > 0:
        return str(_as_int(points, key, maximum=MAX_POINTS))
    if compact in ("(n-2)xthree", "n-2xthree"):
        return "(n-2) x three"
    plus = _THREE_PLUS.match(compact)
    if plus is not None:
        try:
            extra = _number_text(plus.group(1))
        except InvalidRulesError as exc:
            raise InvalidRulesError(exc.reason, key) from None
        if extra is not None and extra > 0:
            _as_int(extra, key, maximum=MAX_POINTS)  # what it makes is checked as a value
            return f"three + {extra} per extra die"
    if times is not None and times > 0:
        _as_int(times * 6, key, maximum=MAX_POINTS)  # six x face is the most it makes
        return f"{times} x face"
    if times == 0:
        raise InvalidRulesError(
            '"0 x face" scores nothing: K is 1 or more ("none" is no combination)', key
        )
    lost = any(word in text for word in ("lose", "loss", "farkle", "zilch", "bust"))
    lost = lost or re.search(r"(^|\s)-\s*\d", text) is not None  # "-500": points taken
    raise InvalidRulesError(
        f'{excerpt(value)} is not a kind rule: write points (1000), "K x face", "double", '
        '"(n-2) x three", "three + K per extra die", "win" or "none"'
        + (
            f"; a combination that costs points or loses the turn cannot be written {_CANNOT}"
            if lost
            else f"; another formula is written face by face {_CANNOT}"
        ),
        key,
    )


_KIND_KEYS = ("default", "thrown")
"""The words of a count's table in ``[scoring.kinds]``, beside its faces."""


def _face_text(value: object) -> str:
    """A face of a pattern's list as the file spells it: ``true``, not Python's ``True``."""
    return excerpt(value) if isinstance(value, bool) else str(value)


def _as_thrown(value: object, key: str) -> int:
    """``thrown``: how many dice the throw must hold (0: any), a whole number."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRulesError(
            f"expected a whole number of dice thrown (0: any throw), got {excerpt(value)}; a "
            f"combination that counts only on a turn's first throw cannot be written {_CANNOT}",
            key,
        )
    return _as_int(value, key)


def _parse_face(text: str, key: str) -> int:
    if not _is_number(text) or len(text) > 1 or int(text) not in FACES:
        raise InvalidRulesError(f"{excerpt(text)} is not a face: faces are 1 to 6", key)
    return int(text)


# ---------------------------------------------------------------------------- scoring


def _parse_kinds(data: object, dice: int, base: tuple[KindRule, ...]) -> tuple[KindRule, ...]:
    if not isinstance(data, Mapping):
        raise InvalidRulesError("expected a table of counts 3 to 6", "scoring.kinds")
    by_count = {k.count: k for k in base}
    for count_text, rule in data.items():
        key = f"scoring.kinds.{count_text}"
        if not _is_number(count_text) or len(count_text) > 1 or int(count_text) not in KIND_WORDS:
            belongs = _belongs(count_text, "[scoring.kinds]")
            if belongs:
                raise InvalidRulesError(f"unknown key{belongs}", key)
            if count_text.strip() in _KIND_KEYS:  # a count's own key, written for them all
                raise InvalidRulesError(
                    f"unknown key: {count_text} is written in a count's table, for that count "
                    f'(3 = {{ default = "100 x face", {count_text} = ... }}), not under '
                    "[scoring.kinds] for them all",
                    key,
                )
            if count_text.strip() in ("1", "2"):
                raise InvalidRulesError(
                    "the count of a kind must be 3, 4, 5 or 6: a single die's points are "
                    "written in [scoring.singles], a pair as a [[scoring.patterns]] table "
                    "(faces = [2, 2])",
                    key,
                )
            raise InvalidRulesError("the count of a kind must be 3, 4, 5 or 6", key)
        count = int(count_text)
        if count > dice:
            raise InvalidRulesError(
                f"{KIND_WORDS[count]} of a kind cannot be thrown with {dice} dice", key
            )
        if isinstance(rule, Mapping):
            default = "none"
            thrown = 0
            overrides: list[tuple[int, str]] = []
            for face_text, face_rule in rule.items():
                if face_text == "default":
                    default = _normalise_kind_rule(face_rule, f"{key}.default")
                elif face_text == "thrown":
                    thrown = _as_thrown(face_rule, f"{key}.thrown")
                    if thrown and not count <= thrown <= dice:
                        raise InvalidRulesError(
                            _thrown_words(count, dice),
                            f"{key}.thrown",
                        )
                else:
                    if not face_text.strip().isdigit():  # a word, not a face
                        raise InvalidRulesError(
                            f"unknown key{_suggest(face_text, _KIND_KEYS)}: a count's table "
                            "holds default, thrown and faces 1 to 6",
                            f"{key}.{face_text}",
                        )
                    face = _parse_face(face_text, f"{key}.{face_text}")
                    overrides.append((face, _normalise_kind_rule(face_rule, f"{key}.{face}")))
            by_count[count] = KindRule(count, default, tuple(sorted(overrides)), thrown)
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
        singles.append((face, _as_int(points, key, minimum=1, maximum=MAX_POINTS)))
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
            hint = (
                _belongs(word, "the [[scoring.patterns]] tables")
                or foreign_hint(word)
                or _suggest(word, ["name", "faces", "points", "thrown"])
            )
            raise InvalidRulesError(
                f"unknown key{hint}: a pattern holds name, faces, points and thrown",
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
        faces = tuple(sorted(_parse_face(_face_text(f), f"{key}.faces") for f in faces_value))
        if len(faces) < 2:
            raise InvalidRulesError(
                "a pattern needs at least two dice (use singles for one)", f"{key}.faces"
            )
        if len(faces) > dice:
            raise InvalidRulesError(
                f"{len(faces)} faces cannot be thrown with {dice} dice", f"{key}.faces"
            )
        points = _as_int(item["points"], f"{key}.points", minimum=1, maximum=MAX_POINTS)
        thrown = _as_thrown(item.get("thrown", 0), f"{key}.thrown")
        if thrown and not len(faces) <= thrown <= dice:
            raise InvalidRulesError(_thrown_words(len(faces), dice), f"{key}.thrown")
        run = len(set(faces)) == len(faces) and faces[-1] - faces[0] == len(faces) - 1
        default_name = ("straight " if run else "pattern ") + "-".join(map(str, faces))
        name = _as_str(item.get("name", default_name), f"{key}.name").strip() or default_name
        patterns.append(Pattern(name, faces, points, thrown))
    return tuple(patterns)


def _thrown_words(least: int, dice: int) -> str:
    """What a ``thrown`` may be: 0 (any throw) or a count of dice thrown from ``least``."""
    if least == dice:
        return f"must be 0 (any throw) or {dice} (a throw of all the dice)"
    return f"must be 0 (any throw) or a number of dice thrown, {least} to {dice}"
