"""Games per second of ``zloutch simulate``: the engine path against the fast path.

Run: python benchmarks/simulate.py [--players expert,threshold:300] [--engine-games N]
     [--fast-games M] [--jobs J] [--rules SPEC;SPEC...]

For each rule set the fast path can play (every preset, and dix-mille with its sheet
switched off beside the full one), or the rule sets of ``--rules`` (separated by ``;``), the
same line-up
plays N games through the engine (``--method engine``, J processes) and M games on the fast
path (``--method fast``, J threads). With ``optimal`` among the players, each rule set's
game (its model: ``solved_model``) is solved first, outside the timings, and both paths
play it from that solution. Both times include everything ``simulate`` does for those
games; the fast path's set-up (tables built, kernels loaded) is also shown on its own, and
its play rate without it. The ratio is of games per second measured in this one run
(the machine is shared and noisy: compare within a run).
"""

from __future__ import annotations

import argparse
import os
import time

from zloutch.rules import PRESETS, load_rules
from zloutch.sim import simulate
from zloutch.sim.fast import FastPathUnsupported, FastSimulator, fast_unsupported
from zloutch.strategy.game_solver import GameSolution, solve_game, solved_model

NO_SHEET = "dix-mille(ticks_to_cross=0,bump=off,take_back=false)"


def rule_sets() -> list[str]:
    specs = [p for p in PRESETS if fast_unsupported(load_rules(p)) is None]
    return [*specs, NO_SHEET]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="expert,threshold:300")
    parser.add_argument("--engine-games", type=int, default=200)
    parser.add_argument("--fast-games", type=int, default=200_000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default="", help="rule sets separated by ';'")
    args = parser.parse_args()
    players = [p.strip() for p in args.players.split(",")]
    specs = [r.strip() for r in args.rules.split(";") if r.strip()] or rule_sets()
    # Compile the kernels once, outside every timing (the cache makes later runs quick).
    simulate(load_rules("farkle-minimal"), ["greedy", "greedy"], 10, 0, method="fast")
    print(f"players: {','.join(players)}; jobs: {args.jobs}; cores: {os.cpu_count()}")
    header = (
        f"{'rules':54} {'engine g/s':>10} {'fast g/s':>10} {'set-up s':>9} "
        f"{'play g/s':>10} {'ratio':>7}"
    )
    print(header)
    for spec in specs:
        rules = load_rules(spec)
        solution: GameSolution | None = None
        if "optimal" in players:  # its model: dix-mille's sheet-blind one for its sheet
            solution = solve_game(solved_model(rules) or rules)
        common = {"jobs": args.jobs, "solutions": solution}
        try:
            FastSimulator(rules, players, solution)
        except FastPathUnsupported as error:
            print(f"{spec:54} (not on the fast path: {error})")
            continue
        begin = time.perf_counter()
        simulate(rules, players, args.engine_games, args.seed, method="engine", **common)
        engine_rate = args.engine_games / (time.perf_counter() - begin)
        begin = time.perf_counter()
        simulate(rules, players, args.fast_games, args.seed, method="fast", **common)
        fast_rate = args.fast_games / (time.perf_counter() - begin)
        begin = time.perf_counter()
        sim = FastSimulator(rules, players, solution)
        setup = time.perf_counter() - begin
        begin = time.perf_counter()
        sim.games.play(args.seed, 0, args.fast_games)
        play_rate = args.fast_games / (time.perf_counter() - begin)
        print(
            f"{spec:54} {engine_rate:>10,.1f} {fast_rate:>10,.0f} {setup:>9.2f} "
            f"{play_rate:>10,.0f} {fast_rate / engine_rate:>6,.0f}x"
        )


if __name__ == "__main__":
    main()
