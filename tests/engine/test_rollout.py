"""Rollouts: ``sample_roll`` draws what ``chance_outcomes`` lists, ``returns`` pays the winners;
and the reprs: an action pastes back as code, a state says where the game stands."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import zloutch
from zloutch.engine import (
    Bank,
    GameState,
    IllegalActionError,
    Keep,
    Phase,
    Roll,
    Throw,
    apply,
    chance_outcomes,
    is_terminal,
    legal_actions,
    new_game,
    outcome,
    returns,
    sample_roll,
)
from zloutch.engine.record import roll
from zloutch.rules import PRESETS, load_rules


class Enumerated(random.Random):
    """A generator whose ``randint(1, 6)`` answers the faces given, in order."""

    def __init__(self, faces: tuple[int, ...]) -> None:
        super().__init__(0)
        self.faces = iter(faces)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6)
        return next(self.faces)


def rolling(rules_spec: str, dice: int | None = None) -> GameState:
    """A game of Ana and Bob with the first throw in the air."""
    state = apply(new_game(load_rules(rules_spec), ["Ana", "Bob"]), Throw())
    if dice is not None:
        state = replace(state, turn=replace(state.turn, rolling=dice))
    return state


# ---------------------------------------------------------------------------- sample_roll


@pytest.mark.parametrize("dice", [1, 2, 3, 4])
def test_sample_roll_over_every_ordered_throw_gives_the_chance_probabilities(dice: int) -> None:
    state = rolling("farkle", dice)
    counts: Counter[Roll] = Counter()
    for faces in itertools.product(range(1, 7), repeat=dice):
        counts[sample_roll(state, Enumerated(faces))] += 1
    drawn = {r: Fraction(n, 6**dice) for r, n in counts.items()}
    assert drawn == dict(chance_outcomes(state))


@given(seed=st.integers(0, 2**32), preset=st.sampled_from(PRESETS))
@settings(max_examples=30, deadline=None)
def test_sample_roll_is_a_legal_roll_and_the_dice_the_game_draws(seed: int, preset: str) -> None:
    state = rolling(preset)
    drawn = sample_roll(state, random.Random(seed))
    assert drawn in legal_actions(state)
    assert drawn == roll(state, random.Random(seed))  # the simulator's and the app's draw


def test_the_same_seed_samples_the_same_rolls() -> None:
    state = rolling("dix-mille")
    first, second = random.Random(11), random.Random(11)
    assert [sample_roll(state, first) for _ in range(20)] == [
        sample_roll(state, second) for _ in range(20)
    ]


def test_sample_roll_refuses_when_no_dice_roll() -> None:
    state = new_game(load_rules("farkle"), ["Ana", "Bob"])
    with pytest.raises(IllegalActionError, match="no dice are rolling"):
        sample_roll(state, random.Random(1))


# ---------------------------------------------------------------------------- returns


def test_returns_are_zero_while_the_game_goes_on() -> None:
    state = rolling("farkle")
    assert returns(state) == (0.0, 0.0)
    assert returns(new_game(load_rules("farkle"), ["A", "B", "C"])) == (0.0, 0.0, 0.0)


def test_returns_pay_one_to_the_winner_and_share_it_on_a_tie() -> None:
    state = new_game(load_rules("farkle"), ["A", "B", "C"])
    assert returns(replace(state, phase=Phase.OVER, winners=(1,))) == (0.0, 1.0, 0.0)
    assert returns(replace(state, phase=Phase.OVER, winners=(0, 2))) == (0.5, 0.0, 0.5)


@given(seed=st.integers(0, 2**32), preset=st.sampled_from(["farkle", "greed", "zilch"]))
@settings(max_examples=15, deadline=None)
def test_a_finished_game_pays_its_winners_one_in_all(
    engine_checks: SimpleNamespace, seed: int, preset: str
) -> None:
    rng = random.Random(seed)
    rules = load_rules(f"{preset}(target=1500)")
    state = new_game(rules, engine_checks.players_for(rules, rng))
    while not is_terminal(state):
        if state.phase is Phase.ROLL:
            state = apply(state, sample_roll(state, rng))
        else:
            state = apply(state, engine_checks.random_action(state, rng))
    paid = returns(state)
    result = outcome(state)
    assert result is not None
    assert sum(paid) == pytest.approx(1.0)
    assert {seat for seat, value in enumerate(paid) if value > 0} == set(result.winners)


# ---------------------------------------------------------------------------- reprs


@given(seed=st.integers(0, 2**32), preset=st.sampled_from(PRESETS))
@settings(max_examples=12, deadline=None)
def test_every_legal_action_pastes_back_as_code(
    engine_checks: SimpleNamespace, seed: int, preset: str
) -> None:
    rng = random.Random(seed)
    rules = load_rules(preset)
    state = new_game(rules, engine_checks.players_for(rules, rng), table_mode=rng.random() < 0.3)
    namespace = {name: getattr(zloutch, name) for name in zloutch.__all__}
    for _ in range(60):
        if is_terminal(state):
            break
        actions = legal_actions(state)
        sample = actions if state.phase is not Phase.ROLL else actions[:5]
        for action in sample:
            assert eval(repr(action), namespace) == action
        if state.phase is Phase.ROLL:
            state = apply(state, sample_roll(state, rng))
        else:
            state = apply(state, engine_checks.random_action(state, rng, actions))


def test_the_reprs_of_actions() -> None:
    assert repr(Keep((5, 1, 1))) == "Keep((1, 1, 5))"
    assert repr(Roll((3,))) == "Roll((3,))"
    assert repr(Throw()) == "Throw()"
    assert repr(Bank()) == "Bank()"


def test_a_state_repr_says_where_the_game_stands() -> None:
    state = new_game(load_rules("dix-mille"), ["Ana", "Bob"])
    assert repr(state) == "<GameState dix-mille: Ana 0, Bob 0; Ana to throw>"
    state = apply(state, Throw())
    assert repr(state) == "<GameState dix-mille: Ana 0, Bob 0; 5 dice rolling for Ana>"
    state = apply(state, Roll((1, 1, 5, 5, 3)))
    assert repr(state) == "<GameState dix-mille: Ana 0, Bob 0; Ana to keep from 1 1 3 5 5>"
    state = apply(state, Keep((1, 1, 5, 5)))
    assert repr(state) == "<GameState dix-mille: Ana 0, Bob 0; Ana holds 300, 1 die in hand>"
    state = apply(apply(state, Throw()), Roll((1,)))
    assert repr(state).endswith("; Ana to keep from 1 (300 this turn)>")
    state = apply(state, Keep((1,)))  # a full hand: every die is thrown again (S-16, T-5)
    assert repr(state).endswith("; Ana holds 400, 5 dice in hand>")
    state = apply(apply(state, Throw()), Roll((1, 1, 1, 5, 5)))
    state = apply(apply(state, Keep((1, 1, 1))), Bank())  # 1400, two dice left (G-8)
    assert repr(state) == (
        "<GameState dix-mille: Ana 1400, Bob 0; Bob to take 1400 with 2 dice or start fresh>"
    )


def test_a_finished_state_repr_names_the_winner() -> None:
    state = new_game(load_rules("farkle"), ["Ana", "Bob"])
    assert repr(replace(state, phase=Phase.OVER, winners=(1,))).endswith("; over, Bob won>")
    both = replace(state, phase=Phase.OVER, winners=(0, 1))
    assert repr(both).endswith("; over, Ana and Bob won>")
