"""The line mode (``--plain``), the game session behind both front ends, and the commands
``zloutch play``, ``zloutch table`` and ``zloutch record show`` at the edge.

The golden transcripts are compared exactly; only ``scripts/regen_golden.py`` rewrites them.
"""

from __future__ import annotations

import difflib
import io
import itertools
import json
from dataclasses import replace
from pathlib import Path

import pytest
from plain_golden import CASES, Case, golden_path, run_case
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.adapters.plain import PlainGame, situation_lines
from zloutch.adapters.tui.views import aside_text, status_text
from zloutch.app.dice import DiceExhaustedError, DiceFileError, ScriptedDice, SeededDice
from zloutch.app.session import (
    InvalidPlayersError,
    Need,
    Session,
    SessionError,
    parse_players,
    ticks_words,
)
from zloutch.console.render import sheet_table
from zloutch.engine import Bank, IllegalActionError, Level, Phase, Throw
from zloutch.engine.record import load_record, sheet_json
from zloutch.strategy.bots import UnknownBotError

runner = CliRunner()


# ---------------------------------------------------------------------------- golden


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_golden_transcript(case: Case, tmp_path: Path) -> None:
    expected = golden_path(case).read_text(encoding="utf-8")
    actual = run_case(case, tmp_path)
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"golden/{case.name}.txt",
                tofile="this run",
            )
        )
        pytest.fail(
            f"the transcript of {case.name} changed; if that is intended, run "
            f"python scripts/regen_golden.py {case.name} and read the diff\n{diff}",
            pytrace=False,
        )


def test_every_golden_file_has_a_case() -> None:
    names = {case.name for case in CASES}
    files = {p.stem for p in golden_path(CASES[0]).parent.glob("*.txt")}
    assert files == names


# ---------------------------------------------------------------------------- errors at the edge


def invoke(*args: str, stdin: str = "") -> tuple[int, str]:
    result = runner.invoke(app, list(args), input=stdin)
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit
    ), result.exception
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--rules", "dix-milles"), "error: "),
        (("--rules", "dix-mille(nonsense=3)"), "error: "),
        (("--players", "Ana,,Bob"), "every player needs a name"),
        (("--players", "Ana,Ana"), "two players are called 'Ana'"),
        (("--players", "Ana,bot:genius"), "no bot is called 'genius'"),
        (("--players", "A,B,C,D,E,F,G,H,I"), "error: "),
        (("--dice", "no-such-file.txt"), "cannot read the dice file no-such-file.txt"),
        (("--resume", "no-such-record.json"), "cannot read the record no-such-record.json"),
        (("--pace", "-1"), "error: --pace -1: a bot's pace is a number of seconds from 0 to 60"),
        (("--pace", "1e12"), "error: --pace 1e+12: a bot's pace is a number of seconds"),
        (("--pace", "inf"), "error: --pace inf: a bot's pace is a number of seconds from 0 to 60"),
        (("--pace", "nan"), "error: --pace nan: a bot's pace is a number of seconds from 0 to 60"),
        (("--players", ""), "every player needs a name"),
        (("--rules", ""), "error: the rule spec is empty"),
        (("--record", "no-such-folder/game.json"), "there is no folder no-such-folder"),
        (("--record", "."), "error: --record .: that is a folder"),
        (("--dice", "throws.txt", "--seed", "3"), "error: --dice and --seed:"),
    ],
)
@pytest.mark.parametrize("command", ["play", "table"])
def test_bad_flags_give_one_error_line_and_exit_2(
    command: str, args: tuple[str, ...], message: str
) -> None:
    code, output = invoke(command, "--plain", *args)
    assert code == 2
    assert message in output
    assert "Traceback" not in output
    if message.startswith("error") or "error:" in output:
        assert len([line for line in output.splitlines() if line.startswith("error:")]) == 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the dice file has no throw (one throw a line"),
        ("# a comment\n\n", "the dice file has no throw (one throw a line"),
        ("1 1 4 4 3\n1 1 4 4 3 2\n", "line 2: 6 dice (1 1 2 3 4 4), but dix-mille throws 5"),
        # more dice than any game throws: the rule set's count too, not a bare 6
        ("1 1 4 4 3 2 2\n", "line 1: 7 dice (1 1 2 2 3 4 4), but dix-mille throws 5"),
    ],
)
@pytest.mark.parametrize("command", ["play", "table"])
def test_a_dice_file_no_game_can_use_is_refused_before_the_game(
    command: str, text: str, message: str, tmp_path: Path
) -> None:
    """An empty dice file, or a throw of more dice than the game has: one line before the
    game starts, and no record (they started a game that stopped at the throw)."""
    dice, record = tmp_path / "dice.txt", tmp_path / "game.json"
    dice.write_text(text)
    args = ("--plain", "-p", "Ana", "--dice", str(dice), "--record", str(record))
    code, output = invoke(command, *args, stdin="throw\nquit\n")
    assert code == 2, output
    (line,) = output.strip().splitlines()
    assert line.startswith(f"error: {dice}") and message in line
    assert not record.exists()


def test_a_seed_at_a_real_table_is_refused_not_dice_drawn() -> None:
    """``table --seed`` drew the dice under a banner that said they were typed in."""
    code, output = invoke("table", "--plain", "--players", "Ana", "--seed", "3")
    assert code == 2
    assert output.strip() == (
        "error: --seed: at a real table the faces are typed in, never drawn; zloutch play "
        "--seed draws the dice from a seed (a file of throws here: --dice FILE)"
    )


def test_bad_face_in_the_dice_file_names_its_line(tmp_path: Path) -> None:
    dice = tmp_path / "dice.txt"
    dice.write_text("1 1 4 4 3\n\n# a comment\n1 7 3\n")
    code, output = invoke("play", "--plain", "--dice", str(dice))
    assert code == 2
    assert output.strip() == (f"error: {dice} line 4: '7' is not a die face: faces are 1 to 6")


def test_resume_with_rules_is_refused(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    invoke("play", "--plain", "--players", "Ana,Bob", "--seed", "3", "--record", str(record))
    code, output = invoke("play", "--plain", "--resume", str(record), "--rules", "greed")
    assert code == 2
    assert "leave out --rules and --players" in output


def test_resume_refuses_a_corrupt_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    record.write_text('{"format": "zloutch-record", "version": 99}')
    code, output = invoke("play", "--plain", "--resume", str(record))
    assert code == 2
    assert output.startswith("error: this record was written by a newer zloutch")


# ---------------------------------------------------------------------------- records


def play_to_record(tmp_path: Path, typed: str, *extra: str) -> Path:
    record = tmp_path / "game.json"
    code, _ = invoke(
        "play", "--plain", "--players", "Ana,Bob", "--record", str(record), *extra, stdin=typed
    )
    assert code == 0
    return record


def test_record_show_json_shape(tmp_path: Path) -> None:
    dice = tmp_path / "dice.txt"
    dice.write_text("6 6 6 4 2\n")
    record = play_to_record(tmp_path, "throw\nkeep 6 6 6\nbank\n", "--dice", str(dice))
    code, output = invoke("record", "show", "--json", str(record))
    assert code == 0
    assert json.loads(output) == {
        "rules": "dix-mille",
        "players": [
            {
                "name": "Ana",
                "score": 600,
                "entered": True,
                "levels": [{"value": 600, "crossed": False, "pp": False, "ticks": 0}],
                "loose_ticks": 0,
            },
            {"name": "Bob", "score": 0, "entered": False, "levels": [], "loose_ticks": 0},
        ],
        "winners": [],
        "finished": False,
    }


def test_record_show_draws_the_sheet(tmp_path: Path) -> None:
    dice = tmp_path / "dice.txt"
    dice.write_text("6 6 6 4 2\n")
    record = play_to_record(tmp_path, "throw\nkeep 6 6 6\nbank\n", "--dice", str(dice))
    result = runner.invoke(app, ["record", "show", str(record)], env={"COLUMNS": "100"})
    assert result.exit_code == 0
    assert "dix-mille: in progress: Bob to play" in result.output
    assert "600" in result.output and "Ana" in result.output


@pytest.mark.parametrize("compact", [True, False])
def test_a_sheet_with_no_level_yet_shows_the_scores_under_one_rule(compact: bool) -> None:
    """No level written: the scores are the sheet's one row (a footer under no rows drew
    two rules one above the other); with levels, the scores are the footer under them."""
    from rich.console import Console

    from zloutch.engine import new_game
    from zloutch.engine.endings import load_rules

    def drawn(state: object) -> list[str]:
        console = Console(width=60, file=io.StringIO(), record=True)
        console.print(sheet_table(state, compact=compact))  # type: ignore[arg-type]
        return [line.strip() for line in console.export_text().splitlines() if line.strip()]

    state = new_game(load_rules("farkle"), ("Ana", "Bob"))
    lines = drawn(state)
    rules = [i for i, line in enumerate(lines) if set(line) <= set("─┼━╇┡┩└┴┘│ ")]
    assert all(b - a > 1 for a, b in itertools.pairwise(rules)), lines
    assert lines[-2 if not compact else -1].replace("│", " ").split() == ["0", "0"]
    ana = replace(state.sheets[0], levels=(Level(500),))
    banked = replace(state, sheets=(ana, state.sheets[1]))
    assert "500" in "".join(drawn(banked)) and len(drawn(banked)) > len(lines)


def test_record_show_refuses_a_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    code, output = invoke("record", "show", str(bad))
    assert code == 2
    assert output == "error: not a game record: invalid JSON at line 1 column 2\n"


def test_seed_gives_the_same_game_and_resume_goes_on_with_its_dice(tmp_path: Path) -> None:
    typed = "throw\n" * 6
    first = invoke("play", "--plain", "--players", "Ana,bot:greedy", "--seed", "7", stdin=typed)
    second = invoke("play", "--plain", "--players", "Ana,bot:greedy", "--seed", "7", stdin=typed)
    assert first == second
    # Saved halfway and resumed, the game throws what the uninterrupted one threw.
    whole = Session.new("dix-mille", "bot:greedy,bot:random", dice=SeededDice(11))
    half = Session.new("dix-mille", "bot:greedy,bot:random", dice=SeededDice(11))
    for _ in range(40):
        drive(whole)
    for _ in range(20):
        drive(half)
    path = tmp_path / "half.json"
    half.save(str(path))
    resumed = Session.resume(path.read_text())
    for _ in range(20):
        drive(resumed)
    assert resumed.record.actions == whole.record.actions
    assert sheet_json(resumed.state) == sheet_json(whole.state)


def drive(session: Session) -> None:
    need = session.need()
    if need is Need.DICE:
        session.roll()
    elif need is Need.BOT:
        session.bot_step()


def test_plain_resume_continues_the_saved_game(tmp_path: Path) -> None:
    dice = tmp_path / "dice.txt"
    dice.write_text("6 6 6 4 2\n1 4\n")
    record = play_to_record(tmp_path, "throw\nkeep 6 6 6\nbank\n", "--dice", str(dice))
    more = tmp_path / "more.txt"
    more.write_text("1 4\n")
    code, output = invoke(
        "play",
        "--plain",
        "--resume",
        str(record),
        "--dice",
        str(more),
        "--record",
        str(record),
        stdin="take\nkeep 1\nbank\nquit\n",
    )
    assert code == 0
    assert "game resumed after 4 actions" in output
    assert "Bob takes it back: 600 with 2 dice (G-8)" in output
    _, shown = invoke("record", "show", "--json", str(record))
    assert [p["score"] for p in json.loads(shown)["players"]] == [600, 700]


# ---------------------------------------------------------------------------- the session


def test_players_bots_and_names() -> None:
    assert parse_players("Ana, bot:Strong ,bot:strong,Bob") == (
        "Ana",
        "bot:strong",
        "bot:strong#2",
        "Bob",
    )
    with pytest.raises(UnknownBotError):
        parse_players("bot:nobody")
    with pytest.raises(InvalidPlayersError):
        parse_players(" ")
    # white space is one space; a control character or a turn of the text is refused
    assert parse_players("Ana\tMaria,  Bob \u00a0 Jr") == ("Ana Maria", "Bob Jr")
    with pytest.raises(InvalidPlayersError, match="two players are called 'ana'"):
        parse_players("Ana,Bob,ana")  # one name to the people at the table, its case aside
    for name in ("Ana\u202eevil", "Ana\x1b[31m"):
        with pytest.raises(InvalidPlayersError, match="a name holds no"):
            parse_players(f"{name},Bob")


def test_a_move_tried_with_no_dice_says_dice_not_a_blank() -> None:
    """The terminal's j with nothing selected, in a game with no jokers: the log said
    "Ana sets  aside as jokers? No: ..."."""
    from zloutch.app.session import attempt_words
    from zloutch.engine import Joker, Keep

    state = Session.new("farkle", "Ana,Bob").state
    assert attempt_words(state, Joker(())) == "sets dice aside as jokers"
    assert attempt_words(state, Keep(())) == "keeps dice"
    assert attempt_words(state, Keep((1, 5))) == "keeps 1 5"


def test_dice_file_size_mismatch_names_the_line() -> None:
    dice = ScriptedDice.from_text("1 1 4 4 3\n\n2 3\n", "d.txt")
    s = Session.new("dix-mille", "Ana,Bob", dice=dice)
    s.act(Throw())
    s.roll()
    s.play(s.read("keep 1 1"))
    s.act(Throw())
    with pytest.raises(DiceFileError, match=r"^d\.txt line 3: 2 dice \(2 3\), but 3 dice"):
        s.roll()


def test_dice_file_exhausted_says_so() -> None:
    dice = ScriptedDice.from_text("2 3 4 6 6\n", "short.txt")
    s = Session.new("dix-mille", "Ana,Bob", dice=dice)
    s.act(Throw())
    s.roll()  # Ana farkles
    s.act(Throw())
    with pytest.raises(DiceExhaustedError, match=r"short\.txt has no more throws"):
        s.roll()


def test_t6_refusal_is_logged_in_words() -> None:
    dice = ScriptedDice.from_text("1 1 1 5 2", "d")
    s = Session.new("dix-mille", "Ana,Bob", dice=dice)
    s.act(Throw())
    s.roll()
    s.play(s.read("keep 1 1 1 5"))
    with pytest.raises(IllegalActionError, match="T-6"):
        s.act(Bank())
    assert s.log[-1].text == "Ana banks 1050? No: a total ending in 50 cannot be banked (T-6)"
    assert s.log[-1].kind == "refused"


def test_undo_goes_back_over_bot_moves_to_the_last_entry() -> None:
    s = Session.new("dix-mille", "Ana,bot:cautious", table_mode=True)
    s.play(s.read("2 3 4 6 6"))  # Ana throws and farkles; the bot must throw
    assert s.need() is Need.BOT
    s.bot_step()  # the bot throws: the faces of its dice are typed
    assert s.need() is Need.TYPED_DICE
    s.play(s.read("1 2 3 3 4"))
    assert s.need() is Need.BOT  # the bot keeps its 1 next
    s.bot_step()
    removed = s.undo()
    assert removed == ("keep 1", "roll 1 2 3 3 4")
    assert s.need() is Need.TYPED_DICE
    assert s.state.turn.player == 1


def test_undo_only_at_a_real_table() -> None:
    s = Session.new("dix-mille", "Ana,Bob", dice=SeededDice(1))
    with pytest.raises(SessionError, match="only at a real table"):
        s.undo()
    t = Session.new("dix-mille", "Ana,Bob", table_mode=True)
    with pytest.raises(SessionError, match="nothing to undo"):
        t.undo()


def test_the_end_of_a_real_table_asks_for_an_undo_before_it_ends(tmp_path: Path) -> None:
    """A winning throw typed wrong: the line mode says the end, then takes an undo (the game
    goes on, the record without the entry) or Enter; with computer dice it ends at once."""
    record = tmp_path / "game.json"
    typed = "1 1 1 2 3\nkeep 1 1 1\nbank\nthrow\nundo\nundo\nundo\n5 5 5 2 3\nkeep 5 5 5\nbank\n"
    code, output = invoke(
        "table", "--plain", "-r", "dix-mille(target=1000)", "-p", "Ana,Bob",
        "--record", str(record), stdin=typed + "quit\n",
    )  # fmt: skip
    assert code == 0
    assert output.count("Game over: Ana won.") == 1
    assert "A throw typed wrong? undo takes back the last entry." in output
    assert "Sorry: the game is over; Enter ends." in output
    assert "undone: bank" in output and "Ana banks 500" in output
    saved, state = load_record(record.read_text())
    assert saved.actions[-3:] == ("roll 2 3 5 5 5", "keep 5 5 5", "bank")
    assert "bank" not in saved.actions[:-1] and state.phase is not Phase.OVER
    code, output = invoke(
        "table", "--plain", "-r", "dix-mille(target=1000)", "-p", "Ana,Bob",
        stdin="1 1 1 2 3\nkeep 1 1 1\nbank\n",
    )  # fmt: skip
    assert code == 0 and output.rstrip().endswith("undo or save FILE, or Enter to end>")
    dice = tmp_path / "dice.txt"
    dice.write_text("1 1 1 2 3\n")
    code, output = invoke(
        "play", "--plain", "-r", "dix-mille(target=1000)", "-p", "Ana,Bob", "--dice", str(dice),
        stdin="throw\nkeep 1 1 1\nbank\n",
    )  # fmt: skip
    assert (
        code == 0 and "Game over: Ana won." in output and "undo" not in output.split("Game over")[1]
    )
    assert output.rstrip().endswith("save FILE, or Enter to end>")  # kept nowhere: offered


def test_a_game_kept_nowhere_can_be_saved_at_its_end_and_reviewed(tmp_path: Path) -> None:
    """The end of a game saved nowhere offers save FILE (it was gone, and zloutch review
    could not grade it); a game kept by --record ends at once."""
    dice = tmp_path / "dice.txt"
    dice.write_text("1 1 1 2 3\n")
    saved = tmp_path / "end.json"
    args = ["play", "--plain", "-r", "dix-mille(target=1000)", "-p", "Ana,Bob", "--dice", str(dice)]
    code, output = invoke(*args, stdin=f"throw\nkeep 1 1 1\nbank\nsave {saved}\n")
    assert code == 0 and f"Record written to {saved}." in output
    assert "The game is not saved: save FILE keeps it" in output
    _, state = load_record(saved.read_text())
    assert state.phase is Phase.OVER
    code, output = invoke("review", str(saved))
    assert code == 0 and "Ana" in output
    kept = tmp_path / "kept.json"
    code, output = invoke(*args, "--record", str(kept), stdin="throw\nkeep 1 1 1\nbank\n")
    assert code == 0 and "save FILE" not in output.split("Game over")[1]


def test_faces_alone_mean_a_keep_or_a_throw_of_real_dice() -> None:
    s = Session.new("dix-mille", "Ana,Bob", table_mode=True)
    assert [str(a) for a in s.read("11443").actions] == ["throw", "roll 1 1 3 4 4"]
    s.play(s.read("11443"))
    assert s.state.phase is Phase.KEEP
    assert [str(a) for a in s.read("1 1").actions] == ["keep 1 1"]
    assert s.read("hint").word == "hint"
    with pytest.raises(ValueError, match="takes nothing after it"):
        s.read("hint me")


def test_too_many_dice_are_counted_against_the_rule_sets_own_dice() -> None:
    """Five dice in dix-mille: seven faces typed say "at most 5", as six do (it said 6)."""
    s = Session.new("dix-mille", "Ana,Bob", table_mode=True)
    for typed in ("1122334", "keep 1 1 2 2 3 3 4", "112233"):
        with pytest.raises(ValueError, match="dice given, but at most 5 are thrown"):
            s.read(typed)
    six = Session.new("dix-mille-6", "Ana,Bob", table_mode=True)
    with pytest.raises(ValueError, match="7 dice given, but at most 6 are thrown"):
        six.read("keep 1 1 2 2 3 3 4")


def test_bots_wait_the_pace_between_their_moves() -> None:
    waits: list[float] = []
    s = Session.new("dix-mille(target=1000)", "bot:greedy,bot:cautious", dice=SeededDice(5))
    out = io.StringIO()
    code = PlainGame(s, io.StringIO(""), out, pace=0.25, sleep=waits.append).run()
    assert code == 0
    assert s.state.phase is Phase.OVER
    assert waits and set(waits) == {0.25}
    assert "Game over:" in out.getvalue()


# ---------------------------------------------------------------------------- review fixes


def test_bad_record_path_is_refused_before_the_game_starts(tmp_path: Path) -> None:
    code, output = invoke(
        "play", "--plain", "--record", str(tmp_path / "gone" / "game.json"), stdin="throw\n"
    )
    assert code == 2
    assert output.startswith("error: --record ")  # before any line of the game
    assert "Zloutch:" not in output and len(output.splitlines()) == 1


def test_record_in_a_read_only_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Permissions are asked of the system (root may write anywhere, so the answer is faked).
    import zloutch.app.files

    monkeypatch.setattr(zloutch.app.files.os, "access", lambda path, mode: False)
    code, output = invoke("play", "--plain", "--record", str(tmp_path / "game.json"))
    assert code == 2
    assert "cannot be written" in output


def test_help_of_play_lists_every_bot_level_and_every_plain_command() -> None:
    result = runner.invoke(app, ["play", "--help"], env={"COLUMNS": "300"})
    text = " ".join(result.output.split())
    assert "best" in text and "optimal" in text
    for word in ("undo", "save", "help", "hint", "sheet", "quit"):
        assert word in text
    assert "not with --dice" in text


def test_resumed_mid_turn_says_the_throw_on_the_table(tmp_path: Path) -> None:
    dice = tmp_path / "dice.txt"
    dice.write_text("1 1 4 4 3\n")
    record = play_to_record(tmp_path, "throw\n", "--dice", str(dice))
    code, output = invoke("play", "--plain", "--resume", str(record), stdin="quit\n")
    assert code == 0
    assert "On the table: 1 1 3 4 4.\nTurn total 0.\nKeep one of: keep 1 1 (200)" in output


def test_just_thrown_dice_are_not_said_twice() -> None:
    dice = ScriptedDice.from_text("1 1 4 4 3", "d")
    out = io.StringIO()
    PlainGame(Session.new("dix-mille", "Ana,Bob", dice=dice), io.StringIO("throw\n"), out).run()
    assert "Ana throws: 1 1 3 4 4\nTurn total 0.\nKeep one of:" in out.getvalue()


def test_undo_back_to_a_keep_says_the_throw_on_the_table() -> None:
    s = Session.new("dix-mille", "Ana,Bob", table_mode=True)
    out = io.StringIO()
    PlainGame(s, io.StringIO("1 1 4 4 3\noff\nundo\n"), out).run()
    assert "undone: off\nOn the table: 1 1 3 4 4.\nTurn total 0.\nKeep one of:" in out.getvalue()


def interrupt(*_: object) -> str:
    raise KeyboardInterrupt


def test_ctrl_c_while_a_bot_waits_writes_the_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    s = Session.new("dix-mille", "bot:greedy,bot:cautious", dice=SeededDice(5))
    out = io.StringIO()
    game = PlainGame(s, io.StringIO(""), out, pace=0.5, record_path=str(record), sleep=interrupt)
    assert game.run() == 130
    assert out.getvalue().endswith(f"Interrupted.\nRecord written to {record}.\n")
    assert "End of input" not in out.getvalue()
    assert json.loads(record.read_text())["players"] == ["bot:greedy", "bot:cautious"]


def test_ctrl_c_at_the_prompt_writes_the_record_and_exits_130(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    stdin = io.StringIO()
    stdin.readline = interrupt  # type: ignore[method-assign]
    out = io.StringIO()
    s = Session.new("dix-mille", "Ana,Bob", dice=SeededDice(1))
    assert PlainGame(s, stdin, out, record_path=str(record)).run() == 130
    assert out.getvalue().endswith(f"Ana> \nInterrupted.\nRecord written to {record}.\n")
    assert "End of input" not in out.getvalue()
    assert record.exists()


def test_wrong_number_of_faces_at_the_start_of_a_turn_changes_nothing() -> None:
    s = Session.new("dix-mille", "Ana,Bob", table_mode=True)
    with pytest.raises(IllegalActionError, match="5 dice are thrown, not 3"):
        s.play(s.read("1 2 3"))
    assert s.state.phase is Phase.START and s.record.actions == ()
    assert s.log[-1].text == "Ana throws 1 2 3? No: 5 dice are thrown, not 3"
    s.play(s.read("1 1 4 4 3"))  # the right number: thrown and rolled at once
    assert s.record.actions == ("throw", "roll 1 1 3 4 4")


def test_g8_offer_names_the_player_who_banked_it() -> None:
    s = Session.new("dix-mille", "Ana,Bob,Chloe", dice=ScriptedDice.from_text("6 6 6 4 2", "d"))
    s.act(Throw())
    s.roll()
    s.play(s.read("keep 6 6 6"))
    s.act(Bank())
    assert s.state.offer is not None and s.state.offered_by == 0
    # The engine says who left the dice (GameState.offered_by); the words name that seat.
    lines = situation_lines(s)
    assert lines[1].startswith("Ana banked 600 with 2 dice left")
    assert "Ana banked 600 with 2 dice left (G-8)" in aside_text(s).plain


def test_g3_ticks_that_count_are_the_engines_current_ticks() -> None:
    s = Session.new("dix-mille", "Ana,Bob", dice=SeededDice(1))
    # A player with a penalty level only (F-1): not entered, yet the ticks beside that
    # level count, not the loose ticks collected before it.
    sheet = replace(s.state.sheets[0], levels=(Level(-500, penalty=True),), ticks=2, loose_ticks=1)
    state = replace(s.state, sheets=(sheet, *s.state.sheets[1:]))
    assert sheet.current_ticks == 2
    assert ticks_words(state, 0) == "2 ticks"
    loose = replace(s.state.sheets[0], loose_ticks=1)
    assert ticks_words(replace(s.state, sheets=(loose, *s.state.sheets[1:])), 0) == "1 tick"
    footers = [str(c.footer) for c in sheet_table(state).columns]
    assert footers[0] == "-500"  # the ticks stand beside the level, not under the column
    footers = [str(c.footer) for c in sheet_table(replace(state, sheets=(loose, sheet))).columns]
    assert footers == ["0 /", "-500"]


def test_line_mode_and_table_word_the_turn_alike() -> None:
    s = Session.new("dix-mille", "Ana,Bob", dice=ScriptedDice.from_text("1 1 4 4 3", "d"))
    s.act(Throw())
    s.roll()
    s.play(s.read("keep 1 1"))
    plain_hand = situation_lines(s)[0]
    assert plain_hand == "Turn total 200, set aside 1 1, 3 dice in hand."
    status = status_text(s, "").plain
    assert status == (
        "Ana to play · score 0 · not entered: 500 to enter (T-7) · turn total 200 · 3 dice in hand"
    )


@pytest.mark.parametrize("command", ["play", "table"])
def test_without_a_terminal_the_game_goes_on_in_lines_of_text(command: str) -> None:
    """No --plain, input from a pipe: the full-screen app would wait for keys for ever; the
    line mode plays instead, and says so."""
    stdin = "throw\nquit\n" if command == "play" else "throw\n1 1 4 6 6\nquit\n"
    seed = ("--seed", "3") if command == "play" else ()  # real dice are typed in
    code, output = invoke(command, "--players", "Ana,Bob", *seed, stdin=stdin)
    assert code == 0, output
    assert "note: not a terminal: the game goes on in lines of text (--plain)" in output
    assert "Ana> throw" in output and "Bye." in output
    assert "\x1b[" not in output  # no escape code of a full-screen app


def test_a_game_of_bots_that_never_bank_stops_and_is_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lone bot that never banks never ends a game, and nobody types the end of input:
    after the cap of turns (the simulator's, lowered here) it stops, saved, exit 0."""
    import zloutch.app.session as session

    monkeypatch.setattr(session, "BOTS_ALONE_TURNS", 40)
    record = tmp_path / "bots.json"
    code, output = invoke(
        "play", "--plain", "-r", "dix-mille(full_hand=forced,bump=current)",
        "-p", "bot:threshold:100000", "--seed", "46836", "--pace", "0",
        "--record", str(record),
    )  # fmt: skip
    assert code == 0, output
    assert "The bots played 40 turns and none of them wins: the game stops here." in output
    assert json.loads(record.read_text())["actions"]  # the game so far is kept


def test_a_game_of_a_rule_file_is_named_by_its_name_then_its_file(tmp_path: Path) -> None:
    """A rule file's spec is its path: the opening line gives the rule set's name first."""
    path = tmp_path / "house.toml"
    path.write_text('[rules]\nextends = "dix-mille"\nname = "my-house"\n')
    code, out = invoke("play", "--plain", "--rules", str(path), "-p", "Ana,Bob", stdin="quit\n")
    assert code == 0
    assert out.splitlines()[0] == f"Zloutch: a game of my-house ({path}), Ana, Bob."


def test_the_farkles_in_a_row_that_count_are_said_and_no_entry_where_none_matters() -> None:
    """zilch's turn status said nothing of the farkles toward F-1's penalty, and "no entry
    minimum" of one player beside "entered" of the other."""
    from dataclasses import replace

    from zloutch.app.session import standing_words
    from zloutch.engine import new_game
    from zloutch.rules import load_rules

    state = new_game(load_rules("zilch"), ["Ana", "Bob"])
    assert standing_words(state, 0) == ["score 0"]
    sheets = (replace(state.sheets[0], farkles_in_row=2), state.sheets[1])
    state = replace(state, sheets=sheets)
    assert standing_words(state, 0) == ["score 0", "2 farkles in a row (F-1: the 3rd costs 500)"]
    dix_mille = new_game(load_rules("dix-mille"), ["Ana", "Bob"])
    assert standing_words(dix_mille, 0) == ["score 0", "not entered: 500 to enter (T-7)"]
