"""The page's files and the server's answers it draws (no browser: see test_web_browser.py)."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient

from zloutch.adapters.web.app import STATIC, create_app
from zloutch.rules import OPTIONS, PRESETS

WEB = STATIC.parent
ROOT = Path(__file__).resolve().parents[3]
UI_PO = WEB / "locale" / "fr" / "LC_MESSAGES" / "ui.po"
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def page_messages() -> set[str]:
    """Every text the page's scripts pass to t() or N_()."""
    found = extract_from_dir(
        str(STATIC / "js"),
        method_map=[("**.js", "javascript")],
        keywords={"t": None, "N_": None},
    )
    return {message for _, _, message, _, _ in found if isinstance(message, str)}


def test_every_label_of_the_page_is_in_french_with_its_placeholders() -> None:
    with UI_PO.open("rb") as po:
        catalog = read_po(po)
    french = {m.id: m.string for m in catalog if m.id}
    labels = page_messages()
    assert len(labels) > 100
    assert labels - set(french) == set(), "labels with no French: add them to ui.po"
    for msgid in labels:
        assert french[msgid], msgid
        assert set(PLACEHOLDER.findall(french[msgid])) == set(PLACEHOLDER.findall(msgid)), msgid


def test_the_page_asks_nothing_of_another_host() -> None:
    svg_namespace = "http://www.w3.org/2000/svg"
    for path in STATIC.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8").replace(svg_namespace, "")
            assert not re.search(r"https?://|(src|href)=\"//|url\(\s*['\"]?//", text), path


def test_every_file_of_the_page_is_shipped_in_the_package() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["zloutch.adapters.web"]
    for path in [*STATIC.rglob("*"), UI_PO]:
        if path.is_file():
            name = path.relative_to(WEB).as_posix()
            assert any(fnmatch.fnmatch(name, p) for p in patterns), name


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'games.sqlite'}")) as test_client:
        yield test_client


def new_game(client: TestClient, **options: Any) -> dict[str, Any]:
    answer = client.post(
        "/api/games", json={"seats": [{"name": "Ana"}, {"name": "Bob"}], **options}
    )
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def test_the_pages_are_served_and_the_invitations_point_at_them(client: TestClient) -> None:
    created = new_game(client)
    game = created["game"]
    assert created["invites"][1]["url"].startswith("/join/")
    assert created["open"]["url"].startswith(f"/g/{game}/open/")
    assert created["watch"] == f"/g/{game}?watch"
    for path in ("/", f"/g/{game}", created["invites"][1]["url"], created["open"]["url"]):
        page = client.get(path)
        assert page.status_code == 200 and '<main id="main">' in page.text, path
    script = client.get("/static/js/table.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]


def test_the_state_says_why_each_action_cannot_be_played(client: TestClient) -> None:
    state = new_game(client)["state"]
    assert state["refusals"]["throw"] is None
    assert state["refusals"]["bank"] == {
        "reason": "you cannot bank now: there is nothing kept to bank",
        "rule": None,
    }
    assert state["refusals"]["take"]["rule"] == "G-8"
    assert state["keeps"] == []
    assert state["standing"] == [{"current": None, "loose_ticks": 0}] * 2
    assert state["outcome"] is None


def test_the_hint_the_presets_and_the_review(client: TestClient) -> None:
    game = new_game(client)["game"]
    hint = client.get(f"/api/games/{game}/hint").json()
    assert hint["player"] == 0 and hint["objective"] == "expected points"
    assert [v["action"] for v in hint["values"]] == ["throw"] and hint["values"][0]["value"] > 0
    presets = client.get("/api/presets").json()
    assert [p["name"] for p in presets["presets"]] == list(PRESETS)
    assert {o["name"]: o["rule"] for o in presets["options"]} == {
        name: info.rule for name, info in OPTIONS.items()
    }
    assert all(o["meaning"] for o in presets["options"])
    early = client.get(f"/api/games/{game}/review")
    assert early.status_code == 400 and "over" in early.json()["error"]


def test_one_phone_acts_for_every_seat_it_holds(client: TestClient) -> None:
    """At a real table one phone keeps the score: an intent may carry the token of the seat
    it acts for; a token of no seat of the game is refused."""
    created = new_game(client, real_dice=True)
    game = created["game"]
    tokens = [client.post(f"/api/join/{i['code']}").json()["token"] for i in created["invites"]]
    with client.websocket_connect(f"/ws/{game}") as socket:
        socket.send_json({"type": "hello", "token": tokens[0], "since": 0})
        assert socket.receive_json()["type"] == "welcome"
        socket.receive_json()
        version = 0
        for n, action in enumerate(["throw", "roll 2 3 4 6 6", "throw"]):
            token = tokens[1] if n == 2 else tokens[0]  # Ana farkled: Bob throws
            intent = {"type": "intent", "id": f"i{n}", "version": version, "action": action}
            socket.send_json({**intent, "token": token})
            while (answer := socket.receive_json())["type"] not in ("ack", "refused"):
                pass
            assert answer["type"] == "ack", answer
            version = answer["version"]
        socket.send_json(
            {"type": "intent", "id": "x", "version": version, "action": "off", "token": "forged"}
        )
        while (answer := socket.receive_json())["type"] not in ("ack", "refused"):
            pass
        assert answer["code"] == "bad_token"
    state = client.get(f"/api/games/{game}").json()
    assert state["turn_player"] == 1 and state["phase"] == "roll"
