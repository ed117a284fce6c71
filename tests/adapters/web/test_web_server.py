"""``zloutch serve`` against real WebSocket clients on 127.0.0.1, over SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from served import Player, Server
from typer.testing import CliRunner
from websockets.asyncio.client import ClientConnection, connect

from zloutch.adapters.cli import app

SHORT = "dix-mille(target=2000)"


def play_turns(players: dict[int, Player], rng: random.Random, moves: int) -> int:
    """Each to move sends a random legal intent, ``moves`` times or to the end; acked count."""
    acked = 0
    for _ in range(moves):
        state = next(iter(players.values())).state
        if state["status"] != "playing" or not state["acting"]:
            break
        (seat,) = state["acting"]
        me = players[seat]
        me.until_version(state["version"])
        answer = me.intent(rng.choice(me.state["legal"]))
        assert answer["type"] == "ack", answer
        acked += 1
        for p in players.values():
            p.until_version(answer["version"])
    return acked


def test_two_players_and_a_spectator_play_a_whole_game(server: Server, tmp_path: Path) -> None:
    created, tokens = server.new_game(rules=SHORT, seats=[{"name": "Ana"}, {"name": "Bob"}])
    game = created["game"]
    assert len(created["commitment"]) == 64
    ana, bob = Player(server, game, tokens[0]), Player(server, game, tokens[1])
    watcher = Player(server, game, None)
    assert (ana.welcome["seat"], bob.welcome["seat"], watcher.welcome["seat"]) == (0, 1, None)
    assert ana.intent("seed ana's words")["type"] == "ack"
    bob.until_version(1)
    assert bob.intent("seed 12345")["type"] == "ack"
    ana.until_version(2)
    play_turns({0: ana, 1: bob}, random.Random(1), 5000)
    watcher.until_version(ana.state["version"])
    assert ana.state["status"] == "over" and ana.state["sheet"]["finished"]
    # Every entry reached the spectator once, in order.
    assert watcher.seqs == list(range(1, ana.state["version"] + 1))
    record = server.get(f"/api/games/{game}/record")
    assert record["dice"]["secret"] and record["dice"]["commitment"] == created["commitment"]
    assert [s["seed"] for s in record["dice"]["seeds"]] == ["ana's words", "12345"]
    # The end's review in the players' language: the paragraph and every decision's words.
    english, french = (server.get(f"/api/games/{game}/review?lang={x}") for x in ("en", "fr"))
    assert english["header"][0].startswith(f"{SHORT}: Ana against Bob, finished: ")
    assert french["header"][0].startswith(f"{SHORT} : Ana contre Bob, partie gagnée par ")
    assert french["header"][1].startswith("Évalué en points espérés : ")
    pairs = zip(english["decisions"], french["decisions"], strict=True)
    for en, fr in pairs:
        assert (en["chosen"], en["cost"]) == (fr["chosen"], fr["cost"])
        for key in ("situation", "chosen_words", "best_words"):
            assert fr[key] != en[key] or en[key][0].isdigit(), (key, en[key])
    unknown = server.get(f"/api/games/{game}/review?lang=xx")
    assert unknown == {"status": 404, "error": "unknown language 'xx': the languages are en, fr"}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    runner = CliRunner()
    assert runner.invoke(app, ["verify", str(path)]).exit_code == 0
    assert runner.invoke(app, ["record", "show", str(path)]).exit_code == 0
    place = next(i for i, a in enumerate(record["actions"]) if a.startswith("roll"))
    faces = sorted(int(f) for f in record["actions"][place].split()[1:])
    faces[0] = faces[0] % 6 + 1
    record["actions"][place] = "roll " + " ".join(map(str, sorted(faces)))
    path.write_text(json.dumps(record))
    caught = runner.invoke(app, ["verify", "--json", str(path)])
    assert caught.exit_code == 1
    assert [t["action"] for t in json.loads(caught.stdout)["throws"] if not t["matches"]] == [
        place + 1
    ]
    for p in (ana, bob, watcher):
        p.close()


def test_stale_forged_replayed_and_out_of_turn_intents_are_refused(server: Server) -> None:
    created, tokens = server.new_game(seats=[{"name": "Ana"}, {"name": "Bob"}])
    game = created["game"]
    ana, bob = Player(server, game, tokens[0]), Player(server, game, tokens[1])
    watcher = Player(server, game, None)
    assert watcher.intent("throw")["code"] == "spectator"
    assert bob.intent("throw")["code"] == "not_your_turn"
    bank = ana.intent("bank")
    assert bank["code"] == "illegal" and "nothing kept" in bank["reason"]
    first = ana.intent("throw", id="same")
    assert first["type"] == "ack" and first["version"] == 2
    again = ana.intent("throw", version=0, id="same")
    assert again == {**first, "duplicate": True}
    ana.until_version(2)
    stale = ana.intent(ana.state["legal"][0], version=0)
    assert stale["code"] == "stale" and stale["version"] == 2
    ahead = ana.intent(ana.state["legal"][0], version=99)
    assert (
        ahead["code"] == "stale"
        and "version 99 is ahead of the game (it is at 2)" in (ahead["reason"])
    )
    # An intent with an id is answered by it, whatever is wrong with the rest: a client that
    # waits for its id's answer got an error it could not match, and waited for ever.
    for body in ({"version": "2", "action": "throw"}, {"version": 2, "action": 5}):
        ana.ws.send(json.dumps({"type": "intent", "id": "typed", **body}))
        while (said := ana.receive())["type"] != "refused":
            pass
        assert said["id"] == "typed" and said["code"] == "invalid" and said["version"] == 2
    ana.ws.send(json.dumps({"type": "intent", "version": 2, "action": "throw"}))  # no id
    while (said := ana.receive())["type"] != "error":
        pass
    assert said["reason"] == "an intent needs an id and a version"
    forged = server.socket(game)
    forged.send(json.dumps({"type": "hello", "token": "not-a-token"}))
    said = json.loads(forged.recv(10))
    assert "not one of this game's" in said["reason"] and said["fatal"] == "bad_token"
    nowhere = server.socket("no-such-game")
    nowhere.send(json.dumps({"type": "hello", "token": None}))
    said = json.loads(nowhere.recv(10))
    assert said["type"] == "error" and said["fatal"] == "unknown_game"
    assert server.get(f"/api/games/{game}")["version"] == 2
    bad = server.post("/api/games", {"rules": "dix-mile"})
    assert bad["status"] == 400 and "unknown preset" in bad["error"]
    for p in (ana, bob, watcher):
        p.close()


def test_a_client_reconnects_and_catches_up(server: Server) -> None:
    created, tokens = server.new_game(rules=SHORT, seats=[{"name": "Ana"}, {"name": "Bob"}])
    game = created["game"]
    players = {0: Player(server, game, tokens[0]), 1: Player(server, game, tokens[1])}
    rng = random.Random(2)
    play_turns(players, rng, 4)
    seen = players[1].state["version"]
    players[1].close()
    ana_only = {0: players[0]}
    while players[0].state["acting"] == [0] and players[0].state["status"] == "playing":
        play_turns(ana_only, rng, 1)
    back = Player(server, game, tokens[1], since=seen)
    assert back.seqs == list(range(seen + 1, players[0].state["version"] + 1))
    assert back.state == players[0].state
    fresh = Player(server, game, tokens[1])  # no since: the whole state
    assert fresh.seqs == [] and fresh.state == players[0].state
    players[0].close()
    back.close()
    fresh.close()


def test_bots_play_on_the_server_and_rematch_keeps_the_seats(server: Server) -> None:
    created, tokens = server.new_game(
        rules="dix-mille(target=1000)", seats=[{"name": "Ana"}, {"bot": "easy"}], pace=0
    )
    game = created["game"]
    ana = Player(server, game, tokens[0])
    rng = random.Random(3)
    while ana.state["status"] == "playing":
        if ana.state["acting"] == [0]:
            answer = ana.intent(rng.choice(ana.state["legal"]))
            assert answer["type"] == "ack", answer
            ana.until_version(answer["version"])
        else:
            ana.receive()
    waiting = server.post("/api/waiting", {"tokens": [tokens[0]]})
    assert waiting == {"games": []}
    again = server.post(f"/api/games/{game}/rematch", {"token": tokens[0]})
    assert again["seat"] == 0 and again["game"] != game
    # the operator's line of a game made, a rematch's too
    made = f"game {again['game']}: rematch of {game}, dix-mille(target=1000), 2 seats (1 bots)"
    deadline = time.monotonic() + 10
    while made not in server.read_log() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert made in server.read_log()
    state = server.get(f"/api/games/{again['game']}")
    assert [s["bot"] for s in state["seats"]] == [None, "easy"]
    assert server.post("/api/waiting", {"tokens": [again["token"]]})["games"] == [
        {"game": again["game"], "seat": 0}
    ]
    ana.close()


def test_an_uploaded_record_goes_on_as_a_new_game(server: Server) -> None:
    created, tokens = server.new_game(seats=[{"name": "Ana"}, {"name": "Bob"}])
    ana = Player(server, created["game"], tokens[0])
    ana.intent("throw")
    ana.until_version(2)  # the throw and its roll (a farkle's tick is in the sheet now)
    record = server.get(f"/api/games/{created['game']}/record")
    assert record["dice"]["secret"] is None  # not over: the secret stays hidden
    new = server.post("/api/records", {"record": record})
    assert new["state"]["version"] == 2 and new["state"]["sheet"] == ana.state["sheet"]
    assert new["commitment"] != created["commitment"]
    ana.close()


def test_a_rule_set_from_a_client_never_names_a_file_of_the_server(
    server: Server, tmp_path: Path
) -> None:
    """A spec that names a path is refused before anything is read: the answer is the same
    for a rule file that exists, a file that does not, a folder and a file of the system."""
    from zloutch.rules import load_rules, to_toml

    rule_file = tmp_path / "greed.toml"
    rule_file.write_text(to_toml(load_rules("greed")), encoding="utf-8")
    answers = set()
    for spec in (str(rule_file), str(tmp_path / "none.toml"), str(tmp_path), "/etc/passwd"):
        bad = server.post("/api/games", {"rules": spec, "seats": [{"name": "A"}]})
        assert bad["status"] == 400, bad
        assert "never a file on this machine" in bad["error"]
        answers.add(bad["error"].partition("': ")[2])  # after the spec quoted
    assert len(answers) == 1, answers
    # the same for an uploaded record that names a file instead of keeping its rule text
    created, tokens = server.new_game(seats=[{"name": "Ana"}, {"name": "Bob"}])
    ana = Player(server, created["game"], tokens[0])
    ana.intent("throw")
    ana.until_version(2)  # the throw and its roll (a farkle's tick is in the sheet now)
    record = server.get(f"/api/games/{created['game']}/record")
    ana.close()
    assert "rules_toml" not in record
    bad = server.post("/api/records", {"record": {**record, "rules": str(rule_file)}})
    assert bad["status"] == 400 and "never a file on this machine" in bad["error"], bad
    # a preset with options, and a rule file's text, are still played
    assert server.post("/api/games", {"rules": "greed(target=500)", "seats": [{"name": "A"}]})[
        "game"
    ]
    text = {"rules_file": rule_file.read_text(encoding="utf-8"), "seats": [{"name": "A"}]}
    assert server.post("/api/games", text)["game"]


def test_a_refusal_of_a_new_game_is_said_in_the_pages_language(server: Server) -> None:
    """The lobby posts with its language: a rule's value out of bounds comes back in it
    (it came back in English on a French page), and without one in English."""
    seats = [{"name": "A"}]
    fr = server.post("/api/games?lang=fr", {"rules": "greed(target=-5)", "seats": seats})
    assert fr["status"] == 400 and fr["error"] == "target : au moins 1, et non -5", fr
    high = server.post("/api/games?lang=fr", {"rules": "greed(target=1000000)", "seats": seats})
    assert high["error"] == "target : au plus 100000, et non 1000000", high
    en = server.post("/api/games", {"rules": "greed(target=-5)", "seats": seats})
    assert en["error"] == "target: must be at least 1, got -5", en
    unknown = server.post("/api/games?lang=xx", {"rules": "greed(target=-5)", "seats": seats})
    assert unknown["error"] == "target: must be at least 1, got -5", unknown


def test_a_mistake_in_a_rule_file_sent_says_its_line(server: Server) -> None:
    """An uploaded rule file is refused as the command line refuses it: the key, what is
    wrong, and the line of the text sent where the key is written."""
    text = '[rules]\nextends = "greed"\n\n[game]\ntarget = 1000\n\n[turn]\nentry = "all"\n'
    bad = server.post("/api/games", {"rules_file": text, "seats": [{"name": "A"}]})
    assert bad["status"] == 400, bad
    assert bad["error"].startswith("line 8: turn.entry: "), bad
    syntax = server.post("/api/games", {"rules_file": "[game\n", "seats": [{"name": "A"}]})
    assert syntax["status"] == 400 and "not valid TOML" in syntax["error"], syntax
    assert "line 1" in syntax["error"], syntax  # the parser's own position


def kill_in_the_middle(make_server: Callable[[], Server], games: int, moves: int) -> None:
    """Play many games at once, SIGKILL the server, start it again: every acknowledged
    action is in the log, and every game goes on."""
    server = make_server()
    made = [
        server.new_game(rules=SHORT, seats=[{"name": "A"}, {"name": "B"}]) for _ in range(games)
    ]
    acked: dict[str, list[tuple[int, str]]] = {c["game"]: [] for c, _ in made}
    stop = threading.Event()

    def play(created: dict, tokens: dict[int, str], seed: int) -> None:
        game = created["game"]
        players = {s: Player(server, game, t) for s, t in tokens.items()}
        rng = random.Random(seed)
        try:
            for _ in range(moves):
                state = players[0].state
                if stop.is_set() or state["status"] != "playing":
                    return
                (seat,) = state["acting"]
                me = players[seat]
                me.until_version(state["version"])
                action = rng.choice(me.state["legal"])
                answer = me.intent(action)
                if answer["type"] == "ack":
                    acked[game].append((answer["version"], action))
                for p in players.values():
                    p.until_version(answer["version"])
        except Exception:
            return  # the server died under us: what was acknowledged is what counts

    threads = [
        threading.Thread(target=play, args=(c, t, i), daemon=True) for i, (c, t) in enumerate(made)
    ]
    for t in threads:
        t.start()
    while sum(map(len, acked.values())) < games * moves // 3:
        threading.Event().wait(0.05)
    server.kill()
    stop.set()
    for t in threads:
        t.join(30)
    snapshot = {g: list(a) for g, a in acked.items()}
    check_after_restart(make_server(), made, snapshot)


def check_after_restart(
    again: Server,
    made: list[tuple[dict, dict[int, str]]],
    acked: dict[str, list[tuple[int, str]]],
    told: dict[str, int] | None = None,
) -> None:
    """Every acknowledged action is in the log where it was acknowledged, no socket was told
    of a version the log does not have (``told``), and every game goes on."""
    for game, answers in acked.items():
        record = again.get(f"/api/games/{game}/record")
        state = again.get(f"/api/games/{game}")
        actions = record["actions"]  # no seeds here: entry k of the log is action k
        assert (told or {}).get(game, 0) <= state["version"] == len(actions)
        for version, action in answers:
            assert version <= state["version"]
            # The intent's own entry ends its batch, or comes just before the server's roll.
            assert actions[version - 1] == action or (
                actions[version - 2] == action and actions[version - 1].startswith("roll")
            )
        if state["status"] == "playing":
            created = next(c for c, _ in made if c["game"] == game)
            tokens = next(t for c, t in made if c["game"] == game)
            (seat,) = state["acting"]
            player = Player(again, game, tokens[seat])
            assert player.intent(player.state["legal"][0])["type"] == "ack"
            player.close()
            assert created["commitment"] == state["dice"]["commitment"]


@pytest.mark.slow
def test_sigkill_in_the_middle_loses_nothing_acknowledged(
    make_server: Callable[[], Server],
) -> None:
    kill_in_the_middle(make_server, games=3, moves=30)


@pytest.mark.slow
def test_sigkill_in_the_middle_of_many_games(make_server: Callable[[], Server]) -> None:
    kill_in_the_middle(make_server, games=40, moves=60)


class Socket:
    """An asyncio WebSocket client: the last state, and the highest version it was told."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.state: dict[str, Any] = {}
        self.told = 0
        self.changed = asyncio.Event()
        self.answers: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def read(self) -> None:
        try:
            async for text in self.ws:
                message = json.loads(text)
                if message["type"] in ("events", "state"):
                    self.state = message["state"]
                    self.told = max(self.told, self.state["version"])
                    self.changed.set()
                elif message["type"] in ("ack", "refused"):
                    answer = self.answers.pop(message["id"], None)
                    if answer is not None:
                        answer.set_result(message)
        finally:
            for answer in self.answers.values():
                answer.cancel()

    async def at_least(self, version: int) -> None:
        while self.state.get("version", -1) < version:
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), 20)


async def play_at_once(
    server: Server,
    made: list[tuple[dict, dict[int, str]]],
    acked: dict[str, list[tuple[int, str]]],
    told: dict[str, int],
    kill_after: int,
) -> dict[str, Any]:
    """Every game plays as fast as the server answers, all at once, over asyncio clients;
    SIGKILL once ``kill_after`` intents were acknowledged. The server's health midway."""
    url = f"ws://127.0.0.1:{server.port}/ws"
    sockets: dict[str, list[Socket]] = {}
    readers = []
    for created, tokens in made:
        game = created["game"]
        sockets[game] = []
        for token in (tokens[0], tokens[1], None):
            client = Socket(await connect(f"{url}/{game}", open_timeout=20))
            await client.ws.send(json.dumps({"type": "hello", "token": token}))
            readers.append(asyncio.ensure_future(client.read()))
            sockets[game].append(client)
    killed, asked = asyncio.Event(), asyncio.Event()
    health: dict[str, Any] = {}

    async def play(game: str, seed: int) -> None:
        rng = random.Random(seed)
        players = sockets[game][:2]
        for n in range(1000):
            await players[0].at_least(0)
            state = players[0].state
            if state["status"] != "playing":
                return
            (seat,) = state["acting"]
            me = players[seat]
            await me.at_least(state["version"])
            action = rng.choice(me.state["legal"])
            answer = asyncio.get_running_loop().create_future()
            me.answers[f"k{n}"] = answer
            await me.ws.send(
                json.dumps(
                    {"type": "intent", "id": f"k{n}", "version": state["version"], "action": action}
                )
            )
            reply = await answer
            if reply["type"] == "ack":
                acked[game].append((reply["version"], action))
            count = sum(map(len, acked.values()))
            if count >= kill_after // 2 and not asked.is_set():
                asked.set()  # how the server commits, asked midway without holding the games
                health.update(await asyncio.to_thread(server.get, "/api/health"))
            if count >= kill_after and not killed.is_set():
                killed.set()  # at once, on an acknowledgement: other batches are in flight
                server.kill()

    games = [play(c["game"], i) for i, (c, _) in enumerate(made)]
    await asyncio.gather(*games, return_exceptions=True)
    await asyncio.gather(*readers, return_exceptions=True)
    for game, clients in sockets.items():
        told[game] = max(c.told for c in clients)
    assert killed.is_set(), "the games ended before the server was killed"
    return health


@pytest.mark.slow
def test_sigkill_during_group_commits_loses_nothing_acknowledged_or_told(
    make_server: Callable[[], Server],
) -> None:
    """Many games send their intents at the same moments, so that the server commits them
    in batches; SIGKILL while batches are in flight: every acknowledged action is in the log,
    no socket (players' or spectator's) was told of a version the log lacks, every game goes
    on."""
    server = make_server()
    made = [
        server.new_game(rules="dix-mille(target=5000)", seats=[{"name": "A"}, {"name": "B"}])
        for _ in range(60)
    ]
    acked: dict[str, list[tuple[int, str]]] = {c["game"]: [] for c, _ in made}
    told: dict[str, int] = {}
    health = asyncio.run(play_at_once(server, made, acked, told, kill_after=60 * 8))
    assert health["largest_commit"] > 1 and health["appends"] > health["commits"]
    check_after_restart(make_server(), made, acked, told)


def test_seats_cannot_be_lost(server: Server) -> None:
    """The seat list shows each seat to the people at the table, with the invitations they
    may pass on; an invitation opened twice (two browsers) keeps its seat; the host
    reissues a seat's invitation, and the old one and its token stop working."""
    seats = [{"name": "Ana"}, {"name": "Bob"}, {"bot": "easy"}]
    created = server.post("/api/games", {"rules": SHORT, "seats": seats})
    game, host = created["game"], created["host"]
    codes = {i["seat"]: i["code"] for i in created["invites"]}
    ana = server.post(f"/api/join/{codes[0]}")
    watcher = Player(server, game, ana["token"])

    listed = server.post(f"/api/games/{game}/seats", {"token": ana["token"]})
    assert listed["host"] is False
    shown = {s["seat"]: s for s in listed["seats"]}
    assert shown[0]["mine"] and shown[0]["joined"] and shown[0]["invite"]["code"] == codes[0]
    assert not shown[1]["joined"] and shown[1]["invite"]["url"] == f"/join/{codes[1]}"
    assert shown[2]["bot"] == "easy" and shown[2]["joined"] and shown[2]["invite"] is None

    # What an invitation is for, taking nothing: Bob's seat is still free after it.
    assert server.get(f"/api/join/{codes[1]}") == {"game": game, "seat": 1, "name": "Bob"}
    listed = server.post(f"/api/games/{game}/seats", {"token": ana["token"]})
    assert not listed["seats"][1]["joined"]
    first = server.post(f"/api/join/{codes[1]}")  # a chat app's browser
    second = server.post(f"/api/join/{codes[1]}")  # then the real one
    assert (
        (first["seat"], first["token"]) == (second["seat"], second["token"]) == (1, first["token"])
    )
    told = watcher.until("seats")
    assert [s["taken"] for s in told["seats"]] == [True, True, True]
    listed = server.post(f"/api/games/{game}/seats", {"token": ana["token"]})
    assert listed["seats"][1]["joined"] and listed["seats"][1]["invite"] is None  # not hers
    as_host = server.post(f"/api/games/{game}/seats", {"token": host})
    assert as_host["host"] is True and as_host["seats"][1]["invite"]["code"] == codes[1]
    assert server.post(f"/api/games/{game}/seats", {"token": "nobody"}) == {
        "status": 400,
        "error": "this token is not one of this game's",
    }

    bob = Player(server, game, first["token"])
    refused = server.post(f"/api/games/{game}/reissue", {"token": ana["token"], "seat": 1})
    assert refused == {"status": 400, "error": "only the game's host reissues an invitation"}
    bot_seat = server.post(f"/api/games/{game}/reissue", {"token": host, "seat": 2})
    assert bot_seat == {  # the request's number, counted from 0 as it is
        "status": 400,
        "error": "'seat': 2 is no person's seat of this game (counted from 0)",
    }
    nowhere = server.post(f"/api/games/{game}/reissue", {"token": host, "seat": -1})
    assert nowhere["error"].startswith("'seat': -1 is no person's seat")
    new = server.post(f"/api/games/{game}/reissue", {"token": host, "seat": 1})
    assert new["seat"] == 1 and new["code"] != codes[1] and new["url"] == f"/join/{new['code']}"
    dropped = bob.until("error")
    assert dropped["reason"] == "this seat's invitation was reissued: open the new one"
    while [s["taken"] for s in watcher.until("seats")["seats"]] != [True, False, True]:
        pass  # the second opening of the invitation told the seats too
    old = server.post(f"/api/join/{codes[1]}")
    assert old == {"status": 404, "error": "this invitation is unknown or was reissued"}
    assert server.get(f"/api/join/{codes[1]}") == old
    stale = server.post(f"/api/games/{game}/seats", {"token": first["token"]})
    assert stale["status"] == 400
    again = server.post(f"/api/join/{new['code']}")
    assert again["seat"] == 1 and again["token"] != first["token"]
    watcher.close()


def test_a_person_seated_by_an_invitation_gives_their_name(server: Server) -> None:
    """A friend opens an invitation the host left unnamed: they name their seat with their
    token, every socket of the game is sent the seats, and the state, the log's words and
    the record say the new name; a name refused says why, in the page's language."""
    created = server.post("/api/games", {"rules": SHORT, "seats": [{"name": "Ana"}, {}]})
    game = created["game"]
    codes = {i["seat"]: i["code"] for i in created["invites"]}
    ana = server.post(f"/api/join/{codes[0]}")
    bea = server.post(f"/api/join/{codes[1]}")
    watcher = Player(server, game, ana["token"])
    assert [s["name"] for s in server.get(f"/api/games/{game}")["seats"]] == ["Ana", "Player 2"]
    assert watcher.intent("throw")["type"] == "ack"

    named = server.post(f"/api/games/{game}/name", {"token": bea["token"], "name": " Bea "})
    assert named == {"game": game, "seat": 1, "name": "Bea"}
    while [s["name"] for s in watcher.until("seats")["seats"]] != ["Ana", "Bea"]:
        pass  # the second invitation's opening told the seats first
    state = server.get(f"/api/games/{game}")
    assert [s["name"] for s in state["seats"]] == ["Ana", "Bea"]
    assert '"Bea"' in json.dumps(server.get(f"/api/games/{game}/record"))
    listed = server.post(f"/api/games/{game}/seats", {"token": created["host"]})
    assert [s["name"] for s in listed["seats"]] == ["Ana", "Bea"]

    taken = server.post(f"/api/games/{game}/name", {"token": bea["token"], "name": "Ana"})
    assert taken == {
        "status": 400,
        "error": "another player of this game is called 'Ana': choose a name of your own",
    }
    french = server.post(f"/api/games/{game}/name?lang=fr", {"token": bea["token"], "name": ""})
    assert french == {"status": 400, "error": "le nom d'une personne ne peut être vide"}
    hidden = {"token": bea["token"], "name": "Lu\u200bcie"}
    assert server.post(f"/api/games/{game}/name?lang=fr", hidden)["error"] == (
        "'Lu\\u200bcie' : un nom ne contient aucun caractère invisible (U+200B) : tapez-le à "
        "nouveau"  # (the token names the seat: the message names none)
    )
    host = server.post(f"/api/games/{game}/name", {"token": created["host"], "name": "Host"})
    assert host == {"status": 400, "error": "this seat token is not one of this game's"}
    watcher.close()


def test_the_qr_route_draws_a_link(server: Server) -> None:
    import urllib.request

    url = f"{server.base}/api/qr?text=http%3A%2F%2F192.168.1.20%3A8000%2Fjoin%2Fabc"
    with urllib.request.urlopen(url, timeout=10) as answer:
        assert answer.headers["content-type"] == "image/svg+xml"
        svg = answer.read().decode()
    assert svg.startswith("<svg") and "path" in svg
    assert server.get("/api/qr?text=" + "x" * 600) == {
        "status": 400,
        "error": "a QR code holds 1 to 512 characters",
    }


def test_a_games_rules_are_served_for_its_rules_panel(server: Server) -> None:
    """Every rule in play with its id, meaning and value, the scores, the target and the
    entry, in the asked language, to anyone (a spectator too: no token)."""
    created = server.post("/api/games", {"rules": "dix-mille(target=2000,take_back=off)"})
    game = created["game"]
    english = server.get(f"/api/games/{game}/rules")
    french = server.get(f"/api/games/{game}/rules?lang=fr")
    assert english["spec"] == french["spec"] == "dix-mille(take_back=false,target=2000)"
    assert (english["target"], english["entry"], english["exact_target"]) == (2000, 500, True)
    assert english["singles"] == [[1, 100], [5, 50]] and english["kinds"]["3"]["1"] == 1000
    in_play = {o["option"]: o for o in english["in_play"]}
    off = {o["option"] for o in english["off"]}
    assert in_play["target"]["value"] == 2000 and in_play["target"]["rule"] == "G-2"
    assert "take_back" in off and "take_back" not in in_play
    # The preset's summary is of the preset as shipped: the changes are listed apart.
    assert [(o["option"], o["value"]) for o in english["changed"]] == [
        ("take_back", False),
        ("target", 2000),
    ]
    assert in_play["bump"]["value"] == "current" and in_play["bump"]["meaning"]
    french_meanings = {o["option"]: o["meaning"] for o in french["in_play"]}
    assert french_meanings["bump"] != in_play["bump"]["meaning"]
    assert french["title"] == "Dix mille" and french["summary"] != english["summary"]
    assert server.get("/api/games/nope/rules")["status"] == 404
    # Farkle's three 1s: 100 by their kind rule, 300 as three singles; the panel shows 300.
    assert english["kinds_best"] == {}
    farkle = server.post("/api/games", {"rules": "farkle"})["game"]
    panel = server.get(f"/api/games/{farkle}/rules")
    assert panel["kinds"]["3"]["1"] == 100 and panel["kinds_best"] == {"3": {"1": 300}}


@pytest.mark.slow  # a solve in a process of its own: Numba's kernels loaded there, then the game
def test_a_hint_switches_to_wins_once_the_game_is_solved_in_the_background(
    server: Server,
) -> None:
    """No solved table cached: the first hint is in expected points and starts the solve in
    a process apart (the event loop never waits: health answers meanwhile); once it is
    done, the same game's hint is the chance to win (it stayed in points until someone ran
    zloutch solve --game)."""
    import time

    # A rule set of its own per database: the servers share the solver cache.
    rules = "greed(target=1500)" if server.db.startswith("sqlite") else "greed(target=1600)"
    created, _ = server.new_game(rules=rules, seats=[{"name": "Ana"}, {"name": "Bob"}])
    game = created["game"]
    first = server.get(f"/api/games/{game}/hint")
    assert first["objective"] == "expected points" and first["values"], first
    deadline = time.monotonic() + 120
    while True:
        began = time.monotonic()
        assert server.get("/api/health")["ok"] is True
        assert time.monotonic() - began < 2  # the solve is not on the event loop
        hint = server.get(f"/api/games/{game}/hint")
        if hint["objective"] == "win probability":
            break
        assert time.monotonic() < deadline, "the game was not solved in 120 s"
        time.sleep(0.5)
    assert all(0 <= v["value"] <= 1 for v in hint["values"])
    assert "Traceback" not in server.read_log()


@pytest.mark.slow  # a solve in a process of its own
def test_a_game_with_a_best_bot_solves_its_table_at_once(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table of three with a ``best`` bot and no solved game cached: the server starts the
    solve when the game is made (no hint asked), so the bot plays to win (against the most
    dangerous opponent) once it is ready; the game goes on meanwhile."""
    import time

    from zloutch.app.store import load_game_solution
    from zloutch.rules import load_rules

    assert server.cache is not None
    monkeypatch.setenv("ZLOUTCH_CACHE", str(server.cache))
    spec = "greed(target=1700)" if server.db.startswith("sqlite") else "greed(target=1800)"
    rules = load_rules(spec)
    assert load_game_solution(rules) is None
    seats = [{"bot": "best"}, {"name": "Ana"}, {"name": "Bob"}]
    created, _ = server.new_game(rules=spec, seats=seats)
    game = created["game"]
    first = server.get(f"/api/games/{game}/bots")["bots"]
    assert [b["seat"] for b in first] == [0]
    if first[0]["solving"]:  # says what it plays meanwhile
        assert first[0]["plays"].startswith("plays each turn for the most points until")
    deadline = time.monotonic() + 120
    while load_game_solution(rules) is None:
        assert server.get("/api/health")["ok"] is True
        assert time.monotonic() < deadline, "the best bot's game was not solved in 120 s"
        time.sleep(0.5)
    state = server.get(f"/api/games/{game}")
    assert state["seats"][0]["bot"] == "best", state
    (ready,) = server.get(f"/api/games/{game}/bots")["bots"]
    assert not ready["solving"]
    assert ready["plays"] == (
        "plays to win, from the solved game, against the most dangerous of the 2 opponents"
    )
    assert "Traceback" not in server.read_log()


def test_a_best_bot_alone_plays_its_game_to_the_end_turn_optimal(server: Server) -> None:
    """A game of one ``best`` bot (it stood at its first move, its log a traceback): it
    plays each turn for the most points to the end, says so, and solves nothing."""
    import time

    from zloutch.app.store import load_game_solution
    from zloutch.rules import load_rules

    spec = "greed(target=1000)"
    created, _ = server.new_game(rules=spec, seats=[{"bot": "best"}], pace=0)
    game = created["game"]
    (bot,) = server.get(f"/api/games/{game}/bots")["bots"]
    assert (bot["plays"], bot["solving"]) == (
        "plays each turn for the most points (turn-optimal): alone, no one to beat",
        False,
    )
    (french,) = server.get(f"/api/games/{game}/bots?lang=fr")["bots"]
    assert french["plays"].startswith("joue chaque tour pour le plus de points")
    deadline = time.monotonic() + 30
    while (state := server.get(f"/api/games/{game}"))["status"] == "playing":
        assert time.monotonic() < deadline, f"the bot stands at version {state['version']}"
        time.sleep(0.1)
    assert state["status"] == "over" and state["version"] > 3, state
    assert "Traceback" not in server.read_log()
    if server.cache is not None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("ZLOUTCH_CACHE", str(server.cache))
            assert load_game_solution(load_rules(spec)) is None


def test_the_page_is_told_what_each_bot_plays(server: Server) -> None:
    seats = [{"bot": "strong"}, {"name": "Ana"}, {"bot": "medium"}]
    created, _ = server.new_game(rules="dix-mille", seats=seats)
    game = created["game"]
    bots = server.get(f"/api/games/{game}/bots")["bots"]
    assert [(b["seat"], b["bot"], b["solving"]) for b in bots] == [
        (0, "strong", False),
        (2, "medium", False),
    ]
    assert bots[0]["plays"] == "plays each turn for the most points (turn-optimal)"
    assert bots[1]["plays"] == (
        "keeps as strong does but pushes its luck: it throws on unless banking is better by 100 "
        "points or more"
    )
    french = server.get(f"/api/games/{game}/bots?lang=fr")["bots"]
    assert french[0]["plays"] == "joue chaque tour pour le plus de points (optimal au tour)"
    assert french[1]["plays"] == (
        "garde comme le niveau fort mais force sa chance : il relance sauf si marquer rapporte "
        "au moins 100 points de plus"
    )
    assert server.get("/api/games/nope/bots")["status"] == 404
