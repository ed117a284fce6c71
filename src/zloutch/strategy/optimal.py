"""The ``optimal`` bot and win-probability advice, from a solved two-player game."""

from __future__ import annotations

import random

from zloutch.engine.actions import Action
from zloutch.engine.state import GameState
from zloutch.strategy.expert import Advice, TurnAdvisor
from zloutch.strategy.game_solver import GameSolution, PairSolutions
from zloutch.strategy.turn_solver import TurnSolution


class GameAdvisor(TurnAdvisor):
    """Values every legal action by the chance to win, both players playing optimally."""

    def __init__(self, solution: GameSolution) -> None:
        super().__init__(solution.rules)
        self.game = solution
        self.pairs = PairSolutions(solution)
        self.model = self.pairs.game.model

    def solution(self, state: GameState) -> TurnSolution:
        me = state.turn.player
        other = 1 - me
        return self.pairs.turn(state.sheets[me].score, state.sheets[other].score)

    def advise(self, state: GameState) -> Advice:
        advice = super().advise(state)
        return Advice(advice.values, objective="win probability")


class OptimalBot:
    """Plays to win: each action maximises its chance to win the two-player game."""

    name = "optimal"

    def __init__(self, solution: GameSolution) -> None:
        self.advisor = GameAdvisor(solution)

    def choose(self, state: GameState, rng: random.Random) -> Action:
        return self.advisor.advise(state).best
