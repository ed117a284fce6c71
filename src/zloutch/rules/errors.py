"""Errors of the rules layer: each carries a message a player understands."""

from __future__ import annotations


class ZloutchError(ValueError):
    """Base class of every error the program reports to a person."""


class InvalidRulesError(ZloutchError):
    """A rule file, a rule spec or an option is wrong.

    ``key`` names the offending key (``"turn.entry"``, ``"bump"``) when there is one, and
    ``reason`` says what is wrong with it. An error found in a rule file that another one
    extends names the files: ``chain`` lists them, the file the error is in first, then the
    files that extend it (``in base.toml, extended by house.toml: turn.entri: ...``).
    """

    def __init__(
        self, message: str, key: str | None = None, *, chain: tuple[str, ...] = ()
    ) -> None:
        self.key = key
        self.reason = message
        self.chain = chain
        self.file: str | None = None
        """The rule file (or preset) whose own text holds the mistake, once known."""
        text = f"{key}: {message}" if key else message
        if chain:
            text = f"in {', extended by '.join(chain)}: {text}"
        super().__init__(text)


class InvalidDiceError(ZloutchError):
    """Faces outside 1..6, an empty throw, or more dice than the rule set has."""


class IllegalKeepError(ZloutchError):
    """A keep a player named is not legal for this throw."""
