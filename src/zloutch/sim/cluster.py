"""Run a simulation's chunks on a Ray cluster (``--backend ray``): the edge around the core.

The engine path's chunks are exactly the local backend's (``chunk_bounds``); the fast path
plays batches of ``BATCH`` games, whose counts are whole numbers (``FastSums``) and merge
exactly however the local run cut its calls. Each chunk is a Ray task, merged in chunk
order. Every game is seeded and seated by its own index, so the result is the same as the
local backend's for the same seed. Ray is an optional extra: ``pip install 'zloutch[ray]'``.

Address: ``None`` (or ``local``) starts a Ray instance on this machine for the run;
``auto`` joins the cluster this machine belongs to; ``ray://HOST:10001`` connects a client to
a remote cluster, whose workers must have ``zloutch`` installed.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from zloutch.sim.runner import SimulationError

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a Ray cluster to answer (``ZLOUTCH_RAY_TIMEOUT`` sets another)."""
TIMEOUT_VARIABLE = "ZLOUTCH_RAY_TIMEOUT"

Item = TypeVar("Item")
Result = TypeVar("Result")


def ray_map(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    *,
    address: str | None = None,
    done: Callable[[Result], None] | None = None,
) -> list[Result]:
    """``[function(item) for item in items]``, each call a Ray task; results in item order.

    ``done`` is called with each result as it arrives (for a progress bar).
    """
    timeout = connect_timeout()
    # Ray's own retries (one warning line each on stderr) are left out: our error says it.
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "error")
    try:
        import ray
    except ImportError:
        raise SimulationError(
            "--backend ray needs Ray: pip install 'zloutch[ray]' (or pip install ray)"
        ) from None
    started = not ray.is_initialized()
    if started:
        target = None if address in (None, "", "local") else address
        if target is None:
            _init_local(ray)
        else:
            _init_within(ray, target, timeout)
    try:
        task: Any = ray.remote(function)
        refs = [task.remote(item) for item in items]
        position = {ref: i for i, ref in enumerate(refs)}
        results: list[Any] = [None] * len(refs)
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                result = ray.get(ref)
                results[position[ref]] = result
                if done is not None:
                    done(result)
        return results
    finally:
        if started:
            ray.shutdown()


def connect_timeout() -> float:
    """The seconds to wait for a cluster: ``ZLOUTCH_RAY_TIMEOUT``, or ``CONNECT_TIMEOUT``."""
    text = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not text:
        return CONNECT_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise SimulationError(f"{TIMEOUT_VARIABLE}={text!r}: a number of seconds above 0")
    return seconds


RAY_OPTIONS: dict[str, Any] = {
    "include_dashboard": False,
    "log_to_driver": False,
    "configure_logging": False,
}


def _init_local(ray: Any) -> None:
    """A Ray instance of this machine for the run, started on the thread that runs the map
    and shuts it down: Ray ties its GCS and raylet to the life of the thread that starts
    them (a parent-death signal), so a helper thread that returned would kill them."""
    logging.getLogger("ray._private.worker").addFilter(_not_sigterm_warning)
    try:
        ray.init(**RAY_OPTIONS)
    except (ConnectionError, ValueError, RuntimeError, TimeoutError) as exc:
        raise SimulationError(f"cannot start a local Ray instance: {_first_line(exc)}") from None


PROBE = """
import sys, ray
print("zloutch-probe-ready", file=sys.stderr, flush=True)
ray.init(address=sys.argv[1], include_dashboard=False, log_to_driver=False,
         configure_logging=False)
print("connected", flush=True)
ray.shutdown()
"""
"""The first try at a cluster, in a process apart: Ray's core retries a silent address or a
refused token for minutes, a line of its log a second, from threads of its own that no call
stops; a process apart is killed, and its log read."""
IMPORT_TIMEOUT = 60.0
"""Seconds the probe may take to import Ray, before its ``timeout`` for the cluster starts."""
AUTH_REFUSED = (b"InvalidAuthToken", b"Unauthenticated")
"""Words of Ray's core log when a cluster refuses a connection's authentication token."""


def _probe(address: str, timeout: float) -> None:
    """Try the cluster at ``address`` in a process apart, within ``timeout`` seconds: a
    refused token, a silence or an error is a one-line ``SimulationError``."""
    where = f"the Ray cluster at {address}"
    probe = subprocess.Popen(
        [sys.executable, "-c", PROBE, address],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    refused, ready = threading.Event(), threading.Event()
    said: list[bytes] = []

    def read() -> None:
        assert probe.stderr is not None
        for line in probe.stderr:
            if any(word in line for word in AUTH_REFUSED):
                refused.set()
            if line.startswith(b"zloutch-probe-ready"):
                ready.set()
            else:
                said.append(line)

    reader = threading.Thread(target=read, name="zloutch-ray-probe", daemon=True)
    reader.start()
    deadline = time.monotonic() + IMPORT_TIMEOUT  # Ray's import, then the cluster's answer
    try:
        while probe.poll() is None and not refused.is_set() and time.monotonic() < deadline:
            if ready.is_set():
                ready.clear()
                deadline = time.monotonic() + timeout
            time.sleep(0.05)
    finally:
        if probe.poll() is None:
            probe.kill()
        out = probe.communicate()[0]
        reader.join(1.0)
    if refused.is_set():
        raise SimulationError(f"{where} refused the connection: {_auth_advice()}")
    if b"connected" in out:
        return
    if probe.returncode == -signal.SIGKILL:
        raise SimulationError(
            f"cannot reach {where}: no answer within {timeout:g} s "
            f"(wait longer with {TIMEOUT_VARIABLE}=SECONDS)"
        )
    raise SimulationError(f"cannot reach {where}: {_last_error(said)}")


def _auth_advice() -> str:
    """What to set when a cluster refused this process's authentication, in one line."""
    token = (
        "its token (`ray get-auth-token` on its head node) in RAY_AUTH_TOKEN or ~/.ray/auth_token"
    )
    if os.environ.get("RAY_AUTH_MODE", "").lower() == "token":
        return f"it uses token authentication and the token sent is not its own: put {token}"
    return f"it uses token authentication: set RAY_AUTH_MODE=token and put {token}"


def _last_error(lines: list[bytes]) -> str:
    """The error a Python process died of, from its standard error: the traceback's last
    line without the exception's module path."""
    for line in reversed(lines):
        text = line.decode(errors="replace").strip()
        if text and not text.startswith(("[", " ", "File ")):
            kind, colon, words = text.partition(": ")
            return words if colon and "Error" in kind else text
    return "the connection failed"


def _init_within(ray: Any, address: str, timeout: float) -> None:
    """``ray.init`` of a cluster's address, given up after ``timeout`` seconds: an address
    that never answers makes Ray retry for minutes. The cluster is tried first in a process
    apart (``_probe``); the attempt of this process goes on in a daemon thread, which dies
    with us (a cluster's processes are not ours: nothing dies with the thread)."""
    _probe(address, timeout)
    failure: list[BaseException] = []

    def connect() -> None:
        # Ray warns that it sets no SIGTERM handler off the main thread: ours stay.
        logging.getLogger("ray._private.worker").addFilter(_not_sigterm_warning)
        try:
            ray.init(address=address, **RAY_OPTIONS)
        except BaseException as exc:  # handed to the caller below
            failure.append(exc)

    attempt = threading.Thread(target=connect, name="zloutch-ray-init", daemon=True)
    attempt.start()
    attempt.join(timeout)
    where = f"the Ray cluster at {address}"
    if attempt.is_alive():
        raise SimulationError(
            f"cannot reach {where}: no answer within {timeout:g} s "
            f"(wait longer with {TIMEOUT_VARIABLE}=SECONDS)"
        )
    if failure:
        exc = failure[0]
        if isinstance(exc, ConnectionError | ValueError | RuntimeError | TimeoutError):
            raise SimulationError(f"cannot reach {where}: {_first_line(exc)}") from None
        raise exc


def _first_line(exc: BaseException) -> str:
    """An error's first line, or its kind where it says nothing."""
    words = str(exc).strip()
    return words.splitlines()[0] if words else type(exc).__name__


def _not_sigterm_warning(record: logging.LogRecord) -> bool:
    return "SIGTERM handler is not set" not in record.getMessage()
