"""zloutch plot: the files written, their words, their numbers, and clean errors."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.app.solve import turn_summary
from zloutch.app.store import load_game_solution
from zloutch.rules import load_rules
from zloutch.strategy.game_solver import PairSolutions

# One worker compiles the simulation's Numba kernels (about 9 s of CPU on a fresh clone),
# not every worker: the tests that play fast games share it (tests/conftest.py).
pytestmark = pytest.mark.xdist_group("sim-kernels")

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n"
SVG = "{http://www.w3.org/2000/svg}"
SMALL_GAME = "greed(target=500)"
"""Solved by the game solver in well under a second."""


def plot(*args: str) -> str:
    """Run ``zloutch plot ARGS``; it must succeed and say which file it wrote."""
    result = runner.invoke(app, ["plot", *args])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("wrote ")
    assert "Traceback" not in result.output
    return result.stdout


def svg_text(path: Path) -> str:
    """Every text drawn in an SVG picture, in one line (the file must be well-formed XML)."""
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    words = [" ".join(element.itertext()) for element in root.iter(f"{SVG}text")]
    return re.sub(r"\s+", " ", " ".join(words))


def test_policy_png(tmp_path: Path) -> None:
    out = tmp_path / "policy.png"
    assert str(out) in plot("policy", "--rules", "farkle", "--out", str(out))
    assert out.read_bytes()[:8] == PNG


def test_policy_svg_words_and_numbers_come_from_the_turn_solver(tmp_path: Path) -> None:
    spec = "dix-mille(entry=800)"
    out = tmp_path / "policy.svg"
    plot("policy", "-r", spec, "-o", str(out), "--max-total", "2000")
    text = svg_text(out)
    assert "dix-mille: bank or throw, by turn total and dice in hand" in text  # title
    assert "turn total (points kept so far this turn)" in text  # x label
    assert "dice to throw next" in text  # y label
    rules = load_rules(spec)
    assert f"rules: {rules.spec}." in text  # the canonical spec in the caption
    for n, threshold in turn_summary(rules)["thresholds"].items():
        if threshold is not None:
            assert f"bank from {threshold}" in text, n
    assert "the rules never allow banking here" in text  # five dice: forced full hand (T-5)


def test_policy_not_entered_cannot_bank_below_the_entry(tmp_path: Path) -> None:
    out = tmp_path / "entry.svg"
    plot("policy", "-r", "dix-mille(entry=800)", "-o", str(out), "--not-entered")
    text = svg_text(out)
    assert "a player not entered yet" in text
    assert "bank from 800" in text  # no bank below the entry (T-7)
    assert "bank from 200" not in text


def test_policy_game_is_the_game_solver_at_both_scores(tmp_path: Path) -> None:
    out = tmp_path / "game.svg"
    args = ["policy", "--game", "-r", SMALL_GAME, "--score", "200", "--opponent", "350"]
    plot(*args, "-o", str(out))
    text = svg_text(out)
    assert "greed: bank or throw to win, at 200 against 350" in text
    assert f"rules: {SMALL_GAME}." in text and "Game solver" in text
    solution = load_game_solution(load_rules(SMALL_GAME))  # solved and kept in the cache
    assert solution is not None
    thresholds = PairSolutions(solution).turn(200, 350).thresholds()
    for threshold in thresholds.values():
        if threshold is not None and threshold <= 2000:
            assert f"bank from {threshold}" in text
    assert f"{solution.win[4, 7]:.1%}" in text  # the chance to win, in the caption


def test_threshold_heat_maps(tmp_path: Path) -> None:
    out = tmp_path / "threshold.svg"
    result = runner.invoke(app, ["plot", "threshold", "-r", SMALL_GAME, "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""  # the progress bar is transient
    text = svg_text(out)
    assert "greed: when to bank to win, by both banked scores" in text
    assert "my banked score" in text and "opponent's banked score" in text
    assert f"rules: {SMALL_GAME}." in text
    for n in ("1 die", "2 dice", "3 dice", "4 dice", "5 dice (full hand)"):
        assert f"{n} in hand" in text
    first = load_game_solution(load_rules(SMALL_GAME))
    assert first is not None and f"first player wins {first.first_player:.1%}" in text
    # the cells are one picture in the SVG, not a path each (greed's full map: 3.5 MB)
    raw = out.read_text()
    assert raw.count("<path") < 200  # (a path a cell: over 500 here)
    png = tmp_path / "threshold.png"
    plot("threshold", "-r", SMALL_GAME, "-o", str(png), "--dice", "3")  # from the cache
    assert png.read_bytes()[:8] == PNG


def test_values_is_the_strategy_doc_figure(tmp_path: Path) -> None:
    out = tmp_path / "values.svg"
    plot("values", "-r", "dix-mille", "-o", str(out))
    text = svg_text(out)
    assert "dix-mille: throwing on versus banking, by dice in hand" in text
    assert "expected points banked by the turn" in text and "bank now" in text
    assert "throw 5 dice (full hand)" in text and "rules: dix-mille." in text


@pytest.fixture
def simulation(tmp_path: Path) -> Path:
    path = tmp_path / "sim.json"
    # The engine path: 60 games take a second, where the fast path's kernels would be
    # compiled a second time in this worker (tests/conftest.py gives them one worker).
    args = ["simulate", "-r", "greed(target=1000)", "-p", "expert,cautious", "-n", "60"]
    args += ["--method", "engine"]
    result = runner.invoke(app, [*args, "--seed", "4", "-j", "1", "-q", "--json", str(path)])
    assert result.exit_code == 0, result.output
    return path


def test_winrates_from_a_simulation(tmp_path: Path, simulation: Path) -> None:
    out = tmp_path / "wins.svg"
    plot("winrates", str(simulation), "-o", str(out))
    text = svg_text(out)
    document = json.loads(simulation.read_text())
    assert "greed(target=1000): win rate by player and by seat" in text
    assert "by player" in text and "by seat (seat 1 plays first)" in text
    assert "win rate (%), 95% interval" in text and "fair share 1/2" in text
    assert "rules: greed(target=1000). 60 games (60 finished), seed 4" in text
    for entry in document["players"] + document["seats"]:
        assert f"{100 * entry['win_rate']:.1f}%" in text
    assert "expert" in text and "cautious" in text
    png = tmp_path / "wins.png"
    plot("winrates", str(simulation), "-o", str(png))
    assert png.read_bytes()[:8] == PNG


def test_first_player_compares_simulations(tmp_path: Path, simulation: Path) -> None:
    other = tmp_path / "other.json"
    args = ["simulate", "-r", "greed(target=500)", "-p", "expert,expert", "-n", "40"]
    result = runner.invoke(app, [*args, "--seed", "1", "-j", "1", "-q", "--json", str(other)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "first.svg"
    plot("first-player", str(simulation), str(other), "-o", str(out))
    text = svg_text(out)
    assert "The first player's win rate, by rule set" in text
    assert "greed(target=1000)" in text and "greed(target=500)" in text
    assert "40 or 60 games each" in text and "fair share 50%" in text
    # the line-ups differ: each row says whose it is (a mix read as one rule set's edge)
    assert "the players under each row" in text
    assert "expert against cautious" in text and "expert #1 against expert #2" in text
    for path in (simulation, other):
        seat = json.loads(path.read_text())["seats"][0]
        assert f"{100 * seat['win_rate']:.2f}%" in text
    three = tmp_path / "three.json"
    args = ["simulate", "-r", "greed(target=500)", "-p", "expert,expert,greedy", "-n", "9"]
    assert runner.invoke(app, [*args, "-j", "1", "-q", "--json", str(three)]).exit_code == 0
    result = runner.invoke(app, ["plot", "first-player", str(other), str(three), "-o", str(out)])
    assert result.exit_code == 2 and "seat different numbers of players" in result.output
    plot("first-player", str(other), "-o", str(out))  # one line-up: said once, in the caption
    text = svg_text(out)
    assert "seats rotated, expert #1 against expert #2)" in text


def test_threads_limit_a_solve_and_are_refused_where_nothing_is_solved(tmp_path: Path) -> None:
    """Every command that may solve the game takes --threads, as solve --game does (a shared
    machine set NUMBA_NUM_THREADS to keep plot and review off every core)."""
    out = tmp_path / "threshold.svg"
    plot("threshold", "-r", "farkle-minimal(target=500)", "--threads", "1", "-o", str(out))
    assert out.exists()
    args = ["plot", "policy", "-r", "greed", "--threads", "1", "-o", str(tmp_path / "p.svg")]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "--threads only applies with --game" in result.output
    result = runner.invoke(app, ["review", "--threads", "2", str(tmp_path / "none.json")])
    assert result.exit_code == 2 and "--threads only applies with --solve" in result.output


def test_turn_scores_refuse_a_game_bot_at_a_score_its_game_has_not(tmp_path: Path) -> None:
    """optimal plays the game, where greed's player at 0 has not entered: its turns drawn as
    an entered player's (the caption's words) never banked below 300, and farkled 43%."""
    out = tmp_path / "turns.svg"
    args = ["plot", "turn-scores", "-r", "greed", "-p", "optimal,expert", "-n", "10"]
    result = runner.invoke(app, [*args, "-o", str(out)])
    assert result.exit_code == 2 and not out.exists()
    assert "optimal plays the whole game, where a player at 0 has not entered" in result.output


def test_turn_scores(tmp_path: Path) -> None:
    out = tmp_path / "turns.svg"
    args = ["turn-scores", "-r", "greed", "-p", "expert,threshold:300", "-n", "300"]
    plot(*args, "--seed", "2", "-o", str(out))
    text = svg_text(out)
    assert "greed: points banked per turn" in text
    assert "share of turns (%)" in text and "points banked by the turn" in text
    assert "rules: greed. 300 turns per bot simulated through the engine (seed 2)" in text
    assert "expert: mean" in text and "threshold:300: mean" in text
    solved = turn_summary(load_rules("greed"))["expected_turn"]
    assert f"turn solver's exact mean for expert play: {solved:,.1f}" in text
    again = tmp_path / "again.svg"
    plot(*args, "--seed", "2", "-o", str(again))
    assert svg_text(again) == text  # the same seed draws the same picture


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["policy", "-o", "x.pdf"], ".png or .svg"),
        (["policy"], "--out FILE.png"),
        (["policy", "-r", "nope", "-o", "x.png"], "nope"),
        (["policy", "-r", "dix-mille(bogus=1)", "-o", "x.png"], "bogus"),
        (["policy", "--score", "525", "-o", "x.png"], "must be a multiple of 50"),
        (["policy", "--score", "10000", "-o", "x.png"], "has reached the target of 10000"),
        (["policy", "--score=-100", "-o", "x.png"], "the plots start at a score of 0"),
        (["policy", "--game", "-r", "dix-mille", "-o", "x.png"], "ticks_to_cross=0"),
        (["policy", "--game", "-r", SMALL_GAME, "--opponent", "500", "-o", "x.png"], "--opponent"),
        (["policy", "--game", "--not-entered", "-r", SMALL_GAME, "-o", "x.png"], "turn solver"),
        (["policy", "--not-entered", "--score", "100", "-o", "x.png"], "not entered"),
        (["policy", "--max-total", "10", "-o", "x.png"], "--max-total"),
        (["policy", "-r", "dix-mille(straights_over_throws)", "-o", "x.png"], "V-6"),
        (["values", "-r", "dix-mille(multiples_over_throws)", "-o", "x.png"], "V-6, V-7"),
        (["threshold", "-r", "zilch(entry=500)", "-o", "x.png"], "F-1"),
        (["threshold", "-r", "greed(target=300,multiples_over_throws)", "-o", "x.png"], "V-7"),
        (["threshold", "-r", SMALL_GAME, "--dice", "6", "-o", "x.png"], "between 1 and 5"),
        (["threshold", "-r", SMALL_GAME, "-o", "x.gif"], ".png or .svg"),
        (["winrates", "missing.json", "-o", "x.png"], "cannot read"),
        (["turn-scores", "-p", "expert,wizard", "-o", "x.png"], "wizard"),
        (["turn-scores", "-p", "expert,", "-o", "x.png"], "comma"),
        (["turn-scores", "-n", "0", "-o", "x.png"], "--turns"),
        (["turn-scores", "--bin", "0", "-o", "x.png"], "--bin"),
        (["values", "-o", "no/such/folder/v.png"], "cannot write"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(
    args: list[str], needle: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["plot", *args])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert needle in lines[0]
    assert "Traceback" not in result.output
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("not json", "is not JSON"),
        ('{"players": []}', "not a result of zloutch simulate"),
        ("\udcff", "cannot read"),
    ],
)
def test_winrates_refuses_a_file_that_is_not_a_result(
    content: str, needle: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    result = runner.invoke(app, ["plot", "winrates", str(path), "-o", str(tmp_path / "w.png")])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and needle in result.stderr
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "w.png").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["policy", "--game", "--rules", "greed(target=500)"],
        ["threshold", "--rules", "greed(target=500)"],
        ["values", "--rules", "greed"],
    ],
)
def test_without_matplotlib_the_install_hint_comes_before_any_solve(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from zloutch.adapters import plots
    from zloutch.adapters.cli import plot

    def no_solving(*_: object, **__: object) -> None:
        raise AssertionError("solved before the install hint")

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setattr(plot, "solved_game_with_progress", no_solving)
    monkeypatch.setattr(plots, "turn_solution", no_solving)
    picture = tmp_path / "p.png"
    result = runner.invoke(app, ["plot", *command, "--out", str(picture)])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: drawing pictures needs matplotlib")
    assert result.stderr.count("\n") == 1 and not picture.exists()
