"""The light commands start without the heavy modules: what they import, not how long it takes.

Each case runs ``python -m zloutch ...`` in a fresh interpreter (through ``runpy``, as
``python -m`` does) and reads back the modules loaded when the command is done. Timing is the
job of ``benchmarks/startup.py``; this asserts its cause on any machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import zloutch

# Runs the command as `python -m zloutch ARGS` would, then writes the exit code and the names
# in sys.modules to the file named by the first argument.
RUNNER = """
import json, runpy, sys
report, sys.argv = sys.argv[1], ["zloutch", *sys.argv[2:]]
code = 0
try:
    runpy.run_module("zloutch", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code
with open(report, "w", encoding="utf-8") as out:
    json.dump({"code": code, "modules": sorted(sys.modules)}, out)
"""

HEAVY = (
    "numba",
    "numpy",
    "textual",
    "matplotlib",
    "ray",
    "fastapi",
    "sqlalchemy",
    "uvicorn",
    "zloutch.app.session",
    "zloutch.app.store",
    "zloutch.strategy.kernels",
    "zloutch.strategy.game_solver",
    "zloutch.adapters.tui",
    "zloutch.adapters.plots",
)
"""Never imported by a light command: the Numba kernels and the solvers, the terminal app,
the pictures, Ray, the game session."""

LAYERS_SCORE_NEEDS_NOT = ("zloutch.engine", "zloutch.strategy", "zloutch.sim", "zloutch.app")
"""``zloutch score`` (without ``--advise``) needs the rules and a Rich table only."""


def run_command(args: list[str], tmp_path: Path) -> tuple[int, str, set[str]]:
    """The exit code, the output and the modules loaded of ``python -m zloutch ARGS``."""
    report = tmp_path / "modules.json"
    source = str(Path(zloutch.__file__).resolve().parents[1])  # this tree's zloutch, not another
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([source, os.environ.get("PYTHONPATH", "")])}
    env["COLUMNS"] = "120"
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(report), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(report.read_text(encoding="utf-8"))
    return found["code"] or 0, done.stdout, set(found["modules"])


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The names (or modules under them) that were imported."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.mark.default_cases(4)
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--help"], "score"),
        (["score", "1", "1", "5"], "best: keep 1 1 5 for 250"),
        (["score", "--json", "66642"], '"best": 600'),
        (["rules", "list"], "dix-mille"),
        (["play", "--help"], "--players"),
        (["simulate", "--help"], "--games"),
        (["solve", "--help"], "--game"),
        (["review", "--help"], "--solve"),
        (["plot", "policy", "--help"], "--out"),
        (["serve", "--help"], "--db"),
        (["verify", "--help"], "RECORD"),
    ],
)
def test_light_commands_import_no_heavy_module(args: list[str], says: str, tmp_path: Path) -> None:
    code, out, modules = run_command(args, tmp_path)
    assert code == 0
    assert says in out  # the command did its work: the modules below are those it needed
    assert loaded(modules, HEAVY) == []


@pytest.mark.parametrize("args", [["--help"], ["score", "1", "1", "5"]])
def test_help_and_score_stay_in_the_rules_layer(args: list[str], tmp_path: Path) -> None:
    _, _, modules = run_command(args, tmp_path)
    assert loaded(modules, LAYERS_SCORE_NEEDS_NOT) == []
    assert "zloutch.adapters.cli.score" in modules  # the probe sees the command modules
    # Typer below 0.29 coerces options without pydantic (pyproject.toml pins it): about 70 ms.
    assert loaded(modules, ("pydantic",)) == []


def test_help_loads_no_rule_set(tmp_path: Path) -> None:
    """``zloutch --help`` needs the commands' signatures, not the rules package."""
    _, out, modules = run_command(["--help"], tmp_path)
    assert "score" in out
    assert loaded(modules, ("zloutch.rules",)) == []


def test_advise_brings_the_turn_solver_and_still_no_kernels(tmp_path: Path) -> None:
    code, out, modules = run_command(["score", "--advise", "1", "1", "5"], tmp_path)
    assert code == 0
    assert "Advice at a turn total of 0" in out
    assert "zloutch.strategy.expert" in modules  # the lazy import happens where it is needed
    assert loaded(modules, ("numba", "zloutch.strategy.kernels", "zloutch.app.session")) == []


def test_a_heavy_command_still_finds_its_modules(tmp_path: Path) -> None:
    # `solve` imports the solvers inside the command: they are there when it runs.
    code, out, modules = run_command(["solve", "--rules", "farkle-minimal", "--json"], tmp_path)
    assert code == 0
    assert json.loads(out)["rules"].startswith("farkle-minimal")
    assert "zloutch.app.solve" in modules
