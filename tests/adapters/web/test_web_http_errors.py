"""Every HTTP error is ``{"error": "one line"}`` with a documented status: bodies the models
refuse (400, not 422 ``{"detail"}``), NaN and Infinity (400, not 500), unknown routes (404)."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from conftest import Server


def raw(server: Server, method: str, path: str, body: bytes | None) -> tuple[int, object]:
    import json

    request = urllib.request.Request(server.base + path, data=body, method=method)
    request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/games", b'{"rules": NaN}'),
        ("/api/games", b'{"pace": Infinity}'),
        ("/api/games", b'{"seats": "two"}'),
        ("/api/records", b'{"record": NaN}'),
        ("/api/waiting", b'{"tokens": [NaN]}'),
        ("/api/games", b"{not json"),
    ],
)
def test_bad_bodies_are_one_line_400s(server: Server, path: str, body: bytes) -> None:
    status, answer = raw(server, "POST", path, body)
    assert status == 400, answer
    assert isinstance(answer, dict) and set(answer) == {"error"}
    assert "\n" not in answer["error"] and answer["error"]


def test_an_unknown_route_is_a_one_line_404(server: Server) -> None:
    status, answer = raw(server, "GET", "/api/nothing-here", None)
    assert (status, answer) == (404, {"error": "no such page or API route"})


def test_a_body_over_the_limit_is_refused_before_it_is_read(server: Server) -> None:
    status, answer = raw(server, "POST", "/api/games", b'{"rules": "' + b"x" * 2_000_000 + b'"}')
    assert (status, answer) == (413, {"error": "the request's body is over 1024 kB"})


def test_a_chunked_body_over_the_limit_is_refused(server: Server) -> None:
    import http.client
    import json

    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    chunks = (b"x" * 65536 for _ in range(40))  # 2.5 MB, no Content-Length
    connection.request("POST", "/api/records", body=chunks, encode_chunked=True)
    answer = connection.getresponse()
    assert answer.status == 413
    assert json.loads(answer.read()) == {"error": "the request's body is over 1024 kB"}


def test_a_seat_name_over_the_limit_is_refused(server: Server) -> None:
    body = b'{"seats": [{"name": "' + b"A" * 41 + b'"}, {"bot": "medium"}]}'
    status, answer = raw(server, "POST", "/api/games", body)
    assert (status, answer) == (400, {"error": "seat 1: a name has at most 40 characters"})
