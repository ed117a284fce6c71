"""Property-based tests of the engine: random legal play, with invariants after every action.

Hypothesis draws each action among ``legal_actions(state)`` (rolls among the chance node's
outcomes). So that the drawn play also reaches the middle and the end of long games, each
example first plays a warm-up of random turns with conftest's seeded policy (the seed and the
length drawn by hypothesis), checking the state invariants and the sheet on the way; then
every drawn action is followed by every check, and by a pool of other actions: each one must
apply if it is legal, and raise IllegalActionError with a message if it is not.

Shrinking is off: a failing example is reported with its spec, warm-up and drawn actions,
which replay it exactly; shrinking games of a hundred actions would blow the time budget.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from zloutch.engine import (
    Action,
    Bank,
    Fresh,
    GameState,
    IllegalActionError,
    Joker,
    Keep,
    Off,
    Roll,
    Take,
    Throw,
    apply,
    bank_refusal,
    chance_outcomes,
    is_terminal,
    legal_actions,
    new_game,
    parse_action,
    step,
    why_illegal,
)
from zloutch.engine import Phase as TurnPhase
from zloutch.engine.record import roll
from zloutch.rules import PRESETS, load_rules
from zloutch.rules.dice import sub_multisets

OPTION_SETS = (
    "dix-mille(confirmation,joker,target=3000)",
    "dix-mille(four_two_one,multiples_over_throws,straights_over_throws,target=2500)",
    "cinq-mille(bump=any,final_round,take_back,target=2500,ticks_to_cross=2)",
    "dix-mille-6(bump=any,exact_target=false,final_round,last_thousand,target=3000)",
    "greed(confirmation,farkle_penalty=500,full_hand=forced,joker)",
    "zilch(bump=current,final_turns,target=3000)",
)
SPECS = (*PRESETS, *OPTION_SETS)

WARM_UP_TURNS = 120
DRAWN_ACTIONS = 80
SETTINGS = settings(
    max_examples=70,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""The examples of the slow run (``-m slow``)."""
QUICK_SETTINGS = settings(SETTINGS, max_examples=4)
"""The default run's twin: the same play, a few examples."""

_ROUND_TRIPPED: set[Action] = set()
"""Actions whose notation was read back already (it depends on the action alone)."""


def test_the_option_sets_load():
    for spec in OPTION_SETS:
        assert load_rules(spec).spec == spec


# ---------------------------------------------------------------------------- the checks


def other_actions(state: GameState) -> list[Action]:
    """Actions to try besides the legal ones: the usual words, and dice near the table's."""
    t = state.turn
    pool: list[Action] = [Throw(), Bank(), Take(), Fresh(), Off(), Keep(()), Keep((1,))]
    pool += [Keep((5,)), Joker((5,)), Roll((1, 1, 1, 1, 1)), Roll((2, 3, 4, 6, 6))]
    if state.phase is TurnPhase.ROLL:
        pool += [Roll((6,) * n) for n in (t.rolling - 1, t.rolling + 1) if 1 <= n <= 6]
    if state.phase is TurnPhase.KEEP:
        pool += [Keep(d) for d in sub_multisets(t.throw) if d]
        absent = next((f for f in range(1, 7) if f not in t.throw), None)
        if absent is not None:  # a keep of dice not in the throw
            pool += [Keep((absent,)), Keep(tuple(sorted((*t.throw[1:], absent))))]
    if state.phase is TurnPhase.DECIDE:
        pool += [Keep(t.throw), *(Joker(d) for d in sub_multisets(t.left) if d)]
    return list(dict.fromkeys(pool))


def check_actions(state: GameState, legal: tuple[Action, ...]) -> None:
    """Legal actions apply and read back from their notation; the others raise."""
    for action in legal:
        if action not in _ROUND_TRIPPED:
            assert parse_action(str(action)) == action, f"{action} prints as {str(action)!r}"
            _ROUND_TRIPPED.add(action)
    if state.phase is not TurnPhase.ROLL:
        for action in legal:
            apply(state, action)
    for action in other_actions(state):
        if action in legal:
            continue
        if state.phase is TurnPhase.START and state.offer and action == Throw():
            # G-8: with an offer, throwing is starting fresh
            assert apply(state, Throw()) == apply(state, Fresh())
            continue
        with pytest.raises(IllegalActionError) as refused:
            apply(state, action)
        message = str(refused.value)
        assert message.strip(), f"{action} refused without a reason"
        assert why_illegal(state, action) == message
    if state.phase is TurnPhase.DECIDE:
        assert (Bank() in legal) == (bank_refusal(state) is None)
    if state.phase is TurnPhase.START:
        with pytest.raises(IllegalActionError, match=r"\w"):
            apply(state, Bank())
        if state.offer is None:
            with pytest.raises(IllegalActionError, match=r"\w"):
                apply(state, Take())


def draw_action(data: st.DataObject, state: GameState) -> Action:
    if state.phase is TurnPhase.ROLL:
        return data.draw(st.sampled_from([r for r, _ in chance_outcomes(state)]), "roll")
    return data.draw(st.sampled_from(legal_actions(state)), "action")


# ---------------------------------------------------------------------------- the play


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
@SETTINGS
@given(data=st.data())
def test_random_legal_play_keeps_every_invariant(spec, data, engine_checks):
    random_legal_play(spec, data, engine_checks)


@pytest.mark.default_cases(6)
@pytest.mark.parametrize("spec", SPECS)
@QUICK_SETTINGS
@given(data=st.data())
def test_random_legal_play_keeps_every_invariant_quick(spec, data, engine_checks):
    random_legal_play(spec, data, engine_checks)


def random_legal_play(spec, data, engine_checks) -> None:
    rules = load_rules(spec)
    seed = data.draw(st.integers(0, 2**32 - 1), "warm-up seed")
    warm_up = data.draw(st.integers(0, WARM_UP_TURNS), "warm-up turns")
    table_mode = data.draw(st.booleans(), "table mode")
    rng = random.Random(seed)
    state = new_game(rules, engine_checks.players_for(rules, rng), table_mode=table_mode)
    sheet = engine_checks.SheetFromEvents(state)
    engine_checks.check_state(state)

    while not is_terminal(state) and state.turns <= warm_up:
        if state.phase is TurnPhase.ROLL:
            action: Action = roll(state, rng)
        else:
            action = engine_checks.random_action(state, rng)
        after, events = step(state, action)
        sheet.step(state, after, events)
        state = after
        engine_checks.check_state(state)

    event("over before the drawn play" if is_terminal(state) else "drawn play")
    for _ in range(DRAWN_ACTIONS):
        legal = legal_actions(state)
        engine_checks.check_state(state, legal)
        check_actions(state, legal)
        if is_terminal(state):
            for action in other_actions(state):
                with pytest.raises(IllegalActionError, match="over"):
                    apply(state, action)
            break
        action = draw_action(data, state)
        after, events = step(state, action)
        sheet.step(state, after, events)
        state = after
        for seen in events:  # what the drawn play reached (--hypothesis-show-statistics)
            event(type(seen).__name__)
