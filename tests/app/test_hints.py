"""The hint, shared by the terminal app and the server: one advisor per rule set."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.table import Table
from rich.text import Text

from zloutch.adapters.plain import hint_lines
from zloutch.app.dice import ScriptedDice
from zloutch.app.hints import (
    SOLVING_NOTE,
    SharedAdvisors,
    hint_digits,
    hint_heading,
    shown_value,
)
from zloutch.app.match import Need
from zloutch.app.session import Session
from zloutch.app.shown import percent
from zloutch.engine import Bank, Throw, new_game, step
from zloutch.rules import load_rules
from zloutch.strategy.expert import LONG_RUN, POINTS, WIN_PROBABILITY, Advice


def test_the_servers_hint_is_the_terminals() -> None:
    session = Session.new("cinq-mille", "Ana,Bob")
    shared = SharedAdvisors()
    assert shared.advice(session.state) == session.advice()
    advice = shared.advice(session.state)
    assert advice is not None and advice.values[0][0] == Throw()
    assert advice.values[0][1] > 0


def test_one_advisor_per_rule_set_and_none_while_the_dice_roll() -> None:
    shared = SharedAdvisors(size=2)
    rules = load_rules("zilch")
    state = new_game(rules, ("Ana", "Bob"))
    shared.advice(state)
    shared.advice(new_game(rules, ("Cy", "Di")))
    assert len(shared._advisors) == 1
    rolling, _ = step(state, Throw())
    assert shared.advice(rolling) is None
    for spec in ("greed", "farkle"):
        shared.advice(new_game(load_rules(spec), ("Ana", "Bob")))
    assert len(shared._advisors) == 2  # the least recently asked went first
    assert (rules, True) not in shared._advisors


def play_bots(session: Session) -> None:
    """Bots' moves and drawn dice until a person is to move or the game is over."""
    while session.need() in (Need.BOT, Need.DICE):
        if session.need() is Need.BOT:
            session.bot_step()
        else:
            session.roll()


def notes(session: Session) -> list[str]:
    return [entry.text for entry in session.log if entry.kind == "note"]


@pytest.mark.slow  # a process of its own solves the game (Numba's kernels loaded there)
def test_a_terminal_game_solves_in_the_background_and_its_hint_and_bot_turn_to_wins() -> None:
    """``Session.solve_in_background`` (what ``zloutch play`` does at a terminal): the
    optimal bot asks for its game at once and says it plays turn-optimal until it is solved;
    the hint is in points meanwhile and says so; once the table is in the cache the hint is
    in the chance to win and the bot says it plays to win."""
    spec = "farkle-minimal(target=500)"
    dice = ScriptedDice.from_text("2 2 3 4 6 6\n", "test dice")  # the bot's throw: a farkle
    session = Session.new(spec, "bot:best,Ana", dice=dice)
    assert not session.solving()  # nothing asked for it: no background solve by default
    session.solve_in_background()
    assert session.solving()
    play_bots(session)
    assert session.need() is Need.PERSON  # Ana, after the bot's farkle
    assert any("solving it now, in the background" in n for n in notes(session)), notes(session)
    hint = hint_lines(session)
    assert hint[0] == "Hint for Ana, expected points banked by this turn:"
    assert hint[-1] == f"({SOLVING_NOTE})"
    deadline = time.monotonic() + 120
    while session.solving() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not session.solving(), "the background solve did not finish in 120 s"
    after = session.advice()
    assert after is not None and after.objective == "win probability"
    assert hint_lines(session)[0] == "Hint for Ana, the chance to win after each move:"
    # The bot's next move reads the table and says so (its move at a fresh game's start).
    bot = session.bots[0]
    bot.choose(new_game(load_rules(spec), ["bot:best", "Ana"]), random.Random(0))
    assert "is solved: playing to win" in getattr(bot, "note", "")
    session.close()


def test_closing_a_session_stops_its_background_solve() -> None:
    """A terminal game that quits does not wait for a solve nobody will read."""
    session = Session.new("farkle", "Ana,Bob")
    session.solve_in_background()
    assert session.advice() is not None and session.solving()
    begin = time.monotonic()
    session.close()
    assert time.monotonic() - begin < 5
    deadline = time.monotonic() + 10
    while session.solving() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not session.solving()


def test_a_hint_in_points_says_nothing_of_a_solve_nobody_asked_for() -> None:
    session = Session.new("dix-mille", "Ana,Bob")
    lines = hint_lines(session)
    assert lines[0] == "Hint for Ana, expected points banked by this turn:"
    assert not any("background" in line for line in lines)


@pytest.mark.default_cases(1)
@pytest.mark.parametrize("spec", ["farkle-minimal(target=500)", "farkle"])
def test_closing_the_solves_leaves_no_process_thread_or_semaphore(spec: str) -> None:
    """After ``close`` (a server that stops, a game that quits), once a table is solved or
    while one is: the worker process and the pool's manager thread are gone, and so are the
    pool's semaphores. A close that did not wait left the manager thread joining the worker
    and its queues alive; a server's exit (the signal raised again by uvicorn) skips the
    interpreter's clean-up, and multiprocessing reported 5 semaphores leaked."""
    import gc
    import multiprocessing.synchronize
    import threading

    from zloutch.app.hints import BackgroundSolves

    def semaphores() -> set[int]:
        gc.collect()
        return {
            id(o) for o in gc.get_objects() if isinstance(o, multiprocessing.synchronize.SemLock)
        }

    before = semaphores()  # what other tests of this worker process left is not this one's
    solves = BackgroundSolves()
    rules = load_rules(spec)
    solves.start(rules)
    deadline = time.monotonic() + 60
    while spec != "farkle" and not solves.ready(rules):  # farkle: stopped while it solves
        assert time.monotonic() < deadline, f"{spec} was not solved in 60 s"
        time.sleep(0.1)
    time.sleep(0.5)
    workers = list(solves._pool._processes.values())  # type: ignore[union-attr]
    assert workers and all(w.is_alive() for w in workers)
    solves.close(kill=True)
    assert not any(w.is_alive() for w in workers)
    assert not any(type(t).__name__ == "_ExecutorManagerThread" for t in threading.enumerate())
    assert semaphores() <= before
    solves.start(rules)  # closed: nothing starts again
    assert not solves.running(rules)


@given(
    st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=6),
    st.sampled_from([WIN_PROBABILITY, POINTS, LONG_RUN]),
)
def test_a_hint_shows_the_best_apart_from_the_next_where_three_decimals_can(
    values: list[float], objective: str
) -> None:
    """One decimal, or as many as the best needs to stand apart from the next, up to
    three: "50.0%" twice said nothing of why the first was best."""
    ordered = sorted(values, reverse=True)
    scale = 1 if objective == WIN_PROBABILITY else 3000  # a chance, or points of a turn
    advice = Advice(tuple((Throw(), v * scale) for v in ordered), objective)
    digits = hint_digits(advice)
    shown = [shown_value(advice, v * scale, digits) for v in ordered]
    assert 1 <= digits <= 3
    if len(shown) > 1 and shown[0] == shown[1]:  # even three decimals cannot part them: one
        assert digits == 1 and shown_value(advice, ordered[0] * scale, 3) == shown_value(
            advice, ordered[1] * scale, 3
        )
    elif len(shown) > 1 and digits > 1:  # no more decimals than needed
        fewer = [shown_value(advice, v * scale, digits - 1) for v in ordered[:2]]
        assert fewer[0] == fewer[1]


def test_a_hint_of_two_close_moves_says_which_is_best() -> None:
    advice = Advice(((Throw(), 0.50012), (Bank(), 0.49996)), WIN_PROBABILITY)
    assert [shown_value(advice, v) for _, v in advice.values] == ["50.01%", "50.00%"]
    level = Advice(((Throw(), 0.5), (Bank(), 0.5)), WIN_PROBABILITY)
    assert [shown_value(level, v) for _, v in level.values] == ["50.0%", "50.0%"]  # a tie
    assert shown_value(Advice(((Throw(), 431.26),), POINTS), 431.26) == "431.3"
    heading = hint_heading(Advice(((Throw(), 431.26),), LONG_RUN), "Ana")
    assert heading.startswith("Hint for Ana, each move's worth in long-run points per turn")


@pytest.mark.parametrize(
    ("share", "digits", "shown"),
    [
        (1.0, 1, "100.0%"),  # a certain win, and only it, says 100
        (0.9999949, 1, ">99.9%"),
        (0.9999949, 3, "99.999%"),
        (0.99999951, 3, ">99.999%"),
        (0.5, 1, "50.0%"),
        (0.0, 1, "0.0%"),
        (0.0004, 1, "<0.1%"),
        (0.00004, 2, "<0.01%"),
        (0.998, 0, ">99%"),
    ],
)
def test_a_chance_is_never_rounded_to_a_certainty_it_is_not(
    share: float, digits: int, shown: str
) -> None:
    assert percent(share, digits) == shown


def at_9700_with(faces: tuple[int, ...]) -> Session:
    """Ana to keep at 9700 of dix-mille's exact 10,000, ``faces`` thrown."""
    from dataclasses import replace

    from zloutch.engine import Roll
    from zloutch.engine.game import apply_legal
    from zloutch.engine.state import Level

    session = Session.new("dix-mille", "Ana,Bob")
    state = session.state
    sheet = replace(state.sheets[0], levels=(Level(9700),))
    state = replace(state, sheets=(sheet, *state.sheets[1:]))
    session.match.state = apply_legal(apply_legal(state, Throw()), Roll(faces))
    return session


def test_a_keep_that_passes_the_exact_target_is_marked_in_the_hint() -> None:
    """At 9700, keeping 1 2 3 4 5 (1500) passes 10,000 and loses the turn (T-9): the hint
    says so beside it, as the keep list does, whatever its value (a chance to win near 100%
    where the opponent is far behind); the other keeps carry no mark."""
    from zloutch.adapters.tui.widgets import advice_table
    from zloutch.app.session import action_warning

    session = at_9700_with((1, 2, 3, 4, 5))
    lines = hint_lines(session)
    passing = [line for line in lines if line.strip().startswith("keep 1 2 3 4 5:")]
    assert passing and passing[0].endswith("(passes 10000: the turn is lost)")
    others = [line for line in lines if line.strip().startswith("keep ") and line not in passing]
    assert others and not any("passes" in line for line in others)
    advice = session.advice()
    assert advice is not None
    warnings = [action_warning(session.state, a) for a, _ in advice.values]
    assert sum(1 for w in warnings if w) == 1
    drawn = advice_table(advice, "Ana", warnings=warnings)
    (table,) = [r for r in drawn.renderables if isinstance(r, Table)]  # type: ignore[attr-defined]
    marks = table.columns[2]._cells
    assert [m for m, w in zip(marks, warnings, strict=True) if w] == [m for m in marks if "!" in m]
    said = [str(r) for r in drawn.renderables if isinstance(r, Text)]
    assert "! passes 10000: the turn is lost (T-9)" in said
