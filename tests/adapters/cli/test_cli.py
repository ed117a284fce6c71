"""The command line: ``zloutch score``, ``zloutch rules``, errors at the edge.

Expected values are worked out by hand from docs/rules.md; test names carry the rule ids.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from zloutch import __version__
from zloutch.adapters.cli import app
from zloutch.adapters.cli.support import reflow
from zloutch.rules import PRESETS, load_rules

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
"""Rich wraps tables to the terminal width; a wide one keeps each row on one line."""


def score_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["score", "--json", *args])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def table_rows(output: str) -> list[list[str]]:
    """The body rows of the Rich tables in ``output``, as stripped cells."""
    return [
        [cell.strip() for cell in line.strip().strip("│").split("│")]
        for line in output.splitlines()
        if line.startswith("│")
    ]


def keeps_summary(data: dict[str, Any]) -> list[tuple[list[int], int]]:
    return [(keep["dice"], keep["points"]) for keep in data["keeps"]]


# ---------------------------------------------------------------------------- score --json


def test_s2_json_shape_and_values_for_1_1_4_4_3() -> None:
    data = score_json("1", "1", "4", "4", "3")
    assert data["rules"] == "dix-mille"
    assert data["throw"] == [1, 1, 3, 4, 4]
    assert data["farkle"] is False
    assert data["best"] == 200
    assert data["keeps"] == [
        {
            "dice": [1, 1],
            "points": 200,
            "full_hand": False,
            "wins": False,
            "combinations": [
                {"name": "single 1", "dice": [1], "points": 100, "wins": False},
                {"name": "single 1", "dice": [1], "points": 100, "wins": False},
            ],
        },
        {
            "dice": [1],
            "points": 100,
            "full_hand": False,
            "wins": False,
            "combinations": [{"name": "single 1", "dice": [1], "points": 100, "wins": False}],
        },
    ]


def test_json_has_every_contract_key() -> None:
    data = score_json("1", "5", "2", "3", "3")
    assert {"rules", "throw", "farkle", "best", "keeps"} <= set(data)
    for keep in data["keeps"]:
        assert {"dice", "points", "full_hand", "combinations"} <= set(keep)
        for combination in keep["combinations"]:
            assert {"name", "dice", "points"} <= set(combination)
    assert keeps_summary(data) == [([1, 5], 150), ([1], 100), ([5], 50)]


def test_s3_three_6s_is_600() -> None:
    data = score_json("6", "6", "6", "4", "2")
    assert data["best"] == 600
    assert keeps_summary(data) == [([6, 6, 6], 600)]
    assert data["keeps"][0]["combinations"] == [
        {"name": "three 6s", "dice": [6, 6, 6], "points": 600, "wins": False}
    ]


def test_s4_four_6s_is_1200() -> None:
    assert score_json("6", "6", "6", "6", "2")["best"] == 1200


def test_s5_five_6s_is_2400_and_a_full_hand() -> None:
    best = score_json("66666")["keeps"][0]
    assert (best["dice"], best["points"], best["full_hand"]) == ([6, 6, 6, 6, 6], 2400, True)


def test_s7_straight_is_1500_and_a_full_hand() -> None:
    data = score_json("5", "3", "1", "2", "4")
    assert data["throw"] == [1, 2, 3, 4, 5]
    best = data["keeps"][0]
    assert (best["dice"], best["points"], best["full_hand"]) == ([1, 2, 3, 4, 5], 1500, True)
    assert [c["name"] for c in best["combinations"]] == ["straight 1-5"]


def test_s14_charentaise_full_house_is_1800() -> None:
    data = score_json("--rules", "charentaise", "6", "6", "6", "3", "3")
    assert data["rules"] == "charentaise"
    assert data["best"] == 1800
    # keep_all_scoring (T-2): the whole full house is the only legal keep.
    assert keeps_summary(data) == [([3, 3, 6, 6, 6], 1800)]


def test_keeps_are_sorted_by_points_highest_first() -> None:
    for throw in ("11553", "155", "111556", "22233"):
        data = score_json("--rules", "dix-mille-6", throw)
        points = [keep["points"] for keep in data["keeps"]]
        assert points == sorted(points, reverse=True)
        assert data["best"] == points[0]


def test_g5_five_1s_win_is_marked_and_best_is_the_most_points() -> None:
    data = score_json("--rules", "cinq-mille", "11111")
    assert data["wins"] is True
    winning = [keep for keep in data["keeps"] if keep["wins"]]
    assert [keep["dice"] for keep in winning] == [[1, 1, 1, 1, 1]]
    assert data["best"] == max(keep["points"] for keep in data["keeps"])


def test_t4_farkle_json() -> None:
    data = score_json("2", "3", "4", "6", "6")
    assert data == {
        "rules": "dix-mille",
        "throw": [2, 3, 4, 6, 6],
        "set_aside": [],
        "farkle": True,
        "best": 0,
        "wins": False,
        "keeps": [],
    }


def test_packed_faces_equal_separate_faces() -> None:
    assert score_json("11532") == score_json("1", "1", "5", "3", "2")
    assert score_json("11", "532") == score_json("1", "1", "5", "3", "2")


def test_rules_spec_is_canonical_in_json() -> None:
    data = score_json("--rules", "dix-mille( joker , bump=any )", "1")
    assert data["rules"] == load_rules("dix-mille(bump=any,joker)").spec


def test_v6_straight_over_throws_with_one_die_set_aside() -> None:
    # docs/rules.md V-6: with a 1 set aside, 2 3 4 5 thrown completes the straight: +500, full hand.
    data = score_json("--rules", "dix-mille(straights_over_throws)", "--set-aside", "1", "2345")
    assert data["set_aside"] == [1]
    assert data["throw"] == [2, 3, 4, 5]
    best = data["keeps"][0]
    assert (best["dice"], best["points"], best["full_hand"]) == ([2, 3, 4, 5], 500, True)
    assert data["best"] == 500


def test_v6_set_aside_flag_then_separate_faces() -> None:
    spec = "dix-mille(straights_over_throws)"
    args = ["score", "--json", "--rules", spec, "--set-aside", "1", "2", "3", "4", "5"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["keeps"][0]["dice"] == [2, 3, 4, 5]
    assert data["keeps"][0]["points"] == 500


def test_v7_multiple_over_throws_doubles() -> None:
    # docs/rules.md V-7: 6 6 6 set aside (600), then a 6 doubles it: +600.
    data = score_json("--rules", "dix-mille(multiples_over_throws)", "--set-aside", "666", "6", "2")
    assert data["best"] == 600
    assert data["keeps"][0]["dice"] == [6]


# ---------------------------------------------------------------------------- score table


def test_score_table_lists_keeps_best_first() -> None:
    result = runner.invoke(app, ["score", "1", "1", "4", "4", "3"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "dix-mille: throw 1 1 3 4 4"
    assert table_rows(result.stdout) == [
        ["1 1", "200", "single 1 100 + single 1 100", ""],
        ["1", "100", "single 1 100", ""],
    ]
    assert "best: keep 1 1 for 200" in result.stdout


def test_score_table_marks_full_hand() -> None:
    result = runner.invoke(app, ["score", "12345"], env=WIDE)
    assert result.exit_code == 0
    assert table_rows(result.stdout)[0] == ["1 2 3 4 5", "1500", "straight 1-5 1500", "yes"]


def test_g5_score_table_puts_the_winning_keep_first() -> None:
    result = runner.invoke(app, ["score", "--rules", "cinq-mille", "11111"], env=WIDE)
    assert result.exit_code == 0
    assert table_rows(result.stdout)[0] == ["1 1 1 1 1", "wins", "five 1s (wins the game)", "yes"]
    assert "wins the game at once" in result.stdout


def test_t4_score_table_farkle_line() -> None:
    result = runner.invoke(app, ["score", "2", "3", "4", "6", "6"])
    assert result.exit_code == 0
    assert "farkle" in result.stdout
    assert "┃" not in result.stdout


# ---------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["0", "1", "2"], "'0' is not a die face"),
        (["7"], "'7' is not a die face"),
        (["-1", "2"], "'-1' is not a die face"),
        (["x"], "'x' is not a die face"),
        (["1", "2", "3", "4", "5", "6"], "6 dice given"),
        (["--rules", "dix-mille-6", "1234561"], "7 dice given"),
        ([], "empty"),
        ([""], "empty"),
        (["--rules", "nope", "1"], "unknown preset"),
        (["--rules", "dix-mille(bogus)", "1"], "bogus"),
        (["--rules", "dix-mille(entry=lots)", "1"], "entry"),
        (["--rules", "dix-mille(bump=sometimes)", "1"], "bump"),
        (["--rules", "no/such/file.toml", "1"], "cannot read"),
        (["--set-aside", "1", "2", "3"], "whole hand"),
        (["--set-aside", "11", "2", "3", "4", "5"], "whole hand"),
        (["--set-aside", "9", "2", "3", "4", "5"], "--set-aside"),
        (["--set-aside", "123456", "2"], "--set-aside"),
        (["--jsn", "1"], "--jsn"),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(args: list[str], needle: str) -> None:
    for extra in ([], ["--json"]):
        result = runner.invoke(app, ["score", *extra, *args])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("error: ")
        assert needle in lines[0]


def test_bad_rule_file_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('[rules]\nname = "broken"\ndice = 5\n\n[game]\ntarget = 10000\nbogus = 1\n')
    for args in (["score", "--rules", str(path), "1"], ["rules", "show", str(path)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2
        assert "Traceback" not in result.output
        assert result.stderr.count("\n") == 1
        assert "game.bogus" in result.stderr


def test_rules_show_unknown_preset_exits_2() -> None:
    result = runner.invoke(app, ["rules", "show", "dix-mile"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert "dix-mille" in result.stderr  # the suggestion
    assert "Traceback" not in result.output


# ---------------------------------------------------------------------------- rules


def test_rules_list_has_every_preset() -> None:
    result = runner.invoke(app, ["rules", "list"], env=WIDE)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    for name in PRESETS:
        row = next(line for line in lines if f" {name} " in line)
        rules = load_rules(name)
        assert f" {rules.dice} " in row
        assert rules.summary in row
    dix_mille = next(line for line in lines if " dix-mille " in line)
    assert "exactly 10,000" in dix_mille
    greed = next(line for line in lines if " greed " in line)
    assert "3,000" in greed and "exactly" not in greed
    # G-1: how many play, where a preset is for two alone (simulate refused three unannounced)
    assert " 1-8 " in dix_mille
    for two in ("facebook-farkle", "farkle-minimal"):
        assert load_rules(two).game.max_players == 2
        assert "│       2 │" in next(line for line in lines if f" {two} " in line)


def test_rules_show_dix_mille_key_lines() -> None:
    result = runner.invoke(app, ["rules", "show", "dix-mille"], env=WIDE)
    assert result.exit_code == 0, result.output
    out = result.stdout
    lines = out.splitlines()

    def row(*words: str) -> str:
        return next(line for line in lines if all(word in line for word in words))

    assert "spec: dix-mille" in out
    assert "100" in row("single 1")
    assert "50" in row("single 5")
    assert "1500" in row("straight 1-5")
    three = row("three of a kind")
    for value in ("1000", "200", "300", "400", "500", "600"):
        assert value in three
    assert "2400" in row("five of a kind")  # S-5: five 6s
    assert "1200" in row("four of a kind")  # S-4: four 6s
    assert "500" in row("T-7", "entry")
    assert "forced" in row("T-5", "full_hand")
    assert "on" in row("T-9", "exact_target")
    assert "current" in row("G-4", "bump")
    assert "off" in row("V-2", "joker")
    assert "Turn rules" in out and "Game rules" in out and "Variants" in out


def test_rules_show_marks_switched_options_and_canonical_spec() -> None:
    result = runner.invoke(app, ["rules", "show", "dix-mille(joker,bump=any)"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "spec: dix-mille(bump=any,joker)" in result.stdout
    joker = next(line for line in result.stdout.splitlines() if " joker " in line)
    assert "on *" in joker


def test_rules_show_six_dice_combinations() -> None:
    result = runner.invoke(app, ["rules", "show", "farkle"], env=WIDE)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "1500" in next(line for line in lines if "three pairs" in line)
    assert "2500" in next(line for line in lines if "two triplets" in line)
    assert "3000" in next(line for line in lines if "six of a kind" in line)
    # Three 1s: 100 by the kind rule (100 x face), 300 as three single 1s; a keep counts at
    # its best, and so does the table, which says why.
    three = next(line for line in lines if "three of a kind" in line).replace("│", " ").split()
    assert three[-6:] == ["300*", "200", "300", "400", "500", "600"]
    assert "* three 1s score 300 split into other combinations (S-12), more than the " in (
        result.stdout
    )


@pytest.mark.parametrize("spec", [*PRESETS, "dix-mille(bump=any,entry=800,joker)"])
def test_rules_show_toml_loads_back_equal(spec: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["rules", "show", "--toml", spec])
    assert result.exit_code == 0, result.output
    path = tmp_path / "rules.toml"
    path.write_text(result.stdout, encoding="utf-8")
    original = load_rules(spec)
    loaded = load_rules(str(path))
    assert loaded.source == str(path)
    assert dataclasses.replace(loaded, source="", options=()) == dataclasses.replace(
        original, source="", options=()
    )


# ---------------------------------------------------------------------------- entry points


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"zloutch {__version__}"


def test_help_of_every_command() -> None:
    for args in (["--help"], ["score", "--help"], ["rules", "--help"], ["rules", "show", "--help"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert "Usage" in result.stdout


def test_every_command_takes_h_for_help() -> None:
    """``-h`` is ``--help`` everywhere (no command gives -h another meaning)."""
    group = typer.main.get_command(app)
    for path in [(), *(p for p, _ in _commands(group))]:
        short = runner.invoke(app, [*path, "-h"])
        assert short.exit_code == 0, (path, short.output)
        assert short.stdout == runner.invoke(app, [*path, "--help"]).stdout, path


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, command in group.commands.items():
        yield (*path, name), command
        if hasattr(command, "commands"):
            yield from _commands(command, (*path, name))


def test_every_commands_help_is_wrapped_by_the_terminal() -> None:
    """Docstrings are wrapped for the source; the help shows each paragraph as one line, for
    the terminal to wrap (else an 80-column terminal breaks each source line again)."""
    group = typer.main.get_command(app)
    commands = list(_commands(group))
    assert len(commands) >= 15
    for path, command in commands:
        for paragraph in (command.help or "").split("\n\n"):
            assert "\n" not in paragraph, (path, paragraph)


def test_a_help_of_several_paragraphs_fills_an_80_column_terminal() -> None:
    result = runner.invoke(app, ["simulate", "--help"], env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0, result.output
    prose = result.stdout.split("╭")[0]
    lines = [line.strip() for line in prose.splitlines() if line.strip()]
    assert any(line.startswith("Seats rotate fairly") for line in lines)
    # every line of a paragraph but its last is filled to within a word of the width
    paragraph = lines[lines.index(next(x for x in lines if x.startswith("Seats"))) :]
    assert all(len(line) >= 60 for line in paragraph[:-1]), paragraph


def test_the_simulation_table_fits_80_columns_with_every_figure_whole() -> None:
    """dix-mille's table has ticks, bumps and take-backs: at 80 columns the tick column
    was cut to "12.…" beside a name of 13 letters."""
    # the engine's 30 games: the fast path's kernels are compiled by another worker
    args = ["simulate", "-p", "expert,threshold:300", "-n", "30", "-j", "1", "-m", "engine"]
    result = runner.invoke(app, args, env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    header = next(line for line in lines if line.startswith("Player"))
    assert header.split() == [
        *("Player", "Wins", "95%", "CI", "Score", "Turns", "Farkle", "Bank", "Tick"),
        *("Bump", "Take"),
    ]
    for name in ("expert", "threshold:300"):
        row = next(line for line in lines if line.startswith(name)).split()
        assert len(row) == 10 and "…" not in "".join(row), row
        assert all(cell.replace(".", "").replace(",", "").isdigit() for cell in row[-4:]), row


def test_eight_players_names_and_intervals_stay_whole_at_80_columns() -> None:
    """Eight bots at dix-mille: "threshold:1000" folded read as a bot "threshold:100" over
    a line "0", and an interval's "%" fell on a line of its own."""
    bots = "cautious,greedy,threshold:300,threshold:500,greedy,cautious,"
    bots += "threshold:1000,threshold:200"
    args = ["simulate", "-p", bots, "-n", "40", "-j", "1", "-m", "engine", "--seed", "1"]
    result = runner.invoke(app, args, env={"COLUMNS": "80"}, terminal_width=80)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Player"))
    rows = lines[start + 2 : start + 10]
    names = ["cautious #1", "greedy #1", "threshold:300", "threshold:500", "greedy #2"]
    names += ["cautious #2", "threshold:1000", "threshold:200"]
    assert [row.split()[0] if "#" not in row else " ".join(row.split()[:2]) for row in rows] == (
        names
    )
    assert all(len(line) <= 80 and len(line.split()) in (10, 11) for line in rows), rows
    assert "Tick, Bump, Take: per game" in " ".join(lines)


def test_reflow_keeps_lists_and_unwrapped_blocks() -> None:
    text = "\n\n".join(
        [
            "First line.",
            "A paragraph\nwrapped in two.",
            "- one\n- two",
            "An example:\n    zloutch play",
            "\b\nkept\nas is",
        ]
    )
    assert reflow(text) == "\n\n".join(
        [
            "First line.",
            "A paragraph wrapped in two.",
            "- one\n- two",
            "An example:\n    zloutch play",
            "\b\nkept\nas is",
        ]
    )
    assert reflow(None) is None


def test_python_m_zloutch_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "zloutch", "--help"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "score" in result.stdout
    assert "rules" in result.stdout


def test_rules_show_says_the_summary_is_the_rule_files_when_options_change_it() -> None:
    """A preset's summary says '5000 wins'; with target=10000 switched it is marked as the
    words of the rule file, with what the spec switches."""
    result = runner.invoke(
        app, ["rules", "show", "cinq-mille(target=10000)"], env={"COLUMNS": "300"}
    )
    assert result.exit_code == 0, result.output
    first = result.stdout.splitlines()[0]
    assert first.startswith("cinq-mille: 5000 with five dice")
    assert first.endswith("(as written; the spec switches target=10000)")
    plain = runner.invoke(app, ["rules", "show", "cinq-mille"], env={"COLUMNS": "300"})
    assert "as written" not in plain.stdout


def test_a_rule_file_written_from_a_spec_says_what_its_summary_does_not(tmp_path: Path) -> None:
    """``rules show --toml`` of a spec writes the preset's name and summary (a summary is
    the words before any option); that file's summary is marked with the options that
    make the preset into it, and a file named after a preset that options cannot make
    says so. The preset's own file has no mark."""
    wide = {"COLUMNS": "300"}
    for spec, name in [("dix-mille(bump=any,entry=800,joker)", "spec.toml"), ("dix-mille", "p")]:
        written = runner.invoke(app, ["rules", "show", "--toml", spec])
        assert written.exit_code == 0, written.output
        (tmp_path / name).write_text(written.stdout)
    shown = runner.invoke(app, ["rules", "show", str(tmp_path / "spec.toml")], env=wide)
    assert shown.exit_code == 0, shown.output
    first = shown.stdout.splitlines()[0]
    assert first.startswith("dix-mille: 10,000 with five dice: exactly 10,000, 500 to enter")
    assert first.endswith(
        "(as written; these rules are dix-mille with bump=any, entry=800, joker=on)"
    )
    own = runner.invoke(app, ["rules", "show", str(tmp_path / "p")], env=wide)
    assert "as written" not in own.stdout and "whose rules" not in own.stdout
    text = (
        (tmp_path / "p")
        .read_text()
        .replace("singles = { 1 = 100, 5 = 50 }", "singles = { 1 = 100, 5 = 60 }")
    )
    (tmp_path / "other.toml").write_text(text)
    other = runner.invoke(app, ["rules", "show", str(tmp_path / "other.toml")], env=wide)
    assert other.exit_code == 0, other.output
    assert other.stdout.splitlines()[0].endswith(
        "(the words of dix-mille, whose rules these are not)"
    )
    # A spec on the file: every option the preset differs by, the file's and the spec's.
    spec = f"{tmp_path / 'spec.toml'}(target=5000)"
    more = runner.invoke(app, ["rules", "show", spec], env=wide).stdout.splitlines()[0]
    assert more.endswith(
        "(as written; these rules are dix-mille with bump=any, entry=800, joker=on, target=5000)"
    )
    # The file's own words: nothing to mark, whatever its rules.
    summary = next(line for line in text.splitlines() if line.startswith("summary = "))
    ours = text.replace(summary, 'summary = "Our house: 5 is worth 60"')
    (tmp_path / "ours.toml").write_text(ours)
    shown = runner.invoke(app, ["rules", "show", str(tmp_path / "ours.toml")], env=wide)
    assert shown.stdout.splitlines()[0] == "dix-mille: Our house: 5 is worth 60"


def test_rules_show_at_80_columns_puts_each_meaning_under_its_option() -> None:
    """At 80 columns a column of meanings got a word a line (as in the full-screen app's
    help); the meaning goes under the option's name there, in its own column when wide."""
    narrow = runner.invoke(app, ["rules", "show", "farkle"], env={"COLUMNS": "80"})
    assert narrow.exit_code == 0, narrow.output
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 80
    assert "option: meaning" in narrow.stdout
    assert "Four of a kind plus a pair also counts as three" in narrow.stdout
    wide = runner.invoke(app, ["rules", "show", "farkle"], env={"COLUMNS": "160"})
    header = next(line for line in wide.stdout.splitlines() if "option" in line)
    assert "meaning" in header and "option: meaning" not in header


def test_rules_show_says_what_a_files_patterns_drop_of_its_base(tmp_path: Path) -> None:
    path = tmp_path / "added.toml"
    path.write_text(
        '[rules]\nname = "added"\nextends = "farkle"\n'
        "[[scoring.patterns]]\nfaces = [1, 2, 4]\npoints = 500\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["rules", "show", str(path)], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "note: [[scoring.patterns]] replaces the list of farkle whole: straight 1-6" in (
        result.stderr
    )
    assert "starts from farkle" in result.stdout  # not farkle's own words
