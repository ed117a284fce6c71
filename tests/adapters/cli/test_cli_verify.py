"""``zloutch verify RECORD``: it agrees on a fair game and names a changed face."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

from typer.testing import CliRunner

from zloutch.adapters.cli import app
from zloutch.app.fairdice import commitment_of, fair_roll
from zloutch.engine import CHANCE, apply, current_player, is_terminal, legal_actions
from zloutch.engine.record import DiceCommitment, Record, dump_record

runner = CliRunner()


def fair_game(spec: str, seed: int) -> tuple[Record, str]:
    """A finished random game thrown with fair dice, its secret revealed."""
    secret = random.Random(seed).randbytes(32).hex()
    record = Record(spec, ("Ana", "Bob"))
    state, rng, actions = record.start(), random.Random(seed), []
    while not is_terminal(state):
        if current_player(state) == CHANCE:
            throws = sum(a.startswith("roll") for a in actions)
            action = fair_roll(secret, (), throws, state.turn.rolling)
        else:
            action = rng.choice(legal_actions(state))
        actions.append(str(action))
        state = apply(state, action)
    record = replace(
        record.extended(actions), dice=(DiceCommitment(commitment_of(secret), secret),)
    )
    return record, dump_record(record, state)


def test_verify_agrees_on_a_finished_game(tmp_path: Path) -> None:
    _, text = fair_game("cinq-mille", 11)
    path = tmp_path / "game.json"
    path.write_text(text)
    result = runner.invoke(app, ["verify", str(path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "the secret matches the commitment" in result.stdout
    assert "verified: all" in result.stdout
    assert "DOES NOT MATCH" not in result.stdout


def test_verify_catches_one_changed_face(tmp_path: Path) -> None:
    _, text = fair_game("cinq-mille", 12)
    data = json.loads(text)
    place = next(i for i, a in enumerate(data["actions"]) if a.startswith("roll"))
    faces = sorted([int(f) for f in data["actions"][place].split()[1:]])
    faces[-1] = faces[-1] % 6 + 1
    data["actions"][place] = "roll " + " ".join(map(str, sorted(faces)))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["verify", "--json", str(path)])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["verdict"] == "mismatch"
    assert [t["action"] for t in report["throws"] if not t["matches"]] == [place + 1]
    assert all(t["checked"] and t["unchecked"] is None for t in report["throws"])


def test_the_verdict_counts_its_throws_in_words(tmp_path: Path) -> None:
    """One throw "matches", one changed face "does not match", two "do not"."""
    one = tmp_path / "one.json"
    played = runner.invoke(
        app, ["play", "--plain", "-p", "Ana", "--record", str(one)], input="throw\nquit\n"
    )
    assert played.exit_code == 0, played.output
    result = runner.invoke(app, ["verify", str(one)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "verified: the 1 throw matches" in result.stdout
    data = json.loads(one.read_text())
    (place,) = [i for i, a in enumerate(data["actions"]) if a.startswith("roll")]
    faces = sorted(int(f) for f in data["actions"][place].split()[1:])
    faces[-1] = faces[-1] % 6 + 1
    data["actions"][place] = "roll " + " ".join(map(str, sorted(faces)))
    one.write_text(json.dumps(data))
    result = runner.invoke(app, ["verify", str(one)], env={"COLUMNS": "200"})
    assert result.exit_code == 1 and "NOT VERIFIED: the 1 throw does not match" in result.stdout

    _, text = fair_game("cinq-mille", 12)
    data = json.loads(text)
    rolls = [i for i, a in enumerate(data["actions"]) if a.startswith("roll")]
    for changed, words in ((1, "1 of {n} throws does not match"), (2, "2 of {n} throws do not")):
        tampered = dict(data, actions=list(data["actions"]))
        for place in rolls[:changed]:
            faces = sorted(int(f) for f in tampered["actions"][place].split()[1:])
            faces[-1] = faces[-1] % 6 + 1
            tampered["actions"][place] = "roll " + " ".join(map(str, sorted(faces)))
        path = tmp_path / f"changed-{changed}.json"
        path.write_text(json.dumps(tampered))
        result = runner.invoke(app, ["verify", str(path)], env={"COLUMNS": "200"})
        assert result.exit_code == 1, result.output
        assert "NOT VERIFIED: " + words.format(n=len(rolls)) in result.stdout


def test_throws_that_cannot_be_checked_are_no_mismatch_in_the_json(tmp_path: Path) -> None:
    """Dice from a file on this machine: each throw says it was not checked and why
    (``matches`` alone, false, read as a face changed), the verdict "uncheckable"."""
    path = tmp_path / "scripted.json"
    dice = tmp_path / "dice.txt"
    dice.write_text("2 3 4 6 6\n")
    played = runner.invoke(
        app,
        ["play", "--plain", "-p", "Ana", "--dice", str(dice), "--record", str(path)],
        input="throw\nquit\n",
    )
    assert played.exit_code == 0, played.output
    result = runner.invoke(app, ["verify", "--json", str(path)])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["verdict"] == "uncheckable"
    assert report["throws"], report
    for throw in report["throws"]:
        assert throw["checked"] is False and throw["expected"] is None
        assert throw["matches"] is False  # as it was: the documents change by additions
        assert isinstance(throw["unchecked"], str) and throw["unchecked"]


def test_a_seeds_throws_are_recomputed_and_a_changed_one_shows(tmp_path: Path) -> None:
    """A record of --seed names its seed, which tells every throw: a throw changed in the
    record was accepted by verify, review and record show alike. Recomputed, all alike
    prove nothing fair (still "uncheckable", exit 1); one changed is a mismatch."""
    path = tmp_path / "seeded.json"
    played = runner.invoke(
        app,
        ["play", "--plain", "-p", "Ana,bot:medium", "--seed", "4", "--record", str(path)],
        input="throw\nquit\n",
    )
    assert played.exit_code == 0, played.output
    result = runner.invoke(app, ["verify", "--json", str(path)])
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["verdict"] == "uncheckable" and report["throws"]
    for throw in report["throws"]:
        assert throw["by_seed"] and throw["matches"] and throw["expected"] == throw["recorded"]
    text = runner.invoke(app, ["verify", str(path)], env={"COLUMNS": "200"}).stdout
    assert "is the seed's" in text and "not verifiable" in text
    assert "dice from the seed 4: each throw recomputed from it" in text
    record = json.loads(path.read_text())
    first = next(i for i, a in enumerate(record["actions"]) if a.startswith("roll"))
    faces = [int(f) for f in record["actions"][first].split()[1:]]
    faces[0] = faces[0] % 6 + 1  # one face changed
    record["actions"][first] = "roll " + " ".join(map(str, sorted(faces)))
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(record))
    result = runner.invoke(app, ["verify", str(changed)], env={"COLUMNS": "200"})
    assert result.exit_code == 1
    assert "NOT VERIFIED: throw 1 is not what the record's seed throws" in result.stdout
    assert "the seed gives" in result.stdout and "DOES NOT MATCH" in result.stdout


def test_verify_refuses_what_is_not_a_record_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "nope.json"
    path.write_text("{}")
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and result.stderr.startswith("error:")


def test_an_old_records_seed_is_recomputed_too(tmp_path: Path) -> None:
    """Records of versions 1 to 3 keep their seed beside the actions, with no dice segment:
    verify said "nothing to check" whatever their throws were."""
    source = Path(__file__).parents[2] / "engine" / "records" / "v3_local_mid_game.json"
    record = json.loads(source.read_text())
    kept = runner.invoke(app, ["verify", "--json", str(source)])
    report = json.loads(kept.stdout)
    assert kept.exit_code == 1 and report["verdict"] == "uncheckable"
    assert report["throws"] and all(t["by_seed"] and t["matches"] for t in report["throws"])
    assert record["actions"][1] == "roll 2 2 3 4 6"
    record["actions"][1] = "roll 2 2 3 4 5"
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(record))
    result = runner.invoke(app, ["verify", str(changed)], env={"COLUMNS": "200"})
    assert result.exit_code == 1 and "throw 1 is not what the record's seed throws" in result.stdout
