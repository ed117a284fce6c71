"""The check that a rule set's games can end, read from the engine's compiled turn
(``zloutch.engine.endings``), agrees with a plain walk of every throw written for the tests
alone (``reference_endings``: the turn walked again with its own bank rule, as the rules layer
once did): the same bankable totals (entering, entered, and banks allowed only on the target,
T-10), and the same verdict with the same words, on every preset, on option sets and on rule
files drawn at random."""

from __future__ import annotations

import dataclasses

import pytest
import reference_endings as reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rules_strategies import option_sets, rule_documents

from zloutch.engine import endings
from zloutch.rules import PRESETS, InvalidRulesError, RuleSet, load_rules
from zloutch.rules.loader import parse_rules, with_options

LIMITS = (1000, 4000)
"""Points up to which the bankable totals are compared."""


def agree(rules: RuleSet) -> None:
    for limit in LIMITS:
        fast = dataclasses.astuple(endings.turn_banks(rules, limit))
        plain = dataclasses.astuple(reference.turn_banks(rules, limit))
        assert fast == plain, f"{rules.spec}: the banks up to {limit} differ"
    assert endings._endings.__wrapped__(rules) == reference._endings.__wrapped__(rules)


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_agrees(name: str) -> None:
    agree(load_rules(name))


@pytest.mark.parametrize(
    "spec",
    [
        "dix-mille(joker)",
        "dix-mille(confirmation)",
        "dix-mille(entry_by=throw,entry=500)",
        "dix-mille(ticks_to_cross=0,min_bank=300,petit_palier=false)",
        "dix-mille(full_hand=forced)",
        "farkle(joker)",
        "greed(confirmation)",
        "impair(multiples_over_throws)",
        "zilch(target=3000)",
    ],
)
def test_option_sets_of_note_agree(spec: str) -> None:
    agree(load_rules(spec))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(PRESETS), options=option_sets())
def test_random_option_sets_agree(name: str, options: dict[str, object]) -> None:
    try:
        rules = with_options(load_rules(name), options)  # type: ignore[arg-type]
    except InvalidRulesError:
        return
    agree(rules)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=rule_documents())
def test_random_rule_files_agree(doc: dict[str, object]) -> None:
    try:
        rules = parse_rules(doc, source="fuzz.toml", load_base=load_rules)
    except InvalidRulesError:
        return
    agree(rules)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=rule_documents())
def test_many_random_rule_files_agree(doc: dict[str, object]) -> None:
    try:
        rules = parse_rules(doc, source="fuzz.toml", load_base=load_rules)
    except InvalidRulesError:
        return
    agree(rules)
