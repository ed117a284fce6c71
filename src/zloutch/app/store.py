"""Solved results kept on disk, keyed by the canonical rule spec and the solver version.

This is the edge of the program: the solvers are pure and return values; this module reads
and writes them. The folder is ``$ZLOUTCH_CACHE`` when set, else ``~/.cache/zloutch``.
A file that cannot be read (corrupt, from another version) is ignored and recomputed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from zloutch.rules.loader import to_toml
from zloutch.rules.ruleset import RuleSet
from zloutch.strategy.game_solver import GAME_SOLVER_VERSION, GameSolution


def cache_dir() -> Path:
    """Where results are kept."""
    configured = os.environ.get("ZLOUTCH_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "zloutch"


def cache_path(kind: str, key: str, suffix: str = ".json") -> Path:
    """The file of one result: ``kind`` names the solver, ``key`` the rule spec and more."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:24]
    return cache_dir() / kind / f"{digest}{suffix}"


def cached_json(
    kind: str, key: str, compute: Callable[[], dict[str, Any]]
) -> tuple[dict[str, Any], bool]:
    """The stored result for ``key``, or ``compute()`` stored for next time.

    Returns the result and whether it came from the disk. Writing is best effort: a
    read-only disk costs the cache, never the answer.
    """
    path = cache_path(kind, key)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("key") == key:
            result = data.get("result")
            if isinstance(result, dict):
                return result, True
    except (OSError, ValueError):
        pass
    result = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"key": key, "result": result}), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass
    return result, False


def rules_key(kind: str, version: int, rules: RuleSet) -> str:
    """A cache key: the spec for people, and the canonical file so that edits count."""
    digest = hashlib.sha256(to_toml(rules).encode()).hexdigest()[:16]
    return f"{kind}/v{version}/{rules.spec}/{digest}"


def save_game_solution(solution: GameSolution) -> Path | None:
    """Keep a solved game on disk (compressed); None when the disk refuses."""
    key = rules_key("game", GAME_SOLVER_VERSION, solution.rules)
    path = cache_path("game", key, ".npz")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as handle:
            np.savez_compressed(
                handle,
                key=np.asarray(key),
                win=solution.win,
                numbers=np.asarray(
                    [
                        solution.unit,
                        solution.target,
                        solution.passes,
                        solution.levels,
                        solution.states,
                        solution.margin,
                        solution.low,
                        solution.sweeps,
                    ],
                    dtype=np.int64,
                ),
                residual=np.asarray(solution.residual),
                # F-1: the whole table by farkles in a row (an empty array: no such rule).
                counts=solution.counts if solution.counts is not None else np.zeros(0),
            )
    except OSError:
        return None
    return path


def load_game_solution(rules: RuleSet) -> GameSolution | None:
    """The solved game of a rule set, if it was saved by this version; else None."""
    key = rules_key("game", GAME_SOLVER_VERSION, rules)
    path = cache_path("game", key, ".npz")
    try:
        with np.load(path) as data:
            if str(data["key"]) != key:
                return None
            unit, target, passes, levels, states, margin, low, sweeps = (
                int(x) for x in data["numbers"]
            )
            counts = data["counts"]
            return GameSolution(
                rules,
                unit,
                target,
                data["win"].copy(),
                float(data["residual"]),
                passes,
                levels,
                states,
                None,
                margin,
                low=low,
                counts=counts.copy() if counts.size else None,
                sweeps=sweeps,
            )
    except (OSError, KeyError, ValueError):
        return None
