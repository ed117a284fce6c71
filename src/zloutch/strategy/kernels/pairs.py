"""One batch of pairs of scores, solved by any backend: ``PairsProblem`` and ``solve_pairs``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from zloutch.engine.compiled import FlatTurn

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

BACKENDS = ("numba", "array", "cuda", "python", "numba-pairs")
"""``solve_pairs``'s backends (the package's docstring)."""


class PairArrays(NamedTuple):
    """A problem's arrays as the compiled loops take them (``PairsProblem.arrays``)."""

    rows: Ints
    bank: Floats
    bank_farkle: Bools
    farkle: Floats
    win: Floats
    boundary: Floats
    boundary_is_farkle: bool


@dataclass(frozen=True, eq=False)
class PairsProblem:
    """The turns of a batch of pairs of scores, one turn graph for all: what every solver
    backend takes.

    For pair ``p``: ``rows[p]`` totals (in units) are solved, from ``rows[p] - 1`` down to 0;
    ``bank[p, t, h]`` is what banking a total of ``t`` from hand ``h`` is worth (-inf: not
    allowed), ``bank_farkle[p, t, h]`` that banking gains nothing, so it is worth what a
    farkle is; ``farkle[p]`` and ``win[p]`` what the turn's end by a farkle and by an instant
    win are worth; totals at or above ``rows[p]`` are worth ``boundary[p]``, which is the
    farkle's value when ``boundary_is_farkle`` (an exact target: the turn is lost there).
    """

    turn: FlatTurn
    rows: Ints
    bank: Floats
    bank_farkle: Bools
    farkle: Floats
    win: Floats
    boundary: Floats
    boundary_is_farkle: bool

    def __post_init__(self) -> None:
        pairs, hands = int(self.rows.shape[0]), int(self.turn.hand_col.shape[0])
        height = int(self.rows.max(initial=0))
        by_pair = (self.farkle.shape, self.win.shape, self.boundary.shape)
        if (
            self.rows.ndim != 1
            or by_pair != ((pairs,),) * 3
            or self.bank.shape != self.bank_farkle.shape
            or self.bank.ndim != 3
            or self.bank.shape[0] != pairs
            or self.bank.shape[1] < height
            or (pairs and self.bank.shape[2] != hands)
        ):
            raise ValueError(
                f"a batch of {pairs} pairs up to {height} totals and {hands} hands that the "
                f"kernels cannot read: banks {self.bank.shape}, flags {self.bank_farkle.shape}, "
                f"farkle, win, boundary {by_pair}"
            )

    @property
    def pairs(self) -> int:
        return int(self.rows.shape[0])

    @property
    def height(self) -> int:
        """The most totals of a pair."""
        return int(self.rows.max(initial=0))

    def arrays(self) -> PairArrays:
        """The arrays, contiguous and of the kernels' types."""
        return PairArrays(
            np.ascontiguousarray(self.rows, dtype=np.int64),
            np.ascontiguousarray(self.bank, dtype=np.float64),
            np.ascontiguousarray(self.bank_farkle, dtype=np.bool_),
            np.ascontiguousarray(self.farkle, dtype=np.float64),
            np.ascontiguousarray(self.win, dtype=np.float64),
            np.ascontiguousarray(self.boundary, dtype=np.float64),
            bool(self.boundary_is_farkle),
        )


def solve_pairs(
    problem: PairsProblem, backend: str = "numba", xp: Any = None, threads: int = 1
) -> tuple[Floats, Floats]:
    """Values and d(value)/d(farkle) of every (pair, total, column): ``[p, t, c]`` for the
    totals below the problem's height, zeros past a pair's rows and in the farkle and win
    columns. ``backend``: one of ``BACKENDS``; ``xp``: the array module of the ``array``
    backend (NumPy, or CuPy's for a GPU); ``threads``: the lane kernel's."""
    if backend == "array":
        from zloutch.strategy.kernels.array import solve_pairs_array

        return solve_pairs_array(problem, xp or np)
    if backend == "cuda":
        from zloutch.strategy.kernels.cuda import solve_pairs_cuda

        return solve_pairs_cuda(problem)
    if backend == "numba":
        from zloutch.strategy.kernels.lanes import Lanes

        lanes = Lanes(problem.turn, problem.rows, problem.bank, problem.bank_farkle)
        lanes.starts(
            problem.farkle,
            problem.win,
            problem.boundary,
            problem.boundary_is_farkle,
            threads,
            keep=True,
        )
        return lanes.tables_of_pairs()
    if backend not in ("python", "numba-pairs"):
        raise ValueError(f"unknown backend {backend!r} (one of {', '.join(BACKENDS)})")
    from zloutch.strategy.kernels import reference

    values = np.zeros((problem.pairs, max(problem.height, 1), problem.turn.columns))
    deriv = np.zeros_like(values)
    kernel = reference.kernel_python if backend == "python" else reference.numba_kernel()
    kernel(values, deriv, problem.arrays(), reference.turn_arrays(problem.turn))
    return values, deriv
