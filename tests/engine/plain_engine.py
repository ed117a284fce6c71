"""The engine as it was before the fast path (commit 8d5d70c): the plain reference.

A copy of ``zloutch.engine.game``'s state machine as it stood before states cached what they
derive and keeps were read from tables: every action is validated (``why_illegal``) and
every derived fact recomputed, with ``dataclasses.replace`` for every change. It builds the
same state classes (``zloutch.engine.state``), actions and events as the engine, so its
states and events can be compared with the engine's by ``==``. ``test_fast_engine`` plays
random games through both and compares every state and event; ``benchmarks/engine_vs_peer.py
--reference`` times it. Never change its behaviour: it is the yardstick.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache

from zloutch.engine.actions import (
    Action,
    Bank,
    Fresh,
    IllegalActionError,
    Joker,
    Keep,
    Off,
    Roll,
    Take,
    Throw,
)
from zloutch.engine.events import (
    Banked,
    Bumped,
    Confirmed,
    Crossed,
    Entered,
    Event,
    Farkled,
    FinalRound,
    Jokered,
    Kept,
    Penalised,
    Thrown,
    Ticked,
    TookBack,
    TurnStarted,
    Won,
)
from zloutch.engine.state import (
    CHANCE,
    TERMINAL,
    FinalRoundState,
    GameState,
    Level,
    Outcome,
    Phase,
    PlayerSheet,
    TakeBackOffer,
    TurnState,
)
from zloutch.rules.dice import Dice, contains, difference, format_dice, multisets, probability
from zloutch.rules.errors import IllegalKeepError, InvalidRulesError
from zloutch.rules.ruleset import RuleSet
from zloutch.rules.scoring import HandContext, ScoredKeep, ThrowScore, score_table

# ------------------------------------------------------------------------------ queries


def new_game(rules: RuleSet, players: Sequence[str], *, table_mode: bool = False) -> GameState:
    """A game at its first turn. Players are named; seats follow the order given (G-1)."""
    names = [p.strip() for p in players]
    g = rules.game
    if not g.min_players <= len(names) <= g.max_players:
        count = (
            f"exactly {g.min_players}"
            if g.min_players == g.max_players
            else f"{g.min_players} to {g.max_players}"
        )
        raise InvalidRulesError(f"{rules.name} is played by {count} players, not {len(names)}")
    if any(not n for n in names) or len(set(names)) != len(names):
        raise InvalidRulesError("every player needs a name of their own")
    return GameState(
        rules=rules,
        sheets=tuple(PlayerSheet(n) for n in names),
        turn=TurnState(player=0),
        table_mode=table_mode,
        turns=1,
    )


def current_player(state: GameState) -> int:
    """The seat that acts now, ``CHANCE`` while dice roll, ``TERMINAL`` at the end."""
    if state.phase is Phase.OVER:
        return TERMINAL
    if state.phase is Phase.ROLL:
        return CHANCE
    return state.turn.player


def turn_player(state: GameState) -> int:
    """The seat whose turn it is (also while the dice roll)."""
    return state.turn.player


def is_terminal(state: GameState) -> bool:
    """Whether the game is over (``outcome`` and ``returns`` then say who won)."""
    return state.phase is Phase.OVER


@lru_cache(maxsize=8)
def _outcomes(n: int) -> tuple[tuple[Roll, Fraction], ...]:
    return tuple((Roll(d), probability(d)) for d in multisets(n))


def chance_outcomes(state: GameState) -> tuple[tuple[Roll, Fraction], ...]:
    """Every roll of the dice in the air with its exact probability (sums to 1)."""
    if state.phase is not Phase.ROLL:
        return ()
    return _outcomes(state.turn.rolling)


def context(state: GameState) -> HandContext:
    """What the hand holds, for the variants that score across throws (V-6, V-7)."""
    return HandContext(state.turn.set_aside, state.turn.multiples)


def throw_score(state: GameState) -> ThrowScore:
    """The keeps of the throw on the table."""
    return score_table(state.rules).lookup(state.turn.throw, context(state))


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """Every action allowed now, sorted; chance rolls while the dice are in the air.

    ``apply`` accepts exactly these, and one synonym: ``throw`` in answer to a take-back
    offer starts fresh (G-8), as ``fresh`` does.
    """
    phase = state.phase
    actions: list[Action] = []
    if phase is Phase.START:
        actions = [Fresh(), Take()] if state.offer else [Throw()]
    elif phase is Phase.ROLL:
        actions = [roll for roll, _ in chance_outcomes(state)]
        if state.table_mode:
            actions.append(Off())
    elif phase is Phase.KEEP:
        actions = [Keep(k.dice) for k in throw_score(state).keeps]
        if state.table_mode:
            actions.append(Off())
    elif phase is Phase.DECIDE:
        if bank_refusal(state) is None:
            actions.append(Bank())
        if throw_refusal(state) is None:
            actions.append(Throw())
        actions += [Joker(d) for d in _joker_choices(state)]
    return tuple(sorted(actions, key=lambda a: a.sort_key()))


def _joker_choices(state: GameState) -> list[Dice]:
    return [k.dice for k in joker_choices(state.rules, state.turn)]


def joker_reading(state: GameState) -> ThrowScore:
    """The last throw read on its own (V-2): jokers are plain combinations of that throw."""
    return score_table(state.rules).lookup(state.turn.throw)


# ------------------------------------------------------------------------- the rules as functions
# The turn's rules as pure functions of a turn (``TurnState``) and the few facts of the sheet
# they read. The engine decides by them, and ``zloutch.engine.compiled`` tabulates them for
# the solvers, the fast kernel and the bots: one rule, one place.

BANK_RULES = ("V-2", "V-1", "F-2", "T-5", "T-7", "T-6", "T-8", "F-3", "T-3")
"""The rules that can refuse a bank, in the order they are asked (T-3: nothing to bank)."""


@dataclass(frozen=True)
class BankRefusal:
    """Why a bank is refused: the rule (one of ``BANK_RULES``) and the words for the player."""

    rule: str
    message: str


def lands_on_target(rules: RuleSet, score: int, total: int) -> bool:
    """Whether banking ``total`` on ``score`` lands exactly on the target (T-10)."""
    return score + total == rules.game.target


def passes(rules: RuleSet, score: int, total: int) -> bool:
    """T-9: with an exact target, a turn total that passes it on ``score``."""
    return rules.game.exact_target and score + total > rules.game.target


def overshoots(rules: RuleSet, score: int, total: int) -> bool:
    """T-9: a turn that passes an exact target is lost at once (unless ``overshoot =
    "throw_on"``: then its bank is refused and the player throws on)."""
    return rules.game.overshoot == "lost" and passes(rules, score, total)


def jokers_owed(rules: RuleSet, t: TurnState) -> bool:
    """keep_all_scoring with jokers: scoring dice of the throw left on the table after a keep
    must be set aside as jokers before anything else."""
    if not rules.scoring.keep_all_scoring or not rules.variants.joker:
        return False
    if t.jokers or t.full_hand or not t.left or not t.throw:
        return False
    combinations = score_table(rules).lookup(t.throw).scoring  # read on the throw itself
    return any(not k.wins and contains(t.left, k.dice) for k in combinations)


def owed_words(rules: RuleSet, t: TurnState) -> str:
    owed = " or ".join(format_dice(k.dice) for k in joker_choices(rules, t))
    return (
        f"every scoring die is kept or set aside as jokers: set {owed} aside as jokers "
        "first (keep_all_scoring with jokers, V-2)"
    )


def banked_score(rules: RuleSet, score: int, total: int) -> int:
    """The score written by banking ``total`` on ``score`` (G-7 may stop it below the target)."""
    g = rules.game
    value = score + total
    if g.last_thousand and value < g.target:
        value = min(value, max(g.target - 1000, score))
    return value


def reaches_target(rules: RuleSet, score: int) -> bool:
    """Whether a banked score reaches the target (G-2, T-9: exactly)."""
    g = rules.game
    return score == g.target if g.exact_target else score >= g.target


def _must_rethrow(rules: RuleSet, t: TurnState, lands: bool) -> bool:
    """F-2 after the no-score bonus; T-5 forced, unless T-10 lets a full hand that lands on
    the target be banked."""
    if t.rethrow:
        return True
    if not t.full_hand or rules.turn.full_hand != "forced":
        return False
    t10 = rules.turn.full_hand_win and t.total >= rules.turn.full_hand_win_from and lands
    return not t10


def bank_refusal_of(
    rules: RuleSet, t: TurnState, *, entered: bool, lands: bool
) -> BankRefusal | None:
    """Why a turn at a decision cannot bank (None: it can); ``entered``: the player has
    entered (T-7); ``lands``: the bank would land exactly on the target (``lands_on_target``)."""
    total = t.total
    if t.jokers:
        return BankRefusal(
            "V-2", "you cannot bank with jokers set aside: throw the other dice (V-2)"
        )
    if t.pending:
        return BankRefusal(
            "V-1", f"you cannot bank {total}: a figure is not confirmed yet by a 1 or a 5 (V-1)"
        )
    if t.rethrow:
        return BankRefusal(
            "F-2",
            f"you cannot bank {total}: after the no-score bonus all the dice are thrown "
            "again (F-2)",
        )
    if _must_rethrow(rules, t, lands):
        return BankRefusal(
            "T-5", f"you cannot bank {total}: after a full hand all the dice are thrown again (T-5)"
        )
    entry = rules.turn.entry
    if not entered and entry:
        if rules.turn.entry_by == "throw":
            if t.best_throw < entry:
                return BankRefusal(
                    "T-7",
                    f"you cannot bank {total}: to enter you need one throw worth {entry} "
                    f"(best throw this turn: {t.best_throw}) (T-7)",
                )
        else:
            counted = total if rules.game.take_back_counts_for_entry else total - t.inherited
            if counted < entry and counted < total:  # the taken-back points do not count
                return BankRefusal(
                    "T-7",
                    f"you cannot bank {total}: you need {entry} of your own to enter the game; "
                    f"the {t.inherited} taken back do not count toward it (T-7, G-8)",
                )
            if counted < entry:
                return BankRefusal(
                    "T-7", f"you cannot bank {total}: you need {entry} to enter the game (T-7)"
                )
    if not rules.turn.round_enough(total):
        if total % 100 == 50:
            why = "a total ending in 50 cannot be banked"
        else:
            why = "only a multiple of 100 can be banked"
        return BankRefusal("T-6", f"you cannot bank {total}: {why} (T-6)")
    small_pp = rules.turn.petit_palier and total == 100 and entered
    if total < rules.turn.min_bank and not small_pp:
        rule = "T-8" if rules.turn.petit_palier else "F-3"
        return BankRefusal(
            rule, f"you cannot bank {total}: the smallest bank is {rules.turn.min_bank} ({rule})"
        )
    if total <= 0:
        return BankRefusal("T-3", "you cannot bank: the turn total is 0")
    return None


def _confirms(keep: ScoredKeep) -> bool:
    """V-1: a keep with a single 1 or 5 confirms the figures pending."""
    return any(not c.figure and len(c.dice) == 1 and c.dice[0] in (1, 5) for c in keep.combinations)


def turn_after_keep(rules: RuleSet, t: TurnState, keep: ScoredKeep) -> TurnState:
    """The turn once ``keep`` is set aside from the throw on the table, with the jokers set
    aside before it (V-2): the hand's dice, its multiples (V-7), a figure to confirm (V-1),
    a full hand (S-16), the rethrow of the no-score bonus (F-2), the best throw (T-7)."""
    set_aside = tuple(sorted(t.set_aside + keep.dice + t.jokers))
    multiples = set(t.multiples)
    for combo in keep.combinations:
        if combo.figure and len(combo.dice) >= 3 and len(set(combo.dice)) == 1:
            multiples.add(combo.dice[0])
    pending = t.pending
    if rules.variants.confirmation:
        pending = (pending and not _confirms(keep)) or keep.figure
    # S-16: every die set aside, or (its Reading, figure_full_hand) a figure that is one
    full_hand = len(set_aside) == rules.dice or (rules.turn.figure_full_hand and keep.whole)
    return replace(
        t,
        rethrow=keep.bonus,  # F-2
        total=t.total + keep.points + t.joker_points,
        set_aside=set_aside,
        multiples=tuple(sorted(multiples)),
        jokers=(),
        joker_points=0,
        joker_roll=False,
        left=difference(t.throw, keep.dice),
        full_hand=full_hand,
        pending=pending,
        best_throw=max(t.best_throw, keep.points),
    )


def roll_verdict(rules: RuleSet, t: TurnState, reading: ThrowScore) -> str:
    """What the throw on the table does, before any keep: ``win`` (G-5), ``jokers`` (a
    farkle with jokers set aside: they are thrown, V-2), ``farkle`` (T-4) or ``keep``.
    T-9 is asked apart (``overshoots``): it needs the score."""
    if any(k.wins for k in reading.keeps):
        return "win"
    if reading.farkle:
        return "jokers" if t.jokers and not t.joker_roll else "farkle"
    return "keep"


def turn_after_joker_farkle(rules: RuleSet, t: TurnState) -> TurnState:
    """V-2: the throw farkled with jokers set aside: the jokers are thrown next, keeping
    their points or not (``joker_keeps_points``)."""
    kept_points = t.joker_points if rules.variants.joker_keeps_points else 0
    return replace(t, rolling=len(t.jokers), jokers=(), joker_points=kept_points, joker_roll=True)


def joker_choices(rules: RuleSet, t: TurnState) -> tuple[ScoredKeep, ...]:
    """V-2: the combinations of the last throw that may be set aside as jokers after a keep:
    scoring dice left on the table that leave a die to throw."""
    if not rules.variants.joker or t.jokers or t.full_hand or not t.left:
        return ()
    found = []
    combinations = score_table(rules).lookup(t.throw).scoring
    for k in combinations:
        if contains(t.left, k.dice) and len(t.left) > len(k.dice) and not k.wins:
            rest = difference(t.left, k.dice)
            if rules.scoring.keep_all_scoring and any(
                not c.wins and contains(rest, c.dice) for c in combinations
            ):
                continue  # with every scoring die kept, the jokers take every one left
            found.append(k)
    return tuple(found)


def turn_after_jokers(t: TurnState, joker: ScoredKeep) -> TurnState:
    """V-2: ``joker`` set aside as jokers (read on the last throw alone, ``joker_reading``)."""
    return replace(
        t, jokers=joker.dice, joker_points=joker.points, left=difference(t.left, joker.dice)
    )


def turn_after_throw(rules: RuleSet, t: TurnState, *, fresh: bool) -> TurnState:
    """The turn as the dice in hand are thrown: every die at the start of a turn (``fresh``)
    and after a full hand (T-5), else the dice not set aside (T-3)."""
    if t.full_hand or fresh:
        t = replace(t, set_aside=(), multiples=(), full_hand=False, rethrow=False)
        rolling = rules.dice
    else:
        rolling = rules.dice - len(t.set_aside) - len(t.jokers)
    return replace(t, rolling=rolling, throw=(), left=(), joker_roll=False)


def turn_taken_back(player: int, offer: TakeBackOffer) -> TurnState:
    """G-8: the turn of a player who takes back a bank: its total and the dice left."""
    return TurnState(
        player=player,
        total=offer.total,
        inherited=offer.total,
        set_aside=offer.set_aside,
        multiples=offer.multiples,
        rolling=offer.dice,
    )


def bank_refusal(state: GameState) -> str | None:
    """Why the player to move cannot bank now (None: they can)."""
    if state.phase is Phase.KEEP:
        return "you cannot bank now: keep dice from the throw first (T-2)"
    if state.phase is not Phase.DECIDE:
        return "you cannot bank now: there is nothing kept to bank"
    t = state.turn
    score = state.sheets[t.player].score
    if passes(state.rules, score, t.total) and not jokers_owed(state.rules, t):
        return (
            f"you cannot bank {t.total}: it would pass the exact target of "
            f"{state.rules.game.target} (T-9, overshoot = throw_on): throw on"
        )
    if jokers_owed(state.rules, t):
        return owed_words(state.rules, t)
    lands = lands_on_target(state.rules, score, t.total)
    refusal = bank_refusal_of(state.rules, t, entered=state.entered(t.player), lands=lands)
    return None if refusal is None else refusal.message


def throw_refusal(state: GameState) -> str | None:
    """Why the player to move cannot throw now (None: they can)."""
    if state.phase is Phase.START:
        # With a take-back offer, throw is accepted as a synonym of fresh (G-8): a player
        # who ignores the offer just throws. legal_actions lists fresh only, once.
        return None
    if state.phase is not Phase.DECIDE:
        return "you cannot throw now: keep dice from the throw first (T-2)"
    if state.in_hand <= 0:  # pragma: no cover - a full hand rethrows every die
        return "there are no dice left to throw"
    if jokers_owed(state.rules, state.turn):
        return owed_words(state.rules, state.turn)
    return None


def why_illegal(state: GameState, action: Action) -> str | None:
    """The reason an action is not allowed now, in words (None: it is legal)."""
    phase, t = state.phase, state.turn
    if phase is Phase.OVER:
        return "the game is over"
    if isinstance(action, Roll):
        if phase is not Phase.ROLL:
            return "no dice are rolling"
        if len(action.dice) != t.rolling:
            thrown = f"{t.rolling} die is" if t.rolling == 1 else f"{t.rolling} dice are"
            return f"{thrown} thrown, not {len(action.dice)}"
        if any(not 1 <= f <= 6 for f in action.dice):
            return "faces are 1 to 6"
        return None
    if isinstance(action, Off):
        # V-1 Reading: at a real table a die falls off as the dice are thrown, so it is said
        # while they are in the air (before their faces), or once they lie on the table.
        if not state.table_mode:
            return "a die off the table exists only at a real table (zloutch table)"
        return None if phase in (Phase.ROLL, Phase.KEEP) else "no throw is on the table"
    if phase is Phase.ROLL:
        return "the dice are rolling"
    if isinstance(action, Take | Fresh):
        if isinstance(action, Take) and not state.rules.game.take_back:
            return "a turn is never taken back in this rule set (G-8)"
        if phase is not Phase.START or state.offer is None:
            return (
                "there is no turn to take back (G-8)"
                if isinstance(action, Take)
                else ("start fresh only answers a take-back offer; throw instead")
            )
        return None
    if isinstance(action, Throw):
        return throw_refusal(state)
    if isinstance(action, Bank):
        return bank_refusal(state)
    if isinstance(action, Keep):
        if phase is not Phase.KEEP:
            return "there is no throw to keep from: throw first (T-2)"
        try:
            score_table(state.rules).validate_keep(t.throw, action.dice, context(state))
        except IllegalKeepError as exc:
            return str(exc)
        return None
    if isinstance(action, Joker):
        if not state.rules.variants.joker:
            return "jokers are not played in this rule set (V-2)"
        if phase is not Phase.DECIDE:
            return "set jokers aside after keeping dice from a throw (V-2)"
        if action.dice not in _joker_choices(state):
            if t.jokers:
                return "jokers are already set aside (V-2)"
            if not contains(t.left, action.dice):
                return f"{format_dice(action.dice)} are not left on the table"
            if jokers_owed(state.rules, t):
                return owed_words(state.rules, t)
            return (
                f"{format_dice(action.dice)} cannot be jokers: they must score and leave "
                "a die to throw (V-2)"
            )
        return None
    return f"{action} is not an action of this game"  # pragma: no cover


def outcome(state: GameState) -> Outcome | None:
    """Winners, ranking and the sailors' kicks (G-9); None while the game goes on."""
    if not is_terminal(state):
        return None
    n = len(state.sheets)
    order = sorted(
        range(n),
        key=lambda p: (p not in state.winners, -state.sheets[p].score, p),
    )
    ranking: list[tuple[int, int]] = []
    for i, p in enumerate(order):
        if i and _rank_key(state, p) == _rank_key(state, order[i - 1]):
            ranking.append((p, ranking[-1][1]))
        else:
            ranking.append((p, i + 1))
    # written apart from the engine's: kicks given to those ranked below, taken from above
    kicks = tuple(
        (
            p,
            len([q for q, other in ranking if other > rank]),
            len([q for q, other in ranking if other < rank]),
        )
        for p, rank in ranking
    )
    return Outcome(state.winners, tuple(ranking), kicks)


def _rank_key(state: GameState, p: int) -> tuple[bool, int]:
    return (p in state.winners, state.sheets[p].score)


# ------------------------------------------------------------------------------ changes


def apply(state: GameState, action: Action) -> GameState:
    """The state after an action; raises IllegalActionError with the reason if not legal."""
    return step(state, action)[0]


def step(state: GameState, action: Action) -> tuple[GameState, tuple[Event, ...]]:
    """The state after an action, and the events it caused."""
    reason = why_illegal(state, action)
    if reason is not None:
        raise IllegalActionError(reason)
    events: list[Event] = []
    t = state.turn
    if isinstance(action, Throw | Fresh):
        turn = turn_after_throw(state.rules, t, fresh=state.phase is Phase.START)
        new = replace(state, turn=turn, phase=Phase.ROLL, offer=None)
    elif isinstance(action, Take):
        offer = state.offer
        assert offer is not None
        events.append(TookBack(t.player, offer.total, offer.dice))
        new = replace(state, turn=turn_taken_back(t.player, offer), phase=Phase.ROLL, offer=None)
    elif isinstance(action, Roll):
        new = _roll(state, action.dice, events)
    elif isinstance(action, Keep):
        new = _keep(state, action.dice, events)
    elif isinstance(action, Joker):
        joker = next(k for k in joker_reading(state).scoring if k.dice == action.dice)
        events.append(Jokered(t.player, action.dice, joker.points))
        new = replace(state, turn=turn_after_jokers(t, joker))
    elif isinstance(action, Bank):
        new = _bank(state, events)
    elif isinstance(action, Off):
        new = _lose_turn(state, "off", events)
    else:  # pragma: no cover
        raise IllegalActionError(f"{action} is not an action of this game")
    return new, tuple(events)


def _roll(state: GameState, dice: Dice, events: list[Event]) -> GameState:
    rules, t = state.rules, state.turn
    events.append(Thrown(t.player, dice, t.joker_roll))
    turn = replace(t, throw=dice, left=())
    state = replace(state, turn=turn)
    entry = throw_score(state)
    verdict = roll_verdict(rules, turn, entry)
    if verdict == "win":
        events.append(Won(t.player, (t.player,)))
        return replace(state, phase=Phase.OVER, winners=(t.player,))
    if verdict == "jokers":
        return replace(state, turn=turn_after_joker_farkle(rules, turn), phase=Phase.ROLL)
    if verdict == "farkle":
        return _lose_turn(state, "farkle", events)
    score = state.sheets[t.player].score
    if all(overshoots(rules, score, t.total + t.joker_points + k.points) for k in entry.keeps):
        return _lose_turn(state, "overshoot", events)
    return replace(state, phase=Phase.KEEP)


def _keep(state: GameState, dice: Dice, events: list[Event]) -> GameState:
    rules, t = state.rules, state.turn
    keep = score_table(rules).validate_keep(t.throw, dice, context(state))
    if rules.variants.confirmation and t.pending and _confirms(keep):
        events.append(Confirmed(t.player))
    turn = turn_after_keep(rules, t, keep)
    points = keep.points + t.joker_points
    events.append(Kept(t.player, keep.dice, points, turn.total, turn.full_hand))
    state = replace(state, turn=turn, phase=Phase.DECIDE)
    if overshoots(rules, state.sheets[t.player].score, turn.total):
        return _lose_turn(state, "overshoot", events)
    return state


# ------------------------------------------------------------------------------ the sheet


def _bank(state: GameState, events: list[Event]) -> GameState:
    rules, t = state.rules, state.turn
    p = t.player
    sheet = state.sheets[p]
    value = banked_score(rules, sheet.score, t.total)
    g = rules.game
    was_entered = state.entered(p)
    pp = rules.turn.petit_palier and t.total == 100
    sheets = list(state.sheets)
    if value == sheet.score:
        # G-7: at target - 1000 already, a bank short of the target adds nothing: the turn
        # ends, and no second level is written (a bump or a crossing would cost nothing).
        sheets[p] = replace(sheet, farkles_in_row=0)
        events.append(Banked(p, t.total, value, pp, written=False))
    else:
        sheets[p] = replace(sheet.write(Level(value, pp=pp)), farkles_in_row=0)
        events.append(Banked(p, t.total, value, pp))
        # news only where entering changes something: a minimum (T-7), the petit palier (T-8)
        if not was_entered and (rules.turn.entry > 0 or rules.turn.petit_palier):
            events.append(Entered(p, value))
        sheets = _bump(rules, sheets, p, value, events)
    state = replace(state, sheets=tuple(sheets))
    offer = None
    if g.take_back and not t.full_hand and state.in_hand > 0:
        offer = TakeBackOffer(t.total, state.in_hand, t.set_aside, t.multiples)
    if reaches_target(rules, value):
        if g.final_round or g.final_turns:
            state = _reach_final(state, p, events)
        else:
            events.append(Won(p, (p,)))
            return replace(state, phase=Phase.OVER, winners=(p,))
    return _next_turn(state, offer, events)


def _reach_final(state: GameState, p: int, events: list[Event]) -> GameState:
    g = state.rules.game
    final = state.final
    if final is None:
        events.append(FinalRound(p))
        stop = 0 if g.final_round else p
        return replace(state, final=FinalRoundState(holder=p, stop_before=stop))
    if g.final_round and final.holder != p:
        sheets = list(state.sheets)
        holder = sheets[final.holder]
        if reaches_target(
            state.rules, holder.score
        ):  # a bump of this very bank may have crossed that level already (G-4)
            sheets = _cross_current(state.rules, sheets, final.holder, "final_round", events)
        events.append(FinalRound(p))
        return replace(state, sheets=tuple(sheets), final=FinalRoundState(p, stop_before=p))
    return state


def _lose_turn(state: GameState, reason: str, events: list[Event]) -> GameState:
    rules, t = state.rules, state.turn
    p = t.player
    events.append(Farkled(p, t.total, reason))
    sheets = list(state.sheets)
    sheet = sheets[p]
    limit = rules.game.ticks_to_cross
    if limit:
        i = sheet.current_index
        if i is None:
            sheet = replace(sheet, loose_ticks=sheet.loose_ticks + 1)
            events.append(Ticked(p, 0, sheet.loose_ticks))
        else:
            level = sheet.levels[i]
            levels = list(sheet.levels)
            levels[i] = replace(level, ticks=level.ticks + 1)
            sheet = replace(sheet, levels=tuple(levels), ticks=sheet.ticks + 1)
            events.append(Ticked(p, level.value, sheet.ticks))
        sheets[p] = sheet
        if i is not None and sheet.ticks >= limit:
            sheets = _cross_current(rules, sheets, p, "ticks", events)
    penalty = rules.turn.farkle_penalty
    sheet = sheets[p]
    in_row = sheet.farkles_in_row + 1
    if penalty and in_row >= rules.turn.farkle_penalty_after:
        value = sheet.score - penalty
        sheets[p] = replace(sheet.write(Level(value, penalty=True)), farkles_in_row=0)
        events.append(Penalised(p, penalty, value))
    else:
        sheets[p] = replace(sheet, farkles_in_row=in_row)
    blank = rules.turn.fresh_farkle_penalty
    first = t.total == 0 and not t.inherited and not t.set_aside and not t.joker_roll
    if blank and reason == "farkle" and first and len(t.throw) == rules.dice:
        sheet = sheets[p]  # the farkles in a row as F-1 left them: this penalty is apart
        value = sheet.score - blank
        written = sheet.write(Level(value, penalty=True))
        sheets[p] = replace(written, farkles_in_row=sheet.farkles_in_row)
        events.append(Penalised(p, blank, value, "blank"))
    return _next_turn(replace(state, sheets=tuple(sheets)), None, events)


def _cross_current(
    rules: RuleSet, sheets: list[PlayerSheet], p: int, reason: str, events: list[Event]
) -> list[PlayerSheet]:
    """Cross player p's current level and fall back to the previous one not crossed."""
    sheet = sheets[p]
    i = sheet.current_index
    if i is None:
        return sheets
    levels = list(sheet.levels)
    levels[i] = replace(levels[i], crossed=True)
    sheet = replace(sheet, levels=tuple(levels), ticks=0)
    back = sheet.current_index
    if back is not None:
        # G-3 Reading: ticks restart from 0 at the level fallen back to (ticks_restart),
        # or that level keeps the ticks written beside it and they count on.
        if rules.game.ticks_restart:
            levels[back] = replace(levels[back], ticks=0)
            sheet = replace(sheet, levels=tuple(levels))
        else:
            sheet = replace(sheet, ticks=levels[back].ticks)
    sheets[p] = sheet
    events.append(Crossed(p, levels[i].value, sheet.score, reason))
    if rules.game.fallback_bumps and sheet.score:
        sheets = _bump(rules, sheets, p, sheet.score, events)
    return sheets


def _bump(
    rules: RuleSet, sheets: list[PlayerSheet], p: int, value: int, events: list[Event]
) -> list[PlayerSheet]:
    """G-4: a new level equal to another player's current (or any) level crosses it."""
    mode = rules.game.bump
    if mode == "off":
        return sheets
    for q in range(len(sheets)):
        if q == p:
            continue
        other = sheets[q]
        current = other.current_index
        if mode == "current":
            if current is not None and other.levels[current].value == value:
                events.append(Bumped(p, q, value))
                sheets = _cross_current(rules, sheets, q, "bump", events)
            continue
        hits = [i for i, lv in enumerate(other.levels) if not lv.crossed and lv.value == value]
        for i in hits:
            events.append(Bumped(p, q, value))
            if i == current:
                sheets = _cross_current(rules, sheets, q, "bump", events)
            else:
                levels = list(sheets[q].levels)
                levels[i] = replace(levels[i], crossed=True)
                sheets[q] = replace(sheets[q], levels=tuple(levels))
                events.append(Crossed(q, value, sheets[q].score, "bump"))
    return sheets


def _next_turn(state: GameState, offer: TakeBackOffer | None, events: list[Event]) -> GameState:
    n = len(state.sheets)
    nxt = (state.turn.player + 1) % n
    final = state.final
    if final is not None and nxt == final.stop_before:
        if state.rules.game.final_turns:
            best = max(s.score for s in state.sheets)
            winners = tuple(i for i, s in enumerate(state.sheets) if s.score == best)
        else:
            winners = (final.holder,)
        events.append(Won(winners[0], winners))
        return replace(state, phase=Phase.OVER, winners=winners, offer=None)
    events.append(TurnStarted(nxt))
    return replace(
        state,
        turn=TurnState(player=nxt),
        phase=Phase.START,
        offer=offer,
        turns=state.turns + 1,
    )
