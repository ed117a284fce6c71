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

Layout: ``values[p, t, c]`` for pair ``p``, total ``t`` in units and column ``c`` (0 farkle,
1 win, then the nodes of the compiled turn); the graph is the compiled turn's flat form
(``zloutch.engine.compiled.FlatTurn``, documented there once): throw nodes in solving order
with their signatures, each signature's options ``(opt_pts, opt_dest)``.

The game solver's kernel (``Lanes``) lays the same numbers out for the cores: pairs sorted by
their rows and grouped ``LANES`` at a time into work items, each item one table
``[u, c, value|derivative, lane]`` with the pairs innermost (contiguous), rows counted down
from each pair's top (``u = pad + rows - 1 - t``), so that an option's row and column are one
offset, the same for every lane, and the loop over lanes reads contiguous memory. Each
thread solves its items in its own table (on a cache line: ``aligned_empty``). The items
go to the threads from a shared counter, largest first: a thread slowed by other work on
the machine takes fewer, and an item whose holder stopped is done again by a thread that
runs (``_batch``). A whole solve's levels run in the threads without returning to Python
(``solve_levels``). ``_kernel_python`` stays the plain statement of the computation, which
the tests hold the fast kernel to.
"""

from __future__ import annotations

import os
import platform
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

try:  # Numba compiles the loops; without it they still run, slowly, in plain Python.
    from numba import prange
except ImportError:  # pragma: no cover
    prange = range  # type: ignore[misc]

from zloutch.engine.compiled import FlatTurn
from zloutch.strategy.turn_solver import TurnModel

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


Tables = FlatTurn
"""The turn graph the kernels read: the compiled turn's flat form (``zloutch.engine.compiled``,
"Flat form"), taken as it is."""


def build_tables(model: TurnModel) -> Tables:
    """The compiled turn's flat form (built once per compiled turn, never flattened here)."""
    return model.compiled.flat


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


_fetch_add: Any = None
_load: Any = None
_store: Any = None
_swap_if: Any = None
_ticks: Any = None
_pause: Any = None
_spin: Any = None
_cpu: Any = None
_signature_add: Any = None


def _intrinsics() -> None:
    """Operations written in LLVM's terms, for the lane kernel (module globals, which Numba
    reads when it compiles).

    On ``array[i]`` (an int64 array): ``fetch_add(array, i, value)`` adds as one atomic
    instruction and returns the value before; ``load(array, i)`` and ``store(array, i,
    value)`` read and write it atomically (so that a loop waiting on it reads it again, and
    what was written before a store is seen after the load that reads it);
    ``swap_if(array, i, expected, value)`` writes ``value`` where ``expected`` is found and
    returns what was found. ``ticks()``: the processor's time-stamp counter (a clock to
    compare with itself). ``spin()``: a few cycles' wait, the core kept (x86's ``pause``).
    ``cpu()``: the CPU this thread runs on (``sched_getcpu``). ``pause()``:
    ``sched_yield``, the core to any other thread that
    waits for it. ``signature_add(tab, base, off, lo, hi, prob, acc)``: over the options
    ``lo:hi``, each lane's best value ``tab[base + off[o] + k]`` (the first of equal ones, as
    ``_kernel_python``) and its derivative (``LANES`` further on), added times ``prob`` into
    ``acc[:LANES]`` and ``acc[LANES:]``. The lanes are one vector of ``LANES`` doubles: Numba
    leaves LLVM's SLP vectoriser off, so the loop over lanes is stated as vector operations
    here (compare, select, multiply, add: the same roundings as the scalar loop).
    """
    from llvmlite import ir  # type: ignore[import-untyped]
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    i64 = ir.IntType(64)
    vector = ir.VectorType(ir.DoubleType(), LANES)
    once: Any = cgutils.alloca_once_value  # a variable LLVM keeps in a register

    def data(context: Any, builder: Any, kind: Any, value: Any) -> Any:
        return context.make_array(kind)(context, builder, value).data

    def element(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.gep(data(context, builder, signature.args[0], args[0]), [args[1]])

    def lanes_at(builder: Any, pointer: Any, at: Any) -> Any:
        return builder.bitcast(builder.gep(pointer, [at]), vector.as_pointer())

    def external(builder: Any, name: str, kind: Any) -> Any:
        found = builder.module.globals.get(name)
        return found if found is not None else ir.Function(builder.module, kind, name)

    @intrinsic
    def fetch_add(typingctx: Any, array: Any, i: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            pointer = element(context, builder, signature, args)
            return builder.atomic_rmw("add", pointer, args[2], "seq_cst")

        return types.int64(array, types.int64, types.int64), codegen

    @intrinsic
    def load(typingctx: Any, array: Any, i: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            pointer = element(context, builder, signature, args)
            return builder.load_atomic(pointer, "seq_cst", 8)

        return types.int64(array, types.int64), codegen

    @intrinsic
    def store(typingctx: Any, array: Any, i: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            pointer = element(context, builder, signature, args)
            builder.store_atomic(args[2], pointer, "seq_cst", 8)
            return context.get_dummy_value()

        return types.void(array, types.int64, types.int64), codegen

    @intrinsic
    def swap_if(typingctx: Any, array: Any, i: Any, expected: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            pointer = element(context, builder, signature, args)
            pair = builder.cmpxchg(pointer, args[2], args[3], "seq_cst", "seq_cst")
            return builder.extract_value(pair, 0)

        return types.int64(array, types.int64, types.int64, types.int64), codegen

    # Elsewhere than on x86 (whose time-stamp counter user code may read), ticks() is 0:
    # no time per row is known, so nothing is done again and waiting threads yield; no CPU
    # is known but on Linux, and no yield on Windows.
    x86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "i386")
    linux = sys.platform.startswith("linux")
    posix = os.name == "posix"

    @intrinsic
    def ticks(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            if not x86:
                return ir.Constant(i64, 0)
            kind = ir.FunctionType(i64, [])
            counter = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=kind)
            return builder.call(counter, [])

        return types.int64(), codegen

    @intrinsic
    def spin(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            if x86:
                kind = ir.FunctionType(ir.VoidType(), [])
                for _ in range(8):
                    builder.call(external(builder, "llvm.x86.sse2.pause", kind), [])
            return context.get_dummy_value()

        return types.void(), codegen

    @intrinsic
    def cpu(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            if not linux:
                return ir.Constant(i64, -1)  # unknown
            where = external(builder, "sched_getcpu", ir.FunctionType(ir.IntType(32), []))
            return builder.sext(builder.call(where, []), i64)

        return types.int64(), codegen

    @intrinsic
    def pause(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            if posix:
                kind = ir.FunctionType(ir.IntType(32), [])
                builder.call(external(builder, "sched_yield", kind), [])
            return context.get_dummy_value()

        return types.void(), codegen

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

    global _fetch_add, _load, _store, _swap_if, _ticks, _spin, _cpu, _pause, _signature_add
    _fetch_add, _load, _store, _swap_if = fetch_add, load, store, swap_if
    _ticks, _spin, _cpu, _pause, _signature_add = ticks, spin, cpu, pause, signature_add


ARRAYS, SCORES = 0, 1
"""Where a lane reads what banking is worth (``_item_python``'s ``banks``)."""

GEN, DONE = 0, -1
"""``sync[0][GEN]``: the pass under way (from 0), ``DONE`` once the batch is solved."""

STALL_ROWS = 64
"""An item whose holder wrote no row for this long (in its rows' time) is done again."""

PATIENCE = 4
"""A thread with nothing to do spins this many times the largest item's time at most."""

OPEN_ROWS = 256
"""A thread waiting for the next level of a sweep spins this many rows' time at most."""

CALLS, ITEMS, AGAIN, DROPPED, IN_BATCHES, IN_ITEMS, IN_AGAIN, IN_DROPPED, IN_STEPS = range(9)
"""``sync[7][thread]``, what each thread did (counts, then time-stamp ticks): batches
joined, items whose values it wrote (its own, done again for a holder that stopped), items
it solved or began for nothing (another thread wrote them first); time in batches, in
those three kinds of items, and writing the values out (with Newton's step where the
thread ended a pass). The time in batches left over is waiting: at the end of a pass, for
the items others hold."""


def _item_python(
    c: int,
    k: int,
    tab: Floats,
    again: bool,
    sync: tuple[Any, ...],
    level: tuple[Ints, Ints, Ints, Floats, Floats, Floats, bool],
    banks: tuple[Any, ...],
    turn: tuple[Any, ...],
    lane_value: Floats,
    lane_kind: Ints,
) -> bool:  # pragma: no cover - compiled by numba; held to _kernel_python by the tests
    """Item ``c`` of pass ``k``: ``LANES`` pairs through every total, the lanes innermost.

    ``tab`` is the item's table, flat: entry ``((u * columns + col) * 2 + x) * LANES + k``
    is the value (x = 0) or derivative (x = 1) of lane k at row u, column col. Rows below
    ``pad`` lie past the top (the boundary; columns 0 and 1 the farkle and the win in every
    row); row ``pad + j`` is total ``lane_rows - 1 - j``. An option reads ``u * row +
    opt_off[o]``, with ``opt_off = (-points * columns + dest) * 2 * LANES``: every option adds
    points except the ones to a column solved earlier in the same row (``build_tables``).
    Lanes past their own top (a shorter pair in the item) compute totals below 0 that
    nothing reads into the others.

    The holder of the item writes the time and its CPU at each row (``heartbeat[c]``,
    ``cpu[c]``); ``again``: the item is done again for a holder that stopped writing. Either
    gives up (returns False) as soon as another thread has finished the item.

    What banking at total t from hand h is worth comes from ``banks``: with ``ARRAYS``,
    ``bank[p, t, h]`` and ``same[p, t, h]`` (worth the farkle); with ``SCORES``, the tables
    of the scores (``_Game.tabulate_banks``) read where the pair's scores point, the values
    ``_Game.level_inputs`` would lay out.
    """
    done, heartbeat, cpu = sync[3], sync[4], sync[6]
    height, lane_rows, lane_pair, farkle, win, boundary, boundary_is_farkle = level
    node_col, sig_start, sig_prob, opt_start, opt_off, hand_col, hand_throw_col = turn[:7]
    columns, pad = turn[7], turn[8]
    mode, bank, same, pair_score, pair_opp, entered, kind, bank_x, allowed = banks[:9]
    win_table, low, last0, last1, has_last = banks[9:]
    row = columns * 2 * LANES
    d_boundary = 1.0 if boundary_is_farkle else 0.0
    if not again:
        _store(heartbeat, c, _ticks())
        _store(cpu, c, _cpu())
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
        if _load(done, c) >= k:
            return False
        if not again:
            _store(heartbeat, c, _ticks())
            _store(cpu, c, _cpu())
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
        if mode == SCORES:  # the bank's worth at this total, once for all the hands
            for k in range(LANES):
                p, t = lane_pair[c, k], lane_rows[c, k] - 1 - j
                if t < 0:
                    continue
                i = pair_score[p]
                lane_kind[k] = kind[i, t]
                x = bank_x[i, t]
                if lane_kind[k] == 3 and has_last:  # reached: the opponent's last turn
                    d = min(max(x - pair_opp[p], 0), last0.shape[0] - 1)
                    lane_value[k] = 1.0 - (last1[d] if entered[p] else last0[d])
                elif lane_kind[k] == 3:
                    lane_value[k] = 1.0
                elif lane_kind[k] != 0:  # the game goes on: the opponent's turn
                    at = min(max(x - low, 0), win_table.shape[1] - 1)
                    lane_value[k] = 1.0 - win_table[pair_opp[p] - low, at]
                else:
                    lane_value[k] = -np.inf
        for h in range(hand_col.shape[0]):
            throw_at = base + hand_throw_col[h] * 2 * LANES
            hand_at = base + hand_col[h] * 2 * LANES
            for k in range(LANES):
                throw = tab[throw_at + k]
                dthrow = tab[throw_at + LANES + k]
                p, t = lane_pair[c, k], lane_rows[c, k] - 1 - j
                b = -np.inf
                db = 0.0
                if t < 0:
                    pass
                elif mode == SCORES:
                    if allowed[pair_score[p], t, h]:
                        if lane_kind[k] == 2:  # banking writes nothing (G-7)
                            b = farkle[c, k]
                            db = 1.0
                        else:
                            b = lane_value[k]
                else:
                    b = bank[p, t, h]
                    if same[p, t, h]:
                        b = farkle[c, k]
                        db = 1.0
                if b > throw:
                    tab[hand_at + k] = b
                    tab[hand_at + LANES + k] = db
                else:
                    tab[hand_at + k] = throw
                    tab[hand_at + LANES + k] = dthrow
    return True


def _finish_python(
    c: int,
    k: int,
    tab: Floats,
    sync: tuple[Any, ...],
    level: tuple[Ints, Ints, Ints, Floats, Floats, Floats, bool],
    turn: tuple[Any, ...],
    newton: tuple[Any, ...],
    out_value: Floats,
    out_deriv: Floats,
) -> int:  # pragma: no cover - compiled by numba
    """Item ``c`` of pass ``k`` solved in ``tab``: its start values written out (1), unless
    another thread wrote them first (0); the thread that writes the pass's last item takes
    Newton's step (``newton``) and starts the next pass, or ends the batch (2)."""
    ctrl, finished, done = sync[0], sync[2], sync[3]
    height, lane_rows, lane_pair, farkle = level[0], level[1], level[2], level[3]
    boundary, boundary_is_farkle = level[5], level[6]
    columns, pad, start_col = turn[7], turn[8], turn[9]
    found = _load(done, c)
    while found < k:
        before = _swap_if(done, c, found, k)
        if before != found:
            found = before
            continue
        for lane in range(LANES):
            at = ((pad + lane_rows[c, lane] - 1) * columns + start_col) * 2 * LANES + lane
            out_value[lane_pair[c, lane]] = tab[at]
            out_deriv[lane_pair[c, lane]] = tab[at + LANES]
        if _fetch_add(finished, k, 1) != height.shape[0] - 1:
            return 1
        iterate, w, partner, r, tolerance, passes, result = newton
        result[1] = k + 1
        if not iterate:
            _store(ctrl, GEN, DONE)
            return 2
        # Newton's step on the pairs (a, b) and (b, a), coupled by the farkle.
        left = 0.0
        for i in range(w.shape[0]):
            r[i] = w[i] - out_value[i]
            size = abs(r[i])
            if size > left or size != size:  # NaN stays, as np.max
                left = size if left == left else left
        for i in range(w.shape[0]):
            q = partner[i]
            df = out_deriv[i]
            dq = out_deriv[q]  # (a, a) is its own partner: its own farkle
            step = r[i] / (1.0 + df) if q == i else (r[i] - df * r[q]) / (1.0 - df * dq)
            v = w[i] - step
            v = v if v != v or v > 0.0 else 0.0  # np.clip(v, 0.0, 1.0), NaN and zeros alike
            w[i] = v if v != v or v < 1.0 else 1.0
        result[0] = left
        if left < tolerance or k + 1 >= passes:
            _store(ctrl, GEN, DONE)
            return 2
        for item in range(height.shape[0]):
            for lane in range(LANES):
                value = 1.0 - w[partner[lane_pair[item, lane]]]
                farkle[item, lane] = value
                if boundary_is_farkle:
                    boundary[item, lane] = value
        _store(ctrl, GEN, k + 1)
        return 1
    return 0


def _batch_python(
    thread: int,
    sync: tuple[Any, ...],
    work: Floats,
    keep: bool,
    level: tuple[Ints, Ints, Ints, Floats, Floats, Floats, bool],
    banks: tuple[Any, ...],
    turn: tuple[Any, ...],
    newton: tuple[Any, ...],
    out_value: Floats,
    out_deriv: Floats,
) -> bool:  # pragma: no cover - compiled by numba
    """One thread's share of a batch, until it is solved: the next item of the pass under
    way from ``taken[k]``; with none left, an item whose holder stopped (another thread
    that the machine's other work holds back), done again in this thread's own table.
    True: this thread ended the batch (it wrote the last pass's last item).

    ``sync``: ``ctrl[GEN]`` the pass, ``taken[k]`` and ``finished[k]`` the items of pass k
    handed out and solved, ``done[c]`` the last pass whose values item c wrote,
    ``heartbeat[c]`` when its holder last wrote a row and ``cpu[c]`` where,
    ``clock[thread]`` the least time a row took this thread (ticks), ``stats[thread]``
    what it did (``CALLS`` ...), ``stop[0]`` set: the solve was given up, return.
    ``work[thread]`` is this thread's table, or ``work[c]`` the item's with ``keep`` (kept
    for ``tables_of_pairs``; nothing is done again).
    """
    ctrl, taken, done, heartbeat, clock, cpu = sync[0], sync[1], sync[3], sync[4], sync[5], sync[6]
    stats, stop = sync[7][thread], sync[8]
    # ``_item``'s ``again``, as values known when the kernel runs: a literal True or False
    # would have Numba compile ``_item`` once for each (about a second and a half more).
    first, again = thread < 0, thread >= 0
    entered = _ticks()
    stats[CALLS] += 1
    height = level[0]
    items = height.shape[0]
    lane_value = np.empty(LANES)
    lane_kind = np.zeros(LANES, dtype=np.int64)
    emptied = -1  # the last pass whose items this thread found all handed out
    since = 0  # when it found them
    while True:
        k = _load(ctrl, GEN)
        if k == DONE or _load(stop, 0) != 0:
            stats[IN_BATCHES] += _ticks() - entered
            return False
        if k != emptied:
            c = _fetch_add(taken, k, 1)
            if c < items:
                tab = work[c] if keep else work[thread]
                begin = _ticks()
                if _item(c, k, tab, first, sync, level, banks, turn, lane_value, lane_kind):
                    end = _ticks()
                    per_row = (end - begin) // height[c]
                    if per_row > 0 and (clock[thread] <= 0 or per_row < clock[thread]):
                        clock[thread] = per_row
                    wrote = _finish(c, k, tab, sync, level, turn, newton, out_value, out_deriv)
                    if wrote:
                        stats[ITEMS] += 1
                        stats[IN_ITEMS] += end - begin
                    else:
                        stats[DROPPED] += 1
                        stats[IN_DROPPED] += end - begin
                    stats[IN_STEPS] += _ticks() - end
                    if wrote == 2:
                        stats[IN_BATCHES] += _ticks() - entered
                        return True
                else:
                    stats[DROPPED] += 1
                    stats[IN_DROPPED] += _ticks() - begin
                continue
            emptied = k
            since = _ticks()
        # An item whose holder does not run: it last ran on this CPU (it waits for it), or
        # wrote no row for STALL_ROWS rows' time (held back elsewhere). Done again here: on a
        # busy machine a yield would give this thread's time to other work.
        stalled = -1
        row = clock[thread]
        now = _ticks()
        if not keep and row > 0:
            mine = _cpu()
            for c in range(items):
                if _load(done, c) < k and (
                    (mine >= 0 and _load(cpu, c) == mine)
                    or now - _load(heartbeat, c) > STALL_ROWS * row
                ):
                    stalled = c
                    break
        if stalled < 0:
            # The holders run: their items end within the largest item's time; wait on this
            # core (the pass's end is then seen at once). Far longer, or with no time per
            # row known yet, the core to other threads.
            if row > 0 and now - since < PATIENCE * height[0] * row:
                _spin()
            else:
                _pause()
            continue
        tab = work[thread]
        begin = _ticks()
        if _item(stalled, k, tab, again, sync, level, banks, turn, lane_value, lane_kind):
            end = _ticks()
            wrote = _finish(stalled, k, tab, sync, level, turn, newton, out_value, out_deriv)
            if wrote:
                stats[AGAIN] += 1
                stats[IN_AGAIN] += end - begin
            else:
                stats[DROPPED] += 1
                stats[IN_DROPPED] += end - begin
            stats[IN_STEPS] += _ticks() - end
            if wrote == 2:
                stats[IN_BATCHES] += _ticks() - entered
                return True
        else:
            stats[DROPPED] += 1
            stats[IN_DROPPED] += _ticks() - begin


def _solve_python(
    thread: int,
    sync: tuple[Any, ...],
    work: Floats,
    keep: bool,
    level: tuple[Ints, Ints, Ints, Floats, Floats, Floats, bool],
    banks: tuple[Any, ...],
    turn: tuple[Any, ...],
    newton: tuple[Any, ...],
    out_value: Floats,
    out_deriv: Floats,
) -> None:  # pragma: no cover - compiled by numba
    """One thread's share of one batch (``_batch``)."""
    _batch(thread, sync, work, keep, level, banks, turn, newton, out_value, out_deriv)


def _open_python(
    n: int, plan: tuple[Any, ...], state: tuple[Any, ...], win: Floats, exact: bool
) -> None:  # pragma: no cover - compiled by numba
    """Level ``n`` of a sweep made ready for its first pass: Newton's start values read from
    the level above (one more point for the opponent, 0.5 where nothing is known) and the
    farkle of each lane, as ``solve_game`` sets them."""
    starts, item_starts, pair_a, pair_b, partner, _, _, lane_pair = plan
    farkle, boundary, w = state[0], state[2], state[3]
    first = starts[n]
    T = win.shape[0]
    for i in range(first, starts[n + 1]):
        up = pair_b[i] + 1
        v = win[pair_a[i], up] if up < T else 0.5
        w[i] = 0.5 if v != v else v
    for c in range(item_starts[n], item_starts[n + 1]):
        for lane in range(LANES):
            f = 1.0 - w[first + partner[first + lane_pair[c, lane]]]
            farkle[c, lane] = f
            boundary[c, lane] = f if exact else 1.0


def _levels_python(
    thread: int,
    shared: tuple[Any, ...],
    plan: tuple[Any, ...],
    state: tuple[Any, ...],
    banks: tuple[Any, ...],
    turn: tuple[Any, ...],
    work: Floats,
    exact: bool,
    tolerance: float,
    passes: int,
) -> None:  # pragma: no cover - compiled by numba
    """One thread's share of a sweep of levels (``solve_levels``), until the last is solved.

    Every thread takes part in the level under way (``shared[0][0]``) as in ``_batch``;
    the thread that ends a level writes its values into the win table (``banks[9]``, which
    the next levels read), makes the next one ready (``_open``) and moves the sweep on. The
    others wait for it on their core: it is running, and takes microseconds."""
    sweep, level_ctrl, taken, finished, done, heartbeat, clock, cpu, stats = shared
    starts, item_starts, pair_a, pair_b, partner, height, lane_rows, lane_pair = plan
    farkle, ones, boundary, w, r, out_value, out_deriv, results = state
    # Newton's method on (iterate), in this thread's own table (not the items' kept ones):
    # values known when the kernel runs, as ``solve_pairs`` passes them from Python; the
    # literals would have Numba compile ``_batch`` and ``_finish`` once more for them.
    iterate, shared_tables = passes >= 0, passes < 0
    win = banks[9]
    levels = starts.shape[0] - 1
    stop = sweep[1:2]
    seen = -1
    since = 0
    while _load(stop, 0) == 0:
        n = _load(sweep, 0)
        if n >= levels:
            return
        if n == seen:  # the thread that ended it is opening the next one
            row = clock[thread]
            if row > 0 and _ticks() - since < OPEN_ROWS * row:
                _spin()
            else:
                _pause()
            continue
        seen = n
        p0, p1, c0, c1 = starts[n], starts[n + 1], item_starts[n], item_starts[n + 1]
        sync = (
            level_ctrl[n : n + 1],
            taken[n],
            finished[n],
            done[c0:c1],
            heartbeat[c0:c1],
            clock,
            cpu[c0:c1],
            stats,
            stop,
        )
        level = (
            height[c0:c1],
            lane_rows[c0:c1],
            lane_pair[c0:c1],
            farkle[c0:c1],
            ones[c0:c1],
            boundary[c0:c1],
            exact,
        )
        by_pair = (banks[3][p0:p1], banks[4][p0:p1], banks[5][p0:p1])
        level_banks = banks[:3] + by_pair + banks[6:]
        newton = (iterate, w[p0:p1], partner[p0:p1], r[p0:p1], tolerance, passes, results[n])
        if _batch(
            thread,
            sync,
            work,
            shared_tables,
            level,
            level_banks,
            turn,
            newton,
            out_value[p0:p1],
            out_deriv[p0:p1],
        ):
            for i in range(p0, p1):
                win[pair_a[i], pair_b[i]] = w[i]
            if n + 1 < levels:
                _open(n + 1, plan, state, win, exact)
            _store(sweep, 0, n + 1)
        since = _ticks()


_item: Any = None
_finish: Any = None
_batch: Any = None
_solve: Any = None
_open: Any = None
_levels: Any = None


def _compile_lanes() -> None:
    """The lane kernels compiled by Numba on first use (and cached on disk by Numba)."""
    global _item, _finish, _batch, _solve, _open, _levels, _now
    if _solve is None:
        import numba

        _intrinsics()
        compile = numba.njit(cache=True, nogil=True, error_model="numpy")
        _item = compile(_item_python)
        _finish = compile(_finish_python)
        _batch = compile(_batch_python)
        _solve = compile(_solve_python)
        _open = compile(_open_python)
        _levels = compile(_levels_python)
        _now = compile(_now_python)


def default_threads() -> int:
    """The CPUs this process may run on (its affinity where the system tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


class _Helpers:
    """Threads that join the calling thread on a batch, started on first use.

    Each waits (asleep) for a job: the arguments of ``_solve``, whose shared counters hand
    out the items. The calling thread works too and waits only for the items taken, and not
    even for those when their holder stops: a helper that the machine's other work keeps
    from running takes nothing, or has its item done again by a thread that runs. A sweep
    of levels (``solve_levels``) runs on helpers only (``_levels``), the calling thread
    waiting for the first to finish (``event``) and telling the progress meanwhile.
    """

    Job = tuple[Any, tuple[Any, ...], threading.Event | None]
    """The function (``_solve`` or ``_levels``), its arguments after the thread's index,
    and an event set once it returns."""

    def __init__(self) -> None:
        self._queues: list[queue.SimpleQueue[_Helpers.Job]] = []
        self._lock = threading.Lock()
        self.errors: list[BaseException] = []
        self.clock = np.zeros(1, dtype=np.int64)
        """The least ticks a row took each thread (the calling thread's first)."""
        self.stats = np.zeros((1, 16), dtype=np.int64)
        """What each thread did (``CALLS`` ...), a row of 128 bytes each."""

    def clocks(self, threads: int) -> Ints:
        with self._lock:
            if self.clock.shape[0] < threads:
                clock = np.zeros(threads, dtype=np.int64)
                clock[: self.clock.shape[0]] = self.clock
                self.clock = clock
            return self.clock

    def counts(self, threads: int) -> Ints:
        with self._lock:
            if self.stats.shape[0] < threads:
                stats = np.zeros((threads, 16), dtype=np.int64)
                stats[: self.stats.shape[0]] = self.stats
                self.stats = stats
            return self.stats

    def submit(
        self,
        helpers: int,
        job: tuple[Any, ...],
        function: Any = None,
        event: threading.Event | None = None,
    ) -> None:
        """``function(index, *job)`` (``_solve`` by default) on helpers 1 to ``helpers``."""
        with self._lock:
            while len(self._queues) < helpers:
                jobs: queue.SimpleQueue[_Helpers.Job] = queue.SimpleQueue()
                index = len(self._queues) + 1
                name = f"zloutch-solver-{index}"
                thread = threading.Thread(
                    target=self._serve, args=(index, jobs), name=name, daemon=True
                )
                thread.start()
                self._queues.append(jobs)
            for jobs in self._queues[:helpers]:
                jobs.put((function or _solve, job, event))

    def _serve(self, index: int, jobs: queue.SimpleQueue[_Helpers.Job]) -> None:
        while True:
            function, job, event = jobs.get()
            try:
                function(index, *job)
            except BaseException as error:  # pragma: no cover - the kernel does not raise
                self.errors.append(error)
            finally:
                if event is not None:
                    event.set()


_HELPERS = _Helpers()


def _now_python() -> int:  # pragma: no cover - compiled by numba
    return int(_ticks())


_now: Any = None
_since: tuple[int, float] = (0, 0.0)


def thread_stats(reset: bool = False) -> list[dict[str, float]]:
    """What each solver thread did since the last reset: row 0 the calling thread (batches
    of ``Lanes``; it waits during a sweep of levels), row i helper i; as ``CALLS`` ...
    tell: batches joined; items whose values it wrote, its own ("items") and done again
    for a holder that stopped ("again"); items solved or begun for nothing ("dropped");
    the seconds in batches, in those items, in writing the values out and Newton's step
    ("steps"), and waiting (the rest of the time in batches). Seconds from the time-stamp
    counter, timed against the system's clock over the same span (wall time: a thread that
    other work holds back counts on)."""
    global _since
    _compile_lanes()
    ticks, now = int(_now()), time.perf_counter()
    rate = (ticks - _since[0]) / (now - _since[1]) if now > _since[1] and _since[1] else 0.0
    names = ("batches", "items", "again", "dropped")
    spans = ("in batches", "in items", "in again", "in dropped", "in steps")
    found = []
    for row in _HELPERS.stats.tolist():
        one = {name: float(row[i]) for i, name in enumerate(names)}
        for i, name in enumerate(spans, start=len(names)):
            one[name + " s"] = row[i] / rate if rate else 0.0
        busy = sum(one[name + " s"] for name in spans[1:])
        one["waiting s"] = one["in batches s"] - busy
        found.append(one)
    if reset:
        _HELPERS.stats[:] = 0
        _since = (int(_now()), time.perf_counter())
    return found


_NO_FLOATS = np.zeros(0)
_NO_INTS = np.zeros(0, dtype=np.int64)
_NO_BOOLS = np.zeros(0, dtype=np.bool_)


@dataclass(frozen=True, eq=False)
class LevelBanks:
    """A batch's banks as the game solver reads them (``_Game.level_banks``): for pair ``p``
    at total ``t`` (below ``height``), ``value[p, t]`` what banking is worth (-inf: the bank
    is lost, T-9), ``nothing[p, t]`` whether the bank writes nothing (G-7: it is worth a
    farkle), and ``allowed[score[p], t, h]`` whether hand ``h`` may bank: one table of who
    may bank for every score, shared by the pairs (``tabulate_banks``), or one a pair.

    ``arrays`` lays it out as ``solve_pairs`` takes it, a value a hand:
    ``bank = where(allowed, value, -inf)``, ``same = allowed & nothing``, for the totals
    below each pair's ``rows``. The CUDA kernel reads this form itself: a hand's bank is
    looked up, not sent (``value`` is a ``hands``-th of ``bank``'s size).
    """

    rows: Ints
    value: Floats
    nothing: npt.NDArray[np.bool_]
    score: Ints
    allowed: npt.NDArray[np.bool_]

    @property
    def height(self) -> int:
        return int(self.value.shape[1])

    def arrays(self) -> tuple[Ints, Floats, npt.NDArray[np.bool_]]:
        """``(rows, bank, same)``, ``[pair, total, hand]``."""
        height = self.height
        inside = np.arange(height)[None, :] < self.rows[:, None]
        allowed = self.allowed[self.score, :height] & inside[:, :, None]
        bank = np.where(allowed, self.value[:, :, None], -np.inf)
        same = allowed & self.nothing[:, :, None]
        return self.rows, bank, same

    @staticmethod
    def concat(parts: list[LevelBanks]) -> LevelBanks:
        """The batches one after the other (the farkle counts of a level, F-1): totals past
        a pair's rows are never read, so shorter batches are padded."""
        if len(parts) == 1:
            return parts[0]
        height = max(part.height for part in parts)

        def padded(array: Any, fill: Any) -> Any:
            extra = height - array.shape[1]
            return np.pad(array, ((0, 0), (0, extra)), constant_values=fill) if extra else array

        shared = all(part.allowed is parts[0].allowed for part in parts)
        if shared:
            allowed, score = parts[0].allowed, np.concatenate([part.score for part in parts])
        else:  # each its own table: one after the other, the indices moved along
            deep = max(part.allowed.shape[1] for part in parts)
            tables = [
                np.pad(part.allowed, ((0, 0), (0, deep - part.allowed.shape[1]), (0, 0)))
                for part in parts
            ]
            starts = np.cumsum([0] + [len(table) for table in tables[:-1]])
            allowed = np.concatenate(tables)
            score = np.concatenate(
                [part.score + at for part, at in zip(parts, starts, strict=True)]
            )
        return LevelBanks(
            np.concatenate([part.rows for part in parts]),
            np.concatenate([padded(part.value, -np.inf) for part in parts]),
            np.concatenate([padded(part.nothing, False) for part in parts]),
            score,
            allowed,
        )


@dataclass(frozen=True)
class ScoreBanks:
    """What banking is worth, read by the lane kernel from tables by score (``SCORES``).

    For scores ``low + i``: ``kind[i, t]`` (0 the bank is lost, 1 the game goes on, 2 it
    goes on and the bank writes nothing, 3 it reaches the target), ``bank_x[i, t]`` the
    score after the bank, ``allowed[i, t, h]`` whether hand h may bank at total t. The
    opponent's turn is worth ``win[b - low, x - low]`` to them; reaching the target under
    F-4 hands the opponent a last turn (``last``: the tables by its lead, not entered and
    entered, or None).
    """

    kind: npt.NDArray[np.int8]
    bank_x: Ints
    allowed: npt.NDArray[np.bool_]
    win: Floats
    low: int
    last: tuple[Floats, Floats] | None

    def of(self, a: Ints, b: Ints, entered: npt.NDArray[np.bool_]) -> tuple[Any, ...]:
        """The kernel's ``banks`` for pairs (a, b) (units), the opponent entered or not."""
        last0, last1 = self.last if self.last is not None else (_NO_FLOATS, _NO_FLOATS)
        return (
            SCORES,
            _NO_FLOATS.reshape(0, 0, 0),
            _NO_BOOLS.reshape(0, 0, 0),
            np.ascontiguousarray(a - self.low, dtype=np.int64),
            np.ascontiguousarray(b, dtype=np.int64),
            np.ascontiguousarray(entered, dtype=np.bool_),
            self.kind,
            self.bank_x,
            self.allowed,
            self.win,
            self.low,
            last0,
            last1,
            self.last is not None,
        )


def _array_banks(bank: Floats, same: npt.NDArray[np.bool_]) -> tuple[Any, ...]:
    return (
        ARRAYS,
        np.ascontiguousarray(bank, dtype=np.float64),
        np.ascontiguousarray(same, dtype=np.bool_),
        _NO_INTS,
        _NO_INTS,
        _NO_BOOLS,
        np.zeros((0, 0), dtype=np.int8),
        _NO_INTS.reshape(0, 0),
        _NO_BOOLS.reshape(0, 0, 0),
        _NO_FLOATS.reshape(0, 0),
        0,
        _NO_FLOATS,
        _NO_FLOATS,
        False,
    )


ONE_PASS = (False, _NO_FLOATS, _NO_INTS, _NO_FLOATS, 0.0, 1, np.zeros(2))
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


def _turn(tables: Tables) -> tuple[Any, ...]:
    """The kernel's ``turn``: the tables' arrays, each option's offset in an item's table."""
    t = tables
    opt_off = (-t.opt_pts * t.columns + t.opt_dest) * 2 * LANES
    return (
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
    )


class Lanes:
    """A batch of pairs laid out for the lane kernel, solved for many farkle values.

    What changes between Newton's passes of a level is the farkle value (and so the
    boundary of an exact target); the banks, laid out once here, do not. ``bank`` and
    ``bank_farkle`` give them by pair (``solve_pairs``), or ``scores`` by score, read from
    the tables of a whole solve (``ScoreBanks.of``).
    """

    def __init__(
        self,
        tables: Tables,
        rows: Ints,
        bank: Floats | None = None,
        bank_farkle: npt.NDArray[np.bool_] | None = None,
        buffer: Floats | None = None,
        scores: tuple[Any, ...] | None = None,
    ) -> None:
        """``buffer``: memory for the threads' tables (``work_size`` doubles at least, from
        ``aligned_empty``), kept from one batch to the next by the caller: a fresh one costs
        the system's page faults."""
        _compile_lanes()
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
        self.turn = _turn(tables)

    @staticmethod
    def stride(tables: Tables, rows: Ints) -> int:
        """The doubles one item's table takes, for these rows at most."""
        return (tables.max_points + int(rows.max(initial=0))) * tables.columns * 2 * LANES

    @staticmethod
    def work_size(tables: Tables, rows: Ints, threads: int = 1) -> int:
        """The doubles the threads' tables of a batch take."""
        return threads * Lanes.stride(tables, rows)

    def job(
        self,
        farkle: Floats,
        win: Floats,
        boundary: Floats,
        boundary_is_farkle: bool,
        threads: int,
        keep: bool,
        newton: tuple[Any, ...],
    ) -> tuple[Any, ...]:
        """``_solve``'s arguments after the thread's index, for a batch on ``threads``
        threads: ``(sync, work, keep, level, banks, turn, newton, value, deriv)``, the
        start values and their derivatives written into the last two."""
        items = int(self.height.shape[0])
        slots = max(1, threads)
        stride = self.stride(self.tables, self.rows)
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
        sync = (
            np.zeros(1, dtype=np.int64),  # ctrl: the pass (GEN)
            np.zeros(max(1, newton[5]), dtype=np.int64),  # taken[k]
            np.zeros(max(1, newton[5]), dtype=np.int64),  # finished[k]
            np.full(items, -1, dtype=np.int64),  # done[c]
            np.zeros(items, dtype=np.int64),  # heartbeat[c]
            _HELPERS.clocks(slots),
            np.full(items, -1, dtype=np.int64),  # cpu[c]
            _HELPERS.counts(slots),
            np.zeros(1, dtype=np.int64),  # stop
        )
        level = (
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
        newton: tuple[Any, ...],
    ) -> tuple[Floats, Floats]:
        if not self.pairs:
            return np.empty(0), np.empty(0)
        job = self.job(farkle, win, boundary, boundary_is_farkle, threads, keep, newton)
        threads = min(max(1, threads), int(self.height.shape[0]))
        if threads > 1:
            _HELPERS.submit(threads - 1, job)
        _solve(0, *job)
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
        layout."""
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
    banks: tuple[Any, ...],
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
    (``banks[9]``: ``ScoreBanks.of`` for all the pairs), which the levels below read. The
    steps and the values are ``solve_game``'s. Returns each level's last residual and its
    passes. ``progress(n)``: n levels solved, told by this thread, which waits.
    ``buffer``: as for ``Lanes``."""
    _compile_lanes()
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
        np.zeros(items, dtype=np.int64),  # heartbeat[c]
        _HELPERS.clocks(slots),
        np.full(items, -1, dtype=np.int64),  # cpu[c]
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
    _open(0, plan, state, banks[9], exact)
    job = (shared, plan, state, banks, _turn(tables), work, exact, tolerance, passes)
    finished = threading.Event()
    _HELPERS.submit(threads, job, _levels, finished)
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
        lanes.starts(farkle, win, boundary, boundary_is_farkle, threads, keep=True)
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
