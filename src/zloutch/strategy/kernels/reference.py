"""The plain statement of the game solver's inner loop: one pair after the other.

``kernel_python`` values every (total, column) of one turn for each pair of a
``PairsProblem``: the ``python`` backend runs it as it is (slow: the reference that the
tests hold every other backend to, bit for bit), ``numba-pairs`` compiled by Numba, pairs
split between threads (the solver's kernel before the lane kernel, kept to compare with).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

try:  # Numba compiles the loops; without it they still run, slowly, in plain Python.
    from numba import prange
except ImportError:  # pragma: no cover
    prange = range  # type: ignore[misc]

from zloutch.engine.compiled import FlatTurn
from zloutch.strategy.kernels.pairs import PairArrays

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


class TurnArrays(NamedTuple):
    """The flat turn's arrays that the plain kernel reads (``FlatTurn``'s, as they are)."""

    node_col: Ints
    sig_start: Ints
    sig_prob: Floats
    opt_start: Ints
    opt_pts: Ints
    opt_dest: Ints
    hand_col: Ints
    hand_throw_col: Ints


def turn_arrays(turn: FlatTurn) -> TurnArrays:
    return TurnArrays(
        turn.node_col,
        turn.sig_start,
        turn.sig_prob,
        turn.opt_start,
        turn.opt_pts,
        turn.opt_dest,
        turn.hand_col,
        turn.hand_throw_col,
    )


def kernel_python(
    values: Floats, deriv: Floats, problem: PairArrays, turn: TurnArrays
) -> None:  # pragma: no cover - compiled by numba; the array backend is the tested twin
    """``values[p, t, c]`` and ``deriv[p, t, c]`` (d/d farkle) of every pair, total and
    column: each throw node the expectation over its signatures of the best option (the
    first of equal ones), each hand the better of banking and throwing."""
    rows, bank, bank_farkle, farkle, win, boundary, boundary_is_farkle = problem
    node_col, sig_start, sig_prob, opt_start, opt_pts, opt_dest, hand_col, hand_throw_col = turn
    pairs = rows.shape[0]
    for p in prange(pairs):
        top = rows[p]
        for t in range(top - 1, -1, -1):
            for n in range(node_col.shape[0]):
                total = 0.0
                dtotal = 0.0
                for s in range(sig_start[n], sig_start[n + 1]):
                    best = -np.inf
                    dbest = 0.0
                    for o in range(opt_start[s], opt_start[s + 1]):
                        dest = opt_dest[o]
                        row = t + opt_pts[o]
                        if dest == 0:
                            v = farkle[p]
                            dv = 1.0
                        elif dest == 1:
                            v = win[p]
                            dv = 0.0
                        elif row >= top:
                            v = boundary[p]
                            dv = 1.0 if boundary_is_farkle else 0.0
                        else:
                            v = values[p, row, dest]
                            dv = deriv[p, row, dest]
                        if v > best:
                            best = v
                            dbest = dv
                    total += sig_prob[s] * best
                    dtotal += sig_prob[s] * dbest
                values[p, t, node_col[n]] = total
                deriv[p, t, node_col[n]] = dtotal
            for h in range(hand_col.shape[0]):
                throw = values[p, t, hand_throw_col[h]]
                dthrow = deriv[p, t, hand_throw_col[h]]
                b = bank[p, t, h]
                db = 0.0
                if bank_farkle[p, t, h]:
                    b = farkle[p]
                    db = 1.0
                if b > throw:
                    values[p, t, hand_col[h]] = b
                    deriv[p, t, hand_col[h]] = db
                else:
                    values[p, t, hand_col[h]] = throw
                    deriv[p, t, hand_col[h]] = dthrow


_compiled: Any = None


def numba_kernel() -> Any:
    """The kernel compiled by Numba on first use (and cached on disk by Numba)."""
    global _compiled
    if _compiled is None:
        import numba

        _compiled = numba.njit(parallel=True, cache=True, nogil=True)(kernel_python)
    return _compiled


def numba_available() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True
