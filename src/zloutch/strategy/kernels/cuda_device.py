"""The device side of ``cuda_kernel``: the kernels, compiled by Numba's CUDA target.

Imported only by ``cuda_kernel`` when a launch is made, so that ``numba.cuda`` is never
imported by the rest of the package. ``cuda`` is this module's global (not a local name):
Numba's simulator swaps the module's ``cuda`` for its own when it runs a kernel on the CPU.
The layout and the order of the operations are ``cuda_kernel``'s docstring.
"""

# mypy: ignore-errors
# (Numba kernels: untyped by nature, and numba.cuda's names are made at its import.)

from __future__ import annotations

import numpy as np
from numba import cuda, float64

NEG_INF = float("-inf")

if "simulator" in getattr(cuda.jit, "__module__", ""):  # NUMBA_ENABLE_CUDASIM=1
    RING = float64  # the simulator takes Numba's type (np.float64 fails there, Numba 0.68)

    @cuda.jit(device=True)
    def mul(a, b):
        return a * b

    @cuda.jit(device=True)
    def add(a, b):
        return a + b

else:  # pragma: no cover - needs a GPU
    RING = np.float64  # what Numba's and NVIDIA's numba-cuda both type
    from numba.cuda.libdevice import dadd_rn as add  # rounded each, never fused into an FMA
    from numba.cuda.libdevice import dmul_rn as mul


@cuda.jit(device=True)
def solve(ring, rows, scal, d_boundary, banks, turn, outputs):
    """One block's pair (``blockIdx.x``) through its totals, in ``ring``. The arguments are
    ``cuda_kernel.CudaLevel``'s: the batch's rows and each pair's farkle, win and boundary
    (``scal``), then three tuples: the banks (``DeviceBanks``), the turn graph
    (``DeviceTurn``: the flat turn's arrays as int32) and where to write (``DeviceOut``)."""
    by_score, bank, same, allowed, pair_allowed, bank_value, nothing = banks
    level_start, sig_start, sig_prob, opt_start, opt_pts, opt_dest = turn[:6]
    node_col, hand_col, throw_hand_start, throw_hands = turn[6:10]
    ring_rows, columns, signatures, start_col = turn[10:]
    out, full, full_values, full_deriv = outputs
    p = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    step = cuda.blockDim.x
    top = rows[p]
    farkle = scal[p, 0]
    win = scal[p, 1]
    boundary = scal[p, 2]
    derivs = ring_rows * columns  # where the derivatives start
    pv = 2 * derivs  # the products of step 1: values, then derivatives
    pd = pv + signatures
    levels = level_start.shape[0] - 1
    for t in range(top - 1, -1, -1):
        base = t % ring_rows  # the slot of row t
        for k in range(levels):
            for s in range(sig_start[level_start[k]] + tid, sig_start[level_start[k + 1]], step):
                best = NEG_INF
                arg = -1
                for o in range(opt_start[s], opt_start[s + 1]):
                    dest = opt_dest[o]
                    if dest == 0:
                        v = farkle
                    elif dest == 1:
                        v = win
                    elif t + opt_pts[o] >= top:
                        v = boundary
                    else:
                        slot = base + opt_pts[o]
                        if slot >= ring_rows:
                            slot -= ring_rows
                        v = ring[slot * columns + dest]
                    if v > best:
                        best = v
                        arg = o
                dbest = 0.0
                if arg >= 0:
                    dest = opt_dest[arg]
                    if dest == 0:
                        dbest = 1.0
                    elif dest == 1:
                        dbest = 0.0
                    elif t + opt_pts[arg] >= top:
                        dbest = d_boundary
                    else:
                        slot = base + opt_pts[arg]
                        if slot >= ring_rows:
                            slot -= ring_rows
                        dbest = ring[derivs + slot * columns + dest]
                ring[pv + s] = mul(sig_prob[s], best)
                ring[pd + s] = mul(sig_prob[s], dbest)
            cuda.syncthreads()
            for n in range(level_start[k] + tid, level_start[k + 1], step):
                value = 0.0
                deriv = 0.0
                for s in range(sig_start[n], sig_start[n + 1]):
                    value = add(value, ring[pv + s])
                    deriv = add(deriv, ring[pd + s])
                col = node_col[n]
                at = base * columns + col
                ring[at] = value
                ring[derivs + at] = deriv
                if full:
                    full_values[p, t, col] = value
                    full_deriv[p, t, col] = deriv
                for j in range(throw_hand_start[n], throw_hand_start[n + 1]):
                    h = throw_hands[j]
                    db = 0.0
                    if by_score:  # the bank's worth by (pair, total); who may bank, by score
                        b = NEG_INF
                        if allowed[pair_allowed[p], t, h]:
                            b = bank_value[p, t]
                            if nothing[p, t]:
                                b = farkle
                                db = 1.0
                    else:
                        b = bank[p, t, h]
                        if same[p, t, h]:
                            b = farkle
                            db = 1.0
                    hv = value
                    hd = deriv
                    if b > value:
                        hv = b
                        hd = db
                    col = hand_col[h]
                    at = base * columns + col
                    ring[at] = hv
                    ring[derivs + at] = hd
                    if full:
                        full_values[p, t, col] = hv
                        full_deriv[p, t, col] = hd
            cuda.syncthreads()
    if tid == 0:
        if top > 0:
            out[p, 0] = ring[start_col]  # row 0 is slot 0
            out[p, 1] = ring[derivs + start_col]
        else:
            out[p, 0] = 0.0
            out[p, 1] = 0.0


@cuda.jit
def in_shared(rows, scal, d_boundary, banks, turn, outputs, scratch):
    ring = cuda.shared.array(0, RING)  # the launch's dynamic shared memory
    solve(ring, rows, scal, d_boundary, banks, turn, outputs)


@cuda.jit
def in_global(rows, scal, d_boundary, banks, turn, outputs, scratch):
    solve(scratch[cuda.blockIdx.x], rows, scal, d_boundary, banks, turn, outputs)
