"""Run a simulation's chunks on a Ray cluster (``--backend ray``): the edge around the core.

The chunks are exactly the local backend's (``chunk_bounds`` for the engine path, batches of
``BATCH`` games for the fast path), each played by a Ray task and merged in chunk order.
Every game is seeded and seated by its own index, so the result is the same as the local
backend's for the same seed. Ray is an optional extra: ``pip install 'zloutch[ray]'``.

Address: ``None`` (or ``local``) starts a Ray instance on this machine for the run;
``auto`` joins the cluster this machine belongs to; ``ray://HOST:10001`` connects a client to
a remote cluster, whose workers must have ``zloutch`` installed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from zloutch.sim.runner import SimulationError

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
    try:
        import ray
    except ImportError:
        raise SimulationError(
            "--backend ray needs Ray: pip install 'zloutch[ray]' (or pip install ray)"
        ) from None
    started = not ray.is_initialized()
    if started:
        target = None if address in (None, "", "local") else address
        try:
            ray.init(
                address=target,
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
            )
        except (ConnectionError, ValueError, RuntimeError) as exc:
            raise SimulationError(f"cannot reach the Ray cluster at {address}: {exc}") from None
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
