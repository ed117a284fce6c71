"""Golden transcripts of the line mode: scripted dice and commands in, exact text out.

Each case runs ``zloutch play --plain`` (or ``zloutch table --plain``) in a scratch folder
with the dice file ``golden/NAME.dice`` and the typed lines ``golden/NAME.in``; the whole
output, the exit code and the record written are compared with ``golden/NAME.txt``.
Only ``python scripts/regen_golden.py`` rewrites those files.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

from zloutch.adapters.cli import app

GOLDEN = Path(__file__).resolve().parent / "golden"


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[str, ...]
    """The command line after ``zloutch``; NAME.dice is passed with --dice if it exists."""


CASES = (
    Case(
        "play_vs_bot",
        ("play", "--plain", "--rules", "dix-mille(target=1000)", "--players", "Ana,bot:cautious"),
    ),
    Case("take_back_bump_ticks", ("play", "--plain", "--players", "Ana,Bob")),
    Case("joker", ("play", "--plain", "--rules", "dix-mille(joker)", "--players", "Ana,Bob")),
    Case("table_typed", ("table", "--plain", "--players", "Ana,Bob")),
    Case("dice_size_error", ("play", "--plain", "--players", "Ana,Bob")),
    Case("dice_run_out", ("table", "--plain", "--players", "Ana,Bob")),
)


def run_case(case: Case, workdir: Path) -> str:
    """The transcript of a case: what a terminal would show, then the exit code and record."""
    args = [*case.args, "--pace", "0", "--record", f"{case.name}.json"]
    dice = GOLDEN / f"{case.name}.dice"
    if dice.exists():
        shutil.copy(dice, workdir / dice.name)
        args += ["--dice", dice.name]
    typed = (GOLDEN / f"{case.name}.in").read_text(encoding="utf-8")
    runner = CliRunner()
    with contextlib.chdir(workdir):
        result = runner.invoke(app, args, input=typed)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        shown = runner.invoke(app, ["record", "show", "--json", f"{case.name}.json"])
    return (
        f"$ zloutch {' '.join(args)}\n"
        + result.output
        + f"[exit {result.exit_code}]\n"
        + f"$ zloutch record show --json {case.name}.json\n"
        + shown.output
    )


def golden_path(case: Case) -> Path:
    return GOLDEN / f"{case.name}.txt"
