"""Errors of the rules layer: each carries a message a player understands."""

from __future__ import annotations

import reprlib
from pathlib import Path

EXCERPT = 60
"""The most characters of a person's input an error quotes (a huge input is cut short)."""
LONG_KEY = 256
"""A key (a file's path, a spec) longer than this is cut to ``EXCERPT`` characters."""


def excerpt(value: object, limit: int = EXCERPT) -> str:
    """``repr(value)`` cut to about ``limit`` characters, safe on any input.

    A whole number too long to print (Python refuses past 4300 digits) is described by its
    length; a deeply nested value is cut by reprlib before ``repr`` can recurse.
    """
    if isinstance(value, bool):  # as a rule file spells it (TOML, JSON), not as Python does
        return "true" if value else "false"
    if isinstance(value, int):
        try:
            digits = len(str(abs(value)))
        except ValueError:  # past Python's 4300 digits: counted from its bits
            digits = int(value.bit_length() * 0.30103) + 1
        return str(value) if digits <= limit else f"a number of {digits} digits"
    if isinstance(value, str):
        text = value if len(value) <= limit else value[: max(limit - 3, 1)] + "..."
        return repr(text)
    short = reprlib.Repr()
    short.maxlevel, short.maxstring, short.maxother = 3, limit, limit
    short.maxlist = short.maxdict = short.maxtuple = short.maxset = 6
    short.maxlong = 20
    try:
        text = short.repr(value)
    except (ValueError, RecursionError):  # a huge number inside a list or a table
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ZloutchError(ValueError):
    """Base class of every error the program reports to a person."""


def looks_like_file(source: str) -> bool:
    """A spec that names a rule file (``.toml``, or a path with a folder), not a preset."""
    return Path(source).suffix == ".toml" or "/" in source or "\\" in source


def is_unloadable_spec(source: str) -> bool:
    """``<house>``: the spec of a rule set built from text or in code (see RuleSet.spec)."""
    return source.startswith("<") and source.endswith(">")


class InvalidRulesError(ZloutchError):
    """A rule file, a rule spec or an option is wrong.

    ``key`` names the offending key (``"turn.entry"``, ``"bump"``) when there is one, and
    ``reason`` says what is wrong with it. An error found in a rule file that another one
    extends names the files: ``chain`` lists them, the file the error is in first, then the
    files that extend it (``in base.toml, line 9, extended by house.toml: turn.entri:
    ...``). ``line``: the line of the file's text where the key is written (or its table),
    where it could be found.
    """

    def __init__(
        self,
        message: str,
        key: str | None = None,
        *,
        chain: tuple[str, ...] = (),
        line: int | None = None,
    ) -> None:
        if key is not None and len(key) > LONG_KEY:  # a key made of a huge input
            key = key[: EXCERPT - 3] + "..."
        self.key = key
        self.reason = message
        self.chain = chain
        self.line = line
        self.file: str | None = None
        """The rule file (or preset) whose own text holds the mistake, once known."""
        text = f"{key}: {message}" if key else message
        if chain:
            first = f"{chain[0]}, line {line}" if line is not None else chain[0]
            text = f"in {', extended by '.join((first, *chain[1:]))}: {text}"
        super().__init__(text)

    def located(self) -> str:
        """The error with where its mistake is written, once the loader knows: ``in
        house.toml, line 9: ...`` for a rule file, ``line 9: ...`` for a rule file's text
        that has no name (an upload), the error alone otherwise (a chain of files says
        where already)."""
        text = str(self)
        if self.chain:
            return text
        file = self.file or ""
        # a file's path, as the loader reads one, not a preset's name nor a text's
        # placeholder (``<rule file>``)
        if looks_like_file(file) and not is_unloadable_spec(file):
            where = f"{file}, line {self.line}" if self.line is not None else file
            return f"in {where}: {text}"
        if self.line is not None:
            return f"line {self.line}: {text}"
        return text


class InvalidDiceError(ZloutchError):
    """Faces outside 1..6, an empty throw, or more dice than the rule set has."""


class IllegalKeepError(ZloutchError):
    """A keep a player named is not legal for this throw."""
