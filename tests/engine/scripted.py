"""Play scripted games: actions in notation, dice included as ``roll ...``."""

from __future__ import annotations

from zloutch.engine import GameState, apply, new_game, parse_action
from zloutch.engine.events import Event
from zloutch.engine.game import step
from zloutch.rules import load_rules


def start(spec: str, players: str = "Ana,Bob") -> GameState:
    return new_game(load_rules(spec), players.split(","))


def play(state: GameState, script: str) -> GameState:
    """Apply actions separated by ';' (``throw; roll 1 1 4 4 3; keep 1 1; bank``)."""
    for text in script.split(";"):
        if text.strip():
            state = apply(state, parse_action(text))
    return state


def play_events(state: GameState, script: str) -> tuple[GameState, list[Event]]:
    events: list[Event] = []
    for text in script.split(";"):
        if text.strip():
            state, new = step(state, parse_action(text))
            events.extend(new)
    return state, events


def levels(state: GameState, player: int) -> list[tuple[int, bool]]:
    return [(lv.value, lv.crossed) for lv in state.sheets[player].levels]
