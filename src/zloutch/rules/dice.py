"""Dice, throws and multisets of faces.

A throw is kept as a sorted tuple of faces: order never matters for scoring, and a
sorted tuple is hashable, comparable and prints the way players write it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial

from zloutch.rules.errors import InvalidDiceError

Face = int
"""A die face, 1 to 6."""

Dice = tuple[Face, ...]
"""A sorted multiset of faces."""

FACES: tuple[Face, ...] = (1, 2, 3, 4, 5, 6)
MAX_DICE = 6
_FACE_TEXTS = {str(face) for face in FACES}


def sort_dice(faces: Iterable[Face]) -> Dice:
    """Return the faces as a sorted tuple (the canonical form of a multiset)."""
    return tuple(sorted(faces))


def parse_dice(text: str | Iterable[str | int], *, max_dice: int = MAX_DICE) -> Dice:
    """Parse faces written by a person: ``"1 1 5"``, ``"115"``, ``"1,1,5"`` or ``["1", "15"]``.

    Raises InvalidDiceError with a message that names the bad face.
    """
    parts: list[str] = []
    items: Iterable[str | int] = [text] if isinstance(text, str) else text
    for item in items:
        if isinstance(item, int):
            parts.append(str(item))
            continue
        for chunk in item.replace(",", " ").split():
            if chunk.isdigit() and len(chunk) > 1:
                parts.extend(chunk)
            else:
                parts.append(chunk)
    faces: list[Face] = []
    for part in parts:
        # Not isdigit() alone: it is true of "²", which int() refuses.
        if part not in _FACE_TEXTS:
            raise InvalidDiceError(f"{part!r} is not a die face: faces are 1 to 6")
        faces.append(int(part))
    if len(faces) > max_dice:
        raise InvalidDiceError(f"{len(faces)} dice given, but at most {max_dice} are thrown")
    return sort_dice(faces)


def format_dice(dice: Iterable[Face]) -> str:
    """Faces separated by spaces, as players write them (``"1 1 5"``)."""
    return " ".join(str(face) for face in dice)


def counts(dice: Iterable[Face]) -> tuple[int, int, int, int, int, int]:
    """How many dice show each face, faces 1..6."""
    c = [0, 0, 0, 0, 0, 0]
    for face in dice:
        c[face - 1] += 1
    return (c[0], c[1], c[2], c[3], c[4], c[5])


def from_counts(face_counts: Iterable[int]) -> Dice:
    """The sorted dice that have these counts of faces 1..6."""
    return tuple(face for face, n in zip(FACES, face_counts, strict=False) for _ in range(n))


def multisets(n: int) -> Iterator[Dice]:
    """Every multiset of ``n`` dice, in lexicographic order (C(n + 5, 5) of them)."""
    return combinations_with_replacement(FACES, n)


def all_throws(max_dice: int = MAX_DICE) -> Iterator[Dice]:
    """Every multiset of 1 to ``max_dice`` dice (923 for six dice)."""
    for n in range(1, max_dice + 1):
        yield from multisets(n)


def sub_multisets(dice: Dice) -> tuple[Dice, ...]:
    """Every sub-multiset of sorted ``dice`` (the empty one included), each once, sorted.

    Kept per throw once computed (there are 923 throws of one to six dice): every score
    table reads them for every throw it builds.
    """
    return _sub_multisets(counts(dice))


@lru_cache(maxsize=4096)
def _sub_multisets(face_counts: tuple[int, ...]) -> tuple[Dice, ...]:
    # Face by face, each part so far with none to all of the next face's dice: the order of
    # ``product`` over the counts (the first face's count changing slowest), built by
    # concatenation rather than a ``from_counts`` each (six times faster).
    parts: list[Dice] = [()]
    for face, n in zip(FACES, face_counts, strict=False):
        if n:
            parts = [part + (face,) * k for part in parts for k in range(n + 1)]
    return tuple(parts)


def difference(dice: Dice, removed: Iterable[Face]) -> Dice:
    """``dice`` less ``removed`` (a multiset difference); removed must be contained."""
    rest = list(dice)
    for face in removed:
        rest.remove(face)
    return tuple(rest)


def contains(dice: Dice, part: Iterable[Face]) -> bool:
    """Whether the multiset ``part`` is contained in ``dice``."""
    have = counts(dice)
    need = counts(part)
    return all(n <= h for n, h in zip(need, have, strict=True))


def probability(dice: Dice) -> Fraction:
    """Exact probability that a throw of ``len(dice)`` fair dice shows this multiset."""
    ways = factorial(len(dice))
    for k in counts(dice):
        ways //= factorial(k)
    return Fraction(ways, 6 ** len(dice))
