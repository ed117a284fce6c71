"""Rule sets as data: presets, rule files, specs with options, and their errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rules_cases import FAMILY_TOML, OPTION_SPECS, RULES_SETTINGS, all_rules, rules_id
from rules_strategies import rule_documents

from zloutch.rules import (
    OPTIONS,
    PRESETS,
    InvalidRulesError,
    RuleSet,
    load_rules,
    parse_rules_text,
    to_toml,
    with_options,
)
from zloutch.rules.loader import parse_rules
from zloutch.rules.ruleset import SECTIONS

MINIMAL_FILE = """
[rules]
name = "house"
dice = 5

[game]
target = 4000
"""


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def error_of(spec: str) -> InvalidRulesError:
    """The error a spec raises; it must be an InvalidRulesError, never another type."""
    with pytest.raises(InvalidRulesError) as caught:
        load_rules(spec)
    assert type(caught.value) is InvalidRulesError
    return caught.value


# ------------------------------------------------------------------ presets


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_loads(name: str) -> None:
    rules = load_rules(name)
    assert rules.name == name
    assert rules.source == name
    assert rules.options == ()
    assert rules.spec == name
    assert rules.summary
    assert load_rules(rules.spec) == rules


def test_presets_match_rules_section_6() -> None:
    # preset: (dice, target, exact target, entry, full hand)
    table = {
        "dix-mille": (5, 10000, True, 500, "forced"),
        "dix-mille-6": (6, 10000, True, 1000, "forced"),
        "impair": (5, 10000, False, 0, "optional"),
        "charentaise": (5, 10000, True, 500, "forced"),
        "cinq-mille": (5, 5000, False, 500, "optional"),
        "farkle": (6, 10000, False, 500, "optional"),
        "farkle-minimal": (6, 10000, False, 0, "optional"),
        "zilch": (6, 10000, False, 0, "optional"),
        "greed": (5, 3000, False, 300, "optional"),
    }
    assert set(table) == set(PRESETS)
    for name, (dice, target, exact, entry, full_hand) in table.items():
        r = load_rules(name)
        assert (r.dice, r.game.target, r.game.exact_target) == (dice, target, exact), name
        assert (r.turn.entry, r.turn.full_hand) == (entry, full_hand), name
    dix, dix6 = load_rules("dix-mille"), load_rules("dix-mille-6")
    assert dix6.turn.entry_by == "throw" and dix.turn.entry_by == "turn"  # T-7
    assert (dix.game.ticks_to_cross, dix.game.bump, dix.game.take_back) == (3, "current", True)
    assert dix.turn.bank_multiple_of_100 and dix.turn.petit_palier  # T-6, T-8
    cinq = load_rules("cinq-mille")
    assert (cinq.game.ticks_to_cross, cinq.game.bump, cinq.game.take_back) == (0, "off", False)
    assert cinq.game.five_ones_win  # G-5
    charentaise = load_rules("charentaise")
    assert charentaise.scoring.keep_all_scoring and charentaise.scoring.full_house == "times"
    assert not charentaise.variants.joker
    zilch = load_rules("zilch")
    assert (zilch.turn.farkle_penalty, zilch.scoring.no_score_bonus, zilch.turn.min_bank) == (
        500,
        500,
        300,
    )
    assert load_rules("farkle").game.final_turns and load_rules("greed").game.final_turns
    minimal = load_rules("farkle-minimal")
    assert (minimal.game.min_players, minimal.game.max_players) == (2, 2)


# ------------------------------------------------------------------ specs


@pytest.mark.parametrize("rules", all_rules()[:-1], ids=rules_id)
def test_spec_parses_back_to_an_equal_rule_set(rules: RuleSet) -> None:
    assert load_rules(rules.spec) == rules
    assert load_rules(rules.spec).spec == rules.spec


def test_spec_with_several_options() -> None:
    rules = load_rules("dix-mille(bump=any,entry=800,joker)")
    assert (rules.game.bump, rules.turn.entry, rules.variants.joker) == ("any", 800, True)
    assert rules.spec == "dix-mille(bump=any,entry=800,joker)"
    assert load_rules(rules.spec) == rules
    assert rules.options == (("bump", "any"), ("entry", 800), ("joker", True))


def test_spec_options_are_written_in_canonical_order() -> None:
    for spec in (
        "dix-mille(joker,entry=800,bump=any)",
        "dix-mille( entry = 800 , joker , bump=any )",
        "dix-mille(joker=true,bump=any,entry=8_00)",
        "dix-mille(entry=800,joker=yes,bump=any)",
    ):
        assert load_rules(spec).spec == "dix-mille(bump=any,entry=800,joker)", spec
        assert load_rules(spec) == load_rules("dix-mille(bump=any,entry=800,joker)")


def test_spec_options_equal_to_the_preset_drop_out() -> None:
    assert load_rules("dix-mille(entry=500)") == load_rules("dix-mille")
    assert load_rules("dix-mille(entry=500)").spec == "dix-mille"
    assert load_rules("dix-mille(entry=500,joker)").spec == "dix-mille(joker)"
    assert load_rules("dix-mille()").spec == "dix-mille"
    assert load_rules("charentaise(keep_all_scoring)").spec == "charentaise"


def test_spec_false_options_are_written_and_parse_back() -> None:
    rules = load_rules("charentaise(keep_all_scoring=false)")
    assert not rules.scoring.keep_all_scoring
    assert rules.spec == "charentaise(keep_all_scoring=false)"
    assert load_rules(rules.spec) == rules
    assert rules != load_rules("charentaise")


def test_spec_option_names_may_use_dashes() -> None:
    assert load_rules("dix-mille(five-ones-win)").spec == "dix-mille(five_ones_win)"


def test_with_options_is_measured_from_the_source() -> None:
    joker = load_rules("dix-mille(joker,entry=800)")
    assert with_options(joker, {"joker": False}).spec == "dix-mille(entry=800)"
    assert with_options(joker, {"joker": False, "entry": 500}) == load_rules("dix-mille")
    assert with_options(load_rules("dix-mille"), {"bump": "any"}).spec == "dix-mille(bump=any)"


def test_option_names_are_unique() -> None:
    names = [
        f.name
        for cls in SECTIONS.values()
        for f in dataclasses.fields(cls)
        if f.name not in ("singles", "kinds", "patterns")
    ]
    assert len(names) == len(set(names)) == len(OPTIONS)
    for name, (section, field) in OPTIONS.items():
        assert field.name == name
        assert name in {f.name for f in dataclasses.fields(SECTIONS[section])}
    # Every option reads back from a rule set.
    assert set(load_rules("dix-mille").option_values()) == set(OPTIONS)


# ------------------------------------------------------------------ files


@pytest.mark.parametrize("rules", all_rules(), ids=rules_id)
def test_to_toml_parses_back(rules: RuleSet, tmp_path: Path) -> None:
    path = write(tmp_path / "rules.toml", to_toml(rules))
    loaded = load_rules(path)
    assert loaded.source == path
    assert loaded.options == ()
    assert dataclasses.replace(loaded, source=rules.source, options=rules.options) == rules
    # The canonical file is stable.
    assert to_toml(loaded) == to_toml(rules)


@RULES_SETTINGS
@given(
    name=st.text(min_size=1).filter(lambda s: s.strip() != ""),
    summary=st.text(),
)
def test_to_toml_escapes_any_text(name: str, summary: str) -> None:
    rules = dataclasses.replace(load_rules("greed"), name=name.strip(), summary=summary)
    back = parse_rules_text(to_toml(rules), source="greed")
    assert back == rules


def test_a_minimal_file_gets_the_defaults(tmp_path: Path) -> None:
    rules = load_rules(write(tmp_path / "house.toml", MINIMAL_FILE))
    assert (rules.name, rules.dice, rules.game.target) == ("house", 5, 4000)
    assert rules.scoring.singles == ((1, 100), (5, 50))
    assert rules.scoring.kinds == ()


def test_a_file_with_options_in_a_spec(tmp_path: Path) -> None:
    path = write(tmp_path / "house.toml", MINIMAL_FILE)
    rules = load_rules(f"{path}(entry=300,joker)")
    assert rules.spec == f"{path}(entry=300,joker)"
    assert load_rules(rules.spec) == rules


def test_a_file_that_extends_a_preset_and_overrides_one_key(tmp_path: Path) -> None:
    path = write(
        tmp_path / "mine.toml",
        '[rules]\nextends = "dix-mille"\nname = "mine"\n\n[turn]\nentry = 800\n',
    )
    rules = load_rules(path)
    expected = dataclasses.replace(
        load_rules("dix-mille(entry=800)"), name="mine", source=path, options=()
    )
    assert rules == expected


def test_a_file_that_extends_another_file(tmp_path: Path) -> None:
    write(tmp_path / "base.toml", MINIMAL_FILE)
    path = write(tmp_path / "child.toml", '[rules]\nextends = "base.toml"\n[game]\ntarget = 6000\n')
    rules = load_rules(path)
    assert (rules.name, rules.game.target) == ("house", 6000)


def test_a_family_file_states_every_shape() -> None:
    rules = parse_rules_text(FAMILY_TOML, source="family")
    kinds = rules.kinds_values()
    assert kinds[(3, 1)] == 300
    assert (3, 2) not in kinds
    assert kinds[(4, 3)] == 600  # (n - 2) x three
    assert kinds[(4, 2)] == 700
    assert kinds[(6, 3)] == 4000  # double of five (2000)
    assert kinds[(6, 1)] == "win"
    assert rules.scoring.patterns[1].thrown == 3
    assert rules.scoring.patterns[0].name == "straight 1-2-3-4-5-6"


# ------------------------------------------------------------------ errors


def test_unknown_option_suggests_a_name() -> None:
    err = error_of("dix-mille(jokr)")
    assert err.key == "jokr"
    assert "unknown option" in str(err)
    assert "did you mean 'joker'" in str(err)


@pytest.mark.parametrize(
    ("spec", "key", "words"),
    [
        ("dix-mille(bump=sideways)", "bump", "'sideways' is not one of off, current, any"),
        ("dix-mille(entry=abc)", "entry", "expected a whole number"),
        ("dix-mille(entry=-5)", "entry", "expected a whole number"),
        ("dix-mille(entry=²)", "entry", "expected a whole number"),
        ("dix-mille(joker=2)", "joker", "expected true or false"),
        ("dix-mille(entry)", "entry", "needs a value"),
        ("dix-mille(joker,joker=false)", "joker", "option given twice"),
    ],
)
def test_bad_option_values(spec: str, key: str, words: str) -> None:
    err = error_of(spec)
    assert err.key == key
    assert words in str(err)


def test_bool_option_given_an_int() -> None:
    dix = load_rules("dix-mille")
    with pytest.raises(InvalidRulesError, match="joker: expected true or false"):
        with_options(dix, {"joker": 1})
    with pytest.raises(InvalidRulesError, match="entry: expected a whole number"):
        with_options(dix, {"entry": True})
    with pytest.raises(InvalidRulesError, match="entry: expected a whole number"):
        with_options(dix, {"entry": "800"})
    with pytest.raises(InvalidRulesError, match="is not one of"):
        with_options(dix, {"bump": "sideways"})
    with pytest.raises(InvalidRulesError, match=r"variants\.joker: expected true or false"):
        parse_rules_text(
            '[rules]\nextends = "dix-mille"\n[variants]\njoker = 1\n', load_base=load_rules
        )


def test_unknown_preset_suggests_a_name() -> None:
    err = error_of("dix-mile")
    assert "unknown preset" in str(err)
    assert "did you mean 'dix-mille'" in str(err)
    assert "dix-mille-6" in str(err)  # the list of presets


@pytest.mark.parametrize(
    "spec",
    ["", "   ", "dix-mille(entry=800", "(joker)", "no-such-file.toml", "dix-mille(joker)x"],
)
def test_unreadable_specs(spec: str) -> None:
    error_of(spec)


@pytest.mark.parametrize(
    ("spec", "key", "words"),
    [
        ("dix-mille(final_round,final_turns)", "game.final_turns", "choose one"),
        ("charentaise(joker)", "variants.joker", "keep_all_scoring"),
        ("cinq-mille(full_hand_win)", "turn.full_hand_win", "needs exact_target"),
        ("dix-mille-6(straights_over_throws)", "variants.straights_over_throws", "5-dice"),
        ("dix-mille(target=10001)", "game.target", "cannot be reached exactly"),
        ("greed(multiples_over_throws,min_players=3,max_players=2)", "game.max_players", "<="),
    ],
)
def test_contradictory_options(spec: str, key: str, words: str) -> None:
    err = error_of(spec)
    assert key in str(err)
    assert words in str(err)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[rules]\ndice = 5\n[game]\ntarget = 100\n", "rules.name", "missing key"),
        ('[rules]\nname = "x"\n[game]\ntarget = 100\n', "rules.dice", "missing key"),
        ('[rules]\nname = "x"\ndice = 5\n', "game.target", "missing key"),
        (MINIMAL_FILE + "[turn]\nentri = 5\n", "turn.entri", "did you mean 'entry'"),
        (MINIMAL_FILE + "[turn]\nbump = 'any'\n", "turn.bump", "belongs in [game]"),
        ('[rules]\nnam = "x"\n', "rules.nam", "unknown key"),
        (MINIMAL_FILE + "[scorin]\n", "scorin", "unknown section"),
        (MINIMAL_FILE + "[scoring]\nsingles = { 7 = 100 }\n", "scoring.singles.7", "not a face"),
        (MINIMAL_FILE + "[scoring.kinds]\n7 = 100\n", "scoring.kinds.7", "3, 4, 5 or 6"),
        (MINIMAL_FILE + "[scoring.kinds]\n6 = 100\n", "scoring.kinds.6", "with 5 dice"),
        (MINIMAL_FILE + '[scoring.kinds]\n3 = "lots"\n', "scoring.kinds.3", "not a kind rule"),
        (MINIMAL_FILE + "[scoring]\nthree_pairs = 600\n", "scoring.three_pairs", "six dice"),
        (
            MINIMAL_FILE + "[[scoring.patterns]]\nfaces = [1, 2, 8]\npoints = 200\n",
            "scoring.patterns[0].faces",
            "not a face",
        ),
        (
            MINIMAL_FILE + "[[scoring.patterns]]\nfaces = [1, 2, 3]\n",
            "scoring.patterns[0].points",
            "missing key",
        ),
        ('[rules]\nname = "x"\ndice = 7\n[game]\ntarget = 100\n', "rules.dice", "at most 6"),
        ('[rules]\nname = "x"\ndice = "five"\n[game]\ntarget = 100\n', "rules.dice", "whole"),
        ('[rules]\nname = " "\ndice = 5\n[game]\ntarget = 100\n', "rules.name", "empty"),
        (MINIMAL_FILE + '[turn]\nfull_hand = "sometimes"\n', "turn.full_hand", "one of"),
        ("rules = 5\n", "rules", "expected a table"),
    ],
)
def test_bad_rule_files(tmp_path: Path, text: str, key: str, words: str) -> None:
    err = error_of(write(tmp_path / "bad.toml", text))
    assert err.key == key, str(err)
    assert words in str(err)


def test_toml_syntax_error(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.toml", '[rules]\nname = "x\n')
    err = error_of(path)
    assert "not valid TOML" in str(err)
    assert err.key == path


def test_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    assert "cannot read" in str(error_of(str(tmp_path / "missing.toml")))
    (tmp_path / "latin1.toml").write_bytes(b'[rules]\nname = "\xe9"\n')
    assert "UTF-8" in str(error_of(str(tmp_path / "latin1.toml")))


def test_kind_rule_double_needs_the_lower_count(tmp_path: Path) -> None:
    text = MINIMAL_FILE + '[scoring.kinds]\n4 = "double"\n'
    err = error_of(write(tmp_path / "bad.toml", text))
    assert err.key == "scoring.kinds"
    assert "four 1s: 'double' needs three 1s" in str(err)
    text = MINIMAL_FILE + '[scoring.kinds]\n3 = { default = "100 x face", 2 = "none" }\n'
    text += '4 = "(n-2) x three"\n'
    err = error_of(write(tmp_path / "bad2.toml", text))
    assert "four 2s: '(n-2) x three' needs three 2s" in str(err)


def test_extends_loops_are_refused(tmp_path: Path) -> None:
    a = write(tmp_path / "a.toml", '[rules]\nextends = "b.toml"\n')
    write(tmp_path / "b.toml", '[rules]\nextends = "a.toml"\n')
    err = error_of(a)
    assert err.key == "rules.extends"
    assert "loop" in str(err)
    itself = write(tmp_path / "self.toml", '[rules]\nextends = "self.toml"\n')
    assert "loop" in str(error_of(itself))


def test_extends_an_unknown_preset(tmp_path: Path) -> None:
    err = error_of(write(tmp_path / "a.toml", '[rules]\nextends = "dix-mile"\n'))
    assert "unknown preset" in str(err)
    assert "did you mean 'dix-mille'" in str(err)


def test_a_file_text_cannot_extend_without_a_loader() -> None:
    with pytest.raises(InvalidRulesError, match="cannot extend"):
        parse_rules_text('[rules]\nextends = "dix-mille"\n')


# ------------------------------------------------------------------ fuzzing: one error type

SPEC_WORDS = st.sampled_from(
    [*PRESETS, *OPTIONS, "(", ")", ",", "=", "true", "no", "800", "any", "x", "-", "_", " "]
)


@RULES_SETTINGS
@given(st.lists(SPEC_WORDS, max_size=8).map("".join))
def test_any_spec_loads_or_says_why(spec: str) -> None:
    try:
        rules = load_rules(spec)
    except InvalidRulesError:
        return
    assert load_rules(rules.spec) == rules


@RULES_SETTINGS
@given(rule_documents())
def test_any_rule_document_loads_or_says_why(doc: dict[str, Any]) -> None:
    try:
        rules = parse_rules(doc, source="fuzz", load_base=load_rules)
    except InvalidRulesError:
        return
    # What loads is a rule set the rest of the program can use.
    assert parse_rules_text(to_toml(rules), source="fuzz") == rules
    rules.kinds_values()
    assert rules.unit > 0


def test_option_specs_cover_the_options_of_the_brief() -> None:
    joined = " ".join(OPTION_SPECS)
    for option in (
        "full_house=sum",
        "full_house=times",
        "four_two_one",
        "keep_whole_multiples",
        "keep_all_scoring",
    ):
        assert option in joined
