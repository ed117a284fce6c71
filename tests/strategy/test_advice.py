"""Turn advice (the hint, the expert bot, ``zloutch score --advise``): situations and F-1."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from zloutch.engine import GameState, Phase, Roll, apply, chance_outcomes, legal_actions, new_game
from zloutch.engine.actions import Action, Bank, Keep, Take, Throw
from zloutch.rules import ZloutchError, load_rules
from zloutch.rules.scoring import HandContext
from zloutch.strategy.expert import LONG_RUN, POINTS, ExpertBot, TurnAdvisor, advise_throw


def test_v7_advice_reads_the_multiple_set_aside() -> None:
    # 6 6 6 set aside at 600, then a 6: 1200 (V-7), worth banking.
    rules = load_rules("dix-mille(multiples_over_throws=true)")
    advice = advise_throw(rules, (6, 3), 600, HandContext.from_set_aside((6, 6, 6)))
    assert [(a.dice, a.points, a.value, a.then) for a in advice] == [((6,), 600, 1200.0, "bank")]


def test_dice_set_aside_but_not_named_still_count() -> None:
    # Five dice thrown in zilch: one die is set aside. Keeping 1 5 leaves three dice at 450,
    # where banking is best (the thresholds: 450 with three dice).
    advice = advise_throw(load_rules("zilch"), (1, 5, 2, 3, 4), 300)
    assert {a.dice: a.then for a in advice}[(1, 5)] == "bank"


def test_v6_v7_advice_needs_the_dice_set_aside() -> None:
    rules = load_rules("dix-mille(multiples_over_throws=true)")
    with pytest.raises(ZloutchError, match="set aside"):
        advise_throw(rules, (1, 5, 2), 300)
    rules = load_rules("dix-mille(straights_over_throws=true)")
    with pytest.raises(ZloutchError, match="sets aside 2 3"):
        advise_throw(rules, (1, 5, 2), 300, (2, 3))


def test_a_total_past_the_cap_is_banked_not_a_crash() -> None:
    advice = advise_throw(load_rules("zilch"), (1, 5, 2, 3, 4), 50000)
    assert (advice[0].dice, advice[0].value, advice[0].then) == ((1, 5), 50150.0, "bank")


@pytest.mark.parametrize(
    ("spec", "kwargs", "words"),
    [
        ("dix-mille", {"total": 375}, "turn total must be a multiple of 50"),
        ("dix-mille", {"score": 12000}, "T-9"),
        ("dix-mille", {"score": 9525}, "banked score must be a multiple of 50"),
        (
            "dix-mille",
            {"score": 9950},
            "9950 is never written .*multiple of 100, is banked \\(T-6\\)",
        ),
        ("charentaise", {"score": 150}, "T-6"),
        ("dix-mille", {"total": 50000}, "passes the target of 10000: the turn was lost"),
        ("dix-mille", {"score": 9000, "total": 1050}, "on a banked score of 9000 passes"),
        ("dix-mille", {"farkles": 1}, "F-1"),
        ("zilch", {"farkles": 3}, "0 to 2"),
    ],
)
def test_situations_the_rules_cannot_have_are_refused(
    spec: str, kwargs: dict[str, int], words: str
) -> None:
    with pytest.raises(ZloutchError, match=words):
        advise_throw(load_rules(spec), (1, 5, 2, 3, 4), **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "score"),
    [
        ("dix-mille(fresh_farkle_penalty=50)", 450),  # 500, then a blank first throw
        ("dix-mille(farkle_penalty=50)", 450),  # 500, then the farkles' penalty
        ("cinq-mille(target=2050,bank_multiple_of_100,last_thousand)", 1050),  # the cap
    ],
)
def test_a_score_off_the_round_banks_is_a_situation_where_a_rule_writes_it(
    spec: str, score: int
) -> None:
    from zloutch.strategy.turn_solver import check_score

    check_score(load_rules(spec), score)
    with pytest.raises(ZloutchError, match="T-6"):  # the same score without that rule
        check_score(load_rules(spec.split("(")[0] + "(bank_multiple_of_100)"), score)


@pytest.mark.parametrize("spec", ["dix-mille(target=2000)", "charentaise(target=2000)"])
def test_every_score_a_game_writes_is_a_situation(spec: str) -> None:
    """The banked scores refused (T-6: never written where only round totals are banked)
    are none that a game writes: random games, every score checked as it is written."""
    from zloutch.engine import current_player, is_terminal
    from zloutch.engine.record import roll
    from zloutch.strategy.bots import make_bot
    from zloutch.strategy.turn_solver import check_score

    rules = load_rules(spec)
    rng = random.Random(spec)
    bots = [make_bot("random"), make_bot("cautious")]
    seen: set[int] = set()
    for _ in range(6):
        state = new_game(rules, ["Ana", "Bob"])
        while not is_terminal(state):
            seat = current_player(state)
            state = apply(state, roll(state, rng) if seat < 0 else bots[seat].choose(state, rng))
            seen.update(s.score for s in state.sheets if 0 <= s.score < rules.game.target)
    for score in sorted(seen):
        check_score(rules, score)
    assert len(seen) > 5


def test_past_an_exact_target_the_keep_ends_the_turn() -> None:
    # 9500 banked and 400 kept: the 1 lands on 10,000; the straight passes it (T-9).
    advice = advise_throw(load_rules("dix-mille"), (1, 5, 2, 3, 4), 400, score=9500)
    found = {a.dice: (a.value, a.then) for a in advice}
    assert found[(1,)] == (500.0, "bank")
    assert found[(1, 2, 3, 4, 5)] == (0.0, "over")


def zilch_at_300_with_three_dice(farkles: int) -> GameState:
    """A zilch turn at 300 with three dice to throw, after two throws of the engine."""
    rules = load_rules("zilch")
    state = apply(new_game(rules, ["Ana", "Bob"]), Throw())
    state = apply(apply(state, Roll((1, 2, 3, 4, 6, 6))), Keep((1,)))
    state = apply(apply(apply(state, Throw()), Roll((1, 1, 2, 3, 4))), Keep((1, 1)))
    assert (state.phase, state.turn.total, state.in_hand) == (Phase.DECIDE, 300, 3)
    sheet = replace(state.sheets[0], farkles_in_row=farkles)
    return replace(state, sheets=(sheet, *state.sheets[1:]))


def test_f1_expert_banks_earlier_after_two_farkles_in_a_row() -> None:
    # F-1: a third farkle costs 500, so at 300 with three dice the expert throws with no
    # farkle behind it and banks with two.
    bot, rng = ExpertBot(), random.Random(0)
    fresh, risky = zilch_at_300_with_three_dice(0), zilch_at_300_with_three_dice(2)
    assert bot.choose(fresh, rng) == Throw()
    assert bot.choose(risky, rng) == Bank()
    advisor = bot.advisor(fresh.rules)
    assert advisor.advise(risky).objective == LONG_RUN
    average = advisor.average_reward()
    assert advisor.solution(risky) is average.solutions[2]
    assert advisor.solution(fresh) is average.solutions[0]


def test_f1_is_left_out_where_the_sheet_matters() -> None:
    # With an exact target the score changes the turn: the turn is valued alone.
    rules = load_rules("zilch(exact_target=true)")
    state = new_game(rules, ["Ana", "Bob"])
    advisor = TurnAdvisor(rules)
    assert advisor.advise(state).objective == POINTS
    assert advisor._average is None


# ---------------------------------------------------------------------------- advice = engine


def taken_back_1000_and_a_1_kept() -> tuple[GameState, GameState, GameState]:
    """dix-mille(take_back_counts_for_entry=false): Ana banks 1000 with two dice left, Bob
    (not entered) takes it back, throws 1 4 and keeps the 1: 1100, of which 100 his own.
    The offer, the throw on the table and the turn after the keep."""
    rules = load_rules("dix-mille(take_back_counts_for_entry=false)")
    state = new_game(rules, ["Ana", "Bob"])
    for action in (Throw(), Roll((1, 1, 1, 2, 3)), Keep((1, 1, 1)), Bank()):
        state = apply(state, action)
    offer = state
    thrown = apply(apply(offer, Take()), Roll((1, 4)))
    return offer, thrown, apply(thrown, Keep((1,)))


def test_g8_inherited_points_that_do_not_count_for_entry_are_not_banked_by_the_advice() -> None:
    # The engine refuses the bank at 1100 (T-7: 100 of Bob's own, the entry is 500); the
    # advice must value the keep as the turn that can only throw, not as a bank of 1100.
    offer, thrown, kept = taken_back_1000_and_a_1_kept()
    assert (kept.turn.total, kept.turn.inherited) == (1100, 1000)
    assert legal_actions(kept) == (Throw(),)
    advisor = TurnAdvisor(offer.rules)
    keep_value = dict(advisor.advise(thrown).values)[Keep((1,))]
    (best, after_value), *_ = advisor.advise(kept).values
    assert best == Throw()
    assert keep_value == pytest.approx(after_value, abs=1e-9)
    assert keep_value < 1100
    # The take-back is worth what its throw is worth, keeps valued as the engine plays them.
    values = dict(advisor.advise(offer).values)
    taken = apply(offer, Take())
    expected = 0.0
    for roll, p in chance_outcomes(taken):
        after = apply(taken, roll)
        if after.phase is Phase.KEEP:
            expected += float(p) * advisor.advise(after).values[0][1]
    assert values[Take()] == pytest.approx(expected, abs=1e-9)


ADVISED = (
    "dix-mille",
    "dix-mille(take_back_counts_for_entry=false)",
    "zilch",
    "greed",
    "farkle-minimal(joker,confirmation)",
)


def check_advice(state: GameState, advisor: TurnAdvisor) -> None:
    """Every action the advisor ranks is legal, and what a keep is worth is what the turn
    after it is worth, as the engine plays it: a bank counts only where it is allowed."""
    legal = legal_actions(state)
    advice = advisor.advise(state)
    assert [a for a, _ in advice.values] and all(a in legal for a, _ in advice.values)
    assert sorted(map(str, legal)) == sorted(str(a) for a, _ in advice.values)
    t = state.turn
    if state.phase is Phase.DECIDE and not t.jokers:
        solution = advisor.solution(state)
        if t.total < solution.rows * solution.unit:
            assert solution.can_bank(t.total, advisor.hand(state)) == (Bank() in legal)
    if state.phase is Phase.KEEP:
        for action, value in advice.values:
            after = apply(state, action)
            if after.phase is Phase.DECIDE and after.turn.player == t.player:
                best = advisor.advise(after).values[0][1]
                assert value == pytest.approx(best, rel=1e-12, abs=1e-9), (action, state)


def random_action(state: GameState, rng: random.Random) -> Action:
    """Any legal action; a legal bank half of the time."""
    actions = legal_actions(state)
    if Bank() in actions and rng.random() < 0.5:
        return Bank()
    return rng.choice([a for a in actions if a != Bank()] or list(actions))


def advised_states(spec: str, states: int, seed: int) -> None:
    rules = load_rules(spec)
    advisor = TurnAdvisor(rules)
    rng = random.Random(seed)
    seen = 0
    while seen < states:
        state = new_game(rules, ["Ana", "Bob"])
        while state.phase is not Phase.OVER and seen < states:
            if state.phase is not Phase.ROLL:
                check_advice(state, advisor)
                seen += 1
            state = apply(state, random_action(state, rng))


@pytest.mark.default_cases(2)
@pytest.mark.parametrize("spec", ADVISED)
def test_the_advice_ranks_only_what_the_engine_allows(spec: str) -> None:
    advised_states(spec, 150, 11)


@pytest.mark.slow
@pytest.mark.parametrize("spec", ADVISED)
def test_the_advice_ranks_only_what_the_engine_allows_long(spec: str) -> None:
    advised_states(spec, 1500, 12)


def test_a_fresh_start_counts_the_penalty_for_a_blank_first_throw() -> None:
    """fresh_farkle_penalty: against a take-back (G-8) a fresh start is worth its turn less
    the penalty times the chance that a throw of every die scores nothing; the take-back's
    value does not change (its throw is not a first throw of every die)."""
    from zloutch.engine.actions import Fresh
    from zloutch.strategy.turn_solver import farkle_probabilities

    values = []
    for spec in ("dix-mille", "dix-mille(fresh_farkle_penalty=2000)"):
        rules = load_rules(spec)
        state = new_game(rules, ["Ana", "Bob"])
        for action in (Throw(), Roll((1, 1, 1, 2, 3)), Keep((1, 1, 1)), Bank()):
            state = apply(state, action)
        values.append(dict(TurnAdvisor(rules).advise(state).values))
    plain, charged = values
    blank = float(farkle_probabilities(load_rules("dix-mille"))[5])
    assert blank == pytest.approx(25 / 324)  # 2 3 4 6 with no triple, on five dice
    assert charged[Take()] == pytest.approx(plain[Take()], abs=1e-9)
    assert charged[Fresh()] == pytest.approx(plain[Fresh()] - 2000 * blank, abs=1e-9)
