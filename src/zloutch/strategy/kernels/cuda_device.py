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
NAN = float("nan")
HANDS, LEVEL, TABLES = 0, 1, 2
"""The banks' forms (``DeviceBanks.mode``): a value a hand, a value a (pair, total) with who
may bank by score, or read from the tables by score and the win table on the device."""

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
def node_sum(ring, at, first, end):
    """The products ``ring[at + first:at + end]`` added in their order (the plain kernel's
    sum, bit for bit), read four ahead of the additions: each addition then waits for the
    one before, not for a load."""
    value = 0.0
    s = first
    while s + 4 <= end:
        a0 = ring[at + s]
        a1 = ring[at + s + 1]
        a2 = ring[at + s + 2]
        a3 = ring[at + s + 3]
        value = add(add(add(add(value, a0), a1), a2), a3)
        s += 4
    while s < end:
        value = add(value, ring[at + s])
        s += 1
    return value


@cuda.jit(device=True)
def node_sums(ring, at, dat, first, end):
    """``node_sum`` of the values (from ``at``) and of the derivatives (from ``dat``) in one
    loop: the two chains of additions run side by side."""
    value = 0.0
    deriv = 0.0
    s = first
    while s + 4 <= end:
        a0 = ring[at + s]
        a1 = ring[at + s + 1]
        a2 = ring[at + s + 2]
        a3 = ring[at + s + 3]
        d0 = ring[dat + s]
        d1 = ring[dat + s + 1]
        d2 = ring[dat + s + 2]
        d3 = ring[dat + s + 3]
        value = add(add(add(add(value, a0), a1), a2), a3)
        deriv = add(add(add(add(deriv, d0), d1), d2), d3)
        s += 4
    while s < end:
        value = add(value, ring[at + s])
        deriv = add(deriv, ring[dat + s])
        s += 1
    return value, deriv


@cuda.jit(device=True)
def best_option(ring, row, span, opt_off, first, end):
    """The best of options ``first`` to ``end`` at the row starting at ``row`` (the first of
    equal ones, strict ``>``) and where it was read (-1: none), two reads ahead."""
    best = NEG_INF
    at = -1
    o = first
    while o + 2 <= end:
        i0 = row + opt_off[o]
        if i0 >= span:
            i0 -= span
        i1 = row + opt_off[o + 1]
        if i1 >= span:
            i1 -= span
        v0 = ring[i0]
        v1 = ring[i1]
        if v0 > best:
            best = v0
            at = i0
        if v1 > best:
            best = v1
            at = i1
        o += 2
    if o < end:
        i0 = row + opt_off[o]
        if i0 >= span:
            i0 -= span
        v0 = ring[i0]
        if v0 > best:
            best = v0
            at = i0
    return best, at


@cuda.jit(device=True)
def solve(ring, rows, scal, d_boundary, banks, turn, outputs, sweep):
    """One block's pair through its totals, in ``ring``. The arguments are
    ``cuda_kernel.CudaLevel``'s: the batch's rows and each pair's farkle, win and boundary
    (``scal``), then four tuples: the banks (``DeviceBanks``), the turn graph
    (``DeviceTurn``: the flat turn's arrays as int32), where to write (``DeviceOut``) and,
    for a sweep of the win table on the device (``DeviceSweep``), where the block's pair is
    in the sweep's arrays, where its farkle is read and its value written."""
    mode, bank, same, allowed, pair_score, bank_value, nothing = banks[:7]
    kind, bank_x, win_table, low, pair_opp = banks[7:]
    level_start, sig_start, sig_prob, opt_start, opt_off = turn[:5]
    node_col, hand_col, throw_hand_start, throw_hands = turn[5:9]
    ring_rows, columns, signatures, start_col = turn[9:]
    out, full, full_values, full_deriv, derivative = outputs
    offset, farkle_at, write_at, flat = sweep
    p = offset + cuda.blockIdx.x  # the pair, in the batch's (or the sweep's) arrays
    tid = cuda.threadIdx.x
    step = cuda.blockDim.x
    top = rows[p]
    if mode == TABLES:  # the farkle read from the win table as it stands (F-1's sweep)
        farkle = 1.0 - flat[farkle_at[p]]
        win = 1.0
        boundary = farkle if d_boundary == 1.0 else 1.0
    else:
        farkle = scal[p, 0]
        win = scal[p, 1]
        boundary = scal[p, 2]
    span = ring_rows * columns
    width = 2 if derivative else 1
    derivs = span  # where the derivatives start
    pv = width * span  # the products of step 1: values, then derivatives
    pd = pv + signatures
    hands = hand_col.shape[0]
    hb = pv + width * signatures  # each hand's bank at the row, then its derivative
    hdb = hb + hands
    mine = pair_score[p] if mode != HANDS else 0
    opp = pair_opp[p] if mode == TABLES else 0
    last_x = win_table.shape[1] - 1
    levels = level_start.shape[0] - 1
    # Every slot starts as the rows past the top: the boundary in the turn's columns, the
    # farkle and the win in theirs (never written again), so an option reads its row and
    # column as they are, whichever the row.
    i = tid
    while i < span:  # (strided loops as while loops: a range's trip count divides)
        c = i % columns
        if c == 0:
            ring[i] = farkle
            if derivative:
                ring[derivs + i] = 1.0
        elif c == 1:
            ring[i] = win
            if derivative:
                ring[derivs + i] = 0.0
        else:
            ring[i] = boundary
            if derivative:
                ring[derivs + i] = d_boundary
        i += step
    cuda.syncthreads()
    for t in range(top - 1, -1, -1):
        row = (t % ring_rows) * columns  # where row t's slot starts
        # The row's banks, read by the last threads (the fewest signatures) while the
        # others take the best of their options; read by the nodes after step 1's barrier
        # (the last row's nodes read theirs before the barrier that ended it).
        h = step - 1 - tid
        while h < hands:
            b = NEG_INF
            db = 0.0
            if mode == HANDS:
                b = bank[p, t, h]
                if same[p, t, h]:
                    b = farkle
                    db = 1.0
            elif allowed[mine, t, h]:
                if mode == LEVEL:  # the bank's worth by (pair, total), sent by the host
                    b = bank_value[p, t]
                    if nothing[p, t]:
                        b = farkle
                        db = 1.0
                else:  # read from the tables by score and the win table (lane kernel's)
                    kd = kind[mine, t]
                    if kd == 2:  # banking writes nothing (G-7): worth a farkle
                        b = farkle
                        db = 1.0
                    elif kd == 3:  # the target reached
                        b = 1.0
                    elif kd == 1:  # the game goes on: the opponent's turn
                        x = bank_x[mine, t] - low  # kept within the table, as the CPU's
                        if x < 0:
                            x = 0
                        elif x > last_x:
                            x = last_x
                        b = 1.0 - win_table[opp, x]
            ring[hb + h] = b
            if derivative:
                ring[hdb + h] = db
            h += step
        for k in range(levels):
            s = sig_start[level_start[k]] + tid
            last = sig_start[level_start[k + 1]]
            while s < last:
                best, at = best_option(ring, row, span, opt_off, opt_start[s], opt_start[s + 1])
                ring[pv + s] = mul(sig_prob[s], best)
                if derivative:
                    dbest = 0.0
                    if at >= 0:
                        dbest = ring[derivs + at]
                    ring[pd + s] = mul(sig_prob[s], dbest)
                s += step
            cuda.syncthreads()
            n = level_start[k] + tid
            while n < level_start[k + 1]:
                if derivative:
                    value, deriv = node_sums(ring, pv, pd, sig_start[n], sig_start[n + 1])
                else:
                    value = node_sum(ring, pv, sig_start[n], sig_start[n + 1])
                    deriv = 0.0
                col = node_col[n]
                ring[row + col] = value
                if derivative:
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
                        if derivative:
                            hd = ring[hdb + h]
                    col = hand_col[h]
                    ring[row + col] = hv
                    if derivative:
                        ring[derivs + row + col] = hd
                    if full:
                        full_values[p, t, col] = hv
                        full_deriv[p, t, col] = hd
                n += step
            cuda.syncthreads()
    if tid == 0:
        value = ring[start_col] if top > 0 else 0.0  # row 0 is slot 0
        deriv = 0.0
        if derivative and top > 0:
            deriv = ring[derivs + start_col]
        if mode == TABLES:
            flat[write_at[p]] = value
        else:
            out[p, 0] = value
            out[p, 1] = deriv if derivative else NAN


@cuda.jit
def in_shared(rows, scal, d_boundary, banks, turn, outputs, sweep, scratch):
    ring = cuda.shared.array(0, RING)  # the launch's dynamic shared memory
    solve(ring, rows, scal, d_boundary, banks, turn, outputs, sweep)


@cuda.jit
def in_global(rows, scal, d_boundary, banks, turn, outputs, sweep, scratch):
    solve(scratch[cuda.blockIdx.x], rows, scal, d_boundary, banks, turn, outputs, sweep)


@cuda.jit
def gather(offset, count, source, to, flat):
    """``flat[to + q] = flat[source[offset + q]]`` for the ``count`` pairs of a batch of a
    sweep: the farkles of a batch that writes some of them, read before it runs."""
    q = cuda.grid(1)
    if q < count:
        flat[to + q] = flat[source[offset + q]]
