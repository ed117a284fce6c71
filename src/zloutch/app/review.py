"""Game review: replay a record and grade every decision against the best play.

Each decision of each player is valued, before it is made, by an advisor of the strategy
layer: the turn solver (expected points banked by the turn, ``TurnAdvisor``) or, for a
two-player game whose rule set the exact game solver models and whose table is solved, the
game solver (the chance to win, ``GameAdvisor``). The cost of a decision is what the best
action is worth minus what the chosen one is worth, both played optimally from there on.

Pure: the caller reads the record and finds (or solves) the game table; nothing here reads,
writes or prints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Literal

from zloutch.engine.actions import Action, Bank, Joker, Keep, parse_action
from zloutch.engine.game import (
    apply_legal,
    chance_outcomes,
    current_player,
    is_terminal,
    played_as,
    step,
    throw_score,
)
from zloutch.engine.record import InvalidRecordError, Record
from zloutch.engine.state import CHANCE, GameState, Phase
from zloutch.rules.dice import Dice, format_dice
from zloutch.rules.errors import ZloutchError
from zloutch.rules.ruleset import RuleSet
from zloutch.strategy.expert import TurnAdvisor
from zloutch.strategy.game_solver import GameSolution, solved_model, unsupported_reason
from zloutch.strategy.optimal import GameAdvisor, sheet_words

FORMAT = "zloutch-review"
VERSION = 1

Objective = Literal["expected points", "win probability"]
POINTS: Objective = "expected points"
WIN: Objective = "win probability"

POINTS_TOLERANCE = 1.0
"""A decision that costs less than one expected point is counted accurate."""
WIN_TOLERANCE = 0.001
"""A decision that costs less than 0.1 percentage point of winning is counted accurate."""
TOP_MISTAKES = 3
"""How many of each player's biggest mistakes the summary keeps by default."""
_SAME = 1e-9
"""Values closer than this are equal: the chosen action is then the best one."""


def win_probability_reason(rules: RuleSet, players: int) -> str | None:
    """Why a game cannot be graded in win probability (None: it can, once its model is
    solved: ``solved_model``, the sheet-blind model for rules with a sheet history)."""
    if players != 2:
        return f"win probabilities are solved for two players, and this game has {players}"
    if solved_model(rules) is not None:
        return None
    return unsupported_reason(rules, how=False)  # the game was played: no rule to switch


def model_words(rules: RuleSet, model: RuleSet) -> str:
    """What a game of ``rules`` is graded by: its solved game, or its sheet-blind model
    read one turn ahead on the sheet."""
    if model == rules:
        return f"the solved game of {rules.spec}"
    return f"the solved sheet-blind model {model.spec} of {rules.spec}, {sheet_words(model)}"


@dataclass(frozen=True)
class Option:
    """A legal action of a decision with its value (expected points, or chance to win)."""

    action: str
    """The action in record notation (``keep 1 5``, ``bank``)."""
    value: float
    words: str
    """The action for people: ``keep 1 5 (150)``, ``bank 350``."""


@dataclass(frozen=True)
class Decision:
    """One move of a player, with what each legal action was worth at that moment."""

    number: int
    """The action's place in the record (1 for the first action)."""
    seat: int
    player: str
    turn: int
    """The game's turn number (1 for the first turn of the game)."""
    phase: str
    """``start`` (throw, take back or start fresh), ``keep`` or ``decide`` (bank or throw)."""
    scores: tuple[int, ...]
    """Every player's banked score before the move, by seat."""
    turn_total: int
    throw: Dice
    """The dice on the table to keep from (the keep phase), else ()."""
    set_aside: Dice
    in_hand: int
    """Dice a throw would roll now."""
    offer: tuple[int, int] | None
    """A take-back offer (points, dice) at the start of the turn (G-8)."""
    chosen: Option
    best: Option
    """The best action; the chosen one when it is worth as much."""
    options: tuple[Option, ...]
    """Every legal action, best first."""

    @property
    def cost(self) -> float:
        """What the choice gave away: the best value minus the chosen one (never negative)."""
        return max(self.best.value - self.chosen.value, 0.0)

    @property
    def forced(self) -> bool:
        """Only one action was legal: a move, but no decision."""
        return len(self.options) == 1

    @property
    def score(self) -> int:
        return self.scores[self.seat]


def situation_words(decision: Decision) -> str:
    """Where the turn stood, in a few words: ``threw 1 1 3 4 4, turn total 350``."""
    d = decision
    if d.phase == Phase.START.value:
        if d.offer is not None:
            points, dice = d.offer
            return f"start of turn, offered {points} with {_dice_count(dice)} to take back"
        return "start of turn"
    total = f"turn total {d.turn_total}"
    if d.phase == Phase.KEEP.value:
        threw = f"threw {format_dice(d.throw)}"
        return f"{threw}, {total}" if d.turn_total else threw
    return f"{total}, {_dice_count(d.in_hand)} in hand"


def _dice_count(n: int) -> str:
    return f"{n} die" if n == 1 else f"{n} dice"


@dataclass(frozen=True)
class PlayerSummary:
    """How one player played: decisions, accuracy, what the mistakes cost."""

    seat: int
    player: str
    decisions: int
    """Moves with a choice (forced moves are not counted)."""
    forced: int
    accurate: int
    """Decisions whose cost is below the review's tolerance."""
    total_cost: float
    mistakes: tuple[Decision, ...]
    """The biggest mistakes, the costliest first."""
    luck: float | None = None
    """What the dice brought: each of the player's throws, the value after it (the best move
    it leaves, or where the turn's end leaves the player) less the value of the throw
    chosen before it, summed (in the objective's unit). With the decisions' cost, the change
    of a player's chance to win splits into luck and skill (the other's luck and cost aside).
    None where the values are no measure of the game (F-1's long run)."""

    @property
    def accuracy(self) -> float | None:
        """The share of accurate decisions (None with no decision)."""
        return self.accurate / self.decisions if self.decisions else None

    @property
    def average_cost(self) -> float | None:
        return self.total_cost / self.decisions if self.decisions else None


@dataclass(frozen=True)
class CurvePoint:
    """Where the game stood before a move: each player's chance to win, or expected score."""

    number: int
    """The point stands before the action of this place in the record (1 for the first);
    the last point, where the game ends or its record stops, is one past the last action."""
    turn: int
    values: tuple[float, ...]
    """By seat."""


@dataclass(frozen=True)
class Review:
    """A graded game."""

    rules: str
    players: tuple[str, ...]
    objective: Objective
    note: str
    """The objective and why (which table, or why no win probabilities): it starts with the
    objective, as in ``expected points: no solved game ...``."""
    tolerance: float
    target: int
    decisions: tuple[Decision, ...]
    """Every move of every player, forced ones included, in the order played."""
    summaries: tuple[PlayerSummary, ...]
    curve: tuple[CurvePoint, ...]
    """Win probability by seat (two players, game solver), else expected score by seat."""
    finished: bool
    winners: tuple[int, ...]
    sheet_blind: bool = False
    """Graded in win probability through the sheet-blind model of a rule set with a sheet:
    a bump, a take-back or a level crossed moves the chance outside any throw or decision,
    so the luck and the costs do not add up to its moves."""

    @property
    def curve_measure(self) -> str:
        return "win probability" if self.objective == WIN else "expected score"

    def is_mistake(self, decision: Decision) -> bool:
        return decision.cost >= self.tolerance

    def mistakes(self) -> tuple[Decision, ...]:
        """Every decision that cost at least the tolerance, in the order played."""
        return tuple(d for d in self.decisions if self.is_mistake(d))

    def to_json(self) -> dict[str, Any]:
        """The review as plain data (``zloutch review --json``)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.rules,
            "players": list(self.players),
            "objective": self.objective,
            "note": self.note,
            "sheet_blind": self.sheet_blind,
            "tolerance": self.tolerance,
            "finished": self.finished,
            "winners": [self.players[w] for w in self.winners],
            "summary": [self._summary_json(s) for s in self.summaries],
            "decisions": [self._decision_json(d) for d in self.decisions],
            "curve": {
                "measure": self.curve_measure,
                "points": [
                    {"action": p.number, "turn": p.turn, "values": list(p.values)}
                    for p in self.curve
                ],
            },
        }

    def _decision_json(self, d: Decision) -> dict[str, Any]:
        return {
            "action": d.number,
            "player": d.player,
            "seat": d.seat,
            "turn": d.turn,
            "phase": d.phase,
            "scores": list(d.scores),
            "turn_total": d.turn_total,
            "throw": list(d.throw),
            "set_aside": list(d.set_aside),
            "in_hand": d.in_hand,
            "offer": None if d.offer is None else {"points": d.offer[0], "dice": d.offer[1]},
            "situation": situation_words(d),
            "chosen": d.chosen.action,
            "best": d.best.action,
            "chosen_value": d.chosen.value,
            "best_value": d.best.value,
            "cost": d.cost,
            "forced": d.forced,
            "mistake": self.is_mistake(d),
            "options": [{"action": o.action, "value": o.value} for o in d.options],
        }

    @staticmethod
    def _summary_json(s: PlayerSummary) -> dict[str, Any]:
        return {
            "player": s.player,
            "seat": s.seat,
            "decisions": s.decisions,
            "forced": s.forced,
            "accurate": s.accurate,
            "accuracy": s.accuracy,
            "total_cost": s.total_cost,
            "average_cost": s.average_cost,
            "luck": s.luck,
            "mistakes": [
                {
                    "action": d.number,
                    "turn": d.turn,
                    "situation": situation_words(d),
                    "chosen": d.chosen.action,
                    "best": d.best.action,
                    "cost": d.cost,
                }
                for d in s.mistakes
            ],
        }


def review_record(
    record: Record,
    *,
    solution: GameSolution | None = None,
    note: str = "",
    tolerance: float | None = None,
    top: int = TOP_MISTAKES,
) -> Review:
    """Replay a record and grade every move of every player.

    With a solved ``solution`` of the record's rule set and two players, the moves are
    valued by the chance to win; otherwise by the expected points of the turn, and ``note``
    (or the reason the game solver does not apply) says why. ``tolerance`` is in the
    objective's unit (points, or probability); ``top`` is how many of each player's biggest
    mistakes the summary keeps. Raises InvalidRecordError if an action cannot be replayed.
    """
    state = record.start()
    rules = state.rules
    players = len(state.sheets)
    reason = win_probability_reason(rules, players)
    advisor: TurnAdvisor
    model = solved_model(rules) if reason is None else None
    if solution is not None and model is not None and solution.rules == model:
        advisor = GameAdvisor(solution, rules)
        objective = WIN
        note = note or f"win probability, from {model_words(rules, model)}"
    else:
        advisor = TurnAdvisor(rules)
        objective = POINTS
        if reason is None and solution is not None:
            wanted = model.spec if model is not None else rules.spec
            reason = f"the solved game is of {solution.rules.spec}, not {wanted}"
        note = note or f"expected points: {reason or 'no solved game was given'}"
    if tolerance is None:
        tolerance = WIN_TOLERANCE if objective == WIN else POINTS_TOLERANCE

    decisions: list[Decision] = []
    curve: list[CurvePoint] = []
    throws: set[int] = set()  # the decisions after which the dice were thrown
    for number, text in enumerate(record.actions, start=1):
        try:
            action = parse_action(text)
        except ZloutchError as exc:
            raise InvalidRecordError(f"action {number} ({text!r}): {exc}") from None
        seat = current_player(state)
        decision = None
        if seat >= 0:
            decision = _decide(advisor, state, number, action)
            if decision is not None:
                decisions.append(decision)
                curve.append(_curve_point(state, decision, objective))
        try:
            state, _ = step(state, action)
        except ZloutchError as exc:
            raise InvalidRecordError(f"action {number} ({text!r}) is not legal: {exc}") from None
        if decision is not None and state.phase is Phase.ROLL:
            throws.add(number)
    if is_terminal(state):
        curve.append(_final_point(state, len(record.actions) + 1, objective))
    else:  # an unfinished game: the curve ends where the record leaves it, not before
        last = decisions[-1] if decisions else None
        now = _now_point(advisor, state, len(record.actions) + 1, objective, last)
        if now is not None:
            curve.append(now)

    luck: list[float] | None = _luck(decisions, curve, throws, objective, players)
    if objective == POINTS and rules.turn.farkle_penalty:
        luck = None  # the long run's values (F-1) are relative: no sum of them means a thing
    summaries = tuple(
        replace(
            _summarise(seat, name, [d for d in decisions if d.seat == seat], tolerance, top),
            luck=None if luck is None else luck[seat],
        )
        for seat, name in enumerate(state.names)
    )
    return Review(
        rules=rules.spec,
        players=state.names,
        objective=objective,
        note=note,
        tolerance=tolerance,
        target=rules.game.target,
        decisions=tuple(decisions),
        summaries=summaries,
        curve=tuple(curve),
        finished=is_terminal(state),
        winners=state.winners,
        sheet_blind=objective == WIN and model != rules,
    )


def _decide(advisor: TurnAdvisor, state: GameState, number: int, action: Action) -> Decision | None:
    """The decision of the move ``action`` in ``state``; None when it was no choice
    (a die off the table, which no advisor values)."""
    advice = advisor.advise(state)
    options = tuple(
        Option(str(a), v, _words(state, a)) for a, v in advice.values if math.isfinite(v)
    )
    played = str(played_as(state, action))  # ``throw`` at a take-back offer is ``fresh``
    chosen = next((o for o in options if o.action == played), None)
    if chosen is None:
        return None
    best = options[0]
    if chosen.value >= best.value - _SAME:
        best = chosen
    t = state.turn
    return Decision(
        number=number,
        seat=t.player,
        player=state.sheets[t.player].name,
        turn=state.turns,
        phase=state.phase.value,
        scores=tuple(s.score for s in state.sheets),
        turn_total=t.total,
        throw=t.throw if state.phase is Phase.KEEP else (),
        set_aside=t.set_aside,
        in_hand=state.in_hand,
        offer=(state.offer.total, state.offer.dice) if state.offer is not None else None,
        chosen=chosen,
        best=best,
        options=options,
    )


def _luck(
    decisions: list[Decision],
    curve: list[CurvePoint],
    throws: set[int],
    objective: Objective,
    players: int,
) -> list[float]:
    """Each seat's luck: for every throw, where the game stood at the next point of the
    curve (for the thrower) less the value of the throw chosen (``curve[i]`` is the point of
    ``decisions[i]``; an unfinished game's last point is where its record leaves it, and
    a throw whose dice are not in the record yet counts nothing)."""
    luck = [0.0] * players
    for i, d in enumerate(decisions):
        if d.number not in throws or i + 1 >= len(curve):
            continue
        before = d.chosen.value
        if objective == POINTS:
            before += d.scores[d.seat]  # the curve's expected score: the score plus the turn
        luck[d.seat] += curve[i + 1].values[d.seat] - before
    return luck


def _words(state: GameState, action: Action) -> str:
    if isinstance(action, Bank):
        return f"bank {state.turn.total}"
    if isinstance(action, Keep):
        points = next((k.points for k in throw_score(state).keeps if k.dice == action.dice), None)
        return f"{action} ({points})" if points is not None else str(action)
    if isinstance(action, Joker):
        return f"{action} (jokers)"
    return str(action)


def _curve_point(state: GameState, decision: Decision, objective: Objective) -> CurvePoint:
    values = _values(state, decision.seat, decision.best.value, objective)
    return CurvePoint(decision.number, state.turns, values)


def _now_point(
    advisor: TurnAdvisor,
    state: GameState,
    number: int,
    objective: Objective,
    last: Decision | None,
) -> CurvePoint | None:
    """The point of an unfinished game where its record stops. At a move, the best move's
    value for the player to move (as at a decision). With dice in the air, what the move
    that threw them was worth (the last decision's chosen value, so that its luck is 0 and
    the costs still add up), or where no decision threw them (jokers thrown on, V-2) the
    average over the throw's outcomes of where each leaves the game."""
    found: tuple[float, ...] | None
    if last is not None and last.number == number - 1 and current_player(state) == CHANCE:
        found = _values(state, last.seat, last.chosen.value, objective)
    else:
        found = _values_at(advisor, state, objective)
    return None if found is None else CurvePoint(number, state.turns, found)


def _values(state: GameState, seat: int, value: float, objective: Objective) -> tuple[float, ...]:
    """Each seat's chance to win, or expected score, where ``seat`` stands to get ``value``
    (its chance; or the points its turn will add) and the others stand as they are."""
    if objective == WIN:
        return tuple(value if s == seat else 1.0 - value for s in range(len(state.sheets)))
    return tuple(
        float(sheet.score) + (value if s == seat else 0.0) for s, sheet in enumerate(state.sheets)
    )


def _values_at(
    advisor: TurnAdvisor, state: GameState, objective: Objective
) -> tuple[float, ...] | None:
    """``_values`` of a position: its best move's, the average of its throws' outcomes, or
    the end's; None where no advice values it."""
    if is_terminal(state):
        return _final_point(state, 0, objective).values
    seat = current_player(state)
    if seat == CHANCE:
        total = [0.0] * len(state.sheets)
        for roll, chance in chance_outcomes(state):
            after = _values_at(advisor, apply_legal(state, roll), objective)
            if after is None:
                return None
            total = [t + float(chance) * v for t, v in zip(total, after, strict=True)]
        return tuple(total)
    values = [v for _, v in advisor.advise(state).values if math.isfinite(v)]
    return _values(state, seat, max(values), objective) if values else None


def _final_point(state: GameState, number: int, objective: Objective) -> CurvePoint:
    if objective == WIN:
        share = 1.0 / len(state.winners) if state.winners else 0.0
        values = tuple(share if s in state.winners else 0.0 for s in range(len(state.sheets)))
    else:
        values = tuple(float(sheet.score) for sheet in state.sheets)
    return CurvePoint(number, state.turns, values)


def _summarise(
    seat: int, name: str, moves: list[Decision], tolerance: float, top: int
) -> PlayerSummary:
    chosen = [d for d in moves if not d.forced]
    mistakes = sorted((d for d in chosen if d.cost >= tolerance), key=lambda d: (-d.cost, d.number))
    return PlayerSummary(
        seat=seat,
        player=name,
        decisions=len(chosen),
        forced=len(moves) - len(chosen),
        accurate=sum(1 for d in chosen if d.cost < tolerance),
        total_cost=sum(d.cost for d in chosen),
        mistakes=tuple(mistakes[: max(top, 0)]),
    )
