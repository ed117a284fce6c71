"""The fast path of ``zloutch simulate``: many games at once on arrays, compiled by Numba.

The engine (``zloutch.sim.runner``) is the reference: it plays every rule of every rule set,
one immutable state at a time. This module plays every rule set but those with a penalty
(F-1's, or a blank first throw's) where the score changes the turn (its tables start at a
score of 0), and jokers thrown on past an exact target where a throw wins at once (the
bots' ties there break another way), with policies that can be written as tables:

- the turn, as the compiled turn (``zloutch.engine.compiled``, whose layout it keeps)
  flattened to arrays: throw nodes, each roll of a node (indexed by its faces, base-7 code
  of the counts), each roll's options ``(points, destination)``, decision nodes and the
  throw each one leads to; and the end of the game (``GameEnd``: T-9, G-2, G-7, F-4, and
  G-6's final round: the first to reach the target holds it until the round is finished,
  and a player who also reaches it crosses the holder's level and opens a new round);
- jokers (V-2), as the compiled turn has them: a keep's options include those that set
  jokers aside and throw the other dice (a throw node that remembers the jokers), and a
  farkle with jokers aside is an option worth nothing that throws them; a keep past an
  exact target ends the turn there too, whether it leads to a decision or to a throw (with
  ``overshoot = "throw_on"`` the player throws on instead, every decision a throw);
- F-1, as each player's farkles in a row and a level written at the penalty (the score may
  go below 0); the expert's turn is the long run's for that count (``solve_average_reward``);
  a blank first throw's penalty (``fresh_farkle_penalty``) likewise, on the turn's first
  throw of every die (not a take-back's);
- the sheet (G-3 ticks, G-4 bumps, G-8 take-back), as each player's stack of the levels
  not crossed, with the ticks beside each and whether a penalty wrote it (such a level
  enters no one): without a penalty a bank writes a level above the others, so the stack is
  sorted and as deep as the target has steps; a penalty writes one below, up to two a turn,
  so the stack is as deep as the turns allow. A crossing pops it, a bump on any level
  (``bump = "any"``) takes those equal to it out; the bumps a crossing sets off
  (``fallback_bumps``) run on a stack of frames, in the engine's order. Where no level is
  ever crossed (no ticks, no bumps, no final round) the stack keeps the last level alone;
- a policy, as three tables: the option it keeps for every (situation, turn total, roll),
  whether it banks at every (situation, turn total, decision node), banking rules included
  (``CompiledTurn.bankable``), and whether it takes back (G-8) a total left at a decision
  node. Situations are the compiled turn's (``Situation.normalise``: entered or not, the
  score where the rule set makes it matter, and the points taken back where they count
  apart toward the entry). Where a policy keeps by the roll alone (one situation, one
  turn total), its keep of every roll is also one row (``FastSimulator._picks``): the
  option, its points, its column and the hand that column is, read in one step. Where every
  seat's policy keeps so and the sheet holds one score a seat, with no take-back, G-7 cut
  nor T-9 loss (``FastGames.plain``), the games are played by a loop of their own
  (``_play_plain_games``), the same games move for move, a fifth faster.

The bots that tabulate give their own tables (``zloutch.strategy.tables``): ``cautious``,
``threshold:N``, ``greedy`` (``zloutch.strategy.bots``), ``expert`` (the turn solver's
choices, ties broken as the engine bot breaks them: banking before throwing) and ``bold``
(the expert's, banking only by its margin). ``optimal``
reads its choices from the values inside a turn at each pair of scores, too many to store:
the kernel solves each of its turns as the game solver solves one pair (``SolvedTurns``,
``_solve_turn``; at a table of three to six, each end against the most dangerous opponent,
as the engine's bot): where the sheet has a history (dix-mille), on its
sheet-blind model looking one turn ahead on the sheet (``_sheet_ends``), and answering a
take-back offer as the bot does; under F-1's counts, each player's farkles in a row read
as the bot reads them (``PairSolutions.inputs``; on a sheet, its sheet-blind model by the
scores and the counts, without the look-ahead, as the bot); not with a blank first throw's
penalty, take-back with F-4's last turns, nor F-1's counts with either. ``random`` is not a table:
it stays on the engine path.

Each game ``g`` draws its dice from its own generator (SplitMix64 seeded by the simulation's
seed and ``g``) and seats players as the engine path does (``seating``), so results depend on
the seed alone, not on the number of threads nor on how the games are cut into batches. The
dice differ from the engine path's (another generator), so the two agree in distribution,
not game by game; ``trace_game`` returns one game's dice and choices, which the tests replay
through the engine to the same scores.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from zloutch.engine.compiled import WIN, CompiledTurn, GameEnd, Hand, Situation, ThrowNode
from zloutch.engine.game import wins_at_target
from zloutch.engine.state import TakeBackOffer
from zloutch.rules import RuleSet
from zloutch.sim.runner import MAX_TURNS, SimulationError, Tally, check_setup
from zloutch.strategy.bots import make_bot
from zloutch.strategy.expert import PASSING, long_run
from zloutch.strategy.tables import PolicyTable, TableFrame, Tabulated, keep_ranks
from zloutch.strategy.turn_solver import TurnModel, turn_cap

if TYPE_CHECKING:  # the game solver is imported only where a seat plays optimal
    from zloutch.strategy.game_solver import GameSolution
    from zloutch.strategy.optimal import OptimalBot, SolutionSource
    from zloutch.strategy.policy import Policy

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]

KIND_FARKLE, KIND_WIN, KIND_HAND, KIND_THROW = 0, 1, 2, 3
TRACE_ROLL, TRACE_KEEP, TRACE_BANK, TRACE_THROW, TRACE_TAKE, TRACE_FRESH = 0, 1, 2, 3, 4, 5
"""Trace records (kind, value): a roll (its index), a keep (its option), bank, throw again,
take back the offer on the table (G-8), start fresh instead."""
SHEET_COUNTS = ("bumps", "bumped", "ticks", "take_backs", "penalties")
"""What the kernel counts of each player's sheet, as ``PlayerTally`` names it."""
_COUNTED = len(SHEET_COUNTS)
BUMP_OFF, BUMP_CURRENT, BUMP_ANY = 0, 1, 2
"""G-4, as the kernel reads ``bump``."""
BATCH = 20_000
"""Games of each chunk a cluster plays (``zloutch.sim.cluster``)."""
FIRST_BATCH = 1_000
"""Games of the first kernel call of ``simulate_fast``, and the fewest of any later one
(the progress bar moves once per call); later calls grow toward ``BATCH_SECONDS``. Small:
a line-up with ``optimal`` plays a few hundred games a second, and a first call of 20,000
held the bar at "loading" for a minute after the kernel was loaded."""

BATCH_SECONDS = 0.25
"""About how long ``simulate_fast`` makes each kernel call after the first: long enough that
a call's own cost (its threads started, its arguments typed, its threads waiting for the
last chunk) is a few thousandths of it, short enough that the progress bar moves."""

SUMS = ("score", "turns", "farkles", "wins", "seat_wins")
"""What the kernel adds up, a chunk's row of sums by player (``seat_wins`` by seat), the
sheet's counts (``SHEET_COUNTS``) after them: what a tally reads, not a row a game."""
_SCORE, _TURNS, _FARKLES, _WINS, _SEAT_WINS = range(len(SUMS))
_SHEET_AT = len(SUMS)
_PENALTIES = SHEET_COUNTS.index("penalties")


class FastPathUnsupported(SimulationError):
    """A rule set or a player the fast path cannot play (the engine path can)."""


# ---------------------------------------------------------------------------- the model


MAX_TARGET_UNITS = 2500
"""The fast path's game-end tables hold a row for each score up to the target and a column
for each turn total, counted in the rule set's unit (the greatest common divisor of its
points): a unit of 50 makes 200 steps to 10,000, a combination worth 98,967 makes the unit
1 and 10,000 steps, a table of 10^8 cells built in minutes. Past this many steps the engine
path plays the rule set (``--method auto``), or ``--method fast`` says why not."""


def fast_unsupported(rules: RuleSet) -> str | None:
    """Why the fast path cannot play this rule set (None: it can)."""
    t = rules.turn
    reasons: list[str] = []
    penalties = [
        name
        for name, points in (
            ("the consecutive-farkle penalty (F-1)", t.farkle_penalty),
            ("the penalty for a blank first throw (fresh_farkle_penalty)", t.fresh_farkle_penalty),
        )
        if points
    ]
    if penalties and Situation.score_matters(rules):
        reasons.append(
            f"{' and '.join(penalties)} where the score changes the turn (its tables start "
            "at a score of 0, and a penalty takes the score below it)"
        )
    g = rules.game
    throw_on = g.exact_target and g.overshoot == "throw_on"
    if throw_on and rules.variants.joker and "win" in rules.kinds_values().values():
        # Past the target every choice is worth the same to the bots (a lost turn); the
        # engine's bot then sets jokers aside where the tables throw, which changes the
        # chance of a throw that wins at once.
        reasons.append(
            "jokers (V-2) with throws past an exact target (T-9, overshoot = throw_on) "
            "where a throw wins at once"
        )
    try:
        import numba  # noqa: F401
    except ImportError:  # pragma: no cover - numba is a dependency
        reasons.append("compiled kernels (numba is not installed)")
    target = -(-rules.game.target // rules.unit)
    if target > MAX_TARGET_UNITS:
        reasons.append(
            f"a target of {target:,} steps of {rules.unit} point{'s' * (rules.unit > 1)} "
            f"(its tables by score and total grow as the square: at most "
            f"{MAX_TARGET_UNITS:,} steps)"
        )
    if not reasons:
        return None
    return "the fast path does not play " + ", ".join(reasons)


@dataclass(frozen=True, eq=False)
class FastModel:
    """The turn graph and the game's rules of one rule set, as flat arrays."""

    rules: RuleSet
    model: TurnModel
    compiled: CompiledTurn
    unit: int
    end: GameEnd
    """How banks and overshoots end turns and the game (T-9, G-2, G-7, F-4)."""
    start_col: int
    col_kind: Ints
    col_idx: Ints
    node_dice: Ints
    roll_base: Ints
    """``roll_base[k] + j``: roll ``j`` (in ``multisets(n)`` order) of throw node ``k``."""
    code_local: Ints
    """``code_local[face_code(dice)]``: the index ``j`` of a roll among the rolls of its size."""
    opt_start: Ints
    opt_pts: Ints
    opt_dest: Ints
    hand_throw_col: Ints
    situations: tuple[Situation, ...]
    sit_of: Ints
    """``sit_of[score, entered, z]``: the index of the situation of a player at that score
    with ``z`` farkles in a row (F-1: the long run's turn depends on them; else one z)."""
    farkles: tuple[int, ...]
    """Each situation's farkles in a row (0 but under F-1's long run)."""
    rows: int
    """Turn totals tabulated; totals past the last row use the last row."""
    throw_nodes: tuple[ThrowNode, ...]
    hands: tuple[Hand, ...]
    hand_take_col: Ints
    """G-8: the column of the throw of a turn taken back from a bank at hand ``h`` (-1: no
    take-back, or a full hand: no offer)."""
    taken: Ints
    """``taken[s, t]``: the situation of a player in situation ``s`` who takes back ``t``
    units (see ``TableFrame``)."""
    depth: int
    """Room for each player's levels not crossed where banks alone write them: one per step
    of the target, and more (under a penalty, ``FastGames.stack_depth``)."""

    @property
    def rolls(self) -> int:
        return int(self.opt_start.shape[0] - 1)


def fast_model(rules: RuleSet) -> FastModel:
    """Flatten the turn graph of ``rules`` (refused with the reason when unsupported)."""
    reason = fast_unsupported(rules)
    if reason:
        raise FastPathUnsupported(reason)
    model = TurnModel(rules)
    flat = model.compiled.flat  # the compiled turn's flat form, taken as it is
    unit = rules.unit
    g = rules.game
    target = -(-g.target // unit)
    throws = tuple(model.compiled.throw_order)  # the flat form's node order
    hands = tuple(model.hands)
    width = flat.columns
    kind = np.full(width, KIND_FARKLE, dtype=np.int64)
    idx = np.zeros(width, dtype=np.int64)
    kind[WIN] = KIND_WIN
    kind[flat.node_col] = KIND_THROW
    idx[flat.node_col] = np.arange(len(throws))
    kind[flat.hand_col] = KIND_HAND
    idx[flat.hand_col] = np.arange(len(hands))
    # Situations: entered or not, the score where it matters (the turn solver's keys), and
    # under F-1 the farkles in a row where the turn is valued for the long run.
    situations: dict[tuple[Situation, int], int] = {}
    counts = max(rules.turn.farkle_penalty_after, 1) if rules.turn.farkle_penalty else 1
    sit_of = np.zeros((target + 1, 2, counts), dtype=np.int64)
    for a in range(target + 1):
        for entered in (False, True):
            s = Situation.normalise(rules, entered, a * unit)
            for z in range(counts):
                key = (s, z if long_run(rules, entered, a * unit) else 0)
                sit_of[a, int(entered), z] = situations.setdefault(key, len(situations))
    # T-9: an exact target bounds the total; else the turn solver's cap (totals past it bank).
    caps = [turn_cap(rules, s) // unit + 1 for s, _ in situations]
    rows = target + 1 if g.exact_target else max(caps)
    hand_take_col, taken = _take_back(model.compiled, hands, situations, sit_of, rows)
    return FastModel(
        rules=rules,
        model=model,
        compiled=model.compiled,
        unit=unit,
        end=model.compiled.game_end(rows),
        start_col=flat.start_col,
        col_kind=kind,
        col_idx=idx,
        node_dice=flat.node_dice,
        roll_base=flat.roll_start[:-1],
        code_local=model.compiled.roll_index,
        opt_start=flat.roll_opt_start,
        opt_pts=flat.roll_opt_pts,
        opt_dest=flat.roll_opt_dest,
        hand_throw_col=flat.hand_throw_col,
        situations=tuple(s for s, _ in situations),
        sit_of=sit_of,
        farkles=tuple(z for _, z in situations),
        rows=rows,
        throw_nodes=throws,
        hands=hands,
        hand_take_col=hand_take_col,
        taken=taken,
        depth=target + 3,
    )


def _take_back(
    compiled: CompiledTurn,
    hands: tuple[Hand, ...],
    situations: dict[tuple[Situation, int], int],
    sit_of: Ints,
    rows: int,
) -> tuple[Ints, Ints]:
    """G-8 in the flat form: each hand's take column, and the situations a take leads to
    (added to ``situations``). A player who has not entered has no level standing, so a
    score of 0: only that situation takes points that count apart toward the entry."""
    rules = compiled.rules
    take_col = np.full(len(hands), -1, dtype=np.int64)
    if rules.game.take_back:
        for h, hand in enumerate(hands):
            if hand.free == 0 or hand.pending or hand.rethrow:
                continue  # a full hand leaves no offer; these hands never bank
            aside = compiled.turn_at(hand).set_aside
            node = compiled.take_node(TakeBackOffer(0, hand.free, aside, hand.multiples))
            found = compiled.column.get(node)
            if found is None:  # pragma: no cover - every take node is a node of the turn
                raise FastPathUnsupported(f"no column for the turn taken back at {hand}")
            take_col[h] = found
    taken = np.repeat(np.arange(len(situations), dtype=np.int64)[:, None], rows, axis=1)
    if rules.game.take_back:
        fresh = int(sit_of[0, 0, 0])
        for t in range(rows):
            s = Situation.normalise(rules, False, 0, t * rules.unit)
            taken[fresh, t] = situations.setdefault((s, 0), len(situations))
        extra = len(situations) - taken.shape[0]
        if extra:
            more = np.arange(taken.shape[0], len(situations), dtype=np.int64)
            taken = np.concatenate([taken, np.repeat(more[:, None], rows, axis=1)])
    return take_col, taken


# ---------------------------------------------------------------------------- policies


TablePolicy = PolicyTable
"""A policy as tables (``zloutch.strategy.tables``): what it keeps and when it banks."""


def table_policy(name: str, fm: FastModel, solutions: SolutionSource | None = None) -> TablePolicy:
    """The table of a bot (``FastPathUnsupported`` for a bot that is not a table): the bot
    ``make_bot`` makes of its name gives its own (``Tabulated.turn_table``). ``optimal``
    solves each turn in the kernel (``SolvedTurns``): its table says only where banking is
    allowed (``solving_bot``)."""
    return _table_of(make_bot(name, solutions), fm)


def solving_bot(bot: object) -> OptimalBot | None:
    """The bot if it is ``optimal``, whose turns the kernel solves (``SolvedTurns``)."""
    if isinstance(bot, Tabulated):
        return None
    from zloutch.strategy.optimal import OptimalBot  # (imported by ``make_bot`` already)

    return bot if isinstance(bot, OptimalBot) else None


def _table_of(bot: Policy, fm: FastModel) -> TablePolicy:
    frame = TableFrame(fm.model, fm.situations, fm.rows, fm.hand_take_col, fm.taken, fm.farkles)
    if solving_bot(bot) is not None:
        return PolicyTable(
            bot.name,
            np.zeros((1, 1, frame.rolls), dtype=np.int16),
            frame.allowed(),
            np.zeros((1, 1, frame.hands), dtype=np.bool_),
        )
    if not isinstance(bot, Tabulated):
        raise FastPathUnsupported(f"the fast path does not play the {bot.name} bot")
    return bot.turn_table(frame)


class SolvedArrays(NamedTuple):
    """What the kernel reads to solve ``optimal``'s turns (``SolvedTurns.of``)."""

    solves: Bools
    """By policy: whether it is ``optimal``."""
    target: int
    """The target, in units."""
    past: int
    """The rows a turn keeps past a reach target (the pair solver's margin; 1 under T-9)."""
    exact: bool
    entered_at: Bools
    """By score: whether a player there has entered, as the pair solver reads it."""
    win: Floats
    bank_kind: Ints
    """By (score, total): 0 the turn is lost (T-9), 1 the game goes on, 2 the bank writes
    nothing (G-7), 3 it reaches the target."""
    bank_score: Ints
    bank_allowed: Bools
    last: Floats
    """F-4: the chance that the last player banks more than d units, by entered and d."""
    last_allowed: Bools
    node_col: Ints
    sig_start: Ints
    sig_prob: Floats
    sopt_start: Ints
    sopt_pts: Ints
    sopt_dest: Ints
    hand_col: Ints
    hand_throw_col: Ints
    rows: int
    """The rows of the kernel's buffers (and of ``last_allowed``)."""
    columns: int
    look_ahead: bool
    """The sheet-blind model of a sheet with a history: a turn ahead on the sheet."""
    apart_at: Bools
    """By score: points taken back count apart toward the entry there."""
    apart_allowed: Bools
    """By units taken back, (total, hand): where such a player may bank."""
    low: int
    """The lowest score of the tables by score (units; below 0 under F-1's counts): they are
    read at ``score - low``."""
    counts: Floats
    """F-1: ``counts[fa, fb, a - low, b - low]``, the game solved by each player's farkles in a
    row (``GameSolution.counts``); an empty table where the game has none."""
    penalty: int
    """F-1: the penalty in units, as the pair solver takes it off a score."""


@dataclass(frozen=True, eq=False)
class SolvedTurns:
    """What the kernel reads to play ``optimal`` as ``OptimalBot`` plays it from a solved
    two-player game (``GameAdvisor``): each of its turns solved at the scores on the table,
    as ``PairSolutions`` solves one pair (the same rows, banks and loop: the same values;
    against several opponents the least of the chances, ``field_turn``; on a sheet with a
    history one turn ahead, ``sheet_turn``), its choices read as ``TurnAdvisor.advise``
    reads them (banking on ties, the first keep of best value, one that passes an exact
    target ranked lower, a take-back only where worth more than a fresh start).

    ``arguments``: what the kernel reads (``SolvedArrays``)."""

    arguments: SolvedArrays

    @staticmethod
    def unsupported(rules: RuleSet, players: int, solution: GameSolution | None) -> str | None:
        """Why the fast path cannot play ``optimal`` here (None: it can)."""
        spec = rules.spec
        if solution is None:
            return (
                f"the fast path plays optimal from a solved game, and {spec} has none "
                f"(solve it with: zloutch solve --game --rules '{spec}')"
            )
        from zloutch.strategy.game_solver import sheet_blind

        if solution.rules != rules and solution.rules != sheet_blind(rules):
            return f"optimal plays {spec} by {solution.rules.spec}, which the fast path does not"
        if solution.counts is not None and (rules.game.take_back or rules.game.final_turns):
            return (
                "the fast path does not play optimal under F-1's farkles in a row with "
                "take-back (G-8) or final turns (F-4)"
            )
        if rules.turn.fresh_farkle_penalty:
            return "the fast path does not play optimal with a blank first throw's penalty"
        if rules.game.take_back and rules.game.final_turns:
            return "the fast path does not play optimal with take-back and final turns (F-4)"
        return None

    @staticmethod
    def of(fm: FastModel, solves: Sequence[bool], solution: GameSolution | None) -> SolvedTurns:
        """The kernel's ``solved`` tuple: ``solves[p]`` whether policy ``p`` is ``optimal``
        (its tables from ``solution``; nothing to read where none is)."""
        flat = fm.compiled.flat
        which = np.asarray(solves, dtype=np.bool_)
        turn = (
            flat.node_col,
            flat.sig_start,
            flat.sig_prob,
            flat.opt_start,
            flat.opt_pts,
            flat.opt_dest,
            flat.hand_col,
            flat.hand_throw_col,
        )
        if solution is None or not which.any():
            none = (
                0,
                0,
                False,
                np.zeros(1, dtype=np.bool_),
                np.zeros((1, 1)),
                np.zeros((1, 1), dtype=np.int64),
                np.zeros((1, 1), dtype=np.int64),
                np.zeros((1, 1, 1), dtype=np.bool_),
                np.zeros((2, 0)),
                np.zeros((2, 1, 1), dtype=np.bool_),
            )
            nothing = (np.zeros(1, dtype=np.bool_), np.zeros((1, 1, 1), dtype=np.bool_))
            return SolvedTurns(
                SolvedArrays(
                    which,
                    *none,
                    *turn,
                    1,
                    1,
                    False,
                    *nothing,
                    low=0,
                    counts=np.zeros((0, 0, 1, 1)),
                    penalty=0,
                )
            )
        from zloutch.strategy.game_solver import PairSolutions
        from zloutch.strategy.optimal import looks_ahead

        game = PairSolutions(solution).game  # the pair solver's own, as OptimalBot's
        T = game.T
        extra = 1 if game.exact else game.margin
        # The tables by score start at the lowest score the game was solved for (below 0
        # under F-1's counts, where a penalty takes a score down to that floor at most).
        low = solution.low if solution.counts is not None else 0
        scores = np.arange(low, T, dtype=np.int64)
        x, reached, lost, allowed = game.bank_rows(scores, game.rows(low), 0, tabulated=False)
        inside = ~reached & ~lost
        nothing = inside & (x == scores[:, None])
        kind = np.where(reached, 3, np.where(nothing, 2, np.where(inside, 1, 0)))
        # F-4's last turn: the leader may be past the target by a turn's total, which no
        # row bounds (the kernel grows its buffers; where allowed banks are, past this
        # many rows, unknown, it stops with an error: ``--method engine``)
        height = T + 4 * fm.rows + extra + 2 - low
        last_allowed = np.stack(
            [fm.compiled.bankable(Situation(entered, 0), height) for entered in (False, True)]
        )
        last = np.stack(game.last) if game.last is not None else np.zeros((2, 0))
        # Who has entered, by score, as the pair solver reads it (``_Game.entered``); and
        # where points taken back (G-8) count apart toward the entry (``Situation.normalise``
        # keeps them: a player who has not entered, at 0), which changes where that player
        # may bank: a table by the units taken back.
        unit = fm.unit
        entered_at = np.asarray(
            [game.entered(a * unit) for a in range(low, height)], dtype=np.bool_
        )
        apart_at = np.asarray(
            [
                fm.rules.game.take_back
                and Situation.normalise(
                    fm.rules, bool(entered_at[a - low]), a * unit, unit
                ).inherited
                for a in range(low, T)
            ],
            dtype=np.bool_,
        )
        assert not np.delete(apart_at, -low).any(), "only a player at 0 has not entered"
        counts = np.zeros((0, 0, 1, 1)) if solution.counts is None else solution.counts
        penalty = -(-fm.rules.turn.farkle_penalty // unit)  # as ``PairSolutions.inputs``
        inh_allowed = np.zeros((1, 1, 1), dtype=np.bool_)
        if apart_at.any():
            start = game.entered(0)
            inh_allowed = np.stack(
                [
                    fm.compiled.bankable(Situation(start, 0, i * fm.unit), game.rows(0))
                    for i in range(fm.rows)
                ]
            )
        return SolvedTurns(
            SolvedArrays(
                which,
                T,
                extra,
                bool(game.exact),
                entered_at,
                np.ascontiguousarray(solution.win, dtype=np.float64),
                np.ascontiguousarray(kind, dtype=np.int64),
                np.ascontiguousarray(x, dtype=np.int64),
                np.ascontiguousarray(allowed, dtype=np.bool_),
                np.ascontiguousarray(last, dtype=np.float64),
                np.ascontiguousarray(last_allowed, dtype=np.bool_),
                *turn,
                height,  # the kernel's buffers: rows (those of ``last_allowed``), columns
                int(flat.columns),
                # the sheet-blind model, a turn ahead; not under F-1, whose model is read by
                # the banked scores and the counts alone (``optimal.looks_ahead``)
                looks_ahead(solution) and solution.rules != fm.rules,
                apart_at,
                np.ascontiguousarray(inh_allowed, dtype=np.bool_),
                int(low),
                np.ascontiguousarray(counts, dtype=np.float64),
                int(penalty),
            )
        )


# ---------------------------------------------------------------------------- the kernel

from numba import njit  # noqa: E402  (a dependency; compiled at first use)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)
_SIX = np.uint64(6)
_POW7 = np.asarray([7**f for f in range(6)], dtype=np.int64)
"""A face's digit in a roll's code (the counts of faces 1..6 in base 7): a table read, where
``7**face`` computed a power for every die thrown."""


def _mix_py(z: Any) -> Any:  # pragma: no cover - compiled
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


_mix: Any = njit(cache=True, nogil=True)(_mix_py)


def _throw_py(state: Any, n: int) -> tuple[Any, int]:  # pragma: no cover - compiled
    """Throw ``n`` dice (1 to 6): the generator's state after them and the roll's code."""
    state = state + _GOLDEN
    code = _POW7[((_mix(state) >> _S32) * _SIX) >> _S32]
    if n > 1:
        state = state + _GOLDEN
        code += _POW7[((_mix(state) >> _S32) * _SIX) >> _S32]
        if n > 2:
            state = state + _GOLDEN
            code += _POW7[((_mix(state) >> _S32) * _SIX) >> _S32]
            if n > 3:
                state = state + _GOLDEN
                code += _POW7[((_mix(state) >> _S32) * _SIX) >> _S32]
                if n > 4:
                    state = state + _GOLDEN
                    code += _POW7[((_mix(state) >> _S32) * _SIX) >> _S32]
                    if n > 5:
                        state = state + _GOLDEN
                        code += _POW7[((_mix(state) >> _S32) * _SIX) >> _S32]
    return state, code


_throw: Any = njit(cache=True, nogil=True, inline="always")(_throw_py)


def _cross_py(
    q: int, lv_val: Ints, lv_tk: Ints, lv_n: Ints, lv_pen: Bools, banked: Ints, restart: bool
) -> int:  # pragma: no cover - compiled
    """Cross player ``q``'s current level; the score fallen back to (0: no level left).
    ``banked[q]``: the levels of ``q`` standing that a bank wrote (not a penalty)."""
    n = lv_n[q] - 1
    lv_n[q] = n
    if not lv_pen[q, n]:
        banked[q] -= 1
    if n == 0:
        return 0
    if restart:  # G-3 Reading: ticks restart from 0 at the level fallen back to
        lv_tk[q, n - 1] = 0
    return int(lv_val[q, n - 1])


_cross: Any = njit(cache=True, nogil=True)(_cross_py)


def _cross_below_py(
    q: int,
    v: int,
    bumper: int,
    lv_val: Ints,
    lv_tk: Ints,
    lv_n: Ints,
    lv_pen: Bools,
    banked: Ints,
    hits: Ints,
) -> int:  # pragma: no cover - compiled
    """G-4 with ``bump = "any"``: cross player ``q``'s levels below its current one that
    equal ``v`` (a penalty may have written one equal to a level below it), lowest first as
    the engine does; the count of levels left."""
    n: int = lv_n[q]
    kept = 0
    for i in range(n - 1):
        if lv_val[q, i] == v:
            hits[bumper, 0] += 1
            hits[q, 1] += 1
            if not lv_pen[q, i]:
                banked[q] -= 1
            continue
        lv_val[q, kept] = lv_val[q, i]
        lv_tk[q, kept] = lv_tk[q, i]
        lv_pen[q, kept] = lv_pen[q, i]
        kept += 1
    if kept < n - 1:  # the current level moves down over those crossed
        lv_val[q, kept] = lv_val[q, n - 1]
        lv_tk[q, kept] = lv_tk[q, n - 1]
        lv_pen[q, kept] = lv_pen[q, n - 1]
        n = kept + 1
        lv_n[q] = n
    return n


_cross_below: Any = njit(cache=True, nogil=True)(_cross_below_py)


def _bumps_py(
    p: int,
    value: int,
    players: int,
    lv_val: Ints,
    lv_tk: Ints,
    lv_n: Ints,
    lv_pen: Bools,
    banked: Ints,
    sheet: Any,
    frames: Ints,
    hits: Ints,
) -> None:  # pragma: no cover - compiled
    """G-4: player ``p``'s new level ``value`` crosses the others' equal current (or any)
    level; with ``fallback_bumps`` each crossing bumps in turn from the level fallen back
    to. The engine's recursion (``_bump`` and ``_cross_current``) on a stack of frames
    ``(bumper, value, next player to look at)``, so the crossings come in its order.
    ``hits[seat]``: the bumps it gave and took, counted."""
    restart, mode, fallback = sheet[1], sheet[2], sheet[3]
    if mode == 0:
        return
    sp = 0
    frames[0, 0] = p
    frames[0, 1] = value
    frames[0, 2] = 0
    while sp >= 0:
        q = frames[sp, 2]
        if q >= players:
            sp -= 1
            continue
        frames[sp, 2] = q + 1
        if q == frames[sp, 0]:
            continue
        v = frames[sp, 1]
        n = lv_n[q]
        if n == 0:
            continue
        if mode == 2:  # any level: those below the current are crossed first, in order
            n = _cross_below(q, v, frames[sp, 0], lv_val, lv_tk, lv_n, lv_pen, banked, hits)
        if lv_val[q, n - 1] == v:
            hits[frames[sp, 0], 0] += 1
            hits[q, 1] += 1
            back = _cross(q, lv_val, lv_tk, lv_n, lv_pen, banked, restart)
            if fallback and back != 0:
                sp += 1
                frames[sp, 0] = q
                frames[sp, 1] = back
                frames[sp, 2] = 0


_bumps: Any = njit(cache=True, nogil=True)(_bumps_py)


def _penalise_py(
    q: int, cost: int, flat: bool, lv_val: Ints, lv_tk: Ints, lv_n: Ints, lv_pen: Bools
) -> None:  # pragma: no cover - compiled
    """A penalty: player ``q`` writes a level ``cost`` below its score (alone where no level
    is ever crossed), which bumps no one and enters no one."""
    m = lv_n[q]
    below = (lv_val[q, m - 1] if m > 0 else 0) - cost
    if flat:
        m = 0
    lv_val[q, m] = below
    lv_tk[q, m] = 0
    lv_pen[q, m] = True
    lv_n[q] = m + 1


_penalise: Any = njit(cache=True, nogil=True)(_penalise_py)


def _tick_py(
    mover: int,
    players: int,
    sheet: Any,
    lv_val: Ints,
    lv_tk: Ints,
    lv_n: Ints,
    frames: Ints,
    hits: Ints,
    lv_pen: Any,
    banked: Ints,
) -> None:  # pragma: no cover - compiled
    """G-3: a farkle's tick beside the mover's level (loose without one), the level crossed
    at the limit and the bumps of the fall back (``fallback_bumps``), on the look-ahead's
    scratch sheet (``_sheet_ends``) as the kernel writes its own inline: the same lines, the
    rules themselves in ``_cross`` and ``_bumps``, both held to the engine by the replays."""
    limit, restart, bump_mode, fallback = sheet[0], sheet[1], sheet[2], sheet[3]
    n = lv_n[mover]
    if limit > 0:
        hits[mover, 2] += 1  # G-3: a tick, loose without a level (it crosses nothing)
    if limit > 0 and n > 0:  # G-3: a tick beside the current level
        lv_tk[mover, n - 1] += 1
        if lv_tk[mover, n - 1] >= limit:
            back = _cross(mover, lv_val, lv_tk, lv_n, lv_pen, banked, restart)
            if fallback and back != 0 and bump_mode != 0:
                _bumps(
                    mover, back, players, lv_val, lv_tk, lv_n, lv_pen, banked, sheet, frames, hits
                )


_tick: Any = njit(cache=True, nogil=True, inline="always")(_tick_py)


def _write_py(
    mover: int,
    value: int,
    players: int,
    sheet: Any,
    lv_val: Ints,
    lv_tk: Ints,
    lv_n: Ints,
    ever: Any,
    frames: Ints,
    hits: Ints,
    lv_pen: Any,
    banked: Ints,
) -> None:  # pragma: no cover - compiled
    """A bank's new level ``value`` on the mover's sheet, its ticks from 0, and its bumps
    (G-4); where no level is ever crossed, the last level alone. On the look-ahead's scratch
    sheet, as the kernel writes its own inline (see ``_tick``)."""
    bump_mode, flat = sheet[2], sheet[9]
    m = 0 if flat else lv_n[mover]
    lv_val[mover, m] = value
    lv_tk[mover, m] = 0
    lv_pen[mover, m] = False
    lv_n[mover] = m + 1
    banked[mover] += 1
    ever[mover] = True
    if bump_mode != 0:
        _bumps(mover, value, players, lv_val, lv_tk, lv_n, lv_pen, banked, sheet, frames, hits)


_write: Any = njit(cache=True, nogil=True, inline="always")(_write_py)


def _sheet_ends_py(
    mover: int,
    players: int,
    sheet: Any,
    cut: Any,
    work: Any,
    scratch: Any,
    opp_b: Any,
    opp_after: Any,
    ends: Any,
    n_ends: Any,
) -> int:  # pragma: no cover - compiled
    """What the mover's farkle and each bank onto an opponent's level would leave on the
    sheet, written on ``scratch`` as the game writes them (``_tick``, ``_write``), as
    ``GameAdvisor.sheet_ends`` reads the engine's. Returns the mover's score after a farkle;
    ``opp_after[o]``: opponent ``o``'s then (the opponents in seat order, their scores in
    ``opp_b``), and ``ends[o, e]`` (the mover's score, opponent ``o``'s) for each of the
    ``n_ends[o]`` banks that move opponent ``o``, the lowest level first."""
    lv_val, _, lv_n, _, _, _, _, _, _ = work
    a = _score(lv_val, lv_n, mover)
    s_val, s_tk, s_n, s_ever, s_frames, s_hits, _, s_pen, s_banked = scratch
    _copy_work(work, scratch)
    _tick(mover, players, sheet, s_val, s_tk, s_n, s_frames, s_hits, s_pen, s_banked)
    farkled_to = _score(scratch[0], scratch[2], mover)
    o = 0
    for seat in range(players):
        if seat != mover:
            opp_after[o] = _score(scratch[0], scratch[2], seat)
            n_ends[o] = 0
            o += 1
    last_a, last_t = cut.shape[0] - 1, cut.shape[1] - 1
    ai = max(min(a, last_a), 0)
    done = a  # the opponents' levels above ``a`` in turn, lowest first, each value once
    while True:
        v = -1
        for seat in range(players):
            if seat != mover:
                for i in range(lv_n[seat]):
                    level = lv_val[seat, i]
                    if level > done and (v < 0 or level < v):
                        v = level
        if v < 0:
            break
        done = v
        t = v - a
        value = a + t - cut[ai, min(t, last_t)]  # G-7: the last 1000
        if value == a:
            continue  # the bank writes nothing: nobody moves
        _copy_work(work, scratch)
        _write(
            mover,
            value,
            players,
            sheet,
            s_val,
            s_tk,
            s_n,
            s_ever,
            s_frames,
            s_hits,
            s_pen,
            s_banked,
        )
        mine = _score(scratch[0], scratch[2], mover)
        o = 0
        for seat in range(players):
            if seat != mover:
                theirs = _score(scratch[0], scratch[2], seat)
                if theirs != opp_b[o]:
                    ends[o, n_ends[o], 0] = mine
                    ends[o, n_ends[o], 1] = theirs
                    n_ends[o] += 1
                o += 1
    return int(farkled_to)


_sheet_ends: Any = njit(cache=True, nogil=True)(_sheet_ends_py)


def _score_py(lv_val: Any, lv_n: Any, seat: int) -> int:  # pragma: no cover - compiled
    n = lv_n[seat]
    return int(lv_val[seat, n - 1]) if n > 0 else 0


_score: Any = njit(cache=True, nogil=True, inline="always")(_score_py)


def _copy_work_py(work: Any, scratch: Any) -> None:  # pragma: no cover - compiled
    """The sheet of ``work`` onto ``scratch`` (the frames are scratch already), element by
    element (a slice assignment compiles several seconds more)."""
    val, tk, n, ever, _, hits, in_row, pen, banked = work
    s_val, s_tk, s_n, s_ever, _, s_hits, s_in_row, s_pen, s_banked = scratch
    for p in range(val.shape[0]):
        for i in range(val.shape[1]):
            s_val[p, i] = val[p, i]
            s_tk[p, i] = tk[p, i]
            s_pen[p, i] = pen[p, i]
        for c in range(hits.shape[1]):
            s_hits[p, c] = hits[p, c]
        s_n[p] = n[p]
        s_ever[p] = ever[p]
        s_in_row[p] = in_row[p]
        s_banked[p] = banked[p]


_copy_work: Any = njit(cache=True, nogil=True)(_copy_work_py)


def _solve_turn_py(
    a: int,
    opp_b: Any,
    opp_after: Any,
    n_opp: int,
    farkled_to: int,
    ends: Any,
    n_ends: Any,
    inherited: int,
    fa: int,
    opp_f: Any,
    solved: Any,
    tables: Any,
    banks: Any,
    k: int,
) -> tuple[int, float, float]:  # pragma: no cover - compiled
    """The ``optimal`` seat's turn at score ``a`` (units) against the ``n_opp`` opponents at
    ``opp_b``, as the game solver values it (``PairSolutions.turn``, the plain kernel's loop
    of ``kernels.reference``, in its order: the same floats): ``tables[k, t, c]`` the chance
    to win at total ``t`` in column ``c`` and ``banks[k, t]`` that of banking, for ``t``
    below the returned height; past it, the boundary. Returns (height, farkle's value,
    boundary). Against several opponents each end of the turn is worth the least of its
    chances against each (``PairSolutions.field_turn``). Once an opponent has reached a
    target that leaves this player a last turn (F-4), it is played against the highest:
    banking more than its lead wins and as much ties (``_Game.last_turn_inputs``).
    Looking a turn ahead on the sheet (``PairSolutions.sheet_turn``, ``_sheet_ends``): a
    farkle is valued at the scores it leaves (``farkled_to``, ``opp_after``), and a bank
    that writes ``ends[o, e, 0]`` at opponent ``o`` sent back to ``ends[o, e, 1]``.
    ``inherited``: the units taken back (G-8) where they count apart toward the entry,
    which changes where banking is allowed. Under F-1's counts (``solved.counts``) the
    mover has farkled ``fa`` turns in a row and opponent ``o`` ``opp_f[o]``: a farkle is
    worth the opponent's turn with one more (at the penalty, the score taken down, to the
    solve's floor at most, and none), a bank the opponent's turn with none
    (``PairSolutions.inputs``)."""
    (
        _,
        T,
        extra,
        exact,
        entered_at,
        win,
        bkind,
        bx,
        ballowed,
        last,
        last_allowed,
        node_col,
        sig_start,
        sig_prob,
        sopt_start,
        sopt_pts,
        sopt_dest,
        hand_col,
        hand_throw_col,
        _,
        _,
        _,
        _,
        inh_allowed,
        low,
        counts,
        penalty,
    ) = solved
    hands = hand_col.shape[0]
    counted = counts.shape[0] > 0  # F-1: the game solved by farkles in a row
    top_b = opp_b[0]
    for o in range(1, n_opp):
        top_b = max(top_b, opp_b[o])
    last_turn = top_b >= T
    d = top_b - a
    ia = max(a, low) - low  # the mover's row of the tables by score
    mine = 1 if entered_at[ia] else 0
    if last_turn:
        height = d + extra
        farkle = 0.0
        boundary = 0.0 if exact else 1.0
    else:
        height = T - (ia + low) + (1 if exact else extra)  # the floor's rows below it (F-1)
        farkle = np.inf
        for o in range(n_opp):
            if counted:
                jb = max(opp_b[o], low) - low
                if fa + 1 < counts.shape[0]:
                    v = 1.0 - counts[opp_f[o], fa + 1, jb, ia]
                else:  # the penalty (F-1), down to the floor at most
                    v = 1.0 - counts[opp_f[o], 0, jb, max(ia - penalty, 0)]
            else:
                v = 1.0 - win[opp_after[o], max(farkled_to, 0)]
            farkle = min(farkle, v)
        boundary = farkle if exact else 1.0
    n_last = last.shape[1]
    for t in range(height - 1, -1, -1):
        for n in range(node_col.shape[0]):
            total = 0.0
            for sg in range(sig_start[n], sig_start[n + 1]):
                best = -np.inf
                for o in range(sopt_start[sg], sopt_start[sg + 1]):
                    dest = sopt_dest[o]
                    row = t + sopt_pts[o]
                    if dest == 0:
                        v = farkle
                    elif dest == 1:
                        v = 1.0
                    elif row >= height:
                        v = boundary
                    else:
                        v = tables[k, row, dest]
                    if v > best:
                        best = v
                total += sig_prob[sg] * best
            tables[k, t, node_col[n]] = total
        most = -np.inf
        same = False
        for h in range(hands):
            bank = -np.inf
            if last_turn:
                if last_allowed[mine, t, h]:
                    bank = 1.0 if t > d else (0.5 if t == d else 0.0)
            elif (
                inh_allowed[min(inherited, inh_allowed.shape[0] - 1), t, h]
                if inherited > 0
                else ballowed[ia, t, h]
            ):
                kind = bkind[ia, t]
                if kind == 3:  # the bank reaches the target
                    bank = 1.0
                    if n_last > 0:  # F-4: each opponent's last turn to pass it
                        bank = np.inf
                        for o in range(n_opp):
                            theirs = 1 if entered_at[opp_b[o] - low] else 0
                            x = min(max(bx[ia, t] - opp_b[o], 0), n_last - 1)
                            bank = min(bank, 1.0 - last[theirs, x])
                elif kind != 0:  # the game goes on (kind 2: the bank writes nothing, G-7)
                    x = bx[ia, t]
                    bank = np.inf
                    for o in range(n_opp):
                        if counted:
                            jb = max(opp_b[o], low) - low
                            v = 1.0 - counts[opp_f[o], 0, jb, x - low]
                        else:
                            v = 1.0 - win[opp_b[o], x]
                        for e in range(n_ends[o]):  # a bank that bumps them (G-4)
                            if ends[o, e, 0] == x:
                                v = 1.0 - win[ends[o, e, 1], x]
                        bank = min(bank, v)
                    if kind == 2:
                        same = True
                        bank = farkle
            throw = tables[k, t, hand_throw_col[h]]
            tables[k, t, hand_col[h]] = bank if bank > throw else throw
            if bank > most:
                most = bank
        banks[k, t] = farkle if same else most
    return height, farkle, boundary


_solve_turn: Any = njit(cache=True, nogil=True)(_solve_turn_py)
_PASSING = PASSING
_U = np.uint64
"""An index the kernel knows is not negative: Numba reads it without the wraparound test a
signed index pays (a shift, a mask and an add on every read of the chain a throw waits on)."""


def _solved_value_py(
    tables: Any, k: int, t: int, col: int, height: int, farkle: float, boundary: float
) -> float:  # pragma: no cover - compiled
    """A column's value at total ``t`` in solved turn ``k`` (``TurnSolution.column_value``)."""
    if col == 0:
        return farkle
    if col == 1:
        return 1.0
    if t >= height:
        return boundary
    return float(tables[k, t, col])


_solved_value: Any = njit(cache=True, nogil=True, inline="always")(_solved_value_py)


def _optimal_start_py(
    mover: int,
    players: int,
    a: int,
    offer_t: int,
    offer_col: int,
    start_col: int,
    sheet: Any,
    cut: Any,
    work: Any,
    scratch: Any,
    solved: Any,
    opt: Any,
    tables: Any,
    banks: Any,
) -> tuple[bool, int, int, float, float]:  # pragma: no cover - compiled
    """The start of an ``optimal`` seat's turn: its turn solved at the scores on the table
    (against each opponent: ``_solve_turn``; a turn ahead on the sheet: ``_sheet_ends``)
    into ``tables[0]``, and an offer left at column ``offer_col`` (-1: none) answered as
    ``TurnAdvisor.advise`` does (G-8: taken back only if worth more than a fresh start),
    the taken turn solved apart into ``tables[1]`` where the points taken back count apart
    toward the entry. Returns (takes, the turn's table, its height, farkle, boundary)."""
    opp_b, opp_after, ends, n_ends, opp_f = opt
    lv_val, _, lv_n, _, _, _, in_row, _, _ = work
    n_opp = np.int64(0)
    for seat in range(players):
        if seat != mover:
            opp_b[n_opp] = _score(lv_val, lv_n, seat)
            opp_after[n_opp] = opp_b[n_opp]
            opp_f[n_opp] = in_row[seat]
            n_ends[n_opp] = 0
            n_opp += 1
    # the rows this turn solves: past the target by the leader's lead in a last turn (F-4)
    top_b = opp_b[0]
    for o in range(1, n_opp):
        top_b = max(top_b, opp_b[o])
    floor = max(a, solved.low)  # under F-1, the solve's floor: the rows of a turn there
    need = (top_b - a if top_b >= solved.target else solved.target - floor) + solved.past + 2
    if need > tables.shape[1]:
        raise FastPathUnsupported(
            "optimal's last turn: a lead past its tables (play it with --method engine)"
        )
    f_to = a
    if solved.look_ahead:  # a turn ahead on the sheet (``GameAdvisor.sheet_ends``)
        f_to = _sheet_ends(
            mover, players, sheet, cut, work, scratch, opp_b, opp_after, ends, n_ends
        )
    zero = a - a  # an int64 Numba does not fold to a literal 0: one compile of each helper
    one = zero + 1
    fa = in_row[mover]
    height, farkle, boundary = _solve_turn(
        a, opp_b, opp_after, n_opp, f_to, ends, n_ends, zero, fa, opp_f, solved, tables, banks, zero
    )
    if offer_col < 0:
        return False, zero, height, farkle, boundary
    fresh = _solved_value(tables, zero, zero, start_col, height, farkle, boundary)
    # the points taken back count apart toward the entry (``Situation.normalise``)
    if 0 <= a - solved.low < solved.apart_at.shape[0] and solved.apart_at[a - solved.low]:
        t_height, t_farkle, t_boundary = _solve_turn(
            a,
            opp_b,
            opp_after,
            n_opp,
            f_to,
            ends,
            n_ends,
            offer_t,
            fa,
            opp_f,
            solved,
            tables,
            banks,
            one,
        )
        took = _solved_value(tables, one, offer_t, offer_col, t_height, t_farkle, t_boundary)
        if took > fresh:
            return True, one, t_height, t_farkle, t_boundary
        return False, zero, height, farkle, boundary
    took = _solved_value(tables, zero, offer_t, offer_col, height, farkle, boundary)
    return took > fresh, zero, height, farkle, boundary


_optimal_start: Any = njit(cache=True, nogil=True)(_optimal_start_py)


def _optimal_keep_py(
    tables: Any,
    k: int,
    first: int,
    end: int,
    t: int,
    a: int,
    opt_pts: Any,
    opt_dest: Any,
    height: int,
    farkle: float,
    boundary: float,
    exact: bool,
    target: int,
) -> int:  # pragma: no cover - compiled
    """``optimal``'s keep among options ``first`` to ``end - 1``: the first of best value, one
    that passes an exact target ranked lower (``TurnAdvisor.advise``, T-9)."""
    top = -np.inf
    pick = first
    for q in range(first, end):
        v = _solved_value(tables, k, t + opt_pts[q], opt_dest[q], height, farkle, boundary)
        if exact and a + t + opt_pts[q] > target:
            v -= _PASSING
        if v > top:
            top = v
            pick = q
    return pick


_optimal_keep: Any = njit(cache=True, nogil=True)(_optimal_keep_py)


def _keep_twins(fm: FastModel) -> Ints:
    """V-2: for each option of a roll, the option of the same keep without jokers set aside
    (its hand), where the option sets jokers aside after its keep and that keep may stop at
    its hand; else the option itself. The kernel's tables choose an option, the engine's bots
    a keep and then jokers: where the keep alone wins by a bank, the bank is made
    (``_winning_keep``)."""
    compiled = fm.model.compiled
    flat = compiled.flat
    twin = np.arange(len(fm.opt_pts), dtype=np.int64)
    for k, node_col in enumerate(flat.node_col.tolist()):
        node = compiled.nodes[node_col - 2]
        assert isinstance(node, ThrowNode)
        for j, (roll, _) in enumerate(compiled.rolls[node.n]):
            r = int(flat.roll_start[k]) + j
            first, end = int(flat.roll_opt_start[r]), int(flat.roll_opt_start[r + 1])
            index = {
                (int(flat.roll_opt_pts[q]), int(flat.roll_opt_dest[q])): q
                for q in range(first, end)
            }
            reading = compiled.table.lookup(roll, compiled.context(node))
            for keep in reading.keeps:
                options = compiled.keep_options(node, roll, keep)
                plain = index.get(options[0]) if options else None  # first: its hand, if any
                if plain is None or fm.col_kind[flat.roll_opt_dest[plain]] != KIND_HAND:
                    continue
                for option in options[1:]:
                    q = index.get(option)
                    if q is not None and twin[q] == q and q != plain:
                        twin[q] = plain
    return twin


def _banks_win_py(
    q: int,
    a: int,
    t: int,
    ai: int,
    sit: int,
    opts: Any,
    cols: Any,
    cut: Any,
    cuts: bool,
    reaches: Any,
    allowed: Any,
    rows: int,
    hands: int,
    last_t: int,
    last_x: int,
) -> bool:  # pragma: no cover - compiled
    """Whether a bank after option ``q`` wins at once: it leads to a hand that may bank there
    (``allowed``) and the score it banks (G-7's cut off) reaches the target."""
    col = opts[_U(q), 1]
    if cols[_U(col), 0] != 2:
        return False
    t2 = t + opts[_U(q), 0]
    x = a + t2 - (cut[ai, min(t2, last_t)] if cuts else 0)
    if not reaches[max(min(x, last_x), 0)]:
        return False
    row = min(t2, rows - 1)
    return bool(allowed[_U((sit * rows + row) * hands + cols[_U(col), 1])])


_banks_win: Any = njit(cache=True, nogil=True)(_banks_win_py)


def _winning_keep_py(
    o: int,
    first: int,
    end: int,
    a: int,
    t: int,
    ai: int,
    sit: int,
    opts: Any,
    keep_rank: Any,
    twin: Any,
    cols: Any,
    cut: Any,
    cuts: bool,
    reaches: Any,
    allowed: Any,
    rows: int,
    hands: int,
) -> int:  # pragma: no cover - compiled
    """G-2: a bot's keep ``o`` among options ``first`` to ``end - 1``, unless a bank after
    it does not win at once where a bank after another does: then that other, the first of
    most points and fewest dice (``keep_rank``), as ``bots.keep_for_the_win``. A bank
    after option q wins where q leads to a hand that may bank there (``allowed``) and the
    score it banks (G-7's cut off) reaches the target."""
    last_t, last_x = cut.shape[1] - 1, reaches.shape[0] - 1
    # V-2: a keep whose jokers the table sets aside at once (its option a throw) is the
    # engine's keep and a joker after it: where that keep alone wins, it is kept and banked
    w: int = twin[_U(o)]
    if w != o and _banks_win(
        w, a, t, ai, sit, opts, cols, cut, cuts, reaches, allowed, rows, hands, last_t, last_x
    ):
        return w
    best = -1
    for q in range(first, end):
        if not _banks_win(
            q, a, t, ai, sit, opts, cols, cut, cuts, reaches, allowed, rows, hands, last_t, last_x
        ):
            continue
        if q == o:
            return o
        if best < 0 or keep_rank[_U(q)] > keep_rank[_U(best)]:
            best = q
    return o if best < 0 else best


_winning_keep: Any = njit(cache=True, nogil=True)(_winning_keep_py)


def _optimal_banks_py(
    tables: Any,
    banks: Any,
    k: int,
    t: int,
    throw_col: int,
    height: int,
    farkle: float,
    boundary: float,
) -> bool:  # pragma: no cover - compiled
    """Whether ``optimal`` banks at total ``t`` (banking legal there): on ties it does."""
    worth = banks[k, t] if t < height else boundary
    return bool(worth >= _solved_value(tables, k, t, throw_col, height, farkle, boundary))


_optimal_banks: Any = njit(cache=True, nogil=True)(_optimal_banks_py)


def _settle_py(
    sums: Ints,
    final: Ints,
    hits: Ints,
    shift: int,
    players: int,
    winner: int,
    win_unit: int,
    finished: bool,
) -> None:  # pragma: no cover - compiled
    """A game's end in a chunk's ``sums``, for both loops: each seat's ``final`` score and
    sheet counts (``hits``) by player, and where it ``finished``, the ``winner``'s win (by
    player and by seat), or with no winner (G-2 not reached at once: F-4, G-6) a share of
    it to each seat tied at the best score."""
    best = final[0]
    for s in range(players):
        p = (s + shift) % players
        sums[p, _SCORE] += final[s]
        best = max(best, final[s])
        for c in range(hits.shape[1]):
            sums[p, _SHEET_AT + c] += hits[s, c]
    if not finished:
        return
    if winner >= 0:
        sums[(winner + shift) % players, _WINS] += win_unit
        sums[winner, _SEAT_WINS] += win_unit
        return
    tied = 0
    for s in range(players):
        if final[s] == best:
            tied += 1
    for s in range(players):
        if final[s] == best:
            sums[(s + shift) % players, _WINS] += win_unit // tied
            sums[s, _SEAT_WINS] += win_unit // tied


_settle: Any = njit(cache=True, nogil=True, inline="always")(_settle_py)


def _play_games_py(
    key: Any,
    first: int,
    lo: int,
    hi: int,
    players: int,
    pol_of: Ints,
    turn: Any,
    policy: Any,
    game_rules: Any,
    sheet: Any,
    solved: Any,
    max_turns: int,
    win_unit: int,
    sums: Ints,
    begun: Ints,
    hist: Ints,
    trace: Ints,
    work: Any,
    tables: Any,
    bank_vals: Any,
    scratch: Any,
    opt: Any,
) -> None:  # pragma: no cover - compiled
    """Play games ``first + lo`` to ``first + hi - 1``, adding their results into ``sums``
    (``SUMS`` by player, not seat, but the seat's wins; a win is ``win_unit``, a share of
    a tie its part, a whole number), ``hist`` (every bank's size) and the sheet's counts
    after ``SUMS`` (``SHEET_COUNTS``); game ``first + i``'s turns started in ``begun[i]``
    (-1: stopped unfinished, its scores and counts added, no win). The games are one loop
    here, the tuples below unpacked once for all (unpacked a game, each of their arrays
    cost an atomic count up and down a game).

    ``turn``, ``policy``, ``game_rules`` and ``sheet``: the tuples of
    ``FastGames.arguments``, and ``solved`` (``SolvedTurns.arguments``: which policies
    solve each turn, ``optimal``, and what they read), with ``tables`` and ``bank_vals``
    its turn's values (``_solve_turn``, a taken-back turn's apart), the opponents' scores
    and the look-ahead's (``_sheet_ends``) in ``scratch`` to ``n_ends``; ``work``: the
    arrays a game works in (``_work``), made once for many games (only what a game reads
    before it writes is reset here).
    """
    # ``cols[col]``: a column's kind and index, then a throw node's dice and first roll, or a
    # hand's throw column; ``opts[o]``: an option's points and column (also apart,
    # as ``optimal`` reads them). A row read where separate arrays took two to four reads,
    # each waiting on the one before (``FastSimulator._packed``).
    start_col, cols, code_local, opt_start, opts, opt_pts, opt_dest, hand_take_col = turn
    (
        sit_of,
        keep_base,
        keep_sits,
        keep_rows,
        keep_flat,
        rolls,
        bank_base,
        rows,
        hands,
        bank_flat,
        taken,
        take_flat,
        pick_base,
        pick,
    ) = policy
    (
        final_turns,
        final_round,
        cut,
        lost,
        reaches,
        throw_on,
        cuts,
        loses,
        grabs,
        allowed,
        keep_rank,
        roll_top,
        twin,
    ) = game_rules
    # ``cuts``, ``loses``: some entry of ``cut``, of ``lost`` is not 0 (G-7, T-9); where none
    # is, the kernel reads neither (large tables, read at random: a cache miss a turn)
    limit, restart, bump_mode, fallback, reentry, _, penalty, penalty_after, blank, flat = sheet
    # ``flat``: no level is ever crossed (no ticks, no bumps, no final round), so a seat's
    # score is its last level, kept alone at the bottom of its stack, and it has entered once
    # it has banked. Else the stack holds every level not crossed; a penalty's level (F-1,
    # ``fresh_farkle_penalty``) enters no one, so ``banked`` counts the levels a bank wrote.
    counts = sit_of.shape[2]
    last_a, last_t, last_x = cut.shape[0] - 1, cut.shape[1] - 1, reaches.shape[0] - 1
    start_k = cols[start_col, 1]  # the turn's first throw node
    bins = hist.shape[1]
    # Each seat's levels not crossed, in the order written (lowest first but under a penalty),
    # with the ticks beside each (G-3) and whether a penalty wrote it; a level
    # is written before it is read, so only the counts start again from 0.
    lv_val, lv_tk, lv_n, ever, frames, hits, in_row, lv_pen, banked = work  # hits: by seat
    solvers = solved.solves  # read once (a tuple's array read each turn costs its count)
    final = np.empty(players, dtype=np.int64)  # each seat's score at the game's end
    for i in range(lo, hi):
        game = first + i
        state = _mix(key ^ (np.uint64(game) * _GOLDEN))
        shift = game % players
        n_trace = 0  # a trace holds one game's moves (``trace_game`` plays one)
        lv_n[:] = 0
        banked[:] = 0
        ever[:] = False
        hits[:] = 0
        in_row[:] = 0
        zero: Any = np.int64(game) * 0  # an int64, not a literal 0: one compile of each helper
        mover = np.int64(0)  # typed, not the literal 0: one compile of each helper it meets
        started = 1
        holder = np.int64(-1)  # F-4, G-6: the seat that reached the target (typed: as mover)
        stop = np.int64(-1)  # the game ends when the turn would pass to this seat
        winner = np.int64(-1)
        offer_t = zero
        offer_h = -1  # G-8: the hand a bank with dice left was made at (-1: no offer)
        while True:
            if started > max_turns:
                break
            player = mover + shift  # (no modulo: a division a turn)
            if player >= players:
                player -= players
            pol = pol_of[player]
            n = lv_n[mover]
            a = lv_val[mover, n - 1] if n > 0 else 0
            entered = ever[mover] if flat else (banked[mover] > 0 or (not reentry and ever[mover]))
            ai = max(min(a, last_a), 0)  # F-1 may take a score below 0: the tables start at 0
            z = min(in_row[mover], counts - 1)
            sit = sit_of[min(ai, sit_of.shape[0] - 1), 1 if entered else 0, z]
            col = start_col
            # F-4: in a last turn every bot but optimal banks once level with the best other
            # score and throws on until then (``bots.last_turn_move``)
            last_turn = final_turns and holder >= 0 and mover != holder
            lead = zero
            if last_turn:
                lead = zero - (2**62)
                for s in range(players):
                    if s != mover:
                        lead = max(lead, _score(lv_val, lv_n, s))
            t = zero  # (a literal 0 here would compile optimal's keep twice)
            blank_hit = False  # the turn ends in a farkle on its first throw of every die
            k = -1  # the throw node of the last roll
            # ``optimal``: its turn solved at the scores on the table (``_optimal_start``),
            # its choices read from the values as it reads them.
            solves = solvers[pol]
            s_k, s_height, s_farkle, s_boundary = zero, zero, 0.0, 0.0
            takes_back = False
            if solves:
                takes_back, s_k, s_height, s_farkle, s_boundary = _optimal_start(
                    mover,
                    players,
                    a,
                    offer_t,
                    hand_take_col[max(offer_h, 0)] if offer_h >= 0 else zero - 1,
                    start_col,
                    sheet,
                    cut,
                    work,
                    scratch,
                    solved,
                    opt,
                    tables,
                    bank_vals,
                )
            if offer_h >= 0:
                orow = min(offer_t, rows - 1)
                if solves:  # G-8, as ``TurnAdvisor.advise`` (``_optimal_start``)
                    takes = takes_back
                else:
                    at = ((pol * taken.shape[0] + sit) * rows + orow) * hands + offer_h
                    takes = take_flat[at]
                if takes:
                    sit = taken[sit, orow]
                    col = hand_take_col[offer_h]
                    t = offer_t
                    hits[mover, 3] += 1
                    kind_taken = 4
                else:
                    kind_taken = 5
                if n_trace + 2 <= trace.shape[0]:
                    trace[n_trace] = kind_taken
                    trace[n_trace + 1] = 0
                    n_trace += 2
                offer_h = -1
            ksit = sit if keep_sits[pol] > 1 else 0
            krows = keep_rows[pol]
            picks = pick_base[pol]  # >= 0: the keep of every roll in one row (``pick``)
            bank_at = bank_base[pol] + sit * rows * hands  # the turn's bank table, by row, hand
            outcome = 0  # 0 farkle (or overshoot), 1 instant win, 2 bank
            h = -1
            nxt = -1  # the hand a keep's row (``pick``) leads to: its column's kind not read
            while True:
                kind = cols[_U(col), 0] if nxt < 0 else 2
                if kind == 0:
                    outcome = 0
                    # fresh_farkle_penalty: nothing kept, the turn's first throw (a take-back
                    # inherits points; a throw of every die after a full hand follows a keep)
                    blank_hit = t == 0 and k == start_k
                    break
                if kind == 1:
                    outcome = 1
                    break
                if kind == 2:
                    h = cols[_U(col), 1] if nxt < 0 else nxt
                    nxt = -1
                    if loses and lost[ai, min(t, last_t)]:
                        if not throw_on:
                            outcome = 0  # T-9: past the target, the turn is lost
                            break
                        # T-9, overshoot = throw_on: no bank, the player throws on
                        if n_trace + 2 <= trace.shape[0]:
                            trace[n_trace] = 3
                            trace[n_trace + 1] = 0
                            n_trace += 2
                        col = cols[_U(col), 2]
                        continue
                    row = min(t, rows - 1)
                    banks = bank_flat[_U(bank_at + row * hands + h)]
                    if banks and solves:  # banking legal: optimal banks on ties
                        banks = _optimal_banks(
                            tables,
                            bank_vals,
                            s_k,
                            t,
                            cols[_U(col), 2],
                            s_height,
                            s_farkle,
                            s_boundary,
                        )
                    elif last_turn and not solves:
                        x = a + t - (cut[ai, min(t, last_t)] if cuts else 0)
                        banks = x >= lead and allowed[_U((sit * rows + row) * hands + h)]
                    elif grabs and not banks and not solves:
                        # G-2: a bank that reaches the target wins at once: every bot makes
                        # it, where banking is legal (``bots.banks_on_target``)
                        x = a + t - (cut[ai, min(t, last_t)] if cuts else 0)
                        if reaches[max(min(x, last_x), 0)]:
                            banks = allowed[_U((sit * rows + row) * hands + h)]
                    if banks:
                        outcome = 2
                        if n_trace + 2 <= trace.shape[0]:
                            trace[n_trace] = 2
                            trace[n_trace + 1] = 0
                            n_trace += 2
                        break
                    if n_trace + 2 <= trace.shape[0]:
                        trace[n_trace] = 3
                        trace[n_trace + 1] = 0
                        n_trace += 2
                    col = cols[_U(col), 2]
                    continue
                k = cols[_U(col), 1]
                state, code = _throw(state, cols[_U(col), 2])
                r = cols[_U(col), 3] + code_local[_U(code)]
                if n_trace + 2 <= trace.shape[0]:
                    trace[n_trace] = 0
                    trace[n_trace + 1] = r
                    n_trace += 2
                # G-2: where some keep of this roll may reach the target, a keep after which a
                # bank wins at once comes first (``bots.keep_for_the_win``)
                near = grabs and not solves and reaches[max(min(a + t + roll_top[r], last_x), 0)]
                if picks >= 0 and not near:  # a keep by the roll alone: its option, points, column
                    p = _U(picks + r)
                    if n_trace + 2 <= trace.shape[0]:
                        trace[n_trace] = 1
                        trace[n_trace + 1] = pick[p, 0]
                        n_trace += 2
                    t += pick[p, 1]
                    col = pick[p, 2]
                    nxt = pick[p, 3]
                    continue  # (no T-9 check: a turn lost past the target has no picks)
                o = opt_start[_U(r)]
                if opt_start[_U(r + 1)] - o > 1 and solves:  # the first option of best value
                    o = _optimal_keep(
                        tables,
                        s_k,
                        o,
                        opt_start[r + 1],
                        t,
                        a,
                        opt_pts,
                        opt_dest,
                        s_height,
                        s_farkle,
                        s_boundary,
                        solved.exact,
                        solved.target,
                    )
                elif picks >= 0:
                    o = pick[_U(picks + r), 0]
                elif opt_start[_U(r + 1)] - o > 1:
                    krow = min(t, krows - 1)
                    o += keep_flat[_U(keep_base[pol] + (ksit * krows + krow) * rolls + r)]
                if near and opt_start[_U(r + 1)] - opt_start[_U(r)] > 1:
                    o = _winning_keep(
                        o,
                        opt_start[_U(r)],
                        opt_start[_U(r + 1)],
                        a,
                        t,
                        ai,
                        sit,
                        opts,
                        keep_rank,
                        twin,
                        cols,
                        cut,
                        cuts,
                        reaches,
                        allowed,
                        rows,
                        hands,
                    )
                if n_trace + 2 <= trace.shape[0]:
                    trace[n_trace] = 1
                    trace[n_trace + 1] = o
                    n_trace += 2
                t += opts[_U(o), 0]
                col = opts[_U(o), 1]
                if loses and not throw_on and cols[_U(col), 0] == 3 and lost[ai, min(t, last_t)]:
                    outcome = 0  # T-9: a keep past the target, its jokers set aside (V-2)
                    break
            if outcome == 1:  # G-5: an instant win
                winner = mover
                break
            sums[player, _TURNS] += 1
            if outcome == 0:
                sums[player, _FARKLES] += 1
                # G-3 (as ``_tick`` writes it on the look-ahead's scratch sheet: here inline, where
                # a helper cost the kernel a quarter of its rate; the replays hold both to the
                # engine)
                if limit > 0:
                    hits[mover, 2] += 1  # G-3: a tick, loose without a level (it crosses nothing)
                if limit > 0 and n > 0:  # G-3: a tick beside the current level
                    lv_tk[mover, n - 1] += 1
                    if lv_tk[mover, n - 1] >= limit:
                        back = _cross(mover, lv_val, lv_tk, lv_n, lv_pen, banked, restart)
                        if fallback and back != 0 and bump_mode != 0:
                            _bumps(
                                mover,
                                back,
                                players,
                                lv_val,
                                lv_tk,
                                lv_n,
                                lv_pen,
                                banked,
                                sheet,
                                frames,
                                hits,
                            )
                # The penalties write a level below the score the ticks left (F-1 first, then a
                # blank first throw's), which bumps no one and enters no one.
                if penalty > 0:  # F-1: the farkles in a row, and their penalty
                    in_row[mover] += 1
                    if in_row[mover] >= penalty_after:
                        in_row[mover] = 0
                        _penalise(mover, penalty, flat, lv_val, lv_tk, lv_n, lv_pen)
                        hits[mover, 4] += 1
                if blank_hit and blank > 0:
                    _penalise(mover, blank, flat, lv_val, lv_tk, lv_n, lv_pen)
                    hits[mover, 4] += 1
            else:
                value = a + t - (cut[ai, min(t, last_t)] if cuts else 0)  # G-7: the last 1000
                in_row[mover] = 0
                if value != a:  # a new level, its ticks from 0; it may bump (G-4)
                    # (as ``_write`` writes it on the look-ahead's scratch sheet; inline here)
                    m = 0 if flat else n
                    lv_val[mover, m] = value
                    lv_tk[mover, m] = 0
                    lv_pen[mover, m] = False
                    lv_n[mover] = m + 1
                    banked[mover] += 1
                    ever[mover] = True
                    if bump_mode != 0:
                        _bumps(
                            mover,
                            value,
                            players,
                            lv_val,
                            lv_tk,
                            lv_n,
                            lv_pen,
                            banked,
                            sheet,
                            frames,
                            hits,
                        )
                hist[player, min(t, bins - 1)] += 1
                if hand_take_col[h] >= 0 and players > 1:  # G-8: offered to the next player
                    offer_t = t
                    offer_h = h
                reached = reaches[max(min(value, last_x), 0)]
                if reached:
                    if final_round:  # G-6: the round is finished, or a new one opens
                        if holder < 0:
                            holder = mover
                            stop = np.int64(0)
                        elif holder != mover:
                            m = lv_n[holder]
                            if m > 0 and reaches[max(min(lv_val[holder, m - 1], last_x), 0)]:
                                back = _cross(holder, lv_val, lv_tk, lv_n, lv_pen, banked, restart)
                                if fallback and back != 0 and bump_mode != 0:
                                    _bumps(
                                        holder,
                                        back,
                                        players,
                                        lv_val,
                                        lv_tk,
                                        lv_n,
                                        lv_pen,
                                        banked,
                                        sheet,
                                        frames,
                                        hits,
                                    )
                            holder = mover
                            stop = mover
                    elif not final_turns:
                        winner = mover
                        break
                    elif holder < 0:
                        holder = mover  # F-4: every other player has one last turn
                        stop = mover
            mover = mover + 1 if mover + 1 < players else zero
            if holder >= 0 and mover == stop:
                if final_round:
                    winner = holder
                break
            started += 1
        for s in range(players):
            final[s] = _score(lv_val, lv_n, s)
        finished = started <= max_turns
        _settle(sums, final, hits, shift, players, winner, win_unit, finished)
        begun[i] = started if finished else -1  # stopped unfinished: scores count, no winner


def _work_py(players: int, depth: int) -> Any:  # pragma: no cover - compiled
    """The arrays one game works in (see ``_play_games``), for many games in turn."""
    return (
        np.empty((players, depth), dtype=np.int64),
        np.empty((players, depth), dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros(players, dtype=np.bool_),
        np.empty((players * depth + 2, 3), dtype=np.int64),
        np.zeros((players, _COUNTED), dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros((players, depth), dtype=np.bool_),
        np.zeros(players, dtype=np.int64),
    )


_work: Any = njit(cache=True, nogil=True)(_work_py)


_play_games: Any = njit(cache=True, nogil=True, inline="always")(_play_games_py)
"""Inlined into ``_play_chunks``, its one caller: compiled once, there."""


def _play_plain_games_py(
    key: Any,
    first: int,
    lo: int,
    hi: int,
    players: int,
    pol_of: Ints,
    turn: Any,
    policy: Any,
    game_rules: Any,
    sheet: Any,
    max_turns: int,
    win_unit: int,
    sums: Ints,
    begun: Ints,
    hist: Ints,
    trace: Ints,
) -> None:  # pragma: no cover - compiled
    """``_play_games`` where the games are plain (``FastGames.plain``): every bot keeps by
    the roll alone (``pick``), no level is ever crossed (a seat's score is one number), and
    nothing of the sheet's history, G-7's cut, T-9's lost turn nor ``optimal`` plays. The
    same games, move for move (its traces and sums are checked against ``_play_games``'s),
    in a loop that carries only what they read: a throw, a keep's row, a bank's read, with
    G-2's winning keep and bank, F-4's last turns and F-1's penalties. About a fifth
    faster than the general loop on farkle's, zilch's, greed's and cinq-mille's simple bots
    (docs/performance.md): the general loop's state (the stacks, the offers, ``optimal``'s
    values) and its branches cost every throw, taken or not. (These bots never set jokers
    aside, V-2: the loop follows a keep to a throw as the general one does all the same.)"""
    start_col, cols, code_local, opt_start, opts, _, _, _ = turn
    sit_of, _, _, _, _, _, bank_base, rows, hands, bank_flat, _, _, pick_base, pick = policy
    # ``cuts``: False here, passed to ``_winning_keep`` typed as the general loop passes it
    # (a literal False would compile it twice)
    final_turns, _, cut, _, reaches, _, cuts, _, grabs, allowed, keep_rank, roll_top, twin = (
        game_rules
    )
    penalty, penalty_after, blank = sheet[6], sheet[7], sheet[8]
    counts = sit_of.shape[2]
    last_a, last_x, last_s = cut.shape[0] - 1, reaches.shape[0] - 1, sit_of.shape[0] - 1
    start_k = cols[start_col, 1]
    bins = hist.shape[1]
    score = np.zeros(players, dtype=np.int64)
    ever = np.zeros(players, dtype=np.bool_)
    in_row = np.zeros(players, dtype=np.int64)
    hits = np.zeros((players, _COUNTED), dtype=np.int64)  # the penalties alone, here
    for i in range(lo, hi):
        game = first + i
        state = _mix(key ^ (np.uint64(game) * _GOLDEN))
        shift = game % players
        n_trace = 0
        score[:] = 0
        ever[:] = False
        in_row[:] = 0
        hits[:] = 0
        zero: Any = np.int64(game) * 0  # typed, not a literal: one compile of each helper
        mover = zero
        started = 1
        holder = zero - 1  # F-4: the seat that reached the target
        winner = zero - 1
        while True:
            if started > max_turns:
                break
            player = mover + shift
            if player >= players:
                player -= players
            picks = pick_base[pol_of[player]]
            a = score[mover]
            ai = max(min(a, last_a), 0)  # F-1 may take a score below 0
            z = min(in_row[mover], counts - 1)
            sit = sit_of[min(ai, last_s), 1 if ever[mover] else 0, z]
            bank_at = bank_base[pol_of[player]] + sit * rows * hands
            last_turn = final_turns and holder >= 0 and mover != holder  # F-4
            lead = zero
            if last_turn:
                lead = zero - (2**62)
                for s in range(players):
                    if s != mover:
                        lead = max(lead, score[s])
            t = zero
            k = -1
            col = start_col
            outcome = 0  # 0 farkle, 1 instant win, 2 bank
            while True:
                k = cols[_U(col), 1]
                state, code = _throw(state, cols[_U(col), 2])
                r = cols[_U(col), 3] + code_local[_U(code)]
                if n_trace + 2 <= trace.shape[0]:
                    trace[n_trace] = 0
                    trace[n_trace + 1] = r
                    n_trace += 2
                p = _U(picks + r)
                o = pick[p, 0]
                if (
                    grabs
                    and reaches[max(min(a + t + roll_top[r], last_x), 0)]
                    and opt_start[_U(r + 1)] - opt_start[_U(r)] > 1
                ):  # G-2: a keep after which a bank wins at once comes first
                    o = _winning_keep(
                        o,
                        opt_start[_U(r)],
                        opt_start[_U(r + 1)],
                        a,
                        t,
                        ai,
                        sit,
                        opts,
                        keep_rank,
                        twin,
                        cols,
                        cut,
                        cuts,
                        reaches,
                        allowed,
                        rows,
                        hands,
                    )
                if n_trace + 2 <= trace.shape[0]:
                    trace[n_trace] = 1
                    trace[n_trace + 1] = o
                    n_trace += 2
                if o == pick[p, 0]:  # the keep's row: its points, column and hand
                    t += pick[p, 1]
                    col = pick[p, 2]
                    h = pick[p, 3]
                else:
                    t += opts[_U(o), 0]
                    col = opts[_U(o), 1]
                    h = cols[_U(col), 1] if cols[_U(col), 0] == 2 else -1
                if h < 0:
                    kind = cols[_U(col), 0]
                    if kind == 3:  # jokers set aside (V-2): the other dice thrown
                        continue
                    outcome = kind
                    break
                row = min(t, rows - 1)
                banks = bank_flat[_U(bank_at + row * hands + h)]
                if last_turn:  # F-4: bank once level with the best other score
                    banks = a + t >= lead and allowed[_U((sit * rows + row) * hands + h)]
                elif grabs and not banks and reaches[max(min(a + t, last_x), 0)]:
                    banks = allowed[_U((sit * rows + row) * hands + h)]  # G-2: win at once
                if n_trace + 2 <= trace.shape[0]:
                    trace[n_trace] = 2 if banks else 3
                    trace[n_trace + 1] = 0
                    n_trace += 2
                if banks:
                    outcome = 2
                    break
                col = cols[_U(col), 2]
            if outcome == 1:  # G-5: an instant win
                winner = mover
                break
            sums[player, _TURNS] += 1
            if outcome == 0:
                sums[player, _FARKLES] += 1
                if penalty > 0:  # F-1: the farkles in a row, and their penalty
                    in_row[mover] += 1
                    if in_row[mover] >= penalty_after:
                        in_row[mover] = 0
                        score[mover] -= penalty
                        hits[mover, _PENALTIES] += 1
                if blank > 0 and t == 0 and k == start_k:  # a blank first throw
                    score[mover] -= blank
                    hits[mover, _PENALTIES] += 1
            else:
                value = a + t
                in_row[mover] = 0
                if value != a:
                    score[mover] = value
                    ever[mover] = True
                hist[player, min(t, bins - 1)] += 1
                if reaches[max(min(value, last_x), 0)]:
                    if not final_turns:
                        winner = mover
                        break
                    if holder < 0:
                        holder = mover  # F-4: every other player has one last turn
            mover = mover + 1 if mover + 1 < players else zero
            if holder >= 0 and mover == holder:
                break
            started += 1
        finished = started <= max_turns
        _settle(sums, score, hits, shift, players, winner, win_unit, finished)
        begun[i] = started if finished else -1  # stopped unfinished: scores count, no winner


_play_plain_games: Any = njit(cache=True, nogil=True)(_play_plain_games_py)


def _play_chunks_py(  # pragma: no cover - compiled
    key: Any,
    first: int,
    n_games: int,
    chunks: int,
    mine: int,
    step: int,
    players: int,
    pol_of: Ints,
    turn: Any,
    policy: Any,
    game_rules: Any,
    sheet: Any,
    solved: Any,
    max_turns: int,
    win_unit: int,
    sums: Ints,
    started: Ints,
    hist: Ints,
    trace: Ints,
    plain: bool,
) -> None:
    """One thread's share of a batch of ``n_games`` games from game ``first``, cut into
    ``chunks``: chunks ``mine``, ``mine + step``, ... (each chunk's sums and banks into its
    row of ``sums`` and ``hist``). ``FastGames.play`` gives each of its threads a share;
    ``trace_game`` plays one game, its ``trace`` (empty: no trace) filled. ``plain``: the
    games are plain (``FastGames.plain``), played by ``_play_plain_games``."""
    if plain:
        for c in range(mine, chunks, step):
            _play_plain_games(
                key,
                first,
                c * n_games // chunks,
                (c + 1) * n_games // chunks,
                players,
                pol_of,
                turn,
                policy,
                game_rules,
                sheet,
                max_turns,
                win_unit,
                sums[c],
                started,
                hist[c],
                trace,
            )
        return
    work = _work(players, sheet[5])
    # an ``optimal`` seat's solved turns (``_optimal_start``): two tables (a turn taken back
    # apart), each its rows and columns, and what it reads of the table and the sheet
    tables = np.empty((2, solved.rows, solved.columns))
    bank_vals = np.empty((2, solved.rows))
    scratch = _work(players, sheet[5])
    opt = (
        np.empty(players, dtype=np.int64),
        np.empty(players, dtype=np.int64),
        np.empty((players, players * sheet[5], 2), dtype=np.int64),
        np.zeros(players, dtype=np.int64),
        np.zeros(players, dtype=np.int64),  # each opponent's farkles in a row (F-1)
    )
    for c in range(mine, chunks, step):
        _play_games(
            key,
            first,
            c * n_games // chunks,
            (c + 1) * n_games // chunks,
            players,
            pol_of,
            turn,
            policy,
            game_rules,
            sheet,
            solved,
            max_turns,
            win_unit,
            sums[c],
            started,
            hist[c],
            trace,
            work,
            tables,
            bank_vals,
            scratch,
            opt,
        )


_play_chunks: Any = njit(cache=True, nogil=True)(_play_chunks_py)
"""Serial, without the GIL: ``FastGames.play`` runs one call a thread on a pool of Python
threads. (A ``prange`` over the chunks played the same games at the same rate, but Numba's
parallel compile cost a fresh install about 2.4 s of CPU more: ``benchmarks/kernel_compile.py``.)
It is the one kernel called (``_play_games`` inlined into it, ``_play_plain_games`` called
by it for plain games), for play and for traces."""
_NO_TRACE = np.zeros(0, dtype=np.int64)


# ---------------------------------------------------------------------------- the edge


def seed_key(seed: int) -> np.uint64:
    """The 64-bit key of a simulation seed (the same in every process and on every run)."""
    digest = hashlib.sha256(f"zloutch-fast:{seed}".encode()).digest()
    return np.uint64(int.from_bytes(digest[:8], "little"))


@dataclass(eq=False)
class FastSums:
    """What the kernel counts over a range of games (``FastGames.play_sums``), in whole
    numbers: a win is ``FastGames.win_unit``, so ranges merge exactly in any grouping
    (the calls of ``simulate_fast``, the tasks of a cluster) and give the same tally."""

    games: int
    finished: int
    turns: int
    unfinished_games: list[int]
    sums: Ints
    """By player (``SUMS``, then ``SHEET_COUNTS``; ``seat_wins`` by seat)."""
    banks: Ints
    """By player, the banks by size (in units; the last counts every larger one)."""

    def merge(self, other: FastSums) -> None:
        """Add ``other``, a range of games after this one."""
        self.games += other.games
        self.finished += other.finished
        self.turns += other.turns
        self.unfinished_games.extend(other.unfinished_games)
        self.sums = self.sums + other.sums
        self.banks = self.banks + other.banks


FAST_GAMES_VERSION = 3
"""The version of ``FastGames``'s parts (``to_parts``): a cache keeps them under it, and a
change to what they mean must raise it (``zloutch.app.store.cached_fast_games`` also keys
its entries on the package's source files, so that an edit cannot read a stale entry)."""


@dataclass(frozen=True, eq=False)
class FastGames:
    """What the kernel reads to play the games of one rule set and one line-up: numbers,
    tuples and arrays only, built once by ``FastSimulator`` (the set-up: the compiled turn,
    the game's end, the bots' tables) and able to play on their own (``play``,
    ``play_sums``, ``tally``, ``trace_game``). ``to_parts`` and ``from_parts`` give it as a
    description and arrays and back, so that a cache can keep it and a later run skip the
    set-up (``zloutch.app.store.cached_fast_games``: 0.13 s for farkle's bots, 4.5 s for
    dix-mille's experts)."""

    players: int
    unit: int
    """The rule set's step of points (``RuleSet.unit``): the kernel counts in units."""
    pol_of: Ints
    """Each seat's policy (an index into the kernel's tables)."""
    win_unit: int
    """A win in the kernel's sums: a tie's share of it is a whole number (840 for eight
    players), so the sums are exact whatever their order (chunks, threads)."""
    bins: int
    """Bank sizes are counted exactly up to this many units (larger ones in the last)."""
    depth: int
    """``FastModel.depth``: room for the levels not crossed where banks alone write them."""
    penalised: bool
    """Whether a penalty writes levels too (F-1's, or a blank first throw's): see
    ``stack_depth``."""
    turn: tuple[Any, ...]
    policy: tuple[Any, ...]
    game_rules: tuple[Any, ...]
    sheet: tuple[Any, ...]
    """The sheet's rules, its stacks' depth (``_SHEET_DEPTH``) set by ``arguments``."""
    solved: SolvedArrays

    def stack_depth(self, max_turns: int) -> int:
        """Room for each player's levels not crossed. Banks alone write levels that only
        grow, one per step of the target; a penalty writes one below the score, so under a
        penalty a player may write two levels a turn (F-1's and a blank throw's)."""
        if self.penalised:
            return self.depth + 2 * (max_turns // self.players + 2)
        return self.depth

    @property
    def plain(self) -> bool:
        """Whether the games are plain, played by a loop of their own
        (``_play_plain_games``): every seat's bot keeps by the roll alone (``pick``), no
        level is ever crossed (no ticks, bumps nor final round), no take-back is offered
        (G-8), and neither G-7's cut nor T-9's lost turn applies (``optimal``, ``expert``
        and the sheet's games take the general loop)."""
        hand_take_col, pick_base = self.turn[7], self.policy[12]
        cuts, loses = self.game_rules[6], self.game_rules[7]
        return bool(
            self.sheet[_SHEET_FLAT]
            and not cuts
            and not loses
            and (pick_base[self.pol_of] >= 0).all()
            and not np.asarray(self.solved.solves).any()
            and (self.players == 1 or (hand_take_col < 0).all())
        )

    def _loop(self, plain: bool | None) -> bool:
        """The loop that plays: ``plain`` (None: the plain one where the games are plain)."""
        if plain is None:
            return self.plain
        if plain and not self.plain:
            raise ValueError(
                "these games are not plain (FastGames.plain): the general loop plays them"
            )
        return plain

    def arguments(self, max_turns: int = MAX_TURNS) -> tuple[Any, Any, Any, Any, Any]:
        """The kernel's inputs as five tuples: the turn graph, the players' tables, the end
        of the game, the sheet (its stacks as deep as ``max_turns`` turns may need), and what
        ``optimal`` reads (``SolvedArrays``)."""
        sheet = list(self.sheet)
        sheet[_SHEET_DEPTH] = self.stack_depth(max_turns)
        return self.turn, self.policy, self.game_rules, tuple(sheet), self.solved

    def play(
        self,
        seed: int,
        start: int,
        stop: int,
        *,
        max_turns: int = MAX_TURNS,
        chunks: int = 64,
        threads: int | None = None,
        plain: bool | None = None,
    ) -> Tally:
        """Play games ``start`` to ``stop - 1`` on ``threads`` threads (default: every core,
        ``most_threads``); the same tally for any ``chunks`` and any ``threads``, and from
        either loop where the games are plain (``plain``: None, the plain loop there)."""
        return self.tally(
            self.play_sums(
                seed, start, stop, max_turns=max_turns, chunks=chunks, threads=threads, plain=plain
            )
        )

    def play_sums(
        self,
        seed: int,
        start: int,
        stop: int,
        *,
        max_turns: int = MAX_TURNS,
        chunks: int = 64,
        threads: int | None = None,
        plain: bool | None = None,
    ) -> FastSums:
        """``play``'s counts before its tally: whole numbers, so that ranges merged in game
        order (``FastSums.merge``) give the tally of one call to the last bit, however the
        run was cut into calls."""
        n, players = stop - start, self.players
        started = np.zeros(n, dtype=np.int64)
        chunks = max(1, min(chunks, n))
        sums = np.zeros((chunks, players, len(SUMS) + len(SHEET_COUNTS)), dtype=np.int64)
        hist = np.zeros((chunks, players, self.bins), dtype=np.int64)
        arguments = self.arguments(max_turns)
        key = seed_key(seed)
        loop = self._loop(plain)

        threads = min(most_threads() if threads is None else max(threads, 1), chunks)

        def share(mine: int) -> None:
            _play_chunks(
                key,
                start,
                n,
                chunks,
                mine,
                threads,
                players,
                self.pol_of,
                *arguments,
                max_turns,
                self.win_unit,
                sums,
                started,
                hist,
                _NO_TRACE,
                loop,
            )

        if threads == 1:
            share(0)
        else:
            with ThreadPoolExecutor(threads) as pool:
                for _ in pool.map(share, range(threads)):
                    pass
        finished = started >= 0
        unfinished = [start + int(i) for i in np.flatnonzero(~finished)]
        return FastSums(
            games=n,
            finished=int(finished.sum()),
            # an unfinished game stopped when its turn count passed the limit
            turns=int(np.where(finished, started, 0).sum()) + (max_turns + 1) * len(unfinished),
            unfinished_games=unfinished,
            sums=sums.sum(axis=0),
            banks=hist.sum(axis=0),
        )

    def tally(self, counts: FastSums) -> Tally:
        """The tally of ``play_sums``'s counts (of one call or merged)."""
        unit = self.unit
        tally = Tally(self.players)
        tally.games = counts.games
        tally.finished = counts.finished
        tally.turns = counts.turns
        tally.unfinished_games = list(counts.unfinished_games)
        banks, total = counts.banks, counts.sums
        for p, pt in enumerate(tally.per_player):
            pt.wins = int(total[p, _WINS]) / self.win_unit
            pt.score = int(total[p, _SCORE]) * unit
            pt.turns = int(total[p, _TURNS])
            pt.farkles = int(total[p, _FARKLES])
            for c, name in enumerate(SHEET_COUNTS):
                setattr(pt, name, int(total[p, _SHEET_AT + c]))
            pt.banks = {int(t) * unit: int(c) for t, c in enumerate(banks[p]) if c}
        for s in range(self.players):
            tally.seat_wins[s] = int(total[s, _SEAT_WINS]) / self.win_unit
            tally.seat_games[s] = tally.games
        return tally

    def trace_game(
        self, seed: int, game: int, *, length: int = 100_000, plain: bool | None = None
    ) -> list[tuple[int, int]]:
        """One game's rolls (by index), keeps (by option), banks and throws, in order (from
        either loop where the games are plain: ``play``)."""
        players = self.players
        trace = np.full(length, -1, dtype=np.int64)
        _play_chunks(
            seed_key(seed),
            game,
            1,
            1,
            0,
            1,
            players,
            self.pol_of,
            *self.arguments(),
            MAX_TURNS,
            self.win_unit,
            np.zeros((1, players, len(SUMS) + len(SHEET_COUNTS)), dtype=np.int64),
            np.zeros(1, dtype=np.int64),
            np.zeros((1, players, self.bins), dtype=np.int64),
            trace,
            self._loop(plain),
        )
        used = int(np.argmax(trace < 0)) if (trace < 0).any() else length
        return [(int(trace[i]), int(trace[i + 1])) for i in range(0, used, 2)]

    def to_parts(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        """The games as a description (JSON: numbers, and each array by name) and the arrays
        it names; ``from_parts`` builds them back, the kernel's argument types included
        (which arrays are read-only: another type to Numba, another compiled kernel)."""
        arrays: dict[str, npt.NDArray[Any]] = {}
        layout = {
            "version": FAST_GAMES_VERSION,
            "numbers": {name: getattr(self, name) for name in _GAMES_NUMBERS},
            "pol_of": _described(self.pol_of, arrays),
            **{name: _described(getattr(self, name), arrays) for name in _GAMES_TUPLES},
        }
        return layout, arrays

    @staticmethod
    def from_parts(layout: Any, arrays: Mapping[str, npt.NDArray[Any]]) -> FastGames:
        """``to_parts``'s games back; ``ValueError`` (what is wrong, in words) for parts
        this version did not write."""
        if not isinstance(layout, dict) or layout.get("version") != FAST_GAMES_VERSION:
            raise ValueError(f"not the parts of fast games version {FAST_GAMES_VERSION}")
        numbers = layout.get("numbers")
        if not isinstance(numbers, dict) or set(numbers) != set(_GAMES_NUMBERS):
            raise ValueError("its numbers are not those of the fast games")
        for name in _GAMES_NUMBERS:
            if type(numbers[name]) is not (bool if name == "penalised" else int):
                raise ValueError(
                    f"its {name} is not a {'flag' if name == 'penalised' else 'number'}"
                )
        pol_of = _rebuilt(layout.get("pol_of"), arrays)
        parts = {name: _rebuilt(layout.get(name), arrays) for name in _GAMES_TUPLES}
        if not isinstance(pol_of, np.ndarray) or not all(
            isinstance(part, tuple) for part in parts.values()
        ):
            raise ValueError("its tables are not those of the fast games")
        if len(parts["solved"]) != len(SolvedArrays._fields):
            raise ValueError("its solved turns are not those of the fast games")
        parts["solved"] = SolvedArrays(*parts["solved"])
        return FastGames(pol_of=pol_of, **numbers, **parts)


_SHEET_DEPTH = 5
"""The index of the stacks' depth in the kernel's ``sheet`` tuple."""
_SHEET_FLAT = 9
"""The index in the kernel's ``sheet`` tuple of whether no level is ever crossed."""
_GAMES_NUMBERS = ("players", "unit", "win_unit", "bins", "depth", "penalised")
_GAMES_TUPLES = ("turn", "policy", "game_rules", "sheet", "solved")


def _described(value: Any, arrays: dict[str, npt.NDArray[Any]]) -> Any:
    """``value`` (an array, a number, a flag, or a tuple of them) as JSON, its arrays put in
    ``arrays`` and named."""
    if isinstance(value, np.ndarray):
        name = f"a{len(arrays)}"
        arrays[name] = value
        return {"array": name, "read_only": not value.flags.writeable}
    if isinstance(value, (bool, np.bool_)):
        return {"bool": bool(value)}
    if isinstance(value, (int, np.integer)):
        return {"int": int(value)}
    if isinstance(value, (float, np.floating)):
        return {"float": float(value)}
    if isinstance(value, tuple):
        return {"tuple": [_described(v, arrays) for v in value]}
    raise TypeError(f"the fast games hold a {type(value).__name__}")  # pragma: no cover


def _rebuilt(described: Any, arrays: Mapping[str, npt.NDArray[Any]]) -> Any:
    """``_described``'s value back (``ValueError`` for what it did not write)."""
    if isinstance(described, dict) and len(described) in (1, 2):
        if "array" in described:
            name = described["array"]
            if name not in arrays or not isinstance(described.get("read_only"), bool):
                raise ValueError(f"it names an array it does not hold: {name!r}")
            array = np.ascontiguousarray(arrays[name])
            if described["read_only"]:
                array.flags.writeable = False
            return array
        kind, value = next(iter(described.items()))
        if kind == "bool" and isinstance(value, bool):
            return value
        if kind == "int" and type(value) is int:
            return value
        if kind == "float" and isinstance(value, (int, float)):
            return float(value)
        if kind == "tuple" and isinstance(value, list):
            return tuple(_rebuilt(v, arrays) for v in value)
    raise ValueError(f"not a part of the fast games: {str(described)[:60]!r}")


FastGamesSource = Callable[[RuleSet, tuple[str, ...], Callable[[], FastGames]], FastGames]
"""Where ``simulate_fast`` takes the games of a rule set and a line-up from: given how to
build them, the games built, or kept from an earlier run (``zloutch.app.store``)."""


class FastSimulator:
    """The set-up of one rule set and one line-up of players: the compiled turn, the game's
    end and the bots' tables, built once. Its result, ``games`` (``FastGames``), plays. The
    attributes are the set-up's parts, as built; the games hold what they read (the same
    arrays): another value set on an attribute afterwards does not reach them (replace
    ``games`` for that)."""

    def __init__(
        self, rules: RuleSet, players: Sequence[str], solutions: SolutionSource | None = None
    ) -> None:
        """``solutions``: where ``optimal`` finds its solved game (``OptimalBot``)."""
        from zloutch.strategy.optimal import solves_for  # (imported by ``make_bot`` already)

        check_setup(rules, len(players), 1)
        self.rules = rules
        self.model = fast_model(rules)
        tables: dict[str, TablePolicy] = {}
        solves: dict[str, bool] = {}
        solution: GameSolution | None = None
        for name in players:
            key = name.strip().lower()
            if key not in tables:
                bot = make_bot(name, solutions)
                optimal = solving_bot(bot)
                if optimal is not None and not solves_for(len(players)):
                    bot, optimal = optimal.turn_optimal, None  # alone, as the engine plays it
                tables[key] = _table_of(bot, self.model)
                solves[key] = optimal is not None
                if optimal is not None:
                    advisor = optimal.advisor(rules)
                    solution = advisor.game if advisor is not None else None
                    reason = SolvedTurns.unsupported(rules, len(players), solution)
                    if reason:
                        raise FastPathUnsupported(reason)
        self.policies = tuple(tables.values())
        self.solved = SolvedTurns.of(self.model, list(solves.values()), solution)
        order = list(tables)
        self.pol_of = np.asarray([order.index(n.strip().lower()) for n in players], np.int64)
        self.players = len(players)
        self.win_unit = math.lcm(*range(1, self.players + 1))
        """A win in the kernel's sums (``FastGames.win_unit``)."""
        fm = self.model
        self.keep_flat = np.concatenate([p.keep.ravel() for p in self.policies])
        sizes = [p.keep.size for p in self.policies]
        self.keep_base = np.asarray([sum(sizes[:i]) for i in range(len(sizes))], np.int64)
        self.keep_sits = np.asarray([p.keep.shape[0] for p in self.policies], np.int64)
        self.keep_rows = np.asarray([p.keep.shape[1] for p in self.policies], np.int64)
        self.bank_flat = np.concatenate([p.bank.ravel() for p in self.policies])
        sizes = [p.bank.size for p in self.policies]
        self.bank_base = np.asarray([sum(sizes[:i]) for i in range(len(sizes))], np.int64)
        full = (len(fm.situations), fm.rows, len(fm.hands))
        self.take_flat = np.concatenate(
            [np.broadcast_to(p.take, full).ravel() for p in self.policies]
        )
        self.bins = 4 * fm.rows
        """Bank sizes are counted exactly up to this many units (larger ones in the last)."""
        self.cols, self.opts = self._packed()
        self.pick_base, self.pick = self._picks(list(solves.values()))
        self.games = self._games()
        """What the kernel reads (``FastGames``), which plays."""

    def _games(self) -> FastGames:
        fm = self.model
        cols, opts = self.cols, self.opts
        turn = (
            fm.start_col,
            cols,
            fm.code_local,
            fm.opt_start,
            opts,
            fm.opt_pts,
            fm.opt_dest,
            fm.hand_take_col,
        )
        policy = (
            fm.sit_of,
            self.keep_base,
            self.keep_sits,
            self.keep_rows,
            self.keep_flat,
            fm.rolls,
            self.bank_base,
            fm.rows,
            len(fm.hands),
            self.bank_flat,
            fm.taken,
            self.take_flat,
            self.pick_base,
            self.pick,
        )
        end = fm.end
        g = self.rules.game
        bump = {"off": BUMP_OFF, "current": BUMP_CURRENT, "any": BUMP_ANY}[g.bump]
        t = self.rules.turn
        penalty = t.farkle_penalty // fm.unit  # a whole number of units (fast_unsupported)
        flat = not g.ticks_to_cross and bump == BUMP_OFF and not g.final_round
        sheet = (
            int(g.ticks_to_cross),
            bool(g.ticks_restart),
            bump,
            bool(g.fallback_bumps),
            bool(g.reentry),
            0,  # the stacks' depth (_SHEET_DEPTH), by the turns allowed: FastGames.arguments
            penalty,
            int(t.farkle_penalty_after),
            t.fresh_farkle_penalty // fm.unit,  # a whole number of units (rules.validate)
            flat,
        )
        throw_on = self.rules.game.overshoot == "throw_on"
        cuts, loses = bool(end.cut.any()), bool(end.lost.any())
        # G-2: where a bank that reaches the target wins at once, every bot makes it
        # (``bots.banks_on_target``; under an exact target the tables hold it): the kernel
        # reads where banking is legal, by situation, total and hand.
        grabs = wins_at_target(self.rules) and not g.exact_target
        allowed = np.zeros(1, dtype=np.bool_)
        if grabs or g.final_turns:  # and F-4's last turns, where every bot banks once ahead
            frame = TableFrame(fm.model, fm.situations, fm.rows, fm.hand_take_col, fm.taken)
            allowed = np.ascontiguousarray(frame.allowed()).ravel()
        # G-2, at a keep: a keep after which a bank wins at once comes first
        # (``bots.keep_for_the_win``), ranked as the bots rank keeps; looked for only where
        # the roll's most points may reach the target (``roll_top``)
        keep_rank = np.zeros(1, dtype=np.int64)
        roll_top = np.zeros(1, dtype=np.int64)
        twin = np.arange(len(fm.opt_pts), dtype=np.int64)
        if grabs and self.rules.variants.joker:
            twin = _keep_twins(fm)
        if grabs:
            keep_rank = np.ascontiguousarray(keep_ranks(fm.model), dtype=np.int64)
            roll_top = np.asarray(
                [
                    int(fm.opt_pts[fm.opt_start[r] : fm.opt_start[r + 1]].max(initial=0))
                    for r in range(fm.rolls)
                ],
                dtype=np.int64,
            )
        game_rules = (
            end.final_turns,
            end.final_round,
            end.cut,
            end.lost,
            end.reached,
            throw_on,
            cuts,
            loses,
            grabs,
            allowed,
            keep_rank,
            roll_top,
            twin,
        )
        return FastGames(
            players=self.players,
            unit=fm.unit,
            pol_of=self.pol_of,
            win_unit=self.win_unit,
            bins=self.bins,
            depth=fm.depth,
            penalised=bool(t.farkle_penalty or t.fresh_farkle_penalty),
            turn=turn,
            policy=policy,
            game_rules=game_rules,
            sheet=sheet,
            solved=self.solved.arguments,
        )

    def _packed(self) -> tuple[Ints, Ints]:
        """The turn graph's rows as the kernel reads them a throw (``_play_games``): each
        column's kind, index and two more (a throw node's dice and first roll, a hand's throw
        column and 0), each option's points and column. Every entry is at least 0: the
        kernel reads these indices as unsigned (``_U``), without the wraparound test."""
        fm = self.model
        cols = np.zeros((len(fm.col_kind), 4), dtype=np.int64)
        cols[:, 0] = fm.col_kind
        cols[:, 1] = fm.col_idx
        throw = fm.col_kind == KIND_THROW
        cols[throw, 2] = fm.node_dice[fm.col_idx[throw]]
        cols[throw, 3] = fm.roll_base[fm.col_idx[throw]]
        hand = fm.col_kind == KIND_HAND
        cols[hand, 2] = fm.hand_throw_col[fm.col_idx[hand]]
        opts = np.stack([fm.opt_pts, fm.opt_dest], axis=1)
        keeps = self.keep_flat  # (checked once: dix-mille's experts' keeps are 200 MB)
        if (cols < 0).any() or (opts < 0).any() or (keeps < 0).any() or (fm.opt_start < 0).any():
            raise FastPathUnsupported("the compiled turn has a negative index")  # pragma: no cover
        return cols, opts

    def _picks(self, solves: Sequence[bool]) -> tuple[Ints, Ints]:
        """For each policy whose keep reads the roll alone (a keep table of one situation
        and one row: the cautious, threshold and greedy bots where the target is not
        exact), the keep of every roll as one row of ``pick``: its option, points and
        column, and the hand that column is (-1: another kind). The kernel reads it in one
        step, where the general path reads the roll's first option, the keep's offset and
        the option, each read waiting on the one before (about 15% of the kernel's time on
        farkle's ``threshold:300``), then the column's kind and hand (2 to 3% more).
        ``pick_base[pol]``: the policy's first row; -1 for the others (``optimal``, tables by
        situation or points), which take the general path, as every policy does where T-9
        loses a turn past the target (the general path checks the keep's column for it)."""
        fm = self.model
        rows: list[Ints] = []
        base = np.full(len(self.policies), -1, dtype=np.int64)
        lost = self.rules.game.overshoot != "throw_on" and bool(fm.end.lost.any())
        first = fm.opt_start[:-1]
        several = np.diff(fm.opt_start) > 1  # a roll of one option has no keep to read
        for i, policy in enumerate(self.policies):
            if solves[i] or policy.keep.shape[:2] != (1, 1) or lost:
                continue
            o = first + np.where(several, policy.keep[0, 0].astype(np.int64), 0)
            base[i] = len(rows) * fm.rolls
            dest = fm.opt_dest[o]
            hand = np.where(fm.col_kind[dest] == KIND_HAND, fm.col_idx[dest], -1)
            rows.append(np.stack([o, fm.opt_pts[o], dest, hand], axis=1))
        pick = np.concatenate(rows) if rows else np.zeros((1, 4), dtype=np.int64)
        return base, np.ascontiguousarray(pick, dtype=np.int64)

    def roll_faces(self, r: int) -> tuple[int, ...]:
        """The faces of roll ``r`` (an index into the model's rolls)."""
        fm = self.model
        k = int(np.searchsorted(fm.roll_base, r, side="right") - 1)
        n = int(fm.node_dice[k])
        return fm.model.rolls[n][r - int(fm.roll_base[k])][0]


def simulate_fast(
    rules: RuleSet,
    players: Sequence[str],
    games: int,
    seed: int,
    *,
    progress: Callable[[int], None] | None = None,
    batch: int = FIRST_BATCH,
    max_turns: int = MAX_TURNS,
    jobs: int | None = None,
    solutions: SolutionSource | None = None,
    status: Callable[[str], None] | None = None,
    tables: FastGamesSource | None = None,
) -> Tally:
    """Play ``games`` games on the fast path; ``progress`` is told the games done per batch.

    ``jobs`` threads (default: every core, ``most_threads``); the tally does not depend on it.
    ``status`` is told ``BUILDING`` before the set-up is built (not where ``tables`` has
    it), then ``FIRST_CALL`` before the kernel's first call in this process, which loads it
    from Numba's cache or, on a first run, compiles it (else ``""``: nothing to wait for).
    ``tables``: where the set-up's result may be kept from an earlier run
    (``FastGamesSource``); not for a line-up with ``optimal``, whose solved game may change
    between runs.
    """
    check_setup(rules, len(players), games)
    if batch < 1:
        raise SimulationError(f"a batch must hold at least 1 game, not {batch}")
    reason = fast_unsupported(rules)
    if reason:
        raise FastPathUnsupported(reason)
    names = tuple(name.strip().lower() for name in players)
    built = False

    def build() -> FastGames:
        nonlocal built
        built = True
        if status is not None:
            status(BUILDING)
        return FastSimulator(rules, players, solutions).games

    solves = any(solving_bot(make_bot(name, solutions)) is not None for name in names)
    sim = build() if tables is None or solves else tables(rules, names, build)
    if status is not None and not kernel_loaded():
        status(FIRST_CALL)
    elif status is not None and built:
        status("")  # the tables are built: nothing more to wait for
    threads = most_threads() if jobs is None else max(1, min(jobs, most_threads()))
    total: FastSums | None = None
    a, size = 0, batch
    while a < games:
        b = min(a + size, games)
        begin = time.perf_counter()
        counts = sim.play_sums(seed, a, b, max_turns=max_turns, threads=threads)
        if total is None:
            total = counts
        else:
            total.merge(counts)
        took = time.perf_counter() - begin
        # the next call about BATCH_SECONDS long, at most four times this one, not below batch
        size = max(batch, min(4 * size, int((b - a) * BATCH_SECONDS / max(took, 1e-6))))
        a = b
        if progress is not None:
            progress(b)  # (the rate, in place of FIRST_CALL's words once the kernel is in)
    assert total is not None  # check_setup refuses fewer than one game
    return sim.tally(total)


FIRST_CALL = "loading (10-30 s)"
"""What ``simulate_fast`` says before the kernel's first call in a process (10 to 30 s where
Numba compiles it, on a first run; a sixth of a second where it loads it from its cache).
Short: at 80 columns the progress bar keeps a count of ten million games whole beside it."""
BUILDING = "building tables"
"""What ``simulate_fast`` says before it builds the set-up (dix-mille's experts: 4.5 s)."""


def kernel_loaded() -> bool:
    """Whether this process has the kernel that plays the games, compiled or loaded from
    Numba's cache (its first call in a process does one or the other)."""
    return bool(_play_chunks.signatures)


def most_threads() -> int:
    """The threads the fast path plays on at most: Numba's count (``NUMBA_NUM_THREADS``,
    every core unless set)."""
    import numba

    return max(1, int(getattr(numba.config, "NUMBA_NUM_THREADS", 1)))
