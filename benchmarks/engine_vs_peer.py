"""Zloutch against Farkle_II, the same games counted for both: rates, first player, turns.

Run: python benchmarks/engine_vs_peer.py [--games N] [--rounds R] [--seed S] [--peer PATH]
     [--floor] [--only MODE] [--no-command] [--warm-up W]

Both programs play N two-player games of PlayMonster Farkle (``farkle``: six dice, 500 to
enter, 10,000 with last turns, F-4) with a bank-at-300 player in both seats. Zloutch's game
``g`` draws its dice from ``zloutch.sim.game_rng(S, g)``, the generator of game ``g`` of
``zloutch simulate --seed S --method engine`` (a text hashed by SHA-512: another ``--seed``
draws other games, not the same games shifted by one); Farkle_II's game ``g`` gives each
seat a NumPy generator seeded by SHA-256 of ``(S, g, seat)``. Farkle_II rolls its own dice
(each player its own generator, a list of faces a throw), so the two programs cannot play
the same dice: they play the same number of games on the same seed, in independent streams,
and their figures are compared as samples, with 95% intervals.

The timed modes alternate in R rounds (N / R games each, the order turned each round), so
that a change of the machine's load falls on all of them; games per second are per
CPU-second of this one process (``time.process_time``): one core.

- ``engine``: the engine path: ``new_game``, ``legal_actions``, ``apply_legal`` (the action
  comes from ``legal_actions``: it is not validated again), rolls by ``sample_roll``, the
  threshold:300 choice written here over ``legal_actions``;
- ``reference``: the same loop through the plain engine, the engine as it was before the fast
  path (``tests/engine/plain_engine.py``): ``apply`` validates every action and recomputes
  every derived fact, rolls by ``record.roll``;
- ``bot``: what ``zloutch simulate --method engine`` runs for each game:
  ``zloutch.sim.runner.play_game`` itself, the project's ``threshold:300`` bots
  (``make_bot``), their choices through ``step`` (validated, with events), the rolls through
  ``step_legal``, the events tallied;
- ``fast-play``: the fast path's games alone (``FastGames.play`` on the round's games, one
  Numba thread), its tables built beforehand: the part of ``--method fast`` that grows with
  the games. Its dice come from its own generator (SplitMix64 keyed by SHA-256 of the seed):
  other games than the engine's, the games of ``zloutch simulate --seed S --method fast``;
- ``floor`` (``--floor``): the floor of any engine built like this one (``floor_mode``): a
  move that builds its two objects and applies no rule, as many moves a game as the engine
  plays; its games are not games;
- ``peer`` (``--peer PATH``): Farkle_II from a checkout (``PATH/src``), its
  ``ThresholdStrategy(score_threshold=300, consider_dice=False)`` in both seats.

``engine``, ``reference`` and ``bot`` play the same dice with the same choices: every game
must end the same way in each, and the script checks it, game by game.

Then ``zloutch simulate`` as it runs (unless ``--no-command``), each in a child process, so
that nothing is cached from the modes above: ``zloutch.sim.simulate`` called as the command
calls it (``jobs=1``), timed inside the child from ``load_rules`` to the result (the fast
path's tables and the loading of its compiled kernels from Numba's cache included: the
command pays them on every run), and the command itself, ``python -m zloutch simulate ... -j
1 -q --json FILE``, whose CPU is the whole process's (the interpreter, the imports, the
games). The results of both must be those of the modes above (the same games), and are
checked. Each is set against the peer measured in the rounds (``vs peer``): the ratio that
``zloutch simulate`` gets for these N games. The peer's figure leaves out its imports and the
loading of its Numba functions (done in the warm-up), where the call counts the loading of
the fast path's kernels and the building of its tables: at a few thousand games the fast
path's call is mostly that set-up; ``fast-play`` is its rate without it.

Last, both programs side by side: for each, the first player's share of the wins (a tie
shared) with its 95% Wilson interval, the turns a game (both players) with a 95% interval
(mean ± 1.96 sd / sqrt n), and games per CPU-second (Zloutch's: the call's above, set-up
included; without the child processes, the rounds'), then the peer's figures minus each of
Zloutch's with 95% intervals (normal approximation, independent samples).

With ``--peer``, the rules are checked as far as Farkle_II's code lets them be: its score of
every throw of one to six dice (its lookup table, 923 throws) must be the points and the
number of dice of the keep ``threshold:300`` takes in Zloutch's ``farkle``. Read from its
code (commit 0ae0f55): six dice; 1s 100, 5s 50, three of a kind 100 x face (three 1s 300),
four, five, six of a kind 1000, 2000, 3000, a straight, three pairs and four of a kind with a
pair 1500, two triplets 2500; hot dice optional (``auto_hot_dice`` off: six dice again, or
bank); no bank before 500 in a turn until entered; 10,000 starts the last turns, each other
player one turn. What differs is play, not rules: in its last turn Farkle_II's threshold
player throws on until its total passes the leader's and banks as soon as it does, where
Zloutch's ``threshold:300`` banks at 300 as in any turn, even behind (and may tie, a tie being
shared under F-4; Farkle_II's player cannot tie). So the same games are played once more
through Zloutch's engine with Farkle_II's last turn (the row "Zloutch engine, Farkle_II's last
turn", not timed): the rules agree when its figures agree with Farkle_II's. Farkle_II also
stops a game after 200 rounds, unfinished (none was seen; they would be counted as such).

Without ``--peer`` Farkle_II is not run and nothing is compared with it: the script says so
and prints Zloutch's figures as Zloutch's alone.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
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
from zloutch.sim.runner import Tally, game_rng, play_game, player_labels, wilson
from zloutch.strategy.bots import make_bot

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "engine"))
# the plain reference lives with the engine's tests (on sys.path from here on)
import plain_engine  # type: ignore[import-not-found]

RULES = "farkle"
THRESHOLD = 300
BOTS = (f"threshold:{THRESHOLD}", f"threshold:{THRESHOLD}")
PEER = "Farkle_II (github.com/Isaac-McPadden/Farkle_II)"
PEER_TESTED = "0ae0f55f582abf0a007fc5342d6baa2fb1b449b6"
"""The commit of Farkle_II this script was written against (of 2026-08-21)."""
PEER_ROUNDS = 200
"""Farkle_II's default cap on a game's rounds (``FarkleGame.play(max_rounds=200)``)."""
Z95 = 1.959963984540054

End = tuple[tuple[int, ...], int, tuple[int, ...]]
"""What a game's end is compared by: the winners (seats; none: unfinished), the turns
(both players together) and the scores."""


@dataclass
class Mode:
    """One way of playing the games, and what it measured."""

    name: str
    play: Callable[[range], None]
    """Plays the games of a range (their ends go to ``ends``, or to ``tally``)."""
    seconds: float = 0.0
    games: int = 0
    ends: dict[int, End] = field(default_factory=dict)
    tally: Tally | None = None

    @property
    def rate(self) -> float:
        return self.games / self.seconds if self.seconds else math.nan


def each_game(ends: dict[int, End], play: Callable[[int], End]) -> Callable[[range], None]:
    def play_range(games: range) -> None:
        for g in games:
            ends[g] = play(g)

    return play_range


def threshold_policy(
    legal_actions: Callable[[GameState], tuple[Action, ...]],
    reading: Callable[[GameState], Any],
    *,
    last_turn_to_win: bool = False,
) -> Callable[[GameState], Action]:
    """threshold:300 on ``farkle`` over an engine's ``legal_actions`` and ``throw_score``:
    the keep of most points with the fewest dice (the first keep of the reading: ``farkle``
    has no keep that wins), bank at 300 when legal, else throw (or what is legal).

    ``last_turn_to_win``: in a last turn (F-4), as Farkle_II plays it: bank as soon as the
    score with the turn's total passes every other player's, and not before."""

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
            bank = isinstance(actions[0], Bank)
            turn = state.turn
            if last_turn_to_win and state.final is not None:
                mine = state.sheets[turn.player].score + turn.total
                lead = max(s.score for i, s in enumerate(state.sheets) if i != turn.player)
                if bank and mine > lead:
                    return actions[0]
                return actions[-1]
            if bank and turn.total >= THRESHOLD:
                return actions[0]
            return actions[-1]  # throw when legal (it sorts after bank), else bank
        return actions[0]

    return choose


def engine_play(seed: int, *, last_turn_to_win: bool = False) -> Callable[[int], End]:
    rules = load_rules(RULES)
    choose = threshold_policy(
        engine.legal_actions, engine.throw_score, last_turn_to_win=last_turn_to_win
    )
    new_game, apply_legal, is_terminal = engine.new_game, engine.apply_legal, engine.is_terminal
    rolling = Phase.ROLL

    def play(g: int) -> End:
        rng = game_rng(seed, g)
        state = new_game(rules, ["Ana", "Bob"])
        while not is_terminal(state):
            action = sample_roll(state, rng) if state.phase is rolling else choose(state)
            state = apply_legal(state, action)
        return end(state)

    return play


def engine_mode(seed: int) -> Mode:
    mode = Mode("engine", lambda games: None)
    mode.play = each_game(mode.ends, engine_play(seed))
    return mode


def reference_mode(seed: int) -> Mode:
    rules = load_rules(RULES)
    ref: ModuleType = plain_engine
    choose = threshold_policy(ref.legal_actions, ref.throw_score)

    def play(g: int) -> End:
        rng = game_rng(seed, g)
        state = ref.new_game(rules, ["Ana", "Bob"])
        while not ref.is_terminal(state):
            chance = ref.current_player(state) == CHANCE
            action = roll(state, rng) if chance else choose(state)
            state = ref.apply(state, action)
        return end(state)

    mode = Mode("reference", lambda games: None)
    mode.play = each_game(mode.ends, play)
    return mode


def bot_mode(seed: int) -> Mode:
    """``play_game`` as ``zloutch simulate --method engine`` runs it (``play_games``), each
    game into the mode's tally; seats rotate with the game (both bots are the same)."""
    rules = load_rules(RULES)
    policies = [make_bot(name) for name in BOTS]
    labels = player_labels([p.name for p in policies])
    mode = Mode("bot", lambda games: None, tally=Tally(len(BOTS)))

    def play(g: int) -> End:
        assert mode.tally is not None
        state = play_game(rules, policies, labels, g, game_rng(seed, g), mode.tally)
        return end(state)

    mode.play = each_game(mode.ends, play)
    return mode


def fast_mode(seed: int) -> tuple[Mode, Any]:
    """The fast path's games alone: ``FastGames.play`` on each round's range, its tables
    built here, outside the timing, on one thread (``-j 1``)."""
    from zloutch.sim.fast import FastSimulator

    sim = FastSimulator(load_rules(RULES), list(BOTS)).games
    sim.play(seed, 0, 10, threads=1)  # the kernels loaded (or compiled), outside the timing
    mode = Mode("fast-play", lambda games: None, tally=Tally(len(BOTS)))

    def play_range(games: range) -> None:
        assert mode.tally is not None
        mode.tally.merge(sim.play(seed, games.start, games.stop, threads=1))

    mode.play = play_range
    return mode, sim


def fast_ends(sim: Any, seed: int, games: int) -> dict[int, End]:
    """Each fast game's end, one game at a time (not timed): the first seat's win share (as
    winners: seat 0, seat 1, both) and the turns; no scores."""
    ends: dict[int, End] = {}
    for g in range(games):
        t = sim.play(seed, g, g + 1)
        first, second = t.seat_wins
        winners = () if not t.finished else (0, 1) if first == second else (0,) if first else (1,)
        ends[g] = (winners, t.turns, ())
    return ends


def peer_play(path: Path, seed: int) -> Callable[[int], End]:
    """Farkle_II from a checkout: two threshold-300 players (no dice condition), each with a
    NumPy generator seeded from (seed, game, seat)."""
    sys.path.insert(0, str(path / "src"))
    try:
        import numpy as np

        # Farkle_II from PATH/src, on sys.path from here on: not known to mypy
        from farkle.game.engine import FarkleGame, FarklePlayer  # type: ignore[import-not-found]
        from farkle.simulation.strategies import (  # type: ignore[import-not-found]
            ThresholdStrategy,
        )
    except ImportError as exc:
        raise SystemExit(f"error: cannot import Farkle_II from {path}/src: {exc}") from None
    names = ("P1", "P2")

    def play(g: int) -> End:
        players = [
            FarklePlayer(
                name,
                ThresholdStrategy(score_threshold=THRESHOLD, consider_dice=False),
                rng=np.random.default_rng(peer_seed(seed, g, seat)),
            )
            for seat, name in enumerate(names)
        ]
        metrics = FarkleGame(players, target_score=10_000).play(max_rounds=PEER_ROUNDS)
        winner = metrics.winner
        stats = metrics.players
        return (
            () if winner is None else (names.index(winner),),
            sum(stats[name].n_turns for name in names),
            tuple(stats[name].score for name in names),
        )

    return play


def peer_mode(path: Path, seed: int) -> Mode:
    mode = Mode("peer", lambda games: None)
    mode.play = each_game(mode.ends, peer_play(path, seed))
    return mode


def peer_seed(seed: int, game: int, seat: int) -> int:
    """The seed of a Farkle_II player's generator: SHA-256 of the text of (seed, game, seat),
    a stream of its own (NumPy's generator, not Zloutch's)."""
    digest = hashlib.sha256(f"engine_vs_peer farkle_ii {seed} {game} {seat}".encode()).digest()
    return int.from_bytes(digest[:16], "little")


def peer_commit(path: Path) -> str:
    """The commit of the checkout, where it is a git checkout."""
    try:
        out = subprocess.run(
            ["git", "-C", str(path), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return f"not a git checkout; written against {PEER_TESTED[:7]}"
    return out[:7] + ("" if out == PEER_TESTED else f", not {PEER_TESTED[:7]}, the one tested")


def peer_scoring_differences(path: Path) -> tuple[int, list[str]]:
    """Every throw of 1 to 6 dice in Farkle_II's lookup table against the keep threshold:300
    takes in Zloutch's ``farkle`` (the most points, the fewest dice): (throws, differences)."""
    from farkle.game.scoring_lookup import (  # type: ignore[import-not-found]
        build_score_lookup_table,
    )

    from zloutch.rules.scoring import score_throw

    rules = load_rules(RULES)
    table = build_score_lookup_table()
    differ = []
    for key, (points, used, *_) in table.items():
        dice = tuple(face for face in range(1, 7) for _ in range(key[face - 1]))
        best = score_throw(rules, dice).best
        ours = (best.points, len(best.dice)) if best else (0, 0)
        if ours != (points, used if points else 0):
            differ.append(f"{dice}: Farkle_II {points} with {used} dice, Zloutch {ours}")
    return len(table), differ


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

    table: dict[type[Action], Callable[[GameState, Action, None], GameState]] = {Bank: move}

    def actions(state: GameState) -> tuple[Action, ...]:
        found: tuple[Action, ...] | None = state._legal
        if found is None:
            found = legal
            object.__setattr__(state, "_legal", found)
        return found

    def play_range(games: range) -> None:
        for g in games:
            rng = game_rng(seed, g)
            state = start
            for _ in range(moves):
                phase = state.phase
                action = Roll((rng.getrandbits(3),)) if phase is Phase.ROLL else actions(state)[0]
                state = table[type(action)](state, action, None)

    return Mode("floor", play_range)


def end(state: GameState) -> End:
    return state.winners, state.turns, tuple(s.score for s in state.sheets)


def run(modes: list[Mode], games: int, rounds: int) -> None:
    per_round = -(-games // rounds)
    for r in range(rounds):
        batch = range(r * per_round, min(games, (r + 1) * per_round))
        for mode in modes if r % 2 == 0 else modes[::-1]:
            begin = time.process_time()
            mode.play(batch)
            mode.seconds += time.process_time() - begin
            mode.games += len(batch)


@dataclass(frozen=True)
class Figures:
    """The first player's share of wins and the turns a game of a set of games."""

    games: int
    finished: int
    first: float
    """Games the first seat won, a tie shared."""
    turns_mean: float
    turns_sd: float

    @classmethod
    def of(cls, ends: dict[int, End]) -> Figures:
        done_ = [e for e in ends.values() if e[0]]
        first = sum(1.0 / len(w) for w, _, _ in done_ if 0 in w)
        turns = [t for _, t, _ in ends.values()]
        n = len(turns)
        mean = sum(turns) / n
        sd = math.sqrt(sum((t - mean) ** 2 for t in turns) / max(n - 1, 1))
        return cls(n, len(done_), first, mean, sd)

    @property
    def share(self) -> float:
        return self.first / self.finished if self.finished else math.nan

    @property
    def half(self) -> float:
        return Z95 * self.turns_sd / math.sqrt(self.games)

    def text(self) -> str:
        low, high = wilson(self.first, self.finished)
        unfinished = self.games - self.finished
        left = f" ({unfinished} unfinished)" if unfinished else ""
        first = f"{self.share:7.2%} [{low:.2%}, {high:.2%}]"
        return f"{self.games:6}{left} {first:>26} {self.turns_mean:8.2f} ± {self.half:.2f}"


def difference(a: Figures, b: Figures) -> str:
    """``a - b``: the first player's share in points of percentage and the turns, each with
    a 95% interval (normal approximation, independent samples)."""
    pa, pb = a.share, b.share
    d = pa - pb
    se = math.sqrt(pa * (1 - pa) / a.finished + pb * (1 - pb) / b.finished)
    t = a.turns_mean - b.turns_mean
    te = math.sqrt(a.turns_sd**2 / a.games + b.turns_sd**2 / b.games)
    return (
        f"first player {100 * d:+.2f} points [{100 * (d - Z95 * se):+.2f}, "
        f"{100 * (d + Z95 * se):+.2f}], turns {t:+.2f} [{t - Z95 * te:+.2f}, {t + Z95 * te:+.2f}]"
    )


CALL = """
import json, sys, time
from zloutch.app.store import load_game_solution
from zloutch.engine.endings import load_rules
from zloutch.sim import simulate
games, seed, method, bots = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
begin = time.process_time()
rules = load_rules(sys.argv[5])
result = simulate(rules, bots.split(","), games, seed, jobs=1, solutions=load_game_solution,
                  method=method)
cpu = time.process_time() - begin
print(json.dumps({"cpu": cpu, "games": result.games, "finished": result.finished,
                  "first": result.seats[0].wins, "turns": result.average_turns * result.games}))
"""
"""A child's call of ``zloutch.sim.simulate`` as ``zloutch simulate -j 1`` calls it, timed in
the child from ``load_rules`` to the result."""


@dataclass(frozen=True)
class Child:
    """One child process: the CPU it took (``call``: timed by the child itself; ``command``:
    the whole process, user and system), and its result's games, first seat's wins and
    turns (all games together)."""

    method: str
    what: str
    cpu: float
    games: int
    finished: int
    first: float
    turns: float


def child(method: str, argv: list[str], json_file: str | None = None) -> Child:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(argv, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        raise SystemExit(f"error: {' '.join(argv[:4])} failed ({out.returncode}):\n{out.stderr}")
    if json_file is None:
        data = json.loads(out.stdout)
        return Child(
            method,
            "call",
            data["cpu"],
            data["games"],
            data["finished"],
            data["first"],
            data["turns"],
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    data = json.loads(Path(json_file).read_text())
    return Child(
        method,
        "command",
        cpu,
        data["games"],
        data["finished"],
        data["seats"][0]["wins"],
        data["average_turns"] * data["games"],
    )


def command_line(games: int, seed: int, method: str) -> list[str]:
    return [
        *("-m", "zloutch", "simulate", "-r", RULES, "-p", ",".join(BOTS), "-n", str(games)),
        *("--seed", str(seed), "-j", "1", "-q", "-m", method),
    ]


def simulate_children(games: int, seed: int) -> list[Child]:
    """``zloutch simulate`` for these games, engine and fast: the call, then the command."""
    python = sys.executable
    found = []
    with tempfile.TemporaryDirectory() as tmp:
        for method in ("engine", "fast"):
            args = [str(games), str(seed), method, ",".join(BOTS), RULES]
            found.append(child(method, [python, "-c", CALL, *args]))
            out = os.path.join(tmp, f"{method}.json")
            command = [python, *command_line(games, seed, method), "--json", out]
            found.append(child(method, command, out))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per mode (2000)")
    parser.add_argument("--rounds", type=int, default=4, help="rounds the modes alternate in")
    parser.add_argument("--seed", type=int, default=1, help="another seed, other games (1)")
    parser.add_argument("--warm-up", type=int, default=50, help="games first, not timed")
    parser.add_argument("--peer", type=Path, help="a checkout of Farkle_II, played beside")
    parser.add_argument(
        "--floor", action="store_true", help="also time the floor of immutable states"
    )
    parser.add_argument(
        "--only", choices=("engine", "reference", "bot", "fast-play"), help="time this mode alone"
    )
    parser.add_argument(
        "--no-command",
        action="store_true",
        help="do not run zloutch simulate in child processes",
    )
    args = parser.parse_args()
    if args.games < 1 or args.rounds < 1 or args.warm_up < 0:
        parser.error("--games and --rounds must be at least 1, --warm-up at least 0")

    seed, games = args.seed, args.games
    modes = [engine_mode(seed), reference_mode(seed), bot_mode(seed)]
    fast, sim = fast_mode(seed)
    modes.append(fast)
    if args.only:
        modes = [m for m in modes if m.name == args.only]
    if args.floor:
        modes.append(floor_mode(seed))
    if args.peer is not None:
        modes.append(peer_mode(args.peer, seed))
    for mode in modes:  # the throws' tables and the kernels, read once outside the timing
        if mode.name != "fast-play":
            mode.play(range(-args.warm_up, 0))
            mode.ends.clear()
            if mode.tally is not None:
                mode.tally = Tally(len(BOTS))
    run(modes, games, args.rounds)

    by_name = {m.name: m for m in modes}
    ours = [m for m in modes if m.name in ("engine", "reference", "bot")]
    for mode in ours[1:]:
        if mode.ends != ours[0].ends:
            apart = next(g for g in ours[0].ends if mode.ends[g] != ours[0].ends[g])
            raise SystemExit(f"error: {mode.name} and {ours[0].name} end game {apart} apart")
    peer = by_name.get("peer")
    reference = by_name.get("reference")
    engine_figures = Figures.of(ours[0].ends) if ours else None
    fast_figures = Figures.of(fast_ends(sim, seed, games)) if "fast-play" in by_name else None
    children = [] if args.no_command or args.only else simulate_children(games, seed)
    for c in children:  # the command plays the games of the modes
        expected = engine_figures if c.method == "engine" else fast_figures
        if expected is not None and not (
            c.games == expected.games
            and c.finished == expected.finished
            and c.first == expected.first
            and round(c.turns) == round(expected.turns_mean * expected.games)
        ):
            raise SystemExit(f"error: {c.method} {c.what} played other games than the modes")
    last_turn = None
    if peer is not None and ours:
        play = engine_play(seed, last_turn_to_win=True)
        last_turn = Figures.of({g: play(g) for g in range(games)})

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"{RULES}, threshold:{THRESHOLD} in both seats, {games} games a program, seed {seed}")
    print(f"(load average at the end: {load})")
    print(f"Zloutch: game g's dice from zloutch.sim.game_rng({seed}, g), as simulate --method")
    print("  engine draws them; the fast path's from its own generator keyed by the seed, as")
    print("  simulate --method fast draws them (other games)")
    if peer is None:
        print(f"{PEER}: NOT RUN (no --peer PATH): nothing below is compared with it;")
        print("  every figure is Zloutch's alone")
    else:
        print(f"{PEER}: {args.peer}, commit {peer_commit(args.peer)}")
        print(f"  its own dice (NumPy, a generator a player, seeded from ({seed}, g, seat)): other")
        print("  games than Zloutch's, the same number on the same seed, an independent stream")
        throws, differ = peer_scoring_differences(args.peer)
        if differ:
            print(f"  RULES DIFFER: {len(differ)} of {throws} throws score otherwise:")
            for line in differ[:10]:
                print(f"    {line}")
        else:
            print(f"  rules: its {throws} throws of 1 to 6 dice score as threshold:300's keeps in")
            print("  Zloutch (points and dice); six dice, hot dice optional, 500 to enter, 10,000")
            print("  then one last turn each other player (read from its code)")
        print("  play: in the last turn Farkle_II's player throws on until it leads and banks")
        print("  then; Zloutch's threshold:300 banks at 300 even behind (a tie is shared)")

    print()
    print(f"Timed in {args.rounds} rounds, alternating: games per CPU-second, one core")
    columns = [("games/s", 9), ("vs reference", 13)] + ([("vs peer", 9)] if peer else [])
    print(f"{'mode':10} " + " ".join(f"{name:>{width}}" for name, width in columns))
    for mode in modes:
        ratio = f"{mode.rate / reference.rate:12.2f}x" if reference else f"{'-':>13}"
        against = f" {mode.rate / peer.rate:8.2f}x" if peer else ""
        print(f"{mode.name:10} {mode.rate:9.1f} {ratio}{against}")

    if children:
        print()
        print("zloutch simulate for these games, each in a child process (one core, -j 1):")
        print(f"  call: zloutch.sim.simulate({RULES!r}, {list(BOTS)}, {games}, {seed}, jobs=1,")
        print("    method=M) timed in the child from load_rules to the result: the fast path's")
        print("    tables built and its kernels loaded from Numba's cache, as on every run")
        line = " ".join(command_line(games, seed, "M"))
        cut = line.index(" --seed")
        print(f"  command: python {line[:cut]}")
        print(f"    {line[cut + 1 :]} --json F: the whole process's CPU (the interpreter, the")
        print("    imports, the games)")
        print("  the same games as the modes above (checked: first seat's wins and turns)")
        head = f"{'method':8} {'':8} {'CPU s':>7} {'games/s':>9}"
        print(head + (f" {'vs peer':>8}" if peer else ""))
        for c in children:
            rate = c.games / c.cpu
            against = f" {rate / peer.rate:7.2f}x" if peer else ""
            print(f"{c.method:8} {c.what:8} {c.cpu:7.2f} {rate:9.1f}{against}")

    print()
    if peer is None:
        print("Zloutch's own figures (Farkle_II not run: this is not a comparison)")
    else:
        print("Both programs side by side")
    print("first player: the first seat's share of the wins, a tie shared (95% Wilson);")
    calls = {c.method: c.games / c.cpu for c in children if c.what == "call"}
    if calls:
        print("turns: a game's, both players' (mean ± 1.96 sd / sqrt n); games/s: Zloutch's")
        print("the simulate call's above (set-up included), the peer's in the rounds")
    else:
        print("turns: a game's, both players' (mean ± 1.96 sd / sqrt n); games/s: in the")
        print("rounds (the fast path without its set-up: the call was not run)")
    rows: list[tuple[str, Figures, float | None]] = []
    if engine_figures is not None:
        rate = calls.get("engine", by_name["bot"].rate if "bot" in by_name else math.nan)
        rows.append(("Zloutch simulate -m engine", engine_figures, rate))
    if fast_figures is not None:
        rate = calls.get("fast", by_name["fast-play"].rate)
        rows.append(("Zloutch simulate -m fast", fast_figures, rate))
    if last_turn is not None:
        rows.append(("Zloutch engine, Farkle_II's last turn", last_turn, None))
    if peer is not None:
        rows.append(("Farkle_II threshold 300 (peer)", Figures.of(peer.ends), peer.rate))
    head = f"{'':38} {'games':>6} {'first player':>26} {'turns':>15} {'games/s':>9}"
    print(head + (f" {'vs peer':>8}" if peer else ""))
    for label, figures, per_second in rows:
        if per_second is None:
            shown, against = f"{'-':>9}", f" {'-':>8}" if peer else ""
        else:
            shown = f"{per_second:9.1f}"
            against = f" {per_second / peer.rate:7.2f}x" if peer else ""
        print(f"{label:38} {figures.text()} {shown}{against}")
    if peer is not None:
        peer_figures = Figures.of(peer.ends)
        print("Farkle_II minus Zloutch (95% intervals, independent samples):")
        for label, figures, _ in rows[:-1]:
            print(f"  {label}: {difference(peer_figures, figures)}")


if __name__ == "__main__":
    main()
