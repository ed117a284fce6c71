"""Records of every version load (golden files written by the code of their time), the sheet
is always checked and its mismatch named, the dice segments read back, and a rule set kept
as its canonical text replays to the same rule set (issue 12, item 6)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from zloutch.app.fairdice import Verdict, verify_record
from zloutch.engine.endings import checked, load_rules
from zloutch.engine.record import (
    VERSION,
    DiceCommitment,
    InvalidRecordError,
    Record,
    UncommittedDice,
    dump_record,
    kept_rules,
    load_record,
    read_record,
)
from zloutch.rules import PRESETS, InvalidRulesError, RuleSet, to_toml, with_options
from zloutch.rules.ruleset import OPTIONS


def checked_options(rules: RuleSet, values: Any) -> RuleSet:
    """Options switched, the result proven to end (as ``load_rules`` of its spec does)."""
    return checked(with_options(rules, values))


RECORDS = Path(__file__).parent / "records"

GOLDEN = {
    # file: (version, scores, winners, actions, what verify says)
    "v1_local_finished.json": (1, [1900, 2000], ["Bob"], 313, Verdict.UNCHECKABLE),
    "v2_local_finished.json": (2, [1900, 2000], ["Bob"], 313, Verdict.UNCHECKABLE),
    "v3_local_mid_game.json": (3, [0, 1000], [], 25, Verdict.UNCHECKABLE),
    "v3_server_finished.json": (3, [2100, 3050], ["bot:medium"], 217, Verdict.VERIFIED),
    "v3_server_continued_house_rules.json": (3, [3450, 2700], ["Ana"], 189, Verdict.VERIFIED),
    "v3_table.json": (3, [0, 0], [], 30, Verdict.REAL_DICE),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_records_of_every_earlier_version_load_and_verify_as_before(name: str) -> None:
    version, scores, winners, count, verdict = GOLDEN[name]
    text = (RECORDS / name).read_text()
    assert json.loads(text)["version"] == version
    record, state = load_record(text)
    assert [s.score for s in state.sheets] == scores
    assert [state.sheets[w].name for w in state.winners] == winners
    assert len(record.actions) == count
    result = verify_record(record, text)
    assert result.verdict is verdict and result.replay_error is None
    # Written again (version 4), the record says the same and loads to the same state.
    again, state_again = load_record(dump_record(record, state))
    assert again == record and state_again == state


def test_a_continued_server_record_keeps_its_first_throw_and_its_rule_file() -> None:
    record, state = load_record((RECORDS / "v3_server_continued_house_rules.json").read_text())
    (dice,) = record.dice
    assert isinstance(dice, DiceCommitment) and dice.first_throw == 4
    assert record.rules_toml is not None and state.rules.name == "our table"
    result = verify_record(record)
    assert [c.throw for c in result.before] == [0, 1, 2, 3]  # thrown before the server
    assert all(c.matches for c in result.checked) and len(result.checked) > 40


# ---------------------------------------------------------------------------- the sheet


def small_record() -> dict[str, Any]:
    record = Record("dix-mille", ("Ana", "Bob"), ("throw", "roll 1 1 1 2 3", "keep 1 1 1", "bank"))
    data: dict[str, Any] = json.loads(dump_record(record))
    return data


@pytest.mark.parametrize("version", range(1, VERSION + 1))
def test_a_record_without_its_sheet_is_refused_in_every_version(version: int) -> None:
    data = small_record()
    data["version"] = version
    del data["sheet"]
    with pytest.raises(InvalidRecordError, match="it has no 'sheet' \\(every version"):
        load_record(json.dumps(data))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda s: s["players"][0].update(score=1350),
            "the record's sheet says Ana stands at 1,350; its actions give 1,000",
        ),
        (
            lambda s: s["players"][0]["levels"][0].update(value=1350),
            "the record's sheet writes Ana's level 1 as 1,350; its actions give 1,000",
        ),
        (
            lambda s: s["players"][0]["levels"][0].update(crossed=True),
            "writes Ana's level 1 as 1,000 crossed; its actions give 1,000",
        ),
        (
            lambda s: s["players"][1]["levels"].append(
                {"value": 500, "crossed": False, "pp": False, "ticks": 0}
            ),
            "writes 1 level for Bob; its actions give 0",
        ),
        (
            lambda s: s["players"][1].update(entered=True),
            "says Bob has entered the game; by its actions Bob has not (T-7)",
        ),
        (lambda s: s.update(finished=True), "says the game is over; by its actions it is not"),
        (lambda s: s.update(winners=["Bob"]), "says the winners are Bob; its actions give nobody"),
        (lambda s: s.update(rules="greed"), "is of the rules 'greed'; its actions are played"),
        (lambda s: s["players"].append(17), "has 3 players; its actions are played by 2"),
    ],
)
def test_a_sheet_that_differs_names_the_player_and_the_level(change: Any, words: str) -> None:
    data = small_record()
    change(data["sheet"])
    with pytest.raises(InvalidRecordError) as info:
        load_record(json.dumps(data))
    message = str(info.value)
    assert message.startswith("corrupt record: its sheet does not match its actions: ")
    assert words in message and "\n" not in message


@pytest.mark.parametrize(
    ("players", "listed"),
    [
        (["Ana", "Carl"], "Ana, Carl"),  # a name changed
        (["Bob", "Ana"], "Bob, Ana"),  # the order
        (["Ana", "Bob", "Cy"], "Ana, Bob, Cy"),  # one more: Cy never played
        (["Ana"], "Ana"),  # one less: Bob threw
    ],
)
def test_a_player_list_changed_after_the_game_is_named_as_such(
    players: list[str], listed: str
) -> None:
    """The record's ``players`` and its sheet are written together: where they differ the
    message names both lists (it blamed the actions, which name nobody, and said a game of
    two was "played by 3")."""
    data = small_record()
    data["players"] = players
    with pytest.raises(InvalidRecordError) as info:
        load_record(json.dumps(data))
    assert str(info.value) == (
        f"corrupt record: its 'players' ({listed}) are not the players of its sheet "
        "(Ana, Bob): both are written together, so one was changed after the game"
    )


@pytest.mark.parametrize("name", sorted(p.name for p in RECORDS.glob("*.json")))
def test_a_player_added_to_or_dropped_from_a_records_list_is_named_before_its_replay(
    name: str,
) -> None:
    """With another player list the turns go round another way: the replay failed first on
    a move ("action 35 ('bank') is not legal...") that said nothing of the names. A name
    with spaces around it is the name a game seats (as a game's own list strips it)."""
    data = json.loads((RECORDS / name).read_text())
    sheet = ", ".join(data["players"])
    for players in ([*data["players"], "Cy"], data["players"][:-1]):
        edited = {**data, "players": players}
        with pytest.raises(InvalidRecordError) as info:
            load_record(json.dumps(edited))
        assert str(info.value).startswith(
            f"corrupt record: its 'players' ({', '.join(players)}) are not the players of its "
            f"sheet ({sheet})"
        )
    spaced = {**data, "players": [f" {data['players'][0]} ", *data["players"][1:]]}
    load_record(json.dumps(spaced))


@settings(max_examples=60, deadline=None)
@given(
    seat=st.integers(0, 1),
    field=st.sampled_from(["score", "value", "ticks"]),
    delta=st.integers(1, 10_000),
)
def test_any_changed_number_of_the_sheet_is_refused_with_the_players_name(
    seat: int, field: str, delta: int
) -> None:
    data = small_record()
    player = data["sheet"]["players"][seat]
    if field == "score":
        player["score"] += delta
    else:
        assume(player["levels"])
        player["levels"][0][field] += delta
    with pytest.raises(InvalidRecordError) as info:
        load_record(json.dumps(data))
    assert player["name"] in str(info.value)


# ---------------------------------------------------------------------------- dice segments


def test_dice_segments_read_back_as_written() -> None:
    data = small_record()
    segments = [
        {"scheme": "seed", "first_throw": 0, "seed": 12},
        {
            "scheme": "hmac-sha256-1",
            "commitment": "ab" * 32,
            "secret": None,
            "first_throw": 1,
            "seeds": [],
        },
    ]
    data["dice"] = {"scheme": "mixed", "segments": segments}
    record, _ = load_record(json.dumps(data))
    assert record.dice == (
        UncommittedDice("seed", 0, 12),
        DiceCommitment("ab" * 32, None, (), 1),
    )
    assert json.loads(dump_record(record))["dice"] == data["dice"]
    data["dice"] = {"scheme": "file", "first_throw": 0}
    assert load_record(json.dumps(data))[0].dice == (UncommittedDice("file"),)


@pytest.mark.parametrize(
    ("dice", "words"),
    [
        ({"scheme": "mixed", "segments": [{"scheme": "file"}]}, "two segments or more"),
        (
            {"scheme": "mixed", "segments": [{"scheme": "file"}, {"scheme": "real"}]},
            "each after the one before",
        ),
        ({"scheme": "seed", "first_throw": 0}, "gives its seed"),
        ({"scheme": "file", "seed": 3}, "gives its seed, and only it does"),
        ({"scheme": "file", "first_throw": "one"}, "'dice' must be"),
        ({"scheme": "mixed"}, "two segments or more"),
        ({"scheme": "x" * 5000}, "unknown dice scheme"),
    ],
)
def test_corrupt_dice_segments_are_refused_in_one_line(dice: Any, words: str) -> None:
    data = small_record()
    data["dice"] = dice
    with pytest.raises(InvalidRecordError, match=words) as info:
        read_record(json.dumps(data))
    assert len(str(info.value)) < 400


# ---------------------------------------------------------------------------- rule sets


@st.composite
def option_sets(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(sorted(OPTIONS)), max_size=3, unique=True))
    values: dict[str, Any] = {}
    for name in names:
        kind = OPTIONS[name]
        default = load_rules("dix-mille").option(name)
        if isinstance(default, bool):
            values[name] = draw(st.booleans())
        elif isinstance(default, int):
            values[name] = draw(st.sampled_from([0, 50, 100, 300, 500, 800, 1000, 2000, 5000]))
        else:
            choices = getattr(kind, "choices", None)
            assume(choices)
            values[name] = draw(st.sampled_from(sorted(choices)))
    return values


@pytest.mark.default_cases(3)
@pytest.mark.parametrize("preset", PRESETS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=option_sets())
def test_a_rule_file_kept_in_a_record_round_trips_to_the_same_rule_set(
    preset: str, values: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    try:
        base = checked_options(load_rules(preset), values)
    except InvalidRulesError:
        assume(False)
        return
    folder = tmp_path_factory.mktemp("rules")
    path = folder / "house.toml"
    path.write_text(to_toml(base))
    rules = load_rules(str(path))
    kept, text = kept_rules(rules)
    assert text == to_toml(rules)
    assert kept == rules  # named as before, the same rules: load(dump(r)) == r
    path.unlink()  # the file gone, the record still names and plays the same rule set
    record = Record(kept.spec, ("Ana", "Bob"), rules_toml=text)
    assert record.rule_set() == rules
    # A preset (with options) is kept by its spec alone.
    assert kept_rules(base) == (base, None)


def test_a_rule_file_with_options_keeps_its_name_and_options(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text('[rules]\nextends = "dix-mille"\nname = "house"\n[game]\ntarget = 3000\n')
    rules = load_rules(f"{path}(entry=800)")
    kept, text = kept_rules(rules)
    assert kept == rules and kept.spec == f"{path}(entry=800)"
    assert text is not None and "extends" not in text  # the chain resolved
    # A spec and a text that disagree are refused, never played.
    record = Record(f"{path}(entry=500)", ("Ana", "Bob"), rules_toml=text)
    with pytest.raises(InvalidRulesError, match="the spec says entry=500, its rule file"):
        record.rule_set()
    assert dataclasses.replace(kept, source="", options=()).spec == "<house>"
