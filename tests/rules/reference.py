"""A slow, independent reference scorer, for the tests only.

It shares nothing with ``zloutch.rules.scoring``: it reads the RuleSet's fields and, for a
throw, tries every subset of die *positions* and every set partition of that subset into
blocks, checking each block against the combination definitions of RULES.md section 1 and
F-5 directly. A selection scores when some partition reads every block as a combination; its
value is the best reading. Nothing is clever here on purpose: it is the definition, spelled
out, so that the fast tables can be proved equal to it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations, product

from zloutch.rules.ruleset import RuleSet

FOUR_TWO_ONE_POINTS = 2000
"""S-15."""

Value = tuple[bool, int]
"""A reading's worth: (wins the game, points); compared as a tuple, a win first."""


@dataclass(frozen=True)
class RefKeep:
    dice: tuple[int, ...]
    points: int
    wins: bool
    full_hand: bool


@dataclass(frozen=True)
class RefScore:
    throw: tuple[int, ...]
    scoring: dict[tuple[int, ...], RefKeep]
    """Every selection that scores whole, by its sorted dice (free choice, T-2)."""
    legal: dict[tuple[int, ...], RefKeep]
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
        self.kinds = rules.kinds_values()
        self.singles = dict(rules.scoring.singles)
        self._blocks: dict[tuple[tuple[int, ...], int], tuple[Value, ...]] = {}
        self._scores: dict[tuple[int, ...], RefScore] = {}

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
            kind = self.kinds.get((n, block[0]))
            if kind == "win":
                yield (True, 0)
            elif kind is not None:
                yield (False, kind)
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
            base = self.kinds.get((3, three))
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
        best: dict[tuple[int, ...], Value] = {}
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
        scoring = {
            dice: RefKeep(dice, points, wins, len(dice) == thrown)
            for dice, (wins, points) in best.items()
        }
        # F-2: a scoreless throw of all the dice is worth the bonus, as a full hand.
        bonus = self.rules.scoring.no_score_bonus
        if not scoring and bonus and thrown == self.rules.dice:
            scoring = {throw: RefKeep(throw, bonus, False, True)}
        return RefScore(throw, scoring, self._legal(throw, scoring))

    def _legal(
        self, throw: tuple[int, ...], scoring: dict[tuple[int, ...], RefKeep]
    ) -> dict[tuple[int, ...], RefKeep]:
        s = self.rules.scoring
        legal = dict(scoring)
        if s.keep_whole_multiples:
            have = Counter(throw)
            whole = {
                face: max((n for (n, f) in self.kinds if f == face and n <= have[face]), default=0)
                for face in range(1, 7)
            }
            legal = {
                dice: keep
                for dice, keep in legal.items()
                if not any(0 < Counter(dice)[face] < whole[face] for face in range(1, 7))
            }
        if s.keep_all_scoring and legal:
            top = max((k.wins, k.points) for k in legal.values())
            legal = {d: k for d, k in legal.items() if (k.wins, k.points) == top}
            most = max(len(d) for d in legal)
            legal = {d: k for d, k in legal.items() if len(d) == most}
        return legal


_REFERENCES: dict[RuleSet, Reference] = {}


def reference(rules: RuleSet) -> Reference:
    """The (memoised) reference scorer of a rule set."""
    if rules not in _REFERENCES:
        _REFERENCES[rules] = Reference(rules)
    return _REFERENCES[rules]
