"""The table screen at the smallest common terminal, 80x24 (issue 12, item 7): six dice fit,
the hint stays in view however long the sheet, Ctrl-C quits as q does, a bot's turn invites
no selection, and a dice file that stops matching ends the app with exit code 2."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import Static
from tui_helpers import as_text, game_screen, keep, make_app, press, run

from zloutch.adapters.tui import ZloutchApp
from zloutch.adapters.tui.screens import EndScreen, SheetScreen
from zloutch.adapters.tui.views import keeps_view, tray_view
from zloutch.adapters.tui.widgets import Die, GameLog, HintPanel, SheetView
from zloutch.app.dice import ScriptedDice
from zloutch.app.match import Need
from zloutch.app.session import Session
from zloutch.engine import Phase, Throw

SMALL = (80, 24)


def fully_shown(pilot: Pilot[Any], region: Region) -> bool:
    """Whether a widget's region lies inside the screen, nothing of it cut off."""
    width, height = pilot.app.size
    return region.x >= 0 and region.y >= 0 and region.right <= width and region.bottom <= height


def test_six_dice_fit_an_80x24_screen() -> None:
    app = make_app("dix-mille-6", "Ana,Bob", "1 2 3 4 6 6")

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "t")
            await pilot.pause()
            dice = list(game_screen(pilot).query(Die))
            assert [d.face for d in dice] == [1, 2, 3, 4, 6, 6]
            play = game_screen(pilot).query_one("#play").content_region
            for die in dice:
                assert die.region.width == 7 and die.region.height == 5
                assert fully_shown(pilot, die.region), die.region
                assert die.region.right <= play.right, (die.region, play)

    run(test)


@pytest.mark.parametrize("size", [(60, 20), (42, 24), (30, 16)])
def test_a_narrow_terminal_puts_the_side_under_the_dice_and_stops_nothing(
    size: tuple[int, int],
) -> None:
    """Under 75 columns the side (sheet, log) goes under the dice, the whole width: at 60
    the six dice are all in view (beside the side, four were); at 42 and 30 the buttons
    wrap to the rows they need (a grid of four buttons 0 columns wide stopped the app)."""
    app = make_app("dix-mille-6", "Ana,Bob", "1 2 3 4 6 6")

    async def test() -> None:
        async with app.run_test(size=size) as pilot:
            await press(pilot, "t", "1", "k")
            await pilot.pause()
            screen = game_screen(pilot)
            assert screen.has_class("narrow")
            side = screen.query_one("#side").region
            assert side.y >= screen.query_one("#actions").region.bottom
            assert side.width >= size[0] - 1
            for button in screen.query("#actions Button"):
                if button.display:
                    assert button.region.width >= 8, button
            if size[0] >= 60:
                for die in screen.query(Die):
                    assert fully_shown(pilot, die.region), die.region
            assert app.session is not None and app.session.state.turn.total == 100
        assert app.return_code in (None, 0)

    run(test)


@pytest.mark.parametrize("size", [SMALL, (80, 20)])
def test_the_hint_stays_in_view_when_the_sheet_is_long(size: tuple[int, int]) -> None:
    spec = "dix-mille(bump=off,target=100000)"
    app = make_app(spec, "Ana,Bob,Chloe", ";".join(["1 1 1 5 2"] * 30))
    session = app.config.session
    assert session is not None
    for _ in range(24):  # eight levels a player: the sheet outgrows the screen
        # played on the session before the app starts: pressing the keys 72 times costs
        # 20 s and is what the other tests of this folder check already
        for line in ("throw", "keep 1 1 1", "bank"):
            session.play(session.read(line))
            if session.need() is Need.DICE:
                session.roll()

    async def test() -> None:
        async with app.run_test(size=size) as pilot:
            await press(pilot, "t", "h")
            await pilot.pause()
            assert len(app.session.state.sheets[0].levels) == 8  # type: ignore[union-attr]
            hint = game_screen(pilot).query_one(HintPanel)
            assert hint.advice is not None
            assert hint.region.height > 3
            assert fully_shown(pilot, hint.region), hint.region
            sheet = game_screen(pilot).query_one("#sheet-scroll")
            # The names, the last level and the scores in view, the levels before them cut
            # under a row of ⋮ (scrolled to its end, the sheet hid whose column was whose).
            assert sheet.max_scroll_y == 0 and fully_shown(pilot, sheet.region)
            drawn = as_text(game_screen(pilot).query_one("#sheet", SheetView).content)
            assert "Ana" in drawn and "Chloe" in drawn and "⋮" in drawn
            assert "8000" in drawn and "1000 " not in drawn
            log = game_screen(pilot).query_one("#log")  # under them, its last line in view
            assert fully_shown(pilot, log.region) and log.region.y >= sheet.region.bottom
            assert log.scroll_y == log.max_scroll_y > 0
            # written before its scroll bar came, no line is cut by it
            width = log.scrollable_content_region.width
            assert max(strip.cell_length for strip in log.lines) <= width  # type: ignore[attr-defined]

    run(test)


def test_ctrl_c_quits_and_writes_the_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    app = make_app("dix-mille", "Ana,Bob", "1 1 1 2 3", record_path=str(record))

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "t")
            await keep(pilot, "1 1 1")
            await press(pilot, "ctrl+c")
            await pilot.pause()

    run(test)
    assert app.return_value == 0
    assert json.loads(record.read_text())["actions"] == ["throw", "roll 1 1 1 2 3", "keep 1 1 1"]


def test_a_bots_throw_invites_no_selection() -> None:
    dice = ScriptedDice.from_text("1 5 2 3 4", "test dice")
    session = Session.new("dix-mille", "bot:cautious,Ana", dice=dice)
    session.act(Throw())
    session.roll()
    assert session.state.phase is Phase.KEEP and session.need() is Need.BOT
    _, caption, _ = tray_view(session, "")
    assert caption == "bot:cautious's throw: the bot chooses its keep"
    assert "Nothing selected" not in as_text(keeps_view(session, ()))
    session.bot_step()
    if session.state.phase is Phase.DECIDE:
        _, caption, dim = tray_view(session, "")
        assert "select" not in caption and dim


def test_a_dice_file_that_stops_matching_exits_2(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    app = make_app("dix-mille", "Ana,Bob", "1 1 4 4 3;2 3 4 6", record_path=str(record))

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "t")
            await keep(pilot, "1 1")
            await press(pilot, "t")
            await pilot.pause()
            screen = game_screen(pilot)
            assert screen.stopped.startswith("error: test dice line 2")
            # said once above the dice (the caption under it said it again)
            caption = str(screen.query_one("#caption", Static).render())
            assert caption == "The game stops here: s saves it, q quits"
            await press(pilot, "q")
            await pilot.pause()

    run(test)
    assert app.return_value == 2
    assert json.loads(record.read_text())["actions"][-1] == "throw"


def test_three_players_sheet_fits_80_columns() -> None:
    app = make_app("dix-mille", "Ana,Bob,Chloe", "1 1 1 2 3")

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            scroll = game_screen(pilot).query_one("#sheet-scroll")
            assert scroll.max_scroll_x == 0  # no column hidden to the right
            sheet = game_screen(pilot).query_one("#sheet", SheetView)
            assert fully_shown(pilot, sheet.region), sheet.region
            assert sheet.region.width <= scroll.content_region.width
            assert not sheet.by_rows  # three players are columns, as on paper

    run(test)


def test_eight_players_on_the_side_a_row_each_and_the_whole_sheet_scrolls_sideways() -> None:
    """Four players or more do not fit the side of 80 columns as columns: a row a player,
    every name in view; p shows the whole sheet, which scrolls sideways (it was cut off)."""
    names = "Ana,Bernadette-Longname,bot:easy,bot:medium,Eve,Fred,Claude,Dominique"
    app = make_app("dix-mille", names, "5 5 5 2 3")

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            screen = game_screen(pilot)
            sheet = screen.query_one("#sheet", SheetView)
            assert sheet.by_rows
            scroll = screen.query_one("#sheet-scroll")
            assert scroll.max_scroll_x == 0 and fully_shown(pilot, sheet.region)
            console = Console(width=sheet.region.width, file=io.StringIO(), record=True)
            console.print(sheet.content)  # as wide as it is drawn
            shown = console.export_text()
            for name in ("Ana", "Bernadette-Long", "bot:medium", "Claude", "Dominique"):
                assert name in shown, name
            await press(pilot, "p")
            assert isinstance(app.screen, SheetScreen)
            whole = app.screen.query_one("#sheet-scroll")
            assert whole.max_scroll_x > 0  # Claude and Dominique to the right
            await press(pilot, *["right"] * 40)
            assert whole.scroll_x == whole.max_scroll_x

    run(test)


def test_the_buttons_stay_on_screen_however_many_keeps() -> None:
    app = make_app("dix-mille-6", "Ana,Bob,Chloe", "1 1 1 5 5 5")

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "t")
            await pilot.pause()
            screen = game_screen(pilot)
            assert len(app.session.moves()) > 12  # type: ignore[union-attr]  # more keeps than rows
            for button in screen.query("#actions Button"):
                if button.display:
                    assert fully_shown(pilot, button.region), (button.id, button.region)
            keeps = screen.query_one("#keeps-scroll")
            assert keeps.max_scroll_y > 0  # the list scrolls in its own room

    run(test)


def test_at_80x24_a_throw_of_nine_keeps_shows_them_all_and_the_log_sits_by_the_sheet() -> None:
    """The log under the sheet, in the side's room the sheet leaves: under the whole screen
    it took five rows from the keeps, and an 80x24 terminal showed 4 of a throw's 9. The log's
    last line stays in view as a hint takes its room, and as the terminal is resized."""
    app = make_app("farkle", "Ana,Bob", "1 1 5 5 2 2")

    async def test() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await press(pilot, "t")
            await pilot.pause()
            screen = game_screen(pilot)
            assert screen.query_one("#side").region.width == 120 * 36 // 100
            await pilot.resize_terminal(*SMALL)
            await pilot.pause()
            assert len(app.session.moves()) == 9  # type: ignore[union-attr]
            keeps = screen.query_one("#keeps-scroll")
            assert keeps.max_scroll_y == 0 and fully_shown(pilot, keeps.region)
            lines = as_text(screen.query_one("#keeps", Static).content).splitlines()
            assert sum(1 for line in lines if line.strip()[:1].isdigit()) == 9
            side, sheet = screen.query_one("#side"), screen.query_one("#sheet-scroll")
            log = screen.query_one("#log")
            assert side.region.width == 80 * 36 // 100
            assert sheet.region.bottom <= log.region.y and fully_shown(pilot, log.region)
            assert log.region.x >= side.region.x and log.region.height >= 10
            await press(pilot, "h")
            await pilot.pause()
            hint = screen.query_one(HintPanel)
            assert fully_shown(pilot, hint.region) and fully_shown(pilot, log.region)
            assert log.scroll_y == log.max_scroll_y  # "Ana throws: 1 1 2 2 5 5" in view

    run(test)


def test_the_logs_lines_are_wrapped_again_when_the_terminal_narrows() -> None:
    """A line is wrapped as it is written: at 160 columns, then 80, the lines written before
    were cut at the log's new edge, under a sideways scroll bar."""
    app = make_app("farkle", "Ana,Bob", "1 1 5 5 2 2;1 5 2 3 4 6")

    async def test() -> None:
        async with app.run_test(size=(160, 50)) as pilot:
            await press(pilot, "t")
            await pilot.pause()
            await keep(pilot, "1 1 5 5")
            await pilot.pause()
            log = game_screen(pilot).query_one("#log", GameLog)
            assert any("turn total" in t.plain for t in log.texts)
            longest = max(len(t.plain) for t in log.texts)
            await pilot.resize_terminal(*SMALL)
            await pilot.pause()
            width = log.scrollable_content_region.width
            assert width < longest  # narrower than a line: it must wrap
            assert max(strip.cell_length for strip in log.lines) <= width
            assert log.max_scroll_x == 0 and log.scroll_y == log.max_scroll_y

    run(test)


def test_at_80x24_the_end_screen_says_who_won_above_a_long_ranking() -> None:
    """Who won and the buttons stay in view, the ranking and the sheet scroll between them:
    the screen opened scrolled to its focused button, "Game over: Ana won!" out of view."""
    players = "Ana,Bob,Chloe,Dan,Eve"
    app = make_app("dix-mille(bump=off,target=3000)", players, ";".join(["1 1 1 5 2"] * 11))
    session = app.config.session
    assert session is not None
    while not session.state.winners:  # each turn 1 1 1 banked: Ana reaches 3000 first
        for line in ("throw", "keep 1 1 1", "bank"):
            session.play(session.read(line))
            if session.need() is Need.DICE:
                session.roll()
            if session.state.winners:
                break

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, EndScreen)
            winner = screen.query_one("#winner", Static)
            assert "Ana won" in str(winner.content) and fully_shown(pilot, winner.region)
            assert winner.region.y <= 2
            assert fully_shown(pilot, screen.query_one("#new").region)
            assert screen.query_one(VerticalScroll).max_scroll_y > 0  # the rest scrolls

    run(test)


def test_at_80x24_every_key_of_the_footer_is_in_view() -> None:
    """The footer listed keys up to p and cut the rest; the keeps began below the fold.
    Only the keys that can apply are shown (take over and start fresh with an offer,
    jokers under V-2), in the compact footer: all of them fit 80 columns."""
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    for table in (False, True):
        app = make_app("dix-mille", "Ana,Bob", "1 1 4 5 6", table=table)

        async def test(app: ZloutchApp = app, table: bool = table) -> None:
            async with app.run_test(size=SMALL) as pilot:
                await press(pilot, "t")
                if table:
                    await press(pilot, *"11456", "enter")
                await pilot.pause()
                keys = list(game_screen(pilot).app.screen.query(FooterKey))
                shown = {k.key for k in keys}
                assert {"t", "k", "b", "h", "s", "q"} <= shown and "x" not in shown, shown
                assert ("o" in shown) == table and "j" not in shown
                for key in keys:
                    assert fully_shown(pilot, key.region) and key.region.right <= 80, key.key
                keeps = game_screen(pilot).query_one("#keeps-scroll").region
                assert keeps.height >= 4 and fully_shown(pilot, keeps), keeps

        run(test)
    # With a take-back offer, take over and fresh join them: q was cut to "Qu" under the
    # command palette's key (ctrl+p opens it still, out of the footer).
    app = make_app("dix-mille", "Ana,Bob", "6 6 6 4 2")

    async def offered() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "t")
            await keep(pilot, "6 6 6")
            await press(pilot, "b")
            await pilot.pause()
            keys = list(app.screen.query(FooterKey))
            assert {"x", "f", "s", "q"} <= {k.key for k in keys}
            right = max(k.region.right for k in keys)
            assert right <= 80 and all(fully_shown(pilot, k.region) for k in keys)
            drawn = app.screen.query_one(Footer).region
            assert drawn.right - right >= 0 and not app.screen.query(".-command-palette")

    run(offered)


def test_a_key_after_a_throw_at_a_real_table_is_the_tables_not_a_face() -> None:
    """At a real table, t puts the dice in the air and the faces' field takes the keys:
    q was typed into it. Digits and spaces go there; q is the table's (it quits)."""
    app = make_app("dix-mille", "Ana,Bob", table=True)

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "t")
            await pilot.pause()
            faces = game_screen(pilot).query_one("#faces")
            assert faces.has_focus
            await press(pilot, "1", "space", "5", "q")
            await pilot.pause()
            assert faces.value == "1 5"  # type: ignore[attr-defined]
            assert not isinstance(pilot.app.screen, type(game_screen(pilot)))  # asked to quit

    run(test)


def test_six_dice_at_80x24_the_hint_fits_and_the_selection_is_above_the_keeps() -> None:
    """The hint's "best" was cut ("167.5 be…") on the side of 80 columns: a star now, its
    meaning in the title. Six dice have more keeps than the screen shows, and the line on
    the selected dice came after them, out of view: it comes first."""
    app = make_app("dix-mille-6", "Ana,Bob", "1 1 5 5 5 3")

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "t", "h", "6")
            await pilot.pause()
            screen = game_screen(pilot)
            panel = screen.query_one("#hint", HintPanel)
            console = Console(width=panel.region.width, file=io.StringIO(), record=True)
            console.print(panel.content)
            drawn = console.export_text()
            assert "…" not in drawn and "(* best)" in drawn, drawn
            assert any(line.rstrip().endswith("*") for line in drawn.splitlines()), drawn
            keeps = as_text(screen.query_one("#keeps", Static).content)
            assert keeps.startswith("Selected 5: 50, k keeps it"), keeps

    run(test)


def test_the_widest_footer_fits_80_columns_with_save() -> None:
    """Save (s) was out of the footer "for the keys to fit": the widest footer, a real
    table under jokers after a throw, holds every key in 80 columns with it."""
    from textual.widgets._footer import FooterKey

    app = make_app("dix-mille(joker)", "Ana,Bob", "6 6 6 4 2", table=True)

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "t", *"66642", "enter")
            await pilot.pause()
            keys = list(app.screen.query(FooterKey))
            assert [k.key for k in keys] == [
                *("t", "k", "b", "j", "o", "u", "h", "p", "s", "question_mark", "q")
            ]
            assert all(fully_shown(pilot, k.region) and k.region.right <= 80 for k in keys)

    run(test)


def test_a_keep_that_loses_the_turn_says_so_under_its_line_indented_when_it_wraps() -> None:
    """1 1 1 5 5 lands on 1100 as a full hand, to be thrown again (T-5, T-9): the words sit
    under the keep, and at a panel's width at 80 columns their second line stays indented."""
    dice = ScriptedDice.from_text("1 1 1 5 5", "test dice")
    session = Session.new("dix-mille(target=1100)", "Ana,Bob", dice=dice)
    session.act(Throw())
    session.roll()
    lines = as_text(keeps_view(session, ()), width=50).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  1 1 1 5 5"))
    assert lines[at].rstrip().endswith("full hand")
    warning = lines[at + 1 : at + 3]
    assert warning[0].startswith("    lands on 1100 with dice to throw again"), lines
    assert warning[1].startswith("    ") and "passes it" in warning[1], lines


def test_at_80x24_the_hint_says_whole_that_banking_wins_the_game() -> None:
    """cinq-mille to 200: 1 1 kept (200, three dice left) wins at once; the hint in points
    puts the bank first, and its note is shown to its last word under the narrow table."""
    app = make_app("cinq-mille(entry=0,target=200)", "Ana,Bob", "1 1 2 3 4")

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await press(pilot, "t")
            await keep(pilot, "1 1")
            await press(pilot, "h")
            await pilot.pause()
            panel = game_screen(pilot).query_one("#hint", HintPanel)
            drawn = as_text(panel.content, width=panel.region.width).rstrip().splitlines()
            assert any(line.startswith("bank") and line.rstrip().endswith("*") for line in drawn)
            words = " ".join(line.strip() for line in drawn)
            assert words.endswith("count the turn, not the game"), drawn  # the note, whole
            assert panel.region.height >= len(drawn), (panel.region, drawn)

    run(test)


def test_the_sheets_legend_speaks_only_of_marks_the_rules_can_write() -> None:
    from zloutch.adapters.tui.screens import sheet_legend
    from zloutch.rules import load_rules

    farkle, dix_mille = sheet_legend(load_rules("farkle")), sheet_legend(load_rules("dix-mille"))
    for mark in ("tick", "crossed", "petit palier"):
        assert mark not in farkle and mark in dix_mille
    assert "final round" in sheet_legend(load_rules("dix-mille(final_round)"))


def test_at_80x24_the_new_game_screen_shows_the_target_and_a_new_players_name() -> None:
    """The options a table changes most are in sight above the folded others (the target was
    the 25th of 48 under the fold), and ctrl+n's new player row is scrolled into view with
    its name to type (it was hidden under the start button)."""
    from zloutch.adapters.tui import AppConfig
    from zloutch.adapters.tui.newgame import NewGameScreen
    from zloutch.rules import COMMON_OPTIONS

    app = ZloutchApp(AppConfig(pace=0))

    async def test() -> None:
        async with app.run_test(size=SMALL) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, NewGameScreen)
            for name in COMMON_OPTIONS:
                control = screen.query_one(f"#opt-{name}")
                assert control.display and fully_shown(pilot, control.region), name
            folded = screen.query_one("#opts")
            assert "#opt-target" not in [f"#{w.id}" for w in folded.query("*")]
            for _ in range(3):
                await pilot.press("ctrl+n")
                await pilot.pause()
            name = screen.query_one("#name-4")
            assert name.has_focus and fully_shown(pilot, name.region)

    run(test)
