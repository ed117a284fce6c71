"""Whole games in the full-screen app, with scripted dice, through Textual's pilot.

Rule ids in the names say which rule each game shows on the table.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from textual.widget import Widget
from textual.widgets import Input, RichLog, Static
from tui_helpers import SIZE, as_text, game_screen, keep, levels, make_app, press, run

from zloutch.adapters.tui import AppConfig, ZloutchApp
from zloutch.adapters.tui.newgame import NewGameScreen
from zloutch.adapters.tui.screens import EndScreen, HelpScreen, QuitScreen, SaveScreen
from zloutch.adapters.tui.table import GameScreen
from zloutch.adapters.tui.widgets import Die, HintPanel
from zloutch.app.dice import ScriptedDice
from zloutch.app.match import Need
from zloutch.app.session import Session
from zloutch.console.render import option_meaning, ranking_rows
from zloutch.engine import Phase, Throw
from zloutch.engine.record import load_record, sheet_json
from zloutch.rules import OPTIONS, load_rules
from zloutch.strategy.expert import TurnAdvisor

SHORT = "dix-mille(target=1000)"
FARKLE = "2 3 4 6 6"


def log_lines(app: ZloutchApp) -> list[str]:
    assert app.session is not None
    return [entry.text for entry in app.session.log]


def test_person_against_a_bot_to_the_end_screen() -> None:
    throws = ";".join(
        [
            FARKLE,  # Ana: nothing
            "1 2 3 3 4",  # the cautious bot keeps the 1...
            "5 5 5 2",  # ... and 5 5 5: 600, banked (T-7: 500 to enter)
            "1 1 1 2 3",  # Ana: 1 1 1 = 1000, banked: exactly the target (G-2)
        ]
    )
    app = make_app(SHORT, "Ana,bot:cautious", throws)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            assert app.session is not None
            assert app.session.state.turn.player == 0  # the bot has played its turn
            assert levels(app, 1) == [(600, False, 0)]
            await press(pilot, "t")
            await keep(pilot, "1 1 1")
            await press(pilot, "b")
            assert isinstance(app.screen, EndScreen)
            assert [(r[0], r[1], r[3], r[4]) for r in ranking_rows(app.session.state)] == [
                (1, "Ana", 1, 0),
                (2, "bot:cautious", 0, 1),
            ]
            assert "Ana won" in log_lines(app)

    run(play)


def test_g8_take_back_of_600_with_two_dice_scores_700() -> None:
    throws = "6 6 6 4 2;1 4"
    app = make_app("dix-mille", "Ana,Bob", throws)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await keep(pilot, "6 6 6")
            await press(pilot, "b")
            assert app.session is not None
            assert app.session.state.offer is not None
            screen = game_screen(pilot)
            assert not screen.query_one("#do-take").disabled
            # a throw answers it as fresh does, and says so; the status does not word the
            # fresh start as the turn's (turn total 0, every die in hand)
            assert screen.query_one("#do-fresh").display
            throw = screen.query_one("#do-throw")
            assert not throw.disabled and "starts fresh" in str(throw.tooltip)
            status = str(screen.query_one("#status").render())
            assert "Bob to play" in status and "turn total" not in status, status
            await press(pilot, "x")
            await keep(pilot, "1")
            await press(pilot, "b")
            assert levels(app, 0) == [(600, False, 0)]
            assert levels(app, 1) == [(700, False, 0)]
            assert "Bob takes it back: 600 with 2 dice (G-8)" in log_lines(app)

    run(play)


@pytest.mark.slow  # an app run of 1 to 2 s; the default run keeps each screen once
def test_g4_bump_crosses_the_other_players_level_and_highlights_it() -> None:
    throws = "6 6 6 4 2;6 6 6 3 2"
    app = make_app("dix-mille", "Ana,Bob", throws)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await keep(pilot, "6 6 6")
            await press(pilot, "b", "f", "t")  # Bob starts fresh
            await keep(pilot, "6 6 6")
            await press(pilot, "b")
            assert levels(app, 0) == [(600, True, 0)]
            assert levels(app, 1) == [(600, False, 0)]
            screen = game_screen(pilot)
            assert screen.changes() == {(0, 0): "crossed", (1, 0): "new"}
            assert "Bob bumps Ana off 600 (G-4)" in log_lines(app)

    run(play)


@pytest.mark.slow  # an app run of 1 to 2 s; the default run keeps each screen once
def test_g3_third_tick_crosses_the_level() -> None:
    throws = ";".join(["6 6 6 4 2", *[FARKLE] * 6])
    app = make_app("dix-mille", "Ana,Bob", throws)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await keep(pilot, "6 6 6")
            await press(pilot, "b")
            for ticks in (1, 2):
                await press(pilot, "t", "t")  # Bob farkles, then Ana farkles
                assert levels(app, 0) == [(600, False, ticks)]
            await press(pilot, "t", "t")
            assert levels(app, 0) == [(600, True, 3)]
            assert app.session is not None
            assert app.session.state.sheets[0].score == 0
            assert "Ana's level 600 is crossed (ticks); back to 0" in log_lines(app)

    run(play)


def test_refused_bank_is_logged_with_the_engines_reason() -> None:
    app = make_app("dix-mille", "Ana,Bob", "1 1 4 4 3")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await keep(pilot, "1 1")
            screen = game_screen(pilot)
            assert screen.query_one("#do-bank").disabled
            await press(pilot, "b")
            assert "Ana banks 200? No: you need 500 to enter the game (T-7)" in log_lines(app)
            log = screen.query_one("#log", RichLog)
            assert any("No: you need 500" in line.text for line in log.lines)

    run(play)


@pytest.mark.slow  # a process of its own solves the game
def test_the_app_solves_in_the_background_from_inside_its_screen() -> None:
    """The full-screen app replaces ``sys.stderr`` with an object with no file descriptor,
    which multiprocessing hands to the solving process it starts: the hint's first use in
    ``zloutch play`` (``background_solves``) crashed the app with "bad value(s) in
    fds_to_keep". It starts the solve and says so under the hint."""
    session = Session.new(
        "farkle-minimal(target=500)",
        "Ana,Bob",
        dice=ScriptedDice.from_text("1 2 3 4 4 6\n", "test dice"),
    )
    app = ZloutchApp(AppConfig(session=session, pace=0, background_solves=True))

    async def play() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await press(pilot, "t", "h")
            panel = game_screen(pilot).query_one("#hint", HintPanel)
            assert panel.advice is not None and panel.advice.objective == "expected points"
            assert session.solving()
            screen = app.export_screenshot().replace("&#160;", " ")
            assert "solving" in screen and "Hint" in screen
        session.close()

    run(play)


def test_hint_panel_shows_every_action_with_its_value_and_the_best() -> None:
    app = make_app("dix-mille", "Ana,Bob", "1 1 5 4 3")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t", "h")
            panel = game_screen(pilot).query_one("#hint", HintPanel)
            assert panel.has_class("shown") and panel.display
            assert app.session is not None
            expected = TurnAdvisor(app.session.state.rules).advise(app.session.state)
            assert panel.advice is not None
            assert [str(a) for a, _ in panel.advice.values] == [str(a) for a, _ in expected.values]
            assert {str(a) for a, _ in panel.advice.values} == {
                "keep 1",
                "keep 1 1",
                "keep 1 1 5",
                "keep 1 5",
                "keep 5",
            }
            await keep(pilot, "1")
            assert panel.advice is not None
            assert [str(a) for a, _ in panel.advice.values] == ["throw"]  # 100 cannot enter
            await press(pilot, "h")
            assert not panel.has_class("shown")

    run(play)


def test_save_then_resume_gives_the_identical_sheet(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    throws = "6 6 6 4 2;6 6 6 3 2;2 3 4 6 6;1 5 2 3 3"
    app = make_app("dix-mille", "Ana,Bob", throws, record_path=str(record))

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await keep(pilot, "6 6 6")
            await press(pilot, "b", "f", "t")
            await keep(pilot, "6 6 6")
            await press(pilot, "b", "t", "s")  # Ana farkles; save
            assert isinstance(app.screen, SaveScreen)
            assert app.screen.query_one("#path", Input).value == str(record)
            await press(pilot, "enter")
            assert isinstance(app.screen, GameScreen)

    run(play)
    assert app.session is not None
    saved = json.loads(record.read_text())
    assert saved["sheet"] == sheet_json(app.session.state)

    resumed = Session.resume(record.read_text())
    again = ZloutchApp(AppConfig(session=resumed, pace=0))

    async def resume() -> None:
        async with again.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert again.session is not None and app.session is not None
            assert sheet_json(again.session.state) == sheet_json(app.session.state)
            assert again.session.state == app.session.state
            sheet = game_screen(pilot).query_one("#sheet")
            assert sheet.state == app.session.state  # type: ignore[attr-defined]

    run(resume)


def test_new_game_screen_starts_against_a_bot_in_two_key_presses() -> None:
    app = ZloutchApp(AppConfig(pace=0))

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, NewGameScreen)
            await press(pilot, "enter", "t")
            assert isinstance(app.screen, GameScreen)
            assert app.session is not None
            assert app.session.names == ("Player", "bot:medium")
            assert app.session.state.rules.spec == "dix-mille"
            assert app.session.state.phase in (Phase.KEEP, Phase.START)
            assert len(app.session.record.actions) >= 2  # thrown: a throw and its roll

    run(play)


@pytest.mark.slow  # an app run of 1 to 2 s; the default run keeps each screen once
def test_new_game_screen_options_players_and_errors() -> None:
    app = ZloutchApp(AppConfig(pace=0))

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, NewGameScreen)
            screen.query_one("#preset").value = "cinq-mille"  # type: ignore[attr-defined]
            await pilot.pause()
            screen.query_one("#opt-target", Input).value = "10000"
            screen.query_one("#kind-1").value = "person"  # type: ignore[attr-defined]
            await pilot.pause()
            screen.query_one("#name-1", Input).value = "Bob"
            screen.action_add_player()
            screen.query_one("#kind-2").value = "bot:strong"  # type: ignore[attr-defined]
            await pilot.pause()
            assert screen.spec() == "cinq-mille(target=10000)"
            assert screen.players() == "Player,Bob,bot:strong"
            # A spec typed is the rule set: the summary follows it, or says why it is none.
            typed = screen.query_one("#spec", Input)
            summary = screen.query_one("#summary")
            typed.value = "greed(target=300)"
            await pilot.pause()
            shown = str(summary.render())
            assert shown.startswith("target 300 or more · greed: ")  # the spec's, not the words'
            assert "(as written; the spec switches target=300)" in shown
            assert "the preset and options above are not used" in shown
            typed.value = "greed(target=-3)"
            await pilot.pause()
            assert str(summary.render()).startswith("not a rule set yet: target: must be")
            typed.value = ""
            await pilot.pause()
            assert str(summary.render()) == load_rules("cinq-mille").summary
            screen.query_one("#opt-entry", Input).value = "-5"
            screen.action_start()
            await pilot.pause()
            assert isinstance(app.screen, NewGameScreen)
            assert "error:" in str(screen.query_one("#error").render())
            # Under the players, the line is out of sight at 80x24: a notice says it too.
            assert any(n.title == "Cannot start" for n in app._notifications)
            screen.query_one("#opt-entry", Input).value = "500"
            screen.action_start()
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)
            assert app.session is not None
            assert app.session.state.rules.spec == "cinq-mille(target=10000)"
            assert app.session.names == ("Player", "Bob", "bot:strong")

    run(play)


def test_table_mode_typed_faces_off_and_undo() -> None:
    app = make_app("dix-mille", "Ana,Bob", table=True)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            assert app.session is not None
            assert app.session.state.phase is Phase.ROLL
            faces = game_screen(pilot).query_one("#faces", Input)
            assert faces.has_focus
            await pilot.press(*"11443")
            await press(pilot, "enter")
            assert app.session.state.turn.throw == (1, 1, 3, 4, 4)
            await press(pilot, "o")  # a die fell off the table: the turn is lost
            assert app.session.state.turn.player == 1
            assert levels(app, 0) == []
            assert app.session.state.sheets[0].loose_ticks == 1
            await press(pilot, "u")  # undo the off
            assert app.session.state.turn.player == 0
            assert app.session.state.phase is Phase.KEEP
            await press(pilot, "u")  # undo the faces: type them again
            assert app.session.state.phase is Phase.ROLL
            await pilot.press(*"66642")
            await press(pilot, "enter")
            await keep(pilot, "6 6 6")
            await press(pilot, "b")
            assert levels(app, 0) == [(600, False, 0)]

    run(play)


def test_table_mode_a_die_off_the_table_before_the_faces_loses_the_turn() -> None:
    """Right after the throw, the faces not given yet: o (or the Off button) loses the turn
    (V-1), as the line mode's off does; the button was disabled as "not your move"."""
    app = make_app("dix-mille", "Ana,Bob", table=True)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            assert app.session is not None and app.session.need() is Need.TYPED_DICE
            button = game_screen(pilot).query_one("#do-off")
            assert not button.disabled and button.tooltip is None
            await press(pilot, "o")
            assert app.session.state.turn.player == 1
            assert app.session.record.actions == ("throw", "off")
            await press(pilot, "t")
            await pilot.click("#do-off")
            assert app.session.state.turn.player == 0

    run(play)


def test_table_mode_undo_after_the_end_takes_back_the_winning_entry() -> None:
    """A winning throw typed wrong at a real table: u on the end screen goes back to the
    table with the last entry taken back, and the game goes on; the end of a game with
    computer dice offers no undo."""
    app = make_app("dix-mille(target=1000)", "Ana,Bob", table=True)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await pilot.press(*"11123", "enter")
            await keep(pilot, "1 1 1")
            await press(pilot, "b")
            await pilot.pause()
            assert isinstance(app.screen, EndScreen) and app.screen.can_undo
            assert app.screen.query_one("#undo")
            await press(pilot, "u")
            await pilot.pause()
            assert isinstance(app.screen, GameScreen)
            assert app.session is not None
            assert app.session.state.phase is Phase.DECIDE
            assert app.session.state.turn.total == 1000 and levels(app, 0) == []
            await press(pilot, "u", "u")  # the keep, then the faces typed wrong
            await pilot.press(*"55523", "enter")
            await keep(pilot, "5 5 5")
            await press(pilot, "b")
            assert levels(app, 0) == [(500, False, 0)]
            assert app.session.state.turn.player == 1

    run(play)
    ended = make_app("dix-mille(target=1000)", "Ana,Bob", "1 1 1 2 3")

    async def computer_dice() -> None:
        async with ended.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await keep(pilot, "1 1 1")
            await press(pilot, "b")
            await pilot.pause()
            assert isinstance(ended.screen, EndScreen) and not ended.screen.can_undo
            assert not ended.screen.query("#undo")
            await press(pilot, "u")
            assert isinstance(ended.screen, EndScreen)

    run(computer_dice)


def test_names_with_brackets_are_shown_as_written_not_read_as_markup() -> None:
    """``Mum [/]`` stopped the app (a closing tag with nothing to close) and ``Bob [kid]``
    lost its word: a name is text, in the caption, the status, the log, the hint, the
    sheet, the notices and the end screen."""
    app = make_app("dix-mille(target=1000)", "Mum [/],Bob [kid]", "2 3 4 6 6;1 1 1 2 3")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t", "h", "b")  # Mum farkles; Bob asks a hint, banks nothing
            screen = game_screen(pilot)
            caption = str(screen.query_one("#caption", Static).render())
            assert "Mum [/] threw 2 3 4 6 6" in caption and "Bob [kid] to play" in caption
            assert "Bob [kid] banks 0? No" in "\n".join(log_lines(app))
            await press(pilot, "t")
            await keep(pilot, "1 1 1")
            await press(pilot, "b")
            await pilot.pause()
            assert isinstance(app.screen, EndScreen)
            winner = str(app.screen.query_one("#winner", Static).render())
            assert winner == "Game over: Bob [kid] won!"

    run(play)


def test_help_screen_shows_keys_and_the_rules_of_the_game() -> None:
    app = make_app("dix-mille(joker)", "Ana,Bob")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "question_mark")
            assert isinstance(app.screen, HelpScreen)
            assert app.screen.rules.spec == "dix-mille(joker)"
            console = Console(width=160, file=io.StringIO(), record=True)
            for widget in app.screen.query(Static):
                console.print(widget.content)
            text = console.export_text()
            assert "Keys" in text and "bank_multiple_of_100" in text and "T-6" in text
            assert "joker" in text and "on *" in text  # the option switched by the spec
            await press(pilot, "escape")
            assert isinstance(app.screen, GameScreen)

    run(play)


@pytest.mark.slow  # an app run of 1 to 2 s; the default run keeps each screen once
def test_escape_on_the_new_game_screen_asks_and_ctrl_d_in_a_name_removes_a_player() -> None:
    """Escape also leaves a field: one press too many quit with what was typed. It asks
    (Escape again stays, q quits); ctrl+d in a name field removes a player, as its button
    says, rather than the field's own "delete the next letter"."""
    app = ZloutchApp(AppConfig(pace=0))

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, NewGameScreen)
            await press(pilot, "ctrl+n")
            assert screen.count == 3 and screen.query_one("#name-2", Input).has_focus
            name = screen.query_one("#name-2", Input)
            name.value, name.cursor_position = "Cleo", 0
            await press(pilot, "escape")
            assert isinstance(app.screen, QuitScreen)
            assert not app.screen.query("#save")  # nothing to save: quit or stay
            await press(pilot, "escape")
            assert app.screen is screen and screen.count == 3
            screen.query_one("#name-2", Input).focus()
            await press(pilot, "ctrl+d")
            assert screen.count == 2 and name.value == "Cleo"
            await press(pilot, "escape", "q")

    run(play)
    assert app.return_value == 0


@pytest.mark.slow  # an app run of 1 to 2 s; the default run keeps each screen once
def test_quitting_an_unsaved_game_asks_first(tmp_path: Path) -> None:
    app = make_app("dix-mille", "Ana,Bob", "6 6 6 4 2")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t", "q")
            assert isinstance(app.screen, QuitScreen)
            await press(pilot, "escape")  # stay
            assert isinstance(app.screen, GameScreen)
            await press(pilot, "q", "s")  # save and quit
            assert isinstance(app.screen, SaveScreen)
            path = app.screen.query_one("#path", Input)
            path.value = str(tmp_path / "quit.json")
            await press(pilot, "enter")

    run(play)
    assert app.return_value == 0
    _, state = load_record((tmp_path / "quit.json").read_text())
    assert state.phase is Phase.KEEP and state.turn.throw == (2, 4, 6, 6, 6)


# ---------------------------------------------------------------------------- review fixes


@pytest.mark.slow  # a long app run (2.5 to 7 s): .ci/run runs it with -m slow
def test_a_new_game_never_overwrites_the_last_games_save(tmp_path: Path) -> None:
    first = tmp_path / "game1.json"
    app = make_app(SHORT, "Ana,Bob", "1 1 1 2 3")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await keep(pilot, "1 1 1")
            await press(pilot, "b")
            assert isinstance(app.screen, EndScreen)
            await press(pilot, "s")
            assert isinstance(app.screen, SaveScreen)
            app.screen.query_one("#path", Input).value = str(first)
            await press(pilot, "enter")
            await press(pilot, "n")
            assert isinstance(app.screen, NewGameScreen)
            # The last game's rules (its options switched) and players, offered again.
            assert (app.screen.spec(), app.screen.players()) == (SHORT, "Ana,Bob")
            await press(pilot, "enter", "t")  # a new game, and a move in it
            assert isinstance(app.screen, GameScreen)
            assert app.session is not None and app.session.record.actions
            await press(pilot, "q")
            assert isinstance(app.screen, QuitScreen)  # the new game is saved nowhere yet
            await press(pilot, "q")  # quit without saving

    run(play)
    _, state = load_record(first.read_text())
    assert state.names == ("Ana", "Bob") and state.phase is Phase.OVER


@pytest.mark.slow  # a long app run (2 to 5 s): .ci/run runs it with -m slow
def test_a_new_games_record_goes_beside_the_last_games_record(tmp_path: Path) -> None:
    """With --record, a new game from the end screen (the same rules and players, offered
    again) wrote over the last game's record; it is kept beside it now, and said."""
    record = tmp_path / "rec.json"
    app = make_app(SHORT, "Ana,Bob", "1 1 1 2 3", record_path=str(record))

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await keep(pilot, "1 1 1")
            await press(pilot, "b")
            assert isinstance(app.screen, EndScreen)
            await press(pilot, "n", "enter", "t")
            assert isinstance(app.screen, GameScreen)
            assert app.record_path == str(tmp_path / "rec-2.json")
            assert "rec.json keeps the last game" in " ".join(n.message for n in app._notifications)
            assert not app.unsaved()

    run(play)
    _, first = load_record(record.read_text())
    assert first.phase is Phase.OVER
    second, _ = load_record((tmp_path / "rec-2.json").read_text())
    assert second.actions[:1] == ("throw",)


def test_a_new_game_offers_the_last_games_bots_by_name_too() -> None:
    """bot:greedy is no level of the new-game screen's list: offering it again stopped the
    app (a value its list did not hold)."""
    app = make_app(SHORT, "Ana,bot:greedy,bot:threshold:300")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            app.action_new_game()
            await pilot.pause()
            assert isinstance(app.screen, NewGameScreen)
            assert app.screen.players() == "Ana,bot:greedy,bot:threshold:300"
            assert app.screen.spec() == SHORT

    run(play)


def resumed_app(tmp_path: Path) -> ZloutchApp:
    record = tmp_path / "game.json"
    session = Session.new("dix-mille", "Ana,Bob", dice=ScriptedDice.from_text("6 6 6 4 2", "d"))
    session.act(Throw())
    session.roll()
    record.unlink(missing_ok=True)  # a game of its own each time (not a save of the last)
    session.save(str(record))
    resumed = Session.resume(record.read_text())
    return ZloutchApp(AppConfig(session=resumed, pace=0, resume_path=str(record)))


def test_a_resumed_game_saves_back_to_its_file_and_quits_without_asking(tmp_path: Path) -> None:
    app = resumed_app(tmp_path)

    async def untouched() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "q")  # nothing new since the file: no question

    run(untouched)
    assert app.return_value == 0
    again = resumed_app(tmp_path)

    async def moved() -> None:
        async with again.run_test(size=SIZE) as pilot:
            await keep(pilot, "6 6 6")
            # Kept in its file after the move: quitting loses nothing, and asks nothing.
            _, state = load_record((tmp_path / "game.json").read_text())
            assert state.turn.set_aside == (6, 6, 6)
            await press(pilot, "q")

    run(moved)
    assert again.return_code == 0
    # ``zloutch play`` says where the record went once the screen is gone.
    assert list(again.written) == [str(tmp_path / "game.json")]


def screen_text(widget: Widget) -> str:
    assert isinstance(widget, Static)
    return as_text(widget.content)


def test_clicking_dice_selects_them_and_the_keeps_follow() -> None:
    app = make_app("dix-mille", "Ana,Bob", "1 1 5 4 3")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            screen = game_screen(pilot)
            keeps = screen.query_one("#keeps", Static)
            assert "Nothing selected yet." in screen_text(keeps)
            assert [d.face for d in screen.query(Die)] == [1, 1, 3, 4, 5]

            async def click(index: int) -> None:  # the dice are drawn anew on every change
                die = next(d for d in screen.query(Die) if d.index == index)
                assert await pilot.click(die)
                await pilot.pause()

            await click(0)
            assert screen.selection() == (1,)
            assert "Selected 1: 100, k keeps it" in screen_text(keeps)
            assert next(d for d in screen.query(Die) if d.index == 0).has_class("selected")
            await click(4)
            assert "Selected 1 5: 150, k keeps it" in screen_text(keeps)
            await click(2)  # a 3 scores nothing: the engine says why
            assert screen.selection() == (1, 3, 5)
            assert "Selected 1 3 5: " in screen_text(keeps)
            assert "k keeps it" not in screen_text(keeps)
            assert screen.query_one("#do-keep").disabled
            await click(2)  # clicked again: unselected
            assert screen.selection() == (1, 5)
            await press(pilot, "k")
            assert app.session is not None
            assert app.session.state.turn.total == 150
            assert app.session.state.turn.set_aside == (1, 5)

    run(play)


def test_each_die_shows_its_key_and_keys_out_of_the_footer_say_why() -> None:
    """The dice are picked by place: each shows the number of its key. Take over, fresh,
    joker, off and undo are out of the footer where they cannot apply; their keys still
    answer, with the engine's reason or the session's, as line mode does."""
    app = make_app("dix-mille", "Ana,Bob", "1 1 5 4 3")

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            screen = game_screen(pilot)
            dice = sorted(screen.query(Die), key=lambda d: d.index)
            assert [d.border_subtitle for d in dice] == ["1", "2", "3", "4", "5"]
            for key, reason in (  # a refused move in the log, in colour
                ("x", "No: there is no turn to take back (G-8)"),
                ("f", "No: start fresh only answers a take-back offer"),
                ("j", "No: jokers are not played in this rule set (V-2)"),
                ("o", "No: a die off the table exists only at a real table"),
            ):
                await press(pilot, key)
                assert reason in log_lines(app)[-1], (key, log_lines(app)[-1])
            await press(pilot, "u")  # not a move: a notice
            said = [str(n.message) for n in app._notifications]
            assert said == ["Undo exists only at a real table (real dice)"]
            assert app.session is not None and app.session.state.turn.set_aside == ()

    run(play)


def test_a_key_out_of_the_footer_plays_nothing_for_a_bot() -> None:
    """While a paced bot is to move, x (take over) stays the bot's decision: the key that
    answers with a reason where a move cannot apply must not play it for the bot."""
    dice = ScriptedDice.from_text("6 6 6 4 2\n1 4\n2 3 4 6 6\n2 3 4 6 6\n", "test dice")
    session = Session.new("dix-mille", "Ana,bot:medium", dice=dice)
    app = ZloutchApp(AppConfig(session=session, pace=30))

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            await keep(pilot, "6 6 6")
            await press(pilot, "b")
            assert session.need() is Need.BOT and session.state.offer is not None
            await press(pilot, "x", "f")
            assert "take" not in session.record.actions
            assert "fresh" not in session.record.actions

    run(play)


@pytest.mark.slow  # a long app run (2.5 to 7 s): .ci/run runs it with -m slow
def test_table_mode_face_buttons_type_the_throw() -> None:
    app = make_app("dix-mille", "Ana,Bob", table=True)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")
            faces = game_screen(pilot).query_one("#faces", Input)
            for face in (1, 1, 4):
                assert await pilot.click(f"#face-{face}")
            assert faces.value == "1 1 4"
            assert await pilot.click("#face-clear")
            assert faces.value == ""
            for face in (1, 1, 4, 4, 3):
                assert await pilot.click(f"#face-{face}")
            assert faces.value == "1 1 4 4 3" and faces.has_focus
            await pilot.click("#face-clear")
            await pilot.click("#face-1", times=2)  # two 1s tapped at once: two faces
            await pilot.click("#face-1")
            await pilot.pause()
            assert faces.value == "1 1 1"
            await pilot.click("#face-clear")
            for face in (1, 1, 4, 4, 3):
                assert await pilot.click(f"#face-{face}")
            await press(pilot, "enter")
            assert app.session is not None
            assert app.session.state.turn.throw == (1, 1, 3, 4, 4)

    run(play)


@pytest.mark.slow  # an app run of 1 to 2 s; the default run keeps each screen once
def test_table_mode_faces_of_the_wrong_size_throw_nothing() -> None:
    app = make_app("dix-mille", "Ana,Bob", table=True)

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            faces = game_screen(pilot).query_one("#faces", Input)
            faces.focus()
            await pilot.press(*"123", "enter")
            assert app.session is not None
            assert app.session.state.phase is Phase.START  # not thrown, then refused
            assert app.session.record.actions == ()
            assert log_lines(app)[-1] == "Ana throws 1 2 3? No: 5 dice are thrown, not 3"
            assert faces.value == "123"  # kept, to be put right, not typed again
            await pilot.press("9")
            await pilot.pause()
            assert faces.value == "123"
            assert "'9' is not a die face: faces are 1 to 6" in [
                n.message for n in app._notifications
            ]
            await pilot.press("4", "5", "enter")
            assert app.session.state.turn.throw == (1, 2, 3, 4, 5) and faces.value == ""

    run(play)


def test_a_bot_with_a_pace_plays_its_turn_to_the_end() -> None:
    dice = ScriptedDice.from_text("\n".join([FARKLE, "1 2 3 3 4", "5 5 5 2"]), "d")
    session = Session.new("dix-mille", "Ana,bot:cautious", dice=dice)
    app = ZloutchApp(AppConfig(session=session, pace=0.02))

    async def play() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await press(pilot, "t")  # Ana farkles; the bot's moves wait the pace
            screen = game_screen(pilot)
            for _ in range(200):
                if session.state.turn.player == 0:
                    break
                assert session.state.turn.player == 1
                assert "bot:cautious (bot) to play" in screen_text(screen.query_one("#status"))
                assert screen.query_one("#do-throw").disabled  # not Ana's move
                await pilot.pause(0.02)
            assert session.state.turn.player == 0
            assert levels(app, 1) == [(600, False, 0)]
            assert "bot:cautious banks 600: new level 600" in log_lines(app)
            assert not screen.query_one("#do-throw").disabled

    run(play)


def test_every_option_on_the_new_game_screen_has_a_rule_id_and_a_meaning() -> None:
    missing = [name for name in OPTIONS if not all(option_meaning(name))]
    assert missing == []
