"""Regenerate the figures of docs/strategy.md: the thresholds table and the value plot.

Run: python scripts/strategy_figures.py [FILE]   (needs matplotlib: pip install -e '.[plot]')
Prints the markdown table and writes docs/strategy-dix-mille.png (or FILE, .png or .svg).
The drawing itself lives in ``zloutch.adapters.plots`` (``zloutch plot values`` draws it too).
"""

from __future__ import annotations

import sys
from pathlib import Path

from zloutch.rules import PRESETS, load_rules
from zloutch.strategy.turn_solver import (
    Situation,
    farkle_probabilities,
    solve_average_reward,
    solve_turn,
)

OUT = Path(__file__).resolve().parent.parent / "docs" / "strategy-dix-mille.png"


def table() -> None:
    print("| preset | E[turn] | bank at, by dice in hand: 1 | 2 | 3 | 4 | 5 | 6 |")
    print("|---|---|---|---|---|---|---|---|")
    for preset in PRESETS:
        rules = load_rules(preset)
        solution = solve_turn(rules, Situation(True, 0))
        cells = []
        for n in range(1, 7):
            if n > rules.dice:
                cells.append("")
                continue
            t = solution.thresholds()[n]
            cells.append("never" if t is None else str(t))
        print(f"| {preset} | {solution.expected_turn:.1f} | " + " | ".join(cells) + " |")
    zilch = solve_average_reward(load_rules("zilch"))
    print(f"\nzilch long-run average: {zilch.average:.3f}")
    fp = farkle_probabilities(load_rules("farkle-minimal"))
    print("farkle probabilities:", {n: str(p) for n, p in fp.items()})


def plot(out: Path = OUT) -> None:
    """The value plot: drawn by ``zloutch.adapters.plots`` (also ``zloutch plot values``)."""
    from zloutch.adapters.plots import turn_solution, turn_values_figure

    rules = load_rules("dix-mille")
    picture = turn_values_figure(turn_solution(rules), max_total=3000)
    picture.save(str(out))
    print(f"wrote {out}")


if __name__ == "__main__":
    table()
    plot(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
