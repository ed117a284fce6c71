"""Saves that survive: atomic writes (``app.files``), output paths checked before the work,
and a session that keeps its record on disk after every action (``Session.record_to``)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.app import files
from zloutch.app.dice import ScriptedDice, SeededDice
from zloutch.app.files import UnwritableFileError, check_writable, write_atomically
from zloutch.app.match import Need
from zloutch.app.session import (
    NEW_GAME,
    Session,
    SessionError,
    check_record_path,
    free_record_path,
    same_game,
)
from zloutch.engine import Keep, Throw
from zloutch.engine.record import DiceCommitment, Record, dump_record, load_record

SRC = Path(__file__).resolve().parents[2] / "src"


def leftovers(folder: Path) -> list[str]:
    """Temporary files a write left behind."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def no_space(*_: object, **__: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


# ---------------------------------------------------------------------------- atomic writes


def test_an_atomic_write_replaces_the_file_whole_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    target.chmod(0o640)
    write_atomically(str(target), "new text é")
    assert target.read_text(encoding="utf-8") == "new text é"
    assert target.stat().st_mode & 0o777 == 0o640
    assert leftovers(tmp_path) == []


def test_an_atomic_write_through_a_link_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_atomically(str(link), "new")
    assert link.is_symlink() and real.read_text() == "new"


@pytest.mark.parametrize("step", ["replace", "fsync"])
def test_a_full_disk_leaves_the_previous_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    target = tmp_path / "victim.json"
    target.write_text("the previous save")
    monkeypatch.setattr(files.os, step, no_space)
    with pytest.raises(UnwritableFileError, match=r"cannot write .*No space left on device"):
        write_atomically(str(target), "x" * 10_000)
    monkeypatch.undo()
    assert target.read_text() == "the previous save"
    assert leftovers(tmp_path) == []


def test_a_file_size_limit_leaves_the_previous_save_whole(tmp_path: Path) -> None:
    """Under RLIMIT_FSIZE the write fails (EFBIG) and the old save is still the old save."""
    victim = tmp_path / "victim.json"
    session = Session.new("dix-mille", "bot:greedy,bot:cautious", dice=SeededDice(5))
    while session.need() is not Need.OVER and len(dump_record(session.record)) < 8000:
        session.roll() if session.need() is Need.DICE else session.bot_step()
    session.save(str(victim))
    before = victim.read_bytes()
    child = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "from zloutch.app.files import write_atomically\n"
        "from zloutch.rules import ZloutchError\n"
        "try:\n"
        "    write_atomically(sys.argv[1], open(sys.argv[1]).read() + ' ' * 100)\n"
        "except ZloutchError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", child, str(victim)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(SRC), "PYTHONDONTWRITEBYTECODE": "1"},
        check=True,
    )
    assert "File too large" in done.stdout
    assert victim.read_bytes() == before and len(before) > 4096
    load_record(victim.read_text())
    assert leftovers(tmp_path) == []


def test_a_nul_byte_in_a_name_is_one_sentence() -> None:
    with pytest.raises(UnwritableFileError, match=r"cannot write 'a\\x00b': .*NUL byte"):
        write_atomically("a\0b", "text")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(max_size=300), min_size=1, max_size=5))
def test_the_file_is_always_the_last_write_whole(texts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "prop.txt"
        for text in texts:
            write_atomically(str(target), text)
            assert target.read_bytes() == text.encode("utf-8")
        assert leftovers(Path(folder)) == []


# ---------------------------------------------------------------------------- paths checked


def bad_paths(tmp_path: Path) -> list[tuple[str, str]]:
    """Paths no output can be written to (root ignores permission bits: none rely on them)."""
    regular = tmp_path / "regular.txt"
    regular.write_text("a file")
    return [
        (str(tmp_path / "missing" / "out.json"), "there is no folder"),
        (str(regular / "out.json"), "is a file, not a folder"),
        ("/proc/version/out.json", "/proc/version is a file, not a folder"),
        ("/proc/out.json", "cannot write a file in /proc"),
        ("/sys/out.json", "cannot write a file in /sys"),
        (str(tmp_path), "that is a folder"),
    ]


def test_check_writable_refuses_each_bad_path_in_one_sentence(tmp_path: Path) -> None:
    for path, words in bad_paths(tmp_path):
        with pytest.raises(UnwritableFileError) as caught:
            check_writable(path, "--json")
        message = str(caught.value)
        assert message.startswith("--json ") and words in message, (path, message)
        assert "\n" not in message


def test_a_write_refused_on_the_spot_says_why_as_the_check_does(tmp_path: Path) -> None:
    """A save asked for in the middle of a game (line mode's ``save PATH``), where no
    flag was checked first, names the folder missing or the file in its way as
    ``check_writable`` does, and the system's words otherwise."""
    regular = tmp_path / "regular.txt"
    regular.write_text("a file")
    link = tmp_path / "dangling.json"
    link.symlink_to(tmp_path / "gone" / "x.json")
    for path, reason in [
        (tmp_path / "missing" / "out.json", f"there is no folder {tmp_path / 'missing'}"),
        (regular / "out.json", f"{regular} is a file, not a folder"),
        (regular / "sub" / "out.json", f"{regular} is a file, not a folder"),
        (Path("/proc/version/out.json"), "/proc/version is a file, not a folder"),
        (link, f"there is no folder {tmp_path / 'gone'}"),  # where the link leads
    ]:
        with pytest.raises(UnwritableFileError) as caught:
            write_atomically(str(path), "x")
        assert str(caught.value) == f"cannot write {path}: {reason}"


@pytest.mark.parametrize(
    ("option", "example"),
    [("--json", "out.json"), ("--csv", "out.csv"), ("--out", "out.png"), ("--record", "game.json")],
)
def test_a_folder_is_answered_with_a_file_name_for_that_flag(
    tmp_path: Path, option: str, example: str
) -> None:
    with pytest.raises(UnwritableFileError, match=f"give a file name, as in {example}$"):
        check_writable(str(tmp_path), option)
    with pytest.raises(UnwritableFileError, match=f"as in {option} {example}$"):
        check_writable("", option)


def test_check_writable_leaves_no_file_and_never_truncates(tmp_path: Path) -> None:
    new = tmp_path / "new.json"
    check_writable(str(new), "--json")
    assert not new.exists() and leftovers(tmp_path) == []
    old = tmp_path / "old.json"
    old.write_text("keep me")
    check_writable(str(old), "--json")
    assert old.read_text() == "keep me"
    check_writable("/dev/null", "--json")  # a device is written in place


def test_record_path_refuses_a_file_that_is_not_a_game_record(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a game")
    with pytest.raises(SessionError, match="exists and is not a game record"):
        check_record_path(str(notes))
    empty = tmp_path / "empty.json"
    empty.write_text("")
    check_record_path(str(empty))  # nothing to lose
    game = tmp_path / "game.json"
    Session.new("dix-mille", "Ana,Bob").save(str(game))
    check_record_path(str(game))  # a record: saved over


def test_save_refuses_to_overwrite_a_file_that_is_not_a_record(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes")
    with pytest.raises(SessionError, match="not a game record"):
        Session.new("dix-mille", "Ana,Bob").save(str(notes))
    assert notes.read_text() == "my notes"


# ---------------------------------------------------------------------------- the session


def test_the_record_on_disk_follows_every_action(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    session = Session.new("dix-mille", "Ana,Bob", dice=ScriptedDice.from_text("1 1 4 4 3", "d"))
    session.record_to(str(path))
    assert load_record(path.read_text())[0].actions == ()  # on disk before the first move
    session.act(Throw())
    assert load_record(path.read_text())[0].actions == ("throw",)
    session.roll()
    session.act(Keep((1, 1)))
    record, state = load_record(path.read_text())
    assert record.actions == ("throw", "roll 1 1 3 4 4", "keep 1 1")
    assert state.turn.total == 200


def test_a_failed_write_mid_game_is_noted_once_and_keeps_the_last_good_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.json"
    session = Session.new("dix-mille", "Ana,Bob", dice=ScriptedDice.from_text("1 1 4 4 3", "d"))
    session.record_to(str(path))
    session.act(Throw())
    monkeypatch.setattr(files.os, "replace", no_space)
    session.roll()
    session.act(Keep((1, 1)))
    notes = [e.text for e in session.log if "not written" in e.text]
    assert len(notes) == 1 and "No space left on device" in notes[0]
    assert session.record_error is not None
    assert load_record(path.read_text())[0].actions == ("throw",)  # whole, one action behind
    monkeypatch.undo()
    session.act(Throw())  # the disk has room again: the next action catches up
    assert session.record_error is None
    assert json.loads(path.read_text())["actions"][-1] == "throw"
    assert len(json.loads(path.read_text())["actions"]) == 4


# ---------------------------------------------------------------------------- another game's


def test_a_save_never_overwrites_another_games_record(tmp_path: Path) -> None:
    """A record on disk is another game's unless it is this one's at another moment (an
    earlier save, a later one before an undo): that one is overwritten, another is not
    (``zloutch-game.json`` saved from two games held the second alone)."""
    first = Session.new("dix-mille", "Ana,Bob", dice=SeededDice(1))
    first.play(first.read("throw"))
    first.roll()
    path = tmp_path / "zloutch-game.json"
    first.save(str(path))
    first.play(first.read(str(first.moves()[0])))
    first.save(str(path))  # this game, later: written
    kept = path.read_text()
    second = Session.new("farkle", "Zed,Kim", dice=SeededDice(2))
    second.play(second.read("throw"))
    second.roll()
    with pytest.raises(SessionError, match=r"holds another game \(dix-mille; Ana, Bob; "):
        second.save(str(path))
    assert path.read_text() == kept
    with pytest.raises(SessionError, match=r"zloutch play --resume "):
        check_record_path(str(path), new_game=True)  # a new game's --record: refused too
    check_record_path(str(path))  # a resumed game's: its own file, later
    assert free_record_path(str(path), second.record) == str(tmp_path / "zloutch-game-2.json")
    assert free_record_path(str(path), first.record, first.own_files) == str(path)
    # The same rules and players, begun alike: a second game is still another game.
    third = Session.new("dix-mille", "Ana,Bob", dice=SeededDice(1))
    third.play(third.read("throw"))
    third.roll()
    with pytest.raises(SessionError, match="holds another game"):
        third.save(str(path))
    resumed = Session.resume(path.read_text(), source=str(path))  # read from it: its own
    resumed.save(str(path))


def test_computer_dice_tell_a_game_apart_by_their_commitment() -> None:
    """Only a game's dice commitment (a random secret's) tells two games of the same rules
    and players apart: without one, another record is never this game's."""
    segment = DiceCommitment(commitment="ab" * 32, secret=None, seeds=(), first_throw=0)
    game = Record(
        "dix-mille", ("Ana", "Bob"), ("throw", "roll 1 2 3 4 6", "keep 1"), dice=(segment,)
    )
    assert same_game(replace(game, actions=game.actions[:1]), game)
    assert same_game(game, replace(game, actions=game.actions[:2]))  # an undo since
    assert same_game(replace(game, actions=()), replace(game, rules="farkle"))  # no move
    other = replace(segment, commitment="cd" * 32)
    assert not same_game(replace(game, dice=(other,)), game)  # begun alike, another game
    assert not same_game(replace(game, dice=()), replace(game, dice=()))  # typed or seeded
    assert not same_game(replace(game, actions=("throw", "roll 1 1 3 4 6")), game)
    assert not same_game(replace(game, players=("Ana", "Cy")), game)
    assert not same_game(game, NEW_GAME)


def test_a_free_record_name_is_numbered_before_its_suffix(tmp_path: Path) -> None:
    game = Record("dix-mille", ("Ana", "Bob"))
    taken = Record("dix-mille", ("Ana", "Bob"), ("throw",))
    folder = tmp_path / "dir.v2"
    folder.mkdir()
    for name in ("game", "game.zl", "zloutch-game.json"):
        (folder / name).write_text(dump_record(taken, taken.replay()))
    assert free_record_path(str(folder / "game"), game) == str(folder / "game-2")
    assert free_record_path(str(folder / "game.zl"), game) == str(folder / "game-2.zl")
    assert free_record_path(str(folder / "new.json"), game) == str(folder / "new.json")


def test_a_new_games_record_may_not_overwrite_a_game_on_the_command_line(tmp_path: Path) -> None:
    saved = tmp_path / "game.json"
    dice = tmp_path / "dice.txt"
    dice.write_text("6 6 6 4 2\n")
    args = ["play", "--plain", "-p", "Ana,Bob", "--record", str(saved), "--dice", str(dice)]
    result = CliRunner().invoke(app, args, input="throw\nkeep 6 6 6\nbank\n")
    assert result.exit_code == 0, result.output
    before = saved.read_text()
    again = CliRunner().invoke(app, args, input="throw\n")
    assert again.exit_code == 2
    assert "holds another game (dix-mille; Ana, Bob; 4 moves)" in again.output
    assert saved.read_text() == before


def test_a_resumed_games_other_record_file_is_checked_before_the_game(tmp_path: Path) -> None:
    """--resume A --record B, with B another game's: refused at once (the game was played
    to its end, then said it could not write its record)."""
    dice = tmp_path / "dice.txt"
    dice.write_text("6 6 6 4 2\n")
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for path in (first, second):
        args = ["play", "--plain", "-p", "Ana,Bob", "--record", str(path), "--dice", str(dice)]
        assert CliRunner().invoke(app, args, input="throw\n").exit_code == 0
    before = second.read_text()
    args = ["play", "--plain", "--resume", str(first), "--record", str(second)]
    result = CliRunner().invoke(app, args, input="keep 6 6 6\n")
    assert result.exit_code == 2
    assert f"--record {second}: the file holds another game" in result.output
    assert second.read_text() == before
    again = CliRunner().invoke(app, [*args[:4], "--record", str(first)], input="quit\n")
    assert again.exit_code == 0  # its own file: written back


def test_a_session_knows_whether_a_file_holds_its_last_move(tmp_path: Path) -> None:
    """``Session.unsaved``: what the line mode's quit and end and the terminal app's quit
    ask about (each adapter kept a count of its own)."""
    path = tmp_path / "game.json"
    session = Session.new("dix-mille", "Ana,Bob", dice=SeededDice(1))
    assert not session.unsaved()  # no move: nothing to lose
    session.play(session.read("throw"))
    session.roll()
    assert session.unsaved()
    session.save(str(path))
    assert not session.unsaved()
    session.play(session.read(str(session.moves()[0])))
    assert session.unsaved()
    resumed = Session.resume(path.read_text(), source=str(path))
    assert not resumed.unsaved()  # as the file holds it
    session.record_to(str(path))  # its own file: written after every move from now on
    assert not session.unsaved()


# ---------------------------------------------------------------------------- a resumed log


def test_a_resumed_game_shows_each_players_last_turn_as_it_was_played() -> None:
    """The log of a resumed game starts where everyone stands: the events of each player's
    last turn, word for word as the game said them, then the resumption (it was empty but
    for "game resumed", and nobody could see what the last player had just done)."""
    session = Session.new("farkle", "bot:easy,bot:strong,bot:medium", dice=SeededDice(7))
    for _ in range(60):
        while session.need() is Need.DICE:
            session.roll()
        session.bot_step()
    played = [entry.text for entry in session.log if entry.kind == "event"]
    resumed = Session.resume(dump_record(session.record))
    said = [entry.text for entry in resumed.log]
    note = f"game resumed after {len(session.record.actions)} actions"
    assert note in said
    before = said[: said.index(note)]
    assert sum(text.endswith(" to play") for text in before) == 3  # a turn of each player
    assert before[0].endswith(" to play")
    # the end of the game's own log (less a turn just started: said after the resumption)
    tail = played[:-1] if played[-1].endswith(" to play") else played
    assert tail[-len(before) :] == before
    assert len(before) < len(played)
