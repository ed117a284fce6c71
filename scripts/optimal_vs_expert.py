"""Head to head: the optimal bot (plays to win) against expert, or against itself blind.

Run: python scripts/optimal_vs_expert.py [--rules SPEC ...] [--games N] [--seed S]
         [--players N] [--opponent expert|blind] [--jobs J]

One optimal seat against ``players - 1`` opponents, seats rotating every game (game g starts
with seat g mod n, as ``zloutch simulate``); each game is drawn from the seed independently
(``game_rng``). ``blind``: the optimal bot as it played rule sets with a sheet history before
it looked a turn ahead (the sheet-blind model alone). Prints optimal's win rate with its 95%
Wilson interval and the fair share; ties count as a share. The game is solved first, or read
from the cache.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

from zloutch.app.solve import optimal_policy
from zloutch.app.store import load_game_solution
from zloutch.rules import load_rules
from zloutch.sim.runner import play_games, wilson
from zloutch.strategy.expert import ExpertBot
from zloutch.strategy.optimal import OptimalBot
from zloutch.strategy.policy import Policy


def _chunk(spec: str, players: int, opponent: str, seed: int, start: int, stop: int) -> float:
    rules = load_rules(spec)
    policies: list[Policy] = [OptimalBot(load_game_solution)]
    for _ in range(players - 1):
        if opponent == "blind":
            policies.append(OptimalBot(load_game_solution, look_ahead=False))
        else:
            policies.append(ExpertBot())
    tally = play_games(rules, policies, seed, start, stop)
    return tally.per_player[0].wins


def match(spec: str, games: int, seed: int, players: int, opponent: str, jobs: int) -> None:
    rules = load_rules(spec)
    words, _ = optimal_policy(rules, players)
    begin = time.perf_counter()
    size = max(1, games // (jobs * 8))
    bounds = [(s, min(games, s + size)) for s in range(0, games, size)]
    with ProcessPoolExecutor(jobs) as pool:
        runs = [
            pool.submit(_chunk, spec, players, opponent, seed, start, stop)
            for start, stop in bounds
        ]
        wins = sum(run.result() for run in runs)
    low, high = wilson(wins, games)
    print(
        f"{spec} ({players} players, one optimal against {opponent}): optimal wins "
        f"{100 * wins / games:.2f}% [{100 * low:.2f}, {100 * high:.2f}] of {games} games "
        f"(fair share {100 / players:.2f}%), seed {seed}, {time.perf_counter() - begin:.0f} s"
        f"\n  optimal plays {words}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", nargs="*", default=["greed", "cinq-mille"])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", choices=("expert", "blind"), default="expert")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    for spec in args.rules:
        match(spec, args.games, args.seed, args.players, args.opponent, args.jobs)


if __name__ == "__main__":
    main()
