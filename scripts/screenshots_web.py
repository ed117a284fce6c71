"""Screenshots of the web page on a phone (360x640) and a desktop (1280x800).

Run: python scripts/screenshots_web.py [--out docs/screenshots] [--chromium /usr/bin/chromium]
[--lang fr]

Starts ``zloutch serve`` on a free port over a throwaway SQLite file, plays a game in
Chromium through the page's own buttons (Ana against a bot; the dice are the server's, so
each run shows another game), and saves web-phone-*.png and web-desktop-*.png of the lobby,
the table in the middle of a game (dice selected, the hint open) and the end (ranking,
review, the dice checked); with ``--lang fr`` the page is in French and the names end in
``-fr``. Needs the web extra, Playwright and Debian's Chromium
(``apt-get install -y chromium``); never downloads a browser.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
SIZES = {"phone": {"width": 360, "height": 640}, "desktop": {"width": 1280, "height": 800}}
RULES_TARGET = "3000"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(folder: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }
    command = [sys.executable, "-m", "zloutch", "serve", "--port", str(port)]
    db = f"sqlite:///{folder}/games.sqlite"
    process = subprocess.Popen([*command, "--db", db], env=env, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/api/health", timeout=2).read()
            return process, base
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("zloutch serve did not start")


def version(page: Any) -> int:
    return int(page.get_attribute("#status", "data-version"))


def best_button(page: Any) -> str | None:
    """The button of the hint's best action (the hint panel open), if it shows one."""
    action = page.evaluate(
        """(version) => {
            const row = document.querySelector(
                `.hint-table[data-version="${version}"] tbody tr`);
            return row ? row.dataset.action : null;
        }""",
        version(page),
    )
    if not action:
        return None
    if action.startswith("keep "):
        found = page.evaluate(
            """(dice) => [...document.querySelectorAll("button.keep")]
                .find((b) => b.querySelector(".keep-dice").textContent === dice)?.id""",
            action[len("keep ") :],
        )
        return f"#{found}" if found else None
    return f"#act-{action}"


def move(page: Any, *, hinted: bool = False) -> bool:
    """One move through the buttons, if one is enabled: the hint's best (``hinted``), else
    the first keep, then throw or bank."""
    choices = ["#keep-0", "#act-fresh", "#act-throw", "#act-bank"]
    if hinted:
        if page.locator("#hint-toggle[aria-expanded=false]").count():
            page.click("#hint-toggle")
        page.wait_for_timeout(200)
        best = best_button(page)
        if best is not None:
            choices.insert(0, best)
    for selector in choices:
        if page.locator(f"{selector}:enabled").count():
            before = version(page)
            page.click(selector)
            page.wait_for_function(
                f"Number(document.querySelector('#status').dataset.version) > {before}"
            )
            return True
    return False


def shoot(page: Any, out: Path, name: str) -> None:
    path = out / name
    page.screenshot(path=str(path), full_page=False)
    print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--lang", choices=("en", "fr"), default="en")
    args = parser.parse_args()
    suffix = "" if args.lang == "en" else f"-{args.lang}"
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        process, base = serve(folder)
        try:
            browser = playwright.chromium.launch(
                executable_path=args.chromium, args=["--no-sandbox"]
            )
            for size, viewport in SIZES.items():
                locale = "en-GB" if args.lang == "en" else "fr-FR"
                context = browser.new_context(viewport=viewport, locale=locale)
                # The page ignores a tap on buttons a throw has just moved (a double tap's
                # second, for 450 ms); the script clicks as soon as the state moves on.
                context.add_init_script("globalThis.zloutchSettleMs = 0")
                context.set_default_timeout(20_000)
                page = context.new_page()
                page.goto(base + "/")
                page.wait_for_selector("#create")
                page.select_option("#preset", "dix-mille")
                page.fill("#seat-0-name", "Ana")
                page.select_option("#seat-1-level", "strong")
                page.click("details.options summary")
                if size == "phone":
                    page.locator("#preset").scroll_into_view_if_needed()
                shoot(page, args.out, f"web-{size}-lobby{suffix}.png")
                page.fill("#option-target", RULES_TARGET)
                page.fill("#option-entry", "0")
                page.select_option("#option-exact_target", "off")
                page.fill("#pace", "0")
                page.click("#create")
                page.click("#go-table")
                page.wait_for_selector("#status")
                # Mid-game: a few turns each, then a throw to keep from, a die selected.
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline:
                    levels = page.locator("#sheet tbody td").all_inner_texts()
                    keeping = page.locator("#keep-0:enabled").count()
                    if keeping and len([c for c in levels if c.strip()]) >= 2:
                        break
                    if not move(page, hinted=True):
                        page.wait_for_timeout(100)
                if page.locator("#hint-toggle[aria-expanded=false]").count():
                    page.keyboard.press("h")
                if page.locator("#die-0:enabled").count():
                    first = page.locator(".keeps .keep-dice").first.inner_text().split()[0]
                    faces = page.locator(".dice.thrown .die").count()
                    for i in range(faces):
                        label = page.get_attribute(f"#die-{i}", "aria-label") or ""
                        if label.endswith(f": {first}"):
                            page.keyboard.press(str(i + 1))
                            break
                page.wait_for_selector(".hint-table")
                shoot(page, args.out, f"web-{size}-table{suffix}.png")
                deadline = time.monotonic() + 180
                while page.locator("#end").count() == 0 and time.monotonic() < deadline:
                    if not move(page, hinted=True):
                        page.wait_for_timeout(100)
                page.wait_for_selector("#curve polyline")
                page.click("#check-dice")
                page.wait_for_selector("#dice-verdict")
                page.locator("#end").scroll_into_view_if_needed()
                page.evaluate("document.getElementById('end').scrollIntoView()")
                shoot(page, args.out, f"web-{size}-end{suffix}.png")
                context.close()
            browser.close()
        finally:
            process.terminate()
            process.wait(10)


if __name__ == "__main__":
    main()
