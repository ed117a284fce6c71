"""Where the fixed cost of ``zloutch simulate --method fast`` goes, part by part.

Run: python benchmarks/simulate_parts.py [--rules farkle] [--players threshold:300,threshold:300]
[--runs 5]

Each run is a fresh interpreter (``python -c``) that takes the command's own steps one after
the other and times each: the CLI's import, the fast path's import (NumPy and Numba), the
rule set, the simulator's set-up read from the cache (as the command reads it from its
second run on: ``zloutch.app.store.cached_fast_games``), the first games (where Numba loads
the kernel from its cache) and the same games again (the kernel alone), under the command's
collector settings (``fewer_collections``, ``gc.freeze`` at the end). The interpreter's start
and exit is the child's wall time less the parts. Apart, not in the total: the set-up built
(a first run of a rule set and line-up). The median of ``--runs`` runs is printed, part by
part. Numba's cache and the set-up's are warmed by one unmeasured run first.

What the command's fixed cost is made of depends on the environment: where SciPy is
installed, Numba imports it when its first kernel loads (about 0.16 s on this machine), so
compare the parts in a fresh virtual environment too (``python -m venv v && v/bin/pip
install -e . && v/bin/python benchmarks/simulate_parts.py``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

CHILD = """
import gc, json, sys, time
t0 = time.perf_counter()
import zloutch.adapters.cli
t1 = time.perf_counter()
from zloutch.adapters.cli.support import fewer_collections
from zloutch.app.store import cached_fast_games
from zloutch.rules.loader import load_rules
from zloutch.sim.fast import FastSimulator
t2 = time.perf_counter()
with fewer_collections():
    rules = load_rules(sys.argv[1])
    t3 = time.perf_counter()
    players = sys.argv[2].split(",")
    names = tuple(name.strip().lower() for name in players)
    games = cached_fast_games(rules, names, lambda: FastSimulator(rules, players).games)
    t4 = time.perf_counter()
    games.play(1, 0, 1000, threads=1)
    t5 = time.perf_counter()
    games.play(1, 0, 1000, threads=1)
    t6 = time.perf_counter()
    FastSimulator(rules, players)
    t7 = time.perf_counter()
print(json.dumps({
    "the CLI's import": t1 - t0,
    "NumPy, Numba and the fast path's import": t2 - t1,
    "the rule set": t3 - t2,
    "the set-up, read from the cache": t4 - t3,
    "1,000 games, the kernel loaded": t5 - t4,
    "1,000 games again": t6 - t5,
    "apart: the set-up built (a first run)": t7 - t6,
}))
gc.freeze()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="farkle")
    parser.add_argument("--players", default="threshold:300,threshold:300")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    command = [sys.executable, "-c", CHILD, args.rules, args.players]
    subprocess.run(command, check=True, capture_output=True)  # Numba's cache, warm
    parts: dict[str, list[float]] = {}
    for _ in range(args.runs):
        start = time.perf_counter()
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        wall = time.perf_counter() - start
        timed = json.loads(out)
        built = timed.pop("apart: the set-up built (a first run)")
        timed["the interpreter's start and exit"] = wall - built - sum(timed.values())
        timed["in all"] = wall - built
        timed["apart: the set-up built (a first run)"] = built
        for name, seconds in timed.items():
            parts.setdefault(name, []).append(seconds)
    print(f"{args.rules}, {args.players}: median of {args.runs} runs ({sys.executable})")
    for name, seconds in parts.items():
        print(f"  {statistics.median(seconds):6.3f} s  {name}")


if __name__ == "__main__":
    main()
