"""Group commit: one writer thread stores the entries of every game, many games at a time.

A commit that is on disk costs a write and an fsync (about 12 ms on this project's machine
with SQLite's ``synchronous=FULL``), whatever it holds. Committed one after another on the
event loop, the intents of all games wait for each other's fsyncs and the server stops near
80 intents a second. Here the store is written by one thread: an append waits in a queue; when
the thread is free it takes everything queued (up to ``max_batch``) and stores it with
``GameStore.append_many``, one transaction, so that the appends that arrive during one commit
go together in the next. Under light load a batch is one append and nothing waits for a
timer; under heavy load the batches grow and the fsyncs per append shrink.

The caller (``Hub``) keeps the promise "committed before acknowledged or broadcast": it waits
for its append's outcome before it answers anyone. The event loop never waits on the disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TypeVar

from zloutch.server import Append, GameStore
from zloutch.server.rows import StoreUnavailableError

T = TypeVar("T")
log = logging.getLogger("zloutch.serve")

MAX_BATCH = 1000
"""Appends in one transaction at most (a few hundred kilobytes of rows)."""


@dataclass
class CommitStats:
    """What the writer did: transactions, appends in them, the largest, the slowest, and the
    writes the database refused (``failing``: the last write did not go through)."""

    commits: int = 0
    appends: int = 0
    largest: int = 0
    slowest: float = 0.0
    """Seconds, from the batch taken to its outcome."""
    failures: int = 0
    last_failure: str | None = None
    """Why the last refused write was refused, in one line (no SQL, no values)."""
    failing: bool = False

    def count(self, size: int, seconds: float) -> None:
        self.commits += 1
        self.appends += size
        self.largest = max(self.largest, size)
        self.slowest = max(self.slowest, seconds)
        self.failing = False

    def failed(self, exc: BaseException) -> str:
        """Count a refused write; its reason in one line, logged once."""
        self.failures += 1
        self.failing = True
        self.last_failure = store_reason(exc)
        log.warning("the database refused a write: %s", self.last_failure)
        return self.last_failure


def store_reason(exc: BaseException) -> str:
    """A database error in one line: the driver's first line, never the statement or its
    values (SQLAlchemy's message carries them: a new game's secret among them)."""
    origin = getattr(exc, "orig", None) or exc  # the driver's error under SQLAlchemy's
    first = str(origin).strip().splitlines()[0] if str(origin).strip() else ""
    return f"{type(origin).__name__}: {first}" if first else type(origin).__name__


def is_store_error(exc: BaseException) -> bool:
    """An error of the database or its driver (not a bug of ours, not a refusal)."""
    module = type(exc).__module__
    return module.split(".")[0] in ("sqlalchemy", "sqlite3", "psycopg", "psycopg2") or isinstance(
        exc, OSError
    )


@dataclass(eq=False)
class GroupCommit:
    """The store's one writer (see the module's docstring)."""

    store: GameStore
    max_batch: int = MAX_BATCH
    stats: CommitStats = field(default_factory=CommitStats)
    _queue: list[tuple[Append, asyncio.Future[Exception | None]]] = field(default_factory=list)
    _drain: asyncio.Task[None] | None = None
    _thread: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="zloutch-writer")
    )

    async def append(self, item: Append) -> Exception | None:
        """Store one game's entries with whatever else is waiting: None once they are
        committed, or why they were not (``StoreConflict``, ``DuplicateIntent``, or the
        failure of the whole transaction, when nothing of the batch was stored)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Exception | None] = loop.create_future()
        self._queue.append((item, future))
        if self._drain is None:
            self._drain = loop.create_task(self._commit_queued())
        # The commit goes on if the caller is cancelled: its outcome is still settled.
        return await asyncio.shield(future)

    async def run(self, work: Callable[..., T], *args: object) -> T:
        """Another store call (a game read, a seat list) on the writer's thread, in turn."""
        return await asyncio.get_running_loop().run_in_executor(self._thread, work, *args)

    async def write(self, work: Callable[..., T], *args: object) -> T:
        """A store call that writes (a new game, a seat taken), as ``run``: a write the
        database refuses is ``StoreUnavailableError``, said in one line, and counted; one
        that goes through clears ``failing``."""
        try:
            done = await self.run(work, *args)
        except Exception as exc:
            if not is_store_error(exc):
                raise
            why = self.stats.failed(exc)
            raise StoreUnavailableError(
                f"the server's database did not take it ({why}): nothing was stored, "
                "try again later"
            ) from None
        self.stats.failing = False
        return done

    async def _commit_queued(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while self._queue:
                batch = self._queue[: self.max_batch]
                del self._queue[: self.max_batch]
                items = [item for item, _ in batch]
                outcomes: list[Exception | None]
                began = time.perf_counter()
                try:
                    outcomes = await loop.run_in_executor(
                        self._thread, self.store.append_many, items
                    )
                    self.stats.count(len(items), time.perf_counter() - began)
                except Exception as exc:  # the transaction failed: none of the batch is stored
                    self.stats.failed(exc)
                    outcomes = [exc] * len(items)
                for (_, future), outcome in zip(batch, outcomes, strict=True):
                    if not future.done():
                        future.set_result(outcome)
        finally:
            self._drain = None

    async def close(self) -> None:
        """Wait for what is queued, then stop the thread."""
        if self._drain is not None:
            with contextlib.suppress(Exception):
                await self._drain
        self._thread.shutdown(wait=True)
