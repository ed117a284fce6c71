"""The score tables equal the slow reference scorer on every multiset of every rule set."""

from __future__ import annotations

from itertools import combinations_with_replacement
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from reference import Reference, reference, set_partitions
from rules_cases import RULES_SETTINGS, all_rules, family_rules, rules_id
from rules_strategies import rule_documents

from zloutch.rules import InvalidRulesError, RuleSet, ScoredKeep, load_rules, score_table
from zloutch.rules.loader import parse_rules


def summary(keeps: tuple[ScoredKeep, ...]) -> dict[tuple[tuple[int, ...], bool], tuple[int, bool]]:
    """Keeps by (dice, wins): (points, full hand); each key at most once."""
    found = {(k.dice, k.wins): (k.points, k.full_hand) for k in keeps}
    assert len(found) == len(keeps), "a selection is listed twice with the same reading"
    return found


def every_multiset(dice: int) -> list[tuple[int, ...]]:
    return [
        throw for n in range(1, dice + 1) for throw in combinations_with_replacement(range(1, 7), n)
    ]


def test_reference_partitions_are_bell_numbers() -> None:
    assert [len(set_partitions(tuple(range(n)))) for n in range(7)] == [1, 1, 2, 5, 15, 52, 203]
    # Every partition covers the items once.
    for partition in set_partitions((0, 1, 2, 3)):
        assert sorted(i for block in partition for i in block) == [0, 1, 2, 3]


def test_reference_scores_hand_examples() -> None:
    """The reference itself, checked on values worked out by hand."""
    dix = Reference(load_rules("dix-mille"))
    score = dix.score((3, 4, 1, 4, 1))
    assert {d: k.points for (d, _), k in score.scoring.items()} == {(1,): 100, (1, 1): 200}
    assert dix.score((1, 2, 3, 4, 5)).scoring[((1, 2, 3, 4, 5), False)].points == 1500
    assert dix.score((4, 4, 2, 6, 3)).farkle
    zilch = Reference(load_rules("zilch"))
    assert zilch.score((2, 2, 2, 2, 3, 3)).scoring[((2, 2, 2, 2, 3, 3), False)].points == 1500
    assert zilch.score((2, 2, 3, 4, 6, 6)).scoring[((2, 2, 3, 4, 6, 6), False)].points == 500
    charentaise = Reference(load_rules("charentaise"))
    assert set(charentaise.score((1, 1, 1, 5, 3)).legal) == {((1, 1, 1, 5), False)}
    assert charentaise.score((6, 6, 6, 3, 3)).legal[((3, 3, 6, 6, 6), False)].points == 1800
    # G-5: five 1s win in cinq-mille, and read as points are 1000 + 100 + 100.
    cinq = Reference(load_rules("cinq-mille")).score((1, 1, 1, 1, 1))
    assert cinq.scoring[((1, 1, 1, 1, 1), True)].points == 0
    assert cinq.scoring[((1, 1, 1, 1, 1), False)].points == 1200


def test_reference_evaluates_the_kind_rules_itself() -> None:
    """Every kind rule word, evaluated from the rule's text (worked out by hand, F-5)."""
    family = Reference(family_rules())
    # 3 = { default = "100 x face", 1 = 300, 2 = "none" }
    assert [family.kind(3, f) for f in range(1, 7)] == [300, None, 300, 400, 500, 600]
    # 4 = { default = "(n-2) x three", 2 = 700, 6 = 1500 }
    assert [family.kind(4, f) for f in range(1, 7)] == [600, 700, 600, 800, 1000, 1500]
    # 5 = { default = "three + 400 per extra die", 2 = 2000 }
    assert family.kind(5, 4) == 400 + 2 * 400
    assert family.kind(5, 2) == 2000  # flat, for the face whose three is none
    # 6 = { default = "double", 1 = "win" }: twice five of a kind
    assert (family.kind(6, 1), family.kind(6, 3)) == ("win", 2 * (300 + 2 * 400))
    dix = Reference(load_rules("dix-mille"))
    assert [dix.kind(n, 1) for n in (3, 4, 5)] == [1000, 2000, 4000]  # doubling
    assert dix.kind(6, 1) is None  # no rule for six: no combination
    impair = Reference(load_rules("impair"))
    assert (impair.kind(5, 3), impair.kind(5, 1), impair.kind(4, 3)) == (3000, 10000, None)
    # G-5 adds a win to five 1s, and keeps what their kind rule makes them worth.
    g5 = Reference(load_rules("dix-mille(five_ones_win)")).score((1, 1, 1, 1, 1))
    assert g5.scoring[((1, 1, 1, 1, 1), True)].wins
    assert g5.scoring[((1, 1, 1, 1, 1), False)].points == 4000


def test_multiset_counts() -> None:
    assert len(every_multiset(5)) == 461
    assert len(every_multiset(6)) == 923


QUICK_DICE = 5
"""The default run compares the throws of up to five dice; the throws of six dice (half the
multisets, and most of the time) are compared under ``-m slow``."""


def reference_cases() -> list[object]:
    """Every rule set with every multiset of its dice; a six-dice set also with its throws
    of up to five dice in the default run."""
    cases: list[object] = []
    for rules in all_rules():
        if rules.dice > QUICK_DICE:
            cases.append(pytest.param(rules, QUICK_DICE, id=f"{rules_id(rules)}-{QUICK_DICE}"))
            cases.append(
                pytest.param(rules, rules.dice, id=rules_id(rules), marks=pytest.mark.slow)
            )
        else:
            cases.append(pytest.param(rules, rules.dice, id=rules_id(rules)))
    return cases


@pytest.mark.default_cases(10)
@pytest.mark.parametrize(("rules", "most"), reference_cases())
def test_table_equals_reference_on_every_multiset(rules: RuleSet, most: int) -> None:
    table = score_table(rules)
    ref = reference(rules)
    mismatches: list[str] = []
    throws = every_multiset(most)
    assert len(throws) == {5: 461, 6: 923}[most]
    for throw in throws:
        got = table.lookup(throw)
        want = ref.score(throw)
        scoring = summary(got.scoring)
        ref_scoring = {key: (k.points, k.full_hand) for key, k in want.scoring.items()}
        legal = summary(got.keeps)
        ref_legal = {key: (k.points, k.full_hand) for key, k in want.legal.items()}
        if scoring != ref_scoring:
            mismatches.append(f"{throw} scoring: table {scoring} != reference {ref_scoring}")
        if legal != ref_legal:
            mismatches.append(f"{throw} keeps: table {legal} != reference {ref_legal}")
        if got.farkle != want.farkle:
            mismatches.append(f"{throw} farkle: table {got.farkle} != reference {want.farkle}")
        # Whole-throw points: the most points of any reading (a winning keep carries none).
        top = max((k.points for k in want.scoring.values()), default=0)
        if got.points != top:
            mismatches.append(f"{throw} points: table {got.points} != reference {top}")
    assert not mismatches, "\n".join(mismatches[:20])


@settings(
    RULES_SETTINGS,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(rule_documents(), st.data())
def test_table_equals_reference_on_random_rule_files(
    doc: dict[str, Any], data: st.DataObject
) -> None:
    """Rule files nobody wrote by hand: the tables still equal the definition."""
    try:
        rules = parse_rules(doc, source="fuzz", load_base=load_rules)
    except InvalidRulesError:
        assume(False)
        return
    table = score_table(rules)
    ref = Reference(rules)
    throws = data.draw(
        st.lists(st.lists(st.integers(1, 6), min_size=1, max_size=rules.dice), max_size=40)
    )
    for throw in [*every_multiset(min(rules.dice, 3)), *throws]:
        got, want = table.lookup(throw), ref.score(tuple(throw))
        assert summary(got.scoring) == {
            key: (k.points, k.full_hand) for key, k in want.scoring.items()
        }, (rules.spec, throw)
        assert summary(got.keeps) == {
            key: (k.points, k.full_hand) for key, k in want.legal.items()
        }, (rules.spec, throw)


def test_reference_never_asks_the_rule_set_for_its_kind_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reference reads the raw kind rules: the rule set's own evaluation is not used."""
    rule_sets = [
        load_rules("dix-mille(five_ones_win,keep_whole_multiples,full_house=sum)"),
        load_rules("cinq-mille(keep_whole_multiples)"),
        family_rules(),
    ]

    def refuse(self: RuleSet) -> None:
        raise AssertionError("the reference must evaluate the kind rules itself")

    monkeypatch.setattr(RuleSet, "kinds_values", refuse)
    for rules in rule_sets:
        ref = Reference(rules)
        for throw in every_multiset(min(rules.dice, 5)):
            ref.score(throw)
