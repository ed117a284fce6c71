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
    level_start, sig_start, sig_prob, opt_start, opt_off = turn[:5]
    node_col, hand_col, throw_hand_start, throw_hands = turn[5:9]
    ring_rows, columns, signatures, start_col = turn[9:]
    out, full, full_values, full_deriv = outputs
    p = cuda.blockIdx.x
    tid = cuda.threadIdx.x
    step = cuda.blockDim.x
    top = rows[p]
    farkle = scal[p, 0]
    win = scal[p, 1]
    boundary = scal[p, 2]
    span = ring_rows * columns
    derivs = span  # where the derivatives start
    pv = 2 * span  # the products of step 1: values, then derivatives
    pd = pv + signatures
    hands = hand_col.shape[0]
    hb = pd + signatures  # each hand's bank at the row, then its derivative
    hdb = hb + hands
    mine = pair_allowed[p] if by_score else 0
    levels = level_start.shape[0] - 1
    # Every slot starts as the rows past the top: the boundary in the turn's columns, the
    # farkle and the win in theirs (never written again), so an option reads its row and
    # column as they are, whichever the row.
    for i in range(tid, span, step):
        c = i % columns
        if c == 0:
            ring[i] = farkle
            ring[derivs + i] = 1.0
        elif c == 1:
            ring[i] = win
            ring[derivs + i] = 0.0
        else:
            ring[i] = boundary
            ring[derivs + i] = d_boundary
    cuda.syncthreads()
    for t in range(top - 1, -1, -1):
        row = (t % ring_rows) * columns  # where row t's slot starts
        # The row's banks, read by the last threads (the fewest signatures) while the
        # others take the best of their options; read by the nodes after step 1's barrier
        # (the last row's nodes read theirs before the barrier that ended it).
        for h in range(step - 1 - tid, hands, step):
            b = NEG_INF
            db = 0.0
            if by_score:  # the bank's worth by (pair, total); who may bank, by score
                if allowed[mine, t, h]:
                    b = bank_value[p, t]
                    if nothing[p, t]:
                        b = farkle
                        db = 1.0
            else:
                b = bank[p, t, h]
                if same[p, t, h]:
                    b = farkle
                    db = 1.0
            ring[hb + h] = b
            ring[hdb + h] = db
        for k in range(levels):
            for s in range(sig_start[level_start[k]] + tid, sig_start[level_start[k + 1]], step):
                best = NEG_INF
                at = -1
                for o in range(opt_start[s], opt_start[s + 1]):
                    i = row + opt_off[o]
                    if i >= span:
                        i -= span
                    v = ring[i]
                    if v > best:
                        best = v
                        at = i
                dbest = 0.0
                if at >= 0:
                    dbest = ring[derivs + at]
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
                ring[row + col] = value
                ring[derivs + row + col] = deriv
                if full:
                    full_values[p, t, col] = value
                    full_deriv[p, t, col] = deriv
                for j in range(throw_hand_start[n], throw_hand_start[n + 1]):
                    h = throw_hands[j]
                    b = ring[hb + h]
                    hv = value
                    hd = deriv
                    if b > value:
                        hv = b
                        hd = ring[hdb + h]
                    col = hand_col[h]
                    ring[row + col] = hv
                    ring[derivs + row + col] = hd
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
