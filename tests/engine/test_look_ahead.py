"""The engine's look-ahead for the bots: what a bank or a farkle would write on the sheets.

``sheets_after_bank`` and ``sheets_after_farkle`` must leave the sheets exactly as the move
itself does (ticks, crossings, bumps on the current level or on any, fallback bumps, F-1's
penalty), on random games of the rule sets with a sheet history."""

from __future__ import annotations

import random

import pytest
from tests.engine.conftest import random_action

from zloutch.engine import Bank
from zloutch.engine.events import Farkled
from zloutch.engine.game import (
    current_player,
    is_terminal,
    legal_actions,
    new_game,
    sheets_after_bank,
    sheets_after_farkle,
    step,
)
from zloutch.engine.rollout import sample_roll
from zloutch.rules import load_rules

SPECS = [
    "dix-mille",
    "dix-mille(bump=any)",
    "dix-mille(bump=any,fallback_bumps=true,ticks_restart=true)",
    "dix-mille-6",
    "charentaise",
    "zilch",
]


@pytest.mark.default_cases(3)
@pytest.mark.parametrize("spec", SPECS)
def test_the_look_ahead_writes_what_the_move_writes(spec: str) -> None:
    rules = load_rules(spec)
    rng = random.Random(spec)
    banks = farkles = 0
    for game in range(6):
        state = new_game(rules, [f"P{i}" for i in range(2 + game % 3)])
        while not is_terminal(state) and state.turns < 400:
            if current_player(state) < 0:
                after, events = step(state, sample_roll(state, rng))
                if any(isinstance(e, Farkled) for e in events) and after.final is None:
                    assert after.sheets == sheets_after_farkle(state), spec
                    farkles += 1
                state = after
                continue
            action = random_action(state, rng, legal_actions(state))
            if action == Bank():
                expected = sheets_after_bank(state, state.turn.total)
                after, _ = step(state, action)
                if not is_terminal(after) and after.final is None:
                    assert after.sheets == expected, spec
                    banks += 1
                state = after
            else:
                state, _ = step(state, action)
    assert banks > 20 and farkles > 20, (banks, farkles)
