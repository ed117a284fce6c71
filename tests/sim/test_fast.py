"""The fast path against the engine: the same games replayed, the same distributions.

The engine is the reference (every rule, one state at a time). The fast path plays the same
rules from tables; these tests check it game by game (a traced game replayed through the
engine ends with the same scores and winners) and in distribution (win rates, farkle rates
and bank sizes of many games agree with the engine path's within their sampling error).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.engine import GameState, Phase, legal_actions, new_game, step
from zloutch.engine.actions import Action, Bank, Fresh, Joker, Keep, Roll, Take, Throw
from zloutch.engine.compiled import ThrowNode, compile_turn
from zloutch.engine.events import Bumped, Event, Penalised, Ticked, TookBack
from zloutch.engine.game import (
    joker_reading,
    throw_score,
    turn_after_jokers,
    turn_after_throw,
)
from zloutch.rules import RuleSet, ZloutchError, load_rules
from zloutch.sim import SimulationError, seating, simulate
from zloutch.sim.fast import (
    KIND_THROW,
    SHEET_COUNTS,
    TRACE_BANK,
    TRACE_FRESH,
    TRACE_KEEP,
    TRACE_ROLL,
    TRACE_TAKE,
    TRACE_THROW,
    FastGames,
    FastPathUnsupported,
    FastSimulator,
    Tally,
    _solve_turn,
    fast_unsupported,
    seed_key,
    simulate_fast,
)
from zloutch.strategy.bots import make_bot
from zloutch.strategy.expert import BoldBot, ExpertBot
from zloutch.strategy.game_solver import GameSolution, PairSolutions, solve_game, solved_model
from zloutch.strategy.optimal import OptimalBot

# One worker compiles the simulation's Numba kernels (about 9 s of CPU on a fresh clone),
# not every worker: the tests that play fast games share it (tests/conftest.py).
pytestmark = pytest.mark.xdist_group("sim-kernels")

NO_SHEET = "ticks_to_cross=0,bump=off,take_back=false"
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "rules"

REPLAYED = [
    ("farkle", ["expert", "threshold:300"]),  # F-4 final turns, entry 500
    ("greed", ["greedy", "expert"]),
    ("cinq-mille(target=2500)", ["expert", "cautious"]),  # G-5 five 1s win
    ("cinq-mille(last_thousand)", ["expert", "threshold:400"]),  # G-7
    ("impair", ["threshold:350", "expert", "greedy"]),  # three players
    ("farkle-minimal", ["expert", "threshold:500"]),
    (f"dix-mille({NO_SHEET})", ["expert", "threshold:300"]),  # T-9 exact target
    (f"dix-mille-6({NO_SHEET},target=4000)", ["expert", "greedy"]),  # T-7 entry by throw
    (f"dix-mille({NO_SHEET},confirmation)", ["expert", "threshold:300"]),  # V-1
    (f"dix-mille({NO_SHEET},multiples_over_throws,target=4000)", ["expert", "greedy"]),  # V-7
    (f"dix-mille-6({NO_SHEET},figure_full_hand,target=3000)", ["expert", "greedy"]),  # S-16
    # The sheet: ticks (G-3), bumps (G-4), take-back (G-8) with its entry rule.
    ("dix-mille", ["expert", "threshold:300"]),
    ("dix-mille(target=2000)", ["greedy", "expert", "cautious"]),  # three sheets to bump
    # The bold bot (the medium level): the expert's tables, banking only by its margin.
    ("dix-mille(target=2500)", ["bold", "cautious"]),  # lands on the target: banks all the same
    ("dix-mille(joker,target=2000)", ["bold:50", "threshold:300"]),
    ("zilch(target=2500)", ["bold", "expert"]),  # F-1: the expert's long run, by the margin
    ("dix-mille(bump=any,fallback_bumps,ticks_to_cross=2,target=2500)", ["expert", "greedy"]),
    ("dix-mille(ticks_restart=false,reentry,ticks_to_cross=1,target=2000)", ["greedy"] * 3),
    ("dix-mille(take_back_counts_for_entry,entry=800,target=3000)", ["expert", "threshold:400"]),
    ("dix-mille-6(target=4000)", ["expert", "greedy"]),  # entry by throw, with take-back
    ("farkle(take_back,bump=any,ticks_to_cross=3)", ["expert", "threshold:350"]),  # F-4
    # Rule-file keys read through the compiled turn: a keep rule, a kind rule.
    ("farkle(keep_every_multiple,six_of_a_kind_as_two_triplets,target=3000)", ["expert", "greedy"]),
    (
        "dix-mille-6(multiples_over_throws,multiples_take_all,late_pair=false,target=3000)",
        ["expert", "greedy"],
    ),
    (f"{EXAMPLES}/kinds-full-throw.toml(target=3000)", ["expert", "greedy"]),  # kinds' thrown
    # F-1: three farkles in a row cost 500 (scores below 0), the expert's long run by count.
    ("zilch", ["expert", "greedy"]),
    # G-2 at a keep: where the expert's values keep dice after which a bank falls short of
    # the target and another keep reaches it, the bots take that one (once in the 5 games).
    ("cinq-mille(target=2000)", ["expert", "bold"]),
    ("zilch(target=2000)", ["greedy", "threshold:350"]),  # the default run's twin, no expert
    ("zilch(farkle_penalty_after=2,entry=500)", ["expert", "threshold:350", "cautious"]),
    # F-1 with the sheet: a penalty's level is ticked, bumped and crossed like a bank's,
    # enters no one, and may stand below a higher level (bump=any looks through the stack).
    ("zilch(ticks_to_cross=2,bump=any,take_back,target=3000)", ["expert", "greedy"]),
    ("farkle(farkle_penalty=500,final_round,final_turns=false,target=2000)", ["greedy"] * 3),
    # A blank first throw's penalty (weighed by the expert against a take-back), with F-1.
    ("greed(fresh_farkle_penalty=2000)", ["expert", "greedy"]),
    (
        "farkle(fresh_farkle_penalty=500,farkle_penalty=500,take_back,bump=current,target=3000)",
        ["expert", "threshold:350"],
    ),
    (
        "farkle(fresh_farkle_penalty=500,farkle_penalty=500,take_back,bump=current,target=2000)",
        ["greedy", "threshold:350"],
    ),
    # V-2: jokers set aside after a keep, thrown after a farkle; with the sheet, and with
    # every scoring die kept but the jokers (the 10,000 article's keep); past an exact target.
    ("dix-mille(joker,target=3000)", ["expert", "threshold:300"]),
    ("dix-mille(keep_all_scoring,joker,target=3000)", ["expert", "greedy"]),
    ("dix-mille-6(joker,joker_keeps_points,four_two_one,target=3000)", ["expert", "cautious"]),
    ("cinq-mille(joker,exact_target,target=2000)", ["expert", "expert"]),
    # T-9's other reading: past an exact target no bank, the player throws on to a farkle,
    # or to a throw that wins at once (cinq-mille's five 1s).
    ("cinq-mille(overshoot=throw_on,exact_target,target=2000)", ["expert", "greedy"]),
    ("dix-mille(overshoot=throw_on,joker,target=3000)", ["expert", "threshold:300"]),
    # G-6: the final round; a second player reaching the target crosses the first one's level
    ("dix-mille(final_round,target=2000)", ["greedy", "expert", "cautious"]),
    ("cinq-mille(final_round,target=2000)", ["expert", "expert", "greedy"]),
]
SHORTER = {
    f"dix-mille({NO_SHEET})": f"dix-mille({NO_SHEET},target=3000)",
    f"dix-mille-6({NO_SHEET},target=4000)": f"dix-mille-6({NO_SHEET},target=2000)",
    f"dix-mille({NO_SHEET},confirmation)": f"dix-mille({NO_SHEET},confirmation,target=3000)",
    "dix-mille": "dix-mille(target=3000)",
}
"""The default run's twin of a replayed rule set: the same rules to a lower target. Most of a
replay's time goes to the expert's tables, one turn solved per score up to the target; the
rule set itself runs under slow."""
ONLY_SLOW = {
    "zilch",  # the expert's long-run solves, twice: under slow; the twin above runs by default
    "zilch(farkle_penalty_after=2,entry=500)",
    # F-1 with the sheet and the expert's long run: the twins below them run by default.
    "zilch(ticks_to_cross=2,bump=any,take_back,target=3000)",
    "farkle(fresh_farkle_penalty=500,farkle_penalty=500,take_back,bump=current,target=3000)",
    "dix-mille-6(multiples_over_throws,multiples_take_all,late_pair=false,target=3000)",
    # The expert's tables by score (an exact target, dix-mille-6's 482 signatures) make these
    # one to three seconds each. The default run keeps a twin of most of their paths: G-5 in
    # cinq-mille(joker,exact_target), G-6 in dix-mille(final_round), jokers in
    # dix-mille(keep_all_scoring,joker), T-7's entry by a throw in dix-mille-6 without the
    # sheet; S-16's full hand and dix-mille-6's jokers (joker_keeps_points, 421) only here.
    "cinq-mille(target=2500)",
    "cinq-mille(final_round,target=2000)",
    f"dix-mille-6({NO_SHEET},figure_full_hand,target=3000)",
    "dix-mille-6(target=4000)",
    "dix-mille-6(joker,joker_keeps_points,four_two_one,target=3000)",
    "cinq-mille(last_thousand)",  # G-7: two seconds of the expert's tables by score
    "dix-mille(joker,target=3000)",  # jokers: dix-mille(keep_all_scoring,joker) by default
    # The bold bot: its tables are the expert's; dix-mille(target=2500) runs by default.
    "dix-mille(joker,target=2000)",
    "zilch(target=2500)",
}
"""Replayed in the slow run alone (twelve games each): the default run has a twin of most
paths they take (zilch, V-7 on dix-mille, and those named above)."""


def replayed() -> list[object]:
    params: list[object] = []
    for spec, players in REPLAYED:
        if spec in SHORTER:
            params.append(pytest.param(SHORTER[spec], players, id=SHORTER[spec]))
            params.append(pytest.param(spec, players, id=spec, marks=pytest.mark.slow))
        elif spec in ONLY_SLOW:
            params.append(pytest.param(spec, players, id=spec, marks=pytest.mark.slow))
        else:
            params.append(pytest.param(spec, players, id=spec))
    return params


def joker_node(state: GameState, action: Joker) -> ThrowNode:
    """The throw node of the dice thrown after ``action`` sets jokers aside (V-2)."""
    rules = state.rules
    joker = next(k for k in joker_reading(state).scoring if k.dice == action.dice)
    after = turn_after_throw(rules, turn_after_jokers(state.turn, joker), fresh=False)
    return compile_turn(rules).throw_node_of(after)


def tied_values(player: object, state: GameState) -> dict[Action, float] | None:
    """The values of the actions of a bot that values them (the expert, optimal), to check
    that a choice the fast path made otherwise is a tie; None for the others."""
    if isinstance(player, ExpertBot | BoldBot | OptimalBot):
        advisor = player.advisor(state.rules)
        assert advisor is not None
        return dict(advisor.advise(state).values)
    return None


def replay(
    sim: FastSimulator,
    rules: RuleSet,
    seed: int,
    game: int,
    names: Sequence[str],
    events: list[Event] | None = None,
    solutions: GameSolution | None = None,
) -> GameState:
    """Feed one traced fast-path game to the engine: its rolls, keeps, banks, throws and
    starts (take back or fresh, G-8). At every choice the engine's own bot of that seat
    (``make_bot``) must choose what the fast path's table chose: the tables are the bots.
    ``events``: every event of the game, appended."""
    fm = sim.model
    seats = seating(sim.players, game)
    bots = [make_bot(names[p], solutions) for p in seats]
    rng = random.Random(0)  # the table bots use no randomness
    state = new_game(rules, [f"p{p}" for p in seats])
    node = fm.throw_nodes[0]
    dice: tuple[int, ...] = ()

    def chosen() -> Action:
        return bots[state.turn.player].choose(state, rng)

    def move(action: Action) -> GameState:
        after, said = step(state, action)
        if events is not None:
            events.extend(said)
        return after

    for kind, value in sim.games.trace_game(seed, game):
        if kind == TRACE_ROLL:
            if state.phase is Phase.START:
                assert state.offer is None  # an offer is answered first: take or fresh
                state = move(Throw())
            assert state.phase is Phase.ROLL
            node = fm.throw_nodes[int(fm.roll_base.searchsorted(value, side="right")) - 1]
            dice = sim.roll_faces(value)
            state = move(Roll(dice))
        elif kind in (TRACE_TAKE, TRACE_FRESH):
            assert state.phase is Phase.START and state.offer is not None
            action = Take() if kind == TRACE_TAKE else Fresh()
            assert chosen() == action, (game, state.turns, action)
            state = move(action)
        elif kind == TRACE_KEEP:
            if state.phase is not Phase.KEEP:
                continue  # the roll itself ended the turn: a win, a farkle, an overshoot (T-9)
            wanted = (int(fm.opt_pts[value]), int(fm.opt_dest[value]))
            keeps = {k.dice: k for k in throw_score(state).keeps}
            options = fm.model.keep_options
            leads = [
                a
                for a in legal_actions(state)
                if isinstance(a, Keep) and wanted in options(node, dice, keeps[a.dice])
            ]
            assert leads, f"no legal keep of {dice} leads to {wanted}"
            bot = chosen()
            if bot not in leads:  # the expert's tie (equal values) broken another way
                values = tied_values(bots[state.turn.player], state)
                assert values is not None, (game, state.turns, dice, bot, leads)
                assert values[bot] == pytest.approx(values[leads[0]], abs=1e-9), (bot, leads)
            state = move(leads[0])
            if fm.col_kind[wanted[1]] == KIND_THROW and state.phase is Phase.DECIDE:
                # V-2: the option sets jokers aside and throws the other dice
                thrown = fm.throw_nodes[int(fm.col_idx[wanted[1]])]
                jokers = [
                    a
                    for a in legal_actions(state)
                    if isinstance(a, Joker) and joker_node(state, a) == thrown
                ]
                assert jokers, f"no jokers after {leads[0]} lead to {thrown}"
                bot = chosen()
                assert bot in jokers or len(jokers) > 1, (game, state.turns, bot, jokers)
                state = move(bot if bot in jokers else jokers[0])
                state = move(Throw())
        elif kind == TRACE_BANK:
            assert Bank() in legal_actions(state)
            assert chosen() == Bank(), (game, state.turns)
            state = move(Bank())
        else:
            assert kind == TRACE_THROW
            assert state.phase is Phase.DECIDE
            bot = chosen()
            if bot != Throw():  # the expert's tie (a joker worth the same) broken another way
                values = tied_values(bots[state.turn.player], state)
                assert values is not None, (game, state.turns, bot)
                assert values[bot] == pytest.approx(values[Throw()], abs=1e-9), (bot, values)
            state = move(Throw())
    return state


@pytest.mark.parametrize(("spec", "players"), replayed())
def test_traced_games_replay_through_the_engine_to_the_same_end(
    spec: str, players: list[str], request: pytest.FixtureRequest
) -> None:
    """Five games of each rule set (twelve under slow), every move checked."""
    rules = load_rules(spec)
    sim = FastSimulator(rules, players)
    for game in range(12 if request.node.get_closest_marker("slow") else 5):
        check_replayed(sim, rules, 7, game, players)


def test_a_keep_that_wins_by_its_bank_is_kept_where_the_table_sets_jokers_aside() -> None:
    """V-2 with G-2: at 1,950 of 2,000, 1 1 2 5 5 thrown, the expert's table keeps 1 and
    sets jokers aside to throw on, where the engine's bot keeps 1 and banks the win (a keep,
    then a joker, for the engine): the kernel keeps that keep's hand and banks (game 10)."""
    rules = load_rules("cinq-mille(joker,target=2000)")
    players = ["expert", "expert"]
    sim = FastSimulator(rules, players)
    check_replayed(sim, rules, 7, 10, players)


def test_the_keep_of_most_points_counts_no_joker_as_kept() -> None:
    """Every scoring die kept but the jokers (V-2): from 1 2 3 5 5, keep 1 (the 5s set
    aside as jokers) and keep 5 5 (the 1 a joker) are worth 100 each; the bots that keep
    most points take the fewer dice kept, 1, in their tables as in the engine."""
    spec, players = "dix-mille(keep_all_scoring,joker,target=2500)", ["greedy", "greedy"]
    rules = load_rules(spec)
    sim = FastSimulator(rules, players)
    for game in (2, 3):  # games with such a throw
        check_replayed(sim, rules, 11, game, players)


def test_the_bold_bot_banks_on_a_tie_in_the_engine_as_in_its_table() -> None:
    """At 1700 of an exact 2000 with 250 and one die, banking is worth 250 and the throw
    exactly 50: bold:200 banks (banking is worth its margin more), on both paths."""
    spec, players = "cinq-mille(exact_target,target=2000)", ["bold:200"] * 3
    rules = load_rules(spec)
    sim = FastSimulator(rules, players)
    for game in (27, 53):  # games that reach that tie
        check_replayed(sim, rules, 1, game, players)


def check_replayed(
    sim: FastSimulator,
    rules: RuleSet,
    seed: int,
    game: int,
    players: Sequence[str],
    solutions: GameSolution | None = None,
) -> Tally:
    """Replay one traced game through the engine: the same scores, winners and sheet counts
    (G-3, G-4, G-8, the penalties) as the fast path's tally of that game, returned."""
    events: list[Event] = []
    state = replay(sim, rules, seed, game, players, events, solutions)
    assert state.phase is Phase.OVER, f"game {game} did not end in the engine"
    one = sim.games.play(seed, game, game + 1)
    seats = seating(sim.players, game)
    for s, sheet in enumerate(state.sheets):
        mine = one.per_player[seats[s]]
        assert sheet.score == mine.score, (game, s)
        won = 1.0 / len(state.winners) if s in state.winners else 0.0
        assert mine.wins == won, (game, s)
        assert one.seat_wins[s] == won
    # The sheet (G-3, G-4, G-8): the engine's events, counted as the kernel counts them.
    said = {name: [0] * len(players) for name in SHEET_COUNTS}
    for event in events:
        if isinstance(event, Bumped):
            said["bumps"][seats[event.player]] += 1
            said["bumped"][seats[event.victim]] += 1
        elif isinstance(event, Ticked):
            said["ticks"][seats[event.player]] += 1
        elif isinstance(event, TookBack):
            said["take_backs"][seats[event.player]] += 1
        elif isinstance(event, Penalised):
            said["penalties"][seats[event.player]] += 1
    for name, counts in said.items():
        assert counts == [getattr(p, name) for p in one.per_player], (game, name)
    return one


SOLVED = [
    ("greed(target=1500)", ["optimal", "expert"]),  # F-4: the last turn against the leader
    ("farkle(target=2000)", ["expert", "optimal"]),  # F-4, entry 500
    ("cinq-mille(target=1500)", ["optimal", "greedy"]),  # G-5: five 1s win at once
    ("cinq-mille(last_thousand,target=2000)", ["optimal", "threshold:400"]),  # G-7
    (f"dix-mille({NO_SHEET},target=2000)", ["optimal", "expert"]),  # T-9 exact target
    (f"dix-mille({NO_SHEET},joker,target=1500)", ["expert", "optimal"]),  # V-2, T-9
    ("farkle-minimal(target=2000)", ["optimal", "optimal"]),
    # the sheet, a turn ahead (its sheet-blind model solved): G-3's ticks, G-4's bumps
    ("dix-mille(take_back=false,target=2000)", ["optimal", "expert"]),
    ("dix-mille(take_back=false,bump=any,target=2500)", ["expert", "optimal"]),
    ("dix-mille(take_back=false,fallback_bumps,ticks_to_cross=2,target=2500)", ["optimal"] * 2),
    # and G-8's take-back, the offer valued as the engine's bot values it
    ("dix-mille(target=2000)", ["optimal", "expert"]),  # the preset's full rules
    ("dix-mille(take_back_counts_for_entry=false,target=2000)", ["expert", "optimal"]),
    ("dix-mille-6(target=2500)", ["optimal", "greedy"]),  # T-7 entry by a throw
    ("charentaise(target=2000)", ["optimal", "threshold:400"]),
    # three to six: each end against the most dangerous opponent (``field_turn``)
    ("greed(target=1500)", ["optimal", "expert", "greedy"]),  # F-4 against the leader
    ("impair(target=2000)", ["expert", "optimal", "cautious", "optimal"]),
    ("dix-mille(target=2000)", ["greedy", "optimal", "expert"]),  # the sheet, a turn ahead
    # F-1's counts: each player's farkles in a row, the penalty taking scores below 0
    ("zilch(target=1000)", ["optimal", "expert"]),
    ("facebook-farkle(target=1000)", ["greedy", "optimal"]),
    ("zilch(farkle_penalty_after=2,target=1000)", ["optimal", "threshold:300", "greedy"]),
    # and on a sheet: its sheet-blind model, read by the scores and the counts (no look-ahead)
    ("zilch(ticks_to_cross=2,bump=any,target=1000)", ["optimal", "expert"]),
]


SOLVED_BY_DEFAULT = {
    ("greed(target=1500)", 2),
    ("cinq-mille(target=1500)", 2),
    ("dix-mille(target=2000)", 2),
    ("dix-mille(take_back_counts_for_entry=false,target=2000)", 2),
    ("dix-mille(target=2000)", 3),
}
"""The replays of the default run (one of each piece: F-4, G-5, the sheet with take-back,
points taken apart toward the entry, a field); the others run under ``slow``. F-1's counts
(a replay costs 13 s, most of it the engine's bot solving each pair's turn) are checked by
default table for table (``test_optimal_turns_under_f1_counts_are_the_pair_solvers``)."""


def solved_params() -> list[object]:
    return [
        pytest.param(
            spec,
            players,
            id=f"{spec}-{len(players)}",
            marks=() if (spec, len(players)) in SOLVED_BY_DEFAULT else pytest.mark.slow,
        )
        for spec, players in SOLVED
    ]


@pytest.mark.default_cases(2)
@pytest.mark.parametrize(("spec", "players"), solved_params())
def test_optimal_games_replay_through_the_engine(spec: str, players: list[str]) -> None:
    """``optimal`` on the fast path (each turn solved in the kernel) chooses what the
    engine's ``OptimalBot`` chooses from the same solved game, at every move: eight games
    of each, to the same ends."""
    rules = load_rules(spec)
    model = solved_model(rules)
    assert model is not None
    solution = solve_game(model)
    sim = FastSimulator(rules, players, solution)
    solved = sim.solved.arguments.solves
    assert [bool(solved[p]) for p in sim.pol_of] == [p == "optimal" for p in players]
    for game in range(8):
        check_replayed(sim, rules, 3, game, players, solution)


@pytest.mark.parametrize("spec", ["greed(target=1000)", "dix-mille(target=2000)", "zilch"])
def test_optimal_alone_plays_expert_s_table_as_the_engine_plays_it(spec: str) -> None:
    """Alone, ``optimal`` has no one to beat: the fast path plays expert's table for it,
    solving nothing (there is no opponent's score to read), and the engine's bot chooses
    the same at every move (both crashed before: no opponent's sheet to read)."""
    rules = load_rules(spec)

    def nothing(_: RuleSet) -> GameSolution | None:
        raise AssertionError("a game of one is not solved")

    sim = FastSimulator(rules, ["optimal"], nothing)
    assert not sim.solved.arguments.solves.any()
    expert = FastSimulator(rules, ["expert"])
    assert sim.games.play(4, 0, 300) == expert.games.play(4, 0, 300)
    for game in range(3):
        check_replayed(sim, rules, 5, game, ["optimal"])


def test_optimal_turns_under_f1_counts_are_the_pair_solvers() -> None:
    """Under F-1's counts the kernel solves an ``optimal`` turn as ``PairSolutions`` does
    (``turn``, ``field_turn``) at each player's score and farkles in a row: scores below 0,
    below the solve's floor, a farkle that brings the penalty; the same table, value for
    value. (The replays meet few of these states in eight games.)"""
    rules = load_rules("zilch(farkle_penalty_after=2,target=1000)")
    solution = solve_game(rules, floor=500)  # a floor near 0: a tenth of the default's time
    assert solution.low == -10
    sim = FastSimulator(rules, ["optimal", "greedy", "greedy"], solution)
    solved = sim.solved.arguments
    pairs = PairSolutions(solution)
    unit, low = rules.unit, solution.low
    tables, banks = np.zeros((2, solved.rows, solved.columns)), np.zeros((2, solved.rows))
    ends, n_ends = np.zeros((2, 1, 2), dtype=np.int64), np.zeros(2, dtype=np.int64)
    cases = [
        (0, [(0, 0)], 0),
        (0, [(0, 0)], 1),  # a farkle brings the penalty
        (3, [(-4, 1)], 0),  # the opponent's count read at a bank
        (-7, [(12, 1)], 1),
        (low, [(10, 0)], 1),  # at the floor
        (low - 3, [(0, 1)], 0),  # below it: as at the floor
        (15, [(-10, 1), (2, 0)], 1),  # a field: the least of the chances
        (-2, [(8, 0), (8, 1)], 0),
    ]
    for a, others, fa in cases:
        opp_b = np.asarray([b for b, _ in others], dtype=np.int64)
        opp_f = np.asarray([f for _, f in others], dtype=np.int64)
        height, farkle, _ = _solve_turn(
            a, opp_b, opp_b.copy(), len(others), a, ends, n_ends, 0, fa, opp_f, solved,
            tables, banks, 0,
        )  # fmt: skip
        turn = pairs.field_turn(a * unit, [(b * unit, f) for b, f in others], fa)
        assert height == turn.rows, (a, others, fa)
        assert farkle == turn.values[0, 0], (a, others, fa)
        assert np.array_equal(tables[0, :height, 2:], turn.values[:height, 2:]), (a, others, fa)
        assert np.array_equal(banks[0, :height], turn.bank_values[:height]), (a, others, fa)


def test_optimal_stops_saying_so_where_a_turn_needs_more_rows_than_its_tables() -> None:
    """A last turn (F-4) against a leader far past the target solves more rows than any
    turn before it; past the rows its tables hold (four times a turn's past the target), the
    fast path stops with one line, never reads past them (here the tables made two rows)."""
    rules = load_rules("farkle(target=1500)")
    solution = solve_game(rules)
    sim = FastSimulator(rules, ["optimal", "greedy"], solution)
    arguments = sim.solved.arguments
    assert arguments.rows >= arguments.target + 4 * sim.model.rows
    # its tables: 2 rows
    sim.games = dataclasses.replace(sim.games, solved=arguments._replace(rows=2))
    with pytest.raises(FastPathUnsupported, match="--method engine"):
        sim.games.play(5, 0, 20, threads=1)


def test_optimal_on_the_fast_path_is_refused_where_it_would_play_another_game() -> None:
    """Without a solved game, under F-1's counts with F-4's last turns, with take-back and
    F-4's last turns, the fast path refuses ``optimal`` in one line (the engine plays it,
    and says how)."""
    greed = load_rules("greed(target=1500)")
    with pytest.raises(FastPathUnsupported, match="zloutch solve --game"):
        FastSimulator(greed, ["optimal", "expert"])
    solution = solve_game(greed)
    farkle = load_rules("farkle(take_back,target=1500)")  # take-back with F-4's last turns
    blind = solve_game(load_rules("farkle(target=1500)"))
    with pytest.raises(FastPathUnsupported, match="take-back and final turns"):
        FastSimulator(farkle, ["optimal", "expert"], blind)
    # F-1's counts with F-4 (greed's last turns; its values with counts stand in)
    counted = dataclasses.replace(solution, counts=np.zeros((3, 3, 2, 2)))
    with pytest.raises(FastPathUnsupported, match="F-1's farkles in a row with take-back"):
        FastSimulator(greed, ["optimal", "expert"], counted)
    # --method auto: the engine plays it then, the same bot
    result = simulate(farkle, ["optimal", "expert"], 6, 1, method="auto", solutions=blind)
    assert result.method == "engine"


def test_auto_plays_optimal_on_the_fast_path_where_it_can() -> None:
    """With its solved game, ``--method auto`` plays ``optimal`` on the fast path, and
    the result is the fast path's (the same for any number of threads)."""
    rules = load_rules("greed(target=1500)")
    solution = solve_game(rules)
    auto = simulate(rules, ["optimal", "expert"], 3000, 5, method="auto", solutions=solution)
    assert auto.method == "fast"
    one = simulate_fast(rules, ["optimal", "expert"], 3000, 5, jobs=1, solutions=solution)
    assert [p.wins for p in one.per_player] == [p.wins for p in auto.players]


@pytest.mark.parametrize(
    "spec",
    [
        "zilch(ticks_to_cross=3,bump=any,take_back,farkle_penalty_after=2,target=3000)",
        "farkle(fresh_farkle_penalty=500,ticks_to_cross=2,bump=any,target=2000)",
    ],
)
def test_penalties_on_the_sheet_replay_through_the_engine(spec: str) -> None:
    """F-1's and a blank first throw's levels on a sheet that ticks, bumps and crosses them:
    games are replayed until ten penalties came (at most 60 games), each as the engine
    plays it."""
    rules = load_rules(spec)
    players = ["greedy", "threshold:350"]
    sim = FastSimulator(rules, players)
    penalties = ticks = 0
    for game in range(60):
        one = check_replayed(sim, rules, 3, game, players)
        penalties += sum(p.penalties for p in one.per_player)
        ticks += sum(p.ticks for p in one.per_player)
        if penalties >= 10:
            break
    assert penalties >= 10 and ticks > 0, (penalties, ticks)


SHEET_OPTIONS: dict[str, Sequence[object]] = {
    "ticks_to_cross": (0, 1, 2, 3),
    "ticks_restart": (True, False),
    "bump": ("off", "current", "any"),
    "fallback_bumps": (True, False),
    "take_back": (True, False),
    "take_back_counts_for_entry": (True, False),
    "reentry": (True, False),
    "entry": (0, 300, 500, 800),
    "exact_target": (True, False),
    "petit_palier": (True, False),
    "last_thousand": (True, False),
    "final_turns": (True, False),
    "target": (1500, 2000, 3000),
    "joker": (True, False),
    "final_round": (True, False),
    "farkle_penalty": (0, 0, 500),
    "fresh_farkle_penalty": (0, 0, 500, 1000),
    "overshoot": ("lost", "lost", "throw_on"),
}
"""The options of the sheet and of the game's end, drawn at random for the replay below."""


def random_option_set(seed: int) -> tuple[str, list[str]]:
    """A rule set of random sheet options on a random base, and a random line-up."""
    rng = random.Random(seed)
    while True:
        base = rng.choice(("dix-mille", "dix-mille-6", "cinq-mille", "farkle"))
        chosen = {name: rng.choice(values) for name, values in SHEET_OPTIONS.items()}
        words = [f"{n}={str(v).lower()}" for n, v in sorted(chosen.items())]
        spec = f"{base}({','.join(words)})"
        try:
            rules = load_rules(spec)
        except ZloutchError:
            continue  # options that do not go together: another draw
        if fast_unsupported(rules) is None:
            break
    bots = ("expert", "greedy", "cautious", "threshold:350")
    return spec, [rng.choice(bots) for _ in range(rng.choice((2, 3)))]


@pytest.mark.parametrize(
    "seed", [*range(2), *(pytest.param(s, marks=pytest.mark.slow) for s in range(2, 40))]
)
def test_random_option_sets_replay_through_the_engine(seed: int) -> None:
    """Random sheets and game ends (ticks, bumps, take-back, entry, exact target, G-7, F-4):
    every traced game ends in the engine with the same scores, winners and sheet counts,
    and every choice is the engine bot's own."""
    spec, players = random_option_set(seed)
    rules = load_rules(spec)
    sim = FastSimulator(rules, players)
    for game in range(4):
        events: list[Event] = []
        state = replay(sim, rules, seed, game, players, events)
        assert state.phase is Phase.OVER, (spec, game)
        one = sim.games.play(seed, game, game + 1)
        seats = seating(sim.players, game)
        for s, sheet in enumerate(state.sheets):
            assert sheet.score == one.per_player[seats[s]].score, (spec, game, s)
        ticks = [0] * len(players)
        for event in events:
            if isinstance(event, Ticked):
                ticks[seats[event.player]] += 1
        assert ticks == [p.ticks for p in one.per_player], (spec, game)


def two_proportions_z(p1: float, n1: int, p2: float, n2: int) -> float:
    pooled = (p1 * n1 + p2 * n2) / (n1 + n2)
    se = math.sqrt(max(pooled * (1 - pooled), 1e-12) * (1 / n1 + 1 / n2))
    return abs(p1 - p2) / se


def ks_distance(a: dict[int, int], b: dict[int, int]) -> tuple[float, int, int]:
    """The two-sample Kolmogorov-Smirnov statistic of two histograms."""
    na, nb = sum(a.values()), sum(b.values())
    ca = cb = 0
    worst = 0.0
    for x in sorted(set(a) | set(b)):
        ca += a.get(x, 0)
        cb += b.get(x, 0)
        worst = max(worst, abs(ca / na - cb / nb))
    return worst, na, nb


AGREEMENT = [
    ("farkle", ["expert", "threshold:300"]),
    # Smaller targets keep the engine side quick (the expert solves a turn per score there).
    ("cinq-mille(target=2500)", ["expert", "greedy"]),
    (f"dix-mille({NO_SHEET},target=3000)", ["threshold:400", "expert"]),
    ("dix-mille(target=3000)", ["expert", "threshold:300"]),  # the sheet: G-3, G-4, G-8
]


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "players"), AGREEMENT)
def test_fast_path_agrees_with_the_engine_in_distribution(spec: str, players: list[str]) -> None:
    """Win rates, farkle rates and bank sizes: differences within sampling error.

    Both sides are seeded, so the test is deterministic; the bounds (|z| < 3.5, the KS
    distance under its 0.1% critical value) fail for a real difference of a few percent.
    """
    rules = load_rules(spec)
    engine = simulate(rules, players, 600, seed=11, jobs=2)
    fast = simulate(rules, players, 20_000, seed=11, method="fast")
    assert engine.method == "engine" and fast.method == "fast"
    for e, f in zip(engine.players, fast.players, strict=True):
        assert two_proportions_z(e.win_rate, e.finished, f.win_rate, f.finished) < 3.5
        assert two_proportions_z(e.farkle_rate, e.turns, f.farkle_rate, f.turns) < 3.5
        d, na, nb = ks_distance(dict(e.banks), dict(f.banks))
        assert d < 1.95 * math.sqrt((na + nb) / (na * nb)), (e.name, d)
        assert e.average_turns == pytest.approx(f.average_turns, rel=0.06)
    for e_seat, f_seat in zip(engine.seats, fast.seats, strict=True):
        assert two_proportions_z(e_seat.win_rate, e_seat.games, f_seat.win_rate, f_seat.games) < 3.5


def tallies_equal(a: Tally, b: Tally) -> bool:
    return (
        a.games == b.games
        and a.finished == b.finished
        and a.turns == b.turns
        and a.per_player == b.per_player
        and a.seat_wins == b.seat_wins
        and a.unfinished_games == b.unfinished_games
    )


def test_results_do_not_depend_on_threads_chunks_or_batches() -> None:
    rules = load_rules("farkle")
    players = ["expert", "greedy"]
    sim = FastSimulator(rules, players)
    whole = sim.games.play(3, 0, 900, chunks=1)
    cut = sim.games.play(3, 0, 400, chunks=5)
    cut.merge(sim.games.play(3, 400, 900, chunks=13))
    assert tallies_equal(whole, cut)
    batched = simulate_fast(rules, players, 900, 3, batch=250, jobs=1)
    assert tallies_equal(whole, batched)
    threaded = simulate_fast(rules, players, 900, 3, batch=900, jobs=2)
    assert tallies_equal(whole, threaded)
    assert not tallies_equal(whole, sim.games.play(4, 0, 900))  # another seed, other games


def test_ties_of_three_tally_the_same_whatever_the_calls() -> None:
    """A tie of three shares a win in thirds, which a float adds up differently in another
    grouping; the kernel counts a win as ``win_unit`` whole parts, so a run cut into calls
    of any size, on any threads, or merged from ranges gives one tally to the last bit."""
    rules = load_rules("farkle(target=600,entry=0)")
    players = ["threshold:300"] * 3
    sim = FastSimulator(rules, players)
    assert sim.win_unit == 6
    whole = simulate_fast(rules, players, 20_000, 5, batch=20_000, jobs=1)
    assert any((2 * p.wins) % 1 for p in whole.per_player)  # thirds: ties of three were met
    assert tallies_equal(whole, simulate_fast(rules, players, 20_000, 5, batch=900, jobs=2))
    counts = sim.games.play_sums(5, 0, 1700)
    counts.merge(sim.games.play_sums(5, 1700, 20_000, chunks=7))
    assert tallies_equal(whole, sim.games.tally(counts))


def test_the_dice_drawn_are_the_ones_the_fast_path_has_always_drawn() -> None:
    """The generator and the throw pinned: the replays check the kernel's games against the
    engine with the dice the kernel drew, so only this says the draws did not change (the
    same games from one version to the next). Seed 1, game 0's first rolls (six dice), and
    2,000 games of two ``threshold:300``, as the fast path gave them before the kernel's
    changes of 2026-12-05 (checked on that tree) and gives them after; since the bots play
    their last turn (F-4) on the lead (``bots.last_turn_move``), the same turns and dice with
    more farkles in the last turns: the scores, wins and farkles below (before: 1046.5,
    18772150, 9622 and 953.5, 18588600, 9834)."""
    sim = FastSimulator(load_rules("farkle"), ["threshold:300"] * 2)
    rolls = [
        sim.roll_faces(value) for kind, value in sim.games.trace_game(1, 0) if kind == TRACE_ROLL
    ]
    assert rolls[:6] == [
        (1, 6, 6, 6, 6, 6),
        (1, 1, 2, 4, 5, 6),
        (1, 1, 2),
        (2,),
        (1, 2, 2, 2, 4, 6),
        (1, 1, 3, 3, 5, 5),
    ]
    tally = sim.games.play(1, 0, 2000)
    assert tally.turns == 84602
    assert [(p.wins, p.score, p.turns, p.farkles) for p in tally.per_player] == [
        (1038.0, 18505550, 42288, 10269),
        (962.0, 18306650, 42314, 10527),
    ]


@pytest.mark.default_cases(2)
@pytest.mark.parametrize(
    ("spec", "players", "picks"),
    [
        ("farkle", ["threshold:300", "threshold:500"], [True, True]),
        (  # the default run's second case (the first two run by default)
            "dix-mille(overshoot=throw_on,joker,target=3000)",
            ["expert", "threshold:300"],
            [False, False],
        ),
        ("farkle", ["cautious", "greedy"], [True, True]),
        (
            "zilch(ticks_to_cross=2,bump=any,take_back,target=3000)",
            ["threshold:350", "expert"],
            [True, False],
        ),
        (
            "farkle(joker,take_back,bump=any,ticks_to_cross=3,target=3000)",
            ["threshold:350"] * 3,
            [True],
        ),
        # an exact target (T-9): the keeps read the score, so every policy takes the general path
        ("greed(exact_target)", ["threshold:300", "greedy"], [False, False]),
    ],
)
def test_a_keep_read_in_one_row_plays_the_general_paths_games(
    spec: str, players: list[str], picks: list[bool]
) -> None:
    """The keep of a policy that reads the roll alone (``pick``), read in one row, against
    the general path (the roll's first option, the keep's offset, the option), which every
    policy takes with ``pick_base`` at -1: the same moves, the same counts."""
    sim = FastSimulator(load_rules(spec), players)
    assert list(sim.pick_base >= 0) == picks
    picked = sim.games.play_sums(3, 0, 600, threads=1)
    traces = [sim.games.trace_game(3, game) for game in range(20)]
    sim.pick_base[:] = -1
    general = sim.games.play_sums(3, 0, 600, threads=1)
    assert (picked.sums == general.sums).all() and (picked.banks == general.banks).all()
    assert (picked.turns, picked.finished) == (general.turns, general.finished)
    assert traces == [sim.games.trace_game(3, game) for game in range(20)]


PLAIN = [
    ("farkle", ["threshold:300", "threshold:300"]),  # F-4's last turns
    ("farkle", ["greedy", "cautious", "threshold:1000", "threshold:350"]),
    ("greed", ["threshold:300"]),  # one player alone
    ("cinq-mille", ["threshold:350", "greedy"]),  # G-2: the bank that wins at once; G-5
    # G-2: a keep after which a bank wins at once, where the bot's own keep falls short (it
    # never does in the presets above: their bots' keeps already reach the target there)
    (f"dix-mille({NO_SHEET},exact_target=false)", ["threshold:300", "threshold:300"]),
    ("impair(target=3000)", ["cautious", "threshold:500", "greedy"]),
    ("zilch(target=3000)", ["threshold:300", "cautious"]),  # F-1's counts and penalty
    ("facebook-farkle(target=3000)", ["greedy", "threshold:1000"]),
    # V-2 in the rules (these bots never set jokers aside: the games are the same all the same)
    ("farkle(joker,target=3000)", ["threshold:350", "greedy"]),
    ("cinq-mille(joker,entry=0)", ["threshold:300", "cautious", "greedy"]),
    ("greed(take_back,target=3000)", ["greedy"]),  # one player alone: no offer to make
    ("farkle(fresh_farkle_penalty=500,target=3000)", ["threshold:300", "greedy"]),
]
"""Plain games (``FastGames.plain``): every rule the plain loop reads, each somewhere."""


def same_games(games: FastGames, seed: int, n: int, **options: int) -> None:
    """Both loops play ``n`` games of ``games`` to the same counts, and 20 to the same moves."""
    plain = games.play_sums(seed, 0, n, threads=1, plain=True, **options)
    general = games.play_sums(seed, 0, n, threads=1, plain=False, **options)
    assert (plain.sums == general.sums).all() and (plain.banks == general.banks).all()
    assert (plain.turns, plain.finished) == (general.turns, general.finished)
    assert plain.unfinished_games == general.unfinished_games
    for game in range(20):
        assert games.trace_game(seed, game, plain=True) == games.trace_game(
            seed, game, plain=False
        ), game


@pytest.mark.parametrize(("spec", "players"), PLAIN)
def test_plain_games_play_the_general_loops_games_move_for_move(
    spec: str, players: list[str]
) -> None:
    """The plain loop (``_play_plain_games``) against the general one (``_play_games``):
    the same moves, the same counts (wins, ties, scores, farkles, penalties, banks)."""
    games = FastSimulator(load_rules(spec), players).games
    assert games.plain
    same_games(games, 11, 1500)
    totals = games.play(11, 0, 1500, threads=1)
    assert totals.finished == 1500 and sum(p.wins for p in totals.per_player) == 1500
    if "zilch" in spec or "facebook" in spec or "fresh" in spec:
        assert sum(p.penalties for p in totals.per_player) > 0  # a penalty was played


def test_plain_games_stopped_at_the_turn_limit_are_the_general_loops() -> None:
    games = FastSimulator(load_rules("farkle"), ["cautious", "threshold:300"]).games
    same_games(games, 4, 300, max_turns=12)
    assert games.play_sums(4, 0, 300, max_turns=12).finished < 300


@pytest.mark.parametrize(
    ("spec", "players"),
    [
        ("dix-mille", ["threshold:300", "greedy"]),  # the sheet: levels crossed, take-back
        (f"dix-mille({NO_SHEET})", ["threshold:300", "greedy"]),  # T-9: a turn lost past it
        (f"dix-mille({NO_SHEET},exact_target=false,last_thousand)", ["greedy", "greedy"]),
        ("farkle", ["threshold:300", "expert"]),  # the expert keeps by the score
        ("farkle(ticks_to_cross=3)", ["greedy", "greedy"]),
        ("farkle(take_back,target=3000)", ["greedy", "cautious"]),
    ],
)
def test_games_the_plain_loop_cannot_play_take_the_general_one(
    spec: str, players: list[str]
) -> None:
    games = FastSimulator(load_rules(spec), players).games
    assert not games.plain
    with pytest.raises(ValueError, match="not plain"):
        games.play_sums(1, 0, 10, plain=True)
    with pytest.raises(ValueError, match="not plain"):
        games.trace_game(1, 0, plain=True)


@pytest.mark.parametrize(
    "seed", [*range(3), *(pytest.param(s, marks=pytest.mark.slow) for s in range(3, 40))]
)
def test_random_plain_option_sets_play_the_general_loops_games(seed: int) -> None:
    """Random game ends, entries, jokers and penalties on the bases of plain games, and
    random line-ups of the bots that keep by the roll: where the games are plain, both
    loops play them move for move."""
    rng = random.Random(seed)
    options = {
        "entry": (0, 300, 500, 1000),
        "reentry": (True, False),
        "final_turns": (True, False),
        "target": (1500, 3000, 5000),
        "joker": (True, False),
        "farkle_penalty": (0, 0, 500),
        "fresh_farkle_penalty": (0, 0, 500),
    }
    options["farkle_penalty_after"] = (1, 2, 3)
    while True:
        base = rng.choice(("farkle", "cinq-mille", "greed", "zilch", "impair", "farkle-minimal"))
        chosen = {name: rng.choice(values) for name, values in options.items()}
        spec = f"{base}({','.join(f'{n}={str(v).lower()}' for n, v in sorted(chosen.items()))})"
        try:
            rules = load_rules(spec)
        except ZloutchError:
            continue  # options that do not go together: another draw
        if fast_unsupported(rules) is not None:
            continue
        count = min(max(rng.randint(1, 8), rules.game.min_players), rules.game.max_players)
        bots = ("greedy", "cautious", "threshold:300", "threshold:350", "threshold:1000")
        games = FastSimulator(rules, [rng.choice(bots) for _ in range(count)]).games
        if games.plain:
            break
    same_games(games, seed, 800)


def reference_dice(seed: int, game: int) -> Iterator[int]:
    """The faces of game ``game``'s dice in the order drawn, by plain integers: SplitMix64
    from the seed's key (``seed_key``) and the game's index, a face from a draw's top half."""
    mask = (1 << 64) - 1
    golden = 0x9E3779B97F4A7C15

    def mix(z: int) -> int:
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    state = mix(int(seed_key(seed)) ^ ((game * golden) & mask))
    while True:
        state = (state + golden) & mask
        yield ((mix(state) >> 32) * 6 >> 32) + 1


@pytest.mark.parametrize("spec", ["farkle", "dix-mille(joker,target=3000)", "greed"])
def test_every_roll_of_a_traced_game_is_the_plain_generators(spec: str) -> None:
    """Each roll a game's trace shows is the next dice of the plain generator, sorted: the
    kernel's throw (``_throw``, straight-line) draws what the plain loop draws."""
    sim = FastSimulator(load_rules(spec), ["threshold:300", "expert"])
    for game in range(4):
        dice = reference_dice(3, game)
        rolls = [
            sim.roll_faces(v) for kind, v in sim.games.trace_game(3, game) if kind == TRACE_ROLL
        ]
        assert len(rolls) > 5
        for faces in rolls:
            assert faces == tuple(sorted(next(dice) for _ in faces)), (game, faces)


def test_a_batch_of_no_games_is_refused() -> None:
    with pytest.raises(SimulationError, match="at least 1 game, not 0"):
        simulate_fast(load_rules("farkle"), ["greedy", "greedy"], 10, 1, batch=0)


def test_games_stopped_at_the_turn_limit_are_counted_unfinished() -> None:
    rules = load_rules("farkle")
    tally = simulate_fast(rules, ["cautious", "cautious"], 50, 1, max_turns=5)
    assert tally.finished == 0 and len(tally.unfinished_games) == 50
    assert tally.turns == 50 * 6
    assert sum(p.wins for p in tally.per_player) == 0
    assert sum(p.score for p in tally.per_player) > 0  # banked scores still count


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("zilch(exact_target)", "(F-1) where the score changes the turn"),
        (
            "cinq-mille(joker,exact_target,overshoot=throw_on,target=2000)",
            "jokers (V-2) with throws past an exact target (T-9, overshoot = throw_on) where",
        ),
        (
            "dix-mille(fresh_farkle_penalty=1000)",
            "a blank first throw (fresh_farkle_penalty) where the score changes the turn",
        ),
    ],
)
def test_rule_sets_it_cannot_play_are_named_with_the_reason(spec: str, words: str) -> None:
    reason = fast_unsupported(load_rules(spec))
    assert reason is not None and words in reason
    with pytest.raises(FastPathUnsupported, match="fast path"):
        simulate(load_rules(spec), ["expert", "greedy"], 10, 1, method="fast")


@pytest.mark.parametrize("bot", ["random", "optimal"])
def test_bots_that_are_not_tables_are_refused_or_left_to_the_engine(bot: str) -> None:
    rules = load_rules("farkle-minimal(target=1000)")
    with pytest.raises(FastPathUnsupported, match=bot):
        simulate(rules, [bot, "greedy"], 10, 1, method="fast")
    auto = simulate(rules, [bot, "greedy"], 10, 1, method="auto", jobs=1)
    assert auto.method == "engine" and auto.games == 10


def test_auto_takes_the_fast_path_when_it_can() -> None:
    rules = load_rules("farkle-minimal")
    assert simulate(rules, ["expert", "greedy"], 10, 1, method="auto").method == "fast"
    zilch = load_rules("zilch(ticks_to_cross=3)")  # F-1 with the sheet: fast too
    assert simulate(zilch, ["greedy"] * 2, 5, 1, method="auto").method == "fast"
    exact = load_rules("zilch(exact_target)")  # F-1 where the score changes the turn
    assert simulate(exact, ["greedy"] * 2, 5, 1, method="auto").method == "engine"
    with pytest.raises(SimulationError, match="--method"):
        simulate(rules, ["greedy"] * 2, 5, 1, method="quick")


def run_cli(args: Sequence[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cli_method_flag(tmp_path: object) -> None:
    import json
    from pathlib import Path

    out = Path(str(tmp_path)) / "sim.json"
    code, _, _ = run_cli(
        ["simulate", "-r", "farkle", "-p", "expert,greedy", "-n", "2000", "--seed", "5",
         "--method", "fast", "--json", str(out), "-q"]
    )  # fmt: skip
    assert code == 0
    document = json.loads(out.read_text())
    assert document["method"] == "fast" and document["games"] == 2000
    assert sum(p["wins"] for p in document["players"]) == document["finished"]
    code, _, err = run_cli(["simulate", "-r", "zilch(exact_target)", "--method", "fast", "-n", "5"])
    assert code == 2 and "error: the fast path does not play the consecutive-farkle" in err
    code, _, err = run_cli(["simulate", "-r", "farkle", "--method", "warp", "-n", "5"])
    assert code == 2 and "--method is one of auto, engine, fast" in err


def test_a_unit_too_fine_for_the_fast_paths_tables_goes_to_the_engine(tmp_path: Path) -> None:
    """A combination worth 98,967 makes the rule set's unit 1 point: 10,000 steps to the
    target, tables of 10^8 cells by score and total (minutes to build). The fast path says
    so; ``auto`` plays the engine path at once."""
    from zloutch.sim.fast import MAX_TARGET_UNITS, fast_unsupported

    path = tmp_path / "fine.toml"
    path.write_text(
        '[rules]\nname = "fine"\nextends = "farkle"\n[scoring]\nkinds = { 3 = 98967 }\n'
    )
    rules = load_rules(str(path))
    reason = fast_unsupported(rules)
    assert reason is not None and "10,000 steps of 1 point" in reason
    assert f"at most {MAX_TARGET_UNITS:,} steps" in reason
    with pytest.raises(SimulationError, match="10,000 steps"):
        simulate(rules, ["expert", "greedy"], 2, 1, jobs=1, method="fast")
    result = simulate(rules, ["greedy", "cautious"], 2, 1, jobs=1)
    assert result.method == "engine" and result.games == 2
    assert fast_unsupported(load_rules("farkle")) is None  # 200 steps of 50


def test_the_first_call_of_the_kernel_in_a_process_is_announced_before_the_games() -> None:
    """Before the kernel's first call in a process (Numba loads it, or compiles it on a
    first run: 10 s and more) the run says so through ``status``, once, before any games
    are counted; before that, that it builds the tables, each time it does (here: no cache),
    and that nothing is left to wait for once they are built and the kernel is loaded.
    ``zloutch simulate`` shows it in its progress bar. The engine says nothing."""
    import subprocess
    import sys

    child = """
import json
from zloutch.rules import load_rules
from zloutch.sim import simulate
from zloutch.sim.fast import BUILDING, FIRST_CALL, kernel_loaded
rules = load_rules("farkle")
said = []
loaded = [kernel_loaded()]
for method in ("engine", "fast", "fast"):
    simulate(rules, ["greedy", "greedy"], 20, 1, jobs=1, method=method,
             progress=lambda done: said.append(done), status=said.append)
    loaded.append(kernel_loaded())
print(json.dumps([said, loaded, FIRST_CALL, BUILDING]))
"""
    out = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    said, loaded, first, building = __import__("json").loads(out)
    assert loaded == [False, False, True, True]
    engine_end = said.index(20)  # the engine's games, then the first fast run's
    assert first not in said[:engine_end] and building not in said[:engine_end]
    assert said[engine_end + 1 :] == [building, first, 20, building, "", 20]
