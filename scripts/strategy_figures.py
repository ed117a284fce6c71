"""Regenerate the figures of docs/strategy.md: the thresholds table and the value plot.

Run: python scripts/strategy_figures.py   (needs matplotlib: pip install -e '.[plot]')
Prints the markdown table and writes docs/strategy-dix-mille.png.
"""

from __future__ import annotations

from pathlib import Path

from zloutch.rules import PRESETS, load_rules
from zloutch.strategy.turn_solver import (
    Hand,
    Situation,
    TurnModel,
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


def plot() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rules = load_rules("dix-mille")
    model = TurnModel(rules)
    solution = solve_turn(rules, Situation(True, 0), model=model)
    fig, ax = plt.subplots(figsize=(8, 5))
    totals = list(range(0, 3050, 50))
    for n in range(1, rules.dice + 1):
        hand = Hand(0) if n == rules.dice else Hand(n)
        throw = model.throw_of(hand)
        values = [solution.value(t, throw) for t in totals]
        ax.plot(totals, values, label=f"throw {n} dice" + (" (full hand)" if n == 5 else ""))
    ax.plot(totals, totals, "k--", linewidth=1, label="bank now")
    ax.set_xlabel("turn total (points)")
    ax.set_ylabel("expected points banked by the turn")
    ax.set_title("dix-mille: throwing on versus banking, by dice in hand")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.text(0.01, 0.01, f"rules: {rules.spec} (entered player, turn-optimal play)", fontsize=8)
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    table()
    plot()
