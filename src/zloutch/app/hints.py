"""The hint: each legal action of the player to move with its value, the best first.

The terminal app (``Session.advice``) and the server (``GET /api/games/{id}/hint``) both ask
here. The value is the chance to win where a solved two-player game of the rule set is in the
cache (``GameAdvisor``), else the expected points of the turn played optimally
(``TurnAdvisor``). An advisor solves each situation once and keeps it; ``shared_advisor``
keeps one advisor per rule set for a whole process, so a server pays for a rule set's turn
solve once, whatever the number of games and clients asking.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict

from zloutch.app.store import load_game_solution
from zloutch.engine import GameState, current_player
from zloutch.rules import RuleSet
from zloutch.strategy.expert import Advice, TurnAdvisor
from zloutch.strategy.optimal import GameAdvisor

SHARED_ADVISORS = 16
"""Rule sets whose advisors a process keeps (the least recently asked goes first)."""


def new_advisor(rules: RuleSet, players: int) -> TurnAdvisor:
    """Win probabilities where a solved two-player game is on disk, else points."""
    solved = load_game_solution(rules) if players == 2 else None
    return GameAdvisor(solved) if solved else TurnAdvisor(rules)


def advice_of(advisor: TurnAdvisor, state: GameState) -> Advice | None:
    """Each legal action with its value for the player to move, best first; None when no
    player decides now (dice in the air, the game over)."""
    if current_player(state) < 0:
        return None
    advice = advisor.advise(state)
    # A die off the table is no choice: the advisor gives it no value (-inf).
    values = tuple((a, v) for a, v in advice.values if math.isfinite(v))
    return Advice(values, advice.objective) if values else None


class SharedAdvisors:
    """One advisor per (rule set, two players or not), for every game of a process; safe to
    ask from several threads (one solve at a time: a second asker waits for the table)."""

    def __init__(self, size: int = SHARED_ADVISORS) -> None:
        self.size = size
        self._advisors: OrderedDict[tuple[RuleSet, bool], TurnAdvisor] = OrderedDict()
        self._lock = threading.Lock()

    def advice(self, state: GameState) -> Advice | None:
        """The hint for the player to move in ``state``."""
        with self._lock:
            key = (state.rules, len(state.sheets) == 2)
            advisor = self._advisors.get(key)
            if advisor is None:
                advisor = new_advisor(state.rules, len(state.sheets))
                self._advisors[key] = advisor
                while len(self._advisors) > self.size:
                    self._advisors.popitem(last=False)
            self._advisors.move_to_end(key)
            return advice_of(advisor, state)
