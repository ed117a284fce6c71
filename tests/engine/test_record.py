"""Game records: versioned JSON that replays exactly, or is refused whole (issue: records)."""

from __future__ import annotations

import json
import random

import pytest

from zloutch.engine import (
    CHANCE,
    GameState,
    apply,
    current_player,
    is_terminal,
    legal_actions,
    new_game,
)
from zloutch.engine.actions import Bank
from zloutch.engine.record import (
    VERSION,
    InvalidRecordError,
    Record,
    dump_record,
    load_record,
    roll,
    sheet_json,
)
from zloutch.rules import load_rules


def random_game(spec: str, seed: int) -> tuple[Record, GameState]:
    rules = load_rules(spec)
    record = Record(rules.spec, ("Ana", "Bob"), seed=seed)
    state = record.start()
    rng = random.Random(seed)
    actions = []
    while not is_terminal(state) and len(actions) < 20000:
        if current_player(state) == CHANCE:
            action = roll(state, rng)
        else:
            options = legal_actions(state)
            action = Bank() if Bank() in options and rng.random() < 0.6 else rng.choice(options)
        actions.append(action)
        state = apply(state, action)
    return record.extended(actions), state


def test_a_record_replays_to_the_same_state() -> None:
    record, state = random_game("dix-mille(joker,bump=any)", 7)
    text = dump_record(record, state)
    loaded, replayed = load_record(text)
    assert loaded == record
    assert replayed == state
    assert json.loads(text)["sheet"] == sheet_json(state)


def test_same_seed_same_game() -> None:
    first = random_game("cinq-mille", 11)
    second = random_game("cinq-mille", 11)
    assert first == second
    assert random_game("cinq-mille", 12)[0].actions != first[0].actions


def test_sheet_json_shape() -> None:
    _, state = random_game("greed", 3)
    sheet = sheet_json(state)
    assert set(sheet) == {"rules", "players", "winners", "finished"}
    assert sheet["finished"] is True and sheet["rules"] == "greed"
    for player in sheet["players"]:
        assert set(player) == {"name", "score", "entered", "levels"}
        for level in player["levels"]:
            assert set(level) == {"value", "crossed", "pp", "ticks"}
    assert all(w in ("Ana", "Bob") for w in sheet["winners"])


def test_a_record_from_a_newer_version_is_refused() -> None:
    record, state = random_game("greed", 3)
    data = json.loads(dump_record(record, state))
    data["version"] = VERSION + 1
    with pytest.raises(InvalidRecordError, match="newer zloutch"):
        load_record(json.dumps(data))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "invalid JSON at line 1"),
        ("[]", "not a game record"),
        ("[" * 100_000 + "]" * 100_000, "its JSON cannot be read"),
        ('{"format": "zloutch-record", "version": 0}', "no record version 0"),
        ('{"format": "zloutch-record", "version": -3}', "no record version -3"),
        ('{"format": "zloutch-record", "version": "one"}', "'version' must be"),
        (
            '{"format": "zloutch-record", "version": 1, "rules": "nope", "players": ["A", "B"],'
            ' "actions": []}',
            "unknown preset",
        ),
        (
            '{"format": "zloutch-record", "version": 1, "rules": "greed", "players": "A",'
            ' "actions": []}',
            "'players' must be",
        ),
    ],
)
def test_corrupt_records_are_refused_with_a_clear_message(text: str, message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        load_record(text)


def test_an_illegal_action_is_refused_with_its_place() -> None:
    record = Record(
        "dix-mille", ("Ana", "Bob"), ("throw", "roll 1 1 1 5 3", "keep 1 1 1 5", "bank")
    )
    with pytest.raises(InvalidRecordError) as info:
        load_record(
            dump_record(Record(record.rules, record.players, record.actions[:3])).replace(
                '"keep 1 1 1 5"', '"keep 1 1 1 5",\n    "bank"'
            )
        )
    assert "action 4 ('bank') is not legal" in str(info.value)
    assert "T-6" in str(info.value)


def test_a_sheet_that_does_not_match_the_replay_is_refused() -> None:
    record = Record("dix-mille", ("Ana", "Bob"), ("throw", "roll 1 1 1 2 3", "keep 1 1 1", "bank"))
    data = json.loads(dump_record(record))
    data["sheet"]["players"][0]["score"] = 2000
    with pytest.raises(InvalidRecordError, match="does not match its actions"):
        load_record(json.dumps(data))


def test_a_table_record_keeps_its_mode() -> None:
    record = Record(
        "dix-mille", ("Ana", "Bob"), ("throw", "roll 1 1 1 2 3", "off"), table_mode=True
    )
    _, state = load_record(dump_record(record))
    assert state.table_mode and state.turn.player == 1
    assert new_game(load_rules("dix-mille"), ["Ana", "Bob"]).table_mode is False


def test_a_long_bad_action_is_quoted_short() -> None:
    record = Record("dix-mille", ("Ana", "Bob"), ("throw", "roll " + "1 " * 5000))
    with pytest.raises(InvalidRecordError) as info:
        load_record(
            dump_record(Record(record.rules, record.players)).replace(
                '"actions": []', '"actions": ["throw", "roll ' + "1 " * 5000 + '"]'
            )
        )
    message = str(info.value)
    assert message.startswith("cannot replay") or "action 2" in message
    assert len(message) < 300 and "..." in message


def test_a_version_1_record_is_read_without_its_level_ticks() -> None:
    # Version 1 wrote the ticks a level had before a fall-back (G-3): they are not compared.
    record = Record("dix-mille", ("Ana", "Bob"), ("throw", "roll 1 1 1 2 3", "keep 1 1 1", "bank"))
    data = json.loads(dump_record(record))
    data["sheet"]["players"][0]["levels"][0]["ticks"] = 2
    data["version"] = 1
    _, state = load_record(json.dumps(data))
    assert state.sheets[0].score == 1000
    data["version"] = VERSION
    with pytest.raises(InvalidRecordError, match="does not match its actions"):
        load_record(json.dumps(data))
