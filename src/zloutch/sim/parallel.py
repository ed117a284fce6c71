"""Run a simulation over several processes: the edge around the pure ``runner``.

The games are cut into chunks of consecutive indices; each chunk is played in a worker of a
``multiprocessing`` pool and the chunks' tallies are merged in chunk order. Since every game
is seeded by its own index and seated by it, the result is the same for any number of jobs
and any chunk size.
"""

from __future__ import annotations

import math
import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing import get_context
from typing import TYPE_CHECKING

from zloutch.rules import RuleSet
from zloutch.sim.runner import (
    MAX_TURNS,
    SimulationError,
    SimulationResult,
    Tally,
    check_setup,
    play_games,
    player_labels,
    summarise,
)
from zloutch.strategy.bots import make_bot
from zloutch.strategy.policy import Policy

if TYPE_CHECKING:  # the solvers are imported by the optimal bot that reads them, not here
    from zloutch.sim.fast import FastGamesSource, FastSums
    from zloutch.strategy.optimal import SolutionSource

BACKENDS = ("local", "ray")
"""Where games are played: on this machine, or as Ray tasks on a cluster."""
METHODS = ("auto", "engine", "fast")
"""How games are played: through the engine, on the fast path, or fast where it can."""

Progress = Callable[[int], None]
"""Called with the number of games done so far, after each chunk."""


class SimulationInterrupted(KeyboardInterrupt):
    """Ctrl-C during a simulation, with the chunks finished by then summarised.

    ``partial`` is None when no chunk had finished (or on the fast path and on Ray, which
    keep no partial tally). Code that does not know it treats it as any Ctrl-C.
    """

    def __init__(self, partial: SimulationResult | None) -> None:
        super().__init__()
        self.partial = partial


def _ignore_interrupts() -> None:
    """Pool workers leave Ctrl-C to the parent, which stops the pool (no traceback each)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass(frozen=True)
class BotFactory:
    """Builds the players' bots by name in each worker (bots need not pickle; names do).

    ``solutions`` must pickle (a module-level function such as
    ``zloutch.app.store.load_game_solution``) when more than one job runs.
    """

    names: tuple[str, ...]
    solutions: SolutionSource | None = None

    def __call__(self) -> list[Policy]:
        return [make_bot(name, self.solutions) for name in self.names]


@dataclass(frozen=True)
class Chunk:
    """Games ``start`` to ``stop - 1``, with everything a worker needs to play them."""

    index: int
    rules: RuleSet
    factory: BotFactory
    labels: tuple[str, ...]
    seed: int
    start: int
    stop: int
    max_turns: int


def play_chunk(chunk: Chunk) -> tuple[int, Tally]:
    policies = chunk.factory()
    tally = play_games(
        chunk.rules,
        policies,
        chunk.seed,
        chunk.start,
        chunk.stop,
        labels=chunk.labels,
        max_turns=chunk.max_turns,
    )
    return chunk.index, tally


def default_jobs() -> int:
    """The CPUs this process may run on (its affinity, as a container or ``taskset`` sets
    it; else the machine's): the default jobs, and the most that help."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no affinity here (macOS, Windows)
        return os.cpu_count() or 1


def chunk_bounds(games: int, jobs: int, chunk_size: int | None = None) -> list[tuple[int, int]]:
    """Consecutive ``(start, stop)`` ranges covering ``range(games)``."""
    if chunk_size is None:
        # About 8 chunks a job for load balance and a lively progress bar, at most 500 games.
        chunk_size = max(1, min(500, math.ceil(games / (8 * jobs))))
    return [(a, min(a + chunk_size, games)) for a in range(0, games, chunk_size)]


def simulate(
    rules: RuleSet,
    players: Sequence[str],
    games: int,
    seed: int,
    *,
    jobs: int | None = None,
    solutions: SolutionSource | None = None,
    progress: Progress | None = None,
    chunk_size: int | None = None,
    max_turns: int = MAX_TURNS,
    method: str = "engine",
    backend: str = "local",
    address: str | None = None,
    status: Callable[[str], None] | None = None,
    tables: FastGamesSource | None = None,
) -> SimulationResult:
    """Play ``games`` games of the bots named in ``players`` under ``rules``.

    ``method``: ``engine`` plays every game through the engine, in ``jobs`` processes
    (default: every core; 1 plays in this process); ``fast`` plays them on the compiled fast
    path (``zloutch.sim.fast``) in ``jobs`` threads, and refuses what it cannot play;
    ``auto`` takes the fast path when it can. The result depends on ``seed`` and ``method``
    only, not on ``jobs`` nor ``chunk_size``.

    ``backend``: ``local`` (this machine) or ``ray`` (the same chunks as Ray tasks on the
    cluster at ``address``, see ``zloutch.sim.cluster``): the same result for the same seed.
    ``status`` is told what the run waits for before its first games, where it may wait a
    while: the fast path's tables built (``zloutch.sim.fast.BUILDING``), its first call in a
    process (``FIRST_CALL``).
    ``tables``: where the fast path's set-up may be kept between runs
    (``zloutch.sim.fast.FastGamesSource``; the application's cache keeps it on disk).
    """
    if method not in METHODS:
        raise SimulationError(f"--method is one of {', '.join(METHODS)}, not {method!r}")
    if backend not in BACKENDS:
        raise SimulationError(f"--backend is one of {', '.join(BACKENDS)}, not {backend!r}")
    if address is not None and backend != "ray":
        raise SimulationError("--address goes with --backend ray")
    names = tuple(p.strip() for p in players)
    factory = BotFactory(names, solutions)
    policies = factory()  # unknown names fail here, before any process starts
    labels = player_labels([p.name for p in policies])
    check_setup(rules, len(names), games)
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise SimulationError(f"--jobs must be at least 1, not {jobs}")
    # More processes than CPUs only wait on each other: 999 jobs started 999 interpreters
    # for 2,000 games (84 s, against 10 s on 2). The games are the same for any count.
    # (Ray's cluster has CPUs of its own: its chunks are cut for the jobs asked.)
    if backend != "ray":
        jobs = min(jobs, default_jobs())
    if method != "engine":
        from zloutch.sim.fast import FastPathUnsupported, simulate_fast

        try:
            if backend == "ray":
                tally = _fast_on_ray(rules, names, games, seed, max_turns, address, progress)
            else:
                tally = simulate_fast(
                    rules,
                    names,
                    games,
                    seed,
                    progress=progress,
                    max_turns=max_turns,
                    jobs=jobs,
                    solutions=solutions,
                    status=status,
                    tables=tables,
                )
        except FastPathUnsupported:
            if method == "fast":
                raise
            if status is not None:
                status("")  # the engine plays them: nothing of the fast path to wait for
        else:
            return summarise(
                tally,
                rules,
                [p.name for p in policies],
                seed,
                labels=labels,
                max_turns=max_turns,
                method="fast",
            )
    bounds = chunk_bounds(games, jobs, chunk_size)
    chunks = [
        Chunk(i, rules, factory, labels, seed, a, b, max_turns) for i, (a, b) in enumerate(bounds)
    ]
    tallies: dict[int, Tally] = {}

    def tallied(parts: dict[int, Tally]) -> SimulationResult:
        total = Tally(len(names))
        for i in sorted(parts):
            total.merge(parts[i])
        return summarise(
            total, rules, [p.name for p in policies], seed, labels=labels, max_turns=max_turns
        )

    try:
        _play_chunks(chunks, tallies, jobs, backend, address, progress)
    except KeyboardInterrupt:
        raise SimulationInterrupted(tallied(tallies) if tallies else None) from None
    return tallied(tallies)


def _play_chunks(
    chunks: list[Chunk],
    tallies: dict[int, Tally],
    jobs: int,
    backend: str,
    address: str | None,
    progress: Progress | None,
) -> None:
    """Play the chunks into ``tallies`` (by chunk index), as they finish."""
    done = 0
    if backend == "ray":
        from zloutch.sim.cluster import ray_map

        def count(result: tuple[int, Tally]) -> None:
            nonlocal done
            done += result[1].games
            if progress is not None:
                progress(done)

        tallies.update(ray_map(play_chunk, chunks, address=address, done=count))
    elif jobs == 1 or len(chunks) == 1:
        for chunk in chunks:
            index, tally = play_chunk(chunk)
            tallies[index] = tally
            done += tally.games
            if progress is not None:
                progress(done)
    else:
        with get_context().Pool(min(jobs, len(chunks)), _ignore_interrupts) as pool:
            for index, tally in pool.imap_unordered(play_chunk, chunks):
                tallies[index] = tally
                done += tally.games
                if progress is not None:
                    progress(done)


@dataclass(frozen=True)
class FastChunk:
    """Games ``start`` to ``stop - 1`` on the fast path, for a worker elsewhere."""

    rules: RuleSet
    names: tuple[str, ...]
    seed: int
    start: int
    stop: int
    max_turns: int


def play_fast_chunk(chunk: FastChunk) -> FastSums:
    from zloutch.sim.fast import FastSimulator

    games = FastSimulator(chunk.rules, chunk.names).games
    return games.play_sums(chunk.seed, chunk.start, chunk.stop, max_turns=chunk.max_turns)


def _fast_on_ray(
    rules: RuleSet,
    names: tuple[str, ...],
    games: int,
    seed: int,
    max_turns: int,
    address: str | None,
    progress: Progress | None,
) -> Tally:
    """The fast path's batches as Ray tasks (each builds its tables once), their counts merged
    in whole numbers (``FastSums``): the local run's tally to the last bit."""
    from zloutch.sim.cluster import ray_map
    from zloutch.sim.fast import BATCH, FastSimulator

    here = FastSimulator(rules, names).games  # what the fast path refuses, it refuses here
    chunks = [
        FastChunk(rules, names, seed, a, min(a + BATCH, games), max_turns)
        for a in range(0, games, BATCH)
    ]
    done = 0

    def count(counts: FastSums) -> None:
        nonlocal done
        done += counts.games
        if progress is not None:
            progress(done)

    total: FastSums | None = None
    for counts in ray_map(play_fast_chunk, chunks, address=address, done=count):
        if total is None:
            total = counts
        else:
            total.merge(counts)
    assert total is not None  # at least one game: check_setup
    return here.tally(total)
