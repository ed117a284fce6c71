"""Game records: a versioned JSON document that replays to the same game.

A record holds the rule spec, the players, the seed (when the dice were random) and every
action, the rolls of the dice included (``roll 1 1 4 4 3``), and the final sheet. Loading
replays every action through the engine and compares the sheet: a record is accepted whole
or refused with the place of the first problem, never half-loaded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from zloutch.engine.actions import (
    Action,
    IllegalActionError,
    InvalidActionError,
    Roll,
    parse_action,
)
from zloutch.engine.game import apply, is_terminal, new_game, why_illegal
from zloutch.engine.state import GameState
from zloutch.rules.dice import sort_dice
from zloutch.rules.errors import ZloutchError
from zloutch.rules.loader import load_rules

FORMAT = "zloutch-record"
VERSION = 2
"""2: the ticks beside a level fallen back to restart from 0 (G-3 Reading, ticks_restart).
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
    return Roll(sort_dice(rng.randint(1, 6) for _ in range(state.turn.rolling)))


@dataclass(frozen=True)
class Record:
    """Everything needed to replay a game."""

    rules: str
    players: tuple[str, ...]
    actions: tuple[str, ...] = ()
    seed: int | None = None
    table_mode: bool = False

    def start(self) -> GameState:
        return new_game(load_rules(self.rules), self.players, table_mode=self.table_mode)

    def replay(self) -> GameState:
        """The state after every action; raises InvalidRecordError naming the first bad one."""
        state = self.start()
        for i, text in enumerate(self.actions, start=1):
            state = _replay_one(state, i, text)
        return state

    def extended(self, actions: Iterable[Action | str]) -> Record:
        return Record(
            self.rules,
            self.players,
            (*self.actions, *(str(a) for a in actions)),
            self.seed,
            self.table_mode,
        )


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
    try:
        return apply(state, action)
    except IllegalActionError as exc:  # pragma: no cover - why_illegal said it was legal
        raise InvalidRecordError(f"action {i} ({_quote(text)}): {exc}") from None


def sheet_json(state: GameState) -> dict[str, Any]:
    """The sheet and the result, in the shape of ``zloutch record show --json``."""
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
            }
            for i, s in enumerate(state.sheets)
        ],
        "winners": [state.sheets[w].name for w in state.winners],
        "finished": is_terminal(state),
    }


def dump_record(record: Record, state: GameState | None = None) -> str:
    """The JSON text of a record, with the final sheet (replayed when not given)."""
    final = state if state is not None else record.replay()
    document = {
        "format": FORMAT,
        "version": VERSION,
        "rules": record.rules,
        "players": list(record.players),
        "table_mode": record.table_mode,
        "seed": record.seed,
        "actions": list(record.actions),
        "sheet": sheet_json(final),
    }
    return json.dumps(document, indent=2) + "\n"


def load_record(text: str) -> tuple[Record, GameState]:
    """Read a record and replay it; raises InvalidRecordError saying where it is wrong."""
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
    record = Record(rules, tuple(players), tuple(actions), seed, table_mode)
    try:
        state = record.replay()
    except InvalidRecordError:
        raise
    except ZloutchError as exc:
        raise InvalidRecordError(f"cannot replay the record: {exc}") from None
    recorded = data.get("sheet")
    replayed = sheet_json(state)
    if version < 2:
        recorded, replayed = _without_ticks(recorded), _without_ticks(replayed)
    if recorded is not None and recorded != replayed:
        raise InvalidRecordError(
            "corrupt record: its sheet does not match the replay of its actions"
            + _first_difference(recorded, replayed)
        )
    return record, state


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


def _first_difference(recorded: object, replayed: dict[str, Any]) -> str:
    if not isinstance(recorded, dict):
        return " ('sheet' is not an object)"
    for key, value in replayed.items():
        if recorded.get(key) != value:
            return f" (first difference in {key!r})"
    return ""
