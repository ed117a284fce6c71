"""What the cache's damage tests do to an entry: cut it short, or flip one of its bytes."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st


def damage(data: st.DataObject, path: Path) -> None:
    """Rewrite the file at ``path`` cut at a length, or with one byte changed, both drawn."""
    original = path.read_bytes()
    if data.draw(st.booleans(), label="cut"):
        damaged = original[: data.draw(st.integers(0, len(original) - 1), label="length")]
    else:
        at = data.draw(st.integers(0, len(original) - 1), label="at")
        flip = data.draw(st.integers(1, 255), label="xor")
        damaged = original[:at] + bytes([original[at] ^ flip]) + original[at + 1 :]
    path.write_bytes(damaged)
