"""Fuzz the rule loader: random rule files (TOML built from the format's vocabulary, and raw
bytes) and random rule specs. Each loads, or is refused with one clean ``error`` line."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fuzz_support import QUICK, answer, long_run
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.rules import OPTIONS, PRESETS, load_rules, score_throw

SECTIONS = ("rules", "scoring", "turn", "game", "variants")
STRUCTURE = {
    "rules": ("name", "summary", "dice", "extends"),
    "scoring": ("singles", "kinds", "patterns"),
}
JUNK_KEYS = ("", "x", "dice ", "tagret", "1", "bump.any", "name")
WIDE_INTS = st.one_of(
    st.integers(-3, 12),
    st.sampled_from([0, 50, 100, 150, 500, 1000, 10_000, 2**31, 2**63, 10**30]),
    st.integers(-(10**20), 10**20),
)
WORDS = st.sampled_from(
    [
        "double",
        "100 x face",
        "1000 x face",
        "face x 100",
        "win",
        "none",
        "flat",
        "sum",
        "times",
        "off",
        "any",
        "current",
        "forced",
        "optional",
        "throw",
        "turn",
        "",
        "x",
        *PRESETS,
    ]
)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
SCALARS = st.one_of(WIDE_INTS, st.booleans(), WORDS, TEXT)


def values(depth: int = 2) -> st.SearchStrategy[Any]:
    if depth == 0:
        return SCALARS
    inner = values(depth - 1)
    return st.one_of(
        SCALARS,
        st.lists(inner, max_size=6),
        st.dictionaries(
            st.sampled_from(["default", "1", "2", "3", "4", "5", "6", "x"]), inner, max_size=4
        ),
    )


def option_value(name: str) -> st.SearchStrategy[Any]:
    info = OPTIONS[name]
    right = {"bool": st.booleans(), "int": WIDE_INTS, "choice": st.sampled_from(info.choices)}
    return st.one_of(right[info.kind], right[info.kind], SCALARS)


@st.composite
def pattern(draw: st.DrawFn) -> dict[str, Any]:
    table: dict[str, Any] = {}
    if draw(st.booleans()):
        table["name"] = draw(TEXT)
    if draw(st.integers(0, 9)):
        table["faces"] = draw(st.lists(st.integers(-1, 8), max_size=7))
    if draw(st.integers(0, 9)):
        table["points"] = draw(WIDE_INTS)
    if draw(st.booleans()):
        table["thrown"] = draw(st.integers(0, 7))
    if draw(st.integers(0, 5)) == 0:
        table[draw(st.sampled_from(JUNK_KEYS))] = draw(SCALARS)
    return table


@st.composite
def rule_document(draw: st.DrawFn) -> dict[str, Any]:
    """A rule file as data: mostly the format's own keys with right or wrong values."""
    document: dict[str, Any] = {}
    sections = draw(st.lists(st.sampled_from(SECTIONS[1:]), unique=True, max_size=4))
    for section in ["rules", *sections]:
        table: dict[str, Any] = {}
        names = [o for o, info in OPTIONS.items() if info.section == section]
        chosen = draw(st.lists(st.sampled_from(names), unique=True, max_size=6)) if names else []
        for name in chosen:
            table[name] = draw(option_value(name))
        if section == "rules":
            if draw(st.integers(0, 9)):
                table["name"] = draw(st.sampled_from(["mine", "", "dix mille", "x" * 40]))
            if draw(st.integers(0, 3)) == 0:
                table["dice"] = draw(st.one_of(st.integers(0, 8), SCALARS))
            if draw(st.integers(0, 9)) > 3:
                table["extends"] = draw(st.one_of(st.sampled_from(PRESETS), SCALARS))
        if section == "scoring":
            if draw(st.integers(0, 3)):
                table["singles"] = draw(
                    st.dictionaries(
                        st.sampled_from(["1", "5", "2", "6", "0", "x"]), WIDE_INTS, max_size=3
                    )
                )
            if draw(st.booleans()):
                kinds = st.one_of(
                    WIDE_INTS,
                    WORDS,
                    st.dictionaries(
                        st.sampled_from(["default", "1", "6", "7"]),
                        st.one_of(WIDE_INTS, WORDS),
                        max_size=3,
                    ),
                )
                table["kinds"] = draw(
                    st.dictionaries(
                        st.sampled_from(["3", "4", "5", "6", "2", "7"]), kinds, max_size=4
                    )
                )
            if draw(st.integers(0, 3)) == 0:
                table["patterns"] = draw(st.lists(pattern(), max_size=3))
        if draw(st.integers(0, 9)) == 0:
            table[draw(st.sampled_from(JUNK_KEYS))] = draw(values())
        document[section] = table
    if draw(st.integers(0, 19)) == 0:
        document[draw(st.sampled_from(["extra", "rule", "Game"]))] = draw(values())
    return document


def toml_key(key: str) -> str:
    bare = key and all(c.isalnum() or c in "_-" for c in key)
    return key if bare else json.dumps(key, ensure_ascii=False)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    items = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
    return "{" + items + "}"


def to_toml(document: dict[str, Any]) -> str:
    lines: list[str] = []
    for section, table in document.items():
        if not isinstance(table, dict):
            lines.insert(0, f"{toml_key(section)} = {toml_value(table)}")
            continue
        lines.append(f"[{toml_key(section)}]")
        for key, value in table.items():
            if key == "patterns" and isinstance(value, list) and value and section == "scoring":
                continue  # arrays of tables go below
            lines.append(f"{toml_key(key)} = {toml_value(value)}")
        for table_of in table.get("patterns", []) if section == "scoring" else []:
            if isinstance(table_of, dict):
                lines.append("[[scoring.patterns]]")
                lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in table_of.items()]
    return "\n".join(lines) + "\n"


def load_file(fuzzer: str, content: bytes, options: str = "") -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzzed.toml"
        path.write_bytes(content)
        rules = answer(fuzzer, lambda: load_rules(f"{path}{options}"))
        if rules is not None:  # a rule set that loads scores a throw, and shows its spec
            assert rules.spec
            score_throw(rules, tuple(range(1, rules.dice + 1)))


def check_document(document: dict[str, Any]) -> None:
    load_file("rule files (TOML)", to_toml(document).encode())


def check_bytes(content: bytes) -> None:
    load_file("rule files (bytes)", content)


@given(rule_document())
@QUICK
def test_rule_files_quick(document: dict[str, Any]) -> None:
    check_document(document)


@pytest.mark.slow
@given(rule_document())
@long_run(3000)
def test_rule_files(document: dict[str, Any]) -> None:
    check_document(document)


RAW = st.one_of(
    st.binary(max_size=400),
    st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"\xff\xfe[rules]", b"[rules]\ndice = 5\x00", b"[[rules]]", b"=" * 50]),
)


@given(RAW)
@QUICK
def test_rule_bytes_quick(content: bytes) -> None:
    check_bytes(content)


@pytest.mark.slow
@given(RAW)
@long_run(1500)
def test_rule_bytes(content: bytes) -> None:
    check_bytes(content)


# ---------------------------------------------------------------------------- specs


@st.composite
def spec(draw: st.DrawFn) -> str:
    """A rule spec: a preset or not, options by name with right, wrong and wide values."""
    head = draw(
        st.one_of(st.sampled_from(PRESETS), st.sampled_from(["", "dix", "x.toml", "DIX-MILLE"]))
    )
    if draw(st.integers(0, 4)) == 0:
        return head + draw(st.text(max_size=30))
    parts = []
    for _ in range(draw(st.integers(0, 6))):
        name = draw(st.one_of(st.sampled_from(sorted(OPTIONS)), st.sampled_from(JUNK_KEYS)))
        if draw(st.integers(0, 3)) == 0:
            parts.append(name)  # a flag alone
            continue
        value = draw(option_value(name)) if name in OPTIONS else draw(SCALARS)
        text = toml_value(value) if not isinstance(value, str) else value
        parts.append(f"{name}={text}")
    joiner = draw(st.sampled_from([",", ", ", ",,", ";"]))
    close = draw(st.sampled_from([")", ")", "", "))", ")x"]))
    return f"{head}({joiner.join(parts)}{close}"


def check_spec(text: str) -> None:
    rules = answer("rule specs", lambda: load_rules(text))
    if rules is not None:
        assert load_rules(rules.spec).spec == rules.spec  # the canonical spec loads again
    # and at the command line: the rules, or one error line
    result = CliRunner().invoke(app, ["rules", "show", text])
    assert result.exit_code == (0 if rules is not None else 2), result.output
    if rules is None:
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr


@given(spec())
@QUICK
def test_rule_specs_quick(text: str) -> None:
    check_spec(text)


@pytest.mark.slow
@given(spec())
@long_run(4000)
def test_rule_specs(text: str) -> None:
    check_spec(text)
