"""Who solves which item: the lane kernel's threads and their work-stealing scheduler.

The items of a batch go to the threads from a shared counter, largest first: a thread
slowed by other work on the machine takes fewer, and an item whose holder stopped is done
again by a thread that runs (``_batch_python``). A whole solve's levels run in the threads
without returning to Python (``_levels_python``). The helper threads (``_Helpers``) wait
asleep for a job between batches. ``compile_lanes`` compiles the kernel (``item``) and these
loops on first use (and Numba caches them on disk).
"""

from __future__ import annotations

import os
import queue
import threading
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from zloutch.strategy.kernels import item
from zloutch.strategy.kernels.item import (
    DONE,
    GEN,
    LANES,
    SLOT,
    LaneBanks,
    LaneLevel,
    LaneTurn,
    Newton,
    Sync,
)

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

_fetch_add: Any = None
_load: Any = None
_store: Any = None
_swap_if: Any = None
_ticks: Any = None
_pause: Any = None
_spin: Any = None
_cpu: Any = None
_node_sum: Any = None

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


def _batch_python(
    thread: int,
    sync: Sync,
    work: Floats,
    keep: bool,
    level: LaneLevel,
    banks: LaneBanks,
    turn: LaneTurn,
    newton: Newton,
    out_value: Floats,
    out_deriv: Floats,
) -> bool:  # pragma: no cover - compiled by numba
    """One thread's share of a batch, until it is solved: the next item of the pass under
    way from ``taken[k]``; with none left, an item whose holder stopped (another thread
    that the machine's other work holds back), done again in this thread's own table.
    True: this thread ended the batch (it wrote the last pass's last item).

    ``sync``: ``ctrl[GEN]`` the pass, ``taken[k]`` and ``finished[k]`` the items of pass k
    handed out and solved, ``done[c]`` the last pass whose values item c wrote,
    ``heartbeat[c * SLOT]`` when its holder last wrote a row and ``cpu[c * SLOT]`` where,
    ``clock[thread]`` the least time a row took this thread (ticks), ``stats[thread]``
    what it did (``CALLS`` ...), ``stop[0]`` set: the solve was given up, return.
    ``work[thread]`` is this thread's table, or ``work[c]`` the item's with ``keep`` (kept
    for ``tables_of_pairs``; nothing is done again).
    """
    ctrl, taken, done, heartbeat = sync.ctrl, sync.taken, sync.done, sync.heartbeat
    clock, cpu, stats, stop = sync.clock, sync.cpu, sync.stats[thread], sync.stop
    # ``_item``'s ``again``, as values known when the kernel runs: a literal True or False
    # would have Numba compile ``_item`` once for each (about a second and a half more).
    first, again = thread < 0, thread >= 0
    entered = _ticks()
    stats[CALLS] += 1
    height = level.height
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
                    (mine >= 0 and _load(cpu, c * SLOT) == mine)
                    or now - _load(heartbeat, c * SLOT) > STALL_ROWS * row
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
    sync: Sync,
    work: Floats,
    keep: bool,
    level: LaneLevel,
    banks: LaneBanks,
    turn: LaneTurn,
    newton: Newton,
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
    banks: LaneBanks,
    turn: LaneTurn,
    work: Floats,
    exact: bool,
    tolerance: float,
    passes: int,
) -> None:  # pragma: no cover - compiled by numba
    """One thread's share of a sweep of levels (``solve_levels``), until the last is solved.

    Every thread takes part in the level under way (``shared[0][0]``) as in ``_batch``;
    the thread that ends a level writes its values into the win table (``banks.win``, which
    the next levels read), makes the next one ready (``_open``) and moves the sweep on. The
    others wait for it on their core: it is running, and takes microseconds."""
    sweep, level_ctrl, taken, finished, done, heartbeat, clock, cpu, stats = shared
    starts, item_starts, pair_a, pair_b, partner, height, lane_rows, lane_pair = plan
    farkle, ones, boundary, w, r, out_value, out_deriv, results = state
    # Newton's method on (iterate), in this thread's own table (not the items' kept ones):
    # values known when the kernel runs, as ``solve_pairs`` passes them from Python; the
    # literals would have Numba compile ``_batch`` and ``_finish`` once more for them.
    iterate, shared_tables = passes >= 0, passes < 0
    win = banks.win
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
        sync = Sync(
            level_ctrl[n : n + 1],
            taken[n],
            finished[n],
            done[c0:c1],
            heartbeat[c0 * SLOT : c1 * SLOT],
            clock,
            cpu[c0 * SLOT : c1 * SLOT],
            stats,
            stop,
        )
        level = LaneLevel(
            height[c0:c1],
            lane_rows[c0:c1],
            lane_pair[c0:c1],
            farkle[c0:c1],
            ones[c0:c1],
            boundary[c0:c1],
            exact,
        )
        level_banks = LaneBanks(
            banks.mode,
            banks.bank,
            banks.same,
            banks.pair_score[p0:p1],
            banks.pair_opp[p0:p1],
            banks.entered[p0:p1],
            banks.kind,
            banks.bank_x,
            banks.allowed,
            banks.win,
            banks.low,
            banks.last0,
            banks.last1,
            banks.has_last,
        )
        newton = Newton(iterate, w[p0:p1], partner[p0:p1], r[p0:p1], tolerance, passes, results[n])
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
_now: Any = None


def compile_lanes() -> None:
    """The lane kernel and its scheduler compiled by Numba on first use (and cached on disk
    by Numba): the intrinsics made, then set as globals of both modules, then each loop."""
    global _item, _finish, _batch, _solve, _open, _levels, _now
    if _solve is None:
        import numba

        from zloutch.strategy.kernels import intrinsics

        ops = intrinsics.make()
        item.link(ops)
        globals().update(ops)
        compile = numba.njit(cache=True, nogil=True, error_model="numpy")
        _item = compile(item._item_python)
        _finish = compile(item._finish_python)
        _batch = compile(_batch_python)
        _solve = compile(_solve_python)
        _open = compile(_open_python)
        _levels = compile(_levels_python)
        _now = compile(_now_python)
        _drop_stale(
            (_item, _finish, _batch, _solve, _open, _levels, _now),
            (item.__file__, intrinsics.__file__),
        )


def _drop_stale(dispatchers: tuple[Any, ...], sources: tuple[str, ...]) -> None:
    """Empty the disk cache of each compiled loop older than ``sources``: Numba knows a cached
    function stale only when its own file changes, and these loops carry a copy of what they
    call in ``item`` and of the operations of ``intrinsics``. (An install writes every file
    anew, and then the caches; an edit of ``item.py`` alone left the loops here running the
    old kernel.) Where Numba's cache is not as this reads it, nothing is dropped."""
    try:
        newest = max(os.stat(path).st_mtime for path in sources)
    except (OSError, TypeError, ValueError):
        return
    for dispatcher in dispatchers:
        try:
            cache = dispatcher._cache
            if os.stat(cache._cache_file._index_path).st_mtime < newest:
                cache.flush()
        except (AttributeError, OSError):
            continue


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
    compile_lanes()
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
