"""The game service: seats and tokens, intents checked by the engine, the log, bots, dice."""

from __future__ import annotations

import os
import random
import secrets
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zloutch.app.fairdice import Verdict, verify_record
from zloutch.engine import CHANCE, current_player, legal_actions
from zloutch.engine.record import DiceCommitment, load_record
from zloutch.rules import ZloutchError
from zloutch.server import (
    Accepted,
    Append,
    GameRow,
    GameStore,
    LogEntry,
    MemoryStore,
    NewGame,
    Refused,
    Room,
    RoomError,
    Rooms,
    SeatRow,
    SeatSpec,
    UnknownGameError,
    digest,
)

ANA_BOB = (SeatSpec("Ana"), SeatSpec("Bob"))
POSTGRES = os.environ.get("ZLOUTCH_TEST_POSTGRES")
POSTGRES_HOWTO = (
    "set ZLOUTCH_TEST_POSTGRES to a PostgreSQL URL to run this test against PostgreSQL, e.g. "
    'as root: pg_ctlcluster 15 main start; su postgres -c "psql -c \\"CREATE ROLE zloutch '
    "LOGIN PASSWORD 'zloutch'\\\" -c 'CREATE DATABASE zloutch_test OWNER zloutch'\"; "
    "export ZLOUTCH_TEST_POSTGRES=postgresql://zloutch:zloutch@127.0.0.1:5432/zloutch_test"
)


@contextmanager
def database(
    kind: str, folder: Path, fresh_schema: Callable[[str], AbstractContextManager[str]]
) -> Iterator[str]:
    """The URL of a database of the caller's own: a new SQLite file, or a new schema in the
    PostgreSQL test database (dropped at the end), which no earlier run left games in."""
    if kind == "sqlite":
        yield f"sqlite:///{folder / 'games.sqlite'}"
        return
    if not POSTGRES:
        pytest.skip(POSTGRES_HOWTO)
    try:
        import psycopg

        psycopg.connect(POSTGRES, connect_timeout=3).close()
    except Exception as exc:  # any failure to connect means: skip, and say how
        pytest.skip(f"PostgreSQL is not reachable ({exc}); {POSTGRES_HOWTO}")
    with fresh_schema(POSTGRES) as url:
        yield url


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def new_store(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    fresh_schema: Callable[[str], AbstractContextManager[str]],
) -> Iterator[Callable[[], GameStore]]:
    """Stores over one database (a second call is a second process's view of it)."""
    if request.param == "memory":
        memory = MemoryStore()
        yield lambda: memory
        return
    from zloutch.server.gamedb import SqlStore

    with database(request.param, tmp_path, fresh_schema) as url:
        opened: list[SqlStore] = []

        def make() -> GameStore:
            try:
                opened.append(SqlStore(url))
            except ZloutchError as exc:
                pytest.skip(f"{exc}; {POSTGRES_HOWTO}")
            return opened[-1]

        yield make
        for store in opened:
            store.close()


def seated(rooms: Rooms, request: NewGame) -> tuple[str, dict[int, str]]:
    created = rooms.create(request)
    tokens = {seat: rooms.join(code).token for seat, code in created.invites}
    return created.game_id, tokens


def play_out(rooms: Rooms, game_id: str, tokens: dict[int, str], seed: int, limit: int = 4000):
    """Play a game to its end: the bots on the server, the people by random legal intents."""
    rng = random.Random(seed)
    for n in range(limit):
        room = rooms.room(game_id)
        if room.over:
            return room
        if room.bot_to_move() is not None:
            assert rooms.bot_move(game_id, room.version) is not None
            continue
        (seat,) = room.acting_seats()
        action = rng.choice(legal_actions(room.state))
        answer = rooms.intent(game_id, tokens[seat], room.version, f"c{n}", str(action))
        assert isinstance(answer, Accepted), answer
        assert current_player(rooms.room(game_id).state) != CHANCE  # the server threw
    raise AssertionError("the game did not end")


def test_a_game_plays_to_its_end_and_its_record_verifies(
    new_store: Callable[[], GameStore],
) -> None:
    rooms = Rooms(new_store())
    game_id, tokens = seated(
        rooms, NewGame((*ANA_BOB, SeatSpec(bot="easy")), rules="cinq-mille(target=2000)", pace=0)
    )
    assert set(tokens) == {0, 1}
    rooms.intent(game_id, tokens[1], 0, "seed-1", "seed bob's lucky words")
    room = play_out(rooms, game_id, tokens, seed=1)
    record, state = load_record(room.record_text())
    assert state == room.state
    (dice,) = record.dice
    assert isinstance(dice, DiceCommitment) and dice.secret == room.game.secret
    assert [s.seed for s in dice.seeds] == ["bob's lucky words"]
    assert len(record.times) == len(record.actions)
    assert verify_record(record).verdict is Verdict.VERIFIED


def test_the_secret_stays_hidden_until_the_end() -> None:
    rooms = Rooms(MemoryStore())
    game_id, _ = seated(rooms, NewGame(ANA_BOB))
    room = rooms.room(game_id)
    assert room.game.secret not in room.record_text()
    assert room.game.commitment in room.record_text()


def test_tokens_are_stored_as_hashes_and_an_invitation_seats_its_holder_again() -> None:
    """Seat tokens and the host's token are kept as hashes; an invitation's code is kept
    (the seat list shows it) and, opened again (a chat app's browser, then the real one),
    gives the same seat and token: it was 'unknown or was used already', the seat lost."""
    store = MemoryStore()
    rooms = Rooms(store)
    created = rooms.create(NewGame(ANA_BOB))
    joined = rooms.join(created.invites[0][1])
    kept = repr(store.seat_rows) + repr(store.games)
    assert joined.token not in kept and created.host not in kept
    assert digest(joined.token) in kept and digest(created.host) in kept
    again = rooms.join(created.invites[0][1])
    assert (again.game_id, again.seat, again.token) == (joined.game_id, 0, joined.token)
    assert rooms.seat_of(created.game_id, again.token) == 0


def test_stale_forged_spectator_wrong_seat_and_illegal_intents_are_refused(
    new_store: Callable[[], GameStore],
) -> None:
    rooms = Rooms(new_store())
    game_id, tokens = seated(rooms, NewGame(ANA_BOB))
    ana, bob = tokens[0], tokens[1]

    def refused(token: str | None, version: int, text: str) -> Refused:
        answer = rooms.intent(game_id, token, version, f"id-{random.random()}", text)
        assert isinstance(answer, Refused), answer
        return answer

    assert refused("forged-token", 0, "throw").code == "bad_token"
    assert refused(None, 0, "throw").code == "spectator"
    assert refused(bob, 0, "throw").code == "not_your_turn"
    assert refused(ana, 5, "throw").code == "stale"
    assert refused(ana, 0, "dance").code == "invalid"
    six = refused(ana, 0, "keep 1 1 2 2 3 3")  # the game's own dice count, not six
    assert six.code == "invalid" and f"at most {rooms.room(game_id).state.rules.dice} " in (
        six.reason
    )
    bank = refused(ana, 0, "bank")
    assert bank.code == "illegal" and "nothing kept" in bank.reason
    assert rooms.room(game_id).version == 0
    rooms.intent(game_id, ana, 0, "id-first", "throw")  # the game moves on
    at = rooms.room(game_id).version
    # every refusal says where the game stands (a spectator's said 0)
    assert at > 0 and refused(None, 0, "throw").version == at


def test_an_engine_refusal_carries_its_rule_id() -> None:
    rooms = Rooms(MemoryStore())
    game_id, tokens = seated(rooms, NewGame(ANA_BOB, rules="dix-mille"))
    rng = random.Random(3)
    # Throw and keep the least until a bank under the entry (T-7) is refused.
    for n in range(200):
        room = rooms.room(game_id)
        (seat,) = room.acting_seats()
        actions = [str(a) for a in legal_actions(room.state)]
        if "bank" not in actions and "throw" in actions and room.state.turn.total < 500:
            answer = rooms.intent(game_id, tokens[seat], room.version, f"b{n}", "bank")
            if isinstance(answer, Refused) and answer.rule == "T-7":
                assert "500" in answer.reason
                return
        choice = min(actions, key=lambda a: (a == "bank", len(a)))
        rooms.intent(game_id, tokens[seat], room.version, f"m{n}", rng.choice([choice]))
    raise AssertionError("no T-7 refusal met")


def test_a_retried_intent_is_applied_once(new_store: Callable[[], GameStore]) -> None:
    rooms = Rooms(new_store())
    game_id, tokens = seated(rooms, NewGame(ANA_BOB))
    first = rooms.intent(game_id, tokens[0], 0, "same-id", "throw")
    assert isinstance(first, Accepted) and first.version == 2  # throw, and the server's roll
    again = rooms.intent(game_id, tokens[0], 0, "same-id", "throw")
    assert again == Accepted(2, duplicate=True)
    assert rooms.room(game_id).version == 2
    # The retry reaches another process, which has not seen the first yet.
    other = Rooms(new_store())
    game, seats = other.store.game(game_id), other.store.seats(game_id)
    assert game is not None
    other.rooms[game_id] = Room.rebuild(game, seats, ())  # as it stood before the intent
    late = other.intent(game_id, tokens[0], 0, "same-id", "throw")
    assert isinstance(late, Accepted) and late.duplicate
    # What it caught up with in the log, to tell its sockets.
    assert [p.entry.seq for p in late.caught_up] == [1, 2]
    assert len(rooms.store.log(game_id)) == 2


def test_a_game_is_rebuilt_from_its_log(new_store: Callable[[], GameStore]) -> None:
    rooms = Rooms(new_store())
    game_id, tokens = seated(rooms, NewGame((*ANA_BOB, SeatSpec(bot="strong"))))
    rng = random.Random(5)
    for n in range(30):
        room = rooms.room(game_id)
        if room.bot_to_move() is not None:
            rooms.bot_move(game_id, room.version)
            continue
        (seat,) = room.acting_seats()
        action = rng.choice(legal_actions(room.state))
        rooms.intent(game_id, tokens[seat], room.version, f"x{n}", str(action))
    before = rooms.room(game_id)
    after = Rooms(new_store()).room(game_id)  # a new process over the same store
    assert after.state == before.state and after.record == before.record


def test_two_processes_on_one_store_never_both_apply(
    new_store: Callable[[], GameStore],
) -> None:
    one = Rooms(new_store())
    game_id, tokens = seated(one, NewGame(ANA_BOB))
    two = Rooms(new_store())
    two.room(game_id)  # both hold the game at version 0
    assert isinstance(one.intent(game_id, tokens[0], 0, "a", "throw"), Accepted)
    late = two.intent(game_id, tokens[0], 0, "b", "throw")
    assert isinstance(late, Refused) and late.code == "stale" and late.version == 2
    assert [p.entry.seq for p in late.caught_up] == [1, 2]  # read in the conflict
    assert two.room(game_id).state == one.room(game_id).state
    assert len(one.store.log(game_id)) == 2


def test_a_person_away_is_played_by_a_bot_and_takes_the_seat_back() -> None:
    rooms = Rooms(MemoryStore())
    game_id, tokens = seated(rooms, NewGame(ANA_BOB, leave_after=30, leave_bot="easy"))
    assert rooms.room(game_id).bot_to_move() is None
    assert rooms.set_away(game_id, 0, True)
    assert rooms.room(game_id).bot_to_move() == 0
    while rooms.room(game_id).bot_to_move() == 0:
        assert rooms.bot_move(game_id, rooms.room(game_id).version) is not None
    room = rooms.room(game_id)
    if 0 in room.acting_seats():  # pragma: no cover - the turn passed on
        rooms.intent(game_id, tokens[0], room.version, "back", "throw")
    assert rooms.set_away(game_id, 0, False)
    assert rooms.room(game_id).seats[0].away is False


def test_waiting_lists_the_games_on_your_move() -> None:
    rooms = Rooms(MemoryStore())
    one, tokens1 = seated(rooms, NewGame(ANA_BOB))
    two, tokens2 = seated(rooms, NewGame(ANA_BOB))
    rooms.intent(two, tokens2[0], 0, "t", "throw")
    mine = [tokens1[0], tokens2[0], tokens1[1]]
    assert rooms.waiting(mine) == [(one, 0)] + (
        [(two, 0)] if 0 in rooms.room(two).acting_seats() else []
    )


def test_rematch_seats_the_same_people(new_store: Callable[[], GameStore]) -> None:
    rooms = Rooms(new_store())
    game_id, tokens = seated(rooms, NewGame(ANA_BOB, rules="dix-mille(target=1000)"))
    with pytest.raises(RoomError, match="when the game is over"):
        rooms.rematch(game_id, tokens[0])
    play_out(rooms, game_id, tokens, seed=2)
    ana = rooms.rematch(game_id, tokens[0])
    bob = rooms.rematch(game_id, tokens[1])
    assert ana.game_id == bob.game_id != game_id
    assert (ana.seat, bob.seat) == (0, 1)
    assert isinstance(rooms.intent(ana.game_id, ana.token, 0, "r", "throw"), Accepted)
    with pytest.raises(RoomError):
        rooms.rematch(game_id, "someone else")


def test_a_seat_changed_while_it_is_renamed_keeps_the_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The person comes back (or leaves) on the loop's thread while the rename is in the
    store on the writer's: the rename keeps the seat as it stands after, not as it stood
    before (a bot played on for a person who was back). The same for a reissue."""
    store = MemoryStore()
    rooms = Rooms(store)
    created = rooms.create(NewGame(ANA_BOB, leave_after=30))
    game_id = created.game_id
    tokens = {seat: rooms.join(code).token for seat, code in created.invites}
    rename_seat = store.rename_seat

    def meanwhile(game: str, seat: int, name: str) -> tuple[str, ...]:
        rooms.set_away(game, seat, True)  # the person left as the rename was stored
        return rename_seat(game, seat, name)

    monkeypatch.setattr(store, "rename_seat", meanwhile)
    rooms.rename(game_id, tokens[1], "Bea")
    row = rooms.room(game_id).seats[1]
    assert (row.name, row.away) == ("Bea", True) and rooms.room(game_id).bot_for(1) == "medium"
    update_seat = store.update_seat

    def renamed_meanwhile(game: str, seat: int, **changes: object) -> None:
        room = rooms.room(game)
        room.set_seat(replace(room.seats[seat], name="Beatrix"))
        update_seat(game, seat, **changes)

    monkeypatch.setattr(store, "update_seat", renamed_meanwhile)
    rooms.reissue(game_id, created.host, 1)
    assert rooms.room(game_id).seats[1].name == "Beatrix"


def test_hints_turned_off_stay_off_in_the_store_and_the_rematch(
    new_store: Callable[[], GameStore],
) -> None:
    rooms = Rooms(new_store())
    game_id, tokens = seated(rooms, NewGame(ANA_BOB, rules="dix-mille(target=1000)", hints=False))
    assert Rooms(new_store()).room(game_id).game.hints is False  # as stored
    assert Rooms(new_store()).room(seated(rooms, NewGame(ANA_BOB))[0]).game.hints is True
    play_out(rooms, game_id, tokens, seed=2)
    rematch = rooms.rematch(game_id, tokens[0])
    assert Rooms(new_store()).room(rematch.game_id).game.hints is False


def test_two_processes_asked_for_a_rematch_make_one_game(
    new_store: Callable[[], GameStore],
) -> None:
    # Two processes' views of one database, both holding the finished game in memory with
    # no rematch yet: the second to ask is given the first's game, not a second one.
    one, two = Rooms(new_store()), Rooms(new_store())
    game_id, tokens = seated(one, NewGame(ANA_BOB, rules="dix-mille(target=1000)"))
    play_out(one, game_id, tokens, seed=2)
    assert two.room(game_id).over and two.room(game_id).game.rematch is None
    ana = one.rematch(game_id, tokens[0])
    bob = two.rematch(game_id, tokens[1])
    assert ana.game_id == bob.game_id
    assert (ana.seat, bob.seat) == (0, 1)
    assert isinstance(two.intent(ana.game_id, ana.token, 0, "r", "throw"), Accepted)


def test_an_invite_opened_on_two_processes_at_once_seats_one_person(
    new_store: Callable[[], GameStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Process two reads the seat of an invite; process one gives it away before process two
    takes it: process two's claim finds the seat taken with the invitation's own token and
    gives that one (before the tokens were the invitation's, both were given a token for
    it, then process two was told the invitation was used already)."""
    one, two = Rooms(new_store()), Rooms(new_store())
    created = one.create(NewGame(ANA_BOB))
    game_id, code = created.game_id, dict(created.invites)[0]
    two.room(game_id)  # in memory there, the seat free
    looked_up = two.store.seat_by_invite
    first: list[str] = []

    def lookup_then_lose_the_race(invite_hash: str) -> SeatRow | None:
        row = looked_up(invite_hash)
        if not first:  # the memory store is one object: its own lookup comes here too
            first.append("")
            first[0] = one.join(code).token
        return row

    monkeypatch.setattr(two.store, "seat_by_invite", lookup_then_lose_the_race)
    second = two.join(code)
    assert (second.seat, second.token) == (0, first[0])
    (row, _) = one.store.seats(game_id)
    assert row.token_hash == digest(first[0]) and row.invite_hash == digest(code)
    assert one.seat_of(game_id, first[0]) == 0
    assert isinstance(two.intent(game_id, first[0], 0, "i", "throw"), Accepted)


def test_an_open_link_opened_on_two_processes_gives_two_seats(
    new_store: Callable[[], GameStore],
) -> None:
    """Both processes hold the game with every seat free; the open link is opened on one,
    then on the other, which has not heard of it: the next seat, not the same one."""
    one, two = Rooms(new_store()), Rooms(new_store())
    created = one.create(NewGame(ANA_BOB))
    game_id = created.game_id
    two.room(game_id)
    ana = one.join_open(game_id, created.open_code)
    bob = two.join_open(game_id, created.open_code)
    assert (ana.seat, bob.seat) == (0, 1)
    with pytest.raises(RoomError, match="every seat"):
        one.join_open(game_id, created.open_code)
    rows = one.store.seats(game_id)
    assert [r.token_hash for r in rows] == [digest(ana.token), digest(bob.token)]


def test_a_rematch_seat_taken_through_another_process_is_its_heirs_again(
    new_store: Callable[[], GameStore],
) -> None:
    """Ana takes her rematch seat on process one, then asks again on process two, which
    holds the rematch from before: her seat, with the same token (her rematch seat's
    invitation's: both her devices hold it)."""
    one, two = Rooms(new_store()), Rooms(new_store())
    game_id, tokens = seated(one, NewGame(ANA_BOB, rules="dix-mille(target=1000)"))
    play_out(one, game_id, tokens, seed=2)
    bob = two.rematch(game_id, tokens[1])  # the rematch is made on process two
    ana = one.rematch(game_id, tokens[0])
    again = two.rematch(game_id, tokens[0])  # process two still sees her seat free
    assert bob.game_id == ana.game_id == again.game_id
    assert (bob.seat, ana.seat, again.seat) == (1, 0, 0) and again.token == ana.token
    assert two.seat_of(again.game_id, again.token) == 0
    assert isinstance(two.intent(again.game_id, again.token, 0, "r", "throw"), Accepted)


# The database's transactions decide this race: the memory store (one process) has none.
@pytest.mark.parametrize("new_store", ["sqlite", "postgres"], indirect=True)
@pytest.mark.parametrize("tries", [4])
def test_an_invite_opened_at_once_on_threads_seats_one_person(
    new_store: Callable[[], GameStore], tries: int
) -> None:
    """Two processes open one invitation at the same moment: one seat, one token, given
    to both (the invitation's: nobody else is seated, neither is refused)."""
    import threading

    store = new_store()
    for _ in range(tries):
        views = [Rooms(new_store()) for _ in range(2)]
        created = views[0].create(NewGame(ANA_BOB))
        code = dict(created.invites)[0]
        gate = threading.Barrier(2)
        seated_with: list[str] = []
        refused: list[Exception] = []

        def open_it(
            rooms: Rooms,
            code: str,
            gate: threading.Barrier,
            out: list[str],
            refused: list[Exception],
        ) -> None:
            gate.wait()
            try:
                out.append(rooms.join(code).token)
            except UnknownGameError as exc:
                refused.append(exc)

        threads = [
            threading.Thread(target=open_it, args=(rooms, code, gate, seated_with, refused))
            for rooms in views
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert len(seated_with) == 2 and not refused, (seated_with, refused)
        assert seated_with[0] == seated_with[1]
        (row, bob) = store.seats(created.game_id)
        assert row.token_hash == digest(seated_with[0]) and bob.token_hash is None


# The database's transactions decide this race: the memory store (one process) has none.
@pytest.mark.parametrize("new_store", ["sqlite", "postgres"], indirect=True)
@pytest.mark.parametrize("tries", [4])
def test_rematches_asked_at_once_on_threads_make_one_game(
    new_store: Callable[[], GameStore], tries: int
) -> None:
    import threading

    store = new_store()
    for n in range(tries):
        views = [Rooms(new_store()) for _ in range(2)]
        game_id, tokens = seated(views[0], NewGame(ANA_BOB, rules="dix-mille(target=1000)"))
        play_out(views[0], game_id, tokens, seed=n)
        for rooms in views:
            rooms.room(game_id)  # in memory, no rematch yet
        gate = threading.Barrier(2)
        made: list[str] = []

        def ask(
            rooms: Rooms, token: str, game_id: str, gate: threading.Barrier, made: list[str]
        ) -> None:
            gate.wait()
            made.append(rooms.rematch(game_id, token).game_id)

        threads = [
            threading.Thread(target=ask, args=(rooms, tokens[seat], game_id, gate, made))
            for seat, rooms in enumerate(views)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert len(made) == 2 and made[0] == made[1], made
        assert store.game(game_id).rematch == made[0]  # type: ignore[union-attr]


def test_unfinished_games_expire_and_finished_ones_are_kept(
    new_store: Callable[[], GameStore],
) -> None:
    moment = [datetime(2000, 1, 1, tzinfo=UTC)]
    rooms = Rooms(new_store(), clock=lambda: moment[0])
    done, tokens = seated(rooms, NewGame(ANA_BOB, rules="dix-mille(target=1000)"))
    play_out(rooms, done, tokens, seed=3)
    idle, idle_tokens = seated(rooms, NewGame(ANA_BOB))
    moment[0] += timedelta(days=31)
    assert rooms.expire(timedelta(days=30)) == (idle,)
    answer = rooms.intent(idle, idle_tokens[0], 0, "late", "throw")
    assert isinstance(answer, Refused) and answer.code == "expired"
    assert rooms.room(done).game.status == "over"


def test_an_expired_games_record_reveals_its_secret_and_verifies(
    new_store: Callable[[], GameStore],
) -> None:
    """An expired game plays no more, but its secret stayed hidden: ``zloutch verify``
    could not check the throws it had made. Its record now carries it, as a finished one's."""
    moment = [datetime(2000, 1, 1, tzinfo=UTC)]
    rooms = Rooms(new_store(), clock=lambda: moment[0])
    game_id, tokens = seated(rooms, NewGame(ANA_BOB))
    for n in range(3):
        room = rooms.room(game_id)
        (seat,) = room.acting_seats()
        rooms.intent(
            game_id, tokens[seat], room.version, f"e{n}", str(legal_actions(room.state)[0])
        )
    record, _ = load_record(rooms.room(game_id).record_text())
    assert record.dice[0].secret is None  # playing: hidden
    moment[0] += timedelta(days=31)
    assert rooms.expire(timedelta(days=30)) == (game_id,)
    text = rooms.room(game_id).record_text()
    record, _ = load_record(text)
    assert record.dice[0].secret is not None
    assert verify_record(record, text).verdict is Verdict.VERIFIED


def test_an_uploaded_record_goes_on_as_a_new_game() -> None:
    rooms = Rooms(MemoryStore())
    game_id, tokens = seated(rooms, NewGame(ANA_BOB))
    for n in range(4):
        room = rooms.room(game_id)
        (seat,) = room.acting_seats()
        action = legal_actions(room.state)[0]
        rooms.intent(game_id, tokens[seat], room.version, f"u{n}", str(action))
    text = rooms.room(game_id).record_text()
    created = rooms.continue_record(text, NewGame(()))
    new = rooms.room(created.game_id)
    assert new.state == rooms.room(game_id).state
    assert new.game.first_throw == new.match.throws > 0
    assert new.game.commitment != rooms.room(game_id).game.commitment


def test_bad_requests_are_refused_in_the_cli_words() -> None:
    rooms = Rooms(MemoryStore())
    with pytest.raises(ZloutchError, match="unknown preset"):
        rooms.create(NewGame(ANA_BOB, rules="dix-mile"))
    with pytest.raises(ZloutchError, match="1 to 8 seats"):
        rooms.create(NewGame(tuple(SeatSpec(f"P{i}") for i in range(9))))
    with pytest.raises(ZloutchError, match="no bot is called"):
        rooms.create(NewGame((SeatSpec("Ana"), SeatSpec(bot="wizard"))))
    with pytest.raises(ZloutchError, match="seat 2: a person's name or a bot, not both"):
        rooms.create(NewGame((SeatSpec("Ana"), SeatSpec("Bea", bot="easy"))))
    with pytest.raises(ZloutchError, match="exactly 2"):
        rooms.create(NewGame((*ANA_BOB, SeatSpec("Cy")), rules="farkle-minimal"))
    with pytest.raises(ZloutchError, match="may extend a preset only"):
        rooms.create(NewGame(ANA_BOB, rules_toml='[rules]\nextends = "/etc/passwd.toml"\n'))


def test_a_spec_naming_a_file_is_refused_but_a_stored_game_on_one_goes_on(
    tmp_path: Path,
) -> None:
    """A client's spec never names a file of the server (``load_preset``); a game that an
    older server stored on one of its rule files (its row names the file, no rule text) is
    the server's own, and is rebuilt from that file as before."""
    from zloutch.rules import load_rules, to_toml

    path = tmp_path / "house.toml"
    path.write_text(to_toml(load_rules("greed")), encoding="utf-8")
    store = MemoryStore()
    rooms = Rooms(store)
    with pytest.raises(ZloutchError, match="never a file on this machine"):
        rooms.create(NewGame(ANA_BOB, rules=str(path)))
    game_id, _ = seated(rooms, NewGame(ANA_BOB, rules="greed"))
    row = store.game(game_id)
    assert row is not None and row.rules_toml is None
    older = replace(row, rules=str(path))
    room = Room.rebuild(older, store.seats(game_id), store.log(game_id))
    assert room.state.rules.source == str(path)
    assert room.state.sheets == rooms.room(game_id).state.sheets


def test_an_uploaded_rule_file_is_kept_in_the_record() -> None:
    from zloutch.rules import load_rules, to_toml

    text = to_toml(load_rules("greed")).replace('name = "greed"', 'name = "our table"')
    rooms = Rooms(MemoryStore())
    game_id, _ = seated(rooms, NewGame(ANA_BOB, rules_toml=text))
    record, _ = load_record(rooms.room(game_id).record_text())
    assert record.rules_toml is not None and "our table" in record.rules_toml


def test_the_shipped_migrations_make_the_schema_the_store_uses(tmp_path: Path) -> None:
    """Alembic's comparison of the migrated database with the store's tables finds nothing."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from zloutch.server.gamedb import SqlStore, metadata

    store = SqlStore(f"sqlite:///{tmp_path / 'm.sqlite'}")
    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    store.close()
    SqlStore(f"sqlite:///{tmp_path / 'm.sqlite'}").close()  # a second start migrates nothing


def test_a_database_of_the_version_before_hints_keeps_its_games_with_hints_on(
    tmp_path: Path,
) -> None:
    """A database migrated to 0003 (before ``games.hints``) with a game in it: the store
    opens it, migrates it to the head, and the game goes on as it was, its hints on."""
    import sqlalchemy as sa
    from alembic import command
    from alembic.config import Config

    from zloutch.server import gamedb
    from zloutch.server.gamedb import SqlStore

    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    config = Config()
    config.set_main_option("script_location", str(Path(gamedb.__file__).with_name("migrations")))
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0003")
    rooms = Rooms(MemoryStore())
    game_id, _ = seated(rooms, NewGame(ANA_BOB))
    game = rooms.room(game_id).game
    old = {k: v for k, v in gamedb._game_values(game).items() if k != "hints"}
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO games ({}) VALUES ({})".format(
                    ", ".join(old), ", ".join(f":{k}" for k in old)
                )
            ),
            old,
        )
    engine.dispose()
    store = SqlStore(url)
    stored = store.game(game_id)
    assert stored is not None and stored.hints is True and stored.players == ("Ana", "Bob")
    store.close()


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def sql_store(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    fresh_schema: Callable[[str], AbstractContextManager[str]],
):
    """One database store for a module's examples (each makes games of its own)."""
    from zloutch.server.gamedb import SqlStore

    with database(request.param, tmp_path_factory.mktemp("batch"), fresh_schema) as url:
        try:
            store = SqlStore(url)
        except ZloutchError as exc:
            pytest.skip(f"{exc}; {POSTGRES_HOWTO}")
        yield store
        store.close()


item = st.tuples(
    st.integers(0, 2),  # the game
    st.sampled_from([0, 0, 0, -1, 1]),  # where it starts: after the last entry, or not
    st.integers(1, 2),  # how many entries
    st.sampled_from([None, "a", "b", "c"]),  # the client id of its first entry
    st.sampled_from(["", "over", "reopens"]),  # the game is over after it, or plays again
)


@given(
    stored=st.lists(st.integers(0, 2), max_size=3),
    batch=st.lists(item, min_size=1, max_size=6),
)
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_batch_stores_what_appending_one_by_one_would(
    sql_store: GameStore, stored: list[int], batch: list[tuple[int, int, int, str | None, str]]
) -> None:
    """Group commit changes no outcome: a batch in one transaction stores, refuses
    (StoreConflict) and recognises (DuplicateIntent) exactly what the appends one after
    another would, in a database as in memory, and leaves each game's status as they would
    (over, or playing again after an undo at a real table)."""
    moment = datetime(2026, 12, 1, tzinfo=UTC)
    memory = MemoryStore()
    ids = [secrets.token_hex(8) for _ in range(3)]
    for game_id in ids:
        # Over: its log is made up, and no server on the database is to resume it (an
        # expired game takes no move at all)
        game = GameRow(game_id, "dix-mille", ("A", "B"), "0" * 64, "0" * 64, moment, moment)
        game = replace(game, status="over")
        rows = [SeatRow(game_id, 0, "A"), SeatRow(game_id, 1, "B")]
        for store in (memory, sql_store):
            store.create(game, rows, ())
    for n, g in enumerate(stored):  # entries stored before, one with the client id "a"
        seq = len(memory.log(ids[g])) + 1
        entry = LogEntry(seq, "throw", "t", 0, "a" if n == 0 else None)
        for store in (memory, sql_store):
            store.append(ids[g], [entry], over=False, at=moment)
    running = {g: len(memory.log(ids[g])) for g in range(3)}
    appends = []
    for g, shift, count, client_id, status in batch:
        first = running[g] + 1 + shift
        entries = tuple(
            LogEntry(first + k, f"e{k}", "t", 0, client_id if k == 0 else None)
            for k in range(count)
        )
        if shift == 0:
            running[g] += count
        appends.append(Append(ids[g], entries, status == "over", moment, status == "reopens"))
    expected = memory.append_many(appends)
    outcomes = sql_store.append_many(appends)  # type: ignore[attr-defined]
    assert [type(o) for o in outcomes] == [type(o) for o in expected]
    assert [getattr(o, "version", None) for o in outcomes] == [
        getattr(o, "version", None) for o in expected
    ]
    for game_id in ids:
        assert sql_store.log(game_id) == memory.log(game_id)
        db_game, mem_game = sql_store.game(game_id), memory.game(game_id)
        assert db_game is not None and mem_game is not None
        assert db_game.status == mem_game.status


@pytest.mark.parametrize("pace", [-1.0, 60.5, float("nan"), float("inf")])
def test_a_pace_out_of_range_is_refused_as_the_command_line_refuses_it(pace: float) -> None:
    """One rule for the lobby and ``--pace`` (``pace_refusal``): 0 to 60 seconds."""
    rooms = Rooms(MemoryStore())
    with pytest.raises(RoomError, match="a bot's pace is a number of seconds from 0 to 60"):
        rooms.create(NewGame(ANA_BOB, pace=pace))
    assert rooms.create(NewGame(ANA_BOB, pace=60)).game_id


def test_a_person_names_their_own_seat(new_store: Callable[[], GameStore]) -> None:
    """A friend seated by an invitation the host left unnamed ("Player 2") gives their own
    name: the seat, the game's players, the record, the state and the log's words change
    at once, and a new process over the same store reads the game under the new names."""
    rooms = Rooms(new_store())
    game_id, tokens = seated(rooms, NewGame((SeatSpec("Ana"), SeatSpec(""), SeatSpec(bot="easy"))))
    assert rooms.room(game_id).state.names == ("Ana", "Player 2", "bot:easy")
    rooms.intent(game_id, tokens[0], 0, "t", "throw")  # the game has begun: its log too
    played = rooms.room(game_id).version
    row = rooms.rename(game_id, tokens[1], "  Bea  ")
    assert (row.seat, row.name) == (1, "Bea")
    room = rooms.room(game_id)
    assert room.version == played  # no entry of the log
    assert room.state.names == room.record.players == room.game.players
    assert room.game.players == ("Ana", "Bea", "bot:easy")
    assert [s.name for s in room.seats] == ["Ana", "Bea", "bot:easy"]
    assert '"Bea"' in room.record_text() and "Player 2" not in room.record_text()
    again = Rooms(new_store()).room(game_id)  # another process, read from the store
    assert again.state == room.state and again.record == room.record
    assert rooms.rename(game_id, tokens[1], "Bea") == row  # the same name: nothing to do
    rooms.rename(game_id, tokens[0], "Anabel")  # each person their own seat
    assert rooms.room(game_id).game.players == ("Anabel", "Bea", "bot:easy")


def test_a_seat_name_is_checked_as_a_new_game_checks_it(
    new_store: Callable[[], GameStore],
) -> None:
    rooms = Rooms(new_store())
    game_id, tokens = seated(rooms, NewGame(ANA_BOB, rules="dix-mille(target=1000)"))
    refusals = {
        "": "a person's name cannot be blank",
        "x" * 41: "a name has at most 40 characters",
        "Bob, Jr": "a person's name has no comma and no 'bot:'",
        "BOT:strong": "a person's name has no comma and no 'bot:'",
        "Ana": "another player of this game is called 'Ana': choose a name of your own",
        "aNA": "another player of this game is called 'Ana': choose a name of your own",
        "Bea\u202eevil": "'Bea\\u202eevil': a name holds no character that turns the "
        "text around (U+202E): type it again",
        "Bea\x07": "'Bea\\x07': a name holds no control character (U+0007): type it again",
        "Ana\u200b": "'Ana\\u200b': a name holds no invisible character (U+200B): type it again",
        "\u034f": "a person's name cannot be blank",  # nothing of it shows
        "\uff21NA": "another player of this game is called 'Ana': choose a name of your own",
    }
    for name, reason in refusals.items():
        with pytest.raises(RoomError) as refused:
            rooms.rename(game_id, tokens[1], name)
        assert str(refused.value) == reason
    with pytest.raises(RoomError, match="not one of this game's"):
        rooms.rename(game_id, "forged", "Bea")
    # white space is one space, as the command line's --players keeps it
    assert rooms.rename(game_id, tokens[1], "Bea\n\t Maria\u00a0B").name == "Bea Maria B"
    assert rooms.rename(game_id, tokens[1], "x" * 40).name == "x" * 40
    room = play_out(rooms, game_id, tokens, seed=2)
    # The dice are drawn by seat, not by name: the renamed game's record verifies.
    record, _ = load_record(room.record_text())
    assert record.players == ("Ana", "x" * 40)
    assert verify_record(record).verdict is Verdict.VERIFIED
    with pytest.raises(RoomError, match="the game is over: its names stay as they were"):
        rooms.rename(game_id, tokens[1], "Bea")
    assert Rooms(new_store()).room(game_id).game.players == ("Ana", "x" * 40)


def test_a_rename_on_another_process_reaches_this_one_and_both_names_stay(
    new_store: Callable[[], GameStore],
) -> None:
    """Two processes each rename a seat from what they hold: the store writes the players
    from its own row (locked), so neither name is lost, and a refresh brings the other's
    name into the match, the record and the log's words."""
    one, two = Rooms(new_store()), Rooms(new_store())
    game_id, tokens = seated(one, NewGame((SeatSpec("Ana"), SeatSpec(""), SeatSpec(""))))
    two.room(game_id)
    one.rename(game_id, tokens[1], "Bea")
    two.rename(game_id, tokens[2], "Cy")  # two still holds "Player 2" for seat 1
    assert two.room(game_id).game.players == ("Ana", "Bea", "Cy")
    assert [s.name for s in two.room(game_id).seats] == ["Ana", "Bea", "Cy"]  # as stored
    with pytest.raises(RoomError, match="called 'Cy'"):
        one.rename(game_id, tokens[1], "Cy")  # one has not heard of Cy: the store has
    one.refresh(game_id)
    room = one.room(game_id)
    assert room.state.names == room.record.players == ("Ana", "Bea", "Cy")
    assert [s.name for s in room.seats] == ["Ana", "Bea", "Cy"]


def test_an_entry_worded_with_old_names_is_worded_again() -> None:
    """An entry's text is kept with the names it was worded with: one made on the loop's
    thread while a rename cleared the memo on the writer's is not served as current."""
    from zloutch.adapters.web.protocol import entry_text

    rooms = Rooms(MemoryStore())
    game_id, tokens = seated(rooms, NewGame(ANA_BOB))
    rooms.intent(game_id, tokens[0], 0, "t", "throw")
    room = rooms.room(game_id)
    played = room.played[1]  # the server's roll: "Ana throws ..."
    assert "Ana throws" in entry_text(room, played)
    stale = room.entry_memo[(played.entry.seq, "en")]
    rooms.rename(game_id, tokens[0], "Anabel")
    room.entry_memo[(played.entry.seq, "en")] = stale  # made meanwhile, with the old names
    assert "Anabel throws" in entry_text(room, played)


def test_an_undo_and_a_rematch_of_a_game_over_never_both_stand(
    new_store: Callable[[], GameStore],
) -> None:
    """At a real table an undo reopens a game over until its rematch exists. Two processes
    (or two requests) at once: the store orders them, whatever each one's memory says: an
    undo after the rematch is refused, a rematch of a game played again waits for its end."""
    one = Rooms(new_store())
    game_id, tokens = seated(one, NewGame(ANA_BOB, rules="dix-mille(target=1000)", table_mode=True))
    for action in ("throw", "roll 1 1 1 2 3", "keep 1 1 1", "bank"):
        room = one.room(game_id)
        assert isinstance(one.intent(game_id, tokens[0], room.version, action, action), Accepted)
    two = Rooms(new_store())
    stale = two.room(game_id)  # read before the rematch: no rematch in its memory
    assert stale.over and stale.game.rematch is None
    one.rematch(game_id, tokens[0])
    answer = two.intent(game_id, tokens[1], stale.version, "u1", "undo")
    assert isinstance(answer, Refused) and answer.code == "stale"
    answer = two.intent(game_id, tokens[1], two.room(game_id).version, "u2", "undo")
    assert isinstance(answer, Refused)
    assert answer.reason == "the rematch has started: this game's result stands"
    stored = two.store.game(game_id)
    assert stored is not None and stored.status == "over"

    # The other order: an undo plays the game again, then a rematch is asked for.
    game_id, tokens = seated(one, NewGame(ANA_BOB, rules="dix-mille(target=1000)", table_mode=True))
    for action in ("throw", "roll 1 1 1 2 3", "keep 1 1 1", "bank"):
        room = one.room(game_id)
        assert isinstance(one.intent(game_id, tokens[0], room.version, action, action), Accepted)
    stale = two.room(game_id)
    assert stale.over
    room = one.room(game_id)
    assert isinstance(one.intent(game_id, tokens[0], room.version, "u", "undo"), Accepted)
    with pytest.raises(RoomError, match="the rematch waits for its end"):
        two.rematch(game_id, tokens[1])
    stored = one.store.game(game_id)
    assert stored is not None and stored.status == "playing" and stored.rematch is None


def test_an_upgrade_that_rebuilds_a_table_keeps_its_seats_and_moves(tmp_path: Path) -> None:
    """A database at 0003 with a game, its seats and its moves: the store (which switches
    SQLite's foreign keys on) upgrades it. Rebuilding ``games`` (0004, by copy on SQLite)
    failed on the references of ``seats`` and ``actions`` ("FOREIGN KEY constraint
    failed"), left ``_alembic_tmp_games`` behind, and every later start failed on it: the
    games were out of reach until the file was mended by hand."""
    import sqlalchemy as sa
    from alembic import command
    from alembic.config import Config

    from zloutch.server import gamedb
    from zloutch.server.gamedb import SqlStore

    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    store = SqlStore(url)
    rooms = Rooms(store)
    game_id, tokens = seated(rooms, NewGame(ANA_BOB))
    rooms.intent(game_id, tokens[0], 0, "first", "throw")
    version = rooms.room(game_id).version
    log = store.log(game_id)
    assert log and len(store.seats(game_id)) == 2
    store.close()
    config = Config()
    config.set_main_option("script_location", str(Path(gamedb.__file__).with_name("migrations")))
    engine = sa.create_engine(url)  # as an older server left it: at 0003
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0003")
    engine.dispose()
    # an upgrade stopped halfway by an older version left its copy behind
    with sa.create_engine(url).begin() as connection:
        connection.exec_driver_sql("CREATE TABLE _alembic_tmp_games (id VARCHAR)")
    again = SqlStore(url)
    assert again.log(game_id) == log
    assert len(again.seats(game_id)) == 2
    game = again.game(game_id)
    assert game is not None and game.hints is True
    with again.engine.connect() as conn:
        names = sa.inspect(conn).get_table_names()
        assert not [n for n in names if n.startswith("_alembic_tmp")]
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall() == []
    assert Rooms(again).room(game_id).version == version
    again.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_two_servers_starting_at_once_on_a_new_database_both_open_it(
    kind: str, tmp_path: Path, fresh_schema: Callable[[str], AbstractContextManager[str]]
) -> None:
    """Both made the tables: the second failed with "table games already exists" (SQLite)
    or "duplicate key value violates unique constraint" (PostgreSQL). One upgrade runs at a
    time; the other waits, then finds the schema done."""
    import threading

    from zloutch.server.gamedb import SqlStore

    with database(kind, tmp_path, fresh_schema) as url:
        go = threading.Barrier(4)
        opened: list[SqlStore] = []
        failed: list[BaseException] = []

        def start() -> None:
            go.wait()
            try:
                opened.append(SqlStore(url))
            except BaseException as exc:  # each failure is the finding
                failed.append(exc)

        threads = [threading.Thread(target=start, daemon=True) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        for store in opened:
            store.close()
        assert failed == [] and len(opened) == 4


def test_a_game_stored_with_an_option_that_cannot_act_is_rebuilt_and_its_record_loads() -> None:
    """An earlier server stored ``dix-mille(joker_keeps_points)`` (joker off: it changed
    nothing), which the loader now refuses from a person: the game was out of reach, and
    its record would not load. Both read it as stored."""
    store = MemoryStore()
    rooms = Rooms(store)
    game_id, tokens = seated(rooms, NewGame(ANA_BOB))
    rooms.intent(game_id, tokens[0], 0, "first", "throw")
    store.update_game(game_id, rules="dix-mille(joker_keeps_points)")
    again = Rooms(store).room(game_id)
    assert again.state.rules == load_record(rooms.room(game_id).record_text())[1].rules
    text = again.record_text().replace('"dix-mille"', '"dix-mille(joker_keeps_points)"', 1)
    assert '"dix-mille(joker_keeps_points)"' in text
    record, state = load_record(text)
    assert state.rules.spec == "dix-mille" and len(record.actions) == 2


def test_a_game_expired_by_another_process_takes_no_move_there(
    new_store: Callable[[], GameStore],
) -> None:
    """Two processes over one database: one expires a game the other holds as playing.
    The other accepted moves on it, while a record read from the store revealed the dice
    secret (an expired game's record reveals it): every later throw could be known. The
    store now refuses a move on an expired game, and the process says it expired."""
    moment = [datetime(2000, 1, 1, tzinfo=UTC)]
    here = Rooms(new_store(), clock=lambda: moment[0])
    there = Rooms(new_store(), clock=lambda: moment[0])
    game_id, tokens = seated(here, NewGame(ANA_BOB))
    here.intent(game_id, tokens[0], 0, "one", "throw")
    held = there.room(game_id)  # held in memory there, playing
    assert held.game.status == "playing"
    moment[0] += timedelta(days=31)
    assert here.expire(timedelta(days=30)) == (game_id,)
    (seat,) = held.acting_seats()
    action = str(legal_actions(held.state)[0])
    answer = there.intent(game_id, tokens[seat], held.version, "late", action)
    assert isinstance(answer, Refused) and answer.code == "expired", answer
    assert there.room(game_id).game.status == "expired"
    record, _ = load_record(Rooms(new_store()).room(game_id).record_text())
    assert len(record.actions) == 2  # the throw and its roll, nothing after
