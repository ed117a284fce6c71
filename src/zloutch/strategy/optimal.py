"""The ``optimal`` bot and win-probability advice, from a solved two-player game."""

from __future__ import annotations

import random
from collections.abc import Callable

from zloutch.engine.actions import Action
from zloutch.engine.state import GameState
from zloutch.rules.ruleset import RuleSet
from zloutch.strategy.expert import WIN_PROBABILITY, Advice, ExpertBot, TurnAdvisor
from zloutch.strategy.game_solver import GameSolution, PairSolutions, sheet_blind
from zloutch.strategy.turn_solver import TurnSolution


class GameAdvisor(TurnAdvisor):
    """Values every legal action by the chance to win, both players playing optimally."""

    def __init__(self, solution: GameSolution) -> None:
        super().__init__(solution.rules)
        self.game = solution
        self.pairs = PairSolutions(solution)
        self.model = self.pairs.game.model

    def solution(self, state: GameState, inherited: int | None = None) -> TurnSolution:
        mine, theirs = state.sheets[state.turn.player], state.sheets[1 - state.turn.player]
        taken = state.turn.inherited if inherited is None else inherited
        if self.game.counts is None:
            return self.pairs.turn(mine.score, theirs.score, inherited=taken)
        # F-1: the farkles in a row of both players are part of the state.
        return self.pairs.turn(
            mine.score, theirs.score, mine.farkles_in_row, theirs.farkles_in_row, taken
        )

    def advise(self, state: GameState) -> Advice:
        advice = super().advise(state)
        return Advice(advice.values, objective=WIN_PROBABILITY)


SolutionSource = Callable[[RuleSet], "GameSolution | None"]


class OptimalBot:
    """Plays to win: each action maximises its chance to win the two-player game.

    It reads solved games from ``solutions`` (a GameSolution, or a function that finds one
    for a rule set, such as ``zloutch.app.store.load_game_solution``). A rule set whose sheet's
    history matters (ticks, bumps, take-back) is played by its sheet-blind model
    (``sheet_blind``) when that one is solved, and says so in ``note``. Where nothing is
    found, or the game has more than two players, it plays the turn-optimal policy and says
    so in ``note``.
    """

    name = "optimal"

    def __init__(self, solutions: GameSolution | SolutionSource | None = None) -> None:
        self._source = solutions
        self._advisors: dict[RuleSet, GameAdvisor | None] = {}
        self._expert = ExpertBot()
        self.note = ""
        self.solving: Callable[[RuleSet], bool] | None = None
        """Whether a rule set's game is being solved now (a terminal game or a server that
        solves it in the background): the note says so while the bot waits for it."""
        self._waited = False

    def _find(self, rules: RuleSet) -> GameSolution | None:
        source = self._source
        if isinstance(source, GameSolution):
            return source if source.rules == rules else None
        return source(rules) if source is not None else None

    def advisor(self, rules: RuleSet) -> GameAdvisor | None:
        """The solved game's advisor; a table not found is looked for again at the next
        move (a server solves the game in the background on first use)."""
        if self._advisors.get(rules) is None:
            found = self._find(rules)
            if found is None and (blind := sheet_blind(rules)) is not None:
                found = self._find(blind)
            self._advisors[rules] = GameAdvisor(found) if found is not None else None
        return self._advisors[rules]

    def choose(self, state: GameState, rng: random.Random) -> Action:
        advisor = self.advisor(state.rules) if len(state.sheets) == 2 else None
        if advisor is None:
            model = sheet_blind(state.rules) or state.rules
            if self.solving is not None and self.solving(model):
                self._waited = True
                self.note = (
                    f"no solved game for {state.rules.spec} yet: playing turn-optimal until "
                    f"{model.spec} is solved (solving it now, in the background)"
                )
            else:
                self.note = (
                    f"no solved game for {state.rules.spec}: playing turn-optimal "
                    f"(solve it with: zloutch solve --game --rules '{model.spec}')"
                )
            return self._expert.choose(state, rng)
        if advisor.game.rules != state.rules:
            self.note = (
                f"playing the sheet-blind model {advisor.game.rules.spec} of "
                f"{state.rules.spec}: ticks, bumps and take-back are not in its model"
            )
        elif self._waited:
            self.note = f"the game of {state.rules.spec} is solved: playing to win from now on"
        else:
            self.note = ""
        return advisor.advise(state).best
