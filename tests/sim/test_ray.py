"""``--backend ray``: the same chunks as Ray tasks on a local Ray instance, the same result."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.rules import load_rules
from zloutch.sim import SimulationError, simulate

ray = pytest.importorskip("ray", reason="Ray is in the dev extra: pip install -e '.[dev]'")
pytestmark = [pytest.mark.ray, pytest.mark.xdist_group("ray")]  # one worker starts Ray


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize("method", ["engine", "fast"])
def test_ray_gives_the_local_result(local_ray: None, method: str) -> None:
    rules = load_rules("farkle-minimal(target=2000)")
    players = ["expert", "threshold:300"]
    games = 120 if method == "engine" else 45_000  # the fast path: three batches
    seen: list[int] = []
    here = simulate(rules, players, games, 9, jobs=2, method=method, chunk_size=25)
    there = simulate(
        rules, players, games, 9, method=method, backend="ray", chunk_size=25, progress=seen.append
    )
    assert there.method == here.method == method
    assert there.to_json() == here.to_json()
    assert seen and seen[-1] == games and seen == sorted(seen)


def test_ray_refuses_what_the_fast_path_refuses_before_sending_work(local_ray: None) -> None:
    from zloutch.sim.fast import FastPathUnsupported

    with pytest.raises(FastPathUnsupported, match="random"):
        simulate(load_rules("farkle"), ["random", "greedy"], 10, 1, method="fast", backend="ray")


def test_backend_and_address_are_checked() -> None:
    rules = load_rules("farkle")
    with pytest.raises(SimulationError, match="--backend is one of local, ray"):
        simulate(rules, ["greedy"] * 2, 5, 1, backend="spark")
    with pytest.raises(SimulationError, match="--address goes with --backend ray"):
        simulate(rules, ["greedy"] * 2, 5, 1, address="auto")
    result = CliRunner().invoke(app, ["simulate", "-n", "5", "--address", "auto"])
    assert result.exit_code == 2 and "error: --address goes with --backend ray" in result.stderr


def test_ray_without_a_cluster_starts_one_for_the_run(tmp_path: Path) -> None:
    """A fresh process, no cluster and no earlier ``ray.init``: ``--backend ray`` starts a
    local instance that lives for the run and gives the local backend's result."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    common = ["-r", "farkle", "-p", "expert,greedy", "-n", "3000", "--seed", "5"]
    here, there = tmp_path / "local.json", tmp_path / "ray.json"
    cli = [sys.executable, "-m", "zloutch", "simulate", *common]
    local = subprocess.run(
        [*cli, "--json", str(here)], env=env, capture_output=True, text=True, timeout=300
    )
    assert local.returncode == 0, local.stderr
    began = time.monotonic()
    ray_run = subprocess.run(
        [*cli, "--backend", "ray", "--json", str(there)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    took = time.monotonic() - began
    assert ray_run.returncode == 0, ray_run.stderr[-2000:]
    assert "error" not in ray_run.stderr.lower(), ray_run.stderr[-2000:]
    assert json.loads(there.read_text()) == json.loads(here.read_text())
    assert took < 120  # it gave up after 60 s before (Ray's GCS killed a second in)


@pytest.fixture
def token_cluster(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A ``ray start --head`` cluster with token authentication (Ray's default for new
    clusters from 2.5x on), its token given by RAY_AUTH_TOKEN: (its address, its token)."""
    token = "zloutch-" + os.urandom(16).hex()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("RAY_")},
        "HOME": str(tmp_path),
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": token,
    }
    beside = Path(sys.executable).with_name("ray")  # the ray command of this Python's Ray
    ray_command = str(beside) if beside.exists() else "ray"
    # A folder of its own: in Ray's (/tmp/ray) its address would be the one a plain
    # ray.init() joins, in this test run and after it.
    folder = tempfile.mkdtemp(prefix="zr-", dir="/tmp")  # short: Ray's socket paths
    options = ["--include-dashboard=false", "--disable-usage-stats", "--num-cpus=1"]
    options.append(f"--temp-dir={folder}")
    head = subprocess.Popen(
        [ray_command, "start", "--head", "--block", f"--port={port}", *options],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while subprocess.run(  # the head answers once its GCS is up
            [ray_command, "status", f"--address={address}"],
            env=env,
            capture_output=True,
            timeout=60,
        ).returncode:
            assert head.poll() is None, "ray start --head exited"
            assert time.monotonic() < deadline, "the Ray head did not start in 60 s"
            time.sleep(0.5)
        yield address, token
    finally:
        os.killpg(head.pid, signal.SIGTERM)  # --block: ray start stops its processes
        try:
            head.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_refused_token_is_named_in_one_line(
    token_cluster: tuple[str, str], tmp_path: Path
) -> None:
    """A cluster that refuses this machine's authentication says so at once, with what to
    set (it was ten lines of Ray's log and then 'no answer within 10 s'); with the token
    the run gives the local backend's result."""
    address, token = token_cluster
    home = tmp_path / "home"
    home.mkdir()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    common = ["-r", "farkle", "-p", "expert,greedy", "-n", "2000", "--seed", "3"]
    cli = [sys.executable, "-m", "zloutch", "simulate", *common, "--backend", "ray"]
    for extra, advice in (
        ({}, "set RAY_AUTH_MODE=token and put its token"),
        ({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": "wrong"}, "the token sent is not its own"),
    ):
        began = time.monotonic()
        run = subprocess.run(
            [*cli, "--address", address],
            env={**clean, "HOME": str(home), **extra},
            capture_output=True,
            text=True,
            timeout=120,
        )
        took = time.monotonic() - began
        assert run.returncode == 2, run.stderr[-2000:]
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1, run.stderr[-2000:]
        assert lines[0].startswith(f"error: the Ray cluster at {address} refused the connection")
        assert advice in lines[0] and "ray get-auth-token" in lines[0], lines[0]
        assert took < 9, took  # before the 10 s of silence it waited for
    here, there = tmp_path / "local.json", tmp_path / "ray.json"
    local = subprocess.run(
        [*cli[:-2], "--json", str(here)], env=clean, capture_output=True, text=True, timeout=300
    )
    assert local.returncode == 0, local.stderr
    with_token = {**clean, "HOME": str(home), "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}
    remote = subprocess.run(
        [*cli, "--address", address, "--json", str(there)],
        env=with_token,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert remote.returncode == 0, remote.stderr[-2000:]
    assert json.loads(there.read_text()) == json.loads(here.read_text())
