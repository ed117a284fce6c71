"""Undo at a real table, through the game service: an entry of the log that takes back the
last one typed; refused with the reason where there is nothing to take back."""

from __future__ import annotations

import pytest

from zloutch.app.match import Refusal
from zloutch.engine.record import load_record
from zloutch.server import Accepted, MemoryStore, NewGame, Refused, Room, Rooms, SeatSpec
from zloutch.server import refusals as refusals_of

ANA_BOB = (SeatSpec("Ana"), SeatSpec("Bob"))


def table(table_mode: bool = True) -> tuple[Rooms, str, dict[int, str]]:
    rooms = Rooms(MemoryStore())
    created = rooms.create(NewGame(ANA_BOB, table_mode=table_mode))
    tokens = {seat: rooms.join(code).token for seat, code in created.invites}
    return rooms, created.game_id, tokens


def play(rooms: Rooms, game: str, token: str, *actions: str) -> None:
    for action in actions:
        room = rooms.room(game)
        answer = rooms.intent(game, token, room.version, f"c{room.version}", action)
        assert isinstance(answer, Accepted), (action, answer)


def test_undo_takes_back_the_last_entry_and_the_log_keeps_it() -> None:
    rooms, game, tokens = table()
    play(rooms, game, tokens[0], "throw", "roll 1 2 3 4 6", "keep 1", "throw", "roll 1 1 5 6")
    play(rooms, game, tokens[0], "undo")
    room = rooms.room(game)
    assert room.state.phase.value == "roll" and room.state.turn.rolling == 4
    assert room.played[-1].undone == ("roll 1 1 5 6",)
    play(rooms, game, tokens[0], "undo")  # and the throw before it
    assert rooms.room(game).state.phase.value == "decide"
    play(rooms, game, tokens[0], "throw", "roll 1 1 5 5", "keep 1 1 5 5")
    record, state = load_record(rooms.room(game).record_text())
    assert record.actions == (
        "throw",
        "roll 1 2 3 4 6",
        "keep 1",
        "throw",
        "roll 1 1 5 5",
        "keep 1 1 5 5",
    )
    assert len(record.times) == len(record.actions)
    assert state.turn.total == 400
    # Rebuilt from its log (undo entries and all), the game stands where it stood.
    again = Room.rebuild(room.game, room.seats, rooms.store.log(game))
    assert again.state == rooms.room(game).state and again.record == rooms.room(game).record


def test_anyone_seated_at_the_table_may_undo_the_last_entry() -> None:
    rooms, game, tokens = table()
    play(rooms, game, tokens[0], "throw", "roll 2 3 4 6 6")  # Ana's farkle: Bob to play
    play(rooms, game, tokens[1], "undo")
    assert rooms.room(game).state.turn.player == 0


def test_undo_is_refused_with_its_reason() -> None:
    rooms, game, tokens = table()
    answer = rooms.intent(game, tokens[0], 0, "u0", "undo")
    assert isinstance(answer, Refused) and answer.reason == "there is nothing to undo"
    rooms, game, tokens = table(table_mode=False)
    answer = rooms.intent(game, tokens[0], 0, "u0", "undo")
    assert isinstance(answer, Refused) and answer.code == "illegal"
    assert "only at a real table" in answer.reason


def test_the_refusals_of_each_kind_of_action_are_the_engines() -> None:
    rooms, game, tokens = table()
    found = refusals_of(rooms.room(game))
    assert found["throw"] is None
    assert found["bank"] == Refusal("you cannot bank now: there is nothing kept to bank", None)
    assert found["take"] == Refusal("there is no turn to take back (G-8)", "G-8")
    assert found["undo"] == Refusal("there is nothing to undo", None)
    assert "joker" not in found  # dix-mille plays no jokers (V-2)
    play(rooms, game, tokens[0], "throw")
    found = refusals_of(rooms.room(game))
    assert found["roll"] is None and found["throw"] is not None
    play(rooms, game, tokens[0], "roll 1 2 3 4 6")
    found = refusals_of(rooms.room(game))
    assert found["keep"] is None and found["off"] is None
    assert found["throw"] == Refusal(
        "you cannot throw now: keep dice from the throw first (T-2)", "T-2"
    )
    rooms, game, _ = table(table_mode=False)
    assert "undo" not in refusals_of(rooms.room(game))


def test_a_seat_renamed_stays_renamed_through_an_undo() -> None:
    """An undo replays the record: the name given after the game began is the record's,
    so it is the replayed state's too, and the rest of the state is the same as before."""
    rooms, game, tokens = table()
    play(rooms, game, tokens[0], "throw", "roll 1 2 3 4 6", "keep 1")
    before = rooms.room(game).state
    rooms.rename(game, tokens[1], "Bea")
    after = rooms.room(game).state
    assert after.names == ("Ana", "Bea")
    assert after == before.renamed(("Ana", "Bea")) and after.turn == before.turn
    assert after.renamed(before.names) == before
    with pytest.raises(ValueError, match="1 names for 2 players"):
        after.renamed(("Ana",))
    play(rooms, game, tokens[0], "undo")
    room = rooms.room(game)
    assert room.state.names == room.record.players == ("Ana", "Bea")
    assert room.state.turn.total == 0 and len(room.state.turn.throw) == 5


def test_a_game_over_at_a_real_table_reopens_with_an_undo() -> None:
    """The winning throw typed wrong: an undo takes it back, the game plays again (its row
    says so, in the store too), and it can end again; computer dice end for good."""
    rooms = Rooms(MemoryStore())
    created = rooms.create(NewGame(ANA_BOB, rules="dix-mille(target=1000)", table_mode=True))
    tokens = {seat: rooms.join(code).token for seat, code in created.invites}
    game = created.game_id
    play(rooms, game, tokens[0], "throw", "roll 1 1 1 2 3", "keep 1 1 1", "bank")
    room = rooms.room(game)
    assert room.over and room.game.status == "over"
    assert refusals_of(room)["undo"] is None
    assert refusals_of(room)["throw"] == Refusal("the game is over", None)
    answer = rooms.intent(game, tokens[1], room.version, "x", "throw")
    assert isinstance(answer, Refused) and answer.code == "over"
    play(rooms, game, tokens[1], "undo")  # anyone seated: the bank is taken back
    room = rooms.room(game)
    assert not room.over and room.game.status == "playing"
    assert rooms.store.game(game).status == "playing"  # type: ignore[union-attr]
    assert room.state.phase.value == "decide" and room.state.turn.total == 1000
    play(rooms, game, tokens[0], "undo", "undo")  # the keep, then the faces typed wrong
    play(rooms, game, tokens[0], "roll 5 5 5 2 3", "keep 5 5 5", "bank")
    room = rooms.room(game)
    assert not room.over and [s.score for s in room.state.sheets] == [500, 0]
    again = Room.rebuild(room.game, room.seats, rooms.store.log(game))
    assert again.state == room.state


def test_a_game_over_stays_over_once_its_rematch_exists() -> None:
    rooms = Rooms(MemoryStore())
    created = rooms.create(NewGame(ANA_BOB, rules="dix-mille(target=1000)", table_mode=True))
    tokens = {seat: rooms.join(code).token for seat, code in created.invites}
    game = created.game_id
    play(rooms, game, tokens[0], "throw", "roll 1 1 1 2 3", "keep 1 1 1", "bank")
    rooms.rematch(game, tokens[0])
    room = rooms.room(game)
    why = "the rematch has started: this game's result stands"
    assert refusals_of(room)["undo"] == Refusal(why, None)
    answer = rooms.intent(game, tokens[0], room.version, "u", "undo")
    assert isinstance(answer, Refused) and (answer.code, answer.reason) == ("illegal", why)
    assert rooms.room(game).over
