"""Game solver speed: states, passes, residual and time per pass, for each backend.

Run: python benchmarks/game_solver.py [--rules SPEC ...] [--device cpu|cuda|all]
          [--backends numba,array]

For each rule set and backend it prints the score pairs, the (pair, total, column) values
computed per sweep, the kernel passes (a sweep is one pass of every level; Newton needs a
few per level), the residual, the time per sweep and the effective memory traffic per
sweep: 16 bytes per option evaluated and per value written (the value and its derivative,
8 bytes each), divided by the time; under F-1 (zilch, Facebook Farkle) the numba backend's
sweeps take no Newton step and compute the values alone, 8 bytes each. The machine's
bandwidth is printed beside it when known (``--bandwidth GBPS``). One run on a shared
machine: compare backends within a run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from zloutch.app.solve import score_pairs
from zloutch.rules import load_rules
from zloutch.strategy.game_solver import solve_game
from zloutch.strategy.kernels import build_tables
from zloutch.strategy.turn_solver import TurnModel


def measure(spec: str, backend: str, xp: object = None) -> None:
    rules = load_rules(spec)
    tables = build_tables(TurnModel(rules))
    solve_game(load_rules("greed(target=300)"), backend=backend, xp=xp)  # compile, warm up
    begin = time.perf_counter()
    solution = solve_game(rules, backend=backend, xp=xp)
    seconds = time.perf_counter() - begin
    penalty = solution.counts is not None  # F-1: sweeps of one pass a batch, values alone
    sweeps = solution.sweeps if penalty else solution.passes / solution.levels
    per_sweep = seconds / sweeps
    totals = solution.states / tables.columns  # (pair, total) rows of one sweep
    option_reads = totals * tables.options
    width = 8 if penalty and backend == "numba" else 16  # the value (and its derivative)
    traffic = (option_reads + solution.states) * width
    print(
        f"{spec:30} {backend:6} pairs {score_pairs(solution):>6,} values/sweep "
        f"{solution.states:>11,} passes {solution.passes:>5} ({sweeps:3.1f} sweeps) "
        f"residual {solution.residual:.0e} {per_sweep:6.2f} s/sweep "
        f"{traffic / per_sweep / 1e9:6.1f} GB/s  first player {solution.first_player:.5f}"
        f"  {seconds:.2f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rules",
        nargs="*",
        default=["greed", "cinq-mille(target=3000)", "farkle-minimal(target=5000)"],
    )
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda", "all"])
    parser.add_argument("--bandwidth", type=float, default=None, help="the machine's GB/s")
    parser.add_argument(
        "--backends",
        default="numba,array",
        help="the CPU backends, comma-separated (array: NumPy, minutes a sweep at full size)",
    )
    args = parser.parse_args()
    backends = [name.strip() for name in args.backends.split(",") if name.strip()]
    if args.bandwidth:
        print(f"machine memory bandwidth: {args.bandwidth:.0f} GB/s")
    for spec in args.rules:
        if args.device in ("cpu", "all"):
            if "numba" in backends:
                measure(spec, "numba")
            if "array" in backends:
                measure(spec, "array", np)
        if args.device in ("cuda", "all"):
            import cupy

            measure(spec, "array", cupy)


if __name__ == "__main__":
    main()
