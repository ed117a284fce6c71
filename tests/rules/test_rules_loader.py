"""Rule sets as data: presets, rule files, specs with options, and their errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rules_cases import FAMILY_TOML, OPTION_SPECS, RULES_SETTINGS, all_rules, rules_id
from rules_strategies import option_value, rule_documents

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
        "facebook-farkle": (6, 10000, False, 0, "optional"),
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
    for name, info in OPTIONS.items():
        assert info.name == name
        assert name in {f.name for f in dataclasses.fields(SECTIONS[info.section])}
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
        load_rules("dix-mille(entry=800)"),
        name="mine",
        summary="starts from dix-mille",  # its own table: not the base's words
        source=path,
        options=(),
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
    assert kinds[(5, 3)] == 300 + 2 * 400  # three + 400 per extra die
    assert kinds[(5, 2)] == 2000  # its face's override
    assert kinds[(6, 3)] == 2 * 1100  # double of five
    assert kinds[(6, 2)] == 2 * 2000
    assert kinds[(6, 1)] == "win"
    assert rules.scoring.patterns[1].thrown == 3
    assert rules.scoring.patterns[0].name == "straight 1-2-3-4-5-6"


# ------------------------------------------------------------------ errors


def test_unknown_option_suggests_a_name() -> None:
    err = error_of("dix-mille(jokr)")
    assert err.key == "jokr"
    assert "unknown option" in str(err)
    assert "did you mean 'joker'" in str(err)
    # typed in capitals: the name in its own case
    assert "did you mean 'joker'" in str(error_of("dix-mille(JOKER)"))
    assert "did you mean 'dix-mille'" in str(error_of("DIX-MILLE"))


@pytest.mark.parametrize(
    ("spec", "key", "words"),
    [
        ("dix-mille(bump=sideways)", "bump", "'sideways' is not one of off, current, any"),
        ("dix-mille(entry=abc)", "entry", "expected a whole number"),
        ("dix-mille(entry=-5)", "entry", "must be at least 0, got -5"),
        ("dix-mille(entry=--5)", "entry", "expected a whole number, got '--5'"),
        ("dix-mille(target=0)", "target", "must be at least 1, got 0"),
        ("dix-mille(target=-500)", "target", "must be at least 1, got -500"),
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
        ("cinq-mille(full_hand_win)", "turn.full_hand_win", "needs exact_target"),
        ("farkle(overshoot=throw_on)", "game.overshoot", "needs exact_target"),
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
        # a misspelled key is named before a key it leaves missing, and a key in the wrong
        # table says where it belongs from any table, [rules] too
        ('[rules]\nname = "x"\ndice = 5\n[game]\ntargte = 5000\n', "game.targte", "'target'"),
        ('[rules]\nname = "x"\ndice = 5\n[turn]\nentri = 300\n', "turn.entri", "'entry'"),
        (MINIMAL_FILE.replace("dice = 5", "entry = 300"), "rules.entry", "belongs in [turn]"),
        (MINIMAL_FILE + "[turn]\ndice = 6\n", "turn.dice", "belongs in [rules]"),
        (MINIMAL_FILE + "[scorin]\n", "scorin", "unknown section"),
        (MINIMAL_FILE + "[scoring]\nsingles = { 7 = 100 }\n", "scoring.singles.7", "not a face"),
        (MINIMAL_FILE + "[scoring.kinds]\n7 = 100\n", "scoring.kinds.7", "3, 4, 5 or 6"),
        (MINIMAL_FILE + "[scoring.kinds]\n6 = 100\n", "scoring.kinds.6", "with 5 dice"),
        (MINIMAL_FILE + '[scoring.kinds]\n3 = "lots"\n', "scoring.kinds.3", "not a kind rule"),
        # a key of [scoring] written after [scoring.kinds] or a pattern is that table's: the
        # error says where it belongs, as it does for a key in another section
        (
            MINIMAL_FILE + "[scoring.kinds]\n3 = 300\nthree_pairs = 1500\n",
            "scoring.kinds.three_pairs",
            "it belongs in [scoring]",
        ),
        (
            MINIMAL_FILE
            + "[[scoring.patterns]]\nfaces = [1, 2, 3]\npoints = 200\nfull_house = 'sum'\n",
            "scoring.patterns[0].full_house",
            "it belongs in [scoring]",
        ),
        (
            MINIMAL_FILE + "[scoring.kinds]\n3 = 300\nentry = 500\n",
            "scoring.kinds.entry",
            "it belongs in [turn]: write it under a [turn] header",
        ),
        (MINIMAL_FILE + "[scoring.kinds]\n2 = 50\n", "scoring.kinds.2", "faces = [2, 2]"),
        (
            MINIMAL_FILE + "[scoring.kinds]\n3 = { default = 300, first_throw = true }\n",
            "scoring.kinds.3.first_throw",
            "unknown key: a count's table holds default, thrown and faces 1 to 6",
        ),
        (MINIMAL_FILE + '[scoring.kinds]\n3 = "0 x face"\n', "scoring.kinds.3", "K is 1 or more"),
        (MINIMAL_FILE + '[scoring.kinds]\n3 = "lose"\n', "scoring.kinds.3", "loses the turn"),
        (MINIMAL_FILE + '[scoring.kinds]\n3 = "-500"\n', "scoring.kinds.3", "loses the turn"),
        # a hyphen is no minus: another formula, written face by face
        (
            MINIMAL_FILE + '[scoring.kinds]\n4 = "(n-3) x three"\n',
            "scoring.kinds.4",
            "face by face",
        ),
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


def test_a_file_saved_with_a_byte_order_mark_reads_as_without(tmp_path: Path) -> None:
    """Windows' Notepad starts UTF-8 with a byte order mark, which TOML read as a statement
    at line 1, column 1 ("not valid TOML" of a character no editor shows)."""
    (tmp_path / "bom.toml").write_bytes(b"\xef\xbb\xbf" + MINIMAL_FILE.encode())
    (tmp_path / "plain.toml").write_text(MINIMAL_FILE, encoding="utf-8")
    with_mark = load_rules(str(tmp_path / "bom.toml"))
    plain = load_rules(str(tmp_path / "plain.toml"))
    assert with_mark == dataclasses.replace(plain, source=with_mark.source)


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


# ------------------------------------------------------------------ the spec names what it is


def test_a_rule_set_parsed_from_text_keeps_its_options_in_its_spec() -> None:
    rules = load_rules("dix-mille(entry=800)")
    back = parse_rules_text(to_toml(rules))
    assert back.source == ""
    assert back.spec == "dix-mille(entry=800)"  # not "dix-mille", which loads entry 500
    assert dataclasses.replace(load_rules(back.spec), source="", options=()) == back


def test_a_rule_set_no_spec_can_load_says_so() -> None:
    # Not a preset with options: another name, or a change no option can make.
    house = parse_rules_text(to_toml(load_rules("dix-mille")).replace('"dix-mille"', '"house"', 1))
    assert house.spec == "<house>"
    kinds = dataclasses.replace(
        load_rules("dix-mille"),
        scoring=dataclasses.replace(load_rules("dix-mille").scoring, kinds=()),
    )
    assert kinds.spec == "<dix-mille>"
    renamed = dataclasses.replace(load_rules("greed"), name="not greed")
    assert renamed.spec == "<not greed>"
    for rules in (house, kinds, renamed):
        with pytest.raises(InvalidRulesError, match="cannot be loaded: write the rule set"):
            load_rules(rules.spec)
        # The canonical file round-trips instead.
        assert parse_rules_text(to_toml(rules), source=rules.source) == rules


def test_a_preset_changed_by_options_in_code_is_named_by_those_options() -> None:
    dix = load_rules("dix-mille")
    changed = dataclasses.replace(dix, game=dataclasses.replace(dix.game, target=5000))
    assert changed.options == ()  # nothing recorded, and still named right
    assert changed.spec == "dix-mille(target=5000)"
    assert load_rules(changed.spec) == dataclasses.replace(changed, options=(("target", 5000),))


@st.composite
def option_sets(draw: st.DrawFn) -> dict[str, Any]:
    """A few options with values of their type (many of them make an invalid rule set)."""
    names = draw(st.lists(st.sampled_from(sorted(OPTIONS)), min_size=1, max_size=4, unique=True))
    return {name: draw(option_value(name)) for name in names}


@pytest.mark.default_cases(3)
@pytest.mark.parametrize("preset", PRESETS)
@settings(
    RULES_SETTINGS,
    max_examples=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(values=option_sets())
def test_every_preset_with_options_round_trips_by_spec_and_by_toml(
    preset: str, values: dict[str, Any]
) -> None:
    try:
        rules = with_options(load_rules(preset), values)
    except InvalidRulesError:
        assume(False)
        return
    assert load_rules(rules.spec) == rules
    back = parse_rules_text(to_toml(rules))
    # Everything but where it came from: its source, its recorded options.
    assert dataclasses.replace(back, source=rules.source, options=rules.options) == rules
    # And its spec names the same rule set, never the bare preset.
    assert back.spec == rules.spec
    assert dataclasses.replace(load_rules(back.spec), source="", options=()) == back


# ------------------------------------------------------------------ extends names its key


def test_extends_an_unknown_name_names_the_key(tmp_path: Path) -> None:
    err = error_of(write(tmp_path / "a.toml", '[rules]\nextends = "nope"\n'))
    assert err.key == "rules.extends"
    assert str(err).startswith("rules.extends: nope: unknown preset")
    # The same through the API, with load_rules as the loader of the base.
    with pytest.raises(InvalidRulesError) as caught:
        parse_rules_text('[rules]\nextends = "nope"\n', load_base=load_rules)
    assert caught.value.key == "rules.extends"


def test_extends_with_options_says_they_belong_in_keys(tmp_path: Path) -> None:
    err = error_of(write(tmp_path / "a.toml", '[rules]\nextends = "dix-mille(joker)"\n'))
    assert err.key == "rules.extends"
    assert "without options" in str(err)
    assert 'write extends = "dix-mille"' in str(err)
    assert "joker = true under [variants]" in str(err)
    err = error_of(
        write(tmp_path / "b.toml", '[rules]\nextends = "dix-mille(bump=ANY,entry=800,jokr)"\n')
    )
    assert 'bump = "any" under [game]' in str(err)
    assert "entry = 800 under [turn]" in str(err)
    assert "jokr (not an option (did you mean 'joker'?))" in str(err)


def test_extends_a_file_that_cannot_be_read_names_the_key(tmp_path: Path) -> None:
    err = error_of(write(tmp_path / "a.toml", '[rules]\nextends = "missing.toml"\n'))
    assert err.key == "rules.extends"
    assert "cannot read the rule file" in str(err)
    assert "missing.toml" in str(err)


def test_an_error_in_an_extended_file_names_the_files(tmp_path: Path) -> None:
    base = write(tmp_path / "base.toml", MINIMAL_FILE + "[turn]\nentri = 5\n")
    mid = write(tmp_path / "mid.toml", '[rules]\nextends = "base.toml"\n')
    top = write(tmp_path / "top.toml", '[rules]\nextends = "mid.toml"\n')
    err = error_of(top)
    assert err.key == "turn.entri"
    assert err.chain == (base, mid, top)
    line = MINIMAL_FILE.count("\n") + 2  # entri, under [turn]
    assert err.line == line
    assert str(err).startswith(
        f"in {base}, line {line}, extended by {mid}, extended by {top}: turn.entri:"
    )
    # The file given itself is not named: the mistake is in the file you gave.
    assert str(error_of(base)).startswith("turn.entri: unknown key")
    assert error_of(base).line == line


# ------------------------------------------------------------------ files that cannot be played


def test_a_file_where_nothing_can_score_is_refused(tmp_path: Path) -> None:
    err = error_of(write(tmp_path / "a.toml", MINIMAL_FILE + "[scoring]\nsingles = {}\n"))
    assert err.key == "scoring"
    assert "nothing can ever score" in str(err)
    # One combination is enough.
    text = (
        MINIMAL_FILE
        + "[scoring]\nsingles = {}\n[[scoring.patterns]]\nfaces = [1, 2]\npoints = 50\n"
    )
    assert load_rules(write(tmp_path / "b.toml", text)).scoring.singles == ()


def test_two_patterns_with_the_same_faces_are_refused(tmp_path: Path) -> None:
    text = MINIMAL_FILE + (
        '[[scoring.patterns]]\nname = "run"\nfaces = [1, 2, 3]\npoints = 200\n'
        '[[scoring.patterns]]\nname = "little straight"\nfaces = [3, 1, 2]\npoints = 300\n'
    )
    err = error_of(write(tmp_path / "a.toml", text))
    assert err.key == "scoring.patterns[1]"
    assert "'little straight' has the same faces (1 2 3) as scoring.patterns[0] 'run'" in str(err)


@pytest.mark.parametrize(
    ("spec", "key", "words"),
    [
        # T-6: every bank is a multiple of 100, so 2050 can never be hit (the unit is 50).
        ("dix-mille(target=2050)", "game.target", "multiple of 100"),
        ("charentaise(target=9950)", "game.target", "multiple of 100"),
        # T-7 / T-9: the first bank would always pass an exact target.
        ("dix-mille(target=400)", "turn.entry", "above the exact target 400"),
        ("dix-mille(target=1000,min_bank=1500)", "turn.min_bank", "above the exact target"),
        # T-7 by one throw: no throw of dix-mille is worth more than five 1s, 4000.
        ("dix-mille(entry_by=throw,entry=5000)", "turn.entry", "more than 4000"),
        # greed: five 1s are three 1s and two single 1s, 1200, the most of any throw.
        ("greed(entry_by=throw,entry=1250)", "turn.entry", "more than 1200"),
    ],
)
def test_rule_sets_that_could_never_end_are_refused(spec: str, key: str, words: str) -> None:
    err = error_of(spec)
    assert f"{key}: " in str(err)
    assert words in str(err)


@pytest.mark.parametrize(
    "spec",
    [
        "dix-mille(target=2000)",
        "dix-mille(target=500)",  # entry 500 = target: one bank of 500 wins
        "dix-mille(exact_target=false,target=400)",  # not exact: the first bank passes it
        "dix-mille(target=2050,bank_multiple_of_100=false)",
        "dix-mille(target=2050,farkle_penalty=50)",  # a penalty of 50 moves scores off 100s
        "dix-mille(entry_by=throw,entry=4000)",  # five 1s
        "dix-mille(entry_by=throw,entry=5000,five_ones_win)",  # a throw wins (G-5)
        "dix-mille-6(entry=7000)",  # six 1s win the game
        "greed(entry_by=throw,entry=1200)",  # five 1s: 1000 + 100 + 100
    ],
)
def test_rule_sets_that_can_end_still_load(spec: str) -> None:
    assert load_rules(spec).spec


# ------------------------------------------------------------------ the T-7 and G-3 readings


def test_g3_t7_reading_options_default_to_the_readings_of_rules_md() -> None:
    for name in PRESETS:
        game = load_rules(name).game
        assert (game.ticks_restart, game.reentry) == (True, True), name


def test_g3_t7_reading_options_switch_by_name_and_by_file(tmp_path: Path) -> None:
    rules = load_rules("dix-mille(ticks_restart=false,reentry=false)")
    assert (rules.game.ticks_restart, rules.game.reentry) == (False, False)
    assert rules.spec == "dix-mille(reentry=false,ticks_restart=false)"
    assert load_rules(rules.spec) == rules
    text = '[rules]\nextends = "dix-mille"\n[game]\nticks_restart = false\nreentry = false\n'
    from_file = load_rules(write(tmp_path / "a.toml", text))
    assert (from_file.game.ticks_restart, from_file.game.reentry) == (False, False)
    assert "ticks_restart = false" in to_toml(rules) and "reentry = false" in to_toml(rules)
    err = error_of(write(tmp_path / "b.toml", MINIMAL_FILE + "[turn]\nreentry = false\n"))
    assert "belongs in [game]" in str(err)
    assert "expected true or false" in str(error_of("dix-mille(reentry=maybe)"))


# ------------------------------------------------------------------ small things of specs


def test_choice_words_are_read_in_any_case(tmp_path: Path) -> None:
    assert load_rules("dix-mille(bump=ANY)") == load_rules("dix-mille(bump=any)")
    assert load_rules("dix-mille(full_hand=Optional)").turn.full_hand == "optional"
    text = '[rules]\nextends = "dix-mille"\n[game]\nbump = "Any"\n'
    assert load_rules(write(tmp_path / "a.toml", text)).game.bump == "any"
    err = error_of("dix-mille(bump=CURENT)")
    assert "'CURENT' is not one of off, current, any (did you mean 'current'?)" in str(err)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("dix-mille(,)", "an empty option"),
        ("dix-mille(joker,)", "an empty option"),
        ("dix-mille(,joker)", "an empty option"),
        ("dix-mille(joker,,entry=800)", "an empty option"),
        ("dix-mille(=800)", "an option with no name"),
    ],
)
def test_empty_options_are_refused(spec: str, words: str) -> None:
    assert words in str(error_of(spec))


def test_three_plus_k_per_extra_die(tmp_path: Path) -> None:
    """The kind rule "three + K per extra die": the same face's three and K for each die past
    three, written with or without spaces, x, and "x extra"; K must be positive and small
    enough, and three of that face must score."""
    times = "\u00d7"  # the multiplication sign, read as x
    for written in (
        "three + 250 per extra die",
        "Three+250 per  extra die",
        f"three + 250 {times} extra",
    ):
        text = MINIMAL_FILE + f'[scoring.kinds]\n3 = "100 x face"\n4 = "{written}"\n'
        rules = load_rules(write(tmp_path / "ok.toml", text))
        assert rules.scoring.kinds[1].default == "three + 250 per extra die"
        assert rules.kinds_values()[(4, 6)] == 600 + 250
    text = MINIMAL_FILE + '[scoring.kinds]\n3 = { default = "100 x face", 2 = "none" }\n'
    err = error_of(write(tmp_path / "bad.toml", text + '4 = "three + 100 per extra die"\n'))
    assert "four 2s: 'three + 100 per extra die' needs three 2s" in str(err)
    for bad in ("three + 0 per extra die", "three + -5 per extra die", "three plus 100"):
        text = MINIMAL_FILE + f'[scoring.kinds]\n4 = "{bad}"\n'
        err = error_of(write(tmp_path / "bad.toml", text))
        assert err.key == "scoring.kinds.4" and '"three + K per extra die"' in str(err), bad
    # K is refused by what it makes, not by three times itself: four 6s at 40,600 load.
    fine = MINIMAL_FILE + '[scoring.kinds]\n3 = "100 x face"\n4 = "three + 40000 per extra die"\n'
    assert load_rules(write(tmp_path / "fine.toml", fine)).kinds_values()[(4, 6)] == 40600
    huge = MINIMAL_FILE + '[scoring.kinds]\n3 = 100\n4 = "three + 99999 per extra die"\n'
    huge += '5 = "three + 99999 per extra die"\n'
    assert "100000" in str(error_of(write(tmp_path / "huge.toml", huge))).replace(",", "")


def test_three_of_a_kind_cannot_double(tmp_path: Path) -> None:
    for rule in ('"double"', '"(n-2) x three"', '"three + 100 per extra die"'):
        text = MINIMAL_FILE + f"[scoring.kinds]\n3 = {rule}\n"
        err = error_of(write(tmp_path / "bad.toml", text))
        assert err.key == "scoring.kinds"
        assert "three of a kind cannot" in str(err)
        assert "there is no smaller kind" in str(err)


def test_load_preset_plays_presets_with_options_and_never_opens_a_file(tmp_path: Path) -> None:
    """A spec from elsewhere (a server's client, an uploaded record) names a preset, never a
    file: refused before anything is opened (a FIFO would make a reader wait for ever)."""
    import os

    from zloutch.rules import load_preset

    assert load_preset("greed(target=500)") == load_rules("greed(target=500)")
    fifo = tmp_path / "rules.toml"
    os.mkfifo(fifo)
    for spec in (str(fifo), f"{fifo}(target=500)", "rules/x", "house.toml"):
        with pytest.raises(InvalidRulesError, match="never a file on this machine"):
            load_preset(spec)
    with pytest.raises(InvalidRulesError, match="unknown preset"):
        load_preset("dix-mile")


def test_a_rule_file_target_below_1_says_the_least_target() -> None:
    for value in (0, -3000):
        text = f'[rules]\nextends = "farkle"\n[game]\ntarget = {value}\n'
        with pytest.raises(
            InvalidRulesError, match=f"game.target: must be at least 1, got {value}"
        ):
            parse_rules_text(text, load_base=load_rules)


def test_a_rule_file_named_without_toml_is_pointed_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "house.toml").write_text('[rules]\nextends = "farkle"\n')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidRulesError, match=r"the rule file is written house\.toml"):
        load_rules("house")
    with pytest.raises(InvalidRulesError, match="presets: "):  # no such file: the presets listed
        load_rules("home")


def test_switching_the_exact_target_off_says_what_else_to_switch_off() -> None:
    with pytest.raises(InvalidRulesError, match="overshoot=throw_on needs exact_target"):
        load_rules("dix-mille(overshoot=throw_on,exact_target=false)")
    assert not load_rules("dix-mille(exact_target=false)").game.exact_target


def test_what_a_files_singles_and_patterns_drop_of_its_base_is_said(tmp_path: Path) -> None:
    """singles and [[scoring.patterns]] replace the base's whole (the format's page says
    so): a file that extends farkle to add one pattern lost farkle's straight unseen."""
    from zloutch.rules.loader import dropped_from_base

    (tmp_path / "sub").mkdir()
    added = write(
        tmp_path / "sub" / "added.toml",
        '[rules]\nname = "added"\nextends = "farkle"\n[scoring]\nsingles = { 1 = 100 }\n'
        "[[scoring.patterns]]\nfaces = [1, 2, 4]\npoints = 500\n",
    )
    notes = dropped_from_base(load_rules(added))
    assert notes == (
        "[[scoring.patterns]] replaces the list of farkle whole: straight 1-6 (1500) is not "
        "in this rule set (repeat those the table keeps)",
        "singles replaces the table of farkle whole: the single 5 (50) scores nothing here "
        "(repeat those the table keeps)",
    )
    kept = write(  # the straight repeated, the singles left alone: nothing dropped
        tmp_path / "kept.toml",
        '[rules]\nname = "kept"\nextends = "farkle"\n[[scoring.patterns]]\nfaces = [1, 2, 4]\n'
        "points = 500\n[[scoring.patterns]]\nfaces = [1, 2, 3, 4, 5, 6]\npoints = 1500\n",
    )
    assert dropped_from_base(load_rules(kept)) == ()
    # a file that extends a file (relative to its folder) and writes no list: nothing
    child = write(tmp_path / "sub" / "child.toml", '[rules]\nextends = "added.toml"\n')
    assert dropped_from_base(load_rules(child)) == ()
    assert dropped_from_base(load_rules("farkle")) == ()


@pytest.mark.parametrize(
    ("table", "key", "words", "not_words"),
    [
        (
            "[scoring]\nfull_house_points = 1500",
            "full_house_points",
            "[[scoring.patterns]]",
            "full_house_pair",
        ),
        ("[scoring]\nhot_dice_bonus = 1000", "hot_dice_bonus", "cannot be written", "did you mean"),
        ("[turn]\nmin_keep = 300", "min_keep", "a least keep cannot be written", "did you mean"),
        ("[scoring]\nstraight = 1500", "straight", "faces = [1, 2, 3, 4, 5, 6]", "did you mean"),
        ("[scoring]\nfour_of_a_kind = 1000", "four_of_a_kind", "[scoring.kinds]", "did you mean"),
        ("[game]\nexact = true", "exact", "exact_target", "did you mean"),
        ("[turn]\nhot_dice = 'forced'", "hot_dice", 'full_hand = "forced"', "did you mean"),
        ("[turn]\nopening_score = 500", "opening_score", "entry (T-7)", "did you mean"),
        (
            "[[scoring.patterns]]\nfaces = [1, 2, 3, 4, 5, 6]\npoints = 1500\nfirst_throw = true",
            "first_throw",
            "thrown = the number of dice",
            "did you mean",
        ),
    ],
)
def test_a_key_of_another_tables_rules_says_what_this_format_writes(
    tmp_path: Path, table: str, key: str, words: str, not_words: str
) -> None:
    """Keys other tables' rules use: the key nearest in spelling misled (full_house_points
    suggested full_house_pair, a pair's multiple; hot_dice_bonus no_score_bonus, which pays
    for the opposite), so each says what this format writes instead, or that it cannot."""
    path = write(tmp_path / "house.toml", f'[rules]\nextends = "farkle"\nname = "house"\n{table}\n')
    message = str(error_of(path))
    assert key in message and "unknown key" in message
    assert words in message and not_words not in message


def test_an_option_of_another_tables_rules_in_a_spec_says_what_to_write() -> None:
    assert "exact_target (T-9)" in str(error_of("farkle(exact)"))
    assert "did you mean 'joker'" in str(error_of("farkle(jokr)"))


def test_a_penalty_off_the_rule_sets_step_is_refused_for_either_penalty() -> None:
    """fresh_farkle_penalty = 75 was refused, farkle_penalty = 75 taken (and the fast path
    then refused to play it): both keep the scores on the step."""
    for option in ("farkle_penalty", "fresh_farkle_penalty"):
        message = str(error_of(f"zilch({option}=520)"))
        assert f"turn.{option}: 520 is off the rule set's step of 50 points" in message


def test_a_per_face_kind_table_without_default_says_what_it_drops(tmp_path: Path) -> None:
    """``3 = { 1 = 1000 }`` in a file that extends farkle (three 1s worth 1000) leaves three
    2s to 6s worth nothing, as documented, and nothing said it: rules show and score do."""
    from typer.testing import CliRunner

    from zloutch.adapters.cli import app
    from zloutch.rules.loader import dropped_from_base

    path = write(
        tmp_path / "ones.toml",
        '[rules]\nextends = "farkle"\nname = "ones"\n[scoring.kinds]\n3 = { 1 = 1000 }\n',
    )
    notes = dropped_from_base(load_rules(path))
    assert notes == (
        "[scoring.kinds] 3 replaces farkle's three of a kind whole: without a default, three "
        '2/3/4/5/6s score nothing here (farkle: 100 x face; write default = "100 x face" in '
        "the table to keep it)",
    )
    kept = write(
        tmp_path / "kept.toml",
        '[rules]\nextends = "farkle"\nname = "kept"\n[scoring.kinds]\n'
        '3 = { 1 = 1000, default = "100 x face" }\n',
    )
    assert dropped_from_base(load_rules(kept)) == ()
    result = CliRunner().invoke(app, ["score", "-r", path, "2", "2", "2", "3", "4", "6"])
    assert result.exit_code == 0
    assert "scores nothing" in result.stdout
    assert result.stderr.startswith("note: [scoring.kinds] 3 replaces farkle's three of a kind")


def test_thrown_written_for_every_count_or_as_a_word_says_where_and_what(tmp_path: Path) -> None:
    """``thrown = 6`` under [scoring.kinds] answered "the count of a kind must be 3, 4, 5 or
    6"; ``thrown = "first"`` answered "expected a whole number", neither saying what to do."""
    head = '[rules]\nextends = "farkle"\nname = "x"\n'
    for_all = str(error_of(write(tmp_path / "a.toml", head + "[scoring.kinds]\nthrown = 6\n")))
    assert "scoring.kinds.thrown: unknown key: thrown is written in a count's table" in for_all
    word = str(
        error_of(
            write(
                tmp_path / "b.toml",
                head + "[[scoring.patterns]]\nfaces = [1, 2, 3, 4, 5, 6]\npoints = 1500\n"
                'thrown = "first"\n',
            )
        )
    )
    assert "expected a whole number of dice thrown (0: any throw), got 'first'" in word
    assert "turn's first throw cannot be written" in word


def test_what_an_earlier_version_stored_with_an_option_that_cannot_act_still_loads() -> None:
    """A record or a stored game names its rule set by the spec it was played with; an
    earlier version took ``dix-mille(joker_keeps_points)`` (no joker: it changed nothing),
    which is now refused as written by a person. Read back as stored, it is the rule set it
    was played with, and the mistakes a person is told of are not asked again of it."""
    from zloutch.rules.loader import with_options

    stored = load_rules("dix-mille(joker_keeps_points)", stored=True)
    assert stored == load_rules("dix-mille") and stored.spec == "dix-mille"
    with pytest.raises(InvalidRulesError, match="needs joker"):
        load_rules("dix-mille(joker_keeps_points)")
    assert load_rules("zilch(farkle_penalty=520)", stored=True).turn.farkle_penalty == 520
    # an option switched off under one inherited: the spec says what is in force, and loads
    layered = with_options(load_rules("farkle(joker,joker_keeps_points)"), {"joker": False})
    assert layered.spec == "farkle" and load_rules(layered.spec) == layered


def test_the_canonical_file_of_a_rule_set_built_in_code_loads_back() -> None:
    """``to_toml`` of a rule set changed in code with an option that cannot act wrote it,
    and the loader refused the file: it writes the rule set as the loader gives it."""
    from zloutch.rules import to_toml

    built = load_rules("farkle").replace_options({"fallback_bumps": True})
    back = parse_rules_text(to_toml(built))
    assert back.game.fallback_bumps is False
    assert dataclasses.replace(back, source="farkle") == built.settled()


def test_the_sheet_blind_model_keeps_what_a_taken_back_turn_reads() -> None:
    """The model of a game with take-back is the game without it, and values a turn of the
    full game taken back: ``take_back_counts_for_entry`` is dormant there but read, so it is
    not reset with the options nothing reads (the optimal bot then valued a taken-back turn
    as if its points counted toward entry, and chose other keeps than the fast path)."""
    from zloutch.strategy.game_solver import sheet_blind

    rules = load_rules("dix-mille(take_back_counts_for_entry=false,target=2000)")
    model = sheet_blind(rules)
    assert model is not None and not model.game.take_back
    assert model.game.take_back_counts_for_entry is False
    assert load_rules(model.spec) == model
    assert "take_back_counts_for_entry" in model.dormant_options() - model.inert_options()
