"""The rule set's own reading of its options (``RuleSet.acting_options``)."""

from __future__ import annotations

import pytest

from zloutch.rules import load_rules


@pytest.mark.parametrize(
    ("spec", "acting", "inert"),
    [
        ("greed", {"entry", "target", "final_turns"}, {"overshoot", "farkle_penalty_after"}),
        ("dix-mille", {"overshoot", "ticks_restart", "reentry"}, {"fallback_bumps", "late_pair"}),
        ("greed(farkle_penalty=500)", {"farkle_penalty", "farkle_penalty_after"}, set()),
        ("greed(ticks_to_cross=3)", {"ticks_restart", "reentry"}, {"overshoot"}),
        ("greed(entry=0)", set(), {"entry_by", "reentry", "take_back_counts_for_entry"}),
    ],
)
def test_the_options_that_act_leave_out_those_that_act_only_with_another(
    spec: str, acting: set[str], inert: set[str]
) -> None:
    """What the table's rules panel lists as in play: an option that acts only with another
    (overshoot with an exact target, the penalty's count with a penalty) is left out where
    that other is off, and the number of players never counts."""
    found = set(load_rules(spec).acting_options())
    assert acting <= found, found
    assert not (inert | {"min_players", "max_players"}) & found, found
