"""The advice on one throw typed in by hand (``zloutch score --advise``): every keep with its
value, best first, what the advice leaves out, and why there is none.

The commands only read the words and draws the table; what the advice is, which values it is
in (the turn's points, the long run of F-1, the chance to win against ``--opponent``), and
which rule sets the chance to win can be given for, are decided here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zloutch.engine.game import banked_score, reaches_target, wins_at_target
from zloutch.rules.errors import ZloutchError
from zloutch.rules.ruleset import RuleSet
from zloutch.rules.scoring import HandContext, ThrowScore
from zloutch.strategy.expert import WIN_PROBABILITY, KeepAdvice, advise_throw, objective

if TYPE_CHECKING:  # the game solver (and its kernels) only where the chance to win is asked
    from zloutch.strategy.game_solver import GameSolution

FARKLE = "the throw scores nothing (a farkle)"
"""Why no keep is advised: no keep at all."""
ALL_PASS = "each keep passes the exact target (T-9)"
"""Why no keep is advised: every keep there is would pass an exact target."""


@dataclass(frozen=True)
class ThrowAdvice:
    """The keeps of a throw with their values, best first (none: the turn total is lost)."""

    total: int
    keeps: tuple[KeepAdvice, ...]
    objective: str
    """What the values are: ``expert.POINTS``, ``LONG_RUN`` or ``WIN_PROBABILITY``."""
    note: str | None
    """What the advice leaves out, to say beside it (the win a bank reaches, G-2)."""
    why_none: str | None
    """Where no keep is advised, why: ``FARKLE`` or ``ALL_PASS``."""


def game_pointer(rules: RuleSet) -> str:
    """Where the chance to win is, for a note about the turn's points: the game solver, where
    it models the rule set."""
    from zloutch.strategy.game_solver import unsupported_reason

    if unsupported_reason(rules) is not None:
        return "The game solver does not model this rule set."
    return "For the chance to win, solve the game: zloutch solve --game."


def thresholds_note(rules: RuleSet, score: int, thresholds: Iterable[int | None]) -> str | None:
    """What the turn's bank thresholds leave out where one lies past the game's target (not
    an exact one): the turn solver counts one turn's points, and throws on past the target
    that a bank of the total just below would reach (G-2)."""
    past = [
        t
        for t in thresholds
        if t is not None and reaches_target(rules, banked_score(rules, score, t - rules.unit))
    ]
    if not past or rules.game.exact_target:
        return None
    at = f" from a score of {score}" if score else ""
    return (
        f"the turn solver counts the points of one turn, not the game: it throws on "
        f"past the target of {rules.game.target}{at} (bank from {min(past)} and more above). "
        + game_pointer(rules)
    )


def opponent_model(rules: RuleSet) -> RuleSet:
    """The game whose solution values a throw against an opponent's banked score: the rule
    set itself. ``ZloutchError`` where the game solver does not play it, or plays only its
    sheet-blind model (a bank is then valued by the levels it bumps or crosses, which two
    scores do not tell: a single level each would bump the opponent to 0)."""
    from zloutch.strategy.game_solver import solved_model, unsupported_reason

    model = solved_model(rules)
    if model is None:
        raise ZloutchError(
            f"--opponent: the game solver does not play {rules.spec} "
            f"({unsupported_reason(rules)}); leave --opponent out for the turn's advice"
        )
    if model != rules:
        raise ZloutchError(
            f"--opponent: in {rules.spec} the chance to win depends on each player's levels "
            "(ticks, bumps, take-back), which two scores do not tell: the hint of a game "
            f"reads them (zloutch play); or give the rules without the sheet, --rules "
            f"'{model.spec}'"
        )
    return model


def target_note(
    rules: RuleSet, score: int, total: int, keeps: tuple[KeepAdvice, ...]
) -> str | None:
    """What the turn-optimal advice leaves out when a keep could bank the game's target: the
    win (G-2). An exact target (T-9) is read by the advice itself."""
    if rules.game.exact_target or not keeps:
        return None
    reach = [
        k for k in keeps if reaches_target(rules, banked_score(rules, score, total + k.points))
    ]
    if not reach:
        return None
    then = "wins the game (G-2)" if wins_at_target(rules) else "starts the last turns"
    return (
        f"a bank of {score} + {total + reach[0].points} reaches the target of "
        f"{rules.game.target} and "
        f"{then}, where it is legal; this advice counts the points of the turn, not the game. "
        + game_pointer(rules)
    )


def advise_typed_throw(
    rules: RuleSet,
    throw: tuple[int, ...],
    scored: ThrowScore,
    context: HandContext,
    *,
    total: int = 0,
    entered: bool = True,
    score: int = 0,
    farkles: int = 0,
    opponent: int | None = None,
    solved: Callable[[RuleSet], GameSolution],
) -> ThrowAdvice:
    """The advice on ``throw`` (scored ``scored``) in a turn of ``total`` points with the
    ``context`` dice set aside, for a player with ``score`` banked (entered or not) and, under
    F-1, ``farkles`` farkles in a row. With ``opponent`` (the other player's banked score),
    the values are the chance to win, from the game that ``solved`` gives for the model
    (``opponent_model`` says which rule sets can be valued so; it may solve the game, under
    a progress bar); without, ``solved`` is not called."""
    advisor = None
    if opponent is not None:
        from zloutch.strategy.optimal import GameAdvisor

        advisor = GameAdvisor(solved(opponent_model(rules)), rules)
    keeps = advise_throw(
        rules,
        throw,
        total,
        context,
        entered=entered,
        score=score,
        farkles=farkles,
        advisor=advisor,
        opponent=opponent or 0,
    )
    if advisor is not None:
        goal, note = WIN_PROBABILITY, None  # the game values the win itself
    else:
        goal, note = objective(rules, entered, score), target_note(rules, score, total, keeps)
    why = None if keeps else (ALL_PASS if scored.keeps else FARKLE)
    return ThrowAdvice(total, keeps, goal, note, why)
