"""The page's files and the server's answers it draws (no browser: see test_web_browser.py)."""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from served import Player, Server

from zloutch.adapters.web.app import STATIC
from zloutch.rules import load_rules

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


def page_text(server: Server, path: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(server.base + path, timeout=30) as answer:
            kind = answer.headers.get("content-type", "")
            return answer.status, kind, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, "", ""


def test_the_pages_are_served_and_the_invitations_point_at_them(server: Server) -> None:
    created = server.post("/api/games", {"seats": [{"name": "Ana"}, {"name": "Bob"}]})
    game = created["game"]
    assert created["invites"][1]["url"].startswith("/join/")
    assert created["open"]["url"].startswith(f"/g/{game}/open/")
    assert created["watch"] == f"/g/{game}?watch"
    for path in ("/", f"/g/{game}", created["invites"][1]["url"], created["open"]["url"]):
        status, _, text = page_text(server, path)
        assert status == 200 and '<main id="main">' in text, path
    status, kind, _ = page_text(server, "/static/js/table.js")
    assert status == 200 and "javascript" in kind


def test_the_state_says_why_each_action_cannot_be_played(server: Server) -> None:
    state = server.post("/api/games", {"seats": [{"name": "Ana"}, {"name": "Bob"}]})["state"]
    assert state["entry"] == 500  # dix-mille's T-7: the page says "not entered" only then
    assert state["overshoot"] == "lost"  # T-9: a keep past 10,000 loses the turn
    seats = [{"name": "Ana"}, {"name": "Bob"}]
    farkle = server.post("/api/games", {"rules": "zilch", "seats": seats})["state"]
    assert farkle["entry"] == load_rules("zilch").turn.entry
    assert state["refusals"]["throw"] is None
    assert state["refusals"]["bank"] == {
        "reason": "you cannot bank now: there is nothing kept to bank",
        "rule": None,
    }
    assert state["refusals"]["take"]["rule"] == "G-8"
    assert state["keeps"] == []
    assert state["standing"] == [{"current": None, "loose_ticks": 0}] * 2
    assert state["outcome"] is None
    french = server.get(f"/api/games/{state['game']}?lang=fr")["refusals"]["bank"]
    assert french == {
        "reason": "vous ne pouvez pas marquer maintenant : rien n'est gardé",
        "rule": None,
    }


def test_the_hint_and_the_review(server: Server) -> None:
    game = server.post("/api/games", {"seats": [{"name": "Ana"}, {"name": "Bob"}]})["game"]
    hint = server.get(f"/api/games/{game}/hint")
    assert hint["player"] == 0 and hint["objective"] == "expected points"
    assert [v["action"] for v in hint["values"]] == ["throw"] and hint["values"][0]["value"] > 0
    assert hint["digits"] == 1  # one move: nothing to stand apart from
    assert (hint["values"][0]["passes"], hint["values"][0]["strands"]) == (False, False)
    assert server.get(f"/api/games/{game}/hint?lang=fr")["values"][0]["words"] == "lancer"
    early = server.get(f"/api/games/{game}/review")
    assert early["status"] == 400 and "over" in early["error"]


def test_a_host_may_turn_the_hints_off(server: Server) -> None:
    """``hints: false``: the state says so (the page shows no hint) and the hint is refused
    to everyone, in the asked language, while the game lasts; a continued record may say
    the same. The default offers them."""
    seats = [{"name": "Ana"}, {"name": "Bob"}]
    plain = server.post("/api/games", {"seats": seats})["game"]
    assert server.get(f"/api/games/{plain}")["hints"] is True
    game = server.post("/api/games", {"seats": seats, "hints": False})["game"]
    assert server.get(f"/api/games/{game}")["hints"] is False
    assert server.get(f"/api/games/{game}/hint") == {
        "status": 400,
        "error": "this game's host turned the hints off",
    }
    french = server.get(f"/api/games/{game}/hint?lang=fr")
    assert french["error"] == "l'hôte de cette partie a désactivé les conseils"
    record = server.get(f"/api/games/{plain}/record")
    continued = server.post("/api/records", {"record": record, "hints": False})
    assert continued["state"]["hints"] is False
    assert server.get(f"/api/games/{continued['game']}/hint")["status"] == 400


def test_one_phone_acts_for_every_seat_it_holds(server: Server) -> None:
    """At a real table one phone keeps the score: an intent may carry the token of the seat
    it acts for; a token of no seat of the game is refused."""
    created, tokens = server.new_game(seats=[{"name": "Ana"}, {"name": "Bob"}], real_dice=True)
    game = created["game"]
    phone = Player(server, game, tokens[0])

    def intent(action: str, token: str, n: int) -> dict[str, Any]:
        message = {"type": "intent", "id": f"i{n}", "version": phone.state["version"]}
        phone.ws.send(json.dumps({**message, "action": action, "token": token}))
        while (answer := phone.receive())["type"] not in ("ack", "refused"):
            pass
        if answer["type"] == "ack":
            phone.until_version(answer["version"])
        return answer

    assert intent("throw", tokens[0], 1)["type"] == "ack"
    assert intent("roll 2 3 4 6 6", tokens[0], 2)["type"] == "ack"  # Ana farkled
    assert intent("throw", tokens[1], 3)["type"] == "ack"  # Bob throws, from the same phone
    assert intent("off", "forged", 4)["code"] == "bad_token"
    phone.close()
    state = server.get(f"/api/games/{game}")
    assert state["turn_player"] == 1 and state["phase"] == "roll"


def test_no_label_is_hidden_from_the_catalog_in_a_template_literal() -> None:
    """Babel's JavaScript extractor does not read inside a template literal's ``${...}``:
    a t() there would never reach ui.po, and its French would go missing unseen."""
    for path in (STATIC / "js").glob("*.js"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\$\{\s*(t|N_)\(", text), path.name
