"""``zloutch verify RECORD``: recompute every throw of a game played on a server.

Exit code 0 when the revealed secret matches the commitment and every throw matches; 1 when
something does not match, or cannot be checked (the game is not over, real dice, dice from a
seed on one machine); 2 for a file that is not a record.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

import typer

from zloutch.adapters.cli.support import console, user_errors

if TYPE_CHECKING:
    from zloutch.app.fairdice import Verification

EXIT_NOT_VERIFIED = 1


def verify(
    file: Annotated[str, typer.Argument(metavar="RECORD", help="A game record (JSON).")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of lines.")
    ] = False,
) -> None:
    """Recompute every throw of a record from the server's revealed secret and the seeds."""
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
        return "these dice came from a seed on one machine, with no commitment: nothing to check"
    if verdict is Verdict.NOT_YET:
        return (
            "the game is not over: its secret is revealed at the end, "
            "the throws cannot be checked yet"
        )
    checked, bad = len(result.checked), len(result.mismatches)
    if verdict is Verdict.VERIFIED:
        return f"verified: all {checked} throws match"
    if not result.commitment_ok:
        return "NOT VERIFIED: the secret does not match the commitment shown at the start"
    return f"NOT VERIFIED: {bad} of {checked} throws do not match"


def render_verification(file: str, result: Verification) -> None:
    from zloutch.app.fairdice import check_words

    out = console()
    dice = result.dice
    if dice is not None:
        out.print(f"{file}: dice {dice.scheme}, commitment {dice.commitment}")
        if result.commitment_ok is not None:
            ok = "matches" if result.commitment_ok else "DOES NOT MATCH"
            out.print(f"the secret {ok} the commitment")
        for seed in dice.seeds:
            out.print(
                f"seed of seat {seed.seat + 1} from throw {seed.from_throw + 1}: {seed.seed!r}"
            )
        for check in result.checks:
            out.print(check_words(check), markup=False)
    if result.replay_error:
        out.print(f"the record does not replay: {result.replay_error}", markup=False)
    out.print(summary(result), markup=False)


def verification_json(result: Verification) -> dict[str, Any]:
    return {
        "verdict": result.verdict.value,
        "commitment": result.dice.commitment if result.dice else None,
        "commitment_ok": result.commitment_ok,
        "throws": [
            {
                "action": c.action,
                "throw": c.throw,
                "recorded": list(c.recorded),
                "expected": list(c.expected) if c.expected is not None else None,
                "matches": c.matches,
            }
            for c in result.checks
        ],
        "replay_error": result.replay_error,
        "summary": summary(result),
    }
