"""Why a bank is refused says what is missing: a keep from the throw on the table (T-2) once
dice lie there, whatever was kept before; nothing kept at all at the start of a turn."""

from __future__ import annotations

import pytest

from zloutch.engine import Bank, bank_refusal, new_game, parse_action, step, why_illegal
from zloutch.rules import PRESETS, load_rules


def test_a_bank_with_a_throw_on_the_table_asks_for_a_keep_first() -> None:
    state = new_game(load_rules("dix-mille"), ["Ana", "Bob"], table_mode=True)
    assert bank_refusal(state) == "you cannot bank now: there is nothing kept to bank"
    for text in ("throw", "roll 1 1 3 4 4", "keep 1 1", "throw", "roll 2 3 5"):
        state, _ = step(state, parse_action(text))
    assert state.turn.total == 200  # points kept, and a new throw to keep from
    assert why_illegal(state, Bank()) == "you cannot bank now: keep dice from the throw first (T-2)"


@pytest.mark.parametrize("spec", PRESETS)
def test_the_first_throw_of_every_preset_asks_for_a_keep_before_a_bank(spec: str) -> None:
    rules = load_rules(spec)
    state = new_game(rules, ["Ana", "Bob"], table_mode=True)
    state, _ = step(state, parse_action("throw"))
    state, _ = step(state, parse_action("roll " + " ".join(["1"] + ["2"] * (rules.dice - 1))))
    reason = why_illegal(state, Bank())
    assert reason is not None and reason.endswith("keep dice from the throw first (T-2)")


def test_take_where_no_turn_is_ever_taken_back_says_so() -> None:
    """greed has no take-back (G-8): "there is no turn to take back" read as "not now"."""
    from zloutch.engine.actions import Fresh, Take

    greed = new_game(load_rules("greed"), ["Ana", "Bob"])
    assert why_illegal(greed, Take()) == "a turn is never taken back in this rule set (G-8)"
    assert (
        why_illegal(greed, Fresh()) == "start fresh only answers a take-back offer; throw instead"
    )
    dix_mille = new_game(load_rules("dix-mille"), ["Ana", "Bob"])  # take-back, no offer yet
    assert why_illegal(dix_mille, Take()) == "there is no turn to take back (G-8)"


def test_one_die_set_aside_is_a_joker() -> None:
    from zloutch.engine.events import Jokered

    assert Jokered(0, (1,), 100).describe(("Ana",)) == "Ana sets 1 aside as a joker (V-2)"
    assert Jokered(0, (1, 5), 150).describe(("Ana",)) == "Ana sets 1 5 aside as jokers (V-2)"
