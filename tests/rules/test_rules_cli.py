"""The rules-facing parts of the command line: ``zloutch score`` and ``zloutch rules``.

Expected values are worked out by hand from docs/rules.md; test names carry the rule ids. (The
rest of the command line is tested in tests/adapters/cli/test_cli.py.)
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.adapters.cli.score import read_context
from zloutch.rules import HandContext, InvalidDiceError, load_rules

runner = CliRunner()
WIDE = {"COLUMNS": "200"}


def score_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["score", "--json", *args])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def error_line(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


# ---------------------------------------------------------------------------- G-5 and S-5


def test_s5_g5_json_best_is_4000_and_keeps_stay_sorted_by_points() -> None:
    data = score_json("-r", "dix-mille(five_ones_win)", "1", "1", "1", "1", "1")
    assert data["best"] == 4000  # S-5: five 1s are 4000; G-5 adds the win
    assert data["wins"] is True
    first = data["keeps"][0]
    assert (first["dice"], first["wins"], first["points"]) == ([1, 1, 1, 1, 1], False, 4000)
    # The contract: sorted by points, highest first; the win (no points of its own) is marked.
    points = [keep["points"] for keep in data["keeps"]]
    assert points == sorted(points, reverse=True)
    wins = [keep for keep in data["keeps"] if keep["wins"]]
    assert [(k["dice"], k["points"]) for k in wins] == [([1, 1, 1, 1, 1], 0)]


def test_s5_g5_cinq_mille_five_ones_are_worth_1200() -> None:
    data = score_json("-r", "cinq-mille", "11111")
    assert data["best"] == 1000 + 100 + 100
    assert data["wins"] is True and any(keep["wins"] for keep in data["keeps"])


def test_s6_dix_mille_6_six_ones_are_worth_4100() -> None:
    assert score_json("-r", "dix-mille-6", "111111")["best"] == 4000 + 100


def test_g5_table_puts_the_win_first_and_says_the_points() -> None:
    result = runner.invoke(app, ["score", "-r", "cinq-mille", "11111"], env=WIDE)
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if line.startswith("│")]
    assert "wins" in rows[0] and "1200" in rows[1]
    assert "it wins the game at once; read as points, the throw is worth 1200" in result.stdout


# ---------------------------------------------------------------------------- --set-aside


def test_set_aside_and_throw_together_past_the_dice() -> None:
    line = error_line("score", "--set-aside", "123456", "2")
    assert "6 dice set aside and 1 thrown make 7, more than the 5 dice of dix-mille" in line
    assert "at most 5 are thrown" not in line
    line = error_line("score", "--set-aside", "1234561", "2")
    assert "7 dice set aside and 1 thrown make 8" in line


def test_v6_several_set_aside_values_add_up() -> None:
    rules = load_rules("dix-mille(straights_over_throws)")
    assert read_context(rules, ["1", "5"], (2, 3, 4)) == HandContext((1, 5))
    assert read_context(rules, "1 5", (2, 3, 4)) == HandContext((1, 5))
    with pytest.raises(InvalidDiceError, match="more than the 5 dice"):
        read_context(rules, ["1 5", "5"], (2, 3, 4))


def test_v6_a_repeated_set_aside_flag_is_not_dropped() -> None:
    data = score_json("-r", "dix-mille(straights_over_throws)", "-s", "1", "-s", "5", "234")
    assert data["set_aside"] == [1, 5]


# ---------------------------------------------------------------------------- rules show


def test_rules_show_lists_the_g3_and_t7_readings() -> None:
    result = runner.invoke(app, ["rules", "show", "dix-mille(reentry=false)"], env=WIDE)
    assert result.exit_code == 0, result.output
    rows = {
        cells[1]: cells
        for line in result.stdout.splitlines()
        if line.startswith("│")
        for cells in [[c.strip() for c in line.strip("│").split("│")]]
        if len(cells) > 2
    }
    assert rows["ticks_restart"][:3] == ["G-3 Reading", "ticks_restart", "on"]
    assert rows["reentry"][:3] == ["T-7 Reading", "reentry", "off *"]
    assert "spec: dix-mille(reentry=false)" in result.stdout


def test_rules_show_toml_writes_the_readings() -> None:
    result = runner.invoke(app, ["rules", "show", "--toml", "dix-mille(ticks_restart=false)"])
    assert result.exit_code == 0, result.output
    assert "ticks_restart = false\n" in result.stdout
    assert "reentry = true\n" in result.stdout


def test_rules_show_refuses_an_extends_with_options(tmp_path: Any) -> None:
    path = tmp_path / "house.toml"
    path.write_text('[rules]\nextends = "dix-mille(joker)"\n', encoding="utf-8")
    line = error_line("rules", "show", str(path))
    # the file that holds the mistake first: a command may be given several
    assert line.startswith(f"error: in {path}, line 2: rules.extends: 'dix-mille(joker)'")


def test_a_rule_files_mistake_names_the_file_first(tmp_path: Any) -> None:
    """Several files may be given (a house file extends another): the one that holds the
    mistake comes first, even where its name is part of another's (h.toml, noh.toml)."""
    house = tmp_path / "h.toml"
    house.write_text('[rules]\nextends = "noh.toml"\n', encoding="utf-8")
    line = error_line("rules", "show", str(house))
    assert line.startswith(f"error: in {house}, line 2: rules.extends: "), line
    assert "cannot read the rule file" in line
    house.write_text('[rules]\nextends = "farkle"\n[turn]\nentri = 5\n', encoding="utf-8")
    line = error_line("score", "-r", str(house), "1", "5")
    assert line == f"error: in {house}, line 4: turn.entri: unknown key (did you mean 'entry'?)"


def test_a_rule_file_without_a_summary_is_shown_by_its_name_alone(tmp_path: Any) -> None:
    house = tmp_path / "house.toml"
    house.write_text('[rules]\nname = "house"\ndice = 5\n[game]\ntarget = 2000\n')
    result = runner.invoke(app, ["rules", "show", str(house)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].rstrip() == "house"


def test_a_rule_file_of_any_name_is_named_with_its_line(tmp_path: Any) -> None:
    """A file the loader reads by its folder (``./house.rules``, not ``.toml``) is named in
    the error as a ``.toml`` file is, and the text of an upload has its line alone."""
    from zloutch.engine.record import rules_from_text
    from zloutch.rules import InvalidRulesError

    text = '[rules]\nname = "house"\ndice = 5\n[game]\ntargte = 2000\n'
    house = tmp_path / "house.rules"
    house.write_text(text)
    result = runner.invoke(app, ["rules", "show", str(house)])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: in {house}, line 5: game.targte: unknown key")
    with pytest.raises(InvalidRulesError) as caught:
        rules_from_text(text)
    assert caught.value.located().startswith("line 5: game.targte: unknown key")
