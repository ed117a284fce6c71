"""The game solver's inner loop as whole-array operations (the ``array`` backend).

Written in the NumPy API, it runs on NumPy or, given CuPy's module as ``xp``, on a GPU
(launch-bound there: about 90 small operations a total). Every pair advances one total per
step; the computation is ``reference.kernel_python``'s, to the bit.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt

from zloutch.strategy.kernels.pairs import PairsProblem

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


def solve_pairs_array(problem: PairsProblem, xp: Any) -> tuple[Floats, Floats]:
    tables = problem.turn
    rows, bank, bank_farkle = problem.rows, problem.bank, problem.bank_farkle
    farkle, win, boundary = problem.farkle, problem.win, problem.boundary
    boundary_is_farkle = problem.boundary_is_farkle
    """The same computation as whole arrays: every pair advances one total per step.

    Pairs with fewer rows start later; values above a pair's rows hold its boundary.
    Options are padded per signature to the widest one (padding is -inf). The signatures
    of each dependency level of the flat turn are valued together, level after level (a
    level reads at its own total only the levels below it).
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
    sig_level = tables.sig_start[tables.level_start]
    groups = [np.arange(a, b, dtype=np.int64) for a, b in pairwise(sig_level.tolist())]

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
