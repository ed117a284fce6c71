"""The compiled turn agrees with the engine, on random reachable states of random games.

``zloutch.engine.compiled`` is what the solvers, the fast kernel, the bots and the advice
read instead of the engine. Each state a random game reaches is looked up in it and checked
against what the engine does there: the legal keeps of a throw and their points; where each
keep, each set of jokers, each throw and each take-back leads; whether a bank is allowed
(and by which rule it is refused); what a bank writes, and whether it ends the game; which
turns an exact target loses (T-9).

The default run plays a few presets; the slow run (``pytest -m slow``) every preset and more
than a hundred option sets drawn from the full list of options (``zloutch.rules.OPTIONS``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from zloutch.engine import (
    Bank,
    GameState,
    Joker,
    Keep,
    Phase,
    Roll,
    Take,
    Throw,
    apply,
    is_terminal,
    legal_actions,
    new_game,
    step,
    throw_score,
)
from zloutch.engine import events as ev
from zloutch.engine.compiled import (
    BANK_RULES,
    FARKLE,
    WIN,
    CompiledTurn,
    Situation,
    compile_turn,
    face_code,
)
from zloutch.engine.endings import checked, load_rules
from zloutch.engine.game import (
    bank_refusal_of,
    joker_reading,
    jokers_owed,
    lands_on_target,
    turn_after_jokers,
    turn_after_throw,
)
from zloutch.rules import OPTIONS, PRESETS, InvalidRulesError, RuleSet, with_options
from zloutch.rules.ruleset import OptionValue, option_choices, option_kind


def checked_options(rules: RuleSet, values: Any) -> RuleSet:
    """Options switched, the result proven to end (as ``load_rules`` of its spec does); an
    option drawn that cannot act with the others (``fallback_bumps`` without bumps, which
    the loader refuses as a mistake) left out."""
    inert = rules.replace_options(dict(values)).inert_options()
    values = {name: value for name, value in dict(values).items() if name not in inert}
    return checked(with_options(rules, values))


DEFAULT_SPECS = ("dix-mille", "zilch", "farkle-minimal(joker)")
"""The default run: T-6, T-7, T-8, T-9 and G-8; F-1, F-2, F-3; jokers (V-2)."""
DEFAULT_STATES = 400
SLOW_STATES_PER_PRESET = 2000
OPTION_SETS = 110
SLOW_STATES_PER_OPTION_SET = 150
OPTION_SEED = 20260711
GAME_LENGTH = 600
"""States checked in one game before a new one starts (long rule sets still vary)."""


# ---------------------------------------------------------------------------- option sets


def _int_values(current: int, default: int) -> list[int]:
    """Values to try for a number option. A count (a default and a value under 50: ticks,
    players, farkles in a row) tries one, one more and twice as many; points try off, its
    value halved and doubled and a few sizes, on the 50-point step."""
    if 0 < max(current, default) < 50:
        return sorted({1, current, current + 1, current * 2})
    values = {0, 250, 500, 1000, default, current, current * 2, current // 2}
    return sorted({round(v / 50) * 50 for v in values})


def draw_option_set(rng: random.Random) -> tuple[str, dict[str, OptionValue]]:
    """A preset and one to four options of ``OPTIONS`` switched on it."""
    preset = rng.choice(PRESETS)
    base = load_rules(preset)
    options: dict[str, OptionValue] = {}
    for name in rng.sample(sorted(OPTIONS), rng.randint(1, 4)):
        current = base.option(name)
        kind = option_kind(name)
        if kind == "bool":
            options[name] = not current
        elif kind == "choice":
            options[name] = rng.choice([c for c in option_choices(name) if c != current])
        else:
            default = OPTIONS[name].default
            assert isinstance(current, int) and isinstance(default, int)
            options[name] = rng.choice(_int_values(current, default))
    return preset, options


@cache
def option_sets(count: int, seed: int = OPTION_SEED) -> tuple[list[RuleSet], int]:
    """``count`` rule sets that load, and how many drawn sets the loader refused."""
    rng = random.Random(seed)
    loaded: list[RuleSet] = []
    refused = 0
    while len(loaded) < count:
        preset, options = draw_option_set(rng)
        try:
            loaded.append(checked_options(load_rules(preset), options))
        except InvalidRulesError:
            refused += 1
    return loaded, refused


# ---------------------------------------------------------------------------- the checks


@dataclass
class Tally:
    states: int = 0
    keeps: int = 0
    banks: int = 0


def situation_of(state: GameState, inherited: int | None = None) -> Situation:
    p = state.turn.player
    taken = state.turn.inherited if inherited is None else inherited
    return Situation.normalise(state.rules, state.entered(p), state.sheets[p].score, taken)


def units(ct: CompiledTurn, points: int) -> int:
    assert points % ct.unit == 0, f"{points} is off the step {ct.unit}"
    return points // ct.unit


def check_roll(ct: CompiledTurn, state: GameState, roll: Roll, tally: Tally) -> None:
    """A throw: its index, its keeps and their points, and where each keep leads."""
    t = state.turn
    node = ct.throw_node_of(t)
    assert node in ct.column, f"{node} is not a node of the compiled turn"
    j = int(ct.roll_index[face_code(roll.dice)])
    assert ct.rolls[node.n][j][0] == roll.dice
    options = ct.options[node][j]
    after, events = step(state, roll)
    score = state.sheets[t.player].score
    farkled = [e for e in events if isinstance(e, ev.Farkled)]
    if not farkled and any(isinstance(e, ev.Won) for e in events):
        assert options == ((0, WIN),), f"{roll.dice} wins at once (G-5), not {options}"
        return
    if farkled and farkled[0].reason == "farkle":
        assert options == ((0, FARKLE),), f"{roll.dice} is a farkle, not {options}"
        return
    if after.phase is Phase.ROLL:  # V-2: the jokers are thrown
        assert options == ((0, ct.column[ct.throw_node_of(after.turn)]),)
        return
    start = units(ct, t.total)
    lost = ct.bank_outcomes(units(ct, score), start + ct.max_points + 1).lost
    if farkled:  # T-9: every keep passes the exact target
        assert farkled[0].reason == "overshoot"
        assert all(lost[start + p] for p, _ in options), f"{options} fit the target"
        return
    engine_keeps = {k.dice: k.points for k in throw_score(after).keeps}
    compiled_keeps = {k.dice: k.points for k in ct.table.lookup(roll.dice, ct.context(node)).keeps}
    assert engine_keeps == compiled_keeps, "the keeps of a throw and their points"
    legal = [a for a in legal_actions(after) if isinstance(a, Keep)]
    assert sorted(engine_keeps) == sorted(a.dice for a in legal)
    reached: set[tuple[int, int]] = set()
    keeps = {k.dice: k for k in throw_score(after).keeps}
    for action in legal:
        found = ct.keep_options(node, roll.dice, keeps[action.dice])
        reached.update(found)
        kept, kept_events = step(after, action)
        points, column = found[0]
        tally.keeps += 1
        if any(isinstance(e, ev.Farkled) for e in kept_events):  # T-9 on the keep
            assert lost[start + points], f"keeping {action.dice} passes the target (T-9)"
            continue
        assert not lost[start + points], f"keeping {action.dice} fits the target (T-9)"
        assert kept.turn.total == t.total + points * ct.unit, f"the points of {action.dice}"
        jokers = [a for a in legal_actions(kept) if isinstance(a, Joker)]
        owed = jokers_owed(ct.rules, kept.turn)  # keep_all_scoring: jokers alone (V-2)
        if owed:
            assert legal_actions(kept) == tuple(jokers), "jokers owed: nothing else is legal"
        else:
            assert column == ct.column[ct.hand_of(kept.turn)], f"where keeping {action.dice} leads"
        assert len(found) == (0 if owed else 1) + len(jokers), "the jokers after a keep (V-2)"
        thrown = [apply(apply(kept, joker), Throw()).turn for joker in jokers]
        wanted = sorted((points, ct.column[ct.throw_node_of(turn)]) for turn in thrown)
        assert sorted(found[0 if owed else 1 :]) == wanted, "where jokers set aside lead (V-2)"
    assert reached == set(options), "the options of a throw are its keeps' destinations"


def check_decision(ct: CompiledTurn, state: GameState, tally: Tally) -> None:
    """After a keep: whether the bank is allowed and why not, what it writes, where a throw
    leads."""
    rules, t = state.rules, state.turn
    p = t.player
    actions = legal_actions(state)
    if Throw() in actions:
        thrown = apply(state, Throw())
        node = ct.throw_node_of(thrown.turn)
        assert node == ct.throw_node_of(turn_after_throw(rules, t, fresh=False))
        if not t.jokers:
            assert node == ct.throw_of(ct.hand_of(t)), "where a throw leads"
    if t.jokers:  # V-2: a throw with jokers set aside, no decision node
        assert Bank() not in actions
        return
    if jokers_owed(rules, t):  # keep_all_scoring: the keep led to its jokers, no decision
        assert actions and all(isinstance(a, Joker) for a in actions)
        return
    hand = ct.hand_of(t)
    assert hand in ct.column, f"{hand} is not a node of the compiled turn"
    h = ct.hands.index(hand)
    row = units(ct, t.total)
    situation = situation_of(state)
    code = int(ct.bank_refusals(situation, row + 1)[row, h])
    score = state.sheets[p].score
    refusal = bank_refusal_of(
        rules, t, entered=state.entered(p), lands=lands_on_target(rules, score, t.total)
    )
    expected = 0 if refusal is None else 1 + BANK_RULES.index(refusal.rule)
    assert code == expected, f"bank at {t.total}: compiled {code}, engine {refusal}"
    assert bool(ct.bankable(situation, row + 1)[row, h]) == (Bank() in actions)
    if Bank() not in actions:
        return
    tally.banks += 1
    banked, events = step(state, Bank())
    (written,) = [e for e in events if isinstance(e, ev.Banked)]
    outcome = ct.bank_outcomes(units(ct, score), row + 1)
    assert int(outcome.score[row]) * ct.unit == written.level, "the score a bank writes (G-7)"
    assert ct.bank_points(situation, row + 1)[row] == written.level - score
    assert not outcome.lost[row], "a bank the engine allows is not lost (T-9)"
    ends = any(isinstance(e, ev.Won | ev.FinalRound) for e in events)
    if state.final is None:
        assert bool(outcome.reached[row]) == ends, "whether the bank reaches the target (G-2)"
    elif not outcome.reached[row]:
        assert not any(isinstance(e, ev.FinalRound) for e in events)
    del banked


def check_take(ct: CompiledTurn, state: GameState) -> None:
    """G-8: a take-back throws the dice left, from the node the compiled turn names."""
    offer = state.offer
    assert offer is not None
    taken = apply(state, Take())
    node = ct.take_node(offer)
    assert node in ct.column and node == ct.throw_node_of(taken.turn)


def check_joker_throw(ct: CompiledTurn, state: GameState) -> None:
    joker = next(a for a in legal_actions(state) if isinstance(a, Joker))
    turn = apply(state, joker).turn
    reading = next(k for k in joker_reading(state).scoring if k.dice == joker.dice)
    assert turn == turn_after_jokers(state.turn, reading)


def play_and_check(rules: RuleSet, states: int, seed: int, checks) -> Tally:
    """Random games through the engine, every state they reach checked."""
    ct = compile_turn(rules)
    rng = random.Random(seed)
    tally = Tally()
    while tally.states < states:
        players = checks.players_for(rules, rng)
        seats = min(max(len(players), rules.game.min_players), rules.game.max_players)
        state = new_game(rules, [f"P{i}" for i in range(seats)])
        for _ in range(GAME_LENGTH):
            if is_terminal(state) or tally.states >= states:
                break
            tally.states += 1
            if state.phase is Phase.ROLL:
                roll = rng.choice([r for r in legal_actions(state) if isinstance(r, Roll)])
                check_roll(ct, state, roll, tally)
                state = apply(state, roll)
                continue
            if state.phase is Phase.DECIDE:
                check_decision(ct, state, tally)
                if any(isinstance(a, Joker) for a in legal_actions(state)):
                    check_joker_throw(ct, state)
            elif state.phase is Phase.START and state.offer is not None:
                check_take(ct, state)
            state = apply(state, checks.random_action(state, rng))
    return tally


# ---------------------------------------------------------------------------- the tests


@pytest.mark.parametrize("spec", DEFAULT_SPECS)
def test_compiled_turn_agrees_with_the_engine(spec: str, engine_checks) -> None:
    tally = play_and_check(load_rules(spec), DEFAULT_STATES, 1, engine_checks)
    assert tally.states == DEFAULT_STATES and tally.keeps and tally.banks


def test_option_sets_are_drawn_from_every_option() -> None:
    sets, refused = option_sets(OPTION_SETS)
    switched = {name for rules in sets for name, _ in rules.options}
    assert len(sets) == OPTION_SETS and refused < OPTION_SETS
    assert len(switched) > len(OPTIONS) * 3 // 4, sorted(set(OPTIONS) - switched)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_compiled_turn_agrees_on_every_preset(preset: str, engine_checks) -> None:
    tally = play_and_check(load_rules(preset), SLOW_STATES_PER_PRESET, 2, engine_checks)
    assert tally.keeps and tally.banks


@pytest.mark.slow
@pytest.mark.parametrize("index", range(OPTION_SETS))
def test_compiled_turn_agrees_on_random_option_sets(index: int, engine_checks) -> None:
    sets, _ = option_sets(OPTION_SETS)
    rules = sets[index]
    tally = play_and_check(rules, SLOW_STATES_PER_OPTION_SET, 3 + index, engine_checks)
    assert tally.states == SLOW_STATES_PER_OPTION_SET, rules.spec


def test_a_roll_with_no_option_is_refused_by_the_flat_form() -> None:
    """Every roll of the flat form leads somewhere (a farkle and a win are columns): a roll
    without an option would make the kernels read the next roll's, so the form refuses it."""
    import dataclasses

    import numpy as np

    flat = compile_turn(load_rules("greed")).flat
    assert flat.level_error() is None
    starts = flat.roll_opt_start
    doubled = np.concatenate([starts[:1], starts])  # roll 0 now has no option
    broken = dataclasses.replace(flat, roll_opt_start=doubled)
    assert (
        broken.level_error() == "a roll with no option: a throw that the rules leave with no way on"
    )
