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

import functools
import inspect
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

if TYPE_CHECKING:
    from rich.console import Console

    from zloutch.rules import RuleSet
    from zloutch.strategy.game_solver import GameSolution

EXIT_USER_ERROR = 2
"""Exit code of every mistake in the input (a bad face, a bad rule spec): the usage code."""

EXIT_INTERRUPTED = 130
"""Exit code after Ctrl-C: 128 + SIGINT, as shells report it."""

DEFAULT_RULES = "dix-mille"


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn a ``ZloutchError`` into one ``error: ...`` line on stderr and exit code 2."""
    from zloutch.rules import InvalidRulesError, ZloutchError

    try:
        yield
    except ZloutchError as exc:
        # a rule file's mistake: which of the files given holds it, and on which line
        text = exc.located() if isinstance(exc, InvalidRulesError) else str(exc)
        typer.echo(f"error: {one_line(text)}", err=True)
        raise typer.Exit(EXIT_USER_ERROR) from None


@contextmanager
def fewer_collections(young: int = 10_000) -> Iterator[None]:
    """Python's cycle collector less often while a command builds its tables: a collection
    every ``young`` new objects (Python's default: 700), the thresholds restored after.

    NumPy, Numba and the tables leave some hundred thousand objects that live until the
    command ends, and the collector's full passes walked them again and again: in
    ``zloutch simulate -n 1000 --method fast`` (0.75 s in all) the collector took about
    0.1 s, 0.03 s of it saved here (``benchmarks/simulate_parts.py``).
    """
    import gc

    thresholds = gc.get_threshold()
    gc.set_threshold(young, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


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


def one_line(text: str) -> str:
    """A message on one line: the line breaks and other control characters of a quoted
    input (a rule spec with a newline in it) written as escapes, ``\\n``."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# ---------------------------------------------------------------------------- the command classes

try:  # Typer 0.22+ carries its own copy of Click
    from typer._click import exceptions as click_errors  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - an older Typer on Click itself
    from click import exceptions as click_errors  # type: ignore[no-redef,unused-ignore]

NO_ARGS_IS_HELP: Any = getattr(click_errors, "NoArgsIsHelpError", ())
"""Click 8.2+ says "no arguments: the help" with an error; older ones exit by themselves."""


@functools.cache
def _words(text: type[Any]) -> type[Any]:
    """A text argument's type whose name says what it is (``RECORD``, ``FACES``): no
    ``<str>`` beside it in the help, which Typer draws for an argument's type. Made from the
    text type Typer gives (its own copy of Click's, or Click's)."""

    class Words(text):  # type: ignore[misc]
        def get_metavar(self, param: Any, ctx: Any = None) -> str | None:
            return ""

    return Words


def _quiet_flags(params: list[Any]) -> list[Any]:
    """Flags (``--json``, ``--help``) take no value: no type label beside them in the help;
    nor a text argument (``_words``)."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
        if isinstance(param, TyperArgument) and type(param.type).__name__ == "StringParamType":
            param.type = _words(type(param.type))()  # type: ignore[arg-type]
    return params


def _usage_pieces(command: Any, ctx: Any) -> list[str]:
    """The usage line with arguments as ``FILE`` (required) and ``[FILE]``, not ``{FILE}``."""
    pieces = [command.options_metavar] if command.options_metavar else []
    for param in command.get_params(ctx):
        if isinstance(param, TyperArgument):
            name = param.metavar or (param.name or "").upper()
            name = name if param.required else f"[{name}]"
            pieces.append(name + ("..." if param.nargs != 1 else ""))
        else:
            pieces.extend(param.get_usage_pieces(ctx))
    return pieces


def reflow(text: str | None) -> str | None:
    """A command's help with each paragraph on one line, for the terminal to wrap.

    Help texts come from docstrings, wrapped for the source; Typer's help keeps those line
    breaks, and an 80-column terminal then breaks each line again: a ragged paragraph. A
    paragraph that starts with ``\\b`` (click's mark for "do not rewrap") or holds a list
    (lines starting with ``- ``) or an indented block keeps its lines."""
    if not text:
        return text
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        p if _keeps_lines(p) else " ".join(line.strip() for line in p.splitlines())
        for p in paragraphs
    )


def _keeps_lines(paragraph: str) -> bool:
    if paragraph.startswith(("\b", "\f")):
        return True
    return any(line.startswith(("- ", "* ", " ")) for line in paragraph.splitlines())


class Command(TyperCommand):
    """A ``zloutch`` command: flags without a type label, arguments named plainly, its help's
    paragraphs wrapped by the terminal (``reflow``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _quiet_flags(super().get_params(ctx))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _usage_pieces(self, ctx)


class Group(TyperGroup):
    """A group of ``zloutch`` commands; the root's ``main`` is the edge of the command line:
    a usage mistake (``--seed abc``, an unknown option) is one ``error:`` line and exit code 2,
    as every ``ZloutchError`` is, while ``--help`` stays as Typer draws it (its paragraphs
    wrapped by the terminal, ``reflow``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _quiet_flags(super().get_params(ctx))

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return [*_usage_pieces(self, ctx), self.subcommand_metavar or "COMMAND [ARGS]..."]

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(
                args, prog_name, complete_var, standalone_mode, windows_expand_args, **extra
            )
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except NO_ARGS_IS_HELP as exc:  # the help is printed already
            sys.exit(exc.exit_code)
        except click_errors.UsageError as exc:
            ctx = exc.ctx
            path = ctx.command_path if ctx is not None else self.name or "zloutch"
            where = f" (see: {path} --help)"
            message = one_line(_lower(exc.format_message())).rstrip(".")
            typer.echo(f"error: {message}{where}", err=True)
            sys.exit(EXIT_USER_ERROR)
        except click_errors.ClickException as exc:
            typer.echo(f"error: {one_line(_lower(exc.format_message()))}", err=True)
            sys.exit(exc.exit_code)
        except typer.Abort:
            typer.echo("Aborted.", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) and not isinstance(code, bool) else 0)


def _lower(message: str) -> str:
    """Click's "Invalid value for..." as the other error lines start: in lower case."""
    message = " ".join(message.split())
    if message[:1].isupper() and message[1:2].islower():
        return message[:1].lower() + message[1:]
    return message


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
    what: str, units: str, *, disable: bool = False, console: Console | None = None
) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr, gone when done: yields ``advance(done, total)``. Before the
    first call it says "starting" (a solve's set-up), not "0/None"."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(
        TextColumn(what),
        BarColumn(),
        TextColumn("{task.fields[count]}"),
        TimeRemainingColumn(),
        console=console or Console(stderr=True),
        disable=disable,
        transient=True,
    ) as bar:
        task = bar.add_task(what, total=None, count="starting")

        def advance(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, count=f"{done:,}/{total:,} {units}")

        yield advance


def solved_game_with_progress(rules: RuleSet, threads: int | None = None) -> GameSolution:
    """The solved game, from the cache or solved now under a progress bar on stderr."""
    from zloutch.app.solve import solved_game

    with progress_bar("Solving the game", "score levels", disable=off_terminal()) as advance:
        solution, _ = solved_game(rules, progress=advance, threads=threads)
    return solution


def off_terminal() -> bool:
    """Whether stderr is not a terminal (no bar then, and no blank line, in a pipe or a log)."""
    from rich.console import Console

    return not Console(stderr=True).is_terminal


ThreadsOption = Annotated[
    int | None,
    typer.Option(
        "--threads",
        min=1,
        metavar="N",
        help="Threads sharing a game's solve, where one is needed (default: one per CPU).",
    ),
]


RULES_HELP = (
    "The rule set: a preset name or a .toml rule file, optionally with options, "
    "e.g. 'dix-mille(entry=800,joker)'. See: zloutch rules list."
)
RulesOption = Annotated[str, typer.Option("--rules", "-r", metavar="SPEC", help=RULES_HELP)]
