"""Rewrite the parts of docs/rules.md written from the rule data (the options, the presets).

    python scripts/regen_rules_doc.py

The tests never rewrite the page: run this after changing an option's rule ids or meaning, or
a preset, and read the diff before committing it.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "docs"))

from rules_doc_blocks import DOC, rewrite


def main() -> None:
    old = DOC.read_text(encoding="utf-8")
    new = rewrite(old)
    DOC.write_text(new, encoding="utf-8")
    print(f"{'unchanged' if old == new else 'wrote'} {DOC}")


if __name__ == "__main__":
    main()
