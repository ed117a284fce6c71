"""A heavy rule file: the endings check's time by target, and the server's health meanwhile.

The rule file is one die whose 1 scores 1 point under an exact target: every total is a
bank, the worst case for the check that a game can end (it walked every score and bank, so
it was quadratic in the target). Two figures, measured in one run:

1. ``zloutch rules show FILE`` at each target, in a fresh interpreter (the user's command;
   wall time, the interpreter's start included);
2. a real ``zloutch serve`` on 127.0.0.1 (a throwaway SQLite file): while ``POST
   /api/games`` makes a game of that file at each target, another client asks for
   ``/api/health`` every 10 ms; its latencies (median and largest) and the POST's time.

Run: ``python benchmarks/heavy_rules.py`` (about 30 s).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = (1_000, 10_000, 99_999)


def rule_file(target: int) -> str:
    return (
        '[rules]\nname = "one point"\ndice = 1\n[scoring]\nsingles = { 1 = 1 }\n'
        f"[game]\ntarget = {target}\nexact_target = true\n"
    )


def env() -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }


def show_times(folder: Path) -> None:
    print("zloutch rules show FILE (fresh interpreter, wall s)")
    for target in TARGETS:
        path = folder / f"one-point-{target}.toml"
        path.write_text(rule_file(target))
        begin = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "zloutch", "rules", "show", str(path)],
            env=env(),
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        print(
            f"  target {target:>6,}: {time.perf_counter() - begin:6.2f} s (exit {done.returncode})"
        )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def post(base: str, path: str, body: object) -> dict[str, object]:
    request = urllib.request.Request(
        base + path, json.dumps(body).encode(), {"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=600) as answer:
        found: dict[str, object] = json.loads(answer.read())
        return found


def serve_times(folder: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "zloutch", "serve", "--port", str(port)]
    db = f"sqlite:///{folder / 'games.sqlite'}"
    server = subprocess.Popen(
        [*command, "--db", db], env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(base + "/api/health", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        print("POST /api/games with the file, /api/health asked every 10 ms meanwhile")
        for target in TARGETS:
            latencies: list[float] = []
            done = threading.Event()

            def poll(latencies: list[float] = latencies, done: threading.Event = done) -> None:
                while not done.is_set():
                    begin = time.perf_counter()
                    urllib.request.urlopen(base + "/api/health", timeout=30).close()
                    latencies.append(time.perf_counter() - begin)
                    time.sleep(0.01)

            poller = threading.Thread(target=poll)
            poller.start()
            time.sleep(0.1)
            begin = time.perf_counter()
            answer = post(base, "/api/games", {"rules_file": rule_file(target)})
            took = time.perf_counter() - begin
            time.sleep(0.1)
            done.set()
            poller.join()
            ms = sorted(x * 1000 for x in latencies)
            made = "made" if "game" in answer else f"refused: {answer}"
            print(
                f"  target {target:>6,}: POST {took:5.2f} s ({made}); health p50"
                f" {statistics.median(ms):5.1f} ms, max {ms[-1]:6.1f} ms ({len(ms)} asked)"
            )
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    # No option: --help says what it measures (it once started the benchmark instead).
    argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog="Takes about 30 s."
    ).parse_args()
    with tempfile.TemporaryDirectory() as folder:
        show_times(Path(folder))
        serve_times(Path(folder))


if __name__ == "__main__":
    main()
