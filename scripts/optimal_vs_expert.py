"""Head to head: the optimal bot (plays to win) against expert (plays for points).

Run: python scripts/optimal_vs_expert.py [--rules SPEC ...] [--games N] [--seed S]

Seats alternate every game. Prints optimal's win rate with a 95% confidence interval
(normal approximation); ties count half. The game is solved first (or read from the cache).
"""

from __future__ import annotations

import argparse
import random
import time

from zloutch.app.solve import solved_game
from zloutch.engine import CHANCE, apply, current_player, is_terminal, new_game
from zloutch.engine.record import roll
from zloutch.rules import load_rules
from zloutch.strategy.expert import ExpertBot
from zloutch.strategy.optimal import OptimalBot


def match(spec: str, games: int, seed: int) -> None:
    rules = load_rules(spec)
    begin = time.perf_counter()
    solution, cached = solved_game(rules)
    solved = time.perf_counter() - begin
    bots = [OptimalBot(solution), ExpertBot()]
    rng = random.Random(seed)
    score = 0.0
    begin = time.perf_counter()
    for g in range(games):
        seats = [0, 1] if g % 2 == 0 else [1, 0]
        state = new_game(rules, ["A", "B"])
        while not is_terminal(state):
            p = current_player(state)
            action = roll(state, rng) if p == CHANCE else bots[seats[p]].choose(state, rng)
            state = apply(state, action)
        winners = [seats[w] for w in state.winners]
        if 0 in winners:
            score += 1 / len(winners)
    rate = score / games
    half = 1.96 * (rate * (1 - rate) / games) ** 0.5
    how = "cached" if cached else f"solved in {solved:.0f} s"
    played = time.perf_counter() - begin
    print(
        f"{spec:24} optimal wins {rate:.4f} ± {half:.4f} (95%) over {games} games "
        f"[{rate - half:.4f}, {rate + half:.4f}]; game {how}; play {played:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", nargs="*", default=["greed", "cinq-mille"])
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for spec in args.rules:
        match(spec, args.games, args.seed)


if __name__ == "__main__":
    main()
