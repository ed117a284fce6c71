"""Dice anyone can check: the commitment, the HMAC per throw, the rejection mapping, verify."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zloutch.app.fairdice import (
    KEPT_BYTES,
    Verdict,
    commitment_of,
    face_of_byte,
    fair_roll,
    message,
    new_secret,
    throw_faces,
    verify_record,
)
from zloutch.engine import CHANCE, apply, current_player, is_terminal, legal_actions
from zloutch.engine.actions import Bank
from zloutch.engine.record import (
    DiceCommitment,
    PlayerSeed,
    Record,
    dump_record,
    load_record,
    read_record,
)
from zloutch.rules import load_rules

secrets_hex = st.binary(min_size=32, max_size=32).map(bytes.hex)
seed_lists = st.lists(
    st.builds(
        PlayerSeed,
        seat=st.integers(0, 7),
        seed=st.text(min_size=1, max_size=20),
        from_throw=st.integers(0, 50),
    ),
    max_size=4,
)


def test_every_face_comes_from_exactly_42_bytes() -> None:
    """Uniform by construction: the 256 byte values, 4 rejected, 42 for each face."""
    counts = Counter(face_of_byte(b) for b in range(256))
    assert counts[None] == 256 - KEPT_BYTES == 4
    assert {counts[f] for f in range(1, 7)} == {42}
    assert sum(counts[f] for f in range(1, 7)) == KEPT_BYTES


@given(byte=st.integers(0, 255))
def test_a_kept_byte_gives_a_face_a_rejected_one_none(byte: int) -> None:
    face = face_of_byte(byte)
    if byte < KEPT_BYTES:
        assert face is not None and 1 <= face <= 6 and (face - 1) == byte % 6
    else:
        assert face is None


@given(secret=secrets_hex, seeds=seed_lists, index=st.integers(0, 10_000), n=st.integers(1, 8))
def test_a_throw_is_a_function_of_secret_seeds_and_index(
    secret: str, seeds: list[PlayerSeed], index: int, n: int
) -> None:
    faces = throw_faces(secret, seeds, index, n)
    assert faces == throw_faces(secret, list(seeds), index, n)
    assert len(faces) == n and all(1 <= f <= 6 for f in faces)
    assert fair_roll(secret, seeds, index, n).dice == tuple(sorted(faces))


@given(secret=secrets_hex, index=st.integers(0, 1000))
def test_more_dice_extend_the_same_draw(secret: str, index: int) -> None:
    """Faces are read in order from one stream: 3 dice are the first 3 of 6."""
    assert throw_faces(secret, [], index, 6)[:3] == throw_faces(secret, [], index, 3)


@given(secret=secrets_hex, index=st.integers(0, 1000), seed=st.text(min_size=1, max_size=10))
def test_a_seed_counts_from_its_throw_on(secret: str, index: int, seed: str) -> None:
    later = [PlayerSeed(0, seed, index + 1)]
    assert message(index, 0, []) != message(index, 0, [PlayerSeed(0, seed, 0)])
    assert throw_faces(secret, later, index, 6) == throw_faces(secret, [], index, 6)


def test_blocks_continue_the_stream_past_32_bytes() -> None:
    """Forty dice need more than one 32-byte block, even with no byte rejected."""
    faces = throw_faces("00" * 32, [], 0, 40)
    assert len(faces) == 40


def test_faces_are_close_to_uniform_over_many_throws() -> None:
    secret = "ab" * 32
    counts = Counter(f for i in range(3000) for f in throw_faces(secret, [], i, 6))
    total = sum(counts.values())
    # 18,000 faces: each face 3000 +- about 50 (sd); 4.5 sd is far out.
    assert all(abs(counts[f] - total / 6) < 225 for f in range(1, 7))


@given(secret=secrets_hex)
def test_the_commitment_is_sha256_of_the_secret(secret: str) -> None:
    import hashlib

    assert commitment_of(secret) == hashlib.sha256(bytes.fromhex(secret)).hexdigest()
    assert len(new_secret()) == 64 and new_secret() != new_secret()


# ---------------------------------------------------------------------------- records


def fair_game(spec: str, seed: int, *, finish: bool = True) -> tuple[Record, str]:
    """A random game thrown with fair dice; the record, the secret revealed when over."""
    secret = random.Random(seed).randbytes(32).hex()
    seeds = (PlayerSeed(0, "ana's seed", 0), PlayerSeed(1, "bob", 3))
    record = Record(load_rules(spec).spec, ("Ana", "Bob"))
    state = record.start()
    rng = random.Random(seed)
    actions: list[str] = []
    throws = 0
    while not is_terminal(state) and len(actions) < 5000:
        if current_player(state) == CHANCE:
            action = fair_roll(secret, seeds, throws, state.turn.rolling)
            throws += 1
        else:
            options = legal_actions(state)
            action = Bank() if Bank() in options and rng.random() < 0.5 else rng.choice(options)
        actions.append(str(action))
        state = apply(state, action)
        if not finish and len(actions) > 30:
            break
    assert not finish or is_terminal(state)
    dice = DiceCommitment(commitment_of(secret), secret if is_terminal(state) else None, seeds)
    done = replace(record.extended(actions), dice=(dice,))
    return done, dump_record(done, state)


def test_a_finished_game_verifies_and_loads_back() -> None:
    record, text = fair_game("cinq-mille", 3)
    loaded, _ = load_record(text)
    assert loaded == record
    result = verify_record(loaded, text)
    assert result.verdict is Verdict.VERIFIED
    assert result.commitment_ok and result.replay_error is None
    assert len(result.checked) == sum(a.startswith("roll") for a in record.actions) > 5


def test_one_changed_face_is_caught_and_named() -> None:
    _, text = fair_game("cinq-mille", 4)
    data = json.loads(text)
    place = next(i for i, a in enumerate(data["actions"]) if a.startswith("roll"))
    faces = [int(f) for f in data["actions"][place].split()[1:]]
    faces[0] = faces[0] % 6 + 1
    data["actions"][place] = "roll " + " ".join(map(str, sorted(faces)))
    changed = json.dumps(data)
    tampered, _ = read_record(changed)
    result = verify_record(tampered, changed)
    assert result.verdict is Verdict.MISMATCH
    assert [c.action for c in result.mismatches] == [place + 1]


def test_a_secret_that_is_not_the_committed_one_is_caught() -> None:
    record, _ = fair_game("cinq-mille", 5)
    (dice,) = record.dice
    other = replace(record, dice=(replace(dice, commitment=commitment_of("11" * 32)),))
    result = verify_record(other)
    assert result.verdict is Verdict.MISMATCH and result.commitment_ok is False


def test_an_unfinished_game_cannot_be_checked_yet() -> None:
    record, text = fair_game("dix-mille", 6, finish=False)
    assert verify_record(record, text).verdict is Verdict.NOT_YET


def test_real_dice_say_so() -> None:
    record = Record("dix-mille", ("Ana", "Bob"), table_mode=True)
    text = dump_record(record)
    assert json.loads(text)["dice"] == {"scheme": "real"}
    assert verify_record(load_record(text)[0], text).verdict is Verdict.REAL_DICE


def test_a_version_2_record_still_loads() -> None:
    record, text = fair_game("cinq-mille", 7)
    data = json.loads(text)
    data["version"] = 2
    for key in ("dice", "times"):
        data.pop(key, None)
    old, _ = load_record(json.dumps(data))
    assert old.actions == record.actions and old.dice == ()
    assert verify_record(old).verdict is Verdict.UNCHECKABLE


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"dice": {"scheme": "dice-cup"}}, "unknown dice scheme"),
        ({"dice": {"scheme": "hmac-sha256-1", "commitment": 3}}, "'dice' must be"),
        ({"times": ["now"]}, "'times' for"),
        ({"rules_toml": 5}, "'rules_toml' must be"),
    ],
)
def test_corrupt_version_3_fields_are_refused(change: dict[str, object], message: str) -> None:
    from zloutch.engine.record import InvalidRecordError

    _, text = fair_game("cinq-mille", 8)
    data = {**json.loads(text), **change}
    with pytest.raises(InvalidRecordError, match=message):
        load_record(json.dumps(data))


def test_times_travel_with_the_actions() -> None:
    record = Record("dix-mille", ("Ana", "Bob")).extended(["throw"], ["2025-01-01T00:00:00Z"])
    record = record.extended(["roll 1 1 2 3 4"])
    assert record.times == ("2025-01-01T00:00:00Z", None)
    loaded, _ = load_record(dump_record(record))
    assert loaded.times == record.times
