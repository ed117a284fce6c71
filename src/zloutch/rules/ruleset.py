"""The rule set: everything a table decides, as one frozen, typed value.

A ``RuleSet`` is data. Presets are TOML files (``presets/*.toml``); users write their own
files in the same format (``docs/rules-format.md``). Every scalar rule is an *option* that
can be switched by name on any rule set: ``dix-mille(bump=any,entry=800,joker)``.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from math import gcd
from types import MappingProxyType
from typing import Literal, TypeVar

from zloutch.rules.dice import Dice, Face

OptionValue = bool | int | str
OptionKind = Literal["bool", "int", "choice"]

KIND_WORDS = {3: "three", 4: "four", 5: "five", 6: "six"}

FOUR_TWO_ONE = 2000
"""V-3 / S-15: points of 4-2-1 on exactly three thrown dice (``variants.four_two_one``)."""
STRAIGHT_OVER_THROWS: Mapping[int, int] = MappingProxyType({1: 500, 2: 300})
"""V-6: points of a straight completed with one or two dice set aside, by dice set aside."""

_T = TypeVar("_T")


def _option(default: _T, rule: str, meaning: str, *, reading: str = "") -> _T:
    """A rule field that is an option, with its rule ids and its meaning as data.

    ``rule`` lists the ids of the rules it belongs to, comma-separated, the main one first
    (``"V-3, S-15"``); ``reading`` names the one of them whose two readings it chooses
    between, where the sources can be read two ways (docs/rules.md, "Readings").
    """
    ids = tuple(part.strip() for part in rule.split(","))
    if reading and reading not in ids:  # pragma: no cover - a mistake in this file
        raise AssertionError(f"reading {reading} is not among the rule ids {rule}")
    metadata = {"rule_ids": ids, "reading": reading, "meaning": meaning}
    result: _T = field(default=default, metadata=metadata)
    return result


@dataclass(frozen=True)
class KindRule:
    """How ``count`` dice of one face score (F-5): one rule for every face, with overrides.

    A rule is a canonical text: ``"none"`` (not a combination), ``"win"`` (wins the game),
    ``"double"`` (twice the value of one die fewer), ``"(n-2) x three"``,
    ``"three + K per extra die"``, ``"K x face"`` or a flat number of points such as
    ``"1000"``.
    """

    count: int
    default: str
    faces: tuple[tuple[Face, str], ...] = ()
    """Per-face overrides, sorted by face."""
    thrown: int = 0
    """Counts only in a throw of exactly this many dice (a table that scores five of a kind
    only on a throw of all five: 5); 0 means any throw."""

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
    """What one throw is worth (S-, and F-2, F-5, T-2; docs/rules.md)."""

    singles: tuple[tuple[Face, int], ...] = ((1, 100), (5, 50))
    """Points of a single die by face (S-2)."""
    kinds: tuple[KindRule, ...] = ()
    """Three to six of a kind (S-3..S-6, S-11); a count not listed is not a combination."""
    patterns: tuple[Pattern, ...] = ()
    """Straights, runs and other fixed faces (S-7, S-8, S-10)."""
    three_pairs: int = _option(0, "S-9", "Points of three pairs on six dice; 0: not a combination.")
    four_and_pair_as_three_pairs: bool = _option(
        False, "F-5", "Four of a kind plus a pair also counts as three pairs."
    )
    six_of_a_kind_as_three_pairs: bool = _option(
        False, "F-5", "Six of a kind also counts as three pairs."
    )
    four_and_pair: int = _option(
        0, "F-5", "Points of four of a kind plus a pair of another face; 0: not a combination."
    )
    two_triplets: int = _option(
        0, "F-5", "Points of two three-of-a-kinds of different faces; 0: not a combination."
    )
    six_of_a_kind_as_two_triplets: bool = _option(
        False, "F-5", "Six of a kind also counts as two triplets (with two_triplets)."
    )
    full_house: Literal["off", "sum", "times"] = _option(
        "off",
        "S-13, S-14",
        "Three of a kind plus a pair: off, sum (the three + the pair's face x full_house_pair) "
        "or times (the three x the pair's face).",
    )
    full_house_pair: int = _option(
        50,
        "S-13, V-7",
        "With full_house = sum, and for V-7's late pair: the pair is worth this x its face.",
    )
    no_score_bonus: int = _option(
        0, "F-2", "A throw of every die that scores nothing is worth this much; 0: off."
    )
    keep_all_scoring: bool = _option(
        False,
        "T-2, V-5",
        "Every scoring die must be kept, at its best value (off: scoring dice may be left).",
        reading="T-2",
    )
    keep_whole_multiples: bool = _option(
        False, "F-5", "A keep that takes dice of a multiple must take the whole multiple."
    )
    keep_every_multiple: bool = _option(
        False,
        "F-5",
        "Every multiple in the throw (three of a kind or more) must be kept, whole.",
    )


@dataclass(frozen=True)
class TurnRules:
    """How a turn goes (T-, and F-1, F-3; docs/rules.md)."""

    full_hand: Literal["forced", "optional"] = _option(
        "optional",
        "T-5",
        "After a full hand, all the dice must be thrown again (forced), or the player may bank.",
    )
    bank_multiple_of_100: bool = _option(
        False,
        "T-6",
        "Only a round turn total, a multiple of 100, can be banked (one ending in 50 cannot).",
    )
    entry: int = _option(0, "T-7", "A player's first bank needs at least this much; 0: no entry.")
    entry_by: Literal["turn", "throw"] = _option(
        "turn", "T-7", "Entry is reached by the turn total, or by one single throw of the turn."
    )
    min_bank: int = _option(
        0,
        "F-3, T-8",
        "A turn total below this is never banked, entered or not (the T-8 reading: 200).",
        reading="T-8",
    )
    petit_palier: bool = _option(
        False, "T-8", "After entry, a bank of exactly 100 is allowed, and its level marked pp."
    )
    full_hand_win: bool = _option(
        False, "T-10", "A full hand that lands exactly on the target may be banked to win."
    )
    full_hand_win_from: int = _option(1500, "T-10", "The turn total needed for full_hand_win.")
    figure_full_hand: bool = _option(
        False,
        "S-16",
        "On six dice, five of a kind, a straight of five or a full house is a full hand by "
        "itself (on); off: a full hand is every die set aside.",
        reading="S-16",
    )
    """Changes nothing with five dice, where these figures take every die."""
    farkle_penalty: int = _option(
        0, "F-1", "Points lost at the farkle_penalty_after-th farkle in a row; 0: off."
    )
    farkle_penalty_after: int = _option(3, "F-1", "How many farkles in a row cost the penalty.")
    fresh_farkle_penalty: int = _option(
        0, "F-1", "Points lost when a turn's first throw, of every die, scores nothing; 0: off."
    )

    @property
    def entering_matters(self) -> bool:
        """Whether a player's first bank is not like the others: an entry minimum (T-7) or
        the petit palier (T-8: a bank of 100 only once entered). The engine says who enters,
        and the solvers key a turn by it, only then."""
        return bool(self.entry) or self.petit_palier

    def round_enough(self, total: int) -> bool:
        """T-6: whether a turn total may be banked as to its roundness (with
        bank_multiple_of_100, a multiple of 100 only: 1050 cannot, nor 960 where a
        combination is worth 660). The engine, the endings check and the loader read it here."""
        return not self.bank_multiple_of_100 or total % 100 == 0


@dataclass(frozen=True)
class GameRules:
    """How a game goes (G-, and T-9, F-4; docs/rules.md)."""

    target: int = _option(10000, "G-2", "The score to reach.")
    exact_target: bool = _option(
        False, "T-9", "The target must be hit exactly; a turn that would pass it is a farkle."
    )
    overshoot: Literal["lost", "throw_on"] = _option(
        "lost",
        "T-9",
        "With an exact target, a turn that passes it: lost at once, as a farkle (lost); or "
        "its bank refused, the player throwing on until a farkle (throw_on).",
        reading="T-9",
    )
    ticks_to_cross: int = _option(
        0, "G-3", "At this many ticks the current level is crossed; 0: no ticks."
    )
    ticks_restart: bool = _option(
        True,
        "G-3",
        "After a crossing, ticks restart from 0 at the level fallen back to (on); off: that "
        "level keeps the ticks beside it.",
        reading="G-3",
    )
    bump: Literal["off", "current", "any"] = _option(
        "off",
        "G-4",
        "Banking a level equal to another player's current (or any) level crosses it.",
    )
    fallback_bumps: bool = _option(
        False,
        "G-4",
        "A player who falls back onto another's level bumps it too (off: bumps no one).",
        reading="G-4",
    )
    five_ones_win: bool = _option(False, "G-5", "Five 1s in one throw win the game at once.")
    final_round: bool = _option(
        False,
        "G-6",
        "When a player reaches the target the round is finished, and may open a new one.",
    )
    final_turns: bool = _option(
        False, "F-4", "When a player reaches the target, every other player has one more turn."
    )
    last_thousand: bool = _option(
        False,
        "G-7",
        "Points above target - 1000 count only in the turn that reaches the target.",
    )
    take_back: bool = _option(
        False, "G-8", "The next player may go on with a turn banked with dice left on the table."
    )
    take_back_counts_for_entry: bool = _option(
        True, "G-8", "A taken-back total counts toward entry (T-7).", reading="G-8"
    )
    reentry: bool = _option(
        True,
        "T-7",
        "A player whose every level is crossed must enter again (on); off: entered for good.",
        reading="T-7",
    )
    min_players: int = _option(1, "G-1", "The fewest players a game may have.")
    max_players: int = _option(8, "G-1", "The most players a game may have (at most 8).")


@dataclass(frozen=True)
class Variants:
    """The variants (V-; docs/rules.md), each an option."""

    confirmation: bool = _option(
        False, "V-1", "Every figure must be confirmed by a later 1 or 5 before banking."
    )
    joker: bool = _option(
        False, "V-2", "Scoring dice may be set aside as jokers, thrown only after a farkle."
    )
    joker_keeps_points: bool = _option(
        False, "V-2", "Thrown jokers keep their own points (on) or lose them (off).", reading="V-2"
    )
    four_two_one: bool = _option(
        False,
        "V-3, S-15",
        f"4-2-1 on exactly three thrown dice scores {FOUR_TWO_ONE} and is a full hand.",
    )
    straights_over_throws: bool = _option(
        False,
        "V-6",
        "A straight completed with the dice set aside scores "
        f"{STRAIGHT_OVER_THROWS[1]} (one) or {STRAIGHT_OVER_THROWS[2]} (two), a full hand.",
    )
    multiples_over_throws: bool = _option(
        False,
        "V-7",
        "Each later die of a set-aside multiple doubles it; a later pair is a full house.",
    )
    late_pair: bool = _option(
        True,
        "V-7",
        "With multiples_over_throws: the hand's last two dice thrown as a pair after a "
        "multiple are a full house (off: that pair scores nothing).",
    )
    multiples_take_all: bool = _option(
        False,
        "V-7",
        "With multiples_over_throws: a keep that adds dice to a set-aside multiple takes "
        "every die of its face in the throw.",
    )

    @property
    def across_throws(self) -> bool:
        """V-6 or V-7: what a throw scores depends on the dice already set aside."""
        return self.straights_over_throws or self.multiples_over_throws

    @property
    def late_pair_scores(self) -> bool:
        """V-7 with its pair rule: a later pair is a full house worth ``full_house_pair``."""
        return self.multiples_over_throws and self.late_pair


SECTIONS: dict[str, type] = {
    "scoring": Scoring,
    "turn": TurnRules,
    "game": GameRules,
    "variants": Variants,
}

_STRUCTURED = {"singles", "kinds", "patterns"}


@dataclass(frozen=True)
class OptionInfo:
    """One option of every rule set, described as data: where it lives, which rule it
    switches, what it means, and what values it takes."""

    name: str
    section: str
    """``scoring``, ``turn``, ``game`` or ``variants``: the table of a rule file it is under."""
    rule_ids: tuple[str, ...]
    """The rules it belongs to (``("T-7",)``, ``("V-3", "S-15")``), the main one first."""
    reading: str
    """The rule (one of ``rule_ids``) whose two readings it chooses between, where the
    sources can be read two ways (``"G-3"``); ``""`` for the others."""
    meaning: str
    """What it does, in one line."""
    kind: OptionKind
    choices: tuple[str, ...]
    """The words a choice option takes; empty for the others."""
    default: OptionValue
    """Its value where a rule file does not set it."""

    @property
    def rule(self) -> str:
        """The rule ids as shown beside the option: ``T-7``, ``V-3, S-15``, ``G-3 Reading``."""
        return ", ".join(f"{i} Reading" if i == self.reading else i for i in self.rule_ids)


def _option_info(section: str, f: dataclasses.Field[object], hint: object) -> OptionInfo:
    meta = f.metadata
    if not meta.get("meaning"):  # pragma: no cover - guarded by a test
        raise AssertionError(f"option {f.name} has no rule id and meaning: declare it with _option")
    choices: tuple[str, ...] = ()
    kind: OptionKind
    if hint is bool:
        kind = "bool"
    elif hint is int:
        kind = "int"
    else:
        kind = "choice"
        choices = tuple(str(word) for word in typing.get_args(hint))
    default = f.default
    assert isinstance(default, bool | int | str)
    return OptionInfo(
        name=f.name,
        section=section,
        rule_ids=tuple(meta["rule_ids"]),
        reading=str(meta["reading"]),
        meaning=str(meta["meaning"]),
        kind=kind,
        choices=choices,
        default=default,
    )


def _option_table() -> dict[str, OptionInfo]:
    table: dict[str, OptionInfo] = {}
    for section, cls in SECTIONS.items():
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if f.name in _STRUCTURED:
                continue
            if f.name in table:  # pragma: no cover - guarded by a test
                raise AssertionError(f"option name {f.name} is not unique")
            table[f.name] = _option_info(section, f, hints[f.name])
    return table


OPTIONS: Mapping[str, OptionInfo] = MappingProxyType(_option_table())
"""Every option by name, in the order of the sections: its section, rule ids, meaning, kind,
choices and default (``OPTIONS["entry"].rule == "T-7"``)."""


COMMON_OPTIONS: tuple[str, ...] = ("target", "entry", "exact_target")
"""The options a table changes most, in this order: a front end shows them first, in sight,
and the others folded (the terminal's new-game screen listed the target 25th of 48)."""


def option_kind(name: str) -> OptionKind:
    """``"bool"``, ``"int"``, or ``"choice"`` for an option name."""
    return OPTIONS[name].kind


def option_choices(name: str) -> tuple[str, ...]:
    """The allowed words of a choice option."""
    return OPTIONS[name].choices


SEAT_OPTIONS = frozenset({"min_players", "max_players"})
"""Options of who sits, not of how a game plays (``RuleSet.acting_options``)."""


def _always(values: Mapping[str, OptionValue]) -> bool:
    return True


def _crossable(v: Mapping[str, OptionValue]) -> bool:
    """Some level may be crossed (G-3 ticks, G-4 bumps, G-6's final round)."""
    return bool(v["ticks_to_cross"]) or v["bump"] != "off" or bool(v["final_round"])


_ACTS_WITH: Mapping[str, tuple[Callable[[Mapping[str, OptionValue]], bool], str]] = (
    MappingProxyType(
        {
            "four_and_pair_as_three_pairs": (lambda v: bool(v["three_pairs"]), "three_pairs"),
            "six_of_a_kind_as_three_pairs": (lambda v: bool(v["three_pairs"]), "three_pairs"),
            "six_of_a_kind_as_two_triplets": (lambda v: bool(v["two_triplets"]), "two_triplets"),
            "full_house_pair": (
                lambda v: (
                    v["full_house"] == "sum"
                    or (bool(v["multiples_over_throws"]) and bool(v["late_pair"]))
                ),
                'full_house = "sum", or multiples_over_throws with late_pair',
            ),
            "entry_by": (lambda v: bool(v["entry"]), "an entry (entry above 0)"),
            "full_hand_win_from": (lambda v: bool(v["full_hand_win"]), "full_hand_win"),
            "farkle_penalty_after": (
                lambda v: bool(v["farkle_penalty"]),
                "a penalty (farkle_penalty above 0)",
            ),
            "overshoot": (lambda v: bool(v["exact_target"]), "exact_target"),
            "ticks_restart": (lambda v: bool(v["ticks_to_cross"]), "ticks (ticks_to_cross)"),
            "fallback_bumps": (lambda v: v["bump"] != "off", "bumps (bump = current or any)"),
            "take_back_counts_for_entry": (
                lambda v: bool(v["take_back"]) and bool(v["entry"]),
                "take_back and an entry",
            ),
            "reentry": (
                lambda v: bool(v["entry"]) and _crossable(v),
                "an entry and levels that can be crossed (ticks_to_cross, bump or final_round)",
            ),
            "joker_keeps_points": (lambda v: bool(v["joker"]), "joker"),
            "late_pair": (lambda v: bool(v["multiples_over_throws"]), "multiples_over_throws"),
            "multiples_take_all": (
                lambda v: bool(v["multiples_over_throws"]),
                "multiples_over_throws",
            ),
        }
    )
)
"""An option that acts only with another, by name: whether it acts at these values, and
what it needs, in words (``RuleSet.idle_options``; the loader refuses one written off its
default where it cannot act)."""


_READ_DORMANT = frozenset({"take_back_counts_for_entry"})
"""Dormant options a solver still reads (``RuleSet.inert_options``)."""


def needs_words(name: str) -> str:
    """What an option that acts only with another needs, in words (``_ACTS_WITH``)."""
    return _ACTS_WITH[name][1]


def format_option(name: str, value: OptionValue) -> str:
    """An option as written in a spec: ``joker``, ``joker=false``, ``entry=800``."""
    if value is True:
        return name
    if value is False:
        return f"{name}=false"
    return f"{name}={value}"


@dataclass(frozen=True, repr=False)
class RuleSet:
    """Everything a rule set decides. Build one with ``zloutch.rules.load_rules``.

    Its ``repr`` is the code that loads it back, ``load_rules('dix-mille(entry=800)')``; a
    rule set that no spec can load (see ``spec``) says so instead.
    """

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
    _hash: int | None = field(default=None, init=False, repr=False, compare=False)
    """The hash, once asked (``__hash__``): a field, so that reading it, and every other
    field, stays a plain attribute read."""

    def option(self, name: str) -> OptionValue:
        """The value of an option, by name."""
        value: OptionValue = getattr(getattr(self, OPTIONS[name].section), name)
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

    def __repr__(self) -> str:
        spec = self.spec
        if spec.startswith("<"):
            return (
                f"<RuleSet {self.name!r}: {self.dice} dice, target {self.game.target}; "
                "built from text or in code, no spec loads it: to_toml writes it whole>"
            )
        return f"load_rules({spec!r})"

    def __hash__(self) -> int:
        """The hash of the compared fields, computed once: a rule set keys the tables built
        from it (``score_table``, every throw scored asks), and hashing its sections anew
        each time cost about 2 microseconds a lookup."""
        found = self._hash
        if found is None:
            compared = (f.name for f in dataclasses.fields(self) if f.compare)
            found = hash(tuple(getattr(self, name) for name in compared))
            object.__setattr__(self, "_hash", found)
        return found

    def __getstate__(self) -> dict[str, object]:
        """Pickled without its hash: a string's hash differs from one process to the next."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.compare}

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in {**state, "_hash": None}.items():
            object.__setattr__(self, name, value)

    def replace_options(self, values: dict[str, OptionValue]) -> RuleSet:
        """A copy with these option values set (no validation: use ``with_options``)."""
        sections: dict[str, object] = {}
        for section in SECTIONS:
            changes = {n: v for n, v in values.items() if OPTIONS[n].section == section}
            current = getattr(self, section)
            sections[section] = dataclasses.replace(current, **changes) if changes else current
        return dataclasses.replace(self, **sections)  # type: ignore[arg-type]

    def option_values(self) -> dict[str, OptionValue]:
        """Every option's value, by name."""
        return {name: self.option(name) for name in OPTIONS}

    def acting_options(self) -> tuple[str, ...]:
        """The options that change how this rule set plays: on, or a number or a choice
        other than 0 and ``off``, and not one that acts only with another off here
        (``overshoot`` without an exact target, ``ticks_restart`` without ticks:
        ``_ACTS_WITH``); the number of players is how many sit, not how they play."""
        values = self.option_values()
        return tuple(
            name
            for name, value in values.items()
            if value not in (False, 0, "off", None)
            and name not in SEAT_OPTIONS
            and _ACTS_WITH.get(name, (_always, ""))[0](values)
        )

    def dormant_options(self) -> frozenset[str]:
        """The options that do not act at this rule set's values, whatever their own: each
        acts only with another (``_ACTS_WITH``), which is off (``fallback_bumps`` without
        bumps). What a front end shows apart from the rules in play."""
        values = self.option_values()
        return frozenset(name for name, (acts, _) in _ACTS_WITH.items() if not acts(values))

    def inert_options(self) -> frozenset[str]:
        """The dormant options that nothing reads at all here: the loader resets them to
        their default (``settled``). ``take_back_counts_for_entry`` is dormant without
        take-back, but the sheet-blind model (``strategy.game_solver.sheet_blind``: the
        rules without take-back) keeps it to value a turn of the full game taken back."""
        return self.dormant_options() - _READ_DORMANT

    def idle_options(self) -> tuple[str, ...]:
        """The inert options off their default. The loader resets those a rule set inherits
        (a spec that switches the bumps off: ``settled``) and refuses those written with
        it."""
        inert = self.inert_options()
        return tuple(n for n in OPTIONS if n in inert and self.option(n) != OPTIONS[n].default)

    def settled(self) -> RuleSet:
        """The rule set with its idle options at their defaults: the same game, one way to
        write it (a rule set the loader gives is settled)."""
        idle = self.idle_options()
        return self.replace_options({n: OPTIONS[n].default for n in idle}) if idle else self

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
        if self.scoring.full_house == "sum" or self.variants.late_pair_scores:
            values.append(self.scoring.full_house_pair)  # a pair x its face (S-13, V-7)
        if self.variants.four_two_one:
            values.append(FOUR_TWO_ONE)
        if self.variants.straights_over_throws:
            values += STRAIGHT_OVER_THROWS.values()
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
    plus = rule.startswith("three + ")
    if n == 3 and (rule in ("double", "(n-2) x three") or plus):
        what = "double" if rule == "double" else f"be '{rule}' of itself"
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
    if plus:
        three = known.get((3, face))
        if not isinstance(three, int):
            raise ValueError(
                f"{KIND_WORDS[n]} {face}s: '{rule}' needs three {face}s to be worth points"
            )
        return three + (n - 3) * int(rule.split()[2])
    raise ValueError(f"unknown kind rule {rule!r}")  # pragma: no cover - parser guards
