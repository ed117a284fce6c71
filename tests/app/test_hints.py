"""The hint, shared by the terminal app and the server: one advisor per rule set."""

from __future__ import annotations

from zloutch.app.hints import SharedAdvisors
from zloutch.app.session import Session
from zloutch.engine import Throw, new_game, step
from zloutch.rules import load_rules


def test_the_servers_hint_is_the_terminals() -> None:
    session = Session.new("cinq-mille", "Ana,Bob")
    shared = SharedAdvisors()
    assert shared.advice(session.state) == session.advice()
    advice = shared.advice(session.state)
    assert advice is not None and advice.values[0][0] == Throw()
    assert advice.values[0][1] > 0


def test_one_advisor_per_rule_set_and_none_while_the_dice_roll() -> None:
    shared = SharedAdvisors(size=2)
    rules = load_rules("zilch")
    state = new_game(rules, ("Ana", "Bob"))
    shared.advice(state)
    shared.advice(new_game(rules, ("Cy", "Di")))
    assert len(shared._advisors) == 1
    rolling, _ = step(state, Throw())
    assert shared.advice(rolling) is None
    for spec in ("greed", "farkle"):
        shared.advice(new_game(load_rules(spec), ("Ana", "Bob")))
    assert len(shared._advisors) == 2  # the least recently asked went first
    assert (rules, True) not in shared._advisors
