"""The game solver on an NVIDIA GPU (the CUDA kernel, ``--device cuda``): farkle and zilch.

Run, from the repository's root, on a machine with an NVIDIA GPU (about 1.5 minutes on one
H100 with every check, 2026-12-05)::

    PYTHONPATH=src python benchmarks/gpu_solver.py

(``--quick``: farkle-minimal only, for a first look; ``--rules``/``--check``: other sets.)

``--host`` needs no GPU: it times what the host prepares for the kernel in one sweep of
zilch's levels under F-1 (every level, every group of farkle counts), in the two forms the
kernel reads: the banks by score that the solver sends (``LevelBanks``, a value a pair and
total, who may bank looked up by score on the device) and the banks a hand
(``LevelBanks.arrays``, a value a pair, total and hand, as ``solve_pairs`` takes them), with
the bytes each sends to the device. Both build a level's banks once per opponent's farkle
count, as the solver does now: the banks a hand before this change were built for every
count (9 a level for zilch), 3.5 s a sweep on the development machine.

It prints the date, the GPU and Numba; the kernel's compile time apart (the first launch,
on a one-pair batch); then for each rule set of ``--rules`` (default: ``farkle-minimal``,
``farkle`` and the full ``zilch`` under F-1) one solve on the GPU, warm: wall time, and
within it the time spent in the kernel's calls (launch, the kernel, the copies: ``gpu``)
against the rest (the level inputs, Newton's steps on the host: ``host``), the kernel
launches, the passes, the residual and the first player's chance. For the sets of
``--check`` (default ``farkle-minimal`` and ``farkle``) it also solves on the CPU (the lane
kernel, every core) and prints the largest difference between the two win tables, which
must be at most 1e-12 (the kernel makes the same operations in the same order as the CPU's,
so 0.0 is expected), and the same passes; the script exits 1 otherwise.

``--out DIR`` writes each solve's summary there (``gpu_RULES.json``: what ``zloutch solve
--game --json`` prints, with the GPU's name, the time in the kernel's calls and the CPU's
check).

Targets (the issue): farkle under 2 s, the full zilch game under 30 s, on one H200. Measured
once on an H100 on 2026-12-05 (docs/performance.md): zilch 27.9 s, farkle 4.0 s (not met);
the figures of 2026-12-04 are in docs/performance-history.md, with ``benchmarks/gpu_probe.py``'s
account of where the time went then.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import time
from typing import Any

import numpy as np

from zloutch.app.solve import game_summary
from zloutch.rules import load_rules
from zloutch.strategy.game_solver import GameSolution, solve_game
from zloutch.strategy.kernels import cuda as cuda_kernel

TOLERANCE = 1e-12


class Meter:
    """Time spent in the kernel's calls (``CudaLevel``: sending a batch, each pass;
    ``CudaSweep.run``: a sweep of F-1's levels queued and waited for, the win table sent and
    brought back) and the launches made."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.launches = 0
        init, starts = cuda_kernel.CudaLevel.__init__, cuda_kernel.CudaLevel.starts
        run = cuda_kernel.CudaSweep.run

        def timed_run(sweep: Any, *args: Any) -> None:
            begin = time.perf_counter()
            run(sweep, *args)
            self.seconds += time.perf_counter() - begin
            self.launches += sweep.launches

        def timed_init(level: Any, *args: Any, **kwargs: Any) -> None:
            begin = time.perf_counter()
            init(level, *args, **kwargs)
            self.seconds += time.perf_counter() - begin

        def timed_starts(level: Any, *args: Any) -> Any:
            begin = time.perf_counter()
            found = starts(level, *args)
            self.seconds += time.perf_counter() - begin
            self.launches += 1
            return found

        cuda_kernel.CudaLevel.__init__ = timed_init  # type: ignore[method-assign,assignment]
        cuda_kernel.CudaLevel.starts = timed_starts  # type: ignore[method-assign,assignment]
        cuda_kernel.CudaSweep.run = timed_run  # type: ignore[method-assign,assignment]

    def reset(self) -> None:
        self.seconds = 0.0
        self.launches = 0


def solve(spec: str, backend: str) -> tuple[GameSolution, float]:
    rules = load_rules(spec)
    begin = time.perf_counter()
    solution = solve_game(rules, backend=backend)
    return solution, time.perf_counter() - begin


def host_sweep(spec: str) -> None:
    """The host's part of one sweep of ``spec`` under F-1 (see the module's docstring): the
    solver's own sweep (``penalty_sweep``), its batches built and timed, none solved."""
    from zloutch.strategy.game_solver import FLOOR, _Game, penalty_sweep

    rules = load_rules(spec)
    if not rules.turn.farkle_penalty:
        raise SystemExit(f"error: --host times a sweep under F-1, which {spec} does not play")
    game = _Game(rules, "array", None)
    k = rules.turn.farkle_penalty_after
    low = -(FLOOR // game.unit)
    n = game.T - low
    game.margin = game.least_margin(low)  # the rows the solve itself keeps
    game.tabulate_banks(low)
    table = game.level_banks(np.arange(1) + low, np.arange(1) + low, np.zeros((n, n)), low)
    W = np.full((k, k, n, n), 0.5)
    groups = 2 * k - 1
    print(
        f"{spec}: {n} scores from {low * game.unit} points, {2 * n - 1} levels, "
        f"{groups} batches a level, {len(game.tables.hand_col)} hands; "
        f"who may bank, by score: {table.allowed.nbytes / 1e6:.1f} MB, sent once"
    )
    for form in ("by score", "a hand"):
        seconds = 0.0
        sent = 0
        for _, _, batches in penalty_sweep(game, low, W):
            while True:
                begin = time.perf_counter()
                batch = next(batches, None)
                if batch is None:
                    break
                _, banks = batch
                if form == "by score":
                    sent += banks.value.nbytes + banks.nothing.nbytes + banks.score.nbytes // 2
                else:
                    _, bank, same = banks.arrays()
                    sent += bank.nbytes + same.nbytes
                seconds += time.perf_counter() - begin
        print(f"  banks {form:8}: {seconds:6.2f} s a sweep, {sent / 1e9:6.2f} GB to the device")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", nargs="*", default=["farkle-minimal", "farkle", "zilch"])
    parser.add_argument("--check", nargs="*", default=["farkle-minimal", "farkle"])
    parser.add_argument("--quick", action="store_true", help="farkle-minimal only")
    parser.add_argument("--warmup", default="greed(target=1000)", help="solved first, untimed")
    parser.add_argument(
        "--out", metavar="DIR", help="write each solve's summary (as solve --game --json) there"
    )
    parser.add_argument(
        "--host", nargs="?", const="zilch", metavar="RULES", help="no GPU: the host's sweep"
    )
    args = parser.parse_args()
    if args.host:
        host_sweep(args.host)
        return 0
    if args.quick:
        args.rules, args.check = ["farkle-minimal"], ["farkle-minimal"]
    import numba

    print(f"date {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}")
    print(f"host {platform.node()}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    begin = time.perf_counter()
    why = cuda_kernel.unavailable_reason(check=True)  # compiles the kernel: a one-pair launch
    compile_seconds = time.perf_counter() - begin
    if why:
        print(f"no GPU run: {why}")
        return 1
    cuda: Any = numba.cuda
    if cuda_kernel.simulated():  # NUMBA_ENABLE_CUDASIM=1: a check of this script, no timing
        name = "none: Numba's CUDA simulator"
    else:
        name = cuda.get_current_device().name
        name = name.decode() if isinstance(name, bytes) else name
    print(f"GPU {name}, Numba {numba.__version__} ({getattr(cuda, 'implementation', '?')})")
    print(f"compile + first launch (shared-memory kernel): {compile_seconds:.2f} s")
    meter = Meter()
    warm, _ = solve(args.warmup, "cuda")  # not counted
    print(f"warm-up {args.warmup}: first player {warm.first_player:.6f}")
    failed = False
    for spec in args.rules:
        meter.reset()
        gpu, seconds = solve(spec, "cuda")
        sweeps = f" sweeps {gpu.sweeps}" if gpu.counts is not None else ""
        print(
            f"{spec:16} cuda {seconds:8.2f} s  (gpu {meter.seconds:7.2f} s, host "
            f"{seconds - meter.seconds:7.2f} s)  launches {meter.launches:6,}  passes "
            f"{gpu.passes:6,}{sweeps}  residual {gpu.residual:.1e}  first player "
            f"{gpu.first_player:.6f}",
            flush=True,
        )
        record: dict[str, Any] = {"device": name, "backend": "cuda", "gpu_seconds": meter.seconds}
        record |= game_summary(gpu, seconds)
        print(
            f"{'':16} states a pass of every level {gpu.states:,}, score pairs "
            f"{record['score_pairs']:,}, turn states {record['turn_states']:,}",
            flush=True,
        )
        if spec in args.check:
            cpu, cpu_seconds = solve(spec, "numba")
            same_nan = bool((np.isnan(cpu.win) == np.isnan(gpu.win)).all())
            diff = float(np.nanmax(np.abs(cpu.win - gpu.win)))
            if cpu.counts is not None and gpu.counts is not None:
                same_nan &= bool((np.isnan(cpu.counts) == np.isnan(gpu.counts)).all())
                diff = max(diff, float(np.nanmax(np.abs(cpu.counts - gpu.counts))))
            ok = same_nan and diff <= TOLERANCE and cpu.passes == gpu.passes
            failed |= not ok
            record["cpu"] = {
                "seconds": cpu_seconds,
                "passes": cpu.passes,
                "largest_difference": diff,
            }
            print(
                f"{spec:16} cpu  {cpu_seconds:8.2f} s  passes {cpu.passes:6,}  largest difference "
                f"{diff:.1e}  {'ok' if ok else 'FAILED'} (<= {TOLERANCE:g}, same passes and NaNs)",
                flush=True,
            )
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            stem = "".join(c if c.isalnum() else "_" for c in spec).strip("_")
            with open(os.path.join(args.out, f"gpu_{stem}.json"), "w") as file:
                json.dump(record, file, indent=2, default=str)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
