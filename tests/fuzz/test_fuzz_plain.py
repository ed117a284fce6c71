"""Fuzz the line mode: random command lines typed into ``PlainGame`` and into
``zloutch play --plain`` / ``zloutch table --plain`` through typer's runner. The game goes on
or ends; a refusal is answered in words; nothing ever raises, and no traceback is printed."""

from __future__ import annotations

import io

import pytest
from fuzz_support import QUICK, count, long_run
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.adapters.plain import PlainGame
from zloutch.app.dice import SeededDice
from zloutch.app.session import Session

WORDS = [
    "keep",
    "throw",
    "bank",
    "take",
    "fresh",
    "joker",
    "off",
    "undo",
    "hint",
    "sheet",
    "help",
    "roll",
    "k",
    "t",
    "b",
    "x",
    "f",
    "j",
    "o",
    "u",
    "h",
    "p",
    "?",
    "save",
    "KEEP",
    "Throw",
    "bnak",
    "",
    "quit!",
    "-1",
    "1,5",
    "11532",
    "keep1",
]
FACES = st.lists(st.integers(-1, 8), min_size=1, max_size=7).map(
    lambda faces: " ".join(map(str, faces))
)
LINE = st.one_of(
    st.sampled_from(WORDS),
    FACES,
    st.tuples(st.sampled_from(WORDS), FACES).map(" ".join),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=12),
    st.sampled_from(["   ", "\t", "keep 1 1 1 1 1 1 1 1 1", "throw throw", "hint now"]),
)
LINES = st.lists(LINE, max_size=60)
GAMES = st.sampled_from(
    [
        ("dix-mille", "Ana,bot:easy", False),
        ("dix-mille(joker,confirmation)", "Ana,Bob", False),
        ("farkle", "Ana,Bob,bot:cautious", False),
        ("dix-mille", "Ana,Bob", True),
        ("dix-mille-6(take_back,bump=any)", "Ana,Bob", True),
    ]
)


def safe(line: str) -> str:
    """No ``save`` or ``s`` with a file name: the fuzzer writes no files where it runs."""
    head = line.split(maxsplit=1)
    return "save" if head and head[0].lower() in ("save", "s") else line


def check_game(game: tuple[str, str, bool], lines: list[str], seed: int) -> None:
    spec, players, table = game
    dice = None if table else SeededDice(seed)
    session = Session.new(spec, players, table_mode=table, dice=dice)
    out = io.StringIO()
    typed = "".join(safe(line) + "\n" for line in lines)
    code = PlainGame(session, io.StringIO(typed), out).run()
    assert code in (0, 2), out.getvalue()[-500:]
    assert "Traceback" not in out.getvalue()
    count("line-mode games (PlainGame)", "ended" if session.need().name == "OVER" else "played")


def check_cli(game: tuple[str, str, bool], lines: list[str], seed: int) -> None:
    spec, players, table = game
    args = ["table" if table else "play", "--plain", "--rules", spec, "--players", players]
    args += ["--pace", "0"] + ([] if table else ["--seed", str(seed)])
    typed = "".join(safe(line) + "\n" for line in lines)
    result = CliRunner().invoke(app, args, input=typed)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code in (0, 2), result.output[-500:]
    assert "Traceback" not in result.output
    count("line-mode games (CLI)", "exit 0" if result.exit_code == 0 else "exit 2")


@given(GAMES, LINES, st.integers(0, 10**6))
@QUICK
def test_line_mode_quick(game: tuple[str, str, bool], lines: list[str], seed: int) -> None:
    check_game(game, lines, seed)


@pytest.mark.slow
@given(GAMES, LINES, st.integers(0, 10**6))
@long_run(600)
def test_line_mode(game: tuple[str, str, bool], lines: list[str], seed: int) -> None:
    check_game(game, lines, seed)


@given(GAMES, LINES, st.integers(0, 10**6))
@QUICK
def test_line_mode_cli_quick(game: tuple[str, str, bool], lines: list[str], seed: int) -> None:
    check_cli(game, lines, seed)


@pytest.mark.slow
@given(GAMES, LINES, st.integers(0, 10**6))
@long_run(300)
def test_line_mode_cli(game: tuple[str, str, bool], lines: list[str], seed: int) -> None:
    check_cli(game, lines, seed)
