"""A rule set's checks never hold up the server: they run off its event loop, within a
budget (issue: a POST of an exact target the endings check walked for seconds)."""

from __future__ import annotations

import threading
import time
import urllib.request

from served import Server

ONE_POINT_DIE = (
    '[rules]\nname = "one point"\ndice = 1\n[scoring]\nsingles = { 1 = 1 }\n'
    "[game]\ntarget = {target}\nexact_target = true\n"
)


def test_health_answers_while_a_heavy_rule_file_is_checked(server: Server) -> None:
    """A game of the heaviest exact target the format allows is made while another client
    asks for /api/health every 20 ms: every answer within a second."""
    latencies: list[float] = []
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            begin = time.monotonic()
            with urllib.request.urlopen(server.base + "/api/health", timeout=10) as answer:
                assert answer.status == 200
            latencies.append(time.monotonic() - begin)
            time.sleep(0.02)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    try:
        for target in (99_999,):
            text = ONE_POINT_DIE.replace("{target}", str(target))
            created = server.post("/api/games", {"rules_file": text})
            assert "game" in created, created
    finally:
        done.set()
        poller.join(15)
    assert len(latencies) >= 5
    assert max(latencies) < 1.0, sorted(latencies)[-5:]
