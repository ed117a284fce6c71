"""Pictures of strategies and simulations, as PNG or SVG files (``zloutch plot``).

Each picture is computed as data first (``policy_grid``, ``game_thresholds``,
``zloutch.sim.turns.simulate_turns``, ``simulation_document``: plain values a test can check
against the solvers), then drawn into a matplotlib ``Figure`` (never pyplot, so never a window
and no global state) with a title, axis labels and a caption that names the rule spec, and written
by ``Picture.save`` in the format of the file's suffix.

matplotlib is the optional extra ``plot``: it is imported only when a figure is drawn, and
its absence is a ``PlotError`` that says how to install it.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from zloutch.rules import RuleSet, ZloutchError
from zloutch.sim.turns import TurnScores
from zloutch.strategy.game_solver import GameSolution, PairSolutions
from zloutch.strategy.turn_solver import Hand, Situation, SituationError, TurnSolution, solve_turn
from zloutch.strategy.turn_solver import check_score as check_turn_score

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from zloutch.app.review import Review

FORMATS = {".png": "png", ".svg": "svg"}
"""The picture formats, by file suffix."""

THROW, BANK, NO_BANK = 0, 1, 2
"""The cells of a policy map: throwing is better, banking is best, the rules forbid banking."""

POLICY_COLOURS = ("#4c72b0", "#dd8452", "#d9d9d9")
POLICY_LABELS = ("throw again", "bank", "cannot bank (the rules forbid it)")
TOLERANCE = 1e-9
"""Banking is best when it is worth at least the throw less this (as ``thresholds()``)."""


class PlotError(ZloutchError):
    """A picture that cannot be drawn as asked (no matplotlib, a bad file name or input)."""


def output_format(path: str) -> str:
    """The format of a picture file, from its suffix: ``png`` or ``svg``."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise PlotError(f"cannot write a picture to {path!r}: name the file .png or .svg")
    return FORMATS[suffix]


def dice_label(n: int, rules: RuleSet) -> str:
    words = "1 die" if n == 1 else f"{n} dice"
    return f"{words} (full hand)" if n == rules.dice else words


def hand_of(rules: RuleSet, n: int) -> Hand:
    """The decision node with ``n`` dice to throw next (all of them: a full hand)."""
    return Hand(0) if n == rules.dice else Hand(n)


# ---------------------------------------------------------------------------- drawing


@dataclass
class Picture:
    """A drawn figure with the words that describe it (also written into the file)."""

    figure: Figure
    title: str
    caption: str

    def texts(self) -> list[str]:
        """Every piece of text drawn on the figure (titles, labels, ticks, legends)."""
        from matplotlib.text import Text

        found = self.figure.findobj(Text)
        return [t.get_text() for t in found if isinstance(t, Text) and t.get_text()]

    def save(self, path: str, dpi: int = 110) -> None:
        """Write the picture, whole or not at all (``app.files.atomic_file``: a temporary
        file in the same folder, renamed onto the picture once it is on the disk; the file
        that was there stays when the write fails); the format comes from the suffix."""
        import matplotlib

        from zloutch.app.files import UnwritableFileError, atomic_file

        fmt = output_format(path)
        metadata: dict[str, Any] = {"Title": self.title, "Description": self.caption}
        if fmt == "svg":
            metadata["Date"] = None  # the same picture gives the same file
        # SVG text stays text (searchable, readable by screen readers), not outlines.
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "zloutch"}):
            try:
                with atomic_file(path) as handle:
                    self.figure.savefig(handle, format=fmt, dpi=dpi, metadata=metadata)
            except UnwritableFileError as exc:
                raise PlotError(str(exc)) from None


def require_matplotlib() -> None:
    """Raise the install hint when matplotlib cannot be imported (before any figure code)."""
    try:
        import matplotlib.figure  # noqa: F401
    except ImportError:
        raise PlotError(
            "drawing pictures needs matplotlib: install zloutch[plot] (pip install 'zloutch[plot]')"
        ) from None


def new_picture(title: str, caption: str, width: float, height: float) -> Picture:
    """An empty figure with its title and its caption (wrapped under the plots)."""
    require_matplotlib()
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    figure.suptitle(title, fontsize=12)
    lines = textwrap.wrap(caption, width=int(width * 15))
    figure.text(0.01, 0.01, "\n".join(lines), fontsize=8, ha="left", va="bottom", color="0.25")
    bottom = min(0.4, (0.16 * len(lines) + 0.08) / height)
    engine: Any = figure.get_layout_engine()
    engine.set(rect=(0, bottom, 1, 1 - bottom))
    return Picture(figure, title, caption)


# ---------------------------------------------------------------------------- policy map


@dataclass(frozen=True)
class PolicyGrid:
    """Bank or throw at each turn total (points) and number of dice to throw next."""

    rules: RuleSet
    totals: tuple[int, ...]
    dice: tuple[int, ...]
    """The dice counts drawn (those whose plain hand is a state of the turn graph)."""
    cells: npt.NDArray[np.int64]
    """``cells[i, j]``: ``THROW``, ``BANK`` or ``NO_BANK`` for ``dice[i]`` at ``totals[j]``."""
    thresholds: dict[int, int | None]
    """The solver's thresholds (``TurnSolution.thresholds``), by dice in hand."""

    def first_bank(self, n: int) -> int | None:
        """The smallest total drawn where banking is best with ``n`` dice in hand."""
        row = self.cells[self.dice.index(n)]
        found = np.flatnonzero(row == BANK)
        return self.totals[int(found[0])] if len(found) else None


def check_mappable(rules: RuleSet) -> None:
    """Refuse the rule sets whose decisions depend on more than the dice in hand.

    Those whose turn graph tracks the dice set aside (V-6, V-7: ``Variants.across_throws``).
    """
    if rules.variants.across_throws:
        raise PlotError(
            f"{rules.spec}: with combinations across throws (V-6, V-7) the best play depends "
            "on the dice already set aside, not only on how many are left, so there is no "
            "map by dice in hand"
        )


def default_max_total(rules: RuleSet, thresholds: dict[int, int | None]) -> int:
    """Wide enough to show every threshold short of a full hand, in round 500s."""
    finite = [t for n, t in thresholds.items() if t is not None and n < rules.dice]
    top = max(finite, default=2000)
    return max(1500, math.ceil(1.25 * top / 500) * 500)


def policy_grid(solution: TurnSolution, max_total: int | None = None) -> PolicyGrid:
    """Classify every (dice in hand, turn total) of a solved turn: bank, throw, or no bank.

    Works for the turn solver (expected points) and for the game solver's turn at a pair of
    scores (``PairSolutions.turn``: win probabilities) alike.
    """
    rules, unit = solution.rules, solution.unit
    thresholds = solution.thresholds()
    if max_total is None:
        max_total = default_max_total(rules, thresholds)
    if max_total < unit:
        raise PlotError(f"--max-total must be at least {unit} (the smallest score step)")
    top = min(max_total // unit, solution.rows - 1)
    totals = tuple(t * unit for t in range(1, top + 1))
    if not totals:
        raise PlotError("no turn total is left to draw: the target is reached")
    check_mappable(rules)
    dice = [n for n in range(1, rules.dice + 1) if hand_of(rules, n) in solution.model.column]
    cells = np.empty((len(dice), len(totals)), dtype=np.int64)
    for i, n in enumerate(dice):
        hand = hand_of(rules, n)
        throw = solution.model.throw_of(hand)
        for j, total in enumerate(totals):
            if not solution.can_bank(total, hand):
                cells[i, j] = NO_BANK
            elif solution.bank_value(total) >= solution.value(total, throw) - TOLERANCE:
                cells[i, j] = BANK
            else:
                cells[i, j] = THROW
    return PolicyGrid(rules, totals, tuple(dice), cells, thresholds)


def policy_figure(grid: PolicyGrid, *, title: str, caption: str) -> Picture:
    """The policy map: turn total across, dice in hand up, one colour per decision."""
    require_matplotlib()
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    picture = new_picture(title, caption, 10, 1.6 + 0.55 * len(grid.dice))
    ax = picture.figure.subplots()
    unit = grid.rules.unit
    x = np.asarray([*grid.totals, grid.totals[-1] + unit], dtype=np.float64) - unit / 2
    y = np.arange(len(grid.dice) + 1, dtype=np.float64) + 0.5
    ax.pcolormesh(x, y, grid.cells, cmap=ListedColormap(list(POLICY_COLOURS)), vmin=-0.5, vmax=2.5)
    ax.set_yticks(range(1, len(grid.dice) + 1), [dice_label(n, grid.rules) for n in grid.dice])
    ax.set_xlabel("turn total (points kept so far this turn)")
    ax.set_ylabel("dice to throw next")
    for i, n in enumerate(grid.dice):
        found = grid.first_bank(n)
        threshold = grid.thresholds.get(n)
        if found is not None:
            ax.annotate(
                f" bank from {found}",
                (found - unit / 2, i + 1),
                ha="left",
                va="center",
                fontsize=8,
                color="black",
            )
        else:
            if (grid.cells[i] == NO_BANK).all():
                words = "the rules never allow banking here"
            elif threshold is None:
                words = "never bank: throwing on is always better"
            else:
                words = f"bank from {threshold} (off the map)"
            ax.annotate(
                f"{words} ", (x[-1], i + 1), ha="right", va="center", fontsize=8, color="black"
            )
    handles = [Patch(color=c, label=w) for c, w in zip(POLICY_COLOURS, POLICY_LABELS, strict=True)]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return picture


# ---------------------------------------------------------------------------- turn values


def turn_values_figure(
    solution: TurnSolution, *, max_total: int = 3000, title: str = "", caption: str = ""
) -> Picture:
    """Expected points banked by throwing on, by turn total and dice in hand, against banking."""
    rules, unit = solution.rules, solution.unit
    title = title or f"{rules.name}: throwing on versus banking, by dice in hand"
    caption = caption or (
        f"rules: {rules.spec}; entered player, turn-optimal play (turn solver: expected points)."
    )
    check_mappable(rules)
    picture = new_picture(title, caption, 8, 5.2)
    ax = picture.figure.subplots()
    top = min(max_total // unit, solution.rows - 1)
    totals = [t * unit for t in range(top + 1)]
    hands = [hand_of(rules, n) for n in range(1, rules.dice + 1)]
    for n, hand in enumerate(hands, start=1):
        throw = solution.model.throw_of(hand)
        values = [solution.value(t, throw) for t in totals]
        ax.plot(totals, values, label=f"throw {dice_label(n, rules)}")
    # Banking is drawn only where the rules allow it (T-6's multiples, T-7's entry...): a
    # gap elsewhere, as the policy map greys those totals (it read "bank now" at 250 of
    # dix-mille, where no bank is allowed)
    banks = [
        float(t)
        if any(solution.can_bank(t, h) for h in hands if h in solution.model.column)
        else float("nan")
        for t in totals
    ]
    forbidden = any(math.isnan(b) for t, b in zip(totals, banks, strict=True) if t > 0)
    label = "bank now (gaps: no bank allowed)" if forbidden else "bank now"
    ax.plot(totals, banks, "k--", linewidth=1, marker=".", markersize=4, label=label)
    ax.set_xlabel("turn total (points)")
    ax.set_ylabel("expected points banked by the turn")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return picture


# ---------------------------------------------------------------------------- game thresholds


@dataclass(frozen=True)
class ThresholdMap:
    """The game solver's banking thresholds at the start of a turn, by both banked scores."""

    rules: RuleSet
    unit: int
    scores: tuple[int, ...]
    """The banked scores (points) of both axes: 0 up to the target, less one step."""
    thresholds: dict[int, npt.NDArray[np.float64]]
    """``thresholds[n][a, b]``: the smallest turn total (points) at which banking is best
    with ``n`` dice in hand, for the player at score index ``a`` against ``b``; NaN: never."""
    first_player: float


def game_thresholds(
    solution: GameSolution,
    dice: Sequence[int] | None = None,
    *,
    batch: int = 4_000_000,
    progress: Callable[[int, int], None] | None = None,
) -> ThresholdMap:
    """Every score pair's banking thresholds, the turns solved many pairs at once.

    The same numbers as ``PairSolutions(solution).turn(a, b).thresholds()`` pair by pair, in
    batches of pairs through the solver's kernel (``batch``: values per batch, for memory;
    ``progress(pairs done, pairs)`` after each batch).
    """
    rules, unit, T = solution.rules, solution.unit, solution.target
    pairs = PairSolutions(solution)
    game, tables = pairs.game, pairs.game.tables
    index = {hand: i for i, hand in enumerate(game.hands)}
    counts = list(dice) if dice is not None else list(range(1, rules.dice + 1))
    for n in counts:
        if not 1 <= n <= rules.dice:
            raise PlotError(f"--dice must be between 1 and {rules.dice} for {rules.spec}, not {n}")
    check_mappable(rules)
    wanted = [(n, index[hand_of(rules, n)]) for n in counts if hand_of(rules, n) in index]
    result = {n: np.full((T, T), np.nan) for n, _ in wanted}
    a_all, b_all = (g.ravel() for g in np.meshgrid(np.arange(T), np.arange(T), indexing="ij"))
    height = game.rows(0)
    step = max(1, batch // (height * tables.columns))
    for start in range(0, T * T, step):
        a = a_all[start : start + step].astype(np.int64)
        b = b_all[start : start + step].astype(np.int64)
        rows, bank, same, farkle, boundary = pairs.inputs(a, b)
        values, _ = game.run(rows, bank, same, farkle, np.ones(len(a)), boundary)
        t = np.arange(values.shape[1])[None, :]
        for n, h in wanted:
            throw = values[:, :, tables.hand_throw_col[h]]
            worth = np.where(same[:, :, h], farkle[:, None], bank[:, :, h])
            best = np.isfinite(bank[:, :, h]) & (t >= 1) & (worth >= throw - TOLERANCE)
            found = best.any(axis=1)
            first = best.argmax(axis=1)
            result[n][a[found], b[found]] = first[found] * unit
        if progress is not None:
            progress(min(start + step, T * T), T * T)
    scores = tuple(s * unit for s in range(T))
    return ThresholdMap(rules, unit, scores, result, solution.first_player)


def threshold_figure(tmap: ThresholdMap, *, title: str, caption: str) -> Picture:
    """One heat map per dice count: my score across, the opponent's up, colour the threshold."""
    panels = sorted(tmap.thresholds)
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    picture = new_picture(title, caption, max(7.5, 4.3 * cols + 0.4), 3.7 * rows + 1.0)
    axes = np.atleast_1d(picture.figure.subplots(rows, cols, squeeze=False)).ravel()
    edges = np.asarray([*tmap.scores, tmap.scores[-1] + tmap.unit], dtype=np.float64)
    for ax, n in zip(axes, panels, strict=False):
        data = np.ma.masked_invalid(tmap.thresholds[n].T)  # rows: the opponent's score
        low, high, top = colour_range(data.compressed())
        cmap = _colormap("viridis", bad="#d9d9d9")
        # rasterized: a cell a score pair made a 3.5 MB SVG of 200,000 paths (greed)
        mesh = ax.pcolormesh(edges, edges, data, cmap=cmap, vmin=low, vmax=high, rasterized=True)
        if data.count():
            bar = picture.figure.colorbar(mesh, ax=ax, extend="max" if top > high else "neither")
            bar.set_label("bank from this turn total", fontsize=8)
        ax.set_title(f"{dice_label(n, tmap.rules)} in hand", fontsize=10)
        ax.set_xlabel("my banked score")
        ax.set_ylabel("opponent's banked score")
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    return picture


def colour_range(values: npt.NDArray[np.float64]) -> tuple[float, float, float]:
    """The colour scale of a heat map: (low, high, largest value).

    It stops at the 95th percentile, so that a corner of huge thresholds (far behind, near
    the end) does not flatten the rest; the colour bar then ends in an arrow.
    """
    if not len(values):
        return 0.0, 1.0, 1.0
    low, top = float(values.min()), float(values.max())
    high = float(np.percentile(values, 95))
    return low, (high if high > low else top), top


def _colormap(name: str, bad: str) -> Any:
    from matplotlib import colormaps

    return colormaps[name].with_extremes(bad=bad)


# ---------------------------------------------------------------------------- turn scores


def turn_scores_figure(
    rules: RuleSet,
    scores: Sequence[TurnScores],
    *,
    width: int | None = None,
    solved_mean: float | None = None,
    title: str,
    caption: str,
) -> Picture:
    """The distribution of points banked per turn, one step line per policy."""
    width = width or 2 * rules.unit
    every = np.concatenate(
        [np.repeat(list(s.counts), list(s.counts.values())) for s in scores] or [np.zeros(0)]
    )
    top = float(np.percentile(every, 99.5)) if len(every) else float(width)
    bins = max(2, math.ceil(top / width) + 1)
    edges = (np.arange(bins + 1, dtype=np.float64) - 0.5) * width
    picture = new_picture(title, caption, 9, 5.4)
    ax = picture.figure.subplots()
    colours = [f"C{i}" for i in range(len(scores))]
    for s, colour in zip(scores, colours, strict=True):
        shares = 100 * s.histogram(edges)
        label = (
            f"{s.policy}: mean {s.mean:,.0f} ± {1.96 * s.stderr:,.0f}, "
            f"farkles {s.farkles / max(s.turns, 1):.1%}"
        )
        if s.instant_wins:
            label += f", instant wins {s.instant_wins / s.turns:.2%}"
        ax.stairs(shares, edges, color=colour, linewidth=1.6, label=label)
        ax.axvline(s.mean, color=colour, linestyle=":", linewidth=1)
    if solved_mean is not None:
        ax.axvline(
            solved_mean,
            color="black",
            linestyle="--",
            linewidth=1,
            label=f"turn solver's exact mean for expert play: {solved_mean:,.1f}",
        )
    ax.set_xlim(edges[0], edges[-1])
    ax.set_xlabel(f"points banked by the turn (0: farkle; bins of {width} points)")
    ax.set_ylabel("share of turns (%)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    return picture


# ---------------------------------------------------------------------------- win rates


def simulation_document(text: str, source: str) -> dict[str, Any]:
    """A ``zloutch simulate --json`` result, checked for what the win-rate picture needs."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PlotError(f"{source} is not JSON: {exc.msg} (line {exc.lineno})") from None
    what = f"{source} is not a result of zloutch simulate --json"
    if not isinstance(document, dict):
        raise PlotError(f"{what}: it is not a JSON object")
    for key, kind in (("rules", str), ("players", list), ("seats", list), ("games", int)):
        if not isinstance(document.get(key), kind):
            raise PlotError(f"{what}: {key!r} is missing or of the wrong type")
    for group, name in (("players", "name"), ("seats", "seat")):
        if not document[group]:
            raise PlotError(f"{what}: {group!r} is empty")
        for entry in document[group]:
            ci = entry.get("win_rate_ci95") if isinstance(entry, dict) else None
            ok = (
                isinstance(entry, dict)
                and name in entry
                and isinstance(entry.get("win_rate"), int | float)
                and isinstance(ci, list)
                and len(ci) == 2
                and all(isinstance(x, int | float) for x in ci)
            )
            if not ok:
                raise PlotError(f"{what}: an entry of {group!r} lacks {name}, win_rate or ci")
    return document


def winrates_figure(document: dict[str, Any], *, title: str, caption: str) -> Picture:
    """Win rates with their 95% intervals: by player (strategy) and by seat."""
    players, seats = document["players"], document["seats"]
    picture = new_picture(title, caption, 10, 5)
    left, right = picture.figure.subplots(1, 2, width_ratios=[max(len(players), 2), len(seats)])
    colours = [f"C{i}" for i in range(len(players))]
    _rate_bars(left, [str(p["name"]) for p in players], players, colours)
    left.set_title("by player", fontsize=10)
    left.set_xlabel("player (strategy)")
    _rate_bars(right, [str(s["seat"]) for s in seats], seats, ["0.55"] * len(seats))
    right.set_title("by seat (seat 1 plays first)", fontsize=10)
    right.set_xlabel("seat")
    return picture


def lineup(document: dict[str, Any]) -> str:
    """The players of a simulation result, in words: ``expert against threshold:300``."""
    return " against ".join(str(p["name"]) for p in document["players"])


def first_player_figure(documents: list[dict[str, Any]], *, title: str, caption: str) -> Picture:
    """Seat 1's win rate with its 95% interval, one row per simulation (its rules), the
    fair share dashed: how the first player's edge moves from one rule set to another."""
    picture = new_picture(title, caption, 9, 1.6 + 0.42 * len(documents))
    ax = picture.figure.subplots()
    labels = [str(d["rules"]) for d in documents]
    if len({lineup(d) for d in documents}) > 1:  # the players differ: each row says whose
        labels = [f"{label}\n{lineup(d)}" for label, d in zip(labels, documents, strict=True)]
    seats = [d["seats"][0] for d in documents]
    rates = np.asarray([100 * s["win_rate"] for s in seats])
    low = np.asarray([100 * s["win_rate_ci95"][0] for s in seats])
    high = np.asarray([100 * s["win_rate_ci95"][1] for s in seats])
    where = np.arange(len(documents))[::-1]
    errors = np.vstack([np.maximum(rates - low, 0), np.maximum(high - rates, 0)])
    ax.errorbar(rates, where, xerr=errors, fmt="o", color="C0", ecolor="black", capsize=4)
    for y, rate, top in zip(where, rates, high, strict=True):
        ax.annotate(f" {rate:.2f}%", (top, y), va="center", fontsize=8)
    fair = 100 / len(documents[0]["seats"])
    ax.axvline(fair, color="0.3", linestyle="--", linewidth=1, label=f"fair share {fair:g}%")
    ax.set_yticks(where, labels, fontsize=8)
    ax.set_xlabel("seat 1's win rate (%), 95% interval")
    lowest, highest = min(float(low.min()), fair), max(float(high.max()), fair)
    span = highest - lowest
    ax.set_xlim(lowest - 0.1 * span, highest + 0.35 * span)
    # a free row below the last for the legend: in the corner it hid that row's figure
    ax.set_ylim(-1.1, len(documents) - 0.4)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    return picture


def _rate_bars(
    ax: Axes, labels: list[str], entries: list[dict[str, Any]], colours: list[str]
) -> None:
    n = len(entries)
    rates = np.asarray([100 * e["win_rate"] for e in entries])
    low = np.asarray([100 * e["win_rate_ci95"][0] for e in entries])
    high = np.asarray([100 * e["win_rate_ci95"][1] for e in entries])
    where = np.arange(len(entries))
    errors = np.vstack([np.maximum(rates - low, 0), np.maximum(high - rates, 0)])
    ax.bar(where, rates, color=colours, alpha=0.85)
    ax.errorbar(where, rates, yerr=errors, fmt="none", ecolor="black", capsize=5)
    for x, rate, top in zip(where, rates, high, strict=True):
        # above the cap, on white: neither the whisker nor the fair-share line runs through
        ax.annotate(
            f"{rate:.1f}%",
            (x, top),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=8,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1, "alpha": 0.9},
            zorder=3,
        )
    ax.axhline(100 / n, color="0.3", linestyle="--", linewidth=1, label=f"fair share 1/{n}")
    # tilted where they would run into each other: a long name, or many players (eight
    # short names, "expert #1expert #2...", were one unreadable line)
    crowded = max(map(len, labels)) > 10 or sum(len(label) + 2 for label in labels) > 60
    ax.set_xticks(where, labels, rotation=25 if crowded else 0, ha="right" if crowded else "center")
    ax.set_ylabel("win rate (%), 95% interval")
    ax.set_ylim(0, min(100, max(float(high.max()), 100 / n) * 1.15 + 2))
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(axis="y", alpha=0.3)


def turn_solution(rules: RuleSet, entered: bool = True, score: int = 0) -> TurnSolution:
    """The turn solver's solution for a player with this banked score (entered or not)."""
    check_score(rules, score, "--score")
    return solve_turn(rules, Situation.normalise(rules, entered, score))


def check_score(rules: RuleSet, score: int, option: str) -> None:
    """A banked score a turn is played from (``turn_solver.check_score``: in the rule set's
    steps, below the target), from 0: what a plot's axes start at."""
    try:
        check_turn_score(rules, score)
    except SituationError as exc:
        raise PlotError(f"{option} {score}: {exc}") from None
    if score < 0:
        raise PlotError(f"{option} {score}: the plots start at a score of 0")


# ---------------------------------------------------------------------------- a game's curve


def curve_positions(review: Review) -> list[float]:
    """Where each point of the curve sits on a turn axis: the moves of a turn spread over it."""
    counts: dict[int, int] = {}
    for p in review.curve:
        counts[p.turn] = counts.get(p.turn, 0) + 1
    seen: dict[int, int] = {}
    positions = []
    for p in review.curve:
        i = seen.get(p.turn, 0)
        seen[p.turn] = i + 1
        positions.append(p.turn + i / counts[p.turn])
    return positions


def review_figure(review: Review) -> Picture:
    """The curve of a reviewed game (win probability, or expected score), mistakes marked."""
    require_matplotlib()
    from matplotlib.ticker import MaxNLocator

    from zloutch.app.review import WIN

    model = (  # the text review's header says it; the picture alone said nothing
        " through the game's sheet-blind model (its ticks, bumps and take-backs valued one "
        "turn ahead)"
        if review.sheet_blind
        else ""
    )
    picture = new_picture(
        f"{review.curve_measure.capitalize()} before each move",
        f"rules: {review.rules}. Players: {', '.join(review.players)}. Graded in "
        f"{review.objective}{model}; x marks a mistake.",
        9,
        4.8,
    )
    axes = picture.figure.subplots()
    x = curve_positions(review)
    where = {p.number: i for i, p in enumerate(review.curve)}
    for seat, name in enumerate(review.players):
        y = [p.values[seat] for p in review.curve]
        (line,) = axes.step(x, y, where="post", label=name)
        marks = [where[d.number] for d in review.mistakes() if d.seat == seat]
        if marks:
            axes.plot(
                [x[i] for i in marks], [y[i] for i in marks], "x", color=line.get_color(), ms=7
            )
    if review.objective == WIN:
        axes.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        axes.set_ylim(0, 1)
        axes.yaxis.set_major_formatter(lambda v, _: f"{100 * v:.0f}%")
        axes.set_ylabel("chance to win")
    else:
        axes.axhline(review.target, color="grey", linewidth=0.8, linestyle="--")
        axes.set_ylabel("expected score (points)")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("turn")
    axes.legend(loc="best")
    axes.grid(alpha=0.3)
    return picture
