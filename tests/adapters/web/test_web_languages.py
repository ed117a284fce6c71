"""``zloutch serve`` in two languages: a French socket and an English one on the same game, and
the lobby's endpoints (``/api/presets``, ``/api/i18n/{lang}``), through a real server."""

from __future__ import annotations

from typing import Any

from served import Player, Server

from zloutch.rules import COMMON_OPTIONS, OPTIONS, PRESETS, load_rules
from zloutch.strategy.bots import LEVELS

SHORT = "dix-mille(target=2000)"
NOTHING_TO_BANK = {
    "en": "you cannot bank now: there is nothing kept to bank",
    "fr": "vous ne pouvez pas marquer maintenant : rien n'est gardé",
}


def without_texts(message: dict[str, Any]) -> dict[str, Any]:
    """An events message with the words left out: what must be the same in every language."""
    entries = [
        {**e, "events": [{k: v for k, v in ev.items() if k != "text"} for ev in e["events"]]}
        for e in message["entries"]
    ]
    state = {k: v for k, v in message["state"].items() if k != "refusals"}
    return {**message, "entries": entries, "state": state}


def texts(message: dict[str, Any]) -> list[str]:
    return [ev["text"] for e in message["entries"] for ev in e["events"]]


def test_a_french_socket_hears_french_and_an_english_one_english(server: Server) -> None:
    created, tokens = server.new_game(rules=SHORT, seats=[{"name": "Ana"}, {"name": "Bob"}])
    game = created["game"]
    ana = Player(server, game, tokens[0], lang="fr")
    bob = Player(server, game, tokens[1])  # no lang: English, as before
    watcher = Player(server, game, None, lang="fr")

    # Before the first throw, whatever the dice will be: nothing to bank, in each language.
    assert bob.state["refusals"]["bank"]["reason"] == NOTHING_TO_BANK["en"]
    assert ana.state["refusals"]["bank"]["reason"] == NOTHING_TO_BANK["fr"]
    refused = ana.intent("keep 1 5")
    assert refused["type"] == "refused" and refused["code"] == "illegal"
    assert refused["reason"] == "il n'y a pas de lancer où garder des dés : lancez d'abord (T-2)"
    assert refused["rule"] == "T-2"
    out_of_turn = bob.intent("throw")
    assert (out_of_turn["code"], out_of_turn["reason"]) == ("not_your_turn", "it is Ana's turn")
    watching = watcher.intent("throw")
    assert watching["reason"] == "un spectateur regarde : seul un joueur assis joue"
    assert ana.intent("dance")["reason"].startswith("action inconnue 'dance' : les actions sont")
    stale = ana.intent("throw", version=ana.state["version"] - 1)
    assert stale["code"] == "stale" and stale["reason"].startswith("la partie a avancé")

    assert ana.intent("throw")["type"] == "ack"
    french, english = ana.until("events"), bob.until("events")
    assert without_texts(french) == without_texts(english)
    throw = next(t for t in texts(english) if t.startswith("Ana throws: "))
    faces = throw.removeprefix("Ana throws: ")
    assert f"Ana lance : {faces}" in texts(french)
    assert texts(watcher.until("events")) == texts(french)
    # The reasons under the buttons are in the socket's language too.
    if english["state"]["refusals"]["throw"] is None:
        # The throw was a farkle (the server's dice, 1 in 13): Bob is to throw, nothing kept.
        assert english["state"]["refusals"]["bank"]["reason"] == NOTHING_TO_BANK["en"]
        assert french["state"]["refusals"]["bank"]["reason"] == NOTHING_TO_BANK["fr"]
    else:
        assert english["state"]["refusals"]["throw"]["reason"].startswith(
            "you cannot throw now: keep dice from the throw first"
        )
        assert french["state"]["refusals"]["throw"]["reason"].startswith(
            "vous ne pouvez pas lancer maintenant : gardez d'abord des dés du lancer"
        )
        assert french["state"]["refusals"]["throw"]["rule"] == "T-2"

    # A French catch-up after a reconnection: the same entries, in French.
    late = Player(server, game, tokens[1], since=0, lang="fr")
    assert late.state["version"] == ana.state["version"]
    assert server.get(f"/api/games/{game}?lang=fr")["refusals"] == french["state"]["refusals"]
    assert server.get(f"/api/games/{game}")["refusals"] == english["state"]["refusals"]
    for p in (ana, bob, watcher, late):
        p.close()


def test_presets_and_options_come_with_their_meanings_in_the_language(server: Server) -> None:
    english, french = server.get("/api/presets"), server.get("/api/presets?lang=fr")
    assert [p["name"] for p in english["presets"]] == list(PRESETS)
    dix = next(p for p in french["presets"] if p["name"] == "dix-mille")
    assert dix["dice"] == 5 and dix["target"] == 10000
    assert dix["summary"].startswith("10 000 à cinq dés : 10 000 tout juste")
    # Each preset's own value of every option, for the lobby to show beside "as the preset".
    for preset in english["presets"]:
        assert preset["values"] == load_rules(preset["name"]).option_values()
    assert dix["values"]["entry"] == 500 and dix["values"]["bump"] == "current"
    assert english["bots"] == ["beginner", "easy", "medium", "strong", "best"]  # weakest first
    # The options shown first, in sight: the same list as the terminal's new-game screen.
    assert english["common"] == ["target", "entry", "exact_target"] == list(COMMON_OPTIONS)
    # What each level's bot plays, in words, in the language (the lobby says it).
    assert [(lv["level"], lv["bot"]) for lv in english["levels"]] == list(LEVELS.items())
    assert english["levels"][0]["plays"] == "plays any legal move at random"
    assert french["levels"][0]["plays"] == "joue un coup permis au hasard"
    for en, fr in zip(english["levels"], french["levels"], strict=True):
        assert en["plays"] != fr["plays"] and fr["plays"].split()[0] in ("joue", "garde"), fr
    assert [o["name"] for o in french["options"]] == list(OPTIONS)
    entry = next(o for o in french["options"] if o["name"] == "entry")
    assert entry == {
        "name": "entry",
        "rule": "T-7",
        "meaning": "Pour ouvrir, il faut marquer au moins autant ; 0 : pas d'ouverture.",
        "kind": "int",
        "default": 0,
        "choices": None,
    }
    bump = next(o for o in english["options"] if o["name"] == "bump")
    assert (
        bump["choices"] == ["off", "current", "any"] and bump["meaning"] == OPTIONS["bump"].meaning
    )
    for en, fr in zip(english["options"], french["options"], strict=True):
        assert fr["meaning"] != en["meaning"]
        assert {**fr, "meaning": None} == {**en, "meaning": None}


def test_the_page_catalog_and_unknown_languages(server: Server) -> None:
    french = server.get("/api/i18n/fr")
    assert french["lang"] == "fr" and french["languages"] == ["en", "fr"]
    assert isinstance(french["messages"], dict)
    assert server.get("/api/i18n/en") == {"lang": "en", "languages": ["en", "fr"], "messages": {}}
    for path in ("/api/i18n/de", "/api/presets?lang=de"):
        answer = server.get(path)
        assert answer["status"] == 404
        assert answer["error"] == "unknown language 'de': the languages are en, fr"
    created, _ = server.new_game(rules=SHORT, seats=[{"name": "Ana"}, {"bot": "easy"}])
    assert server.get(f"/api/games/{created['game']}?lang=xx")["status"] == 404
