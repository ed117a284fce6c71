"""Records that replay anywhere and say the truth, from the command line (issue 12, item 6):
a game on a rule file replays after the file is edited, deleted or opened from another
folder; a game's dice are what its record says; a switch to real dice is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.engine.record import count_throws, load_record

runner = CliRunner()

HOUSE = """[rules]
extends = "dix-mille"
name = "house"

[game]
target = 3000
"""
MOVES = "throw\nkeep 6 6 6\nbank\nthrow\nkeep 1\nthrow\nkeep 5\nbank\nquit\n"
THROWS = "6 6 6 4 2\n1 2 3 4 6\n5 2 3 4\n"


def invoke(*args: str, stdin: str = "") -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), input=stdin, env={"COLUMNS": "200"})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def scores(stdout: str) -> list[int]:
    return [p["score"] for p in json.loads(stdout)["players"]]


@pytest.mark.parametrize("then", ["edited", "deleted"])
def test_a_game_on_a_rule_file_replays_after_the_file_changes_from_another_folder(
    then: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    (here / "my.toml").write_text(HOUSE)
    (here / "throws.txt").write_text(THROWS)
    monkeypatch.chdir(here)
    code, out, err = invoke(
        "play", "--plain", "--rules", "my.toml(entry=300)", "--players", "Ana,Bob",
        "--dice", "throws.txt", "--record", "game.json", stdin=MOVES,
    )  # fmt: skip
    assert code == 0, err
    assert "a game of house (my.toml(entry=300)), Ana, Bob" in out  # its name, then its file
    saved = json.loads((here / "game.json").read_text())
    assert saved["version"] == 4 and saved["rules"] == "my.toml(entry=300)"
    assert "target = 3000" in saved["rules_toml"] and "extends" not in saved["rules_toml"]
    _, shown, _ = invoke("record", "show", "--json", "game.json")
    before = scores(shown)
    assert before == [600, 0]

    if then == "edited":
        (here / "my.toml").write_text(HOUSE.replace("3000", "500"))
    else:
        (here / "my.toml").unlink()
    monkeypatch.chdir(elsewhere)
    record = str(here / "game.json")
    code, shown, err = invoke("record", "show", "--json", record)
    assert code == 0, err
    assert scores(shown) == before and json.loads(shown)["rules"] == "my.toml(entry=300)"
    code, review, err = invoke("review", "--points", "--json", "-", record)
    assert code == 0, err
    graded = json.loads(review)
    assert graded["players"] == ["Ana", "Bob"] and graded["rules"] == "my.toml(entry=300)"
    (elsewhere / "more.txt").write_text("1 2 5\n")  # Bob holds 150 with 3 dice in hand
    more = "throw\nkeep 1 5\nbank\nquit\n"
    code, out, err = invoke("play", "--plain", "--resume", record, "--dice", "more.txt", stdin=more)
    assert code == 0, err
    assert "game resumed after" in out and "Bob banks 300" in out  # the entry of its spec
    _, shown, _ = invoke("record", "show", "--json", record)
    assert scores(shown) == [600, 300]
    assert json.loads((here / "game.json").read_text())["sheet"]["rules"] == "my.toml(entry=300)"


def test_table_will_not_switch_a_game_of_computer_dice_to_real_dice(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    code, _, err = invoke(
        "play", "--plain", "--players", "Ana,Bob", "--record", str(record), stdin="throw\nquit\n"
    )
    assert code == 0, err
    code, _, err = invoke("table", "--plain", "--resume", str(record), stdin="quit\n")
    assert code == 2
    assert err.startswith(f"error: --resume {record}: this game is played with computer dice")
    assert err.count("\n") == 1


def test_verify_says_what_it_can_check_of_a_local_game(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    bots = ("--players", "bot:greedy,bot:cautious", "--rules", "greed(target=1000)")
    # Stopped after a few moves (end of input), then resumed to the end: two segments.
    code, _, err = invoke("play", "--plain", *bots, "--record", str(record), stdin="")
    assert code == 0, err
    data = json.loads(record.read_text())
    assert data["sheet"]["finished"]  # bots alone play to the end
    code, out, _ = invoke("verify", str(record))
    assert code == 0 and "verified: all" in out

    seeded = tmp_path / "seeded.json"
    invoke("play", "--plain", *bots, "--seed", "5", "--record", str(seeded))
    assert json.loads(seeded.read_text())["dice"] == {"scheme": "seed", "first_throw": 0, "seed": 5}
    code, out, _ = invoke("verify", str(seeded))
    assert code == 1
    assert "not verifiable: throws 1 to" in out and "from the seed 5 (--seed)" in out


def test_verify_checks_a_game_stopped_and_resumed_segment_by_segment(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    code, _, err = invoke(
        "play", "--plain", "--players", "Ana,bot:cautious", "--rules", "greed(target=1000)",
        "--record", str(record), stdin="throw\nquit\n",
    )  # fmt: skip
    assert code == 0, err
    stopped = json.loads(record.read_text())["dice"]
    assert stopped["secret"] is not None  # quit: the secret of the throws thrown here
    # Ana's throw, and the bot's throws too when hers was a farkle: what was thrown here.
    thrown = count_throws(load_record(record.read_text())[0].actions)
    assert thrown >= 1
    code, out, _ = invoke("verify", str(record))
    words = "the 1 throw matches" if thrown == 1 else f"all {thrown} throws match"
    assert code == 0 and f"verified: {words}" in out
    moves = "throw\n" * 400  # Ana throws until the game ends (a refused throw is skipped)
    code, _, err = invoke("play", "--plain", "--resume", str(record), stdin=moves + "quit\n")
    assert code == 0, err
    code, out, _ = invoke("verify", "--json", str(record))
    report = json.loads(out)
    assert report["segments"][0]["first_throw"] == 0
    assert len(report["segments"]) >= 2
    assert report["segments"][0]["commitment"] == stopped["commitment"]
    assert all(s["verdict"] in ("verified", "not yet") for s in report["segments"])


def test_a_record_whose_sheet_was_changed_is_refused_naming_the_player(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    (tmp_path / "throws.txt").write_text(THROWS)
    invoke(
        "play", "--plain", "--players", "Ana,Bob", "--dice", str(tmp_path / "throws.txt"),
        "--record", str(record), stdin=MOVES,
    )  # fmt: skip
    data = json.loads(record.read_text())
    data["sheet"]["players"][0]["score"] = 1350
    record.write_text(json.dumps(data))
    code, _, err = invoke("record", "show", str(record))
    assert code == 2 and err.count("\n") == 1
    assert "the record's sheet says Ana stands at 1,350; its actions give 600" in err


def test_record_show_json_keeps_a_tick_written_before_any_level(tmp_path: Path) -> None:
    """Ana farkles before she has a level: a loose tick (G-3), which ``record show`` draws
    and the JSON left out; the record's own sheet is as every version wrote it."""
    throws, record = tmp_path / "throws.txt", tmp_path / "game.json"
    throws.write_text("2 3 4 6 6\n2 2 3 4 6\n")
    code, _, err = invoke(
        "play", "--plain", "-p", "Ana,Bob", "--dice", str(throws), "--record", str(record),
        stdin="throw\nthrow\nquit\n",
    )  # fmt: skip
    assert code == 0, err
    code, out, err = invoke("record", "show", "--json", str(record))
    assert code == 0, err
    ana, bob = json.loads(out)["players"]
    assert (ana["levels"], ana["loose_ticks"]) == ([], 1)
    assert (bob["levels"], bob["loose_ticks"]) == ([], 1)
    kept = json.loads(record.read_text())["sheet"]["players"]
    assert all("loose_ticks" not in p for p in kept)


def test_record_show_says_a_crossed_level_where_no_strike_is_drawn() -> None:
    """Piped or read aloud, a crossed level (only struck through) read as a live one."""
    from zloutch.engine.record import load_record

    path = Path(__file__).parents[2] / "engine" / "records" / "v1_local_finished.json"
    _, state = load_record(path.read_text())
    crossed = sum(lv.crossed for sheet in state.sheets for lv in sheet.levels)
    code, shown, err = invoke("record", "show", str(path))
    assert code == 0, err
    assert crossed > 0 and shown.count(" crossed") == crossed
