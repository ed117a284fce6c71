"""The check that a rule set's games can end, read from the compiled turn, against the plain
walk of every throw the tests keep as its reference, measured in one run.

Each spec is shown by the user's command, ``zloutch rules show SPEC``, in a fresh interpreter
(the rules read, then the ending checked): the CPU time of the child (user + system) is kept,
the median of ``--runs`` printed. The reference, interleaved with it so that the machine's
load falls on both alike: the same command with the ending checked by
``tests/rules/reference_endings.py`` (the walk the rules layer used to make, with its own bank
rule) instead. The ratio new / reference is the figure to compare; the floor (the same command,
no ending checked) is printed too, and the check alone (in one interpreter, warm imports).

Run: ``python benchmarks/endings.py`` (about a minute on two cores; ``--runs 3`` for a quick
look).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPECS = (
    "dix-mille(target=2000)",
    "dix-mille(joker)",
    "charentaise(target=5000)",
    "dix-mille-6(entry=800)",
    "farkle(joker)",
    "greed(confirmation)",
)
"""Specs that walk the turn (exact targets, jokers, V-1) and some that need not."""

SHOW = "from zloutch.adapters.cli import main; sys.argv = ['zloutch', 'rules', 'show', {spec!r}]"
RUN = "\ntry:\n    main()\nexcept SystemExit:\n    pass"
CODE = {
    "engine": "import sys; " + SHOW + RUN,
    "reference": (
        "import sys; sys.path.insert(0, {tests!r}); import reference_endings;"
        "import zloutch.engine.endings as e; e.check_endings = reference_endings.check_endings;"
        + SHOW
        + RUN
    ),
    "floor": (
        "import sys; import zloutch.engine.endings as e; e.check_endings = lambda rules: None;"
        + SHOW
        + RUN
    ),
}


def alone(spec: str, tests: str) -> tuple[float, float]:
    """The check alone, engine and reference, in ms (imports warm, caches cleared)."""
    sys.path.insert(0, tests)
    import reference_endings

    from zloutch.engine import compiled, endings
    from zloutch.rules import load_rules

    rules = load_rules(spec)
    found = []
    for check, clear in (
        (endings.check_endings, (endings._endings, endings._hand_passes, compiled.compile_turn)),
        (
            reference_endings.check_endings,
            (reference_endings._endings, reference_endings._hand_passes),
        ),
    ):
        for cached in clear:
            cached.cache_clear()
        endings._bankable_cached.cache_clear()
        start = time.perf_counter()
        check(rules)
        found.append((time.perf_counter() - start) * 1000)
    return found[0], found[1]


def cpu_of(code: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    tests = str(ROOT / "tests" / "rules")
    head = f"{'spec':28} {'engine ms':>10} {'reference ms':>13} {'floor ms':>9} {'ratio':>6}"
    print(head + f" {'check alone: engine':>20} {'reference':>10}")
    sys.stdout.flush()
    for spec in SPECS:
        times: dict[str, list[float]] = {k: [] for k in CODE}
        for kind in CODE:  # one unmeasured run each: the bytecode cache
            cpu_of(CODE[kind].format(spec=spec, tests=tests))
        for _ in range(args.runs):
            for kind, code in CODE.items():
                times[kind].append(cpu_of(code.format(spec=spec, tests=tests)))
        med = {k: statistics.median(v) * 1000 for k, v in times.items()}
        ratio = med["engine"] / med["reference"]
        fast, plain = alone(spec, tests)
        print(
            f"{spec:28} {med['engine']:10.0f} {med['reference']:13.0f} {med['floor']:9.0f} "
            f"{ratio:6.2f} {fast:20.1f} {plain:10.1f}",
            flush=True,
        )
    print("(zloutch rules show: median CPU ms of a fresh interpreter; ratio: engine / reference")
    print(" in the same run; the check alone: wall ms in this interpreter, caches cleared)")


if __name__ == "__main__":
    main()
