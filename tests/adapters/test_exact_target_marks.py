"""Every front end marks a keep that passes an exact target and a take-over certain to bust
(T-9), with the engine's facts (``keep_passes``, ``takeover_busts``)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.adapters.tui.views import keeps_view
from zloutch.adapters.web.protocol import state_json
from zloutch.app.dice import ScriptedDice
from zloutch.app.session import Session
from zloutch.engine import Throw
from zloutch.server import Accepted, MemoryStore, NewGame, Rooms, SeatSpec

RULES = "dix-mille(target=1000)"


def test_the_line_mode_marks_the_keep_that_passes(tmp_path: Path) -> None:
    dice = tmp_path / "d.txt"
    dice.write_text("1 1 1 5 6\n")
    args = ["play", "--plain", "-r", RULES, "-p", "Ana,Bob", "--dice", str(dice), "--pace", "0"]
    result = CliRunner().invoke(app, args, input="throw\nquit\n")
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("Keep one of"))
    assert "keep 1 1 1 5 (1050, passes 1000: the turn is lost)" in line
    # the keep that lands on the target, to bank for the win, first and said so
    assert line.startswith("Keep one of: keep 1 1 1 (1000, lands on 1000: bank it to win),")


def test_the_terminal_app_marks_the_keep_that_passes() -> None:
    session = Session.new(RULES, "Ana,Bob", dice=ScriptedDice.from_text("1 1 1 5 6", "test"))
    session.act(Throw())
    session.roll()
    console = Console(width=200, file=io.StringIO(), record=True)
    console.print(keeps_view(session, ()))
    lines = console.export_text().splitlines()
    passing = next(i for i, x in enumerate(lines) if x.split()[:4] == ["1", "1", "1", "5"])
    assert "passes 1000: the turn is lost" in lines[passing + 1]  # said under the keep
    lands = next(i for i, x in enumerate(lines) if x.split()[:4] == ["1", "1", "1", "1000"])
    assert not any("passes" in x for x in lines[lands : lands + 2])


def test_the_web_state_marks_keeps_and_offers() -> None:
    rooms = Rooms(MemoryStore())
    people = (SeatSpec("Ana"), SeatSpec("Bob"))
    created = rooms.create(
        NewGame(people, rules="dix-mille(target=1500,bump=off)", table_mode=True)
    )
    game, tokens = created.game_id, {s: rooms.join(c).token for s, c in created.invites}

    def play(seat: int, action: str) -> None:
        room = rooms.room(game)
        answer = rooms.intent(game, tokens[seat], room.version, f"m{room.version}", action)
        assert isinstance(answer, Accepted), answer

    play(0, "throw")
    play(0, "roll 1 1 1 5 6")
    state = state_json(rooms.room(game))
    assert state["target"] == 1500 and state["exact_target"] is True
    passes = {" ".join(map(str, k["dice"])): k["passes"] for k in state["keeps"]}
    assert passes["1 1 1 5"] is False  # 1050 of 1500
    play(0, "keep 1 1 1")
    play(0, "bank")  # Ana 1000, two dice left: Bob is offered 1000 with two dice
    offer = state_json(rooms.room(game))["offer"]
    assert offer is not None and offer["busts"] is False  # 0 + 1000 is below 1500
    play(1, "fresh")
    play(1, "roll 1 1 1 2 3")
    play(1, "keep 1 1 1")
    play(1, "bank")  # Bob 1000 (no bump): Ana, at 1000, is offered 1000 more
    offer = state_json(rooms.room(game))["offer"]
    assert offer is not None and offer["busts"] is True


def test_a_full_hand_that_lands_on_the_target_is_marked_as_lost(tmp_path: Path) -> None:
    """At 500 of 1000, 1 1 3 3 3 kept whole makes 1000 with a full hand, which must be
    thrown again (T-5): any score then passes the target. It was listed with no mark, where
    keeps that pass it are marked; the engine says it (keep_strands) for every front end."""
    from zloutch.engine import Roll, apply, new_game
    from zloutch.engine.game import keep_passes, keep_strands
    from zloutch.engine.state import Level
    from zloutch.rules import load_rules, score_throw

    rules = load_rules(RULES)
    state = new_game(rules, ["Ana", "Bob"])
    from dataclasses import replace

    state = replace(state, sheets=(replace(state.sheets[0], levels=(Level(500),)), state.sheets[1]))
    state = apply(apply(state, Throw()), Roll((1, 1, 3, 3, 3)))
    marks = {
        k.dice: (keep_strands(state, k), keep_passes(state, k))
        for k in score_throw(rules, state.turn.throw).keeps
    }
    assert marks[(1, 1, 3, 3, 3)] == (True, False)
    assert not any(strands for dice, (strands, _) in marks.items() if dice != (1, 1, 3, 3, 3))
    # the line mode says it: Ana banks 500 first (5 5 5), Bob farkles, Ana throws again
    dice = tmp_path / "d.txt"
    dice.write_text("5 5 5 2 3\n2 3 4 6 6\n1 1 3 3 3\n")
    args = ["play", "--plain", "-r", RULES, "-p", "Ana,Bob", "--dice", str(dice), "--pace", "0"]
    moves = "throw\nkeep 5 5 5\nbank\nthrow\nthrow\nquit\n"
    result = CliRunner().invoke(app, args, input=moves)
    assert result.exit_code == 0, result.output
    line = [x for x in result.output.splitlines() if x.startswith("Keep one of")][-1]
    assert "keep 1 1 3 3 3 (500, lands on 1000 with dice to throw again" in line, line
