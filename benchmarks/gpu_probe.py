"""Where the CUDA kernel's time goes: one batch of zilch's pairs, and a launch in its parts.

Run on a machine with an NVIDIA GPU::

    PYTHONPATH=src python benchmarks/gpu_probe.py

It builds a batch of random banks by score shaped like one of zilch's middle levels (``--pairs``
pairs, rows spread from 6 to the longest) and times, with the device synchronised, launches
of the kernel the solver runs (``cuda_device``) at each size; then a launch of one pair of one
row, whole and in its parts (the copies, the launch), and with the dispatcher's typing skipped
(``specialize``) or its occupancy warning off.

The variants measured on 2026-12-04 were copies of the kernel with one part changed, taken
out once measured so that the probe times only what the solver runs: a warp's sum in step 2
is in this file's history (commit a6fd203); the kernel without its options or its banks was
run on the kernel before that commit and never committed. Their figures are in
docs/performance.md and performance-history.md.
"""

# mypy: ignore-errors
# (Numba's CUDA objects, as in zloutch.strategy.kernels.cuda_device.)

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import cuda

from zloutch.rules import load_rules
from zloutch.strategy.game_solver import _Game
from zloutch.strategy.kernels import cuda as cuda_kernel
from zloutch.strategy.kernels.banks import LevelBanks


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
    original = cuda_kernel._kernels
    for pairs in args.pairs:
        turn, banks = batch(args.rules, pairs, 7)
        level = cuda_kernel.CudaLevel.by_score(turn, banks, True, args.block)
        rows = int(banks.rows.sum())
        seconds, _ = timed(level, args.repeat)
        print(
            f"{args.rules} {pairs:5} pairs ({rows:7,} rows, block {level.block}): "
            f"{seconds * 1e3:8.3f} ms a launch, {seconds / rows * 1e9:7.1f} ns a "
            f"row-pair, {seconds / (rows / pairs) * 1e6:6.2f} us a row",
            flush=True,
        )
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
