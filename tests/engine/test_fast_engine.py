"""The engine's fast path against the plain engine: the same states, events and answers.

The engine validates each action once (``apply``, ``step``; ``apply_legal`` and
``step_legal`` not at all), keeps what a state derives, and reads throws from tables
(``zloutch.engine.throws``). ``plain_engine`` is the engine as it was before: every action
validated, every fact recomputed. Random games on every preset, on the option sets of the
conformance suite and on option sets drawn here are played through both, move by move, and
every state, event, legal action, refusal and reading must be the same.
"""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable
from dataclasses import fields, replace
from typing import Any

import plain_engine as plain
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from test_conformance import COMBINATIONS, draw_value

from zloutch.engine import game
from zloutch.engine.actions import Action, Bank, Fresh, Joker, Keep, Off, Roll, Take, Throw
from zloutch.engine.endings import checked, load_rules
from zloutch.engine.record import roll
from zloutch.engine.rollout import sample_roll
from zloutch.engine.state import (
    DERIVED,
    GAME_FIELDS,
    TURN_FIELDS,
    GameState,
    Phase,
    PlayerSheet,
    TurnState,
    build,
    done,
    evolve,
    game_draft,
    turn_done,
    turn_draft,
)
from zloutch.rules import OPTIONS, PRESETS, InvalidRulesError, RuleSet, with_options
from zloutch.rules.dice import sub_multisets
from zloutch.rules.scoring import ScoreTable


def checked_options(rules: RuleSet, values: Any) -> RuleSet:
    """Options switched, the result proven to end (as ``load_rules`` of its spec does)."""
    return checked(with_options(rules, values))


MOVES = 250
"""Moves of each game compared (fewer when it ends before)."""
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
QUICK_SETTINGS = settings(SETTINGS, max_examples=12)
"""The default run's twin: the same games, fewer of them."""


def answer(call: Callable[[], Any]) -> tuple[str, Any]:
    """What a call gives: its value, or the kind and words of what it raised."""
    try:
        return ("value", call())
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def tried(state: GameState) -> list[Action]:
    """Actions to ask about besides the legal ones: every word, dice near the table's."""
    t = state.turn
    pool: list[Action] = [Throw(), Bank(), Take(), Fresh(), Off(), Keep(()), Keep((1,))]
    pool += [Keep((5,)), Joker((5,)), Roll((1, 1, 1, 1, 1)), Roll((2, 3, 4, 6, 6))]
    if t.throw:
        pool += [Keep(d) for d in sub_multisets(t.throw) if d]
        pool += [Keep((*t.throw, 6)), Joker(t.throw)]
    pool += [Joker(d) for d in sub_multisets(t.left) if d]
    return list(dict.fromkeys(pool))


def compare_answers(fast: GameState, ref: GameState) -> tuple[Action, ...]:
    """Every query of the two states gives the same answer; the legal actions."""
    legal = game.legal_actions(fast)
    assert legal == plain.legal_actions(ref)
    assert game.legal_actions(ref) == legal, "the engine on a state the plain engine built"
    assert game.current_player(fast) == plain.current_player(ref)
    assert game.chance_outcomes(fast) == plain.chance_outcomes(ref)
    assert answer(lambda: game.bank_refusal(fast)) == answer(lambda: plain.bank_refusal(ref))
    assert answer(lambda: game.throw_refusal(fast)) == answer(lambda: plain.throw_refusal(ref))
    if fast.turn.throw:
        assert answer(lambda: game.throw_score(fast)) == answer(lambda: plain.throw_score(ref))
        assert game.context(fast) == plain.context(ref)
    for action in tried(fast):
        mine = answer(lambda a=action: game.why_illegal(fast, a))
        assert mine == answer(lambda a=action: plain.why_illegal(ref, a)), action
        if mine != ("value", None):
            refused = answer(lambda a=action: game.apply(fast, a))
            assert refused == answer(lambda a=action: plain.apply(ref, a)), action
    return legal


def play_both(rules: RuleSet, seed: int, engine_checks: Any) -> int:
    """A random game through both engines, compared at every move; the moves played."""
    rng = random.Random(seed)
    players = engine_checks.players_for(rules, rng)
    fast, ref = game.new_game(rules, players), plain.new_game(rules, players)
    assert fast == ref
    for move in range(MOVES):
        if game.is_terminal(fast):
            assert plain.is_terminal(ref) and game.outcome(fast) == plain.outcome(ref)
            return move
        legal = compare_answers(fast, ref)
        if fast.phase is Phase.ROLL:
            twin = random.Random()
            twin.setstate(rng.getstate())
            action: Action = roll(fast, rng)
            assert sample_roll(fast, twin) == action and twin.getstate() == rng.getstate()
        else:
            action = engine_checks.random_action(fast, rng, legal)
        expected = plain.step(ref, action)
        assert game.step(fast, action) == expected, action
        assert game.step_legal(fast, action) == expected, action
        assert game.apply(fast, action) == expected[0] == game.apply_legal(fast, action)
        new = expected[0]
        assert repr(game.apply_legal(fast, action)) == repr(new)
        fast, ref = game.apply_legal(fast, action), new
    return MOVES


@st.composite
def option_sets(draw: st.DrawFn) -> RuleSet:
    """A preset with one to four options switched, drawn as the conformance suite draws
    their values (``draw_value``); a set the loader refuses is not played."""
    base = load_rules(draw(st.sampled_from(PRESETS), "preset"))
    names = draw(st.lists(st.sampled_from(sorted(OPTIONS)), min_size=1, max_size=4, unique=True))
    rng = random.Random(draw(st.integers(0, 2**32), "values"))
    options = {name: draw_value(rng, name, base) for name in names}
    try:
        return load_rules(checked_options(base, options).spec)
    except InvalidRulesError:
        reject()


rule_sets = st.one_of(
    st.sampled_from([*PRESETS, *COMBINATIONS]).map(load_rules),
    option_sets(),
)


@pytest.mark.slow
@SETTINGS
@given(rules=rule_sets, seed=st.integers(0, 2**32))
def test_the_fast_path_plays_as_the_plain_engine(rules, seed, engine_checks):
    play_both(rules, seed, engine_checks)


@QUICK_SETTINGS
@given(rules=rule_sets, seed=st.integers(0, 2**32))
def test_the_fast_path_plays_as_the_plain_engine_quick(rules, seed, engine_checks):
    play_both(rules, seed, engine_checks)


@pytest.mark.default_cases(4)
@pytest.mark.parametrize("spec", PRESETS)
def test_every_preset_plays_as_the_plain_engine(spec, engine_checks):
    assert play_both(load_rules(spec), 2026, engine_checks) > 40


# ---------------------------------------------------------------------------- the dice


@pytest.mark.parametrize("n", range(1, 7))
def test_sample_roll_draws_the_dice_of_roll(n):
    """With a random.Random, sample_roll draws what record.roll draws, leaving the
    generator in the same state (the same dice everywhere)."""
    state = replace(
        game.apply(game.new_game(load_rules("farkle"), ["A", "B"]), Throw()),
        turn=TurnState(player=0, rolling=n),
    )
    for seed in range(300):
        a, b = random.Random(seed), random.Random(seed)
        for _ in range(5):
            assert sample_roll(state, a) == roll(state, b)
        assert a.getstate() == b.getstate()


def test_sample_roll_asks_any_other_source_for_randint():
    class Counting:
        calls = 0

        def randint(self, low: int, high: int) -> int:
            self.calls += 1
            return 6

    state = game.apply(game.new_game(load_rules("greed"), ["A", "B"]), Throw())
    source = Counting()
    n = state.turn.rolling
    assert sample_roll(state, source) == Roll((6,) * n)
    assert source.calls == n == 5


# ---------------------------------------------------------------------------- validated once


def counting(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of one method of the score tables."""
    calls = [0]
    method = getattr(ScoreTable, name)

    def counted(self: ScoreTable, *args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return method(self, *args, **kwargs)

    monkeypatch.setattr(ScoreTable, name, counted)
    return calls


def keep_state() -> GameState:
    state = game.new_game(load_rules("dix-mille"), ["A", "B"])
    state = game.apply(game.apply(state, Throw()), Roll((1, 1, 2, 3, 5)))
    assert state.phase is Phase.KEEP
    return state


def test_a_legal_keep_is_read_from_the_throw_table_not_validated(monkeypatch):
    """step checks a keep once (a table read) and plays it without scoring the throw again:
    the score table is neither asked to validate the keep nor to read the throw."""
    state = keep_state()
    game.legal_actions(state)
    validated, looked_up = counting(monkeypatch, "validate_keep"), counting(monkeypatch, "lookup")
    after, events = game.step(state, Keep((1, 1, 5)))
    assert (validated[0], looked_up[0]) == (0, 0)
    assert after.turn.total == 250 and events


def test_an_illegal_keep_is_refused_with_the_score_tables_words(monkeypatch):
    state = keep_state()
    validated = counting(monkeypatch, "validate_keep")
    with pytest.raises(game.IllegalActionError, match="do not score"):
        game.apply(state, Keep((2, 3)))
    assert validated[0] == 1


def test_apply_legal_is_apply_of_a_legal_action():
    state = keep_state()
    for action in game.legal_actions(state):
        assert game.apply_legal(state, action) == game.apply(state, action)
        assert game.step_legal(state, action) == game.step(state, action)


# ---------------------------------------------------------------------------- derived facts


def test_derived_facts_are_not_compared_hashed_nor_pickled():
    state = keep_state()
    bare = replace(state)
    game.legal_actions(state)
    game.throw_score(state)
    assert state._legal is not None and state._throw is not None
    assert bare._legal is None and bare._throw is None
    assert state == bare and hash(state) == hash(bare) and repr(state) == repr(bare)
    back = pickle.loads(pickle.dumps(state))
    assert back == state and all(getattr(back, name) is None for name in DERIVED)
    assert game.legal_actions(back) == game.legal_actions(state)
    assert copy.deepcopy(state) == state


def test_a_draft_builds_what_the_constructor_builds():
    """A state and a turn built on drafts are the values their constructors build: same
    class, fields, equality, hash, repr, pickle; and still frozen."""
    state = keep_state()
    d = game_draft(state)
    d.phase = Phase.DECIDE
    d.turns = 7
    built = done(d)
    made = replace(state, phase=Phase.DECIDE, turns=7)
    assert type(built) is GameState and built == made and hash(built) == hash(made)
    assert repr(built) == repr(made) and pickle.loads(pickle.dumps(built)) == made
    assert built._tables is state._tables and built._legal is None
    with pytest.raises(AttributeError):
        built.turns = 3  # type: ignore[misc]
    td = turn_draft(state.turn)
    td.total = 950
    turn = turn_done(td)
    assert type(turn) is TurnState and turn == replace(state.turn, total=950)
    assert hash(turn) == hash(replace(state.turn, total=950))
    with pytest.raises(AttributeError):
        turn.total = 3  # type: ignore[misc]
    assert evolve(state, turns=9, offer=None) == replace(state, turns=9, offer=None)


def test_pickles_by_field_name_load_with_defaults_for_newer_fields():
    """States are pickled by field name: a pickle made before a field was added (or before
    the states were slotted, when the pickle held the instance's dict) still loads."""
    turn = TurnState.__new__(TurnState)
    turn.__setstate__({"player": 1, "total": 350, "set_aside": (1, 5)})
    assert turn == TurnState(player=1, total=350, set_aside=(1, 5))
    state = keep_state()
    old = {name: getattr(state, name) for name in GAME_FIELDS if name != "turns"}
    back = GameState.__new__(GameState)
    back.__setstate__(old)
    assert back == replace(state, turns=0) and back._legal is None


def test_evolve_with_other_rules_reads_their_tables():
    state = keep_state()
    game.legal_actions(state)
    other = evolve(state, rules=load_rules("farkle"))
    assert other._tables is None and game.throw_score(other).throw == state.turn.throw


def test_every_field_is_copied_by_the_drafts():
    """``game_draft`` and ``turn_draft`` copy each field: a field added to GameState or
    TurnState and forgotten there would leave a slot unset (an AttributeError) or stale."""
    state = keep_state()
    assert tuple(f.name for f in fields(GameState)) == GAME_FIELDS
    assert tuple(f.name for f in fields(TurnState)) == TURN_FIELDS
    assert done(game_draft(state)) == state
    assert turn_done(turn_draft(state.turn)) == state.turn


def test_a_state_built_by_hand_derives_its_own_facts():
    """A state changed by ``dataclasses.replace`` keeps nothing of the one it came from."""
    state = keep_state()
    game.legal_actions(state)
    other = replace(state, turn=replace(state.turn, throw=(2, 3, 4, 6, 6)))
    assert game.throw_score(other).farkle
    assert game.legal_actions(other) == ()


def test_build_makes_what_the_constructor_makes():
    sheet = PlayerSheet("Ana", ticks=1, farkles_in_row=2)
    built = build(PlayerSheet, {f: getattr(sheet, f) for f in sheet.__dataclass_fields__})
    assert built == sheet and type(built) is PlayerSheet and repr(built) == repr(sheet)
    with pytest.raises(AttributeError):
        built.ticks = 3


def test_a_sheet_derives_its_score_once():
    sheet = game.new_game(load_rules("dix-mille"), ["A", "B"]).sheets[0]
    assert "score" not in sheet.__dict__
    assert sheet.score == 0 and sheet.__dict__["score"] == 0
    assert PlayerSheet.score.__doc__ and "current level" in PlayerSheet.score.__doc__
