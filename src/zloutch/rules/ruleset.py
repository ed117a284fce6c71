"""The rule set: everything a table decides, as one frozen, typed value.

A ``RuleSet`` is data. Presets are TOML files (``presets/*.toml``); users write their own
files in the same format (``docs/rules-format.md``). Every scalar rule is an *option* that
can be switched by name on any rule set: ``dix-mille(bump=any,entry=800,joker)``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from math import gcd
from typing import Literal

from zloutch.rules.dice import Dice, Face

OptionValue = bool | int | str

KIND_WORDS = {3: "three", 4: "four", 5: "five", 6: "six"}


@dataclass(frozen=True)
class KindRule:
    """How ``count`` dice of one face score (F-5): one rule for every face, with overrides.

    A rule is a canonical text: ``"none"`` (not a combination), ``"win"`` (wins the game),
    ``"double"`` (twice the value of one die fewer), ``"(n-2) x three"``, ``"K x face"``
    or a flat number of points such as ``"1000"``.
    """

    count: int
    default: str
    faces: tuple[tuple[Face, str], ...] = ()
    """Per-face overrides, sorted by face."""

    def rule_for(self, face: Face) -> str:
        for f, rule in self.faces:
            if f == face:
                return rule
        return self.default


@dataclass(frozen=True)
class Pattern:
    """A fixed multiset of faces that scores as one combination: straights, runs, 421."""

    name: str
    faces: Dice
    points: int
    thrown: int = 0
    """Counts only when exactly this many dice are thrown (421: 3); 0 means any throw."""


@dataclass(frozen=True)
class Scoring:
    """What one throw is worth (section 1 of RULES.md, F-2, F-5, T-2)."""

    singles: tuple[tuple[Face, int], ...] = ((1, 100), (5, 50))
    """Points of a single die by face (S-2)."""
    kinds: tuple[KindRule, ...] = ()
    """Three to six of a kind (S-3..S-6, S-11); a count not listed is not a combination."""
    patterns: tuple[Pattern, ...] = ()
    """Straights, runs and other fixed faces (S-7, S-8, S-10)."""
    three_pairs: int = 0
    """Points of three pairs (S-9); 0 = not a combination."""
    four_and_pair_as_three_pairs: bool = False
    """F-5: four of a kind plus a pair also counts as three pairs."""
    six_of_a_kind_as_three_pairs: bool = False
    """F-5: six of a kind also counts as three pairs."""
    four_and_pair: int = 0
    """F-5: points of four of a kind plus a pair of another face; 0 = not a combination."""
    two_triplets: int = 0
    """F-5: points of two three-of-a-kinds of different faces; 0 = not a combination."""
    full_house: Literal["off", "sum", "times"] = "off"
    """Three of a kind plus a pair: off, ``sum`` (S-13: three + pair x face) or ``times`` (S-14)."""
    full_house_pair: int = 50
    """S-13: with ``full_house = "sum"``, the pair is worth this many points times its face."""
    no_score_bonus: int = 0
    """F-2: a throw of all the dice that scores nothing is worth this much; 0 = off."""
    keep_all_scoring: bool = False
    """T-2 option: every scoring die must be kept, at its best value (charentaise)."""
    keep_whole_multiples: bool = False
    """F-5: a keep that takes dice of a multiple (three of a kind or more) must take it
    whole."""


@dataclass(frozen=True)
class TurnRules:
    """How a turn goes (section 2: T-, and F-1, F-3)."""

    full_hand: Literal["forced", "optional"] = "optional"
    """T-5: after a full hand, all the dice must be thrown again, or the player may bank."""
    bank_multiple_of_100: bool = False
    """T-6: a turn total ending in 50 cannot be banked."""
    entry: int = 0
    """T-7: the first bank needs at least this much; 0 = no entry."""
    entry_by: Literal["turn", "throw"] = "turn"
    """T-7: entry is reached by the turn total, or by one single throw of the turn."""
    min_bank: int = 0
    """F-3: a turn total below this cannot be banked (T-8 Reading: 200 in dix-mille)."""
    petit_palier: bool = False
    """T-8: a bank of exactly 100 is allowed after entry, marked pp."""
    full_hand_win: bool = False
    """T-10: a full hand that lands exactly on the target may be banked to win."""
    full_hand_win_from: int = 1500
    """T-10: the turn total needed for that."""
    figure_full_hand: bool = False
    """S-16 Reading: where a figure leaves dice (six dice), a keep with five of a kind, a
    straight of five or more or a full house is a full hand: all the dice are thrown again
    (true); false: a full hand is every die set aside. Changes nothing with five dice."""
    farkle_penalty: int = 0
    """F-1: points lost at the ``farkle_penalty_after``-th farkle in a row; 0 = off."""
    farkle_penalty_after: int = 3
    """F-1: how many farkles in a row cost the penalty."""


@dataclass(frozen=True)
class GameRules:
    """How a game goes (section 3: G-, and F-4)."""

    target: int = 10000
    """G-2: the score to reach."""
    exact_target: bool = False
    """T-9: the target must be hit exactly; a turn that would pass it is a farkle."""
    ticks_to_cross: int = 0
    """G-3: at this many ticks the current level is crossed; 0 = no ticks."""
    ticks_restart: bool = True
    """G-3 Reading: after a crossing, ticks restart from 0 at the level fallen back to (true);
    false: that level keeps the ticks written beside it, and they count toward its crossing."""
    bump: Literal["off", "current", "any"] = "off"
    """G-4: banking a level equal to another player's current (or any) level crosses it."""
    fallback_bumps: bool = False
    """G-4 Reading: a player who falls back onto another's level bumps it too."""
    five_ones_win: bool = False
    """G-5: five 1s in one throw win the game at once."""
    final_round: bool = False
    """G-6: when a player reaches the target the round is finished, and may re-open."""
    final_turns: bool = False
    """F-4: when a player reaches the target every other player gets one more turn."""
    last_thousand: bool = False
    """G-7: points above target - 1000 count only in the turn that reaches the target."""
    take_back: bool = False
    """G-8: the next player may continue a turn banked with dice left on the table."""
    take_back_counts_for_entry: bool = True
    """G-8 Reading: the inherited total counts toward entry (T-7)."""
    reentry: bool = True
    """T-7 Reading: a player whose every level is crossed must enter again with the entry
    minimum (true); false: once entered, always entered."""
    min_players: int = 1
    """G-1: the fewest players a game may have."""
    max_players: int = 8
    """G-1: the most players a game may have (at most 8)."""


@dataclass(frozen=True)
class Variants:
    """The variants of section 4 (V-), each an option."""

    confirmation: bool = False
    """V-1: every figure must be confirmed by a later 1 or 5 before banking."""
    joker: bool = False
    """V-2: scoring dice may be set aside as jokers, thrown only after a farkle."""
    joker_keeps_points: bool = False
    """V-2 Reading: thrown jokers lose their own points (false) or keep them (true)."""
    four_two_one: bool = False
    """V-3 / S-15: 4-2-1 on exactly three thrown dice scores 2000 and is a full hand."""
    straights_over_throws: bool = False
    """V-6: a straight completed with the dice set aside scores 500 (one) or 300 (two)."""
    multiples_over_throws: bool = False
    """V-7: each later die of a set-aside multiple doubles it; a later pair is a full house."""

    @property
    def across_throws(self) -> bool:
        """V-6 or V-7: what a throw scores depends on the dice already set aside."""
        return self.straights_over_throws or self.multiples_over_throws


SECTIONS: dict[str, type] = {
    "scoring": Scoring,
    "turn": TurnRules,
    "game": GameRules,
    "variants": Variants,
}

_STRUCTURED = {"singles", "kinds", "patterns"}


def _option_table() -> dict[str, tuple[str, dataclasses.Field[object]]]:
    table: dict[str, tuple[str, dataclasses.Field[object]]] = {}
    for section, cls in SECTIONS.items():
        for f in dataclasses.fields(cls):
            if f.name in _STRUCTURED:
                continue
            if f.name in table:  # pragma: no cover - guarded by a test
                raise AssertionError(f"option name {f.name} is not unique")
            table[f.name] = (section, f)
    return table


OPTIONS: dict[str, tuple[str, dataclasses.Field[object]]] = _option_table()
"""Every option by name: its section and its field (type, default, docstring)."""


def option_kind(name: str) -> str:
    """``"bool"``, ``"int"``, or ``"choice"`` for an option name."""
    ftype = str(OPTIONS[name][1].type)
    if ftype == "bool":
        return "bool"
    if ftype == "int":
        return "int"
    return "choice"


def option_choices(name: str) -> tuple[str, ...]:
    """The allowed words of a choice option (from its ``Literal`` type)."""
    ftype = str(OPTIONS[name][1].type)
    inner = ftype[ftype.index("[") + 1 : ftype.rindex("]")]
    return tuple(part.strip().strip("'\"") for part in inner.split(","))


def format_option(name: str, value: OptionValue) -> str:
    """An option as written in a spec: ``joker``, ``joker=false``, ``entry=800``."""
    if value is True:
        return name
    if value is False:
        return f"{name}=false"
    return f"{name}={value}"


@dataclass(frozen=True)
class RuleSet:
    """Everything a rule set decides. Build one with ``zloutch.rules.load_rules``."""

    name: str
    """The table's name (``dix-mille``)."""
    summary: str
    """One line that says what this rule set is."""
    dice: int
    """Number of dice in a full hand: 5 or 6 (or fewer, for study)."""
    scoring: Scoring = field(default_factory=Scoring)
    turn: TurnRules = field(default_factory=TurnRules)
    game: GameRules = field(default_factory=GameRules)
    variants: Variants = field(default_factory=Variants)
    source: str = ""
    """The preset name or file path this rule set was loaded from; empty when it was built
    from text or in code."""
    options: tuple[tuple[str, OptionValue], ...] = ()
    """The options switched on the source, sorted by name, only those that change it."""

    def option(self, name: str) -> OptionValue:
        """The value of an option, by name."""
        section, _ = OPTIONS[name]
        value: OptionValue = getattr(getattr(self, section), name)
        return value

    @property
    def spec(self) -> str:
        """The canonical spec string: ``load_rules(rules.spec)`` gives this rule set back.

        A preset, or a rule file, and the options switched on it (``dix-mille(entry=800)``).
        A rule set built from text or in code has no file to name: when it is a preset with
        options switched (its name is the preset's, and nothing else differs), its spec is
        that preset with those options; otherwise no spec can load it, and its spec is its
        name in angle brackets (``<house>``), which ``load_rules`` refuses with the reason.
        Such a rule set round-trips through ``to_toml`` and a file instead.
        """
        from zloutch.rules.loader import canonical_spec  # the loader knows the presets

        return canonical_spec(self)

    def replace_options(self, values: dict[str, OptionValue]) -> RuleSet:
        """A copy with these option values set (no validation: use ``with_options``)."""
        sections: dict[str, object] = {}
        for section in SECTIONS:
            changes = {n: v for n, v in values.items() if OPTIONS[n][0] == section}
            current = getattr(self, section)
            sections[section] = dataclasses.replace(current, **changes) if changes else current
        return dataclasses.replace(self, **sections)  # type: ignore[arg-type]

    def option_values(self) -> dict[str, OptionValue]:
        """Every option's value, by name."""
        return {name: self.option(name) for name in OPTIONS}

    @property
    def unit(self) -> int:
        """The smallest step of every score: the gcd of all point values (50 in dix-mille)."""
        values: list[int] = [p for _, p in self.scoring.singles]
        values += [p.points for p in self.scoring.patterns]
        values += [self.scoring.three_pairs, self.scoring.four_and_pair]
        values += [self.scoring.two_triplets, self.scoring.no_score_bonus]
        for kind in self.kinds_values().values():
            if isinstance(kind, int):
                values.append(kind)
        if self.scoring.full_house == "sum":
            values.append(self.scoring.full_house_pair)
        if self.variants.four_two_one:
            values.append(2000)
        if self.variants.straights_over_throws:
            values += [500, 300]
        step = 0
        for v in values:
            step = gcd(step, v)
        return step or 1

    def kinds_values(self) -> dict[tuple[int, Face], int | Literal["win"]]:
        """The value of every n of a kind that is a combination: ``(n, face) -> points``.

        ``"win"`` marks a combination that wins the game. Five 1s become ``"win"`` with
        G-5 (``five_ones_win``).
        """
        return resolve_kinds(self.scoring.kinds, self.game.five_ones_win, self.dice)


def resolve_kinds(
    kinds: tuple[KindRule, ...], five_ones_win: bool, dice: int
) -> dict[tuple[int, Face], int | Literal["win"]]:
    """Evaluate the kind rules into values; raises ValueError naming a rule that cannot be."""
    by_count = {k.count: k for k in kinds}
    values: dict[tuple[int, Face], int | Literal["win"]] = {}
    for n in sorted(by_count):
        for face in range(1, 7):
            rule = by_count[n].rule_for(face)
            value = _evaluate_kind(rule, n, face, values)
            if value is not None:
                values[(n, face)] = value
    if five_ones_win and dice >= 5:
        values[(5, 1)] = "win"
    return values


def _evaluate_kind(
    rule: str, n: int, face: Face, known: dict[tuple[int, Face], int | Literal["win"]]
) -> int | Literal["win"] | None:
    if rule == "none":
        return None
    if rule == "win":
        return "win"
    if rule.isdigit():
        return int(rule)
    if rule.endswith("x face"):
        return int(rule.split()[0]) * face
    if n == 3 and rule in ("double", "(n-2) x three"):
        what = "double" if rule == "double" else "be '(n-2) x three' of itself"
        raise ValueError(
            f"three of a kind cannot {what}: there is no smaller kind to measure it on; "
            'write points (1000) or "K x face"'
        )
    if rule == "double":
        previous = known.get((n - 1, face))
        if not isinstance(previous, int):
            raise ValueError(
                f"{KIND_WORDS[n]} {face}s: 'double' needs {KIND_WORDS.get(n - 1, n - 1)} "
                f"{face}s to be worth points"
            )
        return 2 * previous
    if rule == "(n-2) x three":
        three = known.get((3, face))
        if not isinstance(three, int):
            raise ValueError(
                f"{KIND_WORDS[n]} {face}s: '(n-2) x three' needs three {face}s to be worth points"
            )
        return (n - 2) * three
    raise ValueError(f"unknown kind rule {rule!r}")  # pragma: no cover - parser guards
