"""What playing a game out needs beyond the state machine: a roll drawn with a random
generator passed in, and what the end of a game pays each seat.

``chance_outcomes`` lists every roll with its exact probability; ``sample_roll`` draws one
roll with those probabilities, the way the simulator and the game do (one ``randint(1, 6)``
per die in the air), so that a seeded ``random.Random`` gives the same dice everywhere.
"""

from __future__ import annotations

import random

from zloutch.engine.actions import IllegalActionError, Roll
from zloutch.engine.record import roll
from zloutch.engine.state import GameState, Phase


def sample_roll(state: GameState, rng: random.Random) -> Roll:
    """One roll of the dice in the air, drawn with ``rng``; ``apply`` it to go on.

    Each die is one ``rng.randint(1, 6)``: the roll ``r`` comes with the probability that
    ``chance_outcomes(state)`` gives it. Raises IllegalActionError when no dice are rolling.
    """
    if state.phase is not Phase.ROLL:
        raise IllegalActionError(
            "no dice are rolling: a roll is sampled while current_player(state) is CHANCE"
        )
    return roll(state, rng)


def returns(state: GameState) -> tuple[float, ...]:
    """What the game pays each seat, in seat order: at the end 1 to a sole winner, 1/k to
    each of k tied winners (F-4 final turns can tie), 0 to the others; before the end 0 to
    everyone.

    The returns of a finished game add up to 1, so the expected return of a seat under some
    policies is its probability to win: the objective of the game solver (``solve_game``).
    """
    if state.phase is not Phase.OVER or not state.winners:
        return tuple(0.0 for _ in state.sheets)
    share = 1.0 / len(state.winners)
    return tuple(share if seat in state.winners else 0.0 for seat in range(len(state.sheets)))
