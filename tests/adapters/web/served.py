"""What the server tests share: a real ``zloutch serve`` on 127.0.0.1 (a subprocess on a
free port, ``Server``), a real WebSocket client (``Player``), and their databases. The
fixtures that start them are in this folder's ``conftest.py``; a test module imports these
from here (``from served import Server``): a module named ``conftest`` is another folder's
too when a run names both folders."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from websockets.sync.client import ClientConnection, connect

if TYPE_CHECKING:
    from zloutch.server.hub import Client

SRC = Path(__file__).resolve().parents[3] / "src"
POSTGRES = os.environ.get("ZLOUTCH_TEST_POSTGRES")
POSTGRES_HOWTO = (
    "set ZLOUTCH_TEST_POSTGRES to run the server tests against PostgreSQL; as root: "
    'pg_ctlcluster 15 main start && su postgres -c "psql -c \\"CREATE ROLE zloutch LOGIN '
    "PASSWORD 'zloutch'\\\" -c 'CREATE DATABASE zloutch_test OWNER zloutch'\" && export "
    "ZLOUTCH_TEST_POSTGRES=postgresql://zloutch:zloutch@127.0.0.1:5432/zloutch_test "
    "(.ci/run does this)"
)


def queued(client: Client) -> list[dict[str, Any]]:
    """What the hub queued for a client's socket, taken off its queue (in-process tests)."""
    out = []
    while not client.queue.empty():
        text = client.queue.get_nowait()
        assert text is not None
        out.append(json.loads(text))
    return out


class PortTaken(RuntimeError):
    """The server could not bind its port: another process has it."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def postgres_reachable(url: str) -> str | None:
    """None when the database answers, else why not."""
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3):
            return None
    except Exception as exc:  # any failure to connect means: skip, and say how
        return str(exc).strip().splitlines()[0]


@dataclass
class Server:
    """A ``zloutch serve`` process; ``kill`` it (SIGKILL) and ``start`` it again."""

    db: str
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    log: Path | None = None
    cache: Path | None = None
    """The server's solver cache (``ZLOUTCH_CACHE``); None: the test's, from its environment."""
    started: bool = False
    """Whether it has answered once (its port is then its own: a restart keeps it)."""
    args: tuple[str, ...] = ()
    """More options of ``zloutch serve`` (``--access-log``)."""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the server and wait until it answers. A first start whose port another
        test's process took meanwhile (``free_port`` frees it before the server binds it)
        tries again on a new port; a restart keeps its port, which its clients know."""
        for _ in range(3):
            try:
                self._start()
                self.started = True
                return
            except PortTaken:
                if self.started:
                    raise
                self.port = free_port()
        raise RuntimeError("zloutch serve found no free port in 3 tries")

    def _start(self) -> None:
        env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        if self.cache is not None:
            env["ZLOUTCH_CACHE"] = str(self.cache)
        command = [sys.executable, "-m", "zloutch", "serve", "--port", str(self.port)]
        since = self.log.stat().st_size if self.log and self.log.exists() else 0
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            [*command, "--db", self.db, *self.args], env=env, stdout=out, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if self.log and b"Address already in use" in self.log.read_bytes()[since:]:
                    raise PortTaken(self.port)
                raise RuntimeError(f"zloutch serve exited: {self.read_log()}")
            try:
                if self.get("/api/health").get("ok") is True:  # 503 until it listens
                    return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.05)
        raise RuntimeError("zloutch serve did not answer in 60 s")

    def read_log(self) -> str:
        return self.log.read_text(errors="replace")[-3000:] if self.log else ""

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def request(self, method: str, path: str, body: object = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as exc:
            return {"status": exc.code, **json.loads(exc.read().decode())}
        return json.loads(text) if text.startswith(("{", "[")) else text

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: object = None) -> Any:
        return self.request("POST", path, body if body is not None else {})

    def new_game(self, **options: Any) -> tuple[dict[str, Any], dict[int, str]]:
        """A game and the seat tokens of its people (every invite opened)."""
        created = self.post("/api/games", options)
        assert "game" in created, created
        tokens = {}
        for invite in created["invites"]:
            joined = self.post(f"/api/join/{invite['code']}")
            tokens[joined["seat"]] = joined["token"]
        return created, tokens

    def socket(self, game: str) -> ClientConnection:
        # Entered by hand: a connection that lives across calls (the same on websockets 12+).
        return connect(f"ws://127.0.0.1:{self.port}/ws/{game}", open_timeout=20).__enter__()


class Player:
    """A WebSocket client: says hello, keeps the last state, sends intents."""

    def __init__(
        self,
        server: Server,
        game: str,
        token: str | None,
        since: int | None = None,
        lang: str | None = None,
    ):
        self.ws = server.socket(game)
        hello = {"type": "hello", "token": token, "since": since}
        self.ws.send(json.dumps(hello if lang is None else {**hello, "lang": lang}))
        self.seqs: list[int] = []
        self.state: dict[str, Any] = {}
        self.welcome = self.receive()
        assert self.welcome["type"] == "welcome", self.welcome
        self.receive()  # the catch-up: events or the whole state
        self.count = 0

    def receive(self, timeout: float = 20) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout))
        if message["type"] == "events":
            self.seqs += [e["seq"] for e in message["entries"]]
            self.state = message["state"]
        elif message["type"] == "state":
            self.state = message["state"]
        return message

    def until(self, kind: str, timeout: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(max(0.1, deadline - time.monotonic()))
            if message["type"] == kind:
                return message

    def until_version(self, version: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while self.state.get("version", -1) < version:
            self.receive(max(0.1, deadline - time.monotonic()))

    def intent(
        self, action: str, version: int | None = None, id: str | None = None
    ) -> dict[str, Any]:
        self.count += 1
        client_id = id or f"{id or ''}{time.monotonic_ns()}-{self.count}"
        seen = self.state["version"] if version is None else version
        self.ws.send(
            json.dumps({"type": "intent", "id": client_id, "version": seen, "action": action})
        )
        while True:
            message = self.receive()
            if message["type"] in ("ack", "refused") and message["id"] == client_id:
                return message

    def close(self) -> None:
        self.ws.close()


def postgres_or_skip() -> str:
    """The URL of ``ZLOUTCH_TEST_POSTGRES``, or the test is skipped (with how to set it)."""
    if not POSTGRES:
        pytest.skip(POSTGRES_HOWTO)
    why = postgres_reachable(POSTGRES)
    if why is not None:
        pytest.skip(
            f"PostgreSQL at ZLOUTCH_TEST_POSTGRES is not reachable ({why}); {POSTGRES_HOWTO}"
        )
    return POSTGRES


@contextlib.contextmanager
def new_database(
    kind: str, folder: Path, fresh_schema: Callable[[str], AbstractContextManager[str]]
) -> Iterator[str]:
    """A new SQLite file in ``folder``, or a new schema in the PostgreSQL test database
    (dropped at the end): its URL."""
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'games.sqlite'}"
        return
    with fresh_schema(postgres_or_skip()) as url:
        yield url
