"""Where the CUDA kernel's time goes: one batch of zilch's pairs, timed in variants.

Run on a machine with an NVIDIA GPU::

    PYTHONPATH=src python benchmarks/gpu_probe.py

It builds a batch of random banks by score shaped like one of zilch's middle levels (``--pairs``
pairs, rows spread from 6 to the longest) and times, with the device synchronised, launches
of the kernel as it is, of a copy of it (``copy``: the variants' own cost of being compiled
apart), and of the copy with step 2's sum of a node's signatures made by a warp (each lane a
stride, then a tree of shuffles) rather than by one thread in order (``warp-sum``: other
roundings, the largest difference printed); then the launch alone, a batch of one pair of
one row.
"""

# mypy: ignore-errors
# (Numba kernels, as in zloutch.strategy.kernels.cuda_device.)

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import cuda

from zloutch.rules import load_rules
from zloutch.strategy.game_solver import _Game
from zloutch.strategy.kernels import cuda as cuda_kernel
from zloutch.strategy.kernels import cuda_device
from zloutch.strategy.kernels.banks import LevelBanks

add, mul, NEG_INF, RING = cuda_device.add, cuda_device.mul, cuda_device.NEG_INF, cuda_device.RING


def make(warp_sum: bool):
    """The kernel of ``cuda_device.solve`` (by score), its step 2 summed by a warp or not."""

    @cuda.jit(device=True)
    def solve(ring, rows, scal, d_boundary, banks, turn, outputs):
        _, _, _, allowed, pair_allowed, bank_value, nothing = banks
        level_start, sig_start, sig_prob, opt_start, opt_off = turn[:5]
        node_col, hand_col, throw_hand_start, throw_hands = turn[5:9]
        ring_rows, columns, signatures, start_col = turn[9:]
        out = outputs[0]
        p = cuda.blockIdx.x
        tid = cuda.threadIdx.x
        step = cuda.blockDim.x
        lane = tid % 32
        warp = tid // 32
        warps = step // 32
        top = rows[p]
        farkle = scal[p, 0]
        win = scal[p, 1]
        boundary = scal[p, 2]
        span = ring_rows * columns
        derivs = span
        pv = 2 * span
        pd = pv + signatures
        hands = hand_col.shape[0]
        hb = pd + signatures
        hdb = hb + hands
        mine = pair_allowed[p]
        levels = level_start.shape[0] - 1
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
            row = (t % ring_rows) * columns
            for h in range(step - 1 - tid, hands, step):
                b = NEG_INF
                db = 0.0
                if allowed[mine, t, h]:
                    b = bank_value[p, t]
                    if nothing[p, t]:
                        b = farkle
                        db = 1.0
                ring[hb + h] = b
                ring[hdb + h] = db
            for k in range(levels):
                for s in range(
                    sig_start[level_start[k]] + tid, sig_start[level_start[k + 1]], step
                ):
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
                first = level_start[k] + (warp if warp_sum else tid)
                for n in range(first, level_start[k + 1], warps if warp_sum else step):
                    value = 0.0
                    deriv = 0.0
                    if warp_sum:
                        for s in range(sig_start[n] + lane, sig_start[n + 1], 32):
                            value = add(value, ring[pv + s])
                            deriv = add(deriv, ring[pd + s])
                        off = 16
                        while off > 0:
                            value = add(value, cuda.shfl_down_sync(0xFFFFFFFF, value, off))
                            deriv = add(deriv, cuda.shfl_down_sync(0xFFFFFFFF, deriv, off))
                            off //= 2
                        if lane != 0:
                            continue
                    else:
                        for s in range(sig_start[n], sig_start[n + 1]):
                            value = add(value, ring[pv + s])
                            deriv = add(deriv, ring[pd + s])
                    col = node_col[n]
                    ring[row + col] = value
                    ring[derivs + row + col] = deriv
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
                cuda.syncthreads()
        if tid == 0:
            out[p, 0] = ring[start_col] if top > 0 else 0.0
            out[p, 1] = ring[derivs + start_col] if top > 0 else 0.0

    @cuda.jit
    def in_shared(rows, scal, d_boundary, banks, turn, outputs, scratch):
        ring = cuda.shared.array(0, RING)
        solve(ring, rows, scal, d_boundary, banks, turn, outputs)

    return in_shared


def batch(spec: str, pairs: int, seed: int) -> tuple[object, LevelBanks]:
    rules = load_rules(spec)
    game = _Game(rules, "array", None)
    turn = game.tables
    rng = np.random.default_rng(seed)
    longest = game.T + 56
    rows = np.linspace(6, longest, pairs).astype(np.int64)
    hands = len(turn.hand_col)
    value = rng.random((pairs, longest))
    nothing = rng.random((pairs, longest)) < 0.05
    score = rng.integers(0, 50, pairs)
    allowed = rng.random((50, longest + 2, hands)) < 0.9
    return turn, LevelBanks(rows, value, nothing, score, allowed)


def timed(level, repeat: int) -> tuple[float, float]:
    n = level.pairs
    rng = np.random.default_rng(1)
    farkle, win, boundary = rng.random(n) * 0.3, 1 - rng.random(n) * 0.1, rng.random(n)
    first = level.starts(farkle, win, boundary)  # compiles where first
    begin = time.perf_counter()
    for _ in range(repeat):
        level.starts(farkle, win, boundary)
    return (time.perf_counter() - begin) / repeat, first[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="zilch")
    parser.add_argument("--pairs", type=int, nargs="*", default=[250, 750, 2250])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--block", type=int, help="threads a block (default: the kernel's)")
    args = parser.parse_args()
    if not cuda_kernel.simulated():
        print(f"GPU {cuda.get_current_device().name}")
    variants = {"as it is": None, "copy": make(False), "warp-sum": make(True)}
    if cuda_kernel.simulated():  # the simulator has no shuffles: a check of the others
        variants = {k: v for k, v in variants.items() if not k.startswith("warp")}
    original = cuda_kernel._kernels
    for pairs in args.pairs:
        turn, banks = batch(args.rules, pairs, 7)
        level = cuda_kernel.CudaLevel.by_score(turn, banks, True, args.block)
        rows = int(banks.rows.sum())
        reference = None
        for name, kernel in variants.items():
            if kernel is None:
                cuda_kernel._kernels = original
            else:
                cuda_kernel._kernels = lambda kernel=kernel: (kernel, kernel)
            seconds, values = timed(level, args.repeat)
            if reference is None:
                reference = values
            diff = float(np.max(np.abs(values - reference)))
            print(
                f"{args.rules} {pairs:5} pairs ({rows:7,} rows, block {level.block}): "
                f"{name:18} {seconds * 1e3:8.3f} ms a launch, {seconds / rows * 1e9:7.1f} ns a "
                f"row-pair, {seconds / (rows / pairs) * 1e6:6.2f} us a row; max diff {diff:.1e}",
                flush=True,
            )
        cuda_kernel._kernels = original
    turn, banks = batch(args.rules, 1, 7)
    one = LevelBanks(
        np.ones(1, np.int64), banks.value[:, :1], banks.nothing[:, :1], banks.score, banks.allowed
    )
    launch_costs(cuda_kernel.CudaLevel.by_score(turn, one, True, args.block), original)


class Specialized:
    """A kernel specialized for the types of its first launch's arguments (no typing after)."""

    def __init__(self, kernel):
        self.kernel, self.done = kernel, None

    def __getitem__(self, config):
        def launch(*args):
            if self.done is None:
                self.done = self.kernel.specialize(*args)
            self.done[config](*args)

        return launch


def launch_costs(level, original, repeat: int = 300) -> None:
    """A launch of one pair of one row, whole and in parts, and with the dispatcher's typing
    skipped (``specialize``) or its occupancy warning off."""
    one = np.full(1, 0.5)

    def per_call(action) -> float:
        action()
        begin = time.perf_counter()
        for _ in range(repeat):
            action()
        return (time.perf_counter() - begin) / repeat * 1e6

    whole = per_call(lambda: level.starts(one, one, one))
    copy_in = per_call(lambda: level._scal.copy_to_device(np.zeros((1, 3))))
    copy_out = per_call(lambda: level._out.copy_to_host())

    def enqueue() -> None:
        level._launch(one, one, one, None, None)
        cuda.synchronize()

    launched = per_call(enqueue)
    print(
        f"a launch of one pair of one row: {whole:.1f} us; the inputs' copy {copy_in:.1f} us, "
        f"the launch and its wait {launched:.1f} us (the copy in included), the copy back "
        f"{copy_out:.1f} us",
        flush=True,
    )
    in_shared, in_global = original()
    cuda_kernel._kernels = lambda: (Specialized(in_shared), Specialized(in_global))
    print(f"  kernel specialized: {per_call(lambda: level.starts(one, one, one)):.1f} us")
    cuda_kernel._kernels = original
    import numba

    switched = []
    for module in ("numba.core.config", "numba.cuda.core.config", "numba.config"):
        try:
            config = __import__(module, fromlist=["_"])
        except ImportError:
            continue
        if hasattr(config, "CUDA_LOW_OCCUPANCY_WARNINGS"):
            config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
            switched.append(module)
    print(
        f"  occupancy warnings off ({', '.join(switched) or 'no such setting'}, Numba "
        f"{numba.__version__}): {per_call(lambda: level.starts(one, one, one)):.1f} us"
    )


if __name__ == "__main__":
    main()
