"""Scoring tables against the tests' reference scorer, for every preset, measured in one run.

For each preset: the time to build a fresh ``ScoreTable`` and read every throw of 1 to
``dice`` dice with it (best of three builds), the rate of
``table.lookup`` over random throws as thrown (unsorted faces, 1 to ``dice`` dice, from a
seeded ``random.Random``), and the rate of the reference scorer of the tests
(``tests/rules/reference.py``: every subset of die positions, every set partition of it,
each block checked against the definitions of docs/rules.md) on the same throws, a fresh
``Reference`` per throw so that its memo of whole throws never answers. The ratio is
lookup / reference. Both are also checked to agree on every keep of the sample.

A second lookup rate is measured on pre-sorted faces (the table's fast path, what the
engine passes). Run: ``python benchmarks/scoring.py`` (about 20 s on two cores). The
machine's load moves the rates; compare the ratios of one run, not rates across runs.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from zloutch.rules import PRESETS, Dice, RuleSet, ScoreTable, load_rules
from zloutch.rules.dice import all_throws

# The reference scorer lives with the tests, which are not a package: import it by path.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "rules"))
from reference import Reference

KeepSummary = dict[tuple[Dice, bool], tuple[int, bool]]
"""Scoring selections by (dice, wins): (points, full hand)."""


def table_keeps(table: ScoreTable, throw: Sequence[int]) -> KeepSummary:
    return {(k.dice, k.wins): (k.points, k.full_hand) for k in table.lookup(throw).scoring}


def reference_keeps(reference: Reference, throw: Sequence[int]) -> KeepSummary:
    score = reference.score(tuple(throw))
    return {key: (k.points, k.full_hand) for key, k in score.scoring.items()}


def fresh_reference(rules: RuleSet) -> Callable[[Sequence[int]], object]:
    """The reference scorer as timed: a new one per throw, nothing remembered between throws
    (the set partitions of die positions are cached, as part of the definition)."""

    def score(throw: Sequence[int]) -> object:
        return Reference(rules).score(tuple(throw))

    return score


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
    parser.add_argument(
        "--reference-throws",
        type=int,
        default=300,
        help="of those, how many the slow reference is timed on",
    )
    args = parser.parse_args()

    header = (
        f"{'preset':<15} {'build ms':>9} {'entries':>8} {'lookups/s':>11} "
        f"{'sorted/s':>11} {'reference/s':>12} {'ratio':>7}  agree"
    )
    print(f"seed {args.seed}, {args.throws} random throws per preset, one run")
    print("lookups/s: ScoreTable.lookup, faces as thrown; sorted/s: pre-sorted faces")
    print(
        "reference/s: the tests' reference scorer (tests/rules/reference.py), a fresh one per "
        f"throw, on the first {args.reference_throws} throws; ratio: lookups/s / reference/s"
    )
    print(header)
    print("-" * len(header))
    for name in PRESETS:
        rules = load_rules(name)
        builds = []
        every = list(all_throws(rules.dice))
        for _ in range(3):  # a table reads each throw when first asked: every throw, once
            start = time.perf_counter()
            table = ScoreTable(rules)
            for throw in every:
                table.lookup(throw)
            builds.append(time.perf_counter() - start)
        throws = random_throws(random.Random(args.seed), rules.dice, args.throws)
        shared = Reference(rules)  # memoised by multiset: checking agreement only
        agree = all(table_keeps(table, t) == reference_keeps(shared, t) for t in throws)
        fast = rate(table.lookup, throws, args.seconds)
        presorted = [tuple(sorted(t)) for t in throws]
        fast_sorted = rate(table.lookup, presorted, args.seconds)
        slow = rate(fresh_reference(rules), throws[: args.reference_throws], args.seconds)
        print(
            f"{name:<15} {min(builds) * 1000:>9.1f} {len(every):>8} {fast:>11,.0f} "
            f"{fast_sorted:>11,.0f} {slow:>12,.0f} {fast / slow:>6.0f}x  {'yes' if agree else 'NO'}"
        )


if __name__ == "__main__":
    main()
