"""The end screen's review: each player's accuracy and biggest mistakes."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from textual.widgets import Button, Static
from tui_helpers import SIZE, keep, make_app, press, run

from zloutch.adapters.tui import ZloutchApp
from zloutch.adapters.tui.review_screen import ReviewScreen, grade
from zloutch.adapters.tui.screens import EndScreen
from zloutch.app.review import POINTS, WIN
from zloutch.app.store import save_game_solution
from zloutch.engine.record import Record
from zloutch.rules import load_rules
from zloutch.strategy.game_solver import solve_game

# The game solver's Numba kernels compiled once for a fresh clone, by the worker that runs
# the simulator's (about 5 s of CPU each time a worker compiles them): tests/conftest.py.
pytestmark = pytest.mark.xdist_group("sim-kernels")

THROWS = ";".join(
    [
        "2 3 4 6 6",  # Ana: nothing
        "1 2 3 3 4",  # the cautious bot keeps the 1...
        "5 5 5 2",  # ... and 5 5 5: 600, banked
        "1 1 1 2 3",  # Ana: 1 1 1 = 1000, banked: exactly the target
    ]
)


def screen_text(app: ZloutchApp) -> str:
    console = Console(width=160, file=io.StringIO(), record=True)
    for widget in app.screen.query(Static):
        console.print(widget.content)
    return console.export_text()


@pytest.mark.slow  # a long app run (2.5 to 7 s): .ci/run runs it with -m slow
def test_review_from_the_end_screen_shows_accuracy_and_mistakes() -> None:
    app = make_app("dix-mille(target=1000)", "Ana,bot:cautious", THROWS)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")  # Ana farkles; the bot plays its turn
            await press(pilot, "t")
            await keep(pilot, "1 1 1")
            await press(pilot, "b")
            assert isinstance(app.screen, EndScreen)
            assert app.screen.query_one("#review", Button)
            await press(pilot, "r")
            assert isinstance(app.screen, ReviewScreen)
            await app.workers.wait_for_complete()
            await pilot.pause()
            review = app.screen.review
            assert review is not None and review.objective == POINTS
            assert [s.player for s in review.summaries] == ["Ana", "bot:cautious"]
            text = screen_text(app)
            assert "Graded in expected points" in text
            assert "Players" in text and "Accuracy" in text and "Ana" in text
            assert ("Biggest mistakes" in text) == any(s.mistakes for s in review.summaries)
            await press(pilot, "escape")
            assert isinstance(app.screen, EndScreen)

    run(play)


def test_the_review_uses_a_solved_game_from_the_cache() -> None:
    spec = "farkle-minimal(target=500)"
    record = Record(spec, ("Ana", "Bob"), ("throw", "roll 1 2 3 4 6 6", "keep 1", "bank"))
    assert grade(record).objective == POINTS
    save_game_solution(solve_game(load_rules(spec)))
    review = grade(record)
    assert review.objective == WIN
    assert review.summaries[0].mistakes[0].chosen.action == "bank"


def test_the_end_screen_without_a_record_has_no_review() -> None:
    app = make_app("dix-mille(target=1000)", "Ana,Bob")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            assert app.session is not None
            await app.push_screen(EndScreen(app.session.state))
            assert not app.screen.query("#review")
            await press(pilot, "r")
            assert isinstance(app.screen, EndScreen)

    run(play)


def test_the_players_table_keeps_its_headers_at_80_columns() -> None:
    """In the review at 80x24 (72 columns inside the frame) Rich cut the headers to
    "Decisi…" and "Accura…"; the numbers' headers keep their width, a long name folds."""
    from zloutch.console.review import summary_table

    spec = "farkle-minimal(target=500)"
    actions = ("throw", "roll 1 2 3 4 6 6", "keep 1", "bank", "throw", "roll 1 5 2 3 4 6")
    review = grade(Record(spec, ("Anastasia", "bot:cautious"), actions))
    console = Console(width=72, file=io.StringIO(), record=True)
    console.print(summary_table(review))
    text = console.export_text()
    for header in ("Decisions", "Accurate", "Accuracy", "Cost", "Average", "Forced"):
        assert header in text, text
    assert "…" not in text and all(len(line) <= 72 for line in text.splitlines())


def test_the_review_at_80x24_holds_the_players_table_of_four_whole() -> None:
    """A game of four reviewed at 80x24: the frame's inside holds the players' table, its
    last column and its names whole (at 95% wide it cut "Forced" and folded "bot:medium")."""
    import random

    from textual.containers import VerticalScroll

    from zloutch.console.review import summary_table
    from zloutch.engine import CHANCE, apply, current_player, is_terminal
    from zloutch.engine.record import roll
    from zloutch.strategy.bots import make_bot

    spec = "farkle(target=1000)"
    names = ("Player", "bot:medium", "Player 3", "Player 4")
    record = Record(spec, names)
    state, rng = record.start(), random.Random(3)
    bots = [make_bot(b) for b in ("random", "medium", "random", "easy")]
    played = []  # a whole game, its mistakes more than the frame's height: a scroll bar
    while not is_terminal(state):
        seat = current_player(state)
        played.append(roll(state, rng) if seat == CHANCE else bots[seat].choose(state, rng))
        state = apply(state, played[-1])
    record = record.extended(played)
    app = make_app(spec, ",".join(names))

    async def look() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await app.push_screen(ReviewScreen(record))
            await app.workers.wait_for_complete()
            await pilot.pause()
            scroll = app.screen.query_one(VerticalScroll)
            assert scroll.max_scroll_y > 0  # the scroll bar is there
            width = scroll.scrollable_content_region.width
            assert width >= 72, width
            review = app.screen.review
            assert review is not None
            console = Console(width=width, file=io.StringIO(), record=True)
            console.print(summary_table(review))
            text = console.export_text()
            assert "Forced" in text and "bot:medium " in text, text

    run(look)


@pytest.mark.parametrize("width", [72, 80, 120])
def test_the_decisions_read_whole_at_any_width_with_a_long_name(width: int) -> None:
    """A long name took the room of the situation and the moves ("Situ…", "Play…") and cut
    the cost off; folded, a decision took four or five lines of broken phrases. Under 110
    columns each decision is a block of three lines (the name, the situation and the moves
    whole); wider, a table whose headers stay whole."""
    from zloutch.console.review import NARROW, decisions_table

    spec = "farkle-minimal(target=500)"
    actions = ("throw", "roll 1 2 3 4 6 6", "keep 1", "throw", "roll 1 5 2 3 4")
    name = "Anastasia-Konstantinopolous"
    review = grade(Record(spec, (name, "bot:cautious"), actions))
    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(decisions_table(review, review.decisions))
    text = console.export_text()
    assert "…" not in text and all(len(line) <= width for line in text.splitlines())
    assert "forced" in text and "0.0" in text  # every cost whole
    if width >= NARROW:
        for header in ("Player", "Situation", "Played", "Best", "Cost"):
            assert header in text, text
        return
    lines = [line.strip() for line in text.splitlines()]
    assert f"3 turn 1, {name}, score 0: forced" in lines, text
    assert "threw 1 2 3 4 6 6" in lines and "played keep 1 (100): the best" in lines, text
    assert f"4 turn 1, {name}, score 0: cost 0.0" in lines, text


def test_the_review_names_a_solve_that_the_solver_takes() -> None:
    """dix-mille's note named `solve --game --rules 'dix-mille(target=1000)'`, which the
    solver refuses (its sheet): the command solves the sheet-blind model it grades with."""
    from zloutch.strategy.game_solver import unsupported_reason

    review = grade(Record("dix-mille(target=1000)", ("Ana", "bot:strong"), ("throw",)))
    model = "dix-mille(bump=off,take_back=false,target=1000,ticks_to_cross=0)"
    assert f"(solve it with: zloutch solve --game --rules '{model}')" in review.note
    from zloutch.rules import load_rules

    assert unsupported_reason(load_rules(model)) is None
