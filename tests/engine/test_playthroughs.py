"""The golden playthroughs: each preset's seeded game, replayed line for line.

Each file of ``golden/`` holds one game step by step (``playthrough_text``). The test reads
its actions back, plays them through the engine and writes the text again: any change of a
state, of the legal actions, of a chance node's probabilities or of an event is a changed
line, shown as a unified diff. Only ``python scripts/regen_playthroughs.py`` rewrites them.
"""

from __future__ import annotations

import difflib

import pytest
from playthrough_text import (
    PRESETS,
    REGENERATE,
    STEPS,
    PlaythroughError,
    golden_path,
    read,
    record,
    replay,
)


def unified(expected: str, actual: str, name: str) -> str:
    lines = difflib.unified_diff(
        expected.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        fromfile=f"golden/{name}.txt",
        tofile="the engine now",
    )
    return "".join(lines)


@pytest.mark.parametrize("preset", PRESETS)
def test_playthrough_replays_line_for_line(preset: str) -> None:
    path = golden_path(preset)
    assert path.exists(), f"no playthrough {path.name}: run {REGENERATE} {preset}"
    expected = path.read_text(encoding="utf-8")
    try:
        actual = replay(expected)
    except PlaythroughError as exc:
        pytest.fail(
            f"{path.name}: {exc}\nIf the engine's change is intended, run {REGENERATE} {preset} "
            "and read the diff before committing it."
        )
    if actual != expected:
        pytest.fail(
            f"{path.name} differs from what the engine plays now:\n"
            f"{unified(expected, actual, preset)}\n"
            f"If the change is intended, run {REGENERATE} {preset} and read the diff before "
            "committing it.",
            pytrace=False,
        )


@pytest.mark.parametrize("preset", PRESETS)
def test_playthrough_is_the_seeded_game_of_its_preset(preset: str) -> None:
    """The file is what the script writes: its header names the preset, and the seed with
    the random policy chooses the very actions written (no hand edits)."""
    text = golden_path(preset).read_text(encoding="utf-8")
    header, actions = read(text)
    assert header.rules == preset
    assert len(actions) == STEPS or text.rstrip().splitlines()[-1].startswith("  winners: ")
    assert record(preset) == text, f"{preset}.txt is not the seeded game: run {REGENERATE}"


def test_a_changed_line_is_shown_as_a_diff_that_names_the_script() -> None:
    text = golden_path(PRESETS[0]).read_text(encoding="utf-8")
    edited = text.replace("legal: throw\n", "legal: throw | bank\n", 1)
    assert edited != text
    diff = unified(edited, replay(edited), PRESETS[0])
    assert "-  legal: throw | bank" in diff and "+  legal: throw" in diff


def test_an_action_that_no_longer_applies_is_named_with_its_step() -> None:
    text = golden_path(PRESETS[0]).read_text(encoding="utf-8")
    broken = text.replace("  action: throw\n", "  action: bank\n", 1)
    with pytest.raises(PlaythroughError, match=r"step 1: bank raised IllegalActionError"):
        replay(broken)
