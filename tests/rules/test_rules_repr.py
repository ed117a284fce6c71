"""A rule set's repr is the code that loads it back; the options describe themselves as data."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rules_cases import RULES_SETTINGS
from rules_strategies import option_sets

from zloutch.rules import (
    OPTIONS,
    PRESETS,
    InvalidRulesError,
    OptionInfo,
    RuleSet,
    load_rules,
    parse_rules_text,
    score_throw,
    to_toml,
    with_options,
)
from zloutch.rules.ruleset import (
    FOUR_TWO_ONE,
    SECTIONS,
    STRAIGHT_OVER_THROWS,
    option_choices,
    option_kind,
)


def evaluated(text: str) -> object:
    return eval(text, {"load_rules": load_rules})


# ---------------------------------------------------------------------------- repr


def test_repr_of_a_preset_with_options_is_its_canonical_spec_as_code() -> None:
    rules = load_rules("dix-mille(joker,entry=800)")
    assert repr(rules) == "load_rules('dix-mille(entry=800,joker)')"
    assert repr(load_rules("greed")) == "load_rules('greed')"
    assert evaluated(repr(rules)) == rules


@pytest.mark.default_cases(3)
@pytest.mark.parametrize("preset", PRESETS)
@settings(
    RULES_SETTINGS,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(values=option_sets())
def test_repr_round_trips_for_every_preset_with_options(
    preset: str, values: dict[str, Any]
) -> None:
    try:
        rules = with_options(load_rules(preset), values)
    except InvalidRulesError:
        assume(False)
        return
    text = repr(rules)
    assert text == f"load_rules({rules.spec!r})"
    assert evaluated(text) == rules
    # The same rule set parsed from its own file text is named, and loads back, the same way.
    back = parse_rules_text(to_toml(rules))
    assert repr(back) == text


def test_repr_of_a_rule_file_loads_the_file_back(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text('[rules]\nextends = "dix-mille"\nname = "house"\n', encoding="utf-8")
    rules = load_rules(f"{path}(entry=800)")
    assert repr(rules) == f"load_rules({str(path) + '(entry=800)'!r})"
    assert evaluated(repr(rules)) == rules


@given(name=st.text(min_size=1, max_size=12).filter(lambda n: n not in PRESETS))
@RULES_SETTINGS
def test_repr_of_a_rule_set_no_spec_can_load_says_so(name: str) -> None:
    rules = dataclasses.replace(load_rules("dix-mille"), name=name)
    assert rules.spec == f"<{name}>"
    text = repr(rules)
    assert text.startswith(f"<RuleSet {name!r}: 5 dice, target 10000;")
    assert "no spec loads it" in text and "to_toml" in text
    with pytest.raises(SyntaxError):
        evaluated(text)


def test_a_preset_changed_in_code_has_the_repr_of_its_options() -> None:
    dix = load_rules("dix-mille")
    changed = dataclasses.replace(dix, game=dataclasses.replace(dix.game, target=5000))
    assert repr(changed) == "load_rules('dix-mille(target=5000)')"


def test_a_rule_set_built_in_code_from_nothing_says_it_has_no_spec() -> None:
    assert repr(RuleSet(name="bare", summary="", dice=3)) == (
        "<RuleSet 'bare': 3 dice, target 10000; built from text or in code, no spec loads it: "
        "to_toml writes it whole>"
    )


# ---------------------------------------------------------------------------- the options


def test_every_rule_field_but_the_structured_ones_is_an_option_with_its_data() -> None:
    names = []
    for section, cls in SECTIONS.items():
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if f.name in ("singles", "kinds", "patterns"):
                continue
            names.append(f.name)
            info = OPTIONS[f.name]
            assert isinstance(info, OptionInfo)
            assert info.section == section
            assert info.default == f.default
            assert type(info.default) is hints[f.name] or info.kind == "choice"
            if info.kind == "choice":
                assert info.choices == typing.get_args(hints[f.name])
                assert info.default in info.choices
            else:
                assert info.choices == ()
    assert names == list(OPTIONS)


def test_option_kind_and_choices_read_the_option_data() -> None:
    assert option_kind("joker") == "bool"
    assert option_kind("entry") == "int"
    assert option_kind("bump") == "choice"
    assert option_choices("bump") == ("off", "current", "any")
    assert option_choices("full_hand") == ("forced", "optional")


def test_the_rule_label_marks_the_reading_among_the_ids() -> None:
    assert OPTIONS["entry"].rule == "T-7"
    assert OPTIONS["four_two_one"].rule == "V-3, S-15"
    assert OPTIONS["ticks_restart"].rule == "G-3 Reading"
    assert OPTIONS["min_bank"].rule == "F-3, T-8 Reading"
    assert OPTIONS["keep_all_scoring"].rule == "T-2 Reading, V-5"
    readings = {name for name, info in OPTIONS.items() if info.reading}
    assert readings == {
        "keep_all_scoring",
        "min_bank",
        "figure_full_hand",
        "ticks_restart",
        "fallback_bumps",
        "take_back_counts_for_entry",
        "reentry",
        "joker_keeps_points",
        "overshoot",
    }


def test_the_option_list_is_immutable() -> None:
    with pytest.raises(TypeError):
        OPTIONS["joker"] = OPTIONS["entry"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        OPTIONS["joker"].meaning = "x"  # type: ignore[misc]


# ---------------------------------------------------------------------------- one constant


def test_s15_v3_four_two_one_scores_the_one_constant() -> None:
    rules = load_rules("dix-mille(four_two_one)")
    assert FOUR_TWO_ONE == 2000  # RULES: 4-2-1 on three dice is 2000
    assert score_throw(rules, (4, 2, 1)).points == FOUR_TWO_ONE
    assert str(FOUR_TWO_ONE) in OPTIONS["four_two_one"].meaning


def test_v6_straights_over_throws_score_the_one_constant() -> None:
    assert dict(STRAIGHT_OVER_THROWS) == {1: 500, 2: 300}
    meaning = OPTIONS["straights_over_throws"].meaning
    assert all(str(points) in meaning for points in STRAIGHT_OVER_THROWS.values())


def test_a_rule_sets_hash_is_its_fields_kept_once_and_never_pickled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hash is computed once and kept on the rule set, equal for equal rule sets, and
    left out of a pickle: another process (another string hash seed) computes its own."""
    import pickle
    import subprocess
    import sys

    from zloutch.rules.ruleset import Scoring

    hashed: list[int] = []
    plain = Scoring.__hash__

    def counted(self: Scoring) -> int:
        hashed.append(1)
        return plain(self)

    monkeypatch.setattr(Scoring, "__hash__", counted)
    rules = load_rules("dix-mille(entry=800,joker)")
    first = hash(rules)
    assert hash(rules) == first and len(hashed) == 1  # the sections are hashed once
    again = load_rules("dix-mille(joker,entry=800)")
    assert rules is not again and rules == again and hash(rules) == hash(again)
    fields = tuple(getattr(rules, f.name) for f in dataclasses.fields(rules) if f.compare)
    assert hash(rules) == hash(fields)
    other = dataclasses.replace(rules, game=dataclasses.replace(rules.game, target=5000))
    assert other != rules and hash(other) == hash(
        tuple(getattr(other, f.name) for f in dataclasses.fields(other) if f.compare)
    )
    data = pickle.dumps(rules)
    assert b"_hash" not in data and pickle.loads(data) == rules
    child = (
        "import pickle, sys; from zloutch.rules import load_rules; "
        "r = pickle.loads(sys.stdin.buffer.read()); "
        "print(hash(r) == hash(load_rules('dix-mille(entry=800,joker)')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", child],
        input=data,
        capture_output=True,
        check=True,
        env={**__import__("os").environ, "PYTHONHASHSEED": "12345"},
    )
    assert out.stdout.strip() == b"True"
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.name = "x"  # type: ignore[misc]
