"""``--backend ray``: the same chunks as Ray tasks on a local Ray instance, the same result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
