"""The line mode (``--plain``), the game session behind both front ends, and the commands
``zloutch play``, ``zloutch table`` and ``zloutch record show`` at the edge.

The golden transcripts are compared exactly; only ``scripts/regen_golden.py`` rewrites them.
"""

from __future__ import annotations

import difflib
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from plain_golden import CASES, Case, golden_path, run_case
from zloutch.cli import app
from zloutch.dice_sources import DiceExhaustedError, DiceFileError, ScriptedDice, SeededDice
from zloutch.engine import Bank, IllegalActionError, Phase, Throw
from zloutch.engine.record import sheet_json
from zloutch.plain import PlainGame
from zloutch.session import InvalidPlayersError, Need, Session, SessionError, parse_players
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
        (("--pace", "-1"), "error: --pace -1.0: the pace is a number of seconds, 0 or more"),
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
            },
            {"name": "Bob", "score": 0, "entered": False, "levels": []},
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
    s = Session.new("dix-mille", "Ana,Bob", dice=ScriptedDice.from_text("", "empty.txt"))
    s.act(Throw())
    with pytest.raises(DiceExhaustedError, match=r"empty\.txt has no more throws"):
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


def test_faces_alone_mean_a_keep_or_a_throw_of_real_dice() -> None:
    s = Session.new("dix-mille", "Ana,Bob", table_mode=True)
    assert [str(a) for a in s.read("11443").actions] == ["throw", "roll 1 1 3 4 4"]
    s.play(s.read("11443"))
    assert s.state.phase is Phase.KEEP
    assert [str(a) for a in s.read("1 1").actions] == ["keep 1 1"]
    assert s.read("hint").word == "hint"
    with pytest.raises(ValueError, match="takes nothing after it"):
        s.read("hint me")


def test_bots_wait_the_pace_between_their_moves() -> None:
    waits: list[float] = []
    s = Session.new("dix-mille(target=1000)", "bot:greedy,bot:cautious", dice=SeededDice(5))
    out = io.StringIO()
    code = PlainGame(s, io.StringIO(""), out, pace=0.25, sleep=waits.append).run()
    assert code == 0
    assert s.state.phase is Phase.OVER
    assert waits and set(waits) == {0.25}
    assert "Game over:" in out.getvalue()
