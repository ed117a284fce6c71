"""``--backend ray``: the same chunks as Ray tasks on a local Ray instance, the same result."""

from __future__ import annotations

from collections.abc import Iterator

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
