"""Hostile WebSocket frames are answered with the documented error, and the socket lives on:
a binary frame, JSON nested past Python's recursion limit, NaN, text that is no object."""

from __future__ import annotations

from served import Player, Server


def test_hostile_frames_are_answered_and_the_socket_lives_on(server: Server) -> None:
    created, tokens = server.new_game()
    player = Player(server, created["game"], tokens[0])
    frames: list[str | bytes] = [
        b"\x00\x01binary",
        "[" * 100_000 + "]" * 100_000,
        '{"type": "intent", "id": "n", "version": NaN, "action": "throw"}',
        '{"type": "ping", "x": Infinity}',
        '"a string"',
        "not json at all",
    ]
    for frame in frames:
        player.ws.send(frame)
        answer = player.until("error", timeout=10)
        assert answer == {"type": "error", "reason": "a message is one JSON object"}, frame[:40]
    player.ws.send('{"type": "ping"}')
    assert player.until("pong", timeout=10) == {"type": "pong"}
    player.close()
    log = server.read_log()
    assert "Traceback" not in log and "RecursionError" not in log, log[-2000:]
