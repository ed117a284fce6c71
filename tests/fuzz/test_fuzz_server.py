"""Fuzz a real ``zloutch serve`` on 127.0.0.1: generated HTTP requests (every route, right
and wrong paths, bodies of the right shape with hostile values, JSON that is no JSON, raw
bytes) and WebSocket sessions (hellos, intents, pings, unknown types, binary, deep and huge
frames) against one server process over SQLite.

Every answer must keep the contract of docs/server.md: an HTTP status among the documented
ones, never a 5xx, an error as ``{"error": "one line"}``; a WebSocket message is one JSON
object of a documented type, an error has a one-line reason, a socket closes only with a
documented code. Nothing may hang (a request answers within ``HANG`` seconds, a frame is
followed by the answer to the next ping), the health route answers within ``HEALTH`` seconds
all along, the server's memory stays under ``MEMORY`` and its log holds no traceback. Under
the slow marker; the counts per kind are printed at the end of the run."""

from __future__ import annotations

import http.client
import importlib.util
import json
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from fuzz_support import COUNTS, ROOT, long_run
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_rules import TEXT, WIDE_INTS, rule_document, spec, to_toml
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from zloutch.rules import PRESETS

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server-fuzz")]

HANG = 30.0
"""Seconds any request or frame may take before it counts as a hang."""
HEALTH = 5.0
"""Seconds ``/api/health`` may take while the fuzz runs (generous: a loaded CI machine)."""
MEMORY = 1536 * 1024
"""kB of resident memory the server may reach."""
STATUSES = {200, 201, 400, 404, 405, 413}
"""What an HTTP answer may be (docs/server.md)."""
CLOSE_CODES = {1000, 1001, 1008, 1009, 1013}
"""The close codes a server may send (docs/server.md); 1006 (no close frame) and 1011 (an
error) never."""
MESSAGE_TYPES = {
    "welcome",
    "events",
    "state",
    "ack",
    "refused",
    "error",
    "pong",
    "seat",
    "rematch",
    "expired",
    "away",
    "seats",
}


def web_harness() -> ModuleType:
    """The web tests' server harness (tests/adapters/web/served.py), loaded from its file:
    this file runs alone too, where pytest has not put that folder on the path."""
    path = ROOT / "tests" / "adapters" / "web" / "served.py"
    name = "zloutch_web_harness"
    if name in sys.modules:
        return sys.modules[name]
    spec_ = importlib.util.spec_from_file_location(name, path)
    assert spec_ is not None and spec_.loader is not None
    module = importlib.util.module_from_spec(spec_)
    sys.modules[name] = module
    spec_.loader.exec_module(module)
    return module


class Watch:
    """The server under fuzz: its process, a thread polling ``/api/health`` (the slowest
    answer kept), and the games and codes made so far, for paths that hit real things."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.slowest_health = 0.0
        self.health_failures: list[str] = []
        self.games: list[str] = []
        self.codes: list[str] = []
        self.tokens: list[str] = []
        self.seats: dict[str, list[str]] = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.poll, daemon=True)
        self.thread.start()

    def poll(self) -> None:
        while not self.done.wait(0.25):
            started = time.monotonic()
            try:
                status, _, _ = request(self.server.port, "GET", "/api/health")
            except OSError as exc:
                self.health_failures.append(f"{type(exc).__name__}: {exc}")
                continue
            self.slowest_health = max(self.slowest_health, time.monotonic() - started)
            if status != 200:
                self.health_failures.append(f"status {status}")

    def memory_kb(self) -> int:
        status = Path(f"/proc/{self.server.process.pid}/status").read_text()
        line = next(ln for ln in status.splitlines() if ln.startswith("VmRSS:"))
        return int(line.split()[1])


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    content_type: str | None = "application/json",
) -> tuple[int, bytes, str | None]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
    try:
        headers = {} if content_type is None else {"Content-Type": content_type}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read(), response.getheader("location")
    finally:
        connection.close()


@pytest.fixture(scope="module")
def watch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Watch]:
    folder = tmp_path_factory.mktemp("server-fuzz")
    harness = web_harness()
    server = harness.Server(
        f"sqlite:///{folder / 'fuzz.db'}", log=folder / "serve.log", cache=folder / "cache"
    )
    server.start()
    watched = Watch(server)
    for rules in ("dix-mille", "farkle", "greed"):
        created, tokens = server.new_game(rules=rules, seats=[{"name": "Ana"}, {"bot": "easy"}])
        watched.games.append(created["game"])
        watched.tokens += tokens.values()
        watched.seats[created["game"]] = list(tokens.values())
        watched.codes.append(created["open"]["code"])
    # and a game of bots that is over at once: its review, its record, a rematch
    bots = [{"bot": "easy"}, {"bot": "medium"}]
    over, _ = server.new_game(rules="farkle(target=500)", seats=bots, pace=0)
    watched.games.append(over["game"])
    deadline = time.monotonic() + 60
    while server.get(f"/api/games/{over['game']}")["status"] != "over":
        assert time.monotonic() < deadline, "the game of bots did not end"
        time.sleep(0.1)
    try:
        yield watched
        watched.done.set()
        watched.thread.join(5)
        log = server.read_log()
        assert "Traceback" not in log, log[-3000:]
        assert not watched.health_failures, watched.health_failures[:5]
        assert watched.slowest_health < HEALTH, watched.slowest_health
        memory = watched.memory_kb()
        assert memory < MEMORY, f"the server holds {memory} kB"
        COUNTS["server (health)", f"slowest {watched.slowest_health * 1000:.0f} ms"] += 1
        COUNTS["server (memory)", f"{memory // 1024} MB at the end"] += 1
    finally:
        watched.done.set()
        server.stop()


# ---------------------------------------------------------------------------- HTTP

ROUTES = (
    ("POST", "/api/games"),
    ("POST", "/api/games"),
    ("POST", "/api/games"),
    ("POST", "/api/records"),
    ("POST", "/api/records"),
    ("POST", "/api/join/{code}"),
    ("POST", "/api/games/{game}/open/{code}"),
    ("GET", "/api/games/{game}"),
    ("GET", "/api/games/{game}/record"),
    ("POST", "/api/games/{game}/rematch"),
    ("GET", "/api/games/{game}/hint"),
    ("GET", "/api/games/{game}/review"),
    ("POST", "/api/waiting"),
    ("GET", "/api/presets"),
    ("GET", "/api/i18n/{lang}"),
    ("GET", "/api/health"),
    ("GET", "/api/{junk}"),
)
HOSTILE_TEXT = st.one_of(
    TEXT,
    st.sampled_from(["", " ", "..", "../../etc/passwd", "%00", "a/b", "é", "\u202e", "x" * 300]),
    st.text(max_size=60),
)
HOSTILE_NUMBERS = st.one_of(
    WIDE_INTS,
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, -1, 0.0, -0.0, 1e308, -1e308, 1e-308, 10**40]),
)
ANY_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), HOSTILE_NUMBERS, HOSTILE_TEXT),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(HOSTILE_TEXT, inner, max_size=5)
    ),
    max_leaves=20,
)
BOTS = st.one_of(
    st.sampled_from(
        ["easy", "medium", "hard", "best", "expert", "greedy", "threshold:300", "bot:easy"]
    ),
    HOSTILE_TEXT,
    st.none(),
)


def hostile(strategy: st.SearchStrategy[Any], odds: int = 8) -> st.SearchStrategy[Any]:
    """Mostly values of the right kind (``odds`` to one), sometimes anything."""
    return st.integers(0, odds).flatmap(lambda n: ANY_JSON if n == odds else strategy)


def mostly(right: st.SearchStrategy[Any], wrong: st.SearchStrategy[Any]) -> Any:
    """Four times in five ``right``."""
    return st.integers(0, 4).flatmap(lambda n: wrong if n == 4 else right)


@st.composite
def game_body(draw: st.DrawFn) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if draw(st.integers(0, 3)):
        body["rules"] = draw(hostile(st.one_of(st.sampled_from(PRESETS), spec())))
    if draw(st.integers(0, 5)) == 0:
        body["rules_file"] = draw(hostile(rule_document().map(to_toml)))
    if draw(st.integers(0, 3)):
        seat = st.fixed_dictionaries(
            {}, optional={"name": hostile(HOSTILE_TEXT), "bot": hostile(BOTS)}
        )
        body["seats"] = draw(hostile(st.lists(seat, max_size=10)))
    for key, values in (
        ("pace", HOSTILE_NUMBERS),
        ("leave_after", st.one_of(st.none(), HOSTILE_NUMBERS)),
        ("leave_bot", BOTS),
        ("real_dice", st.booleans()),
    ):
        if draw(st.integers(0, 4)) == 0:
            body[key] = draw(hostile(values))
    if draw(st.integers(0, 9)) == 0:
        body[draw(HOSTILE_TEXT)] = draw(ANY_JSON)
    return body


@st.composite
def record_body(draw: st.DrawFn) -> dict[str, Any]:
    record: dict[str, Any] = {
        "version": draw(hostile(st.integers(0, 6))),
        "rules": draw(hostile(st.sampled_from(PRESETS))),
        "players": draw(hostile(st.lists(HOSTILE_TEXT, max_size=4))),
        "actions": draw(
            hostile(st.lists(st.sampled_from(["throw", "keep 1", "bank", "roll 1 5 2 3 4"])))
        ),
    }
    if draw(st.booleans()):
        record["seed"] = draw(hostile(WIDE_INTS))
    shown = draw(st.sampled_from(["object", "text", "junk"]))
    value: Any = {"object": record, "text": json.dumps(record), "junk": draw(ANY_JSON)}[shown]
    body: dict[str, Any] = {"record": value}
    if draw(st.booleans()):
        body["pace"] = draw(hostile(HOSTILE_NUMBERS))
    return body


def raw_body(body: Any) -> st.SearchStrategy[bytes]:
    text = json.dumps(body)
    return st.one_of(
        st.just(text.encode()),
        st.just(text.encode()),
        st.just(text.encode()),
        st.binary(max_size=200),
        st.sampled_from(
            [
                b"",
                b"{",
                b"NaN",
                b'{"rules": NaN}',
                b'{"pace": Infinity}',
                b"[" * 5000 + b"]" * 5000,
                b'{"a":' * 3000 + b"1" + b"}" * 3000,
                b'{"pace": ' + b"9" * 5000 + b"}",
                b'{"seats": [' + b'{"name": "x"},' * 2000 + b'{"name": "y"}]}',
                b'{"tokens": [' + b'"t",' * 20000 + b'"u"]}',
                b'"\\ud800"',
                b"\xff\xfe{}",
            ]
        ),
    )


@st.composite
def http_request(draw: st.DrawFn, watch: Watch) -> tuple[str, str, bytes | None, str | None]:
    method, template = draw(st.sampled_from(ROUTES))
    if draw(st.integers(0, 9)) == 0:
        method = draw(st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]))
    fill = {
        "game": draw(mostly(st.sampled_from(watch.games), HOSTILE_TEXT)),
        "code": draw(mostly(st.sampled_from(watch.codes), HOSTILE_TEXT)),
        "lang": draw(st.one_of(st.sampled_from(["en", "fr"]), HOSTILE_TEXT)),
        "junk": draw(HOSTILE_TEXT),
    }
    path = template.format(**{k: urllib.parse.quote(v, safe="") for k, v in fill.items()})
    if draw(st.integers(0, 4)) == 0:
        query = urllib.parse.urlencode({"lang": draw(HOSTILE_TEXT), draw(TEXT): draw(TEXT)})
        path += "?" + query
    body: Any
    if template == "/api/games":
        body = draw(game_body())
    elif template == "/api/records":
        body = draw(record_body())
    elif template.endswith("rematch"):
        token = mostly(st.sampled_from(watch.tokens), HOSTILE_TEXT)
        body = draw(hostile(st.fixed_dictionaries({"token": token})))
    elif template == "/api/waiting":
        tokens = st.lists(mostly(st.sampled_from(watch.tokens), HOSTILE_TEXT), max_size=20)
        body = draw(hostile(st.fixed_dictionaries({"tokens": tokens})))
    else:
        body = draw(st.one_of(st.none(), ANY_JSON))
    data = None if body is None and method == "GET" else draw(raw_body(body))
    content_type = draw(mostly(st.just("application/json"), st.sampled_from(["text/plain", None])))
    return method, path, data, content_type


def check_http(watch: Watch, method: str, path: str, body: bytes | None, kind: str | None) -> None:
    started = time.monotonic()
    status, answer, location = request(watch.server.port, method, path, body, kind)
    took = time.monotonic() - started
    where = f"{method} {path[:80]} {(body or b'')[:80]!r}"
    assert took < HANG, f"{where}: {took:.1f} s"
    if status == 307:  # a trailing slash: sent to the same path without it
        route = urllib.parse.unquote(path.partition("?")[0])
        assert route.endswith("/") and location is not None, f"{where}: 307 to {location}"
        sent_to = urllib.parse.unquote(urllib.parse.urlsplit(location).path)
        assert sent_to == route.rstrip("/"), (where, location)
        COUNTS["server (HTTP)", "307"] += 1
        return
    assert status in STATUSES, f"{where}: status {status}: {answer[:300]!r}"
    COUNTS["server (HTTP)", f"{status}"] += 1
    if status >= 400:
        error = json.loads(answer)
        assert set(error) == {"error"}, f"{where}: {error}"
        assert isinstance(error["error"], str) and error["error"].strip(), where
        assert "\n" not in error["error"] and "Traceback" not in error["error"], where


def test_http_requests(watch: Watch) -> None:
    @given(st.data())
    @long_run(2000)
    def one(data: st.DataObject) -> None:
        method, path, body, kind = data.draw(http_request(watch))
        check_http(watch, method, path, body, kind)

    one()


# ---------------------------------------------------------------------------- WebSocket

NOW = "@version"
"""In a generated intent: the version of the last state the socket was sent."""
ACTIONS = mostly(
    st.sampled_from(
        [
            "throw",
            "bank",
            "undo",
            "off",
            "keep 1",
            "keep 5",
            "keep 1 5",
            "keep 1 1 1",
            "roll 1 2 3 4 5",
            "roll 1 1 1 1 1 1 1 1 1",
            "take",
            "fresh",
            "accept",
            "decline",
            "",
            "keep",
            "keep 7",
            "roll",
        ]
    ),
    HOSTILE_TEXT,
)


@st.composite
def frame(draw: st.DrawFn, watch: Watch) -> str | bytes:
    kind = draw(st.integers(0, 9))  # 0 to 6 (which hypothesis favours): an intent
    if kind == 7:
        return draw(st.binary(max_size=100))
    if kind == 8:
        return draw(
            st.sampled_from(
                [
                    "[" * 100_000 + "]" * 100_000,
                    "x" * 70_000,
                    json.dumps({"type": "ping", "pad": "x" * 70_000}),
                    '{"type": "intent", "id": "n", "version": NaN, "action": "throw"}',
                    '{"type": "ping", "x": Infinity}',
                    '{"type": "intent", "version": ' + "9" * 5000 + "}",
                    "not json",
                    "null",
                    "[]",
                ]
            )
        )
    if kind == 9:
        return json.dumps(draw(ANY_JSON))
    types = st.sampled_from(["intent", "intent", "intent", "intent", "ping", "hello", "x"])
    message: dict[str, Any] = {
        "type": draw(hostile(types, 12)),
        "id": draw(hostile(st.uuids().map(str), 12)),
        "version": draw(hostile(st.sampled_from([NOW, NOW, NOW, NOW, -1, 0, 1, 2**63]), 12)),
        "action": draw(hostile(ACTIONS, 12)),
    }
    if draw(st.integers(0, 4)) == 4:
        message["token"] = draw(hostile(mostly(st.sampled_from(watch.tokens), HOSTILE_TEXT)))
    if draw(st.integers(0, 7)) == 7:
        del message[draw(st.sampled_from(sorted(message)))]
    text = json.dumps(message)
    return text if message.get("version") != NOW else text.replace(f'"{NOW}"', NOW)


@st.composite
def hello(draw: st.DrawFn, watch: Watch, game: str) -> str:
    message: dict[str, Any] = {"type": draw(hostile(st.just("hello"), 20))}
    own = watch.seats.get(game, [])
    if draw(st.integers(0, 5)) < 5:
        which = draw(st.integers(0, 9))  # mostly a token of this game, else any other thing
        tokens = st.sampled_from(own) if own and which < 7 else st.none()
        message["token"] = draw({8: HOSTILE_TEXT, 9: ANY_JSON}.get(which, tokens))
    if draw(st.booleans()):
        message["since"] = draw(hostile(st.integers(-3, 30)))
    if draw(st.booleans()):
        message["lang"] = draw(hostile(st.sampled_from(["en", "fr", "de"])))
    return json.dumps(message)


def check_message(text: str | bytes, where: str) -> dict[str, Any]:
    assert isinstance(text, str), f"{where}: a binary message from the server"
    message = json.loads(text)
    assert isinstance(message, dict) and message.get("type") in MESSAGE_TYPES, (where, text[:200])
    if message["type"] in ("error", "refused"):
        reason = message.get("reason")
        assert isinstance(reason, str) and reason.strip() and "\n" not in reason, (where, message)
        assert "Traceback" not in reason, (where, message)
    return message


def check_session(watch: Watch, game: str, greeting: str, frames: list[str | bytes]) -> None:
    port = watch.server.port
    try:
        opened = connect(f"ws://127.0.0.1:{port}/ws/{urllib.parse.quote(game, safe='')}")
    except InvalidStatus as refused:  # no such route: the handshake is refused
        status = refused.response.status_code
        assert status in (403, 404), f"{game!r}: handshake answered {status}"
        COUNTS["server (WebSocket)", f"handshake {status}"] += 1
        return
    with opened as socket:
        talk(socket, game, greeting, frames)


def talk(socket: Any, game: str, greeting: str, frames: list[str | bytes]) -> None:
    pings = 0
    version = 0
    try:
        for frame_ in [greeting, *frames]:
            sent = frame_.replace(NOW, str(version)) if isinstance(frame_, str) else frame_
            where = f"{game} after {str(sent)[:80]!r}"
            socket.send(sent)
            pings += 1
            socket.send(json.dumps({"type": "ping", "n": pings}))
            deadline = time.monotonic() + HANG
            while True:  # every frame is followed by the answer to the next ping
                left = deadline - time.monotonic()
                assert left > 0, f"{where}: no pong in {HANG:g} s"
                message = check_message(socket.recv(left), where)
                COUNTS["server (WebSocket)", message["type"]] += 1
                shown = message.get("state") or {}
                version = shown.get("version", version) if isinstance(shown, dict) else version
                if message["type"] == "pong":
                    break
    except ConnectionClosed as closed:
        code = closed.rcvd.code if closed.rcvd is not None else 1006
        assert code in CLOSE_CODES, f"{game}: closed with {code} ({closed})"
        COUNTS["server (WebSocket)", f"closed {code}"] += 1
    except TimeoutError:
        raise AssertionError(f"{game}: the server went silent") from None


def test_websocket_sessions(watch: Watch) -> None:
    @given(st.data())
    @long_run(400)
    def one(data: st.DataObject) -> None:
        game = data.draw(hostile(st.sampled_from(watch.games), 12).map(str))
        greeting = data.draw(hello(watch, game))
        frames = data.draw(st.lists(frame(watch), max_size=12))
        check_session(watch, game, greeting, frames)

    one()
