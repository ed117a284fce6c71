"""Bytes that are no text in the line mode's input are a refused line, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def test_a_byte_that_is_no_utf8_is_a_refused_line() -> None:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "zloutch", "play", "--plain", "-r", "dix-mille"]
    command += ["-p", "Ana,Bob", "--pace", "0", "--seed", "1"]
    done = subprocess.run(
        command, input=b"throw\n\xff\nquit\n", env=env, capture_output=True, timeout=60
    )
    out = done.stdout.decode("utf-8", "replace") + done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0, out
    assert "Traceback" not in out and "UnicodeDecodeError" not in out
    assert "is not a command" in out and out.rstrip().endswith("Bye.")
