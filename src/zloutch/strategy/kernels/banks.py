"""What banking is worth, as the solvers' kernels read it: by pair (``LevelBanks``) or from
the tables by score of a whole solve (``ScoreBanks``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from zloutch.strategy.kernels.item import ARRAYS, SCORES, LaneBanks

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


_NO_FLOATS = np.zeros(0)
_NO_INTS = np.zeros(0, dtype=np.int64)
_NO_BOOLS = np.zeros(0, dtype=np.bool_)


@dataclass(frozen=True, eq=False)
class LevelBanks:
    """A batch's banks as the game solver reads them (``_Game.level_banks``): for pair ``p``
    at total ``t`` (below ``height``), ``value[p, t]`` what banking is worth (-inf: the bank
    is lost, T-9), ``nothing[p, t]`` whether the bank writes nothing (G-7: it is worth a
    farkle), and ``allowed[score[p], t, h]`` whether hand ``h`` may bank: one table of who
    may bank for every score, shared by the pairs (``tabulate_banks``), or one a pair.

    ``arrays`` lays it out as ``solve_pairs`` takes it, a value a hand:
    ``bank = where(allowed, value, -inf)``, ``same = allowed & nothing``, for the totals
    below each pair's ``rows``. The CUDA kernel reads this form itself: a hand's bank is
    looked up, not sent (``value`` is a ``hands``-th of ``bank``'s size).
    """

    rows: Ints
    value: Floats
    nothing: npt.NDArray[np.bool_]
    score: Ints
    allowed: npt.NDArray[np.bool_]

    @property
    def height(self) -> int:
        return int(self.value.shape[1])

    def arrays(self) -> tuple[Ints, Floats, npt.NDArray[np.bool_]]:
        """``(rows, bank, same)``, ``[pair, total, hand]``."""
        height = self.height
        inside = np.arange(height)[None, :] < self.rows[:, None]
        allowed = self.allowed[self.score, :height] & inside[:, :, None]
        bank = np.where(allowed, self.value[:, :, None], -np.inf)
        same = allowed & self.nothing[:, :, None]
        return self.rows, bank, same

    @staticmethod
    def concat(parts: list[LevelBanks]) -> LevelBanks:
        """The batches one after the other (the farkle counts of a level, F-1): totals past
        a pair's rows are never read, so shorter batches are padded."""
        if len(parts) == 1:
            return parts[0]
        height = max(part.height for part in parts)

        def padded(array: Any, fill: Any) -> Any:
            extra = height - array.shape[1]
            return np.pad(array, ((0, 0), (0, extra)), constant_values=fill) if extra else array

        shared = all(part.allowed is parts[0].allowed for part in parts)
        if shared:
            allowed, score = parts[0].allowed, np.concatenate([part.score for part in parts])
        else:  # each its own table: one after the other, the indices moved along
            deep = max(part.allowed.shape[1] for part in parts)
            tables = [
                np.pad(part.allowed, ((0, 0), (0, deep - part.allowed.shape[1]), (0, 0)))
                for part in parts
            ]
            starts = np.cumsum([0] + [len(table) for table in tables[:-1]])
            allowed = np.concatenate(tables)
            score = np.concatenate(
                [part.score + at for part, at in zip(parts, starts, strict=True)]
            )
        return LevelBanks(
            np.concatenate([part.rows for part in parts]),
            np.concatenate([padded(part.value, -np.inf) for part in parts]),
            np.concatenate([padded(part.nothing, False) for part in parts]),
            score,
            allowed,
        )


@dataclass(frozen=True)
class ScoreBanks:
    """What banking is worth, read by the lane kernel from tables by score (``SCORES``).

    For scores ``low + i``: ``kind[i, t]`` (0 the bank is lost, 1 the game goes on, 2 it
    goes on and the bank writes nothing, 3 it reaches the target), ``bank_x[i, t]`` the
    score after the bank, ``allowed[i, t, h]`` whether hand h may bank at total t. The
    opponent's turn is worth ``win[b - low, x - low]`` to them; reaching the target under
    F-4 hands the opponent a last turn (``last``: the tables by its lead, not entered and
    entered, or None). Under F-1 ``win`` is every count's table one under the other
    (``W.reshape(k * k * n, n)``) and ``b`` is moved along to its count's rows
    (``game_solver._score_batches``): there is no last turn then (F-1 refuses F-4).
    """

    kind: npt.NDArray[np.int8]
    bank_x: Ints
    allowed: npt.NDArray[np.bool_]
    win: Floats
    low: int
    last: tuple[Floats, Floats] | None

    def of(self, a: Ints, b: Ints, entered: npt.NDArray[np.bool_]) -> LaneBanks:
        """The kernel's ``banks`` for pairs (a, b) (units), the opponent entered or not."""
        last0, last1 = self.last if self.last is not None else (_NO_FLOATS, _NO_FLOATS)
        return LaneBanks(
            SCORES,
            _NO_FLOATS.reshape(0, 0, 0),
            _NO_BOOLS.reshape(0, 0, 0),
            np.ascontiguousarray(a - self.low, dtype=np.int64),
            np.ascontiguousarray(b, dtype=np.int64),
            np.ascontiguousarray(entered, dtype=np.bool_),
            self.kind,
            self.bank_x,
            self.allowed,
            self.win,
            self.low,
            last0,
            last1,
            self.last is not None,
        )


def _array_banks(bank: Floats, same: npt.NDArray[np.bool_]) -> LaneBanks:
    return LaneBanks(
        ARRAYS,
        np.ascontiguousarray(bank, dtype=np.float64),
        np.ascontiguousarray(same, dtype=np.bool_),
        _NO_INTS,
        _NO_INTS,
        _NO_BOOLS,
        np.zeros((0, 0), dtype=np.int8),
        _NO_INTS.reshape(0, 0),
        _NO_BOOLS.reshape(0, 0, 0),
        _NO_FLOATS.reshape(0, 0),
        0,
        _NO_FLOATS,
        _NO_FLOATS,
        False,
    )
