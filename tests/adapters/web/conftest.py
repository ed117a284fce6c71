"""The fixtures of a real ``zloutch serve`` on 127.0.0.1 and its database, SQLite or
PostgreSQL (``ZLOUTCH_TEST_POSTGRES``); what they start is in ``served.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from served import Server, new_database, postgres_or_skip


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def db_url(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    fresh_schema: Callable[[str], AbstractContextManager[str]],
) -> Iterator[str]:
    """A database of the module's own."""
    with new_database(request.param, tmp_path_factory.mktemp("db"), fresh_schema) as url:
        yield url


@pytest.fixture
def pg_url(fresh_schema: Callable[[str], AbstractContextManager[str]]) -> Iterator[str]:
    """A schema of the test's own in the PostgreSQL test database: nothing left there by
    other runs is resumed (and played) by its servers."""
    with fresh_schema(postgres_or_skip()) as url:
        yield url


@pytest.fixture
def make_server(db_url: str, tmp_path: Path) -> Iterator[Callable[[], Server]]:
    """Start servers on the test's database; all are stopped at the end."""
    started: list[Server] = []

    def make() -> Server:
        server = Server(db_url, log=tmp_path / f"server-{len(started)}.log")
        server.start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


@pytest.fixture(scope="session", params=["sqlite", "postgres"])
def server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    fresh_schema: Callable[[str], AbstractContextManager[str]],
) -> Iterator[Server]:
    """One server per database for the tests of a worker that only talk to it (each plays
    games of its own): starting one costs about a second of CPU, and it was started again
    for every module. A test that kills, restarts or shares its database with another
    process starts its own (``make_server``)."""
    folder = tmp_path_factory.mktemp("shared-server")
    with new_database(request.param, folder, fresh_schema) as url:
        # A cache of its own: started before any test's private one is set, it read and
        # wrote the user's.
        running = Server(url, log=folder / "server.log", cache=folder / "cache")
        running.start()
        try:
            yield running
        finally:
            running.stop()
