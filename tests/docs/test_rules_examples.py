"""The rule-file reference (docs/rules-format.md) and its example files.

Every example file in docs/examples/rules/ loads, and the worked scores written in its opening
comment are what the scorer says. Expected values are worked out by hand from each file's
rules (F-5, S-2..S-16, T-2), never copied from the program's output.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from zloutch.engine.endings import load_rules, parse_rules_text
from zloutch.rules import (
    IllegalKeepError,
    InvalidRulesError,
    RuleSet,
    score_throw,
    to_toml,
    validate_keep,
)
from zloutch.rules.ruleset import OPTIONS, SECTIONS

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules-format.md"
EXAMPLES = ROOT / "docs" / "examples" / "rules"


def example(name: str, options: str = "") -> RuleSet:
    """The example file ``name`` (without .toml), loaded by path, with spec options."""
    path = EXAMPLES / f"{name}.toml"
    return load_rules(f"{path}({options})" if options else str(path))


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- whole throws

# (example file, throw, points of the whole throw), as worked in each file's comment.
WHOLE_THROWS = [
    # three 1s = 1000, other threes 100 x face; no other multiple (S-3, S-11)
    ("three-ones-1000", (1, 1, 1, 3, 4), 1000),
    ("three-ones-1000", (1, 1, 1, 1, 5), 1000 + 100 + 50),
    ("three-ones-1000", (2, 2, 2, 5, 1), 200 + 50 + 100),
    ("three-ones-1000", (6, 6, 6, 6, 3), 600),
    # every three 100 x face, three 1s = 300
    ("three-ones-300", (1, 1, 1, 3, 4), 300),
    ("three-ones-300", (1, 1, 1, 5, 5), 300 + 50 + 50),
    ("three-ones-300", (5, 5, 5, 1, 2), 500 + 100),
    ("three-ones-300", (1, 1, 1, 1, 2), 300 + 100),
    # doubling
    ("kinds-double", (4, 4, 4, 4, 2, 3), 2 * 400),
    ("kinds-double", (3, 3, 3, 3, 3, 2), 2 * 2 * 300),
    ("kinds-double", (2, 2, 2, 2, 2, 2), 2 * 2 * 2 * 200),
    ("kinds-double", (1, 1, 1, 1, 5, 6), 2 * 1000 + 50),
    # (n - 2) x three
    ("kinds-n-minus-2", (4, 4, 4, 4, 2, 3), 2 * 400),
    ("kinds-n-minus-2", (3, 3, 3, 3, 3, 2), 3 * 300),
    ("kinds-n-minus-2", (6, 6, 6, 6, 6, 6), 4 * 600),
    ("kinds-n-minus-2", (1, 1, 1, 1, 1, 5), 3 * 1000 + 50),
    ("kinds-full-throw", (2, 2, 2, 3, 4), 200),
    ("kinds-full-throw", (1, 1, 1, 5), 100 + 100 + 100 + 50),
    ("kinds-full-throw", (2, 2, 2, 5), 50),
    ("kinds-full-throw", (1, 2, 3, 4, 5), 1500),
    ("kinds-full-throw", (3, 3, 3, 3, 3), 3000),
    ("kinds-three-plus", (2, 2, 2, 2, 3, 4), 200 + 500),
    ("kinds-three-plus", (1, 1, 1, 1, 1, 3), 1000 + 2 * 500),
    ("kinds-three-plus", (6, 6, 6, 6, 6, 6), 600 + 3 * 500),
    ("kinds-three-plus", (5, 5, 5, 5, 1, 2), 500 + 500 + 100),
    # flat 1000 / 2000 / 3000
    ("kinds-flat", (2, 2, 2, 2, 3, 4), 1000),
    ("kinds-flat", (1, 1, 1, 1, 5, 5), 1000 + 50 + 50),
    ("kinds-flat", (6, 6, 6, 6, 6, 1), 2000 + 100),
    ("kinds-flat", (3, 3, 3, 3, 3, 3), 3000),
    # 1000 x face; five 1s read better as three 1s and two singles
    ("kinds-1000-x-face", (3, 3, 3, 3, 3), 3 * 1000),
    ("kinds-1000-x-face", (6, 6, 6, 6, 6), 6 * 1000),
    ("kinds-1000-x-face", (1, 1, 1, 1, 1), 1000 + 100 + 100),
    ("kinds-1000-x-face", (4, 4, 4, 4, 5), 400 + 50),
    # explicit value per face and count
    ("kinds-per-face", (6, 6, 6, 6, 2), 1500),
    ("kinds-per-face", (3, 3, 3, 3, 2), 300),
    ("kinds-per-face", (5, 5, 5, 5, 2), 1000),
    ("kinds-per-face", (1, 1, 1, 1, 1), 3000),
    # five 5s = 5000, no four of a kind (five 1s: see test_five_ones_win)
    ("kinds-win", (5, 5, 5, 5, 5), 5000),
    ("kinds-win", (1, 1, 1, 1, 2), 1000 + 100),
    ("kinds-win", (2, 2, 2, 2, 2), 200),
    # not a combination: decomposition (S-11)
    ("kinds-none", (2, 2, 2, 2, 5), 200 + 50),
    ("kinds-none", (1, 1, 1, 1, 3), 1000 + 100),
    ("kinds-none", (5, 5, 5, 5, 5), 500 + 50 + 50),
    # runs and straights
    ("straights", (1, 2, 3, 4, 5, 6), 1500),
    ("straights", (1, 2, 3, 4, 5, 5), 500 + 50),
    ("straights", (2, 2, 3, 3, 4, 4), 200 + 200),
    ("straights", (4, 5, 6, 1, 1, 2), 200 + 100 + 100),
    # three pairs 750, four + pair and six of a kind counting
    ("three-pairs", (2, 3, 3, 6, 6, 2), 750),
    ("three-pairs", (1, 1, 5, 5, 4, 4), 750),
    ("three-pairs", (2, 2, 2, 2, 6, 6), 750),
    ("three-pairs", (3, 3, 3, 3, 3, 3), 750),
    # four of a kind + a pair 1500
    ("four-and-pair", (3, 3, 3, 3, 6, 6), 1500),
    ("four-and-pair", (1, 1, 1, 1, 5, 5), 1500),
    ("four-and-pair", (4, 4, 4, 4, 5, 6), 1000 + 50),
    ("four-and-pair", (2, 2, 2, 2, 2, 2), 3000),
    # two triplets 2500
    ("two-triplets", (2, 2, 2, 3, 3, 3), 2500),
    ("two-triplets", (1, 1, 1, 5, 5, 5), 2500),
    ("two-triplets", (4, 4, 4, 4, 4, 4), 400 + 400),
    # full house, S-13
    ("full-house-sum", (2, 2, 2, 6, 6), 200 + 50 * 6),
    ("full-house-sum", (1, 1, 1, 4, 4), 1000 + 50 * 4),
    ("full-house-sum", (5, 5, 5, 1, 1), 500 + 100 + 100),
    # full house, S-14
    ("full-house-times", (6, 6, 6, 3, 3), 600 * 3),
    ("full-house-times", (1, 1, 1, 2, 2), 1000 * 2),
    ("full-house-times", (4, 4, 4, 5, 5), 400 * 5),
    ("full-house-times", (3, 3, 3, 1, 1), 300 + 100 + 100),
    # 421 on exactly three dice (S-15)
    ("four-two-one-pattern", (4, 2, 1), 2000),
    ("four-two-one-pattern", (4, 2, 1, 3, 6), 100),
    ("four-two-one-variant", (1, 2, 4), 2000),
    ("four-two-one-variant", (1, 2, 4, 6, 6), 100),
    ("four-two-one-variant", (1, 1, 1, 2, 4), 1000),
    # no-score bonus on six dice (F-2)
    ("no-score-bonus", (2, 3, 4, 4, 6, 6), 500),
    ("no-score-bonus", (2, 3, 4, 4, 6, 1), 100),
    # keep rules do not change what the whole throw is worth
    ("keep-free-choice", (1, 1, 5, 5, 4), 100 + 100 + 50 + 50),
    ("keep-all-scoring", (1, 1, 5, 5, 4), 100 + 100 + 50 + 50),
    ("keep-all-scoring", (5, 5, 5, 1, 2), 500 + 100),
    ("keep-all-scoring", (2, 2, 2, 2, 5), 2 * 200 + 50),
    ("keep-all-scoring-jokers", (1, 1, 5, 5, 4), 100 + 100 + 50 + 50),
    ("keep-all-scoring-jokers", (5, 5, 5, 1, 2), 500 + 100),
    ("keep-whole-multiples", (2, 2, 2, 2, 3), 2 * 200),
    # a preset with overrides
    ("extends-preset", (2, 2, 2, 6, 6), 200 + 50 * 6),
    ("extends-preset", (6, 6, 6, 6, 6), 2 * 2 * 600),
    ("extends-preset", (1, 2, 3, 4, 5), 1500),
]


@pytest.mark.parametrize(("name", "throw", "points"), WHOLE_THROWS)
def test_worked_whole_throw_scores(name: str, throw: tuple[int, ...], points: int) -> None:
    result = score_throw(example(name), throw)
    assert not result.farkle
    assert result.points == points


def example_names() -> list[str]:
    return sorted(p.stem for p in EXAMPLES.glob("*.toml"))


@pytest.mark.parametrize("name", example_names())
def test_example_file_loads_and_explains_itself(name: str) -> None:
    text = (EXAMPLES / f"{name}.toml").read_text(encoding="utf-8")
    assert text.startswith("# "), "an example opens with a comment that says what it shows"
    rules = example(name)
    assert rules.source.endswith(f"{name}.toml")
    assert load_rules(rules.spec) == rules
    assert f"`{name}.toml`" in doc_text(), "every example is listed in the reference"


def test_every_example_file_has_worked_scores_checked() -> None:
    checked = {name for name, _, _ in WHOLE_THROWS} | {
        "keep-whole-multiples",
        "keep-every-multiple",
        "overshoot-throw-on",
        "blank-first-throw",
    }
    assert set(example_names()) == checked


def test_there_is_an_example_for_every_shape_of_f5() -> None:
    shapes = {
        "three-ones-1000",
        "three-ones-300",
        "kinds-double",
        "kinds-n-minus-2",
        "kinds-three-plus",
        "kinds-full-throw",
        "kinds-flat",
        "kinds-1000-x-face",
        "kinds-per-face",
        "kinds-win",
        "kinds-none",
        "straights",
        "three-pairs",
        "four-and-pair",
        "two-triplets",
        "full-house-sum",
        "full-house-times",
        "four-two-one-pattern",
        "four-two-one-variant",
        "no-score-bonus",
        "keep-free-choice",
        "keep-all-scoring",
        "keep-all-scoring-jokers",
        "keep-whole-multiples",
        "keep-every-multiple",
        "extends-preset",
    }
    assert shapes <= set(example_names())


# ---------------------------------------------------------------------------- shapes in detail


def test_kinds_only_on_a_throw_of_all_the_dice() -> None:
    """``thrown`` in a kind rule's table: 2 2 2 on four dice thrown is no combination, so a
    keep of them is refused and 2 2 2 3 is a farkle; written back, the file says the same."""
    rules = example("kinds-full-throw")
    assert score_throw(rules, (2, 2, 2, 3)).farkle
    with pytest.raises(IllegalKeepError, match="do not score"):
        validate_keep(rules, (2, 2, 2, 5), (2, 2, 2, 5))
    assert [k.dice for k in score_throw(rules, (2, 2, 2, 3, 4)).keeps] == [(2, 2, 2)]
    written = to_toml(rules)
    assert '3 = { default = "100 x face", 1 = 1000, thrown = 5 }' in written
    assert parse_rules_text(written).scoring == rules.scoring
    for bad, words in (("thrown = 2", "thrown, 3 to 5"), ("thrown = 6", "thrown, 3 to 5")):
        text = (EXAMPLES / "kinds-full-throw.toml").read_text().replace("thrown = 5 }", f"{bad} }}")
        with pytest.raises(InvalidRulesError, match=words):
            parse_rules_text(text)


def test_six_of_a_kind_as_two_triplets() -> None:
    """F-5: a table that counts six of a kind as two triplets (the example file's comment)."""
    plain = score_throw(example("two-triplets"), (4,) * 6)
    assert plain.points == 400 + 400
    rules = example("two-triplets", "six_of_a_kind_as_two_triplets")
    result = score_throw(rules, (4,) * 6)
    assert result.points == 2500
    assert result.best is not None and result.best.dice == (4,) * 6
    assert score_throw(rules, (2, 2, 2, 3, 3, 3)).points == 2500  # still two triplets
    # Without two_triplets the switch has nothing to count six of a kind as: it is refused
    # as a mistake, not taken and ignored.
    with pytest.raises(InvalidRulesError, match="needs two_triplets"):
        load_rules("dix-mille-6(six_of_a_kind_as_two_triplets)")


def test_five_ones_win() -> None:
    result = score_throw(example("kinds-win"), (1, 1, 1, 1, 1))
    assert result.best is not None
    assert result.best.wins
    assert result.best.dice == (1, 1, 1, 1, 1)
    assert result.best.points == 0  # a win carries no points


def test_documented_wins_and_their_points() -> None:
    """The reference's "A win": the win first, and the whole throw's most points (G-5, S-5)."""
    text = " ".join(doc_text().split())
    cases = [
        ("cinq-mille", (1,) * 5, 1000 + 100 + 100, "1000 + 100 + 100 = 1200"),
        ("dix-mille(five_ones_win)", (1,) * 5, 4000, "are still worth 4000"),
        ("dix-mille-6", (1,) * 6, 4000 + 100, "4000 + 100 = 4100"),
    ]
    for spec, throw, points, words in cases:
        assert words in text
        result = score_throw(load_rules(spec), throw)
        assert result.best is not None and result.best.wins
        assert result.points == points
    # With its five 1s a win by their kind rule, kinds-win reads them as 1000 + 100 + 100.
    assert score_throw(example("kinds-win"), (1, 1, 1, 1, 1)).points == 1200


def test_five_ones_win_in_a_file_that_extends_a_preset() -> None:
    result = score_throw(example("extends-preset"), (1, 1, 1, 1, 1))
    assert result.best is not None
    assert result.best.wins


def test_a_count_that_is_none_leaves_its_extra_die_unkept() -> None:
    rules = example("kinds-none")
    with pytest.raises(IllegalKeepError) as exc:
        validate_keep(rules, (2, 2, 2, 2, 5), (2, 2, 2, 2))
    assert "the 2 does not score" in str(exc.value)
    assert validate_keep(rules, (2, 2, 2, 2, 5), (2, 2, 2, 5)).points == 250


def test_three_pairs_flags_can_be_switched_off_on_the_file() -> None:
    no_four = example("three-pairs", "four_and_pair_as_three_pairs=false")
    assert score_throw(no_four, (2, 2, 2, 2, 6, 6)).points == 200
    no_six = example("three-pairs", "six_of_a_kind_as_three_pairs=false")
    assert score_throw(no_six, (3, 3, 3, 3, 3, 3)).points == 300 + 300


def test_six_ones_are_two_threes_rather_than_three_pairs() -> None:
    assert score_throw(example("three-pairs"), (1, 1, 1, 1, 1, 1)).points == 1000 + 1000


def test_four_two_one_counts_only_on_three_thrown_dice_and_is_a_full_hand() -> None:
    for name in ("four-two-one-pattern", "four-two-one-variant"):
        result = score_throw(example(name), (4, 2, 1))
        assert result.best is not None
        assert result.best.dice == (1, 2, 4)
        assert result.best.full_hand
    assert score_throw(example("four-two-one-pattern"), (4, 2, 2)).farkle


def test_four_two_one_variant_is_dix_mille_with_the_switch() -> None:
    assert example("four-two-one-variant").variants.four_two_one
    assert load_rules("dix-mille(four_two_one)").variants.four_two_one
    assert score_throw(load_rules("dix-mille(four_two_one)"), (1, 2, 4)).points == 2000


def test_no_score_bonus_only_on_all_six_dice() -> None:
    rules = example("no-score-bonus")
    six = score_throw(rules, (2, 3, 4, 4, 6, 6))
    assert not six.farkle
    assert six.best is not None
    assert six.best.full_hand
    assert six.best.dice == (2, 3, 4, 4, 6, 6)
    five = score_throw(rules, (2, 3, 4, 6, 6))
    assert five.farkle
    assert five.points == 0


# ---------------------------------------------------------------------------- keep rules


def test_free_choice_keeps() -> None:
    rules = example("keep-free-choice")
    assert validate_keep(rules, (1, 1, 5, 5, 4), (1,)).points == 100
    with pytest.raises(IllegalKeepError) as exc:
        validate_keep(rules, (1, 1, 5, 5, 4), (1, 4))
    assert "the 4 does not score" in str(exc.value)
    keeps = score_throw(rules, (5, 5, 5, 1, 2)).keeps
    assert len(keeps) == 7  # the 5s 0 to 3 times, the 1 or not, not nothing
    assert validate_keep(rules, (5, 5, 5, 1, 2), (5,)).points == 50
    assert validate_keep(rules, (5, 5, 5, 1, 2), (5, 5, 5, 1)).points == 600


def test_keep_all_scoring_keeps() -> None:
    rules = example("keep-all-scoring")
    only = {
        (1, 1, 5, 5, 4): ((1, 1, 5, 5), 300),
        (5, 5, 5, 1, 2): ((1, 5, 5, 5), 600),
        (2, 2, 2, 2, 5): ((2, 2, 2, 2, 5), 450),
    }
    for throw, (dice, points) in only.items():
        keeps = score_throw(rules, throw).keeps
        assert [(k.dice, k.points) for k in keeps] == [(dice, points)]
    with pytest.raises(IllegalKeepError) as exc:
        validate_keep(rules, (1, 1, 5, 5, 4), (1,))
    assert (
        "every scoring die must be kept at its best value: keep 1 1 5 5 (keep_all_scoring, T-2)"
        in str(exc.value)
    )


def test_keep_all_scoring_with_jokers_keeps() -> None:
    """The example file's worked keeps: the best keep, or a part of it whose rest is set
    aside as jokers without breaking a combination."""
    rules = example("keep-all-scoring-jokers")
    keeps = {k.dice: k.points for k in score_throw(rules, (1, 1, 5, 5, 4)).keeps}
    assert keeps == {
        (1, 1, 5, 5): 300,
        (1, 1, 5): 250,
        (1, 1): 200,
        (1, 5, 5): 200,
        (1, 5): 150,
        (1,): 100,
        (5, 5): 100,
        (5,): 50,
    }
    keeps = {k.dice: k.points for k in score_throw(rules, (5, 5, 5, 1, 2)).keeps}
    assert keeps == {(1, 5, 5, 5): 600, (5, 5, 5): 500, (1,): 100}
    assert [k.dice for k in score_throw(rules, (2, 2, 2, 3, 4)).keeps] == [(2, 2, 2)]
    with pytest.raises(IllegalKeepError) as exc:
        validate_keep(rules, (5, 5, 5, 1, 2), (5,))
    assert str(exc.value) == (
        "every scoring die must be kept at its best value, 1 5 5 5, or part of it kept and the "
        "rest set aside as jokers without breaking a combination (keep_all_scoring with "
        "jokers, V-2)"
    )
    # Every scoring die is a combination of a whole throw: nothing is left for jokers.
    assert [k.dice for k in score_throw(rules, (1, 1, 1, 5, 5)).keeps] == [(1, 1, 1, 5, 5)]


def test_overshoot_throw_on_turns() -> None:
    """The example file's worked turns: past the exact target the bank is refused and the
    player throws on; the farkle that ends the turn ticks as the overshoot would have."""
    from zloutch.engine import Bank, Keep, Phase, Roll, Throw, apply, legal_actions, new_game
    from zloutch.engine.game import why_illegal

    rules = example("overshoot-throw-on")
    state = new_game(rules, ["Ana", "Bob"])
    for action in (Throw(), Roll((1, 1, 1, 5, 2)), Keep((1, 1, 1, 5))):
        state = apply(state, action)
    assert state.phase is Phase.DECIDE and state.turn.total == 1050
    assert legal_actions(state) == (Throw(),)
    assert why_illegal(state, Bank()) == (
        "you cannot bank 1050: it would pass the exact target of 1000 (T-9, overshoot = "
        "throw_on): throw on"
    )
    state = apply(apply(state, Throw()), Roll((3,)))
    assert state.turn.player == 1 and state.sheets[0].score == 0
    lost = example("overshoot-throw-on", "overshoot=lost")
    before = new_game(lost, ["Ana", "Bob"])
    for action in (Throw(), Roll((1, 1, 1, 5, 2)), Keep((1, 1, 1, 5))):
        before = apply(before, action)
    assert before.turn.player == 1  # the keep itself ended the turn
    assert before.sheets[0] == state.sheets[0]  # the same tick either way
    state = new_game(rules, ["Ana", "Bob"])
    for action in (Throw(), Roll((1, 1, 1, 2, 3)), Keep((1, 1, 1)), Bank()):
        state = apply(state, action)
    assert state.phase is Phase.OVER and state.winners == (0,)


def test_blank_first_throw_turns() -> None:
    """The example file's worked turns: a blank first throw of every die costs 2000 (the
    score may go below 0), a later farkle of the turn only the turn."""
    from zloutch.engine import Action, Bank, GameState, Keep, Roll, Throw, apply, new_game
    from zloutch.engine.events import Penalised
    from zloutch.engine.game import step

    rules = example("blank-first-throw")
    blank = (Throw(), Roll((2, 3, 4, 6, 6)))

    def play(state: GameState, *actions: Action) -> tuple[GameState, list[object]]:
        events: list[object] = []
        for action in actions:
            state, played = step(state, action)
            events.extend(played)
        return state, events

    state, events = play(new_game(rules, ["Ana", "Bob"]), *blank)
    assert state.sheets[0].score == -2000
    assert Penalised(0, 2000, -2000, "blank") in events
    assert not state.entered(0)  # a penalty enters no one
    state = new_game(rules, ["Ana", "Bob"])
    state, _ = play(state, Throw(), Roll((1, 1, 1, 2, 3)), Keep((1, 1, 1)), Bank(), *blank)
    state, events = play(state, *blank)
    assert state.sheets[0].score == 1000 - 2000 and state.sheets[1].score == -2000
    state, events = play(state, Throw(), Roll((1, 2, 3, 4, 6)), Keep((1,)), Throw())
    state, events = play(state, Roll((2, 3, 4, 6)))
    assert state.sheets[0].score == -1000 and not any(isinstance(e, Penalised) for e in events)
    assert apply(new_game(rules, ["Ana", "Bob"]), Throw()).sheets[0].score == 0


def test_keep_every_multiple_keeps() -> None:
    """The example file's worked keeps: every multiple of a throw kept whole, loose 1s and 5s
    free (the table's "every complete three of a kind must be taken")."""
    rules = example("keep-every-multiple")
    keeps = score_throw(rules, (5, 5, 5, 1, 2)).keeps
    assert sorted((k.dice, k.points) for k in keeps) == [((1, 5, 5, 5), 600), ((5, 5, 5), 500)]
    for kept in ((1,), (5,)):
        with pytest.raises(IllegalKeepError) as exc:
            validate_keep(rules, (5, 5, 5, 1, 2), kept)
        assert str(exc.value) == (
            "every multiple of the throw must be kept: keep the three 5s (keep_every_multiple, F-5)"
        )
    keeps = score_throw(rules, (2, 2, 2, 2, 3)).keeps
    assert [(k.dice, k.points) for k in keeps] == [((2, 2, 2, 2), 2 * 200)]
    assert len(score_throw(rules, (1, 1, 5, 5, 4)).keeps) == 8
    keeps = score_throw(rules, (3, 3, 3, 4, 4, 4)).keeps
    assert [(k.dice, k.points) for k in keeps] == [((3, 3, 3, 4, 4, 4), 300 + 400)]
    with pytest.raises(IllegalKeepError, match="keep the three 3s"):
        validate_keep(rules, (3, 3, 3, 4, 4, 4), (4, 4, 4))
    # Six of a face where only three of a kind scores are two threes: both are kept.
    triplets = example("two-triplets", "keep_every_multiple")
    assert [k.dice for k in score_throw(triplets, (4,) * 6).keeps] == [(4,) * 6]
    with pytest.raises(IllegalKeepError, match="keep the six 4s"):
        validate_keep(triplets, (4,) * 6, (4, 4, 4))


def test_keep_whole_multiples_keeps() -> None:
    rules = example("keep-whole-multiples")
    keeps = score_throw(rules, (5, 5, 5, 1, 2)).keeps
    assert sorted((k.dice, k.points) for k in keeps) == [
        ((1,), 100),
        ((1, 5, 5, 5), 600),
        ((5, 5, 5), 500),
    ]
    with pytest.raises(IllegalKeepError) as exc:
        validate_keep(rules, (5, 5, 5, 1, 2), (5,))
    assert "three 5s must be taken whole: keep all 3 of them (keep_whole_multiples, F-5)" in str(
        exc.value
    )
    keeps = score_throw(rules, (2, 2, 2, 2, 3)).keeps
    assert [(k.dice, k.points) for k in keeps] == [((2, 2, 2, 2), 400)]
    with pytest.raises(IllegalKeepError) as exc:
        validate_keep(rules, (2, 2, 2, 2, 3), (2, 2, 2))
    assert "four 2s must be taken whole: keep all 4 of them" in str(exc.value)
    assert len(score_throw(rules, (1, 1, 5, 5, 4)).keeps) == 8


# ---------------------------------------------------------------------------- extends


def test_extends_overrides_only_what_it_writes() -> None:
    rules = example("extends-preset")
    base = load_rules("dix-mille")
    assert rules.name == "dix-mille-chez-nous"
    assert rules.dice == 5
    assert rules.turn.entry == 800
    assert rules.game.bump == "any"
    assert rules.scoring.full_house == "sum"
    # inherited
    assert rules.game.target == 10000
    assert rules.game.exact_target
    assert rules.turn.full_hand == "forced"
    assert rules.scoring.patterns == base.scoring.patterns
    assert score_throw(rules, (1, 1, 1, 2, 3)).points == 1000
    assert score_throw(rules, (6, 6, 6, 6, 2)).points == 1200
    assert score_throw(base, (2, 2, 2, 6, 6)).points == 200


def test_extends_replaces_patterns_and_singles_whole(tmp_path: Path) -> None:
    path = tmp_path / "runs.toml"
    path.write_text(
        '[rules]\nextends = "dix-mille"\nname = "runs"\n'
        "[scoring]\nsingles = { 1 = 100 }\n"
        "[[scoring.patterns]]\nfaces = [2, 3, 4]\npoints = 200\n",
        encoding="utf-8",
    )
    rules = load_rules(str(path))
    assert [p.name for p in rules.scoring.patterns] == ["straight 2-3-4"]
    # dix-mille's straight is gone, and a 5 no longer scores alone: run 2-3-4 + single 1
    assert score_throw(rules, (1, 2, 3, 4, 5)).points == 200 + 100


def test_extends_reads_a_relative_file_from_the_files_folder(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(
        (EXAMPLES / "full-house-times.toml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "house.toml").write_text(
        '[rules]\nextends = "base.toml"\nname = "house"\n[turn]\nentry = 300\n',
        encoding="utf-8",
    )
    rules = load_rules(str(tmp_path / "house.toml"))
    assert rules.turn.entry == 300
    assert score_throw(rules, (6, 6, 6, 3, 3)).points == 1800


# ---------------------------------------------------------------------------- the reference


def test_every_option_is_documented() -> None:
    text = doc_text()
    missing = [name for name in OPTIONS if f"`{name}`" not in text]
    assert not missing


def test_every_section_and_key_is_documented() -> None:
    text = doc_text()
    for header in (
        "`[rules]`",
        "`[scoring]`",
        "`[scoring.kinds]`",
        "`[[scoring.patterns]]`",
        "`[turn]`",
        "`[game]`",
        "`[variants]`",
    ):
        assert header in text
    keys = ["name", "summary", "dice", "extends", "default", "faces", "points", "thrown"]
    for cls in SECTIONS.values():
        keys += [f.name for f in dataclasses.fields(cls)]
    missing = [key for key in keys if f"`{key}`" not in text]
    assert not missing


def test_every_kind_rule_word_is_documented() -> None:
    text = doc_text()
    for word in ('"none"', '"win"', '"double"', '"(n-2) x three"', '"K x face"', "`default`"):
        assert word in text


# (the text of a rule file, a message the doc quotes)
FILE_ERRORS = [
    (
        '[rules]\nname = "x"\ndice = 5\n',
        "game.target: missing key (a rule file must give it, or start from a preset with "
        "rules.extends)",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\nentry = 500\n',
        "game.entry: unknown key (it belongs in [turn])",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\ntargte = 5000\n',
        "game.targte: unknown key (did you mean 'target'?)",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\nbump = "curent"\n',
        "game.bump: 'curent' is not one of off, current, any (did you mean 'current'?)",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\ntake_back = "yes"\n',
        "game.take_back: expected true or false, got 'yes'",
    ),
    (
        '[rules]\nname = "x"\ndice = 7\n[game]\ntarget = 1000\n',
        "rules.dice: at most 6 dice, got 7",
    ),
    (
        '[rules]\nextends = "dix-mille"\n[kinds]\n4 = 1000\n',
        "kinds: unknown section (it is written [scoring.kinds])",
    ),
    (
        '[rules]\nextends = "dix-mille"\n[scoring.kinds]\n4 = { defualt = "double" }\n',
        "scoring.kinds.4.defualt: unknown key (did you mean 'default'?): a count's table "
        "holds default, thrown and faces 1 to 6",
    ),
    (
        '[rules]\nextends = "dix-mille"\n[scoring]\nfull_house = 1000\n',
        'scoring.full_house: expected one of "off", "sum", "times" (in quotes), got 1000; a '
        "full house of fixed points is written as patterns, one per three and pair (the rule "
        "format's page: what the format cannot express)",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\n[scoring.kinds]\n4 = "lots"\n',
        "scoring.kinds.4: 'lots' is not a kind rule: write points (1000), \"K x face\", "
        '"double", "(n-2) x three", "three + K per extra die", "win" or "none"; another '
        "formula is written face by face (the rule format's page: what the format cannot "
        "express)",
    ),
    (  # TOML gives a key to the last header above it
        '[rules]\nextends = "farkle"\n[scoring.kinds]\n3 = "100 x face"\nthree_pairs = 1500\n',
        "scoring.kinds.three_pairs: unknown key (it belongs in [scoring]: a key is read as part "
        "of the last table header above it, so write it above [scoring.kinds])",
    ),
    (
        '[rules]\nextends = "farkle"\n[scoring.kinds]\n2 = 50\n',
        "scoring.kinds.2: the count of a kind must be 3, 4, 5 or 6: a single die's points are "
        "written in [scoring.singles], a pair as a [[scoring.patterns]] table (faces = [2, 2])",
    ),
    (
        '[rules]\nextends = "dix-mille"\nname = "x"\n[scoring.kinds]\n4 = "none"\n',
        "scoring.kinds: five 1s: 'double' needs four 1s to be worth points",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\n'
        "[[scoring.patterns]]\nfaces = [1]\npoints = 100\n",
        "scoring.patterns[0].faces: a pattern needs at least two dice (use singles for one)",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\n[scoring]\nthree_pairs = 500\n',
        "scoring.three_pairs: needs six dice, this rule set has 5",
    ),
    (  # a combination that costs points cannot be written: the message says where to read why
        '[rules]\nextends = "farkle"\n[scoring.kinds]\n3 = { 2 = -200 }\n',
        "scoring.kinds.3.2: points must be positive, got -200: a combination that costs "
        "points or loses the turn cannot be written",
    ),
    (
        '[rules]\nextends = "farkle"\n[[scoring.patterns]]\nfaces = [1, 2]\nvalue = 300\n',
        "scoring.patterns[0].value: unknown key: a pattern holds name, faces, points and thrown",
    ),
    (
        '[rules]\nextends = "farkle"\n[[scoring.patterns]]\nfaces = [1, 2, 3, 4, 5, 6]\n'
        "points = 3000\nthrown = 7\n",
        "scoring.patterns[0].thrown: must be 0 (any throw) or 6 (a throw of all the dice)",
    ),
    (  # a full house with no three of a kind worth points never scored, and passed silently
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\n[scoring]\n'
        'singles = { 1 = 100 }\nfull_house = "sum"\n',
        "scoring.full_house: a full house is scored from its three of a kind (S-13, S-14), "
        "and no three of a kind is worth points here",
    ),
    (  # 0 made V-7's later pair a combination worth nothing: a farkle became a full hand
        '[rules]\nextends = "dix-mille"\n[scoring]\nfull_house_pair = 0\n'
        "[variants]\nmultiples_over_throws = true\n",
        "scoring.full_house_pair: a pair worth 0 x its face counts for nothing: give a "
        "multiple of at least 1 (full_house = sum, S-13; V-7's later pair), or switch them off",
    ),
    (  # the kind's 200 always won: the pattern was never counted, and nothing said so
        '[rules]\nextends = "farkle"\nname = "x"\n[[scoring.patterns]]\nname = "three twos"\n'
        "faces = [2, 2, 2]\npoints = 100\n",
        "scoring.patterns[0]: 'three twos' (2 2 2, 100) can never count: [scoring.kinds] values "
        "three 2s at 200, and a throw is read at its best; to give three 2s another value, "
        "write it in [scoring.kinds] (3 = { 2 = 100, default = ... })",
    ),
    (  # written without three_pairs it scored nothing and passed silently
        '[rules]\nname = "x"\ndice = 6\n[game]\ntarget = 1000\n[scoring]\n'
        "singles = { 1 = 100 }\nfour_and_pair_as_three_pairs = true\n",
        "scoring.four_and_pair_as_three_pairs: four_and_pair_as_three_pairs needs three_pairs, "
        "which this rule set does not have: it would change nothing (set that too, or leave "
        "this out)",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\n'
        "final_round = true\nfinal_turns = true\n",
        "game.final_turns: final_round (G-6) and final_turns (F-4) are two different endings: "
        "choose one",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1025\nexact_target = true\n',
        "game.target: 1025 cannot be reached exactly with points in steps of 50",
    ),
    ('[rules\nname = "x"\n', "not valid TOML:"),
    ('[rules]\nextends = "nope"\n', "rules.extends: nope: unknown preset"),
    (
        '[rules]\nextends = "dix-mille(joker)"\n',
        "rules.extends: 'dix-mille(joker)': extends names a preset or a rule file, without "
        'options: write extends = "dix-mille" and give the options as keys of this file; '
        "here: joker = true under [variants]",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\n[scoring]\nsingles = {}\n',
        "scoring: nothing can ever score: no single die scores (singles), no multiple "
        "([scoring.kinds]), no pattern and no other combination, so every throw would be a "
        "farkle",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\n'
        "[[scoring.patterns]]\nfaces = [1, 2, 3]\npoints = 200\n"
        "[[scoring.patterns]]\nfaces = [1, 2, 3]\npoints = 300\n",
        "scoring.patterns[1]: 'straight 1-2-3' has the same faces (1 2 3) as "
        "scoring.patterns[0] 'straight 1-2-3': one set of faces can be only one pattern, with "
        "one value",
    ),
    (
        '[rules]\nname = "x"\ndice = 5\n[game]\ntarget = 1000\n[scoring.kinds]\n3 = "double"\n',
        "scoring.kinds: three of a kind cannot double: there is no smaller kind to measure it "
        'on; write points (1000) or "K x face"',
    ),
]

SPEC_ERRORS = [
    ("dix-mille(jokr)", "jokr: unknown option (did you mean 'joker'?)"),
    (
        "dix-mille(dice=6)",
        "dice: not an option: a spec cannot change it; write a rule file with [rules] dice "
        "(extends = the rule set it starts from)",
    ),
    (
        "dix-mille(target=5,000)",
        "000: not an option: a spec's numbers take no thousands separator (target=5000, not "
        "target=5,000)",
    ),
    ("dix-mille(entry)", "entry: needs a value: entry=..."),
    ("dix-mile", "dix-mile: unknown preset (did you mean 'dix-mille'?)"),
    (
        "dix-mille(target=2050)",
        "with these options: game.target: 2050 can never be hit exactly: with "
        "bank_multiple_of_100 (T-6) every bank is a multiple of 100",
    ),
    (
        "dix-mille(target=400)",
        "with these options: turn.entry: the entry 500 (T-7) is above the exact target 400 "
        "(T-9): the first bank would always pass the target, so no player could ever enter",
    ),
    (
        "farkle(joker_keeps_points)",
        "with these options: variants.joker_keeps_points: joker_keeps_points needs joker, which "
        "this rule set does not have: it would change nothing (set that too, or leave this out)",
    ),
    (
        "dix-mille(entry_by=throw,entry=5000)",
        "with these options: turn.entry: entry by one throw (entry_by = throw, T-7) needs a "
        "single throw worth 5000, but no throw of this rule set scores more than 4000 and none "
        "wins the game: no player could ever enter",
    ),
]


def quoted(message: str) -> bool:
    """Whether the doc quotes the message (markdown may wrap it across lines)."""
    return " ".join(message.split()) in " ".join(doc_text().split())


@pytest.mark.parametrize(("body", "message"), FILE_ERRORS)
def test_documented_file_errors_are_real(tmp_path: Path, body: str, message: str) -> None:
    assert quoted(message)
    path = tmp_path / "table.toml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(InvalidRulesError) as exc:
        load_rules(str(path))
    assert message in str(exc.value)


@pytest.mark.parametrize(("spec", "message"), SPEC_ERRORS)
def test_documented_spec_errors_are_real(spec: str, message: str) -> None:
    assert quoted(message)
    with pytest.raises(InvalidRulesError) as exc:
        load_rules(spec)
    assert message in str(exc.value)


def test_documented_extends_loop_error_is_real(tmp_path: Path) -> None:
    message = "rules.extends: rule files extend each other in a loop:"
    assert quoted(message)
    (tmp_path / "a.toml").write_text('[rules]\nextends = "b.toml"\n', encoding="utf-8")
    (tmp_path / "b.toml").write_text('[rules]\nextends = "a.toml"\n', encoding="utf-8")
    with pytest.raises(InvalidRulesError) as exc:
        load_rules(str(tmp_path / "a.toml"))
    assert message in str(exc.value)


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("dix-mille(joker,entry=800,bump=any)", "dix-mille(bump=any,entry=800,joker)"),
        ("dix-mille(entry=500)", "dix-mille"),
        ("dix-mille(take-back=no)", "dix-mille(take_back=false)"),
    ],
)
def test_documented_canonical_specs(written: str, canonical: str) -> None:
    assert f"`{written}` | `{canonical}`" in doc_text()
    rules = load_rules(written)
    assert rules.spec == canonical
    assert load_rules(canonical) == rules


def test_documented_snippets_are_toml_the_loader_accepts() -> None:
    """Every ```toml block of the doc that is a whole file loads (the others are fragments)."""
    blocks = re.findall(r"```toml\n(.*?)```", doc_text(), flags=re.DOTALL)
    whole = [b for b in blocks if b.startswith("[rules]")]
    assert len(whole) >= 2
    for block in whole:
        rules = parse_rules_text(block, load_base=load_rules)
        assert rules.name
