"""A hint in points where a bank reaches a target to reach: the values count the turn, so
the hint says what they leave out, and puts first a bank that wins at once."""

from __future__ import annotations

from dataclasses import replace

from zloutch.app.hints import WINS_NOTE, advice_of
from zloutch.engine import Bank, Keep, Roll, Throw, apply, new_game
from zloutch.engine.state import GameState, Level
from zloutch.rules import load_rules
from zloutch.strategy.expert import POINTS, TurnAdvisor


def after_keep(spec: str, score: int, throw: tuple[int, ...], keep: tuple[int, ...]) -> GameState:
    rules = load_rules(spec)
    state = new_game(rules, ["Ana", "Bob"])
    sheet = replace(state.sheets[0], levels=(Level(score),))
    state = replace(state, sheets=(sheet, *state.sheets[1:]))
    return apply(apply(apply(state, Throw()), Roll(throw)), Keep(keep))


def test_a_bank_that_wins_at_once_comes_first_and_says_why() -> None:
    # cinq-mille to 2,000 at 1,800: 1 1 kept (200, three dice left) wins; the turn's points
    # alone would throw on
    state = after_keep("cinq-mille(target=2000)", 1800, (1, 1, 2, 3, 4), (1, 1))
    advisor = TurnAdvisor(state.rules)
    plain = advisor.advise(state)
    advice = advice_of(advisor, state)
    assert advice is not None and advice.objective == POINTS
    assert advice.best == Bank() and advice.note == WINS_NOTE
    assert dict(advice.values) == dict(plain.values)  # the same values, the bank first
    assert plain.best != Bank()  # what the hint said before: throw on


def test_a_bank_that_starts_the_last_turns_is_noted_and_left_in_place() -> None:
    state = after_keep("farkle(target=2000)", 1700, (1, 1, 1, 2, 3, 4), (1, 1, 1))
    advisor = TurnAdvisor(state.rules)
    advice = advice_of(advisor, state)
    assert advice is not None and advice.note is not None
    assert "starts the last turns (F-4)" in advice.note
    assert advice.values == advisor.advise(state).values


def test_no_note_far_from_the_target_nor_under_an_exact_one() -> None:
    far = after_keep("zilch(target=2000)", 0, (1, 1, 1, 2, 3, 4), (1, 1, 1))
    assert (advice_of(TurnAdvisor(far.rules), far) or far).note is None  # type: ignore[union-attr]
    exact = after_keep("dix-mille(target=2000,entry=0)", 1000, (1, 1, 1, 2, 3), (1, 1, 1))
    advice = advice_of(TurnAdvisor(exact.rules), exact)
    assert advice is not None and advice.note is None and advice.best == Bank()


def last_turn(bob: int, others: tuple[int, int] = (1500, 900)) -> GameState:
    """farkle to 1,500, three players: Ana reached it (the last turns, F-4); Bob, the last to
    play, at ``bob``, has kept 5 5 5 1 (600, two dice left)."""
    from zloutch.engine.state import FinalRoundState

    rules = load_rules("farkle(target=1500)")
    state = new_game(rules, ["Ana", "Cy", "Bob"])
    scores = (*others, bob)
    sheets = tuple(
        replace(s, levels=(Level(v),)) for s, v in zip(state.sheets, scores, strict=True)
    )
    state = replace(
        state,
        sheets=sheets,
        final=FinalRoundState(holder=0, stop_before=0),
        turn=replace(state.turn, player=2),
    )
    return apply(apply(apply(state, Throw()), Roll((1, 2, 3, 5, 5, 5))), Keep((1, 5, 5, 5)))


def test_the_last_bank_of_the_last_turns_that_wins_comes_first() -> None:
    state = last_turn(1000)  # 1000 + 600 = 1600 > 1500: the game is won
    advice = advice_of(TurnAdvisor(state.rules), state)
    assert advice is not None and advice.best == Bank() and advice.note == WINS_NOTE
    assert apply(state, Bank()).winners == (2,)


def test_a_last_turn_bank_that_cannot_win_is_said_so_and_the_throw_comes_first() -> None:
    state = last_turn(800)  # 800 + 600 = 1400 < 1500
    advice = advice_of(TurnAdvisor(state.rules), state)
    assert advice is not None and advice.best == Throw()
    assert advice.note is not None and "at 1400, below 1500: it cannot win" in advice.note


def test_a_keep_after_which_banking_wins_comes_first() -> None:
    # cinq-mille to 1,200 at 1,000: keep 1 1 (200) and bank wins; the turn's points prefer 1
    rules = load_rules("cinq-mille(target=1200)")
    state = new_game(rules, ["Ana", "Bob"])
    state = replace(
        state, sheets=(replace(state.sheets[0], levels=(Level(1000),)), state.sheets[1])
    )
    state = apply(apply(state, Throw()), Roll((1, 1, 2, 3, 4)))
    advisor = TurnAdvisor(rules)
    assert advisor.advise(state).best == Keep((1,))  # what the hint said before
    advice = advice_of(advisor, state)
    assert advice is not None and advice.best == Keep((1, 1))
    assert advice.note is not None and advice.note.startswith("keep 1 1, then bank: it wins")
