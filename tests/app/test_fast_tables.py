"""The fast path's set-up kept between runs: the same games back, or built again.

``FastGames`` (what the kernel reads) goes to a description and arrays and back with the
same values and the same Numba types (a read-only array is another type: another compiled
kernel); the cache (``zloutch.app.store.cached_fast_games``) builds it once, reads it after,
builds it again silently where the package's code changed, and reports a damaged entry once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.app.damage import damage
from typer.testing import CliRunner

import zloutch.sim.fast as fast
from zloutch.adapters.cli import app
from zloutch.app import store
from zloutch.app.store import CacheWarning, cache_path, cached_fast_games, rules_key
from zloutch.rules import RuleSet, load_rules
from zloutch.sim.fast import (
    FAST_GAMES_VERSION,
    FastGames,
    FastSimulator,
    simulate_fast,
)

pytestmark = pytest.mark.xdist_group("sim-kernels")

LINE_UPS = [
    ("farkle", ("threshold:300", "threshold:300")),
    ("zilch", ("expert", "cautious")),  # F-1's penalty: the stacks' depth by the turns
    ("dix-mille(target=3000)", ("greedy", "threshold:400", "cautious")),  # ticks, bumps
    ("greed(exact_target)", ("threshold:350", "expert")),  # T-9: keeps by score
]


@pytest.fixture(scope="module")
def built() -> dict[str, FastGames]:
    return {spec: FastSimulator(load_rules(spec), players).games for spec, players in LINE_UPS}


def through_json(games: FastGames) -> FastGames:
    """The games as a cache keeps them: the description through JSON, the arrays copied."""
    layout, arrays = games.to_parts()
    return FastGames.from_parts(
        json.loads(json.dumps(layout)), {k: np.array(a) for k, a in arrays.items()}
    )


def leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, tuple):
        for item in value:
            yield from leaves(item)
    else:
        yield value


def same_games(a: FastGames, b: FastGames) -> None:
    """The same values, of the same Python and Numba types, for every argument."""
    for max_turns in (50, 4000):
        first, second = a.arguments(max_turns), b.arguments(max_turns)
        assert numba.typeof(first) == numba.typeof(second)
        assert numba.typeof(a.pol_of) == numba.typeof(b.pol_of)
        for x, y in zip(leaves(first), leaves(second), strict=True):
            assert type(x) is type(y)
            if isinstance(x, np.ndarray):
                assert x.dtype == y.dtype and x.flags.writeable == y.flags.writeable
                assert np.array_equal(x, y)
            else:
                assert x == y
    for name in ("players", "unit", "win_unit", "bins", "depth", "penalised"):
        assert getattr(a, name) == getattr(b, name)
    assert np.array_equal(a.pol_of, b.pol_of)


@pytest.mark.default_cases(2)
@pytest.mark.parametrize(("spec", "players"), LINE_UPS)
def test_the_parts_give_the_same_games_back(
    spec: str, players: tuple[str, ...], built: dict[str, FastGames]
) -> None:
    games = built[spec]
    again = through_json(games)
    same_games(games, again)
    one, other = games.play_sums(7, 0, 300, threads=1), again.play_sums(7, 0, 300, threads=1)
    assert (one.games, one.finished, one.turns) == (other.games, other.finished, other.turns)
    assert np.array_equal(one.sums, other.sums) and np.array_equal(one.banks, other.banks)
    assert games.trace_game(3, 11) == again.trace_game(3, 11)
    read_only = [a for a in leaves(games.arguments()) if isinstance(a, np.ndarray)]
    assert {a.flags.writeable for a in read_only} == {True, False}  # both kinds kept


def test_the_stacks_grow_with_the_turns_under_a_penalty(built: dict[str, FastGames]) -> None:
    zilch, farkle = through_json(built["zilch"]), through_json(built["farkle"])
    assert zilch.penalised and not farkle.penalised
    assert zilch.stack_depth(4000) > zilch.stack_depth(50) > zilch.depth
    assert farkle.stack_depth(4000) == farkle.stack_depth(50) == farkle.depth


def _layout(change: Callable[[dict[str, Any]], object]) -> Callable[[FastGames], Any]:
    def broken(games: FastGames) -> Any:
        layout, arrays = games.to_parts()
        layout = json.loads(json.dumps(layout))
        change(layout)
        return layout, arrays

    return broken


BROKEN: dict[str, tuple[Callable[[FastGames], Any], str]] = {
    "another version": (
        _layout(lambda d: d.update(version=FAST_GAMES_VERSION + 1)),
        f"version {FAST_GAMES_VERSION}",
    ),
    "a list": (lambda g: ([1], g.to_parts()[1]), f"version {FAST_GAMES_VERSION}"),
    "a number missing": (_layout(lambda d: d["numbers"].pop("bins")), "its numbers"),
    "a flag for a number": (_layout(lambda d: d["numbers"].update(bins=True)), "bins"),
    "a number for a flag": (_layout(lambda d: d["numbers"].update(penalised=1)), "penalised"),
    "an array it lacks": (
        lambda g: (g.to_parts()[0], {k: v for k, v in g.to_parts()[1].items() if k != "a0"}),
        "'a0'",
    ),
    "a tuple for an array": (_layout(lambda d: d.update(pol_of={"tuple": []})), "tables"),
    "an unknown part": (_layout(lambda d: d["turn"]["tuple"].append({"set": 1})), "not a part"),
    "a short solved tuple": (_layout(lambda d: d["solved"]["tuple"].pop()), "solved turns"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_parts_this_version_did_not_write_are_refused_in_words(
    case: str, built: dict[str, FastGames]
) -> None:
    breaks, words = BROKEN[case]
    layout, arrays = breaks(built["farkle"])
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        FastGames.from_parts(layout, arrays)


# ---------------------------------------------------------------------------- the cache


class Builds:
    """A ``build`` for ``cached_fast_games`` that counts its calls."""

    def __init__(self, games: FastGames) -> None:
        self.games, self.calls = games, 0

    def __call__(self) -> FastGames:
        self.calls += 1
        return self.games


@pytest.fixture
def reports() -> Iterator[Callable[[], list[str]]]:
    """The cache's reports (``CacheWarning``) so far, read when called."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield lambda: [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]


def entry(rules: RuleSet, players: tuple[str, ...], stamp: str | None = None) -> Path:
    key = f"{rules_key('fast', FAST_GAMES_VERSION, rules)}/{','.join(players)}"
    return cache_path("fast", key, "") / f"{stamp or store.source_stamp()}.npz"


def test_the_set_up_is_built_once_then_read(built: dict[str, FastGames]) -> None:
    rules, players = load_rules(LINE_UPS[2][0]), LINE_UPS[2][1]
    builds = Builds(built[LINE_UPS[2][0]])
    first = cached_fast_games(rules, players, builds)
    assert first is builds.games and builds.calls == 1
    path = entry(rules, players)
    written, inode = path.read_bytes(), path.stat().st_ino
    for _ in range(2):
        again = cached_fast_games(rules, players, builds)
        assert builds.calls == 1 and again is not builds.games
        same_games(again, builds.games)
    assert (path.read_bytes(), path.stat().st_ino) == (written, inode)  # read, not written
    # Other rules, or another line-up, are other entries.
    other = Builds(built["farkle"])
    cached_fast_games(load_rules("dix-mille(target=2000)"), players, other)
    cached_fast_games(rules, players[::-1], other)
    assert other.calls == 2 and len(list(path.parent.parent.iterdir())) == 3


def test_each_version_of_the_code_keeps_its_own_entry(
    built: dict[str, FastGames],
    monkeypatch: pytest.MonkeyPatch,
    reports: Callable[[], list[str]],
) -> None:
    """Two checkouts (or installed versions) sharing a cache each read their own entry; an
    edit builds a new one, and only the ``FAST_KEPT`` used last stay."""
    import os

    rules, players = load_rules("farkle"), LINE_UPS[0][1]
    builds = Builds(built["farkle"])
    real = store.source_stamp()
    cached_fast_games(rules, players, builds)
    monkeypatch.setattr(store, "source_stamp", lambda: "edited")
    cached_fast_games(rules, players, builds)
    cached_fast_games(rules, players, builds)
    assert builds.calls == 2  # built for the edit, then read
    monkeypatch.setattr(store, "source_stamp", lambda: real)
    cached_fast_games(rules, players, builds)
    assert builds.calls == 2  # the first code's entry is still there
    folder = entry(rules, players).parent
    assert sorted(p.name for p in folder.iterdir()) == sorted([f"{real}.npz", "edited.npz"])
    for k, stamp in enumerate(["a", "b", "c"]):
        monkeypatch.setattr(store, "source_stamp", lambda stamp=stamp: stamp)
        cached_fast_games(rules, players, builds)
        os.utime(entry(rules, players, stamp), ns=(0, 2_000_000_000_000_000_000 + k))
    assert builds.calls == 5
    assert sorted(p.name for p in folder.iterdir()) == ["a.npz", "b.npz", "c.npz"]
    # An entry whose content says other code made it (here: copied under another name) is
    # built again, silently: that is no damage.
    entry(rules, players, "c").write_bytes(entry(rules, players, "a").read_bytes())
    cached_fast_games(rules, players, builds)
    assert builds.calls == 6 and reports() == []


def test_the_source_stamp_follows_the_core_files(tmp_path: Path) -> None:
    """An edit to a core module (its size or its time) is another stamp, and so is another
    version; a file outside the core is not."""
    import os

    for folder in (*store.CORE, "adapters"):
        (tmp_path / folder / "deep").mkdir(parents=True)
        (tmp_path / folder / "deep" / "a.py").write_text("x = 1\n")
    stamp = store.files_stamp(tmp_path, "1.0")
    assert stamp == store.files_stamp(tmp_path, "1.0") != store.files_stamp(tmp_path, "1.1")
    (tmp_path / "adapters" / "deep" / "a.py").write_text("x = 22\n")
    (tmp_path / "adapters" / "b.py").write_text("")
    assert store.files_stamp(tmp_path, "1.0") == stamp
    module = tmp_path / "sim" / "deep" / "a.py"
    before = module.stat()
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
    touched = store.files_stamp(tmp_path, "1.0")
    assert touched != stamp
    module.write_text("x = 2\n")  # the same size and time: not seen (as by Numba)
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
    assert store.files_stamp(tmp_path, "1.0") == touched
    module.write_text("x = 20\n")
    os.utime(module, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
    assert store.files_stamp(tmp_path, "1.0") not in (stamp, touched)
    (tmp_path / "rules" / "new.py").write_text("")
    assert store.files_stamp(tmp_path, "1.0") not in (stamp, touched)
    assert store.source_stamp() == store.source_stamp() and len(store.source_stamp()) == 16


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_any_damage_to_an_entry_reads_the_same_games_or_is_reported_once(
    data: st.DataObject, built: dict[str, FastGames]
) -> None:
    import warnings

    rules, players = load_rules("farkle"), LINE_UPS[0][1]
    builds = Builds(built["farkle"])
    path = entry(rules, players)
    if path.exists():
        path.unlink()
    cached_fast_games(rules, players, builds)
    damage(data, path)
    store._reported.clear()
    calls = builds.calls
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        games = cached_fast_games(rules, players, builds)
    reported = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    same_games(games, builds.games)
    if builds.calls == calls:  # a byte no check reads (a zip timestamp): the same games
        assert reported == []
    else:  # damaged: reported once, or (the stamp or version hit) other code's, silently
        assert len(reported) <= 1
        assert all("the cached fast tables of farkle" in r for r in reported)
    assert cached_fast_games(rules, players, builds) is not builds.games  # whole again


def test_a_forged_array_is_caught_by_its_checksum(built: dict[str, FastGames]) -> None:
    import io
    import warnings

    rules, players = load_rules("farkle"), LINE_UPS[0][1]
    builds = Builds(built["farkle"])
    cached_fast_games(rules, players, builds)
    path = entry(rules, players)
    with np.load(path) as archive:
        arrays = {name: archive[name] for name in archive.files}
    arrays["a2"] = arrays["a2"] + 1
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())
    store._reported.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cached_fast_games(rules, players, builds)
    [report] = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert "checksum does not match" in report and str(path) in report
    assert builds.calls == 2


def test_an_unusable_cache_warns_once_and_plays(
    built: dict[str, FastGames], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import warnings

    (tmp_path / "file").write_text("not a folder")
    folder = tmp_path / "file" / "sub"
    monkeypatch.setenv("ZLOUTCH_CACHE", str(folder))
    store._unwritable.discard(str(folder))
    builds = Builds(built["farkle"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            games = cached_fast_games(load_rules("farkle"), LINE_UPS[0][1], builds)
            assert games is builds.games
    [report] = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert report.startswith("could not save the fast tables of farkle") and builds.calls == 2


# ---------------------------------------------------------------------------- where it is used


def test_simulate_fast_keeps_no_line_up_with_optimal(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, ...]] = []

    def tables(rules: RuleSet, players: tuple[str, ...], build: Callable[[], FastGames]) -> Any:
        asked.append(players)
        return build()

    rules = load_rules("farkle-minimal(target=300)")
    plain = simulate_fast(rules, [" Greedy", "expert"], 50, 1, jobs=1, tables=tables)
    assert asked == [("greedy", "expert")]
    from zloutch.strategy.game_solver import solve_game

    solution = solve_game(rules)
    simulate_fast(
        rules, ["optimal", "greedy"], 50, 1, jobs=1, tables=tables, solutions=lambda r: solution
    )
    assert asked == [("greedy", "expert")]
    again = simulate_fast(rules, ["greedy", "expert"], 50, 1, jobs=1)
    assert plain.per_player[0].wins == again.per_player[0].wins
    assert plain.turns == again.turns


def test_the_command_reads_its_set_up_the_second_time(
    monkeypatch: pytest.MonkeyPatch, _private_cache: Path
) -> None:
    args = ["simulate", "-r", "greed", "-p", "threshold:300,expert", "-n", "400"]
    args += ["--method", "fast", "--json", "-", "-q", "--seed", "9"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert len(list((_private_cache / "fast").iterdir())) == 1

    class NotBuilt(FastSimulator):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise AssertionError("the set-up was built again")

    monkeypatch.setattr(fast, "FastSimulator", NotBuilt)
    second = CliRunner().invoke(app, args)
    assert second.exit_code == 0, second.output
    assert json.loads(second.stdout) == json.loads(first.stdout)
