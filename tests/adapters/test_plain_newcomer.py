"""The line mode as a newcomer meets it (issue 12, item 7): the full-screen app's keys as
aliases, every command listed for a line that is not one, no scolding for a blank line, and
``off`` and ``undo`` at a real table."""

from __future__ import annotations

import io

from rich.table import Table
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.adapters.plain import ALIASES, COMMANDS, PlainGame, expand_alias
from zloutch.app.dice import ScriptedDice
from zloutch.app.session import Session


def play(lines: str, *, table: bool = False, throws: str = "") -> tuple[str, Session, int]:
    dice = ScriptedDice.from_text(throws.replace(";", "\n"), "test dice") if throws else None
    session = Session.new("dix-mille", "Ana,Bob", table_mode=table, dice=dice)
    out = io.StringIO()
    code = PlainGame(session, io.StringIO(lines), out).run()
    return out.getvalue(), session, code


def test_the_keys_of_the_app_are_aliases() -> None:
    assert ALIASES == {
        "k": "keep",
        "t": "throw",
        "b": "bank",
        "x": "take",
        "f": "fresh",
        "j": "joker",
        "o": "off",
        "u": "undo",
        "h": "hint",
        "p": "sheet",
        "s": "save",
        "?": "help",
        "q": "quit",
    }
    assert expand_alias("k 1 1 5") == "keep 1 1 5"
    assert expand_alias("T") == "throw"
    assert expand_alias("keep 1") == "keep 1"


def test_a_game_played_with_keys_only() -> None:
    out, session, code = play("t\nk 1 1 1\nh\nb\nq\n", throws="1 1 1 2 3")
    assert code == 0
    assert "Ana keeps 1 1 1 for 1000 (turn total 1000)" in out
    assert "Hint for Ana" in out
    assert "Ana banks 1000" in out
    assert out.rstrip().endswith("Bye.")
    assert session.state.sheets[0].score == 1000


def test_off_and_undo_by_their_keys_at_a_real_table() -> None:
    out, session, _ = play("t\n1 1 2 3 4\no\nu\nq\n", table=True)
    assert "Ana loses the turn (a die went off the table)" in out
    assert "undone: off" in out
    assert "is not a command" not in out
    assert session.record.actions == ("throw", "roll 1 1 2 3 4")


def test_off_right_after_the_throw_loses_the_turn_before_any_faces() -> None:
    # A die falls off as the dice are thrown: "off" is said while they are in the air (V-1).
    out, session, _ = play("t\noff\nq\n", table=True)
    assert "Ana loses the turn (a die went off the table)" in out
    assert session.record.actions == ("throw", "off")
    assert session.state.turn.player == 1


def test_an_unknown_command_lists_every_command() -> None:
    out, _, _ = play("bnak\nq\n")
    line = next(line for line in out.splitlines() if "Sorry, 'bnak'" in line)
    assert "(did you mean bank?)" in line
    for words, key, _ in COMMANDS:
        assert (f"{words} ({key})" if key else f" {words},") in line


def test_a_blank_line_is_not_scolded() -> None:
    out, _, code = play("\n   \nq\n")
    assert code == 0
    assert "Sorry" not in out and "type a command" not in out


def test_help_names_each_alias() -> None:
    out, _, _ = play("?\nq\n")
    assert "take         x  take over the last turn's points and dice (G-8)" in out


def test_a_dice_file_that_stops_matching_exits_2(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    (folder / "d.txt").write_text("1 1 4 4 3\n2 3 4 6\n")
    result = CliRunner().invoke(
        app,
        ["play", "--plain", "--players", "Ana,Bob", "--dice", str(folder / "d.txt")],
        input="t\nk 1 1\nt\n",
    )
    assert result.exit_code == 2
    assert "but 3 dice are thrown now" in result.stderr


def test_a_hint_in_the_chance_to_win_reads_as_a_percentage() -> None:
    """With a solved two-player game in the cache the hint's values are chances to win: said
    as such, in percent (the line mode printed "win probability banked by this turn: throw:
    0.7"), and the same in the full-screen app's hint table."""
    from zloutch.adapters.tui.widgets import advice_table
    from zloutch.app.solve import solved_game
    from zloutch.rules import load_rules

    spec = "farkle-minimal(target=500)"
    solved_game(load_rules(spec))  # into this test's private cache (tests/conftest.py)
    session = Session.new(spec, "Ana,Bob")
    out = io.StringIO()
    PlainGame(session, io.StringIO("hint\nquit\n"), out).run()
    text = out.getvalue()
    assert "Hint for Ana, the chance to win after each move:" in text
    line = next(x for x in text.splitlines() if x.strip().startswith("throw:"))
    value = float(line.split(":")[1].split("%")[0])
    assert 50 < value < 100 and line.endswith("% (best)")
    advice = session.advice()
    assert advice is not None
    drawn = advice_table(advice, "Ana")  # its title, the table, its notes
    (table,) = [r for r in drawn.renderables if isinstance(r, Table)]  # type: ignore[attr-defined]
    assert table.columns[1]._cells == [f"{100 * advice.values[0][1]:.1f}%"]


def test_rules_prints_the_rules_with_their_ids() -> None:
    """The messages cite T-7 and G-3: the line mode reads them out, as the full-screen
    app's help does (it had no way to)."""
    out, _, _ = play("rules\nq\n")
    assert "Combinations" in out and "T-7" in out and "entry" in out
    assert "Sorry" not in out
    # In sentences, a line each: no box drawing read aloud, no meaning cut mid-line.
    assert not any(ch in out for ch in "┏━│└─┃")
    assert "  straight 1-5 (1 2 3 4 5): 1500." in out
    assert "  3 of a kind: 1s 1000, 2s 200, 3s 300, 4s 400, 5s 500, 6s 600." in out
    assert "  T-7 entry = 500: " in out


def test_a_throw_that_wins_at_once_says_why() -> None:
    session = Session.new("cinq-mille", "Ana,Bob", dice=ScriptedDice.from_text("1 1 1 1 1", "d"))
    out = io.StringIO()
    assert PlainGame(session, io.StringIO("throw\n"), out).run() == 0
    assert "Game over: Ana won: a win at once with five 1s (G-5)." in out.getvalue()


def test_quitting_a_game_saved_nowhere_says_so_and_a_saved_one_does_not(tmp_path: object) -> None:
    out, _, _ = play("throw\nquit\n", throws="2 3 4 6 6")
    assert "The game is not saved (save FILE keeps it; --record FILE keeps every move).\nBye." in (
        out
    )
    out, _, _ = play("quit\n")  # nothing played: nothing lost
    assert "not saved" not in out
    saved = f"{tmp_path}/g.json"
    out, _, _ = play(f"throw\nsave {saved}\n", throws="2 3 4 6 6")  # then the input ends
    assert "not saved" not in out and out.rstrip().endswith("End of input.")


def test_each_turn_says_the_others_scores_and_the_game_its_target() -> None:
    out, _, _ = play("throw\nq\n", throws="2 3 4 6 6")
    lines = out.splitlines()
    assert lines[1] == "The target: exactly 10,000 (G-2). Type help for the commands."
    assert "The others: Bob: 0." in lines


def test_after_a_hint_or_the_sheet_what_to_do_is_said_again() -> None:
    """The moves were said above the hint's or the sheet's lines, out of sight after them."""
    out, _, _ = play("throw\nsheet\nq\n", throws="1 1 4 4 3")
    after = out.split("Sheet, dix-mille:", 1)[1]
    assert "Keep one of: keep 1 1 (200), keep 1 (100)." in after


def test_rules_say_switched_off_only_of_what_is_off() -> None:
    """The line mode's rules listed full_house_pair (50), late_pair (on) and the numbers of
    players under "Switched off": they are in force, or act only with a rule that is off."""
    from zloutch.adapters.plain import rules_lines
    from zloutch.app.session import Session

    lines = rules_lines(Session.new("dix-mille", "Ana,Bob").state)
    off = next(line for line in lines if line.startswith("Switched off: "))
    idle = next(line for line in lines if line.startswith("Acting only with another, off here: "))
    for name in ("full_house_pair", "late_pair", "farkle_penalty_after", "min_players"):
        assert name not in off.removeprefix("Switched off: ").rstrip(".").split(", ")
    assert "full_house_pair" in idle and "late_pair" in idle
    assert "joker" in off and "Players: 1 to 8 (G-1)." in lines
