"""The lane kernel: ``LANES`` pairs of scores through every total of one turn, side by side.

``_item_python`` solves one work item (``LANES`` pairs, the lanes innermost) in its own
table; ``_finish_python`` writes an item's start values out and, for the thread that writes
a pass's last item, takes Newton's step. Both are compiled by Numba (``scheduler``
compiles them, with the operations of ``intrinsics`` as globals here) and held by the tests
to the plain reference (``reference.kernel_python``), bit for bit. The threads that run
them, and who takes which item, are ``scheduler``'s.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


LANES = 8
"""Pairs solved side by side in one work item: 8 doubles, one AVX-512 register (two AVX2)."""

ARRAYS, SCORES = 0, 1
"""Where a lane reads what banking is worth (``_item_python``'s ``banks``)."""

SLOT = 8
"""int64s between two items' ``heartbeat`` (and ``cpu``) entries: item c's is at ``c *
SLOT``, alone on its cache line. Each holder writes its item's at every row; on one line,
two threads' writes took the line from each other's core at every row (a tenth of
Facebook Farkle's solve on two threads)."""

GEN, DONE = 0, -1
"""``sync[0][GEN]``: the pass under way (from 0), ``DONE`` once the batch is solved."""


class LaneTurn(NamedTuple):
    """The flat turn as the lane kernel reads it: ``FlatTurn``'s arrays, each option's
    ``opt_off`` (its offset in an item's table, ``lanes._turn``), the table's ``columns``,
    ``pad`` rows past the top (the most one roll adds), the fresh turn's column, and the
    ``width`` of an entry: 2, the value and its derivative; 1, the value alone (a solve
    that takes no Newton's step: half the table, and no derivative computed)."""

    node_col: Ints
    sig_start: Ints
    sig_prob: Floats
    opt_start: Ints
    opt_off: Ints
    hand_col: Ints
    hand_throw_col: Ints
    columns: int
    pad: int
    start_col: int
    width: int


class LaneLevel(NamedTuple):
    """A batch's items: ``height[c]`` the most rows of item c's lanes, ``lane_rows[c, k]``
    and ``lane_pair[c, k]`` the rows and the pair of lane k, and each lane's ``farkle``,
    ``win`` and ``boundary`` values (``[c, k]``); ``boundary_is_farkle``: an exact target."""

    height: Ints
    lane_rows: Ints
    lane_pair: Ints
    farkle: Floats
    win: Floats
    boundary: Floats
    boundary_is_farkle: bool


class LaneBanks(NamedTuple):
    """What banking is worth, as a lane reads it (``mode``): with ``ARRAYS``, ``bank[p, t,
    h]`` and ``same[p, t, h]`` by pair; with ``SCORES``, the tables by score of a whole
    solve (``banks.ScoreBanks``: ``kind``, ``bank_x``, ``allowed``, the win table ``win``
    from score ``low``, the last turns' tables ``last0`` and ``last1`` when ``has_last``),
    read where each pair's scores point (``pair_score``, ``pair_opp``, ``entered``). The
    form not used holds empty arrays."""

    mode: int
    bank: Floats
    same: npt.NDArray[np.bool_]
    pair_score: Ints
    pair_opp: Ints
    entered: npt.NDArray[np.bool_]
    kind: npt.NDArray[np.int8]
    bank_x: Ints
    allowed: npt.NDArray[np.bool_]
    win: Floats
    low: int
    last0: Floats
    last1: Floats
    has_last: bool


class Newton(NamedTuple):
    """Newton's step at the end of a pass (``iterate``), on the pairs' win chances ``w``
    coupled with their ``partner`` (the pair (b, a)), residuals ``r``, until the largest is
    below ``tolerance`` or after ``passes`` passes; ``result``: that residual and the passes
    made."""

    iterate: bool
    w: Floats
    partner: Ints
    r: Floats
    tolerance: float
    passes: int
    result: Floats


class Sync(NamedTuple):
    """What the threads of a batch share: ``ctrl[GEN]`` the pass, ``taken[k]`` and
    ``finished[k]`` the items of pass k handed out and solved, ``done[c]`` the last pass
    whose values item c wrote, ``heartbeat[c * SLOT]`` when its holder last wrote a row and
    ``cpu[c * SLOT]`` where, ``clock[thread]`` the least time a row took each thread (ticks),
    ``stats[thread]`` what it did (``scheduler.CALLS`` ...), ``stop[0]`` set: the solve was
    given up."""

    ctrl: Ints
    taken: Ints
    finished: Ints
    done: Ints
    heartbeat: Ints
    clock: Ints
    cpu: Ints
    stats: Ints
    stop: Ints


_fetch_add: Any = None
_load: Any = None
_store: Any = None
_swap_if: Any = None
_ticks: Any = None
_pause: Any = None
_spin: Any = None
_cpu: Any = None
_node_sum: Any = None


def link(names: dict[str, Any]) -> None:
    """Set the globals the loops below read (the intrinsics) before Numba compiles them."""
    globals().update(names)


def _item_python(
    c: int,
    gen: int,
    tab: Floats,
    again: bool,
    sync: Sync,
    level: LaneLevel,
    banks: LaneBanks,
    turn: LaneTurn,
    lane_value: Floats,
    lane_kind: Ints,
) -> bool:  # pragma: no cover - compiled by numba; held to the plain kernel by the tests
    """Item ``c`` of pass ``gen``: ``LANES`` pairs through every total, the lanes innermost.

    ``tab`` is the item's table, flat: entry ``((u * columns + col) * width + x) * LANES +
    k`` is the value (x = 0) or derivative (x = 1, where ``turn.width`` is 2) of lane k at
    row u, column col. Rows below ``pad`` lie past the top (the boundary; columns 0 and 1
    the farkle and the win in every row); row ``pad + j`` is total ``lane_rows - 1 - j``. An
    option reads ``u * row + opt_off[o]``, with ``opt_off = (-points * columns + dest) *
    width * LANES``: every option adds points except the ones to a column solved earlier in
    the same row (``lanes._turn``).
    Lanes past their own top (a shorter pair in the item) compute totals below 0 that
    nothing reads into the others.

    The holder of the item writes the time and its CPU at each row (``heartbeat[c * SLOT]``,
    ``cpu[c * SLOT]``); ``again``: the item is done again for a holder that stopped writing. Either
    gives up (returns False) as soon as another thread has finished the item.

    What banking at total t from hand h is worth comes from ``banks``: with ``ARRAYS``,
    ``bank[p, t, h]`` and ``same[p, t, h]`` (worth the farkle); with ``SCORES``, the tables
    of the scores (``_Game.tabulate_banks``) read where the pair's scores point, the values
    ``_Game.level_inputs`` would lay out.
    """
    done, heartbeat, cpu = sync.done, sync.heartbeat, sync.cpu
    height, lane_rows, lane_pair, farkle, win, boundary, boundary_is_farkle = level
    node_col, sig_start, sig_prob, opt_start, opt_off, hand_col, hand_throw_col = turn[:7]
    columns, pad, width = turn.columns, turn.pad, turn.width
    derivative = width == 2
    mode, bank, same, pair_score, pair_opp, entered, kind, bank_x, allowed = banks[:9]
    win_table, low, last0, last1, has_last = banks[9:]
    entry = width * LANES
    row = columns * entry
    d_boundary = 1.0 if boundary_is_farkle else 0.0
    if not again:
        _store(heartbeat, c * SLOT, _ticks())
        _store(cpu, c * SLOT, _cpu())
    for u in range(pad + height[c]):
        base = u * row
        for k in range(LANES):
            tab[base + k] = farkle[c, k]
            tab[base + entry + k] = win[c, k]
            if derivative:
                tab[base + LANES + k] = 1.0
                tab[base + entry + LANES + k] = 0.0
        if u < pad:
            for col in range(2, columns):
                at = base + col * entry
                for k in range(LANES):
                    tab[at + k] = boundary[c, k]
                    if derivative:
                        tab[at + LANES + k] = d_boundary
    for j in range(height[c]):
        if _load(done, c) >= gen:  # another thread wrote this pass's values
            return False
        if not again:
            _store(heartbeat, c * SLOT, _ticks())
            _store(cpu, c * SLOT, _cpu())
        base = (pad + j) * row
        for n in range(node_col.shape[0]):
            # tab[at:at + entry] = the sum over the node's signatures s of sig_prob[s] *
            # (the best of its options, with its derivative)
            at = base + node_col[n] * entry
            _node_sum(
                tab,
                base,
                opt_off,
                opt_start,
                sig_prob,
                sig_start[n],
                sig_start[n + 1],
                at,
                derivative,
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
            throw_at = base + hand_throw_col[h] * entry
            hand_at = base + hand_col[h] * entry
            for k in range(LANES):
                throw = tab[throw_at + k]
                dthrow = tab[throw_at + LANES + k] if derivative else 0.0
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
                    if derivative:
                        tab[hand_at + LANES + k] = db
                else:
                    tab[hand_at + k] = throw
                    if derivative:
                        tab[hand_at + LANES + k] = dthrow
    return True


def _finish_python(
    c: int,
    k: int,
    tab: Floats,
    sync: Sync,
    level: LaneLevel,
    turn: LaneTurn,
    newton: Newton,
    out_value: Floats,
    out_deriv: Floats,
) -> int:  # pragma: no cover - compiled by numba
    """Item ``c`` of pass ``k`` solved in ``tab``: its start values written out (1), unless
    another thread wrote them first (0); the thread that writes the pass's last item takes
    Newton's step (``newton``) and starts the next pass, or ends the batch (2). Without
    derivatives (``turn.width`` 1) each one written out is NaN (Newton's step needs them)."""
    ctrl, finished, done = sync.ctrl, sync.finished, sync.done
    height, lane_rows, lane_pair, farkle = (
        level.height,
        level.lane_rows,
        level.lane_pair,
        level.farkle,
    )
    boundary, boundary_is_farkle = level.boundary, level.boundary_is_farkle
    columns, pad, start_col, width = turn.columns, turn.pad, turn.start_col, turn.width
    found = _load(done, c)
    while found < k:
        before = _swap_if(done, c, found, k)
        if before != found:
            found = before
            continue
        for lane in range(LANES):
            at = ((pad + lane_rows[c, lane] - 1) * columns + start_col) * width * LANES + lane
            out_value[lane_pair[c, lane]] = tab[at]
            out_deriv[lane_pair[c, lane]] = tab[at + LANES] if width == 2 else np.nan
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
