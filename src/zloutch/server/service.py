"""The games of one server process over a durable store (``Rooms``): making games, seats and
tokens, intents checked through the engine, the bots' turns, settling what the store
answered."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from zloutch.app.fairdice import check_seed, commitment_of, new_secret
from zloutch.app.match import BOT_PREFIX
from zloutch.app.session import bot_of, pace_refusal, parse_players, person_name
from zloutch.engine import (
    GAME_OVER,
    Action,
    is_terminal,
    parse_action,
    turn_player,
)
from zloutch.engine.endings import load_preset
from zloutch.engine.record import (
    DiceCommitment,
    Record,
    load_record,
    rules_from_text,
)
from zloutch.rules import ZloutchError, to_toml
from zloutch.rules.ruleset import RuleSet
from zloutch.server.answers import (
    Accepted,
    BotTurn,
    Created,
    Joined,
    NewGame,
    NewRoom,
    Pending,
    Refused,
    SeatList,
    SeatSpec,
    SeatView,
)
from zloutch.server.room import Played, Room, server_roll
from zloutch.server.rows import (
    DEFAULT_LEAVE_BOT,
    MAX_NAME,
    MAX_SEATS,
    SEED_WORD,
    UNDO_WORD,
    DuplicateIntent,
    GameRow,
    LogEntry,
    RoomError,
    SeatRow,
    StoreConflict,
    UnknownGameError,
    digest,
    now_utc,
    seat_token,
    stamp,
)
from zloutch.server.store import GameStore

MAX_CLIENT_ID = 90
"""The characters of a client message id that count (the rest is cut off)."""


def seat_name(seat: int | None, name: str) -> str:
    """A person's name at seat ``seat`` (counted from 1, as the lobby's form and its
    messages say it; None: the person's own seat, named by its token, and the messages
    name no seat), stripped; a name the seats cannot hold is refused."""
    where = "" if seat is None else f"seat {seat}: "
    try:
        name = person_name(name)  # the command line's rule: one space for any white space
    except ZloutchError as exc:
        raise RoomError(f"{where}{exc}") from None
    if not name:
        raise RoomError(f"{where}a person's name cannot be blank")
    if len(name) > MAX_NAME:
        raise RoomError(f"{where}a name has at most {MAX_NAME} characters")
    if name.lower().startswith(BOT_PREFIX) or "," in name:
        raise RoomError(f"{where}a person's name has no comma and no 'bot:'")
    return name


def seat_client_id(seat: int, client_id: str) -> str:
    """A client message id as the log keeps it: the seat's, so that an intent is a retry only
    when the same seat sent the same id in the same game (two players' pages may pick the
    same id, and a guessed id must not swallow another seat's move)."""
    return f"{seat}:{client_id[:MAX_CLIENT_ID]}"


class Rooms:
    """The games of one server process, over a durable store."""

    def __init__(
        self,
        store: GameStore,
        *,
        clock: Callable[[], datetime] = now_utc,
        token: Callable[[], str] = lambda: secrets.token_urlsafe(24),
    ) -> None:
        self.store = store
        self.clock = clock
        self.token = token
        self.rooms: dict[str, Room] = {}

    # -- making games

    def create(self, request: NewGame) -> Created:
        """A new game; raises a ZloutchError with the CLI's words for a bad rule set or seats."""
        return self.add(self.store_new(self.new_game(request)))

    def continue_record(self, text: str, request: NewGame) -> Created:
        """A new game that goes on from an uploaded record (its players, its rules)."""
        return self.add(self.store_new(self.new_from_record(text, request)))

    def new_game(self, request: NewGame) -> NewRoom:
        """A new game checked and built, nothing stored (``store_new``, then ``add``)."""
        rules, rules_toml = self._rules(request.rules, request.rules_toml)
        names = self._names(request.seats)
        return self._new_room(rules, rules_toml, names, request, ())

    def store_new(self, new: NewRoom) -> NewRoom:
        """Store a new game (its row, its seats, the log it starts from): the only part of
        making a game that waits on the disk, which the server runs off its event loop."""
        self.store.create(new.room.game, new.room.seats, new.log)
        return new

    def add(self, new: NewRoom) -> Created:
        """A stored new game, now served."""
        self.rooms[new.room.game.id] = new.room
        return new.created

    def new_from_record(self, text: str, request: NewGame) -> NewRoom:
        """A new game going on from an uploaded record, checked and built, nothing stored."""
        record, state = load_record(text, files=False)
        if is_terminal(state):
            raise RoomError("this game is over: there is nothing to continue")
        rules = record.rule_set()
        at = stamp(self.clock())
        log = tuple(
            LogEntry(i, a, (record.times[i - 1] if record.times else None) or at)
            for i, a in enumerate(record.actions, start=1)
        )
        if record.dice:
            log = self._with_seeds(record, log)
        spec = replace(request, table_mode=record.table_mode)
        return self._new_room(rules, record.rules_toml, record.players, spec, log)

    @staticmethod
    def _with_seeds(record: Record, log: tuple[LogEntry, ...]) -> tuple[LogEntry, ...]:
        # The old game's seeds travel as the entries they were, before the throws they
        # counted for; they are kept for the record, the new secret ignores the old throws.
        seeds = [s for d in record.dice if isinstance(d, DiceCommitment) for s in d.seeds]
        out: list[LogEntry] = []
        throws = 0
        pending = sorted(seeds, key=lambda s: s.from_throw)
        for entry in log:
            while pending and pending[0].from_throw <= throws:
                seed = pending.pop(0)
                out.append(LogEntry(0, f"{SEED_WORD} {seed.seed}", entry.at, seed.seat))
            out.append(entry)
            throws += entry.text.startswith("roll")
        return tuple(replace(e, seq=i) for i, e in enumerate(out, start=1))

    def _rules(self, spec: str, toml: str | None) -> tuple[RuleSet, str | None]:
        if toml is None:  # a preset: a spec from a client never names a file here
            return load_preset(spec), None
        rules = rules_from_text(toml)
        try:
            if load_preset(rules.spec) == rules:
                return rules, None
        except ZloutchError:
            pass
        return rules, to_toml(rules)

    @staticmethod
    def _names(seats: Sequence[SeatSpec]) -> tuple[str, ...]:
        if not 1 <= len(seats) <= MAX_SEATS:
            raise RoomError(f"a game has 1 to {MAX_SEATS} seats, not {len(seats)}")
        parts = []
        for i, seat in enumerate(seats, start=1):
            if seat.bot is not None:
                if seat.name.strip():  # its name was dropped without a word
                    raise RoomError(
                        f"seat {i}: a person's name or a bot, not both "
                        f"(name {seat.name.strip()!r}, bot {seat.bot!r})"
                    )
                parts.append(BOT_PREFIX + seat.bot)
            else:
                parts.append(seat_name(i, seat.name.strip() or f"Player {i}"))
        return parse_players(",".join(parts))

    def _new_room(
        self,
        rules: RuleSet,
        rules_toml: str | None,
        names: Sequence[str],
        request: NewGame,
        log: Sequence[LogEntry],
        rematch_of: str | None = None,
        heirs: Sequence[str | None] = (),
        host_hash: str | None = None,
    ) -> NewRoom:
        """A game built and checked, not stored; a rematch (``rematch_of``) has the host of
        the game before (``host_hash``) and its people's tokens as ``heirs``."""
        slow = pace_refusal(request.pace)
        if slow is not None:
            raise RoomError(slow)
        if request.leave_after is not None and request.leave_after < 0:
            raise RoomError("the delay before a bot plays for a player away cannot be negative")
        bot_of(BOT_PREFIX + request.leave_bot)  # an unknown bot is refused with the list
        moment = self.clock()
        secret = new_secret()
        game_id = secrets.token_urlsafe(9)
        open_code = self.token()
        host = self.token()
        invites: list[tuple[int, str]] = []
        seats: list[SeatRow] = []
        for seat, name in enumerate(names):
            bot = name[len(BOT_PREFIX) :].split("#")[0] if name.startswith(BOT_PREFIX) else None
            code = None
            if bot is None:
                code = self.token()
                invites.append((seat, code))
            heir = heirs[seat] if seat < len(heirs) else None
            seats.append(
                SeatRow(
                    game_id,
                    seat,
                    name,
                    bot,
                    digest(code) if code else None,
                    None,
                    heir,
                    invite_code=code,
                )
            )
        game = GameRow(
            id=game_id,
            rules=rules.spec,
            players=tuple(names),
            secret=secret,
            commitment=commitment_of(secret),
            created_at=moment,
            updated_at=moment,
            rules_toml=rules_toml,
            table_mode=request.table_mode,
            pace=request.pace,
            leave_after=request.leave_after,
            leave_bot=request.leave_bot,
            first_throw=sum(e.text.startswith("roll") for e in log),
            open_hash=digest(open_code),
            rematch_of=rematch_of,
            host_hash=host_hash if rematch_of is not None else digest(host),
            hints=request.hints,
        )
        # The engine's word on the number of players; a continued record replays here too.
        room = Room.rebuild(game, seats, log)
        if room.over:
            raise RoomError("this game is over: there is nothing to continue")
        # The server may have to move first (dice in the air, a bot): the caller asks.
        created = Created(game_id, game.commitment, tuple(invites), open_code, host)
        return NewRoom(room, tuple(log), created)

    # -- seats

    def invited(self, invite: str) -> SeatRow:
        """The seat an invite code is for, claimed by nothing (a page asks before it takes a
        second seat of a game it plays); UnknownGameError as ``join``."""
        row = self.store.seat_by_invite(digest(invite))
        if row is None:
            raise UnknownGameError("this invitation is unknown or was reissued")
        return row

    def join(self, invite: str) -> Joined:
        """The seat of an invite code, and its token: the same token each time the code is
        opened (a second device of the same person gets the seat too), until the host
        reissues the invitation (the code is then unknown)."""
        row = self.store.seat_by_invite(digest(invite))
        if row is None:
            raise UnknownGameError("this invitation is unknown or was reissued")
        token = seat_token(invite)
        for _ in range(2):
            if row.token_hash is not None and hmac.compare_digest(row.token_hash, digest(token)):
                return Joined(row.game_id, row.seat, token)  # this invitation's seat, again
            if row.token_hash is not None:
                raise RoomError(
                    "this invitation's seat was taken through the game's open link: "
                    "ask the host for a new invitation"
                )
            # Claimed only if nobody did since it was read: another process may be opening
            # the same invitation at this moment (then it is read again, as stored).
            joined = self._seat(row, token)
            if joined is not None:
                return joined
            row = self.store.seats(row.game_id)[row.seat]
        raise RoomError("this seat was taken at the same moment: open the invitation again")

    def seat_list(self, game_id: str, token: str) -> SeatList:
        """Each seat of a game for someone at its table (a seat's token or the host's):
        joined or not, away, a bot; and the invitations the asker may pass on."""
        room = self.room(game_id)
        hashed = digest(token)
        host = room.game.host_hash is not None and hmac.compare_digest(room.game.host_hash, hashed)
        own = next(
            (
                r.seat
                for r in room.seats
                if r.token_hash is not None and hmac.compare_digest(r.token_hash, hashed)
            ),
            None,
        )
        if not host and own is None:
            raise RoomError("this token is not one of this game's")
        views = []
        for row in room.seats:
            joined = row.bot is not None or row.token_hash is not None
            shown = row.bot is None and (host or row.seat == own or not joined)
            views.append(
                SeatView(
                    row.seat,
                    row.name,
                    row.bot,
                    joined,
                    row.away,
                    row.invite_code if shown else None,
                    row.seat == own,
                )
            )
        return SeatList(host, tuple(views))

    def reissue(self, game_id: str, host_token: str, seat: int) -> tuple[str, str | None]:
        """A new invitation for a person's seat (the host alone): the old code and the
        token it gave stop working, and the seat waits for the new one. Returns the new
        code, and the hash of the token that stopped (its sockets are told)."""
        room = self.room(game_id)
        if room.game.host_hash is None or not hmac.compare_digest(
            room.game.host_hash, digest(host_token)
        ):
            raise RoomError("only the game's host reissues an invitation")
        if not 0 <= seat < len(room.seats) or room.seats[seat].bot is not None:
            # (the request's number, counted from 0: "seat 0" of -1 named a real seat)
            raise RoomError(f"'seat': {seat} is no person's seat of this game (counted from 0)")
        if room.over:
            raise RoomError("the game is over: its seats stay as they were")
        old_token = room.seats[seat].token_hash
        code = self.token()
        changes = {
            "invite_hash": digest(code),
            "invite_code": code,
            "token_hash": None,
            "heir_hash": None,
            "away": False,
        }
        self.store.update_seat(game_id, seat, **changes)
        # the seat as it stands now (renamed meanwhile, say), with the changes
        room.set_seat(replace(room.seats[seat], **changes))  # type: ignore[arg-type]
        return code, old_token

    def rename(self, game_id: str, token: str, name: str) -> SeatRow:
        """A person gives their own name to the seat their token holds (an invitation's
        seat is named by the host who made the game, "Player 2" where they typed none):
        the seats, the game's players, its record and its state, until the game is over.
        Returns the seat as stored."""
        seat = self.seat_of(game_id, token)
        if seat is None:  # pragma: no cover - seat_of raises without a token
            raise RoomError("a spectator has no seat to rename")
        room = self.room(game_id)
        if room.over:
            raise RoomError("the game is over: its names stay as they were")
        new = seat_name(None, name)  # the token names the seat: no seat number to say
        if new == room.seats[seat].name:
            return room.seats[seat]
        # Checked again in the store's transaction, where another process may have renamed.
        players = self.store.rename_seat(game_id, seat, new)
        # Each seat as it stands now (a person away or back meanwhile, on the loop's thread),
        # named as the store has it (another process's rename of another seat too).
        room.set_seats([replace(r, name=players[r.seat]) for r in room.seats])
        room.set_game(replace(room.game, players=players))
        return room.seats[seat]

    def join_open(self, game_id: str, code: str) -> Joined:
        """The next free person's seat of a game's open link."""
        room = self.room(game_id)
        if room.game.open_hash is None or not hmac.compare_digest(
            room.game.open_hash, digest(code)
        ):
            raise UnknownGameError("this open link is unknown")
        for _ in range(len(room.seats)):
            free = [
                row
                for row in room.seats
                if row.bot is None and row.token_hash is None and row.heir_hash is None
            ]
            if not free:
                break
            joined = self._seat(free[0], self.token())
            if joined is not None:
                return joined
            # Taken meanwhile through another process (now known here): the next one.
        raise RoomError("every seat of this game is taken")

    def _seat(self, row: SeatRow, token: str) -> Joined | None:
        """``row``'s seat with ``token``, if its invite and token are still those of
        ``row`` in the store; None if another request or process took it first (the seat
        in memory is then read again, as stored)."""
        if not self.store.claim_seat(row, digest(token)):
            held = self.rooms.get(row.game_id)
            if held is not None:
                held.set_seat(self.store.seats(row.game_id)[row.seat])
            return None
        room = self.room(row.game_id)
        room.set_seat(replace(room.seats[row.seat], token_hash=digest(token)))
        return Joined(row.game_id, row.seat, token)

    def seat_of(self, game_id: str, token: str | None) -> int | None:
        """The seat a token holds in a game; None for a spectator (no token)."""
        if token is None:
            return None
        hashed = digest(token)
        for row in self.room(game_id).seats:
            if row.token_hash is not None and hmac.compare_digest(row.token_hash, hashed):
                return row.seat
        raise RoomError("this seat token is not one of this game's")

    def set_away(self, game_id: str, seat: int, away: bool) -> bool:
        """A person leaves (a bot plays for them) or takes the seat back; True if it changed."""
        room = self.room(game_id)
        row = room.seats[seat]
        if row.bot is not None or row.away == away:
            return False
        self.store.update_seat(game_id, seat, away=away)
        room.set_seat(replace(row, away=away))
        return True

    def rematch(self, game_id: str, token: str) -> Joined:
        """The same seats in a new game of the same rules; each person follows with their
        token of this game and gets their seat's token there (the first one creates it)."""
        seat = self.seat_of(game_id, token)
        if seat is None:  # pragma: no cover - seat_of raises without a token
            raise RoomError("a spectator has no seat for a rematch")
        room = self.room(game_id)
        if not room.over:
            raise RoomError("a rematch starts when the game is over")
        new_id = room.game.rematch
        made = False
        if not new_id:
            g = room.game
            request = NewGame(
                (),
                g.rules,
                g.rules_toml,
                g.table_mode,
                g.pace,
                g.leave_after,
                g.leave_bot,
                g.hints,
            )
            heirs = [r.token_hash for r in room.seats]
            rules = room.state.rules
            new = self._new_room(
                rules, g.rules_toml, g.players, request, (), game_id, heirs, g.host_hash
            )
            # Stored unless another request (or process) stored the rematch first: one game.
            new_id = self.store.create_rematch(game_id, new.room.game, new.room.seats)
            if new_id == new.room.game.id:
                self.add(new)
                made = True
            room.set_game(replace(room.game, rematch=new_id))
        new_room = self.room(new_id)
        row = new_room.seats[seat]
        if row.heir_hash is None or not hmac.compare_digest(row.heir_hash, digest(token)):
            raise RoomError("this seat of the rematch is not yours")
        # The token of the seat's invitation: the heir and the invitation hold one seat.
        token = seat_token(row.invite_code) if row.invite_code else self.token()
        if row.token_hash is not None and hmac.compare_digest(row.token_hash, digest(token)):
            return replace(Joined(new_id, seat, token), made=made)  # asked once more
        joined = self._seat(row, token)
        if joined is None:
            # What this process held of the seat was old (its heir took it through another
            # process, with the same token): as stored now.
            stored = new_room.seats[seat].token_hash
            if stored is not None and hmac.compare_digest(stored, digest(token)):
                joined = Joined(new_id, seat, token)
        if joined is None:
            raise RoomError("this seat of the rematch was taken at the same moment: ask again")
        return replace(joined, made=made)

    # -- the games

    def room(self, game_id: str) -> Room:
        """The game, from memory or rebuilt from the store."""
        room = self.rooms.get(game_id)
        if room is not None:
            return room
        game = self.store.game(game_id)
        if game is None:
            raise UnknownGameError(f"there is no game {game_id!r}")
        room = Room.rebuild(game, self.store.seats(game_id), self.store.log(game_id))
        self.rooms[game_id] = room
        return room

    def read_rows(self, game_id: str) -> tuple[GameRow, tuple[SeatRow, ...]] | None:
        """A game's row and seats as stored now (another process may have changed them)."""
        game = self.store.game(game_id)
        return None if game is None else (game, self.store.seats(game_id))

    def forget(self, game_id: str) -> bool:
        """Drop a game from memory (it is rebuilt from the store when asked for again)."""
        return self.rooms.pop(game_id, None) is not None

    def refresh(self, game_id: str) -> tuple[Played, ...]:
        """Entries another process appended since this one last looked (and seat changes)."""
        room = self.rooms.get(game_id)
        if room is None:
            return ()
        new = self.store.log(game_id, after=room.version)
        played = tuple(room.take(e) for e in new)
        room.set_seats(self.store.seats(game_id))
        game = self.store.game(game_id)
        if game is not None:
            room.set_game(game)
        return played

    def intent(
        self, game_id: str, token: str | None, version: int, client_id: str, text: str
    ) -> Accepted | Refused:
        """A client's intent, checked against its seat token, the player to move, the version
        it saw and the engine; applied (and stored) or refused with the reason."""
        checked = self.check_intent(game_id, token, version, client_id, text)
        return self.commit(checked) if isinstance(checked, Pending) else checked

    def check_intent(
        self, game_id: str, token: str | None, version: int, client_id: str, text: str
    ) -> Accepted | Refused | Pending:
        """An intent checked in memory, nothing stored: the answer (a refusal, or a retry
        applied before), or the ``Pending`` entries to store, then ``settle``."""
        room = self.room(game_id)
        if room.game.status == "expired":
            return Refused("expired", "this game expired without a move", version=room.version)
        try:
            seat = self.seat_of(game_id, token)
        except RoomError as exc:
            return Refused("bad_token", str(exc), version=room.version)
        if seat is None:
            return Refused(
                "spectator", "a spectator watches: only a seated player acts", version=room.version
            )
        client_id = seat_client_id(seat, client_id)  # a retry is the same seat's same id
        seen = self._seen(room, client_id)
        if seen is not None:
            return Accepted(seen, duplicate=True)
        if version > room.version:
            return Refused(
                "stale",
                f"version {version} is ahead of the game (it is at {room.version}): catch up "
                "and try again",
                version=room.version,
            )
        if version != room.version:
            return Refused(
                "stale",
                f"the game has moved on since version {version} (it is at {room.version}): "
                "catch up and try again",
                version=room.version,
            )
        if room.seats[seat].away:
            self.set_away(game_id, seat, False)  # acting takes the seat back
        return self._check(room, seat, client_id, text)

    @staticmethod
    def _seen(room: Room, client_id: str) -> int | None:
        """The version an intent applied before led to: its entry and the server's rolls
        (``client_id`` as the log keeps it, ``seat_client_id``)."""
        for played in reversed(room.played):
            if played.entry.client_id == client_id:
                seq = played.entry.seq
                while seq < room.version and server_roll(room.played[seq].entry):
                    seq += 1
                return seq
        return None

    def _check(self, room: Room, seat: int, client_id: str, text: str) -> Refused | Pending:
        """An intent of the seat to act, checked through the engine."""
        at = stamp(self.clock())
        words = text.strip()
        if words.lower().startswith(SEED_WORD + " ") or words.lower() == SEED_WORD:
            try:
                seed = check_seed(words[len(SEED_WORD) :])
            except ZloutchError as exc:
                return Refused("invalid", str(exc), version=room.version)
            if room.over:
                return Refused("over", GAME_OVER, version=room.version)
            return self._pending(
                room, LogEntry(room.version + 1, f"{SEED_WORD} {seed}", at, seat, client_id)
            )
        if words.lower() == UNDO_WORD:
            # At a real table whoever keeps the score takes back a mistyped entry (the last
            # one of a game over too: the game goes on from before it).
            why = room.undo_refusal()
            if why is not None:
                return Refused("over" if why == GAME_OVER else "illegal", why, version=room.version)
            return self._pending(room, LogEntry(room.version + 1, UNDO_WORD, at, seat, client_id))
        if room.over:
            return Refused("over", GAME_OVER, version=room.version)
        try:
            action = parse_action(words, max_dice=room.state.rules.dice)
        except ZloutchError as exc:
            return Refused("invalid", str(exc), version=room.version)
        if seat not in room.acting_seats():
            return Refused("not_your_turn", self._whose_turn(room), version=room.version)
        # Parsed once, refused once (the match's word): applied as it is, never checked again.
        refused = room.match.refused(action)
        if refused is not None:
            return Refused("illegal", refused.reason, refused.rule, version=room.version)
        entry = LogEntry(room.version + 1, str(action), at, seat, client_id)
        return self._pending(room, entry, action)

    def _pending(self, room: Room, first: LogEntry | None, action: Action | None = None) -> Pending:
        """The entries of a move (and the server's rolls after it) on a copy of the room;
        ``action``: the first entry's, already checked."""
        head = [first] if first else []
        probe = room.try_entries(head, [action])
        rolls = probe.throw_dice(first.at if first else stamp(self.clock()))
        return Pending(room.game.id, room.version, (*head, *rolls), probe, self.clock())

    @staticmethod
    def _whose_turn(room: Room) -> str:
        who = turn_player(room.state)
        return f"it is {room.state.names[who]}'s turn"

    def commit(self, pending: Pending) -> Accepted | Refused:
        """Store pending entries now (one transaction of their own) and settle them."""
        (outcome,) = self.store.append_many([pending.append])
        return self.settle(pending, outcome)

    def settle(self, pending: Pending, outcome: Exception | None) -> Accepted | Refused:
        """What became of pending entries once the store answered: stored (None), and they
        are applied to the room; or not, and the room is as it was (it never saw them).
        Where another process appended first, the room catches up with the log, and the
        answer's ``caught_up`` are the entries it read (to tell this process's sockets)."""
        game_id = pending.game_id
        if isinstance(outcome, DuplicateIntent):
            # Applied before through another process: catch up, and answer as the first time.
            self.refresh(game_id)
            now = self.room(game_id)
            first = pending.entries[0].client_id or ""
            return Accepted(
                self._seen(now, first) or outcome.version,
                duplicate=True,
                caught_up=tuple(now.played[pending.base :]),
            )
        if isinstance(outcome, StoreConflict):
            stored = self.store.game(game_id)
            if stored is not None and stored.status == "expired":  # by another process
                held = self.room(game_id)
                held.set_game(replace(held.game, status="expired"))
                return Refused("expired", "this game expired without a move", version=held.version)
            self.refresh(game_id)  # another process appended first: what the client saw is old
            now = self.room(game_id)
            return Refused(
                "stale",
                f"the game has moved on (it is at {now.version}): catch up and try again",
                version=now.version,
                caught_up=tuple(now.played[pending.base :]),
            )
        if outcome is not None:
            # The store failed (the disk, the connection): nothing is applied, and the game
            # is read again from its log when next asked for, whatever the commit did.
            self.rooms.pop(game_id, None)
            return Refused(
                "not_stored",
                f"the server could not store this move ({type(outcome).__name__}): "
                "nothing was applied, send it again",
                version=pending.base,
            )
        room = self.rooms.get(game_id)
        if room is None or room.version != pending.base:
            # Something moved the room meanwhile (another process's entries were read): the
            # stored log, ours included, is the truth, and every entry after the version
            # the move was checked at is new here (ours and any around it, in order).
            room = self.room(game_id)
            self.refresh(game_id)
        else:
            room.adopt(pending.probe)
        played = tuple(room.played[pending.base :])
        if pending.probe.over:
            room.set_game(replace(room.game, status="over"))
        elif room.game.status == "over":  # an undo at a real table reopened it
            room.set_game(replace(room.game, status="playing"))
        return Accepted(room.version, played)

    def bot_turn(self, game_id: str, version: int) -> BotTurn | None:
        """The move the server is to choose for a bot (or a person away) if it is still to
        move at ``version``; None when there is nothing to do."""
        room = self.room(game_id)
        seat = room.bot_to_move()
        if seat is None or room.version != version or room.game.status != "playing":
            return None
        bot = room.bot_for(seat) or DEFAULT_LEAVE_BOT
        # Its random choices depend on the game and the move; it sees the state, not the dice.
        return BotTurn(game_id, version, seat, bot, room.state, f"zloutch-bot:{game_id}:{version}")

    def check_bot(self, turn: BotTurn, action: Action) -> Pending | None:
        """The bot's chosen action as pending entries; None if the game moved on since."""
        room = self.room(turn.game_id)
        if room.version != turn.version or room.bot_to_move() != turn.seat:
            return None
        refused = room.match.refused(action)  # a bot's choice is checked, as a person's
        if refused is not None:
            raise RoomError(f"{turn.bot} chose {action}, which is refused: {refused.reason}")
        entry = LogEntry(room.version + 1, str(action), stamp(self.clock()), turn.seat)
        return self._pending(room, entry, action)

    def bot_move(self, game_id: str, version: int) -> Accepted | None:
        """The server moves for a bot (or a person away) if it is still to move at
        ``version``; None when there is nothing to do (the game moved, another process
        played it)."""
        turn = self.bot_turn(game_id, version)
        pending = None if turn is None else self.check_bot(turn, turn.choose())
        answer = None if pending is None else self.commit(pending)
        return answer if isinstance(answer, Accepted) else None

    def check_start(self, game_id: str) -> Pending | None:
        """Dice in the air at the start (a continued record): the rolls the server throws."""
        pending = self._pending(self.room(game_id), None)
        return pending if pending.entries else None

    def start(self, game_id: str) -> Accepted | None:
        """Dice in the air at the start (a continued record): the server throws them."""
        pending = self.check_start(game_id)
        answer = None if pending is None else self.commit(pending)
        return answer if isinstance(answer, Accepted) else None

    # -- lists

    def waiting(self, tokens: Iterable[str]) -> list[tuple[str, int]]:
        """(game, seat) of the games where a token's seat is to move now."""
        found: list[tuple[str, int]] = []
        for token in tokens:
            row = self.store.seat_by_token(digest(token))
            if row is None:
                continue
            room = self.room(row.game_id)
            if room.game.status == "playing" and row.seat in room.acting_seats():
                found.append((row.game_id, row.seat))
        return found

    def expire(self, older_than: timedelta) -> tuple[str, ...]:
        """Unfinished games with no move for ``older_than`` expire (finished ones are kept)."""
        gone = self.store.expire(self.clock() - older_than)
        for game_id in gone:
            room = self.rooms.get(game_id)
            if room is not None:
                room.set_game(replace(room.game, status="expired"))
        return gone

    def legal(self, game_id: str) -> tuple[Action, ...]:
        return self.room(game_id).match.legal()
