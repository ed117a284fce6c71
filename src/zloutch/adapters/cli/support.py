"""What every ``zloutch`` command shares: the error edge, the console, the rules option.

Commands live in the modules of ``zloutch.adapters.cli``, registered in its ``__init__``; they all
take the rule set with ``RulesOption``, wrap their body in ``with user_errors():`` and write
files with ``write_output`` (an unwritable path is a user error, not a traceback), having
checked them with ``check_outputs`` before the work.

Every command module is imported to build the ``zloutch`` app (``--help`` needs their
signatures), so this module and they import at module level only what a signature needs
(Typer, the ``Annotated`` option types); Rich, the core and the application layer are
imported inside the functions that use them, and ``zloutch --help`` or ``zloutch score`` start
without the solvers (``tests/adapters/cli/test_startup.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.console import Console

EXIT_USER_ERROR = 2
"""Exit code of every mistake in the input (a bad face, a bad rule spec): the usage code."""

DEFAULT_RULES = "dix-mille"


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn a ``ZloutchError`` into one ``error: ...`` line on stderr and exit code 2."""
    from zloutch.rules import ZloutchError

    try:
        yield
    except ZloutchError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(EXIT_USER_ERROR) from None


@contextmanager
def warnings_as_lines() -> Iterator[None]:
    """Print each ``CacheWarning`` (a cache entry dropped, or not saved) as one line on stderr.

    ``warning: ...``, and the command goes on; other warnings are shown as Python shows them.
    """
    import warnings
    from typing import TextIO

    from zloutch.app.store import CacheWarning

    shown = warnings.showwarning

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, CacheWarning):
            typer.echo(f"warning: {message}", err=True)
        else:
            shown(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.simplefilter("always", CacheWarning)  # the store says each thing once
        warnings.showwarning = show
        yield


def console() -> Console:
    """A console on the current stdout (made per call so test runners can capture it)."""
    from rich.console import Console

    return Console(highlight=False)


def write_output(path: str, text: str) -> None:
    """Write a text file the user named, whole or not at all (the file that was there stays
    as it was); a path that cannot be written is a user error."""
    from zloutch.app.files import write_atomically

    write_atomically(path, text)


def check_outputs(*outputs: tuple[str, str | None]) -> None:
    """Refuse, before any work, an output path that could not be written: each is an
    ``(option, path)`` pair, ``("--json", "out/result.json")``; None (not asked) and ``-``
    (standard output) pass."""
    from zloutch.app.files import check_writable

    for option, path in outputs:
        if path is not None and path != "-":
            check_writable(path, option)


@contextmanager
def progress_bar(
    what: str, units: str, *, disable: bool = False
) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr, gone when done: yields ``advance(done, total)``."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn(what),
        BarColumn(),
        TextColumn(f"{{task.completed}}/{{task.total}} {units}"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=disable,
        transient=True,
    ) as bar:
        task = bar.add_task(what, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def off_terminal() -> bool:
    """Whether stderr is not a terminal (no bar then, and no blank line, in a pipe or a log)."""
    from rich.console import Console

    return not Console(stderr=True).is_terminal


RULES_HELP = (
    "The rule set: a preset name or a .toml rule file, optionally with options, "
    "e.g. 'dix-mille(bump=any,entry=800,joker)'. See: zloutch rules list."
)
RulesOption = Annotated[str, typer.Option("--rules", "-r", metavar="SPEC", help=RULES_HELP)]
