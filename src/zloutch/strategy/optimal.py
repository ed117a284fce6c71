"""The ``optimal`` bot and win-probability advice, from a solved two-player game."""

from __future__ import annotations

import random
from collections.abc import Callable

from zloutch.engine.actions import Action
from zloutch.engine.game import sheets_after_bank, sheets_after_farkle
from zloutch.engine.state import GameState, PlayerSheet
from zloutch.rules.ruleset import RuleSet
from zloutch.strategy.expert import WIN_PROBABILITY, Advice, ExpertBot, TurnAdvisor
from zloutch.strategy.game_solver import (
    GameSolution,
    PairSolutions,
    SheetEnds,
    sheet_blind,
    solved_model,
)
from zloutch.strategy.turn_solver import TurnSolution


def looks_ahead(solution: GameSolution) -> bool:
    """Whether a solved sheet-blind model is read one turn ahead on the sheet: not under
    F-1, whose farkles in a row the look-ahead does not carry (such a model is read by the
    banked scores and the counts alone)."""
    return solution.counts is None


def sheet_words(model: RuleSet) -> str:
    """How the optimal bot, the hint and the review read a sheet-blind ``model``."""
    if model.turn.farkle_penalty:
        return "read by the banked scores: ticks, bumps and take-back are not in its model"
    return SHEET_LOOK_AHEAD


SHEET_LOOK_AHEAD = (
    "one turn ahead on the sheet (the tick, crossing and bumps the turn's farkle or bank "
    "would write); later ticks and bumps, and take-back, are not in its model"
)
"""What the optimal bot plays a rule set with a sheet history by, in words."""


class GameAdvisor(TurnAdvisor):
    """Values every legal action by the chance to win, both players playing optimally.

    With three players or more, each end of a turn is valued by the solved two-player
    chance against the opponent most dangerous from there (``PairSolutions.field_turn``):
    an approximation from above of the chance to beat them all (the game of more than two
    is not solved). Each opponent has one turn a round, as in the two-player game."""

    def __init__(self, solution: GameSolution, rules: RuleSet | None = None) -> None:
        super().__init__(solution.rules)
        self.game = solution
        self.pairs = PairSolutions(solution)
        self.model = self.pairs.game.model
        self.sheet = looks_ahead(solution) and rules is not None and rules != solution.rules
        """The game's rules write a history on the sheet that the solved model (their
        sheet-blind model) leaves out: each turn looks one turn ahead (``sheet_ends``)."""
        self._ends: tuple[tuple[PlayerSheet, ...], int, int, tuple[SheetEnds, ...]] | None = None

    def sheet_ends(self, state: GameState) -> tuple[int, tuple[SheetEnds, ...]]:
        """What a farkle and each bump of the mover would leave on the sheet, as the engine
        writes them: the mover's score after a farkle, and each opponent's ends."""
        mover = state.turn.player
        if self._ends is not None and self._ends[0] is state.sheets and self._ends[1] == mover:
            return self._ends[2], self._ends[3]
        score = state.sheets[mover].score
        farkled = sheets_after_farkle(state)
        levels = {
            level.value
            for seat, sheet in enumerate(state.sheets)
            if seat != mover
            for level in sheet.levels
            if not level.crossed and level.value > score
        }
        banks = {value: sheets_after_bank(state, value - score) for value in sorted(levels)}
        ends = tuple(
            SheetEnds(
                sheet.score,
                farkled[seat].score,
                tuple(
                    (banked[mover].score, banked[seat].score)
                    for banked in banks.values()
                    if banked[seat].score != sheet.score
                ),
            )
            for seat, sheet in enumerate(state.sheets)
            if seat != mover
        )
        self._ends = (state.sheets, mover, farkled[mover].score, ends)
        return farkled[mover].score, ends

    def solution(self, state: GameState, inherited: int | None = None) -> TurnSolution:
        taken = state.turn.inherited if inherited is None else inherited
        if self.sheet:
            farkled_to, ends = self.sheet_ends(state)
            return self.pairs.sheet_turn(
                state.sheets[state.turn.player].score, farkled_to, ends, taken
            )
        if len(state.sheets) > 2:
            mover = state.turn.player
            mine = state.sheets[mover]
            others = [
                (sheet.score, sheet.farkles_in_row)
                for seat, sheet in enumerate(state.sheets)
                if seat != mover
            ]
            return self.pairs.field_turn(mine.score, others, mine.farkles_in_row, taken)
        mine, theirs = state.sheets[state.turn.player], state.sheets[1 - state.turn.player]
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


def solves_for(players: int) -> bool:
    """Whether ``optimal`` plays a game of ``players`` seats from a solved game. Alone, a
    player has no one to beat (the game ends when the target is reached, however it is
    played): it plays each turn for the most points, as ``expert`` does, and says so."""
    return players >= 2


ALONE = "a game of one player, with no one to beat: playing turn-optimal"
"""The optimal bot's note in a game of one player (``solves_for``)."""


class OptimalBot:
    """Plays to win: each action maximises its chance to win the two-player game.

    It reads solved games from ``solutions`` (a GameSolution, or a function that finds one
    for a rule set, such as ``zloutch.app.store.load_game_solution``). A rule set whose sheet's
    history matters (ticks, bumps, take-back) is played by its sheet-blind model
    (``sheet_blind``) when that one is solved, looking one turn ahead on the sheet
    (``GameAdvisor.sheet_ends``), and says so in ``note``. Where nothing is
    found, it plays the turn-optimal policy and says so in ``note``. With three players or
    more it plays the two-player game against the most dangerous opponent at each end of
    its turn (``GameAdvisor``), and says so in ``note``; alone, turn-optimal (``solves_for``).
    """

    name = "optimal"

    def __init__(
        self, solutions: GameSolution | SolutionSource | None = None, *, look_ahead: bool = True
    ) -> None:
        self._source = solutions
        self.look_ahead = look_ahead
        """False: a rule set with a sheet history is played by its sheet-blind model alone,
        as the bot did before it looked a turn ahead (for comparisons)."""
        self._advisors: dict[RuleSet, GameAdvisor | None] = {}
        self.turn_optimal = ExpertBot()
        """What it plays where no solved game applies: each turn for the most points."""
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
            real = rules if self.look_ahead else None
            self._advisors[rules] = GameAdvisor(found, real) if found is not None else None
        return self._advisors[rules]

    def choose(self, state: GameState, rng: random.Random) -> Action:
        if not solves_for(len(state.sheets)):
            self.note = ALONE
            return self.turn_optimal.choose(state, rng)
        advisor = self.advisor(state.rules)
        if advisor is None:
            model = solved_model(state.rules) or state.rules
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
            return self.turn_optimal.choose(state, rng)
        field = (
            f" against the most dangerous of the {len(state.sheets) - 1} opponents"
            if len(state.sheets) > 2
            else ""
        )
        if advisor.game.rules != state.rules:
            how = (
                sheet_words(advisor.game.rules)
                if advisor.sheet or self.look_ahead
                else ("alone (no look-ahead)")
            )
            self.note = (
                f"playing the sheet-blind model {advisor.game.rules.spec} of "
                f"{state.rules.spec}{field}, {how}"
            )
        elif field:
            self.note = f"playing the solved two-player game of {state.rules.spec}{field}"
        elif self._waited:
            self.note = f"the game of {state.rules.spec} is solved: playing to win from now on"
        else:
            self.note = ""
        return advisor.advise(state).best
