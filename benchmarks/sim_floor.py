"""The fast simulator against its floor: what any simulator of these games must do at least.

Run: python benchmarks/sim_floor.py [--games N] [--rules farkle] [--threshold 300]

The floor is a compiled loop that does only the unavoidable work of a game of two players who
bank at a threshold: draw the dice (the fast path's own generator, SplitMix64), count their
faces, read one table a throw (the keep worth most points: its points and the dice it takes;
a farkle), add the points, throw the rest (all the dice again after a full hand) or bank at
the threshold, to the target. No rule beyond that (no entry, no final turns, no exact
target): it is a lower bound of the work, not a simulator. It throws the dice as the kernel
does (``_throw``, one die after the other); *looped floor* is the floor as first written, a
loop over the dice that LLVM vectorises and that is about a third slower, printed so that
figures taken before the kernel's throw can be compared. Beside them, in the same run, what
``zloutch simulate -r RULES -p threshold:T,threshold:T -n N --method fast`` really runs: the
fast path's games on one thread and on every core (``simulate`` with ``jobs``, its set-up
read from the cache as the command reads it from its second run on), and the command
itself timed from the shell, with a thousand games (the median of three runs) and with N,
whose difference gives its fixed cost (start-up, imports, tables). Beside it, the fixed cost
of any program that calls one function from Numba's cache (``x + 1``, in a fresh
interpreter, the median of three runs): Python, NumPy and Numba's import, and what Numba
does before a first call, the least a command on this path can take. The ratios are of this
one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np
from numba import njit, prange, set_num_threads

from zloutch.app.store import cached_fast_games
from zloutch.rules import load_rules, score_throw
from zloutch.rules.dice import multisets
from zloutch.sim import simulate
from zloutch.sim.fast import _GOLDEN, _POW7, _S32, _SIX, _mix, _throw  # the fast path's own


# Not cached: Numba would not see an edit of the fast path's ``_throw`` or ``_mix``, which
# these functions carry compiled in, and would time the old code (CONTRIBUTING.md).
@njit(nogil=True)
def _looped(state: Any, n: int) -> tuple[Any, int]:
    """The floor's throw as first written: a loop over the dice, which LLVM vectorises (four
    dice at a time, a gather for their digits), slower for one to six dice than the kernel's
    ``_throw``, the dice one after the other."""
    code = 0
    for _ in range(n):
        state = state + _GOLDEN
        code += _POW7[((_mix(state) >> _S32) * _SIX) >> _S32]
    return state, code


@njit(nogil=True)
def _game(
    throw: Any,
    key: Any,
    game: int,
    dice: int,
    points: Any,
    used: Any,
    threshold: int,
    target: int,
) -> int:
    state = _mix(key ^ (np.uint64(game) * _GOLDEN))
    scores = np.zeros(2, dtype=np.int64)
    mover = game % 2
    turns = 0
    while True:
        turns += 1
        n = dice
        total = 0
        while True:
            state, code = throw(state, n)
            gained = points[code]
            if gained == 0:  # a farkle
                total = 0
                break
            total += gained
            n -= used[code]
            if n == 0:
                n = dice  # a full hand: all the dice again
            if total >= threshold:
                break
        scores[mover] += total
        if scores[mover] >= target:
            return turns
        mover = 1 - mover


@njit(parallel=True, nogil=True)
def _games(
    throw: Any,
    key: Any,
    n_games: int,
    chunks: int,
    dice: int,
    points: Any,
    used: Any,
    threshold: int,
    target: int,
) -> int:
    turns = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        lo = c * n_games // chunks
        hi = (c + 1) * n_games // chunks
        for g in range(lo, hi):
            turns[c] += _game(throw, key, g, dice, points, used, threshold, target)
    return int(turns.sum())


def tables(spec: str) -> tuple[int, Any, Any, int]:
    """The keep worth most points of every roll (by the counts of its faces, base 7): its
    points and the dice it takes (0 points: a farkle)."""
    rules = load_rules(spec)
    points = np.zeros(7**6, dtype=np.int64)
    used = np.zeros(7**6, dtype=np.int64)
    for n in range(1, rules.dice + 1):
        for roll in multisets(n):
            best = score_throw(rules, roll).best
            code = sum(7 ** (face - 1) for face in roll)
            if best is not None and not best.wins:
                points[code] = best.points
                used[code] = len(best.dice)
    return rules.dice, points, used, rules.game.target


def rate(run: Any, games: int) -> float:
    begin = time.perf_counter()
    run()
    return games / (time.perf_counter() - begin)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--rules", default="farkle")
    parser.add_argument("--threshold", type=int, default=300)
    args = parser.parse_args()
    dice, points, used, target = tables(args.rules)
    key = np.uint64(12345)
    cores = os.cpu_count() or 1
    players = [f"threshold:{args.threshold}"] * 2
    rules = load_rules(args.rules)
    throws = (_throw, _looped)
    # Compile everything once, outside every timing.
    for throw in throws:
        _games(throw, key, 1000, 4, dice, points, used, args.threshold, target)
    simulate(rules, players, 1000, 0, method="fast", jobs=1, tables=cached_fast_games)
    rows = []
    for threads in (1, cores):
        set_num_threads(threads)
        floors = [
            rate(
                lambda w=throw: _games(
                    w, key, args.games, 64, dice, points, used, args.threshold, target
                ),
                args.games,
            )
            for throw in throws
        ]
        fast = rate(
            lambda t=threads: simulate(
                rules, players, args.games, 1, method="fast", jobs=t, tables=cached_fast_games
            ),
            args.games,
        )
        rows.append((threads, floors, fast))
    command = [sys.executable, "-m", "zloutch", "simulate", "-r", args.rules, "-p"]
    # quiet, its document thrown away: -q alone is refused (it would show nothing)
    command += [",".join(players), "--method", "fast", "-q", "--json", os.devnull, "-n"]
    walls: dict[int, list[float]] = {}
    for n in (1000, 1000, 1000, args.games):
        begin = time.perf_counter()
        subprocess.run([*command, str(n)], check=True, capture_output=True)
        walls.setdefault(n, []).append(time.perf_counter() - begin)
    short, long = statistics.median(walls[1000]), walls[args.games][0]
    numba_floor = numba_fixed_cost()
    print(f"{args.rules}, {players[0]} against itself, {args.games:,} games; cores: {cores}")
    print(
        f"{'threads':>7} {'floor g/s':>12} {'simulate g/s':>13} {'of floor':>9}"
        f"  {'looped floor g/s':>17} {'of it':>6}"
    )
    for threads, (floor, looped), fast in rows:
        print(
            f"{threads:>7} {floor:>12,.0f} {fast:>13,.0f} {fast / floor:>8.2f}x"
            f"  {looped:>17,.0f} {fast / looped:>5.2f}x"
        )
    one, many = rows[0][2], rows[-1][2]
    print(f"simulate on {cores} threads: {many / one:.2f}x its rate on one")
    per_game = (long - short) / (args.games - 1000)
    fixed = short - 1000 * per_game
    print(
        f"the command: {short:.2f} s for 1,000 games, {long:.2f} s for "
        f"{args.games:,}: about {fixed:.2f} s of fixed cost"
    )
    print(f"a program that calls one function from Numba's cache: {numba_floor:.2f} s")


NUMBA_PROGRAM = """
from numba import njit
@njit(cache=True)
def one_more(x):
    return x + 1
one_more(1)
"""


def numba_fixed_cost() -> float:
    """The median wall time of three runs of ``NUMBA_PROGRAM`` in a fresh interpreter, its
    function loaded from Numba's cache (compiled by a first run, not timed)."""
    with tempfile.TemporaryDirectory() as folder:
        program = os.path.join(folder, "one_more.py")
        with open(program, "w", encoding="utf-8") as handle:
            handle.write(NUMBA_PROGRAM)
        subprocess.run([sys.executable, program], check=True, capture_output=True)
        walls = []
        for _ in range(3):
            begin = time.perf_counter()
            subprocess.run([sys.executable, program], check=True, capture_output=True)
            walls.append(time.perf_counter() - begin)
    return statistics.median(walls)


if __name__ == "__main__":
    main()
