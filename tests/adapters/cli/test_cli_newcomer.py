"""What a newcomer tripped on at the command line (issue 12, item 7): usage mistakes as one
``error:`` line, help texts that read right, flags that do not apply, Ctrl-C in ``simulate``
and ``solve``, ``plot policy`` without matplotlib.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner, Result

from zloutch.adapters.cli import app

runner = CliRunner()
WIDE = {"COLUMNS": "200"}

COMMANDS = (
    ("score",),
    ("solve",),
    ("play",),
    ("table",),
    ("simulate",),
    ("review",),
    ("verify",),
    ("rules", "list"),
    ("rules", "show"),
    ("record", "show"),
    ("plot", "policy"),
    ("plot", "values"),
    ("plot", "threshold"),
    ("plot", "winrates"),
    ("plot", "turn-scores"),
)


def one_error_line(result: Result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


# ---------------------------------------------------------------------------- usage mistakes


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["play", "--seed", "abc"], "'--seed'"),
        (["simulate", "--games", "many"], "'--games'"),
        (["play", "--bogus"], "no such option: --bogus"),
        (["nope"], "no such command 'nope'"),
        (["score", "--total"], "--total"),
        (["record", "show"], "missing argument"),
    ],
)
def test_a_usage_mistake_is_one_error_line_with_exit_2(args: list[str], words: str) -> None:
    line = one_error_line(runner.invoke(app, args, env=WIDE))
    assert words in line.lower()
    assert "--help" in line  # where to look, on the same line
    assert "╭" not in line


def test_help_is_still_drawn_by_typer() -> None:
    result = runner.invoke(app, ["play", "--help"], env=WIDE)
    assert result.exit_code == 0
    assert "Usage:" in result.stdout and "--players" in result.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_has_no_type_label_on_flags_nor_braces(command: tuple[str, ...]) -> None:
    """Nor on a text argument: its name (RECORD, FACES) says what it is, ``<str>`` nothing."""
    result = runner.invoke(app, [*command, "--help"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.stdout
    assert "<str>" not in result.stdout
    usage = next(line for line in result.stdout.splitlines() if "Usage:" in line)
    assert "{" not in usage, usage


def test_the_ray_extra_is_shown_not_eaten_as_markup() -> None:
    result = runner.invoke(app, ["simulate", "--help"], env=WIDE)
    assert "pip install 'zloutch[ray]'" in result.stdout


def test_every_command_summary_is_one_line() -> None:
    """``zloutch --help`` lists each command by its docstring's first paragraph: one line."""
    group: Any = typer.main.get_command(app)
    for name, command in group.commands.items():
        commands = getattr(command, "commands", None) or {name: command}
        for sub in commands.values():
            first = (sub.help or "").strip().split("\n\n")[0]
            assert "\n" not in first, f"{name}: {first!r}"


# ---------------------------------------------------------------------- flags that do not apply


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["solve", "--compensation"], "--compensation"),
        (["solve", "--device", "cuda"], "--device"),
        (["solve", "--game", "--not-entered"], "--not-entered"),
        (["solve", "--game", "--score", "500"], "--score"),
        (["plot", "policy", "--opponent", "500", "--out", "p.png"], "--opponent"),
        (["simulate", "--backend", "ray", "--jobs", "2"], "--jobs"),
        (["simulate", "--address", "auto"], "--address"),
        (["score", "1", "5", "--total", "300"], "--total"),
    ],
)
def test_a_flag_that_does_not_apply_is_an_error(args: list[str], flag: str) -> None:
    assert flag in one_error_line(runner.invoke(app, args, env=WIDE))


def test_review_flags_that_show_nothing_are_errors(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    played = runner.invoke(
        app,
        [
            *("play", "--plain", "--players", "bot:easy,bot:medium", "--seed", "3"),
            *("--rules", "dix-mille(target=1000)", "--record", str(record), "--pace", "0"),
        ],
    )
    assert played.exit_code == 0, played.output
    assert "--quiet" in one_error_line(runner.invoke(app, ["review", str(record), "-q"]))
    line = one_error_line(runner.invoke(app, ["review", str(record), "--json", "-", "--all"]))
    assert "--all" in line


# ---------------------------------------------------------------------------- words


def test_score_advise_says_best_once() -> None:
    result = runner.invoke(app, ["score", "1", "5", "5", "2", "3", "--advise"], env=WIDE)
    assert result.exit_code == 0, result.output
    best = [line for line in result.stdout.splitlines() if "best" in line.lower()]
    # the advice table marks its first row, and one line says what to do
    assert [line.split()[1] for line in best if line.startswith("│")] == ["best:"]
    assert "Best: keep 1, then throw again." in result.stdout
    assert "most points: keep 1 5 5 for 200" in result.stdout


# ---------------------------------------------------------------------------- matplotlib


def test_plot_policy_without_matplotlib_prints_the_install_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    picture = tmp_path / "p.png"
    result = runner.invoke(app, ["plot", "policy", "--out", str(picture)])
    assert "pip install 'zloutch[plot]'" in one_error_line(result)
    assert not picture.exists()


# ---------------------------------------------------------------------------- Ctrl-C


def test_simulate_interrupted_keeps_the_games_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zloutch.sim import parallel

    real = parallel.play_chunk
    calls = []

    def interrupted_at_the_third(chunk: parallel.Chunk) -> Any:
        calls.append(chunk.index)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(chunk)

    monkeypatch.setattr(parallel, "play_chunk", interrupted_at_the_third)
    out = tmp_path / "partial.json"
    result = runner.invoke(
        app,
        ["simulate", "-n", "40", "-j", "1", "--method", "engine", "--json", str(out)],
        env=WIDE,
    )
    assert result.exit_code == 130, result.output
    assert "Interrupted: the results of the 10 games played of 40." in result.stderr
    assert "10 games, seed 0 (interrupted" in result.stdout
    document = json.loads(out.read_text())
    assert document["games"] == 10 and document["interrupted"] is True


def test_simulate_interrupted_before_any_game(monkeypatch: pytest.MonkeyPatch) -> None:
    from zloutch.sim import parallel

    def interrupted(chunk: parallel.Chunk) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(parallel, "play_chunk", interrupted)
    result = runner.invoke(app, ["simulate", "-n", "40", "-j", "1", "--method", "engine"])
    assert result.exit_code == 130
    assert result.stderr.strip() == "Interrupted: no game finished yet."


def test_solve_interrupted_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    import zloutch.app.solve as work  # the command imports it when it runs

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(work, "cached_turn_summary", interrupted)
    result = runner.invoke(app, ["solve"])
    assert result.exit_code == 130
    assert result.stderr.strip() == "Interrupted: nothing solved is kept."
