"""The rule sets the generic tests run on: every preset, option combinations, a family file."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from zloutch.rules import PRESETS, RuleSet, load_rules, parse_rules_text

RULES_SETTINGS = settings(
    deadline=None,  # tables are built on first use: a tenth of a second for six dice
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow],
)
"""Hypothesis settings of the rules tests (applied per test, not as a global profile)."""

OPTION_SPECS: tuple[str, ...] = (
    "dix-mille(full_house=sum)",
    "dix-mille(full_house=times)",
    "dix-mille(four_two_one)",
    "dix-mille(keep_whole_multiples)",
    "dix-mille(keep_all_scoring)",
    "dix-mille(five_ones_win,four_two_one,full_house=sum,keep_whole_multiples)",
    "dix-mille-6(four_two_one,keep_whole_multiples)",
    "dix-mille-6(full_house=times,keep_all_scoring)",
    "cinq-mille(keep_whole_multiples,full_house=sum)",
    "impair(four_two_one,full_house=times,keep_all_scoring)",
    "farkle(full_house=sum,four_two_one)",
    "farkle(keep_whole_multiples)",
    "farkle(keep_every_multiple)",
    "dix-mille(keep_every_multiple,full_house=sum)",
    "zilch(keep_all_scoring)",
    "greed(full_house=sum,full_house_pair=100,keep_whole_multiples)",
    "dix-mille(keep_all_scoring,joker)",  # the 10,000 article's keep: all but the jokers
)
"""Presets with the scoring and keep options switched (full house, 421, keep rules)."""

FAMILY_TOML = """
# Every F-5 shape the presets do not use, in one six-dice file.
[rules]
name = "family"
summary = "six as three pairs, (n-2) x three, three + K, per-face values, a run on three dice"
dice = 6

[scoring]
singles = { 1 = 100, 5 = 50 }
three_pairs = 750
four_and_pair_as_three_pairs = true
six_of_a_kind_as_three_pairs = true
four_and_pair = 1250
two_triplets = 2500
full_house = "sum"
full_house_pair = 25
keep_whole_multiples = true

[scoring.kinds]
3 = { default = "100 x face", 1 = 300, 2 = "none" }
4 = { default = "(n-2) x three", 2 = 700, 6 = 1500 }
5 = { default = "three + 400 per extra die", 2 = 2000, thrown = 6 }
6 = { default = "double", 1 = "win" }

[[scoring.patterns]]
faces = [1, 2, 3, 4, 5, 6]
points = 2500

[[scoring.patterns]]
name = "little run"
faces = [4, 5, 6]
points = 250
thrown = 3

[game]
target = 10000

[variants]
four_two_one = true
"""


def family_rules() -> RuleSet:
    return parse_rules_text(FAMILY_TOML, source="family")


def preset_rules() -> list[RuleSet]:
    return [load_rules(name) for name in PRESETS]


def option_rules() -> list[RuleSet]:
    return [load_rules(spec) for spec in OPTION_SPECS]


def all_rules() -> list[RuleSet]:
    """Every rule set the generic tests run on."""
    return [*preset_rules(), *option_rules(), family_rules()]


def rules_id(rules: RuleSet) -> str:
    return rules.spec
