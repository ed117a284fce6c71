"""``--backend ray`` gives up on a cluster that never answers (issue 12, item 7).

A stand-in ``ray`` module whose ``init`` never returns plays the address that hangs (a real
one, ``nowhere:1``, makes Ray retry for minutes): ``ray_map`` gives up after
``ZLOUTCH_RAY_TIMEOUT`` seconds with one ``SimulationError``.
"""

from __future__ import annotations

import sys
import threading
import time
import types

import pytest

from zloutch.sim import cluster
from zloutch.sim.cluster import CONNECT_TIMEOUT, connect_timeout, ray_map
from zloutch.sim.runner import SimulationError


@pytest.fixture(autouse=True)
def no_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first try in a process apart runs the real Ray (tests/sim/test_ray.py tries it
    against a real cluster); here the stand-in plays this process's own connection."""
    monkeypatch.setattr(cluster, "_probe", lambda address, timeout: None)


def fake_ray(init: object) -> types.ModuleType:
    module = types.ModuleType("ray")
    module.is_initialized = lambda: False  # type: ignore[attr-defined]
    module.init = init  # type: ignore[attr-defined]
    return module


def test_an_address_that_never_answers_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    never = threading.Event()
    monkeypatch.setitem(sys.modules, "ray", fake_ray(lambda **kwargs: never.wait()))
    monkeypatch.setenv("ZLOUTCH_RAY_TIMEOUT", "0.3")
    begin = time.monotonic()
    with pytest.raises(SimulationError, match=r"nowhere:1: no answer within 0\.3 s"):
        ray_map(abs, [1, 2], address="nowhere:1")
    assert time.monotonic() - begin < 5
    never.set()


def test_a_refused_connection_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(**kwargs: object) -> None:
        raise ConnectionError("could not connect\nmany more lines of detail")

    monkeypatch.setitem(sys.modules, "ray", fake_ray(refuse))
    with pytest.raises(SimulationError) as caught:
        ray_map(abs, [1], address="ray://somewhere:10001")
    assert str(caught.value) == (
        "cannot reach the Ray cluster at ray://somewhere:10001: could not connect"
    )


def test_the_timeout_is_configurable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ZLOUTCH_RAY_TIMEOUT", raising=False)
    assert connect_timeout() == CONNECT_TIMEOUT
    monkeypatch.setenv("ZLOUTCH_RAY_TIMEOUT", "2.5")
    assert connect_timeout() == 2.5
    for bad in ("soon", "0", "-1", "nan"):
        monkeypatch.setenv("ZLOUTCH_RAY_TIMEOUT", bad)
        with pytest.raises(SimulationError, match="ZLOUTCH_RAY_TIMEOUT"):
            connect_timeout()


def test_the_probes_error_is_the_last_line_of_its_traceback() -> None:
    lines = [
        b"Traceback (most recent call last):\n",
        b'  File "<string>", line 3, in <module>\n',
        b"[2026-12-03 10:04:19,193 W 1 2] gcs_client.cc:210: Failed to get cluster ID\n",
        b"ConnectionError: Could not find any running Ray instance.\n",
    ]
    assert cluster._last_error(lines) == "Could not find any running Ray instance."
    assert cluster._last_error([]) == "the connection failed"
