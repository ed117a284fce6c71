"""How fast the engine plays: actions applied per second and random games per second.

Run: python benchmarks/engine.py [--games N] [--seed S]

Each preset plays N two-player games with a random policy that banks with probability 0.6
whenever banking is legal (pure uniform play makes exact-target games very long). The
figures come from one run on a shared, noisy machine: compare presets within a run.
"""

from __future__ import annotations

import argparse
import random
import time

from zloutch.engine import CHANCE, Bank, apply, current_player, is_terminal, legal_actions
from zloutch.engine import new_game as start
from zloutch.engine.record import roll
from zloutch.rules import PRESETS, load_rules, score_table


def play_games(spec: str, games: int, seed: int) -> tuple[int, int, float]:
    rules = load_rules(spec)
    score_table(rules)  # built once, outside the timing
    rng = random.Random(seed)
    actions = 0
    turns = 0
    begin = time.perf_counter()
    for _ in range(games):
        state = start(rules, ["Ana", "Bob"])
        while not is_terminal(state):
            if current_player(state) == CHANCE:
                action = roll(state, rng)
            else:
                options = legal_actions(state)
                action = Bank() if Bank() in options and rng.random() < 0.6 else rng.choice(options)
            state = apply(state, action)
            actions += 1
        turns += state.turns
    return actions, turns, time.perf_counter() - begin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games per preset (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args()
    print(
        f"{'preset':16} {'games':>6} {'actions':>9} {'turns':>7} {'actions/s':>10} {'games/s':>8}"
    )
    for preset in PRESETS:
        games = args.games
        actions, turns, seconds = play_games(preset, games, args.seed)
        print(
            f"{preset:16} {games:>6} {actions:>9} {turns:>7} "
            f"{actions / seconds:>10,.0f} {games / seconds:>8.1f}"
        )


if __name__ == "__main__":
    main()
