"""Errors of the rules layer: each carries a message a player understands."""

from __future__ import annotations


class ZloutchError(ValueError):
    """Base class of every error the program reports to a person."""


class InvalidRulesError(ZloutchError):
    """A rule file, a rule spec or an option is wrong.

    ``key`` names the offending key (``"turn.entry"``, ``"bump"``) when there is one.
    """

    def __init__(self, message: str, key: str | None = None) -> None:
        self.key = key
        super().__init__(f"{key}: {message}" if key else message)


class InvalidDiceError(ZloutchError):
    """Faces outside 1..6, an empty throw, or more dice than the rule set has."""


class IllegalKeepError(ZloutchError):
    """A keep a player named is not legal for this throw."""
