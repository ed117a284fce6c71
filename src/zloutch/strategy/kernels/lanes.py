"""A batch of pairs laid out for the lane kernel (``Lanes``), and a whole solve's levels in
the kernel's threads (``Sweep``, ``solve_levels``).

Pairs sorted by their rows and grouped ``LANES`` at a time into work items, each item one
table ``[u, c, value|derivative, lane]`` (the value alone where no Newton step reads the
derivative: ``Lanes(derivative=False)``) with the pairs innermost (contiguous), rows counted
down from each pair's top (``u = pad + rows - 1 - t``), so that an option's row and column
are one offset, the same for every lane, and the loop over lanes reads contiguous memory.
Each thread solves its items in its own table (on a cache line: ``aligned_empty``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from zloutch.engine.compiled import FlatTurn
from zloutch.strategy.kernels import scheduler
from zloutch.strategy.kernels.banks import _NO_FLOATS, _NO_INTS, _array_banks
from zloutch.strategy.kernels.item import LANES, SLOT, LaneBanks, LaneLevel, LaneTurn, Newton, Sync
from zloutch.strategy.kernels.scheduler import _HELPERS, compile_lanes

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

Tables = FlatTurn


ONE_PASS = Newton(False, _NO_FLOATS, _NO_INTS, _NO_FLOATS, 0.0, 1, np.zeros(2))
"""``_solve``'s ``newton`` for one pass (no step): ``(iterate, w, partner, r, tolerance,
passes, result)``, ``result`` the residual and the passes made."""


ALIGN = 64
"""Bytes: the items' tables begin on a cache line. An option reads ``LANES`` doubles (64
bytes) at a multiple of ``LANES`` from the table's start; from a table 16 bytes off a line,
as NumPy's memory may be, each read spans two lines, and a farkle solve took 5.0 to 5.5 s
on one thread instead of 3.6 to 3.8 s."""


def aligned_empty(size: int) -> Floats:
    """``np.empty(size)`` that begins at a multiple of ``ALIGN`` bytes."""
    raw = np.empty(size + ALIGN // 8)
    skip = (-raw.ctypes.data % ALIGN) // 8
    return raw[skip : skip + size]


def _slots(buffer: Floats, slots: int) -> Floats:
    """``buffer`` as ``slots`` tables, each on a cache line (``buffer`` begins on one)."""
    per = buffer.shape[0] // slots // (ALIGN // 8) * (ALIGN // 8)
    return buffer[: slots * per].reshape(slots, per)


def _lay_out(rows: Ints) -> tuple[Ints, Ints, Ints]:
    """Pairs in items of ``LANES``, largest first (the order the threads take them in):
    ``lane_pair[c, k]``, the pair in lane k of item c (padding lanes repeat the last pair),
    its rows, and the item's height (the most rows of its lanes)."""
    pairs = int(rows.shape[0])
    items = -(-pairs // LANES)
    by_rows = np.argsort(-rows, kind="stable").astype(np.int64)
    order = np.empty(items * LANES, dtype=np.int64)
    order[:pairs] = by_rows
    order[pairs:] = by_rows[-1] if pairs else 0
    lane_pair = order.reshape(items, LANES)
    lane_rows = rows[lane_pair] if pairs else np.ones((0, LANES), dtype=np.int64)
    return lane_pair, lane_rows, lane_rows.max(axis=1, initial=0).astype(np.int64)


def _turn(tables: Tables, width: int = 2) -> LaneTurn:
    """The kernel's ``turn``: the flat turn's arrays, each option's offset in an item's table
    whose entries are ``width`` vectors of ``LANES`` (2: values and derivatives)."""
    t = tables
    opt_off = (-t.opt_pts * t.columns + t.opt_dest) * width * LANES
    return LaneTurn(
        t.node_col,
        t.sig_start,
        t.sig_prob,
        t.opt_start,
        opt_off,
        t.hand_col,
        t.hand_throw_col,
        t.columns,
        t.max_points,
        t.start_col,
        width,
    )


class Lanes:
    """A batch of pairs laid out for the lane kernel, solved for many farkle values.

    What changes between Newton's passes of a level is the farkle value (and so the
    boundary of an exact target); the banks, laid out once here, do not. ``bank`` and
    ``bank_farkle`` give them by pair (``solve_pairs``), or ``scores`` by score, read from
    the tables of a whole solve (``ScoreBanks.of``). Without ``derivative`` the kernel
    computes the values alone (half the table, and fewer operations: a solve that takes
    no Newton's step), and every derivative it returns is NaN.
    """

    def __init__(
        self,
        tables: Tables,
        rows: Ints,
        bank: Floats | None = None,
        bank_farkle: npt.NDArray[np.bool_] | None = None,
        buffer: Floats | None = None,
        scores: LaneBanks | None = None,
        derivative: bool = True,
    ) -> None:
        """``buffer``: memory for the threads' tables (``work_size`` doubles at least, from
        ``aligned_empty``), kept from one batch to the next by the caller: a fresh one costs
        the system's page faults."""
        compile_lanes()
        self.tables = tables
        self.rows = rows
        self.pairs = int(rows.shape[0])
        self.lane_pair, self.lane_rows, self.height = _lay_out(rows)
        if scores is None:
            assert bank is not None and bank_farkle is not None
            scores = _array_banks(bank, bank_farkle)
        self.banks = scores
        self.pad = tables.max_points
        self.buffer = buffer
        self.work: Floats = np.empty((0, 0))
        self.width = 2 if derivative else 1
        self.turn = _turn(tables, self.width)

    @staticmethod
    def stride(tables: Tables, rows: Ints, width: int = 2) -> int:
        """The doubles one item's table takes, for these rows at most (entries of ``width``
        vectors: 2, values and derivatives; 1, values)."""
        return (tables.max_points + int(rows.max(initial=0))) * tables.columns * width * LANES

    @staticmethod
    def work_size(tables: Tables, rows: Ints, threads: int = 1) -> int:
        """The doubles the threads' tables of a batch take, with derivatives (enough for a
        batch of values alone, which takes half)."""
        return threads * Lanes.stride(tables, rows)

    def job(
        self,
        farkle: Floats,
        win: Floats,
        boundary: Floats,
        boundary_is_farkle: bool,
        threads: int,
        keep: bool,
        newton: Newton,
    ) -> tuple[Any, ...]:
        """``_solve``'s arguments after the thread's index, for a batch on ``threads``
        threads: ``(sync, work, keep, level, banks, turn, newton, value, deriv)``, the
        start values and their derivatives written into the last two."""
        items = int(self.height.shape[0])
        slots = max(1, threads)
        stride = self.stride(self.tables, self.rows, self.width)
        if keep:
            self.work = aligned_empty(items * stride).reshape(items, stride)
        else:
            buffer = self.buffer
            if buffer is None or buffer.shape[0] < slots * stride:
                buffer = self.buffer = aligned_empty(slots * stride)
            # Each thread's table at the same place of the buffer for every batch: a helper
            # still busy with an item of a batch the others finished writes where no other
            # thread does (its result is then dropped).
            self.work = _slots(buffer, slots)
        sync = Sync(
            np.zeros(1, dtype=np.int64),  # ctrl: the pass (GEN)
            np.zeros(max(1, newton.passes), dtype=np.int64),  # taken[k]
            np.zeros(max(1, newton.passes), dtype=np.int64),  # finished[k]
            np.full(items, -1, dtype=np.int64),  # done[c]
            np.zeros(items * SLOT, dtype=np.int64),  # heartbeat[c * SLOT]
            _HELPERS.clocks(slots),
            np.full(items * SLOT, -1, dtype=np.int64),  # cpu[c * SLOT]
            _HELPERS.counts(slots),
            np.zeros(1, dtype=np.int64),  # stop
        )
        level = LaneLevel(
            self.height,
            self.lane_rows,
            self.lane_pair,
            np.ascontiguousarray(farkle[self.lane_pair], dtype=np.float64),
            np.ascontiguousarray(win[self.lane_pair], dtype=np.float64),
            np.ascontiguousarray(boundary[self.lane_pair], dtype=np.float64),
            boundary_is_farkle,
        )
        value = np.empty(self.pairs)
        deriv = np.empty(self.pairs)
        return (sync, self.work, keep, level, self.banks, self.turn, newton, value, deriv)

    def _run(
        self,
        farkle: Floats,
        win: Floats,
        boundary: Floats,
        boundary_is_farkle: bool,
        threads: int,
        keep: bool,
        newton: Newton,
    ) -> tuple[Floats, Floats]:
        if not self.pairs:
            return np.empty(0), np.empty(0)
        job = self.job(farkle, win, boundary, boundary_is_farkle, threads, keep, newton)
        threads = min(max(1, threads), int(self.height.shape[0]))
        if threads > 1:
            _HELPERS.submit(threads - 1, job)
        scheduler._solve(0, *job)
        if _HELPERS.errors:  # pragma: no cover - the kernel does not raise
            raise RuntimeError("a solver thread failed") from _HELPERS.errors[0]
        return job[7], job[8]

    def starts(
        self,
        farkle: Floats,
        win: Floats,
        boundary: Floats,
        boundary_is_farkle: bool,
        threads: int = 1,
        keep: bool = False,
    ) -> tuple[Floats, Floats]:
        """The value at the start of the turn (total 0) of every pair, and d/d(farkle),
        on ``threads`` threads (this one and helpers); ``keep``: every table kept for
        ``tables_of_pairs``."""
        return self._run(farkle, win, boundary, boundary_is_farkle, threads, keep, ONE_PASS)

    def tables_of_pairs(self) -> tuple[Floats, Floats]:
        """Every (pair, total, column) of the last solve with ``keep``, in ``solve_pairs``'s
        layout (the derivatives NaN where the solve computed none)."""
        t = self.tables
        height = int(self.rows.max(initial=0))
        values = np.zeros((self.pairs, max(height, 1), t.columns))
        deriv = np.zeros_like(values) if self.width == 2 else np.full_like(values, np.nan)
        work = self.work.reshape(self.work.shape[0], -1, t.columns, self.width, LANES)
        for i, p in enumerate(self.lane_pair.reshape(-1)[: self.pairs].tolist()):
            c, k = divmod(i, LANES)
            top = int(self.rows[p])
            u = self.pad + top - 1 - np.arange(top)
            values[p, :top] = work[c, u, :, 0, k]
            if self.width == 2:
                deriv[p, :top] = work[c, u, :, 1, k]
        values[:, :, :2] = 0.0  # the farkle and win columns: no node, as the plain kernel
        if self.width == 2:
            deriv[:, :, :2] = 0.0
        return values, deriv


@dataclass(frozen=True)
class Sweep:
    """Levels of pairs for ``solve_levels``, in the order they are solved: the pairs of
    level n are ``starts[n]:starts[n + 1]`` (scores ``a``, ``b``; ``partner``, the pair (b,
    a) of each, counted from the level's first), its items ``item_starts[n]:item_starts[n +
    1]``, laid out as ``Lanes`` lays out one batch (``lane_pair`` counted from the level's
    first pair)."""

    starts: Ints
    item_starts: Ints
    a: Ints
    b: Ints
    partner: Ints
    rows: Ints
    height: Ints
    lane_rows: Ints
    lane_pair: Ints

    @staticmethod
    def of(levels: list[tuple[Ints, Ints, Ints, Ints]]) -> Sweep:
        """From each level's (a, b, partner, rows)."""
        layouts = [_lay_out(rows) for _, _, _, rows in levels]
        sizes = [len(a) for a, _, _, _ in levels]
        items = [len(height) for _, _, height in layouts]

        def joined(arrays: list[Ints], shape: tuple[int, ...] = (0,)) -> Ints:
            if not arrays:
                return np.zeros(shape, dtype=np.int64)
            return np.ascontiguousarray(np.concatenate(arrays), dtype=np.int64)

        return Sweep(
            np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            np.concatenate([[0], np.cumsum(items)]).astype(np.int64),
            joined([level[0] for level in levels]),
            joined([level[1] for level in levels]),
            joined([level[2] for level in levels]),
            joined([level[3] for level in levels]),
            joined([layout[2] for layout in layouts]),
            joined([layout[1] for layout in layouts], (0, LANES)),
            joined([layout[0] for layout in layouts], (0, LANES)),
        )


def solve_levels(
    tables: Tables,
    sweep: Sweep,
    banks: LaneBanks,
    exact: bool,
    tolerance: float,
    passes: int,
    threads: int,
    buffer: Floats | None = None,
    progress: Callable[[int], None] | None = None,
) -> Floats:
    """Newton's method on every level of ``sweep`` in turn, on ``threads`` helper threads
    that go from one level to the next without returning to Python (``_levels``): each
    pair's value is the start of its turn, whose farkle is worth ``1 - w`` of its partner,
    from the level above's value (``_open``), until the level's largest residual is below
    ``tolerance`` or after ``passes`` passes; the values are written into the win table
    (``banks.win``: ``ScoreBanks.of`` for all the pairs), which the levels below read. The
    steps and the values are ``solve_game``'s. Returns each level's last residual and its
    passes. ``progress(n)``: n levels solved, told by this thread, which waits.
    ``buffer``: as for ``Lanes``."""
    compile_lanes()
    levels = int(sweep.starts.shape[0]) - 1
    results = np.zeros((levels, 2))
    if not levels:
        return results
    items, pairs = int(sweep.height.shape[0]), int(sweep.a.shape[0])
    slots = threads + 1  # helpers 1 to threads
    stride = Lanes.stride(tables, sweep.rows)
    if buffer is None or buffer.shape[0] < slots * stride:
        buffer = aligned_empty(slots * stride)
    work = _slots(buffer, slots)
    shared = (
        np.zeros(2, dtype=np.int64),  # the level under way, stop
        np.zeros(levels, dtype=np.int64),  # each level's pass (GEN)
        np.zeros((levels, max(1, passes)), dtype=np.int64),  # taken[n, k]
        np.zeros((levels, max(1, passes)), dtype=np.int64),  # finished[n, k]
        np.full(items, -1, dtype=np.int64),  # done[c]
        np.zeros(items * SLOT, dtype=np.int64),  # heartbeat[c * SLOT]
        _HELPERS.clocks(slots),
        np.full(items * SLOT, -1, dtype=np.int64),  # cpu[c * SLOT]
        _HELPERS.counts(slots),
    )
    plan = (
        sweep.starts,
        sweep.item_starts,
        sweep.a,
        sweep.b,
        sweep.partner,
        sweep.height,
        sweep.lane_rows,
        sweep.lane_pair,
    )
    state = (
        np.zeros((items, LANES)),  # farkle
        np.ones((items, LANES)),  # win
        np.zeros((items, LANES)),  # boundary
        np.zeros(pairs),  # w
        np.zeros(pairs),  # r
        np.zeros(pairs),  # value
        np.zeros(pairs),  # d value / d farkle
        results,
    )
    scheduler._open(0, plan, state, banks.win, exact)
    job = (shared, plan, state, banks, _turn(tables), work, exact, tolerance, passes)
    finished = threading.Event()
    _HELPERS.submit(threads, job, scheduler._levels, finished)
    sweeping = shared[0]
    try:
        while not finished.wait(0.05 if progress is not None else None):
            if progress is not None:
                progress(int(sweeping[0]))
    except BaseException:
        sweeping[1] = 1  # the helpers stop at their next item
        raise
    if sweeping[0] < levels:  # pragma: no cover - the kernel does not raise
        raise RuntimeError("a solver thread failed") from (
            _HELPERS.errors[0] if _HELPERS.errors else None
        )
    if progress is not None:
        progress(levels)
    return results
