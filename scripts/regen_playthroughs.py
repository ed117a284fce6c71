"""Rewrite the golden playthroughs of the engine (tests/engine/golden/<preset>.txt).

    python scripts/regen_playthroughs.py            # every preset
    python scripts/regen_playthroughs.py greed      # some presets, by name

Each preset gets one seeded random game, step by step: the state, the legal actions, the
action taken and its events. tests/engine/test_playthroughs.py replays the actions of each
file and compares every line; it never rewrites them. Run this only when a change of the
engine's behaviour is intended, and read the diff before committing it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "engine"))

from playthrough_text import PRESETS, golden_path, record


def main(names: list[str]) -> None:
    unknown = set(names) - set(PRESETS)
    if unknown:
        raise SystemExit(f"error: no such preset: {', '.join(sorted(unknown))}")
    for preset in PRESETS:
        if names and preset not in names:
            continue
        text = record(preset)
        path = golden_path(preset)
        path.parent.mkdir(exist_ok=True)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        path.write_text(text, encoding="utf-8")
        print(f"{'unchanged' if old == text else 'wrote'} golden/{path.name}")


if __name__ == "__main__":
    main(sys.argv[1:])
