"""The commands read the files they are given only when they are regular files of bounded
size: /dev/zero was read without end, and a FIFO blocked ``open`` for good."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from zloutch.adapters.cli import app

COMMANDS = [
    ["record", "show", "{path}"],
    ["verify", "{path}"],
    ["review", "{path}"],
    ["play", "--plain", "--resume", "{path}"],
    ["play", "--plain", "--dice", "{path}", "-p", "Ana,Bob"],
]


@pytest.mark.parametrize("kind", ["device", "fifo", "link to a device"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_file_that_is_no_regular_file_is_one_line(
    tmp_path: Path, kind: str, command: list[str]
) -> None:
    path = "/dev/zero"
    if kind == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    elif kind == "link to a device":
        path = str(tmp_path / "game.json")
        os.symlink("/dev/zero", path)
    args = [part.replace("{path}", path) for part in command]
    result = CliRunner().invoke(app, args, input="quit\n")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "not a regular file" in lines[0], result.output
