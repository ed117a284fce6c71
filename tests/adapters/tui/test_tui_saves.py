"""The full-screen app keeps its record: after every move, on SIGTERM and SIGHUP, and before
a bug's traceback; a resumed game is kept in the file it came from."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from textual.widgets import Input
from tui_helpers import SIZE, keep, make_app, press, run

from zloutch.adapters.tui.screens import SaveScreen
from zloutch.engine.record import load_record

THROWS = "1 1 4 4 3;1 5 2"


def actions(path: Path) -> tuple[str, ...]:
    return load_record(path.read_text())[0].actions


def test_every_move_is_on_disk_as_it_is_played(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    app = make_app("dix-mille", "Ana,Bob", THROWS, record_path=str(record))

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            assert actions(record) == ()
            await press(pilot, "t")
            assert actions(record) == ("throw", "roll 1 1 3 4 4")
            await keep(pilot, "1 1")
            assert actions(record) == ("throw", "roll 1 1 3 4 4", "keep 1 1")

    run(play)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_saves_and_ends_with_its_code(tmp_path: Path, signum: int) -> None:
    record = tmp_path / "game.json"
    app = make_app("dix-mille", "Ana,Bob", THROWS, record_path=str(record))

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await keep(pilot, "1 1")
            # The app's loop catches it (else it would end this test run): never the default.
            assert signal.getsignal(signum) not in (signal.SIG_DFL, signal.SIG_IGN, None)
            record.unlink()  # so that only the way out can have written it
            os.kill(os.getpid(), signum)
            await pilot.pause(0.2)

    run(play)
    assert app.return_code == 128 + signum
    assert actions(record) == ("throw", "roll 1 1 3 4 4", "keep 1 1")
    assert signal.getsignal(signum) in (signal.SIG_DFL, signal.default_int_handler)


def test_a_bug_writes_the_record_before_the_app_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "game.json"
    app = make_app("dix-mille", "Ana,Bob", THROWS, record_path=str(record))
    assert app.session is not None

    def broken() -> None:
        raise RuntimeError("a bug in the hint")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            record.unlink()  # so that only the way out can have written it
            monkeypatch.setattr(app.session, "advice", broken)
            await press(pilot, "h")
            await pilot.pause()

    with pytest.raises(RuntimeError, match="a bug in the hint"):
        run(play)
    assert app.return_code == 1
    assert actions(record) == ("throw", "roll 1 1 3 4 4")


def test_a_nul_byte_in_the_save_screen_is_a_notice_not_a_crash(tmp_path: Path) -> None:
    app = make_app("dix-mille", "Ana,Bob", THROWS)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t", "s")
            assert isinstance(app.screen, SaveScreen)
            app.screen.query_one("#path", Input).value = str(tmp_path / "a\0b.json")
            await press(pilot, "enter")
            await pilot.pause()
            assert app.is_running and app.unsaved()

    run(play)
    assert app.return_code != 1  # 1: the app ended on an exception
