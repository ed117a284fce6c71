"""Rewrite the golden transcripts of the line mode (tests/adapters/golden/*.txt).

    python scripts/regen_golden.py          # every case
    python scripts/regen_golden.py joker    # some cases, by name

The tests never rewrite them: run this only when a change of the output is intended, and
read the diff before committing it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "adapters"))

from plain_golden import CASES, golden_path, run_case


def main(names: list[str]) -> None:
    unknown = set(names) - {case.name for case in CASES}
    if unknown:
        raise SystemExit(f"no such case: {', '.join(sorted(unknown))}")
    for case in CASES:
        if names and case.name not in names:
            continue
        with tempfile.TemporaryDirectory() as scratch:
            text = run_case(case, Path(scratch))
        path = golden_path(case)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        path.write_text(text, encoding="utf-8")
        print(f"{'unchanged' if old == text else 'wrote'} {path.name}")


if __name__ == "__main__":
    main(sys.argv[1:])
