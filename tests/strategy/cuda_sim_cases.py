"""The CUDA kernel's cases, run in Numba's CUDA simulator by ``test_cuda_kernel.py``.

The simulator is chosen when ``numba.cuda`` is first imported (``NUMBA_ENABLE_CUDASIM=1``,
read by Numba's configuration) and cannot be switched in a process that has imported it, so
the tests run this file in a subprocess: ``python cuda_sim_cases.py OUT.npz [quick|games]``
solves every case on the kernel and saves the results; the test regenerates the same inputs
(fixed seeds) and compares them with the plain kernel's in its own process.

The simulator runs each GPU thread as a Python thread: batches are a few pairs of a few rows.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from zloutch.rules import load_rules, parse_rules_text
from zloutch.rules.ruleset import RuleSet
from zloutch.strategy.kernels import LevelBanks, PairsProblem, Tables, build_tables
from zloutch.strategy.turn_solver import TurnModel

Inputs = tuple[Tables, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Batch:
    """Random pairs of a rule set's turn: ``rows`` per pair, banks in [0, 1] or refused
    (-inf) or worth a farkle, random farkle, win and boundary values."""

    spec: str
    rows: tuple[int, ...]
    seed: int
    boundary_is_farkle: bool
    block: int = 16  # fewer threads than signatures: each takes several (fast to simulate)
    shared: bool | None = None  # None: shared memory when the ring fits
    by_score: int = 0
    """Banks as ``LevelBanks`` (``CudaLevel.by_score``): who may bank from a table of this
    many scores shared by the pairs; 0: banks a hand (``bank``, ``same``)."""


BATCHES = {
    "greed": Batch("greed", (5, 2, 6, 1), 1, False),
    "greed, ring in global memory": Batch("greed", (4, 6), 2, True, shared=False),
    "greed, block of 128 threads": Batch("greed", (2, 3), 3, True, block=128),
    # V-2: joker throws valued first at each total (two dependency levels); the ring of
    # dix-mille(joker) takes 52 kB, so without ``shared`` it is in global memory.
    "jokers": Batch("dix-mille(joker)", (4, 1, 3), 4, False),
    "jokers, ring in shared memory": Batch("dix-mille(joker)", (3, 2), 5, True, shared=True),
    "zilch (F-1's turn graph)": Batch("zilch", (4, 2), 6, False),
    "farkle-minimal": Batch("farkle-minimal", (3, 1), 7, True),
    # Two dice: 5 rows in the ring (200 points at most), so these rows go round it.
    "two dice, rows round the ring": Batch("reach target", (12, 7, 3), 8, False, block=4),
    "two dice, exact": Batch("farkle penalty, exact target", (11, 9), 9, True, 4, False),
    "greed, banks by score": Batch("greed", (3, 2, 1), 10, False, by_score=2),
    "zilch, banks by score, ring in global memory": Batch(
        "zilch", (2, 3), 11, True, shared=False, by_score=2
    ),
}


@cache
def tables_of(spec: str) -> Tables:
    """A preset's turn graph, or a two-dice game's (``GAMES``)."""
    rules = game_rules(spec)[0] if spec in GAMES else load_rules(spec)
    return build_tables(TurnModel(rules))


def level_banks(batch: Batch) -> LevelBanks:
    """A batch's random banks by score (``by_score`` scores, each pair one of them; the
    table taller than the rows, as the game solver's is)."""
    t = tables_of(batch.spec)
    rows = np.asarray(batch.rows, dtype=np.int64)
    pairs, height, hands = len(rows), int(rows.max()), len(t.hand_col)
    rng = np.random.default_rng(batch.seed)
    value = np.where(rng.random((pairs, height)) < 0.2, -np.inf, rng.random((pairs, height)))
    nothing = rng.random((pairs, height)) < 0.15
    score = rng.integers(0, batch.by_score, pairs)
    allowed = rng.random((batch.by_score, height + 2, hands)) < 0.7
    return LevelBanks(rows, value, nothing, score, allowed)


def batch_inputs(batch: Batch) -> Inputs:
    t = tables_of(batch.spec)
    rows = np.asarray(batch.rows, dtype=np.int64)
    pairs, height, hands = len(rows), int(rows.max()), len(t.hand_col)
    rng = np.random.default_rng(batch.seed)
    if batch.by_score:
        _, bank, same = level_banks(batch).arrays()
        farkle, win, boundary = rng.random(pairs), rng.random(pairs) + 0.5, rng.random(pairs)
        return t, rows, bank, same, farkle, win, boundary
    bank = np.where(
        rng.random((pairs, height, hands)) < 0.3, -np.inf, rng.random((pairs, height, hands))
    )
    same = rng.random((pairs, height, hands)) < 0.1
    farkle, win, boundary = rng.random(pairs), rng.random(pairs) + 0.5, rng.random(pairs)
    return t, rows, bank, same, farkle, win, boundary


TINY = """
[rules]
name = "tiny"
dice = 2

[scoring]
singles = {{ 1 = 100, 5 = 50 }}

[turn]
{turn}

[game]
target = {target}
{game}
"""
# Two-dice games (as test_game_solver's), solved whole on the kernel: (rules, margin, floor).
GAMES: dict[str, tuple[str, str, int, int]] = {
    "reach target": ("", "", 250, 0),
    "final turns (F-4)": ("", "final_turns = true", 200, 0),
    "farkle penalty, exact target": (
        "farkle_penalty = 100\nfarkle_penalty_after = 2",
        "exact_target = true",
        100,
        100,
    ),
    # Each farkle costs the penalty: at the floor a batch writes farkles that its own pairs
    # read (``CudaSweep`` copies them aside first).
    "farkle penalty at the first farkle": (
        "farkle_penalty = 50\nfarkle_penalty_after = 1",
        "",
        100,
        100,
    ),
}


def game_rules(name: str) -> tuple[RuleSet, int]:
    """The rules of a game case and its floor (0: the default, no penalty)."""
    turn, game, target, floor = GAMES[name]
    text = TINY.format(turn=turn, game=game, target=target)
    return parse_rules_text(text, source="tiny"), floor


def game_kwargs(name: str) -> dict[str, float]:
    """``solve_game``'s arguments: a margin of 2 units; under F-1 the floor, and a tolerance
    of 1e-4 (a few sweeps: each launch costs the simulator a fifth of a second)."""
    floor = GAMES[name][3]
    return {"margin": 2, **({"floor": floor, "tolerance": 1e-4} if floor else {})}


NO_CUDA_TARGET = 3
"""The exit status when this Numba has no CUDA target (its built-in one is deprecated)."""


def main(out: str, which: str) -> None:
    try:
        import numba.cuda  # noqa: F401
    except ImportError as error:
        print(f"Numba's CUDA target (and its simulator) is not installed: {error}", file=sys.stderr)
        sys.exit(NO_CUDA_TARGET)
    from zloutch.strategy.game_solver import solve_game
    from zloutch.strategy.kernels.cuda import CudaLevel, simulated, solve_pairs_cuda

    assert simulated(), "run with NUMBA_ENABLE_CUDASIM=1"
    results: dict[str, np.ndarray] = {}
    if which == "quick":
        for name, batch in BATCHES.items():
            t, rows, bank, same, farkle, win, boundary = batch_inputs(batch)
            bif = batch.boundary_is_farkle
            if batch.by_score:  # the banks looked up by the kernel: the same values
                banks = level_banks(batch)
                level = CudaLevel.by_score(t, banks, bif, batch.block, batch.shared)
                values, deriv = level.tables(farkle, win, boundary)
            else:
                problem = PairsProblem(t, rows, bank, same, farkle, win, boundary, bif)
                values, deriv = solve_pairs_cuda(problem, batch.block, batch.shared)
                level = CudaLevel(t, rows, bank, same, bif, batch.block, batch.shared)
            start, dstart = level.starts(farkle, win, boundary)
            for key, array in (("values", values), ("deriv", deriv)):
                results[f"{name}/{key}"] = array
            results[f"{name}/start"] = start
            results[f"{name}/dstart"] = dstart
    else:
        from zloutch.strategy.kernels import cuda

        made: list[cuda.CudaSweep] = []
        init = cuda.CudaSweep.__init__

        def kept(sweep: cuda.CudaSweep, *args: Any, **kwargs: Any) -> None:
            init(sweep, *args, **kwargs)
            made.append(sweep)

        cuda.CudaSweep.__init__ = kept  # type: ignore[method-assign]
        for name in GAMES:
            rules, _ = game_rules(name)
            made.clear()
            solution = solve_game(rules, backend="cuda", **game_kwargs(name))
            results[f"{name}/sweeps"] = np.asarray([len(made)])  # F-1's sweeps on the device
            results[f"{name}/staged"] = np.asarray([sum(sweep.staged for sweep in made)])
            results[f"{name}/win"] = solution.win
            results[f"{name}/passes"] = np.asarray([solution.passes])
            if solution.counts is not None:
                results[f"{name}/counts"] = solution.counts
    np.savez(out, **results)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "quick")
