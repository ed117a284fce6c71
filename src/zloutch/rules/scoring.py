"""What a throw is worth: every legal keep, built once per rule set into tables.

A *keep* is the multiset of dice a player sets aside from one throw, read as the best split
of exactly those dice into combinations (S-12): every kept die belongs to one combination.
Two keeps of the same dice are the same keep, worth its best split; a player never wants the
smaller reading of the same dice.

For each rule set a ``ScoreTable`` holds, for every multiset of 1 to ``dice`` dice (923 for
six dice), the scoring keeps and the legal keeps. Lookups are dictionary reads. Keeps that
depend on dice set aside earlier in the hand (V-6, V-7) are computed on first use and kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from zloutch.rules.dice import (
    FACES,
    Dice,
    Face,
    all_throws,
    contains,
    counts,
    difference,
    format_dice,
    multisets,
    sort_dice,
    sub_multisets,
)
from zloutch.rules.errors import IllegalKeepError, InvalidDiceError
from zloutch.rules.ruleset import (
    FOUR_TWO_ONE,
    KIND_WORDS,
    STRAIGHT_OVER_THROWS,
    GameRules,
    RuleSet,
    TurnRules,
    resolve_kinds,
)

# The points of the variants V-3 (FOUR_TWO_ONE) and V-6 (STRAIGHT_OVER_THROWS) are fixed by
# their options, so they are defined beside them in ruleset.py, which this module builds on.
NO_SCORE_BONUS = "no-score bonus"
"""F-2: the name of the bonus combination of a scoreless throw of every die."""
_COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@dataclass(frozen=True)
class Combination:
    """A group of dice of one throw that scores."""

    name: str
    dice: Dice
    points: int
    wins: bool = False
    """This combination wins the game at once (G-5)."""
    figure: bool = False
    """A figure (three of a kind or more, straight, full house...) that V-1 must confirm."""
    whole: bool = False
    """A figure S-16 names (five of a kind or more, a straight of five or more, a full
    house): a full hand by itself where ``turn.figure_full_hand`` is on."""
    bonus: bool = False
    """The F-2 no-score bonus of a scoreless throw of every die (all the dice are thrown
    again); only the table makes it, whatever a rule file names its combinations."""


@dataclass(frozen=True)
class ScoredKeep:
    """Dice set aside from one throw, with the combinations they are read as."""

    dice: Dice
    combinations: tuple[Combination, ...]
    points: int
    full_hand: bool
    """Every die thrown is kept, so every die in hand is set aside (S-16)."""
    wins: bool = False

    @property
    def figure(self) -> bool:
        """Whether the keep holds a figure (V-1)."""
        return any(c.figure for c in self.combinations)

    @property
    def bonus(self) -> bool:
        """Whether the keep is the F-2 no-score bonus: the player throws all the dice again."""
        return any(c.bonus for c in self.combinations)

    @property
    def whole(self) -> bool:
        """Whether the keep holds a figure that S-16 makes a full hand by itself."""
        return any(c.whole for c in self.combinations)

    def __str__(self) -> str:
        return f"keep {format_dice(self.dice)}"


@dataclass(frozen=True)
class HandContext:
    """What the current hand already holds, for the variants that score across throws.

    ``set_aside`` are the dice set aside since the hand started (since the last full hand);
    ``multiples`` the faces of three-of-a-kinds among them, kept as figures (V-7). A context
    that cannot be (a face outside 1..6, a multiple without three of its face set aside, a
    face listed twice in ``multiples``) raises InvalidDiceError.
    """

    set_aside: Dice = ()
    multiples: tuple[Face, ...] = ()

    def __post_init__(self) -> None:
        if not (self.set_aside or self.multiples):
            return
        for face in (*self.set_aside, *self.multiples):
            if face not in FACES:
                raise InvalidDiceError(
                    f"{face!r} is not a die face: faces are 1 to 6 (in the dice set aside)"
                )
        have = counts(self.set_aside)
        for face in self.multiples:
            n = have[face - 1]
            if n < 3:
                have_text = (
                    f"no {face} is set aside"
                    if n == 0
                    else f"only {_COUNT_WORDS[n]} {face}{'s are' if n > 1 else ' is'} set aside "
                    f"({format_dice(self.set_aside)})"
                )
                raise InvalidDiceError(
                    f"{face}s cannot be a multiple set aside (V-7): a multiple is three of a "
                    f"kind or more, and {have_text}"
                )
        if len(set(self.multiples)) != len(self.multiples):
            raise InvalidDiceError(
                f"a face is listed twice among the multiples set aside: "
                f"{format_dice(self.multiples)}"
            )

    @classmethod
    def from_set_aside(cls, dice: Iterable[Face]) -> HandContext:
        """A context read from set-aside faces alone: any face set aside three or more
        times is taken to be a multiple (as it is when it was kept as three of a kind)."""
        sorted_dice = sort_dice(dice)
        c = counts(sorted_dice)
        return cls(sorted_dice, tuple(f for f in range(1, 7) if c[f - 1] >= 3))


NO_CONTEXT = HandContext()


@dataclass(frozen=True)
class ThrowScore:
    """Everything about one throw: its keeps, best first."""

    throw: Dice
    keeps: tuple[ScoredKeep, ...]
    """The legal keeps under the rule set's keep rules, best first: a keep that wins the
    game (G-5) before any points, then by points, highest first.

    Dice that can be read as a win appear twice: the keep that wins, then the same dice at
    their best reading as points (five 1s in dix-mille with ``five_ones_win``: the win, then
    4000). Every other selection appears once, at its best reading."""
    scoring: tuple[ScoredKeep, ...]
    """Every selection that scores whole (free choice, T-2), in the same order."""

    @property
    def farkle(self) -> bool:
        """No combination: the turn is lost (T-4)."""
        return not self.keeps

    @property
    def best(self) -> ScoredKeep | None:
        """The keep worth most (a winning keep first); None on a farkle."""
        return self.keeps[0] if self.keeps else None

    @property
    def points(self) -> int:
        """The score of the whole throw: the most points any reading of it is worth,
        non-scoring dice ignored.

        A keep that wins the game (G-5) carries no points, and the same dice read as points
        are a keep of their own: five 1s win in cinq-mille and are worth 1000 + 100 + 100 =
        1200; with ``five_ones_win`` in dix-mille they win and are worth 4000 (S-5).
        """
        return max((k.points for k in self.scoring), default=0)

    def keep_for(self, dice: Iterable[Face]) -> ScoredKeep | None:
        """The legal keep of exactly these dice (the winning reading first), or None."""
        wanted = sort_dice(dice)
        return next((k for k in self.keeps if k.dice == wanted), None)


def _keep_order(keep: ScoredKeep) -> tuple[bool, int, int, Dice]:
    return (not keep.wins, -keep.points, len(keep.dice), keep.dice)


def _value_order(keep: ScoredKeep) -> tuple[bool, int]:
    return (keep.wins, keep.points)


class ScoreTable:
    """The keeps of every throw under one rule set, each built once, when first asked."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        # Multiples with their win (G-5 included): what keep_whole_multiples takes whole.
        self._kinds = rules.kinds_values()
        # Multiples as points: G-5 adds a winning reading of five 1s, it does not take away
        # the points the kind rule gives them (S-5: five 1s = 4000 in dix-mille).
        self._kind_points = resolve_kinds(rules.scoring.kinds, False, rules.dice)
        # A kind rule with ``thrown`` counts only in a throw of that many dice.
        self._kind_thrown = {k.count: k.thrown for k in rules.scoring.kinds if k.thrown}
        self._five_ones_win = rules.game.five_ones_win and rules.dice >= 5
        self._context_matters = rules.variants.across_throws
        # Each throw is read the first time it is looked up (scoring one throw reads one),
        # then kept: a solver that reads them all builds them all once.
        self._table: dict[tuple[HandContext, Dice], ThrowScore] = {}
        # What the throws of one size in one hand context share (``_build``): each entry is
        # the same whichever throw or thread writes it first.
        self._read: dict[tuple[int, HandContext, bool], _Readings] = {}
        self._part_keeps: dict[tuple[int, HandContext], dict[Dice, tuple[ScoredKeep, ...]]] = {}

    def _readings(self, thrown: int, context: HandContext, plain: bool) -> _Readings:
        """The best readings found so far of the dice of throws of ``thrown`` dice in a hand
        context (as points alone, ``plain``), shared by those throws (``_best_split``)."""
        return self._read.setdefault((thrown, context, plain), {0: ((), False, 0)})

    def lookup(self, throw: Iterable[Face], context: HandContext = NO_CONTEXT) -> ThrowScore:
        """The score of a throw (faces in any order) in a hand context."""
        dice = throw if isinstance(throw, tuple) else tuple(throw)
        key_context = context if self._context_matters else NO_CONTEXT
        found = self._table.get((key_context, dice))
        # Too many dice with those set aside is refused whether or not the context scores.
        if found is not None and len(dice) + len(context.set_aside) <= self.rules.dice:
            return found
        dice = sort_dice(dice)
        self._check(dice, context)
        key = (key_context, dice)
        if key not in self._table:
            self._table[key] = self._build(dice, key_context)
        return self._table[key]

    def _check(self, dice: Dice, context: HandContext) -> None:
        n = self.rules.dice
        if not dice:
            raise InvalidDiceError("the throw is empty: throw at least one die")
        if any(not 1 <= f <= 6 for f in dice):
            raise InvalidDiceError(f"faces are 1 to 6, got {format_dice(dice)}")
        if len(dice) + len(context.set_aside) > n:
            aside = f" with {len(context.set_aside)} set aside" if context.set_aside else ""
            raise InvalidDiceError(
                f"{len(dice)} {'die' if len(dice) == 1 else 'dice'} thrown{aside}, "
                f"but {self.rules.name} has {n} {'die' if n == 1 else 'dice'}"
            )

    # ------------------------------------------------------------------ building

    def combinations(self, throw: Dice, context: HandContext = NO_CONTEXT) -> list[Combination]:
        """Every combination that can be read in this throw (each dice group once)."""
        s, v = self.rules.scoring, self.rules.variants
        c = counts(throw)
        found: list[Combination] = []
        for face, points in s.singles:
            if c[face - 1]:
                found.append(Combination(f"single {face}", (face,), points))
        for (n, face), value in sorted(self._kind_points.items()):
            if c[face - 1] >= n and self._kind_counts(n, len(throw)):
                wins = value == "win"
                found.append(
                    Combination(
                        f"{KIND_WORDS[n]} {face}s",
                        (face,) * n,
                        0 if wins else int(value),
                        wins=wins,
                        figure=True,
                        whole=n >= 5,
                    )
                )
        if self._five_ones_win and c[0] >= 5:  # G-5
            found.append(Combination("five 1s", (1,) * 5, 0, wins=True, figure=True, whole=True))
        for pattern in s.patterns:
            if contains(throw, pattern.faces) and pattern.thrown in (0, len(throw)):
                whole = len(pattern.faces) >= 5  # S-16: a straight
                found.append(
                    Combination(
                        pattern.name, pattern.faces, pattern.points, figure=True, whole=whole
                    )
                )
        if v.four_two_one and throw == (1, 2, 4):
            found.append(Combination("421", throw, FOUR_TWO_ONE, figure=True))
        shape = sorted((k for k in c if k), reverse=True)
        if len(throw) == 6:
            pairs = shape == [2, 2, 2]
            pairs |= s.four_and_pair_as_three_pairs and shape == [4, 2]
            pairs |= s.six_of_a_kind_as_three_pairs and shape == [6]
            if s.three_pairs and pairs:
                found.append(Combination("three pairs", throw, s.three_pairs, figure=True))
            if s.four_and_pair and shape == [4, 2]:
                found.append(
                    Combination("four of a kind and a pair", throw, s.four_and_pair, figure=True)
                )
            triplets = shape == [3, 3] or (s.six_of_a_kind_as_two_triplets and shape == [6])
            if s.two_triplets and triplets:
                found.append(Combination("two triplets", throw, s.two_triplets, figure=True))
        if s.full_house != "off":
            for three in range(1, 7):
                base = self._kind_points.get((3, three))
                if c[three - 1] < 3 or not isinstance(base, int):
                    continue
                if not self._kind_counts(3, len(throw)):  # its three must count here
                    continue
                for pair in range(1, 7):
                    if pair != three and c[pair - 1] >= 2:
                        points = (
                            base * pair
                            if s.full_house == "times"
                            else base + s.full_house_pair * pair
                        )
                        dice = sort_dice((three, three, three, pair, pair))
                        found.append(
                            Combination("full house", dice, points, figure=True, whole=True)
                        )
        found += self._cross_throw(throw, context)
        return found

    def _cross_throw(self, throw: Dice, context: HandContext) -> list[Combination]:
        rules, v = self.rules, self.rules.variants
        found: list[Combination] = []
        aside = context.set_aside
        whole_hand = len(aside) + len(throw) == rules.dice
        if v.straights_over_throws and len(aside) in STRAIGHT_OVER_THROWS and whole_hand:
            hand = sort_dice(aside + throw)
            if any(p.faces == hand for p in rules.scoring.patterns):
                points = STRAIGHT_OVER_THROWS[len(aside)]
                found.append(Combination("straight over throws", throw, points, figure=True))
        if v.multiples_over_throws:
            c = counts(throw)
            for face in context.multiples:
                three = self._kind_points.get((3, face))
                if not isinstance(three, int):
                    continue
                # A context's multiples have three or more of their face set aside.
                value = three << (counts(aside)[face - 1] - 3)
                for j in range(1, c[face - 1] + 1):
                    found.append(
                        Combination(
                            f"{face}s on the multiple", (face,) * j, value * (2**j - 1), figure=True
                        )
                    )
            pair = len(throw) == 2 and throw[0] == throw[1] and v.late_pair
            if context.multiples and whole_hand and pair and throw[0] not in context.multiples:
                points = rules.scoring.full_house_pair * throw[0]
                found.append(Combination("full house over throws", throw, points, figure=True))
        return found

    def _build(self, throw: Dice, context: HandContext) -> ThrowScore:
        # The keeps of the dice a throw holds are those of the same dice in any throw of as
        # many dice in the same hand context (``_best_split``), all but the whole throw's.
        known = self._part_keeps.setdefault((len(throw), context), {})
        readers: tuple[Reader, Reader] | None = None
        keeps: list[ScoredKeep] = []
        for part in sub_multisets(throw):
            if not part:
                continue
            full = len(part) == len(throw)
            found = None if full else known.get(part)
            if found is None:
                if readers is None:
                    readers = self._readers(throw, context)
                found = self._keeps_of(part, full, *readers)
                if not full:
                    known[part] = found
            keeps += found
        if not keeps and self.rules.scoring.no_score_bonus and len(throw) == self.rules.dice:
            bonus = Combination(
                NO_SCORE_BONUS, throw, self.rules.scoring.no_score_bonus, bonus=True
            )
            keeps.append(ScoredKeep(throw, (bonus,), bonus.points, True))
        keeps.sort(key=_keep_order)
        scoring = tuple(keeps)
        return ThrowScore(throw, self._legal(throw, scoring, context), scoring)

    def _readers(self, throw: Dice, context: HandContext) -> tuple[Reader, Reader]:
        """The best reading of dice of ``throw``, and their best reading as points alone."""
        combos = self.combinations(throw, context)
        plain = [c for c in combos if not c.wins]
        best_reading = _best_split(combos, self._readings(len(throw), context, False))
        # A selection that can win also has its best reading as points, a keep of its own.
        if len(plain) == len(combos):
            return best_reading, best_reading
        return best_reading, _best_split(plain, self._readings(len(throw), context, True))

    def _keeps_of(
        self, part: Dice, full: bool, best_reading: Reader, points_reading: Reader
    ) -> tuple[ScoredKeep, ...]:
        """The keeps of some dice of a throw (the whole throw when ``full``): none, the best
        reading, and where it wins, the best reading as points too."""
        figure = self.rules.turn.figure_full_hand
        split = best_reading(part)
        if split is None:
            return ()
        keep = _keep(part, split, full, figure)
        if keep.wins:
            as_points = points_reading(part)
            if as_points is not None:
                return keep, _keep(part, as_points, full, figure)
        return (keep,)

    def _legal(
        self, throw: Dice, scoring: tuple[ScoredKeep, ...], context: HandContext
    ) -> tuple[ScoredKeep, ...]:
        s = self.rules.scoring
        legal = list(scoring)
        if self._takes_all_of(context):
            legal = [k for k in legal if self._short_of(throw, k.dice, context) is None]
        if s.keep_whole_multiples:
            legal = [k for k in legal if not self._breaks_multiple(throw, k.dice)]
        if s.keep_every_multiple:
            legal = [k for k in legal if self._left_multiple(throw, k.dice) is None]
        if s.keep_all_scoring and legal:
            top = max(_value_order(k) for k in legal)
            legal = [k for k in legal if _value_order(k) == top]
            most = max(len(k.dice) for k in legal)
            legal = [k for k in legal if len(k.dice) == most]
            if self.rules.variants.joker:
                legal += self._joker_splits(throw, legal, scoring, context)
        return tuple(legal)

    def _joker_splits(
        self,
        throw: Dice,
        best: list[ScoredKeep],
        scoring: tuple[ScoredKeep, ...],
        context: HandContext,
    ) -> list[ScoredKeep]:
        """``keep_all_scoring`` with jokers (V-2), the 10,000 article's keep: every scoring
        die is kept except those set aside as jokers. The keeps that take part of a best
        keep and leave the rest to be jokers: the rest scores on the throw alone (as jokers
        are read, ``joker_reading``), the two parts are worth the best keep's points (no
        combination is broken), and a die that scores nothing is left to throw."""
        alone = scoring
        if self._context_matters and context != NO_CONTEXT:
            alone = self.lookup(throw).scoring
        found: list[ScoredKeep] = []
        for whole in best:
            if whole.wins or len(whole.dice) >= len(throw):
                continue
            for part in scoring:
                if part.dice == whole.dice or not contains(whole.dice, part.dice):
                    continue
                rest = difference(whole.dice, part.dice)
                if any(
                    j.dice == rest and not j.wins and j.points + part.points == whole.points
                    for j in alone
                ):
                    found.append(part)
        return sorted(set(found) - set(best), key=_keep_order)

    def _kind_counts(self, n: int, thrown: int) -> bool:
        """Whether n of a kind is a combination in a throw of ``thrown`` dice."""
        return self._kind_thrown.get(n, 0) in (0, thrown)

    def _multiple_sizes(self, throw: Dice, face: Face) -> list[int]:
        """The counts of ``face`` that are a multiple in this throw (the throw has them)."""
        have = counts(throw)[face - 1]
        return [
            n
            for (n, f) in self._kinds
            if f == face and n <= have and self._kind_counts(n, len(throw))
        ]

    def whole_multiple(self, throw: Dice, face: Face) -> int:
        """The size of the largest multiple of ``face`` in the throw that scores (0: none)."""
        return max(self._multiple_sizes(throw, face), default=0)

    def _breaks_multiple(self, throw: Dice, kept: Dice) -> bool:
        kept_counts = counts(kept)
        for face in range(1, 7):
            need = self.whole_multiple(throw, face)
            if need and 0 < kept_counts[face - 1] < need:
                return True
        return False

    def _takes_all_of(self, context: HandContext) -> bool:
        v = self.rules.variants
        return v.multiples_over_throws and v.multiples_take_all and bool(context.multiples)

    @staticmethod
    def _short_of(throw: Dice, kept: Dice, context: HandContext) -> tuple[int, Face] | None:
        """V-7 with ``multiples_take_all``: a face of a set-aside multiple the keep takes some
        of the throw's dice of, not all (their count and face; None: no such face)."""
        have, took = counts(throw), counts(kept)
        for face in context.multiples:
            if 0 < took[face - 1] < have[face - 1]:
                return have[face - 1], face
        return None

    def _left_multiple(self, throw: Dice, kept: Dice) -> tuple[int, Face] | None:
        """For ``keep_every_multiple``: the dice of a face that the throw's multiples take
        (how many and the face; six 4s are two threes where only three of a kind scores)
        when the keep takes fewer of them (None: it takes every multiple)."""
        kept_counts, have = counts(kept), counts(throw)
        for face in range(1, 7):
            need = _most_covered(have[face - 1], self._multiple_sizes(throw, face))
            if need and kept_counts[face - 1] < need:
                return need, face
        return None

    # ------------------------------------------------------------------ checking

    def validate_keep(
        self, throw: Iterable[Face], kept: Iterable[Face], context: HandContext = NO_CONTEXT
    ) -> ScoredKeep:
        """The keep of ``kept`` from ``throw``, or IllegalKeepError saying why not.

        Faces outside 1..6 (thrown or kept) raise InvalidDiceError.
        """
        entry = self.lookup(throw, context)
        dice = tuple(kept)
        for face in dice:
            if face not in FACES:
                raise InvalidDiceError(
                    f"{face!r} is not a die face: faces are 1 to 6 (in the dice kept)"
                )
        dice = sort_dice(dice)
        if not dice:
            raise IllegalKeepError("keep at least one scoring die (T-2)")
        if not contains(entry.throw, dice):
            have, want = counts(entry.throw), counts(dice)
            face = next(f for f in range(1, 7) if want[f - 1] > have[f - 1])
            n = have[face - 1]
            detail = (
                f"there is no {face}"
                if n == 0
                else f"there {'is' if n == 1 else 'are'} only {_COUNT_WORDS[n]} "
                f"{face}{'s' if n > 1 else ''}"
            )
            raise IllegalKeepError(f"{detail} in the throw {format_dice(entry.throw)}")
        keep = entry.keep_for(dice)
        if keep is not None:
            return keep
        scored = next((k for k in entry.scoring if k.dice == dice), None)
        if scored is None:
            covering = [k for k in entry.scoring if contains(dice, k.dice)]
            widest = max(covering, key=lambda k: (len(k.dice), k.points), default=None)
            left = difference(dice, widest.dice) if widest else dice
            verb = "does" if len(left) == 1 else "do"
            raise IllegalKeepError(f"the {format_dice(left)} {verb} not score (T-2)")
        if self.rules.scoring.keep_whole_multiples:
            kept_counts = counts(dice)
            for face in range(1, 7):
                need = self.whole_multiple(entry.throw, face)
                if need and 0 < kept_counts[face - 1] < need:
                    raise IllegalKeepError(
                        f"{KIND_WORDS[need]} {face}s must be taken whole: keep all {need} of them "
                        "(keep_whole_multiples, F-5)"
                    )
        short = self._short_of(entry.throw, dice, context)
        if self._takes_all_of(context) and short is not None:
            matching, face = short
            raise IllegalKeepError(
                f"the {face}s add to the multiple set aside: keep all {matching} of them "
                "(multiples_take_all, V-7)"
            )
        unkept = self._left_multiple(entry.throw, dice)
        if self.rules.scoring.keep_every_multiple and unkept is not None:
            need, face = unkept
            raise IllegalKeepError(
                f"every multiple of the throw must be kept: keep the {KIND_WORDS[need]} {face}s "
                "(keep_every_multiple, F-5)"
            )
        best = entry.keeps[0] if entry.keeps else None
        if self.rules.scoring.keep_all_scoring and best is not None:
            if self.rules.variants.joker:
                raise IllegalKeepError(
                    f"every scoring die must be kept at its best value, {format_dice(best.dice)}, "
                    "or part of it kept and the rest set aside as jokers without breaking a "
                    "combination (keep_all_scoring with jokers, V-2)"
                )
            raise IllegalKeepError(
                f"every scoring die must be kept at its best value: keep {format_dice(best.dice)} "
                "(keep_all_scoring, T-2)"
            )
        raise IllegalKeepError(f"{format_dice(dice)} is not a legal keep here")  # pragma: no cover


Split = tuple[Combination, ...]


def _most_covered(dice: int, sizes: list[int]) -> int:
    """The most of ``dice`` dice of one face that multiples of these sizes can take at once."""
    reach = {0}
    for _ in range(dice):
        reach |= {r + n for r in reach for n in sizes if r + n <= dice}
    return max(reach)


_BITS = 8
"""Bits per face in a packed multiset: a count of up to 127 and a guard bit above it."""
_COUNT = (1 << (_BITS - 1)) - 1
_GUARDS = sum((_COUNT + 1) << (_BITS * f) for f in range(6))
"""The guard bit of every face: a subtraction that borrows from one clears it."""


def _packed(dice: Iterable[Face]) -> int:
    """A multiset of dice as one integer, eight bits a face (face 1 lowest): containment and
    difference are then one subtraction each (``_best_split``)."""
    code = 0
    for face in dice:
        code += 1 << (_BITS * (face - 1))
    return code


Reader = Callable[[Dice], Split | None]
_Readings = dict[int, tuple[Split, bool, int] | None]
"""For each packed multiset of dice (``_packed``): its best reading, whether it wins and its
points, or None where no reading takes every die."""


def _best_split(combos: list[Combination], best: _Readings) -> Reader:
    """The best reading of any sub-multiset as these combinations (a win first, then points).

    Every die of the dice belongs to one combination; None when no such reading exists.
    The dice are read packed (``_packed``): a combination fits when taking it borrows from no
    face, and the rest is what is left. Combinations are tried in their order, those
    starting with the lowest face of the dice (it must belong to one of them), and the first
    of the best is kept.

    Results are kept in ``best``, which the throws of one size in one hand context share
    (``ScoreTable._readings``): whether a combination can be read in a throw depends only on
    its dice being there, the number of dice thrown and the hand context (those that depend
    on more, three pairs, 421, a straight over throws, take every die of the throw, which no
    other throw of that size holds), and ``combinations`` lists them in one fixed order. So
    the combinations that fit in some dice, and their order, are the same in every throw
    that holds those dice, and so is their best reading.
    """
    by_first: list[list[tuple[Combination, int]]] = [[] for _ in range(7)]
    for combo in combos:
        by_first[combo.dice[0]].append((combo, _packed(combo.dice)))

    def solve(code: int) -> tuple[Split, bool, int] | None:
        if code in best:
            return best[code]
        first = 1
        while not (code >> (_BITS * (first - 1))) & _COUNT:
            first += 1
        choice: tuple[Split, bool, int] | None = None
        score = (False, -1)
        for combo, packed in by_first[first]:
            rest_code = (code | _GUARDS) - packed
            if rest_code & _GUARDS != _GUARDS:
                continue  # a face short: the combination is not in the dice
            rest = solve(rest_code - _GUARDS)
            if rest is None:
                continue
            total = (combo.wins or rest[1], combo.points + rest[2])
            if total > score:
                score, choice = total, ((combo, *rest[0]), total[0], total[1])
        best[code] = choice
        return choice

    def reading(part: Dice) -> Split | None:
        found = solve(_packed(part))
        return None if found is None else found[0]

    return reading


def _keep(dice: Dice, split: Split, full_hand: bool, figure_full_hand: bool = False) -> ScoredKeep:
    wins = any(c.wins for c in split)
    full_hand = full_hand or (figure_full_hand and any(c.whole for c in split))  # S-16
    return ScoredKeep(dice, split, sum(c.points for c in split), full_hand, wins)


def score_table(rules: RuleSet) -> ScoreTable:
    """The table of a rule set, built on first use and kept: one for every rule set that
    scores alike (``scoring_part``), whatever its target, sheet or other game options."""
    return _score_table(scoring_part(rules))


@lru_cache(maxsize=256)  # every throw scored asks for it: built once a rule set
def scoring_part(rules: RuleSet) -> RuleSet:
    """What a ``ScoreTable`` reads of a rule set, alone: its name (for messages), the dice,
    the scoring section, the variants, S-16's full hand by a figure and G-5's five 1s. Two
    rule sets that agree on these score every throw alike."""
    return RuleSet(
        name=rules.name,
        summary="",
        dice=rules.dice,
        scoring=rules.scoring,
        turn=TurnRules(figure_full_hand=rules.turn.figure_full_hand),
        game=GameRules(five_ones_win=rules.game.five_ones_win),
        variants=rules.variants,
    )


@lru_cache(maxsize=64)
def _score_table(rules: RuleSet) -> ScoreTable:
    return ScoreTable(rules)


def score_throw(
    rules: RuleSet, throw: Iterable[Face], context: HandContext = NO_CONTEXT
) -> ThrowScore:
    """Every keep of a throw under a rule set."""
    return score_table(rules).lookup(throw, context)


def legal_keeps(
    rules: RuleSet, throw: Iterable[Face], context: HandContext = NO_CONTEXT
) -> tuple[ScoredKeep, ...]:
    """The legal keeps of a throw, best first (empty on a farkle)."""
    return score_throw(rules, throw, context).keeps


def kinds_outscored(rules: RuleSet) -> dict[tuple[int, Face], int]:
    """The n of a kind that score more read another way than by their kind rule: ``(n,
    face) -> points`` of those n dice thrown alone (S-12: a keep counts at its best split).

    Farkle's three 1s: its kind rule gives 100 (100 x face), three single 1s 300. The rules
    tables show this value beside the rule's, so that no table says less than a keep scores.
    """
    # a kind counted on a throw of more dice than its own: n dice alone are no such throw
    elsewhere = {k.count for k in rules.scoring.kinds if k.thrown not in (0, k.count)}
    out: dict[tuple[int, Face], int] = {}
    for (count, face), value in sorted(rules.kinds_values().items()):
        if value == "win" or count in elsewhere:
            continue
        best = throw_points(rules, (face,) * count)
        if best > value:
            out[(count, face)] = best
    return out


def is_farkle(rules: RuleSet, throw: Iterable[Face], context: HandContext = NO_CONTEXT) -> bool:
    """Whether a throw has no combination (T-4)."""
    return score_throw(rules, throw, context).farkle


def throw_points(rules: RuleSet, throw: Iterable[Face], context: HandContext = NO_CONTEXT) -> int:
    """Whole-throw semantics: the best total of the throw, non-scoring dice ignored."""
    return score_throw(rules, throw, context).points


def selection_points(
    rules: RuleSet,
    selection: Iterable[Face],
    throw: Iterable[Face] | None = None,
    context: HandContext = NO_CONTEXT,
) -> int:
    """Selection semantics: the points of dice that must all score.

    The selection is read inside ``throw`` (it matters for combinations tied to the number
    of dice thrown, such as 421); without a throw, the selection is the whole throw.
    Raises IllegalKeepError when a die does not score or the keep rules refuse it.
    """
    chosen = sort_dice(selection)
    return validate_keep(rules, chosen if throw is None else throw, chosen, context).points


def validate_keep(
    rules: RuleSet, throw: Iterable[Face], kept: Iterable[Face], context: HandContext = NO_CONTEXT
) -> ScoredKeep:
    """The keep a player names, or IllegalKeepError with a reason a player understands."""
    return score_table(rules).validate_keep(throw, kept, context)


def throw_extremes(rules: RuleSet) -> tuple[int, bool]:
    """The most points one throw can score under a rule set, and whether a throw can win.

    Every throw of 1 to ``rules.dice`` dice is read, and with V-6 or V-7 every hand context
    those variants score in. Only the scoring rules matter, so the answer is kept per
    scoring rules (``validate`` asks for it when it checks a rule set, T-7 by one throw).
    """
    return _throw_extremes(scoring_part(rules))


@lru_cache(maxsize=64)
def _throw_extremes(rules: RuleSet) -> tuple[int, bool]:
    table = _score_table(rules)  # the one table of every rule set that scores alike
    contexts = [NO_CONTEXT]
    v = rules.variants
    for size in range(1, rules.dice):
        for aside in multisets(size):
            context = HandContext.from_set_aside(aside)
            if (v.straights_over_throws and size in STRAIGHT_OVER_THROWS) or (
                v.multiples_over_throws and context.multiples
            ):
                contexts.append(context)
    most, wins = 0, False
    for context in contexts:
        for throw in all_throws(rules.dice - len(context.set_aside)):
            score = table.lookup(throw, context)
            most = max(most, score.points)
            wins = wins or any(k.wins for k in score.scoring)
    return most, wins
