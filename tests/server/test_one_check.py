"""An intent from a socket is parsed once and checked once (``Match.refusal``), then applied
as it is; the rolls the server draws for a throw are neither parsed nor checked again.

Counted by wrapping the engine's ``parse_action`` and ``why_illegal`` wherever a module of
the package holds them, while the game service (what a socket's intent reaches) plays one
keep and one throw.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from zloutch.engine import Phase, actions, game, legal_actions
from zloutch.server import Accepted, MemoryStore, NewGame, Rooms, SeatSpec

COUNTED = {"parse_action": actions.parse_action, "why_illegal": game.why_illegal}


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    counted: Counter[str] = Counter()

    def counting(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            counted[name] += 1
            return original(*args, **kwargs)

        return wrapper

    for module in [m for name, m in sys.modules.items() if name.startswith("zloutch")]:
        for name, original in COUNTED.items():
            if getattr(module, name, None) is original:
                monkeypatch.setattr(module, name, counting(name, original))
    yield counted


def counted_intent(rooms: Rooms, game_id: str, token: str, action: str, calls: Counter[str]):
    room = rooms.room(game_id)
    calls.clear()
    answer = rooms.intent(game_id, token, room.version, f"c-{room.version}", action)
    assert isinstance(answer, Accepted), answer
    return dict(calls)


def test_a_keep_and_a_throw_are_parsed_once_and_checked_once(calls: Counter[str]) -> None:
    rooms = Rooms(MemoryStore())
    for _ in range(30):  # a new game (a new secret) until its first throw scores
        created = rooms.create(NewGame((SeatSpec("Ana"), SeatSpec("Bob")), "dix-mille"))
        token = rooms.join(created.invites[0][1]).token
        game_id = created.game_id
        throw = counted_intent(rooms, game_id, token, "throw", calls)
        state = rooms.room(game_id).state
        if state.phase is Phase.KEEP:
            break
    else:  # pragma: no cover - 30 farkles in a row: about 1 chance in 10**33
        pytest.fail("every first throw farkled")
    keep = counted_intent(rooms, game_id, token, str(legal_actions(state)[0]), calls)
    assert throw == {"parse_action": 1, "why_illegal": 1}  # the server's roll: neither
    assert keep == {"parse_action": 1, "why_illegal": 1}
