"""The figure builders (zloutch.adapters.plots): the numbers drawn are the solvers' numbers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from zloutch.adapters.plots import (
    BANK,
    NO_BANK,
    THROW,
    PlotError,
    game_thresholds,
    new_picture,
    output_format,
    policy_figure,
    policy_grid,
    simulation_document,
    turn_solution,
    turn_values_figure,
)
from zloutch.app.solve import turn_summary
from zloutch.rules import load_rules
from zloutch.sim.turns import TurnScores, simulate_turns
from zloutch.strategy.bots import make_bot
from zloutch.strategy.game_solver import GameSolution, PairSolutions, solve_game

# The game solver's Numba kernels compiled once for a fresh clone, by the worker that runs
# the simulator's (about 5 s of CPU each time a worker compiles them): tests/conftest.py.
pytestmark = pytest.mark.xdist_group("sim-kernels")

SMALL_GAME = "greed(target=500)"
"""A game the solver takes well under a second to solve (10 x 10 score pairs)."""


@pytest.fixture(scope="module")
def small_game() -> GameSolution:
    return solve_game(load_rules(SMALL_GAME))


@pytest.mark.parametrize("spec", ["dix-mille", "farkle", "greed", "dix-mille(entry=800)"])
def test_policy_map_boundary_is_the_turn_solvers_threshold(spec: str) -> None:
    rules = load_rules(spec)
    grid = policy_grid(turn_solution(rules), max_total=20000)
    published = turn_summary(rules)["thresholds"]  # what zloutch solve --json prints
    for i, n in enumerate(grid.dice):
        assert grid.first_bank(n) == published[str(n)]
        first = grid.first_bank(n)
        before = grid.cells[i, : grid.totals.index(first)] if first else grid.cells[i]
        assert set(before.tolist()) <= {THROW, NO_BANK}


def test_policy_map_shows_the_rules_that_forbid_banking() -> None:
    rules = load_rules("dix-mille")
    grid = policy_grid(turn_solution(rules), max_total=1500)
    four = grid.dice.index(4)
    assert grid.cells[four, grid.totals.index(700)] == BANK
    assert grid.cells[four, grid.totals.index(750)] == NO_BANK  # T-6: not a total ending in 50
    assert grid.cells[four, grid.totals.index(650)] == NO_BANK
    assert grid.cells[four, grid.totals.index(600)] == THROW
    full = grid.dice.index(5)
    assert (grid.cells[full] == NO_BANK).all()  # T-5: a forced full hand is thrown again
    assert grid.totals[-1] == 1500 and grid.totals[0] == rules.unit
    entry = policy_grid(turn_solution(rules, entered=False), max_total=1000)
    below = [j for j, t in enumerate(entry.totals) if t < 500]
    assert (entry.cells[:, below] == NO_BANK).all()  # T-7: 500 to enter


def test_game_policy_map_is_the_pair_solution(small_game: GameSolution) -> None:
    pairs = PairSolutions(small_game)
    turn = pairs.turn(200, 350)
    grid = policy_grid(turn, max_total=10000)
    thresholds = turn.thresholds()
    assert grid.totals[-1] == (turn.rows - 1) * turn.unit  # cut where the solved totals end
    for n in grid.dice:
        assert grid.first_bank(n) == thresholds[n]


def test_game_thresholds_equal_the_pair_by_pair_thresholds(small_game: GameSolution) -> None:
    tmap = game_thresholds(small_game, batch=2000)
    pairs = PairSolutions(small_game)
    unit = tmap.unit
    assert tmap.scores == tuple(range(0, 500, unit))
    for a in tmap.scores:
        for b in tmap.scores:
            expected = pairs.turn(a, b).thresholds()
            for n, table in tmap.thresholds.items():
                got = table[a // unit, b // unit]
                if expected[n] is None:
                    assert np.isnan(got)
                else:
                    assert got == expected[n]


def test_without_last_turns_banking_at_the_target_is_always_best() -> None:
    rules = load_rules("greed(target=500,final_turns=false)")
    tmap = game_thresholds(solve_game(rules))
    scores = np.asarray(tmap.scores, dtype=np.float64)
    for table in tmap.thresholds.values():
        assert (table <= (500 - scores)[:, None]).all()  # NaN compares False: never "never"


def test_no_map_where_the_dice_set_aside_matter() -> None:
    rules = load_rules("greed(target=300,multiples_over_throws)")
    with pytest.raises(PlotError, match="V-7"):
        game_thresholds(solve_game(rules))
    with pytest.raises(PlotError, match="V-6"):
        policy_grid(turn_solution(load_rules("dix-mille(straights_over_throws)")))


def test_game_thresholds_of_one_dice_count(small_game: GameSolution) -> None:
    tmap = game_thresholds(small_game, [3])
    assert list(tmap.thresholds) == [3]
    with pytest.raises(PlotError, match="between 1 and 5"):
        game_thresholds(small_game, [6])


def test_simulated_turns_are_reproducible_and_average_the_solved_value() -> None:
    rules = load_rules("greed")
    first = simulate_turns(rules, make_bot("expert"), 1500, seed=3)
    again = simulate_turns(rules, make_bot("expert"), 1500, seed=3)
    assert first.counts == again.counts and first.turns == 1500
    expected = turn_solution(rules).expected_turn
    assert abs(first.mean - expected) < 4 * first.stderr
    cautious = simulate_turns(rules, make_bot("cautious"), 300, seed=3)
    assert cautious.counts.keys() <= {0, *range(50, 400, 50)} | set(cautious.counts)
    assert cautious.farkles > 0 and min(t for t in cautious.counts if t) >= rules.turn.min_bank


def test_turn_scores_histogram_shares() -> None:
    scores = TurnScores("x", {0: 3, 100: 1, 150: 4, 300: 2})
    edges = (np.arange(5, dtype=np.float64) - 0.5) * 100
    shares = scores.histogram(edges)
    assert shares.tolist() == [0.3, 0.1, 0.4, 0.2]
    assert scores.mean == (100 + 600 + 600) / 10


def test_output_format_comes_from_the_suffix() -> None:
    assert output_format("a.png") == "png"
    assert output_format("dir/B.SVG") == "svg"
    for bad in ("a.pdf", "a", "png"):
        with pytest.raises(PlotError, match=r"\.png or \.svg"):
            output_format(bad)


def test_without_matplotlib_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(PlotError, match=r"install zloutch\[plot\]"):
        new_picture("title", "caption", 4, 3)


def test_png_carries_title_and_caption(tmp_path: Path) -> None:
    rules = load_rules("greed")
    picture = turn_values_figure(turn_solution(rules))
    path = tmp_path / "values.png"
    picture.save(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(path) as image:
        assert image.info["Title"] == picture.title
        assert "rules: greed" in image.info["Description"]
    texts = picture.texts()
    assert picture.title in texts
    assert "turn total (points)" in texts and "expected points banked by the turn" in texts


@pytest.mark.parametrize(("entered", "allowed"), [(True, 100), (False, 500)])
def test_the_values_plot_draws_a_bank_only_where_one_is_allowed(
    entered: bool, allowed: int
) -> None:
    """Dix-mille banks multiples of 100 (T-6), and 500 or more to enter (T-7): the bank's
    line is drawn there alone (it read "bank now" at 250, where no bank is allowed)."""
    picture = turn_values_figure(turn_solution(load_rules("dix-mille"), entered), max_total=1000)
    (axes,) = picture.figure.axes
    (bank,) = [line for line in axes.get_lines() if line.get_label().startswith("bank now")]
    shown = {int(x) for x, y in zip(bank.get_xdata(), bank.get_ydata(), strict=True) if y == y}
    assert shown == set(range(allowed, 1001, 100))
    assert bank.get_label() == "bank now (gaps: no bank allowed)"


def test_the_values_plot_of_rules_that_allow_every_bank_says_no_gaps() -> None:
    """Farkle banks any total once entered: no gap but 0 (which no rule set banks)."""
    picture = turn_values_figure(turn_solution(load_rules("farkle")), max_total=1000)
    labels = [line.get_label() for line in picture.figure.axes[0].get_lines()]
    assert "bank now" in labels


def test_policy_figure_labels_each_row_with_its_threshold() -> None:
    rules = load_rules("farkle")
    grid = policy_grid(turn_solution(rules))
    picture = policy_figure(grid, title="T", caption="rules: farkle")
    texts = picture.texts()
    assert " bank from 950" in texts  # four dice (docs/strategy.md)
    assert "bank from 16800 (off the map) " in texts  # six dice: past the default width
    assert "6 dice (full hand)" in texts


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("{", "is not JSON"),
        ("[]", "not a JSON object"),
        ('{"rules": "greed", "players": [], "seats": [], "games": 1}', "'players' is empty"),
        ('{"rules": "greed", "players": [{"name": "a"}], "seats": [{}], "games": 1}', "lacks"),
        ('{"rules": 3, "players": [], "seats": [], "games": 1}', "'rules'"),
    ],
)
def test_simulation_document_refuses_what_is_not_a_result(text: str, needle: str) -> None:
    with pytest.raises(PlotError, match=needle):
        simulation_document(text, "x.json")


@pytest.mark.parametrize("failing", ["write", "replace"])
def test_a_picture_that_cannot_be_written_leaves_the_one_there_before(
    failing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    path = tmp_path / "policy.svg"
    picture = new_picture("a title", "a caption", 4, 3)
    picture.save(str(path))
    before = path.read_bytes()
    assert before.startswith(b"<?xml")

    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        if failing == "write":
            real = os.fdopen

            class HalfFull:
                def __init__(self, handle: object) -> None:
                    self.handle = handle

                def __enter__(self) -> HalfFull:
                    return self

                def __exit__(self, *_: object) -> None:
                    self.handle.close()  # type: ignore[attr-defined]

                def write(self, data: bytes) -> int:
                    self.handle.write(data[: len(data) // 2])  # type: ignore[attr-defined]
                    raise OSError(errno.ENOSPC, "No space left on device")

                def __getattr__(self, name: str) -> object:
                    return getattr(self.handle, name)

            patch.setattr(os, "fdopen", lambda fd, *a, **k: HalfFull(real(fd, *a, **k)))
        else:
            patch.setattr(os, "replace", full)
        with pytest.raises(PlotError, match=f"cannot write {path}: No space left on device"):
            new_picture("another title", "another caption", 4, 3).save(str(path))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["policy.svg"]  # no temporary file left
