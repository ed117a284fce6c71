"""Simulations: many complete games of bots, and the numbers that settle arguments.

``runner`` is the pure core (one range of games, seeded by index); ``parallel`` runs the
ranges in a process pool and merges them in order.
"""

from zloutch.sim.parallel import BotFactory, chunk_bounds, default_jobs, simulate
from zloutch.sim.runner import (
    MAX_TURNS,
    PlayerStats,
    SeatStats,
    SimulationError,
    SimulationResult,
    Tally,
    game_rng,
    play_games,
    player_labels,
    seating,
    summarise,
    wilson,
)

__all__ = [
    "MAX_TURNS",
    "BotFactory",
    "PlayerStats",
    "SeatStats",
    "SimulationError",
    "SimulationResult",
    "Tally",
    "chunk_bounds",
    "default_jobs",
    "game_rng",
    "play_games",
    "player_labels",
    "seating",
    "simulate",
    "summarise",
    "wilson",
]
