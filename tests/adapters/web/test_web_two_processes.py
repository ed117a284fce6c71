"""Two ``zloutch serve`` processes on one PostgreSQL database serve the same games: events
reach the clients of both through LISTEN/NOTIFY."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import POSTGRES, POSTGRES_HOWTO, Player, Server, postgres_reachable


@pytest.mark.slow
def test_two_processes_serve_one_game(tmp_path: Path) -> None:
    if not POSTGRES:
        pytest.skip(POSTGRES_HOWTO)
    why = postgres_reachable(POSTGRES)
    if why is not None:
        pytest.skip(f"PostgreSQL is not reachable ({why}); {POSTGRES_HOWTO}")
    one, two = (
        Server(POSTGRES, log=tmp_path / "one.log"),
        Server(POSTGRES, log=tmp_path / "two.log"),
    )
    one.start()
    two.start()
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
