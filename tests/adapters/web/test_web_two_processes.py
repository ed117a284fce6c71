"""Two ``zloutch serve`` processes on one PostgreSQL database serve the same games: events
reach the clients of both through LISTEN/NOTIFY."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pytest
from served import Player, Server

# One worker runs every test on the shared PostgreSQL database (one of them restarts it).
pytestmark = pytest.mark.xdist_group("postgres")


@pytest.mark.slow
def test_two_processes_serve_one_game(tmp_path: Path, pg_url: str) -> None:
    one, two = two_servers(tmp_path, pg_url)
    try:
        created, tokens = one.new_game(
            rules="dix-mille(target=1500)", seats=[{"name": "Ana"}, {"name": "Bob"}]
        )
        game = created["game"]
        ana = Player(one, game, tokens[0])  # on the first process
        bob = Player(two, game, tokens[1])  # on the second
        watcher = Player(two, game, None)
        rng = random.Random(4)
        players = {0: ana, 1: bob}
        while ana.state["status"] == "playing":
            (seat,) = ana.state["acting"]
            me = players[seat]
            me.until_version(ana.state["version"])
            answer = me.intent(rng.choice(me.state["legal"]))
            assert answer["type"] == "ack", answer
            for p in (ana, bob, watcher):
                p.until_version(answer["version"])  # the other process's sockets hear it
        assert watcher.seqs == list(range(1, ana.state["version"] + 1))
        assert bob.state == ana.state == watcher.state
        # Both processes give out the same record.
        assert one.get(f"/api/games/{game}/record") == two.get(f"/api/games/{game}/record")
    finally:
        one.stop()
        two.stop()


def two_servers(tmp_path: Path, url: str) -> tuple[Server, Server]:
    one, two = (
        Server(url, log=tmp_path / "one.log"),
        Server(url, log=tmp_path / "two.log"),
    )
    one.start()
    two.start()
    return one, two


def play_to_the_end(players: dict[int, Player], everyone: list[Player], seed: int) -> None:
    rng = random.Random(seed)
    first = everyone[0]
    while first.state["status"] == "playing":
        (seat,) = first.state["acting"]
        me = players[seat]
        me.until_version(first.state["version"])
        legal = me.state["legal"]
        # Bank when it can, so that a short game ends soon.
        action = "bank" if "bank" in legal and rng.random() < 0.7 else rng.choice(legal)
        answer = me.intent(action)
        assert answer["type"] == "ack", answer
        for p in everyone:
            p.until_version(answer["version"])


@pytest.mark.slow
def test_away_and_back_reach_the_other_process(tmp_path: Path, pg_url: str) -> None:
    one, two = two_servers(tmp_path, pg_url)
    try:
        created, tokens = one.new_game(
            rules="dix-mille(target=1500)",
            seats=[{"name": "Ana"}, {"name": "Bob"}],
            leave_after=0.3,
            pace=0.2,
        )
        game = created["game"]
        ana = Player(one, game, tokens[0])
        watcher = Player(two, game, None)  # on the other process
        ana.close()  # Ana leaves: after 0.3 s process one lets a bot play for her...
        gone = watcher.until("seat")
        assert gone == {"type": "seat", "seat": 0, "away": True}
        watcher.until_version(1)  # ...and her stand-in's move reaches process two as well
        assert two.get(f"/api/games/{game}")["seats"][0]["away"] is True
        back = Player(one, game, tokens[0])  # she is back, on process one
        assert watcher.until("seat") == {"type": "seat", "seat": 0, "away": False}
        assert two.get(f"/api/games/{game}")["seats"][0]["away"] is False
        back.close()
    finally:
        one.stop()
        two.stop()


@pytest.mark.slow
def test_a_name_given_on_one_process_reaches_the_other(tmp_path: Path, pg_url: str) -> None:
    """Bea names her seat on process one: process two's sockets are sent the seats, and its
    state and record say her name (its match was renamed, not only its seat rows)."""
    one, two = two_servers(tmp_path, pg_url)
    try:
        created, tokens = one.new_game(rules="dix-mille(target=1500)", seats=[{"name": "Ana"}, {}])
        game = created["game"]
        ana = Player(two, game, tokens[0])  # on the other process
        assert ana.intent("throw")["type"] == "ack"
        named = one.post(f"/api/games/{game}/name", {"token": tokens[1], "name": "Bea"})
        assert named == {"game": game, "seat": 1, "name": "Bea"}
        assert [s["name"] for s in ana.until("seats")["seats"]] == ["Ana", "Bea"]
        assert [s["name"] for s in two.get(f"/api/games/{game}")["seats"]] == ["Ana", "Bea"]
        assert one.get(f"/api/games/{game}/record") == two.get(f"/api/games/{game}/record")
        assert "Player 2" not in str(two.get(f"/api/games/{game}/record"))
        ana.close()
    finally:
        one.stop()
        two.stop()


@pytest.mark.slow
def test_a_rematch_reaches_the_other_process_and_is_one_game(tmp_path: Path, pg_url: str) -> None:
    one, two = two_servers(tmp_path, pg_url)
    try:
        created, tokens = one.new_game(
            rules="dix-mille(target=500)", seats=[{"name": "Ana"}, {"name": "Bob"}]
        )
        game = created["game"]
        ana, bob = Player(one, game, tokens[0]), Player(two, game, tokens[1])
        watcher = Player(two, game, None)
        play_to_the_end({0: ana, 1: bob}, [ana, bob, watcher], seed=5)
        assert ana.state["status"] == "over"
        # Ana (process one) and Bob (process two) ask for the rematch at the same moment.
        answers: dict[str, dict[str, object]] = {}
        gate = threading.Barrier(2)

        def ask(name: str, server: Server, token: str) -> None:
            gate.wait()
            answers[name] = server.post(f"/api/games/{game}/rematch", {"token": token})

        threads = [
            threading.Thread(target=ask, args=("ana", one, tokens[0])),
            threading.Thread(target=ask, args=("bob", two, tokens[1])),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert "game" in answers["ana"], answers
        assert answers["ana"]["game"] == answers["bob"]["game"], answers
        assert (answers["ana"]["seat"], answers["bob"]["seat"]) == (0, 1)
        rematch = answers["ana"]["game"]
        # Every socket of the old game hears of it, whichever process it is on.
        for p in (ana, bob, watcher):
            assert p.until("rematch") == {"type": "rematch", "game": rematch}
        assert one.get(f"/api/games/{game}")["rematch"] == rematch
        assert two.get(f"/api/games/{game}")["rematch"] == rematch
        import psycopg

        with psycopg.connect(pg_url) as conn:
            count = conn.execute("SELECT count(*) FROM games WHERE rematch_of = %s", (game,))
            assert count.fetchone() == (1,)
        # The new game is served by both, with both seats taken.
        seats = two.get(f"/api/games/{rematch}")["seats"]
        assert [s["taken"] for s in seats] == [True, True]
    finally:
        one.stop()
        two.stop()
