"""Scoring tables against a plain search, for every preset, measured in one run.

For each preset: the time to build a fresh ``ScoreTable`` (best of a few builds), the rate of
``table.lookup`` over random throws as thrown (unsorted faces, 1 to ``dice`` dice, from a
seeded ``random.Random``), and the rate of a reference scorer that searches the throw's
combinations every time with no table, on the same throws. The ratio is lookup / reference.
Both are also checked to agree on every keep of the sample.

A second lookup rate is measured on pre-sorted faces (the table's fast path, what the
engine passes). Run: ``python benchmarks/scoring.py`` (about 15 s on two cores). The
machine's load moves the rates; compare the ratios of one run, not rates across runs.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from functools import partial

from zloutch.rules import PRESETS, Dice, ScoreTable, load_rules

KeepSummary = tuple[Dice, bool, int]
"""A keep as the reference sees it: the dice, whether it wins, its points."""


def reference_keeps(table: ScoreTable, throw: Sequence[int]) -> list[KeepSummary]:
    """Every scoring selection of a throw, best first, by plain recursive search.

    The combinations are read from the throw each time (``ScoreTable.combinations``, which
    does not use the table); every multiset of disjoint combinations is tried, and each set
    of kept dice keeps its best reading (a win first, then points).
    """
    dice = tuple(sorted(throw))
    combos = table.combinations(dice)
    left = [0] * 7
    for face in dice:
        left[face] += 1
    best: dict[Dice, tuple[bool, int]] = {}

    def search(start: int, kept: tuple[int, ...], wins: bool, points: int) -> None:
        if kept:
            key = tuple(sorted(kept))
            value = (wins, points)
            if key not in best or value > best[key]:
                best[key] = value
        for i in range(start, len(combos)):
            combo = combos[i]
            if all(left[f] >= combo.dice.count(f) for f in set(combo.dice)):
                for f in combo.dice:
                    left[f] -= 1
                search(i, kept + combo.dice, wins or combo.wins, points + combo.points)
                for f in combo.dice:
                    left[f] += 1

    search(0, (), False, 0)
    bonus = table.rules.scoring.no_score_bonus
    if not best and bonus and len(dice) == table.rules.dice:
        best[dice] = (False, bonus)
    keeps = [(kept, wins, points) for kept, (wins, points) in best.items()]
    keeps.sort(key=lambda k: (not k[1], -k[2], len(k[0]), k[0]))
    return keeps


def rate(call: Callable[[Sequence[int]], object], throws: list[Dice], seconds: float) -> float:
    """Calls per second of ``call`` over the throws, cycled for at least ``seconds``."""
    done = 0
    start = time.perf_counter()
    while True:
        for throw in throws:
            call(throw)
        done += len(throws)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def random_throws(rng: random.Random, dice: int, count: int) -> list[Dice]:
    """Throws as a player rolls them: 1 to ``dice`` dice, faces in the order thrown."""
    return [tuple(rng.randint(1, 6) for _ in range(rng.randint(1, dice))) for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=10_000)
    parser.add_argument("--throws", type=int, default=2_000, help="random throws per preset")
    parser.add_argument("--seconds", type=float, default=0.4, help="time per measured rate")
    args = parser.parse_args()

    header = (
        f"{'preset':<15} {'build ms':>9} {'entries':>8} {'lookups/s':>11} "
        f"{'sorted/s':>11} {'reference/s':>12} {'ratio':>7}  agree"
    )
    print(f"seed {args.seed}, {args.throws} random throws per preset, one run")
    print("lookups/s: faces as thrown; sorted/s: pre-sorted; ratio: lookups/s / reference/s")
    print(header)
    print("-" * len(header))
    for name in PRESETS:
        rules = load_rules(name)
        builds = []
        for _ in range(3):
            start = time.perf_counter()
            table = ScoreTable(rules)
            builds.append(time.perf_counter() - start)
        throws = random_throws(random.Random(args.seed), rules.dice, args.throws)
        agree = all(
            reference_keeps(table, t)
            == [(k.dice, k.wins, k.points) for k in table.lookup(t).scoring]
            for t in throws
        )
        fast = rate(table.lookup, throws, args.seconds)
        presorted = [tuple(sorted(t)) for t in throws]
        fast_sorted = rate(table.lookup, presorted, args.seconds)
        slow = rate(partial(reference_keeps, table), throws, args.seconds)
        print(
            f"{name:<15} {min(builds) * 1000:>9.1f} {len(table):>8} {fast:>11,.0f} "
            f"{fast_sorted:>11,.0f} {slow:>12,.0f} {fast / slow:>6.0f}x  {'yes' if agree else 'NO'}"
        )


if __name__ == "__main__":
    main()
