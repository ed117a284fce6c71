"""zloutch review: the command, its files, and one error line for every bad input."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from zloutch.adapters.cli import app
from zloutch.engine.record import Record, dump_record
from zloutch.rules import load_rules

runner = CliRunner()

NO_ENTRY = "farkle-minimal(target=500)"
"""Two players, no entry minimum; its game solves in well under a second."""
TIMID = ("throw", "roll 1 2 3 4 6 6", "keep 1", "bank", "throw", "roll 1 1 1 2 3 4", "keep 1 1 1")
"""Ana banks 100 with five dice to throw; Bob keeps three 1s."""


def write_record(
    folder: Path,
    spec: str = NO_ENTRY,
    actions: tuple[str, ...] = TIMID,
    players: tuple[str, ...] = ("Ana", "Bob"),
) -> str:
    path = folder / "game.json"
    path.write_text(dump_record(Record(load_rules(spec).spec, players, actions)))
    return str(path)


def review(*args: str) -> Result:
    return runner.invoke(app, ["review", *args])


def test_review_prints_decisions_summary_and_mistakes(tmp_path: Path) -> None:
    result = runner.invoke(app, ["review", write_record(tmp_path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Graded in expected points: no solved game of farkle-minimal(target=500)" in out
    assert "--solve" in out
    for title in ("Decisions", "Players", "Biggest mistakes"):
        assert title in out
    assert "bank 100" in out and "throw" in out
    assert "start of turn" not in out  # forced moves are left out unless --all


def test_all_lists_forced_moves_and_mistakes_only_the_mistakes(tmp_path: Path) -> None:
    path = write_record(tmp_path)
    every = runner.invoke(app, ["review", path, "--all"], env={"COLUMNS": "200"})
    assert every.exit_code == 0 and "start of turn" in every.stdout and "forced" in every.stdout
    mistakes = runner.invoke(app, ["review", path, "--mistakes-only"], env={"COLUMNS": "200"})
    assert mistakes.exit_code == 0
    assert "bank 100" in mistakes.stdout and "keep 1 1 1" not in mistakes.stdout


def test_json_file_and_json_on_stdout(tmp_path: Path) -> None:
    path = write_record(tmp_path)
    out = tmp_path / "review.json"
    result = runner.invoke(app, ["review", path, "--json", str(out), "--quiet"])
    assert result.exit_code == 0 and result.stdout == ""
    document = json.loads(out.read_text())
    assert document["format"] == "zloutch-review"
    assert document["objective"] == "expected points"
    assert [s["player"] for s in document["summary"]] == ["Ana", "Bob"]
    assert document["summary"][0]["mistakes"][0]["chosen"] == "bank"
    printed = runner.invoke(app, ["review", path, "--json", "-"])
    assert printed.exit_code == 0
    assert json.loads(printed.stdout) == document


def test_solve_grades_in_win_probability_and_keeps_the_table(tmp_path: Path) -> None:
    path = write_record(tmp_path)
    solved = runner.invoke(app, ["review", path, "--solve", "--json", "-"])
    assert solved.exit_code == 0, solved.output
    document = json.loads(solved.stdout)
    assert document["objective"] == "win probability"
    assert "solved now" in document["note"]
    assert document["curve"]["measure"] == "win probability"
    cached = json.loads(runner.invoke(app, ["review", path, "--json", "-"]).stdout)
    assert cached["objective"] == "win probability" and "cached" in cached["note"]
    points = json.loads(runner.invoke(app, ["review", path, "--points", "--json", "-"]).stdout)
    assert points["objective"] == "expected points"


def test_solve_falls_back_to_points_where_the_game_solver_does_not_apply(
    tmp_path: Path,
) -> None:
    spec = "dix-mille(final_round)"
    path = write_record(tmp_path, spec, ("throw", "roll 1 2 3 4 6"), ("Ana", "Bob"))
    result = runner.invoke(app, ["review", path, "--solve", "--json", "-"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["objective"] == "expected points"
    assert "(G-6)" in document["note"]


def test_a_game_with_a_sheet_history_is_graded_in_wins_one_turn_ahead(tmp_path: Path) -> None:
    """Ticks, bumps and take-back: the review reads the solved sheet-blind model one turn
    ahead on the sheet, and never asks to switch a rule off."""
    spec = "dix-mille(target=2000)"
    path = write_record(tmp_path, spec, ("throw", "roll 1 2 3 4 6"), ("Ana", "Bob"))
    result = runner.invoke(app, ["review", path, "--solve", "--json", "-"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["objective"] == "win probability"
    assert "sheet-blind model" in document["note"] and "one turn ahead" in document["note"]
    assert "switch" not in document["note"]
    assert document["decisions"] and all(0 <= d["best_value"] <= 1 for d in document["decisions"])
    assert document["sheet_blind"] is True
    # on screen, under the header: the luck and the costs do not add up through the model
    shown = runner.invoke(app, ["review", path, "--solve"], env={"COLUMNS": "200"})
    assert "do not sum to how the chance to win moved" in shown.output
    plain = write_record(tmp_path, "farkle(target=1000)", ("throw", "roll 2 2 3 3 4 6"), ("A", "B"))
    document = json.loads(runner.invoke(app, ["review", plain, "--solve", "--json", "-"]).stdout)
    assert document["objective"] == "win probability" and document["sheet_blind"] is False


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_writes_a_picture(tmp_path: Path, suffix: str) -> None:
    picture = tmp_path / f"curve{suffix}"
    result = runner.invoke(app, ["review", write_record(tmp_path), "--plot", str(picture), "-q"])
    assert result.exit_code == 0, result.output
    data = picture.read_bytes()
    if suffix == ".png":
        assert data.startswith(b"\x89PNG\r\n\x1a\n")
    else:
        root = ElementTree.fromstring(data)
        assert root.tag.endswith("svg")


def test_plot_of_the_win_probability(tmp_path: Path) -> None:
    picture = tmp_path / "curve.SVG"
    result = runner.invoke(
        app, ["review", write_record(tmp_path), "--solve", "--plot", str(picture), "-q"]
    )
    assert result.exit_code == 0, result.output
    assert b"chance to win" in picture.read_bytes()


def one_error_line(result: Result) -> str:
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def test_bad_inputs_give_one_error_line(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    assert "cannot read the record" in one_error_line(review(str(missing)))
    not_json = tmp_path / "notes.txt"
    not_json.write_text("hello")
    assert "invalid JSON" in one_error_line(review(str(not_json)))
    other = tmp_path / "other.json"
    other.write_text('{"format": "something else"}')
    assert "not a game record" in one_error_line(review(str(other)))
    illegal = tmp_path / "illegal.json"
    document = json.loads(Path(write_record(tmp_path)).read_text())
    document["actions"][3] = "keep 5"
    document.pop("sheet")
    illegal.write_text(json.dumps(document))
    assert "action 4" in one_error_line(review(str(illegal)))


def test_bad_options_give_one_error_line(tmp_path: Path) -> None:
    path = write_record(tmp_path)
    assert ".png or .svg" in one_error_line(review(path, "--plot", str(tmp_path / "c.jpg")))
    assert "--mistakes-only" in one_error_line(review(path, "--all", "--mistakes-only"))
    assert "--points" in one_error_line(review(path, "--solve", "--points"))
    assert "--top" in one_error_line(review(path, "--top", "-1"))
    unwritable = str(tmp_path / "no" / "such" / "folder" / "r.json")
    assert "cannot write" in one_error_line(review(path, "--json", unwritable))
    picture = str(tmp_path / "no" / "such" / "c.png")
    assert "cannot write" in one_error_line(review(path, "--plot", picture))


def test_plot_without_matplotlib_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    line = one_error_line(review(write_record(tmp_path), "--plot", str(tmp_path / "c.png")))
    assert "pip install 'zloutch[plot]'" in line
    assert not (tmp_path / "c.png").exists()
