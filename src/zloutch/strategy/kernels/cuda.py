"""The game solver's kernel on an NVIDIA GPU (Numba CUDA): one launch per batch of pairs.

``solve_pairs``'s computation (``reference.kernel_python`` states it) for every pair of a
batch in one launch: one block per pair, so a batch can hold any pairs (a level's, or the
levels of several F-1 farkle counts side by side: they are independent), each pair going
down its own totals. A block keeps the last ``max_points + 1`` rows in a ring in its shared
memory (``slot = row mod (max_points + 1)``), values then derivatives. Every slot starts as
the rows past the pair's top are worth: the boundary in the turn's columns, the farkle and
the win in theirs, which are never written again. An option is then one read, of its row and
column as they are (``opt_off = points x columns + column``, wrapped once), with no test of
where it leads. Within a block, for each total from the pair's top down to 0:

1. the last threads of the block read the row's banks (a value and a flag a hand) into the
   shared memory, while the threads share the signatures of the throw nodes (one signature a
   thread, in steps of the block's size), each taking the best of its options (the first of
   equal ones, strict ``>``, as the plain kernel) and writing ``sig_prob * best`` and the same
   for its derivative, rounded once each;
2. ``syncthreads``; one thread per node adds its signatures' products in their order (the
   plain kernel's sum, bit for bit: multiplications and additions are libdevice's ``_rn``
   functions, which the compiler never fuses into an FMA; the products are read four ahead
   of the additions, which then wait for one another only), then values the hands that
   throw from that node (bank or throw); ``syncthreads``.

Nodes reached at the same total by an option worth no points (jokers' throws, V-2) are
valued before the nodes that read them: steps 1 and 2 run once per dependency level of the
flat turn (``FlatTurn.level_start``, whose levels' nodes and signatures are contiguous), so a
total costs ``2 x levels`` barriers (two without jokers). The kernel reads the flat turn as
int32 copies (``device_turn``), sent to the device once per turn. The shared memory holds
``2 x ((max_points + 1) x columns + signatures + hands)`` doubles: the ring, the products of
step 1 and the row's banks (17.6 kB for farkle, 42.6 kB for zilch). A turn graph whose ring
does not fit the 48 kB a block gets without asking runs the same code on a ring in global
memory.

The inputs of a batch (rows, banks) go to the device once (``CudaLevel``); each pass of
Newton's method sends three numbers a pair (farkle, win, boundary), runs one launch and
brings back two (value and derivative at the start of the turn). ``full`` launches also
write every (pair, total, column) as ``solve_pairs`` returns them.

Under F-1 the game solver's sweeps run on the device whole (``CudaSweep``): the win table of
every farkle count stays there with the tables by score, every batch of every level is laid
out once, and a sweep queues one launch a batch without waiting for any. Each block reads
its pair's farkle from the table and its banks from the tables by score and the table, as
the lane kernel does, and writes its value into the table; the values alone (the level's
batches form no cycle: no Newton step, no derivative, half the ring). The host sends the
table and brings it back once a sweep.

Without a GPU the same kernel runs in Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``
before Numba is imported; very slow, for the tests). ``numba.cuda`` is imported only by this
module, on first use, and by ``cuda_device`` (the kernels), and this module only when the
``cuda`` backend is asked for. The kernels' arguments are grouped in tuples
(``DeviceBanks``, ``DeviceTurn``, ``DeviceOut``), which Numba's dispatcher passes as their
fields, and a sweep's launches the fourth (``DeviceSweep``).
"""

from __future__ import annotations

import importlib
import warnings
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from zloutch.engine.compiled import FlatTurn
from zloutch.strategy.kernels.banks import LevelBanks
from zloutch.strategy.kernels.pairs import PairsProblem

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]

SHARED_LIMIT = 48 * 1024
"""Bytes of shared memory a block gets without an attribute set on the kernel."""
MAX_BLOCK = 256
"""The most threads in a block: farkle's and zilch's 240 signatures a thread each; in larger
graphs (dix-mille-6: 482) a thread takes several."""


def _numba_cuda() -> Any:
    """``numba.cuda``, imported on first use (seconds, and the driver looked for)."""
    return importlib.import_module("numba.cuda")


def unavailable_reason(check: bool = False) -> str | None:
    """Why the CUDA backend cannot run here (a sentence), or None when it can.

    ``check``: also compile the kernel and solve one tiny batch, so that a GPU whose driver
    Numba finds but whose compiler (NVVM) it does not is refused here, in one sentence,
    rather than in the middle of a solve.
    """
    try:
        cuda = _numba_cuda()
    except Exception as error:  # pragma: no cover - Numba without its CUDA target
        return f"Numba's CUDA target could not be imported ({error})"
    try:
        if not cuda.is_available():
            return "numba.cuda found no NVIDIA GPU with a working driver"
        if check:
            _smoke_test()
    except Exception as error:  # pragma: no cover - depends on the driver and the toolkit
        detail = " ".join(str(error).split())[:300]
        return f"the CUDA kernel could not run ({type(error).__name__}: {detail})"
    return None


def _smoke_test() -> None:
    """One pair of one row of a two-node graph, solved on the device and checked."""
    tables = FlatTurn(
        columns=4,
        node_col=np.asarray([2], dtype=np.int64),
        sig_start=np.asarray([0, 1], dtype=np.int64),
        sig_prob=np.asarray([1.0]),
        opt_start=np.asarray([0, 2], dtype=np.int64),
        opt_pts=np.asarray([0, 1], dtype=np.int64),
        opt_dest=np.asarray([0, 3], dtype=np.int64),
        hand_col=np.asarray([3], dtype=np.int64),
        hand_throw_col=np.asarray([2], dtype=np.int64),
        start_col=2,
        max_points=1,
        roll_start=np.zeros(2, dtype=np.int64),  # no rolls: the solvers read signatures
        roll_opt_start=np.asarray([0], dtype=np.int64),
        roll_opt_pts=np.zeros(0, dtype=np.int64),
        roll_opt_dest=np.zeros(0, dtype=np.int64),
        node_dice=np.asarray([1], dtype=np.int64),
        hand_free=np.asarray([1], dtype=np.int64),
        roll_prob=np.zeros(0),
        level_start=np.asarray([0, 1], dtype=np.int64),
        throw_hand_start=np.asarray([0, 1], dtype=np.int64),
        throw_hands=np.asarray([0], dtype=np.int64),
    )
    bank = np.full((1, 1, 1), 0.25)
    for shared in (True, False):  # both kernels: a big graph's ring lies in global memory
        level = CudaLevel(tables, np.ones(1, dtype=np.int64), bank, bank < 0, False, None, shared)
        value, deriv = level.starts(np.full(1, 0.5), np.ones(1), np.ones(1))
        if (float(value[0]), float(deriv[0])) != (1.0, 0.0):  # past the top: the boundary
            raise RuntimeError(
                f"the kernel's test batch gave {value[0]}, {deriv[0]}, not 1.0, 0.0"
                f" (ring in {'shared' if shared else 'global'} memory)"
            )


def simulated() -> bool:
    """Whether ``numba.cuda`` is Numba's simulator (NUMBA_ENABLE_CUDASIM=1 at its import)."""
    cuda = _numba_cuda()
    return "simulator" in getattr(cuda.jit, "__module__", "")


class DeviceTurn(NamedTuple):
    """The flat turn as the kernel reads it (``FlatTurn``'s arrays as int32, the doubles as
    they are) and its sizes: ``ring_rows`` rows kept (``max_points + 1``), ``columns``,
    ``signatures``, ``start_col``."""

    level_start: Any
    sig_start: Any
    sig_prob: Any
    opt_start: Any
    opt_off: Any
    node_col: Any
    hand_col: Any
    throw_hand_start: Any
    throw_hands: Any
    ring_rows: int
    columns: int
    signatures: int
    start_col: int


class DeviceBanks(NamedTuple):
    """A batch's banks on the device, in one of three forms (``mode``, ``cuda_device``'s
    ``HANDS``, ``LEVEL``, ``TABLES``): ``bank`` and ``same`` by pair, total and hand
    (``solve_pairs``'s form); ``LevelBanks`` (``value`` and ``nothing`` by pair and total,
    ``allowed`` by score, ``pair_score`` each pair's row of it); or the tables by score of a
    whole solve (``ScoreBanks``: ``kind``, ``bank_x`` and ``allowed`` by score and total)
    with the win table on the device (``win``, from score ``low``; ``pair_opp`` each pair's
    row of it), as the lane kernel reads them. The fields a form does not use hold
    one-element arrays."""

    mode: int
    bank: Any
    same: Any
    allowed: Any
    pair_score: Any
    value: Any
    nothing: Any
    kind: Any
    bank_x: Any
    win: Any
    low: int
    pair_opp: Any


class DeviceOut(NamedTuple):
    """Where a launch writes: each pair's start value and derivative (``out``), and when
    ``full`` every (pair, total, column) in ``values`` and ``deriv``. Without
    ``derivative`` the values alone are computed (half the ring), the derivatives NaN."""

    out: Any
    full: bool
    values: Any
    deriv: Any
    derivative: bool


class DeviceSweep(NamedTuple):
    """A sweep's launch (``CudaSweep``): its pairs from ``offset`` in the sweep's arrays
    (the rows too), each reading its farkle at ``flat[farkle_at[p]]`` (the win table, flat)
    and writing its start value at ``flat[write_at[p]]``; for other launches, offset 0 and
    one-element arrays."""

    offset: int
    farkle_at: Any
    write_at: Any
    flat: Any


def device_turn(turn: FlatTurn) -> DeviceTurn:
    """The flat turn's arrays as the kernel reads them, on the host (no GPU needed).

    Refuses arrays that break the flat form's solving order (``FlatTurn.level_error``): a
    node whose options at the same total read a column that the plain kernel has not written
    yet in that row (it would read a zero there)."""
    error = turn.level_error()
    if error is not None:
        raise ValueError(error)

    def i32(values: Any) -> I32:
        return np.ascontiguousarray(values, dtype=np.int32)

    return DeviceTurn(
        level_start=i32(turn.level_start),
        sig_start=i32(turn.sig_start),
        sig_prob=np.ascontiguousarray(turn.sig_prob, dtype=np.float64),
        opt_start=i32(turn.opt_start),
        opt_off=i32(turn.opt_pts * turn.columns + turn.opt_dest),
        node_col=i32(turn.node_col),
        hand_col=i32(turn.hand_col),
        throw_hand_start=i32(turn.throw_hand_start),
        throw_hands=i32(turn.throw_hands),
        ring_rows=turn.max_points + 1,
        columns=turn.columns,
        signatures=int(turn.sig_prob.shape[0]),
        start_col=turn.start_col,
    )


def widest(turn: FlatTurn) -> int:
    """The most signatures in one dependency level: the threads a block can use."""
    by_level = np.diff(turn.sig_start[turn.level_start])
    return int(by_level.max(initial=1))


def scratch(turn: FlatTurn, derivative: bool = True) -> int:
    """Doubles of a block's ring, products and banks of a row (values, and derivatives with
    ``derivative``)."""
    ring = (turn.max_points + 1) * turn.columns
    width = 2 if derivative else 1
    return width * (ring + int(turn.sig_prob.shape[0]) + int(turn.hand_col.shape[0]))


_on_device: dict[int, tuple[weakref.ref[FlatTurn], DeviceTurn]] = {}


def _device_turn(turn: FlatTurn) -> DeviceTurn:
    """The turn's arrays on the device, sent once per ``FlatTurn``."""
    found = _on_device.get(id(turn))
    if found is not None and found[0]() is turn:
        return found[1]
    cuda = _numba_cuda()
    host = device_turn(turn)
    sent = DeviceTurn(*(cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in host))
    for key in [k for k, (ref, _) in _on_device.items() if ref() is None]:
        del _on_device[key]
    _on_device[id(turn)] = (weakref.ref(turn), sent)
    return sent


_allowed_on_device: dict[int, tuple[weakref.ref[npt.NDArray[np.bool_]], Any]] = {}


def _device_allowed(allowed: npt.NDArray[np.bool_]) -> Any:
    """Who may bank (``LevelBanks.allowed``) on the device: sent once per table (the game
    solver's table by score serves every level of a solve)."""
    found = _allowed_on_device.get(id(allowed))
    if found is not None and found[0]() is allowed:
        return found[1]
    sent = _numba_cuda().to_device(np.ascontiguousarray(allowed, dtype=np.bool_).view(np.uint8))
    for key in [k for k, (ref, _) in _allowed_on_device.items() if ref() is None]:
        del _allowed_on_device[key]
    _allowed_on_device[id(allowed)] = (weakref.ref(allowed), sent)
    return sent


def _kernels() -> tuple[Any, Any]:
    """The kernel with its ring in shared memory, and with it in global memory (``cuda_device``,
    compiled by Numba on first launch)."""
    from zloutch.strategy.kernels import cuda_device

    return cuda_device.in_shared, cuda_device.in_global


HANDS, LEVEL, TABLES = 0, 1, 2
"""``DeviceBanks.mode`` (``cuda_device``'s constants, which this module cannot import without
importing ``numba.cuda``)."""


class _Placeholders(NamedTuple):
    """One-element arrays for the arguments a launch does not use, made once a process."""

    banks: DeviceBanks
    sweep: DeviceSweep
    full: Any
    out: Any
    scratch: Any


_placeholder: list[_Placeholders] = []


def _placeholders() -> _Placeholders:
    if not _placeholder:
        cuda = _numba_cuda()

        def one(shape: tuple[int, ...], dtype: Any = np.float64) -> Any:
            return cuda.to_device(np.zeros(shape, dtype=dtype))

        banks = DeviceBanks(
            mode=HANDS,
            bank=one((1, 1, 1)),
            same=one((1, 1, 1), np.uint8),
            allowed=one((1, 1, 1), np.uint8),
            pair_score=one((1,), np.int32),
            value=one((1, 1)),
            nothing=one((1, 1), np.uint8),
            kind=one((1, 1), np.int8),
            bank_x=one((1, 1), np.int32),
            win=one((1, 1)),
            low=0,
            pair_opp=one((1,), np.int32),
        )
        sweep = DeviceSweep(0, one((1,), np.int32), one((1,), np.int32), one((1,)))
        _placeholder.append(_Placeholders(banks, sweep, one((1, 1, 1)), one((1, 2)), one((1, 1))))
    return _placeholder[0]


LOW_OCCUPANCY = r"(\x1b\[\d+m)?Grid size .* will likely result in GPU"
"""Numba's warning at a launch of fewer blocks than the GPU could hold, as intended here (each
block is long), which NVIDIA's numba-cuda prints in bold."""

SIMULATOR_BLOCK = 4
"""Threads in a block in Numba's simulator, where each is a Python thread and a barrier
costs them all a switch: the tests' whole games run there in a minute rather than seven."""


def block_size(turn: FlatTurn) -> int:
    """Threads in a block on a GPU: the widest level's signatures, in whole warps, at most
    256."""
    return min(MAX_BLOCK, max(32, -(-widest(turn) // 32) * 32))


class CudaLevel:
    """A batch of pairs on the device, solved for many farkle values (Newton's passes).

    The batch is any set of pairs: a level's, or several levels' that do not depend on one
    another (F-1's farkle counts of one level) put one after the other; the rows, banks and
    'banking gains nothing' flags go to the device here, once.

    The banks come in one of two forms: a value and a flag a (pair, total, hand), as
    ``solve_pairs`` takes them (``bank``, ``bank_farkle``), or the game solver's
    ``LevelBanks`` (``by_score``): a value and a flag a (pair, total), and who may bank read
    by the kernel from one table by score, sent to the device once per table. The second
    sends a ``hands``-th of the bytes and spares the host the arrays a hand.
    """

    @classmethod
    def by_score(
        cls,
        turn: FlatTurn,
        banks: LevelBanks,
        boundary_is_farkle: bool,
        block: int | None = None,
        shared: bool | None = None,
    ) -> CudaLevel:
        """The batch of ``banks`` (``LevelBanks``), its banks looked up by the kernel.

        Its shapes are checked here: the kernel does not check what it reads."""
        pairs, height = banks.value.shape
        hands = int(turn.hand_col.shape[0])
        tops = int(banks.rows.max(initial=0))
        if not (
            banks.rows.shape == banks.score.shape == (pairs,)
            and banks.nothing.shape == (pairs, height)
            and banks.allowed.ndim == 3
            and banks.allowed.shape[1] >= max(height, tops)
            and banks.allowed.shape[2] == hands
            and tops <= height
            and (
                pairs == 0
                or 0 <= int(banks.score.min()) <= int(banks.score.max()) < len(banks.allowed)
            )
        ):
            raise ValueError(
                f"banks of {pairs} pairs and {height} totals that the kernel cannot read: rows "
                f"{banks.rows.shape} up to {tops}, scores {banks.score.shape}, flags "
                f"{banks.nothing.shape}, who may bank {banks.allowed.shape} ({hands} hands)"
            )
        return cls(turn, banks.rows, None, None, boundary_is_farkle, block, shared, scores=banks)

    def __init__(
        self,
        turn: FlatTurn,
        rows: Ints,
        bank: Floats | None,
        bank_farkle: npt.NDArray[np.bool_] | None,
        boundary_is_farkle: bool,
        block: int | None = None,
        shared: bool | None = None,
        *,
        scores: LevelBanks | None = None,
    ) -> None:
        """``block``: threads a block (None: ``block_size``); ``shared``: the ring in shared memory
        (None: when it fits in ``SHARED_LIMIT``), else in global memory. ``scores``: the banks
        as ``LevelBanks`` (``by_score``), ``bank`` and ``bank_farkle`` then None."""
        cuda = _numba_cuda()
        self._cuda = cuda
        self.turn = turn
        self._graph = _device_turn(turn)
        self.scratch = scratch(turn)
        self.pairs = int(rows.shape[0])
        self.height = max(int(rows.max(initial=0)), 1)
        self.block = block or (SIMULATOR_BLOCK if simulated() else block_size(turn))
        self.d_boundary = 1.0 if boundary_is_farkle else 0.0
        self.shared = self.scratch * 8 <= SHARED_LIMIT if shared is None else shared
        if not self.pairs:
            return
        hands = int(turn.hand_col.shape[0])
        self._rows = cuda.to_device(np.ascontiguousarray(rows, dtype=np.int32))
        none = _placeholders()
        if scores is not None:
            nothing = np.ascontiguousarray(scores.nothing, dtype=np.bool_).view(np.uint8)
            self._banks = none.banks._replace(
                mode=LEVEL,
                allowed=_device_allowed(scores.allowed),
                pair_score=cuda.to_device(np.ascontiguousarray(scores.score, np.int32)),
                value=cuda.to_device(np.ascontiguousarray(scores.value, np.float64)),
                nothing=cuda.to_device(nothing),
            )
        else:
            assert bank is not None and bank_farkle is not None, "banks by hand, or scores"
            bank = np.ascontiguousarray(bank, dtype=np.float64)
            same = np.ascontiguousarray(bank_farkle, dtype=np.bool_).view(np.uint8)
            if bank.shape[1] == 0:  # no rows at all: nothing is read
                bank = np.zeros((self.pairs, 1, hands))
                same = np.zeros((self.pairs, 1, hands), dtype=np.uint8)
            self._banks = none.banks._replace(
                mode=HANDS, bank=cuda.to_device(bank), same=cuda.to_device(same)
            )
        self._scal = cuda.device_array((self.pairs, 3))  # farkle, win, boundary: each pass
        self._out = cuda.device_array((self.pairs, 2))
        self._scratch = (
            none.scratch if self.shared else cuda.device_array((self.pairs, self.scratch))
        )

    def _launch(
        self, farkle: Floats, win: Floats, boundary: Floats, full: Any, full_d: Any
    ) -> None:
        scal = np.ascontiguousarray(np.stack([farkle, win, boundary], axis=1), dtype=np.float64)
        self._scal.copy_to_device(scal)
        none = _placeholders()
        outputs = DeviceOut(
            self._out,
            full is not None,
            none.full if full is None else full,
            none.full if full_d is None else full_d,
            True,
        )
        args = (
            self._rows,
            self._scal,
            self.d_boundary,
            self._banks,
            self._graph,
            outputs,
            none.sweep,
            self._scratch,
        )
        in_shared, in_global = _kernels()
        if self.shared:
            kernel = in_shared[self.pairs, self.block, 0, self.scratch * 8]
        else:
            kernel = in_global[self.pairs, self.block]
        with warnings.catch_warnings():
            # A level has a few hundred pairs, a block each: fewer blocks than the GPU could
            # hold, as intended (each block is long), which Numba warns about at every launch.
            warnings.filterwarnings("ignore", message=LOW_OCCUPANCY)
            kernel(*args)

    def starts(self, farkle: Floats, win: Floats, boundary: Floats) -> tuple[Floats, Floats]:
        """The value at the start of the turn (total 0) of every pair, and d/d(farkle)."""
        if not self.pairs:
            return np.empty(0), np.empty(0)
        self._launch(farkle, win, boundary, None, None)
        out = self._out.copy_to_host()
        return np.ascontiguousarray(out[:, 0]), np.ascontiguousarray(out[:, 1])

    def tables(self, farkle: Floats, win: Floats, boundary: Floats) -> tuple[Floats, Floats]:
        """Every (pair, total, column), in ``solve_pairs``'s layout (zeros past a pair's
        rows and in the farkle and win columns, as the plain kernel)."""
        shape = (self.pairs, self.height, self.turn.columns)
        if not self.pairs:
            return np.zeros(shape), np.zeros(shape)
        cuda = self._cuda
        values, deriv = cuda.to_device(np.zeros(shape)), cuda.to_device(np.zeros(shape))
        self._launch(farkle, win, boundary, values, deriv)
        return values.copy_to_host(), deriv.copy_to_host()


def solve_pairs_cuda(
    problem: PairsProblem, block: int | None = None, shared: bool | None = None
) -> tuple[Floats, Floats]:
    """``kernels.solve_pairs`` on the GPU: every (pair, total, column), in one launch."""
    level = CudaLevel(
        problem.turn,
        problem.rows,
        problem.bank,
        problem.bank_farkle,
        problem.boundary_is_farkle,
        block,
        shared,
    )
    return level.tables(problem.farkle, problem.win, problem.boundary)


class SweepBatch(NamedTuple):
    """One launch of a sweep (``CudaSweep``), a pair each: its ``rows``, its row of the
    tables by score (``score``: its score less the lowest) and of the win table (``opp``:
    the opponent's), and where it reads its farkle (``1 - flat[farkle_at]``) and writes its
    value (``flat[write_at]``) in the win table, flat."""

    rows: Ints
    score: Ints
    opp: Ints
    farkle_at: Ints
    write_at: Ints


SYNC_EVERY = 16
"""Levels queued between two waits for the device in a sweep: the progress reported is at
most that far ahead of the work done."""


Launch = tuple[int, int, bool]
"""A sweep's launch: its first pair in the sweep's arrays, its pairs, whether it is staged."""


def sweep_launches(levels: list[list[SweepBatch]], size: int) -> tuple[list[list[Launch]], Ints]:
    """The launches of a sweep's levels (no GPU needed), and where each pair reads its
    farkle in the flat table: where ``farkle_at`` says, except in a batch that writes one of
    the farkles its pairs read (``write_at``), which is staged: its farkles are copied to
    ``size + pair`` (past the win table) before it runs, and read there. Launches in one
    stream run in order, so a batch reads what the batches before it wrote; only its own
    writes could race with its reads."""
    launches: list[list[Launch]] = []
    reads: list[Ints] = []
    offset = 0
    for level in levels:
        here = []
        for batch in level:
            count = len(batch.rows)
            staged = bool(np.isin(batch.farkle_at, batch.write_at).any())
            at = size + offset + np.arange(count) if staged else batch.farkle_at
            reads.append(np.asarray(at, dtype=np.int64))
            if count:
                here.append((offset, count, staged))
            offset += count
        launches.append(here)
    return launches, np.concatenate(reads) if reads else np.zeros(0, dtype=np.int64)


class CudaSweep:
    """Sweeps of the game's levels on the device, where the win table stays (F-1's solve).

    Every batch of every level is laid out once (``SweepBatch``: the pairs' rows, scores and
    where they read and write), with the tables by score (``kind``, ``bank_x``, ``allowed``:
    ``banks.ScoreBanks``, the lane kernel's). A sweep (``run``) sends the win table, queues
    one launch a batch without waiting (the device runs them in order, each reading its
    farkles and banks from the table as the launches before left it, the values alone, no
    derivative), and brings the table back. A batch that would write a farkle that one of
    its own pairs reads (a penalty at the first farkle, at the floor) has its farkles
    copied aside first (``cuda_device.gather``), as a sweep on the host reads them before
    the batch."""

    def __init__(
        self,
        turn: FlatTurn,
        kind: npt.NDArray[np.int8],
        bank_x: Ints,
        allowed: npt.NDArray[np.bool_],
        low: int,
        shape: tuple[int, int],
        boundary_is_farkle: bool,
        levels: list[list[SweepBatch]],
        block: int | None = None,
        shared: bool | None = None,
    ) -> None:
        cuda = _numba_cuda()
        self._cuda = cuda
        self.turn = turn
        self.shape = shape
        self.size = shape[0] * shape[1]
        batches = [batch for level in levels for batch in level]
        pairs = sum(len(batch.rows) for batch in batches)
        if self.size + pairs >= 2**31:
            raise ValueError(f"a win table of {self.size:,} values is too large for the kernel")
        self._graph = _device_turn(turn)
        self.scratch = scratch(turn, derivative=False)
        self.block = block or (SIMULATOR_BLOCK if simulated() else block_size(turn))
        self.shared = self.scratch * 8 <= SHARED_LIMIT if shared is None else shared
        self.d_boundary = 1.0 if boundary_is_farkle else 0.0

        def ints(parts: list[Ints]) -> Any:
            joined = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
            return cuda.to_device(np.ascontiguousarray(joined, dtype=np.int32))

        source = [batch.farkle_at for batch in batches]
        self._levels, reads = sweep_launches(levels, self.size)
        self._rows = ints([batch.rows for batch in batches])
        self._source = ints(source)
        self._sweep = DeviceSweep(
            0,
            ints([reads]),
            ints([batch.write_at for batch in batches]),
            cuda.device_array(self.size + max(pairs, 1)),
        )
        self._banks = _placeholders().banks._replace(
            mode=TABLES,
            allowed=_device_allowed(allowed),
            pair_score=ints([batch.score for batch in batches]),
            kind=cuda.to_device(np.ascontiguousarray(kind, dtype=np.int8)),
            bank_x=cuda.to_device(np.ascontiguousarray(bank_x, dtype=np.int32)),
            win=self._sweep.flat[: self.size].reshape(shape),
            low=low,
            pair_opp=ints([batch.opp for batch in batches]),
        )
        most = max((count for level in self._levels for _, count, _ in level), default=1)
        none = _placeholders()
        self._outputs = DeviceOut(none.out, False, none.full, none.full, False)
        self._scratch = none.scratch if self.shared else cuda.device_array((most, self.scratch))

    @property
    def launches(self) -> int:
        """Launches a sweep makes: one a batch, and one more for each batch staged."""
        return sum(1 + staged for level in self._levels for _, _, staged in level)

    @property
    def staged(self) -> int:
        """Batches whose farkles are copied aside before they run (see the class)."""
        return sum(staged for level in self._levels for _, _, staged in level)

    def run(self, win: Floats, after_level: Callable[[int], None] | None = None) -> None:
        """One sweep of every level, in order, on ``win`` (the host's table, in place, of
        ``shape``'s size: ``W`` of the solve, every count's table one under the other):
        ``after_level(i)`` once level ``i``'s launches are queued (at most ``SYNC_EVERY``
        levels ahead of the device)."""
        if win.size != self.size or not win.flags.c_contiguous:
            raise ValueError(f"a win table of shape {win.shape}, not {self.shape} (contiguous)")
        cuda = self._cuda
        flat = self._sweep.flat
        table = flat[: self.size]
        table.copy_to_device(win.reshape(-1))
        in_shared, in_global = _kernels()
        from zloutch.strategy.kernels.cuda_device import gather

        none = _placeholders()
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=LOW_OCCUPANCY)  # as in CudaLevel
            for index, launches in enumerate(self._levels):
                for offset, count, staged in launches:
                    if staged:
                        gather[-(-count // 128), 128](
                            offset, count, self._source, self.size + offset, flat
                        )
                    if self.shared:
                        kernel = in_shared[count, self.block, 0, self.scratch * 8]
                    else:
                        kernel = in_global[count, self.block]
                    kernel(
                        self._rows,
                        none.out,
                        self.d_boundary,
                        self._banks,
                        self._graph,
                        self._outputs,
                        self._sweep._replace(offset=offset),
                        self._scratch,
                    )
                if after_level is not None:
                    if (index + 1) % SYNC_EVERY == 0:
                        cuda.synchronize()
                    after_level(index)
        cuda.synchronize()
        table.copy_to_host(win.reshape(-1))
