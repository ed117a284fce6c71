"""``zloutch solve``: the value of a turn, the bank thresholds, the farkle probabilities."""

from __future__ import annotations

import hashlib
from typing import Any

from zloutch.rules.loader import to_toml
from zloutch.rules.ruleset import RuleSet
from zloutch.store import cached_json
from zloutch.strategy.turn_solver import (
    SOLVER_VERSION,
    Situation,
    TurnModel,
    farkle_probabilities,
    solve_average_reward,
    solve_turn,
)


def turn_summary(rules: RuleSet, entered: bool = True, score: int = 0) -> dict[str, Any]:
    """What ``zloutch solve --json`` prints, computed (no cache)."""
    situation = Situation.normalise(rules, entered, score)
    model = TurnModel(rules)
    solution = solve_turn(rules, situation, model=model)
    thresholds = solution.thresholds()
    probabilities = farkle_probabilities(rules)
    result: dict[str, Any] = {
        "rules": rules.spec,
        "expected_turn": solution.expected_turn,
        "thresholds": {str(n): t for n, t in thresholds.items()},
        "farkle_probability": {str(n): float(p) for n, p in probabilities.items()},
        "farkle_probability_exact": {str(n): str(p) for n, p in probabilities.items()},
        "situation": {"entered": situation.entered, "score": situation.score},
        "solver_version": SOLVER_VERSION,
    }
    if rules.turn.farkle_penalty:
        average = solve_average_reward(rules)
        result["long_run_average"] = average.average
        result["long_run"] = {
            "iterations": average.iterations,
            "residual": average.residual,
            "bias": list(average.bias),
        }
    return result


def cached_turn_summary(
    rules: RuleSet, entered: bool = True, score: int = 0
) -> tuple[dict[str, Any], bool]:
    """The summary, from the disk cache when it was solved before."""
    situation = Situation.normalise(rules, entered, score)
    # The canonical file, not only the spec: a user's rule file may change under its name.
    digest = hashlib.sha256(to_toml(rules).encode()).hexdigest()[:16]
    key = f"turn/v{SOLVER_VERSION}/{rules.spec}/{digest}/{situation.entered}/{situation.score}"
    return cached_json("turn", key, lambda: turn_summary(rules, entered, score))
