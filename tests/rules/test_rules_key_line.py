"""Where a rule file's mistake is: ``key_line`` finds the line of the key an error names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zloutch.rules import PRESETS, InvalidRulesError, load_rules, parse_rules_text
from zloutch.rules.loader import key_line
from zloutch.rules.writing import to_toml

TEXT = """\
# a house table
[rules]
name = "house"
description = '''
target = 1
'''
dice = 5

[scoring]
singles = { 1 = 100, 5 = 50 }
"three_pairs" = 500

[[scoring.patterns]]
name = "a"
faces = [1, 2, 3, 4, 5]

[[scoring.patterns]]
name = "b"
faces = [2, 3, 4, 5, 6]

[game]
turn.entry = 300
"""


@pytest.mark.parametrize(
    ("key", "line"),
    [
        ("rules.name", 3),
        ("rules.dice", 7),  # not the target = 1 inside the multi-line string
        ("scoring.singles", 10),
        ("scoring.singles.7", 10),  # inside an inline table: the table's line
        ("scoring.three_pairs", 11),  # a quoted key
        ("scoring.patterns[0].faces", 15),
        ("scoring.patterns[1].faces", 19),
        ("scoring.patterns[1]", 17),
        ("scoring.patterns[2].faces", 9),  # no third pattern: the line of [scoring]
        ("game.turn.entry", 22),  # a dotted key
        ("game.target", 21),  # missing: its table
        ("turn.entry", None),  # no [turn] anywhere in the text
        ("rules.target", 2),  # the string's line is no key
    ],
)
def test_the_line_of_a_key(key: str, line: int | None) -> None:
    assert key_line(TEXT, key) == line


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_key_a_written_rule_set_holds_is_found_on_its_line(name: str) -> None:
    """Every preset written as a file (``rules show --toml``): each key is found on the line
    that writes it."""
    text = to_toml(load_rules(name))
    table = ""
    checked = 0
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"(\[\[?)([\w.]+)\]\]?$", line)
        if header:  # an array of tables' keys are checked by the cases above
            table = header.group(2) if header.group(1) == "[" else ""
            continue
        assign = re.match(r"([\w-]+) = ", line)
        if assign and table:
            assert key_line(text, f"{table}.{assign.group(1)}") == number, line
            checked += 1
    assert checked >= 5


def test_a_line_separator_inside_a_string_is_no_line_end() -> None:
    """TOML ends lines at a newline alone: a summary pasted with U+2028 in it moves no line."""
    text = '[rules]\nname = "x"\nsummary = "a\u2028b"\n[turn]\nentri = 5\n'
    assert key_line(text, "turn.entri") == 5


def test_an_error_says_the_line_of_its_key_in_the_file_itself(tmp_path: Path) -> None:
    text = '[rules]\nextends = "farkle"\n\n[turn]\nfarkle_penalty = 500\nfarkle_penalty_after = 0\n'
    with pytest.raises(InvalidRulesError) as info:
        parse_rules_text(text, source="house.toml", load_base=load_rules)
    assert info.value.key == "turn.farkle_penalty_after" and info.value.line == 6
    # A preset's own mistakes are not the file's: only a file's text gives a line.
    with pytest.raises(InvalidRulesError) as info:
        load_rules("farkle(entry=-5)")
    assert info.value.line is None
