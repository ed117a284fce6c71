"""Single turns played through the engine: what a policy banks, turn after turn.

The data of ``zloutch plot turn-scores``: each turn starts from the same sheet and is seeded
by its index alone, so the same seed gives the same scores.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from zloutch.engine import (
    CHANCE,
    GameState,
    Level,
    current_player,
    is_terminal,
    new_game,
    step,
    step_legal,
)
from zloutch.engine.events import Banked, Farkled, Won
from zloutch.engine.rollout import sample_roll
from zloutch.rules import RuleSet
from zloutch.strategy.policy import Policy


@dataclass
class TurnScores:
    """What one policy banked over many simulated turns (0 for a lost turn)."""

    policy: str
    counts: dict[int, int] = field(default_factory=dict)
    """Turns by points banked (0: farkled, or lost past an exact target)."""
    instant_wins: int = 0
    """Turns that won the game at once (G-5): they bank nothing and are not in ``counts``."""

    @property
    def turns(self) -> int:
        return sum(self.counts.values()) + self.instant_wins

    @property
    def banked_turns(self) -> int:
        return sum(self.counts.values())

    @property
    def farkles(self) -> int:
        return self.counts.get(0, 0)

    @property
    def mean(self) -> float:
        n = self.banked_turns
        return sum(t * c for t, c in self.counts.items()) / n if n else 0.0

    @property
    def stderr(self) -> float:
        n = self.banked_turns
        if n < 2:
            return 0.0
        mean = self.mean
        var = sum(c * (t - mean) ** 2 for t, c in self.counts.items()) / (n - 1)
        return math.sqrt(var / n)

    def histogram(self, edges: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Shares of all turns in the bins ``edges`` (beyond the last edge: not counted)."""
        totals = np.asarray(list(self.counts), dtype=np.float64)
        weights = np.asarray(list(self.counts.values()), dtype=np.float64)
        counts, _ = np.histogram(totals, bins=edges, weights=weights)
        return counts / max(self.turns, 1)


def turn_start(rules: RuleSet, entered: bool = True, score: int = 0) -> GameState:
    """A game whose first player starts a turn with this banked score (entered or not)."""
    players = max(2, rules.game.min_players)
    state = new_game(rules, [f"p{i}" for i in range(players)])
    sheet = replace(state.sheets[0], levels=(Level(score),) if entered else ())
    return replace(state, sheets=(sheet, *state.sheets[1:]))


def simulate_turns(
    rules: RuleSet,
    policy: Policy,
    turns: int,
    seed: int,
    *,
    entered: bool = True,
    score: int = 0,
    progress: Callable[[int], None] | None = None,
) -> TurnScores:
    """Play ``turns`` single turns of ``policy`` through the engine from the same start.

    Turn ``i`` is seeded from ``(seed, i)`` alone, so the same seed gives the same scores.
    """
    start = turn_start(rules, entered, score)
    result = TurnScores(policy.name)
    for i in range(turns):
        rng = random.Random(f"zloutch-turn:{seed}:{i}")
        state = start
        banked: int | None = None
        while banked is None:
            if current_player(state) == CHANCE:  # a roll is legal: not checked again
                state, events = step_legal(state, sample_roll(state, rng))
            else:
                state, events = step(state, policy.choose(state, rng))
            for event in events:
                if isinstance(event, Banked) and event.player == 0:
                    banked = event.total
                elif isinstance(event, Farkled) and event.player == 0:
                    banked = 0
                elif isinstance(event, Won) and banked is None:
                    banked = -1  # an instant win (G-5): nothing banked
            if banked is None and (is_terminal(state) or state.turn.player != 0):
                banked = 0  # pragma: no cover - every turn ends with one of the events
        if banked < 0:
            result.instant_wins += 1
        else:
            result.counts[banked] = result.counts.get(banked, 0) + 1
        if progress is not None and ((i + 1) % 250 == 0 or i + 1 == turns):
            progress(i + 1)
    return result
