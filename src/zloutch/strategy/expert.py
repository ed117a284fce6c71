"""Turn-optimal advice and the ``expert`` bot: every legal action with its exact value."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zloutch.engine.actions import Action, Bank, Fresh, Joker, Keep, Take, Throw
from zloutch.engine.compiled import UNSEEN, WIN, Hand, Situation, ThrowNode
from zloutch.engine.game import (
    joker_reading,
    keep_passes,
    legal_actions,
    overshoots,
    throw_score,
    turn_after_jokers,
    turn_after_throw,
)
from zloutch.engine.state import GameState, Phase
from zloutch.rules.dice import format_dice
from zloutch.rules.errors import ZloutchError
from zloutch.rules.ruleset import RuleSet
from zloutch.rules.scoring import NO_CONTEXT, HandContext
from zloutch.strategy.turn_solver import (
    AverageReward,
    SituationError,
    TurnModel,
    TurnSolution,
    check_score,
    check_total,
    farkle_probabilities,
    solve_average_reward,
    solve_turn,
)

if TYPE_CHECKING:
    from zloutch.strategy.tables import PolicyTable, TableFrame

POINTS = "expected points"
"""The objective of a turn solved alone: the expected points it banks."""
LONG_RUN = "long-run points per turn (F-1)"
"""The objective under the consecutive-farkle penalty: the long-run average per turn."""
WIN_PROBABILITY = "win probability"
"""The objective of a solved game (``optimal.GameAdvisor``): the chance to win, 0 to 1."""


class AdviceError(ZloutchError):
    """A situation to advise on that the rule set cannot have."""


def long_run(rules: RuleSet, entered: bool = True, score: int = 0) -> bool:
    """Whether a player's turn is valued for the long run (F-1, ``solve_average_reward``):
    the rule set has the consecutive-farkle penalty, and the turn depends on nothing else of
    the sheet (the player has entered or the rule set has no entry; the score changes nothing).
    """
    if not rules.turn.farkle_penalty or Situation.score_matters(rules):
        return False
    return Situation.normalise(rules, entered, score) == Situation()


def objective(rules: RuleSet, entered: bool = True, score: int = 0) -> str:
    """What advice values for this player: ``LONG_RUN`` (F-1) or ``POINTS``."""
    return LONG_RUN if long_run(rules, entered, score) else POINTS


@dataclass(frozen=True)
class Advice:
    """Each legal action with its value, best first.

    The value is the expected points banked by the turn (``POINTS``); under the
    consecutive-farkle penalty (F-1, ``LONG_RUN``) it is those points plus the relative value
    of the count of farkles in a row the turn leaves (``solve_average_reward``), so that the
    best action maximises the long-run points per turn.
    """

    values: tuple[tuple[Action, float], ...]
    objective: str = POINTS
    note: str | None = None
    """What the values leave out, said beside them (``app.hints.with_target_note``)."""

    @property
    def best(self) -> Action:
        return self.values[0][0]


def blank_cost(rules: RuleSet) -> float:
    """What a fresh turn's first throw costs on average (points): the penalty for a blank
    one (``fresh_farkle_penalty``) times its chance. It weighs a fresh start against a
    take-back (G-8); the game solver does not model it, so this counts in points."""
    if not rules.turn.fresh_farkle_penalty:
        return 0.0
    blank = farkle_probabilities(rules)[rules.dice]
    return rules.turn.fresh_farkle_penalty * float(blank)


class TurnAdvisor:
    """Solves turns for one rule set on demand, once per situation, and values actions."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.model = TurnModel(rules)
        self._solutions: dict[Situation, TurnSolution] = {}
        self._average: AverageReward | None = None
        self.blank_cost = blank_cost(rules)
        """What a fresh turn's first throw costs on average (``blank_cost``)."""

    def average_reward(self) -> AverageReward:
        """The long-run solve of the consecutive-farkle penalty (F-1), solved once."""
        if self._average is None:
            self._average = solve_average_reward(self.rules, model=self.model)
        return self._average

    def long_run(self, state: GameState) -> bool:
        """Whether the turn of the player to move is valued for the long run (F-1)."""
        seat = state.turn.player
        return long_run(self.rules, state.entered(seat), state.sheets[seat].score)

    def objective(self, state: GameState) -> str:
        return LONG_RUN if self.long_run(state) else POINTS

    def solution(self, state: GameState, inherited: int | None = None) -> TurnSolution:
        """The solved turn of the player to move; ``inherited``: the points taken back into
        it (G-8), the turn's own by default (a take-back offer values ``offer.total``)."""
        sheet = state.sheets[state.turn.player]
        if self.long_run(state):
            # F-1: the turn of a player with z farkles in a row (z capped to the counts).
            solutions = self.average_reward().solutions
            return solutions[min(max(sheet.farkles_in_row, 0), len(solutions) - 1)]
        entered = state.entered(state.turn.player)
        taken = state.turn.inherited if inherited is None else inherited
        situation = Situation.normalise(self.rules, entered, sheet.score, taken)
        if situation not in self._solutions:
            self._solutions[situation] = solve_turn(self.rules, situation, model=self.model)
        return self._solutions[situation]

    def hand(self, state: GameState) -> Hand:
        """The decision node of the turn after a keep (DECIDE phase)."""
        return self.model.compiled.hand_of(state.turn)

    def throw_node(self, state: GameState) -> ThrowNode:
        """The chance node whose roll is on the table (KEEP phase)."""
        return self.model.compiled.throw_node_of(state.turn)

    def advise(self, state: GameState) -> Advice:
        """Every legal action of the player to move with its value, best first."""
        t = state.turn
        unit = self.model.unit
        compiled = self.model.compiled
        values: list[tuple[Action, float]] = []
        passing: set[int] = set()
        for action in legal_actions(state):
            if isinstance(action, Throw | Fresh) and state.phase is Phase.START:
                value = self.solution(state, 0).value(0, self.model.start) - self.blank_cost
            elif isinstance(action, Take):
                offer = state.offer
                assert offer is not None
                sol = self.solution(state, offer.total)
                value = sol.value(offer.total, compiled.take_node(offer))
            elif isinstance(action, Keep):
                keep = next(k for k in throw_score(state).keeps if k.dice == action.dice)
                if keep_passes(state, keep):
                    passing.add(len(values))
                options = compiled.keep_options(self.throw_node(state), t.throw, keep)
                sol = self.solution(state)
                value = max(sol.column_value(t.total + p * unit, c) for p, c in options)
            elif isinstance(action, Bank):
                value = self.solution(state).bank_value(t.total)
            elif isinstance(action, Throw):
                thrown = turn_after_throw(self.rules, t, fresh=False)
                value = self.solution(state).value(t.total, compiled.throw_node_of(thrown))
            elif isinstance(action, Joker):
                joker = next(k for k in joker_reading(state).scoring if k.dice == action.dice)
                thrown = turn_after_throw(self.rules, turn_after_jokers(t, joker), fresh=False)
                value = self.solution(state).value(t.total, compiled.throw_node_of(thrown))
            else:
                value = float("-inf")
            values.append((action, value))

        def rank(i: int) -> tuple[float, int]:
            return (-(values[i][1] - (PASSING if i in passing else 0.0)), i)

        order = sorted(range(len(values)), key=rank)
        return Advice(tuple(values[i] for i in order), self.objective(state))


PASSING = 1e-12
"""A keep that passes an exact target (T-9) ranks as if worth this much less: it is never
worth more than one that does not, so a tie (or a difference of rounding) goes to the
other (``strategy.tables.expert_table`` ranks the options the same way)."""


class ExpertBot:
    """Plays every turn to maximise its expected points banked (the turn-optimal policy);
    under the consecutive-farkle penalty (F-1), its long-run points per turn instead. A bank
    that wins the game at once (``bots.banks_on_target``) it makes, and a keep after which
    one does (``bots.keep_for_the_win``), as every bot does."""

    name = "expert"

    def __init__(self) -> None:
        self._advisors: dict[RuleSet, TurnAdvisor] = {}

    def advisor(self, rules: RuleSet) -> TurnAdvisor:
        if rules not in self._advisors:
            self._advisors[rules] = TurnAdvisor(rules)
        return self._advisors[rules]

    def choose(self, state: GameState, rng: random.Random) -> Action:
        from zloutch.strategy.bots import keep_for_the_win, last_turn_move, wins_by_banking

        if wins_by_banking(state):
            return Bank()  # a win at once, which the turn's points do not weigh
        best = self.advisor(state.rules).advise(state).best
        if isinstance(best, Joker):
            return best  # V-2: jokers set aside, the throw goes on (as its table plays it)
        actions = legal_actions(state)
        last = last_turn_move(state, actions)
        if last is not None:
            return last  # F-4: a last turn is won on the lead
        return keep_for_the_win(state, actions, best)  # a keep, then a bank, that wins

    def turn_table(self, frame: TableFrame) -> PolicyTable:
        """Its choices as tables (the turn solver's, ties broken as ``choose`` breaks them:
        banking before throwing, the first keep), for the fast simulator."""
        from zloutch.strategy.tables import expert_table

        return expert_table(frame)


BOLD_MARGIN = 100
"""How many points more than a throw a bank must be worth before the ``bold`` bot banks."""


class BoldBot:
    """Plays as the expert but pushes its luck: where the expert would bank, it throws the
    dice in hand on (all of them: it sets no jokers aside then, V-2) unless banking is worth
    at least ``margin`` points more than that throw (the turn solver's values,
    ``TurnAdvisor.advise``); on a tie it banks, so ``bold:0`` is the expert. A bank that
    wins the game at once (``bots.banks_on_target``) it makes, as every bot does. It keeps,
    and takes back (G-8), as the expert does.

    The ``medium`` level: it plays a sound turn with one human flaw, so it sits between
    ``cautious`` and ``expert`` on the presets (docs/strategy.md says where it does not)."""

    def __init__(self, margin: int = BOLD_MARGIN) -> None:
        self.margin = margin
        self.name = "bold" if margin == BOLD_MARGIN else f"bold:{margin}"
        self._expert = ExpertBot()

    def advisor(self, rules: RuleSet) -> TurnAdvisor:
        """The expert's advisor, whose values it plays by."""
        return self._expert.advisor(rules)

    def choose(self, state: GameState, rng: random.Random) -> Action:
        from zloutch.strategy.bots import keep_for_the_win, last_turn_move, wins_by_banking

        if wins_by_banking(state):
            return Bank()  # a win at once
        advice = self.advisor(state.rules).advise(state)
        actions = legal_actions(state)
        last = last_turn_move(state, actions)
        if last is not None and not isinstance(advice.best, Joker):
            return last  # F-4: a last turn is won on the lead (jokers set aside go on)
        best, bank = advice.values[0]
        if state.phase is Phase.KEEP:
            return keep_for_the_win(state, actions, best)  # a keep, then a bank, that wins
        if state.phase is not Phase.DECIDE or not isinstance(best, Bank):
            return best
        throw = next((v for a, v in advice.values if isinstance(a, Throw)), None)
        return Throw() if throw is not None and throw > bank - self.margin else best

    def turn_table(self, frame: TableFrame) -> PolicyTable:
        """Its choices as tables: the expert's, banking only by the margin."""
        from zloutch.strategy.tables import expert_table

        return expert_table(frame, float(self.margin), self.name)


@dataclass(frozen=True)
class KeepAdvice:
    """One keep of a throw: what the turn is worth after it, and what to do next."""

    dice: tuple[int, ...]
    points: int
    value: float
    """The turn's value after this keep, played optimally (``objective``: expected points
    banked by the turn, or under F-1 the long-run value, see ``Advice``)."""
    then: str
    """``bank``, ``throw``, ``over`` (the keep ends the turn: it passes an exact target) or
    ``win`` (the throw wins the game at once, G-5)."""


def advise_throw(
    rules: RuleSet,
    throw: tuple[int, ...],
    total: int = 0,
    set_aside: tuple[int, ...] | HandContext = (),
    *,
    entered: bool = True,
    score: int = 0,
    farkles: int = 0,
    advisor: TurnAdvisor | None = None,
    opponent: int = 0,
) -> tuple[KeepAdvice, ...]:
    """Every legal keep of a throw at a turn total, best first, and whether to bank after.

    The throw is read in a turn where ``set_aside`` dice are already kept in the hand (the
    dice alone, or a ``HandContext`` with the multiples among them, V-7) and ``total`` points
    are kept; the player has ``score`` banked (and has entered, or not), and under the
    consecutive-farkle penalty (F-1) ``farkles`` farkles in a row so far. Raises
    ``SituationError`` for a total or a score the rule set cannot have, ``AdviceError`` for a
    count of farkles it cannot have. ``opponent``: the other player's banked score, which
    an ``advisor`` of the game (``optimal.GameAdvisor``: values in win probability) reads.
    """
    from dataclasses import replace

    from zloutch.engine.actions import Keep as KeepAction
    from zloutch.engine.actions import Roll
    from zloutch.engine.game import apply, new_game
    from zloutch.engine.state import Level, Phase, TurnState

    check_total(rules, total)
    check_score(rules, score)
    _check_farkles(rules, farkles)
    if overshoots(rules, score, total):
        raise SituationError(
            f"a turn total of {total} on a banked score of {score} passes the target of "
            f"{rules.game.target}: the turn was lost when it passed it (T-9)"
        )
    hand = set_aside if isinstance(set_aside, HandContext) else NO_CONTEXT
    aside = hand.set_aside if isinstance(set_aside, HandContext) else tuple(sorted(set_aside))
    missing = rules.dice - len(aside) - len(throw)
    if missing > 0:
        if rules.variants.across_throws:
            raise AdviceError(
                f"{len(throw)} of {rules.dice} dice thrown: name the dice set aside "
                f"(--set-aside), which change what the throw scores (V-6, V-7)"
            )
        # The faces set aside score nothing more without V-6 and V-7: only their count matters.
        aside = tuple(sorted(aside + (UNSEEN,) * missing))
    advisor = advisor or TurnAdvisor(rules)
    state = new_game(rules, ["You", "Other"]) if rules.game.min_players <= 2 else None
    if state is None:  # pragma: no cover - every preset takes two players
        state = new_game(rules, ["You"] * rules.game.min_players)
    sheet = replace(
        state.sheets[0], levels=(Level(score),) if entered else (), farkles_in_row=farkles
    )
    if opponent:  # the other player's banked score: what a game's advisor reads
        try:
            check_score(rules, opponent)
        except SituationError as exc:
            raise SituationError(f"the opponent's score: {exc}") from None
        other = replace(state.sheets[1], levels=(Level(opponent),))
        state = replace(state, sheets=(state.sheets[0], other, *state.sheets[2:]))
    turn = TurnState(
        player=0, total=total, set_aside=aside, multiples=hand.multiples, rolling=len(throw)
    )
    state = replace(state, sheets=(sheet, *state.sheets[1:]), turn=turn, phase=Phase.ROLL)
    before, state = state, apply(state, Roll(throw))
    if state.phase is Phase.OVER and state.winners == (0,):
        # G-5: the throw wins the game at once (five 1s): its winning keep, valued as the
        # turn solver values a win, is the advice, and there is nothing after it.
        win = next(k for k in throw_score(state).keeps if k.wins)
        value = advisor.solution(before).column_value(total, WIN)
        return (KeepAdvice(win.dice, win.points, value, "win"),)
    if state.turn.player != 0 or state.phase is not Phase.KEEP:
        return ()
    if advisor.throw_node(state) not in advisor.model.column:
        raise AdviceError(
            f"no turn of {rules.spec} sets aside {format_dice(aside)} in one hand "
            "before throwing the rest"
        )
    advice = advisor.advise(state)
    result = []
    for action, value in advice.values:
        if not isinstance(action, KeepAction):
            continue
        after = apply(state, action)
        keep = next(k for k in throw_score(state).keeps if k.dice == action.dice)
        if after.turn.player != 0:
            then = "over"
        else:
            best = advisor.advise(after).best
            then = "bank" if isinstance(best, Bank) else "throw"
        result.append(KeepAdvice(action.dice, keep.points, value, then))
    return tuple(result)


def _check_farkles(rules: RuleSet, farkles: int) -> None:
    """Farkles in a row count only under F-1, and restart at the one that costs the penalty."""
    t = rules.turn
    if not farkles:
        return
    if not t.farkle_penalty:
        raise AdviceError(
            f"{rules.spec} has no consecutive-farkle penalty (F-1): farkles in a row change nothing"
        )
    if not 0 <= farkles < t.farkle_penalty_after:
        raise AdviceError(
            f"farkles in a row must be 0 to {t.farkle_penalty_after - 1} in {rules.spec}: "
            f"the count restarts at the farkle that costs the penalty (F-1)"
        )
