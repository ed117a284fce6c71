"""A client message id is a retry only from the same seat (issue: Bob's own "c-1" on his
turn was acked as Ana's duplicate and never played)."""

from __future__ import annotations

from zloutch.server import Accepted, MemoryStore, NewGame, Rooms, SeatSpec


def test_the_same_id_from_another_seat_is_its_own_intent() -> None:
    rooms = Rooms(MemoryStore())
    people = (SeatSpec("Ana"), SeatSpec("Bob"))
    created = rooms.create(NewGame(people, rules="dix-mille", table_mode=True))
    game = created.game_id
    tokens = {seat: rooms.join(code).token for seat, code in created.invites}

    def intent(seat: int, action: str, client_id: str = "c-1") -> Accepted:
        room = rooms.room(game)
        answer = rooms.intent(game, tokens[seat], room.version, client_id, action)
        assert isinstance(answer, Accepted), answer
        return answer

    intent(0, "throw")
    intent(0, "roll 2 3 4 6 6", "c-2")  # Ana's throw scores nothing: Bob's turn
    assert rooms.room(game).state.turn.player == 1
    before = rooms.room(game).version
    mine = intent(1, "throw")  # Bob's "c-1" is not Ana's
    assert not mine.duplicate and mine.version == before + 1
    assert rooms.room(game).state.turn.rolling == 5
    again = rooms.room(game)
    retry = rooms.intent(game, tokens[1], before, "c-1", "throw")  # Bob's retry: a duplicate
    assert isinstance(retry, Accepted) and retry.duplicate and retry.version == again.version
