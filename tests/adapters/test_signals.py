"""A recorded game survives a kill, a signal, a crash and a bad name; outputs are checked
before the work: ``zloutch play --plain --record`` in a real process, and the commands'
output flags at the edge."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.adapters.plain import PlainGame
from zloutch.app.dice import ScriptedDice, SeededDice
from zloutch.app.session import Need, Session
from zloutch.engine.record import dump_record, load_record

SRC = Path(__file__).resolve().parents[2] / "src"
THROWS = "1 1 4 4 3\n1 5 2\n5\n2 3 4 6 6\n"
MOVES = [  # a command, what the game says once it is played, the actions it adds
    ("throw", "Ana throws: 1 1 3 4 4", ["throw", "roll 1 1 3 4 4"]),
    ("keep 1 1", "Ana keeps 1 1 for 200", ["keep 1 1"]),
    ("throw", "Ana throws: 1 2 5", ["throw", "roll 1 2 5"]),
    ("keep 1 5", "Ana keeps 1 5 for 150", ["keep 1 5"]),
]
runner = CliRunner()


def wait_for(what: str, check: object, timeout: float = 60.0) -> None:
    """Poll ``check()`` until it is true (bounded: a slow start is fine, a hang is not)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    pytest.fail(f"gave up waiting for {what}")


def recorded(path: Path) -> list[str] | None:
    try:
        return list(json.loads(path.read_text())["actions"])
    except (OSError, ValueError):
        return None


def start_game(tmp_path: Path) -> tuple[subprocess.Popen[str], Path, Path]:
    dice = tmp_path / "throws.txt"
    dice.write_text(THROWS)
    record, out = tmp_path / "game.json", tmp_path / "out.txt"
    command = [sys.executable, "-m", "zloutch", "play", "--plain", "--players", "Ana,Bob"]
    command += ["--record", str(record), "--dice", str(dice)]
    with out.open("w") as stdout:
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONPATH": str(SRC)},
        )
    return process, record, out


@pytest.mark.parametrize(
    ("signum", "code"),
    [(signal.SIGKILL, -signal.SIGKILL), (signal.SIGTERM, 143), (signal.SIGHUP, 129)],
    ids=["SIGKILL", "SIGTERM", "SIGHUP"],
)
def test_a_signal_leaves_every_acknowledged_action_on_disk(
    tmp_path: Path, signum: int, code: int
) -> None:
    process, record, out = start_game(tmp_path)
    try:
        assert process.stdin is not None
        acknowledged: list[str] = []
        for command, answer, actions in MOVES[:3]:
            process.stdin.write(command + "\n")
            process.stdin.flush()
            wait_for(repr(answer), lambda answer=answer: answer in out.read_text())
            acknowledged += actions
            # Said on the screen means written on the disk: the record is never behind.
            assert recorded(record) == acknowledged
        process.send_signal(signum)
        assert process.wait(timeout=60) == code
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    saved, state = load_record(record.read_text())  # whole JSON, and a game that replays
    assert list(saved.actions) == acknowledged
    assert state.turn.throw == (1, 2, 5) and state.turn.total == 200
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    if signum != signal.SIGKILL:
        assert out.read_text().endswith(f"Interrupted.\nRecord written to {record}.\n")


def test_a_nul_byte_in_a_save_name_is_one_line_and_the_game_goes_on(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    session = Session.new("dix-mille", "Ana,Bob", dice=ScriptedDice.from_text(THROWS, "d"))
    out = io.StringIO()
    stdin = io.StringIO("throw\nsave a\0b\nkeep 1 1\n")
    assert PlainGame(session, stdin, out, record_path=str(record)).run() == 0
    assert "Sorry: cannot write 'a\\x00b': a file name cannot hold a NUL byte." in out.getvalue()
    assert "Traceback" not in out.getvalue()
    assert load_record(record.read_text())[0].actions == ("throw", "roll 1 1 3 4 4", "keep 1 1")


def test_a_bug_mid_game_writes_the_record_before_the_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "game.json"
    session = Session.new("dix-mille", "Ana,Bob", dice=ScriptedDice.from_text(THROWS, "d"))
    game = PlainGame(session, io.StringIO("throw\nkeep 1 1\nhint\n"), io.StringIO())
    game.record_path = str(record)
    saved_when_raised: list[list[str] | None] = []

    def broken(*_: object) -> None:
        session.record_to(None)  # only the way out may write it now
        record.unlink()
        raise RuntimeError("a bug in the hint")

    def save(path: str) -> None:
        Session.save(session, path)
        saved_when_raised.append(recorded(record))

    monkeypatch.setattr(session, "advice", broken)
    monkeypatch.setattr(session, "save", save)
    with pytest.raises(RuntimeError, match="a bug in the hint"):
        game.run()
    assert saved_when_raised[-1] == ["throw", "roll 1 1 3 4 4", "keep 1 1"]
    assert load_record(record.read_text())[0].actions == ("throw", "roll 1 1 3 4 4", "keep 1 1")


def play(*args: str, stdin: str = "") -> tuple[int, str]:
    result = runner.invoke(app, ["play", "--plain", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_resume_saves_back_to_the_game_it_resumed(tmp_path: Path) -> None:
    dice = tmp_path / "throws.txt"
    dice.write_text(THROWS)
    record = tmp_path / "game.json"
    code, _ = play("--players", "Ana,Bob", "--record", str(record), "--dice", str(dice),
                   stdin="throw\n")  # fmt: skip
    assert code == 0 and recorded(record) == ["throw", "roll 1 1 3 4 4"]
    code, output = play("--resume", str(record), stdin="keep 1 1\n")
    assert code == 0 and output.endswith(f"Record written to {record}.\n")
    assert recorded(record) == ["throw", "roll 1 1 3 4 4", "keep 1 1"]
    elsewhere = tmp_path / "elsewhere.json"  # --record elsewhere leaves the resumed file
    play("--resume", str(record), "--record", str(elsewhere), stdin="quit\n")
    assert recorded(elsewhere) == recorded(record)


def test_a_file_size_limit_mid_game_leaves_the_previous_save_whole(tmp_path: Path) -> None:
    """The issue's case: under RLIMIT_FSIZE a resumed game's saves fail (EFBIG); the file it
    resumed from keeps its every byte, and the game ends with one error line, exit code 2."""
    victim = tmp_path / "victim.json"
    session = Session.new("dix-mille", "bot:greedy,bot:cautious", dice=SeededDice(5))
    while session.need() is not Need.OVER and len(dump_record(session.record)) < 8000:
        session.roll() if session.need() is Need.DICE else session.bot_step()
    session.save(str(victim))
    before = victim.read_bytes()
    child = (
        "import resource, runpy, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "sys.argv = ['zloutch', 'play', '--plain', '--resume', sys.argv[1]]\n"
        "runpy.run_module('zloutch', run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(victim)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 2
    assert done.stderr == f"error: cannot write {victim}: File too large\n"
    assert "the record is not written: cannot write" in done.stdout  # said once, mid-game
    assert victim.read_bytes() == before and len(before) > 4096
    load_record(victim.read_text())
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_resume_of_a_file_that_cannot_be_written_back_warns_and_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "game.json"
    Session.new("dix-mille", "Ana,Bob").save(str(record))
    before = record.read_text()
    import zloutch.app.files

    monkeypatch.setattr(zloutch.app.files.os, "access", lambda path, mode: False)
    code, output = play("--resume", str(record), stdin="quit\n")
    assert code == 0
    assert output.startswith(f"warning: --resume {record}: the file cannot be written")
    assert "the game is not saved back" in output and "Bye." in output
    assert record.read_text() == before


def test_record_refuses_a_file_that_is_not_a_game_record(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a game")
    code, output = play("--players", "Ana,Bob", "--record", str(notes), stdin="throw\n")
    assert code == 2 and output.count("\n") == 1
    assert output.startswith(f"error: --record {notes}: the file exists and is not a game record")
    assert notes.read_text() == "my notes, not a game"


# ---------------------------------------------------------------------------- outputs


def bad_paths(tmp_path: Path, suffix: str = ".json") -> list[str]:
    """Paths no file can be written to (tests run as root: none relies on permission bits)."""
    regular = tmp_path / "regular.txt"
    regular.write_text("a file")
    folder = tmp_path / f"folder{suffix}"
    folder.mkdir(exist_ok=True)
    return [
        str(tmp_path / "missing" / f"out{suffix}"),
        str(regular / f"out{suffix}"),
        f"/proc/version/out{suffix}",
        f"/sys/out{suffix}",
        str(folder),
    ]


def refused_at_once(args: list[str], option: str, timeout: float = 90.0) -> None:
    """The command ends with one ``error:`` line naming the option, exit code 2."""
    begun = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "zloutch", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {option} "), done.stderr
    assert time.monotonic() - begun < timeout


@pytest.mark.parametrize("option", ["--json", "--csv"])
def test_simulate_refuses_an_unwritable_output_before_ten_million_games(
    tmp_path: Path, option: str
) -> None:
    """Ten million games would take hours: an answer within the timeout means none ran."""
    for path in bad_paths(tmp_path):
        refused_at_once(["simulate", "--games", "10000000", option, path], option)


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["plot", "policy", "--out"], "--out"),
        (["play", "--plain", "--players", "Ana,Bob", "--record"], "--record"),
        (["table", "--plain", "--record"], "--record"),
    ],
)
def test_outputs_are_refused_before_any_work(tmp_path: Path, args: list[str], option: str) -> None:
    for path in bad_paths(tmp_path, ".png" if option == "--out" else ".json"):
        result = runner.invoke(app, [*args, path], input="throw\n")
        assert result.exit_code == 2, (path, result.output)
        lines = result.output.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {option} "), result.output


def test_review_refuses_unwritable_outputs_before_replaying(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    Session.new("dix-mille", "Ana,Bob").save(str(record))
    for path in bad_paths(tmp_path):
        result = runner.invoke(app, ["review", str(record), "--json", path])
        assert result.exit_code == 2 and result.output.startswith("error: --json "), result.output
        assert result.output.count("\n") == 1
