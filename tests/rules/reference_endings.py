"""The plain reference of ``zloutch.engine.endings``, for the tests alone: the check that a rule
set's games can end as the rules layer once made it, walking the turn itself with its own bank
rule (``_mask``) instead of reading the engine's compiled turn. ``test_endings_reference.py``
checks that both find the same bankable totals and the same verdict.

Rule sets that can end: from every score a player can reach, can the target be reached?

``check_endings`` decides it from the rules alone, in two steps.

1. **The turn totals.** Every total a turn can bank, found by walking the turn as the engine
   plays it: each throw of the dice in hand (every multiset of faces can come up), each legal
   keep of it (the score table: keep rules, V-6 and V-7 hand contexts), full hands (S-16, T-5
   forced or optional), the F-2 bonus, V-1 confirmation, V-2 jokers, and what a bank needs
   (T-6, T-7 by turn or by one throw, T-8, F-3, T-10). Totals are bit sets, in units of the
   rule set's step: a keep shifts them. Within one hand the dice in hand only go down, so one
   pass over the hands gives, from each way a hand can start afresh, the totals it can bank
   and the totals it can carry into the next full hand; the totals of a whole turn are then
   closed under those cycles, in increasing order (every keep scores, so a cycle adds).
2. **The scores.** With an exact target (T-9) a bank may not pass the target, so the scores
   a player can reach are sums of banks (G-7 stops those short of the target at target -
   1000), and from each the target must be reachable by more banks. Ticks (G-3) let a stuck
   player fall back level by level to no level at all, so there only the start must finish;
   a penalty (F-1) lets a score fall without end, so only the residue of the target modulo
   the banks and the penalty counts. With a target to reach or pass, scores only climb: a
   player must be able to bank at all, and under G-7 to bank 1000 in one turn.

A throw that wins at once (G-5, a kind rule ``"win"``) ends any game. Other players' bumps
(G-4) are not counted on: a game of one player has none.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from zloutch.rules.dice import contains, difference, multisets
from zloutch.rules.errors import InvalidRulesError
from zloutch.rules.ruleset import GameRules, RuleSet, TurnRules
from zloutch.rules.scoring import NO_CONTEXT, HandContext, score_table


@dataclass(frozen=True)
class Banks:
    """The totals a turn can bank, as bit sets in units of ``unit`` (bit t: t x unit)."""

    unit: int
    entering: int
    """Bankable by a player who has not entered (T-7)."""
    entered: int
    """Bankable by a player who has."""
    finishing_entering: int
    """T-10: totals a full hand may bank only when they land exactly on the target."""
    finishing_entered: int
    limit: int
    """The highest bit the sets hold."""


# A hand as the walk sees it: the dice set aside (their faces where V-6 or V-7 read them,
# else only how many), the V-7 multiples, V-1 pending, T-7 "met" (a throw worth the entry),
# the jokers set aside (how many or which, and their points), and whether the throw is the
# throw of the jokers after a farkle (V-2): then ``jokers`` is how many dice it throws.
_Aside = tuple[int, ...] | int
_Node = tuple[_Aside, tuple[int, ...], bool, bool, _Aside, int, bool]


def _ones(indices: Iterator[int]) -> int:
    bits = 0
    for i in indices:
        bits |= 1 << i
    return bits


def _bits(value: int) -> Iterator[int]:
    while value:
        low = value & -value
        yield low.bit_length() - 1
        value ^= low


def check_endings(rules: RuleSet) -> None:
    """Refuse a rule set where some score a player can reach could never finish the game."""
    reason = _endings(rules)
    if reason is not None:
        key, message = reason
        raise InvalidRulesError(message, key)


def _wins_at_once(rules: RuleSet) -> bool:
    """A throw of every die can win at once (G-5, a kind rule ``"win"``)."""
    if rules.game.five_ones_win and rules.dice >= 5:
        return True
    return any(value == "win" for value in rules.kinds_values().values())


def _climbs_without_end(rules: RuleSet) -> bool:
    """Whether a reach target is plainly reachable, without walking the turn: a face that
    scores alone, thrown on every die, is a keep of every die, a full hand that T-5 lets the
    player bank; k such hands make any total, and 100 k of them one that T-6 and every
    threshold (T-7, F-3, G-7's 1000) allow. V-1 and T-7 by one throw need the walk."""
    t = rules.turn
    return (
        bool(rules.scoring.singles)
        and t.full_hand == "optional"
        and not rules.variants.confirmation
        and (t.entry_by == "turn" or not t.entry)
    )


@lru_cache(maxsize=256)
def _endings(rules: RuleSet) -> tuple[str, str] | None:
    if _wins_at_once(rules):
        return None  # a throw wins at once: every game can end
    g, t = rules.game, rules.turn
    if g.exact_target:
        return _exact(rules)
    if _climbs_without_end(rules):
        return None
    needed = max(t.entry, t.min_bank, 1000 if g.last_thousand else 0, 100)
    banks = turn_banks(rules, needed + 4 * _hand_span(rules))
    if not banks.entering:
        return ("game.target", _no_bank(rules, entering=True))
    if g.last_thousand:
        big = banks.entered >> -(-1000 // banks.unit)
        if not big:
            return (
                "game.last_thousand",
                f"no turn can bank 1000 (G-7): a player who reaches {g.target - 1000} could "
                "never finish",
            )
    return None


def _no_bank(rules: RuleSet, *, entering: bool) -> str:
    t = rules.turn
    why = []
    if entering and t.entry:
        how = "one throw worth" if t.entry_by == "throw" else "a turn total of"
        why.append(f"{how} {t.entry} to enter (T-7)")
    if t.min_bank:
        why.append(f"at least {t.min_bank} to bank (F-3)")
    if t.bank_multiple_of_100:
        why.append("a round total, a multiple of 100 (T-6)")
    needs = f" that has {' and '.join(why)}" if why else ""
    return f"no turn can ever be banked{needs}, so no game could ever end"


def _exact(rules: RuleSet) -> tuple[str, str] | None:
    g, t = rules.game, rules.turn
    step = math.gcd(step_of(rules), g.target)
    if g.last_thousand:
        step = math.gcd(step, 1000)
    top = g.target // step
    penalty = t.farkle_penalty
    limit = 2 * top if penalty else top
    banks = turn_banks(rules, limit * step, unit=step)
    mask = (1 << (top + 1)) - 1
    enter = banks.entering & mask
    stay = banks.entered & mask
    if not banks.entering:
        if penalty:
            return ("game.target", _no_bank(rules, entering=True))
        return (
            "game.target",
            f"{g.target} can never be hit exactly (T-9): no turn can bank a total of at most "
            f"{g.target}",
        )
    if penalty:
        if g.last_thousand:
            return None  # scores fall without end and climb to a cap: not modelled, allowed
        h = 0
        for b in _bits(banks.entered | banks.finishing_entered):
            h = math.gcd(h, b * step)
        reach = math.gcd(h, penalty)
        if g.target % reach:
            return (
                "game.target",
                f"{g.target} can never be hit exactly: every bank is a multiple of {h} and the "
                f"penalty (F-1) is {penalty}, so every score is a multiple of {reach}",
            )
        return None
    finish_enter = enter | (banks.finishing_entering & mask)
    finish_stay = stay | (banks.finishing_entered & mask)
    cap = (g.target - 1000) // step if g.last_thousand else None

    def land(s: int, b: int) -> int:
        v = s + b
        return v if cap is None or v >= top else min(v, max(cap, s))

    # W: the scores (entered) from which banks can still hit the target exactly.
    wins = 0
    for s in range(top, -1, -1):
        if (finish_stay >> (top - s)) & 1:
            wins |= 1 << s
            continue
        if cap is not None and s >= cap:
            continue  # at the cap only one turn of 1000 finishes (G-7)
        room = (1 << (top - s)) - 1  # banks that stay short of the target
        below = stay & room
        if cap is None:
            if (below << s) & wins:
                wins |= 1 << s
        else:
            short = below & ((1 << max(cap - s, 0)) - 1)
            if (short << s) & wins or (below >> max(cap - s, 0) and (wins >> cap) & 1):
                wins |= 1 << s
    start_wins = bool((finish_enter >> top) & 1) or any(
        (wins >> land(0, b)) & 1 for b in _bits(enter & ((1 << top) - 1))
    )
    if not start_wins:
        return ("game.target", _never_hit(rules, banks, step, top, enter))
    if g.ticks_to_cross:
        return None  # a stuck player's ticks take them back to the start (G-3)
    # Every score a player can reach must be in W: the first one that is not is named.
    reached = 0
    for b in _bits(enter & ((1 << top) - 1)):
        reached |= 1 << land(0, b)
    for s in range(top):
        if not (reached >> s) & 1:
            continue
        if not (wins >> s) & 1:
            return ("game.exact_target", _stuck(rules, banks, step, s * step))
        for b in _bits(stay & ((1 << (top - s)) - 1)):
            reached |= 1 << land(s, b)
    return None


def _never_hit(rules: RuleSet, banks: Banks, step: int, top: int, enter: int) -> str:
    smallest = ((enter & -enter).bit_length() - 1) * step if enter else 0
    return (
        f"{rules.game.target} can never be hit exactly (T-9): no sum of the totals a turn "
        f"can bank makes it (the smallest first bank is {smallest})"
    )


def _stuck(rules: RuleSet, banks: Banks, step: int, score: int) -> str:
    g = rules.game
    left = g.target - score
    return (
        f"a player at {score} could never finish: no sum of the totals a turn can bank makes "
        f"the {left} left to the exact target {g.target} (T-9), and without ticks (G-3) or a "
        "penalty (F-1) nothing moves a score back"
    )


# ---------------------------------------------------------------------------- the turn


def _hand_span(rules: RuleSet) -> int:
    """The most one hand can score (a bound for the window past the thresholds)."""
    passes, _ = _hand_passes(_hand_rules(rules), step_of(rules))
    most = 0
    for decided, carried in passes.values():
        for amounts in (*decided.values(), *carried.values()):
            most = max(most, amounts.bit_length())
    return most * step_of(rules)


def step_of(rules: RuleSet) -> int:
    """The step of every turn total: the rule set's unit, and V-7's pair (x its face)."""
    step = rules.unit
    if rules.variants.multiples_over_throws:
        step = math.gcd(step, rules.scoring.full_house_pair)
    return step


def turn_banks(rules: RuleSet, limit_points: int, *, unit: int | None = None) -> Banks:
    """The totals a turn can bank, up to ``limit_points`` (see the module's docstring)."""
    step = unit or step_of(rules)
    return _turn_banks(rules, max(limit_points // step, 1), step)


def _turn_banks(rules: RuleSet, top: int, step: int) -> Banks:
    passes, first = _hand_passes(_hand_rules(rules), step)
    starts = list(passes)
    mask = (1 << (top + 1)) - 1
    fresh = {start: 0 for start in starts}
    fresh[first] = 1
    for total in range(top + 1):
        for start in starts:
            if not (fresh[start] >> total) & 1:
                continue
            for target, amounts in passes[start][1].items():
                grown = fresh[target] | ((amounts << total) & mask)
                fresh[target] = grown
    decided: dict[tuple[str, bool], int] = {}
    for start in starts:
        for key, amounts in passes[start][0].items():
            acc = decided.get(key, 0)
            for total in _bits(fresh[start]):
                acc |= (amounts << total) & mask
            decided[key] = acc
    t = rules.turn
    ok_entering = _mask(rules, top, step, entering=True)
    ok_entered = _mask(rules, top, step, entering=False)
    by_throw = t.entry_by == "throw" and t.entry > 0
    entering = entered = fin_entering = fin_entered = 0
    for (kind, met), amounts in decided.items():
        if kind == "bank":
            entered |= amounts & ok_entered
            if met or not by_throw:
                entering |= amounts & ok_entering
        elif kind == "full" and t.full_hand_win:
            at_least = -(-t.full_hand_win_from // step)
            high = amounts >> at_least << at_least
            fin_entered |= high & ok_entered
            if met or not by_throw:
                fin_entering |= high & ok_entering
    return Banks(step, entering, entered, fin_entering, fin_entered, top)


def _hand_rules(rules: RuleSet) -> RuleSet:
    """What one hand depends on: the scoring and the turn's shape, not the target, the
    entry (unless a throw must be worth it) or the bank rules, so that one walk serves the
    many rule sets that differ only there."""
    t = rules.turn
    by_throw = t.entry_by == "throw" and t.entry > 0
    return RuleSet(
        name="",
        summary="",
        dice=rules.dice,
        scoring=rules.scoring,
        turn=TurnRules(
            full_hand=t.full_hand,
            figure_full_hand=t.figure_full_hand,
            entry=t.entry if by_throw else 0,
            entry_by=t.entry_by if by_throw else "turn",
        ),
        game=GameRules(five_ones_win=rules.game.five_ones_win),
        variants=rules.variants,
    )


_Pass = tuple[dict[tuple[str, bool], int], dict[_Node, int]]


@lru_cache(maxsize=256)
def _hand_passes(rules: RuleSet, step: int) -> tuple[dict[_Node, _Pass], _Node]:
    """One pass from each fresh start: what it banks, and what it carries to a fresh hand.

    A hand has no cycle, so its amounts are finite and kept whole (no window)."""
    walk = _Walk(rules, step)
    return {start: walk.one_hand(start) for start in walk.fresh_starts()}, walk.start


def _mask(rules: RuleSet, top: int, step: int, *, entering: bool) -> int:
    """The totals a bank allows, whatever the hand (T-6, T-7 by turn, T-8, F-3)."""
    t = rules.turn
    by_turn = entering and t.entry and t.entry_by == "turn"
    allowed = []
    for i in range(1, top + 1):
        points = i * step
        if not t.round_enough(points):
            continue
        small_pp = t.petit_palier and points == 100 and not entering
        if points < t.min_bank and not small_pp:
            continue
        if by_turn and points < t.entry:
            continue
        allowed.append(i)
    return _ones(iter(allowed))


class _Walk:
    """One hand of a turn, node by node, as bit sets of the totals it has scored so far."""

    def __init__(self, rules: RuleSet, step: int) -> None:
        self.rules = rules
        self.table = score_table(rules)
        self.step = step
        v, t = rules.variants, rules.turn
        self.faces = v.across_throws  # whether the dice set aside are read by face
        self.by_throw = t.entry_by == "throw" and t.entry > 0
        self.start = self._fresh(False, not self.by_throw)

    def fresh_starts(self) -> list[_Node]:
        pendings = (False, True) if self.rules.variants.confirmation else (False,)
        mets = (False, True) if self.by_throw else (True,)
        return [self._fresh(p, m) for p in pendings for m in mets]

    def _fresh(self, pending: bool, met: bool) -> _Node:
        if self.faces:
            return ((), (), pending, met, (), 0, False)
        return (0, (), pending, met, 0, 0, False)

    def _size(self, aside: _Aside) -> int:
        return len(aside) if isinstance(aside, tuple) else aside

    def one_hand(self, start: _Node) -> tuple[dict[tuple[str, bool], int], dict[_Node, int]]:
        """From a fresh hand with total 0: the totals reached at each kind of decision
        (``bank``: a bank may follow; ``full``: a forced full hand, T-10 only), and the
        totals carried into each fresh hand that follows (full hand or F-2 bonus)."""
        decided: dict[tuple[str, bool], int] = {}
        carried: dict[_Node, int] = {}
        sets: dict[_Node, int] = {start: 1}
        order = [(self._rank(start), 0, start)]
        count = 1
        while order:
            _, _, node = heapq.heappop(order)
            bits = sets.pop(node)
            for target, shifted, decision in self._edges(node, bits):
                if decision is not None:
                    decided[decision] = decided.get(decision, 0) | shifted
                    continue
                if target is None:
                    continue
                if self._is_fresh(target):
                    carried[target] = carried.get(target, 0) | shifted
                    continue
                if target not in sets:
                    count += 1
                    heapq.heappush(order, (self._rank(target), count, target))
                    sets[target] = 0
                sets[target] |= shifted
        return decided, carried

    def _is_fresh(self, node: _Node) -> bool:
        aside, _, _, _, jokers, _, joker_roll = node
        return self._size(aside) == 0 and not joker_roll and not jokers

    def _rank(self, node: _Node) -> int:
        """Edges go up in rank: a keep sets dice aside, a joker throw follows its farkle."""
        aside, _, _, _, _, _, joker_roll = node
        return 3 * self._size(aside) + (1 if joker_roll else 0)

    def _edges(
        self, node: _Node, bits: int
    ) -> Iterator[tuple[_Node | None, int, tuple[str, bool] | None]]:
        rules = self.rules
        v, t = rules.variants, rules.turn
        aside, multiples, pending, met, jokers, joker_points, joker_roll = node
        n_aside = self._size(aside)
        n_jokers = self._size(jokers)
        thrown = n_jokers if joker_roll else rules.dice - n_aside - n_jokers
        context = NO_CONTEXT
        if isinstance(aside, tuple):  # the faces are read (V-6, V-7)
            context = HandContext(aside, multiples)
        for throw in multisets(thrown):
            score = self.table.lookup(throw, context)
            if any(k.wins for k in score.keeps):
                continue  # the game is won at once: no total to bank
            if score.farkle:
                if n_jokers and not joker_roll:
                    kept = joker_points if v.joker_keeps_points else 0
                    yield (aside, multiples, pending, met, jokers, kept, True), bits, None
                continue
            for keep in score.keeps:
                points = keep.points + joker_points  # a joker throw holds the points kept
                shifted = bits << (points // self.step)
                new_aside: _Aside
                if isinstance(aside, tuple) and isinstance(jokers, tuple):
                    joker_dice = () if joker_roll else jokers
                    new_aside = tuple(sorted((*aside, *keep.dice, *joker_dice)))
                else:
                    new_aside = n_aside + len(keep.dice) + (0 if joker_roll else n_jokers)
                size = self._size(new_aside)
                new_multiples = multiples
                if v.multiples_over_throws:
                    found = set(multiples)
                    for combo in keep.combinations:
                        if combo.figure and len(combo.dice) >= 3 and len(set(combo.dice)) == 1:
                            found.add(combo.dice[0])
                    new_multiples = tuple(sorted(found))
                new_pending = False
                if v.confirmation:
                    confirms = any(
                        not c.figure and len(c.dice) == 1 and c.dice[0] in (1, 5)
                        for c in keep.combinations
                    )
                    new_pending = (pending and not confirms) or keep.figure
                new_met = met or keep.points >= t.entry
                full = size == rules.dice or (t.figure_full_hand and keep.whole)
                bonus = keep.bonus
                if not (new_pending or bonus):
                    kind = "full" if full and t.full_hand == "forced" else "bank"
                    yield None, shifted, (kind, new_met)
                if full or bonus:
                    yield self._fresh(new_pending, new_met), shifted, None
                    continue
                after = (new_aside, new_multiples, new_pending, new_met)
                yield (*after, self._no_jokers(), 0, False), shifted, None
                if v.joker:
                    left = difference(throw, keep.dice)
                    reading = self.table.lookup(throw)
                    for joker in reading.scoring:
                        if joker.wins or len(joker.dice) >= len(left):
                            continue
                        if not contains(left, joker.dice):
                            continue
                        held: _Aside = joker.dice if self.faces else len(joker.dice)
                        yield (*after, held, joker.points, False), shifted, None

    def _no_jokers(self) -> _Aside:
        return () if self.faces else 0
