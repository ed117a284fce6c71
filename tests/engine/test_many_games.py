"""A thousand more random games of every preset (issue: the engine's conformance suite).

The conformance suite replays each of its games from the record and checks every state;
these games check less per game (the sheet against the events, the end, the outcome) so that
a thousand games per preset fit in the CI budget. The thousand run under ``-m slow``; the
default run plays the first games of the same seed.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from zloutch.engine import CHANCE, current_player, is_terminal, legal_actions, new_game
from zloutch.engine.game import step
from zloutch.engine.record import roll
from zloutch.rules import PRESETS, load_rules

GAMES = 1000
QUICK_GAMES = 5
MAX_TURNS = 5000


@pytest.mark.default_cases(4)
@pytest.mark.parametrize(
    "games",
    [pytest.param(QUICK_GAMES, id="quick"), pytest.param(GAMES, id="all", marks=pytest.mark.slow)],
)
@pytest.mark.parametrize("preset", PRESETS)
def test_a_thousand_random_games_end_with_a_sheet_that_matches_the_events(
    preset: str, games: int, engine_checks: SimpleNamespace
) -> None:
    rules = load_rules(preset)
    rng = random.Random(f"many-{preset}")
    longest = 0
    for _ in range(games):
        state = new_game(rules, engine_checks.players_for(rules, rng))
        sheet = engine_checks.SheetFromEvents(state)
        events: tuple[object, ...] = ()
        while not is_terminal(state):
            assert state.turns <= MAX_TURNS, f"{preset}: a game passed {MAX_TURNS} turns"
            if current_player(state) == CHANCE:
                action = roll(state, rng)
            else:
                action = engine_checks.random_action(state, rng, legal_actions(state))
            before = state
            state, events = step(state, action)
            sheet.step(before, state, events)
        engine_checks.check_outcome(state, events)
        longest = max(longest, state.turns)
    assert longest > 1
