"""The JSON the server speaks (documented message by message in docs/server.md).

Only shapes here: the state and the events are the engine's, translated; no rule is decided.
A message for a socket is in its language (``lang``): the engine's words go through
``i18n.translate`` on the way out, the rest is the same in every language.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

from zloutch.adapters.web.i18n import catalog, fill, translate, translate_event
from zloutch.app.hints import level_plays
from zloutch.app.match import undone_words
from zloutch.console.render import combination_rows
from zloutch.engine import (
    GameState,
    Phase,
    current_player,
    outcome,
    throw_score,
    turn_player,
)
from zloutch.engine.events import Event
from zloutch.engine.game import keep_passes, keep_strands, keep_wins, takeover_busts
from zloutch.engine.record import dice_json, sheet_json
from zloutch.rules import (
    COMMON_OPTIONS,
    OPTIONS,
    PRESETS,
    RuleSet,
    kinds_outscored,
    load_rules,
)
from zloutch.server import Accepted, Played, Refused, Room, refusals
from zloutch.server.hub import dumps
from zloutch.strategy.bots import LEVELS

MAX_CATCH_UP = 500
"""A client further behind than this many entries gets the whole state instead."""


def event_json(event: Event, names: tuple[str, ...], lang: str = "en") -> dict[str, Any]:
    """An engine event: its type, its fields, and its words (``Ana keeps 1 5 for 150``)."""
    fields = {k: list(v) if isinstance(v, tuple) else v for k, v in _fields(event).items()}
    english = {"type": type(event).__name__, **fields, "text": event.describe(names)}
    return english if lang == "en" else translate_event(english, lang, names)


def _fields(event: Event) -> dict[str, Any]:
    return {f.name: getattr(event, f.name) for f in dataclasses.fields(event)}


def entry_json(played: Played, names: tuple[str, ...], lang: str = "en") -> dict[str, Any]:
    entry = played.entry
    return {
        "seq": entry.seq,
        "entry": entry.text,
        "seat": entry.seat,
        "at": entry.at,
        "events": [event_json(e, names, lang) for e in played.events] + undone_json(played, lang),
    }


def undone_json(played: Played, lang: str = "en") -> list[dict[str, Any]]:
    """An undo at a real table, as an event: the actions it took back, the last first (the
    actions in the engine's notation, the words around them in ``lang``)."""
    if not played.undone:
        return []
    then = f", {translate('then', lang)} "
    words = then.join(translate(word, lang) for word in undone_words(played.undone))
    text = fill(catalog(lang).exact.get(UNDONE, UNDONE), {"actions": words})
    return [{"type": "Undone", "actions": list(played.undone), "text": text}]


UNDONE = "undone: {actions}"
"""An undo's words (its catalog entry): the actions in the page's words ("garder 1 5")."""


def state_json(room: Room, lang: str = "en") -> dict[str, Any]:
    """Where the game stands, for a client to draw: nothing to work out on its side."""
    state = room.state
    t = state.turn
    who = current_player(state)
    offer = state.offer
    return {
        "game": room.game.id,
        "version": room.version,
        "status": room.game.status,
        "rules": state.rules.spec,
        "table_mode": room.game.table_mode,
        "entry": state.rules.turn.entry,
        "target": state.rules.game.target,
        "exact_target": state.rules.game.exact_target,
        # past an exact target: "lost" (the turn is lost) or "throw_on" (no bank any more)
        "overshoot": state.rules.game.overshoot,
        "phase": state.phase.value,
        "to_move": who if who >= 0 else None,
        "turn_player": turn_player(state) if state.phase is not Phase.OVER else None,
        "acting": list(room.acting_seats()),
        "seats": room.seat_entries(),
        "turn": {
            "total": t.total,
            "throw": list(t.throw),
            "left": list(t.left),
            "set_aside": list(t.set_aside),
            "jokers": list(t.jokers),
            "rolling": t.rolling,
            "in_hand": state.in_hand,
            "full_hand": t.full_hand,
            "pending": t.pending,
        },
        "offer": (
            {"total": offer.total, "dice": offer.dice, "busts": takeover_busts(state)}
            if offer
            else None
        ),
        # The end is near (F-4's last turns, G-6's last round): who reached the target, and the
        # score to beat (under F-4 another may have passed it since)
        "final": final_json(state),
        "legal": [str(a) for a in room.match.legal()],
        "keeps": [
            {
                "dice": list(k.dice),
                "points": k.points,
                "full_hand": k.full_hand,
                "passes": keep_passes(state, k),
                "strands": keep_strands(state, k),
                "lands": keep_wins(state, k),  # on an exact target: bank it to win
            }
            for k in (throw_score(state).keeps if state.phase is Phase.KEEP else ())
        ],
        "refusals": {
            kind: None if why is None else {"reason": translate(why.reason, lang), "rule": why.rule}
            for kind, why in refusals(room).items()
        },
        "sheet": sheet_json(state, loose_ticks=True),
        "standing": standing_json(state),
        "outcome": outcome_json(state),
        "dice": None if room.game.table_mode else dice_json(room.dice()),
        "rematch": room.game.rematch,
        "hints": room.game.hints,
    }


def standing_json(state: GameState) -> list[dict[str, Any]]:
    """Where each player stands on the sheet: the current level (its index, or None), the
    ticks that stand with no level to be beside (G-3 Reading)."""
    found = []
    for sheet in state.sheets:
        index = sheet.current_index
        loose = sheet.current_ticks if index is None else 0
        found.append({"current": index, "loose_ticks": loose})
    return found


def outcome_json(state: GameState) -> dict[str, Any] | None:
    """The ranking and the sailors' kicks (G-9) once the game is over."""
    result = outcome(state)
    if result is None:
        return None
    kicks = {seat: (given, taken) for seat, given, taken in result.kicks}
    return {
        "winners": list(result.winners),
        "ranking": [
            {
                "seat": seat,
                "rank": rank,
                "name": state.sheets[seat].name,
                "score": state.sheets[seat].score,
                "kicks_given": kicks[seat][0],
                "kicks_taken": kicks[seat][1],
            }
            for seat, rank in result.ranking
        ],
    }


def events_message(
    room: Room, played: tuple[Played, ...] | list[Played], lang: str = "en"
) -> dict[str, Any]:
    names = room.state.names
    return {
        "type": "events",
        "from": played[0].entry.seq if played else room.version + 1,
        "to": played[-1].entry.seq if played else room.version,
        "entries": [entry_json(p, names, lang) for p in played],
        "state": state_json(room, lang),
    }


def catch_up(room: Room, since: int | None, lang: str = "en") -> dict[str, Any]:
    """The entries after ``since`` (with the state), or the whole state when far behind."""
    result: dict[str, Any] = json.loads(catch_up_text(room, since, lang))
    return result


# The texts below are what goes on the wire: each piece is encoded once (the state once per
# version and language, an entry once per language) and kept on the room, so that a
# broadcast to many sockets, a catch-up and a GET of the state reuse it. They are the same
# JSON as ``json.dumps`` of the dictionaries above.


def state_text(room: Room, lang: str = "en") -> str:
    """``state_json`` encoded, once per state of the room and language."""
    key = ("state", lang)
    revision = room.revision
    kept = room.memo.get(key)
    if kept is not None and kept[0] == revision:
        return kept[1]
    text = dumps(state_json(room, lang))
    if room.revision == revision:  # not changed meanwhile (by a store call on a thread)
        room.memo[key] = (revision, text)
    return text


def entry_text(room: Room, played: Played, lang: str = "en") -> str:
    # kept with the names it was worded with: a rename on another thread clears the memo,
    # and a text made meanwhile with the old names is not served as current
    key = (played.entry.seq, lang)
    names = room.state.names
    kept = room.entry_memo.get(key)
    if kept is not None and kept[0] == names:
        return kept[1]
    text = dumps(entry_json(played, names, lang))
    room.entry_memo[key] = (names, text)
    return text


def events_text(room: Room, played: Sequence[Played], lang: str = "en") -> str:
    """``events_message`` encoded from the encoded pieces."""
    first = played[0].entry.seq if played else room.version + 1
    last = played[-1].entry.seq if played else room.version
    entries = ",".join(entry_text(room, p, lang) for p in played)
    return (
        f'{{"type":"events","from":{first},"to":{last},"entries":[{entries}],'
        f'"state":{state_text(room, lang)}}}'
    )


def catch_up_text(room: Room, since: int | None, lang: str = "en") -> str:
    """``catch_up`` encoded: the entries after ``since``, or the whole state."""
    if since is not None and 0 <= since <= room.version and room.version - since <= MAX_CATCH_UP:
        return events_text(room, room.played[since:], lang)
    return f'{{"type":"state","state":{state_text(room, lang)}}}'


def final_json(state: GameState) -> dict[str, int] | None:
    """Once a player has reached the target and the others play their last turn (F-4) or
    round (G-6): who reached it and at what score, and who leads at what score (the first
    seat of a tie); None before, and once the game is over."""
    if state.final is None or state.phase is Phase.OVER:
        return None
    scores = [sheet.score for sheet in state.sheets]
    best = max(scores)
    holder = state.final.holder
    return {"holder": holder, "score": scores[holder], "leader": scores.index(best), "best": best}


def answer_json(client_id: str, answer: Accepted | Refused, lang: str = "en") -> dict[str, Any]:
    if isinstance(answer, Accepted):
        return {
            "type": "ack",
            "id": client_id,
            "version": answer.version,
            "duplicate": answer.duplicate,
        }
    return {
        "type": "refused",
        "id": client_id,
        "code": answer.code,
        "reason": translate(answer.reason, lang),
        "rule": answer.rule,
        "version": answer.version,
    }


def preset_title(name: str) -> str:
    """A preset's name as a title: ``dix-mille-6`` -> ``Dix mille 6``."""
    return name.replace("-", " ").capitalize()


def rules_json(rules: RuleSet, lang: str = "en") -> dict[str, Any]:
    """A game's rules for its table's rules panel: the rule set's name, summary, spec,
    target and entry, its scores, and every option with its rule id, its meaning in
    ``lang`` and its value; ``changed`` lists the options switched on the preset or rule
    file (its summary says what it is as shipped), ``in_play`` the options that act
    (``RuleSet.acting_options``: on, or a number or choice other than 0 and off, and not
    one that acts only with another that is off), ``off`` the others; ``kinds_best`` the n of a
    kind that score more split into other combinations (``kinds_outscored``);
    ``combinations`` the others (``console.render.combination_rows``: name, dice, points,
    note, in ``lang`` where the catalog knows the words)."""
    values = rules.option_values()

    def entry(name: str) -> dict[str, Any]:
        info = OPTIONS[name]
        meaning = translate(info.meaning, lang)
        return {"option": name, "rule": info.rule, "meaning": meaning, "value": values[name]}

    acting = rules.acting_options()
    kinds: dict[str, dict[str, Any]] = {}
    for (count, face), value in sorted(rules.kinds_values().items()):
        kinds.setdefault(str(count), {})[str(face)] = value
    kinds_best: dict[str, dict[str, int]] = {}
    for (count, face), best in kinds_outscored(rules).items():
        kinds_best.setdefault(str(count), {})[str(face)] = best
    return {
        "name": rules.name,
        "title": translate(preset_title(rules.name), lang),
        "summary": translate(rules.summary, lang),
        "spec": rules.spec,
        "dice": rules.dice,
        "target": rules.game.target,
        "exact_target": rules.game.exact_target,
        "entry": rules.turn.entry,
        "singles": [[face, points] for face, points in rules.scoring.singles],
        "kinds": kinds,
        "kinds_best": kinds_best,
        # every other combination (straights, pairs, full house...), singles aside
        "combinations": [
            {
                "name": translate(name, lang),
                "dice": translate(dice, lang),
                "points": translate(points, lang),  # a formula in words too: three x pair
                "note": translate(note, lang),
            }
            for name, dice, points, note in combination_rows(rules)[len(rules.scoring.singles) :]
        ],
        "changed": [entry(n) for n, _ in rules.options],
        "in_play": [entry(n) for n in acting],
        "off": [entry(n) for n in OPTIONS if n not in acting],
    }


def presets_json(lang: str = "en") -> dict[str, Any]:
    """The presets and every option, for a lobby: the meanings and summaries in ``lang``."""
    presets = []
    for name in PRESETS:
        rules = load_rules(name)
        presets.append(
            {
                "name": name,
                "title": translate(preset_title(name), lang),
                "summary": translate(rules.summary, lang),
                "dice": rules.dice,
                "target": rules.game.target,
                "values": rules.option_values(),
            }
        )
    options = [
        {
            "name": info.name,
            "rule": info.rule,
            "meaning": translate(info.meaning, lang),
            "kind": info.kind,
            "default": info.default,
            "choices": list(info.choices) if info.kind == "choice" else None,
        }
        for info in OPTIONS.values()
    ]
    levels = [
        {"level": level, "bot": bot, "plays": translate(level_plays(level), lang)}
        for level, bot in LEVELS.items()
    ]
    return {
        "presets": presets,
        "options": options,
        "common": list(COMMON_OPTIONS),  # shown first, in sight
        "bots": list(LEVELS),
        "levels": levels,
    }


class WebWire:
    """The hub's messages as this protocol writes them (``zloutch.server.hub.Wire``)."""

    def answer(self, client_id: str, answer: Accepted | Refused, lang: str) -> dict[str, Any]:
        return answer_json(client_id, answer, lang)

    def events(self, room: Room, played: Sequence[Played], lang: str) -> str:
        return events_text(room, played, lang)


WIRE = WebWire()
"""The web's wire, for the hub."""
