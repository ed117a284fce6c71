"""The inner loop of the game solver: the turns of many score pairs at once.

``solve_pairs`` values every (total, node) of one turn for each pair of scores, given what
banking is worth at each total (``bank``), what a farkle and an instant win are worth, and
returns the values with their derivative with respect to the farkle value (for Newton's
method on the farkle cycle, see ``game_solver``). The backends compute the same numbers:

- ``numba``: the lane kernel (``Lanes``, below), on the CPU cores (the default);
- ``array``: whole-array operations in the NumPy API, which run on NumPy or, given CuPy's
  module as ``xp``, on a GPU (launch-bound there: about 90 small operations a total);
- ``cuda``: ``cuda_kernel``, one launch a call on an NVIDIA GPU (Numba CUDA, ``--device
  cuda``), imported only when asked for;
- ``python``: ``_kernel_python``, the plain loops, one pair after the other (slow: the
  reference), and ``numba-pairs``: the same loops compiled, pairs split between threads (the
  solver's kernel before the lane kernel, kept to compare with).

Layout (documented once, used by all): ``values[p, t, c]`` for pair ``p``, total ``t`` in
units and column ``c`` (0 farkle, 1 win, then the nodes of ``TurnModel``); throw nodes are
listed in solving order with their signatures (rolls merged when they offer the same keeps),
``sig_start[n]:sig_start[n+1]`` the signatures of node ``n``, ``opt_start[s]:opt_start[s+1]``
the options of signature ``s``, each option ``(opt_pts, opt_dest)``.

The game solver's kernel (``Lanes``) lays the same numbers out for the cores: pairs sorted by
their rows and grouped ``LANES`` at a time into work items, each item one table
``[u, c, value|derivative, lane]`` with the pairs innermost (contiguous), rows counted down
from each pair's top (``u = pad + rows - 1 - t``), so that an option's row and column are one
offset, the same for every lane, and the loop over lanes reads contiguous memory. The items
go to the threads from a shared counter, largest first: a thread slowed by other work on
the machine takes fewer. ``_kernel_python`` stays the plain statement of the computation,
which the tests hold the fast kernel to.
"""

from __future__ import annotations

import os
import queue
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

try:  # Numba compiles the loops; without it they still run, slowly, in plain Python.
    from numba import prange
except ImportError:  # pragma: no cover
    prange = range  # type: ignore[misc]

from zloutch.strategy.turn_solver import TurnModel

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Tables:
    """A turn graph as flat arrays, rolls merged by the keeps they offer."""

    columns: int
    node_col: Ints
    sig_start: Ints
    sig_prob: Floats
    opt_start: Ints
    opt_pts: Ints
    opt_dest: Ints
    hand_col: Ints
    hand_throw_col: Ints
    start_col: int
    max_points: int

    @property
    def options(self) -> int:
        return int(self.opt_pts.shape[0])


def build_tables(model: TurnModel) -> Tables:
    """Flatten the model: joker throws first, then throws with jokers, then the rest."""
    order = [
        [n for n in model.options if n.joker_roll],
        [n for n in model.options if n.jokers and not n.joker_roll],
        [n for n in model.options if not n.jokers and not n.joker_roll],
    ]
    node_col: list[int] = []
    sig_start = [0]
    sig_prob: list[float] = []
    opt_start = [0]
    opt_pts: list[int] = []
    opt_dest: list[int] = []
    for nodes in order:
        for node in nodes:
            merged: dict[tuple[tuple[int, int], ...], float] = {}
            for (_, p), options in zip(model.rolls[node.n], model.options[node], strict=True):
                key = tuple(options)
                merged[key] = merged.get(key, 0.0) + p
            node_col.append(model.column[node])
            for options_key, p in merged.items():
                sig_prob.append(p)
                for points, dest in options_key:
                    opt_pts.append(points)
                    opt_dest.append(dest)
                opt_start.append(len(opt_pts))
            sig_start.append(len(sig_prob))
    hands = model.hands
    return Tables(
        columns=len(model.nodes) + 2,
        node_col=np.asarray(node_col, dtype=np.int64),
        sig_start=np.asarray(sig_start, dtype=np.int64),
        sig_prob=np.asarray(sig_prob, dtype=np.float64),
        opt_start=np.asarray(opt_start, dtype=np.int64),
        opt_pts=np.asarray(opt_pts, dtype=np.int64),
        opt_dest=np.asarray(opt_dest, dtype=np.int64),
        hand_col=np.asarray([model.column[h] for h in hands], dtype=np.int64),
        hand_throw_col=np.asarray([model.column[model.throw_of(h)] for h in hands], dtype=np.int64),
        start_col=model.column[model.start],
        max_points=model.max_points,
    )


def _kernel_python(
    values: Floats,
    deriv: Floats,
    rows: Ints,
    bank: Floats,
    bank_farkle: npt.NDArray[np.bool_],
    farkle: Floats,
    win: Floats,
    boundary: Floats,
    boundary_is_farkle: bool,
    node_col: Ints,
    sig_start: Ints,
    sig_prob: Floats,
    opt_start: Ints,
    opt_pts: Ints,
    opt_dest: Ints,
    hand_col: Ints,
    hand_throw_col: Ints,
) -> None:  # pragma: no cover - compiled by numba; the array backend is the tested twin
    pairs = rows.shape[0]
    for p in prange(pairs):
        top = rows[p]
        for t in range(top - 1, -1, -1):
            for n in range(node_col.shape[0]):
                total = 0.0
                dtotal = 0.0
                for s in range(sig_start[n], sig_start[n + 1]):
                    best = -np.inf
                    dbest = 0.0
                    for o in range(opt_start[s], opt_start[s + 1]):
                        dest = opt_dest[o]
                        row = t + opt_pts[o]
                        if dest == 0:
                            v = farkle[p]
                            dv = 1.0
                        elif dest == 1:
                            v = win[p]
                            dv = 0.0
                        elif row >= top:
                            v = boundary[p]
                            dv = 1.0 if boundary_is_farkle else 0.0
                        else:
                            v = values[p, row, dest]
                            dv = deriv[p, row, dest]
                        if v > best:
                            best = v
                            dbest = dv
                    total += sig_prob[s] * best
                    dtotal += sig_prob[s] * dbest
                values[p, t, node_col[n]] = total
                deriv[p, t, node_col[n]] = dtotal
            for h in range(hand_col.shape[0]):
                throw = values[p, t, hand_throw_col[h]]
                dthrow = deriv[p, t, hand_throw_col[h]]
                b = bank[p, t, h]
                db = 0.0
                if bank_farkle[p, t, h]:
                    b = farkle[p]
                    db = 1.0
                if b > throw:
                    values[p, t, hand_col[h]] = b
                    deriv[p, t, hand_col[h]] = db
                else:
                    values[p, t, hand_col[h]] = throw
                    deriv[p, t, hand_col[h]] = dthrow


_compiled: Any = None


def _numba_kernel() -> Any:
    """The kernel compiled by Numba on first use (and cached on disk by Numba)."""
    global _compiled
    if _compiled is None:
        import numba

        _compiled = numba.njit(parallel=True, cache=True, nogil=True)(_kernel_python)
    return _compiled


def numba_available() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


LANES = 8
"""Pairs solved side by side in one work item: 8 doubles, one AVX-512 register (two AVX2)."""


def _intrinsics() -> tuple[Any, Any]:
    """Two operations written in LLVM's terms, for the lane kernel.

    ``fetch_add(counter, value)``: ``counter[0] += value`` as one atomic instruction,
    returning the value before (the work queue). ``signature_add(tab, base, off, lo, hi,
    prob, acc)``: over the options ``lo:hi``, each lane's best value ``tab[base + off[o] +
    k]`` (the first of equal ones, as ``_kernel_python``) and its derivative (``LANES``
    further on), added times ``prob`` into ``acc[:LANES]`` and ``acc[LANES:]``. The lanes
    are one vector of ``LANES`` doubles: Numba leaves LLVM's SLP vectoriser off, so the
    loop over lanes is stated as vector operations here (compare, select, multiply, add:
    the same roundings as the scalar loop).
    """
    from llvmlite import ir  # type: ignore[import-untyped]
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    i64 = ir.IntType(64)
    vector = ir.VectorType(ir.DoubleType(), LANES)
    once: Any = cgutils.alloca_once_value  # a variable LLVM keeps in a register

    def data(context: Any, builder: Any, kind: Any, value: Any) -> Any:
        return context.make_array(kind)(context, builder, value).data

    def lanes_at(builder: Any, pointer: Any, at: Any) -> Any:
        return builder.bitcast(builder.gep(pointer, [at]), vector.as_pointer())

    @intrinsic
    def fetch_add(typingctx: Any, counter: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            pointer = data(context, builder, signature.args[0], args[0])
            return builder.atomic_rmw("add", pointer, args[1], "seq_cst")

        return types.int64(counter, types.int64), codegen

    @intrinsic
    def signature_add(
        typingctx: Any, tab: Any, base: Any, off: Any, lo: Any, hi: Any, prob: Any, acc: Any
    ) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            kinds = signature.args
            tab_p = data(context, builder, kinds[0], args[0])
            off_p = data(context, builder, kinds[2], args[2])
            acc_p = data(context, builder, kinds[6], args[6])
            base, lo, hi, prob = args[1], args[3], args[4], args[5]
            start = (ir.Constant(vector, [-np.inf] * LANES), ir.Constant(vector, [0.0] * LANES))
            best, dbest = (once(builder, value) for value in start)
            with cgutils.for_range(builder, builder.sub(hi, lo)) as loop:
                at = builder.add(
                    base, builder.load(builder.gep(off_p, [builder.add(lo, loop.index)]))
                )
                v = builder.load(lanes_at(builder, tab_p, at), align=8)
                d = builder.load(
                    lanes_at(builder, tab_p, builder.add(at, ir.Constant(i64, LANES))), align=8
                )
                b = builder.load(best)
                better = builder.fcmp_ordered(">", v, b)
                builder.store(builder.select(better, v, b), best)
                builder.store(builder.select(better, d, builder.load(dbest)), dbest)
            spread = builder.insert_element(
                ir.Constant(vector, ir.Undefined), prob, ir.Constant(ir.IntType(32), 0)
            )
            spread = builder.shuffle_vector(
                spread,
                ir.Constant(vector, ir.Undefined),
                ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES),
            )
            for at, found in ((0, best), (LANES, dbest)):
                pointer = lanes_at(builder, acc_p, ir.Constant(i64, at))
                old = builder.load(pointer, align=8)
                builder.store(
                    builder.fadd(old, builder.fmul(spread, builder.load(found))), pointer, align=8
                )
            return context.get_dummy_value()

        kinds = (tab, types.int64, off, types.int64, types.int64, types.float64, acc)
        return types.void(*kinds), codegen

    return fetch_add, signature_add


_fetch_add: Any = None
_signature_add: Any = None


def _chunk_python(
    c: int,
    work: Floats,
    height: Ints,
    lane_rows: Ints,
    lane_pair: Ints,
    bank: Floats,
    same: npt.NDArray[np.bool_],
    farkle: Floats,
    win: Floats,
    boundary: Floats,
    boundary_is_farkle: bool,
    node_col: Ints,
    sig_start: Ints,
    sig_prob: Floats,
    opt_start: Ints,
    opt_off: Ints,
    hand_col: Ints,
    hand_throw_col: Ints,
    columns: int,
    pad: int,
    start_col: int,
    out_value: Floats,
    out_deriv: Floats,
) -> None:  # pragma: no cover - compiled by numba; held to _kernel_python by the tests
    """One work item: ``LANES`` pairs through every total, the lanes innermost.

    ``work[c]`` is the item's table, flat: entry ``((u * columns + col) * 2 + x) * LANES + k``
    is the value (x = 0) or derivative (x = 1) of lane k at row u, column col. Rows below
    ``pad`` lie past the top (the boundary; columns 0 and 1 the farkle and the win in every
    row); row ``pad + j`` is total ``lane_rows - 1 - j``. An option reads ``u * row +
    opt_off[o]``, with ``opt_off = (-points * columns + dest) * 2 * LANES``: every option adds
    points except the ones to a column solved earlier in the same row (``build_tables``).
    Lanes past their own top (a shorter pair in the item) compute totals below 0 that
    nothing reads into the others.
    """
    tab = work[c]
    row = columns * 2 * LANES
    d_boundary = 1.0 if boundary_is_farkle else 0.0
    for u in range(pad + height[c]):
        base = u * row
        for k in range(LANES):
            tab[base + k] = farkle[c, k]
            tab[base + LANES + k] = 1.0
            tab[base + 2 * LANES + k] = win[c, k]
            tab[base + 3 * LANES + k] = 0.0
        if u < pad:
            for col in range(2, columns):
                at = base + col * 2 * LANES
                for k in range(LANES):
                    tab[at + k] = boundary[c, k]
                    tab[at + LANES + k] = d_boundary
    for j in range(height[c]):
        base = (pad + j) * row
        for n in range(node_col.shape[0]):
            at = base + node_col[n] * 2 * LANES
            for k in range(2 * LANES):
                tab[at + k] = 0.0
            for s in range(sig_start[n], sig_start[n + 1]):
                # tab[at:at + 2 * LANES] += sig_prob[s] * (best of the options, derivative)
                _signature_add(
                    tab,
                    base,
                    opt_off,
                    opt_start[s],
                    opt_start[s + 1],
                    sig_prob[s],
                    tab[at : at + 2 * LANES],
                )
        for h in range(hand_col.shape[0]):
            throw_at = base + hand_throw_col[h] * 2 * LANES
            hand_at = base + hand_col[h] * 2 * LANES
            for k in range(LANES):
                throw = tab[throw_at + k]
                dthrow = tab[throw_at + LANES + k]
                p, t = lane_pair[c, k], lane_rows[c, k] - 1 - j
                b = bank[p, t, h] if t >= 0 else -np.inf
                db = 0.0
                if t >= 0 and same[p, t, h]:
                    b = farkle[c, k]
                    db = 1.0
                if b > throw:
                    tab[hand_at + k] = b
                    tab[hand_at + LANES + k] = db
                else:
                    tab[hand_at + k] = throw
                    tab[hand_at + LANES + k] = dthrow
    for k in range(LANES):
        at = ((pad + lane_rows[c, k] - 1) * columns + start_col) * 2 * LANES + k
        out_value[lane_pair[c, k]] = tab[at]
        out_deriv[lane_pair[c, k]] = tab[at + LANES]


def _lanes_python(
    counter: Ints,
    work: Floats,
    height: Ints,
    lane_rows: Ints,
    lane_pair: Ints,
    bank: Floats,
    same: npt.NDArray[np.bool_],
    farkle: Floats,
    win: Floats,
    boundary: Floats,
    boundary_is_farkle: bool,
    node_col: Ints,
    sig_start: Ints,
    sig_prob: Floats,
    opt_start: Ints,
    opt_off: Ints,
    hand_col: Ints,
    hand_throw_col: Ints,
    columns: int,
    pad: int,
    start_col: int,
    out_value: Floats,
    out_deriv: Floats,
) -> None:  # pragma: no cover - compiled by numba
    """One thread's share: the next item from ``counter[0]`` until none is left, each one
    counted in ``counter[1]`` once solved."""
    items = height.shape[0]
    while True:
        c = _fetch_add(counter[0:1], 1)
        if c >= items:
            break
        _chunk(
            c,
            work,
            height,
            lane_rows,
            lane_pair,
            bank,
            same,
            farkle,
            win,
            boundary,
            boundary_is_farkle,
            node_col,
            sig_start,
            sig_prob,
            opt_start,
            opt_off,
            hand_col,
            hand_throw_col,
            columns,
            pad,
            start_col,
            out_value,
            out_deriv,
        )
        _fetch_add(counter[1:2], 1)


_chunk: Any = None
_lanes: Any = None


def _compile_lanes() -> None:
    """The lane kernels compiled by Numba on first use (and cached on disk by Numba)."""
    global _chunk, _lanes, _fetch_add, _signature_add
    if _lanes is None:
        import numba

        _fetch_add, _signature_add = _intrinsics()
        _chunk = numba.njit(cache=True, nogil=True)(_chunk_python)
        _lanes = numba.njit(cache=True, nogil=True)(_lanes_python)


def default_threads() -> int:
    """The CPUs this process may run on (its affinity where the system tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


class _Helpers:
    """Threads that join the calling thread on a solve, started on first use.

    Each waits (asleep) for a job: the arguments of ``_lanes``, whose shared counter hands
    out the items. The calling thread works too and waits only for the items taken: a
    helper that the machine's other work keeps from starting finds nothing left and takes
    nothing, so a busy machine costs at most the item a helper is in the middle of.
    """

    def __init__(self) -> None:
        self._queues: list[queue.SimpleQueue[tuple[Any, ...]]] = []
        self._lock = threading.Lock()
        self.errors: list[BaseException] = []

    def submit(self, helpers: int, job: tuple[Any, ...]) -> None:
        with self._lock:
            while len(self._queues) < helpers:
                jobs: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()
                name = f"zloutch-solver-{len(self._queues) + 1}"
                threading.Thread(target=self._serve, args=(jobs,), name=name, daemon=True).start()
                self._queues.append(jobs)
            for jobs in self._queues[:helpers]:
                jobs.put(job)

    def _serve(self, jobs: queue.SimpleQueue[tuple[Any, ...]]) -> None:
        while True:
            job = jobs.get()
            try:
                _lanes(*job)
            except BaseException as error:  # pragma: no cover - the kernel does not raise
                self.errors.append(error)


_HELPERS = _Helpers()


class Lanes:
    """A batch of pairs laid out for the lane kernel, solved for many farkle values.

    What changes between Newton's passes of a level is the farkle value (and so the
    boundary of an exact target); the banks, laid out once here, do not.
    """

    def __init__(
        self,
        tables: Tables,
        rows: Ints,
        bank: Floats,
        bank_farkle: npt.NDArray[np.bool_],
        buffer: Floats | None = None,
    ) -> None:
        """``buffer``: memory for the tables (``work_size`` doubles at least), kept from one
        batch to the next by the caller: a fresh one costs the system's page faults."""
        _compile_lanes()
        self.tables = tables
        self.rows = rows
        pairs = int(rows.shape[0])
        self.pairs = pairs
        items = -(-pairs // LANES)
        # Largest first: the items go to the threads in this order.
        by_rows = np.argsort(-rows, kind="stable").astype(np.int64)
        order = np.empty(items * LANES, dtype=np.int64)
        order[:pairs] = by_rows
        order[pairs:] = by_rows[-1] if pairs else 0  # padding lanes repeat the last pair
        self.lane_pair = order.reshape(items, LANES)
        self.lane_rows = rows[self.lane_pair] if pairs else np.ones((0, LANES), dtype=np.int64)
        self.height = self.lane_rows.max(axis=1, initial=0).astype(np.int64)
        self.bank = np.ascontiguousarray(bank, dtype=np.float64)  # read where the lanes need it
        self.same = np.ascontiguousarray(bank_farkle, dtype=np.bool_)
        self.pad = tables.max_points
        size = self.work_size(tables, rows)
        if buffer is None or buffer.shape[0] < size:
            buffer = np.empty(size)
        self.work = buffer[:size].reshape(items, -1)
        self.opt_off = (-tables.opt_pts * tables.columns + tables.opt_dest) * 2 * LANES

    @staticmethod
    def work_size(tables: Tables, rows: Ints) -> int:
        """The doubles the tables of a batch take."""
        items = -(-int(rows.shape[0]) // LANES)
        top = int(rows.max(initial=0))
        return items * (tables.max_points + top) * tables.columns * 2 * LANES

    def starts(
        self,
        farkle: Floats,
        win: Floats,
        boundary: Floats,
        boundary_is_farkle: bool,
        threads: int = 1,
    ) -> tuple[Floats, Floats]:
        """The value at the start of the turn (total 0) of every pair, and d/d(farkle),
        on ``threads`` threads (this one and helpers)."""
        t = self.tables
        value = np.empty(self.pairs)
        deriv = np.empty(self.pairs)
        if not self.pairs:
            return value, deriv
        items = int(self.height.shape[0])
        counter = np.zeros(2, dtype=np.int64)  # items taken, items solved
        job = (
            counter,
            self.work,
            self.height,
            self.lane_rows,
            self.lane_pair,
            self.bank,
            self.same,
            np.ascontiguousarray(farkle[self.lane_pair], dtype=np.float64),
            np.ascontiguousarray(win[self.lane_pair], dtype=np.float64),
            np.ascontiguousarray(boundary[self.lane_pair], dtype=np.float64),
            boundary_is_farkle,
            t.node_col,
            t.sig_start,
            t.sig_prob,
            t.opt_start,
            self.opt_off,
            t.hand_col,
            t.hand_throw_col,
            t.columns,
            self.pad,
            t.start_col,
            value,
            deriv,
        )
        helpers = min(threads, items) - 1
        if helpers > 0:
            _HELPERS.submit(helpers, job)
        _lanes(*job)
        while counter[1] < items:  # a helper is finishing the items it took
            if _HELPERS.errors:  # pragma: no cover - the kernel does not raise
                raise RuntimeError("a solver thread failed") from _HELPERS.errors[0]
            os.sched_yield()
        return value, deriv

    def tables_of_pairs(self) -> tuple[Floats, Floats]:
        """Every (pair, total, column) of the last solve, in ``solve_pairs``'s layout."""
        t = self.tables
        height = int(self.rows.max(initial=0))
        values = np.zeros((self.pairs, max(height, 1), t.columns))
        deriv = np.zeros_like(values)
        work = self.work.reshape(self.work.shape[0], -1, t.columns, 2, LANES)
        for i, p in enumerate(self.lane_pair.reshape(-1)[: self.pairs].tolist()):
            c, k = divmod(i, LANES)
            top = int(self.rows[p])
            u = self.pad + top - 1 - np.arange(top)
            values[p, :top] = work[c, u, :, 0, k]
            deriv[p, :top] = work[c, u, :, 1, k]
        values[:, :, :2] = 0.0  # the farkle and win columns: no node, as _kernel_python
        deriv[:, :, :2] = 0.0
        return values, deriv


def solve_pairs(
    tables: Tables,
    rows: Ints,
    bank: Floats,
    bank_farkle: npt.NDArray[np.bool_],
    farkle: Floats,
    win: Floats,
    boundary: Floats,
    boundary_is_farkle: bool,
    backend: str = "numba",
    xp: Any = None,
    threads: int = 1,
) -> tuple[Floats, Floats]:
    """Values and d(value)/d(farkle) of every (pair, total, column).

    ``bank[p, t, h]``: what banking at total t from hand h is worth (-inf: not allowed);
    ``bank_farkle[p, t, h]``: banking gains nothing, so it is worth what a farkle is.
    Totals at or above ``rows[p]`` are worth ``boundary[p]``.
    """
    pairs = rows.shape[0]
    height = int(rows.max(initial=0))
    if backend == "array":
        return _solve_pairs_array(
            tables, rows, bank, bank_farkle, farkle, win, boundary, boundary_is_farkle, xp or np
        )
    if backend == "cuda":
        from zloutch.strategy.cuda_kernel import solve_pairs_cuda

        return solve_pairs_cuda(
            tables, rows, bank, bank_farkle, farkle, win, boundary, boundary_is_farkle
        )
    if backend == "numba":
        lanes = Lanes(tables, rows, bank, bank_farkle)
        lanes.starts(farkle, win, boundary, boundary_is_farkle, threads)
        return lanes.tables_of_pairs()
    values = np.zeros((pairs, max(height, 1), tables.columns), dtype=np.float64)
    deriv = np.zeros_like(values)
    if backend == "python":
        kernel: Any = _kernel_python
    elif backend == "numba-pairs":
        kernel = _numba_kernel()
    else:
        raise ValueError(f"unknown backend {backend!r}")
    kernel(
        values,
        deriv,
        rows,
        bank,
        bank_farkle,
        farkle,
        win,
        boundary,
        boundary_is_farkle,
        tables.node_col,
        tables.sig_start,
        tables.sig_prob,
        tables.opt_start,
        tables.opt_pts,
        tables.opt_dest,
        tables.hand_col,
        tables.hand_throw_col,
    )
    return values, deriv


def _solve_pairs_array(
    tables: Tables,
    rows: Ints,
    bank: Floats,
    bank_farkle: npt.NDArray[np.bool_],
    farkle: Floats,
    win: Floats,
    boundary: Floats,
    boundary_is_farkle: bool,
    xp: Any,
) -> tuple[Floats, Floats]:
    """The same computation as whole arrays: every pair advances one total per step.

    Pairs with fewer rows start later; values above a pair's rows hold its boundary.
    Options are padded per signature to the widest one (padding is -inf).
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
    groups = _groups_by_dependency(tables, dest)

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


def _groups_by_dependency(tables: Tables, dest: Ints) -> list[npt.NDArray[np.int64]]:
    """Signatures in three groups: joker throws, throws reaching them at 0 points, the rest.

    Within one total, a farkle with jokers set aside moves to the jokers' throw at the same
    total, so those nodes must be valued first; every other option adds points.
    """
    node_of_sig = np.repeat(np.arange(len(tables.node_col)), np.diff(tables.sig_start))
    same_total = set()
    for s in range(len(tables.sig_prob)):
        for o in range(tables.opt_start[s], tables.opt_start[s + 1]):
            if tables.opt_pts[o] == 0 and tables.opt_dest[o] > 1:
                same_total.add(int(tables.opt_dest[o]))
    first = [
        s for s in range(len(node_of_sig)) if int(tables.node_col[node_of_sig[s]]) in same_total
    ]
    rest = [
        s for s in range(len(node_of_sig)) if int(tables.node_col[node_of_sig[s]]) not in same_total
    ]
    del dest
    return [np.asarray(g, dtype=np.int64) for g in (first, rest) if g]
