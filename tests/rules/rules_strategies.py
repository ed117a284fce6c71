"""Hypothesis strategies for rule files: parsed TOML documents, mostly well typed."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from zloutch.rules import OPTIONS, PRESETS
from zloutch.rules.ruleset import SECTIONS, option_choices, option_kind

SCALARS = st.one_of(
    st.booleans(),
    st.integers(-3, 12000),
    st.sampled_from(["sum", "times", "off", "any", "double", "win", "none", "100 x face", ""]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["1", "3", "5", "6", "default", "x"]), inner, max_size=3),
    ),
    max_leaves=6,
)
"""Anything at all, most of it wrong."""


def mostly(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A well-typed value nine times in ten, anything the tenth."""
    return st.integers(0, 9).flatmap(lambda i: VALUES if i == 5 else good)


def option_value(name: str) -> st.SearchStrategy[Any]:
    kind = option_kind(name)
    if kind == "bool":
        return st.booleans()
    if kind == "int":
        return st.integers(0, 60).map(lambda k: 50 * k)
    return st.sampled_from(option_choices(name))


KIND_RULES = st.sampled_from(
    ["none", "win", "double", "(n-2) x three", "100 x face", "1000 x face", "1000", "300"]
)
KINDS = st.dictionaries(
    st.sampled_from(["3", "4", "5", "6"]),
    st.one_of(
        KIND_RULES,
        st.dictionaries(st.sampled_from(["default", "1", "2", "5", "6"]), KIND_RULES, max_size=3),
    ),
    max_size=4,
)
PATTERN = st.fixed_dictionaries(
    {"faces": mostly(st.lists(st.integers(1, 6), min_size=2, max_size=6))},
    optional={
        "points": mostly(st.integers(1, 40).map(lambda k: 50 * k)),
        "thrown": mostly(st.integers(0, 6)),
        "name": mostly(st.text(max_size=8)),
    },
)
SCORING_STRUCTURES = {
    "singles": st.dictionaries(
        st.sampled_from(["1", "2", "5", "6"]), st.integers(1, 8).map(lambda k: 50 * k)
    ),
    "kinds": KINDS,
    "patterns": st.lists(PATTERN, max_size=3),
}


@st.composite
def rule_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A parsed rule file: mostly well typed, so that some of them load."""
    head: dict[str, Any] = {}
    if draw(st.booleans()):
        head["extends"] = draw(st.sampled_from([*PRESETS, "nope"]))
    else:
        head["name"] = draw(mostly(st.just("fuzz")))
        head["dice"] = draw(mostly(st.integers(1, 6)))
    doc: dict[str, Any] = {"rules": head, "game": {}}
    if "extends" not in head:
        doc["game"]["target"] = draw(mostly(st.integers(1, 200).map(lambda k: 100 * k)))
    for name in draw(st.lists(st.sampled_from(sorted(OPTIONS)), max_size=5)):
        section = OPTIONS[name].section
        doc.setdefault(section, {})[name] = draw(mostly(option_value(name)))
    for name, strategy in SCORING_STRUCTURES.items():
        if draw(st.booleans()):
            doc.setdefault("scoring", {})[name] = draw(mostly(strategy))
    if draw(st.integers(0, 9)) == 5:
        doc.setdefault(draw(st.sampled_from(["rules", *SECTIONS])), {})["bogus"] = draw(VALUES)
    return doc


@st.composite
def option_sets(draw: st.DrawFn) -> dict[str, Any]:
    """A few options with values of their type (many of them make an invalid rule set)."""
    names = draw(st.lists(st.sampled_from(sorted(OPTIONS)), min_size=1, max_size=4, unique=True))
    return {name: draw(option_value(name)) for name in names}
