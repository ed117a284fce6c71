"""``zloutch verify RECORD``: recompute every throw of a game, on a server or this machine.

Exit code 0 when every revealed secret matches its commitment and every throw matches; 1 when
something does not match, or cannot be checked (the game is not over, real dice, dice from a
seed or a file, a secret never revealed: part of the throws, or all); 2 for a file that is
not a record. The throws of a seed (``--seed``) are recomputed from it: one that differs
shows the record was changed, and all alike prove nothing fair (the seed told them). A
record whose dice changed on the way (resumed with ``--dice``, ``--seed``, or with new
computer dice) is checked segment by segment.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zloutch.adapters.cli.support import console, user_errors

if TYPE_CHECKING:
    from zloutch.app.fairdice import SegmentCheck, Verification

EXIT_NOT_VERIFIED = 1


def verify(
    file: Annotated[str, typer.Argument(metavar="RECORD", help="A game record (JSON).")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of lines.")
    ] = False,
) -> None:
    """Recompute every throw of a record from its revealed secrets (and the players' seeds).

    A game with computer dice, played here or on a server, reveals its secret when it is
    over (here: also when it is stopped; a resume throws from a new one). Dice from --seed
    are recomputed from the seed: a throw changed in the record shows, but the seed told
    every throw, so nothing proves them fair. Dice from --dice or real dice are said to be
    what they are: nothing can check them.

    Exit code: 0 verified; 1 not verified (a throw or a secret does not match, the game is
    not over, or dice nothing can check); 2 not a record.
    """
    from zloutch.app.dice import read_text
    from zloutch.app.fairdice import Verdict, verify_record
    from zloutch.engine.record import read_record

    with user_errors():
        text = read_text(file, "record")
        record, _ = read_record(text)
        result = verify_record(record, text)
    if as_json:
        typer.echo(json.dumps(verification_json(result)))
    else:
        render_verification(file, result)
    if result.verdict is not Verdict.VERIFIED:
        raise typer.Exit(EXIT_NOT_VERIFIED)


def summary(result: Verification) -> str:
    from zloutch.app.fairdice import Verdict

    verdict = result.verdict
    if verdict is Verdict.REAL_DICE:
        return "real dice: thrown at a table and typed in, there is nothing to recompute"
    if verdict is Verdict.UNCHECKABLE:
        if not result.segments:
            return (
                "these dice came from a seed on one machine, with no commitment: nothing to check"
            )
        return "not verifiable: " + "; ".join(
            _segment_words(c) for c in result.segments if c.verdict is not Verdict.REAL_DICE
        )
    if verdict is Verdict.NOT_YET:
        return (
            "the game is not over: its secret is revealed at the end, "
            "the throws cannot be checked yet"
        )
    checked, bad = len(result.checked), len(result.mismatches)
    if verdict is Verdict.VERIFIED:
        if checked == 1:
            return "verified: the 1 throw matches"
        return f"verified: all {checked} throws match"
    if verdict is Verdict.PARTLY:
        rest = [c for c in result.segments if c.verdict is not Verdict.VERIFIED]
        match = "throw matches" if checked == 1 else "throws match"
        return f"partly verified: {checked} {match}; " + "; ".join(_segment_words(c) for c in rest)
    changed = [c for c in result.mismatches if c.by_seed]
    if changed:
        which = " and ".join(str(c.throw + 1) for c in changed)
        those = f"throw {which} is not" if len(changed) == 1 else f"throws {which} are not"
        return f"NOT VERIFIED: {those} what the record's seed throws: the record was changed"
    if result.commitment_ok is False:
        return "NOT VERIFIED: the secret does not match the commitment shown at the start"
    if checked == 1:
        return "NOT VERIFIED: the 1 throw does not match"
    if bad == 1:
        return f"NOT VERIFIED: 1 of {checked} throws does not match"
    return f"NOT VERIFIED: {bad} of {checked} throws do not match"


def _throws(check: SegmentCheck) -> str:
    """``throws 1 to 12`` (numbered from 1), ``throw 13``, or ``no throw``."""
    if not check.checks:
        return "no throw"
    first, last = check.checks[0].throw + 1, check.checks[-1].throw + 1
    return f"throw {first}" if first == last else f"throws {first} to {last}"


def _segment_words(check: SegmentCheck) -> str:
    """Why a segment that is not verified cannot be, with its throws."""
    from zloutch.engine.record import DiceCommitment

    segment = check.segment
    if isinstance(segment, DiceCommitment):
        if segment.secret is None:
            what = "a commitment whose secret was never revealed"
        else:
            what = "a commitment that does not match"
    else:
        what = {
            "seed": f"from the seed {segment.seed} (--seed), which tells every throw",
            "file": "from a dice file (--dice)",
            "real": "real dice typed in",
        }[segment.scheme]
    return f"{_throws(check)} {what}"


def render_verification(file: str, result: Verification) -> None:
    from zloutch.app.fairdice import check_words
    from zloutch.engine.record import SEED_SCHEME, DiceCommitment

    out = console()
    for check in result.before:
        out.print(check_words(check), markup=False)
    several = len(result.segments) > 1
    for number, part in enumerate(result.segments, start=1):
        segment = part.segment
        head = f"segment {number}, {_throws(part)}: " if several else f"{file}: "
        if isinstance(segment, DiceCommitment):
            out.print(f"{head}dice {segment.scheme}, commitment {segment.commitment}", markup=False)
            if part.commitment_ok is not None:
                ok = "matches" if part.commitment_ok else "DOES NOT MATCH"
                out.print(f"the secret {ok} the commitment")
            for seed in segment.seeds:
                out.print(
                    f"seed of seat {seed.seat + 1} from throw {seed.from_throw + 1}: {seed.seed!r}",
                    markup=False,
                )
        elif segment.scheme == SEED_SCHEME:
            out.print(
                f"{head}dice from the seed {segment.seed}: each throw recomputed from it "
                "(which a changed record shows; nothing proves a seed's throws fair)",
                markup=False,
            )
        else:
            out.print(f"{head}dice {segment.scheme}: nothing to check", markup=False)
        for check in part.checks:
            out.print(check_words(check), markup=False)
    if result.replay_error:
        out.print(f"the record does not replay: {result.replay_error}", markup=False)
    out.print(summary(result), markup=False)


def verification_json(result: Verification) -> dict[str, Any]:
    from zloutch.engine.record import segment_json

    return {
        "verdict": result.verdict.value,
        "commitment": result.dice.commitment if result.dice else None,
        "commitment_ok": result.commitment_ok,
        "segments": [
            {
                **segment_json(c.segment),
                "verdict": c.verdict.value,
                "commitment_ok": c.commitment_ok,
                "throws": [t.throw for t in c.checks],
            }
            for c in result.segments
        ],
        "throws": [
            {
                "action": c.action,
                "throw": c.throw,
                "recorded": list(c.recorded),
                "expected": list(c.expected) if c.expected is not None else None,
                "matches": c.matches,  # false too where nothing recomputes it: "checked"
                "checked": c.expected is not None,
                "by_seed": c.by_seed,  # recomputed from the record's --seed: not proven fair
                "unchecked": c.unchecked if c.expected is None else None,
            }
            for c in result.checks
        ],
        "replay_error": result.replay_error,
        "summary": summary(result),
    }
