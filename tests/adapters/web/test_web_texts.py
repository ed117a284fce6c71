"""The wire texts made once and reused (``protocol.state_text``, ``events_text``,
``catch_up_text``): the same JSON as the messages they stand for, never stale; and a finished
game nobody watches leaves the server's memory, rebuilt from its log when asked for."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from zloutch.adapters.web.protocol import (
    WIRE,
    catch_up,
    catch_up_text,
    events_message,
    events_text,
    state_json,
    state_text,
)
from zloutch.server import Accepted, MemoryStore, NewGame, Rooms, SeatSpec
from zloutch.server.hub import Client, Hub

ANA_BOB = (SeatSpec("Ana"), SeatSpec("Bob"))


def seated(rooms: Rooms, rules: str = "dix-mille") -> tuple[str, dict[int, str]]:
    created = rooms.create(NewGame(ANA_BOB, rules=rules))
    return created.game_id, {s: rooms.join(c).token for s, c in created.invites}


def play_some(rooms: Rooms, game: str, tokens: dict[int, str], moves: int, seed: int) -> None:
    rng = random.Random(seed)
    for n in range(moves):
        room = rooms.room(game)
        if room.over:
            return
        (seat,) = room.acting_seats()
        action = str(rng.choice(rooms.legal(game)))
        answer = rooms.intent(game, tokens[seat], room.version, f"m{n}", action)
        assert isinstance(answer, Accepted), answer


@settings(max_examples=25, deadline=None)
@given(
    moves=st.integers(0, 30),
    seed=st.integers(0, 10**6),
    since=st.integers(-2, 40),
    lang=st.sampled_from(["en", "fr"]),
)
def test_the_texts_are_the_messages_encoded(moves: int, seed: int, since: int, lang: str) -> None:
    rooms = Rooms(MemoryStore())
    game, tokens = seated(rooms, "dix-mille(target=1000)")
    play_some(rooms, game, tokens, moves, seed)
    room = rooms.room(game)
    for _ in range(2):  # made, then served from the memo: the same
        assert json.loads(state_text(room, lang)) == state_json(room, lang)
        played = room.played[max(0, room.version - 3) :]
        assert json.loads(events_text(room, played, lang)) == events_message(room, played, lang)
        assert json.loads(catch_up_text(room, since, lang)) == catch_up(room, since, lang)
    expected = "state" if since < 0 or since > room.version else "events"
    assert catch_up(room, since, lang)["type"] == expected


def test_a_seat_change_is_in_the_next_state_text() -> None:
    rooms = Rooms(MemoryStore())
    game, _ = seated(rooms)
    room = rooms.room(game)
    before = json.loads(state_text(room))
    assert [s["away"] for s in before["seats"]] == [False, False]
    assert rooms.set_away(game, 1, True)
    after = json.loads(state_text(room))
    assert [s["away"] for s in after["seats"]] == [False, True]
    assert after["version"] == before["version"]


def test_a_text_made_while_the_room_changed_is_not_kept() -> None:
    rooms = Rooms(MemoryStore())
    game, _ = seated(rooms)
    room = rooms.room(game)
    state_text(room)
    revision = room.revision
    room.touch()  # as a store call on the writer's thread does
    assert room.revision == revision + 1
    assert ("state", "en") not in room.memo
    state_text(room)
    assert room.memo[("state", "en")][0] == room.revision


class Inbox:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def send_text(self, data: str) -> None:
        self.sent.append(json.loads(data))

    async def close(self, code: int = 1000) -> None:
        pass


def test_a_finished_game_leaves_memory_after_its_last_socket() -> None:
    async def scenario() -> None:
        rooms = Rooms(MemoryStore())
        hub = Hub(rooms, wire=WIRE)
        game, tokens = seated(rooms, "dix-mille(target=500)")
        client = Client(Inbox(), game, 0)
        hub.join(client)
        rng = random.Random(3)
        n = 0
        while not rooms.room(game).over:
            room = rooms.room(game)
            (seat,) = room.acting_seats()
            action = str(rng.choice(rooms.legal(game)))
            await hub.intent(client, tokens[seat], room.version, f"i{n}", action)
            n += 1
        finished = rooms.room(game)
        assert game in rooms.rooms  # a socket still watches it
        hub.leave(client)
        assert game not in rooms.rooms  # gone from memory...
        again = await hub.room(game)  # ...and rebuilt from its log on demand
        assert again is not finished
        assert again.version == finished.version and again.over
        assert again.record_text() == finished.record_text()
        await hub.stop()

    asyncio.run(scenario())


def test_a_game_being_played_stays_in_memory_without_sockets() -> None:
    async def scenario() -> None:
        rooms = Rooms(MemoryStore())
        hub = Hub(rooms, wire=WIRE)
        game, _ = seated(rooms)
        client = Client(Inbox(), game, None)
        hub.join(client)
        hub.leave(client)
        assert game in rooms.rooms
        assert not hub.evict(game)
        await hub.stop()

    asyncio.run(scenario())


def test_the_last_round_names_the_score_to_beat() -> None:
    """F-4: Ana reaches 1000, then Bob passes her: Cy's last turn is against Bob's 1050,
    not Ana's 1000 (the page said "Ana reached 1000"); nothing before, nothing once over."""
    from zloutch.adapters.web.protocol import final_json
    from zloutch.engine import Bank, Roll, Throw, apply, is_terminal, new_game
    from zloutch.engine.actions import Keep
    from zloutch.rules import load_rules

    state = new_game(load_rules("greed(target=1000)"), ["Ana", "Bob", "Cy"])

    def turn(state: Any, roll: tuple[int, ...], keep: tuple[int, ...]) -> Any:
        for action in (Throw(), Roll(roll), Keep(keep), Bank()):
            state = apply(state, action)
        return state

    assert final_json(state) is None
    state = turn(state, (1, 1, 1, 2, 3), (1, 1, 1))
    assert final_json(state) == {"holder": 0, "score": 1000, "leader": 0, "best": 1000}
    state = turn(state, (1, 1, 1, 5, 2), (1, 1, 1, 5))
    assert final_json(state) == {"holder": 0, "score": 1000, "leader": 1, "best": 1050}
    state = apply(apply(state, Throw()), Roll((2, 2, 3, 4, 6)))  # Cy farkles: over
    assert is_terminal(state) and final_json(state) is None
