"""zloutch solve and zloutch score --advise: the contracts of the strategy issues."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from zloutch.cli import app

runner = CliRunner()


def test_solve_json_has_the_contract_keys() -> None:
    result = runner.invoke(app, ["solve", "--rules", "greed", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert {"rules", "expected_turn", "thresholds", "farkle_probability"} <= set(data)
    assert data["rules"] == "greed"
    assert set(data["thresholds"]) == {"1", "2", "3", "4", "5"}
    assert data["farkle_probability"]["1"] == 2 / 3


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
