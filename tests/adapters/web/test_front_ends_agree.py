"""The front ends agree: the same scripted games, played through the terminal session
(``Session``, reading what a person types), the web service (a real ``zloutch serve`` on
127.0.0.1, over its WebSocket protocol) and the plain engine (``zloutch.engine``), show the
same legal actions, the same refusals with the same rule ids, the same events and the same
sheet after every attempt.

A script is drawn from a seed: mostly a legal action of the player to move, sometimes an
attempt that may well be refused (bank, throw, a keep of dice that do not score, take,
fresh, a die off the table, a joker, faces, undo), and at a real table the faces of the dice
in the air (now and then of the wrong number). Every preset is played with real dice (typed
in) and with computer dice (the server throws them; the session and the engine are given the
same throws), with a take-back offer (G-8) where the rule set has one, and with jokers (V-2).

The engine knows no undo and no dice but chance rolls: an undo is played on it by replaying
its actions without the last one (no bot sits at these tables, so each undo takes back one
action; at a real table the end of the game too), and where the dice imply a refusal of
their own (faces given for dice the game throws, a move while real dice are in the air) only
the rule id is compared with it.
"""

from __future__ import annotations

import dataclasses
import json
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from served import Server
from websockets.sync.client import ClientConnection

from zloutch.app.dice import TypedDice
from zloutch.app.session import Session, SessionError
from zloutch.engine import (
    Action,
    Bank,
    GameState,
    IllegalActionError,
    InvalidActionError,
    Phase,
    Roll,
    legal_actions,
    new_game,
    parse_action,
    step,
    why_illegal,
)
from zloutch.engine.events import Event
from zloutch.engine.record import sheet_json
from zloutch.rules import PRESETS, load_rules
from zloutch.server import RULE_ID

pytestmark = pytest.mark.xdist_group("front-ends-agree")

PLAYERS = ("Ana", "Bob", "Cleo")
ATTEMPTS = 80
"""Attempts per scripted game in the default run (the slow run plays ``SLOW_ATTEMPTS``)."""
SLOW_ATTEMPTS = 400
TRIES = (
    "bank",
    "throw",
    "keep 2 3",
    "keep 1",
    "keep 5 5 5 5 5 5",
    "take",
    "fresh",
    "off",
    "joker 1",
    "roll 1 2 3",
    "undo",
)
"""Attempts drawn now and then, whatever the state: refused or played, alike everywhere."""


def players(spec: str) -> tuple[str, ...]:
    """Three players, or as many as the rule set seats."""
    game = load_rules(spec).game
    return PLAYERS[: max(game.min_players, min(len(PLAYERS), game.max_players))]


def short(spec: str) -> str:
    """A spec whose games end within a script: a low target (the preset's own if lower)."""
    target = load_rules(spec).game.target
    if target <= 2000:
        return spec
    if "(" in spec:
        return spec[:-1] + ",target=2000)"
    return f"{spec}(target=2000)"


GAMES = [
    *((name, False) for name in PRESETS),
    *((name, True) for name in PRESETS),
    ("dix-mille(joker)", False),
    ("dix-mille(joker)", True),
    ("farkle(joker)", True),
]
"""(rule spec, real dice): every preset both ways, and jokers (V-2)."""


# ---------------------------------------------------------------------------- what is seen


@dataclass
class Seen:
    """What a front end shows after one attempt."""

    refused: tuple[str, str | None] | None
    events: list[dict[str, Any]]
    legal: list[str]
    phase: str
    sheet: list[dict[str, Any]]
    undone: list[str] = field(default_factory=list)


def event_dict(event: Event, names: tuple[str, ...]) -> dict[str, Any]:
    """An engine event as plain JSON values: its type, its fields, its words."""
    fields = {f.name: getattr(event, f.name) for f in dataclasses.fields(event)}
    plain: dict[str, Any] = json.loads(json.dumps(fields))
    return {"type": type(event).__name__, **plain, "text": event.describe(names)}


def rule_of(reason: str) -> str | None:
    found = RULE_ID.search(reason)
    return found.group(1) if found else None


def plain_legal(state: GameState) -> list[str]:
    """The engine's legal actions less the chance rolls."""
    return [str(a) for a in legal_actions(state) if not isinstance(a, Roll)]


def sheet(state: GameState) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(json.dumps(sheet_json(state, loose_ticks=True)))
    return found


# ---------------------------------------------------------------------------- the engine


class EngineSide:
    """The plain engine: ``step``, ``why_illegal``, ``legal_actions``; undo by replay."""

    def __init__(self, spec: str, table_mode: bool) -> None:
        self.start = new_game(load_rules(spec), players(spec), table_mode=table_mode)
        self.state = self.start
        self.actions: list[Action] = []

    def attempt(self, text: str, rolls: list[Roll]) -> Seen:
        if text == "undo":
            undone: list[str] = []
            if self.state.table_mode and self.actions:  # a game over too: it goes on
                undone.append(str(self.actions.pop()))
                self.state = self.start
                for action in self.actions:
                    self.state, _ = step(self.state, action)
            return self._seen(None, [], undone)
        over = why_illegal(self.state, Bank()) if self.state.phase is Phase.OVER else None
        if over is not None:  # the end answers first, whatever the text (the server's order)
            return self._seen((over, rule_of(over)), [])
        try:  # more dice than the game has: not an action of this game (the server's word)
            action = parse_action(text, max_dice=self.state.rules.dice)
        except InvalidActionError as exc:
            return self._seen((str(exc), None), [])
        reason = why_illegal(self.state, action)
        if reason is not None:
            return self._seen((reason, rule_of(reason)), [])
        events: list[Event] = []
        for played in (action, *rolls):
            self.state, caused = step(self.state, played)
            self.actions.append(played)
            events += caused
        return self._seen(None, events)

    def _seen(
        self,
        refused: tuple[str, str | None] | None,
        events: list[Event],
        undone: list[str] | None = None,
    ) -> Seen:
        names = self.state.names
        return Seen(
            refused,
            [event_dict(e, names) for e in events],
            plain_legal(self.state),
            self.state.phase.value,
            sheet(self.state),
            undone or [],
        )


# ---------------------------------------------------------------------------- the session


@dataclass
class GivenDice:
    """Computer dice for the session: the throws the server threw, given in turn."""

    queue: list[Roll] = field(default_factory=list)
    typed: bool = False

    def draw(self, state: GameState, actions: int, throws: int = 0) -> Roll:
        return self.queue.pop(0)

    def undraw(self, count: int) -> None:
        pass

    def segment(self, first_throw: int, *, reveal: bool = False) -> Any:
        return TypedDice().segment(first_throw)


class SessionSide:
    """The terminal session, as the line mode drives it: a typed line read, then played;
    the dice it throws when the game waits for them."""

    def __init__(self, spec: str, table_mode: bool) -> None:
        self.given = GivenDice()
        dice = TypedDice() if table_mode else self.given
        self.session = Session.new(spec, ",".join(players(spec)), table_mode=table_mode, dice=dice)

    def attempt(self, text: str, rolls: list[Roll]) -> Seen:
        s = self.session
        before = len(s.log)
        if text == "undo":
            try:
                undone = list(s.undo())
            except SessionError as exc:
                return self._seen((str(exc), rule_of(str(exc))), before)
            return self._seen(None, len(s.log), undone)
        self.given.queue += rolls
        try:
            s.play(s.read(text))
        except (IllegalActionError, InvalidActionError) as exc:
            return self._seen((str(exc), rule_of(str(exc))), len(s.log))
        while s.need().value == "dice":
            s.roll()
        assert not self.given.queue, "the session threw fewer dice than the server"
        return self._seen(None, before)

    def _seen(
        self, refused: tuple[str, str | None] | None, since: int, undone: list[str] | None = None
    ) -> Seen:
        s = self.session
        events = [e.event for e in s.log[since:] if e.event is not None]
        return Seen(
            refused,
            [event_dict(e, s.names) for e in events],
            [str(a) for a in s.moves()],
            s.state.phase.value,
            sheet(s.state),
            undone or [],
        )


# ---------------------------------------------------------------------------- the web


class WebSide:
    """A game on the server, played over one WebSocket: each intent carries the token of the
    seat that acts (one phone keeping the score for the table)."""

    def __init__(self, server: Server, spec: str, table_mode: bool) -> None:
        created, self.tokens = server.new_game(
            rules=spec, seats=[{"name": n} for n in players(spec)], real_dice=table_mode, pace=0
        )
        self.game = created["game"]
        self.ws: ClientConnection = server.socket(self.game)
        self.ws.send(json.dumps({"type": "hello", "token": self.tokens[0], "since": 0}))
        self.state: dict[str, Any] = {}
        self.entries: dict[int, dict[str, Any]] = {}
        self.count = 0
        assert self.receive()["type"] == "welcome"
        self.receive()  # the catch-up

    def receive(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(20))
        if message["type"] in ("events", "state"):
            if message["state"]["version"] >= self.state.get("version", -1):
                self.state = message["state"]
            for entry in message.get("entries", ()):
                self.entries[entry["seq"]] = entry
        return message

    def acting_token(self) -> str:
        acting = self.state["acting"] or [self.state["turn_player"] or 0]
        return self.tokens[acting[0]]

    def attempt(self, text: str) -> tuple[Seen, list[Roll]]:
        """The intent, its answer, and the server's throws that came with it."""
        self.count += 1
        client_id = f"{self.game}-{self.count}"
        base = self.state["version"]
        intent = {
            "type": "intent",
            "id": client_id,
            "version": base,
            "action": text,
            "token": self.acting_token(),
        }
        self.ws.send(json.dumps(intent))
        while True:
            answer = self.receive()
            if answer["type"] in ("ack", "refused") and answer["id"] == client_id:
                break
        if answer["type"] == "refused":
            assert answer["code"] in ("illegal", "over", "invalid"), answer  # too many dice
            return self._seen((answer["reason"], answer["rule"]), []), []
        deadline = time.monotonic() + 20
        while self.state["version"] < answer["version"] and time.monotonic() < deadline:
            self.receive()
        played = [self.entries[seq] for seq in range(base + 1, answer["version"] + 1)]
        rolls = [
            parse_action(e["entry"])
            for e in played
            if e["seat"] is None and e["entry"].startswith("roll")
        ]
        events = [e for entry in played for e in entry["events"] if e["type"] != "Undone"]
        undone = [
            a
            for entry in played
            for e in entry["events"]
            if e["type"] == "Undone"
            for a in e["actions"]
        ]
        return self._seen(None, events, undone), [r for r in rolls if isinstance(r, Roll)]

    def _seen(
        self,
        refused: tuple[str, str | None] | None,
        events: list[dict[str, Any]],
        undone: list[str] | None = None,
    ) -> Seen:
        s = self.state
        return Seen(refused, events, list(s["legal"]), s["phase"], s["sheet"], undone or [])

    def close(self) -> None:
        self.ws.close()


# ---------------------------------------------------------------------------- the script


def next_attempt(rng: random.Random, state: GameState) -> str:
    """What the script tries now, from where the game stands (the engine's state)."""
    table = state.table_mode
    if state.phase is Phase.ROLL:
        n = state.turn.rolling
        if rng.random() < 0.85:
            return str(Roll(tuple(sorted(rng.randint(1, 6) for _ in range(n)))))
        wrong = rng.choice([k for k in range(1, 7) if k != n])
        return rng.choice(["off", "bank", "undo", f"roll {' '.join(['2'] * wrong)}"])
    if table and rng.random() < 0.05:
        return "undo"
    if state.phase is Phase.OVER or rng.random() < 0.2:
        return rng.choice(TRIES)
    legal = plain_legal(state)
    if len(legal) > 1 and "off" in legal and rng.random() < 0.8:
        legal.remove("off")  # a die off the table now and then, not every other throw
    return rng.choice(legal) if legal else rng.choice(TRIES)


def diverged(where: str, texts: list[str], seen: dict[str, Seen]) -> str:
    lines = [f"{where}: the front ends disagree after {texts[-12:]}"]
    for name, one in seen.items():
        lines.append(f"  {name}: {one}")
    return "\n".join(lines)


def play_script(
    server: Server, spec: str, table_mode: bool, attempts: int, seed: int
) -> tuple[int, bool]:
    """Play a scripted game through the three front ends, comparing what they show after
    every attempt; the number of attempts played (fewer once the game is over), and whether
    the game ended."""
    rng = random.Random(f"front-ends:{spec}:{table_mode}:{seed}")
    engine, session, web = EngineSide(spec, table_mode), SessionSide(spec, table_mode), None
    web = WebSide(server, spec, table_mode)
    texts: list[str] = []
    over_tries = 0
    try:
        first = web._seen(None, [])
        assert first.legal == plain_legal(engine.state) == session._seen(None, 0).legal
        for _ in range(attempts):
            text = next_attempt(rng, engine.state)
            texts.append(text)
            at_roll = engine.state.phase is Phase.ROLL
            on_web, rolls = web.attempt(text)
            seen = {
                "web": on_web,
                "session": session.attempt(text, rolls),
                "engine": engine.attempt(text, rolls),
            }
            where = f"{spec}, {'real' if table_mode else 'computer'} dice, seed {seed}"
            a, b, c = seen["web"], seen["session"], seen["engine"]
            assert a == b, diverged(where, texts, seen)
            # The engine: the same refusal (the rule at least, where the dice speak), the
            # same events, legal actions and sheet.
            if text == "undo" or (text.startswith("roll") and not table_mode):
                c = dataclasses.replace(c, refused=a.refused)  # the dice's own refusal
            elif at_roll and a.refused is not None and c.refused is not None:
                assert a.refused[1] == c.refused[1], diverged(where, texts, seen)
                c = dataclasses.replace(c, refused=a.refused)
            assert a == c, diverged(where, texts, seen)
            if engine.state.phase is Phase.OVER:
                over_tries += 1
                if over_tries > 3:
                    break
    finally:
        web.close()
    return len(texts), over_tries > 0


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder: Path = tmp_path_factory.mktemp("agree")
    running = Server(f"sqlite:///{folder / 'games.sqlite'}", log=folder / "server.log")
    running.start()
    yield running
    running.stop()


REAL_BY_DEFAULT = {"dix-mille", "farkle(joker)"}
"""The games played with real dice in the default run (the sheet, and jokers typed); every
preset's runs under slow. With the computer's dice every preset runs by default."""


def games() -> list[object]:
    return [
        pytest.param(
            spec,
            real,
            id=f"{spec}-{'real' if real else 'computer'}",
            marks=pytest.mark.slow if real and spec not in REAL_BY_DEFAULT else (),
        )
        for spec, real in GAMES
    ]


@pytest.mark.parametrize(("spec", "table_mode"), games())
def test_the_front_ends_show_the_same_game(served: Server, spec: str, table_mode: bool) -> None:
    played, over = play_script(served, short(spec), table_mode, ATTEMPTS, seed=1)
    # The server draws the computer's dice: a short game may end within a few attempts.
    assert played >= min(ATTEMPTS, 10) or over, played


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "table_mode"), GAMES, ids=[f"{s}-{'real' if t else 'computer'}" for s, t in GAMES]
)
def test_the_front_ends_show_the_same_long_games(
    served: Server, spec: str, table_mode: bool
) -> None:
    for seed in (2, 3):
        play_script(served, short(spec), table_mode, SLOW_ATTEMPTS, seed=seed)


def test_a_die_falls_off_the_table_while_the_dice_are_in_the_air(served: Server) -> None:
    """V-1 Reading: at a real table a die may fall off as the dice are thrown, before their
    faces are given; the engine allows it, and so do the session and the server, whose state
    lists it."""
    web = WebSide(served, "dix-mille", table_mode=True)
    session = SessionSide("dix-mille", table_mode=True)
    engine = EngineSide("dix-mille", table_mode=True)
    try:
        thrown, _ = web.attempt("throw")
        assert thrown == session.attempt("throw", []) == engine.attempt("throw", [])
        assert thrown.legal == ["off"] and thrown.phase == "roll"
        assert web.state["refusals"]["off"] is None
        off, _ = web.attempt("off")
        assert off == session.attempt("off", []) == engine.attempt("off", [])
        assert off.refused is None and off.events[0]["type"] == "Farkled"  # the turn is lost
    finally:
        web.close()
