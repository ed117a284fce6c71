"""Take the screenshots of the README: the table, the sheet, the new-game screen (SVG).

    python scripts/screenshots.py            # writes docs/screenshots/*.svg

A scripted game of three people is played through the app with Textual's pilot, so the
pictures always show the current program. ``tests/adapters/tui/test_screenshots.py`` plays the same
game without saving, so a change that breaks the script fails the tests.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "adapters" / "tui"))

from textual.pilot import Pilot  # noqa: E402
from tui_helpers import keep, make_app, press, select  # noqa: E402

from zloutch.adapters.tui import AppConfig, ZloutchApp  # noqa: E402

OUT = ROOT / "docs" / "screenshots"
SIZE = (132, 42)
PLAYERS = "Ana,Bob,Chloe"
THROWS = [
    "6 6 6 4 2",  # Ana: 600
    "1 1 1 2 3",  # Bob starts fresh: 1 1 1 ...
    "5 5",  # ... 5 5: a full hand, thrown again (T-5) ...
    "1 2 3 3 4",  # ... a 1: 1200
    "5 5 5 1 3",  # Chloe: 600, which bumps Ana's 600 (G-4)
    "2 3 4 6 6",  # Ana: nothing
    "1 5 2 3 3",  # Bob: 150 ...
    "1 2 4",  # ... 250 cannot be banked (T-6) ...
    "5 3",  # ... 300: 1500
    "2 3 4 6 6",  # Chloe: a tick beside 600 (G-3)
    "1 1 1 5 5",  # Ana: a full hand ...
    "6 6 6 2 3",  # ... then 6 6 6: 1700
    "2 3 4 6 6",  # Bob: a tick beside 1500
    "1 1 2 3 4",  # Chloe: 100 ...
    "1 3 4 6",  # ... 200: 800
    "1 5 5 2 3",  # Ana, deciding what to keep
]


def game_app() -> ZloutchApp:
    return make_app("dix-mille", PLAYERS, ";".join(THROWS))


async def stage(pilot: Pilot[Any]) -> None:
    """Play the scripted game up to Ana's choice, with the hint shown."""
    await press(pilot, "t")
    await keep(pilot, "6 6 6")
    await press(pilot, "b", "f")
    await keep(pilot, "1 1 1")
    await press(pilot, "t")
    await keep(pilot, "5 5")
    await press(pilot, "t")
    await keep(pilot, "1")
    await press(pilot, "b", "f")
    await keep(pilot, "5 5 5 1")
    await press(pilot, "b", "f", "t")
    await keep(pilot, "1 5")
    await press(pilot, "t")
    await keep(pilot, "1")
    await press(pilot, "b", "t")
    await keep(pilot, "5")
    await press(pilot, "b", "f", "t")
    await keep(pilot, "1 1 1 5 5")
    await press(pilot, "t")
    await keep(pilot, "6 6 6")
    await press(pilot, "b", "f", "t")
    await keep(pilot, "1")
    await press(pilot, "t")
    await keep(pilot, "1")
    await press(pilot, "b", "f")
    await select(pilot, "1 5 5")
    await press(pilot, "h")


async def shoot(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    app = game_app()
    async with app.run_test(size=SIZE) as pilot:
        await stage(pilot)
        written.append(Path(app.save_screenshot(filename="table.svg", path=str(out))))
        await press(pilot, "p")
        written.append(Path(app.save_screenshot(filename="sheet.svg", path=str(out))))
    start = ZloutchApp(AppConfig(pace=0))
    async with start.run_test(size=SIZE) as pilot:
        await pilot.pause()
        written.append(Path(start.save_screenshot(filename="new-game.svg", path=str(out))))
    return written


def main() -> None:
    for path in asyncio.run(shoot(OUT)):
        print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
