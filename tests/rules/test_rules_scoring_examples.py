"""Every scoring example of the seeds and of docs/rules.md, named after its rule id.

Expected values are worked out by hand from docs/rules.md (and the seed articles), never taken
from the code. ``keeps(...)`` is the full map of legal keeps, so a test also fails when the
code finds a keep the rules do not allow.
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from zloutch.rules import (
    NO_CONTEXT,
    HandContext,
    InvalidRulesError,
    RuleSet,
    ScoredKeep,
    is_farkle,
    legal_keeps,
    load_rules,
    score_throw,
    throw_points,
)
from zloutch.rules.dice import Dice

DIX = load_rules("dix-mille")
DIX6 = load_rules("dix-mille-6")
IMPAIR = load_rules("impair")
CHARENTAISE = load_rules("charentaise")
CINQ = load_rules("cinq-mille")
FARKLE = load_rules("farkle")
MINIMAL = load_rules("farkle-minimal")
ZILCH = load_rules("zilch")
GREED = load_rules("greed")


def keeps(
    rules: RuleSet, throw: Iterable[int], context: HandContext = NO_CONTEXT
) -> dict[Dice, int]:
    """Every legal keep of the throw: dice -> points."""
    return {k.dice: k.points for k in legal_keeps(rules, throw, context)}


def best(rules: RuleSet, throw: Iterable[int], context: HandContext = NO_CONTEXT) -> ScoredKeep:
    found = score_throw(rules, throw, context).best
    assert found is not None, "expected a scoring throw"
    return found


def full_hand_of(
    rules: RuleSet, throw: Iterable[int], dice: Dice, context: HandContext = NO_CONTEXT
) -> bool:
    keep = score_throw(rules, throw, context).keep_for(dice)
    assert keep is not None
    return keep.full_hand


# ------------------------------------------------------------------ dix-mille (5 dice)


def test_S1_combinations_count_only_inside_one_throw() -> None:
    # A 1 kept now and two more 1s next throw: 100 + 200 = 300, never 1000.
    assert throw_points(DIX, [1, 2, 3, 4, 6]) == 100
    assert throw_points(DIX, [1, 1, 3, 4]) == 200
    assert throw_points(DIX, [1, 1, 1, 3, 4]) == 1000


def test_S2_one_one_four_four_three_is_200() -> None:
    # Seed: "1, 1, 4, 4 and 3 = 200": keep one or both 1s and throw the rest again.
    assert throw_points(DIX, [1, 1, 4, 4, 3]) == 200
    assert keeps(DIX, [1, 1, 4, 4, 3]) == {(1,): 100, (1, 1): 200}
    assert best(DIX, [1, 1, 4, 4, 3]).dice == (1, 1)


def test_S2_single_one_and_five() -> None:
    assert keeps(DIX, [1, 5, 2, 3, 3]) == {(1,): 100, (5,): 50, (1, 5): 150}
    assert throw_points(DIX, [5]) == 50
    assert throw_points(DIX, [1]) == 100


def test_S3_six_six_six_four_two_is_600() -> None:
    # Seed: player 1 scores 6, 6, 6, 4 and 2 = 600, leaving 4 and 2 on the table.
    assert keeps(DIX, [6, 6, 6, 4, 2]) == {(6, 6, 6): 600}
    # Player 2 takes it back (G-8), throws the two dice and gets 1 and 3: 600 + 100 = 700.
    assert keeps(DIX, [1, 3]) == {(1,): 100}


@pytest.mark.parametrize(
    ("throw", "three", "points"),
    [
        ([1, 1, 1, 3, 4], (1, 1, 1), 1000),
        ([2, 2, 2, 3, 4], (2, 2, 2), 200),
        ([3, 3, 3, 4, 6], (3, 3, 3), 300),
        ([4, 4, 4, 2, 6], (4, 4, 4), 400),
        ([5, 5, 5, 2, 6], (5, 5, 5), 500),
        ([6, 6, 6, 2, 3], (6, 6, 6), 600),
    ],
)
def test_S3_three_of_a_kind(throw: list[int], three: Dice, points: int) -> None:
    assert throw_points(DIX, throw) == points
    assert keeps(DIX, throw)[three] == points


def test_S3_full_hand_example_200_then_600_then_farkle() -> None:
    # Seed: 1 1 4 4 2 = 200; throw 4 4 2 again and get 6 6 6 = 600: 800 and a full hand.
    assert keeps(DIX, [1, 1, 4, 4, 2]) == {(1,): 100, (1, 1): 200}
    assert keeps(DIX, [6, 6, 6]) == {(6, 6, 6): 600}
    assert best(DIX, [6, 6, 6]).full_hand
    # All five dice thrown again: 4 4 2 6 3 = 0, a farkle.
    assert is_farkle(DIX, [4, 4, 2, 6, 3])
    assert throw_points(DIX, [4, 4, 2, 6, 3]) == 0


def test_S4_four_of_a_kind_doubles_three() -> None:
    assert keeps(DIX, [6, 6, 6, 6, 2]) == {(6, 6, 6): 600, (6, 6, 6, 6): 1200}
    assert keeps(DIX, [1, 1, 1, 1, 3]) == {
        (1,): 100,
        (1, 1): 200,
        (1, 1, 1): 1000,
        (1, 1, 1, 1): 2000,
    }
    assert throw_points(DIX, [2, 2, 2, 2, 5]) == 400 + 50


def test_S5_five_of_a_kind() -> None:
    assert throw_points(DIX, [6, 6, 6, 6, 6]) == 2400
    assert keeps(DIX, [6] * 5) == {(6,) * 3: 600, (6,) * 4: 1200, (6,) * 5: 2400}
    assert throw_points(DIX, [1] * 5) == 4000
    assert not best(DIX, [1] * 5).wins  # G-5 is an option in dix-mille
    assert throw_points(DIX, [5] * 5) == 2000  # 500, 1000, 2000
    assert throw_points(DIX, [2] * 5) == 800


def test_S5_G5_five_ones_win_as_an_option() -> None:
    rules = load_rules("dix-mille(five_ones_win)")
    keep = best(rules, [1] * 5)
    assert keep.wins
    assert keep.dice == (1,) * 5
    assert not best(rules, [1, 1, 1, 1, 2]).wins


def test_S7_straights_are_1500() -> None:
    assert keeps(DIX, [1, 2, 3, 4, 5]) == {
        (1,): 100,
        (5,): 50,
        (1, 5): 150,
        (1, 2, 3, 4, 5): 1500,
    }
    assert keeps(DIX, [6, 5, 4, 3, 2]) == {(5,): 50, (2, 3, 4, 5, 6): 1500}
    assert throw_points(DIX, [1, 3, 4, 5, 6]) == 150  # no straight: 1 and 5 only


def test_S12_every_split_is_a_legal_keep() -> None:
    assert keeps(DIX, [1, 1, 1, 5, 2]) == {
        (1,): 100,
        (5,): 50,
        (1, 1): 200,
        (1, 5): 150,
        (1, 1, 1): 1000,
        (1, 1, 5): 250,
        (1, 1, 1, 5): 1050,
    }


def test_S16_five_of_a_kind_and_straight_are_full_hands() -> None:
    assert best(DIX, [4] * 5).full_hand
    assert best(DIX, [2, 3, 4, 5, 6]).full_hand
    assert not best(DIX, [1, 1, 4, 4, 3]).full_hand


def test_S16_option_figures_leaving_a_die_are_full_hands_on_six_dice() -> None:
    dix6 = load_rules("dix-mille-6")
    option = load_rules("dix-mille-6(figure_full_hand)")
    throw, straight = [1, 2, 3, 4, 5, 5], (1, 2, 3, 4, 5)
    assert not full_hand_of(dix6, throw, straight)  # the Reading: one die is left
    assert full_hand_of(option, throw, straight)
    assert full_hand_of(option, [2, 6, 6, 6, 6, 6], (6, 6, 6, 6, 6))  # five of a kind
    assert not full_hand_of(option, [2, 3, 4, 6, 6, 6], (6, 6, 6))  # three: not S-16
    assert not full_hand_of(option, throw, (1, 5))


def test_S13_full_house_sum_is_500() -> None:
    rules = load_rules("dix-mille(full_house=sum)")
    # 2 2 2 6 6 = 2 x 100 + 6 x 50 = 500, a full hand (S-16).
    assert keeps(rules, [2, 2, 2, 6, 6]) == {(2, 2, 2): 200, (2, 2, 2, 6, 6): 500}
    assert best(rules, [2, 2, 2, 6, 6]).full_hand
    # Without the option the pair scores nothing.
    assert keeps(DIX, [2, 2, 2, 6, 6]) == {(2, 2, 2): 200}


def test_S13_full_house_is_not_taken_when_the_dice_score_more_apart() -> None:
    rules = load_rules("dix-mille(full_house=sum)")
    # 5 5 5 1 1: as a full house 500 + 50 = 550; apart 500 + 100 + 100 = 700.
    assert throw_points(rules, [5, 5, 5, 1, 1]) == 700


# ------------------------------------------------------------------ dix-mille-6 (6 dice)


def test_S2_dix_mille_6_example_150_then_1000() -> None:
    # Seed: throw 6 5 4 2 2 1; the 1 and the 5 are 150; throw 6 4 2 2 again.
    assert keeps(DIX6, [6, 5, 4, 2, 2, 1]) == {(1,): 100, (5,): 50, (1, 5): 150}
    # Get 1 1 1 3: the three 1s are 1000, for a total of 1150.
    assert throw_points(DIX6, [1, 1, 1, 3]) == 1000
    assert 150 + throw_points(DIX6, [1, 1, 1, 3]) == 1150


def test_S3_S4_S5_dix_mille_6_multiples_double() -> None:
    assert throw_points(DIX6, [6, 6, 6, 2, 3, 4]) == 600
    assert throw_points(DIX6, [6, 6, 6, 6, 2, 3]) == 1200
    assert throw_points(DIX6, [6, 6, 6, 6, 6, 3]) == 2400
    assert throw_points(DIX6, [1, 1, 1, 1, 2, 3]) == 2000


def test_S6_six_of_a_kind_is_1000_x_face() -> None:
    assert throw_points(DIX6, [6] * 6) == 6000
    assert throw_points(DIX6, [5] * 6) == 5000
    assert throw_points(DIX6, [2] * 6) == 2000
    assert best(DIX6, [6] * 6).full_hand


def test_S6_G5_six_ones_win() -> None:
    keep = best(DIX6, [1] * 6)
    assert keep.wins
    assert keep.dice == (1,) * 6
    assert keep.full_hand
    assert not best(DIX6, [1] * 5 + [2]).wins


def test_S9_three_pairs_600() -> None:
    assert keeps(DIX6, [2, 2, 3, 3, 4, 4]) == {(2, 2, 3, 3, 4, 4): 600}
    assert best(DIX6, [2, 2, 3, 3, 4, 4]).full_hand
    assert throw_points(DIX6, [1, 1, 5, 5, 6, 6]) == 600  # more than 100 + 100 + 50 + 50
    assert throw_points(DIX6, [2, 2, 3, 3, 4, 6]) == 0


def test_S7_S8_six_dice_straights() -> None:
    assert throw_points(DIX6, [1, 2, 3, 4, 5, 6]) == 1200
    assert best(DIX6, [1, 2, 3, 4, 5, 6]).full_hand
    keep = best(DIX6, [1, 2, 3, 4, 5, 3])
    assert (keep.dice, keep.points, keep.full_hand) == ((1, 2, 3, 4, 5), 600, False)
    assert throw_points(DIX6, [2, 3, 4, 5, 6, 6]) == 600
    keep = best(DIX6, [1, 2, 3, 4, 5, 5])  # the straight and the other 5
    assert (keep.points, keep.full_hand) == (650, True)


# ------------------------------------------------------------------ impair (V-4)


def test_S10_impair_runs_of_three_are_200() -> None:
    assert keeps(IMPAIR, [1, 2, 3, 6, 6]) == {(1,): 100, (1, 2, 3): 200}
    assert keeps(IMPAIR, [2, 3, 4, 6, 6]) == {(2, 3, 4): 200}
    assert keeps(IMPAIR, [4, 5, 6, 2, 2]) == {(5,): 50, (4, 5, 6): 200}
    # S-12: 2 2 3 4 5 splits as the run 2-3-4 and the 5 (250), or the run 3-4-5 (200).
    assert keeps(IMPAIR, [2, 2, 3, 4, 5]) == {
        (5,): 50,
        (2, 3, 4): 200,
        (3, 4, 5): 200,
        (2, 3, 4, 5): 250,
    }


def test_S7_impair_grand_suite_is_800() -> None:
    assert throw_points(IMPAIR, [1, 2, 3, 4, 5]) == 800
    assert throw_points(IMPAIR, [2, 3, 4, 5, 6]) == 800
    assert best(IMPAIR, [2, 3, 4, 5, 6]).full_hand


def test_S3_impair_three_of_a_kind() -> None:
    assert keeps(IMPAIR, [3, 3, 3, 6, 6]) == {(3, 3, 3): 300}
    assert throw_points(IMPAIR, [1, 1, 1, 2, 6]) == 1000
    # A run and a three of a kind share a 4: one or the other.
    assert keeps(IMPAIR, [2, 3, 4, 4, 4]) == {(2, 3, 4): 200, (4, 4, 4): 400}


def test_S4_S11_impair_four_of_a_kind_is_not_a_combination() -> None:
    assert keeps(IMPAIR, [3, 3, 3, 3, 6]) == {(3, 3, 3): 300}
    assert keeps(IMPAIR, [1, 1, 1, 1, 6]) == {
        (1,): 100,
        (1, 1): 200,
        (1, 1, 1): 1000,
        (1, 1, 1, 1): 1100,
    }


def test_S5_impair_five_of_a_kind_is_1000_x_face() -> None:
    assert throw_points(IMPAIR, [3] * 5) == 3000
    assert throw_points(IMPAIR, [6] * 5) == 6000
    assert throw_points(IMPAIR, [1] * 5) == 10000
    assert not best(IMPAIR, [1] * 5).wins


# ------------------------------------------------------------------ charentaise (V-5)


def test_S14_charentaise_full_house_is_1800() -> None:
    # Seed: 6 6 6 3 3 = 6 x 100 x 3 = 1800; every scoring die is kept (keep_all_scoring).
    assert keeps(CHARENTAISE, [6, 6, 6, 3, 3]) == {(3, 3, 6, 6, 6): 1800}
    assert best(CHARENTAISE, [6, 6, 6, 3, 3]).full_hand
    assert keeps(CHARENTAISE, [2, 2, 2, 6, 6]) == {(2, 2, 2, 6, 6): 1200}


def test_S14_full_house_times_as_an_option_on_dix_mille() -> None:
    rules = load_rules("dix-mille(full_house=times)")
    assert keeps(rules, [6, 6, 6, 3, 3]) == {(6, 6, 6): 600, (3, 3, 6, 6, 6): 1800}
    # 6 6 6 1 1: the pair of 1s is worth more as two 1s (800) than as x 1 (600).
    assert throw_points(rules, [6, 6, 6, 1, 1]) == 800


# ------------------------------------------------------------------ cinq-mille


def test_S11_cinq_mille_four_twos_are_three_twos() -> None:
    assert keeps(CINQ, [2, 2, 2, 2, 3]) == {(2, 2, 2): 200}


def test_S11_cinq_mille_four_ones_are_1100() -> None:
    assert throw_points(CINQ, [1, 1, 1, 1, 3]) == 1100
    assert keeps(CINQ, [1, 1, 1, 1, 3])[(1, 1, 1, 1)] == 1100


def test_S5_cinq_mille_five_fives_are_5000() -> None:
    assert throw_points(CINQ, [5] * 5) == 5000
    assert best(CINQ, [5] * 5).full_hand


def test_S5_G5_cinq_mille_five_ones_win() -> None:
    keep = best(CINQ, [1] * 5)
    assert keep.wins
    assert keep.full_hand
    assert not best(CINQ, [5] * 5).wins


def test_S7_cinq_mille_straights_are_500() -> None:
    assert throw_points(CINQ, [1, 2, 3, 4, 5]) == 500
    assert throw_points(CINQ, [2, 3, 4, 5, 6]) == 500


def test_S2_S3_cinq_mille_example_1() -> None:
    # 2 2 3 6 5: only the 5 scores.
    assert keeps(CINQ, [2, 2, 3, 6, 5]) == {(5,): 50}
    # 3 3 3 1: 300 + 100 = 400, a full hand.
    keep = best(CINQ, [3, 3, 3, 1])
    assert (keep.dice, keep.points, keep.full_hand) == ((1, 3, 3, 3), 400, True)
    # 5 5 5 2 6: the three 5s are 500; the player may throw the 2 and the 6 again.
    assert keeps(CINQ, [5, 5, 5, 2, 6]) == {(5,): 50, (5, 5): 100, (5, 5, 5): 500}
    assert 50 + 400 + 500 == 950


def test_T2_cinq_mille_example_2_may_leave_a_scoring_die() -> None:
    # 1 4 4 5 6: keep only the 1 (100) and throw 4 4 5 6, or keep the 5 too.
    assert keeps(CINQ, [1, 4, 4, 5, 6]) == {(1,): 100, (5,): 50, (1, 5): 150}
    # 6 1 1 1: three 1s = 1000, the 6 may be thrown again; then a 3 loses everything.
    assert keeps(CINQ, [6, 1, 1, 1])[(1, 1, 1)] == 1000
    assert best(CINQ, [6, 1, 1, 1]).dice == (1, 1, 1)
    assert is_farkle(CINQ, [3])


# ------------------------------------------------------------------ 421 (V-3, S-15)


def test_V3_S15_421_on_three_dice_is_2000_and_a_full_hand() -> None:
    rules = load_rules("dix-mille(four_two_one)")
    # Seed: 1 5 2 3 3, keep the 1 and the 5 (150), throw three dice and get 4 2 1.
    assert best(rules, [1, 5, 2, 3, 3]).points == 150
    assert keeps(rules, [4, 2, 1]) == {(1,): 100, (1, 2, 4): 2000}
    assert full_hand_of(rules, [4, 2, 1], (1, 2, 4))
    assert 150 + throw_points(rules, [4, 2, 1]) == 2150


def test_V3_S15_421_does_not_count_on_five_or_four_dice() -> None:
    rules = load_rules("dix-mille(four_two_one)")
    assert keeps(rules, [4, 2, 1, 3, 3]) == {(1,): 100}
    assert keeps(rules, [4, 2, 1, 6]) == {(1,): 100}


def test_V3_S15_421_is_an_option() -> None:
    assert keeps(DIX, [4, 2, 1]) == {(1,): 100}


# ------------------------------------------------------------------ V-6, V-7 (across throws)

STRAIGHTS = load_rules("dix-mille(straights_over_throws)")
MULTIPLES = load_rules("dix-mille(multiples_over_throws)")


def test_V6_one_die_set_aside_and_four_thrown_is_500() -> None:
    # Example 1: 1 2 2 3 3, keep the 1 (100), throw four: 2 3 4 5 = +500, a full hand.
    assert keeps(STRAIGHTS, [1, 2, 2, 3, 3]) == {(1,): 100}
    context = HandContext(set_aside=(1,))
    assert keeps(STRAIGHTS, [2, 3, 4, 5], context) == {(5,): 50, (2, 3, 4, 5): 500}
    keep = best(STRAIGHTS, [2, 3, 4, 5], context)
    assert (keep.dice, keep.points, keep.full_hand) == ((2, 3, 4, 5), 500, True)
    assert 100 + keep.points == 600


def test_V6_two_dice_set_aside_and_three_thrown_is_300() -> None:
    # Example 2: keep the 1, then a 5 (+50, 150), then 2 3 4 = +300, a full hand: 450.
    assert keeps(STRAIGHTS, [5, 2, 6, 6], HandContext(set_aside=(1,))) == {(5,): 50}
    context = HandContext(set_aside=(1, 5))
    assert keeps(STRAIGHTS, [2, 3, 4], context) == {(2, 3, 4): 300}
    assert full_hand_of(STRAIGHTS, [2, 3, 4], (2, 3, 4), context)
    assert 100 + 50 + throw_points(STRAIGHTS, [2, 3, 4], context) == 450


def test_V6_only_a_straight_with_the_dice_set_aside() -> None:
    assert keeps(STRAIGHTS, [3, 4, 5, 6], HandContext(set_aside=(2,))) == {
        (5,): 50,
        (3, 4, 5, 6): 500,
    }
    assert is_farkle(STRAIGHTS, [2, 3, 4, 6], HandContext(set_aside=(1,)))
    assert is_farkle(STRAIGHTS, [2, 3, 4], HandContext(set_aside=(1, 1)))
    # Three dice set aside: no straight over throws.
    assert keeps(STRAIGHTS, [4, 5], HandContext(set_aside=(1, 2, 3))) == {(5,): 50}
    # Nothing set aside: an ordinary throw of four dice.
    assert keeps(STRAIGHTS, [2, 3, 4, 5]) == {(5,): 50}
    # Without the option the context changes nothing.
    assert keeps(DIX, [2, 3, 4, 5], HandContext(set_aside=(1,))) == {(5,): 50}


def test_V7_each_later_die_of_the_multiple_doubles_it() -> None:
    # Seed: 6 6 6 4 3 = 600; throw 4 3 again and get 6 3: the 6 doubles it, 1200.
    assert keeps(MULTIPLES, [6, 6, 6, 4, 3]) == {(6, 6, 6): 600}
    context = HandContext(set_aside=(6, 6, 6), multiples=(6,))
    assert keeps(MULTIPLES, [6, 3], context) == {(6,): 600}
    assert 600 + throw_points(MULTIPLES, [6, 3], context) == 1200
    # Throw the 3 again and get a 6: it doubles again, 2400, a full hand.
    context = HandContext(set_aside=(6, 6, 6, 6), multiples=(6,))
    keep = best(MULTIPLES, [6], context)
    assert (keep.points, keep.full_hand) == (1200, True)
    assert 1200 + keep.points == 2400


def test_V7_two_later_dice_of_the_multiple() -> None:
    context = HandContext(set_aside=(6, 6, 6), multiples=(6,))
    # 600 -> 1200 -> 2400: the two 6s add 1800.
    assert keeps(MULTIPLES, [6, 6], context) == {(6,): 600, (6, 6): 1800}


def test_V7_a_later_pair_is_a_full_house_over_throws() -> None:
    # Seed: 6 6 6 4 3 = 600, then 4 4 with the last two dice: 600 + 4 x 50 = 800.
    context = HandContext(set_aside=(6, 6, 6), multiples=(6,))
    assert keeps(MULTIPLES, [4, 4], context) == {(4, 4): 200}
    assert full_hand_of(MULTIPLES, [4, 4], (4, 4), context)
    assert 600 + throw_points(MULTIPLES, [4, 4], context) == 800


def test_V4_the_odd_combinations_worked_example_with_V7() -> None:
    """The odd-combinations section's own example, played as impair(multiples_over_throws):
    6 6 6 4 3 = 600; 6 3 then doubles it (1200), a last 6 again (2400); or 4 4 makes 800.
    The preset itself keeps V-7 off (docs/rules.md, Readings): there 4 4 is a farkle."""
    odd = load_rules("impair(multiples_over_throws)")
    assert keeps(odd, [6, 6, 6, 4, 3])[(6, 6, 6)] == 600
    context = HandContext(set_aside=(6, 6, 6), multiples=(6,))
    assert 600 + keeps(odd, [6, 3], context)[(6,)] == 1200
    last = HandContext(set_aside=(6, 6, 6, 6), multiples=(6,))
    assert 1200 + keeps(odd, [6], last)[(6,)] == 2400
    assert 600 + keeps(odd, [4, 4], context)[(4, 4)] == 800
    assert is_farkle(IMPAIR, [4, 4], context)


def test_V7_without_its_pair_rule() -> None:
    """``late_pair=false``: the multiple still grows over throws, but 4 4 thrown after 6 6 6
    with the hand's last two dice scores nothing: a farkle (one table's V-7 has no pair)."""
    rules = load_rules("dix-mille(multiples_over_throws,late_pair=false)")
    context = HandContext(set_aside=(6, 6, 6), multiples=(6,))
    assert is_farkle(rules, [4, 4], context)
    assert keeps(rules, [6, 3], context) == {(6,): 600}
    assert keeps(rules, [5, 5], context) == {(5,): 50, (5, 5): 100}  # singles still count
    # Without the pair rule full_house_pair counts nowhere: written, it is a mistake to say
    with pytest.raises(InvalidRulesError, match="full_house_pair=0 needs"):
        load_rules("dix-mille(multiples_over_throws,late_pair=false,full_house_pair=0)")


def test_V7_without_its_pair_counts_no_pair_toward_an_entry_by_one_throw() -> None:
    """The entry check (T-7 by one throw) reads the same V-7 as the game: without its pair
    rule the best throw is five 1s (4000), so an entry of 5000 is refused; with it, a pair
    worth 1000 x face reaches it."""
    entry = "multiples_over_throws,entry_by=throw,entry=5000"
    assert load_rules(f"dix-mille({entry},full_house_pair=1000)")
    with pytest.raises(InvalidRulesError, match="no player could ever enter"):
        load_rules(f"dix-mille({entry},late_pair=false)")
    # and a pair's value written beside late_pair=false is a pair rule it does not play
    with pytest.raises(InvalidRulesError, match="full_house_pair=1000 needs"):
        load_rules(f"dix-mille({entry},full_house_pair=1000,late_pair=false)")


def test_V7_a_multiple_extended_takes_every_matching_die() -> None:
    """``multiples_take_all``: after 6 6 6 set aside, a keep that adds 6s takes every 6 of
    the throw (or none of them)."""
    from zloutch.rules import IllegalKeepError, validate_keep

    rules = load_rules("dix-mille(multiples_over_throws,multiples_take_all)")
    context = HandContext(set_aside=(6, 6, 6), multiples=(6,))
    # Free, the plain V-7: one 6 alone may be kept (600) and the other thrown again.
    assert keeps(MULTIPLES, [6, 6], context) == {(6,): 600, (6, 6): 1800}
    assert keeps(rules, [6, 6], context) == {(6, 6): 1800}
    six = load_rules("dix-mille-6(multiples_over_throws,multiples_take_all)")
    free = load_rules("dix-mille-6(multiples_over_throws)")
    assert set(keeps(free, [6, 6, 1], context)) == {(1,), (6,), (1, 6), (6, 6), (1, 6, 6)}
    assert keeps(six, [6, 6, 1], context) == {(1,): 100, (6, 6): 1800, (1, 6, 6): 1900}
    with pytest.raises(IllegalKeepError) as exc:
        validate_keep(rules, [6, 6], [6], context)
    assert str(exc.value) == (
        "the 6s add to the multiple set aside: keep all 2 of them (multiples_take_all, V-7)"
    )
    # No die of the multiple's face: nothing changes; without a multiple set aside, neither.
    assert keeps(rules, [1, 4], HandContext(set_aside=(6, 6, 6), multiples=(6,))) == {(1,): 100}
    assert keeps(rules, [6, 6, 1, 3, 4]) == keeps(MULTIPLES, [6, 6, 1, 3, 4])


def test_V7_context_read_from_set_aside_dice() -> None:
    assert HandContext.from_set_aside([6, 6, 6]) == HandContext((6, 6, 6), (6,))
    assert HandContext.from_set_aside([6, 1, 6]) == HandContext((1, 6, 6), ())
    # Without the option the multiple set aside changes nothing.
    assert is_farkle(DIX, [6, 3], HandContext((6, 6, 6), (6,)))


# ------------------------------------------------------------------ the family (section 6)


def test_F5_farkle_three_ones_300_and_three_of_a_kind() -> None:
    assert keeps(FARKLE, [1, 1, 1, 2, 3, 4]) == {(1,): 100, (1, 1): 200, (1, 1, 1): 300}
    assert keeps(FARKLE, [2, 2, 2, 3, 4, 6]) == {(2, 2, 2): 200}


def test_F5_farkle_flat_multiples() -> None:
    assert keeps(FARKLE, [2, 2, 2, 2, 3, 4]) == {(2, 2, 2): 200, (2, 2, 2, 2): 1000}
    assert throw_points(FARKLE, [1, 1, 1, 1, 3, 4]) == 1000
    assert throw_points(FARKLE, [2, 2, 2, 2, 2, 3]) == 2000
    assert throw_points(FARKLE, [1, 1, 1, 1, 1, 5]) == 2050
    assert throw_points(FARKLE, [6] * 6) == 3000  # more than two triplets (2500)


def test_F5_farkle_six_dice_shapes() -> None:
    assert throw_points(FARKLE, [1, 2, 3, 4, 5, 6]) == 1500
    assert keeps(FARKLE, [2, 2, 3, 3, 4, 4]) == {(2, 2, 3, 3, 4, 4): 1500}
    # Four of a kind and a pair: 1500, more than four 2s (1000).
    assert keeps(FARKLE, [2, 2, 2, 2, 3, 3]) == {
        (2, 2, 2): 200,
        (2, 2, 2, 2): 1000,
        (2, 2, 2, 2, 3, 3): 1500,
    }
    # Four 1s and two 5s: 1500 as four and a pair, more than 1000 + 50 + 50.
    assert throw_points(FARKLE, [1, 1, 1, 1, 5, 5]) == 1500
    assert throw_points(FARKLE, [2, 2, 2, 3, 3, 3]) == 2500
    assert best(FARKLE, [2, 2, 2, 3, 3, 3]).full_hand
    # A short straight is nothing in farkle.
    assert throw_points(FARKLE, [1, 2, 3, 4, 5, 5]) == 200


def test_F5_farkle_minimal_six_twos_are_two_threes() -> None:
    assert keeps(MINIMAL, [2] * 6) == {(2, 2, 2): 200, (2,) * 6: 400}
    assert throw_points(MINIMAL, [1] * 6) == 2000
    assert keeps(MINIMAL, [2, 2, 2, 2, 3, 4]) == {(2, 2, 2): 200}
    assert is_farkle(MINIMAL, [2, 2, 3, 3, 4, 4])  # no three pairs
    assert throw_points(MINIMAL, [1, 2, 3, 4, 5, 6]) == 150  # no straight


def test_F5_zilch_four_of_a_kind_and_a_pair_is_three_pairs() -> None:
    assert keeps(ZILCH, [2, 2, 2, 2, 3, 3]) == {
        (2, 2, 2): 200,
        (2, 2, 2, 2): 400,
        (2, 2, 2, 2, 3, 3): 1500,
    }
    assert throw_points(ZILCH, [2, 2, 3, 3, 4, 4]) == 1500


def test_F5_zilch_six_twos_double_to_1600() -> None:
    assert keeps(ZILCH, [2] * 6) == {
        (2,) * 3: 200,
        (2,) * 4: 400,
        (2,) * 5: 800,
        (2,) * 6: 1600,
    }
    assert throw_points(ZILCH, [1] * 6) == 8000
    assert throw_points(ZILCH, [1, 2, 3, 4, 5, 6]) == 1500


def test_F2_zilch_no_score_bonus_on_six_dice() -> None:
    throw = [2, 2, 3, 4, 6, 6]
    score = score_throw(ZILCH, throw)
    assert not score.farkle
    assert keeps(ZILCH, throw) == {(2, 2, 3, 4, 6, 6): 500}
    assert score.points == 500
    assert score.best is not None and score.best.full_hand
    # Only on all six dice: five scoreless dice are a farkle.
    assert is_farkle(ZILCH, [2, 3, 4, 6, 6])
    # And only in rule sets that have it.
    assert is_farkle(DIX6, throw)


def test_F5_greed_only_ones_fives_and_three_of_a_kind() -> None:
    assert keeps(GREED, [2, 2, 2, 2, 3]) == {(2, 2, 2): 200}
    assert throw_points(GREED, [1, 2, 3, 4, 5]) == 150
    assert throw_points(GREED, [1, 1, 1, 5, 5]) == 1100
    assert throw_points(GREED, [1] * 5) == 1200


# ------------------------------------------------------------------ a win and its points (G-5)


def test_S5_G5_five_ones_that_win_are_still_worth_4000() -> None:
    # G-5 as an option of dix-mille: five 1s win, and read as points they stay S-5's 4000.
    rules = load_rules("dix-mille(five_ones_win)")
    score = score_throw(rules, [1] * 5)
    assert score.points == 4000
    assert [(k.dice, k.wins, k.points) for k in score.keeps[:3]] == [
        ((1,) * 5, True, 0),  # the win first
        ((1,) * 5, False, 4000),  # the same dice as points
        ((1,) * 4, False, 2000),
    ]
    assert throw_points(rules, [1, 1, 1, 1, 1]) == 4000


def test_S5_G5_cinq_mille_five_ones_are_worth_1200_as_points() -> None:
    # No five of a kind of 1s in 5000: as points they are three 1s and two single 1s.
    score = score_throw(CINQ, [1] * 5)
    assert score.best is not None and score.best.wins
    assert score.points == 1000 + 100 + 100
    # Legal keeps by dice (the later reading of the same dice, as points, shows here).
    assert keeps(CINQ, [1] * 5) == {
        (1,): 100,
        (1, 1): 200,
        (1, 1, 1): 1000,
        (1, 1, 1, 1): 1100,
        (1, 1, 1, 1, 1): 1200,
    }


def test_S6_G5_dix_mille_6_six_ones_are_worth_4100_as_points() -> None:
    # Six 1s win (S-6); as points: five 1s 4000 (doubling) and a single 1.
    score = score_throw(DIX6, [1] * 6)
    assert score.best is not None and score.best.wins
    assert score.points == 4000 + 100


def test_G5_keep_all_scoring_keeps_only_the_win() -> None:
    rules = load_rules("charentaise(five_ones_win)")
    score = score_throw(rules, [1] * 5)
    assert [(k.dice, k.wins) for k in score.keeps] == [((1,) * 5, True)]
    assert score.points == 4000
