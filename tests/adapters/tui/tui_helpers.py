"""Drive the full-screen app with scripted dice through Textual's pilot."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from typing import Any

from rich.console import Console, RenderableType
from textual.pilot import Pilot

from zloutch.adapters.tui import AppConfig, ZloutchApp
from zloutch.adapters.tui.table import GameScreen
from zloutch.app.dice import ScriptedDice
from zloutch.app.session import Session

SIZE = (120, 40)


def make_app(
    spec: str,
    players: str,
    throws: str = "",
    *,
    table: bool = False,
    record_path: str | None = None,
) -> ZloutchApp:
    """An app that starts at the table, with the throws given (one per line, or ';')."""
    dice = ScriptedDice.from_text(throws.replace(";", "\n"), "test dice") if throws else None
    session = Session.new(spec, players, dice=dice, table_mode=table)
    return ZloutchApp(AppConfig(session=session, pace=0, record_path=record_path))


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(test())  # type: ignore[arg-type]


def game_screen(pilot: Pilot[Any]) -> GameScreen:
    app = pilot.app
    screen = next(s for s in app.screen_stack if isinstance(s, GameScreen))
    return screen


async def press(pilot: Pilot[Any], *keys: str) -> None:
    await pilot.press(*keys)


async def select(pilot: Pilot[Any], dice: str) -> None:
    """Select dice on the table by their faces, with the number keys."""
    screen = game_screen(pilot)
    faces = list(screen.tray_faces())
    keys: list[str] = []
    for face in (int(f) for f in dice.split()):
        i = next(i for i, f in enumerate(faces) if f == face and str(i + 1) not in keys)
        keys.append(str(i + 1))
    await press(pilot, *keys)


async def keep(pilot: Pilot[Any], dice: str) -> None:
    """Select the dice of a keep by their faces, then press k."""
    await select(pilot, dice)
    await press(pilot, "k")


def levels(app: ZloutchApp, seat: int) -> list[tuple[int, bool, int]]:
    assert app.session is not None
    return [(lv.value, lv.crossed, lv.ticks) for lv in app.session.state.sheets[seat].levels]


def as_text(renderable: RenderableType, width: int = 200) -> str:
    """What a renderable shows as plain text, ``width`` columns wide."""
    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(renderable)
    return console.export_text()
