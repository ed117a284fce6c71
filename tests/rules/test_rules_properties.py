"""Properties of the keeps of any throw, over every preset and option combination."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from rules_cases import RULES_SETTINGS, all_rules

from zloutch.rules import (
    HandContext,
    IllegalKeepError,
    InvalidRulesError,
    RuleSet,
    ScoredKeep,
    ThrowScore,
    is_farkle,
    legal_keeps,
    load_rules,
    score_throw,
    throw_points,
    validate_keep,
    with_options,
)
from zloutch.rules.dice import multisets
from zloutch.rules.scoring import ScoreTable, score_table, scoring_part

RULE_SETS = all_rules()
ACROSS_THROWS = load_rules("dix-mille(multiples_over_throws,straights_over_throws)")
EXAMPLE_FILES = sorted((Path(__file__).resolve().parents[2] / "docs/examples/rules").glob("*.toml"))
"""The format's worked examples: kinds and straights counted only on a throw of all the
dice (``thrown``), 421, a no-score bonus, among others."""


@st.composite
def rules_and_throw(draw: st.DrawFn) -> tuple[RuleSet, list[int]]:
    rules = draw(st.sampled_from(RULE_SETS))
    throw = draw(st.lists(st.integers(1, 6), min_size=1, max_size=rules.dice))
    return rules, throw


@st.composite
def context_and_throw(draw: st.DrawFn) -> tuple[HandContext, list[int]]:
    """Dice set aside in the hand (V-6, V-7) and a throw of some of the others."""
    aside = draw(st.lists(st.integers(1, 6), max_size=ACROSS_THROWS.dice - 1))
    throw = draw(st.lists(st.integers(1, 6), min_size=1, max_size=ACROSS_THROWS.dice - len(aside)))
    return HandContext.from_set_aside(aside), throw


def value(keep: ScoredKeep) -> tuple[bool, int]:
    return (keep.wins, keep.points)


def check_keeps(score: ThrowScore, throw: list[int]) -> None:
    """What holds of every ThrowScore, whatever the rules and the context."""
    thrown = Counter(throw)
    assert score.throw == tuple(sorted(throw))
    for keep in (*score.keeps, *score.scoring):
        # The points of a keep are the sum of its combinations (S-12).
        assert keep.points == sum(c.points for c in keep.combinations)
        assert keep.wins == any(c.wins for c in keep.combinations)
        # Every kept die belongs to exactly one combination.
        union: Counter[int] = Counter()
        for combination in keep.combinations:
            assert combination.points > 0 or combination.wins
            union.update(combination.dice)
        assert union == Counter(keep.dice)
        # The dice kept are dice of the throw; full hand iff every die thrown is kept.
        assert not Counter(keep.dice) - thrown
        assert keep.dice == tuple(sorted(keep.dice))
        assert keep.full_hand == (len(keep.dice) == len(throw))
    # A farkle exactly when there is no keep.
    assert score.farkle == (not score.keeps)
    # Each selection once per reading: its best one, and when that wins (G-5) its best
    # reading as points right after; the legal keeps are scoring selections.
    assert len({(k.dice, k.wins) for k in score.scoring}) == len(score.scoring)
    for keeps in (score.keeps, score.scoring):
        for i, keep in enumerate(keeps):
            twin = [k for k in keeps if k.dice == keep.dice and k is not keep]
            if twin:
                assert keep.wins != twin[0].wins
                if not keep.wins:
                    assert keeps.index(twin[0]) < i  # the win comes first
    assert set(score.keeps) <= set(score.scoring)
    # Sorted best first; the best keep is worth at least every keep.
    for keeps in (score.keeps, score.scoring):
        values = [value(k) for k in keeps]
        assert values == sorted(values, reverse=True)
    if score.keeps:
        assert score.best == score.keeps[0]
        assert all(value(score.keeps[0]) >= value(k) for k in score.keeps)
    else:
        assert score.best is None
    # Whole-throw semantics: the most points of any reading, non-scoring dice ignored.
    # A winning keep (G-5) carries no points, so it need not be the one that gives them.
    assert score.points == max((k.points for k in score.scoring), default=0)
    if not any(k.wins for k in score.scoring):
        assert score.points == (score.scoring[0].points if score.scoring else 0)


@RULES_SETTINGS
@given(rules_and_throw())
# G-5: five 1s win in 5000; the throw is still worth 1200 read as points.
@example((load_rules("cinq-mille"), [1, 1, 1, 1, 1]))
@example((load_rules("dix-mille(five_ones_win)"), [1, 1, 1, 1, 1]))
def test_keeps_are_consistent(case: tuple[RuleSet, list[int]]) -> None:
    rules, throw = case
    score = score_throw(rules, throw)
    check_keeps(score, throw)
    assert is_farkle(rules, throw) == (legal_keeps(rules, throw) == ())
    assert throw_points(rules, throw) == score.points


@RULES_SETTINGS
@given(rules_and_throw(), st.randoms(use_true_random=False))
def test_order_of_the_faces_does_not_matter(
    case: tuple[RuleSet, list[int]], rng: random.Random
) -> None:
    rules, throw = case
    shuffled = list(throw)
    rng.shuffle(shuffled)
    assert score_throw(rules, shuffled) == score_throw(rules, sorted(throw))


@RULES_SETTINGS
@given(rules_and_throw())
def test_validate_keep_accepts_exactly_the_legal_keeps(case: tuple[RuleSet, list[int]]) -> None:
    rules, throw = case
    score = score_throw(rules, throw)
    legal: dict[tuple[int, ...], ScoredKeep] = {}
    for keep in score.keeps:
        legal.setdefault(keep.dice, keep)  # the winning reading of the dice comes first
    subsets = {
        tuple(sorted(throw[i] for i in range(len(throw)) if mask >> i & 1))
        for mask in range(1, 2 ** len(throw))
    }
    for dice in subsets:
        if dice in legal:
            assert validate_keep(rules, throw, dice) == legal[dice]
        else:
            with pytest.raises(IllegalKeepError):
                validate_keep(rules, throw, dice)


@RULES_SETTINGS
@given(rules_and_throw())
def test_keep_rules_only_remove_keeps(case: tuple[RuleSet, list[int]]) -> None:
    """keep_all_scoring and keep_whole_multiples never change what a selection is worth."""
    rules, throw = case
    free = rules.replace_options({"keep_all_scoring": False, "keep_whole_multiples": False})
    assert score_throw(free, throw).scoring == score_throw(rules, throw).scoring
    assert score_throw(free, throw).farkle == score_throw(rules, throw).farkle
    if rules.scoring.keep_all_scoring and not score_throw(rules, throw).farkle:
        # Every legal keep is worth the best, and no keep of that worth holds more dice; with
        # jokers (V-2, the 10,000 article's keep) a keep may also be part of such a best keep,
        # its other dice set aside as jokers.
        best = score_throw(free, throw).best
        assert best is not None
        bests = [k for k in score_throw(free, throw).keeps if value(k) == value(best)]
        most = max(len(k.dice) for k in bests)
        for keep in score_throw(rules, throw).keeps:
            if value(keep) == value(best) and len(keep.dice) == most:
                continue
            assert rules.variants.joker, keep
            wholes = [k for k in bests if len(k.dice) == most and not k.wins]
            assert any(
                not Counter(keep.dice) - Counter(whole.dice) and keep.dice != whole.dice
                for whole in wholes
            ), keep


@RULES_SETTINGS
@given(context_and_throw())
def test_keeps_across_throws_are_consistent(case: tuple[HandContext, list[int]]) -> None:
    context, throw = case
    score = score_throw(ACROSS_THROWS, throw, context)
    check_keeps(score, throw)
    # Dice set aside only ever add keeps or make them worth more (V-6, V-7).
    plain = {k.dice: k.points for k in score_throw(ACROSS_THROWS, throw).scoring}
    with_context = {k.dice: k.points for k in score.scoring}
    for dice, points in plain.items():
        assert with_context[dice] >= points


GAME_OPTIONS = {
    "target": st.sampled_from([1500, 3000, 10000]),
    "entry": st.sampled_from([0, 500, 1000]),
    "bump": st.sampled_from(["off", "current", "any"]),
    "ticks_to_cross": st.integers(0, 3),
    "final_round": st.booleans(),
    "exact_target": st.booleans(),
}


FIGURE = load_rules("dix-mille-6(figure_full_hand)")


@RULES_SETTINGS
@example((FIGURE, [1, 2, 3, 4, 5, 6]), {"target": 3000}, (HandContext(), [1]))  # S-16
@given(
    rules_and_throw(),
    st.fixed_dictionaries({}, optional=GAME_OPTIONS),
    context_and_throw(),
)
def test_a_shared_score_table_scores_as_the_rule_sets_own(
    case: tuple[RuleSet, list[int]],
    options: dict[str, bool | int | str],
    across: tuple[HandContext, list[int]],
) -> None:
    """``score_table`` keeps one table for the rule sets that score alike (``scoring_part``):
    whatever the game's options, it scores every throw (in every hand context, V-6, V-7) as
    a table built from the whole rule set does. A field the scoring part left out that a
    throw's score reads would part them."""
    rules, throw = case
    try:
        played = with_options(rules, options)
    except InvalidRulesError:
        return
    assert score_throw(played, throw) == ScoreTable(played).lookup(tuple(throw))
    context, dice = across
    assert score_throw(ACROSS_THROWS, dice, context) == ScoreTable(ACROSS_THROWS).lookup(
        tuple(dice), context
    )


@st.composite
def any_rules_and_throw(draw: st.DrawFn) -> tuple[RuleSet, list[int]]:
    """A rule set of the generic tests' or of the format's examples, and a throw."""
    assert len(EXAMPLE_FILES) >= 20, "docs/examples/rules: the format's examples are missing"
    path = draw(st.sampled_from([None, *EXAMPLE_FILES]))
    if path is None:
        return draw(rules_and_throw())
    rules = load_rules(str(path))
    return rules, draw(st.lists(st.integers(1, 6), min_size=1, max_size=rules.dice))


@RULES_SETTINGS
@given(any_rules_and_throw(), st.randoms(use_true_random=False), context_and_throw())
def test_a_throw_reads_alike_whatever_the_table_read_before(
    case: tuple[RuleSet, list[int]],
    rnd: random.Random,
    across: tuple[HandContext, list[int]],
) -> None:
    """A table shares what the throws of one size in one hand context have in common (the
    readings and the keeps of the dice they hold). A throw read after others, any of them
    in any order, reads as it does in a table of its own: the same keeps, the same
    combinations, the same legal keeps."""
    rules, throw = case
    table = ScoreTable(rules)
    before = [*multisets(len(throw)), *multisets(rnd.randint(1, rules.dice))]
    rnd.shuffle(before)
    for other in before[: rnd.randint(0, len(before))]:
        table.lookup(other)
    assert table.lookup(tuple(throw)) == ScoreTable(rules).lookup(tuple(throw))
    context, dice = across
    table = ScoreTable(ACROSS_THROWS)
    left = ACROSS_THROWS.dice - len(context.set_aside)
    before = list(multisets(len(dice)))
    rnd.shuffle(before)
    for other in before[: rnd.randint(0, len(before))]:
        table.lookup(other, context)
        table.lookup(other)
    assert len(dice) <= left
    assert table.lookup(tuple(dice), context) == ScoreTable(ACROSS_THROWS).lookup(
        tuple(dice), context
    )
    assert table.lookup(tuple(dice)) == ScoreTable(ACROSS_THROWS).lookup(tuple(dice))


@pytest.mark.default_cases(8)
@pytest.mark.parametrize(
    "source",
    [*(pytest.param(p, id=p.stem) for p in EXAMPLE_FILES), "dix-mille(four_two_one)"],
)
def test_every_throw_reads_alike_in_a_shared_table_and_alone(source: Path | str) -> None:
    """Every throw of one to all the dice, read in a shuffled order by one table, reads as
    it does alone: what the throws of one size share (``ScoreTable._readings``) holds for
    rule sets where the number of dice thrown decides what scores (``thrown``, 421)."""
    rules = load_rules(str(source))
    throws = [t for n in range(1, rules.dice + 1) for t in multisets(n)]
    random.Random(str(source)).shuffle(throws)
    table = ScoreTable(rules)
    for throw in throws:
        assert table.lookup(throw) == ScoreTable(rules).lookup(throw), throw


@pytest.mark.parametrize("aside", [(1, 1, 1), (2, 2, 2, 2), (5,), (1, 2, 3), (6, 6, 6)])
def test_a_throw_in_a_hand_context_reads_alike_in_a_shared_table_and_alone(
    aside: tuple[int, ...],
) -> None:
    """V-6 and V-7 read a throw with the dice set aside: a table that read the same throws
    in another hand context, or none, reads them as a table of their own."""
    context = HandContext.from_set_aside(aside)
    throws = list(multisets(ACROSS_THROWS.dice - len(aside)))
    random.Random(len(aside)).shuffle(throws)
    table = ScoreTable(ACROSS_THROWS)
    for throw in throws:
        table.lookup(throw)
        assert table.lookup(throw, context) == ScoreTable(ACROSS_THROWS).lookup(throw, context)
        assert table.lookup(throw) == ScoreTable(ACROSS_THROWS).lookup(throw)


def test_rule_sets_that_score_alike_share_one_table() -> None:
    """The shared table's key: the target and the sheet's options leave it as it is, a
    variant or G-5 changes it. (The tables are kept in a bounded cache that any thread may
    fill, so two calls returning one object is not asserted: the key decides it.)"""
    plain = load_rules("dix-mille")
    assert scoring_part(load_rules("dix-mille(bump=any,target=3000)")) == scoring_part(plain)
    assert scoring_part(load_rules("dix-mille(joker)")) != scoring_part(plain)
    assert scoring_part(load_rules("greed(five_ones_win)")) != scoring_part(load_rules("greed"))
    assert score_table(plain).lookup((1, 5)) == ScoreTable(plain).lookup((1, 5))


@pytest.mark.parametrize(
    "rules",
    [*RULE_SETS, *(load_rules(str(path)) for path in EXAMPLE_FILES)],
    ids=lambda r: r.spec.rsplit("/", 1)[-1],
)
def test_the_kinds_a_table_shows_are_what_the_dice_score_at_best(rules: RuleSet) -> None:
    """``kinds_outscored`` names exactly the n of a kind whose dice, thrown alone, score
    more than their kind rule (farkle's three 1s: 300, not 100); the others score their
    rule's value (but for a kind counted only on a throw of more dice than its own, which the table
    marks), so a rules table that shows both never says less than a keep scores."""
    from zloutch.rules import kinds_outscored

    better = kinds_outscored(rules)
    elsewhere = {k.count for k in rules.scoring.kinds if k.thrown not in (0, k.count)}
    for (count, face), points in rules.kinds_values().items():
        if points == "win" or count in elsewhere:  # not a combination of count dice alone
            assert (count, face) not in better
            continue
        best = throw_points(rules, [face] * count)
        assert best >= points
        assert better.get((count, face)) == (best if best > points else None)
    assert set(better) <= set(rules.kinds_values())
    if rules.spec == "farkle":
        assert better == {(3, 1): 300}
    if rules.spec.endswith("kinds-full-throw.toml"):  # five 1s on five dice: 1000 + 2 x 100
        assert better[(5, 1)] == 1200
