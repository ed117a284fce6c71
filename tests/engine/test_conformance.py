"""The engine's conformance suite, run on every preset and on random sets of options.

The checks of OpenSpiel's generic suite (DESIGN.md), on zloutch's games: chance nodes list
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
from zloutch.engine.record import Record, dump_record, load_record, roll, sheet_json
from zloutch.rules import PRESETS, InvalidRulesError, load_rules, with_options

# ---------------------------------------------------------------------------- the budget

GAMES_PER_PRESET = 200
"""Random games per preset (each checked whole); more are played through the combinations."""
GAMES_PER_COMBINATION = 15
TURN_BOUND = 5000
"""Every random game must end before this many turns (all seats together). With conftest's
random policy the longest preset game seen is under 400 turns, and the slowest option set
here (charentaise with ticks_to_cross=1) about 1,400. A set where players can be stuck for
ever (an exact target that no legal bank reaches, no ticks to fall back) fails here."""
SWEEP_DECISIONS = 0.15
"""Share of decision nodes where every legal action is applied, not only the one chosen."""
SWEEP_ROLLS = 0.02
"""Share of chance nodes where every roll is applied (at most two per game)."""

# ---------------------------------------------------------------------------- option sets

OPTION_SEED = 20261130
COMBINATIONS_DRAWN = 45
FLAGS = (
    "take_back",
    "final_round",
    "final_turns",
    "joker",
    "confirmation",
    "four_two_one",
    "straights_over_throws",
    "multiples_over_throws",
    "petit_palier",
    "bank_multiple_of_100",
    "last_thousand",
    "exact_target",
    "five_ones_win",
    "full_hand_win",
    "fallback_bumps",
    "joker_keeps_points",
    "take_back_counts_for_entry",
    "keep_all_scoring",
    "keep_whole_multiples",
    "ticks_restart",
    "reentry",
    "figure_full_hand",
)
"""Every switch of RULES.md, the Reading options included."""
VALUED = (
    "bump",
    "entry",
    "entry_by",
    "full_hand",
    "full_house",
    "no_score_bonus",
    "ticks_to_cross",
    "farkle_penalty",
    "min_bank",
    "target",
)


def draw_options(rng: random.Random, preset: str) -> dict[str, bool | int | str]:
    """One to four options to switch on a preset (a flag is turned over)."""
    base = load_rules(preset)
    names = list(VALUED + FLAGS)
    if base.dice != 5:
        names.remove("straights_over_throws")  # V-6 is a 5-dice variant
    options: dict[str, bool | int | str] = {}
    for name in rng.sample(names, rng.randint(1, 4)):
        if name in FLAGS:
            options[name] = not base.option(name)
        elif name == "bump":
            options[name] = rng.choice(["any", "current", "off"])
        elif name == "full_hand":
            options[name] = rng.choice(["forced", "optional"])
        elif name == "entry_by":
            options[name] = rng.choice(["throw", "turn"])
        elif name == "full_house":
            options[name] = rng.choice(["off", "sum", "times"])
        elif name == "ticks_to_cross":
            options[name] = rng.randint(0, 3)
        elif name == "target":
            options[name] = rng.randrange(2000, 5001, 100)
        else:
            options[name] = {
                "entry": 800,
                "farkle_penalty": 500,
                "min_bank": 300,
                "no_score_bonus": 500,
            }[name]
    return options


def draw_combinations() -> tuple[list[str], list[str]]:
    """The specs of the option sets that load, and the refusals of the others."""
    rng = random.Random(OPTION_SEED)
    loaded: list[str] = []
    refused: list[str] = []
    for i in range(COMBINATIONS_DRAWN):
        preset = PRESETS[i % len(PRESETS)]  # each preset in turn, for variety
        options = draw_options(rng, preset)
        try:
            rules = with_options(load_rules(preset), options)
        except InvalidRulesError as exc:  # the engine refusing a contradiction at load time
            refused.append(f"{preset} {options}: {exc}")
            continue
        if rules.spec not in loaded and rules.spec not in PRESETS:
            loaded.append(rules.spec)
    return loaded, refused


COMBINATIONS, REFUSED = draw_combinations()
SPECS = [*PRESETS, *COMBINATIONS]


def games_for(spec: str) -> int:
    return GAMES_PER_PRESET if spec in PRESETS else GAMES_PER_COMBINATION


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
            if self.roll_sweeps < 2 and self.rng.random() < SWEEP_ROLLS:
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


_PLAYED: dict[str, Findings] = {}


def playthrough(spec: str, checks) -> Findings:
    """The findings of every random game of a rule set, played on first demand."""
    if spec not in _PLAYED:
        findings = Findings()
        for index in range(games_for(spec)):
            findings.games += 1
            Game(spec, index, findings, checks).play()
        _PLAYED[spec] = findings
    return _PLAYED[spec]


@pytest.fixture(params=SPECS)
def findings(request, engine_checks) -> Findings:
    return playthrough(request.param, engine_checks)


# ---------------------------------------------------------------------------- chance


@cache
def ordered_counts(n: int) -> dict[tuple[int, ...], Fraction]:
    """The probability of each multiset of n dice, counted over the 6**n ordered rolls."""
    counted = Counter(tuple(sorted(faces)) for faces in product(range(1, 7), repeat=n))
    return {dice: Fraction(k, 6**n) for dice, k in counted.items()}


@pytest.mark.parametrize("spec", SPECS)
def test_chance_outcomes_are_every_roll_once_with_exact_probabilities(spec, engine_checks):
    rules = load_rules(spec)
    rolling = apply(new_game(rules, ["A", "B"]), Throw())
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


def test_option_combinations_mostly_load():
    """Refusals are the engine declining contradictions at load time; most sets play."""
    assert len(COMBINATIONS) >= 20, f"only {len(COMBINATIONS)} load; refused: {REFUSED}"
    for refusal in REFUSED:
        assert "with these options" in refusal, refusal
    assert len({spec.split("(")[0] for spec in COMBINATIONS}) >= 6, COMBINATIONS


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
