"""What playing a game out needs beyond the state machine: a roll drawn with a random
generator passed in, and what the end of a game pays each seat.

``chance_outcomes`` lists every roll with its exact probability; ``sample_roll`` draws one
roll with those probabilities, the way the simulator and the game do (one ``randint(1, 6)``
per die in the air), so that a seeded ``random.Random`` gives the same dice everywhere.

With a ``random.Random`` itself, ``sample_roll`` draws each die as ``randint(1, 6)`` does
inside (``getrandbits(3)``, drawn again while it is 6 or 7) and reads the ``Roll`` from a
table: the same dice from the same generator, without the calls in between.
"""

from __future__ import annotations

import random

from zloutch.engine.actions import IllegalActionError, Roll
from zloutch.engine.record import roll
from zloutch.engine.state import GameState, Phase
from zloutch.engine.throws import rolls_by_code

_CODES = (1, 8, 64, 512, 4096, 32768)
"""The code of one die of face ``r + 1``: its count as a base-8 digit (``rolls_by_code``)."""


def sample_roll(state: GameState, rng: random.Random) -> Roll:
    """One roll of the dice in the air, drawn with ``rng``; ``apply`` it to go on.

    Each die is one ``rng.randint(1, 6)``: the roll ``r`` comes with the probability that
    ``chance_outcomes(state)`` gives it. Raises IllegalActionError when no dice are rolling.
    """
    if state.phase is not Phase.ROLL:
        raise IllegalActionError(
            "no dice are rolling: a roll is sampled while current_player(state) is CHANCE"
        )
    if type(rng) is not random.Random:
        return roll(state, rng)
    n = state.turn.rolling
    bits = rng.getrandbits
    code = 0
    for _ in range(n):
        # randint(1, 6) is randrange(1, 7): 1 + _randbelow(6), which draws getrandbits(3)
        # until it is below 6
        r = bits(3)
        while r >= 6:
            r = bits(3)
        code += _CODES[r]
    return rolls_by_code(n)[code]


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
