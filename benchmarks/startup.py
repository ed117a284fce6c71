"""Start-up cost of the ``zloutch`` command, against the old import set, measured in one run.

Each command runs ``--runs`` times in a fresh interpreter (``python -m zloutch ...``); the CPU
time of the child (user + system, from ``resource.getrusage(RUSAGE_CHILDREN)`` before and
after) and its wall time are kept, and the minimum and median printed.

The reference, measured in the same run and interleaved with it (so that the machine's load
falls on both alike): the same command with ``OLD_IMPORT_SET`` imported first, the modules
that the command modules imported at their top before they imported them lazily (the game
session with its bots, the game solver and its Numba kernels, NumPy, the pictures, the Rich
tables), which every command paid. The ratio new / old is the figure to compare. Two more
lines, ``typer floor``, time a bare Typer app of one command: what Typer and Rich cost before
Zloutch does anything, the floor no change to Zloutch can go under.

The figures measured on this machine on 2026-12-01, before the change (``PRE_CHANGE``), are
printed with their ratio too, as a reminder of the starting point; ratios across runs depend
on the load, so trust the same-run ratio.

The children run with a bytecode cache of their own (a temporary ``PYTHONPYCACHEPREFIX``,
warmed by one unmeasured run of each command), as an installed package has its ``.pyc``
files; ``--as-is`` keeps the environment's setting instead (with ``PYTHONDONTWRITEBYTECODE``
every run compiles Zloutch's modules again). Run: ``python benchmarks/startup.py`` (about a
minute on two cores; ``--runs 3`` for a quick look).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

COMMANDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("zloutch --help", ("--help",)),
    ("zloutch score 1 1 5", ("score", "1", "1", "5")),
    ("zloutch rules list", ("rules", "list")),
    ("zloutch play --help", ("play", "--help")),
)
"""The commands timed: a label and the arguments after ``python -m zloutch``."""

IMPORT_LABEL = 'python -c "import zloutch"'

PRE_CHANGE = {"zloutch --help": 1.3, "zloutch score 1 1 5": 1.55}
"""CPU seconds (user + sys) on this machine on 2026-12-01, before the change (score: 1.5 to
1.6 s, taken as 1.55)."""

TARGET = 0.25
"""The aim for ``zloutch --help`` and ``zloutch score``: CPU seconds."""

OLD_IMPORT_SET = (
    "rich.table",
    "zloutch.adapters.plots",
    "zloutch.app.dice",
    "zloutch.console.render",
    "zloutch.app.review",
    "zloutch.console.review",
    "zloutch.app.session",
    "zloutch.app.solve",
    "zloutch.engine.record",
    "zloutch.sim.turns",
    "zloutch.strategy.expert",
    "zloutch.strategy.game_solver",
)
"""What ``zloutch.adapters.cli`` imported at its modules' top before the change (commit
ca89606): every command loaded these before it parsed its arguments."""

# The command as `python -m zloutch ARGS` runs it, after importing the old import set.
OLD_IMPORTS = f"""
import importlib, runpy, sys
for name in {OLD_IMPORT_SET!r}:
    importlib.import_module(name)
sys.argv = ["zloutch", *sys.argv[1:]]
runpy.run_module("zloutch", run_name="__main__", alter_sys=True)
"""

# A bare Typer app with one command and one option: Typer's own start-up.
TYPER_FLOOR = """
import typer
app = typer.Typer(add_completion=False)
@app.command()
def run(rules: str = "dix-mille") -> None:
    print(rules)
@app.command()
def other() -> None:
    pass
app()
"""


@dataclass(frozen=True)
class Sample:
    cpu: float
    wall: float


def run_once(argv: Sequence[str], env: Mapping[str, str]) -> Sample:
    """One run of a child: its CPU seconds (user + sys) and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        argv, env=dict(env), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise SystemExit(f"error: {' '.join(argv)} failed: {message[-1] if message else '?'}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Sample(cpu, wall)


def child_env(as_is: bool, cache: str) -> dict[str, str]:
    """The environment of the children: this tree's zloutch first, and a bytecode cache."""
    spec = importlib.util.find_spec("zloutch")
    if spec is None or spec.origin is None:
        raise SystemExit("error: zloutch is not importable (run with PYTHONPATH=src)")
    source = str(Path(spec.origin).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source, env.get("PYTHONPATH")) if p)
    if not as_is:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = cache
    return env


def describe(samples: Sequence[Sample]) -> tuple[float, float, float, float]:
    cpu = [s.cpu for s in samples]
    wall = [s.wall for s in samples]
    return min(cpu), statistics.median(cpu), min(wall), statistics.median(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="measured runs of each command")
    parser.add_argument(
        "--as-is",
        action="store_true",
        help="keep the environment's bytecode setting (no private .pyc cache)",
    )
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    python = sys.executable
    cases: list[tuple[str, list[str], list[str]]] = [
        (label, [python, "-m", "zloutch", *argv], [python, "-c", OLD_IMPORTS, *argv])
        for label, argv in COMMANDS
    ]
    cases.append(
        (
            IMPORT_LABEL,
            [python, "-c", "import zloutch"],
            [python, "-c", f"import zloutch, {', '.join(OLD_IMPORT_SET)}"],
        )
    )
    floors = {
        "typer floor: --help": [python, "-c", TYPER_FLOOR, "--help"],
        "typer floor: run": [python, "-c", TYPER_FLOOR, "run"],
    }

    with tempfile.TemporaryDirectory(prefix="zloutch-pyc-") as cache:
        env = child_env(args.as_is, cache)
        for _, new, old in cases:  # warm the bytecode cache, unmeasured
            run_once(new, env)
            run_once(old, env)
        for argv in floors.values():
            run_once(argv, env)
        new_samples: dict[str, list[Sample]] = {label: [] for label, _, _ in cases}
        old_samples: dict[str, list[Sample]] = {label: [] for label, _, _ in cases}
        floor_samples: dict[str, list[Sample]] = {label: [] for label in floors}
        for _ in range(args.runs):  # interleaved: new, old, new, old...
            for label, new, old in cases:
                new_samples[label].append(run_once(new, env))
                old_samples[label].append(run_once(old, env))
            for label, argv in floors.items():
                floor_samples[label].append(run_once(argv, env))

    mode = "environment as is" if args.as_is else "private bytecode cache, warmed"
    print(f"start-up of the zloutch command: {args.runs} runs each, {mode}, python {python}")
    print("CPU: user + sys of the child, in seconds; old: the same after OLD_IMPORT_SET")
    head = (
        f"{'command':28} {'cpu min':>8} {'cpu med':>8} {'wall med':>8} "
        f"{'old med':>8} {'new/old':>8} {'2026-12-01':>10} {'new/then':>8}"
    )
    print(head)
    print("-" * len(head))
    for label, _, _ in cases:
        cpu_min, cpu_med, _, wall_med = describe(new_samples[label])
        old_med = describe(old_samples[label])[1]
        then = PRE_CHANGE.get(label)
        then_text = f"{then:10.2f} {cpu_med / then:8.2f}" if then else f"{'-':>10} {'-':>8}"
        print(
            f"{label:28} {cpu_min:8.3f} {cpu_med:8.3f} {wall_med:8.3f} "
            f"{old_med:8.3f} {cpu_med / old_med:8.2f} {then_text}"
        )
    for label in floors:
        cpu_min, cpu_med, _, wall_med = describe(floor_samples[label])
        print(f"{label:28} {cpu_min:8.3f} {cpu_med:8.3f} {wall_med:8.3f}")
    print(
        f"aim: zloutch --help and zloutch score under {TARGET} s of CPU; the typer floor "
        "lines are what Typer (with its Rich help) costs alone."
    )


if __name__ == "__main__":
    main()
