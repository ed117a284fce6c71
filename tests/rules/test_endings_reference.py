"""The check that a rule set's games can end, read from the engine's compiled turn
(``zloutch.engine.endings``), agrees with a plain walk of every throw written for the tests
alone (``reference_endings``: the turn walked again with its own bank rule, as the rules layer
once did): the same bankable totals (entering, entered, and banks allowed only on the target,
T-10), and the same verdict with the same words, on every preset, on option sets and on rule
files drawn at random."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
import reference_endings as reference
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from rules_strategies import option_sets, rule_documents

from zloutch.engine import endings
from zloutch.rules import PRESETS, InvalidRulesError, RuleSet, load_rules
from zloutch.rules.loader import parse_rules, parse_rules_text, with_options

LIMITS = (1000, 4000)
"""Points up to which the bankable totals are compared."""


def agree(rules: RuleSet) -> None:
    for limit in LIMITS:
        fast = dataclasses.astuple(endings.turn_banks(rules, limit))
        plain = dataclasses.astuple(reference.turn_banks(rules, limit))
        assert fast == plain, f"{rules.spec}: the banks up to {limit} differ"
    assert endings._endings.__wrapped__(rules) == reference._endings.__wrapped__(rules)


@pytest.mark.default_cases(4)
@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_agrees(name: str) -> None:
    agree(load_rules(name))


@pytest.mark.default_cases(3)
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


V7_FAMILY = st.fixed_dictionaries(
    {
        "rules": st.fixed_dictionaries(
            {"extends": st.sampled_from(["farkle-minimal", "farkle", "greed", "zilch"])}
        ),
        "scoring": st.fixed_dictionaries(
            {
                "singles": st.sampled_from([{}, {"1": 100}, {"1": 100, "5": 50}]),
                "full_house_pair": st.sampled_from([50, 100, 150, 250]),
            }
        ),
        "game": st.fixed_dictionaries(
            {
                "exact_target": st.booleans(),
                "target": st.sampled_from([500, 800, 1000, 1500, 2000, 3000, 10000]),
            }
        ),
        "turn": st.fixed_dictionaries(
            {
                "min_bank": st.sampled_from([0, 200, 300, 350, 450, 500]),
                "full_hand": st.sampled_from(["forced", "optional"]),
            }
        ),
        "variants": st.just({"multiples_over_throws": True}),
    }
)
"""V-7 scores a later pair at ``full_house_pair`` x its face, which may be finer than every
other value: the compiled turn's unit must count it, or its totals are rounded down."""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=V7_FAMILY)
def test_v7_pairs_finer_than_the_unit_agree(doc: dict[str, object]) -> None:
    try:
        rules = parse_rules(doc, source="v7.toml", load_base=load_rules)
    except InvalidRulesError:
        return
    assert rules.unit == math.gcd(rules.unit, rules.scoring.full_house_pair)
    agree(rules)


def test_a_v7_pair_of_50_under_singles_of_100_is_counted() -> None:
    """A later pair of 50 x its face, with 1s worth 100: a player at 9650 of an exact 10000
    could never finish, and the check says so (it once rounded the pair's 50 down to 0)."""
    text = (
        '[rules]\nextends = "farkle"\n[scoring]\nsingles = { 1 = 100 }\n'
        "[game]\nexact_target = true\n[variants]\nmultiples_over_throws = true\n"
    )
    with pytest.raises(InvalidRulesError, match="a player at 9650 could never finish"):
        endings.parse_rules_text(text, load_base=load_rules)


def test_a_file_extending_a_never_ending_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "endless.toml").write_text(
        '[rules]\nname = "endless"\ndice = 5\n[game]\ntarget = 1\nexact_target = true\n'
        "[scoring]\nsingles = { 1 = 7, 5 = 3 }\n",
        encoding="utf-8",
    )
    child = tmp_path / "child.toml"
    child.write_text('[rules]\nextends = "endless.toml"\n[game]\ntarget = 3\n', encoding="utf-8")
    with pytest.raises(InvalidRulesError) as info:
        endings.load_rules(str(child))
    assert "endless.toml, line 5, extended by " in str(info.value)  # target = 1
    assert "1 can never be hit exactly" in str(info.value)
    assert load_rules(str(child)).game.target == 3  # the rules layer alone reads it


def test_the_sheet_blind_model_of_a_set_that_needs_ticks_to_end_is_none() -> None:
    """Without ticks (G-3) a player at 9800 of dix-mille with min_bank 300 and no petit
    palier could never finish: there is no sheet-blind model to solve or play by."""
    from zloutch.strategy.game_solver import sheet_blind

    assert sheet_blind(endings.load_rules("dix-mille(min_bank=300,petit_palier=false)")) is None
    blind = sheet_blind(endings.load_rules("dix-mille"))
    assert blind is not None and blind.game.ticks_to_cross == 0


@st.composite
def exact_target_files(draw: st.DrawFn) -> RuleSet:
    """Small exact-target rule files with coarse banks, half of them G-7 (the sums of banks
    the check reads as a monoid's, against the reference's walk of every score)."""
    dice = draw(st.integers(1, 4))
    singles = {1: draw(st.sampled_from([1, 2, 3, 30, 70, 100, 150, 250]))}
    if draw(st.booleans()):
        singles[5] = draw(st.sampled_from([2, 5, 20, 50, 70, 110]))
    kinds = ""
    if dice >= 3 and draw(st.booleans()):
        kinds = f'kinds = {{ 3 = {{ default = "{draw(st.sampled_from([3, 7, 30, 300]))}" }} }}\n'
    target = draw(st.integers(2, 100)) * draw(st.sampled_from([1, 10, 30, 50]))
    turn = ""
    if draw(st.booleans()):
        turn += f"min_bank = {draw(st.sampled_from([2, 3, 5, 100, 200]))}\n"
    if draw(st.booleans()):
        turn += f"entry = {draw(st.sampled_from([3, 10, 100, 500]))}\n"
    game = f"target = {target}\nexact_target = true\n"
    if target > 1000 and draw(st.booleans()):
        game += "last_thousand = true\n"
    if draw(st.integers(0, 4)) == 0:
        game += "ticks_to_cross = 3\n"
    values = ", ".join(f"{face} = {points}" for face, points in singles.items())
    text = (
        f'[rules]\nname = "drawn"\ndice = {dice}\n[scoring]\nsingles = {{ {values} }}\n{kinds}'
        f"[turn]\n{turn}[game]\n{game}"
    )
    try:
        return parse_rules_text(text, check=lambda rules: None)
    except InvalidRulesError:
        reject()  # a file the format refuses (a bank above the target...): drawn again


EXACT_SETTINGS = settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)


@settings(EXACT_SETTINGS, max_examples=4)
@given(rules=exact_target_files())
def test_exact_targets_read_as_sums_of_banks_agree(rules: RuleSet) -> None:
    # The reference walks every score: 0.1 s to 0.6 s a file. 400 files under slow.
    assert endings._endings.__wrapped__(rules) == reference._endings.__wrapped__(rules)


@pytest.mark.slow
@settings(EXACT_SETTINGS, max_examples=400)
@given(rules=exact_target_files())
def test_many_exact_targets_read_as_sums_of_banks_agree(rules: RuleSet) -> None:
    assert endings._endings.__wrapped__(rules) == reference._endings.__wrapped__(rules)
