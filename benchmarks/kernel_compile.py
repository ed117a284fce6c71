"""What a fresh install pays Numba the first time: the kernels compiled, and their CPU time.

Run: python benchmarks/kernel_compile.py [--runs N]

Each run starts a child interpreter with an empty ``NUMBA_CACHE_DIR`` (cold: Numba compiles
every kernel it meets) and then a second one on the cache the first wrote (warm: Numba loads
them), for two pieces of work: the game solver's lane kernels (one solve of
``greed(target=300)`` on one thread) and the fast simulation's kernels (1,000 fast games of
``farkle``). The CPU time of each child (user + system) is printed, and the compiled
specialisations the cold run left in the cache, by function: a kernel compiled twice (for
two types of one argument, such as a literal ``True`` and a ``bool``) shows as 2.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WORK = {
    "game solver (greed(target=300))": (
        "from zloutch.rules import load_rules\n"
        "from zloutch.strategy.game_solver import solve_game\n"
        "solve_game(load_rules('greed(target=300)'), backend='numba', threads=1)\n"
    ),
    "fast simulation (farkle)": (
        "from zloutch.rules import load_rules\n"
        "from zloutch.sim.fast import simulate_fast\n"
        "simulate_fast(load_rules('farkle'), ['threshold:300', 'threshold:300'], 1000, 1)\n"
    ),
}


def child_cpu(code: str, cache: Path) -> float:
    """CPU seconds of a child running ``code`` with ``cache`` as Numba's cache."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def specialisations(cache: Path) -> dict[str, int]:
    """Compiled specialisations by function, from the cache's file names."""
    found: collections.Counter[str] = collections.Counter()
    for path in cache.rglob("*.nbc"):
        match = re.match(r"(.+?)-\d+\.py\d+\.\d+\.nbc$", path.name)
        if match:
            found[match.group(1)] += 1
    return dict(sorted(found.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="cold and warm runs of each (1)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    for label, code in WORK.items():
        cold: list[float] = []
        warm: list[float] = []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                cache = Path(tmp)
                cold.append(child_cpu(code, cache))
                warm.append(child_cpu(code, cache))
                compiled = specialisations(cache)
        print(
            f"{label}: cold {statistics.median(cold):.2f} s CPU, "
            f"warm {statistics.median(warm):.2f} s CPU"
        )
        print("  compiled: " + ", ".join(f"{name} x{n}" for name, n in compiled.items()))


if __name__ == "__main__":
    main()
