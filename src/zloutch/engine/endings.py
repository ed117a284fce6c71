"""Rule sets that can end: from every score a player can reach, can the target be reached?

``check_endings`` decides it in two steps, the first read from the engine's compiled turn.

1. **The turn totals.** Every total a turn can bank. The compiled turn (``compile_turn``) is
   the turn as the engine plays it: a graph of throw nodes and decision nodes, each roll of
   each throw node with the destinations of its legal keeps (jokers, V-1, F-2 and full hands
   included). Within one hand the dice set aside only grow, so one pass over the hand's
   nodes, from each node that starts a hand afresh, gives the totals the hand reaches at each
   decision and the totals it carries into the next fresh hand; the totals of a whole turn are
   then closed under those cycles, in increasing order (every keep scores, so a cycle adds).
   Which of them can be banked is asked of the engine's own bank rule (``bank_rule``: T-5,
   T-6, T-7 by turn or by one throw, T-8, F-3, T-10, V-1, V-2, F-2), once per kind of
   decision node and total. Totals are bit sets, in units of the rule set's step.
2. **The scores.** With an exact target (T-9) a bank may not pass the target, so the scores
   a player can reach are sums of banks (G-7 stops those short of the target at target -
   1000), and from each the target must be reachable by more banks. Ticks (G-3) let a stuck
   player fall back level by level to no level at all, so there only the start must finish;
   a penalty (F-1) lets a score fall without end, so only the residue of the target modulo
   the banks and the penalty counts. With a target to reach or pass, scores only climb: a
   player must be able to bank at all, and under G-7 to bank 1000 in one turn.

A throw that wins at once (G-5, a kind rule ``"win"``) ends any game. Other players' bumps
(G-4) are not counted on: a game of one player has none.

The graph is compiled for the part of the rules one hand depends on (``_hand_rules``: the
scoring and the turn's shape, not the target or the bank rules), so that the rule sets that
differ only there share one compiled turn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import TYPE_CHECKING

from zloutch.engine.game import bank_rule
from zloutch.engine.state import TurnState
from zloutch.rules import loader
from zloutch.rules.errors import InvalidRulesError
from zloutch.rules.ruleset import GameRules, RuleSet, TurnRules

if TYPE_CHECKING:
    from zloutch.engine.compiled import CompiledTurn, Hand


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


# ---------------------------------------------------------------------------- loading


def load_rules(spec: str | RuleSet, *, stored: bool = False) -> RuleSet:
    """``zloutch.rules.load_rules``, and refused unless every game can end
    (``check_endings``): a spec, a preset with options, a rule file and every file it extends.
    A preset as shipped is not walked: ``tests/rules/test_rules_limits.py`` proves its games
    end."""
    if isinstance(spec, RuleSet):
        return checked(spec)
    return loader.load_rules(spec, check=check_endings, stored=stored)


def load_preset(spec: str | RuleSet) -> RuleSet:
    """``zloutch.rules.load_preset`` (a spec from elsewhere: never a file here), checked."""
    if isinstance(spec, RuleSet):
        return checked(spec)
    return loader.load_preset(spec, check=check_endings)


def parse_rules_text(
    text: str,
    *,
    source: str = "<text>",
    load_base: Callable[[str], RuleSet] | None = None,
    stored: bool = False,
) -> RuleSet:
    """``zloutch.rules.parse_rules_text``, checked (its bases are ``load_base``'s to check)."""
    return loader.parse_rules_text(
        text, source=source, load_base=load_base, check=check_endings, stored=stored
    )


def checked(rules: RuleSet) -> RuleSet:
    """``rules`` (built in code, or options switched by ``with_options``), refused
    (``InvalidRulesError``) unless every game of it can end; a preset as shipped is let
    through without the walk."""
    shipped = rules.source in loader.PRESETS and not rules.options
    if not (shipped and rules == loader.load_rules(rules.source)):
        check_endings(rules)
    return rules


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
    if g.last_thousand:
        return _exact_capped(rules, banks, step, top, enter, stay, finish_enter, finish_stay)
    # Without G-7 a score is the sum of its banks: the scores reachable from s are s plus the
    # sums of banks (the monoid the entered banks generate), so everything below is a few
    # shifts of bit sets per generator (``_closed``), close to linear in the target.
    below = (1 << top) - 1
    sums = _closed(finish_stay, stay, top)  # what banks from a score finish with: top - s
    wins = _reversed(sums, top)  # W: the scores (entered) that can still hit the target
    start_wins = bool((finish_enter >> top) & 1) or bool(enter & below & wins)
    if not start_wins:
        return ("game.target", _never_hit(rules, banks, step, top, enter))
    if g.ticks_to_cross:
        return None  # a stuck player's ticks take them back to the start (G-3)
    # Every score a player can reach must be in W: the first one that is not is named (every
    # score below it that a player reaches is in W, so it is reached through W alone).
    reached = _closed(enter & below, stay, top) & below
    stuck = reached & ~wins
    if stuck:
        return ("game.exact_target", _stuck(rules, banks, step, _low_bit(stuck) * step))
    return None


def _closed(bits: int, generators: int, top: int) -> int:
    """``bits`` plus any sum of ``generators`` (each as often as wanted), up to bit ``top``.

    The generators are taken smallest first, and one that the ones before already make is
    left out: a numerical monoid has at most as many needed generators as its smallest, so
    this is a few shifts of ``top`` bits per needed generator (each closed by doubling:
    b, 2b, 4b...)."""
    mask = (1 << (top + 1)) - 1
    made = 1  # the sums of the generators taken so far (0 included)
    found = bits & mask
    left = generators & mask & ~1  # 0 adds nothing
    while left:
        b = _low_bit(left)
        shift = b
        while shift <= top:
            made |= (made << shift) & mask
            found |= (found << shift) & mask
            shift *= 2
        left &= ~made  # what the generators so far make is no generator
    return found


def _reversed(bits: int, top: int) -> int:
    """Bit ``top - i`` for each bit ``i`` of ``bits`` (0 <= i <= top)."""
    text = format(bits & ((1 << (top + 1)) - 1), f"0{top + 1}b")
    return int(text[::-1], 2)


def _low_bit(bits: int) -> int:
    return (bits & -bits).bit_length() - 1


def _exact_capped(
    rules: RuleSet,
    banks: Banks,
    step: int,
    top: int,
    enter: int,
    stay: int,
    finish_enter: int,
    finish_stay: int,
) -> tuple[str, str] | None:
    """``_exact`` under G-7: a bank short of the target stops at ``cap`` (target - 1000), so
    the scores are sums of banks below the cap, the cap, and the target. Below the cap the
    sums are closed as in ``_exact``; what reaches the cap (a bank from s of at least cap - s
    and short of the target) is read from counts of the banks, once per score."""
    g = rules.game
    cap = (g.target - 1000) // step
    text = format(stay & ((1 << (top + 1)) - 1), f"0{top + 1}b")[::-1]  # text[b]: bank b
    counts = list(accumulate((c == "1" for c in text), initial=0))

    def a_bank_in(low: int, high: int) -> bool:
        """A bank b (entered) with low <= b < high."""
        low, high = max(low, 1), min(high, top + 1)
        return low < high and counts[high] > counts[low]

    below_cap = (1 << cap) - 1
    cap_wins = bool((finish_stay >> (top - cap)) & 1)  # at the cap one turn of 1000 finishes
    # W below the cap, read backwards (bit cap - 1 - s for score s): the scores that finish
    # at once (a last bank, or a bank to the cap when the cap finishes), closed under banks.
    finishing = 0
    for s in range(cap):
        if (finish_stay >> (top - s)) & 1 or (cap_wins and a_bank_in(cap - s, top - s)):
            finishing |= 1 << (cap - 1 - s)
    wins = _reversed(_closed(finishing, stay, cap - 1), cap - 1)
    if cap_wins:
        wins |= 1 << cap
    first_to_cap = _any_bit(enter, cap, top)
    start_wins = (
        bool((finish_enter >> top) & 1)
        or bool(enter & below_cap & wins)
        or (cap_wins and first_to_cap)
    )
    if not start_wins:
        return ("game.target", _never_hit(rules, banks, step, top, enter))
    if g.ticks_to_cross:
        return None
    reached = _closed(enter & below_cap, stay, cap - 1) & below_cap
    to_cap = first_to_cap or any(a_bank_in(cap - s, top - s) for s in _bits(reached))
    stuck = reached & ~wins
    if to_cap and not cap_wins:
        stuck |= 1 << cap
    if stuck:
        return ("game.exact_target", _stuck(rules, banks, step, _low_bit(stuck) * step))
    return None


def _any_bit(bits: int, low: int, high: int) -> bool:
    """A bit of ``bits`` at ``low`` or above and below ``high``."""
    return bool((bits >> low) & ((1 << max(high - low, 0)) - 1))


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
    passes, _ = _hand_passes(_hand_rules(rules))
    most = 0
    for decided, carried in passes.values():
        for amounts in (*decided.values(), *carried.values()):
            most = max(most, amounts.bit_length())
    return most * rules.unit


def step_of(rules: RuleSet) -> int:
    """The step of every turn total: the rule set's unit, and V-7's pair (x its face)."""
    step = rules.unit
    if rules.variants.late_pair_scores:
        step = math.gcd(step, rules.scoring.full_house_pair)
    return step


def turn_banks(rules: RuleSet, limit_points: int, *, unit: int | None = None) -> Banks:
    """The totals a turn can bank, up to ``limit_points`` (see the module's docstring)."""
    step = unit or step_of(rules)
    return _turn_banks(rules, max(limit_points // step, 1), step)


_Kind = tuple[bool, bool, bool, bool]
"""What a bank rule reads of a decision node: full hand, V-1 pending, F-2 rethrow, T-7 met."""
_Pass = tuple[dict[_Kind, int], dict[int, int]]
"""From a fresh hand: the totals reached at each kind of decision node, and those carried to
each fresh hand that follows (by column), as bit sets in the compiled turn's units."""


def _kind(hand: Hand) -> _Kind:
    return (hand.free == 0, hand.pending, hand.rethrow, hand.met)


def _turn_banks(rules: RuleSet, top: int, step: int) -> Banks:
    from zloutch.engine.compiled import compile_turn  # NumPy: only for a walk of the turn

    hand_rules = _hand_rules(rules)
    passes, first = _hand_passes(hand_rules)
    unit = hand_rules.unit
    if unit % step:  # pragma: no cover - the step divides the unit (step_of, gcd)
        raise ValueError(f"a step of {step} does not divide the unit {unit}")
    scale = unit // step
    top_units = top // scale
    starts = list(passes)
    mask = (1 << (top_units + 1)) - 1
    fresh = dict.fromkeys(starts, 0)
    fresh[first] = 1
    for total in range(top_units + 1):
        for start in starts:
            if not (fresh[start] >> total) & 1:
                continue
            for target, amounts in passes[start][1].items():
                fresh[target] |= (amounts << total) & mask
    decided: dict[_Kind, int] = {}
    for start in starts:
        for kind, amounts in passes[start][0].items():
            acc = decided.get(kind, 0)
            for total in _bits(fresh[start]):
                acc |= (amounts << total) & mask
            decided[kind] = acc
    entering = entered = fin_entering = fin_entered = 0
    ct = compile_turn(hand_rules)
    for kind, amounts in decided.items():
        plain_in = _bankable(rules, ct, kind, top_units, entered=True, lands=False)
        plain_out = _bankable(rules, ct, kind, top_units, entered=False, lands=False)
        entered |= amounts & plain_in
        entering |= amounts & plain_out
        if rules.turn.full_hand_win:  # T-10: some banks are allowed only on the target
            fin_entered |= amounts & _bankable(rules, ct, kind, top_units, True, True) & ~plain_in
            fin_entering |= (
                amounts & _bankable(rules, ct, kind, top_units, False, True) & ~plain_out
            )
    return Banks(
        step,
        _spread(entering, scale),
        _spread(entered, scale),
        _spread(fin_entering, scale),
        _spread(fin_entered, scale),
        top,
    )


def _spread(bits: int, scale: int) -> int:
    """Bit sets in units of ``unit`` read in units of ``unit / scale``."""
    if scale == 1:
        return bits
    return _ones(b * scale for b in _bits(bits))


def _bankable(
    rules: RuleSet, ct: CompiledTurn, kind: _Kind, top: int, entered: bool, lands: bool
) -> int:
    """The totals (1 to ``top`` units) a decision node of ``kind`` may bank, by the engine's
    bank rule on ``rules``: a bit set."""
    return _bankable_cached(rules, ct.unit, kind, top, entered, lands)


@lru_cache(maxsize=1024)
def _bankable_cached(
    rules: RuleSet, unit: int, kind: _Kind, top: int, entered: bool, lands: bool
) -> int:
    full, pending, rethrow, met = kind
    best = rules.turn.entry if met else 0

    def turn(t: int) -> TurnState:
        return TurnState(
            player=0,
            total=t * unit,
            full_hand=full,
            pending=pending,
            best_throw=best,
            rethrow=rethrow,
        )

    return _ones(
        t
        for t in range(1, top + 1)
        if bank_rule(rules, turn(t), entered=entered, lands=lands) is None
    )


def _hand_rules(rules: RuleSet) -> RuleSet:
    """What one hand depends on: the scoring and the turn's shape, not the target, the
    entry (unless a throw must be worth it) or the bank rules, so that one compiled turn
    serves the many rule sets that differ only there."""
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


@lru_cache(maxsize=256)
def _hand_passes(rules: RuleSet) -> tuple[dict[int, _Pass], int]:
    """One pass over the compiled turn from each fresh hand (by column), and the column the
    turn starts at. A hand has no cycle, so its amounts are finite and kept whole."""
    from zloutch.engine.compiled import FARKLE, WIN, ThrowNode, compile_turn

    ct = compile_turn(rules)
    throw_of = {ct.column[h]: ct.column[ct.throw_of(h)] for h in ct.hands}
    hands = {ct.column[h]: h for h in ct.hands}
    options = {ct.column[node]: rolls for node, rolls in ct.options.items()}

    def fresh(node: object) -> bool:
        return (
            isinstance(node, ThrowNode)
            and node.n == rules.dice
            and not node.jokers
            and not node.joker_roll
        )

    starts = [ct.column[n] for n in ct.nodes if fresh(n)]
    starting = set(starts)

    def edges(c: int) -> list[tuple[int, int]]:
        if c in hands:
            return [(0, throw_of[c])]
        return [(p, d) for roll in options[c] for p, d in roll if d not in (FARKLE, WIN)]

    passes: dict[int, _Pass] = {}
    for start in starts:
        order = _hand_order(start, edges, starting)
        amounts = {start: 1}
        decided: dict[_Kind, int] = {}
        carried: dict[int, int] = {}
        for c in order:
            bits = amounts.get(c, 0)
            if c in hands:
                kind = _kind(hands[c])
                decided[kind] = decided.get(kind, 0) | bits
            for points, d in edges(c):
                if d in starting:
                    carried[d] = carried.get(d, 0) | (bits << points)
                else:
                    amounts[d] = amounts.get(d, 0) | (bits << points)
        passes[start] = (decided, carried)
    return passes, ct.column[ct.start]


def _hand_order(
    start: int, edges: Callable[[int], list[tuple[int, int]]], fresh: set[int]
) -> list[int]:
    """The nodes of one hand from ``start`` (up to the fresh hands that follow), each after
    every node that leads to it: a depth-first post-order, reversed."""
    order: list[int] = []
    seen = {start}
    stack = [(start, iter(edges(start)))]
    while stack:
        node, rest = stack[-1]
        for _, d in rest:
            if d not in seen and d not in fresh:
                seen.add(d)
                stack.append((d, iter(edges(d))))
                break
        else:
            stack.pop()
            order.append(node)
    return order[::-1]
