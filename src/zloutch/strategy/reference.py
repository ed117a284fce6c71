"""A plain implementation of the turn solver: dictionaries and loops, no arrays.

It walks the same graph as ``turn_solver`` but evaluates it one state at a time, the way
the rules read. Tests check the vectorised solver against it on every preset, and
``benchmarks/turn_solver.py`` measures one against the other.
"""

from __future__ import annotations

from zloutch.strategy.turn_solver import (
    FARKLE,
    WIN,
    Hand,
    Situation,
    Terminal,
    ThrowNode,
    TurnModel,
    turn_cap,
)


def reference_expected_turn(
    model: TurnModel,
    situation: Situation | None = None,
    cap: int | None = None,
    terminal: Terminal | None = None,
) -> float:
    """The expected points of a fresh turn, computed state by state."""

    rules = model.rules
    situation = situation or Situation()
    unit = model.unit
    exact = rules.game.exact_target
    top = (cap if cap is not None and not exact else turn_cap(rules, situation)) // unit
    hands = model.hands
    pad = model.max_points + 1
    terminal = terminal or Terminal()
    points = model.compiled.bank_points(situation, top + 1 + pad)
    bank_values = [float(v) + terminal.bank_bonus for v in points]
    bankable = model.compiled.bankable(situation, top + 1)
    can_bank = {
        (t, hand): bool(bankable[t, i]) for i, hand in enumerate(hands) for t in range(top + 1)
    }
    win = float(max(rules.game.target - situation.score, 0)) + terminal.bank_bonus
    memo: dict[tuple[int, int], float] = {}
    order = sorted(
        model.options, key=lambda n: (not n.joker_roll, not (n.jokers and not n.joker_roll))
    )

    def value(t: int, column: int) -> float:
        if column == FARKLE:
            return terminal.farkle
        if column == WIN:
            return win
        if t > top:
            return terminal.farkle if exact else bank_values[t]
        return memo[(t, column)]

    for t in range(top, -1, -1):
        for node in order:
            total = 0.0
            for (_, p), options in zip(model.rolls[node.n], model.options[node], strict=True):
                total += p * max(value(t + points, dest) for points, dest in options)
            memo[(t, model.column[node])] = total
        for hand in hands:
            throw = memo[(t, model.column[model.throw_of(hand)])]
            best = max(throw, bank_values[t]) if can_bank[(t, hand)] else throw
            memo[(t, model.column[hand])] = best
    start: ThrowNode = model.start
    return memo[(0, model.column[start])]


__all__ = ["Hand", "reference_expected_turn"]
