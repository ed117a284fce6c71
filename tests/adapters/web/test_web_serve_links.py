"""``zloutch serve`` says the links friends can open, and the games' links are built on them."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from served import SRC, free_port

from zloutch.adapters.cli.serve import (
    checked_public_url,
    network_addresses,
    reachable_urls,
    startup_text,
)
from zloutch.rules import ZloutchError


def test_every_network_gives_each_address_and_never_0000() -> None:
    addresses = ["192.168.1.20", "10.0.0.5", "fd00::2"]
    assert reachable_urls("0.0.0.0", 8000, addresses) == [
        "http://192.168.1.20:8000/",
        "http://10.0.0.5:8000/",
    ]
    assert reachable_urls("::", 8000, addresses)[-1] == "http://[fd00::2]:8000/"
    assert reachable_urls("0.0.0.0", 8000, []) == ["http://127.0.0.1:8000/"]
    assert reachable_urls("192.168.1.20", 9000, addresses) == ["http://192.168.1.20:9000/"]


def test_this_machines_addresses_leave_out_loopback_and_link_local() -> None:
    found = network_addresses()
    assert all(not a.startswith(("127.", "fe80:")) and a != "::1" for a in found)
    assert found == sorted(found, key=lambda a: ":" in a)  # IPv4 first


def test_the_start_up_text_has_the_links_and_a_qr_code() -> None:
    urls = ["http://192.168.1.20:8000/", "http://10.0.0.5:8000/"]
    text = startup_text("0.0.0.0", urls, urls[0])
    lines = text.splitlines()
    assert lines[1:3] == ["  http://192.168.1.20:8000/", "  http://10.0.0.5:8000/"]
    assert "0.0.0.0" not in text
    assert f"Scan to open {urls[0]}:" in lines
    assert sum("█" in line for line in lines) > 10  # the QR code's rows
    local = startup_text("127.0.0.1", ["http://127.0.0.1:8000/"], "http://127.0.0.1:8000/")
    assert "--host 0.0.0.0" in local and "█" not in local


def test_a_public_url_is_checked() -> None:
    assert checked_public_url("https://dice.example.org") == "https://dice.example.org/"
    with pytest.raises(ZloutchError, match="--public-url ftp://x"):
        checked_public_url("ftp://x")
    # a path: the page asks for /static/, /api/ and /ws/ from the root, which a proxy of
    # /sub/ alone would not send here
    with pytest.raises(ZloutchError, match=r"not under a path: give https://dice\.example\.org/$"):
        checked_public_url("https://dice.example.org/sub")
    assert checked_public_url("http://10.0.0.2:8000/") == "http://10.0.0.2:8000/"


def test_a_served_game_builds_its_links_on_the_public_url(tmp_path: Path) -> None:
    """A real ``zloutch serve --public-url``: its start-up text names it, and a new game's
    JSON carries it for the page to build the invitations on."""
    import json
    import urllib.request

    port = free_port()
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    command = [sys.executable, "-m", "zloutch", "serve", "--port", str(port)]
    command += ["--db", f"sqlite:///{tmp_path / 'g.sqlite'}"]
    command += ["--public-url", "https://dice.example.org"]
    out = tmp_path / "out.txt"
    with out.open("wb") as sink:
        server = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(300):
                try:
                    urllib.request.urlopen(base + "/api/health", timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            request = urllib.request.Request(
                base + "/api/games", b"{}", {"content-type": "application/json"}
            )
            with urllib.request.urlopen(request, timeout=30) as answer:
                created = json.loads(answer.read())
        finally:
            server.terminate()
            server.wait(20)
    assert created["public_url"] == "https://dice.example.org/"
    text = out.read_text()
    assert "Invitations and watch links use https://dice.example.org/ (--public-url)." in text
    # the operator's line for the game made: its id, its rules and seats, no names or tokens
    assert f"game {created['game']}: new, dix-mille, 2 seats (0 bots)" in text
    assert created["host"] not in text


def test_a_games_log_line_is_one_line_whatever_its_rule_files_name(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A rule file's name is anyone's text: a newline in it wrote a second log line that
    looked like the server's own."""
    import logging

    from zloutch.adapters.web.app import log_created
    from zloutch.server import MemoryStore, NewGame, Rooms, SeatSpec

    rooms = Rooms(MemoryStore())
    toml = '[rules]\nextends = "farkle"\nname = "house\\n2026-12-05 zloutch.serve stopped"\n'
    created = rooms.create(NewGame((SeatSpec("Ana"), SeatSpec(bot="easy")), rules_toml=toml))
    with caplog.at_level(logging.INFO, logger="zloutch.serve"):
        log_created(rooms, created.game_id, "new")
    (line,) = [r.getMessage() for r in caplog.records if r.name == "zloutch.serve"]
    assert "\n" not in line and line.startswith(f"game {created.game_id}: new, <house?2026")
    assert line.endswith("2 seats (1 bots)")
