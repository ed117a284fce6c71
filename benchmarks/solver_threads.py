"""Game solver threads: 1 and 2 threads, quiet and beside a busy process, in one run.

Run: python benchmarks/solver_threads.py [--rules SPEC ...] [--threads 1 2] [--repeat N]
     [--save DIR] [--compare DIR]

For each rule set it solves the game with each thread count, first on its own, then beside
a second load: a busy process this script starts (one core's worth of pure spinning, stopped
after the measurement and in any case after ``--busy-limit`` seconds). Before each
condition it measures how many cores two threads get at that moment (two spinning threads
against one: 2.00 on two idle cores, 1.00 when other work holds one). Each line gives the
wall time, the CPU time of this process, the option lookups per CPU-second (each (pair,
total) row reads every option of the turn once per kernel pass: rows per sweep x options x
sweeps, the same count for every version of the solver), the speed-up against one thread in
the same conditions, and the largest difference of the solved win table against the
one-thread quiet solve of the same run. ``--save DIR`` writes the tables, ``--compare DIR``
reads tables saved by another version (another checkout) and prints the largest difference.

Each rule set is solved once before the timings (not timed): the turn graph and the bank
tables, which the process keeps, are then built for every thread count alike. With
``--repeat N`` the thread counts take turns N times in each condition, and a summary line
gives each count's median and least wall time and the ratios of the medians and of the
least times.

The machine is shared: the load average (``os.getloadavg``) is printed before and after.
Compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import inspect
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from zloutch.rules import load_rules
from zloutch.strategy.game_solver import GameSolution, solve_game
from zloutch.strategy.kernels import build_tables
from zloutch.strategy.turn_solver import TurnModel


def cores_free() -> float:
    """How many cores two threads get now: twice one thread's time over two at once
    (1.0: the second thread found no free core; 2.0: both ran side by side)."""
    import threading

    import numba

    @numba.njit(nogil=True)
    def spin(n: int) -> float:
        s = 0.0
        for i in range(n):
            s += np.sqrt(i)
        return s

    spin(10)
    n = 20_000_000
    begin = time.perf_counter()
    spin(n)
    one = time.perf_counter() - begin
    begin = time.perf_counter()
    other = threading.Thread(target=spin, args=(n,))
    other.start()
    spin(n)
    other.join()
    return 2 * one / (time.perf_counter() - begin)


BUSY = "import time\nend = time.monotonic() + {limit}\nwhile time.monotonic() < end: pass\n"


def set_threads(threads: int) -> dict[str, Any]:
    """Numba's thread count for this thread, and ``threads=`` where the solver takes it."""
    import numba

    numba.set_num_threads(threads)
    if "threads" in inspect.signature(solve_game).parameters:
        return {"threads": threads}
    return {}


def solve(spec: str, threads: int) -> tuple[GameSolution, float, float]:
    options = set_threads(threads)
    begin, cpu = time.perf_counter(), time.process_time()
    solution = solve_game(load_rules(spec), **options)
    return solution, time.perf_counter() - begin, time.process_time() - cpu


def lookups(solution: GameSolution, spec: str) -> float:
    tables = build_tables(TurnModel(load_rules(spec)))
    rows = solution.states / tables.columns
    return rows * tables.options * solution.passes / solution.levels


def load_text() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def difference(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> float:
    if a.shape != b.shape or (np.isnan(a) != np.isnan(b)).any():
        return float("inf")
    return float(np.nanmax(np.abs(a - b), initial=0.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", nargs="*", default=["farkle", "farkle-minimal(target=5000)"])
    parser.add_argument("--threads", nargs="*", type=int, default=[1, 2])
    parser.add_argument("--repeat", type=int, default=1, help="turns of the thread counts")
    parser.add_argument("--busy-limit", type=float, default=600.0, help="seconds at most")
    parser.add_argument("--save", type=Path, default=None, help="write the win tables here")
    parser.add_argument("--compare", type=Path, default=None, help="tables saved before")
    args = parser.parse_args()
    print(load_text())
    solve("greed(target=300)", 1)  # compile (or load Numba's cache) outside the timings
    solve("greed(target=300)", max(args.threads))
    for spec in args.rules:
        reference: np.ndarray[Any, Any] | None = None
        times: dict[tuple[str, int], float] = {}
        solve(spec, max(args.threads))  # the turn graph and bank tables, outside the timings
        for condition in ("quiet", "busy"):
            busy = None
            if condition == "busy":
                code = BUSY.format(limit=args.busy_limit)
                busy = subprocess.Popen([sys.executable, "-c", code])
            try:
                print(f"{spec:28} {condition:5} cores free for two threads: {cores_free():.2f}")
                walls: dict[int, list[float]] = {threads: [] for threads in args.threads}
                for _ in range(args.repeat):
                    for threads in args.threads:
                        solution, wall, cpu = solve(spec, threads)
                        times[condition, threads] = wall
                        walls[threads].append(wall)
                        if reference is None:
                            reference = solution.win
                        speed = times[condition, args.threads[0]] / wall
                        print(
                            f"{spec:28} {condition:5} threads {threads}  {wall:7.2f} s  "
                            f"cpu {cpu:7.2f} s  {lookups(solution, spec) / cpu / 1e6:6.0f} M "
                            f"lookups/cpu-s  x{speed:4.2f} vs {args.threads[0]} thread  "
                            f"passes {solution.passes}  max diff "
                            f"{difference(solution.win, reference):.1e}  first player "
                            f"{solution.first_player:.12f}",
                            flush=True,
                        )
                if args.repeat > 1:
                    first = args.threads[0]
                    median = {t: float(np.median(w)) for t, w in walls.items()}
                    least = {t: min(w) for t, w in walls.items()}
                    print(
                        f"{spec:28} {condition:5} summary  "
                        + "  ".join(
                            f"threads {t}: median {median[t]:.2f} s, least {least[t]:.2f} s, "
                            f"x{median[first] / median[t]:.2f} (medians) "
                            f"x{least[first] / least[t]:.2f} (least)"
                            for t in args.threads
                        ),
                        flush=True,
                    )
            finally:
                if busy is not None:
                    busy.kill()
                    busy.wait()
        assert reference is not None
        name = "".join(c if c.isalnum() else "_" for c in spec)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            np.save(args.save / f"{name}.npy", reference)
        if args.compare:
            before = np.load(args.compare / f"{name}.npy")
            print(f"{spec:28} max diff against {args.compare}: {difference(reference, before):.1e}")
    print(load_text())


if __name__ == "__main__":
    main()
