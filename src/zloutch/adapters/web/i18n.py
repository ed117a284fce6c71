"""The server's words in the players' language, translated at the edge.

The engine and the rules speak English (``Ana keeps 1 5 for 150 (turn total 150)``). The
French comes from gettext catalogs, ``locale/<lang>/LC_MESSAGES/<domain>.po``, read at run
time with Babel (no build step) and kept once per process:

- ``engine.po``: what the engine and the rules say. A msgid is an English text with its
  variable parts named (``{player} keeps {dice} for {points} (turn total {total})``); each is
  compiled once into a regular expression whose placeholders capture, an English text is
  matched against them and the msgstr is filled with what they caught. A placeholder's name
  says what it stands for (``KINDS``; any other name is a number): numbers, dice and player
  names are written as they came; ``{why}`` is a text translated in turn (``{whys}`` and
  ``{items}``: texts joined by ``; `` or ``, ``, each translated); a name that is a
  msgctxt of the catalog (``{count}``, ``{kind}``) is a word translated by that context's
  entries (``three`` -> ``trois``, or ``brelan`` for a kind).
- ``ui.po``: the page's own labels (``ui_catalog``), sent to the page as they are.

A text no msgid matches is returned as it is; a test drives games over every preset and
checks that everything the engine can say is matched, and another reviews games of every
preset and checks the review's words (``zloutch.app.review_words``) the same way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from babel.messages.pofile import read_po
from babel.numbers import get_decimal_symbol

from zloutch.rules import ZloutchError

LANGUAGES = ("en", "fr")
"""The languages the server speaks; English is the engine's own."""

LOCALE = Path(__file__).with_name("locale")
ENGINE_DOMAIN = "engine"
UI_DOMAIN = "ui"

NUMBER = r"-?[0-9]+"
"""What a placeholder not in ``KINDS`` stands for."""

_NAME = r".+?"
KINDS: Mapping[str, str] = MappingProxyType(
    {
        "player": _NAME,  # a player's name
        "victim": _NAME,
        "winners": _NAME,  # names joined by " and " (the msgctxt "list" translates "and")
        "text": _NAME,  # written as it came (an action)
        "typed": r"'[^']*'|\"[^\"]*\"",  # what a person typed, quoted (Python's repr)
        "dice": r"[0-9]+(?: [0-9]+)*",  # faces as players write them: 1 1 5
        "throw": r"[0-9]+(?: [0-9]+)*",
        "word": r"[a-z]+",  # an action's word of the notation: keep, bank
        "error": r"\w+",  # the name of an exception
        "rule": r"[A-Z]-[0-9]+",  # a rule id: T-8
        "why": r".+",  # a text of its own, translated in turn
        "whys": r".+",  # texts joined by "; ", each translated in turn
        "items": r".+",  # texts joined by ", ", each translated in turn
        "players": _NAME,  # names joined by " against " (the msgctxt "list" translates it)
        "spec": r"\S+",  # a rule set's spec: dix-mille(target=1000,joker)
        "model": r"\S+",  # the spec of a rule set's model (the sheet-blind model)
        "base": _NAME,  # the preset or file a rule file extends (its summary: "starts from")
        "amount": r"-?[0-9]+(?:\.[0-9]+)?",  # a number that may have decimals: 0.5
        "key": r"[a-z_]+(?:\.[a-z_]+)?",  # an option's name, or a rule file's key: game.target
    }
)

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")

WON = "{winners} won"
"""The msgid of the end of a game (``Won``), filled from the event's fields when it can be."""


class UnknownLanguageError(ZloutchError):
    """A language the server has no catalog for."""


@dataclass(frozen=True)
class Template:
    """One msgid compiled: its pattern, its msgstr, and how much literal text it holds (the
    more, the more specific: tried first)."""

    msgid: str
    msgstr: str
    pattern: re.Pattern[str]
    literal: int


@dataclass(frozen=True)
class Catalog:
    """A domain's messages in one language: exact texts, templates, and words by context."""

    exact: Mapping[str, str]
    templates: tuple[Template, ...]
    words: Mapping[str, Mapping[str, str]]


def placeholders(text: str) -> list[str]:
    """The placeholder names of a msgid or msgstr, in order (``["player", "dice"]``)."""
    return _PLACEHOLDER.findall(text)


def check_language(lang: str) -> str:
    if lang not in LANGUAGES:
        raise UnknownLanguageError(
            f"unknown language {lang!r}: the languages are {', '.join(LANGUAGES)}"
        )
    return lang


def negotiate(accept_language: str | None, requested: str | None = None) -> str:
    """``requested`` if it is one of LANGUAGES, else the best of an HTTP Accept-Language
    header (``fr-CH, fr;q=0.9, en;q=0.8``) that is one, else English."""
    if requested in LANGUAGES:
        return requested
    wanted: list[tuple[float, int, str]] = []
    for place, item in enumerate((accept_language or "").split(",")):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        primary = tag.strip().lower().split("-")[0]
        if quality > 0 and primary in LANGUAGES:
            wanted.append((-quality, place, primary))
    return min(wanted)[2] if wanted else "en"


@cache
def catalog(lang: str, domain: str = ENGINE_DOMAIN) -> Catalog:
    """The catalog of a domain in a language, read once (English: empty)."""
    check_language(lang)
    path = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
    if lang == "en" or not path.exists():
        return Catalog({}, (), {})
    with path.open("rb") as f:
        po = read_po(f)
    exact: dict[str, str] = {}
    words: dict[str, dict[str, str]] = {}
    for message in po:
        if not isinstance(message.id, str) or not message.id or message.fuzzy:
            continue
        if not isinstance(message.string, str) or not message.string:
            continue
        if message.context:
            words.setdefault(message.context, {})[message.id] = message.string
        else:
            exact[message.id] = message.string
    templates = tuple(
        sorted(
            (_compile(msgid, msgstr, words) for msgid, msgstr in exact.items() if "{" in msgid),
            key=lambda t: -t.literal,
        )
    )
    return Catalog(exact, templates, words)


def _compile(msgid: str, msgstr: str, words: Mapping[str, Mapping[str, str]]) -> Template:
    parts: list[str] = []
    seen: set[str] = set()
    end = 0
    for match in _PLACEHOLDER.finditer(msgid):
        parts.append(re.escape(msgid[end : match.start()]))
        name = match.group(1)
        if name in seen:
            parts.append(f"(?P={name})")
        else:
            seen.add(name)
            if name in words:
                choices = sorted(words[name], key=len, reverse=True)
                what = "|".join(map(re.escape, choices))
            else:
                what = KINDS.get(name, NUMBER)
            parts.append(f"(?P<{name}>{what})")
        end = match.end()
    parts.append(re.escape(msgid[end:]))
    literal = len(_PLACEHOLDER.sub("", msgid))
    return Template(msgid, msgstr, re.compile("".join(parts), re.DOTALL), literal)


@lru_cache(maxsize=16384)
def translate(text: str, lang: str) -> str:
    """An English text of the engine or the rules (a refusal, an event's text, a farkle's
    reason, an option's meaning, a preset's summary, a combination's name) in ``lang``;
    a text the catalog does not know is returned as it is."""
    if check_language(lang) == "en":
        return text
    book = catalog(lang)
    found = book.exact.get(text)
    if found is not None:
        return found
    for template in book.templates:
        match = template.pattern.fullmatch(text)
        if match is not None:
            values = {
                name: _value(name, value, lang, book) for name, value in match.groupdict().items()
            }
            return fill(template.msgstr, values)
    return text


def fill(msgstr: str, values: Mapping[str, str]) -> str:
    """A msgstr with its placeholders replaced (not ``str.format``: a name may hold braces)."""
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], msgstr)


def _list_word(book: Catalog, word: str = "and") -> str:
    return book.words.get("list", {}).get(word, word)


_JOINED = {"whys": "; ", "items": ", "}
"""The kinds that are texts joined by a separator, each translated in turn."""


def _value(name: str, value: str, lang: str, book: Catalog) -> str:
    if name in book.words:
        return book.words[name][value]
    if name == "why":
        return translate(value, lang)
    if name in _JOINED:
        joint = _JOINED[name]
        mark = _list_word(book, joint.strip())  # French writes " ; "
        return f"{mark} ".join(translate(part, lang) for part in value.split(joint))
    if name == "winners":
        return f" {_list_word(book)} ".join(value.split(" and "))
    if name == "players":
        return f" {_list_word(book, 'against')} ".join(value.split(" against "))
    if name == "amount":
        return value.replace(".", get_decimal_symbol(lang))
    return value


def translate_event(
    event: Mapping[str, Any], lang: str, names: Sequence[str] | None = None
) -> dict[str, Any]:
    """A copy of one event's JSON (docs/server.md) with its ``text`` in ``lang``.

    With the players' ``names``, the winners of a ``Won`` are read from its ``winners``
    field rather than from the words (a name may itself hold " and ")."""
    copy = dict(event)
    text = copy.get("text")
    if not isinstance(text, str):
        return copy
    winners = copy.get("winners")
    won = catalog(lang).exact.get(WON)
    if names is not None and isinstance(winners, list) and won is not None:
        joint = f" {_list_word(catalog(lang))} "
        copy["text"] = fill(won, {"winners": joint.join(names[w] for w in winners)})
    else:
        copy["text"] = translate(text, lang)
    return copy


def ui_catalog(lang: str) -> dict[str, str]:
    """The page's labels in ``lang``: msgid -> msgstr ({} for English)."""
    return dict(catalog(lang, UI_DOMAIN).exact)
