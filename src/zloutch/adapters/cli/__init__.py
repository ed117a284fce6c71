"""The ``zloutch`` command line: parse input, call the application layer, render the result.

No rule lives here. Each command is a small function in a module of its own that reads its
arguments, asks the core or the application layer, and hands the answer to a renderer
(``render_*``: Rich tables for people, ``*_json`` for programs). Every ``ZloutchError`` is
caught at the edge (``user_errors``) and printed as one ``error: ...`` line on stderr with
exit code 2.

- this module: ``app``, ``--version`` and ``main``, the console script; it registers the
  commands in the order of ``zloutch --help``;
- one module per command: ``score``, ``rules`` (``rules list|show``), ``record``
  (``record show``), ``solve``, ``play`` (``play`` and ``table``), ``simulate``, ``plot``
  (``plot ...``) and ``review``;
- ``support``: what they share (``user_errors``, ``console``, ``RulesOption``,
  ``progress_bar``, ``write_output``). The command modules import from it, never from here.

The command line is the entry point that starts the other adapters (the full-screen app, the
line mode, the pictures); it imports them only inside the commands that need them.

To add a command: write it in a module ``zloutch.adapters.cli.<name>`` as a plain function and
register it below, take the rule set with the shared ``RulesOption``, wrap its body in
``with user_errors():``, and keep its rendering in a ``render_*`` function. Every command
module is imported whenever ``zloutch`` starts: import Rich, the core and the application
layer inside the functions that use them (names for annotations only under
``if TYPE_CHECKING:``), so that ``zloutch --help`` and ``zloutch score`` do not pay for the
solvers (``tests/adapters/cli/test_startup.py``, ``benchmarks/startup.py``).
"""

from __future__ import annotations

from typing import Annotated

import typer

from zloutch import __version__
from zloutch.adapters.cli.play import play, table
from zloutch.adapters.cli.plot import plot_app
from zloutch.adapters.cli.record import record_app
from zloutch.adapters.cli.review import review
from zloutch.adapters.cli.rules import rules_app
from zloutch.adapters.cli.score import score
from zloutch.adapters.cli.serve import serve
from zloutch.adapters.cli.simulate import simulate
from zloutch.adapters.cli.solve import solve
from zloutch.adapters.cli.support import Command, Group
from zloutch.adapters.cli.verify import verify

__all__ = ["app", "main"]

app = typer.Typer(
    name="zloutch",
    cls=Group,
    help="The dice game 10,000 (dix mille, zilch, farkle) and its family, exactly.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},  # every command's, -h too
    pretty_exceptions_show_locals=False,
)


# ---------------------------------------------------------------------------- root and score


def show_version(value: bool) -> None:
    if value:
        typer.echo(f"zloutch {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=show_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """The dice game 10,000 (dix mille, zilch, farkle) and its family, exactly.

    Score a throw with 'zloutch score 1 1 5 3 2'; see the rule sets with 'zloutch rules list'.
    """


app.command(cls=Command, context_settings={"ignore_unknown_options": True})(score)
app.add_typer(rules_app, name="rules")
app.add_typer(record_app, name="record")
app.command(cls=Command)(solve)
app.command(cls=Command)(play)
app.command(cls=Command)(table)
app.command(cls=Command)(simulate)
app.add_typer(plot_app, name="plot")
app.command(cls=Command)(review)
app.command(cls=Command)(verify)
app.command(cls=Command)(serve)


def main() -> None:
    """The ``zloutch`` console script.

    At the end, what is still alive is frozen (``gc.freeze``): the process ends and the OS
    frees it, and Python's last collection at exit no longer walks it. After NumPy and Numba
    that collection walked some hundred thousand objects, 0.12 s of the 0.75 s that
    ``zloutch simulate -n 1000 --method fast`` took (``benchmarks/simulate_parts.py``). Exit
    handlers still run, but an object frozen here may not be finalised: a buffered file left
    open (in the main module's globals, or in a cycle) could lose its last write, a
    ``__del__`` not run. So a command closes what it opens before it returns: its files are
    written whole by ``app.files.atomic_file``, the server closes its stores in its lifespan,
    and standard output is flushed by the interpreter whatever is frozen.
    """
    import gc

    try:
        app()
    finally:
        gc.freeze()
