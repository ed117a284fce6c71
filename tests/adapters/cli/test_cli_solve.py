"""zloutch solve and zloutch score --advise: the contracts of the strategy issues."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zloutch.adapters.cli import app

# The game solver's Numba kernels compiled once for a fresh clone, by the worker that runs
# the simulator's (about 5 s of CPU each time a worker compiles them): tests/conftest.py.
pytestmark = pytest.mark.xdist_group("sim-kernels")

runner = CliRunner()


def test_solve_json_has_the_contract_keys() -> None:
    result = runner.invoke(app, ["solve", "--rules", "greed", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert {"rules", "expected_turn", "thresholds", "farkle_probability"} <= set(data)
    assert data["rules"] == "greed"
    assert set(data["thresholds"]) == {"1", "2", "3", "4", "5"}
    assert data["farkle_probability"]["1"] == 2 / 3


def test_a_situation_the_rule_set_ignores_is_said_not_dropped() -> None:
    """farkle's turn does not depend on the banked score, farkle-minimal's not on entering:
    the solve answers the turn, and says on stderr that the flag changed nothing."""
    result = runner.invoke(app, ["solve", "-r", "farkle", "--score", "5000", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["situation"] == {"entered": True, "score": 0}
    assert "note: --score 5000 changes nothing in farkle" in result.stderr
    result = runner.invoke(app, ["solve", "-r", "farkle-minimal", "--not-entered"])
    assert result.exit_code == 0, result.output
    assert "note: --not-entered changes nothing in farkle-minimal" in result.stderr
    # where they matter, nothing is said
    result = runner.invoke(app, ["solve", "-r", "dix-mille", "--not-entered", "--json"])
    assert json.loads(result.stdout)["situation"]["entered"] is False
    assert "note:" not in result.stderr


def test_solve_zilch_reports_the_long_run_average() -> None:
    data = json.loads(runner.invoke(app, ["solve", "--rules", "zilch", "--json"]).stdout)
    assert round(data["long_run_average"], 3) == 620.855


def test_solve_game_json_and_compensation() -> None:
    args = ["solve", "--game", "--rules", "greed(target=1000)", "--json"]
    plain = json.loads(runner.invoke(app, args).stdout)
    assert 0.5 < plain["first_player"] < 0.7 and "compensation" not in plain
    assert plain["residual"] < 1e-12
    with_head_start = json.loads(runner.invoke(app, [*args, "--compensation"]).stdout)
    assert with_head_start["cached"] is True  # the first call saved the table
    assert with_head_start["compensation"]["points"] % 50 == 0
    assert abs(with_head_start["compensation"]["first_player"] - 0.5) < 0.05


def test_solve_game_on_the_threads_asked_for() -> None:
    args = ["solve", "--game", "--rules", "greed(target=800)", "--json", "--threads", "2"]
    data = json.loads(runner.invoke(app, args).stdout)
    assert data["residual"] < 1e-12 and data["cached"] is False
    assert 0.5 < data["first_player"] < 0.7


def test_solve_game_refuses_what_it_cannot_model() -> None:
    result = runner.invoke(app, ["solve", "--game", "--rules", "dix-mille"])
    assert result.exit_code == 2
    assert "ticks_to_cross=0" in result.output and "Traceback" not in result.output


def test_score_advise_says_which_keep_and_whether_to_bank() -> None:
    # dix-mille at 300: keeping the two 1s makes 500, worth banking; keeping 1 1 5
    # makes 550, which cannot be banked (T-6), so the solver prefers 1 1 then bank.
    args = ["score", "--rules", "dix-mille", "--advise", "--total", "300", "--json", "11534"]
    data = json.loads(runner.invoke(app, args).stdout)
    best = data["advice"]["best"]
    assert best["dice"] == [1, 1] and best["then"] == "bank" and best["value"] == 500.0
    assert len(data["advice"]["keeps"]) == len(data["keeps"])


@pytest.mark.parametrize(
    ("spec", "then"),
    [("greed(target=500)", "starts the last turns"), ("zilch(target=500)", "wins the game (G-2)")],
)
def test_score_advise_notes_a_bank_that_reaches_the_target(spec: str, then: str) -> None:
    """The advice counts the turn's points: a bank that would reach the target is said
    apart, not silently ignored (400 banked, 100 this turn, a 1 kept: 600 >= 500)."""
    args = ["score", "-r", spec, "--advise", "--score", "400", "--total", "100", "--json"]
    data = json.loads(runner.invoke(app, [*args, "15234"]).stdout)
    note = data["advice"]["note"]
    assert note.startswith("a bank of 400 + ") and f"reaches the target of 500 and {then}" in note
    result = runner.invoke(app, [*args[:-1], "15234"], env={"COLUMNS": "300"})
    assert f"Note: {note}" in result.stdout
    # far from the target, or at an exact target (which the advice reads itself): no note
    far = json.loads(runner.invoke(app, [*args[:5], "0", *args[6:], "15234"]).stdout)
    assert far["advice"]["note"] is None
    exact = ["score", "-r", "dix-mille(target=1000)", "--advise", "--score", "800", "--json"]
    assert json.loads(runner.invoke(app, [*exact, "15234"]).stdout)["advice"]["note"] is None


@pytest.mark.parametrize(
    ("spec", "faces", "score", "value"),
    [
        ("cinq-mille", "11111", 0, 5000.0),
        ("dix-mille(five_ones_win)", "11111", 2000, 8000.0),
        ("dix-mille-6", "111111", 0, 10000.0),
    ],
)
def test_score_advise_keeps_five_ones_that_win_the_game(
    spec: str, faces: str, score: int, value: float
) -> None:
    """G-5: the throw that wins at once was advised as a farkle ("No keep: the turn total
    of 0 is lost", no best keep). Its winning keep is the advice, valued as the turn
    solver values a win (the points left to the target)."""
    args = ["score", "-r", spec, "--advise", "--score", str(score)]
    advice = json.loads(runner.invoke(app, [*args, "--json", faces]).stdout)["advice"]
    best = {"dice": [1] * len(faces), "points": 0, "value": value, "then": "win"}
    assert advice["best"] == best and advice["keeps"] == [best]
    text = runner.invoke(app, [*args, faces], env={"COLUMNS": "200"}).stdout
    assert f"Best: keep {' '.join(faces)}: it wins the game at once (G-5)." in text
    assert "is lost" not in text


def test_score_advise_says_why_no_keep_is_advised() -> None:
    farkle = ["score", "-r", "dix-mille", "--advise", "--total", "500", "2346"]
    said = runner.invoke(app, farkle, env={"COLUMNS": "200"}).stdout
    assert "No keep: the turn total of 500 is lost: the throw scores nothing (a farkle)." in said
    passes = ["score", "-r", "dix-mille", "--advise", "--total", "9950", "11"]
    said = runner.invoke(app, passes, env={"COLUMNS": "200"}).stdout
    assert "the turn total of 9950 is lost: each keep passes the exact target (T-9)." in said


def test_solve_zilch_thresholds_by_farkles_in_a_row() -> None:
    # F-1: the nearer the third farkle in a row (500 lost), the earlier the bank.
    data = json.loads(runner.invoke(app, ["solve", "--rules", "zilch", "--json"]).stdout)
    assert {"rules", "expected_turn", "thresholds", "farkle_probability"} <= set(data)
    by_farkles = data["thresholds_by_farkles"]
    assert set(by_farkles) == {"0", "1", "2"}
    table = {z: [by_farkles[z][str(n)] for n in range(1, 7)] for z in by_farkles}
    assert table == {
        "0": [350, 300, 450, 1050, 3150, None],
        "1": [300, 300, 350, 1000, 3050, None],
        "2": [300, 300, 300, 550, 2650, None],
    }
    assert by_farkles["0"] == data["thresholds"]
    text = runner.invoke(app, ["solve", "--rules", "zilch"]).stdout
    assert "farkles in a row" in text and "2650" in text


def test_solve_thresholds_of_v7_and_of_entry_by_one_throw() -> None:
    spec = "dix-mille(multiples_over_throws=true)"
    data = json.loads(runner.invoke(app, ["solve", "--rules", spec, "--json"]).stdout)
    assert data["thresholds"]["4"] is not None and data["thresholds"]["5"] is None
    args = ["solve", "--rules", "dix-mille-6", "--not-entered", "--json"]
    data = json.loads(runner.invoke(app, args).stdout)
    assert data["thresholds"]["3"] is not None and data["thresholds"]["3"] >= 1000


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["score", "--total", "300", "11534"], "error: --total only applies with --advise"),
        (["score", "--score", "300", "11534"], "error: --score only applies with --advise"),
        (["score", "--not-entered", "11534"], "error: --not-entered only applies with --advise"),
        (["score", "-r", "zilch", "--farkles", "1", "11534"], "--farkles only applies with"),
        (["score", "--advise", "--farkles", "1", "11534"], "consecutive-farkle penalty (F-1)"),
        (["score", "--advise", "--total", "375", "11534"], "must be a multiple of 50"),
        (["score", "--advise", "--score", "12000", "11534"], "T-9"),
        (["score", "--advise", "--score", "9525", "11534"], "must be a multiple of 50"),
        (["solve", "--score", "12000"], "T-9"),
        (["solve", "--score", "125"], "must be a multiple of 50"),
        (["solve", "--score", "9950"], "is never written in dix-mille"),
        (
            ["score", "-r", "farkle(target=1000)", "--advise", "--opponent", "5000", "11534"],
            "the opponent's score: a banked score of 5000 has reached the target of 1000",
        ),
        # at the target the game is won (it answered a turn worth 0, or "No keep")
        (["solve", "--score", "10000"], "has reached the target of 10000: no turn is played"),
        (["score", "--advise", "--score", "10000", "11534"], "has reached the target of 10000"),
        (["solve", "-r", "cinq-mille", "--score", "5000"], "has reached the target of 5000"),
        (["solve", "--threads", "2"], "error: --threads only applies with --game"),
        (["solve", "--game", "--threads", "2", "--device", "cuda"], "--threads is for --device"),
        (["solve", "--game", "--threads", "0"], "'--threads'"),
    ],
)
def test_options_that_cannot_apply_are_refused(args: list[str], needle: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert needle in result.output and "Traceback" not in result.output


def test_score_advise_under_v7_reads_the_multiple_set_aside() -> None:
    spec = "dix-mille(multiples_over_throws=true)"
    args = ["score", "-r", spec, "--advise", "--total", "600", "-s", "6 6 6", "--json", "6", "3"]
    best = json.loads(runner.invoke(app, args).stdout)["advice"]["best"]
    assert best == {"dice": [6], "points": 600, "value": 1200.0, "then": "bank"}


def test_score_advise_past_the_solved_totals() -> None:
    args = ["score", "-r", "zilch", "--advise", "--total", "50000", "--json", "15234"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0
    best = json.loads(result.stdout)["advice"]["best"]
    assert best == {"dice": [1, 5], "points": 150, "value": 50150.0, "then": "bank"}


def test_score_advise_with_farkles_in_a_row_under_f1() -> None:
    # One die set aside at 100; keeping 1 1 makes 300 with three dice to throw: thrown on
    # with no farkle behind, banked with two (the third farkle costs 500).
    base = ["score", "-r", "zilch", "--advise", "--total", "100", "--json", "11234"]
    fresh = json.loads(runner.invoke(app, base).stdout)["advice"]
    risky = json.loads(runner.invoke(app, [*base, "--farkles", "2"]).stdout)["advice"]
    assert fresh["objective"] == risky["objective"] == "long-run points per turn (F-1)"
    assert fresh["best"]["dice"] == [1] and fresh["best"]["then"] == "throw"
    assert risky["best"] == {"dice": [1, 1], "points": 200, "value": 300.0, "then": "bank"}


def test_solve_game_heals_a_damaged_table(_private_cache: Path) -> None:
    # A table cut short (a crash, a full disk) crashed every command that read it.
    args = ["solve", "--game", "--rules", "farkle-minimal(target=300)", "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0 and first.stderr == ""
    [table] = (_private_cache / "game").glob("*.npz")
    table.write_bytes(table.read_bytes()[:300])

    healed = runner.invoke(app, args)
    assert healed.exit_code == 0, healed.output
    [line] = healed.stderr.splitlines()
    assert line.startswith("warning: the cached solved game of farkle-minimal(target=300) was")
    assert "Traceback" not in healed.output
    data = json.loads(healed.stdout)
    assert data["first_player"] == json.loads(first.stdout)["first_player"]
    assert data["cached"] is False

    again = runner.invoke(app, args)  # solved again and saved whole: read back, silently
    assert again.exit_code == 0 and again.stderr == ""
    assert json.loads(again.stdout)["cached"] is True


def test_solve_goes_on_without_a_usable_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    monkeypatch.setenv("ZLOUTCH_CACHE", str(tmp_path / "file" / "cache"))
    result = runner.invoke(app, ["solve", "--rules", "greed", "--json"])
    assert result.exit_code == 0
    [line] = result.stderr.splitlines()
    assert line.startswith("warning: could not save the turn summary of greed in the cache ")
    assert json.loads(result.stdout)["thresholds"]["1"] is not None


def test_solve_notes_thresholds_past_a_small_target() -> None:
    small = runner.invoke(app, ["solve", "-r", "greed(target=500)"], env={"COLUMNS": "300"})
    assert small.exit_code == 0, small.output
    assert "it throws on past the target of 500 (bank from 950 and more above)" in small.stdout
    usual = runner.invoke(app, ["solve", "-r", "greed"], env={"COLUMNS": "300"})
    assert "Note:" not in usual.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        # a limit equal to the target banks on it: nothing passes it
        (["-r", "greed(target=2800)"], None),
        # G-7 reads the score: at 9000, the five-dice limit of 2800 passes 10,000
        (
            ["-r", "farkle(last_thousand)", "--score", "9000"],
            "past the target of 10000 from a score of 9000 (bank from 2800 and more above). "
            "For the chance to win, solve the game: zloutch solve --game.",
        ),
        # the game solver does not model G-6: no pointer to it
        (
            ["-r", "greed(target=500,final_turns=false,final_round)"],
            "(bank from 950 and more above). The game solver does not model this rule set.",
        ),
    ],
)
def test_the_turn_note_reads_the_score_and_points_where_the_game_is_solved(
    args: list[str], words: str | None
) -> None:
    result = runner.invoke(app, ["solve", *args], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    if words is None:
        assert "Note:" not in result.stdout
    else:
        assert words in result.stdout


def test_the_progress_bar_says_starting_then_counts_with_separators() -> None:
    """Before a solve's first report the bar read "0/None score levels"."""
    import io

    from rich.console import Console

    from zloutch.adapters.cli.support import progress_bar

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)
    with progress_bar("Solving the game", "score levels", console=console) as advance:
        first = out.getvalue()
        advance(499, 4990)
    assert "starting" in first and "None" not in out.getvalue()
    assert "499/4,990 score levels" in out.getvalue()


def test_score_advise_against_an_opponent_is_the_game_solvers_chance_to_win() -> None:
    """--opponent: the advice of the game solver at both banked scores (it was points only).
    Greed to 1000, 500 against 900, 200 in the turn, 1 5 thrown: for the points keep 1 5
    and bank at 350; to win, throw again (the opponent is 100 from the target)."""
    from zloutch.rules import load_rules
    from zloutch.strategy.expert import advise_throw
    from zloutch.strategy.game_solver import solve_game
    from zloutch.strategy.optimal import GameAdvisor

    spec = "greed(target=1000)"
    args = ["score", "-r", spec, "--advise", "--score", "500", "--total", "200", "--json"]
    points = json.loads(runner.invoke(app, [*args, "1", "5", "2", "3", "6"]).stdout)["advice"]
    game = runner.invoke(app, [*args, "--opponent", "900", "1", "5", "2", "3", "6"])
    assert game.exit_code == 0, game.output
    advice = json.loads(game.stdout)["advice"]
    assert advice["objective"] == "win probability" and advice["note"] is None
    assert {tuple(k["dice"]): k["then"] for k in points["keeps"]}[(1, 5)] == "bank"
    assert {tuple(k["dice"]): k["then"] for k in advice["keeps"]}[(1, 5)] == "throw"
    rules = load_rules(spec)
    direct = advise_throw(
        rules, (1, 5, 2, 3, 6), 200, score=500, opponent=900,
        advisor=GameAdvisor(solve_game(rules), rules),
    )  # fmt: skip
    assert [(list(k.dice), k.value, k.then) for k in direct] == [
        (k["dice"], pytest.approx(k["value"], abs=1e-12), k["then"]) for k in advice["keeps"]
    ]
    text = runner.invoke(app, [*args[:-1], "--opponent", "900", "1", "5", "2", "3", "6"])
    assert "chance to" in text.stdout and "%" in text.stdout
    # dix-mille's sheet: two scores do not tell the levels a bank bumps (a single level
    # each valued a bump as sending the opponent to 0: 90% where the game's hint said 67%)
    sheet = ["score", "-r", "dix-mille", "--advise", "--score", "3600", "--opponent", "4000"]
    refused = runner.invoke(app, [*sheet, "1", "2"])
    assert refused.exit_code == 2 and "which two scores do not tell" in refused.output
