"""The fuzzers' counts, printed at the end of a run that played them."""

from __future__ import annotations

from typing import Any

from fuzz_support import COUNTS


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not COUNTS:
        return
    terminalreporter.section("fuzz counts")
    for fuzzer in sorted({f for f, _ in COUNTS}):
        kinds = {k: n for (f, k), n in COUNTS.items() if f == fuzzer}
        words = ", ".join(f"{n:,} {k}" for k, n in sorted(kinds.items()))
        terminalreporter.write_line(f"{fuzzer}: {words}")
