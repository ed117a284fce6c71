"""Fuzz the game records: mutations of real records (actions deleted, duplicated, swapped,
their numbers changed, fields replaced, the text truncated). Each one loads and resumes, or
is refused with one clean ``error`` line."""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

import pytest
from fuzz_support import QUICK, answer, long_run
from hypothesis import given
from hypothesis import strategies as st

from zloutch.app.dice import SeededDice
from zloutch.app.match import Need
from zloutch.app.session import Session
from zloutch.engine.record import load_record

SPECS = ("dix-mille", "farkle", "dix-mille(joker,confirmation)", "cinq-mille")


@cache
def real_record(spec: str, moves: int) -> str:
    """The record of a bots' game on ``spec``, saved after ``moves`` actions (or at its end)."""
    session = Session.new(spec, "bot:easy,bot:medium,bot:cautious", dice=SeededDice(7))
    for _ in range(moves):
        need = session.need()
        if need is Need.OVER:
            break
        session.roll() if need is Need.DICE else session.bot_step()
    from zloutch.engine.record import dump_record

    return dump_record(session.record, session.state)


JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.text(max_size=12),
    st.lists(st.integers(0, 7), max_size=4),
)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    spec = draw(st.sampled_from(SPECS))
    text = real_record(spec, draw(st.sampled_from([0, 5, 40, 400, 5000])))
    document: dict[str, Any] = json.loads(text)
    actions: list[Any] = document.get("actions", [])
    rng = random.Random(draw(st.integers(0, 2**32)))
    for _ in range(draw(st.integers(0, 4))):  # none: the record as saved
        kind = draw(
            st.sampled_from(
                ["delete", "duplicate", "swap", "number", "field", "drop", "action", "truncate"]
            )
        )
        if kind in ("delete", "duplicate", "swap", "number", "action") and not actions:
            kind = "field"
        if kind == "delete":
            del actions[rng.randrange(len(actions))]
        elif kind == "duplicate":
            i = rng.randrange(len(actions))
            actions.insert(i, actions[i])
        elif kind == "swap":
            i, j = rng.randrange(len(actions)), rng.randrange(len(actions))
            actions[i], actions[j] = actions[j], actions[i]
        elif kind == "number":
            i = rng.randrange(len(actions))
            words = str(actions[i]).split()
            if len(words) > 1:
                k = rng.randrange(1, len(words))
                words[k] = str(draw(st.sampled_from([0, 1, 5, 6, 7, 9, -1, 10**6])))
            actions[i] = " ".join(words)
        elif kind == "action":
            actions[rng.randrange(len(actions))] = draw(
                st.one_of(JSON_VALUES, st.sampled_from(["bank", "throw", "off", "roll", "keep"]))
            )
        elif kind == "field":
            key = draw(st.sampled_from([*sorted(document), "extra"]))
            document[key] = draw(JSON_VALUES)
        elif kind == "drop" and document:
            document.pop(draw(st.sampled_from(sorted(document))))
        elif kind == "truncate":
            out = json.dumps(document)
            return out[: draw(st.integers(0, len(out)))]
    return json.dumps(document)


def check(text: str) -> None:
    loaded = answer("records", lambda: load_record(text))
    if loaded is not None:
        answer("records resumed", lambda: Session.resume(text))


@given(mutated())
@QUICK
def test_record_mutations_quick(text: str) -> None:
    check(text)


@pytest.mark.slow
@given(mutated())
@long_run(2500)
def test_record_mutations(text: str) -> None:
    check(text)
