"""Game records: a versioned JSON document that replays to the same game.

A record holds the rule spec, the players, how the dice were drawn and every action, the
rolls of the dice included (``roll 1 1 4 4 3``), and the final sheet. Loading replays every
action through the engine and compares the sheet: a record is accepted whole or refused with
the place of the first problem, never half-loaded.

Version 3 added what a game played on a server (``zloutch serve``) keeps: when each action was
played (``times``), how the dice were drawn (``dice``: the commitment to the server's secret,
the seeds the players added, the secret itself once the game is over; or real dice), and the
text of an uploaded rule file that no preset spec names (``rules_toml``).

Version 4 keeps the same for a game played on this machine: the canonical text of the rule
file it was played on (so it replays after the file is edited, moved or opened from another
folder), and its dice as segments (``dice`` is one segment, or ``{"scheme": "mixed",
"segments": [...]}``), each from its ``first_throw`` on: a commitment (``hmac-sha256-1``,
computer dice nobody can know before they are thrown), a ``seed`` (``--seed``: anyone with
it knows every throw), a ``file`` of throws (``--dice``) or ``real`` dice. Every version
wrote the final sheet, which is checked: a record without one is refused. Versions 1 to 3
load as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any, Protocol

from zloutch.engine.actions import (
    Action,
    InvalidActionError,
    Roll,
    parse_action,
)
from zloutch.engine.endings import load_preset, load_rules, parse_rules_text
from zloutch.engine.events import Event
from zloutch.engine.game import apply_legal, is_terminal, new_game, step, why_illegal
from zloutch.engine.state import GameState
from zloutch.rules.dice import sort_dice
from zloutch.rules.errors import InvalidRulesError, ZloutchError, excerpt
from zloutch.rules.loader import PRESETS, as_loaded_from, to_toml
from zloutch.rules.ruleset import RuleSet

HMAC_SCHEME = "hmac-sha256-1"
"""The server's dice: HMAC-SHA256 over the seeds and the throw's index (``app.fairdice``)."""
REAL_SCHEME = "real"
"""Real dice thrown at a table; their faces were typed in and nothing can check them."""
SEED_SCHEME = "seed"
"""Dice drawn from a seed asked for with ``--seed``: reproducible, so anyone with the seed
knows every throw, before and after; nothing to check."""
FILE_SCHEME = "file"
"""Throws read from a file (``--dice``): chosen by whoever wrote it; nothing to check."""
MIXED_SCHEME = "mixed"
"""The ``dice`` of a record whose throws came from more than one segment."""
UNCOMMITTED_SCHEMES = (SEED_SCHEME, FILE_SCHEME, REAL_SCHEME)

FORMAT = "zloutch-record"
VERSION = 4
"""4: ``dice`` as segments (``seed``, ``file``, ``real``, ``mixed``: a local game's dice), the
rule file's canonical text in ``rules_toml`` for a game on a rule file.
3: the optional ``times``, ``dice`` and ``rules_toml`` (a game played on a server).
2: the ticks beside a level fallen back to restart from 0 (G-3 Reading, ticks_restart).
A version-1 record's sheet may show older ticks there: its ticks are not compared. Version 1
also let a player bank right after the no-score bonus; F-2 forbids it, and such a record is
refused at that action with the F-2 reason."""


class InvalidRecordError(ZloutchError):
    """A record that cannot be loaded: corrupt, too new, or not a legal game."""


class RandomSource(Protocol):
    """Anything that draws dice like ``random.Random``."""

    def randint(self, a: int, b: int) -> int: ...


def roll(state: GameState, rng: RandomSource) -> Roll:
    """Throw the dice in the air with an injected random source."""
    return roll_dice(rng, state.turn.rolling)


def roll_dice(rng: RandomSource, count: int) -> Roll:
    """``count`` dice thrown with ``rng``, one ``randint`` a die, the faces sorted."""
    return Roll(sort_dice(rng.randint(1, 6) for _ in range(count)))


@dataclass(frozen=True)
class PlayerSeed:
    """A seed a seated person added to the dice, counted from throw ``from_throw`` on."""

    seat: int
    seed: str
    from_throw: int


@dataclass(frozen=True)
class DiceCommitment:
    """How a server drew a game's dice, so that anyone can check them (record version 3)."""

    commitment: str
    """SHA-256 of the server's secret, hex: shown to every seat when the game was created."""
    secret: str | None = None
    """The server's secret, hex: revealed when the game is over (None before)."""
    seeds: tuple[PlayerSeed, ...] = ()
    first_throw: int = 0
    """Throws before this one were thrown before the game came to this server (a record
    continued as a new game): the commitment covers the throws from here on."""
    scheme: str = HMAC_SCHEME


@dataclass(frozen=True)
class UncommittedDice:
    """Throws from ``first_throw`` on that nobody committed to: a seed, a file, real dice."""

    scheme: str
    """``seed``, ``file`` or ``real`` (UNCOMMITTED_SCHEMES)."""
    first_throw: int = 0
    seed: int | None = None
    """The seed of ``--seed`` (scheme ``seed``); None for the others."""


DiceSegment = DiceCommitment | UncommittedDice
"""How the throws from a segment's ``first_throw`` on (to the next segment's) were drawn."""


def implied_dice(record: Record) -> DiceSegment:
    """How the throws of a record that does not say were drawn (versions 1 to 3, which kept
    no dice segments): from its seed (which tells every throw), else real dice at a table,
    else a file of throws."""
    if record.seed is not None:
        return UncommittedDice(SEED_SCHEME, 0, record.seed)
    return UncommittedDice(REAL_SCHEME if record.table_mode else FILE_SCHEME, 0)


def count_throws(actions: Iterable[str]) -> int:
    """How many throws (``roll`` actions) a list of actions holds: the index of the next."""
    return sum(text.strip().lower().startswith("roll") for text in actions)


@dataclass(frozen=True)
class Record:
    """Everything needed to replay a game."""

    rules: str
    players: tuple[str, ...]
    actions: tuple[str, ...] = ()
    seed: int | None = None
    table_mode: bool = False
    times: tuple[str | None, ...] = ()
    """When each action was played (ISO 8601, UTC), or empty: none were kept."""
    dice: tuple[DiceSegment, ...] = ()
    """How the dice were drawn, segment by segment, in the order of their ``first_throw``;
    empty when the record does not say (versions 1 and 2, a record built in code)."""
    rules_toml: str | None = None
    """The rule file itself, for a rule set that no preset spec names (a rule file on this
    machine, an uploaded one): the record replays without it."""

    def rule_set(self) -> RuleSet:
        """The rule set of the game: from ``rules_toml`` when the record keeps it (named as
        ``rules`` names it, the file it was read from is never read again), else ``rules``."""
        if self.rules_toml is not None:
            return as_loaded_from(rules_from_text(self.rules_toml, stored=True), self.rules)
        return load_rules(self.rules, stored=True)

    def start(self) -> GameState:
        return new_game(self.rule_set(), self.players, table_mode=self.table_mode)

    def replay(self) -> GameState:
        """The state after every action; raises InvalidRecordError naming the first bad one."""
        state = self.start()
        for i, text in enumerate(self.actions, start=1):
            state = _replay_one(state, i, text)
        return state

    def events(self) -> tuple[Event, ...]:
        """What every action said, in order (the game's log, rebuilt): each action's events
        as the engine gives them when it is played. The record is one that replays."""
        state = self.start()
        said: list[Event] = []
        for text in self.actions:
            state, events = step(state, parse_action(text))
            said.extend(events)
        return tuple(said)

    def extended(self, actions: Iterable[Action | str], times: Iterable[str | None] = ()) -> Record:
        """The record with more actions; ``times`` (when kept) says when each was played."""
        added = tuple(str(a) for a in actions)
        stamps = tuple(times)
        if self.times or stamps:
            stamps = (*stamps, *(None,) * (len(added) - len(stamps)))[: len(added)]
            known = self.times or (None,) * len(self.actions)
            return replace(self, actions=(*self.actions, *added), times=(*known, *stamps))
        return replace(self, actions=(*self.actions, *added))


def kept_rules(rules: RuleSet) -> tuple[RuleSet, str | None]:
    """A rule set as a record keeps it, and the text ``rules_toml`` keeps with it.

    A preset (with options) is named by its spec alone. Any other rule set (a rule file, its
    ``extends`` resolved) is kept as its canonical TOML text (``to_toml``), and the game is
    played with the rule set read back from that text, named as before: the record then
    replays the same game whatever becomes of the file.
    """
    if rules.source in PRESETS:
        return rules, None
    text = to_toml(rules)
    return as_loaded_from(rules_from_text(text, stored=True), rules.spec), text


def rules_from_text(text: str, *, stored: bool = False) -> RuleSet:
    """A rule set from the text of a rule file that may extend a preset, and nothing else: a
    file from elsewhere (an upload, a record) never names a file on this machine.
    ``stored``: a text this program wrote, a record's or a stored game's (see
    ``parse_rules_text``)."""

    def preset_only(name: str) -> RuleSet:
        if name not in PRESETS:
            raise InvalidRulesError(
                f"a rule file from a record or an upload may extend a preset only, not {name!r}"
            )
        return load_rules(name)

    return parse_rules_text(text, source="<rule file>", load_base=preset_only, stored=stored)


def _quote(text: str, limit: int = 40) -> str:
    """An action as quoted in an error: long garbage is cut, not echoed whole."""
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _replay_one(state: GameState, i: int, text: str) -> GameState:
    try:
        action = parse_action(text)
    except InvalidActionError as exc:
        raise InvalidRecordError(f"action {i} ({_quote(text)}): {exc}") from None
    reason = why_illegal(state, action)
    if reason is not None:
        raise InvalidRecordError(f"action {i} ({_quote(text)}) is not legal: {reason}")
    return apply_legal(state, action)  # checked just above: not again


def sheet_json(state: GameState, *, loose_ticks: bool = False) -> dict[str, Any]:
    """The sheet and the result, in the shape of ``zloutch record show --json``.

    ``loose_ticks``: with each player's ticks written before any level (G-3), which a
    record's own sheet leaves out (a record is checked against it key for key, and every
    version wrote it without: the actions give them back)."""
    return {
        "rules": state.rules.spec,
        "players": [
            {
                "name": s.name,
                "score": s.score,
                "entered": state.entered(i),
                "levels": [
                    {"value": lv.value, "crossed": lv.crossed, "pp": lv.pp, "ticks": lv.ticks}
                    for lv in s.levels
                ],
                **({"loose_ticks": s.loose_ticks} if loose_ticks else {}),
            }
            for i, s in enumerate(state.sheets)
        ],
        "winners": [state.sheets[w].name for w in state.winners],
        "finished": is_terminal(state),
    }


def dump_record(record: Record, state: GameState | None = None) -> str:
    """The JSON text of a record, with the final sheet (replayed when not given)."""
    final = state if state is not None else record.replay()
    document: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "rules": record.rules,
        "players": list(record.players),
        "table_mode": record.table_mode,
        "seed": record.seed,
        "actions": list(record.actions),
    }
    if record.times:
        document["times"] = list(record.times)
    if record.dice:
        document["dice"] = dice_document(record.dice)
    elif record.table_mode:
        document["dice"] = {"scheme": REAL_SCHEME}
    if record.rules_toml is not None:
        document["rules_toml"] = record.rules_toml
    document["sheet"] = sheet_json(final)
    return json.dumps(document, indent=2) + "\n"


def dice_json(dice: DiceCommitment) -> dict[str, Any]:
    """A commitment as a record (and the server's protocol) writes it."""
    return {
        "scheme": dice.scheme,
        "commitment": dice.commitment,
        "secret": dice.secret,
        "first_throw": dice.first_throw,
        "seeds": [{"seat": s.seat, "seed": s.seed, "from_throw": s.from_throw} for s in dice.seeds],
    }


def segment_json(segment: DiceSegment) -> dict[str, Any]:
    if isinstance(segment, DiceCommitment):
        return dice_json(segment)
    document: dict[str, Any] = {"scheme": segment.scheme, "first_throw": segment.first_throw}
    if segment.seed is not None:
        document["seed"] = segment.seed
    return document


def dice_document(segments: tuple[DiceSegment, ...]) -> dict[str, Any]:
    """The ``dice`` of a record: its one segment, or ``{"scheme": "mixed", "segments"}``."""
    if len(segments) == 1:
        return segment_json(segments[0])
    return {"scheme": MIXED_SCHEME, "segments": [segment_json(s) for s in segments]}


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_DICE_SHAPE = (
    "corrupt record: 'dice' must be null, a segment (a server's commitment: scheme, "
    'commitment, secret, first_throw, seeds; or {"scheme": "seed" | "file" | "real", '
    '"first_throw"}) or {"scheme": "mixed", "segments": [...]}'
)


def _read_dice(value: object) -> tuple[DiceSegment, ...]:
    """The ``dice`` of a record: its segments, in order (none for null)."""
    if value is None:
        return ()
    if isinstance(value, dict) and value.get("scheme") == MIXED_SCHEME:
        parts = value.get("segments")
        if not isinstance(parts, list) or len(parts) < 2:
            raise InvalidRecordError(
                "corrupt record: mixed 'dice' must list two segments or more in 'segments'"
            )
        segments = tuple(_read_segment(part) for part in parts)
    else:
        segments = (_read_segment(value),)
    starts = [s.first_throw for s in segments]
    if any(b <= a for a, b in pairwise(starts)) or starts[0] < 0:
        raise InvalidRecordError(
            "corrupt record: the dice segments must start at throws 0 or more, each after "
            f"the one before (first_throw: {', '.join(map(str, starts))})"
        )
    return segments


def _read_segment(value: object) -> DiceSegment:
    if not isinstance(value, dict):
        raise InvalidRecordError(_DICE_SHAPE)
    scheme = value.get("scheme")
    if scheme in UNCOMMITTED_SCHEMES:
        first, seed = value.get("first_throw", 0), value.get("seed")
        if not _whole(first) or (seed is not None and not _whole(seed)):
            raise InvalidRecordError(_DICE_SHAPE)
        if (seed is None) != (scheme != SEED_SCHEME):
            raise InvalidRecordError(
                "corrupt record: a 'seed' dice segment gives its seed, and only it does"
            )
        return UncommittedDice(scheme, first, seed)
    if scheme != HMAC_SCHEME:
        known = ", ".join((HMAC_SCHEME, *UNCOMMITTED_SCHEMES, MIXED_SCHEME))
        raise InvalidRecordError(
            f"corrupt record: unknown dice scheme {excerpt(scheme)} (known: {known})"
        )
    commitment, secret = value.get("commitment"), value.get("secret")
    first, seeds = value.get("first_throw", 0), value.get("seeds", [])
    if (
        not isinstance(commitment, str)
        or not (secret is None or isinstance(secret, str))
        or not _whole(first)
        or not isinstance(seeds, list)
    ):
        raise InvalidRecordError(_DICE_SHAPE)
    read: list[PlayerSeed] = []
    for s in seeds:
        if not (
            isinstance(s, dict)
            and _whole(s.get("seat"))
            and isinstance(s.get("seed"), str)
            and _whole(s.get("from_throw"))
        ):
            raise InvalidRecordError(
                "corrupt record: each of 'dice.seeds' must be {seat, seed, from_throw}"
            )
        read.append(PlayerSeed(s["seat"], s["seed"], s["from_throw"]))
    return DiceCommitment(commitment, secret, tuple(read), first, scheme)


def read_record(text: str) -> tuple[Record, dict[str, Any]]:
    """A record's fields, checked for shape but not replayed, and its JSON document."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRecordError(
            f"not a game record: invalid JSON at line {exc.lineno} column {exc.colno}"
        ) from None
    except (RecursionError, ValueError):
        raise InvalidRecordError("not a game record: its JSON cannot be read") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidRecordError(f"not a game record: 'format' must be {FORMAT!r}")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise InvalidRecordError("corrupt record: 'version' must be a whole number")
    if version < 1:
        raise InvalidRecordError(f"corrupt record: there is no record version {version}")
    if version > VERSION:
        raise InvalidRecordError(
            f"this record was written by a newer zloutch (record version {version}); "
            f"this one reads up to version {VERSION}: upgrade zloutch to open it"
        )
    rules = data.get("rules")
    players = data.get("players")
    actions = data.get("actions")
    seed = data.get("seed")
    table_mode = data.get("table_mode", False)
    if not isinstance(rules, str):
        raise InvalidRecordError("corrupt record: 'rules' must be a rule spec")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise InvalidRecordError("corrupt record: 'players' must be a list of names")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise InvalidRecordError("corrupt record: 'actions' must be a list of actions")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise InvalidRecordError("corrupt record: 'seed' must be a whole number or null")
    if not isinstance(table_mode, bool):
        raise InvalidRecordError("corrupt record: 'table_mode' must be true or false")
    times = data.get("times", [])
    if not isinstance(times, list) or not all(t is None or isinstance(t, str) for t in times):
        raise InvalidRecordError("corrupt record: 'times' must be a list of times (or nulls)")
    if times and len(times) != len(actions):
        raise InvalidRecordError(f"corrupt record: {len(times)} 'times' for {len(actions)} actions")
    rules_toml = data.get("rules_toml")
    if rules_toml is not None and not isinstance(rules_toml, str):
        raise InvalidRecordError("corrupt record: 'rules_toml' must be the text of a rule file")
    record = Record(
        rules,
        tuple(players),
        tuple(actions),
        seed,
        table_mode,
        tuple(times),
        _read_dice(data.get("dice")),
        rules_toml,
    )
    return record, data


def load_record(text: str, *, files: bool = True) -> tuple[Record, GameState]:
    """Read a record and replay it; raises InvalidRecordError saying where it is wrong.

    ``files``: whether a record without its rule file's text may name a rule file on this
    machine; False for a record from elsewhere (an upload to a server): only a preset.

    The final sheet the record wrote is compared with the one its actions give: every record
    version wrote it, so a record without one is refused, and a sheet that differs is refused
    with the first player and level where it does (version 1's ticks beside a level that
    fell back are not compared: it wrote older ones there).
    """
    record, data = read_record(text)
    version = data["version"]
    # Before the replay: with another player list the turns go round another way, and the
    # replay would fail first on a move that says nothing of the names
    written = _sheet_names(data.get("sheet"))
    players = [name.strip() for name in record.players]  # as a game seats them
    if written is not None and written != players:
        raise InvalidRecordError(
            f"corrupt record: its 'players' ({_names(players)}) are not the players of its "
            f"sheet ({_names(written)}): both are written together, so one was changed after "
            "the game"
        )
    try:
        if not files and record.rules_toml is None:
            load_preset(record.rules)
        state = record.replay()
    except InvalidRecordError:
        raise
    except ZloutchError as exc:
        raise InvalidRecordError(f"cannot replay the record: {exc}") from None
    recorded = data.get("sheet")
    if recorded is None:
        raise InvalidRecordError(
            "corrupt record: it has no 'sheet' (every version of the record format writes "
            "the final sheet, which is checked against the actions)"
        )
    replayed = sheet_json(state)
    if version < 2:
        recorded, replayed = _without_ticks(recorded), _without_ticks(replayed)
    if recorded != replayed:
        raise InvalidRecordError(
            "corrupt record: its sheet does not match its actions: "
            + sheet_difference(recorded, replayed)
        )
    return record, state


def _sheet_names(sheet: object) -> list[str] | None:
    """The players a record's sheet names, in order; None where it names them not as every
    version writes them (``sheet_difference`` then says what is wrong)."""
    if not isinstance(sheet, dict) or not isinstance(sheet.get("players"), list):
        return None
    names = [p.get("name") if isinstance(p, dict) else None for p in sheet["players"]]
    return [str(n) for n in names] if all(isinstance(n, str) for n in names) else None


def _without_ticks(sheet: Any) -> Any:
    """A sheet with the ticks beside its levels left out (version-1 records)."""
    if not isinstance(sheet, dict) or not isinstance(sheet.get("players"), list):
        return sheet
    players = [
        {**p, "levels": [{k: v for k, v in lv.items() if k != "ticks"} for lv in p["levels"]]}
        if isinstance(p, dict)
        and isinstance(p.get("levels"), list)
        and all(isinstance(lv, dict) for lv in p["levels"])
        else p
        for p in sheet["players"]
    ]
    return {**sheet, "players": players}


def _points(value: object) -> str:
    """A number as the sheet says it (``1,350``); anything else quoted short."""
    return f"{value:,}" if _whole(value) else excerpt(value)


def _names(value: object) -> str:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return ", ".join(value) if value else "nobody"
    return excerpt(value)


def _level_words(level: object) -> str:
    """A level as the sheet shows it: ``1,350``, ``1,350 crossed``, ``pp 300, 2 ticks``."""
    if not isinstance(level, dict):
        return excerpt(level)
    words = ("pp " if level.get("pp") is True else "") + _points(level.get("value"))
    if level.get("crossed") is True:
        words += " crossed"
    ticks = level.get("ticks")
    if _whole(ticks) and ticks:
        words += f", {ticks} tick" + ("s" if ticks != 1 else "")
    return words


def sheet_difference(recorded: object, replayed: dict[str, Any]) -> str:
    """The first place where a record's sheet and the one its actions give differ, named by
    player and level: ``the record's sheet says Ana stands at 1,350; its actions give 1,200``."""
    says = "the record's sheet"
    if not isinstance(recorded, dict):
        return f"{says} is not an object"
    if recorded.get("rules") != replayed["rules"]:
        return (
            f"{says} is of the rules {excerpt(recorded.get('rules'))}; its actions are played "
            f"under {replayed['rules']}"
        )
    players = recorded.get("players")
    names = [p["name"] for p in replayed["players"]]
    if not isinstance(players, list) or len(players) != len(names):
        if not isinstance(players, list):
            return f"{says} has no list of players; its actions are played by {len(names)}"
        counted = f"{len(players)} player" + ("" if len(players) == 1 else "s")
        return f"{says} has {counted}; its actions are played by {len(names)}"
    for seat, (mine, theirs) in enumerate(zip(players, replayed["players"], strict=True)):
        name = theirs["name"]
        if not isinstance(mine, dict):
            return f"{says} has no player {seat + 1} ({name})"
        if mine.get("name") != name:
            return f"{says} names player {seat + 1} {excerpt(mine.get('name'))}, not {name}"
        if mine.get("score") != theirs["score"]:
            return (
                f"{says} says {name} stands at {_points(mine.get('score'))}; "
                f"its actions give {_points(theirs['score'])}"
            )
        if mine.get("entered") != theirs["entered"]:
            has = ("has not", "has") if theirs["entered"] else ("has", "has not")
            return (
                f"{says} says {name} {has[0]} entered the game; by its actions {name} "
                f"{has[1]} (T-7)"
            )
        levels, wanted = mine.get("levels"), theirs["levels"]
        if not isinstance(levels, list):
            return f"{says} has no list of levels for {name}"
        for number, (level, want) in enumerate(zip(levels, wanted, strict=False), start=1):
            if level != want:
                return (
                    f"{says} writes {name}'s level {number} as {_level_words(level)}; "
                    f"its actions give {_level_words(want)}"
                )
        if len(levels) != len(wanted):
            return (
                f"{says} writes {len(levels)} level{'' if len(levels) == 1 else 's'} for "
                f"{name}; its actions give "
                f"{len(wanted)} (the last: {_level_words(wanted[-1]) if wanted else 'none'})"
            )
    if recorded.get("finished") != replayed["finished"]:
        said, over = ("not over", "over") if replayed["finished"] else ("over", "not over")
        return f"{says} says the game is {said}; by its actions it is {over}"
    if recorded.get("winners") != replayed["winners"]:
        return (
            f"{says} says the winners are {_names(recorded.get('winners'))}; "
            f"its actions give {_names(replayed['winners'])}"
        )
    extra = sorted(set(recorded) - set(replayed), key=str)
    return f"{says} has keys the sheet has not: {', '.join(map(excerpt, extra))}"
