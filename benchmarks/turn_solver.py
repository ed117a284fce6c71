"""Turn solver speed: cold solve, cached answer, and a plain reference, for every preset.

Run: python benchmarks/turn_solver.py [--skip-zilch-reference]

cold: the graph built from the scoring tables (already built) and solved with NumPy;
+tables: the same with the scoring tables built first (``score_table``'s cache cleared), as
a first ``zloutch solve`` of a rule set pays; cached: the answer of ``zloutch solve`` read
back from the disk cache (in a temporary folder); reference: the same graph evaluated state
by state in plain Python (``zloutch.strategy.reference``). Ratios come from one run on a
shared, noisy machine.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from zloutch.app.solve import cached_turn_summary
from zloutch.rules import PRESETS, RuleSet, load_rules, score_table
from zloutch.rules.scoring import _score_table
from zloutch.strategy.reference import reference_expected_turn
from zloutch.strategy.turn_solver import Terminal, TurnModel, solve_average_reward, solve_turn


def reference_average(rules: RuleSet, tolerance: float = 1e-10) -> float:
    """Relative value iteration with the plain evaluator (mirrors solve_average_reward)."""
    model = TurnModel(rules)
    after = rules.turn.farkle_penalty_after
    bias = [0.0] * after
    while True:
        gains = []
        for z in range(after):
            last = z == after - 1
            farkle = (-rules.turn.farkle_penalty + bias[0]) if last else bias[z + 1]
            terminal = Terminal(bias[0], farkle)
            gains.append(reference_expected_turn(model, terminal=terminal))
        new = [g - gains[0] for g in gains]
        if max(abs(a - b) for a, b in zip(new, bias, strict=True)) < tolerance:
            return gains[0]
        bias = new


def iterated_average(rules: RuleSet, tolerance: float = 1e-10) -> tuple[float, int]:
    """Relative value iteration from 0 with the vectorised solver: how ``solve_average_reward``
    found the long run before it looked for the average's root (the average, iterations)."""
    model = TurnModel(rules)
    after, penalty = rules.turn.farkle_penalty_after, rules.turn.farkle_penalty
    bias = [0.0] * after
    iterations = 0
    while True:
        iterations += 1
        gains = [
            solve_turn(
                rules,
                model=model,
                terminal=Terminal(0.0, -penalty if z == after - 1 else bias[z + 1]),
            ).expected_turn
            for z in range(after)
        ]
        new = [g - gains[0] for g in gains]
        if max(abs(a - b) for a, b in zip(new, bias, strict=True)) < tolerance:
            return gains[0], iterations
        bias = new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-zilch-reference", action="store_true")
    args = parser.parse_args()
    os.environ["ZLOUTCH_CACHE"] = tempfile.mkdtemp(prefix="zloutch-bench-")
    head = f"{'preset':16} {'E[turn]':>9} {'cold ms':>8} {'+tables ms':>10} {'cached ms':>9}"
    print(f"{head} {'reference ms':>12} {'ref/cold':>8}")
    for preset in PRESETS:
        rules = load_rules(preset)
        _score_table.cache_clear()  # cold including the scoring tables (shared by scoring part)
        begin = time.perf_counter()
        solve_turn(rules, model=TurnModel(rules))
        with_tables = time.perf_counter() - begin
        score_table(rules)
        begin = time.perf_counter()
        model = TurnModel(rules)
        solution = solve_turn(rules, model=model)
        cold = time.perf_counter() - begin
        cached_turn_summary(rules)
        begin = time.perf_counter()
        cached_turn_summary(rules)
        cached = time.perf_counter() - begin
        begin = time.perf_counter()
        reference = reference_expected_turn(model)
        plain = time.perf_counter() - begin
        assert abs(reference - solution.expected_turn) < 1e-9 * max(1.0, reference)
        print(
            f"{preset:16} {solution.expected_turn:>9.3f} {cold * 1e3:>8.1f} "
            f"{with_tables * 1e3:>10.1f} {cached * 1e3:>9.2f} "
            f"{plain * 1e3:>12.1f} {plain / cold:>7.1f}x"
        )
    rules = load_rules("zilch")
    begin = time.perf_counter()
    average = solve_average_reward(rules)
    fast = time.perf_counter() - begin
    print(
        f"\nzilch long-run average (F-1): {average.average:.3f} points per turn, "
        f"{average.iterations} iterations, residual {average.residual:.1e}, {fast:.2f} s"
    )
    begin = time.perf_counter()
    iterated, iterations = iterated_average(rules)
    before = time.perf_counter() - begin
    print(
        f"relative value iteration from 0, as before: {iterated:.3f} in {iterations} "
        f"iterations, {before:.2f} s: {before / fast:.1f}x the root's solve"
    )
    if not args.skip_zilch_reference:
        begin = time.perf_counter()
        ref = reference_average(rules)
        slow = time.perf_counter() - begin
        print(
            f"plain reference: {ref:.3f} in {slow:.2f} s: {slow / fast:.1f}x the vectorised solve"
        )


if __name__ == "__main__":
    main()
