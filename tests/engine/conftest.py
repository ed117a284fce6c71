"""Helpers of the engine's conformance and property tests (test_conformance, test_properties).

They reach the tests through the session fixture ``engine_checks``, so that the other test
files of this folder are left alone:

- ``random_action``: the random policy both suites play with;
- ``check_state``: what must hold in every state of every game;
- ``SheetFromEvents``: the sheet written again from the events alone (``step``'s second
  result), checked against the rules as each event comes, and compared with the state's sheet;
- ``check_outcome``: winners, ranking and the sailors' kicks of a finished game (G-9).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction
from types import SimpleNamespace

import pytest

from zloutch.engine import (
    CHANCE,
    TERMINAL,
    Action,
    Bank,
    GameState,
    Keep,
    Off,
    Phase,
    Roll,
    Throw,
    apply,
    bank_refusal,
    chance_outcomes,
    current_player,
    is_terminal,
    legal_actions,
    outcome,
    throw_score,
    turn_player,
)
from zloutch.engine import events as ev
from zloutch.rules import RuleSet, score_table
from zloutch.rules.dice import difference

# ---------------------------------------------------------------------------- the policy

BANK_WITH_DICE = 0.6
"""Probability of banking, when it is legal, with three or more dice left to throw."""
BANK_WITH_FEW_DICE = 0.9
"""Probability of banking, when it is legal, with one or two dice left to throw."""


def random_action(
    state: GameState, rng: random.Random, actions: tuple[Action, ...] | None = None
) -> Action:
    """A random player that is not suicidal, so that long rule sets still end.

    When ``bank`` is legal it banks at once if that lands exactly on an exact target, else
    with probability 0.9 (one or two dice left to throw) or 0.6 (more). Otherwise it picks
    uniformly among the other legal actions, leaving out the keeps that would overshoot an
    exact target (T-9) when some keep fits. A uniform policy keeps throwing with one die and
    makes exact-target games with ticks_to_cross=1 last tens of thousands of turns.
    """
    if actions is None:
        actions = legal_actions(state)
    g, t = state.rules.game, state.turn
    if Bank() in actions:
        score = state.sheets[t.player].score
        if g.exact_target and score + t.total == g.target:
            return Bank()
        if rng.random() < (BANK_WITH_FEW_DICE if state.in_hand <= 2 else BANK_WITH_DICE):
            return Bank()
    others = [a for a in actions if a != Bank()] or list(actions)
    if state.phase is Phase.KEEP and g.exact_target:
        room = g.target - state.sheets[t.player].score - t.total - t.joker_points
        reading = throw_score(state)
        fitting = []
        for a in others:
            keep = reading.keep_for(a.dice) if isinstance(a, Keep) else None
            if keep is not None and keep.points <= room:
                fitting.append(a)
        others = fitting or others
    return rng.choice(others)


def players_for(rules: RuleSet, rng: random.Random) -> list[str]:
    """Two players mostly, three or four at times, within what the rule set allows."""
    g = rules.game
    low = g.min_players if g.max_players < 2 else max(2, g.min_players)  # a game for one
    high = max(low, min(4, g.max_players))
    wanted = rng.choices((2, 3, 4), weights=(60, 25, 15))[0]
    return [f"P{i}" for i in range(min(max(wanted, low), high))]


# ---------------------------------------------------------------------------- every state


def check_state(state: GameState, actions: tuple[Action, ...] | None = None) -> None:
    """Invariants of every state; raises AssertionError saying which one broke.

    ``actions`` are the legal actions when the caller has them. At a chance node they are
    only read when given (hundreds of rolls: the callers check them once per size).
    """
    rules, t = state.rules, state.turn
    n = len(state.sheets)
    phase = state.phase
    player = current_player(state)
    assert 0 <= turn_player(state) == t.player < n, "turn_player out of the seats"
    assert is_terminal(state) == (phase is Phase.OVER), "is_terminal disagrees with the phase"
    if phase is Phase.OVER:
        assert player == TERMINAL, f"current_player {player} in a finished game"
        assert legal_actions(state) == (), "legal actions in a finished game"
    elif phase is Phase.ROLL:
        assert player == CHANCE, f"current_player {player} while dice roll"
    else:
        assert player == t.player, f"current_player {player} is not the turn's {t.player}"
    assert (chance_outcomes(state) != ()) == (phase is Phase.ROLL), "chance node outside ROLL"
    for sheet in state.sheets:
        g = rules.game
        if g.exact_target:
            assert sheet.score <= g.target, f"{sheet.name} at {sheet.score} past {g.target} (T-9)"
        if g.ticks_to_cross:
            assert 0 <= sheet.ticks < g.ticks_to_cross, f"{sheet.name} has {sheet.ticks} ticks"
        else:
            assert sheet.ticks == sheet.loose_ticks == 0, "ticks with ticks_to_cross = 0"
    if phase is Phase.OVER:
        return

    assert t.total >= 0, f"turn total {t.total}"
    assert t.joker_points >= 0 and 0 <= t.inherited <= t.total, "joker or inherited points"
    if actions is None and phase is not Phase.ROLL:
        actions = legal_actions(state)
    if actions is not None:
        assert actions, f"no legal action in {phase}: the game is stuck"
        keys = [a.sort_key() for a in actions]
        assert keys == sorted(keys), f"legal actions not sorted: {actions}"
        assert len(set(actions)) == len(actions), f"legal actions repeated: {actions}"
        # While the dice roll, the rolls; at a real table also a die off the table (V-1).
        thrown = [a for a in actions if not (state.table_mode and isinstance(a, Off))]
        rolls = all(isinstance(a, Roll) for a in thrown)
        assert rolls == (phase is Phase.ROLL), "rolls misplaced"

    dice = rules.dice
    aside, jokers = len(t.set_aside), len(t.jokers)
    if phase is Phase.START:
        assert aside == jokers == t.total == 0, "a turn that starts with dice or points"
    elif phase is Phase.ROLL:
        assert 1 <= t.rolling <= dice, f"{t.rolling} dice rolling"
        if actions is not None:
            outcomes = tuple(r for r, _ in chance_outcomes(state))
            off = (Off(),) if state.table_mode else ()
            assert actions == off + outcomes, "rolls != outcomes"
            assert all(len(r.dice) == t.rolling for r in outcomes), "a roll of the wrong size"
        if t.joker_roll:  # the jokers are thrown; the farkled dice lie on the table (V-2)
            assert aside + t.rolling + len(t.throw) == dice, "dice lost in a joker throw"
        else:
            assert aside + jokers + t.rolling == dice, (
                f"{aside} set aside + {jokers} jokers + {t.rolling} thrown != {dice} dice"
            )
    elif phase is Phase.KEEP:
        assert actions is not None and all(isinstance(a, Keep | Off) for a in actions), "keep"
        if t.joker_roll:
            assert aside + len(t.throw) <= dice, "too many dice after a joker throw"
        else:
            assert aside + jokers + len(t.throw) == dice, (
                f"{aside} set aside + {jokers} jokers + {len(t.throw)} on the table != {dice}"
            )
    elif phase is Phase.DECIDE:
        assert actions is not None
        assert (Bank() in actions) == (bank_refusal(state) is None), (
            f"Bank legal: {Bank() in actions}, bank_refusal: {bank_refusal(state)!r}"
        )
        if t.full_hand and state.rules.turn.figure_full_hand and aside < dice:
            # S-16 option: the last keep held a figure that is a full hand by itself
            kept = difference(t.throw, t.left)
            keep = score_table(state.rules).lookup(t.throw).keep_for(kept)
            assert keep is not None and keep.whole, "a full hand without a figure (S-16)"
        elif t.full_hand:
            assert aside == dice and jokers == 0, "a full hand without every die set aside"
        else:
            assert aside + jokers < dice, "no die left in hand outside a full hand"
        if Throw() in actions:
            rolling = apply(state, Throw()).turn.rolling
            expected = dice if t.full_hand else dice - aside - jokers
            assert rolling == expected, f"throw rolls {rolling} dice, {expected} in hand"
    if phase is not Phase.DECIDE:
        assert Bank() not in (actions or ()) and bank_refusal(state), "bank outside DECIDE"


def check_chance(state: GameState) -> None:
    """The chance node lists every multiset of the dice once, with exact probabilities."""
    outcomes = chance_outcomes(state)
    rolls = [r for r, _ in outcomes]
    assert len(set(rolls)) == len(rolls), "a roll listed twice"
    assert all(p > 0 for _, p in outcomes), "a roll with no probability"
    assert sum(p for _, p in outcomes) == Fraction(1), "probabilities do not sum to 1"


# ---------------------------------------------------------------------------- the sheet


@dataclass
class _Level:
    value: int
    crossed: bool = False
    pp: bool = False
    ticks: int = 0
    entered: bool = True
    """False for an F-1 penalty written on the sheet of a player who never entered."""


@dataclass
class _Column:
    levels: list[_Level] = field(default_factory=list)
    ticks: int = 0
    loose_ticks: int = 0
    farkles_in_row: int = 0
    entered_once: bool = False

    @property
    def current(self) -> int | None:
        for i in range(len(self.levels) - 1, -1, -1):
            if not self.levels[i].crossed:
                return i
        return None

    @property
    def score(self) -> int:
        i = self.current
        return self.levels[i].value if i is not None else 0

    @property
    def entered(self) -> bool:
        """T-7: the player has a level of their own banking that is not crossed."""
        return any(not lv.crossed and lv.entered for lv in self.levels)


class SheetFromEvents:
    """The sheet rebuilt from the events, with the rules of the sheet checked on the way.

    ``step(before, after, events)`` reads the events of one action, raises AssertionError
    when one breaks a rule (T-6, T-7, T-8, T-9, G-3, G-4, G-6, G-7, F-1, F-3), then compares
    the sheet it wrote with ``after``'s, level by level.
    """

    def __init__(self, state: GameState) -> None:
        self.rules = state.rules
        self.columns = [_Column() for _ in state.sheets]
        self.best_throw = 0

    def step(self, before: GameState, after: GameState, events: tuple[ev.Event, ...]) -> None:
        todo = list(events)
        self.bumps: list[tuple[int, int]] = []
        self.cross_due: int | None = None
        i = 0
        while i < len(todo):
            event = todo[i]
            i += 1
            following = todo[i] if i < len(todo) else None
            if isinstance(event, ev.Kept):
                # jokers' points ride on the keep that follows them; they are not this throw's
                self.best_throw = max(self.best_throw, event.points - before.turn.joker_points)
            elif isinstance(event, ev.TurnStarted):
                self.best_throw = 0
            elif isinstance(event, ev.Banked):
                if self._banked(before, event, following):
                    i += 1
            elif isinstance(event, ev.Entered):
                assert not self.rules.turn.entry, f"{event} does not follow a first bank"
            elif isinstance(event, ev.Bumped):
                self._bumped(event, following)
            elif isinstance(event, ev.Crossed):
                self._crossed(event)
            elif isinstance(event, ev.Farkled):
                self._farkled(before, event, following, todo[i:])
            elif isinstance(event, ev.Ticked):
                self._ticked(event)
            elif isinstance(event, ev.Penalised):
                self._penalised(event)
            elif isinstance(event, ev.FinalRound):
                self._final_round(before, event, todo)
            elif isinstance(event, ev.Won):
                assert is_terminal(after) and after.winners == event.winners, (
                    f"{event} but the state says winners {after.winners}"
                )
        assert not self.bumps, f"G-4: these levels should have been bumped: {self.bumps}"
        assert self.cross_due is None, "G-3: the last tick did not cross the level"
        for event in events:  # G-4 current: a new level is no other player's current one
            if isinstance(event, ev.Banked) and event.written and self.rules.game.bump == "current":
                shared = [
                    q
                    for q, c in enumerate(self.columns)
                    if q != event.player and c.current is not None and c.score == event.level
                ]
                assert not shared, f"G-4: seats {shared} still stand at {event.level} after {event}"
        quiet = all(isinstance(e, ev.Thrown | ev.Kept | ev.Jokered | ev.Confirmed) for e in events)
        if not (quiet and after.sheets is before.sheets):  # most steps touch no sheet
            self._compare(after)

    # -- one event each

    def _banked(self, before: GameState, event: ev.Banked, following: ev.Event | None) -> bool:
        """Check a bank; returns whether the following Entered event belongs to it."""
        rules = self.rules
        t, g = rules.turn, rules.game
        column = self.columns[event.player]
        previous = column.score
        raw = previous + event.total
        if g.last_thousand and raw < g.target and event.level != raw:
            # G-7: short of the target, the score stops at target - 1000
            assert event.level == max(g.target - 1000, previous) < raw, (
                f"G-7: {previous} + {event.total} written as {event.level}"
            )
        else:
            assert event.level == raw, f"level {event.level} != {previous} + {event.total}"
        # A bank writes a level above the score, or (G-7, at the cap) none: never a second one
        assert event.written == (event.level > previous), f"{event} from a score of {previous}"
        if t.bank_multiple_of_100:
            assert event.total % 100 == 0, f"T-6: banked {event.total}, which ends in 50"
        if g.exact_target:
            assert event.level <= g.target, f"T-9: level {event.level} past {g.target}"
        assert event.pp == (t.petit_palier and event.total == 100), f"T-8: pp mark of {event}"
        # T-7, with its Reading: once entered, entered for good when reentry is off
        was_entered = column.entered or (not g.reentry and column.entered_once)
        petit_palier = t.petit_palier and event.total == 100 and was_entered
        assert event.total >= t.min_bank or petit_palier, (
            f"F-3/T-8: banked {event.total}, the smallest bank is {t.min_bank}"
        )
        assert event.total > 0, "banked nothing"
        entered_event = (
            isinstance(following, ev.Entered)
            and following.player == event.player
            and following.level == event.level
        )
        if not was_entered and t.entry:
            assert entered_event, (
                f"T-7: {event.total} is the first bank of seat {event.player} (it has no level "
                f"of its own banking), yet no Entered event: the entry of {t.entry} was skipped"
            )
            if t.entry_by == "throw":
                assert self.best_throw >= t.entry, (
                    f"T-7: entered with a best throw of {self.best_throw} < {t.entry}"
                )
            else:
                counted = event.total
                if not g.take_back_counts_for_entry:
                    counted -= before.turn.inherited
                assert counted >= t.entry, f"T-7: entered with {counted} < {t.entry}"
        if not was_entered and t.petit_palier:  # T-8: entering changes the smallest bank
            assert entered_event, f"T-8: seat {event.player}'s first bank is no entry"
        if was_entered:
            assert not entered_event, f"seat {event.player} enters twice"
        if not (t.entry or t.petit_palier):  # entering changes nothing: no news of it
            assert not entered_event, f"{following} where no entry rule applies"
        if event.written:
            self._due_bumps(event.player, event.level)
            column.levels.append(_Level(event.level, pp=event.pp))
            column.ticks = 0
        column.farkles_in_row = 0
        column.entered_once = True
        return entered_event

    def _due_bumps(self, player: int, level: int) -> None:
        """G-4: a new level of ``player`` crosses the equal levels of the others."""
        mode = self.rules.game.bump
        if mode == "off":
            return
        for q, other in enumerate(self.columns):
            if q == player:
                continue
            if mode == "current":
                if other.current is not None and other.score == level:
                    self.bumps.append((q, level))
            else:
                hits = [lv for lv in other.levels if not lv.crossed]
                self.bumps += [(q, level) for lv in hits if lv.value == level]

    def _bumped(self, event: ev.Bumped, following: ev.Event | None) -> None:
        pair = (event.victim, event.level)
        assert pair in self.bumps, f"G-4: {event} is not a bump (due: {self.bumps})"
        self.bumps.remove(pair)
        assert (
            isinstance(following, ev.Crossed)
            and following.player == event.victim
            and following.level == event.level
            and following.reason == "bump"
        ), f"G-4: {event} is followed by {following}, not by the crossing"

    def _crossed(self, event: ev.Crossed) -> None:
        column = self.columns[event.player]
        if event.reason == "bump" and self.rules.game.bump == "any":
            index = next(
                (
                    k
                    for k, lv in enumerate(column.levels)
                    if not lv.crossed and lv.value == event.level
                ),
                None,
            )
        else:
            index = column.current
        assert index is not None and column.levels[index].value == event.level, (
            f"{event}: there is no such level to cross"
        )
        current = index == column.current
        column.levels[index].crossed = True
        back = column.current
        if current:
            # G-3 Reading: ticks restart at the level fallen back to, or it keeps its ticks
            column.ticks = 0
            if back is not None:
                if self.rules.game.ticks_restart:
                    column.levels[back].ticks = 0
                else:
                    column.ticks = column.levels[back].ticks
        assert event.back_to == column.score, (
            f"{event}: the last level not crossed is {column.score}"
        )
        if event.reason == "ticks" and self.cross_due == event.player:
            self.cross_due = None
        if current and self.rules.game.fallback_bumps and column.score:
            # G-4 option: the level fallen back to bumps the equal levels of the others
            self._due_bumps(event.player, column.score)

    def _farkled(
        self, before: GameState, event: ev.Farkled, following: ev.Event | None, rest: list
    ) -> None:
        rules = self.rules
        column = self.columns[event.player]
        column.farkles_in_row += 1
        ticks = rules.game.ticks_to_cross
        assert bool(ticks) == isinstance(following, ev.Ticked), (
            f"G-3: a farkle with ticks_to_cross={ticks} followed by {following}"
        )
        penalty = rules.turn.farkle_penalty
        due = bool(penalty) and column.farkles_in_row >= rules.turn.farkle_penalty_after
        penalised = any(isinstance(e, ev.Penalised) and e.why == "row" for e in rest)
        assert due == penalised, f"F-1: farkle {column.farkles_in_row} in a row, penalty {due}"
        # fresh_farkle_penalty: the turn's first throw, of every die, scored nothing
        t = before.turn
        first = not (t.total or t.inherited or t.set_aside or t.joker_roll)
        blank = event.reason == "farkle" and first and t.rolling == self.rules.dice
        due = bool(self.rules.turn.fresh_farkle_penalty) and blank
        charged = any(isinstance(e, ev.Penalised) and e.why == "blank" for e in rest)
        assert due == charged, f"a blank first throw ({blank}), penalty {due}"

    def _ticked(self, event: ev.Ticked) -> None:
        column = self.columns[event.player]
        index = column.current
        if index is None:
            column.loose_ticks += 1
            assert (event.level, event.ticks) == (0, column.loose_ticks), (
                f"G-3: {event} for a player with no level ({column.loose_ticks} ticks)"
            )
            return
        column.ticks += 1
        column.levels[index].ticks += 1
        assert (event.level, event.ticks) == (column.levels[index].value, column.ticks), (
            f"G-3: {event} beside {column.levels[index].value} with {column.ticks} ticks"
        )
        assert column.ticks <= self.rules.game.ticks_to_cross, f"G-3: {column.ticks} ticks"
        if column.ticks == self.rules.game.ticks_to_cross:
            self.cross_due = event.player

    def _penalised(self, event: ev.Penalised) -> None:
        column = self.columns[event.player]
        if event.why == "blank":
            assert event.points == self.rules.turn.fresh_farkle_penalty, str(event)
            assert event.level == column.score - event.points, str(event)
            column.levels.append(_Level(event.level, entered=column.entered))
            column.ticks = 0
            return
        assert event.points == self.rules.turn.farkle_penalty, f"F-1: {event}"
        assert event.level == column.score - event.points, (
            f"F-1: {event} from a score of {column.score}"
        )
        column.levels.append(_Level(event.level, entered=column.entered))
        column.ticks = 0
        column.farkles_in_row = 0

    def _final_round(self, before: GameState, event: ev.FinalRound, todo: list) -> None:
        final = before.final
        if final is None or final.holder == event.player:
            return
        # G-6: a player who also reaches the target crosses the first one's level: the
        # first goes back one level, whatever else the same bank does.
        lost = sum(1 for e in todo if isinstance(e, ev.Crossed) and e.player == final.holder)
        assert lost == 1, (
            f"G-6: reaching the target again cost seat {final.holder} {lost} levels, not one"
        )

    def _compare(self, after: GameState) -> None:
        for seat, (mine, theirs) in enumerate(zip(self.columns, after.sheets, strict=True)):
            written = [(lv.value, lv.crossed, lv.pp, lv.ticks) for lv in mine.levels]
            state = [(lv.value, lv.crossed, lv.pp, lv.ticks) for lv in theirs.levels]
            assert written == state, f"seat {seat}: the events write {written}, the state {state}"
            counts = (mine.ticks, mine.loose_ticks, mine.farkles_in_row)
            held = (theirs.ticks, theirs.loose_ticks, theirs.farkles_in_row)
            assert counts == held, f"seat {seat}: ticks, loose ticks, farkles {counts} != {held}"
            assert theirs.score == mine.score, f"seat {seat}: score {theirs.score}"


# ---------------------------------------------------------------------------- the end


def check_outcome(state: GameState, last_events: tuple[ev.Event, ...]) -> None:
    """Winners, a ranking of every seat, and G-9's kicks; ``last_events`` ended the game."""
    result = outcome(state)
    assert result is not None, "a finished game without an outcome"
    n = len(state.sheets)
    assert result.winners and result.winners == state.winners, f"winners {result.winners}"
    assert sorted(seat for seat, _ in result.ranking) == list(range(n)), "ranking misses seats"

    def key(seat: int) -> tuple[bool, int]:
        return (seat in result.winners, state.sheets[seat].score)

    for seat, rank in result.ranking:
        better = sum(1 for q in range(n) if key(q) > key(seat))
        assert rank == 1 + better, f"seat {seat} ranked {rank}, {better} seats are ahead"
    assert [r for _, r in result.ranking] == sorted(r for _, r in result.ranking), "not sorted"
    # G-9: the n-th of N players gives N - n kicks and takes n - 1; tied players kick
    # neither way: each gives to the seats ranked below, takes from those above, and as
    # many kicks are given as taken
    ranks = [r for _, r in result.ranking]
    assert result.kicks == tuple(
        (s, sum(o > r for o in ranks), sum(o < r for o in ranks)) for s, r in result.ranking
    ), result.kicks
    assert sum(g for _, g, _ in result.kicks) == sum(t for _, _, t in result.kicks)
    if len(set(ranks)) == n:  # no tie: the seed's table as written
        assert result.kicks == tuple((s, n - r, r - 1) for s, r in result.ranking)

    g = state.rules.game
    scores = [s.score for s in state.sheets]
    kinds = [type(e) for e in last_events]
    if kinds[-2:] == [ev.Thrown, ev.Won]:  # a throw that wins at once (G-5)
        assert len(result.winners) == 1, "an instant win (G-5) by more than one seat"
        return
    if g.final_turns:  # F-4: the highest score wins, ties share
        best = max(scores)
        assert result.winners == tuple(i for i, s in enumerate(scores) if s == best)
        assert best >= g.target, f"F-4: the game ended with a best score of {best}"
    else:
        (winner,) = result.winners
        reached = scores[winner] == g.target if g.exact_target else scores[winner] >= g.target
        assert reached, f"G-2/G-6: seat {winner} won with {scores[winner]}, target {g.target}"


@pytest.fixture(scope="session")
def engine_checks() -> SimpleNamespace:
    return SimpleNamespace(
        random_action=random_action,
        players_for=players_for,
        check_state=check_state,
        check_chance=check_chance,
        check_outcome=check_outcome,
        SheetFromEvents=SheetFromEvents,
    )
