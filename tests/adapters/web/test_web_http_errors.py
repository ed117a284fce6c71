"""Every HTTP error is ``{"error": "one line"}`` with a documented status: bodies the models
refuse (400, not 422 ``{"detail"}``), NaN and Infinity (400, not 500), unknown routes (404)."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest
from served import Server


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


def test_a_browser_sent_to_no_page_gets_the_page_that_says_so(server: Server) -> None:
    """A mistyped link opened in a browser was a bare line of JSON: a browser (it asks for
    HTML) gets the page, with its 404, and the page says there is no page there; the API,
    the static files and other clients keep the JSON line."""
    html = "text/html,application/xhtml+xml,*/*;q=0.8"

    def get(path: str, accept: str | None) -> tuple[int, str]:
        request = urllib.request.Request(server.base + path)
        if accept:
            request.add_header("accept", accept)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    status, text = get("/no/such/page", html)
    assert status == 404 and '<main id="main">' in text
    for path, accept in (("/no/such/page", None), ("/api/nothing", html), ("/static/x", html)):
        assert get(path, accept) == (404, '{"error":"no such page or API route"}'), path


def exchange(server: Server, head: bytes, body: bytes) -> tuple[int, object]:
    """Send a request on a raw socket and read the answer to its end. The server may answer
    and close before the body is sent: what could not be sent is no failure, the answer is
    what counts (a client that sends more than the server reads may get its answer cut by
    a reset, so these requests send no more than the server must read to decide)."""
    import contextlib
    import http.client
    import json
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as connection:
        connection.sendall(head)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.sendall(body)
        answer = http.client.HTTPResponse(connection)
        answer.begin()
        return answer.status, json.loads(answer.read())


def test_a_body_over_the_limit_is_refused_before_it_is_read(server: Server) -> None:
    head = (
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 2000000\r\n\r\n"
    )
    # Not one byte of the body is sent: the length alone is refused.
    status, answer = exchange(server, head, b"")
    assert (status, answer) == (413, {"error": "the request's body is over 1024 kB"})


def test_a_chunked_body_over_the_limit_is_refused(server: Server) -> None:
    head = (
        b"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    # 17 chunks of 64 kB pass the limit by one chunk; the body has no end, so only the
    # count of what arrived can refuse it.
    chunk = b"10000\r\n" + b"x" * 65536 + b"\r\n"
    status, answer = exchange(server, head, chunk * 17)
    assert (status, answer) == (413, {"error": "the request's body is over 1024 kB"})


def test_a_field_the_request_does_not_have_is_refused(server: Server) -> None:
    """A typo ("hint" for "hints") made a game with the hints on, and a 201."""
    body = b'{"seats": [{"name": "Ana"}, {"bot": "medium"}], "hint": false}'
    status, answer = raw(server, "POST", "/api/games", body)
    assert status == 400 and answer["error"].startswith("hint: "), answer
    body = b'{"seats": [{"name": "Ana", "colour": "red"}]}'
    status, answer = raw(server, "POST", "/api/games", body)
    assert status == 400 and answer["error"].startswith("seats.0.colour: "), answer


def test_a_seat_name_over_the_limit_is_refused(server: Server) -> None:
    body = b'{"seats": [{"name": "' + b"A" * 41 + b'"}, {"bot": "medium"}]}'
    status, answer = raw(server, "POST", "/api/games", body)
    assert (status, answer) == (400, {"error": "seat 1: a name has at most 40 characters"})


def test_json_sent_as_a_form_is_told_to_say_it_is_json(server: Server) -> None:
    """``curl -d '{...}'`` sends a form's type: "Input should be a valid dictionary" read as
    if the JSON were wrong."""
    import json

    request = urllib.request.Request(
        server.base + "/api/games", data=b'{"rules": "farkle"}', method="POST"
    )
    request.add_header("content-type", "application/x-www-form-urlencoded")
    try:
        urllib.request.urlopen(request, timeout=30)
    except urllib.error.HTTPError as exc:
        status, answer = exc.code, json.loads(exc.read())
    else:
        raise AssertionError("a form's body was taken")
    assert status == 400
    assert answer["error"].startswith("send the body as JSON, with Content-Type: application/json")
