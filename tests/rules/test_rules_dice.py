"""Dice, throws and multisets."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import prod

import pytest

from zloutch.rules import InvalidDiceError, format_dice, parse_dice
from zloutch.rules.dice import (
    all_throws,
    contains,
    counts,
    difference,
    from_counts,
    multisets,
    probability,
    sub_multisets,
)


@pytest.mark.parametrize("text", ["1 1 5", "115", "1,1,5", "5, 1 ,1", " 5 1 1 ", "1,15"])
def test_parse_dice_accepts_the_ways_people_write_faces(text: str) -> None:
    assert parse_dice(text) == (1, 1, 5)


def test_parse_dice_accepts_lists_of_words_and_ints() -> None:
    assert parse_dice(["1", "15"]) == (1, 1, 5)
    assert parse_dice(["5", "1", "1"]) == (1, 1, 5)
    assert parse_dice([5, 1, 1]) == (1, 1, 5)
    assert parse_dice("654321") == (1, 2, 3, 4, 5, 6)


@pytest.mark.parametrize(
    ("text", "bad"),
    [("0", "'0'"), ("7", "'7'"), ("1 7", "'7'"), ("x", "'x'"), ("1 x 5", "'x'"), ("-1", "'-1'")],
)
def test_parse_dice_rejects_faces_outside_one_to_six(text: str, bad: str) -> None:
    with pytest.raises(InvalidDiceError, match=bad):
        parse_dice(text)


def test_parse_dice_rejects_a_face_hidden_in_a_run_of_digits() -> None:
    with pytest.raises(InvalidDiceError, match="'7'"):
        parse_dice("117")
    with pytest.raises(InvalidDiceError, match="'10'"):
        parse_dice([10])
    with pytest.raises(InvalidDiceError, match="'²'"):
        parse_dice("1 ²")


def test_parse_dice_rejects_too_many_dice() -> None:
    with pytest.raises(InvalidDiceError, match="7 dice given"):
        parse_dice("1 1 1 1 1 1 1")
    with pytest.raises(InvalidDiceError, match="at most 5"):
        parse_dice("123456", max_dice=5)
    assert parse_dice("12345", max_dice=5) == (1, 2, 3, 4, 5)


def test_format_dice() -> None:
    assert format_dice((1, 1, 5)) == "1 1 5"
    assert format_dice(()) == ""


def test_counts_and_back() -> None:
    assert counts((1, 1, 5, 6)) == (2, 0, 0, 0, 1, 1)
    assert from_counts((2, 0, 0, 0, 1, 1)) == (1, 1, 5, 6)


def test_number_of_multisets() -> None:
    assert [len(list(multisets(n))) for n in range(1, 7)] == [6, 21, 56, 126, 252, 462]
    assert len(list(all_throws(6))) == 923
    assert len(list(all_throws(5))) == 461
    throws = list(all_throws(6))
    assert len(set(throws)) == 923
    assert all(t == tuple(sorted(t)) for t in throws)


@pytest.mark.parametrize("n", range(1, 7))
def test_probabilities_of_the_multisets_sum_to_one(n: int) -> None:
    total = sum(probability(m) for m in multisets(n))
    assert total == 1
    assert isinstance(total, Fraction)


@pytest.mark.parametrize("n", range(1, 5))
def test_probability_counts_ordered_rolls(n: int) -> None:
    rolls: dict[tuple[int, ...], int] = {}
    for roll in product(range(1, 7), repeat=n):
        key = tuple(sorted(roll))
        rolls[key] = rolls.get(key, 0) + 1
    for multiset, ways in rolls.items():
        assert probability(multiset) == Fraction(ways, 6**n)


def test_probability_examples() -> None:
    assert probability((1, 1)) == Fraction(1, 36)
    assert probability((1, 2)) == Fraction(2, 36)
    assert probability((1, 2, 3, 4, 5, 6)) == Fraction(720, 6**6)


def test_sub_multisets_each_once() -> None:
    dice = (1, 1, 5, 6, 6, 6)
    subs = list(sub_multisets(dice))
    assert len(subs) == len(set(subs)) == prod(k + 1 for k in counts(dice) if k) == 24
    assert () in subs
    assert dice in subs
    assert all(contains(dice, s) for s in subs)


def test_sub_multisets_come_in_the_order_of_a_product_over_the_counts() -> None:
    """Every throw's parts, sorted, in the order of ``itertools.product`` over each face's
    count (the first face's changing slowest): the order in which a table lists keeps of
    equal rank, so the same as the plain definition, throw by throw."""
    from itertools import product

    for dice in all_throws(6):
        plain = tuple(from_counts(c) for c in product(*(range(k + 1) for k in counts(dice))))
        assert sub_multisets(dice) == plain, dice
        assert all(list(part) == sorted(part) for part in plain)


def test_difference_and_contains() -> None:
    assert difference((1, 1, 5, 6), (1, 6)) == (1, 5)
    assert contains((1, 1, 5), (1, 1))
    assert not contains((1, 1, 5), (1, 1, 1))
    assert not contains((1, 1, 5), (2,))
