"""Play many complete games of given policies and count what happened.

The pure core of ``zloutch simulate``: no printing, no files. Every game is seeded from
``(seed, game index)`` alone, and seats rotate by the game index (game ``g`` seats player
``(s + g) mod n`` in seat ``s``), so the result of a range of games does not depend on how the
range is cut into chunks, nor on how many processes play them (see ``zloutch.sim.parallel``).

Counts are kept in a ``Tally`` (mutable, mergeable, picklable); ``summarise`` turns a tally
into a ``SimulationResult`` (frozen, with ``to_json``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from zloutch.engine import (
    CHANCE,
    Action,
    GameState,
    current_player,
    is_terminal,
    new_game,
    step,
    step_legal,
)
from zloutch.engine.events import Banked, Bumped, Farkled, Penalised, Ticked, TookBack
from zloutch.engine.rollout import sample_roll
from zloutch.rules import RuleSet, ZloutchError
from zloutch.strategy.policy import Policy

MAX_TURNS = 5000
"""A game still going after this many turns (all players together) is stopped, unfinished."""

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


class SimulationError(ZloutchError):
    """A simulation that cannot be run as asked (no games, too few players...)."""


def game_rng(seed: int, game: int) -> random.Random:
    """The random generator of game ``game`` of a simulation seeded with ``seed``.

    Seeding with a string hashes it with SHA-512 (not Python's salted ``hash``), so it is the
    same in every process and on every run.
    """
    return random.Random(f"zloutch-sim:{seed}:{game}")


def seating(players: int, game: int) -> tuple[int, ...]:
    """The player in each seat of game ``game``: seat ``s`` holds ``(s + game) mod n``."""
    r = game % players
    return tuple((s + r) % players for s in range(players))


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (successes may be fractional: shared wins)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    # every game won (or none): the bound is 1 (0) exactly, not 0.9999999999999999
    low = 0.0 if successes <= 0 else max(0.0, centre - half)
    high = 1.0 if successes >= trials else min(1.0, centre + half)
    return (low, high)


def player_labels(names: Sequence[str]) -> tuple[str, ...]:
    """Unique labels for the players: a policy named twice becomes ``name #1``, ``name #2``."""
    labels: list[str] = []
    for i, name in enumerate(names):
        if names.count(name) > 1:
            labels.append(f"{name} #{names[:i].count(name) + 1}")
        else:
            labels.append(name)
    return tuple(labels)


# ---------------------------------------------------------------------------- counting


@dataclass
class PlayerTally:
    """What one player did, summed over games (mutable; merged across chunks)."""

    wins: float = 0.0
    score: int = 0
    turns: int = 0
    farkles: int = 0
    ticks: int = 0
    bumps: int = 0
    bumped: int = 0
    take_backs: int = 0
    penalties: int = 0
    banks: dict[int, int] = field(default_factory=dict)
    """Number of banks by turn total banked."""

    def merge(self, other: PlayerTally) -> None:
        self.wins += other.wins
        self.score += other.score
        self.turns += other.turns
        self.farkles += other.farkles
        self.ticks += other.ticks
        self.bumps += other.bumps
        self.bumped += other.bumped
        self.take_backs += other.take_backs
        self.penalties += other.penalties
        for total, count in other.banks.items():
            self.banks[total] = self.banks.get(total, 0) + count


@dataclass
class Tally:
    """The counts of a range of games; ``merge`` adds another range's."""

    players: int
    games: int = 0
    finished: int = 0
    turns: int = 0
    per_player: list[PlayerTally] = field(default_factory=list)
    seat_wins: list[float] = field(default_factory=list)
    seat_games: list[int] = field(default_factory=list)
    unfinished_games: list[int] = field(default_factory=list)
    """Indices of the games stopped at the turn limit."""

    def __post_init__(self) -> None:
        if not self.per_player:
            self.per_player = [PlayerTally() for _ in range(self.players)]
        if not self.seat_wins:
            self.seat_wins = [0.0] * self.players
        if not self.seat_games:
            self.seat_games = [0] * self.players

    def merge(self, other: Tally) -> None:
        if other.players != self.players:
            raise ValueError("cannot merge tallies of different player counts")
        self.games += other.games
        self.finished += other.finished
        self.turns += other.turns
        for mine, theirs in zip(self.per_player, other.per_player, strict=True):
            mine.merge(theirs)
        for s in range(self.players):
            self.seat_wins[s] += other.seat_wins[s]
            self.seat_games[s] += other.seat_games[s]
        self.unfinished_games.extend(other.unfinished_games)


_TALLIED = frozenset((Banked, Farkled, Ticked, Bumped, TookBack, Penalised))
"""The events a game's tally counts (``play_game``)."""


def play_game(
    rules: RuleSet,
    policies: Sequence[Policy],
    labels: Sequence[str],
    game: int,
    rng: random.Random,
    tally: Tally,
    *,
    max_turns: int = MAX_TURNS,
) -> GameState:
    """Play game ``game`` (its seating from its index) to the end, adding it to ``tally``."""
    n = len(policies)
    seats = seating(n, game)
    state = new_game(rules, [labels[p] for p in seats])
    who = tally.per_player
    while not is_terminal(state) and state.turns <= max_turns:
        actor = current_player(state)
        if actor == CHANCE:  # a roll of the dice in the air is legal: not checked again
            state, events = step_legal(state, sample_roll(state, rng))
        else:  # a bot's choice is checked: a bad bot raises the rule it breaks
            action: Action = policies[seats[actor]].choose(state, rng)
            state, events = step(state, action)
        for event in events:
            if type(event) not in _TALLIED:  # most events: thrown, kept, a turn started
                continue
            p = who[seats[event.player]]
            if isinstance(event, Banked):
                p.turns += 1
                p.banks[event.total] = p.banks.get(event.total, 0) + 1
            elif isinstance(event, Farkled):
                p.turns += 1
                p.farkles += 1
            elif isinstance(event, Ticked):
                p.ticks += 1
            elif isinstance(event, Bumped):
                p.bumps += 1
                who[seats[event.victim]].bumped += 1
            elif isinstance(event, TookBack):
                p.take_backs += 1
            elif isinstance(event, Penalised):
                p.penalties += 1
    tally.games += 1
    tally.turns += state.turns
    for s, sheet in enumerate(state.sheets):
        who[seats[s]].score += sheet.score
        tally.seat_games[s] += 1
    if is_terminal(state):
        tally.finished += 1
        share = 1.0 / len(state.winners) if state.winners else 0.0
        for s in state.winners:
            who[seats[s]].wins += share
            tally.seat_wins[s] += share
    else:
        tally.unfinished_games.append(game)
    return state


def play_games(
    rules: RuleSet,
    policies: Sequence[Policy],
    seed: int,
    start: int,
    stop: int,
    *,
    labels: Sequence[str] | None = None,
    max_turns: int = MAX_TURNS,
) -> Tally:
    """Play games ``start`` to ``stop - 1`` of a simulation seeded with ``seed``."""
    names = tuple(labels) if labels is not None else player_labels([p.name for p in policies])
    tally = Tally(len(policies))
    for g in range(start, stop):
        play_game(rules, policies, names, g, game_rng(seed, g), tally, max_turns=max_turns)
    return tally


def check_setup(rules: RuleSet, players: int, games: int) -> None:
    """Raise ``SimulationError`` (or the rules' own error) for a simulation that cannot run."""
    if games < 1:
        raise SimulationError(f"the number of games must be at least 1, not {games}")
    if players < 1:
        raise SimulationError("a simulation needs at least one player")
    new_game(rules, [f"p{i}" for i in range(players)])  # the rules' player count


# ---------------------------------------------------------------------------- results


@dataclass(frozen=True)
class PlayerStats:
    """One player's numbers over a simulation."""

    name: str
    policy: str
    games: int
    finished: int
    wins: float
    """Games won; a tie of k winners gives each 1/k."""
    win_rate: float
    """Wins over finished games."""
    win_low: float
    win_high: float
    """The 95% Wilson interval of the win rate."""
    average_score: float
    turns: int
    average_turns: float
    farkles: int
    farkle_rate: float
    ticks: int
    bumps: int
    """Levels of other players this player crossed by bumping them (G-4)."""
    bumped: int
    take_backs: int
    penalties: int
    banks: tuple[tuple[int, int], ...]
    """(turn total banked, number of banks), by total."""

    @property
    def average_bank(self) -> float:
        count = sum(c for _, c in self.banks)
        return sum(t * c for t, c in self.banks) / count if count else 0.0

    def bank_histogram(self, width: int = 100) -> tuple[tuple[int, int], ...]:
        """Banks by bins of ``width`` points: (bin start, number of banks)."""
        bins: dict[int, int] = {}
        for total, count in self.banks:
            start = (total // width) * width
            bins[start] = bins.get(start, 0) + count
        return tuple(sorted(bins.items()))

    def per_game(self, count: int) -> float:
        return count / self.games if self.games else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "policy": self.policy,
            "games": self.games,
            "finished": self.finished,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_ci95": [self.win_low, self.win_high],
            "average_score": self.average_score,
            "turns": self.turns,
            "average_turns": self.average_turns,
            "farkles": self.farkles,
            "farkle_rate": self.farkle_rate,
            "ticks": self.ticks,
            "bumps": self.bumps,
            "bumped": self.bumped,
            "take_backs": self.take_backs,
            "penalties": self.penalties,
            "per_game": {
                "ticks": self.per_game(self.ticks),
                "bumps": self.per_game(self.bumps),
                "bumped": self.per_game(self.bumped),
                "take_backs": self.per_game(self.take_backs),
                "penalties": self.per_game(self.penalties),
            },
            "average_bank": self.average_bank,
            "banks": {str(total): count for total, count in self.banks},
            "bank_histogram_100": {str(start): count for start, count in self.bank_histogram()},
        }


@dataclass(frozen=True)
class SeatStats:
    """How the player in one seat fared, whoever it was (seat 1 plays first)."""

    seat: int
    """1-based."""
    games: int
    wins: float
    win_rate: float
    win_low: float
    win_high: float
    advantage: float
    """Win rate minus the fair share 1/n."""

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_ci95": [self.win_low, self.win_high],
            "advantage": self.advantage,
        }


@dataclass(frozen=True)
class SimulationResult:
    """The result document of ``zloutch simulate``."""

    rules: str
    seed: int
    games: int
    finished: int
    unfinished: int
    unfinished_games: tuple[int, ...]
    max_turns: int
    average_turns: float
    """Turns per game, all players together."""
    players: tuple[PlayerStats, ...]
    seats: tuple[SeatStats, ...]
    method: str = "engine"
    """How the games were played: ``engine`` or ``fast`` (``zloutch.sim.fast``)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "method": self.method,
            "seed": self.seed,
            "games": self.games,
            "finished": self.finished,
            "unfinished": self.unfinished,
            "unfinished_games": list(self.unfinished_games[:100]),
            "max_turns": self.max_turns,
            "average_turns": self.average_turns,
            "seat_rotation": "game g seats player (s + g) mod n in seat s",
            "players": [p.to_json() for p in self.players],
            "seats": [s.to_json() for s in self.seats],
        }


def summarise(
    tally: Tally,
    rules: RuleSet,
    policies: Sequence[str],
    seed: int,
    *,
    labels: Sequence[str] | None = None,
    max_turns: int = MAX_TURNS,
    method: str = "engine",
) -> SimulationResult:
    """The result document of a tally."""
    names = tuple(labels) if labels is not None else player_labels(list(policies))
    n = tally.players
    games, finished = tally.games, tally.finished
    players = []
    for i, t in enumerate(tally.per_player):
        low, high = wilson(t.wins, finished)
        players.append(
            PlayerStats(
                name=names[i],
                policy=policies[i],
                games=games,
                finished=finished,
                wins=t.wins,
                win_rate=t.wins / finished if finished else 0.0,
                win_low=low,
                win_high=high,
                average_score=t.score / games if games else 0.0,
                turns=t.turns,
                average_turns=t.turns / games if games else 0.0,
                farkles=t.farkles,
                farkle_rate=t.farkles / t.turns if t.turns else 0.0,
                ticks=t.ticks,
                bumps=t.bumps,
                bumped=t.bumped,
                take_backs=t.take_backs,
                penalties=t.penalties,
                banks=tuple(sorted(t.banks.items())),
            )
        )
    seats = []
    for s in range(n):
        seat_finished = tally.seat_games[s] - len(tally.unfinished_games)
        wins = tally.seat_wins[s]
        rate = wins / seat_finished if seat_finished else 0.0
        low, high = wilson(wins, seat_finished)
        seats.append(SeatStats(s + 1, seat_finished, wins, rate, low, high, rate - 1 / n))
    return SimulationResult(
        rules=rules.spec,
        seed=seed,
        games=games,
        finished=finished,
        unfinished=games - finished,
        unfinished_games=tuple(sorted(tally.unfinished_games)),
        max_turns=max_turns,
        average_turns=tally.turns / games if games else 0.0,
        players=tuple(players),
        seats=tuple(seats),
        method=method,
    )
