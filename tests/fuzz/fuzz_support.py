"""What the fuzzers share: the outcome counts, the one rule every answer must keep, the
hypothesis settings of the quick and the long runs, and the engine's checker.

Every fuzzer feeds generated input to an entry point and sorts the answer: it worked
(``ok``), or it was refused with a ``ZloutchError`` whose message is one non-empty line
(``error``). Anything else (another exception, a traceback, an empty or multi-line message)
fails the test. The counts are printed at the end of the run (``conftest.py``).
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import TypeVar

from hypothesis import HealthCheck, settings

from zloutch.adapters.cli.support import one_line
from zloutch.rules import ZloutchError

T = TypeVar("T")

COUNTS: Counter[tuple[str, str]] = Counter()
"""(fuzzer, outcome) -> how many inputs; outcome is ok or error (a clean ZloutchError)."""

ROOT = Path(__file__).resolve().parents[2]

QUICK = settings(
    max_examples=8,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""The default run: a few examples of each fuzzer, so a breakage shows in the fast suite."""


def long_run(examples: int) -> settings:
    """The slow run (``-m slow``): seeded, so a failure replays."""
    return settings(QUICK, max_examples=examples)


def clean_error(error: ZloutchError) -> str:
    """The message of a refusal, checked: not empty, no traceback, and one line as the
    command line prints it (``one_line`` escapes the line breaks of a quoted input)."""
    text = str(error)
    assert text.strip(), f"{type(error).__name__} without a message"
    assert "Traceback" not in text, text
    assert "\n" not in one_line(text)
    return text


def answer(fuzzer: str, run: Callable[[], T]) -> T | None:
    """``run()``, counted: its result, or None after a clean ``ZloutchError``."""
    try:
        result = run()
    except ZloutchError as exc:
        clean_error(exc)
        COUNTS[fuzzer, "error"] += 1
        return None
    COUNTS[fuzzer, "ok"] += 1
    return result


def engine_checks() -> ModuleType:
    """The engine suite's checker (tests/engine/conftest.py), loaded from its file: its
    fixture is only seen under tests/engine."""
    path = ROOT / "tests" / "engine" / "conftest.py"
    spec = importlib.util.spec_from_file_location("zloutch_engine_checks", path)
    assert spec is not None and spec.loader is not None
    if spec.name in sys.modules:
        return sys.modules[spec.name]
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def count(fuzzer: str, outcome: str, n: int = 1) -> None:
    COUNTS[fuzzer, outcome] += n
