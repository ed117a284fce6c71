"""No bot throws away a win under an exact target (T-9), at every level; nor a bank that
reaches a target to reach and wins at once (G-2), at the end.

Random throws on every preset with an exact target, at scores near it: a keep that lands on
the target is taken when one is legal, a keep that passes it is never preferred to one that
does not, a total on the target is banked, and a take-over certain to bust is declined. The
fast simulator's tables of the same bots choose the same keeps and banks."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zloutch.engine import Bank, Keep, Roll, Take, Throw
from zloutch.engine.endings import load_rules
from zloutch.engine.game import (
    apply,
    keep_banks_win,
    keep_passes,
    keep_wins,
    legal_actions,
    new_game,
    takeover_busts,
    throw_score,
)
from zloutch.engine.state import GameState, Level, Phase
from zloutch.rules import PRESETS
from zloutch.rules.ruleset import RuleSet
from zloutch.strategy.bots import LEVELS, banks_on_target, make_bot
from zloutch.strategy.game_solver import sheet_blind, solve_game
from zloutch.strategy.optimal import OptimalBot
from zloutch.strategy.policy import Policy

EXACT = sorted(p for p in PRESETS if load_rules(p).game.exact_target)
TARGET = 1500


def test_the_exact_presets_are_checked() -> None:
    assert EXACT == ["charentaise", "dix-mille", "dix-mille-6"]


@cache
def rules_of(preset: str) -> RuleSet:
    return load_rules(f"{preset}(target={TARGET})")


@cache
def bot(preset: str, level: str) -> Policy:
    if LEVELS[level] == "optimal":  # the solved game of the sheet-blind model (ticks left out)
        rules = rules_of(preset)
        blind = sheet_blind(rules)
        assert blind is not None
        return OptimalBot(solve_game(blind))
    return make_bot(level)


def at_score(rules: RuleSet, score: int) -> GameState:
    state = new_game(rules, ["Ana", "Bob"])
    sheet = replace(state.sheets[0], levels=(Level(score),) if score else ())
    return replace(state, sheets=(sheet, *state.sheets[1:]))


def faces(n: int) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(1, 6), min_size=n, max_size=n).map(lambda d: tuple(sorted(d)))


@st.composite
def near_the_target(draw: st.DrawFn, preset: str) -> GameState:
    """A keep to choose: a score 50 to 1,000 below the target, the first throw or, after a
    keep of the bot's own, the next."""
    rules = rules_of(preset)
    score = TARGET - 50 * draw(st.integers(1, 20))
    state = apply(at_score(rules, score), Throw())
    state = apply(state, Roll(draw(faces(rules.dice))))
    if state.phase is Phase.KEEP and draw(st.booleans()):
        keeps = [a for a in legal_actions(state) if isinstance(a, Keep)]
        state = apply(state, draw(st.sampled_from(keeps)))
        if state.phase is Phase.DECIDE and Throw() in legal_actions(state):
            state = apply(state, Throw())
            state = apply(state, Roll(draw(faces(state.in_hand))))
    return state


def check_keep(state: GameState, policy: Policy, seed: int) -> None:
    scored = {k.dice: k for k in throw_score(state).keeps}
    keeps = [a for a in legal_actions(state) if isinstance(a, Keep)]
    chosen = policy.choose(state, random.Random(seed))
    assert isinstance(chosen, Keep), chosen
    landing = [a for a in keeps if keep_wins(state, scored[a.dice])]
    safe = [a for a in keeps if not keep_passes(state, scored[a.dice])]
    if landing:
        assert chosen in landing, (state.turn, chosen, landing)
    elif safe:
        assert chosen in safe, (state.turn, chosen, safe)
    after = apply(state, chosen)
    if after.phase is Phase.DECIDE and Bank() in legal_actions(after) and banks_on_target(after):
        assert policy.choose(after, random.Random(seed)) == Bank(), after.turn


@pytest.mark.default_cases(5)
@pytest.mark.parametrize("level", sorted(LEVELS))
@pytest.mark.parametrize("preset", sorted(EXACT, key=lambda p: p != "dix-mille"))  # by default
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_no_bot_throws_away_a_win(preset: str, level: str, data: st.DataObject) -> None:
    state = data.draw(near_the_target(preset))
    if state.phase is not Phase.KEEP:
        return  # the throw scored nothing, or its least keep passes the target: no choice
    check_keep(state, bot(preset, level), data.draw(st.integers(0, 2**32)))


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_the_example_keeps_the_three_ones_and_banks(level: str) -> None:
    """1 1 1 5 6 at 0 of a 1,000 exact target: 1 1 1 lands on it, 1 1 1 5 passes it."""
    rules = load_rules("dix-mille(target=1000)")
    state = apply(apply(at_score(rules, 0), Throw()), Roll((1, 1, 1, 5, 6)))
    policy = make_bot(level) if LEVELS[level] != "optimal" else bot("dix-mille", level)
    if LEVELS[level] == "optimal":  # its solved game is for 1,500: the expert plays 1,000
        policy = make_bot("strong")
    chosen = policy.choose(state, random.Random(1))
    assert chosen == Keep((1, 1, 1))
    assert policy.choose(apply(state, chosen), random.Random(1)) == Bank()


@pytest.mark.parametrize("level", ["beginner", "easy", "medium"])
def test_no_bot_takes_over_an_offer_certain_to_bust(level: str) -> None:
    """G-8 under T-9: the offer's total on the player's score reaches the target."""
    rules = load_rules("dix-mille(target=1500)")
    state = at_score(rules, 0)
    state = apply(apply(state, Throw()), Roll((1, 1, 1, 5, 6)))  # Ana: 1 1 1, bank 1000
    state = apply(apply(state, Keep((1, 1, 1))), Bank())
    assert state.offer is not None
    sheet = replace(state.sheets[1], levels=(Level(600),))  # Bob at 600: 600 + 1000 passes
    busting = replace(state, sheets=(state.sheets[0], sheet))
    assert takeover_busts(busting) and not takeover_busts(state)
    for seed in range(20):
        assert make_bot(level).choose(busting, random.Random(seed)) != Take()


@pytest.mark.parametrize("spec", ["dix-mille(ticks_to_cross=0,bump=off,take_back=false)"])
@pytest.mark.parametrize("name", ["cautious", "threshold:300", "greedy"])
def test_the_fast_tables_keep_and_bank_as_the_bots(spec: str, name: str) -> None:
    """The table a bot gives the fast simulator chooses what the bot chooses, near the target
    and far from it (every roll of every throw node, at a sample of scores and totals)."""
    from zloutch.sim.fast import fast_model, table_policy

    rules = load_rules(spec)
    fm = fast_model(rules)
    table = table_policy(name, fm)
    flat = fm.compiled.flat
    policy = make_bot(name)
    rng = np.random.default_rng(5)
    checked = decided = 0
    for score in (9000, 9500, 9750, 9900):
        for _ in range(60):
            state = apply(at_score(rules, score), Throw())
            state = apply(state, Roll(tuple(sorted(rng.integers(1, 7, rules.dice).tolist()))))
            if state.phase is not Phase.KEEP:
                continue
            chosen = policy.choose(state, random.Random(0))
            assert isinstance(chosen, Keep)
            s = fm.sit_of[score // fm.unit, 1, 0]
            node = fm.throw_nodes.index(fm.model.compiled.start)
            j = int(fm.code_local[sum(7 ** (f - 1) for f in state.turn.throw)])
            r = int(flat.roll_start[node]) + j
            option = int(table.keep[min(s, table.keep.shape[0] - 1), 0, r])
            o = int(flat.roll_opt_start[r]) + option
            kept = throw_score(state).keeps
            points = next(k.points for k in kept if k.dice == chosen.dice)
            assert int(flat.roll_opt_pts[o]) * fm.unit == points, (score, state.turn.throw)
            after = apply(state, chosen)
            hands = list(flat.hand_col.tolist())
            if after.phase is Phase.DECIDE and int(flat.roll_opt_dest[o]) in hands:
                h = hands.index(int(flat.roll_opt_dest[o]))
                banks = bool(table.bank[s, points // fm.unit, h])
                assert banks == (policy.choose(after, random.Random(0)) == Bank()), after.turn
                decided += 1
            checked += 1
    assert checked > 100 and decided > 50


AT_ONCE = sorted(
    p
    for p in PRESETS
    if not load_rules(p).game.exact_target
    and not (load_rules(p).game.final_turns or load_rules(p).game.final_round)
)


def test_the_presets_where_reaching_the_target_wins_at_once_are_checked() -> None:
    assert AT_ONCE == ["cinq-mille", "facebook-farkle", "farkle-minimal", "impair", "zilch"]


@pytest.mark.parametrize("preset", AT_ONCE)
@pytest.mark.parametrize(
    "name", ["beginner", "easy", "medium", "strong", "greedy", "threshold:2000", "bold:900"]
)
def test_a_bank_that_reaches_the_target_and_wins_at_once_is_made(preset: str, name: str) -> None:
    """G-2: 1,000 short of the target, three 1s kept with dice left (the bots that bank by
    a threshold, or by the turn's points, may throw on): every bot banks, and wins."""
    rules = load_rules(f"{preset}(target=2000)")
    state = at_score(rules, 1000)
    throw = (1, 1, 1, 2, 3, 4, 6)[: rules.dice]
    state = apply(apply(state, Throw()), Roll(throw))
    state = apply(state, Keep((1, 1, 1)))
    assert state.phase is Phase.DECIDE and Bank() in legal_actions(state)
    assert banks_on_target(state)
    for seed in range(5):
        assert make_bot(name).choose(state, random.Random(seed)) == Bank()
    assert apply(state, Bank()).phase is Phase.OVER


def last_turn_state(bob: int) -> GameState:
    """farkle to 1,500: Ana reached it (the last turns, F-4); Bob, at ``bob``, has kept
    5 5 5 1 (600, two dice left) in his last turn."""
    from zloutch.engine.state import FinalRoundState

    rules = load_rules("farkle(target=1500)")
    state = new_game(rules, ["Ana", "Bob"])
    ana = replace(state.sheets[0], levels=(Level(1500),))
    bob_sheet = replace(state.sheets[1], levels=(Level(bob),))
    state = replace(
        state,
        sheets=(ana, bob_sheet),
        final=FinalRoundState(holder=0, stop_before=0),
        turn=replace(state.turn, player=1),
    )
    return apply(apply(apply(state, Throw()), Roll((1, 2, 3, 5, 5, 5))), Keep((1, 5, 5, 5)))


@pytest.mark.parametrize(
    "name", ["beginner", "easy", "medium", "strong", "greedy", "threshold:2000", "bold:900"]
)
def test_a_last_turn_banks_once_level_with_the_lead_and_not_below(name: str) -> None:
    """F-4: a last turn is won or lost on the lead, not on points: at 1000 + 600 (ahead of
    1500) every bot banks and wins; at 800 + 600 (below) none banks a certain loss."""
    ahead, below = last_turn_state(1000), last_turn_state(800)
    for seed in range(5):
        assert make_bot(name).choose(ahead, random.Random(seed)) == Bank()
        assert make_bot(name).choose(below, random.Random(seed)) == Throw()
    assert apply(ahead, Bank()).winners == (1,)


def first_throws(
    rules: RuleSet, shorts: Iterable[int], each: int, rng: random.Random
) -> Iterator[GameState]:
    """First throws with a keep to choose, ``each`` random throws at each score ``short`` of
    2,000 (the throws that score nothing drawn too, and skipped)."""
    for short in shorts:
        base = at_score(rules, 2000 - short)
        for _ in range(each):
            throw = tuple(sorted(rng.randint(1, 6) for _ in range(rules.dice)))
            state = apply(apply(base, Throw()), Roll(throw))
            if state.phase is Phase.KEEP:
                yield state


def missed_wins(preset: str, most: int = 4) -> list[GameState]:
    """First throws at scores 50 to 1,000 short of 2,000 where the expert's turn values
    (``TurnAdvisor.advise``) keep dice after which a bank does not win, while a bank after
    another keep would: the keeps the bots must not leave (the first ``most`` found)."""
    rules = load_rules(f"{preset}(target=2000)")
    advisor = make_bot("expert").advisor(rules)  # type: ignore[attr-defined]
    found = []
    for state in first_throws(rules, range(50, 1001, 50), 25, random.Random(3)):
        scored = {k.dice: k for k in throw_score(state).keeps}
        best = advisor.advise(state).best
        if not isinstance(best, Keep) or keep_banks_win(state, scored[best.dice]):
            continue
        if any(keep_banks_win(state, k) for k in scored.values()):
            found.append(state)
            if len(found) >= most:
                return found
    return found


@pytest.mark.parametrize(
    "preset",
    ["cinq-mille", pytest.param("zilch", marks=pytest.mark.slow)],  # zilch: its turns, seconds
)
def test_a_keep_after_which_a_bank_wins_is_taken(preset: str) -> None:
    """G-2: where the turn's values keep dice after which a bank falls short, and another
    keep reaches the target, every bot but ``optimal`` takes a keep that reaches it (the
    one of most points, fewest dice: ``bots.keep_for_the_win``), then banks and wins; the
    fast simulator's kernel does the same (``sim.fast._winning_keep``, its replays)."""
    states = missed_wins(preset)
    assert states  # the expert's values alone would throw these wins away
    for state in states:
        scored = {k.dice: k for k in throw_score(state).keeps}
        for name in ("beginner", "easy", "medium", "strong", "greedy", "threshold:2000"):
            chosen = make_bot(name).choose(state, random.Random(0))
            assert isinstance(chosen, Keep) and keep_banks_win(state, scored[chosen.dice])
            after = apply(state, chosen)
            assert make_bot(name).choose(after, random.Random(0)) == Bank()
            assert apply(after, Bank()).phase is Phase.OVER
        wins = [k for k in scored.values() if keep_banks_win(state, k)]
        most = max(wins, key=lambda k: (k.points, -len(k.dice)))
        assert make_bot("strong").choose(state, random.Random(0)) == Keep(most.dice)


@pytest.mark.parametrize("preset", [*AT_ONCE, "dix-mille", "farkle"])
def test_keep_banks_win_is_a_legal_winning_bank_after_the_keep(preset: str) -> None:
    """``keep_banks_win`` (read without playing the keep) says what playing the keep and
    asking whether a bank is legal and wins says (``bots.wins_by_banking``)."""
    from zloutch.strategy.bots import wins_by_banking

    rules = load_rules(f"{preset}(target=2000)")
    seen = 0
    for state in first_throws(rules, range(0, 1201, 100), 10, random.Random(5)):
        for keep in throw_score(state).keeps:
            after = apply(state, Keep(keep.dice))
            assert keep_banks_win(state, keep) == wins_by_banking(after), (state.turn, keep)
            seen += keep_banks_win(state, keep)
    if preset in AT_ONCE or preset == "dix-mille":
        assert seen
