"""Golden playthroughs of the engine (OpenSpiel style): one seeded random game per preset.

A playthrough is a text file, ``golden/<preset>.txt``. Its header names the rule set, the
players, the seed and the number of steps; then each step writes the state (phase, the
player to move, the turn total, the dice in hand, set aside, thrown and left, every
player's score and sheet with its levels), the legal actions in order (at a chance node,
the number of rolls and their total probability), the action taken (a roll with its
probability), and the events it caused.

``record`` plays a new game with the seeded random policy and writes it; ``replay`` reads
the actions back from a file and writes the same text again from the engine alone, so a
change of the engine's behaviour shows as a changed line. Only ``python
scripts/regen_playthroughs.py`` rewrites the files.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from zloutch.engine import (
    CHANCE,
    TERMINAL,
    Action,
    Bank,
    GameState,
    Roll,
    chance_outcomes,
    current_player,
    is_terminal,
    legal_actions,
    new_game,
    parse_action,
    step,
)
from zloutch.engine.record import roll
from zloutch.rules import PRESETS, load_rules
from zloutch.rules.dice import format_dice

GOLDEN = Path(__file__).resolve().parent / "golden"
STEPS = 60
"""Steps of each playthrough (fewer when the game ends before)."""
PLAYERS = ("Ana", "Bob")
BANK_CHANCE = 0.5
"""The random policy banks with this probability when banking is legal."""
REGENERATE = "python scripts/regen_playthroughs.py"


class PlaythroughError(Exception):
    """A playthrough file that cannot be read, or an action in it that no longer applies."""


@dataclass(frozen=True)
class Header:
    rules: str
    players: tuple[str, ...]
    seed: int
    steps: int


def seed_for(preset: str) -> int:
    return zlib.crc32(preset.encode()) % 100_000


def golden_path(preset: str) -> Path:
    return GOLDEN / f"{preset}.txt"


def _dice(dice: tuple[int, ...]) -> str:
    return format_dice(dice) if dice else "-"


def _player(state: GameState) -> str:
    who = current_player(state)
    if who == CHANCE:
        return "chance"
    if who == TERMINAL:
        return "none (the game is over)"
    return f"{who} {state.sheets[who].name}"


def _levels(state: GameState, seat: int) -> str:
    sheet = state.sheets[seat]
    words = []
    for lv in sheet.levels:
        word = str(lv.value)
        if lv.crossed:
            word = f"-{word}-"
        if lv.pp:
            word += " pp"
        if lv.penalty:
            word += " penalty"
        if lv.ticks:
            word += " " + "/" * lv.ticks
        words.append(word)
    counts = f"ticks {sheet.ticks}, loose ticks {sheet.loose_ticks}"
    counts += f", farkles in a row {sheet.farkles_in_row}"
    return f"{' | '.join(words) or '(no level)'}; {counts}"


def describe_state(state: GameState) -> list[str]:
    """The lines that say where the game stands."""
    t = state.turn
    lines = [
        f"  phase: {state.phase.value}; to move: {_player(state)}; turn {state.turns}, "
        f"seat {t.player}",
        "  scores: " + ", ".join(f"{s.name} {s.score}" for s in state.sheets),
        f"  turn total: {t.total} (inherited {t.inherited}, jokers {t.joker_points}); "
        f"in hand {state.in_hand}, rolling {t.rolling}"
        + ("; full hand" if t.full_hand else "")
        + ("; figure pending" if t.pending else "")
        + ("; joker throw" if t.joker_roll else ""),
        f"  set aside: {_dice(t.set_aside)}; jokers: {_dice(t.jokers)}; "
        f"throw: {_dice(t.throw)}; left: {_dice(t.left)}",
    ]
    for seat, sheet in enumerate(state.sheets):
        lines.append(f"  sheet {sheet.name}: {_levels(state, seat)}")
    if state.offer is not None:
        o = state.offer
        unit = "die" if o.dice == 1 else "dice"
        lines.append(f"  take-back offer: {o.total} with {o.dice} {unit}")
    if state.final is not None:
        lines.append(
            f"  final round: seat {state.final.holder} reached the target, "
            f"ends before seat {state.final.stop_before}"
        )
    return lines


def describe_legal(state: GameState) -> str:
    if current_player(state) == CHANCE:
        outcomes = chance_outcomes(state)
        total = sum((p for _, p in outcomes), Fraction(0))
        return f"  legal: {len(outcomes)} rolls of {state.turn.rolling} dice, probability {total}"
    return "  legal: " + " | ".join(str(a) for a in legal_actions(state))


def describe_action(state: GameState, action: Action) -> str:
    if isinstance(action, Roll):
        p = dict(chance_outcomes(state))[action]
        return f"  action: {action} (probability {p})"
    return f"  action: {action}"


def _policy(state: GameState, rng: random.Random) -> Action:
    if current_player(state) == CHANCE:
        return roll(state, rng)
    actions = legal_actions(state)
    if Bank() in actions and rng.random() < BANK_CHANCE:
        return Bank()
    return rng.choice([a for a in actions if a != Bank()] or list(actions))


def write(header: Header, actions: list[Action] | None) -> str:
    """The text of a playthrough: its actions chosen by the seeded policy (``None``), or
    these actions, applied in turn. Raises PlaythroughError when one of them is illegal."""
    rules = load_rules(header.rules)
    state = new_game(rules, header.players)
    rng = random.Random(header.seed)
    out = [
        f"# A golden playthrough of {header.rules}, written by {REGENERATE}.",
        "# tests/engine/test_playthroughs.py replays its actions and compares every line.",
        f"rules: {header.rules}",
        f"players: {', '.join(header.players)}",
        f"seed: {header.seed}",
        f"steps: {header.steps}",
    ]
    count = header.steps if actions is None else len(actions)
    for i in range(count):
        if is_terminal(state):
            break
        out.append("")
        out.append(f"step {i + 1}")
        out += describe_state(state)
        out.append(describe_legal(state))
        action = _policy(state, rng) if actions is None else actions[i]
        try:
            out.append(describe_action(state, action))
            state, events = step(state, action)
        except Exception as exc:  # the file's action no longer applies
            raise PlaythroughError(
                f"step {i + 1}: {action} raised {type(exc).__name__}: {exc}"
            ) from exc
        for event in events:
            out.append(f"  event: {event.describe(state.names)}")
    out.append("")
    out.append("end" + (" (the game is over)" if is_terminal(state) else ""))
    out += describe_state(state)
    if is_terminal(state):
        out.append("  winners: " + ", ".join(state.names[w] for w in state.winners))
    return "\n".join(out) + "\n"


def record(preset: str) -> str:
    """A new playthrough of a preset, its actions drawn with the preset's seed."""
    header = Header(preset, PLAYERS, seed_for(preset), STEPS)
    return write(header, None)


def read(text: str) -> tuple[Header, list[Action]]:
    """The header and the actions of a playthrough file."""
    fields: dict[str, str] = {}
    actions: list[Action] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("  action: "):
            notation = line.removeprefix("  action: ").split(" (probability")[0]
            try:
                actions.append(parse_action(notation))
            except Exception as exc:
                raise PlaythroughError(f"line {number}: {exc}") from exc
        elif not line.startswith((" ", "#")) and ": " in line and not fields.get("steps"):
            key, value = line.split(": ", 1)
            fields[key] = value
    try:
        header = Header(
            fields["rules"],
            tuple(fields["players"].split(", ")),
            int(fields["seed"]),
            int(fields["steps"]),
        )
    except (KeyError, ValueError) as exc:
        raise PlaythroughError(f"a bad header: {exc!r}") from exc
    return header, actions


def replay(text: str) -> str:
    """The text the engine writes today for the actions of a playthrough file."""
    header, actions = read(text)
    return write(header, actions)


__all__ = ["PRESETS", "PlaythroughError", "golden_path", "read", "record", "replay"]
