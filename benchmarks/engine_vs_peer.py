"""The engine path against Farkle_II and against the plain engine: games per CPU-second.

Run: python benchmarks/engine_vs_peer.py [--games N] [--rounds R] [--seed S] [--peer PATH]

Every mode plays the same N two-player games of ``farkle`` (PlayMonster Farkle: six dice,
500 to enter, 10,000 with last turns, F-4) with the threshold:300 strategy on both seats
(keep the most points, the fewest dice on a tie; bank once the turn total reaches 300 and a
bank is legal, so 500 until entered), game ``g`` with the dice of ``random.Random(game_seed(seed,
g))`` (another ``--seed``, other games):

- ``engine``: the engine path: ``new_game``, ``legal_actions``, ``apply_legal`` (the action
  comes from ``legal_actions``: it is not validated again), rolls by ``sample_roll``;
- ``reference``: the same loop through the plain engine, the engine as it was before the fast
  path (``tests/engine/plain_engine.py``): ``apply`` validates every action and recomputes
  every derived fact, rolls by ``record.roll``;
- ``bot``: the engine as ``zloutch simulate --method engine`` plays it (``play_game``): the
  project's ``ThresholdBot(300)`` (``zloutch.strategy.bots``), its choices through ``step``
  (validated, with events), the rolls through ``step_legal`` (with events).

The dice and the choices are the same in every mode, so every game must end the same way:
the script checks it, game by game. The modes alternate in R rounds (N / R games each, the
order turned each round), so that a change of the machine's load falls on all of them.
Games per second are per CPU-second of this one process (``time.process_time``): one core.

Without ``--peer`` the peer's figure is stated (``PEER_FIGURE``, with the figure of this
engine path measured beside it, ``PEER_REFERENCE``), and the ratio against it is given twice:
against the stated figure, and against the peer as it would run under this run's load (the
stated ratio of the peer to the old engine path, times the old engine path measured now).
With ``--peer PATH`` (a checkout of Farkle_II; it is no package of any registry, and needs
NumPy, Numba, pandas, pyarrow, SciPy and PyYAML, which are) the peer is imported from
``PATH/src`` and timed in the same rounds, with its threshold strategy at 300 and no dice
condition, and the last column is the ratio against it: the figure to trust. With ``--floor``,
the floor of any engine built like this one is timed too (``floor_mode``): a move that builds
its two objects and applies no rule, as many moves a game as the engine plays.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from zloutch.engine import CHANCE, Action, Bank, GameState, Keep, Phase, Roll
from zloutch.engine import game as engine
from zloutch.engine.record import roll
from zloutch.engine.rollout import sample_roll
from zloutch.engine.state import done, game_draft, turn_done, turn_draft
from zloutch.rules import load_rules
from zloutch.sim.runner import wilson
from zloutch.strategy.bots import ThresholdBot

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "engine"))
import plain_engine  # the plain reference lives with the engine's tests

RULES = "farkle"
THRESHOLD = 300
PEER = "Farkle_II (github.com/Isaac-McPadden/Farkle_II, commit 0ae0f55 of 2026-08-21)"
PEER_FIGURE = (1_000, 1_280)
"""Games per second of Farkle_II on one core, two players, threshold 300 after entry: the
range measured in issue 15, alternating it with Zloutch in one run on this project's
development machine (2 cores)."""
PEER_REFERENCE = 165
"""Games per second of Zloutch's engine path (``--method engine``, threshold:300 bots),
measured beside ``PEER_FIGURE`` in the same run of issue 15: the old engine, before the fast
path."""
ISSUE_FIRST_PLAYER = 0.5300
"""The first player's share of wins in issue 15 (Zloutch's fast path, threshold:300 both)."""
ISSUE_TURNS = 42.1
"""Turns a game (both players together) in issue 15."""


@dataclass
class Mode:
    """One way of playing the games, and what it measured."""

    name: str
    play: Callable[[int], Any]
    """Plays game ``g`` and returns its end (compared across modes)."""
    seconds: float = 0.0
    games: int = 0
    ends: dict[int, Any] = field(default_factory=dict)

    @property
    def rate(self) -> float:
        return self.games / self.seconds if self.seconds else math.nan


def threshold_policy(
    legal_actions: Callable[[GameState], tuple[Action, ...]], reading: Callable[[GameState], Any]
) -> Callable[[GameState], Action]:
    """threshold:300 on ``farkle`` over an engine's ``legal_actions`` and ``throw_score``:
    the keep of most points with the fewest dice (the first keep of the reading: ``farkle``
    has no keep that wins), bank at 300 when legal, else throw (or what is legal)."""

    best: dict[tuple[int, ...], Action] = {}
    """The keep chosen from each throw: in ``farkle`` it depends on the throw alone."""

    def choose(state: GameState) -> Action:
        actions = legal_actions(state)
        phase = state.phase
        if phase is Phase.KEEP:
            throw = state.turn.throw
            found = best.get(throw)
            if found is None:
                dice = reading(state).keeps[0].dice
                found = next(a for a in actions if isinstance(a, Keep) and a.dice == dice)
                best[throw] = found
            return found
        if phase is Phase.DECIDE:
            if isinstance(actions[0], Bank) and state.turn.total >= THRESHOLD:
                return actions[0]
            return actions[-1]  # throw when legal (it sorts after bank), else bank
        return actions[0]

    return choose


def engine_mode(seed: int) -> Mode:
    rules = load_rules(RULES)
    choose = threshold_policy(engine.legal_actions, engine.throw_score)
    new_game, apply_legal, is_terminal = engine.new_game, engine.apply_legal, engine.is_terminal
    rolling = Phase.ROLL

    def play(g: int) -> Any:
        rng = random.Random(game_seed(seed, g))
        state = new_game(rules, ["Ana", "Bob"])
        while not is_terminal(state):
            action = sample_roll(state, rng) if state.phase is rolling else choose(state)
            state = apply_legal(state, action)
        return end(state)

    return Mode("engine", play)


def reference_mode(seed: int) -> Mode:
    rules = load_rules(RULES)
    ref: ModuleType = plain_engine
    choose = threshold_policy(ref.legal_actions, ref.throw_score)

    def play(g: int) -> Any:
        rng = random.Random(game_seed(seed, g))
        state = ref.new_game(rules, ["Ana", "Bob"])
        while not ref.is_terminal(state):
            chance = ref.current_player(state) == CHANCE
            action = roll(state, rng) if chance else choose(state)
            state = ref.apply(state, action)
        return end(state)

    return Mode("reference", play)


def bot_mode(seed: int) -> Mode:
    rules = load_rules(RULES)
    bot = ThresholdBot(THRESHOLD)

    def play(g: int) -> Any:
        rng = random.Random(game_seed(seed, g))
        state = engine.new_game(rules, ["Ana", "Bob"])
        while not engine.is_terminal(state):
            if engine.current_player(state) == CHANCE:
                state, _ = engine.step_legal(state, sample_roll(state, rng))
            else:
                state, _ = engine.step(state, bot.choose(state, rng))
        return end(state)

    return Mode("bot", play)


def peer_mode(path: Path, seed: int) -> Mode:
    """Farkle_II from a checkout: two threshold-300 players, dice from NumPy's generator
    seeded by the game (its dice differ from Zloutch's: its games are not compared)."""
    sys.path.insert(0, str(path / "src"))
    try:
        import numpy as np
        from farkle.game.engine import FarkleGame, FarklePlayer
        from farkle.simulation.strategies import ThresholdStrategy
    except ImportError as exc:
        raise SystemExit(f"error: cannot import Farkle_II from {path}/src: {exc}") from None

    def play(g: int) -> Any:
        players = [
            FarklePlayer(
                name,
                ThresholdStrategy(score_threshold=THRESHOLD, consider_dice=False),
                rng=np.random.default_rng([seed, g + 2**31, seat]),  # warm-up games are negative
            )
            for seat, name in enumerate(("P1", "P2"))
        ]
        return FarkleGame(players, target_score=10_000).play()

    return Mode("peer", play)


def floor_mode(seed: int) -> Mode:
    """The floor of any engine of immutable states, measured: per move, one game state and
    one turn built from the last (as the engine builds them: on drafts, ``game_draft`` and
    ``turn_draft``), a kept tuple of legal actions and a move looked up by the action's
    type, and no rule at all; as many moves a game as ``engine`` plays. Its games are not
    games: not compared."""
    rules = load_rules(RULES)
    start = engine.new_game(rules, ["Ana", "Bob"])
    moves = 265
    legal = (Bank(),)

    def move(state: GameState, action: Action, events: None) -> GameState:
        t = turn_draft(state.turn)
        t.total = state.turn.total + 50
        d = game_draft(state)
        d.turn = turn_done(t)
        d.phase = Phase.KEEP
        return done(d)

    table = {Bank: move}

    def actions(state: GameState) -> tuple[Action, ...]:
        found: tuple[Action, ...] | None = state._legal
        if found is None:
            found = legal
            object.__setattr__(state, "_legal", found)
        return found

    def play(g: int) -> Any:
        rng = random.Random(game_seed(seed, g))
        state = start
        for _ in range(moves):
            action = Roll((rng.getrandbits(3),)) if state.phase is Phase.ROLL else actions(state)[0]
            state = table[type(action)](state, action, None)
        return None

    return Mode("floor", play)


def game_seed(seed: int, game: int) -> str:
    """Game ``game``'s dice under ``--seed``: a text that ``random.Random`` hashes (SHA-512),
    so another seed draws other games. ``seed + game`` shifted the index only: seeds 1, 2
    and 3 shared 1,499 of 1,500 games."""
    return f"zloutch engine_vs_peer {seed} {game}"


def end(state: GameState) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """What a game's end is compared by: the winners, the turns and the scores."""
    return state.winners, state.turns, tuple(s.score for s in state.sheets)


def run(modes: list[Mode], games: int, rounds: int) -> None:
    per_round = -(-games // rounds)
    for r in range(rounds):
        batch = range(r * per_round, min(games, (r + 1) * per_round))
        for mode in modes if r % 2 == 0 else modes[::-1]:
            begin = time.process_time()
            for g in batch:
                mode.ends[g] = mode.play(g)
            mode.seconds += time.process_time() - begin
            mode.games += len(batch)


def agreement(ends: dict[int, Any]) -> str:
    """The first player's share of wins and the turns a game, with 95% intervals, against
    the issue's figures."""
    n = len(ends)
    wins = sum(1.0 / len(w) for w, _, _ in ends.values() if 0 in w)
    low, high = wilson(wins, n)
    turns = [t for _, t, _ in ends.values()]
    mean = sum(turns) / n
    sd = math.sqrt(sum((t - mean) ** 2 for t in turns) / max(n - 1, 1))
    half = 1.96 * sd / math.sqrt(n)
    share_ok = low <= ISSUE_FIRST_PLAYER <= high
    turns_ok = mean - half <= ISSUE_TURNS <= mean + half
    return (
        f"first player {wins / n:.2%} [{low:.2%}, {high:.2%}] "
        f"({'agrees with' if share_ok else 'DIFFERS from'} the issue's {ISSUE_FIRST_PLAYER:.2%}); "
        f"turns a game {mean:.1f} ± {half:.1f} "
        f"({'agrees with' if turns_ok else 'DIFFERS from'} the issue's {ISSUE_TURNS})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per mode (2000)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds the modes alternate in")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--warm-up", type=int, default=50, help="games first, not timed")
    parser.add_argument("--peer", type=Path, help="a checkout of Farkle_II, timed beside")
    parser.add_argument(
        "--floor", action="store_true", help="also time the floor of immutable states"
    )
    parser.add_argument(
        "--only", choices=("engine", "reference", "bot"), help="time this mode alone"
    )
    args = parser.parse_args()
    if args.games < 1 or args.rounds < 1 or args.warm_up < 0:
        parser.error("--games and --rounds must be at least 1, --warm-up at least 0")

    modes = [engine_mode(args.seed), reference_mode(args.seed), bot_mode(args.seed)]
    if args.only:
        modes = [m for m in modes if m.name == args.only]
    if args.floor:
        modes.append(floor_mode(args.seed))
    if args.peer is not None:
        modes.append(peer_mode(args.peer, args.seed))
    for mode in modes:  # the throws' tables and the kernels, read once outside the timing
        for g in range(args.warm_up):
            mode.play(-1 - g)
    run(modes, args.games, args.rounds)

    ours = [m for m in modes if m.name not in ("peer", "floor")]
    first = ours[0]
    for mode in ours[1:]:
        if mode.ends != first.ends:
            differ = next(g for g in first.ends if mode.ends[g] != first.ends[g])
            raise SystemExit(f"error: {mode.name} and {first.name} end game {differ} apart")
    by_name = {m.name: m for m in modes}
    reference = by_name.get("reference")
    low, high = PEER_FIGURE
    print(f"{RULES}, threshold:{THRESHOLD} both seats, {args.games} games per mode, one core")
    print(f"peer: {PEER}")
    print(f"  {low:,} to {high:,} games/s, measured in issue 15 beside {PEER_REFERENCE} games/s")
    print("  for the old engine path; 'at this load': the peer scaled by the reference now")
    peer = by_name.get("peer")
    columns = [("games/s", 9), ("vs reference", 13), ("vs peer stated", 16), ("at this load", 14)]
    if peer:
        columns.append(("vs peer measured", 17))
    print(f"{'mode':10} " + " ".join(f"{name:>{width}}" for name, width in columns))
    for mode in modes:
        ratio = f"{mode.rate / reference.rate:12.2f}x" if reference else f"{'-':>13}"
        stated = f"{mode.rate / high:.2f}-{mode.rate / low:.2f}x"
        if reference:
            scale = PEER_REFERENCE / reference.rate
            now = f"{mode.rate * scale / high:.2f}-{mode.rate * scale / low:.2f}x"
        else:
            now = "-"
        measured = f" {mode.rate / peer.rate:16.2f}x" if peer else ""
        print(f"{mode.name:10} {mode.rate:9.1f} {ratio} {stated:>16} {now:>14}{measured}")
    print(agreement(first.ends))


if __name__ == "__main__":
    main()
