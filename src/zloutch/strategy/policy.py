"""The policy protocol every bot and solver policy follows (docs/architecture.md: strategy)."""

from __future__ import annotations

import random
from typing import Protocol

from zloutch.engine.actions import Action
from zloutch.engine.state import GameState


class Policy(Protocol):
    """Chooses one of ``legal_actions(state)`` for the player to move.

    The random generator is passed in: a policy holds no randomness of its own.
    """

    @property
    def name(self) -> str: ...

    def choose(self, state: GameState, rng: random.Random) -> Action: ...
