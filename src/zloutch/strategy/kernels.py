"""The inner loop of the game solver: the turns of many score pairs at once.

``solve_pairs`` values every (total, node) of one turn for each pair of scores, given what
banking is worth at each total (``bank``), what a farkle and an instant win are worth, and
returns the values with their derivative with respect to the farkle value (for Newton's
method on the farkle cycle, see ``game_solver``). Two backends compute the same numbers:

- ``numba``: compiled loops, pairs in parallel over the CPU cores (the default);
- ``array``: whole-array operations in the NumPy API, which run on NumPy or, given CuPy's
  module as ``xp``, on a GPU (``--device cuda``).

Layout (documented once, used by both): ``values[p, t, c]`` for pair ``p``, total ``t`` in
units and column ``c`` (0 farkle, 1 win, then the nodes of ``TurnModel``); throw nodes are
listed in solving order with their signatures (rolls merged when they offer the same keeps),
``sig_start[n]:sig_start[n+1]`` the signatures of node ``n``, ``opt_start[s]:opt_start[s+1]``
the options of signature ``s``, each option ``(opt_pts, opt_dest)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

try:  # Numba compiles the loops; without it they still run, slowly, in plain Python.
    from numba import prange
except ImportError:  # pragma: no cover
    prange = range  # type: ignore[misc]

from zloutch.strategy.turn_solver import TurnModel

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Tables:
    """A turn graph as flat arrays, rolls merged by the keeps they offer."""

    columns: int
    node_col: Ints
    sig_start: Ints
    sig_prob: Floats
    opt_start: Ints
    opt_pts: Ints
    opt_dest: Ints
    hand_col: Ints
    hand_throw_col: Ints
    start_col: int
    max_points: int

    @property
    def options(self) -> int:
        return int(self.opt_pts.shape[0])


def build_tables(model: TurnModel) -> Tables:
    """Flatten the model: joker throws first, then throws with jokers, then the rest."""
    order = [
        [n for n in model.options if n.joker_roll],
        [n for n in model.options if n.jokers and not n.joker_roll],
        [n for n in model.options if not n.jokers and not n.joker_roll],
    ]
    node_col: list[int] = []
    sig_start = [0]
    sig_prob: list[float] = []
    opt_start = [0]
    opt_pts: list[int] = []
    opt_dest: list[int] = []
    for nodes in order:
        for node in nodes:
            merged: dict[tuple[tuple[int, int], ...], float] = {}
            for (_, p), options in zip(model.rolls[node.n], model.options[node], strict=True):
                key = tuple(options)
                merged[key] = merged.get(key, 0.0) + p
            node_col.append(model.column[node])
            for options_key, p in merged.items():
                sig_prob.append(p)
                for points, dest in options_key:
                    opt_pts.append(points)
                    opt_dest.append(dest)
                opt_start.append(len(opt_pts))
            sig_start.append(len(sig_prob))
    hands = model.hands
    return Tables(
        columns=len(model.nodes) + 2,
        node_col=np.asarray(node_col, dtype=np.int64),
        sig_start=np.asarray(sig_start, dtype=np.int64),
        sig_prob=np.asarray(sig_prob, dtype=np.float64),
        opt_start=np.asarray(opt_start, dtype=np.int64),
        opt_pts=np.asarray(opt_pts, dtype=np.int64),
        opt_dest=np.asarray(opt_dest, dtype=np.int64),
        hand_col=np.asarray([model.column[h] for h in hands], dtype=np.int64),
        hand_throw_col=np.asarray([model.column[model.throw_of(h)] for h in hands], dtype=np.int64),
        start_col=model.column[model.start],
        max_points=model.max_points,
    )


def _kernel_python(
    values: Floats,
    deriv: Floats,
    rows: Ints,
    bank: Floats,
    bank_farkle: npt.NDArray[np.bool_],
    farkle: Floats,
    win: Floats,
    boundary: Floats,
    boundary_is_farkle: bool,
    node_col: Ints,
    sig_start: Ints,
    sig_prob: Floats,
    opt_start: Ints,
    opt_pts: Ints,
    opt_dest: Ints,
    hand_col: Ints,
    hand_throw_col: Ints,
) -> None:  # pragma: no cover - compiled by numba; the array backend is the tested twin
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


def _numba_kernel() -> Any:
    """The kernel compiled by Numba on first use (and cached on disk by Numba)."""
    global _compiled
    if _compiled is None:
        import numba

        _compiled = numba.njit(parallel=True, cache=True, nogil=True)(_kernel_python)
    return _compiled


def numba_available() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def solve_pairs(
    tables: Tables,
    rows: Ints,
    bank: Floats,
    bank_farkle: npt.NDArray[np.bool_],
    farkle: Floats,
    win: Floats,
    boundary: Floats,
    boundary_is_farkle: bool,
    backend: str = "numba",
    xp: Any = None,
) -> tuple[Floats, Floats]:
    """Values and d(value)/d(farkle) of every (pair, total, column).

    ``bank[p, t, h]``: what banking at total t from hand h is worth (-inf: not allowed);
    ``bank_farkle[p, t, h]``: banking gains nothing, so it is worth what a farkle is.
    Totals at or above ``rows[p]`` are worth ``boundary[p]``.
    """
    pairs = rows.shape[0]
    height = int(rows.max(initial=0))
    if backend == "array":
        return _solve_pairs_array(
            tables, rows, bank, bank_farkle, farkle, win, boundary, boundary_is_farkle, xp or np
        )
    values = np.zeros((pairs, max(height, 1), tables.columns), dtype=np.float64)
    deriv = np.zeros_like(values)
    if backend == "python":
        kernel: Any = _kernel_python
    elif backend == "numba":
        kernel = _numba_kernel()
    else:
        raise ValueError(f"unknown backend {backend!r}")
    kernel(
        values,
        deriv,
        rows,
        bank,
        bank_farkle,
        farkle,
        win,
        boundary,
        boundary_is_farkle,
        tables.node_col,
        tables.sig_start,
        tables.sig_prob,
        tables.opt_start,
        tables.opt_pts,
        tables.opt_dest,
        tables.hand_col,
        tables.hand_throw_col,
    )
    return values, deriv


def _solve_pairs_array(
    tables: Tables,
    rows: Ints,
    bank: Floats,
    bank_farkle: npt.NDArray[np.bool_],
    farkle: Floats,
    win: Floats,
    boundary: Floats,
    boundary_is_farkle: bool,
    xp: Any,
) -> tuple[Floats, Floats]:
    """The same computation as whole arrays: every pair advances one total per step.

    Pairs with fewer rows start later; values above a pair's rows hold its boundary.
    Options are padded per signature to the widest one (padding is -inf).
    """
    pairs = int(rows.shape[0])
    height = int(rows.max(initial=0))
    pad = tables.max_points + 1
    cols = tables.columns + 1  # the last column is -inf, for padding
    neg = cols - 1
    sigs = int(tables.sig_prob.shape[0])
    widths = np.diff(tables.opt_start)
    width = int(widths.max(initial=1))
    pts = np.zeros((sigs, width), dtype=np.int64)
    dest = np.full((sigs, width), neg, dtype=np.int64)
    for s in range(sigs):
        a, b = tables.opt_start[s], tables.opt_start[s + 1]
        pts[s, : b - a] = tables.opt_pts[a:b]
        dest[s, : b - a] = tables.opt_dest[a:b]
    sig_node = np.repeat(np.arange(len(tables.node_col)), np.diff(tables.sig_start))
    groups = _groups_by_dependency(tables, dest)

    v = xp.zeros((height + pad, cols, pairs), dtype=xp.float64)
    d = xp.zeros_like(v)
    rows_x = xp.asarray(rows)
    t_index = xp.arange(height + pad)[:, None]
    above = t_index >= rows_x[None, :]
    bnd = xp.asarray(boundary)[None, :]
    farkle_x = xp.asarray(farkle)
    v[:, :, :] = xp.where(above[:, None, :], bnd[:, None, :], 0.0)
    if boundary_is_farkle:
        d[:, :, :] = xp.where(above, 1.0, 0.0)[:, None, :]
    v[:, 0, :] = farkle_x[None, :]
    d[:, 0, :] = 1.0
    v[:, 1, :] = xp.asarray(win)[None, :]
    d[:, 1, :] = 0.0
    v[:, neg, :] = -xp.inf
    d[:, neg, :] = 0.0
    pts_x, dest_x = xp.asarray(pts), xp.asarray(dest)
    prob_x = xp.asarray(tables.sig_prob)
    bank_x = xp.asarray(np.moveaxis(bank, 0, -1))  # [t, h, p]
    bank_f = xp.asarray(np.moveaxis(bank_farkle, 0, -1))
    hand_col = xp.asarray(tables.hand_col)
    hand_throw = xp.asarray(tables.hand_throw_col)
    for t in range(height - 1, -1, -1):
        live = ~above[t]
        for group in groups:
            g_sigs = xp.asarray(group)
            options = v[t + pts_x[g_sigs], dest_x[g_sigs], :]  # [S, K, P]
            arg = options.argmax(axis=1)
            best = xp.take_along_axis(options, arg[:, None, :], axis=1)[:, 0, :]
            dopt = d[t + pts_x[g_sigs], dest_x[g_sigs], :]
            dbest = xp.take_along_axis(dopt, arg[:, None, :], axis=1)[:, 0, :]
            nodes = sig_node[group]
            for n in np.unique(nodes):
                mask = xp.asarray(nodes == n)
                col = int(tables.node_col[n])
                weight = prob_x[g_sigs][mask][:, None]
                value = (weight * best[mask]).sum(axis=0)
                dvalue = (weight * dbest[mask]).sum(axis=0)
                v[t, col, :] = xp.where(live, value, v[t, col, :])
                d[t, col, :] = xp.where(live, dvalue, d[t, col, :])
        throw = v[t, hand_throw, :]
        dthrow = d[t, hand_throw, :]
        b = xp.where(bank_f[t], farkle_x[None, :], bank_x[t])
        db = xp.where(bank_f[t], 1.0, 0.0)
        take = b > throw
        v[t, hand_col, :] = xp.where(live[None, :], xp.where(take, b, throw), v[t, hand_col, :])
        d[t, hand_col, :] = xp.where(live[None, :], xp.where(take, db, dthrow), d[t, hand_col, :])
    values = xp.moveaxis(v[:height, : cols - 1, :], -1, 0)
    deriv = xp.moveaxis(d[:height, : cols - 1, :], -1, 0)
    if xp is not np:
        values, deriv = xp.asnumpy(values), xp.asnumpy(deriv)
    return np.ascontiguousarray(values), np.ascontiguousarray(deriv)


def _groups_by_dependency(tables: Tables, dest: Ints) -> list[npt.NDArray[np.int64]]:
    """Signatures in three groups: joker throws, throws reaching them at 0 points, the rest.

    Within one total, a farkle with jokers set aside moves to the jokers' throw at the same
    total, so those nodes must be valued first; every other option adds points.
    """
    node_of_sig = np.repeat(np.arange(len(tables.node_col)), np.diff(tables.sig_start))
    same_total = set()
    for s in range(len(tables.sig_prob)):
        for o in range(tables.opt_start[s], tables.opt_start[s + 1]):
            if tables.opt_pts[o] == 0 and tables.opt_dest[o] > 1:
                same_total.add(int(tables.opt_dest[o]))
    first = [
        s for s in range(len(node_of_sig)) if int(tables.node_col[node_of_sig[s]]) in same_total
    ]
    rest = [
        s for s in range(len(node_of_sig)) if int(tables.node_col[node_of_sig[s]]) not in same_total
    ]
    del dest
    return [np.asarray(g, dtype=np.int64) for g in (first, rest) if g]
