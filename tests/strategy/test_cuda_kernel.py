"""The CUDA kernel (``kernels.cuda``) against the plain kernel, run in Numba's CUDA simulator.

No GPU is needed: the kernel's own code runs in the simulator (each GPU thread a Python
thread, ``syncthreads`` a barrier), in a subprocess (``cuda_sim_cases.py``, which says why),
and its values are compared here with ``reference.kernel_python``'s bit for bit. What the simulator
cannot show: the speed, the compiled code's rounding (the kernel uses libdevice's ``_rn``
operations, which round as the CPU does, where the simulator uses Python's floats) and
shared memory limits; ``benchmarks/gpu_solver.py`` checks those on a GPU.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from cuda_ptx_check import NO_NVVM
from cuda_sim_cases import (
    BATCHES,
    GAMES,
    NO_CUDA_TARGET,
    batch_inputs,
    game_kwargs,
    game_rules,
    tables_of,
)
from typer.testing import CliRunner

import zloutch
from zloutch.rules import PRESETS
from zloutch.strategy.game_solver import solve_game
from zloutch.strategy.kernels import PairsProblem, Tables, solve_pairs
from zloutch.strategy.kernels.cuda import SHARED_LIMIT, block_size, device_turn, scratch

pytestmark = pytest.mark.xdist_group("cuda-simulator")  # one worker runs the subprocesses
HERE = Path(__file__).resolve().parent
SOURCE = Path(zloutch.__file__).resolve().parents[1]


def run_script(
    name: str, *args: str, skip_code: int, sim: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run a script beside this file on this checkout's package (in Numba's CUDA simulator
    with ``sim``); its ``skip_code`` says what this machine lacks, and skips the test."""
    path = os.pathsep.join(p for p in (str(SOURCE), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    if sim:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    done = subprocess.run(
        [sys.executable, str(HERE / name), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode == skip_code:
        pytest.skip(done.stderr.strip())
    return done


def in_simulator(tmp: Path, which: str) -> dict[str, np.ndarray]:
    """Run ``cuda_sim_cases.py`` in the simulator (this checkout's package), load its results."""
    out = tmp / f"{which}.npz"
    done = run_script("cuda_sim_cases.py", str(out), which, skip_code=NO_CUDA_TARGET, sim=True)
    if done.returncode:
        pytest.fail(f"the simulator's run failed:\n{done.stdout}\n{done.stderr}")
    with np.load(out) as saved:
        return {key: saved[key] for key in saved.files}


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, np.ndarray]:
    return in_simulator(tmp_path_factory.mktemp("cuda"), "quick")


@cache
def plain(name: str) -> tuple[np.ndarray, np.ndarray]:
    batch = BATCHES[name]
    problem = PairsProblem(*batch_inputs(batch), batch.boundary_is_farkle)
    return solve_pairs(problem, backend="python")


@pytest.mark.slow  # the simulator's batches take 10 s of CPU: GPU code, checked by .ci/run
@pytest.mark.parametrize("name", sorted(BATCHES))
def test_kernel_equals_the_plain_kernel_bit_for_bit(
    quick: dict[str, np.ndarray], name: str
) -> None:
    """Every (pair, total, column) value and derivative, and the starts of a starts-only
    launch: the same operations in the same order as ``reference.kernel_python``."""
    values, deriv = plain(name)
    start_col = tables_of(BATCHES[name].spec).start_col
    assert quick[f"{name}/values"].shape == values.shape
    assert np.array_equal(quick[f"{name}/values"], values)
    assert np.array_equal(quick[f"{name}/deriv"], deriv)
    assert np.array_equal(quick[f"{name}/start"], values[:, 0, start_col])
    assert np.array_equal(quick[f"{name}/dstart"], deriv[:, 0, start_col])


@pytest.mark.slow
def test_whole_games_on_the_kernel_equal_the_cpu_solve(tmp_path: Path) -> None:
    """Two-dice games: a reach target, final turns (F-4), the farkle penalty (F-1, its
    sweeps on the device) with an exact target and at the first farkle: the same win
    tables, counts and Newton passes as the lane kernel, bit for bit (about two minutes in
    the simulator). At the first farkle, batches at the floor read farkles they write: they
    are copied aside first, as the host's sweep reads them before the batch."""
    found = in_simulator(tmp_path, "games")
    for name in GAMES:
        rules, _ = game_rules(name)
        cpu = solve_game(rules, backend="numba", threads=1, **game_kwargs(name))
        assert np.array_equal(found[f"{name}/win"], cpu.win, equal_nan=True), name
        assert int(found[f"{name}/passes"][0]) == cpu.passes, name
        penalty = rules.turn.farkle_penalty > 0
        assert int(found[f"{name}/sweeps"][0]) == penalty, name  # one layout, many sweeps
        staged = int(found[f"{name}/staged"][0])
        assert (staged > 0) == (penalty and rules.turn.farkle_penalty_after == 1), name
        if cpu.counts is not None:
            assert np.array_equal(found[f"{name}/counts"], cpu.counts, equal_nan=True), name


def test_the_kernels_compile_for_hopper_with_the_cpus_roundings(tmp_path: Path) -> None:
    """Where Numba finds NVVM (no GPU needed): the PTX for sm_90 (H100, H200) multiplies and
    adds with ``.rn`` instructions, never an FMA (whose one rounding would part from the
    CPU's two), and the shared-memory kernel reads its ring from shared memory."""
    done = run_script("cuda_ptx_check.py", str(tmp_path), skip_code=NO_NVVM)
    assert done.returncode == 0, done.stderr
    for name in ("in_shared", "in_global"):
        ptx = (tmp_path / f"{name}.ptx").read_text()
        assert ".target sm_90" in ptx
        assert not re.search(r"\b(fma|mad)(\.\w+)*\.f64\b", ptx)
        assert "mul.rn.f64" in ptx and "add.rn.f64" in ptx
    assert "ld.shared.f64" in (tmp_path / "in_shared.ptx").read_text()


@pytest.mark.default_cases(4)
@pytest.mark.parametrize("spec", [*sorted(PRESETS), "dix-mille(joker)"])
def test_dependency_levels(spec: str) -> None:
    """The flat turn's levels, as the kernel reads them: each node and signature in one
    level; a node reads at its own total (options worth no points) only nodes of lower
    levels; each hand is valued by the node it throws from."""
    t = tables_of(spec)
    device = device_turn(t)
    level_of = {}
    for k in range(t.levels):
        for n in range(t.level_start[k], t.level_start[k + 1]):
            level_of[int(t.node_col[n])] = k
    assert t.level_start[0] == 0 and t.level_start[-1] == len(t.node_col)
    assert (np.diff(t.level_start) > 0).all()  # no empty level: no barrier for nothing
    for n, col in enumerate(t.node_col.tolist()):
        for s in range(t.sig_start[n], t.sig_start[n + 1]):
            for o in range(t.opt_start[s], t.opt_start[s + 1]):
                if t.opt_pts[o] == 0 and t.opt_dest[o] > 1:
                    assert level_of[int(t.opt_dest[o])] < level_of[col]
        hands = t.throw_hands[t.throw_hand_start[n] : t.throw_hand_start[n + 1]]
        assert all(int(t.hand_throw_col[h]) == col for h in hands)
    assert sorted(t.throw_hands.tolist()) == list(range(len(t.hand_col)))
    assert t.levels == (2 if spec == "dix-mille(joker)" else 1)
    assert device.level_start.dtype == np.int32
    assert np.array_equal(device.opt_off, t.opt_pts * t.columns + t.opt_dest)
    assert device.columns == t.columns
    assert 32 <= block_size(t) <= 256 and block_size(t) % 32 == 0


def test_the_ring_of_farkle_and_zilch_fits_in_shared_memory() -> None:
    for spec in ("farkle", "zilch"):
        assert scratch(tables_of(spec)) * 8 <= SHARED_LIMIT


def test_a_graph_reading_a_column_not_yet_solved_is_refused() -> None:
    """The plain kernel would read a zero there: the kernel refuses rather than differ."""
    t = Tables(
        columns=5,
        node_col=np.asarray([2, 3]),
        sig_start=np.asarray([0, 1, 2]),
        sig_prob=np.asarray([1.0, 1.0]),
        opt_start=np.asarray([0, 1, 2]),
        opt_pts=np.asarray([0, 1]),
        opt_dest=np.asarray([3, 4]),  # node 0 reads node 1's column at its own total
        hand_col=np.asarray([4]),
        hand_throw_col=np.asarray([2]),
        start_col=2,
        max_points=1,
        roll_start=np.zeros(3, dtype=np.int64),  # no rolls: the solvers read signatures
        roll_opt_start=np.asarray([0], dtype=np.int64),
        roll_opt_pts=np.zeros(0, dtype=np.int64),
        roll_opt_dest=np.zeros(0, dtype=np.int64),
        node_dice=np.asarray([1, 1], dtype=np.int64),
        hand_free=np.asarray([1], dtype=np.int64),
        roll_prob=np.zeros(0),
        level_start=np.asarray([0, 2], dtype=np.int64),  # one level: node 1 is not below
        throw_hand_start=np.asarray([0, 1, 1], dtype=np.int64),
        throw_hands=np.asarray([0], dtype=np.int64),
    )
    with pytest.raises(ValueError, match="reads column 3 at its own total"):
        device_turn(t)


def test_numba_cuda_is_imported_only_when_asked_for() -> None:
    """Not by the package, the command line, the solver or the CUDA module itself."""
    code = (
        "import sys, zloutch, zloutch.adapters.cli, zloutch.strategy.game_solver, "
        "zloutch.strategy.kernels.cuda; assert 'numba.cuda' not in sys.modules"
    )
    path = os.pathsep.join(p for p in (str(SOURCE), os.environ.get("PYTHONPATH", "")) if p)
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_device_cuda_without_a_gpu_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from zloutch.adapters.cli import app
    from zloutch.strategy.kernels import cuda as cuda_kernel

    monkeypatch.setattr(cuda_kernel, "unavailable_reason", lambda check=False: "no GPU here")
    args = ["solve", "--game", "-r", "greed(target=300)", "--device", "cuda"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: --device cuda: no GPU here (--device cpu solves on the processor)"
    ]


@pytest.mark.parametrize("bold", ["", "\x1b[1m"])
def test_the_low_occupancy_warning_is_silenced_as_either_numba_writes_it(bold: str) -> None:
    """A launch of a level's few hundred blocks is meant: Numba's warning about it is
    silenced, as Numba writes it and as NVIDIA's numba-cuda does (in bold), at every launch
    of a sweep (thousands) that would fill the terminal."""
    import warnings

    from zloutch.strategy.kernels.cuda import LOW_OCCUPANCY

    message = f"{bold}Grid size 3 will likely result in GPU under-utilization due to low occupancy."
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", message=LOW_OCCUPANCY)
        warnings.warn(message, stacklevel=1)
        warnings.warn("another warning", stacklevel=1)
    assert [str(w.message) for w in seen] == ["another warning"]


def test_a_sweep_stages_only_the_batches_that_read_farkles_they_write() -> None:
    """``sweep_launches`` (no GPU): a batch whose pairs read a farkle that one of them writes
    reads it from a copy past the table (``size + pair``), the others where they point; an
    empty batch makes no launch. (The simulator runs a launch's blocks one after another, so
    a missing copy would not show there: this checks the layout itself.)"""
    from zloutch.strategy.kernels.cuda import SweepBatch, sweep_launches

    def batch(reads: list[int], writes: list[int]) -> SweepBatch:
        n = len(reads)
        ints = np.asarray
        return SweepBatch(ints([3] * n), ints([0] * n), ints([0] * n), ints(reads), ints(writes))

    levels = [
        [batch([10, 11], [20, 21]), batch([5, 30], [30, 31])],
        [batch([], []), batch([40], [41])],
    ]
    launches, reads = sweep_launches(levels, 100)
    assert launches == [[(0, 2, False), (2, 2, True)], [(4, 1, False)]]
    assert reads.tolist() == [10, 11, 102, 103, 40]


def test_every_f1_presets_banks_raise_the_score() -> None:
    """The GPU's sweep reads a bank's value from a higher level, solved by an earlier
    launch: every preset under F-1 banks up (``banks_raise_scores``), and a table where a bank
    that goes on leaves the score as it was is refused."""
    from dataclasses import replace

    from zloutch.rules import load_rules
    from zloutch.strategy.game_solver import FLOOR, _Game, banks_raise_scores

    checked = 0
    for name in PRESETS:
        rules = load_rules(name)
        if not rules.turn.farkle_penalty:
            continue
        game = _Game(rules, "numba", None)
        low = -(FLOOR // game.unit)
        n = game.T - low
        game.tabulate_banks(low, np.zeros((n, n)))
        banks = game._score_banks
        assert banks is not None and banks_raise_scores(banks), name
        kind = banks.kind.copy()
        row, t = np.argwhere(kind == 1)[0]
        bank_x = banks.bank_x.copy()
        bank_x[row, t] = row + low  # a bank that goes on at the same score
        assert not banks_raise_scores(replace(banks, bank_x=bank_x)), name
        checked += 1
    assert checked >= 2  # zilch, facebook-farkle
