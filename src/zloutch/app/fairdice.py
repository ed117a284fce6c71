"""Dice anyone can check: a server's secret, committed to before the first throw.

When a game is created the server draws a secret (32 random bytes) and shows every seat its
commitment, the SHA-256 of the secret. Each person seated may add a seed of their own, which
counts from the next throw on. The faces of throw number ``index`` (0 for the game's first
throw, counting every ``roll`` of the record) come from HMAC-SHA256 keyed by the secret over
the canonical JSON text::

    [index, block, [[seat, seed], ...]]

(no spaces, ASCII, ``block`` = 0, 1, 2... for as many 32-byte blocks as the throw needs, and
the seeds in force, in the order they were added). Each byte below 252 gives the face
``byte % 6 + 1``; bytes 252 to 255 are thrown away (rejection), so each face comes from
exactly 42 of the 252 kept bytes: every face is exactly equally likely, and the faces of a
throw are independent. The faces are written sorted, as every roll of a record is.

The server cannot choose its secret after the seeds (it committed to it), and the players'
seeds make the throws unpredictable to the server when it chose the secret; nobody but the
server can know a throw before it is thrown, and the bots, which play on the server, see only
the game's state. When the game is over the secret is revealed and kept in the record:
``zloutch verify RECORD`` (``verify_record``) recomputes every throw.

A game played on this machine with computer dice draws its dice the same way
(``app.dice.CommittedDice``): the record written while it is played carries the commitment
and no secret, so no save tells the next throw. The secret is written when the game is over,
or when the program stops playing it (quit, Ctrl-C, a signal): a game resumed later throws
from a new secret from its next throw on, a new segment of the record's dice, so the secret
written at the stop only ever covers throws already thrown.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from zloutch.engine.actions import InvalidActionError, Roll, parse_action
from zloutch.engine.record import (
    FILE_SCHEME,
    HMAC_SCHEME,
    REAL_SCHEME,
    SEED_SCHEME,
    DiceCommitment,
    DiceSegment,
    InvalidRecordError,
    PlayerSeed,
    Record,
    UncommittedDice,
    implied_dice,
    load_record,
    roll_dice,
)
from zloutch.rules import Dice, ZloutchError, format_dice

FACES = 6
KEPT_BYTES = 252
"""The largest multiple of 6 a byte can hold: bytes from here to 255 are rejected."""
SECRET_BYTES = 32
MAX_SEED_LENGTH = 200


class InvalidSeedError(ZloutchError):
    """A seed a player offered that cannot be added."""


def new_secret() -> str:
    """A fresh server secret, hex (drawn from the operating system's secure source)."""
    return secrets.token_hex(SECRET_BYTES)


def commitment_of(secret: str) -> str:
    """The SHA-256 of a secret, hex: what the server shows before the first throw."""
    return hashlib.sha256(_secret_bytes(secret)).hexdigest()


def _secret_bytes(secret: str) -> bytes:
    try:
        return bytes.fromhex(secret)
    except ValueError:
        raise InvalidRecordError("corrupt record: the dice secret is not hex") from None


def check_seed(seed: str) -> str:
    """A seed as offered by a player: printable text of 1 to 200 characters."""
    seed = seed.strip()
    if not seed or len(seed) > MAX_SEED_LENGTH or not seed.isprintable():
        raise InvalidSeedError(
            f"a seed is printable text of 1 to {MAX_SEED_LENGTH} characters (a word, a number)"
        )
    return seed


def seeds_for(seeds: Sequence[PlayerSeed], index: int) -> tuple[PlayerSeed, ...]:
    """The seeds in force at throw ``index``: each counts from its ``from_throw`` on."""
    return tuple(s for s in seeds if s.from_throw <= index)


def message(index: int, block: int, seeds: Sequence[PlayerSeed]) -> bytes:
    """The text HMAC-SHA256 signs for one block of throw ``index``."""
    body = [index, block, [[s.seat, s.seed] for s in seeds]]
    return json.dumps(body, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def face_of_byte(byte: int) -> int | None:
    """The face a byte gives, or None for a rejected byte (252 to 255)."""
    return byte % FACES + 1 if byte < KEPT_BYTES else None


def _stream(secret: bytes, index: int, seeds: Sequence[PlayerSeed]) -> Iterator[int]:
    block = 0
    while True:
        yield from hmac.new(secret, message(index, block, seeds), hashlib.sha256).digest()
        block += 1


def throw_faces(secret: str, seeds: Sequence[PlayerSeed], index: int, count: int) -> Dice:
    """The faces of throw ``index`` of ``count`` dice, in the order drawn (not sorted)."""
    faces: list[int] = []
    for byte in _stream(_secret_bytes(secret), index, seeds_for(seeds, index)):
        if len(faces) == count:
            break
        face = face_of_byte(byte)
        if face is not None:
            faces.append(face)
    return tuple(faces)


def fair_roll(secret: str, seeds: Sequence[PlayerSeed], index: int, count: int) -> Roll:
    """Throw ``index`` as the roll a record writes (faces sorted)."""
    return Roll(throw_faces(secret, seeds, index, count))


def seeded_roll(seed: int, actions: int, count: int) -> Roll:
    """The roll of ``count`` dice that a seed (``--seed``) throws after ``actions`` actions of
    the game: it depends on nothing else, so a resumed game throws what it would have thrown
    and a record's throws can be recomputed from its seed."""
    return roll_dice(random.Random(f"zloutch-dice:{seed}:{actions}"), count)


# ---------------------------------------------------------------------------- checking


class Verdict(Enum):
    """What the check of a record's dice (or of one segment of them) found."""

    VERIFIED = "verified"
    """The secret matches the commitment and every throw matches."""
    MISMATCH = "mismatch"
    """The secret does not match the commitment, or some throw does not match."""
    NOT_YET = "not yet"
    """The game is not over: the secret is not revealed yet."""
    REAL_DICE = "real dice"
    """Real dice thrown at a table: typed in, nothing to recompute."""
    UNCHECKABLE = "uncheckable"
    """Dice from a seed or a file on one machine, or a secret never revealed: no commitment
    was shown, or nothing to check it with."""
    PARTLY = "partly verified"
    """Some segments verified, the others cannot be checked (a seed, a file, real dice)."""


@dataclass(frozen=True)
class ThrowCheck:
    """One throw of a record and what the seeds give for it."""

    action: int
    """The action's place in the record (1 for the first)."""
    throw: int
    """The throw's index (0 for the game's first)."""
    recorded: Dice
    expected: Dice | None
    """None: nothing to recompute it from (see ``unchecked``)."""
    unchecked: str = "thrown before the game came to the server"
    """Why it cannot be checked, when ``expected`` is None."""
    by_seed: bool = False
    """``expected`` is the record's own seed's (``--seed``): a match shows that the throw was
    not changed since, not that it was fair (whoever chose the seed knew every throw)."""

    @property
    def matches(self) -> bool:
        return self.expected is not None and self.expected == self.recorded


@dataclass(frozen=True)
class SegmentCheck:
    """The check of one segment of a record's dice: the throws from ``first_throw`` on."""

    segment: DiceSegment
    verdict: Verdict
    """VERIFIED, MISMATCH, NOT_YET, REAL_DICE or UNCHECKABLE."""
    commitment_ok: bool | None
    checks: tuple[ThrowCheck, ...]
    last: bool
    """The game's latest segment (its secret comes when the game is over)."""

    @property
    def first_throw(self) -> int:
        return self.segment.first_throw


@dataclass(frozen=True)
class Verification:
    """The check of every throw of a record, segment by segment."""

    verdict: Verdict
    segments: tuple[SegmentCheck, ...] = ()
    before: tuple[ThrowCheck, ...] = ()
    """Throws before the first segment (a record continued on a server): not covered."""
    replay_error: str | None = None
    """Why the record does not replay through the engine, if it does not."""

    @property
    def dice(self) -> DiceCommitment | None:
        """The first commitment of the record, if it has one."""
        for check in self.segments:
            if isinstance(check.segment, DiceCommitment):
                return check.segment
        return None

    @property
    def commitment_ok(self) -> bool | None:
        """Whether every revealed secret's SHA-256 is its commitment (None: no secret)."""
        told = [c.commitment_ok for c in self.segments if c.commitment_ok is not None]
        return all(told) if told else None

    @property
    def checks(self) -> tuple[ThrowCheck, ...]:
        return self.before + tuple(t for c in self.segments for t in c.checks)

    @property
    def checked(self) -> tuple[ThrowCheck, ...]:
        """The throws a revealed secret recomputed (a seed's are not proven fair)."""
        return tuple(c for c in self.checks if c.expected is not None and not c.by_seed)

    @property
    def mismatches(self) -> tuple[ThrowCheck, ...]:
        """The throws that are not what their secret, or their seed, gives."""
        return tuple(c for c in self.checks if c.expected is not None and not c.matches)


def _rolls(record: Record) -> list[tuple[int, Dice]]:
    """(action place, faces) of every roll of a record, read without replaying it."""
    rolls: list[tuple[int, Dice]] = []
    for place, text in enumerate(record.actions, start=1):
        if not text.strip().lower().startswith("roll"):
            continue
        try:
            action = parse_action(text)
        except InvalidActionError as exc:
            raise InvalidRecordError(f"action {place} ({text!r}): {exc}") from None
        assert isinstance(action, Roll)
        rolls.append((place, action.dice))
    return rolls


_UNCOMMITTED_WORDS = {
    SEED_SCHEME: "from a seed (--seed): anyone with it knows every throw",
    FILE_SCHEME: "from a dice file (--dice): chosen by whoever wrote it",
    REAL_SCHEME: "real dice, typed in at a table",
}


def _check_segment(
    segment: DiceSegment, rolls: list[tuple[int, int, Dice]], *, last: bool
) -> SegmentCheck:
    """The throws ``(index, place, faces)`` of one segment, checked against it."""
    if isinstance(segment, UncommittedDice):
        why = _UNCOMMITTED_WORDS[segment.scheme]
        if segment.scheme == SEED_SCHEME and segment.seed is not None:
            # The seed tells every throw: recomputed, a throw changed in the record shows.
            seed = segment.seed
            checks = tuple(
                ThrowCheck(
                    place, i, faces, seeded_roll(seed, place - 1, len(faces)).dice, why, True
                )
                for i, place, faces in rolls
            )
            changed = not all(c.matches for c in checks)
            verdict = Verdict.MISMATCH if changed else Verdict.UNCHECKABLE
            return SegmentCheck(segment, verdict, None, checks, last)
        checks = tuple(ThrowCheck(place, i, faces, None, why) for i, place, faces in rolls)
        verdict = Verdict.REAL_DICE if segment.scheme == REAL_SCHEME else Verdict.UNCHECKABLE
        return SegmentCheck(segment, verdict, None, checks, last)
    if segment.scheme != HMAC_SCHEME:  # pragma: no cover - read_record refuses other schemes
        raise InvalidRecordError(f"unknown dice scheme {segment.scheme!r}")
    if segment.secret is None:
        why = (
            "its secret is revealed when the game is over"
            if last
            else "its secret was never revealed (the game was stopped without closing it)"
        )
        checks = tuple(ThrowCheck(place, i, faces, None, why) for i, place, faces in rolls)
        verdict = Verdict.NOT_YET if last else Verdict.UNCHECKABLE
        return SegmentCheck(segment, verdict, None, checks, last)
    ok = hmac.compare_digest(commitment_of(segment.secret), segment.commitment.lower())
    checks = tuple(
        ThrowCheck(place, i, faces, fair_roll(segment.secret, segment.seeds, i, len(faces)).dice)
        for i, place, faces in rolls
    )
    good = ok and all(c.matches for c in checks)
    return SegmentCheck(segment, Verdict.VERIFIED if good else Verdict.MISMATCH, ok, checks, last)


def verify_record(record: Record, text: str | None = None) -> Verification:
    """Recompute every throw of a record from its revealed secrets and its seeds.

    Each segment of the record's dice is checked on the throws from its ``first_throw`` to
    the next segment's: a commitment whose secret is revealed recomputes them, the others
    (a seed, a file, real dice, a secret not revealed) say why they cannot be checked. The
    record is VERIFIED when every segment is; PARTLY when some are and the rest cannot be
    checked. The throws are recomputed from the record's own list of actions, so a changed
    face is named even where it makes the rest of the game unreplayable; ``text`` (the
    record's JSON) is also replayed through the engine, and why it fails, if it does, is
    reported.
    """
    replay_error = None
    if text is not None:
        try:
            load_record(text)
        except ZloutchError as exc:
            replay_error = str(exc)
    rolls = [(i, place, faces) for i, (place, faces) in enumerate(_rolls(record))]
    # A record of versions 1 to 3 names no segment: its dice are its seed's, or typed in.
    dice = record.dice or (implied_dice(record),)
    starts = [s.first_throw for s in dice]
    before = tuple(ThrowCheck(place, i, faces, None) for i, place, faces in rolls if i < starts[0])
    segments = []
    for n, segment in enumerate(dice):
        end = starts[n + 1] if n + 1 < len(starts) else None
        mine = [r for r in rolls if r[0] >= segment.first_throw and (end is None or r[0] < end)]
        segments.append(_check_segment(segment, mine, last=end is None))
    verdicts = {c.verdict for c in segments}
    if Verdict.MISMATCH in verdicts:
        verdict = Verdict.MISMATCH
    elif Verdict.NOT_YET in verdicts:
        verdict = Verdict.NOT_YET
    elif verdicts == {Verdict.VERIFIED}:
        verdict = Verdict.VERIFIED
    elif Verdict.VERIFIED in verdicts:
        verdict = Verdict.PARTLY
    elif verdicts == {Verdict.REAL_DICE}:
        verdict = Verdict.REAL_DICE
    else:
        verdict = Verdict.UNCHECKABLE
    return Verification(verdict, tuple(segments), before, replay_error)


def check_words(check: ThrowCheck) -> str:
    """One line per throw: ``throw 3 (action 9): 1 1 4 4 3 matches``."""
    where = f"throw {check.throw + 1} (action {check.action})"
    if check.expected is None:
        return f"{where}: {format_dice(check.recorded)} {check.unchecked}"
    if check.by_seed:
        if check.matches:
            return f"{where}: {format_dice(check.recorded)} is the seed's"
        return (
            f"{where}: recorded {format_dice(check.recorded)}, "
            f"the seed gives {format_dice(check.expected)}: DOES NOT MATCH"
        )
    if check.matches:
        return f"{where}: {format_dice(check.recorded)} matches"
    return (
        f"{where}: recorded {format_dice(check.recorded)}, "
        f"the secret and the seeds give {format_dice(check.expected)}: DOES NOT MATCH"
    )
