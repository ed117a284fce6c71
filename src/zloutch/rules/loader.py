"""Reading rule sets: TOML rule files, presets, and spec strings with options.

Every mistake in a file or a spec becomes one ``InvalidRulesError`` naming the key and what
is wrong with it; nothing here lets a ``KeyError`` or a ``TypeError`` through.

The parts live beside it: ``values`` reads each value of rule data, ``validate`` refuses
contradictory rule sets, ``spec`` reads and writes spec strings, and ``writing`` holds
``to_toml``. Their public names are importable from here too.
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
import tomllib
from collections.abc import Callable, Iterable, Mapping
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

from zloutch.rules.errors import (
    InvalidRulesError,
    excerpt,
    is_unloadable_spec,
    looks_like_file,
)
from zloutch.rules.ruleset import KIND_WORDS, OPTIONS, SECTIONS, OptionValue, RuleSet, option_kind
from zloutch.rules.spec import (
    _FALSE,
    _TRUE,
    _options_over,
    _spec_text,
    parse_option_value,
    split_spec,
)
from zloutch.rules.validate import refuse_mistakes, settle_idle, validate
from zloutch.rules.values import (
    FILE_ONLY_KEYS,
    MAX_DEPTH,
    MAX_EXTENDS,
    MAX_FILE_BYTES,
    MAX_NUMBER,
    _as_int,
    _as_str,
    _convert_option,
    _parse_kinds,
    _parse_patterns,
    _parse_singles,
    _suggest,
    foreign_hint,
    unknown_option,
)
from zloutch.rules.writing import _toml_string, to_toml

__all__ = [
    "PRESETS",
    "as_loaded_from",
    "canonical_spec",
    "load_rules",
    "parse_option_value",
    "parse_rules",
    "parse_rules_text",
    "preset_text",
    "split_spec",
    "to_toml",
    "validate",
    "with_options",
]

PRESETS: tuple[str, ...] = (
    "dix-mille",
    "dix-mille-6",
    "impair",
    "charentaise",
    "cinq-mille",
    "farkle",
    "farkle-minimal",
    "zilch",
    "facebook-farkle",
    "greed",
)

_RULES_KEYS = {"name", "summary", "dice", "extends"}
_REQUIRED = ("rules.name", "rules.dice", "game.target")


# ---------------------------------------------------------------------------- files


class _TooDeep(InvalidRulesError):
    """A chain of ``extends`` past MAX_EXTENDS files: reported as it is, with no chain."""


def parse_rules(
    data: Mapping[str, Any],
    *,
    source: str = "",
    load_base: Callable[[str], RuleSet] | None = None,
) -> RuleSet:
    """Build a RuleSet from the parsed TOML of a rule file (see docs/rules-format.md).

    ``load_base`` resolves ``rules.extends``; without it a file cannot extend another.
    """
    return _parse_data(data, source=source, load_base=load_base)


def _parse_data(
    data: Mapping[str, Any],
    *,
    source: str,
    load_base: Callable[[str], RuleSet] | None,
    stored: bool = False,
) -> RuleSet:
    """``parse_rules``, the file named in its errors."""
    try:
        return _parse_rules(data, source=source, load_base=load_base, stored=stored)
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
    except _TooDeep:
        raise  # said once, not once per file of the chain
    except InvalidRulesError as exc:
        if exc.file is None and not exc.chain:
            # The base cannot be loaded at all (unknown preset, unreadable file, not TOML, a
            # loop): what is wrong is the name written here.
            reason = exc.reason if exc.key in (None, key) else f"{exc.key}: {exc.reason}"
            raise InvalidRulesError(reason, key) from None
        # A mistake inside the base: say which file it is in, and which files extend it.
        chain = exc.chain or (exc.file or name,)
        raise InvalidRulesError(
            exc.reason, exc.key, chain=(*chain, source) if source else chain, line=exc.line
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
        keys.append(f"{option} = {value} under [{OPTIONS[option].section}]")
    how = f"; here: {', '.join(keys)}" if keys else ""
    return (
        f"{excerpt(name)}: extends names a preset or a rule file, without options: write "
        f"extends = {_toml_string(base)} and give the options as keys of this file{how}"
    )


def _parse_rules(
    data: Mapping[str, Any],
    *,
    source: str,
    load_base: Callable[[str], RuleSet] | None,
    stored: bool = False,
) -> RuleSet:
    for section in data:
        if section != "rules" and section not in SECTIONS:
            where = FILE_ONLY_KEYS.get(section.lower())  # [kinds]: a key written as a table
            hint = f" (it is written {where})" if where else _suggest(section, ["rules", *SECTIONS])
            raise InvalidRulesError(f"unknown section{hint}", section)
    for section in ("rules", *SECTIONS):
        if section in data and not isinstance(data[section], Mapping):
            raise InvalidRulesError("expected a table", section)
    head: Mapping[str, Any] = data.get("rules", {})
    # every key known before a missing one is asked for: a misspelled key is the mistake
    # to name (``game.targte``, not ``game.target: missing key``)
    for key in head:
        if key not in _RULES_KEYS:
            raise _unknown_key("rules", key, sorted(_RULES_KEYS))
    for section, cls in SECTIONS.items():
        names = [f.name for f in dataclasses.fields(cls)]
        for key in data.get(section, {}):
            if key not in names:
                raise _unknown_key(section, key, names)

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
    elif base is not None and name != base.name:
        # a table of its own: the base's words ("Farkle (PlayMonster): six dice, ...") would
        # describe what this file may have changed
        summary = f"starts from {base.name}"
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
    written: set[str] = set()
    for section in SECTIONS:
        table: Mapping[str, Any] = data.get(section, {})
        current = getattr(start, section)
        changes: dict[str, object] = {}
        for key, value in table.items():
            full = f"{section}.{key}"  # (every key known: checked above)
            if key == "singles":
                changes[key] = _parse_singles(value)
            elif key == "kinds":
                changes[key] = _parse_kinds(value, dice, current.kinds)
            elif key == "patterns":
                changes[key] = _parse_patterns(value, dice)
            else:
                changes[key] = _convert_option(key, value, full)
        sections[section] = dataclasses.replace(current, **changes)
        written.update(changes)
    rules = dataclasses.replace(
        start,
        name=name,
        summary=summary,
        dice=dice,
        source=source,
        options=(),
        **sections,  # type: ignore[arg-type]
    )
    rules = settle_idle(rules, written, refuse=not stored)
    validate(rules)
    if not stored:
        refuse_mistakes(rules)
    return rules


def _unknown_key(section: str, key: str, names: list[str]) -> InvalidRulesError:
    """A key that ``[section]`` does not have: the section that has it, else the name
    nearest its spelling."""
    other = next(
        (
            s
            for s, c in (("rules", None), *SECTIONS.items())
            if s != section
            and key in (_RULES_KEYS if c is None else [f.name for f in dataclasses.fields(c)])
        ),
        None,
    )
    hint = f" (it belongs in [{other}])" if other else foreign_hint(key) or _suggest(key, names)
    return InvalidRulesError(f"unknown key{hint}", f"{section}.{key}")


RuleCheck = Callable[[RuleSet], None]
"""A check of a whole rule set that the rules layer cannot make itself (the engine's: can
its games end?), run on every rule set read from a file or switched by options, bases
included; it raises ``InvalidRulesError``, named like the loader's own refusals."""


def _checked(rules: RuleSet, check: RuleCheck | None, source: str) -> RuleSet:
    if check is not None:
        try:
            check(rules)
        except InvalidRulesError as exc:
            if exc.file is None:
                exc.file = source  # the rule set of this file
            raise
    return rules


def parse_rules_text(
    text: str,
    *,
    source: str = "",
    load_base: Callable[[str], RuleSet] | None = None,
    check: RuleCheck | None = None,
    stored: bool = False,
) -> RuleSet:
    """Parse the text of a rule file; TOML syntax errors become InvalidRulesError. An error
    in this text says on which line its key is written (``key_line``). ``stored``: a text
    this program wrote (a record's, a game's in the store), read back as it was played: an
    option it holds that cannot act is reset, not refused (``settle_idle``)."""
    try:
        parsed = _parse_text(text, source=source, load_base=load_base, stored=stored)
        return _checked(parsed, check, source)
    except InvalidRulesError as exc:
        if exc.line is None and not exc.chain and exc.key and exc.file == source:
            exc.line = key_line(text, exc.key)  # the mistake is in this text: where
        raise


def _parse_text(
    text: str,
    *,
    source: str,
    load_base: Callable[[str], RuleSet] | None,
    stored: bool = False,
) -> RuleSet:
    """``parse_rules_text``."""
    if len(text) > MAX_FILE_BYTES:
        raise InvalidRulesError(
            f"a rule file has at most {MAX_FILE_BYTES // 1024} KiB, this text is longer",
            source or None,
        )
    # A byte order mark (Windows' Notepad writes one) read as a TOML statement: "Invalid
    # statement (at line 1, column 1)", of a character no editor shows.
    text = text.removeprefix("\ufeff")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidRulesError(f"not valid TOML: {exc}", source or None) from None
    except RecursionError:
        raise InvalidRulesError(_too_deep(), source or None) from None
    except ValueError:  # Python reads no integer of more than 4300 digits
        raise InvalidRulesError(
            f"not valid here: a number of thousands of digits (no number of a rule set is "
            f"above {MAX_NUMBER})",
            source or None,
        ) from None
    _check_depth(data, source)
    return _parse_data(data, source=source, load_base=load_base, stored=stored)


_BARE = r"[A-Za-z0-9_-]+"
_PART = rf'(?:{_BARE}|"(?:[^"\\]|\\.)*"|\'[^\']*\')'
_PATH = rf"{_PART}(?:\s*\.\s*{_PART})*"
_HEADER = re.compile(rf"\s*(\[\[?)\s*({_PATH})\s*\]\]?")
_ASSIGN = re.compile(rf"\s*({_PATH})\s*=")
_SEGMENT = re.compile(rf"\s*({_PART})\s*(?:\.|$)")
_INDEX = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _toml_path(path: str) -> list[str]:
    """A TOML key path (``a."b c".d``) as its parts, unquoted."""
    parts = []
    for match in _SEGMENT.finditer(path):
        part = match.group(1)
        parts.append(part[1:-1] if part[:1] in "\"'" else part)
    return parts


def key_line(text: str, key: str) -> int | None:
    """The line (from 1) of a rule file's text where ``key`` (``turn.entry``,
    ``scoring.patterns[2].faces``, as the errors name keys) is written, else where the
    nearest table or key above it in the path is (the table of a key that is missing, the
    inline table that holds it); None when none of it is in the text. Lines inside
    multi-line strings are not read as keys."""
    wanted: list[str] = []
    for name, index in _INDEX.findall(key):
        wanted.append(name if name else index)
    best, best_len = None, 0
    table: list[str] = []
    seen: dict[tuple[str, ...], int] = {}
    quote = None  # inside a multi-line string: its delimiter
    # TOML ends a line at \n alone (str.splitlines also splits at U+2028 and others, which a
    # string or a comment may hold)
    for number, line in enumerate(text.split("\n"), start=1):
        if quote is not None:
            if line.count(quote) % 2:
                quote = None
            continue
        header = _HEADER.match(line)
        array: list[str] = []
        if header:
            table = _toml_path(header.group(2))
            if header.group(1) == "[[":  # an array of tables: the n-th is [n]
                array = table  # the array itself (scoring.pattern: an unknown key)
                at = tuple(table)
                table = [*table, str(seen.get(at, 0))]
                seen[at] = seen.get(at, 0) + 1
            path = table
        else:
            assign = _ASSIGN.match(line)
            if not assign:
                continue
            path = [*table, *_toml_path(assign.group(1))]
            rest = line[assign.end() :]
            for delimiter in ('"""', "'''"):
                if rest.count(delimiter) % 2:
                    quote = delimiter
        size = len(path)
        if size > best_len and wanted[:size] == path:
            best, best_len = number, size
        elif array and wanted == array and best_len < len(array):
            best, best_len = number, len(array)  # the first table of the array
    return best


def _too_deep() -> str:
    return f"tables and lists nest at most {MAX_DEPTH} deep in a rule file"


def _check_depth(data: Mapping[str, Any], source: str) -> None:
    """Refuse values nested deeper than any rule needs, before anything reads them."""
    todo: list[tuple[object, int]] = [(data, 0)]
    while todo:
        value, depth = todo.pop()
        if depth > MAX_DEPTH:
            raise InvalidRulesError(_too_deep(), source or None)
        if isinstance(value, Mapping):
            todo += [(v, depth + 1) for v in value.values()]
        elif isinstance(value, list):
            todo += [(v, depth + 1) for v in value]


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


def _load_source(
    source: str, seen: tuple[str, ...] = (), check: RuleCheck | None = None
) -> RuleSet:
    if source in seen:
        loop = " -> ".join(excerpt(name)[1:-1] for name in (*seen, source))
        raise InvalidRulesError(f"rule files extend each other in a loop: {loop}", "rules.extends")
    if len(seen) >= MAX_EXTENDS:
        raise _TooDeep(
            f"a chain of extends holds at most {MAX_EXTENDS} rule files; the one from "
            f"{excerpt(seen[0])} is longer",
            "rules.extends",
        )
    chain = (*seen, source)
    if source in PRESETS:
        return _preset(source)
    if is_unloadable_spec(source):
        raise InvalidRulesError(
            "this is the spec of a rule set built from text or in code, which names no preset "
            "and no file, so it cannot be loaded: write the rule set to a file with to_toml "
            "(zloutch rules show --toml) and load that file",
            source,
        )
    if not looks_like_file(source):
        here = f"{source}.toml"
        if _is_file(here):  # the file, named without .toml
            raise InvalidRulesError(f"unknown preset; the rule file is written {here}", source)
        raise InvalidRulesError(
            f"unknown preset{_suggest(source, PRESETS)}; presets: {', '.join(PRESETS)} "
            "(or give the path of a .toml rule file)",
            source,
        )
    path = Path(source)
    text = _read_rule_file(path, source)
    return parse_rules_text(
        text, source=source, load_base=lambda name: _base(path, name, chain, check), check=check
    )


def _base(path: Path, name: str, chain: tuple[str, ...], check: RuleCheck | None) -> RuleSet:
    """The base ``extends = name`` names in the rule file ``path``: a preset, or a file
    read from the folder of ``path``."""
    if name in PRESETS or not looks_like_file(name):
        # A preset, or a misspelt one: say "unknown preset", not "cannot read the file".
        return _load_source(name, chain, check)
    return _load_source(str(path.parent / name), chain, check)


def dropped_from_base(rules: RuleSet) -> tuple[str, ...]:
    """What a rule file's own ``singles``, ``[[scoring.patterns]]`` and per-face tables of
    ``[scoring.kinds]`` leave out of its base's, one line each: those replace the base's
    whole, and a file that extends farkle to add one pattern loses farkle's straight and
    three pairs unless it repeats them; ``3 = { 1 = 1000 }`` leaves three 2s to 6s worth
    nothing (``rules show`` and ``score`` say so). Empty for a preset, a file that extends nothing
    or drops nothing."""
    source = rules.source
    if not source or source in PRESETS or not looks_like_file(source):
        return ()
    path = Path(source)
    data = tomllib.loads(_read_rule_file(path, source).removeprefix("\ufeff"))
    extends = data.get("rules", {}).get("extends")
    if not isinstance(extends, str):
        return ()
    base = _base(path, extends.strip(), (source,), None)
    written = data.get("scoring", {})
    notes = []
    if "patterns" in written:
        own = {p.faces for p in rules.scoring.patterns}
        lost = [f"{p.name} ({p.points})" for p in base.scoring.patterns if p.faces not in own]
        if lost:
            notes.append(
                f"[[scoring.patterns]] replaces the list of {base.name} whole: "
                f"{', '.join(lost)} {'is' if len(lost) == 1 else 'are'} not in this rule set "
                "(repeat those the table keeps)"
            )
    if "singles" in written:
        own_faces = {face for face, _ in rules.scoring.singles}
        lost = [
            f"{face} ({points})" for face, points in base.scoring.singles if face not in own_faces
        ]
        if lost:
            notes.append(
                f"singles replaces the table of {base.name} whole: the single "
                f"{', '.join(lost)} {'scores' if len(lost) == 1 else 'score'} nothing here "
                "(repeat those the table keeps)"
            )
    kinds = written.get("kinds")
    if isinstance(kinds, Mapping):
        own_kinds = {k.count: k for k in rules.scoring.kinds}
        for k in base.scoring.kinds:
            table = kinds.get(str(k.count))
            if not isinstance(table, Mapping) or "default" in table or k.default == "none":
                continue
            mine = own_kinds.get(k.count)
            named = {face for face, _ in mine.faces} if mine is not None else set()
            dropped = [str(face) for face in range(1, 7) if face not in named]
            if dropped:
                notes.append(
                    f"[scoring.kinds] {k.count} replaces {base.name}'s {KIND_WORDS[k.count]} "
                    f"of a kind whole: without a default, {KIND_WORDS[k.count]} "
                    f"{'/'.join(dropped)}s score nothing here ({base.name}: "
                    f'{k.default}; write default = "{k.default}" in the table to keep it)'
                )
    return tuple(notes)


def _read_rule_file(path: Path, source: str) -> str:
    """The text of a rule file: a regular file of at most MAX_FILE_BYTES, in UTF-8.

    The kind of file is asked before it is opened: opening a FIFO waits for a writer, and
    reading a device such as /dev/zero never ends.
    """
    if "\0" in source:
        raise InvalidRulesError("a rule file's name cannot hold a NUL byte", excerpt(source))
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise InvalidRulesError(f"cannot read the rule file: {what}", source)
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InvalidRulesError(f"cannot read the rule file: {exc.strerror}", source) from None
    if len(data) > MAX_FILE_BYTES:
        raise InvalidRulesError(
            f"a rule file has at most {MAX_FILE_BYTES // 1024} KiB, this one is larger", source
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidRulesError("a rule file must be UTF-8 text", source) from None


@cache
def _preset(name: str) -> RuleSet:
    """A preset, loaded once (rule sets are immutable)."""
    return _parse_text(
        preset_text(name),
        source=name,
        load_base=lambda b: _load_source(b, (name,)),
    )


# ---------------------------------------------------------------------------- specs


def with_options(
    rules: RuleSet,
    values: Mapping[str, OptionValue],
    *,
    check: RuleCheck | None = None,
    stored: bool = False,
) -> RuleSet:
    """Switch options on a rule set, validate the result (and ``check`` it), and record them
    canonically. ``stored``: a spec this program stored (a record's, a game's in the
    server's store), read back as it was played (``settle_idle``)."""
    checked: dict[str, OptionValue] = {}
    for name, value in values.items():
        if name not in OPTIONS:
            raise InvalidRulesError(unknown_option(name, sorted(OPTIONS)), name)
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
    try:
        changed = settle_idle(changed, checked, refuse=not stored)
        # an option that cannot act says nothing: the spec leaves it out, whatever it was
        # given (``dix-mille-6(entry=0,entry_by=turn)`` is ``dix-mille-6(entry=0)``)
        inert = changed.inert_options()
        recorded = tuple(
            sorted((n, v) for n, v in merged.items() if base_values[n] != v and n not in inert)
        )
        changed = dataclasses.replace(changed, options=recorded)
        validate(changed)
        if not stored:
            refuse_mistakes(changed)
        if check is not None:
            check(changed)
    except InvalidRulesError as exc:
        raise InvalidRulesError(f"with these options: {exc}") from None
    return changed


def load_rules(
    spec: str | RuleSet, *, check: RuleCheck | None = None, stored: bool = False
) -> RuleSet:
    """Load a rule set from a spec: ``dix-mille``, ``my-table.toml(entry=800,joker)``.

    ``load_rules(rules.spec) == rules`` for every rule set loaded here. ``stored``: a spec
    this program stored (``with_options``).
    """
    if isinstance(spec, RuleSet):
        return spec
    source, raw_options = split_spec(spec)
    rules = _load_source(source, check=check)
    if not raw_options:
        return rules
    return with_options(rules, _option_values(raw_options), check=check, stored=stored)


def load_preset(spec: str | RuleSet, *, check: RuleCheck | None = None) -> RuleSet:
    """``load_rules`` for a spec from elsewhere (a server's client, an uploaded record): a
    preset with options, never a file on this machine. A spec naming a file is refused
    before anything is read: what it answers says nothing of the files that exist."""
    if isinstance(spec, RuleSet):
        return spec
    source, _ = split_spec(spec)
    if source not in PRESETS and looks_like_file(source):
        raise InvalidRulesError(
            "a rule set from elsewhere is a preset with options, never a file on this "
            "machine: send the rule file's text instead",
            excerpt(source),
        )
    if source not in PRESETS and not is_unloadable_spec(source):
        # as load_rules says it, but a path is no way out here (it is refused above)
        raise InvalidRulesError(
            f"unknown preset{_suggest(source, PRESETS)}; presets: {', '.join(PRESETS)} "
            "(or send a rule file's text)",
            excerpt(source),
        )
    return load_rules(spec, check=check)


def _option_values(raw_options: Iterable[tuple[str, str | None]]) -> dict[str, OptionValue]:
    """The options of a spec, each read once, by name (one given twice is refused)."""
    values: dict[str, OptionValue] = {}
    for name, raw in raw_options:
        if name in values:
            raise InvalidRulesError("option given twice", name)
        values[name] = parse_option_value(name, raw)
    return values


def as_loaded_from(rules: RuleSet, spec: str) -> RuleSet:
    """``rules`` named as the rule file of ``spec`` names it, its path and its options,
    without reading that file (which may be gone, edited, or on another machine).

    A game record keeps the canonical text of the rule file it was played on (``to_toml``)
    and the spec it was started with; the rule set read back from that text is the one the
    game was played with, named as it was (``my-table.toml(entry=800)``). A spec that names
    no file leaves the rule set as it is; options that the rule set does not have are
    refused (a spec and a text that disagree).
    """
    source, raw_options = split_spec(spec)
    if source in PRESETS or not looks_like_file(source):
        return rules
    options = _option_values(raw_options)
    inert = rules.inert_options()  # the text was settled: what cannot act is at its default
    options = {name: value for name, value in options.items() if name not in inert}
    for name, value in options.items():
        if rules.option(name) != value:
            raise InvalidRulesError(
                f"the spec says {name}={_spec_value(value)}, its rule file says "
                f"{name}={_spec_value(rules.option(name))}",
                excerpt(spec),
            )
    return dataclasses.replace(rules, source=source, options=tuple(sorted(options.items())))


def _spec_value(value: OptionValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class SummarySwitches(NamedTuple):
    """What a summary leaves out (``summary_switches``)."""

    options: tuple[tuple[str, OptionValue], ...]
    """The options switched since the summary's words were written."""
    preset: str | None
    """The preset the rules are measured against (they are read from elsewhere, a file
    under the preset's name and summary); None: the options are the spec's own."""


def summary_switches(rules: RuleSet) -> SummarySwitches | None:
    """What the summary of ``rules`` does not say. A summary is the words of the rule file or
    preset it was read from, before any option: the options switched since, those of a spec
    (``dix-mille(entry=800)``) or, for rules read from elsewhere under a preset's name and
    summary (a file ``rules show --toml`` wrote from a spec), every option that makes the
    preset into them (the file's and its spec's); no options where the summary is the rule
    set's own; None where such rules differ from their preset beyond its options."""
    name = rules.name
    if name in PRESETS and rules.source != name and rules.summary == _preset(name).summary:
        options = _options_over(_preset(name), rules)
        return None if options is None else SummarySwitches(options, name)
    return SummarySwitches(rules.options, None)


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
    if source and source not in PRESETS and looks_like_file(source):
        return _spec_text(source, rules.options)
    for name in dict.fromkeys((source, rules.name)):
        if name in PRESETS:
            options = _options_over(_preset(name), rules)
            if options is not None:
                return _spec_text(name, options)
    return f"<{rules.name}>"


def _is_file(name: str) -> bool:
    """Whether ``name`` is a file in the working folder (a plain name only; never an error)."""
    if "/" in name or "\\" in name or len(name) > 255:
        return False
    try:
        return Path(name).is_file()
    except (OSError, ValueError):
        return False
