"""``zloutch solve``: the value of a turn, the bank thresholds, the farkle probabilities.

The thresholds (``TurnSolution.thresholds``) are, for each count of dice in hand, the smallest
turn total at which banking is optimal in a hand with that many dice; under F-1 they are
also given for each count of farkles in a row (``thresholds_by_farkles``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from zloutch.app.store import cached_json, load_game_solution, rules_key, save_game_solution
from zloutch.rules.errors import ZloutchError
from zloutch.rules.ruleset import RuleSet
from zloutch.strategy.expert import long_run
from zloutch.strategy.game_solver import (
    GAME_SOLVER_VERSION,
    GameSolution,
    UnsupportedRulesError,
    sheet_blind,
    solve_game,
    solved_model,
    unsupported_reason,
)
from zloutch.strategy.optimal import sheet_words, solves_for
from zloutch.strategy.turn_solver import (
    SOLVER_VERSION,
    Situation,
    TurnModel,
    check_score,
    farkle_probabilities,
    solve_average_reward,
    solve_turn,
)


def turn_summary(
    rules: RuleSet,
    entered: bool = True,
    score: int = 0,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """What ``zloutch solve --json`` prints, computed (no cache).

    ``progress(done, total)`` follows the rows of the turn total, then (F-1) the iterations
    of the long-run solve. Raises ``SituationError`` for a score the rule set cannot have.
    """
    check_score(rules, score)
    situation = Situation.normalise(rules, entered, score)
    model = TurnModel(rules)
    solution = solve_turn(rules, situation, model=model, progress=progress)
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
        average = solve_average_reward(rules, model=model, progress=progress)
        result["long_run_average"] = average.average
        result["long_run"] = {
            "iterations": average.iterations,
            "residual": average.residual,
            "bias": list(average.bias),
        }
        if long_run(rules, entered, score):
            # F-1: the thresholds that maximise the long-run average, by farkles in a row.
            result["thresholds_by_farkles"] = {
                str(z): {str(n): t for n, t in sol.thresholds().items()}
                for z, sol in enumerate(average.solutions)
            }
    return result


def cached_turn_summary(
    rules: RuleSet,
    entered: bool = True,
    score: int = 0,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, Any], bool]:
    """The summary, from the disk cache when it was solved before."""
    check_score(rules, score)
    situation = Situation.normalise(rules, entered, score)
    key = f"{rules_key('turn', SOLVER_VERSION, rules)}/{situation.entered}/{situation.score}"
    return cached_json(
        "turn",
        key,
        lambda: turn_summary(rules, entered, score, progress=progress),
        version=SOLVER_VERSION,
        check=lambda document: turn_summary_problem(rules, situation, document),
        what=f"turn summary of {rules.spec}",
    )


def turn_summary_problem(
    rules: RuleSet, situation: Situation, document: dict[str, Any]
) -> str | None:
    """What makes ``document`` no summary of this turn (None: nothing): the checks of a read.

    The rule set, the situation and the solver version; a threshold per count of dice; the
    farkle probabilities in [0, 1], the exact one agreeing with the float; finite values.
    """
    if document.get("rules") != rules.spec:
        return f"a summary of {document.get('rules')!r}, not {rules.spec!r}"
    if document.get("solver_version") != SOLVER_VERSION:
        return f"solver version {document.get('solver_version')!r}, not {SOLVER_VERSION}"
    if document.get("situation") != {"entered": situation.entered, "score": situation.score}:
        return f"the situation {document.get('situation')!r}, not this one"
    if not _finite(document.get("expected_turn")):
        return f"expected_turn {document.get('expected_turn')!r} is not a finite number"
    dice = {str(n) for n in range(1, rules.dice + 1)}
    tables = [document.get("thresholds")]
    by_farkles = document.get("thresholds_by_farkles", {})
    if not isinstance(by_farkles, dict):
        return "thresholds_by_farkles is not a table"
    tables += list(by_farkles.values())
    for table in tables:
        if not isinstance(table, dict) or set(table) != dice:
            return f"thresholds {table!r} are not one per count of dice 1 to {rules.dice}"
        if any(not (t is None or (type(t) is int and t >= 0)) for t in table.values()):
            return f"thresholds {table!r} are not totals"
    floats, exact = document.get("farkle_probability"), document.get("farkle_probability_exact")
    if not isinstance(floats, dict) or not isinstance(exact, dict):
        return "no farkle probabilities"
    if set(floats) != dice or set(exact) != dice:
        return f"farkle probabilities not one per count of dice 1 to {rules.dice}"
    for n in sorted(dice):
        p = floats[n]
        try:
            fraction = Fraction(exact[n])
        except (TypeError, ValueError, ZeroDivisionError):
            return f"farkle_probability_exact {exact[n]!r} is not a fraction"
        if not _finite(p) or not 0 <= p <= 1 or not 0 <= fraction <= 1:
            return f"the farkle probability of {n} dice, {p!r}, is not a probability"
        if abs(float(fraction) - p) > 1e-12:
            return f"the farkle probability of {n} dice: {p!r} against {exact[n]!r}"
    if rules.turn.farkle_penalty:
        run = document.get("long_run")
        if not _finite(document.get("long_run_average")) or not isinstance(run, dict):
            return "no finite long-run average (F-1)"
        bias = run.get("bias")
        if not isinstance(bias, list) or not all(_finite(x) for x in bias):
            return "the long-run bias is not a list of finite numbers (F-1)"
        if not _finite(run.get("residual")) or type(run.get("iterations")) is not int:
            return "the long-run residual or iterations are not numbers (F-1)"
    return None


def _finite(value: object) -> bool:
    """A JSON number (not a boolean) that is finite."""
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


def score_pairs(solution: GameSolution) -> int:
    """The pairs of banked scores whose values were solved: from the lowest score (below 0
    under F-1, ``GameSolution.low``) to the target, the mover's and the opponent's."""
    if solution.counts is not None:
        return int(np.count_nonzero(~np.isnan(solution.counts[0, 0])))
    return int(np.count_nonzero(~np.isnan(solution.win)))


def turn_states(rules: RuleSet, low: int = 0, counts: int = 1) -> int:
    """The game's states counted as the published solves count them: a pair of banked scores
    (from the lowest, below 0 under F-1), each player's farkles in a row (F-1), a turn total
    and the dice to throw (every count, reachable or not). A total is counted while a bank
    of it cannot reach the target yet, or it is below the smallest bank (``min_bank``): the
    turn goes on. ``low``: the lowest score (units); ``counts``: the farkles in a row a
    player may have (F-1: ``farkle_penalty_after``). Busche counts 423,765,000 for Facebook
    Farkle with a floor of -2,500 (``turn_states(rules, -50, 3)``)."""
    unit = rules.unit
    target = -(-rules.game.target // unit)
    least = -(-rules.turn.min_bank // unit)
    totals = sum(max(target - a, least) for a in range(low, target))
    return totals * (target - low) * counts * counts * rules.dice


def game_summary(solution: GameSolution, seconds: float | None = None) -> dict[str, Any]:
    """What ``zloutch solve --game --json`` prints."""
    points, chance = solution.fair_compensation()
    result: dict[str, Any] = {
        "rules": solution.rules.spec,
        "first_player": solution.first_player,
        "compensation": {"points": points, "first_player": chance},
        "residual": solution.residual,
        "tolerance": 1e-12,
        "levels": solution.levels,
        "passes": solution.passes,
        "states": solution.states,
        "score_pairs": score_pairs(solution),
        "turn_states": turn_states(
            solution.rules,
            solution.low,
            solution.counts.shape[0] if solution.counts is not None else 1,
        ),
        "lowest_score": solution.low * solution.unit,
        "solver_version": GAME_SOLVER_VERSION,
    }
    if solution.counts is not None:  # F-1: each player's farkles in a row too
        k = solution.counts.shape[0]
        result["farkles_in_a_row"] = k
        result["sweeps"] = solution.sweeps
    if seconds is not None:
        result["seconds"] = seconds
    return result


def solved_game(
    rules: RuleSet,
    *,
    device: str = "cpu",
    progress: Callable[[int, int], None] | None = None,
    threads: int | None = None,
) -> tuple[GameSolution, bool]:
    """The solved game from the disk, or solved now and saved. Returns (solution, cached).

    ``threads``: the CPU threads of the solve (None: one per CPU the process may use)."""
    found = load_game_solution(rules)
    if found is not None:
        return found, True
    reason = unsupported_reason(rules)
    if reason:
        blind = sheet_blind(rules)
        if blind is not None:
            reason += (
                f"; its sheet-blind model, which the optimal bot plays it by, is solved: "
                f"give --rules '{blind.spec}'"  # to solve --game, plot, review --solve alike
            )
        raise UnsupportedRulesError(reason)
    if device == "cuda":  # the CUDA kernel (Numba), checked on a tiny batch first
        from zloutch.strategy.kernels.cuda import unavailable_reason

        why = unavailable_reason(check=True)
        if why:
            raise ZloutchError(f"--device cuda: {why} (--device cpu solves on the processor)")
        try:
            solution = solve_game(rules, backend="cuda", progress=progress)
        except ZloutchError:
            raise
        except Exception as error:  # the driver, the compiler, the device's memory
            detail = " ".join(str(error).split())[:300]
            raise ZloutchError(
                f"--device cuda: the solve failed on the GPU ({type(error).__name__}: {detail});"
                " --device cpu solves on the processor"
            ) from None
    else:
        solution = solve_game(rules, progress=progress, threads=threads)
    save_game_solution(solution)
    return solution, False


def optimal_policy(
    rules: RuleSet,
    players: int,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[str, bool]:
    """Make ready what the ``optimal`` bot plays in a game of ``rules`` with ``players``,
    solving it first where it is not cached; returns (what it plays, in words; whether it
    was cached). Where it could only play a weaker policy than its name (a rule set neither
    it nor its sheet-blind model solves), a one-line ``ZloutchError`` says why: the bot never
    plays another policy without saying so. With more than two players it plays the
    two-player game against the most dangerous opponent, and the words say so; alone, it
    plays each turn for the most points (``solves_for``), nothing solved."""
    if not solves_for(players):
        return "the turn-optimal policy: a game of one player has no one to beat", True
    model = solved_model(rules)
    if model is None:
        raise UnsupportedRulesError(
            f"optimal cannot play {rules.spec}: {unsupported_reason(rules, how=False)} "
            "(expert plays each turn optimally)"
        )
    _, cached = solved_game(model, progress=progress)
    field = f", against the most dangerous of the {players - 1} opponents" if players > 2 else ""
    if model == rules:
        return f"the solved game of {rules.spec} (win probability{field})", cached
    return (
        f"the solved sheet-blind model {model.spec} of {rules.spec} (win probability{field}; "
        f"{sheet_words(model)})",
        cached,
    )
