"""A process that loses its LISTEN connection to PostgreSQL listens again: its listening
backend terminated, or the whole cluster restarted mid-game, the next moves made on the
other process reach its sockets within seconds, and both processes show the same state.
``/api/health`` says where its listener stands (503 while it is down)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from served import Player, Server

from zloutch.server.gamedb import LISTENER_NAME

# One worker runs every test on the shared PostgreSQL database: this one restarts it.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("postgres")]

REACH = 5.0
"""Seconds within which a move on one process must reach the other's sockets."""


def health(server: Server) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(server.base + "/api/health", timeout=5) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def until_listening(server: Server, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, body = health(server)
        if status == 200 and body["listener"] == "up":
            return
        time.sleep(0.05)
    raise AssertionError(f"not listening after {timeout} s: {health(server)}")


def listening_backends(url: str, server: Server) -> list[int]:
    import psycopg

    assert server.process is not None
    name = f"{LISTENER_NAME} {server.process.pid}"
    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        query = "SELECT pid FROM pg_stat_activity WHERE application_name = %s"
        return [row[0] for row in conn.execute(query, (name,))]


def terminate_listener(url: str, server: Server) -> None:
    import psycopg

    (pid,) = listening_backends(url, server)
    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (pid,))


def moves_reach_the_other_process(
    movers: dict[int, Player], watcher: Player, count: int, seed: int
) -> None:
    """``count`` moves made on the movers' process, each seen by ``watcher`` (the other
    process) within ``REACH`` seconds; banks first, so that the game goes on."""
    import random

    rng = random.Random(seed)
    for _ in range(count):
        if watcher.state["status"] != "playing":
            return
        (seat,) = watcher.state["acting"]
        me = movers[seat]
        me.until_version(watcher.state["version"])
        legal = me.state["legal"]
        action = "bank" if "bank" in legal else rng.choice(legal)
        answer = me.intent(action)
        assert answer["type"] == "ack", answer
        began = time.monotonic()
        watcher.until_version(answer["version"], timeout=REACH)
        assert time.monotonic() - began < REACH


def same_state(one: Server, two: Server, game: str, watcher: Player) -> None:
    """Both processes give the same game, and a spectator who joins process two now sees
    what the one on process one was sent."""
    assert one.get(f"/api/games/{game}") == two.get(f"/api/games/{game}")
    fresh = Player(two, game, None)
    try:
        assert fresh.state == watcher.state
    finally:
        fresh.close()


def test_a_terminated_listener_and_a_restarted_cluster_are_recovered(
    tmp_path: Path, pg_url: str
) -> None:
    one = Server(pg_url, log=tmp_path / "one.log")
    two = Server(pg_url, log=tmp_path / "two.log")
    one.start()
    two.start()
    try:
        until_listening(one)
        until_listening(two)
        assert len(listening_backends(pg_url, one)) == 1
        created, tokens = one.new_game(
            rules="dix-mille(target=100000)", seats=[{"name": "Ana"}, {"name": "Bob"}]
        )
        game = created["game"]
        # Every move is made on process two; a player and a watcher listen on process one.
        movers = {0: Player(two, game, tokens[0]), 1: Player(two, game, tokens[1])}
        watcher = Player(one, game, None)
        moves_reach_the_other_process(movers, watcher, 4, seed=1)

        # 1. Process one's listening backend is terminated; a move made at once on process
        # two (while one may still be listening again) reaches one's sockets all the same.
        old = listening_backends(pg_url, one)
        terminate_listener(pg_url, one)
        moves_reach_the_other_process(movers, watcher, 3, seed=2)
        until_listening(one)
        new = listening_backends(pg_url, one)
        assert len(new) == 1 and new != old
        assert "lost the other processes' notes" in one.read_log()
        moves_reach_the_other_process(movers, watcher, 4, seed=3)
        same_state(one, two, game, watcher)

        # 2. The cluster restarts: both processes lose every connection.
        subprocess.run(restart_command(), check=True, capture_output=True, timeout=120)
        until_listening(one)
        until_listening(two)
        moves_reach_the_other_process(movers, watcher, 6, seed=4)
        same_state(one, two, game, watcher)
        assert one.get(f"/api/games/{game}/record") == two.get(f"/api/games/{game}/record")
    finally:
        one.stop()
        two.stop()


def test_health_is_not_ok_while_the_listener_is_down(tmp_path: Path, pg_url: str) -> None:
    """A listener that cannot connect again (its role may not log in for a while) leaves
    ``/api/health`` at 503, ``listener: "down"``, until it can."""
    import psycopg

    server = Server(pg_url, log=tmp_path / "one.log")
    server.start()
    role = psycopg.conninfo.conninfo_to_dict(pg_url)["user"]
    try:
        until_listening(server)
        (pid,) = listening_backends(pg_url, server)
        as_superuser(f'ALTER ROLE "{role}" CONNECTION LIMIT 0')
        try:
            as_superuser(f"SELECT pg_terminate_backend({int(pid)})")
            deadline = time.monotonic() + 10
            status, body = health(server)
            while status != 503 and time.monotonic() < deadline:
                time.sleep(0.05)
                status, body = health(server)
            assert (status, body["ok"], body["listener"]) == (503, False, "down"), body
        finally:
            as_superuser(f'ALTER ROLE "{role}" CONNECTION LIMIT -1')
        until_listening(server)  # it tries again, with a backoff of at most 8 s
        assert health(server)[1]["ok"] is True
    finally:
        server.stop()


def restart_command() -> list[str]:
    """How this machine restarts the test cluster (Debian's, as root), or the test is
    skipped saying what it needs."""
    tool = shutil.which("pg_ctlcluster")
    if tool is None or os.geteuid() != 0:
        pytest.skip("restarts PostgreSQL with `pg_ctlcluster 15 main restart` as root (.ci/run)")
    return [tool, "15", "main", "restart"]


def as_superuser(sql: str) -> None:
    """A statement run as the postgres superuser (root: ``su postgres -c psql``), or the test
    is skipped saying what it needs."""
    if os.geteuid() != 0 or shutil.which("psql") is None:
        pytest.skip("changes a role's connection limit as the postgres superuser (root, .ci/run)")
    command = ["su", "postgres", "-c", f"psql -v ON_ERROR_STOP=1 -d zloutch_test -c '{sql}'"]
    subprocess.run(command, check=True, capture_output=True, timeout=30)
