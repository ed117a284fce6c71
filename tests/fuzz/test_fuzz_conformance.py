"""A random-game conformance run beyond the engine suite's own: every option drawn with wide
values, uniform play as well as the suite's non-suicidal policy, the example rule files of
docs/examples/rules, and records saved mid-game that must replay to the same state. Every
state, every event and every outcome goes through tests/engine/conftest.py's checker."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from fuzz_support import QUICK, ROOT, answer, count, engine_checks, long_run
from hypothesis import example, given
from hypothesis import strategies as st

from zloutch.engine import Phase, is_terminal, legal_actions, new_game, step
from zloutch.engine.endings import checked, load_rules
from zloutch.engine.record import Record, dump_record, load_record, roll
from zloutch.rules import OPTIONS, PRESETS, RuleSet, with_options


def checked_options(rules: RuleSet, values: Any) -> RuleSet:
    """Options switched, the result proven to end (as ``load_rules`` of its spec does)."""
    return checked(with_options(rules, values))


CHECKS = engine_checks()
EXAMPLES = sorted((ROOT / "docs" / "examples" / "rules").glob("*.toml"))
UNIFORM_TURNS = 150
"""Uniform play need not end (it throws on with one die): it is checked for this many turns."""
POLICY_TURNS = 3000

WIDE = st.one_of(
    st.sampled_from([0, 50, 100, 150, 200, 300, 350, 500, 750, 1000, 1500, 2000, 3000]),
    st.sampled_from([5000, 10_000, 20_000]),
    st.integers(0, 400).map(lambda n: 50 * n),
    st.sampled_from([10, 60, 330, 660, 990]),
)
"""Points in steps of 50, the step of every preset's scoring, and a few off it: a combination
worth 660 under bank_multiple_of_100 makes totals such as 960, which T-6 refuses (only a
multiple of 100 is banked) in the engine, the loader and the checker alike."""
SMALL = {"ticks_to_cross": 6, "farkle_penalty_after": 6, "min_players": 8, "max_players": 8}


def option(name: str) -> st.SearchStrategy[Any]:
    info = OPTIONS[name]
    if info.kind == "bool":
        return st.booleans()
    if info.kind == "choice":
        return st.sampled_from(info.choices)
    if name in SMALL:
        return st.integers(0, SMALL[name])
    return WIDE


@st.composite
def drawn_rules(draw: st.DrawFn) -> RuleSet | None:
    """A preset with options switched by name: every option may be drawn, any value."""
    base = load_rules(draw(st.sampled_from(PRESETS)))
    names = draw(st.lists(st.sampled_from(sorted(OPTIONS)), unique=True, max_size=10))
    values = {name: draw(option(name)) for name in names}
    return answer("conformance: option sets", lambda: checked_options(base, values))


def play(rules: RuleSet, seed: int, *, uniform: bool) -> None:
    rng = random.Random(seed)
    state = new_game(rules, CHECKS.players_for(rules, rng))
    sheet = CHECKS.SheetFromEvents(state)
    saved_at = rng.randrange(1, 400)
    actions: list[str] = []
    events: tuple[Any, ...] = ()
    bound = UNIFORM_TURNS if uniform else POLICY_TURNS
    while not is_terminal(state) and state.turns <= bound:
        if state.phase is Phase.ROLL:
            CHECKS.check_state(state, None)
            action = roll(state, rng)
        else:
            legal = legal_actions(state)
            CHECKS.check_state(state, legal)
            action = rng.choice(legal) if uniform else CHECKS.random_action(state, rng, legal)
        after, events = step(state, action)
        sheet.step(state, after, events)
        actions.append(str(action))
        state = after
        if len(actions) == saved_at:  # a record saved mid-game replays to this state
            record = Record(rules.spec, state.names, tuple(actions), None, False)
            _, replayed = load_record(dump_record(record, state))
            assert replayed == state, f"{rules.spec}: the record at action {saved_at}"
    if is_terminal(state):
        CHECKS.check_outcome(state, events)
    kind = "uniform" if uniform else "policy"
    count(f"conformance: games ({kind})", "ended" if is_terminal(state) else "cut off")
    count("conformance: actions", "checked", len(actions))


def check(rules: RuleSet | None, seed: int) -> None:
    if rules is not None:
        play(rules, seed, uniform=False)
        play(rules, seed + 1, uniform=True)


@given(drawn_rules(), st.integers(0, 2**32))
@QUICK
def test_random_options_quick(rules: RuleSet | None, seed: int) -> None:
    check(rules, seed)


@pytest.mark.slow
@given(drawn_rules(), st.integers(0, 2**32))
@example(load_rules("dix-mille(max_players=1)"), 0)  # found once: a game for one player
@long_run(400)
def test_random_options(rules: RuleSet | None, seed: int) -> None:
    check(rules, seed)


@pytest.mark.parametrize("path", EXAMPLES[:2], ids=lambda p: Path(p).stem)
def test_example_rule_files_quick(path: Path) -> None:
    check(load_rules(str(path)), 1)


@pytest.mark.slow
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: Path(p).stem)
def test_example_rule_files(path: Path) -> None:
    rules = load_rules(str(path))
    for seed in range(10):
        check(rules, 1000 * seed)
