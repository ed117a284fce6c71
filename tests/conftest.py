"""Every test gets an empty cache folder: no solved table from this machine may leak in.

The run is spread over worker processes (pytest-xdist) unless told otherwise: one per CPU,
at most ``MAX_WORKERS``, tests of one ``xdist_group`` on one worker (``--dist loadgroup``).
``-n N`` sets the count, ``-n 0`` or ``-p no:xdist`` runs every test in this process (the
way to use ``--pdb``, ``-s`` or a profiler). The count is set here rather than in
``addopts`` so that ``-p no:xdist`` still parses.

Where writing bytecode is off (``PYTHONDONTWRITEBYTECODE``, as on some CI machines), the run
writes it anyway, in each source's ``__pycache__`` as Python does by default (where Numba
keeps its compiled kernels too): without it every worker and every ``python -m zloutch`` a
test starts compiles Zloutch and its test modules again (about 5 s of CPU a worker). Not
under a ``sys.pycache_prefix``: Python then reads bytecode from that folder alone, so every
installed package (NumPy, Numba, Textual...) would be compiled again into it, 7 s before a
fresh clone's first test.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import secrets
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

if sys.dont_write_bytecode:
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the workers and the subprocesses

MAX_WORKERS = 4
"""More workers would each collect the suite and build the same scoring tables again."""


def cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own, which reads the count
def pytest_cmdline_main(config: pytest.Config) -> None:
    worker: dict[str, object] | None = getattr(config, "workerinput", None)
    if worker is not None:  # a worker reads the command line, not the controller's options
        if worker.get("zloutch_dist") == "loadgroup":
            config.option.loadgroup = True  # what xdist sets from --dist loadgroup
        return
    if not config.pluginmanager.hasplugin("xdist"):
        return
    option = config.option
    if option.numprocesses is not None or option.tx or option.usepdb or option.collectonly:
        return  # a count or hosts given, a debugger, or nothing to run
    workers = min(cpus(), MAX_WORKERS)
    if workers < 2:
        return
    option.numprocesses = workers
    if option.dist == "no":
        option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: unknown without it
def pytest_configure_node(node: Any) -> None:
    """Hand each worker the controller's ``--dist``, set above when the command line has none."""
    node.workerinput["zloutch_dist"] = node.config.option.dist


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests over the one PostgreSQL database of ``ZLOUTCH_TEST_POSTGRES`` run on one
    worker, one at a time, as they would without workers. A test run on both SQLite and
    PostgreSQL runs on SQLite in the default run and on PostgreSQL in the slow one (``.ci/run``
    runs both, and what is PostgreSQL's alone, LISTEN/NOTIFY across processes, is in the slow
    run already): the default run stays under two minutes.

    A parametrized test marked ``default_cases(n)`` runs its first ``n`` cases (in the order of
    its parameters, counting only those not marked slow already) in the default run and the
    others under slow: a check over every rule set keeps a few by default. A case's place is
    read from its parameters, not from what was collected, so that a case named alone (its
    node id, ``--lf``) is marked as in the whole run."""
    for item in items:
        callspec = getattr(item, "callspec", None)  # parametrized tests only
        values = callspec.params.values() if callspec is not None else ()
        if any(isinstance(value, str) and value == "postgres" for value in values):
            item.add_marker(pytest.mark.xdist_group("postgres"))
            item.add_marker(pytest.mark.slow)
        cases = item.get_closest_marker("default_cases")
        if cases is not None and callspec is not None and item.get_closest_marker("slow") is None:
            place = case_place(item)
            if place is None or place >= cases.args[0]:
                item.add_marker(pytest.mark.slow)


def case_place(item: pytest.Item) -> int | None:
    """Where a parametrized test's case comes among its cases not marked slow, from 0, in
    pytest's order (the ``parametrize`` nearest the function varies slowest); None where
    its parameters cannot be read so (then it runs under slow, never by default twice).
    What ``default_cases`` asks of the test: its ``parametrize`` values in a list or a tuple
    (a generator is spent by then: every case would go to slow), each value once (two equal
    ones share a place), and no fixture's ``params`` (they are not counted)."""
    from _pytest.mark.structures import ParameterSet

    params = item.callspec.params  # type: ignore[attr-defined]
    sizes: list[int] = []
    slow: list[set[int]] = []
    index: list[int] = []
    for mark in item.iter_markers("parametrize"):  # the nearest the function first
        names = mark.args[0] if mark.args else mark.kwargs["argnames"]
        names = [n.strip() for n in (names.split(",") if isinstance(names, str) else names)]
        values = list(mark.args[1] if len(mark.args) > 1 else mark.kwargs["argvalues"])
        if not all(name in params for name in names):
            return None
        mine = tuple(params[name] for name in names)

        def parts(value: object, n: int = len(names)) -> tuple[object, ...]:
            if isinstance(value, ParameterSet):
                return tuple(value.values)
            return tuple(value) if n > 1 else (value,)  # type: ignore[arg-type]

        found = [
            i
            for i, value in enumerate(values)
            if all(a is b or a == b for a, b in zip(parts(value), mine, strict=True))
        ]
        if not found:
            return None
        sizes.append(len(values))
        slow.append(
            {
                i
                for i, value in enumerate(values)
                if isinstance(value, ParameterSet) and any(m.name == "slow" for m in value.marks)
            }
        )
        index.append(found[0])
    place = 0
    for combination in itertools.product(*(range(size) for size in sizes)):
        if list(combination) == index:
            return place
        if not any(i in out for i, out in zip(combination, slow, strict=True)):
            place += 1
    return None


def _cli_built_once() -> None:
    """Typer's ``CliRunner.invoke`` builds the Click command of the app on every call: about
    15 ms for the whole CLI, some 400 times a run. Each app's command is built once here (a
    test that changes an app after it was invoked would need its own runner)."""
    import typer.testing

    original = typer.testing._get_command
    built: dict[int, tuple[Any, Any]] = {}

    def get_command(app: Any) -> Any:
        found = built.get(id(app))
        if found is None or found[0] is not app:
            found = built[id(app)] = (app, original(app))
        return found[1]

    typer.testing._get_command = get_command  # type: ignore[attr-defined]


_cli_built_once()


_CACHES = itertools.count()


@pytest.fixture(autouse=True)
def _private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    # One folder a test, numbered here: ``mktemp`` would list every folder made so far.
    folder = tmp_path_factory.getbasetemp() / "zloutch-cache" / str(next(_CACHES))
    folder.mkdir(parents=True)
    monkeypatch.setenv("ZLOUTCH_CACHE", str(folder))
    return folder


SchemaMaker = Callable[[str], contextlib.AbstractContextManager[str]]


@contextlib.contextmanager
def _fresh_schema(url: str) -> Iterator[str]:
    import psycopg

    name = f"zloutch_t_{secrets.token_hex(6)}"
    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    try:
        joint = "&" if "?" in url else "?"
        yield f"{url}{joint}options={quote(f'-csearch_path={name}')}"
    finally:
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'DROP SCHEMA "{name}" CASCADE')


@pytest.fixture(scope="session")
def fresh_schema() -> SchemaMaker:
    """``with fresh_schema(url) as url:`` a schema of its own in the PostgreSQL database of
    ``url``, dropped afterwards, and the URL that works in it (its ``search_path``). The
    test database is shared (earlier runs, other checkouts): a server started on it would
    resume every unfinished game it finds there, and drive their bots, and a server of
    another run could pick up this test's games. NOTIFY is database-wide, but a process
    follows only the games it holds."""
    return _fresh_schema
