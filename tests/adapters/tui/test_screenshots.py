"""The README's screenshots come from a scripted game: it must still play to its end."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from tui_helpers import SIZE, game_screen, run

from zloutch.engine import Phase

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "screenshots.py"


def load_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("screenshots", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["screenshots"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # a long app run (2.5 to 7 s): .ci/run runs it with -m slow
def test_screenshot_game_reaches_its_picture() -> None:
    shots = load_script()
    app = shots.game_app()

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await shots.stage(pilot)
            assert app.session is not None
            state = app.session.state
            assert state.phase is Phase.KEEP and state.turn.player == 0
            assert [s.score for s in state.sheets] == [1700, 1500, 800]
            assert state.sheets[0].levels[0].crossed  # bumped by Chloe (G-4)
            assert game_screen(pilot).selection() == (1, 5, 5)

    run(play)
