"""The game as a state machine: ``legal_actions``, ``apply``, ``chance_outcomes``.

Every rule of docs/rules.md's turn, game, variants and wider family is decided here and
nowhere else; adapters, bots and solvers ask. Each function is pure: it takes a state and
returns a new one.

Each action is validated once. ``apply`` and ``step`` ask ``why_illegal``, then play the
action by ``apply_legal`` / ``step_legal``, which do not ask again: a caller whose action
comes from ``legal_actions(state)`` (a bot, a solver, a replay already checked) calls those
directly. A state keeps what it derives (its legal actions, the reading of the throw on the
table: ``GameState``), and the throws are read from tables built once per rule set
(``zloutch.engine.throws``): a keep is looked up, never scored again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

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
    build,
    done,
    evolve,
    game_draft,
    turn_done,
    turn_draft,
)
from zloutch.engine.throws import KeepFacts, ThrowFacts, Throws, outcomes, rolls, throws_of
from zloutch.rules.dice import Dice, contains, difference, format_dice
from zloutch.rules.errors import IllegalKeepError, InvalidRulesError
from zloutch.rules.ruleset import RuleSet
from zloutch.rules.scoring import HandContext, ScoredKeep, ThrowScore, score_table

# ------------------------------------------------------------------------------ derived facts
# A state keeps what it derives in the private slots of GameState (``DERIVED``); a state made
# from another by a move starts with none of them, but the tables of its rule set. Moves
# build their states on drafts (``game_draft``, ``turn_draft``: see zloutch.engine.state).

_set = object.__setattr__


def _moved(state: GameState, turn: TurnState, phase: Phase) -> GameState:
    """The state with another turn and phase: the move of most actions."""
    d = game_draft(state)
    d.turn = turn
    d.phase = phase
    return done(d)


def _throws(state: GameState) -> Throws:
    """The throw tables of the state's rule set, kept on the state and passed on by moves."""
    found: Throws | None = state._tables
    if found is None:
        found = throws_of(state.rules)
        _set(state, "_tables", found)
    return found


def _throw_facts(state: GameState) -> ThrowFacts:
    """The throw on the table read in the hand's context (``throw_score``), kept."""
    found: ThrowFacts | None = state._throw
    if found is None:
        t = state.turn
        found = _throws(state).facts(t.throw, t.set_aside, t.multiples)
        _set(state, "_throw", found)
    return found


@lru_cache(maxsize=16)
def _fresh_turn(player: int) -> TurnState:
    """The turn of a player who starts one (the same value every time: it is kept)."""
    return TurnState(player=player)


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
        who = "player" if g.min_players == g.max_players == 1 else "players"
        raise InvalidRulesError(f"{rules.name} is played by {count} {who}, not {len(names)}")
    if any(not n for n in names) or len(set(names)) != len(names):
        raise InvalidRulesError("every player needs a name of their own")
    state = GameState(
        rules=rules,
        sheets=tuple(PlayerSheet(n) for n in names),
        turn=_fresh_turn(0),
        table_mode=table_mode,
        turns=1,
    )
    _set(state, "_tables", throws_of(rules))
    return state


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


def chance_outcomes(state: GameState) -> tuple[tuple[Roll, Fraction], ...]:
    """Every roll of the dice in the air with its exact probability (sums to 1)."""
    if state.phase is not Phase.ROLL:
        return ()
    return outcomes(state.turn.rolling)


def context(state: GameState) -> HandContext:
    """What the hand holds, for the variants that score across throws (V-6, V-7)."""
    return _throws(state).context(state.turn.set_aside, state.turn.multiples)


def throw_score(state: GameState) -> ThrowScore:
    """The keeps of the throw on the table."""
    return _throw_facts(state).reading


_BANK, _THROW, _FRESH, _TAKE, _OFF = Bank(), Throw(), Fresh(), Take(), Off()
_AT_START = (_THROW,)
_OFFERED = (_FRESH, _TAKE)
_DECISIONS = {
    (True, True): (_BANK, _THROW),
    (True, False): (_BANK,),
    (False, True): (_THROW,),
    (False, False): (),
}
"""The legal actions of a decision without jokers, by (bank legal, throw legal), sorted."""


def legal_actions(state: GameState) -> tuple[Action, ...]:
    """Every action allowed now, sorted; chance rolls while the dice are in the air.

    ``apply`` accepts exactly these, and one synonym: ``throw`` in answer to a take-back
    offer starts fresh (G-8), as ``fresh`` does. Worked out once per state, then kept.
    """
    found: tuple[Action, ...] | None = state._legal
    if found is None:
        found = _legal_actions(state)
        _set(state, "_legal", found)
    return found


def played_as(state: GameState, action: Action) -> Action:
    """The action of ``legal_actions`` that ``action`` plays in ``state``: ``fresh`` for
    ``throw`` in answer to a take-back offer (G-8), the one synonym ``apply`` accepts; any
    other action itself. A record keeps what was typed: what reads it as a choice among
    the legal actions (a review) reads it through this."""
    if type(action) is Throw and state.phase is Phase.START and state.offer is not None:
        return _FRESH
    return action


def _legal_actions(state: GameState) -> tuple[Action, ...]:
    phase = state.phase
    if phase is Phase.DECIDE:
        decided = _DECISIONS[_bank_rule(state) is None, throw_refusal(state) is None]
        if not state.rules.variants.joker:
            return decided
        jokers = sorted(_joker_choices(state))
        if jokers_owed(state.rules, state.turn):
            return tuple(Joker(d) for d in jokers)
        return (*(Joker(d) for d in jokers), *decided)  # jokers sort before the rest
    if phase is Phase.KEEP:
        keeps: tuple[Action, ...] = _throw_facts(state).actions
        return (*keeps, _OFF) if state.table_mode else keeps  # Off sorts after every keep
    if phase is Phase.START:
        return _OFFERED if state.offer else _AT_START
    if phase is Phase.ROLL:  # at a real table, a die may fall off as they are thrown
        thrown = rolls(state.turn.rolling)
        return (_OFF, *thrown) if state.table_mode else thrown  # Off sorts before every roll
    return ()


def _joker_choices(state: GameState) -> list[Dice]:
    return [k.dice for k in joker_choices(state.rules, state.turn)]


def joker_reading(state: GameState) -> ThrowScore:
    """The last throw read on its own (V-2): jokers are plain combinations of that throw."""
    return score_table(state.rules).lookup(state.turn.throw)


# ------------------------------------------------------------------------- the rules as functions
# The turn's rules as pure functions of a turn (``TurnState``) and the few facts of the sheet
# they read. The engine decides by them, and ``zloutch.engine.compiled`` tabulates them for
# the solvers, the fast kernel and the bots: one rule, one place.

BANK_RULES = ("T-9", "T-2", "V-2", "V-1", "F-2", "T-5", "T-7", "T-6", "T-8", "F-3", "T-3")
"""The rules that can refuse a bank, in the order they are asked (T-3: nothing to bank)."""


@dataclass(frozen=True)
class BankRefusal:
    """Why a bank is refused: the rule (one of ``BANK_RULES``) and the words for the player."""

    rule: str
    message: str


def lands_on_target(rules: RuleSet, score: int, total: int) -> bool:
    """Whether banking ``total`` on ``score`` lands exactly on the target (T-10)."""
    return score + total == rules.game.target


def passes_target(rules: RuleSet, score: int, total: int) -> bool:
    """T-9: with an exact target, a turn total that passes it on ``score``: the turn can
    only be lost (at once, or after throwing on, ``overshoot = "throw_on"``)."""
    return rules.game.exact_target and score + total > rules.game.target


def overshoots(rules: RuleSet, score: int, total: int) -> bool:
    """T-9: with an exact target, a turn whose total passes it on ``score`` is lost at once
    (with ``overshoot = "throw_on"`` its bank is refused instead, ``BANK_RULES``'s T-9)."""
    return rules.game.overshoot == "lost" and passes_target(rules, score, total)


def banked_score(rules: RuleSet, score: int, total: int) -> int:
    """The score written by banking ``total`` on ``score`` (G-7 may stop it below the target)."""
    g = rules.game
    value = score + total
    if g.last_thousand and value < g.target:
        value = min(value, max(g.target - 1000, score))
    return value


def keep_passes(state: GameState, keep: ScoredKeep) -> bool:
    """T-9: keeping ``keep`` from the throw on the table passes an exact target, so the turn
    is lost (the keep is legal: the player may still make it)."""
    t = state.turn
    total = t.total + t.joker_points + keep.points
    return passes_target(state.rules, state.sheets[t.player].score, total)


def keep_strands(state: GameState, keep: ScoredKeep) -> bool:
    """Under an exact target (T-9): keeping ``keep`` lands the turn's total on the target
    where it may not be banked (a full hand must be thrown again, T-5): every later keep
    passes the target, so the turn is as good as lost (the keep is legal)."""
    rules, t = state.rules, state.turn
    total = t.total + t.joker_points + keep.points
    score = state.sheets[t.player].score
    if not (rules.game.exact_target and lands_on_target(rules, score, total)):
        return False
    return not keep.wins and not keep_wins(state, keep)


def keep_wins(state: GameState, keep: ScoredKeep) -> bool:
    """Under an exact target (T-9): keeping ``keep`` brings the turn's total exactly onto the
    target and the turn may then bank it (T-6, T-5... allow it), so the bank reaches it. A
    keep that lands on the target but cannot be banked there is no win: every later keep
    passes it."""
    rules, t = state.rules, state.turn
    total = t.total + t.joker_points + keep.points
    score = state.sheets[t.player].score
    if not (rules.game.exact_target and lands_on_target(rules, score, total)):
        return False
    after = turn_after_keep(rules, t, keep)
    return bank_rule(rules, after, entered=state.entered(t.player), lands=True) is None


def keep_banks_win(state: GameState, keep: ScoredKeep) -> bool:
    """Keeping ``keep``, the turn may then bank a total that reaches the target: under an
    exact target one that lands on it (``keep_wins``: it wins at once unless last turns or a
    final round follow, F-4, G-6); under a target to reach whose bank wins at once (G-2,
    ``wins_at_target``), one that reaches it. Every bot but ``optimal`` takes such a keep
    where its own choice would not (``bots.keep_for_the_win``)."""
    rules, t = state.rules, state.turn
    if rules.game.exact_target:
        return keep_wins(state, keep)
    if not wins_at_target(rules):
        return False
    total = t.total + t.joker_points + keep.points
    score = state.sheets[t.player].score
    if not reaches_target(rules, banked_score(rules, score, total)):
        return False
    after = turn_after_keep(rules, t, keep)
    return bank_rule(rules, after, entered=state.entered(t.player), lands=False) is None


def takeover_busts(state: GameState) -> bool:
    """G-8 under T-9: taking over the offer on the table is certain to lose the turn, its
    total on the player's score at or past an exact target (every keep of the next throw
    passes it, and a throw that scores nothing loses the turn)."""
    offer = state.offer
    if offer is None:
        return False
    return takeover_busts_at(state.rules, state.sheets[state.turn.player].score, offer.total)


def takeover_busts_at(rules: RuleSet, score: int, total: int) -> bool:
    """``takeover_busts`` for a player at ``score`` offered ``total`` (the bots' tables ask
    it for every score and total)."""
    return rules.game.exact_target and score + total >= rules.game.target


def reaches_target(rules: RuleSet, score: int) -> bool:
    """Whether a banked score reaches the target (G-2, T-9: exactly)."""
    g = rules.game
    return score == g.target if g.exact_target else score >= g.target


def wins_at_target(rules: RuleSet) -> bool:
    """Whether a bank that reaches the target wins at once (G-2), rather than start the last
    turns (F-4) or the final round (G-6)."""
    g = rules.game
    return not (g.final_round or g.final_turns)


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
    rule = bank_rule(rules, t, entered=entered, lands=lands)
    return None if rule is None else BankRefusal(rule, _refusal_words(rules, t, rule))


def bank_rule(rules: RuleSet, t: TurnState, *, entered: bool, lands: bool) -> str | None:
    """The rule (one of ``BANK_RULES``) that refuses a bank at a decision, the first asked;
    None: the turn can bank. ``bank_refusal_of`` adds the words."""
    total = t.total
    if jokers_owed(rules, t):
        return "T-2"
    if t.jokers:
        return "V-2"
    if t.pending:
        return "V-1"
    if t.rethrow:
        return "F-2"
    if _must_rethrow(rules, t, lands):
        return "T-5"
    turn = rules.turn
    entry = turn.entry
    if not entered and entry:
        if turn.entry_by == "throw":
            if t.best_throw < entry:
                return "T-7"
        else:
            counted = total if rules.game.take_back_counts_for_entry else total - t.inherited
            if counted < entry:
                return "T-7"
    if not turn.round_enough(total):
        return "T-6"
    small_pp = turn.petit_palier and total == 100 and entered
    if total < turn.min_bank and not small_pp:
        return "T-8" if turn.petit_palier else "F-3"
    if total <= 0:
        return "T-3"
    return None


def _owed_words(rules: RuleSet, t: TurnState) -> str:
    owed = " or ".join(format_dice(k.dice) for k in joker_choices(rules, t))
    return (
        f"every scoring die is kept or set aside as jokers: set {owed} aside as jokers "
        "first (keep_all_scoring with jokers, V-2)"
    )


def _refusal_words(rules: RuleSet, t: TurnState, rule: str) -> str:
    """What a player is told when ``rule`` refuses the bank of turn ``t``."""
    total, entry = t.total, rules.turn.entry
    if rule == "T-9":
        return (
            f"you cannot bank {t.total}: it would pass the exact target of "
            f"{rules.game.target} (T-9, overshoot = throw_on): throw on"
        )
    if rule == "T-2":
        return _owed_words(rules, t)
    if rule == "V-2":
        return "you cannot bank with jokers set aside: throw the other dice (V-2)"
    if rule == "V-1":
        return f"you cannot bank {total}: a figure is not confirmed yet by a 1 or a 5 (V-1)"
    if rule == "F-2":
        return (
            f"you cannot bank {total}: after the no-score bonus all the dice are thrown again (F-2)"
        )
    if rule == "T-5":
        return f"you cannot bank {total}: after a full hand all the dice are thrown again (T-5)"
    if rule == "T-7":
        if rules.turn.entry_by == "throw":
            return (
                f"you cannot bank {total}: to enter you need one throw worth {entry} "
                f"(best throw this turn: {t.best_throw}) (T-7)"
            )
        if t.inherited and not rules.game.take_back_counts_for_entry:
            return (
                f"you cannot bank {total}: you need {entry} of your own to enter the game; "
                f"the {t.inherited} taken back do not count toward it (T-7, G-8)"
            )
        return f"you cannot bank {total}: you need {entry} to enter the game (T-7)"
    if rule == "T-6":
        if total % 100 == 50:
            return f"you cannot bank {total}: a total ending in 50 cannot be banked (T-6)"
        return f"you cannot bank {total}: only a multiple of 100 can be banked (T-6)"
    if rule in ("T-8", "F-3"):
        return f"you cannot bank {total}: the smallest bank is {rules.turn.min_bank} ({rule})"
    return "you cannot bank: the turn total is 0"


def turn_after_keep(rules: RuleSet, t: TurnState, keep: ScoredKeep) -> TurnState:
    """The turn once ``keep`` is set aside from the throw on the table, with the jokers set
    aside before it (V-2): the hand's dice, its multiples (V-7), a figure to confirm (V-1),
    a full hand (S-16), the rethrow of the no-score bonus (F-2), the best throw (T-7)."""
    return _after_keep(rules, t, KeepFacts.of(keep, t.throw))


def _after_keep(rules: RuleSet, t: TurnState, facts: KeepFacts) -> TurnState:
    """``turn_after_keep`` of a keep read from the throw tables (``KeepFacts``)."""
    keep = facts.keep
    if t.set_aside or t.jokers:
        set_aside = tuple(sorted(t.set_aside + keep.dice + t.jokers))
    else:
        set_aside = keep.dice  # sorted already: the first keep of a hand
    multiples = t.multiples
    if multiples or facts.faces:
        multiples = tuple(sorted(facts.faces.union(multiples)))
    pending = t.pending
    if rules.variants.confirmation:
        pending = (pending and not facts.confirms) or facts.figure
    # S-16: every die set aside, or (its Reading, figure_full_hand) a figure that is one
    full_hand = len(set_aside) == rules.dice or (rules.turn.figure_full_hand and facts.whole)
    points = keep.points
    best = t.best_throw
    d = turn_draft(t)
    d.total = t.total + points + t.joker_points
    d.set_aside = set_aside
    d.multiples = multiples
    d.jokers = ()
    d.joker_points = 0
    d.joker_roll = False
    d.left = facts.left
    d.full_hand = full_hand
    d.pending = pending
    d.best_throw = points if points > best else best
    d.rethrow = facts.bonus  # F-2
    return turn_done(d)


def roll_verdict(rules: RuleSet, t: TurnState, reading: ThrowScore) -> str:
    """What the throw on the table does, before any keep: ``win`` (G-5), ``jokers`` (a
    farkle with jokers set aside: they are thrown, V-2), ``farkle`` (T-4) or ``keep``.
    T-9 is asked apart (``overshoots``): it needs the score."""
    return _verdict(t, any(k.wins for k in reading.keeps), reading.farkle)


def _verdict(t: TurnState, wins: bool, farkle: bool) -> str:
    """``roll_verdict`` of a throw that wins (a keep wins, G-5) or farkles (no keep, T-4)."""
    if wins:
        return "win"
    if farkle:
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
    scoring = score_table(rules).lookup(t.throw).scoring
    found = tuple(
        k for k in scoring if contains(t.left, k.dice) and len(t.left) > len(k.dice) and not k.wins
    )
    if rules.scoring.keep_all_scoring:  # every scoring die not kept is a joker
        found = tuple(k for k in found if not _holds_scoring(scoring, difference(t.left, k.dice)))
    return found


def _holds_scoring(scoring: tuple[ScoredKeep, ...], dice: Dice) -> bool:
    """Whether ``dice`` hold a combination of the throw (``scoring``: its combinations, read
    on the throw: a kind that counts only on so many dice thrown is read on the throw, not
    on the dice left). A combination that wins at once is no joker, so it does not count."""
    return any(not k.wins and contains(dice, k.dice) for k in scoring)


def jokers_owed(rules: RuleSet, t: TurnState) -> bool:
    """``keep_all_scoring`` with jokers (V-2), the 10,000 article's keep: a keep that left
    scoring dice of the throw on the table owes them as jokers (``joker_choices``) before
    the player may bank or throw."""
    if not (rules.scoring.keep_all_scoring and rules.variants.joker):
        return False
    if t.jokers or t.full_hand or not t.left or not t.throw:
        return False
    return _holds_scoring(score_table(rules).lookup(t.throw).scoring, t.left)


def turn_after_jokers(t: TurnState, joker: ScoredKeep) -> TurnState:
    """V-2: ``joker`` set aside as jokers (read on the last throw alone, ``joker_reading``)."""
    return replace(
        t, jokers=joker.dice, joker_points=joker.points, left=difference(t.left, joker.dice)
    )


def turn_after_throw(rules: RuleSet, t: TurnState, *, fresh: bool) -> TurnState:
    """The turn as the dice in hand are thrown: every die at the start of a turn (``fresh``)
    and after a full hand (T-5), else the dice not set aside (T-3)."""
    d = turn_draft(t)
    if t.full_hand or fresh:
        d.set_aside = ()
        d.multiples = ()
        d.full_hand = False
        d.rethrow = False
        d.rolling = rules.dice
    else:
        d.rolling = rules.dice - len(t.set_aside) - len(t.jokers)
    d.throw = ()
    d.left = ()
    d.joker_roll = False
    return turn_done(d)


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
    if state.phase is Phase.KEEP:  # points kept before this throw count only after a keep
        return "you cannot bank now: keep dice from the throw first (T-2)"
    if state.phase is not Phase.DECIDE:
        return "you cannot bank now: there is nothing kept to bank"
    rule = _bank_rule(state)
    return None if rule is None else _refusal_words(state.rules, state.turn, rule)


def _bank_rule(state: GameState) -> str | None:
    """``bank_rule`` for the player to move at a decision: the rule that refuses, or None."""
    t = state.turn
    rules = state.rules
    score = state.sheets[t.player].score
    if passes_target(rules, score, t.total) and not jokers_owed(rules, t):
        return "T-9"  # overshoot = "throw_on" (else the turn is lost); owed jokers come first
    lands = lands_on_target(rules, score, t.total)
    return bank_rule(rules, t, entered=state.entered(t.player), lands=lands)


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
        return _owed_words(state.rules, state.turn)
    return None


GAME_OVER = "the game is over"
"""The answer to any move once the game is over, before anything else is read of it."""


def why_illegal(state: GameState, action: Action) -> str | None:
    """The reason an action is not allowed now, in words (None: it is legal)."""
    phase, t = state.phase, state.turn
    if phase is Phase.OVER:
        return GAME_OVER
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
        return None if phase is Phase.DECIDE and _bank_rule(state) is None else bank_refusal(state)
    if isinstance(action, Keep):
        if phase is not Phase.KEEP:
            return "there is no throw to keep from: throw first (T-2)"
        if action.dice in _throw_facts(state).keeps:
            return None
        try:  # not a legal keep: the score table says why
            score_table(state.rules).validate_keep(t.throw, action.dice, context(state))
        except IllegalKeepError as exc:
            return str(exc)
        return None  # pragma: no cover - every legal keep is in the throw's facts
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
                return _owed_words(state.rules, t)
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
    # Each player kicks every player ranked below and is kicked by every one above: the
    # n-th of N gives N - n and takes n - 1. Tied players kick neither way (n - rank gave a
    # tie of three at the bottom two kicks each, to nobody).
    ranks = [rank for _, rank in ranking]
    kicks = tuple(
        (p, sum(r > rank for r in ranks), sum(r < rank for r in ranks)) for p, rank in ranking
    )
    return Outcome(state.winners, tuple(ranking), kicks)


def _rank_key(state: GameState, p: int) -> tuple[bool, int]:
    return (p in state.winners, state.sheets[p].score)


# ------------------------------------------------------------------------------ changes


def apply(state: GameState, action: Action) -> GameState:
    """The state after an action; raises IllegalActionError with the reason if not legal."""
    reason = why_illegal(state, action)
    if reason is not None:
        raise IllegalActionError(reason)
    return apply_legal(state, action)


def step(state: GameState, action: Action) -> tuple[GameState, tuple[Event, ...]]:
    """The state after an action, and the events it caused; raises IllegalActionError with
    the reason if the action is not legal."""
    reason = why_illegal(state, action)
    if reason is not None:
        raise IllegalActionError(reason)
    return step_legal(state, action)


def apply_legal(state: GameState, action: Action) -> GameState:
    """``apply`` of an action known to be legal: one of ``legal_actions(state)``, a roll of
    the dice in the air, or an action ``why_illegal`` already passed. It is not checked
    again: an action that is not legal raises an error that does not say which rule, or
    gives a state the rules never reach."""
    move = _MOVES.get(type(action)) or _move_of(action)
    return move(state, action, None)


def step_legal(state: GameState, action: Action) -> tuple[GameState, tuple[Event, ...]]:
    """``step`` of an action known to be legal (see ``apply_legal``): not checked again."""
    events: list[Event] = []
    move = _MOVES.get(type(action)) or _move_of(action)
    return move(state, action, events), tuple(events)


Events = list[Event] | None
"""Where a move appends the events it causes; None: nobody asked (``apply``), none are made."""
Move = Callable[[GameState, Any, Events], GameState]
"""How one kind of action changes a state, its events appended (``_MOVES``)."""


def _move_of(action: Action) -> Move:
    """The move of an action of a subclass of an action's class."""
    for kind, move in _MOVES.items():
        if isinstance(action, kind):
            return move
    raise IllegalActionError(f"{action} is not an action of this game")  # pragma: no cover


def _throw(state: GameState, action: Throw | Fresh, events: Events) -> GameState:
    turn = turn_after_throw(state.rules, state.turn, fresh=state.phase is Phase.START)
    d = game_draft(state)
    d.turn = turn
    d.phase = Phase.ROLL
    d.offer = None
    return done(d)


def _take(state: GameState, action: Take, events: Events) -> GameState:
    t, offer = state.turn, state.offer
    assert offer is not None
    if events is not None:
        events.append(TookBack(t.player, offer.total, offer.dice))
    turn = turn_taken_back(t.player, offer)
    return evolve(state, turn=turn, phase=Phase.ROLL, offer=None)


def _joker(state: GameState, action: Joker, events: Events) -> GameState:
    t = state.turn
    joker = next(k for k in joker_reading(state).scoring if k.dice == action.dice)
    if events is not None:
        events.append(Jokered(t.player, action.dice, joker.points))
    return evolve(state, turn=turn_after_jokers(t, joker))


def _off(state: GameState, action: Off, events: Events) -> GameState:
    return _lose_turn(state, "off", events)


def _roll(state: GameState, action: Roll, events: Events) -> GameState:
    rules, t = state.rules, state.turn
    dice = action.dice
    if events is not None:
        events.append(Thrown(t.player, dice, t.joker_roll))
    td = turn_draft(t)
    td.throw = dice
    td.left = ()
    turn = turn_done(td)
    facts = (state._tables or _throws(state)).facts(dice, t.set_aside, t.multiples)
    verdict = _verdict(turn, facts.wins, not facts.keeps)
    if verdict == "keep":
        score = state.sheets[t.player].score
        if overshoots(rules, score, t.total + t.joker_points + facts.least):
            # T-9: even the smallest keep passes the target
            return _lose_turn(evolve(state, turn=turn), "overshoot", events)
        d = game_draft(state)
        d.turn = turn
        d.phase = Phase.KEEP
        d._throw = facts
        return done(d)
    if verdict == "win":
        if events is not None:
            events.append(Won(t.player, (t.player,)))
        return evolve(state, turn=turn, phase=Phase.OVER, winners=(t.player,))
    if verdict == "jokers":
        jokers = turn_after_joker_farkle(rules, turn)
        return _moved(state, jokers, Phase.ROLL)
    return _lose_turn(evolve(state, turn=turn), "farkle", events)


def _keep(state: GameState, action: Keep, events: Events) -> GameState:
    rules, t = state.rules, state.turn
    facts = _throw_facts(state).keeps[action.dice]
    if events is not None and rules.variants.confirmation and t.pending and facts.confirms:
        events.append(Confirmed(t.player))
    turn = _after_keep(rules, t, facts)
    if events is not None:
        keep = facts.keep
        points = keep.points + t.joker_points
        events.append(Kept(t.player, keep.dice, points, turn.total, turn.full_hand))
    state = _moved(state, turn, Phase.DECIDE)
    if overshoots(rules, state.sheets[t.player].score, turn.total):
        return _lose_turn(state, "overshoot", events)
    return state


# ------------------------------------------------------------------------------ the sheet


def _sheet(sheet: PlayerSheet, levels: tuple[Level, ...], ticks: int, in_row: int) -> PlayerSheet:
    """``replace(sheet, levels=levels, ticks=ticks, farkles_in_row=in_row)``, built without
    the frozen ``__init__`` (``build``): what a bank or a farkle writes, once a turn."""
    values = {
        "name": sheet.name,
        "levels": levels,
        "ticks": ticks,
        "loose_ticks": sheet.loose_ticks,
        "farkles_in_row": in_row,
    }
    return build(PlayerSheet, values)


def sheets_after_bank(state: GameState, total: int) -> tuple[PlayerSheet, ...]:
    """The sheets as a bank of ``total`` by the player whose turn it is would leave them:
    the level it writes and the levels its bumps cross (G-4), before the game's end is
    looked at. For the bots that look ahead (``zloutch.strategy.optimal``)."""
    return tuple(_banked_sheets(state, total, None))


def sheets_after_farkle(state: GameState) -> tuple[PlayerSheet, ...]:
    """The sheets as a farkle of the player whose turn it is would leave them: the tick, the
    level it crosses (G-3) and the bumps of the fall back (``fallback_bumps``), F-1's
    penalty."""
    return _lose_turn(state, "farkle", None).sheets


def _banked_sheets(state: GameState, total: int, events: Events) -> list[PlayerSheet]:
    rules, t = state.rules, state.turn
    p = t.player
    sheet = state.sheets[p]
    score = sheet.score
    value = banked_score(rules, score, total)
    pp = rules.turn.petit_palier and total == 100
    sheets = list(state.sheets)
    if value == score:
        # G-7: at target - 1000 already, a bank short of the target adds nothing: the turn
        # ends, and no second level is written (a bump or a crossing would cost nothing).
        sheets[p] = _sheet(sheet, sheet.levels, sheet.ticks, 0)
        if events is not None:
            events.append(Banked(p, total, value, pp, written=False))
        return sheets
    was_entered = state.entered(p)
    # a new level: its ticks start from 0 (G-3 Reading), as PlayerSheet.write does
    sheets[p] = _sheet(sheet, (*sheet.levels, Level(value, pp=pp)), 0, 0)
    if events is not None:
        events.append(Banked(p, total, value, pp))
        if not was_entered and rules.turn.entering_matters:  # (else entering is no news)
            events.append(Entered(p, value))
    return _bump(rules, sheets, p, value, events)


def _bank(state: GameState, action: Bank, events: Events) -> GameState:
    rules, t = state.rules, state.turn
    p = t.player
    total = t.total
    value = banked_score(rules, state.sheets[p].score, total)
    g = rules.game
    sheets = _banked_sheets(state, total, events)
    offer = None
    in_hand = state.in_hand
    if g.take_back and not t.full_hand and in_hand > 0:
        offer = TakeBackOffer(total, in_hand, t.set_aside, t.multiples)
    if not reaches_target(rules, value):
        return _next_turn(state, tuple(sheets), offer, events)
    state = evolve(state, sheets=tuple(sheets))
    if not wins_at_target(rules):
        state = _reach_final(state, p, events)
    else:
        if events is not None:
            events.append(Won(p, (p,)))
        return evolve(state, phase=Phase.OVER, winners=(p,))
    return _next_turn(state, state.sheets, offer, events)


def _reach_final(state: GameState, p: int, events: Events) -> GameState:
    g = state.rules.game
    final = state.final
    if final is None:
        if events is not None:
            events.append(FinalRound(p))
        stop = 0 if g.final_round else p
        return evolve(state, final=FinalRoundState(holder=p, stop_before=stop))
    if g.final_round and final.holder != p:
        sheets = list(state.sheets)
        holder = sheets[final.holder]
        if reaches_target(
            state.rules, holder.score
        ):  # a bump of this very bank may have crossed that level already (G-4)
            sheets = _cross_current(state.rules, sheets, final.holder, "final_round", events)
        if events is not None:
            events.append(FinalRound(p))
        return evolve(state, sheets=tuple(sheets), final=FinalRoundState(p, stop_before=p))
    return state


def _lose_turn(state: GameState, reason: str, events: Events) -> GameState:
    rules, t = state.rules, state.turn
    p = t.player
    if events is not None:
        events.append(Farkled(p, t.total, reason))
    sheets = list(state.sheets)
    sheet = sheets[p]
    limit = rules.game.ticks_to_cross
    if limit:
        i = sheet.current_index
        if i is None:
            sheet = replace(sheet, loose_ticks=sheet.loose_ticks + 1)
            if events is not None:
                events.append(Ticked(p, 0, sheet.loose_ticks))
        else:
            level = sheet.levels[i]
            levels = list(sheet.levels)
            levels[i] = replace(level, ticks=level.ticks + 1)
            sheet = replace(sheet, levels=tuple(levels), ticks=sheet.ticks + 1)
            if events is not None:
                events.append(Ticked(p, level.value, sheet.ticks))
        sheets[p] = sheet
        if i is not None and sheet.ticks >= limit:
            sheets = _cross_current(rules, sheets, p, "ticks", events)
    penalty = rules.turn.farkle_penalty
    sheet = sheets[p]
    in_row = sheet.farkles_in_row + 1
    if penalty and in_row >= rules.turn.farkle_penalty_after:
        value = sheet.score - penalty
        # a new level: its ticks start from 0 (G-3 Reading), as PlayerSheet.write does
        sheets[p] = _sheet(sheet, (*sheet.levels, Level(value, penalty=True)), 0, 0)
        if events is not None:
            events.append(Penalised(p, penalty, value))
    else:
        sheets[p] = _sheet(sheet, sheet.levels, sheet.ticks, in_row)
    fresh = rules.turn.fresh_farkle_penalty
    if fresh and reason == "farkle" and blank_first_throw(rules, t):
        sheet = sheets[p]
        value = sheet.score - fresh
        written = (*sheet.levels, Level(value, penalty=True))
        sheets[p] = _sheet(sheet, written, 0, sheet.farkles_in_row)
        if events is not None:
            events.append(Penalised(p, fresh, value, "blank"))
    return _next_turn(state, tuple(sheets), None, events)


def blank_first_throw(rules: RuleSet, t: TurnState) -> bool:
    """Whether the throw on the table is a turn's first, of every die (not a take-back's,
    not after a full hand, not the jokers'): the throw ``fresh_farkle_penalty`` charges
    when it scores nothing."""
    return (
        t.total == 0
        and not t.inherited
        and not t.set_aside
        and not t.joker_roll
        and len(t.throw) == rules.dice
    )


def _cross_current(
    rules: RuleSet, sheets: list[PlayerSheet], p: int, reason: str, events: Events
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
    if events is not None:
        events.append(Crossed(p, levels[i].value, sheet.score, reason))
    if rules.game.fallback_bumps and sheet.score:
        sheets = _bump(rules, sheets, p, sheet.score, events)
    return sheets


def _bump(
    rules: RuleSet, sheets: list[PlayerSheet], p: int, value: int, events: Events
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
                if events is not None:
                    events.append(Bumped(p, q, value))
                sheets = _cross_current(rules, sheets, q, "bump", events)
            continue
        hits = [i for i, lv in enumerate(other.levels) if not lv.crossed and lv.value == value]
        for i in hits:
            if events is not None:
                events.append(Bumped(p, q, value))
            if i == current:
                sheets = _cross_current(rules, sheets, q, "bump", events)
            else:
                levels = list(sheets[q].levels)
                levels[i] = replace(levels[i], crossed=True)
                sheets[q] = replace(sheets[q], levels=tuple(levels))
                if events is not None:
                    events.append(Crossed(q, value, sheets[q].score, "bump"))
    return sheets


def _next_turn(
    state: GameState, sheets: tuple[PlayerSheet, ...], offer: TakeBackOffer | None, events: Events
) -> GameState:
    """The turn passes to the next seat, or the game ends (G-6, F-4); ``sheets``: the sheet
    as the turn that ends left it."""
    n = len(sheets)
    nxt = (state.turn.player + 1) % n
    final = state.final
    if final is not None and nxt == final.stop_before:
        if state.rules.game.final_turns:
            best = max(s.score for s in sheets)
            winners = tuple(i for i, s in enumerate(sheets) if s.score == best)
        else:
            winners = (final.holder,)
        if events is not None:
            events.append(Won(winners[0], winners))
        return evolve(state, sheets=sheets, phase=Phase.OVER, winners=winners, offer=None)
    if events is not None:
        events.append(TurnStarted(nxt))
    d = game_draft(state)
    d.sheets = sheets
    d.turn = _fresh_turn(nxt)
    d.phase = Phase.START
    # G-8 offers the turn to the next player: alone, there is none (a player who took back
    # their own bank would count its points twice)
    d.offer = offer if nxt != state.turn.player else None
    d.turns = state.turns + 1
    return done(d)


_MOVES: dict[type[Action], Move] = {
    Roll: _roll,
    Keep: _keep,
    Throw: _throw,
    Bank: _bank,
    Fresh: _throw,
    Take: _take,
    Joker: _joker,
    Off: _off,
}
"""The move of each kind of action."""
