"""Zloutch: the dice game 10,000 and its family, exactly.

``import zloutch`` gives the researcher's API: the names below, each documented where it is
defined (``help(zloutch.solve_turn)``), and a guide with examples in docs/api.md. The names
are loaded when first used, so ``import zloutch`` stays cheap: NumPy comes in only with a
solver, the expert bot or the simulator, and Numba only with the game solver or the simulator.

Rules (``zloutch.rules``; ``load_rules`` from ``zloutch.engine.endings``)
    load_rules      a rule set by spec: a preset, options, a rule file (refused unless its
                    games can end: ``zloutch.engine.endings``)
    PRESETS         the names of the preset rule sets
    RuleSet         a frozen rule set: dice, scoring, turn and game rules, variants
    score_throw     every legal keep of a throw, with its points (a ThrowScore)
    ThrowScore      the keeps of one throw; ``farkle`` when there is none
    ScoredKeep      one legal keep of a throw: its dice, combinations and points

The game (``zloutch.engine``)
    new_game        a game at its first turn
    GameState       a whole game at one moment (immutable)
    PlayerSheet     one player's column of the sheet (``score``, ``levels``)
    Phase           where the turn stands: START, ROLL, KEEP, DECIDE, OVER
    legal_actions   every action allowed now, sorted (the rolls while dice roll)
    apply           the state after an action
    step            the state after an action, and the events it caused
    Event           the base of the events ``step`` reports
    why_illegal     why an action is not allowed now, in words (None: it is)
    current_player  the seat to act, CHANCE while dice roll, TERMINAL at the end
    turn_player     the seat whose turn it is, also while the dice roll
    CHANCE          ``current_player`` while dice roll
    TERMINAL        ``current_player`` once the game is over
    chance_outcomes every roll of the dice in the air with its exact probability
    sample_roll     one roll drawn with a ``random.Random`` passed in
    is_terminal     whether the game is over
    outcome         winners, ranking and the sailors' kicks of a finished game
    Outcome         what ``outcome`` returns
    returns         what the game pays each seat: 1 shared by the winners, else 0
    Action          the base of every action; ``str(action)`` is its notation
    Keep, Throw, Bank, Take, Fresh, Joker, Off
                    the players' actions (``Keep((1, 1, 5))``, ``Throw()``...)
    Roll            chance's action: the faces a throw showed
    parse_action    an action from its notation: ``keep 1 1 5``, ``bank``

Strategy (``zloutch.strategy``)
    solve_turn      the turn-optimal policy: expected points banked by a turn
    TurnSolution    what ``solve_turn`` returns
    solve_average_reward
                    the long-run points per turn under the farkle penalty (F-1)
    AverageReward   what ``solve_average_reward`` returns
    solve_game      the two-player game solved for the probability to win
    GameSolution    what ``solve_game`` returns
    make_bot        a bot by name: random, cautious, threshold:N, greedy, bold, expert, optimal
    Policy          what every bot is: ``choose(state, rng) -> action``

Simulation (``zloutch.sim``)
    simulate        many complete games of bots, seeded, with win rates and intervals
    SimulationResult
                    what ``simulate`` returns

Errors: every error Zloutch raises for bad input is a ZloutchError with a one-line message;
among them InvalidRulesError (a rule spec or file), InvalidActionError (text that is no
action) and IllegalActionError (an action the rules forbid now, with the rule id).

Names that two layers share are settled here: ``Keep`` is the engine's action (the rules'
scored keep is ``ScoredKeep``), ``Roll`` the engine's chance action, and ``Outcome`` the
end of a game (the chance outcomes of a throw are ``(Roll, probability)`` pairs).

``zloutch.__version__`` is the version of the package.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from zloutch.engine.actions import (
        Action,
        Bank,
        Fresh,
        IllegalActionError,
        InvalidActionError,
        Joker,
        Keep,
        Off,
        Roll,
        Take,
        Throw,
        parse_action,
    )
    from zloutch.engine.endings import load_rules
    from zloutch.engine.events import Event
    from zloutch.engine.game import (
        apply,
        chance_outcomes,
        current_player,
        is_terminal,
        legal_actions,
        new_game,
        outcome,
        step,
        turn_player,
        why_illegal,
    )
    from zloutch.engine.rollout import returns, sample_roll
    from zloutch.engine.state import (
        CHANCE,
        TERMINAL,
        GameState,
        Outcome,
        Phase,
        PlayerSheet,
    )
    from zloutch.rules.errors import InvalidRulesError, ZloutchError
    from zloutch.rules.loader import PRESETS
    from zloutch.rules.ruleset import RuleSet
    from zloutch.rules.scoring import ScoredKeep, ThrowScore, score_throw
    from zloutch.sim.parallel import simulate
    from zloutch.sim.runner import SimulationResult
    from zloutch.strategy.bots import make_bot
    from zloutch.strategy.game_solver import GameSolution, solve_game
    from zloutch.strategy.policy import Policy
    from zloutch.strategy.turn_solver import (
        AverageReward,
        TurnSolution,
        solve_average_reward,
        solve_turn,
    )

_MODULES: dict[str, tuple[str, ...]] = {
    "zloutch.rules.errors": ("InvalidRulesError", "ZloutchError"),
    "zloutch.rules.loader": ("PRESETS",),
    "zloutch.engine.endings": ("load_rules",),
    "zloutch.rules.ruleset": ("RuleSet",),
    "zloutch.rules.scoring": ("ScoredKeep", "ThrowScore", "score_throw"),
    "zloutch.engine.actions": (
        "Action",
        "Bank",
        "Fresh",
        "IllegalActionError",
        "InvalidActionError",
        "Joker",
        "Keep",
        "Off",
        "Roll",
        "Take",
        "Throw",
        "parse_action",
    ),
    "zloutch.engine.events": ("Event",),
    "zloutch.engine.game": (
        "apply",
        "chance_outcomes",
        "current_player",
        "is_terminal",
        "legal_actions",
        "new_game",
        "outcome",
        "step",
        "turn_player",
        "why_illegal",
    ),
    "zloutch.engine.rollout": ("returns", "sample_roll"),
    "zloutch.engine.state": ("CHANCE", "TERMINAL", "GameState", "Outcome", "Phase", "PlayerSheet"),
    "zloutch.strategy.bots": ("make_bot",),
    "zloutch.strategy.game_solver": ("GameSolution", "solve_game"),
    "zloutch.strategy.policy": ("Policy",),
    "zloutch.strategy.turn_solver": (
        "AverageReward",
        "TurnSolution",
        "solve_average_reward",
        "solve_turn",
    ),
    "zloutch.sim.parallel": ("simulate",),
    "zloutch.sim.runner": ("SimulationResult",),
}

_WHERE: dict[str, str] = {name: module for module, names in _MODULES.items() for name in names}
"""Each curated name, and the module that defines it."""

__all__ = [
    "CHANCE",
    "PRESETS",
    "TERMINAL",
    "Action",
    "AverageReward",
    "Bank",
    "Event",
    "Fresh",
    "GameSolution",
    "GameState",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidRulesError",
    "Joker",
    "Keep",
    "Off",
    "Outcome",
    "Phase",
    "PlayerSheet",
    "Policy",
    "Roll",
    "RuleSet",
    "ScoredKeep",
    "SimulationResult",
    "Take",
    "Throw",
    "ThrowScore",
    "TurnSolution",
    "ZloutchError",
    "__version__",
    "apply",
    "chance_outcomes",
    "current_player",
    "is_terminal",
    "legal_actions",
    "load_rules",
    "make_bot",
    "new_game",
    "outcome",
    "parse_action",
    "returns",
    "sample_roll",
    "score_throw",
    "simulate",
    "solve_average_reward",
    "solve_game",
    "solve_turn",
    "step",
    "turn_player",
    "why_illegal",
]


def __getattr__(name: str) -> Any:
    """Load a curated name from its module on first use (PEP 562), and keep it here."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'zloutch' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
