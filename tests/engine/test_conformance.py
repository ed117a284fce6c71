"""The engine's conformance suite, run on every preset and on random sets of options.

The checks of OpenSpiel's generic game tests, on zloutch's games: chance nodes list
every roll once with exact probabilities; legal actions are sorted, unique, and each one
applies; random games end within a stated bound; every finished game's record replays to
the same state and sheet; the sheet written again from the events agrees with the state and
with the rules of the sheet (T-6, T-7, T-8, T-9, G-3, G-4, G-6, G-7, F-1, F-3); the outcome
ranks every seat and hands out G-9's kicks.

Each rule set's games are played once (``playthrough`` is cached) and each test reads the
findings of its own kind, so a broken rule fails one test, not all of them. A finding names
the rule spec, the seed and the actions of the turn: with the same engine, ``random.Random``
with that seed replays the game move for move.
"""

from __future__ import annotations

import json
import random
import zlib
from collections import Counter
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache
from itertools import product
from math import comb
from typing import Any

import pytest

from zloutch.engine import (
    GameState,
    IllegalActionError,
    Phase,
    Throw,
    apply,
    bank_refusal,
    chance_outcomes,
    is_terminal,
    legal_actions,
    new_game,
    parse_action,
    step,
)
from zloutch.engine import events as ev
from zloutch.engine.endings import check_endings, load_rules
from zloutch.engine.record import Record, dump_record, load_record, roll, sheet_json
from zloutch.rules import OPTIONS, PRESETS, InvalidRulesError, RuleSet, with_options
from zloutch.rules.ruleset import OptionValue, format_option, option_choices, option_kind


def checked_options(rules: RuleSet, values: Any) -> RuleSet:
    """Options switched, the result proven to end (as ``load_rules`` of its spec does)."""
    return with_options(rules, values, check=check_endings)


# ---------------------------------------------------------------------------- the budget

GAMES_PER_PRESET = 200
"""Random games per preset (each checked whole) in the slow run (``-m slow``); more are
played through the option sets."""
GAMES_PER_COMBINATION = 15
QUICK_GAMES_PER_PRESET = 2
"""The default run plays the first games of the same seeds: the same checks, fewer games."""
QUICK_GAMES_PER_COMBINATION = 1
TURN_BOUND = 5000
"""Every random game must end before this many turns (all seats together). With conftest's
random policy the longest preset game seen is under 400 turns, and the slowest option set
here (charentaise with ticks_to_cross=1) about 1,400. A set where players can be stuck for
ever (an exact target that no legal bank reaches, no ticks to fall back) fails here."""
SWEEP_DECISIONS = 0.15
"""Share of decision nodes where every legal action is applied, not only the one chosen."""
SWEEP_ROLLS = 0.02
"""Share of chance nodes where every roll is applied (at most two per game; the first game
of a rule set always sweeps its first roll)."""

# ---------------------------------------------------------------------------- option sets
# Drawn from the option list itself (zloutch.rules.OPTIONS): every option is switched, in
# every direction the presets allow, on some preset, with up to three others drawn at random.

OPTION_SEED = 20261130
COMPANIONS = 3
ATTEMPTS = 3
"""Rounds over the presets for a switch whose companions contradict it on every preset that
takes it (five_ones_win=false: cinq-mille alone)."""
"""At most this many other options are switched with the one each set is drawn for."""
INTEGER_VALUES: dict[str, range] = {
    "target": range(2000, 5001, 100),  # short games; multiples of 100 suit T-6 and T-9
    "entry": range(0, 1001, 50),
    "min_bank": range(0, 501, 50),
    "farkle_penalty": range(0, 1001, 50),
    "farkle_penalty_after": range(1, 5),
    "fresh_farkle_penalty": range(0, 2001, 100),
    "no_score_bonus": range(0, 1001, 50),
    "three_pairs": range(0, 2501, 50),
    "four_and_pair": range(0, 2501, 50),
    "two_triplets": range(0, 3001, 50),
    "full_house_pair": range(50, 201, 50),
    "full_hand_win_from": range(500, 3001, 50),
    "ticks_to_cross": range(0, 4),
    "min_players": range(1, 4),
    "max_players": range(2, 9),
}
"""The values drawn for the integer options: points in multiples of 50, counts small."""
POINTS = range(50, 1001, 50)
"""The values of an integer option not named above (a new option: points, most likely)."""
DRAWS_PER_VALUE = {"bool": 1, "choice": 1, "int": 2}
"""Sets drawn for each value of an option: each boolean both ways, each choice, and two
values drawn for an integer."""


def values_to_draw(name: str) -> list[OptionValue | None]:
    """The values an option is switched to, one set each; None: a value drawn at random."""
    kind = option_kind(name)
    if kind == "bool":
        values: list[OptionValue | None] = [True, False]
    elif kind == "choice":
        values = list(option_choices(name))
    else:
        values = [None]
    return values * DRAWS_PER_VALUE[kind]


def draw_value(rng: random.Random, name: str, base: RuleSet) -> OptionValue:
    """A value of an option other than the one ``base`` has."""
    current = base.option(name)
    kind = option_kind(name)
    if kind == "bool":
        return not current
    pool: list[OptionValue] = (
        list(option_choices(name)) if kind == "choice" else list(INTEGER_VALUES.get(name, POINTS))
    )
    return rng.choice([v for v in pool if v != current])


@dataclass(frozen=True)
class Drawn:
    """The option sets of the suite, drawn once."""

    loaded: list[str]
    """The specs of the sets that load (each once, no preset)."""
    refused: list[tuple[str, Exception]]
    """Each set the loader refused, with what it raised."""
    missed: list[str]
    """The switches no preset would take, whatever the other options."""


ENABLERS: dict[str, dict[str, OptionValue]] = {
    "four_and_pair_as_three_pairs": {"three_pairs": 1500},
    "six_of_a_kind_as_three_pairs": {"three_pairs": 1500},
    "six_of_a_kind_as_two_triplets": {"two_triplets": 2500},
    "full_house_pair": {"full_house": "sum"},
    "entry_by": {"entry": 500},
    "full_hand_win_from": {"full_hand_win": True, "exact_target": True},
    "farkle_penalty_after": {"farkle_penalty": 500},
    "overshoot": {"exact_target": True},
    "ticks_restart": {"ticks_to_cross": 3},
    "fallback_bumps": {"bump": "any"},
    "take_back_counts_for_entry": {"take_back": True, "entry": 500},
    "reentry": {"entry": 500, "ticks_to_cross": 3},
    "joker_keeps_points": {"joker": True},
    "late_pair": {"multiples_over_throws": True},
    "multiples_take_all": {"multiples_over_throws": True},
}
"""What an option that acts only with another needs switched on with it (the loader refuses
it written where it cannot act, ``RuleSet.idle_options``)."""


def draw_combinations() -> Drawn:
    """For each value of each option, a preset it changes and other options: the first set
    that loads is kept; each refusal is noted, and the next preset tried."""
    rng = random.Random(OPTION_SEED)
    bases = [load_rules(p) for p in PRESETS]
    names = list(OPTIONS)
    loaded: list[str] = []
    refused: list[tuple[str, Exception]] = []
    missed: list[str] = []
    turn = 0
    for name in names:
        for wanted in values_to_draw(name):
            start, turn = turn, turn + 1  # each preset in turn, for variety
            for k in range(len(bases) * ATTEMPTS):  # other companions on the next round
                base = bases[(start + k) % len(bases)]
                if wanted is not None and base.option(name) == wanted:
                    continue  # nothing to switch on this preset
                options = {name: draw_value(rng, name, base) if wanted is None else wanted}
                others = [n for n in names if n != name]
                for other in rng.sample(others, rng.randint(0, COMPANIONS)):
                    options[other] = draw_value(rng, other, base)
                if name in base.replace_options(options).inert_options():
                    options.update(ENABLERS[name])  # what it acts with, on
                # a companion that cannot act with the others would be refused as a mistake
                inert = base.replace_options(options).inert_options()
                options = {n: v for n, v in options.items() if n == name or n not in inert}
                try:
                    rules = checked_options(base, options)
                    load_rules(rules.spec)
                except Exception as exc:  # a contradiction refused, or a crash: both noted
                    refused.append((f"{base.name} {options}", exc))
                    continue
                if rules.spec not in loaded and rules.spec not in PRESETS:
                    loaded.append(rules.spec)
                break
            else:
                if any(b.option(name) != wanted for b in bases):
                    missed.append(format_option(name, wanted) if wanted is not None else name)
    return Drawn(loaded, refused, missed)


DRAWN = draw_combinations()
COMBINATIONS = DRAWN.loaded
SPECS = [*PRESETS, *COMBINATIONS]


def budgets() -> list[object]:
    """Each rule set twice: a few games in the default run, the full count under slow."""
    params: list[object] = []
    for spec in SPECS:
        preset = spec in PRESETS
        quick = QUICK_GAMES_PER_PRESET if preset else QUICK_GAMES_PER_COMBINATION
        full = GAMES_PER_PRESET if preset else GAMES_PER_COMBINATION
        # One worker plays a rule set's games for all six checks (pytest-xdist, --dist loadgroup)
        group = pytest.mark.xdist_group
        quick_marks = group(f"conformance {spec} {quick}")
        full_marks = (pytest.mark.slow, group(f"conformance {spec} {full}"))
        params.append(pytest.param((spec, quick), id=f"{spec}-{quick}", marks=quick_marks))
        params.append(pytest.param((spec, full), id=f"{spec}-{full}", marks=full_marks))
    return params


# ---------------------------------------------------------------------------- playing


@dataclass
class Findings:
    """What the random games of one rule set showed, by kind of check."""

    games: int = 0
    finished: int = 0
    actions: int = 0
    decisions_swept: int = 0
    rolls_swept: int = 0
    records: int = 0
    longest: int = 0
    """The most turns a finished game took."""
    roll_sizes: set[int] = field(default_factory=set)
    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, kind: str, text: str) -> None:
        self.counts[kind] += 1
        shown = self.examples.setdefault(kind, [])
        if len(shown) < 3:
            shown.append(text)

    def report(self, kind: str) -> str:
        lines = [f"{self.counts[kind]} problems in {self.games} games, for example:"]
        return "\n".join(lines + [f"- {text}" for text in self.examples.get(kind, [])])


class Game:
    """One random game with every check of the suite, findings noted, never raised."""

    def __init__(self, spec: str, index: int, findings: Findings, checks) -> None:
        self.spec = spec
        self.seed = zlib.crc32(spec.encode()) * 10_000 + index
        self.rng = random.Random(self.seed)
        self.rules = load_rules(spec)
        self.players = checks.players_for(self.rules, self.rng)
        self.state = new_game(self.rules, self.players)
        self.findings = findings
        self.checks = checks
        self.sheet = checks.SheetFromEvents(self.state)
        self.actions: list[str] = []
        self.turn_actions: list[str] = []
        self.problem_kinds: set[str] = set()
        self.roll_sweeps = 0
        self.sweep_first_roll = index == 0

    def where(self) -> str:
        return (
            f"{self.spec} with {len(self.players)} players, seed {self.seed}, action "
            f"#{len(self.actions) + 1}, this turn: {'; '.join(self.turn_actions) or '-'}"
        )

    def note(self, kind: str, text: str) -> None:
        if kind not in self.problem_kinds:  # one finding of a kind per game
            self.problem_kinds.add(kind)
            self.findings.add(kind, f"{text} [{self.where()}]")

    def play(self) -> None:
        last_events: tuple[ev.Event, ...] = ()
        while not is_terminal(self.state):
            if self.state.turns > TURN_BOUND:
                self.note("end", f"no end after {TURN_BOUND} turns")
                return
            try:
                action = self.choose()
                after, last_events = step(self.state, action)
            except Exception as exc:  # the engine must answer, and a legal action apply
                self.note("actions", f"{type(exc).__name__}: {exc}")
                self.note("end", f"aborted by {type(exc).__name__}")
                return
            if "sheet" not in self.problem_kinds:
                try:
                    self.sheet.step(self.state, after, last_events)
                except AssertionError as exc:
                    self.note("sheet", str(exc))
            self.actions.append(str(action))
            self.turn_actions.append(str(action))
            if any(isinstance(e, ev.TurnStarted) for e in last_events):
                self.turn_actions = []
            self.state = after
            self.findings.actions += 1
        self.findings.finished += 1
        self.findings.longest = max(self.findings.longest, self.state.turns)
        try:
            self.checks.check_outcome(self.state, last_events)
        except AssertionError as exc:
            self.note("outcome", str(exc))
        self.check_record()

    def choose(self):
        state = self.state
        if state.phase is Phase.ROLL:
            size = state.turn.rolling
            actions = None
            if size not in self.findings.roll_sizes:  # the list of rolls depends on its size
                self.findings.roll_sizes.add(size)
                actions = legal_actions(state)
            self.check_state(state, actions)
            if self.roll_sweeps < 2 and (self.rng.random() < SWEEP_ROLLS or self.sweep_first_roll):
                self.sweep_first_roll = False
                self.roll_sweeps += 1
                self.findings.rolls_swept += 1
                self.sweep([r for r, _ in chance_outcomes(state)])
            return roll(state, self.rng)
        actions = legal_actions(state)
        self.check_state(state, actions)
        if self.rng.random() < SWEEP_DECISIONS:
            self.findings.decisions_swept += 1
            self.sweep(actions)
        return self.checks.random_action(state, self.rng, actions)

    def check_state(self, state: GameState, actions) -> None:
        try:
            self.checks.check_state(state, actions)
        except AssertionError as exc:
            kind = "actions" if "legal actions" in str(exc) else "states"
            self.note(kind, str(exc))

    def sweep(self, actions) -> None:
        for action in actions:
            try:
                apply(self.state, action)
            except Exception as exc:
                self.note("actions", f"legal {action} raised {type(exc).__name__}: {exc}")
                return

    def check_record(self) -> None:
        record = Record(self.rules.spec, tuple(self.players), tuple(self.actions), self.seed)
        try:
            assert load_rules(self.rules.spec) == self.rules, "the spec does not load back"
            text = dump_record(record, self.state)
            loaded, replayed = load_record(text)
            assert loaded == record, "the record does not load back equal"
            assert replayed == self.state, "the replay ends in another state"
            assert sheet_json(replayed) == sheet_json(self.state) == json.loads(text)["sheet"]
        except Exception as exc:
            self.note("record", f"{type(exc).__name__}: {exc}")
        else:
            self.findings.records += 1


_PLAYED: dict[tuple[str, int], Findings] = {}


def playthrough(spec: str, games: int, checks) -> Findings:
    """The findings of the first ``games`` random games of a rule set, played on demand."""
    if (spec, games) not in _PLAYED:
        findings = Findings()
        for index in range(games):
            findings.games += 1
            Game(spec, index, findings, checks).play()
        _PLAYED[spec, games] = findings
    return _PLAYED[spec, games]


@pytest.fixture(params=budgets())
def findings(request, engine_checks) -> Findings:
    return playthrough(*request.param, engine_checks)


# ---------------------------------------------------------------------------- chance


@cache
def ordered_counts(n: int) -> dict[tuple[int, ...], Fraction]:
    """The probability of each multiset of n dice, counted over the 6**n ordered rolls."""
    counted = Counter(tuple(sorted(faces)) for faces in product(range(1, 7), repeat=n))
    return {dice: Fraction(k, 6**n) for dice, k in counted.items()}


@pytest.mark.parametrize("spec", SPECS)
def test_chance_outcomes_are_every_roll_once_with_exact_probabilities(spec, engine_checks):
    rules = load_rules(spec)
    rolling = apply(new_game(rules, engine_checks.players_for(rules, random.Random(0))), Throw())
    assert rolling.phase is Phase.ROLL and rolling.turn.rolling == rules.dice
    for n in range(1, rules.dice + 1):
        state = replace(rolling, turn=replace(rolling.turn, rolling=n))
        engine_checks.check_chance(state)
        outcomes = chance_outcomes(state)
        assert len(outcomes) == comb(n + 5, 5)
        assert sum(p for _, p in outcomes) == Fraction(1)
        assert {r.dice: p for r, p in outcomes} == ordered_counts(n)
        assert all(r.dice == tuple(sorted(r.dice)) for r, _ in outcomes)


# ---------------------------------------------------------------------------- random games


def test_option_sets_that_do_not_load_are_refused_with_a_reason():
    """A contradiction is refused at load time with InvalidRulesError, never a crash; most
    sets play."""
    for where, exc in DRAWN.refused:
        assert isinstance(exc, InvalidRulesError), f"{where}: {type(exc).__name__}: {exc}"
        assert "with these options" in str(exc), f"{where}: {exc}"
    assert len(DRAWN.refused) < len(COMBINATIONS), [f"{w}: {e}" for w, e in DRAWN.refused]
    assert len({spec.split("(")[0] for spec in COMBINATIONS}) == len(PRESETS), COMBINATIONS


def test_the_option_sets_switch_every_option():
    """Every option of zloutch.rules.OPTIONS is switched by some set that loads, and each
    value asked for (booleans both ways, every choice) loads on some preset."""
    switched: set[str] = set()
    for spec in COMBINATIONS:
        switched.update(name for name, _ in load_rules(spec).options)
    never = sorted(set(OPTIONS) - switched)
    assert not never, f"options no drawn set switches: {never}"
    assert not DRAWN.missed, f"switches no preset took: {DRAWN.missed}"


def test_the_drawn_values_fit_the_kind_of_each_option():
    """Integers are drawn from a range of their own (points in multiples of 50), booleans
    both ways, choices among the choices."""
    rng = random.Random(1)
    base = load_rules("dix-mille")
    for name in OPTIONS:
        kind = option_kind(name)
        values = {draw_value(rng, name, base) for _ in range(60)}
        assert base.option(name) not in values, name
        if kind == "bool":
            assert values == {not base.option(name)}, name
            assert set(values_to_draw(name)) == {True, False}, name
        elif kind == "choice":
            assert values <= set(option_choices(name)), name
            assert set(values_to_draw(name)) == set(option_choices(name)), name
        else:
            assert all(isinstance(v, int) and not isinstance(v, bool) for v in values), name
            assert name in INTEGER_VALUES, f"{name}: give it a range in INTEGER_VALUES"
            if INTEGER_VALUES[name].step == 50:
                assert all(v % 50 == 0 for v in values), name
    targets = {draw_value(rng, "target", base) for _ in range(100)}
    assert all(2000 <= t <= 5000 for t in targets), "targets that make a game end"


def test_legal_actions_are_sorted_unique_and_each_one_applies(findings):
    assert findings.decisions_swept > findings.games
    assert findings.rolls_swept > 0
    assert not findings.counts["actions"], findings.report("actions")


def test_every_state_keeps_the_invariants(findings):
    assert findings.actions > 0
    assert not findings.counts["states"], findings.report("states")


def test_random_games_end_within_the_bound(findings):
    assert not findings.counts["end"], findings.report("end")
    assert findings.finished == findings.games
    assert 0 < findings.longest <= TURN_BOUND


def test_every_record_replays_to_the_same_state_and_sheet(findings):
    assert not findings.counts["record"], findings.report("record")
    assert findings.records == findings.finished


def test_the_sheet_agrees_with_the_events_and_the_rules(findings):
    assert not findings.counts["sheet"], findings.report("sheet")


def test_the_outcome_ranks_every_seat_and_hands_out_the_kicks(findings):
    assert findings.finished > 0
    assert not findings.counts["outcome"], findings.report("outcome")


# ---------------------------------------------------------------------------- found by the games
# Each bug the random games found, reduced to a script. They fail until the engine is fixed.


def play(spec: str, script: str, players: int = 2) -> GameState:
    return play_on(new_game(load_rules(spec), [f"P{i}" for i in range(players)]), script)


def play_on(state: GameState, script: str) -> GameState:
    for text in script.split(";"):
        state = apply(state, parse_action(text))
    return state


FARKLE = "throw; roll 2 3 4 6 6"


def test_f1_penalty_level_does_not_enter_the_game_t7():
    """T-7 with F-1: three farkles write -500 on a sheet with no level; that is no entry."""
    state = play("dix-mille(farkle_penalty=500)", ";".join([FARKLE] * 6))
    assert [lv.value for lv in state.sheets[0].levels] == [-500]
    state = play_on(state, "throw; roll 1 1 2 3 4; keep 1 1")  # P0: 200, not 500
    assert bank_refusal(state) is not None, "banks 200 without the entry of 500"
    with pytest.raises(IllegalActionError, match="T-7"):
        apply(state, parse_action("bank"))


def test_g6_reopened_final_round_costs_the_first_player_one_level_even_with_a_bump():
    """G-6: the first to reach the target goes back a level; the bump (G-4) of the same
    level must not cost a second one."""
    state = play(
        "cinq-mille(bump=current,final_round,target=1500)",
        "throw; roll 2 3 5 5 5; keep 5 5 5; bank;"  # P0 500
        "throw; roll 2 3 6 6 6; keep 6 6 6; bank;"  # P1 600
        "throw; roll 1 1 1 2 3; keep 1 1 1; bank;"  # P0 1500: the final round
        "throw; roll 4 4 4 5 5; keep 4 4 4 5 5; throw; roll 2 3 4 4 4; keep 4 4 4",
    )
    state, events = step(state, parse_action("bank"))  # P1 1500: re-opens, bumps P0
    crossed = [e for e in events if isinstance(e, ev.Crossed) and e.player == 0]
    assert len(crossed) == 1, crossed
    assert state.sheets[0].score == 500


def test_exact_target_sets_cannot_freeze():
    """With an exact target, no ticks, no bump and no petit palier, two players at 1900 of
    2000 can neither bank 100 (min_bank 200) nor lose their level: no turn of either can
    change the sheet, so the game never ends. Such a set must be refused at load time, or
    some way out must exist."""
    spec = "dix-mille(bump=off,petit_palier=false,target=2000,ticks_to_cross=0)"
    try:
        load_rules(spec)
    except InvalidRulesError:
        return  # refused at load time: fixed that way
    to_1900 = (
        "throw; roll 1 1 1 2 3; keep 1 1 1; throw; roll 1 1; keep 1 1;"
        "throw; roll 2 3 6 6 6; keep 6 6 6; throw; roll 1 2; keep 1; bank"
    )
    state = play(spec, f"{to_1900}; {to_1900}")
    assert [s.score for s in state.sheets] == [1900, 1900]
    for _ in range(2):  # each player's turn in turn
        ends = turn_ends(state)
        assert ends != {(False, (1900, 1900))}, "no turn can change anything: a frozen game"
        state = apply(apply(state, Throw()), parse_action("roll 2 3 4 6 6"))


def turn_ends(state: GameState) -> set[tuple[bool, tuple[int, ...]]]:
    """Every way the turn of the player to move can end: (game over, scores)."""
    seen: set[GameState] = set()
    stack = [state]
    ends: set[tuple[bool, tuple[int, ...]]] = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if is_terminal(current) or current.turns != state.turns:
            ends.add((is_terminal(current), tuple(s.score for s in current.sheets)))
            continue
        stack.extend(apply(current, a) for a in legal_actions(current))
    return ends
