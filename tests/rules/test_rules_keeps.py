"""Naming a keep: legal keeps come back, illegal ones say why (T-2 and the keep options)."""

from __future__ import annotations

import pytest

from zloutch.rules import (
    HandContext,
    IllegalKeepError,
    InvalidDiceError,
    load_rules,
    score_throw,
    selection_points,
    throw_points,
    validate_keep,
)

DIX = load_rules("dix-mille")
WHOLE = load_rules("dix-mille(keep_whole_multiples)")
CHARENTAISE = load_rules("charentaise")
ZILCH = load_rules("zilch")


def test_T2_a_legal_keep_comes_back_with_its_combinations() -> None:
    keep = validate_keep(DIX, [1, 1, 4, 4, 3], [1, 1])
    assert (keep.dice, keep.points, keep.full_hand) == ((1, 1), 200, False)
    assert [c.points for c in keep.combinations] == [100, 100]
    # Faces in any order.
    assert validate_keep(DIX, [3, 4, 1, 4, 1], [1]).points == 100


def test_T2_a_die_that_does_not_score() -> None:
    with pytest.raises(IllegalKeepError, match="the 3 does not score"):
        validate_keep(DIX, [1, 1, 4, 4, 3], [1, 3])
    with pytest.raises(IllegalKeepError, match="the 4 4 do not score"):
        validate_keep(DIX, [1, 1, 4, 4, 3], [4, 4])
    # Four 2s score (400), but two of them do not.
    with pytest.raises(IllegalKeepError, match="the 2 2 do not score"):
        validate_keep(DIX, [2, 2, 2, 2, 3], [2, 2])


def test_T2_a_die_that_is_not_there() -> None:
    with pytest.raises(IllegalKeepError, match="there is no 6 in the throw 1 1 3 4 4"):
        validate_keep(DIX, [1, 1, 4, 4, 3], [6])
    with pytest.raises(IllegalKeepError, match="there are only two 1s"):
        validate_keep(DIX, [1, 1, 4, 4, 3], [1, 1, 1])
    with pytest.raises(IllegalKeepError, match="there is only one 5"):
        validate_keep(DIX, [1, 5, 4, 4, 3], [5, 5])


def test_T2_an_empty_keep() -> None:
    with pytest.raises(IllegalKeepError, match=r"keep at least one scoring die \(T-2\)"):
        validate_keep(DIX, [1, 1, 4, 4, 3], [])


def test_T2_dix_mille_may_leave_scoring_dice() -> None:
    # Reading of T-2: in dix-mille a scoring die may be thrown again.
    assert validate_keep(DIX, [1, 1, 1, 5, 3], [1]).points == 100
    assert validate_keep(DIX, [1, 1, 1, 5, 3], [1, 1, 1]).points == 1000


def test_keep_whole_multiples_three_ones_must_be_taken_whole() -> None:
    throw = [1, 1, 1, 5, 3]
    for kept in ([1], [1, 1], [1, 5], [1, 1, 5]):
        with pytest.raises(IllegalKeepError, match="three 1s must be taken whole"):
            validate_keep(WHOLE, throw, kept)
    assert validate_keep(WHOLE, throw, [1, 1, 1]).points == 1000
    assert validate_keep(WHOLE, throw, [5]).points == 50
    assert validate_keep(WHOLE, throw, [1, 1, 1, 5]).points == 1050
    assert {k.dice for k in score_throw(WHOLE, throw).keeps} == {
        (5,),
        (1, 1, 1),
        (1, 1, 1, 5),
    }


def test_keep_whole_multiples_takes_the_largest_multiple() -> None:
    # Four 1s are a combination in dix-mille (2000): the whole four must be kept.
    with pytest.raises(IllegalKeepError, match="four 1s must be taken whole"):
        validate_keep(WHOLE, [1, 1, 1, 1, 3], [1, 1, 1])
    assert validate_keep(WHOLE, [1, 1, 1, 1, 3], [1, 1, 1, 1]).points == 2000
    # In cinq-mille four 2s are three 2s (S-11): the three are the multiple.
    cinq = load_rules("cinq-mille(keep_whole_multiples)")
    assert validate_keep(cinq, [2, 2, 2, 2, 3], [2, 2, 2]).points == 200


def test_keep_all_scoring_charentaise() -> None:
    throw = [1, 1, 1, 5, 3]
    with pytest.raises(IllegalKeepError) as caught:
        validate_keep(CHARENTAISE, throw, [1, 1, 1])
    message = str(caught.value)
    assert "keep_all_scoring" in message
    assert "keep 1 1 1 5" in message
    for kept in ([1], [5], [1, 5]):
        with pytest.raises(IllegalKeepError, match="keep_all_scoring"):
            validate_keep(CHARENTAISE, throw, kept)
    assert validate_keep(CHARENTAISE, throw, [1, 1, 1, 5]).points == 1050
    assert [k.dice for k in score_throw(CHARENTAISE, throw).keeps] == [(1, 1, 1, 5)]


def test_keep_all_scoring_still_reports_dice_that_do_not_score() -> None:
    with pytest.raises(IllegalKeepError, match="the 3 does not score"):
        validate_keep(CHARENTAISE, [1, 1, 1, 5, 3], [1, 1, 1, 5, 3])


def test_keeps_in_a_throw_that_is_not_legal() -> None:
    with pytest.raises(InvalidDiceError, match="empty"):
        validate_keep(DIX, [], [1])
    with pytest.raises(InvalidDiceError):
        validate_keep(DIX, [1, 1, 1, 1, 1, 1], [1])
    with pytest.raises(InvalidDiceError):
        validate_keep(DIX, [1, 7], [1])
    with pytest.raises(InvalidDiceError):
        score_throw(DIX, [0, 1])


def test_too_many_dice_with_those_set_aside() -> None:
    # Five dice in hand: three set aside leave two to throw, with or without V-6/V-7.
    aside = HandContext(set_aside=(1, 1, 1))
    with pytest.raises(InvalidDiceError, match="3 dice thrown with 3 set aside"):
        score_throw(DIX, [1, 5, 5], aside)
    with pytest.raises(InvalidDiceError, match="3 dice thrown with 3 set aside"):
        score_throw(load_rules("dix-mille(multiples_over_throws)"), [1, 5, 5], aside)
    assert throw_points(DIX, [5, 5], aside) == 100


# ------------------------------------------------------------ the two scoring semantics


def test_throw_points_scores_the_whole_throw_ignoring_dead_dice() -> None:
    assert throw_points(DIX, [1, 1, 4, 4, 3]) == 200
    assert throw_points(DIX, [1, 1, 1, 5, 3]) == 1050
    assert throw_points(DIX, [2, 3, 4, 6, 6]) == 0
    assert throw_points(ZILCH, [2, 2, 3, 4, 6, 6]) == 500  # F-2 bonus


def test_selection_points_needs_every_die_to_score() -> None:
    assert selection_points(DIX, [1, 1]) == 200
    assert selection_points(DIX, [5, 1]) == 150
    assert selection_points(DIX, [2, 2, 2]) == 200
    with pytest.raises(IllegalKeepError, match="the 4 does not score"):
        selection_points(DIX, [1, 1, 4])
    # Read inside its throw: the keep rules of the rule set apply.
    assert selection_points(DIX, [1, 5], throw=[1, 5, 2, 3, 3]) == 150
    with pytest.raises(IllegalKeepError, match="keep_all_scoring"):
        selection_points(CHARENTAISE, [1], throw=[1, 1, 1, 5, 3])


def test_selection_points_421_depends_on_the_dice_thrown() -> None:
    rules = load_rules("dix-mille(four_two_one)")
    # Without a throw the selection is the whole throw: three dice, 4-2-1 = 2000.
    assert selection_points(rules, [4, 2, 1]) == 2000
    # Kept out of five dice thrown, 4-2-1 is no combination.
    with pytest.raises(IllegalKeepError, match="the 2 4 do not score"):
        selection_points(rules, [1, 2, 4], throw=[1, 2, 4, 3, 3])


# ------------------------------------------------------------------ faces and contexts from the API


@pytest.mark.parametrize("kept", [[7], [0], [1, 7], [-1]])
def test_a_kept_face_outside_one_to_six_is_invalid_dice(kept: list[int]) -> None:
    with pytest.raises(InvalidDiceError, match="is not a die face: faces are 1 to 6"):
        validate_keep(DIX, [1, 2, 3, 6], kept)


@pytest.mark.parametrize("thrown", [[7, 1], [0, 1], [1, 1, 9]])
def test_a_thrown_face_outside_one_to_six_is_invalid_dice(thrown: list[int]) -> None:
    with pytest.raises(InvalidDiceError, match="faces are 1 to 6"):
        validate_keep(DIX, thrown, [1])
    with pytest.raises(InvalidDiceError, match="faces are 1 to 6"):
        score_throw(DIX, thrown)


@pytest.mark.parametrize(
    ("context", "words"),
    [
        ({"set_aside": (7,)}, "7 is not a die face"),
        ({"set_aside": (0, 1)}, "0 is not a die face"),
        ({"set_aside": (6, 6, 6), "multiples": (9,)}, "9 is not a die face"),
        ({"set_aside": (6,), "multiples": (6,)}, "only one 6 is set aside"),
        ({"set_aside": (6, 6, 2), "multiples": (6,)}, "only two 6s are set aside"),
        ({"multiples": (3,)}, "and no 3 is set aside"),
        ({"set_aside": (6, 6, 6), "multiples": (6, 6)}, "listed twice"),
    ],
)
def test_v7_a_hand_context_that_cannot_be_is_refused(
    context: dict[str, tuple[int, ...]], words: str
) -> None:
    with pytest.raises(InvalidDiceError, match=words):
        HandContext(**context)


def test_v7_points_over_throws_stay_whole_numbers() -> None:
    rules = load_rules("dix-mille(multiples_over_throws)")
    for aside, throw in (((6, 6, 6), [6, 2]), ((6, 6, 6, 6), [6])):
        for keep in score_throw(rules, throw, HandContext.from_set_aside(aside)).scoring:
            assert type(keep.points) is int
            assert all(type(c.points) is int for c in keep.combinations)
    # 6 6 6 then 6 6 6 6: the fourth 6 doubles 600 (docs/rules.md V-7).
    context = HandContext.from_set_aside((6, 6, 6))
    assert validate_keep(rules, [6, 2], [6], context).points == 600
