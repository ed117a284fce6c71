"""The inner loop of the game solver: the turns of many score pairs at once.

``solve_pairs`` values every (total, node) of one turn for each pair of scores of a
``PairsProblem`` (what banking is worth at each total, what a farkle and an instant win are
worth) and returns the values with their derivative with respect to the farkle value (for
Newton's method on the farkle cycle, see ``game_solver``). The graph is the compiled turn's
flat form (``zloutch.engine.compiled.FlatTurn``, documented there once), taken as it is.
Layout of the results: ``values[p, t, c]`` for pair ``p``, total ``t`` in units and column
``c`` (0 farkle, 1 win, then the nodes of the compiled turn).

The parts, one file each:

- ``pairs``: the problem (``PairsProblem``) and ``solve_pairs``, which hands it to a backend;
- ``reference``: the plain statement of the computation, one pair after the other (the
  ``python`` backend, slow: the reference every other backend is held to, bit for bit), and
  the same loops compiled by Numba (``numba-pairs``, kept to compare with);
- ``item``: the lane kernel, ``LANES`` pairs side by side in one work item (the ``numba``
  backend, the default), with ``intrinsics``, its operations written in LLVM's terms;
- ``scheduler``: the lane kernel's threads, which take the items from a shared counter and
  do again an item whose holder stopped, and go through a whole solve's levels without
  returning to Python;
- ``lanes``: a batch laid out for the lane kernel (``Lanes``), a solve's levels (``Sweep``,
  ``solve_levels``);
- ``banks``: what banking is worth, by pair (``LevelBanks``) or by score (``ScoreBanks``);
- ``array``: whole-array operations in the NumPy API (the ``array`` backend: NumPy, or CuPy
  given as ``xp``);
- ``cuda`` and ``cuda_device``: one launch a batch on an NVIDIA GPU (Numba CUDA, ``--device
  cuda``), imported only when asked for.
"""

from __future__ import annotations

from zloutch.engine.compiled import FlatTurn
from zloutch.strategy.kernels.banks import LevelBanks, ScoreBanks
from zloutch.strategy.kernels.item import LANES
from zloutch.strategy.kernels.lanes import Lanes, Sweep, aligned_empty, solve_levels
from zloutch.strategy.kernels.pairs import BACKENDS, PairsProblem, solve_pairs
from zloutch.strategy.kernels.reference import numba_available
from zloutch.strategy.kernels.scheduler import default_threads, thread_stats
from zloutch.strategy.turn_solver import TurnModel

Tables = FlatTurn
"""The turn graph the kernels read: the compiled turn's flat form, taken as it is."""


def build_tables(model: TurnModel) -> Tables:
    """The compiled turn's flat form (built once per compiled turn, never flattened here)."""
    return model.compiled.flat


__all__ = [
    "BACKENDS",
    "LANES",
    "Lanes",
    "LevelBanks",
    "PairsProblem",
    "ScoreBanks",
    "Sweep",
    "Tables",
    "aligned_empty",
    "build_tables",
    "default_threads",
    "numba_available",
    "solve_levels",
    "solve_pairs",
    "thread_stats",
]
