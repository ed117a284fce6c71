"""A slow, independent reference scorer, for the tests only.

It shares nothing with ``zloutch.rules.scoring`` nor with the rule set's own helpers: it
reads the RuleSet's raw fields (the kind rules as written, not ``kinds_values()``) and, for a
throw, tries every subset of die *positions* and every set partition of that subset into
blocks, checking each block against the combination definitions of docs/rules.md (scoring) and
F-5 directly. A selection scores when some partition reads every block as a combination; its
value is the best reading. A selection that can be read as a win (G-5) also has its best
reading as points, a keep of its own. Nothing is clever here on purpose: it is the
definition, spelled out, so that the fast tables can be proved equal to it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations, product
from typing import Literal

from zloutch.rules.ruleset import RuleSet

FOUR_TWO_ONE_POINTS = 2000
"""S-15."""

Value = tuple[bool, int]
"""A reading's worth: (wins the game, points); compared as a tuple, a win first."""

KindValue = int | Literal["win"] | None
"""What n dice of one face are: points, a win, or no combination."""

Key = tuple[tuple[int, ...], bool]
"""A scoring selection: its sorted dice, and whether this reading of them wins."""


@dataclass(frozen=True)
class RefKeep:
    dice: tuple[int, ...]
    points: int
    wins: bool
    full_hand: bool


@dataclass(frozen=True)
class RefScore:
    throw: tuple[int, ...]
    scoring: dict[Key, RefKeep]
    """Every selection that scores whole, by (sorted dice, wins) (free choice, T-2): the best
    reading of the dice, and when it wins, their best reading as points too."""
    legal: dict[Key, RefKeep]
    """The selections the keep rules allow."""

    @property
    def farkle(self) -> bool:
        return not self.legal


@cache
def set_partitions(items: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Every partition of ``items`` into non-empty blocks (Bell(len) of them)."""
    if not items:
        return ((),)
    first, rest = items[0], items[1:]
    result: list[tuple[tuple[int, ...], ...]] = []
    for partition in set_partitions(rest):
        result.append(((first,), *partition))
        for i, block in enumerate(partition):
            result.append((*partition[:i], (first, *block), *partition[i + 1 :]))
    return tuple(result)


def _shape(block: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(Counter(block).values(), reverse=True))


class Reference:
    """The reference scorer of one rule set (results memoised by multiset)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.singles = dict(rules.scoring.singles)
        self._blocks: dict[tuple[tuple[int, ...], int], tuple[Value, ...]] = {}
        self._scores: dict[tuple[int, ...], RefScore] = {}

    # ------------------------------------------------------------ kind rules

    def kind(self, n: int, face: int) -> KindValue:
        """n dice of ``face`` by the kind rule written for count n (F-5, S-3..S-6, S-11).

        Evaluated from the rule's text: a flat number, "K x face", "double" (twice n - 1 of
        the same face), "(n-2) x three" (n - 2 times three of the same face), "three + K
        per extra die" (three of the same face, and K for each die past three), "win" or
        "none"; a count with no rule is no combination. G-5 is not here: it adds a win.
        """
        written = [k for k in self.rules.scoring.kinds if k.count == n]
        if not written:
            return None
        (rule_set,) = written
        rule = dict(rule_set.faces).get(face, rule_set.default)
        if rule == "none":
            return None
        if rule == "win":
            return "win"
        if rule.isdigit():
            return int(rule)
        if rule.endswith(" x face"):
            return int(rule.split(" ")[0]) * face
        if rule == "double":
            smaller = self.kind(n - 1, face)
            assert isinstance(smaller, int), "the loader refuses a double of no points"
            return 2 * smaller
        if rule == "(n-2) x three":
            three = self.kind(3, face)
            assert isinstance(three, int), "the loader refuses (n-2) x three of no points"
            return (n - 2) * three
        if rule.startswith("three + ") and rule.endswith(" per extra die"):
            three = self.kind(3, face)
            assert isinstance(three, int), "the loader refuses three + K of no points"
            return three + (n - 3) * int(rule.removeprefix("three + ").split(" ")[0])
        raise AssertionError(f"not a kind rule: {rule!r}")

    def five_ones_win(self, block: tuple[int, ...]) -> bool:
        """G-5: five 1s win the game, whatever their kind rule makes them worth."""
        return self.rules.game.five_ones_win and block == (1, 1, 1, 1, 1)

    def kind_on(self, n: int, face: int, thrown: int) -> KindValue:
        """n dice of ``face`` in a throw of ``thrown`` dice: the kind rule's value where its
        ``thrown`` (0: any throw) allows that throw, else no combination."""
        written = [k for k in self.rules.scoring.kinds if k.count == n]
        if written and written[0].thrown not in (0, thrown):
            return None
        return self.kind(n, face)

    def is_multiple(self, n: int, face: int, thrown: int) -> bool:
        """Whether n dice of ``face`` are a combination (points or a win) in that throw."""
        return self.kind_on(n, face, thrown) is not None or self.five_ones_win((face,) * n)

    # ------------------------------------------------------------ one block

    def readings(self, block: tuple[int, ...], thrown: int) -> tuple[Value, ...]:
        """Every way the sorted ``block`` is one combination, in a throw of ``thrown`` dice."""
        key = (block, thrown)
        if key not in self._blocks:
            self._blocks[key] = tuple(self._readings(block, thrown))
        return self._blocks[key]

    def _readings(self, block: tuple[int, ...], thrown: int) -> Iterator[Value]:
        s, v = self.rules.scoring, self.rules.variants
        n = len(block)
        faces = set(block)
        shape = _shape(block)
        # S-2: one die.
        if n == 1 and block[0] in self.singles:
            yield (False, self.singles[block[0]])
        # S-3..S-6, S-11: n of a kind is a combination only where the rule set lists it.
        if n >= 3 and len(faces) == 1:
            kind = self.kind_on(n, block[0], thrown)
            if kind == "win":
                yield (True, 0)
            elif kind is not None:
                yield (False, kind)
            # G-5: a win on top of whatever the kind rule makes five 1s worth.
            if self.five_ones_win(block):
                yield (True, 0)
        # S-7, S-8, S-10: fixed faces, some only on a given number of dice thrown.
        for pattern in s.patterns:
            if tuple(sorted(pattern.faces)) == block and pattern.thrown in (0, thrown):
                yield (False, pattern.points)
        # S-15: 4-2-1 on exactly three dice thrown.
        if v.four_two_one and thrown == 3 and block == (1, 2, 4):
            yield (False, FOUR_TWO_ONE_POINTS)
        # S-9, F-5: the six-dice shapes.
        if n == 6:
            is_pairs = shape == (2, 2, 2)
            is_pairs |= s.four_and_pair_as_three_pairs and shape == (4, 2)
            is_pairs |= s.six_of_a_kind_as_three_pairs and shape == (6,)
            if s.three_pairs and is_pairs:
                yield (False, s.three_pairs)
            if s.four_and_pair and shape == (4, 2):
                yield (False, s.four_and_pair)
            if s.two_triplets and shape == (3, 3):
                yield (False, s.two_triplets)
        # S-13, S-14: three of a kind (worth points) and a pair of another face.
        if s.full_house != "off" and n == 5 and shape == (3, 2):
            count = Counter(block)
            three = next(f for f, k in count.items() if k == 3)
            pair = next(f for f, k in count.items() if k == 2)
            base = self.kind_on(3, three, thrown)
            if isinstance(base, int):
                if s.full_house == "sum":
                    yield (False, base + s.full_house_pair * pair)
                else:
                    yield (False, base * pair)

    # ------------------------------------------------------------ one throw

    def score(self, throw: tuple[int, ...]) -> RefScore:
        throw = tuple(sorted(throw))
        if throw not in self._scores:
            self._scores[throw] = self._score(throw)
        return self._scores[throw]

    def _score(self, throw: tuple[int, ...]) -> RefScore:
        thrown = len(throw)
        best: dict[tuple[int, ...], Value] = {}  # the best reading of each selection
        best_points: dict[tuple[int, ...], int] = {}  # its most points read with no win
        for size in range(1, thrown + 1):
            for positions in combinations(range(thrown), size):
                dice = tuple(sorted(throw[p] for p in positions))
                for partition in set_partitions(positions):
                    options = [
                        self.readings(tuple(sorted(throw[p] for p in block)), thrown)
                        for block in partition
                    ]
                    if not all(options):
                        continue
                    for choice in product(*options):
                        value = (any(w for w, _ in choice), sum(p for _, p in choice))
                        if dice not in best or value > best[dice]:
                            best[dice] = value
                        if not value[0] and value[1] > best_points.get(dice, -1):
                            best_points[dice] = value[1]
        scoring: dict[Key, RefKeep] = {}
        for dice, (wins, points) in best.items():
            scoring[(dice, wins)] = RefKeep(dice, points, wins, len(dice) == thrown)
            if wins and dice in best_points:
                scoring[(dice, False)] = RefKeep(
                    dice, best_points[dice], False, len(dice) == thrown
                )
        # F-2: a scoreless throw of all the dice is worth the bonus, as a full hand.
        bonus = self.rules.scoring.no_score_bonus
        if not scoring and bonus and thrown == self.rules.dice:
            scoring = {(throw, False): RefKeep(throw, bonus, False, True)}
        return RefScore(throw, scoring, self._legal(throw, scoring))

    def _legal(self, throw: tuple[int, ...], scoring: dict[Key, RefKeep]) -> dict[Key, RefKeep]:
        s = self.rules.scoring
        legal = dict(scoring)
        if s.keep_whole_multiples:
            # A multiple is the largest count of its face in the throw that is a combination.
            have = Counter(throw)
            whole = {
                face: max(
                    (n for n in range(3, have[face] + 1) if self.is_multiple(n, face, len(throw))),
                    default=0,
                )
                for face in range(1, 7)
            }
            legal = {
                key: keep
                for key, keep in legal.items()
                if not any(0 < Counter(keep.dice)[face] < whole[face] for face in range(1, 7))
            }
        if s.keep_every_multiple:
            # Every die of a face that the throw's multiples can take at once (six 4s are two
            # threes where only three of a kind scores), found by trying every split.
            have = Counter(throw)
            taken = {}
            for face in range(1, 7):
                sizes = [n for n in range(3, 7) if self.is_multiple(n, face, len(throw))]
                splits = {0}
                for _ in range(have[face]):
                    splits |= {a + n for a in splits for n in sizes if a + n <= have[face]}
                taken[face] = max(splits)
            legal = {
                key: keep
                for key, keep in legal.items()
                if all(Counter(keep.dice)[face] >= taken[face] for face in range(1, 7))
            }
        if s.keep_all_scoring and legal:
            top = max((k.wins, k.points) for k in legal.values())
            legal = {key: k for key, k in legal.items() if (k.wins, k.points) == top}
            most = max(len(k.dice) for k in legal.values())
            legal = {key: k for key, k in legal.items() if len(k.dice) == most}
            if self.rules.variants.joker:
                legal.update(self._joker_keeps(throw, legal, scoring))
        return legal

    @staticmethod
    def _joker_keeps(
        throw: tuple[int, ...], best: dict[Key, RefKeep], scoring: dict[Key, RefKeep]
    ) -> dict[Key, RefKeep]:
        """V-2 with ``keep_all_scoring``, the 10,000 article's keep: every scoring die is kept
        but the jokers. A keep may be part of a best keep whose other dice, set aside as
        jokers, score by themselves, the two worth the whole together (no combination
        broken); a winning keep, or one of every die thrown, leaves no joker."""
        found: dict[Key, RefKeep] = {}
        for whole in best.values():
            if whole.wins or len(whole.dice) == len(throw):
                continue
            for key, part in scoring.items():
                inside = Counter(part.dice) <= Counter(whole.dice)
                if part.dice == whole.dice or not inside:
                    continue
                rest = tuple(sorted((Counter(whole.dice) - Counter(part.dice)).elements()))
                jokers = scoring.get((rest, False))
                if jokers is not None and jokers.points + part.points == whole.points:
                    found[key] = part
        return found


_REFERENCES: dict[RuleSet, Reference] = {}


def reference(rules: RuleSet) -> Reference:
    """The (memoised) reference scorer of a rule set."""
    if rules not in _REFERENCES:
        _REFERENCES[rules] = Reference(rules)
    return _REFERENCES[rules]
