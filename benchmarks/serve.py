"""``zloutch serve`` under load: real WebSocket clients against a real server, on loopback.

Starts ``zloutch serve`` (a subprocess, SQLite in a temporary folder unless ``--db``) on a
free port of 127.0.0.1, creates ``--games`` games of two seated people, and opens
``--sockets`` WebSocket connections spread over them (the two players of each game, the rest
spectators). Then every game plays at once: the player to move sends a legal intent, and the
time from sending it to the moment each socket of the game has the events it caused is one
latency sample ("intent to broadcast"). It stops after ``--moves`` intents per game or
``--seconds``, whichever comes first, and prints games, sockets, intents, p50 and p99, how
the server grouped its commits (``/api/health``) and the CPU the server and the clients used.

With ``--think 0`` (the default) each game sends its next intent as soon as its sockets have
the last one's events: every game at once, as fast as the server goes (a saturation test).
``--think S`` has each player wait a random 0 to 2S seconds first, as a person does: the load
is then about ``games / (S + latency)`` intents a second.

Traffic goes to 127.0.0.1 only, bounded in count and in time. Run:
``python benchmarks/serve.py --games 1000 --sockets 5000 --moves 4`` (the issue's target).
The clients share the machine with the server: on a small machine they are a large part of
the load. ``--server-cpus 0 --client-cpus 1`` pins each to its own cores (Linux
``sched_setaffinity``), as a server with a core of its own and its clients elsewhere; without
them both float over every core, and the figures are an upper bound of the server's own
latency (the CPU of each process is printed either way). ``--sample FILE`` runs the server
under ``benchmarks/sampler.py`` (the loop's stack every millisecond, the collector's pauses,
the stalls), ``--profile FILE`` under cProfile.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

SRC = Path(__file__).resolve().parents[1] / "src"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post(base: str, path: str, body: object) -> Any:
    req = urllib.request.Request(
        base + path, json.dumps(body).encode(), {"content-type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=60) as response:
        return json.loads(response.read())


def raise_open_files(wanted: int) -> None:
    """Room for this many sockets in this process (the server raises its own limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def cpu_set(text: str | None) -> set[int] | None:
    """``0`` or ``0,2-3``: a set of CPU numbers, checked against this machine's."""
    if text is None:
        return None
    if not hasattr(os, "sched_getaffinity"):
        raise SystemExit("pinning to CPUs needs Linux (sched_setaffinity)")
    cpus: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        try:
            cpus.update(range(int(low), int(high or low) + 1))
        except ValueError:
            raise SystemExit(f"not a CPU list: {text!r} (for example 0 or 0,2-3)") from None
    free = os.sched_getaffinity(0)
    if not cpus or not cpus <= free:
        raise SystemExit(f"CPUs {sorted(cpus)}: this process may use {sorted(free)}")
    return cpus


def start_server(
    db: str,
    port: int,
    profile: str | None = None,
    sample: str | None = None,
    cpus: set[int] | None = None,
) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "zloutch", "serve", "--port", str(port), "--db", db]
    if profile:  # the server under cProfile, written when it stops
        command[1:1] = ["-m", "cProfile", "-o", profile]
    elif sample:  # the server under the sampler, written when it stops
        command[1:1] = [str(Path(__file__).with_name("sampler.py")), sample]
    pin = None if cpus is None else (lambda: os.sched_setaffinity(0, cpus))
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, preexec_fn=pin)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2)
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("zloutch serve did not start")


class Conn:
    """One socket and the highest version it has seen."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.version = 0
        self.state: dict[str, Any] = {}
        self.waiters: list[tuple[int, asyncio.Future[float]]] = []
        self.answers: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def read(self) -> None:
        async for text in self.ws:
            message = json.loads(text)
            kind = message["type"]
            if kind in ("events", "state"):
                self.state = message["state"]
                self.version = self.state["version"]
                now = time.perf_counter()
                for version, future in list(self.waiters):
                    if self.version >= version and not future.done():
                        future.set_result(now)
                self.waiters = [(v, f) for v, f in self.waiters if not f.done()]
            elif kind in ("ack", "refused"):
                answer = self.answers.pop(message["id"], None)
                if answer is not None:
                    answer.set_result(message)

    def reached(self, version: int) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        if self.version >= version:
            future.set_result(time.perf_counter())
        else:
            self.waiters.append((version, future))
        return future


async def open_socket(port: int, game: str, token: str | None) -> Conn:
    ws = await connect(f"ws://127.0.0.1:{port}/ws/{game}", open_timeout=60, max_queue=None)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    conn = Conn(ws)
    asyncio.get_running_loop().create_task(conn.read())
    return conn


async def play(
    game: str,
    players: dict[int, Conn],
    everyone: list[Conn],
    args: argparse.Namespace,
    until: float,
) -> list[tuple[float, float, float]]:
    """Each intent's (intent to broadcast, intent to ack, when it was sent)."""
    samples: list[tuple[float, float, float]] = []
    first = players[0]
    rng = random.Random(game)
    while not first.state:
        await asyncio.sleep(0.01)
    for n in range(args.moves):
        if args.think:
            await asyncio.sleep(rng.uniform(0, 2 * args.think))
        state = first.state
        if time.monotonic() > until or state["status"] != "playing" or not state["acting"]:
            break
        me = players[state["acting"][0]]
        await me.reached(state["version"])
        legal = me.state["legal"]
        action = "throw" if "throw" in legal else ("bank" if "bank" in legal else legal[0])
        client_id = f"{game}-{n}"
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        me.answers[client_id] = answer
        sent = time.perf_counter()
        message = {"type": "intent", "id": client_id, "version": me.version, "action": action}
        await me.ws.send(json.dumps(message))
        reply = await answer
        ack_at = time.perf_counter()
        if reply["type"] != "ack":
            continue
        arrived = await asyncio.gather(*(c.reached(reply["version"]) for c in everyone))
        samples.append((max(arrived) - sent, ack_at - sent, sent))
    return samples


async def run(args: argparse.Namespace, port: int, server_pid: int) -> None:
    base = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    games = []
    for _ in range(args.games):
        created = post(base, "/api/games", {"seats": [{"name": "A"}, {"name": "B"}]})
        tokens = {}
        for invite in created["invites"]:
            joined = post(base, f"/api/join/{invite['code']}", {})
            tokens[joined["seat"]] = joined["token"]
        games.append((created["game"], tokens))
    made = time.perf_counter() - started
    per_game = max(2, args.sockets // args.games)
    conns: dict[str, tuple[dict[int, Conn], list[Conn]]] = {}
    opening = time.perf_counter()
    gate = asyncio.Semaphore(50)  # sockets being opened at once

    async def open_game(game: str, tokens: dict[int, str]) -> None:
        async with gate:
            players = {s: await open_socket(port, game, t) for s, t in tokens.items()}
            watchers = [await open_socket(port, game, None) for _ in range(per_game - 2)]
        conns[game] = (players, [*players.values(), *watchers])

    await asyncio.gather(*(open_game(game, tokens) for game, tokens in games))
    sockets = sum(len(everyone) for _, everyone in conns.values())
    opened = time.perf_counter() - opening
    # The clients' own pauses are not the server's latency: what they hold from here on (5,000
    # sockets and their states) is left out of their collector's full passes, as the server
    # does for its own (hub.py).
    gc.collect()
    gc.freeze()
    before = health(base)
    cpu_before = cpu_seconds(server_pid), time.process_time()
    until = time.monotonic() + args.seconds
    playing = time.perf_counter()
    results = await asyncio.wait_for(
        asyncio.gather(*(play(g, p, e, args, until) for g, (p, e) in conns.items())),
        args.seconds + 60,
    )
    elapsed = time.perf_counter() - playing
    after = health(base)
    server_cpu = cpu_seconds(server_pid) - cpu_before[0]
    client_cpu = time.process_time() - cpu_before[1]
    timed = [s for r in results for s in r]
    if not timed:
        raise SystemExit("no intent was acknowledged")
    samples = sorted(broadcast for broadcast, _, _ in timed)
    acks = sorted(ack for _, ack, _ in timed)
    p50 = statistics.median(samples) * 1000
    p99 = percentile(samples, 0.99) * 1000
    commits = after["commits"] - before["commits"]
    appends = after["appends"] - before["appends"]
    rate = len(samples) / elapsed
    print(
        f"games {args.games}  sockets {sockets}  intents {len(samples)} in {elapsed:.1f} s"
        f" ({rate:.0f}/s, think {args.think:g} s)"
    )
    print(f"intent -> broadcast (to every socket of the game): p50 {p50:.1f} ms  p99 {p99:.1f} ms")
    print(
        f"  p90 {percentile(samples, 0.9) * 1000:.1f} ms  p99.9"
        f" {percentile(samples, 0.999) * 1000:.1f} ms  max {samples[-1] * 1000:.1f} ms;"
        f" intent -> ack: p50 {statistics.median(acks) * 1000:.1f} ms"
        f"  p99 {percentile(acks, 0.99) * 1000:.1f} ms"
    )
    slow = sorted(sent - playing for broadcast, _, sent in timed if broadcast > 0.05)
    if slow:
        # When the slow ones were sent: a stall shows as many in one second.
        seconds = statistics.multimode(int(t) for t in slow)
        print(
            f"  over 50 ms: {len(slow)}, sent from {slow[0]:.1f} s to {slow[-1]:.1f} s of play"
            f" (most in second {seconds[0]})"
        )
    print(
        f"server: {appends} appends in {commits} commits"
        f" ({appends / max(commits, 1):.1f} a commit, largest {after['largest_commit']},"
        f" slowest {after['slowest_commit_ms']:.0f} ms)"
    )
    print(
        f"CPU while playing: server {server_cpu:.1f} s ({server_cpu / len(samples) * 1000:.2f} ms"
        f" an intent), clients {client_cpu:.1f} s, in {elapsed:.1f} s"
    )
    print(f"(games created in {made:.1f} s, sockets opened in {opened:.1f} s)")
    for _, everyone in conns.values():
        for c in everyone:
            await c.ws.close()


def percentile(ordered: list[float], q: float) -> float:
    """The sample below which a fraction ``q`` of the sorted samples lie (nearest rank)."""
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def cpu_seconds(pid: int) -> float:
    """The CPU time a process has used (user and system; Linux's /proc, else nan)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def health(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(base + "/api/health", timeout=60) as response:
        answer: dict[str, Any] = json.loads(response.read())
    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=4, help="intents per game (at most)")
    parser.add_argument("--seconds", type=float, default=120, help="at most this long playing")
    parser.add_argument(
        "--think", type=float, default=0.0, help="a player waits 0 to 2x this long (seconds)"
    )
    parser.add_argument("--db", help="a database URL (default: SQLite in a temporary folder)")
    parser.add_argument(
        "--server-cpus", metavar="LIST", help="pin the server to these CPUs (0, or 0,2-3)"
    )
    parser.add_argument(
        "--client-cpus", metavar="LIST", help="pin the clients (this process) to these CPUs"
    )
    parser.add_argument("--profile", metavar="FILE", help="run the server under cProfile")
    parser.add_argument(
        "--sample", metavar="FILE", help="run the server under benchmarks/sampler.py"
    )
    args = parser.parse_args()
    if not (0 < args.games <= 5000 and 0 < args.sockets <= 20000 and args.seconds <= 600):
        raise SystemExit("bounded: at most 5,000 games, 20,000 sockets and 600 s")
    if not 0 <= args.think <= 60:
        raise SystemExit("--think is 0 to 60 seconds")
    raise_open_files(max(args.sockets, 2 * args.games) + 1000)
    server_cpus, client_cpus = cpu_set(args.server_cpus), cpu_set(args.client_cpus)
    if server_cpus and client_cpus and server_cpus & client_cpus:
        raise SystemExit("--server-cpus and --client-cpus overlap")
    if (server_cpus or client_cpus) and hasattr(os, "sched_getaffinity"):
        every = os.sched_getaffinity(0)
        server_cpus = server_cpus or every  # the server is started from this process:
        if client_cpus is not None:  # given its own set, not the clients'
            os.sched_setaffinity(0, client_cpus)
        print(
            f"server on CPUs {sorted(server_cpus)}, clients on {sorted(client_cpus or every)};"
            f" load {os.getloadavg()[0]:.1f}"
        )
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        db = args.db or f"sqlite:///{Path(folder) / 'bench.sqlite'}"
        server = start_server(db, port, args.profile, args.sample, server_cpus)
        try:
            asyncio.run(run(args, port, server.pid))
        finally:
            # Ctrl-C: uvicorn stops, and cProfile (if on) writes its file on the way out.
            server.send_signal(signal.SIGINT)
            server.wait(60)


if __name__ == "__main__":
    main()
