"""Bots, from beginner to expert, all behind the ``Policy`` protocol.

Every bot chooses only among ``legal_actions(state)``, so every bot obeys every rule
(entry, totals ending in 50, confirmation...) without knowing it.

Names: ``random``, ``cautious``, ``threshold:N``, ``greedy``, ``bold`` (``bold:N``),
``expert``, ``optimal``; and the levels people pick from (``beginner``, ``easy``,
``medium``, ``strong``, ``best``) which map onto them (``LEVELS``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zloutch.engine.actions import Action, Bank, Fresh, Joker, Keep, Take, Throw
from zloutch.engine.game import (
    banked_score,
    keep_banks_win,
    keep_passes,
    lands_on_target,
    legal_actions,
    reaches_target,
    takeover_busts,
    throw_score,
    wins_at_target,
)
from zloutch.engine.state import GameState, Phase
from zloutch.rules.errors import ZloutchError
from zloutch.strategy.policy import Policy

if TYPE_CHECKING:
    from zloutch.strategy.optimal import SolutionSource
    from zloutch.strategy.tables import PolicyTable, TableFrame


class UnknownBotError(ZloutchError):
    """A bot name that no bot answers to."""


_BANK, _THROW, _TAKE, _FRESH = Bank(), Throw(), Take(), Fresh()
"""The actions without dice, built once (a bot asks for them at every decision)."""


def _best_keep(state: GameState, actions: tuple[Action, ...]) -> Action:
    """The keep worth most points; on equal points the one that keeps fewer dice. A keep
    after which a bank wins the game at once (``keep_banks_win``: it lands on an exact
    target, or reaches a target whose bank wins at once) comes first, and under an exact
    target (T-9) one that passes it last: no bot throws away a win for more points."""
    scored = {k.dice: k for k in throw_score(state).keeps}
    keeps = [a for a in actions if isinstance(a, Keep)]
    if not keeps:
        return actions[0]

    def key(action: Keep) -> tuple[bool, bool, int, int]:
        keep = scored[action.dice]
        wins, passes = keep_banks_win(state, keep), keep_passes(state, keep)
        return (wins, not passes, keep.points, -len(action.dice))

    return max(keeps, key=key)


def keep_for_the_win(state: GameState, actions: tuple[Action, ...], chosen: Action) -> Action:
    """At a keep, ``chosen`` (a bot's own choice), unless a bank after it would not win the
    game at once where a bank after another keep would (``keep_banks_win``): then that
    other keep, the one worth most points (fewer dice on equal points), as ``_best_keep``
    ranks them. The turn's values (the expert's) do not weigh the win: without this it
    threw on from a throw that a keep and a bank made a win."""
    if state.phase is not Phase.KEEP or not isinstance(chosen, Keep):
        return chosen
    scored = {k.dice: k for k in throw_score(state).keeps}
    if keep_banks_win(state, scored[chosen.dice]):
        return chosen
    wins = [a for a in actions if isinstance(a, Keep) and keep_banks_win(state, scored[a.dice])]
    if not wins:
        return chosen
    return max(wins, key=lambda a: (scored[a.dice].points, -len(a.dice)))


def banks_on_target(state: GameState) -> bool:
    """At a decision, whether a bank would win the game at once: under an exact target (T-9)
    the turn total lands the player on it; under a target to reach, the bank reaches it and
    no last turns nor final round follow (G-2, ``wins_at_target``). Every bot but
    ``optimal`` (which values the win itself) then banks, where banking is legal."""
    rules, t = state.rules, state.turn
    score = state.sheets[t.player].score
    if rules.game.exact_target:
        return lands_on_target(rules, score, t.total)
    return wins_at_target(rules) and reaches_target(rules, banked_score(rules, score, t.total))


def last_turn_lead(state: GameState) -> int | None:
    """In a last turn (F-4: another player reached the target), the best score of the other
    players, which the player must pass to win; None outside one."""
    final, t = state.final, state.turn
    if final is None or not state.rules.game.final_turns or t.player == final.holder:
        return None
    return max(s.score for i, s in enumerate(state.sheets) if i != t.player)


def last_turn_move(state: GameState, actions: tuple[Action, ...]) -> Action | None:
    """A bot's decision in its last turn (F-4), whatever its own rule: bank once the bank
    draws level with the best other score (a tie shares the win; under an exact target it
    is the most a last turn can reach), throw on until then (a bank below it is a loss);
    None outside a last turn, or where that move is not legal."""
    lead = last_turn_lead(state)
    if lead is None or state.phase is not Phase.DECIDE:
        return None
    rules, t = state.rules, state.turn
    ahead = banked_score(rules, state.sheets[t.player].score, t.total) >= lead
    if ahead and _BANK in actions:
        return _BANK
    if not ahead and _THROW in actions:
        return _THROW
    return None


def wins_by_banking(state: GameState) -> bool:
    """A decision where banking is legal and wins the game at once (``banks_on_target``)."""
    return state.phase is Phase.DECIDE and banks_on_target(state) and _BANK in legal_actions(state)


@dataclass(frozen=True)
class RandomBot:
    """Any legal action, uniformly."""

    name: str = "random"

    def choose(self, state: GameState, rng: random.Random) -> Action:
        """Any legal action, uniformly, except that it never throws away a win: a keep after
        which a bank wins at once is taken (one of them, at random), a bank that wins is
        made, and under an exact target a keep that passes it is not taken (while another
        is legal), nor an offer certain to bust."""
        actions = legal_actions(state)
        if state.phase is Phase.KEEP:
            scored = {k.dice: k for k in throw_score(state).keeps}
            keeps = [a for a in actions if isinstance(a, Keep)]
            landing = [a for a in keeps if keep_banks_win(state, scored[a.dice])]
            if landing:
                return rng.choice(landing)
            safe = tuple(
                a
                for a in actions
                if not (isinstance(a, Keep) and keep_passes(state, scored[a.dice]))
            )
            return rng.choice(safe or actions)
        if state.phase is Phase.DECIDE and _BANK in actions and banks_on_target(state):
            return _BANK
        last = last_turn_move(state, actions)
        if last is not None:
            return last
        if _TAKE in actions and takeover_busts(state):
            actions = tuple(a for a in actions if a != _TAKE) or actions
        return rng.choice(actions)


@dataclass(frozen=True)
class ThresholdBot:
    """Keeps the most points; banks as soon as the turn total reaches ``threshold``, or lands
    on an exact target (``_best_keep``: a keep that lands on it first, one that passes it
    last)."""

    threshold: int
    name: str = ""

    def choose(self, state: GameState, rng: random.Random) -> Action:
        actions = legal_actions(state)
        if state.phase is Phase.START:
            return self._start(state, actions)
        if state.phase is Phase.KEEP:
            return _best_keep(state, actions)
        last = last_turn_move(state, actions)
        if last is not None:
            return last
        if _BANK in actions and (state.turn.total >= self.threshold or banks_on_target(state)):
            return _BANK
        if _THROW in actions:
            return _THROW
        # no bank, no throw: jokers owed (keep_all_scoring with V-2), or nothing but jokers
        return next((a for a in actions if not isinstance(a, Joker)), actions[0])

    def bank_threshold(self, in_hand: int) -> int:
        """The turn total it banks at with ``in_hand`` dice to throw next: its threshold."""
        return self.threshold

    def take_below(self) -> int:
        """It takes back (G-8) an offer of three dice or more worth less than this."""
        return self.threshold

    def turn_table(self, frame: TableFrame) -> PolicyTable:
        """Its choices as tables, for the fast simulator (``zloutch.strategy.tables``)."""
        return _threshold_table(self, frame)

    def _start(self, state: GameState, actions: tuple[Action, ...]) -> Action:
        offer = state.offer
        if offer is not None and _TAKE in actions:
            wanted = offer.dice >= 3 and offer.total < self.take_below()
            return _TAKE if wanted and not takeover_busts(state) else _FRESH
        return actions[0]


@dataclass(frozen=True)
class GreedyBot:
    """The keep with most points (on equal points the one that keeps fewer dice); after a
    keep it banks once the turn total reaches 1000 with three or more dice to throw next (all
    of them after a full hand), or 300 with one or two, and otherwise throws; it never sets
    jokers aside (V-2) and takes back (G-8) any offer of three or more dice."""

    name: str = "greedy"
    _inner: ThresholdBot = field(default=ThresholdBot(10**9), repr=False)
    """Keeps and starts: the threshold bot's, which never banks by itself."""

    def choose(self, state: GameState, rng: random.Random) -> Action:
        if state.phase is not Phase.DECIDE:
            return self._inner.choose(state, rng)
        actions = legal_actions(state)
        last = last_turn_move(state, actions)
        if last is not None:
            return last
        wanted = state.turn.total >= self.bank_threshold(state.in_hand)
        if _BANK in actions and (wanted or banks_on_target(state)):
            return _BANK
        return _THROW if _THROW in actions else actions[0]

    def bank_threshold(self, in_hand: int) -> int:
        """The turn total it banks at with ``in_hand`` dice to throw next (all of them after
        a full hand): 1000 with three or more, 300 with one or two."""
        return 1000 if in_hand >= 3 else 300

    def take_below(self) -> int:
        """Its starts are the threshold bot's that never banks by itself: any offer of
        three dice or more is taken back."""
        return self._inner.take_below()

    def turn_table(self, frame: TableFrame) -> PolicyTable:
        """Its choices as tables, for the fast simulator (``zloutch.strategy.tables``)."""
        return _threshold_table(self, frame)


def _threshold_table(bot: ThresholdBot | GreedyBot, frame: TableFrame) -> PolicyTable:
    import numpy as np  # the tables only: playing a bot needs no NumPy

    from zloutch.strategy.tables import threshold_table

    dice = frame.model.rules.dice
    wanted = np.asarray([bot.bank_threshold(n) for n in range(dice + 1)], dtype=np.int64)
    return threshold_table(bot.name, frame, wanted, bot.take_below())


LEVELS = {
    "beginner": "random",
    "easy": "cautious",
    "medium": "bold",
    "strong": "expert",
    "best": "optimal",
}
"""The levels people choose from, and the bot each one is."""

NAMES = (
    "random",
    "cautious",
    "threshold:N",
    "greedy",
    "bold",
    "bold:N",
    "expert",
    "optimal",
    *LEVELS,
)


def make_bot(name: str, solutions: SolutionSource | None = None) -> Policy:
    """The bot of a name: ``random``, ``cautious``, ``threshold:350``, ``greedy``, ``bold``
    (``bold:150``: its margin), ``expert``, ``optimal`` (which reads solved games from
    ``solutions``, see ``OptimalBot``)."""
    key = name.strip().lower()
    key = key.removeprefix("bot:")
    key = LEVELS.get(key, key)
    if key == "random":
        return RandomBot()
    if key == "cautious":
        return ThresholdBot(0, name="cautious")
    if key == "greedy":
        return GreedyBot()
    if key.startswith("threshold:"):
        value = key.partition(":")[2]
        if not (value.isascii() and value.isdigit()):
            raise UnknownBotError(
                f"threshold bots need a number of points, 0 or more: threshold:350, not {name}"
            )
        return ThresholdBot(int(value), name=f"threshold:{int(value)}")
    if key == "expert":
        from zloutch.strategy.expert import ExpertBot

        return ExpertBot()
    if key == "bold" or key.startswith("bold:"):
        from zloutch.strategy.expert import BOLD_MARGIN, BoldBot

        value = key.partition(":")[2] if ":" in key else str(BOLD_MARGIN)
        if not (value.isascii() and value.isdigit()):
            raise UnknownBotError(
                f"bold bots need a number of points, 0 or more: bold:150, not {name}"
            )
        return BoldBot(int(value))
    if key == "optimal":
        from zloutch.strategy.optimal import OptimalBot

        return OptimalBot(solutions)
    raise UnknownBotError(f"no bot is called {name!r}: the bots are {', '.join(NAMES)}")
