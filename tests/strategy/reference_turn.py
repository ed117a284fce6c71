"""A plain recursive turn solver that plays through the engine itself (tests only).

It knows nothing of the vectorised solver: it recurses over engine states, one action at a
time, and memoises on the state. Slow, obviously right, and only for tiny rule sets.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from zloutch.engine import CHANCE, GameState, Phase, chance_outcomes, current_player, legal_actions
from zloutch.engine.events import Banked, Won
from zloutch.engine.game import step


def turn_value(state: GameState, cap: int) -> float:
    """Expected points banked by the turn of the player to move, under optimal play."""
    player = state.turn.player
    score = state.sheets[player].score
    target_room = state.rules.game.target - score

    def gain(total: int) -> int:
        g = state.rules.game
        if g.last_thousand and score + total < g.target:
            return min(score + total, max(g.target - 1000, score)) - score
        return total

    @cache
    def value(s: GameState) -> float:
        if current_player(s) == CHANCE:
            return float(
                sum(
                    (Fraction(p) * Fraction(after(s, roll)) for roll, p in chance_outcomes(s)),
                    Fraction(0),
                )
            )
        return max(after(s, action) for action in legal_actions(s))

    def after(s: GameState, action: object) -> float:
        new, events = step(s, action)  # type: ignore[arg-type]
        for event in events:
            if isinstance(event, Won) and not any(isinstance(e, Banked) for e in events):
                return float(max(target_room, 0))
            if isinstance(event, Banked):
                return float(event.level - score)  # what the sheet gained (G-7 caps it)
        if new.turn.player != player or new.phase is Phase.OVER:
            return 0.0
        if not s.rules.game.exact_target and new.turn.total > cap:
            return float(gain(new.turn.total))  # past the cap the solver banks: so do we
        return value(new)

    return value(state)
