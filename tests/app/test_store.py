"""The cache of solved tables heals itself: whole writes, checked reads, a bad entry redone.

Every way an entry can be wrong (cut short, empty, noise, the wrong shape, a forged value,
another version, other rules, the old format) is reported once, removed, computed again and
rewritten, so that the next read is silent and from the disk. A failed write leaves the
entry that was there; two writers at once leave one whole entry; an unusable folder warns
once and costs only the cache.
"""

from __future__ import annotations

import dataclasses
import errno
import io
import json
import os
import random
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.app.damage import damage

import zloutch.app.solve as app_solve
from zloutch.app import store
from zloutch.app.solve import cached_turn_summary, solved_game, turn_summary
from zloutch.app.store import (
    CacheWarning,
    cache_path,
    game_solution_cached,
    load_game_solution,
    rules_key,
    save_game_solution,
)
from zloutch.rules import RuleSet, load_rules
from zloutch.strategy.game_solver import GAME_SOLVER_VERSION, GameSolution, solve_game
from zloutch.strategy.turn_solver import SOLVER_VERSION, Situation

# The game solver's Numba kernels compiled once for a fresh clone, by the worker that runs
# the simulator's (about 5 s of CPU each time a worker compiles them): tests/conftest.py.
pytestmark = pytest.mark.xdist_group("sim-kernels")

SMALL_GAME = "farkle-minimal(target=300)"
TURN_RULES = "greed"


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return load_rules(SMALL_GAME)


@pytest.fixture(scope="module")
def solution(rules: RuleSet) -> GameSolution:
    return solve_game(rules)


@pytest.fixture(scope="module")
def summary() -> dict[str, Any]:
    return turn_summary(load_rules(TURN_RULES))


@pytest.fixture
def solves(monkeypatch: pytest.MonkeyPatch, solution: GameSolution) -> list[RuleSet]:
    """Count the solves of ``solved_game`` (each returns the solution solved once here)."""
    calls: list[RuleSet] = []

    def solve(rules: RuleSet, **_: Any) -> GameSolution:
        calls.append(rules)
        return solution

    monkeypatch.setattr(app_solve, "solve_game", solve)
    return calls


@pytest.fixture
def summaries(monkeypatch: pytest.MonkeyPatch, summary: dict[str, Any]) -> list[RuleSet]:
    """Count the computations of ``cached_turn_summary``."""
    calls: list[RuleSet] = []

    def compute(rules: RuleSet, *_: Any, **__: Any) -> dict[str, Any]:
        calls.append(rules)
        return json.loads(json.dumps(summary))

    monkeypatch.setattr(app_solve, "turn_summary", compute)
    return calls


@pytest.fixture
def reports() -> Iterator[Reports]:
    """The cache's reports (``CacheWarning``) while the test runs, each one shown."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield Reports(caught)


class Reports:
    """The messages of the cache warnings caught so far."""

    def __init__(self, caught: list[warnings.WarningMessage]) -> None:
        self._caught = caught

    def take(self) -> list[str]:
        """The reports since the last ``take``."""
        found = [str(w.message) for w in self._caught if issubclass(w.category, CacheWarning)]
        self._caught.clear()
        return found


def game_file(rules: RuleSet) -> Path:
    return cache_path("game", rules_key("game", GAME_SOLVER_VERSION, rules), ".npz")


def turn_file(rules: RuleSet) -> Path:
    key = rules_key("turn", SOLVER_VERSION, rules)
    situation = Situation.normalise(rules, True, 0)
    return cache_path("turn", f"{key}/{situation.entered}/{situation.score}")


def same_table(a: GameSolution, b: GameSolution) -> bool:
    counts = (a.counts is None and b.counts is None) or (
        a.counts is not None and b.counts is not None and np.array_equal(a.counts, b.counts)
    )
    return (
        np.array_equal(a.win, b.win, equal_nan=True)
        and counts
        and (a.unit, a.target, a.low, a.sweeps, a.residual)
        == (b.unit, b.target, b.low, b.sweeps, b.residual)
    )


# ---------------------------------------------------------------------------- damaged tables


def _rewrite_npz(path: Path, change: Callable[[dict[str, Any], dict[str, Any]], None]) -> None:
    """Rewrite a saved table after ``change(meta, arrays)``, the checksum left as it was."""
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files if name != "meta"}
        meta = json.loads(str(archive["meta"]))
    change(meta, arrays)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, meta=np.asarray(json.dumps(meta)), **arrays)
    path.write_bytes(buffer.getvalue())


def _forge_value(meta: dict[str, Any], arrays: dict[str, Any]) -> None:
    arrays["win"] = arrays["win"].copy()
    arrays["win"][0, 0] = 0.99


def _other_rules(meta: dict[str, Any], arrays: dict[str, Any]) -> None:
    meta["key"] = rules_key("game", GAME_SOLVER_VERSION, load_rules("farkle-minimal(target=400)"))


def _old_version(meta: dict[str, Any], arrays: dict[str, Any]) -> None:
    meta["solver_version"] = GAME_SOLVER_VERSION - 1


def _old_format(meta: dict[str, Any], arrays: dict[str, Any]) -> None:
    meta["format_version"] = 1


def _save_as(
    change: Callable[[GameSolution], GameSolution],
) -> Callable[[Path, GameSolution], None]:
    """A table saved whole, checksum and all, but not the solution of its rules."""

    def damage(path: Path, solution: GameSolution) -> None:
        assert save_game_solution(change(solution)) == path

    return damage


def _win(solution: GameSolution, change: Callable[[np.ndarray], None]) -> GameSolution:
    win = solution.win.copy()
    change(win)
    return dataclasses.replace(solution, win=win)


def _set(win: np.ndarray, value: float) -> None:
    win[0, 0] = value


def _without_metadata(path: Path, solution: GameSolution) -> None:
    """A table in the format of before: no metadata, no checksum."""
    with path.open("wb") as handle:
        np.savez_compressed(handle, key=np.asarray("game/v3"), win=solution.win)


GAME_DAMAGE: dict[str, tuple[Callable[[Path, GameSolution], None], str]] = {
    "truncated": (lambda p, s: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]), "damaged"),
    "empty": (lambda p, s: p.write_bytes(b""), "the file is empty"),
    "random bytes": (lambda p, s: p.write_bytes(random.Random(1).randbytes(3000)), "not an .npz"),
    "zip of noise": (lambda p, s: p.write_bytes(b"PK\x03\x04" + bytes(600)), "damaged"),
    "wrong shape": (
        _save_as(lambda s: dataclasses.replace(s, win=s.win[:3, :3].copy())),
        "win has shape (3, 3), not (6, 6)",
    ),
    "forged value, old checksum": (lambda p, s: _rewrite_npz(p, _forge_value), "checksum"),
    "forged value past 1": (
        _save_as(lambda s: _win(s, lambda w: _set(w, 1.5))),
        "not probabilities",
    ),
    "infinity": (_save_as(lambda s: _win(s, lambda w: _set(w, np.inf))), "not probabilities"),
    "NaN at the start": (
        _save_as(lambda s: _win(s, lambda w: _set(w, np.nan))),
        "not probabilities",
    ),
    "negative residual": (
        _save_as(lambda s: dataclasses.replace(s, residual=-1.0)),
        "residual",
    ),
    "wrong target": (_save_as(lambda s: dataclasses.replace(s, target=7)), "target 7"),
    "other rules": (lambda p, s: _rewrite_npz(p, _other_rules), "other rules"),
    "other solver version": (lambda p, s: _rewrite_npz(p, _old_version), "solver version 2"),
    "other format version": (lambda p, s: _rewrite_npz(p, _old_format), "format version 1"),
    "no metadata (old format)": (_without_metadata, "no metadata"),
}


@pytest.mark.parametrize("case", list(GAME_DAMAGE))
def test_a_bad_game_table_is_reported_once_and_solved_again(
    case: str,
    rules: RuleSet,
    solution: GameSolution,
    solves: list[RuleSet],
    reports: Reports,
) -> None:
    damage, words = GAME_DAMAGE[case]
    path = game_file(rules)
    assert save_game_solution(solution) == path
    damage(path, solution)
    reports.take()

    found, cached = solved_game(rules)
    assert (cached, len(solves)) == (False, 1)
    assert same_table(found, solution)
    [report] = reports.take()
    assert report.startswith(f"the cached solved game of {SMALL_GAME} was dropped: ")
    assert words in report and str(path) in report

    again, cached = solved_game(rules)  # rewritten whole: read back, silently
    assert (cached, len(solves)) == (True, 1) and reports.take() == []
    assert same_table(again, solution)


def test_a_bad_table_read_by_a_bot_is_reported_once_and_removed(
    rules: RuleSet, solution: GameSolution, reports: Reports
) -> None:
    path = game_file(rules)
    save_game_solution(solution)
    path.write_bytes(path.read_bytes()[:100])
    assert load_game_solution(rules) is None
    assert len(reports.take()) == 1 and not path.exists()
    assert load_game_solution(rules) is None and reports.take() == []


def test_a_bad_table_that_cannot_be_removed_is_reported_once(
    rules: RuleSet, solution: GameSolution, reports: Reports, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = game_file(rules)
    save_game_solution(solution)
    path.write_bytes(b"")

    def refuse(self: Path, missing_ok: bool = False) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Path, "unlink", refuse)
    assert load_game_solution(rules) is None and load_game_solution(rules) is None
    assert len(reports.take()) == 1 and path.exists()


def test_penalty_tables_are_checked_against_their_counts(reports: Reports) -> None:
    # F-1: the table by farkles in a row is saved too; its shape and its slice are checked.
    rules = load_rules("zilch(target=300)")  # F-1 after 3 farkles; scores from -100 (low -2)
    counts = np.random.default_rng(3).random((3, 3, 8, 8))
    win = counts[0, 0, 2:, 2:].copy()
    solution = GameSolution(rules, 50, 6, win, 1e-13, 9, 15, 99, low=-2, counts=counts, sweeps=4)
    assert save_game_solution(solution) is not None
    loaded = load_game_solution(rules)
    assert loaded is not None and same_table(loaded, solution)
    counts = counts.copy()
    counts[0, 0, -1, -1] = 0.25  # a count whose win slice says otherwise
    assert save_game_solution(dataclasses.replace(solution, counts=counts)) is not None
    assert load_game_solution(rules) is None
    [report] = reports.take()
    assert "win is not the slice of counts" in report
    cut = dataclasses.replace(solution, counts=counts[:, :, 1:, 1:].copy())
    assert save_game_solution(cut) is not None
    assert load_game_solution(rules) is None
    assert "counts has shape" in reports.take()[0]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_any_damage_to_a_table_reads_whole_or_is_reported_once(
    data: st.DataObject, rules: RuleSet, solution: GameSolution, reports: Reports
) -> None:
    path = game_file(rules)
    save_game_solution(solution)
    damage(data, path)
    store._reported.clear()  # a damaged file may come back with the same inode and size
    reports.take()
    found = load_game_solution(rules)
    if found is None:
        assert len(reports.take()) == 1
    else:  # a byte no check reads (a zip timestamp): the table is still the same
        assert same_table(found, solution) and reports.take() == []


# ---------------------------------------------------------------------------- damaged summaries


def _rewrite_json(path: Path, change: Callable[[dict[str, Any]], None], *, sign: bool) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    if sign:  # a forger who knows the checksum: the values are still checked
        document["sha256"] = store._json_digest(document["result"])
    path.write_text(json.dumps(document), encoding="utf-8")


def _result(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    return lambda document: change(document["result"])


TURN_DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "truncated": (lambda p: p.write_bytes(p.read_bytes()[:50]), "not readable JSON"),
    "empty": (lambda p: p.write_bytes(b""), "the file is empty"),
    "random bytes": (lambda p: p.write_bytes(random.Random(2).randbytes(500)), "not readable"),
    "a list": (lambda p: p.write_text("[1, 2]"), "not a JSON object"),
    "forged value, old checksum": (
        lambda p: _rewrite_json(p, _result(lambda r: r.update(expected_turn=9999.0)), sign=False),
        "checksum",
    ),
    "forged probability": (
        lambda p: _rewrite_json(
            p, _result(lambda r: r["farkle_probability"].update({"1": 1.5})), sign=True
        ),
        "is not a probability",
    ),
    "NaN": (
        lambda p: _rewrite_json(
            p, _result(lambda r: r.update(expected_turn=float("nan"))), sign=True
        ),
        "not a finite number",
    ),
    "exact and float disagree": (
        lambda p: _rewrite_json(
            p, _result(lambda r: r["farkle_probability_exact"].update({"1": "1/2"})), sign=True
        ),
        "against '1/2'",
    ),
    "missing threshold": (
        lambda p: _rewrite_json(p, _result(lambda r: r["thresholds"].pop("1")), sign=True),
        "one per count of dice",
    ),
    "other rules": (
        lambda p: _rewrite_json(p, lambda d: d.update(key="turn/v1/zilch/0"), sign=False),
        "other rules",
    ),
    "other solver version": (
        lambda p: _rewrite_json(
            p, lambda d: d.update(solver_version=SOLVER_VERSION + 1), sign=False
        ),
        f"solver version {SOLVER_VERSION + 1}",
    ),
    "old format": (
        lambda p: p.write_text(json.dumps({"key": "k", "result": {}})),
        "an older format",
    ),
}


@pytest.mark.parametrize("case", list(TURN_DAMAGE))
def test_a_bad_turn_summary_is_reported_once_and_computed_again(
    case: str, summary: dict[str, Any], summaries: list[RuleSet], reports: Reports
) -> None:
    damage, words = TURN_DAMAGE[case]
    rules = load_rules(TURN_RULES)
    cached_turn_summary(rules)
    path = turn_file(rules)
    assert path.exists() and len(summaries) == 1
    damage(path)
    reports.take()

    found, cached = cached_turn_summary(rules)
    assert (cached, len(summaries), found) == (False, 2, summary)
    [report] = reports.take()
    assert report.startswith(f"the cached turn summary of {TURN_RULES} was dropped: ")
    assert words in report

    again, cached = cached_turn_summary(rules)
    assert (cached, len(summaries), again) == (True, 2, summary) and reports.take() == []


@pytest.mark.parametrize("spec", ["greed", "zilch(target=2000)", "dix-mille-6"])
def test_real_summaries_pass_their_checks(spec: str) -> None:
    rules = load_rules(spec)
    document = turn_summary(rules)
    situation = Situation.normalise(rules, True, 0)
    assert app_solve.turn_summary_problem(rules, situation, document) is None
    other = Situation(not situation.entered, situation.score)
    assert "not this one" in str(app_solve.turn_summary_problem(rules, other, document))


# ---------------------------------------------------------------------------- writing


@pytest.mark.parametrize("failing", ["write", "fsync", "replace"])
def test_a_write_that_fails_midway_keeps_the_entry_there_before(
    failing: str,
    rules: RuleSet,
    solution: GameSolution,
    reports: Reports,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = game_file(rules)
    assert save_game_solution(solution) == path
    before = path.read_bytes()
    changed = dataclasses.replace(solution, residual=solution.residual / 2)
    with monkeypatch.context() as patch:
        if failing == "write":
            _fill_the_disk_halfway(patch)
        else:
            patch.setattr(os, failing, _disk_full)
        assert save_game_solution(changed) is None
    [report] = reports.take()
    assert report.startswith(f"could not save the solved game of {SMALL_GAME} in the cache ")
    assert "No space left on device" in report and report.endswith("going on without it")
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file
    loaded = load_game_solution(rules)
    assert loaded is not None and loaded.residual == solution.residual


def _disk_full(*_: Any, **__: Any) -> Any:
    raise OSError(errno.ENOSPC, "No space left on device")


def _fill_the_disk_halfway(patch: pytest.MonkeyPatch) -> None:
    """The temporary file takes half the bytes, then the disk is full.

    Every file the program keeps is written by ``app.files.atomic_file``, which opens its
    temporary file with ``os.fdopen``: the file it opens takes half of what it is given.
    """
    real = os.fdopen

    class HalfFull:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> HalfFull:
            return self

        def __exit__(self, *_: object) -> None:
            self.handle.close()

        def write(self, data: bytes) -> int:
            self.handle.write(data[: len(data) // 2])
            self.handle.flush()
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name: str) -> Any:
            return getattr(self.handle, name)

    def opened(descriptor: int, *args: Any, **kwargs: Any) -> Any:
        return HalfFull(real(descriptor, *args, **kwargs))

    patch.setattr(os, "fdopen", opened)


def test_writers_at_once_leave_one_whole_entry(
    rules: RuleSet, solution: GameSolution, reports: Reports
) -> None:
    path = game_file(rules)
    other = dataclasses.replace(solution, residual=solution.residual + 1e-13)
    start = threading.Barrier(6)
    seen: list[GameSolution | None] = []

    def write(which: GameSolution) -> None:
        start.wait()
        for _ in range(10):
            assert save_game_solution(which) == path

    def read() -> None:
        start.wait()
        for _ in range(40):
            seen.append(load_game_solution(rules))

    threads = [threading.Thread(target=write, args=(s,)) for s in (solution, other) * 2]
    threads += [threading.Thread(target=read) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert reports.take() == []  # no reader ever met half an entry
    assert all(s is None or same_table(s, solution) or same_table(s, other) for s in seen)
    final = load_game_solution(rules)
    assert final is not None and (same_table(final, solution) or same_table(final, other))
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


def test_two_processes_solving_the_same_table_both_save_it(
    rules: RuleSet, solution: GameSolution, reports: Reports
) -> None:
    path = game_file(rules)
    with ProcessPoolExecutor(2, mp_context=get_context("spawn")) as pool:
        saved = list(pool.map(save_game_solution, [solution] * 8))
    assert saved == [path] * 8
    loaded = load_game_solution(rules)
    assert loaded is not None and same_table(loaded, solution) and reports.take() == []
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]


@pytest.mark.parametrize("where", ["under a file", "under /proc"])
def test_an_unusable_cache_folder_warns_once_and_goes_on(
    where: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    solution: GameSolution,
    rules: RuleSet,
    solves: list[RuleSet],
    summaries: list[RuleSet],
    summary: dict[str, Any],
    reports: Reports,
) -> None:
    # Run as root, a read-only folder can be written: a path under a file cannot.
    if where == "under a file":
        (tmp_path / "file").write_text("not a folder")
        folder = tmp_path / "file" / "sub"
    else:
        folder = Path("/proc/version/zloutch")
    monkeypatch.setenv("ZLOUTCH_CACHE", str(folder))
    store._unwritable.discard(str(folder))  # once per process: this test's process
    for _ in range(2):
        found, cached = solved_game(rules)
        assert found is solution and not cached
        assert cached_turn_summary(load_rules(TURN_RULES)) == (summary, False)
    assert (len(solves), len(summaries)) == (2, 2)
    [report] = reports.take()
    assert report.startswith("could not save the solved game") and str(folder) in report


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero"])
def test_an_entry_that_is_no_regular_file_is_replaced(
    kind: str, rules: RuleSet, solution: GameSolution, solves: list[RuleSet], reports: Reports
) -> None:
    """A FIFO blocked ``open`` for good and a link to /dev/zero was read without end: the
    entry's kind is asked first, and it is replaced by a healthy one."""
    path = game_file(rules)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    reports.take()
    found, cached = solved_game(rules)
    assert (cached, len(solves)) == (False, 1) and same_table(found, solution)
    assert path.is_file() and not path.is_symlink()
    [report] = reports.take()
    assert "not a regular file" in report and str(path) in report
    again, cached = solved_game(rules)
    assert cached and same_table(again, solution)


def test_a_cached_game_is_seen_without_being_read(solution: GameSolution) -> None:
    """What the table page asks every few seconds while a bot waits for its game: whether
    the table is in the cache, not the table."""
    assert not game_solution_cached(solution.rules)
    save_game_solution(solution)
    assert game_solution_cached(solution.rules)
    assert not game_solution_cached(load_rules("greed(target=700)"))
