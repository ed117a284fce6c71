"""The durable store of the server's games: SQLite by default, PostgreSQL with ``--db``.

SQLAlchemy 2 (Core) over three tables: ``games``, ``seats`` and ``actions``, the log, whose
``(game_id, seq)`` is its primary key and ``(game_id, client_id)`` unique, so that an entry
can be written once and a retried intent applied once, whichever process writes it. The
schema is made and upgraded by the Alembic migrations shipped in ``zloutch.server.migrations``,
run when the store opens: a database made by an older version keeps working.

SQLite runs in WAL mode with ``synchronous=FULL``: a transaction that returned is on disk.
``append_many`` writes the entries of many games in one transaction (group commit: one fsync
for all of them).
With PostgreSQL, each append also sends ``NOTIFY zloutch_log, '<game> <seq>'`` inside its
transaction, delivered on commit, so that the other server processes on the same database
learn of the new entries (``listen``); a change of a game's seats (a person away or back, a
seat taken) or of its row (a rematch) sends ``NOTIFY zloutch_games, '<game> seats'`` (or
``'<game> game'``) the same way. A rematch is made by a conditional update of the old game
(``rematch`` set where it is null) in the transaction that stores the new one, and
``rematch_of`` is unique: two processes asked at once make one game.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError

from zloutch.server import (
    Append,
    DuplicateIntent,
    GameRow,
    LogEntry,
    Note,
    RoomError,
    SeatRow,
    StoreConflict,
    UnknownGameError,
    name_clash,
    taken_name,
)
from zloutch.server.rows import REOPENED

CHANNEL = "zloutch_log"
GAMES_CHANNEL = "zloutch_games"
"""Seats and games changed (a separate channel: a process of an older version, listening to
``zloutch_log`` only, is not sent notes it cannot read)."""
LISTENER_NAME = "zloutch listen"
"""The ``application_name`` of a process's listening connection (then its process id)."""
ROWS_A_STATEMENT = 2000
"""Log rows in one INSERT at most (six parameters each: SQLite takes 32,766)."""

metadata = sa.MetaData()

games = sa.Table(
    "games",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("rules", sa.Text, nullable=False),
    sa.Column("rules_toml", sa.Text),
    sa.Column("players", sa.Text, nullable=False),
    sa.Column("secret", sa.String(64), nullable=False),
    sa.Column("commitment", sa.String(64), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, index=True),
    sa.Column("table_mode", sa.Boolean, nullable=False),
    sa.Column("pace", sa.Float, nullable=False),
    sa.Column("leave_after", sa.Float),
    sa.Column("leave_bot", sa.String(40), nullable=False),
    sa.Column("first_throw", sa.Integer, nullable=False),
    sa.Column("status", sa.String(10), nullable=False, index=True),
    sa.Column("open_hash", sa.String(64)),
    sa.Column("rematch_of", sa.String(32)),
    sa.Column("rematch", sa.String(32)),
    sa.Column("host_hash", sa.String(64)),
    sa.Column("hints", sa.Boolean, nullable=False, server_default=sa.true()),
    sa.Index("uq_games_rematch_of", "rematch_of", unique=True),
)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("bot", sa.String(40)),
    sa.Column("invite_hash", sa.String(64), unique=True),
    sa.Column("token_hash", sa.String(64), unique=True),
    sa.Column("heir_hash", sa.String(64)),
    sa.Column("away", sa.Boolean, nullable=False),
    sa.Column("invite_code", sa.String(64)),
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("at", sa.String(32), nullable=False),
    sa.Column("seat", sa.Integer),
    sa.Column("client_id", sa.String(100)),
    sa.UniqueConstraint("game_id", "client_id", name="uq_actions_client_id"),
)


def default_url() -> str:
    """SQLite in the user's data folder (platformdirs where installed, else XDG)."""
    try:
        from platformdirs import user_data_dir

        folder = Path(user_data_dir("zloutch"))
    except ImportError:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        folder = Path(base) / "zloutch"
    return f"sqlite:///{folder / 'games.sqlite'}"


def hidden_password(url: str) -> str:
    """A database URL as it may be shown: its password as ***, all of it up to the last
    "@" (a password with an "@" or a "/" not escaped is read otherwise by SQLAlchemy, and a
    piece of it was shown)."""
    scheme, found, rest = url.partition("://")
    at = rest.rfind("@")
    if not found or at < 0 or ":" not in rest[:at]:
        return url
    user = rest[:at].split(":", 1)[0]
    return f"{scheme}://{user}:***@{rest[at + 1 :]}"


def _in_memory(url: str) -> bool:
    """A SQLite URL of a database in memory: ``sqlite://``, ``sqlite:///:memory:``, or a
    URI of ``mode=memory``."""
    try:
        parsed = sa.engine.make_url(url)
    except (sa.exc.ArgumentError, ValueError):
        return False
    return parsed.database in (None, "", ":memory:") or parsed.query.get("mode") == "memory"


def engine_url(url: str) -> str:
    """``postgresql://`` goes through psycopg 3 (the driver the web extra installs)."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


MIGRATION_LOCK = 0x7A6C6F7574636801
"""PostgreSQL's advisory lock of the schema's upgrade (a number of this program's own)."""


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (Alembic, shipped in the package)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    if engine.dialect.name != "sqlite":
        with engine.begin() as connection:
            # one upgrade at a time: two servers started at once on a new database both
            # made the tables ("duplicate key value violates unique constraint"); the
            # second now waits for the first's transaction, then finds the schema done
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
        return
    # SQLite alters a table by copying it (Alembic's batch mode: _alembic_tmp_games, then
    # the old one dropped), which the references of seats and actions refuse while the
    # store's connections check foreign keys: they are off for the upgrade (a pragma that
    # acts only outside a transaction), and checked whole after it. The upgrade is one
    # transaction begun by hand (SQLite's driver would run each table's creation outside
    # any), taken at once for writing: a second server starting on the file waits for it.
    with engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        connection.commit()
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
            try:
                _drop_copies_left(connection)
                config.attributes["connection"] = connection
                before = _revision(connection)
                command.upgrade(config, "head")
                upgraded = _revision(connection) != before
                # checked after an upgrade only: a scan of every seat and move at each start
                broken = (
                    connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if upgraded
                    else []
                )
                if broken:
                    raise sa.exc.DatabaseError(
                        "PRAGMA foreign_key_check",
                        None,
                        Exception(f"rows whose game is missing after the upgrade: {broken[:3]}"),
                    )
            except BaseException:
                connection.rollback()
                raise
            connection.commit()
        finally:
            connection.exec_driver_sql("PRAGMA foreign_keys=ON")
            connection.commit()


def _revision(connection: Connection) -> str | None:
    """The schema's Alembic revision (None: no schema yet)."""
    from alembic.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def _drop_copies_left(connection: Connection) -> None:
    """The copies an upgrade stopped halfway left (an older version's, whose upgrade was not
    one transaction): ``_alembic_tmp_games`` beside ``games`` is dropped, the upgrade makes
    it again. A copy without its table holds the only rows: nothing is dropped, and the
    store says what to do."""
    names = set(sa.inspect(connection).get_table_names())
    for name in sorted(names):
        if name.startswith("_alembic_tmp_"):
            table = name.removeprefix("_alembic_tmp_")
            if table not in names:
                raise sa.exc.DatabaseError(
                    name,
                    None,
                    Exception(
                        f"an upgrade stopped halfway: the table {table} is missing and its "
                        f"rows are in {name}; back the file up, then rename it with "
                        f"sqlite3 FILE 'ALTER TABLE {name} RENAME TO {table}'"
                    ),
                )
            connection.exec_driver_sql(f'DROP TABLE "{name}"')


class SqlStore:
    """A ``GameStore`` in a database (see the module's docstring)."""

    def __init__(self, url: str | None = None) -> None:
        if url is not None and "://" not in url:
            raise RoomError(
                f"--db {url}: not a database URL: sqlite:///{Path(url).resolve()} keeps the "
                "games in that file, postgresql://USER:PASSWORD@HOST/NAME in PostgreSQL"
            )
        self.url = engine_url(url or default_url())
        self._shown = hidden_password(url or default_url())
        """The URL as the operator gave it, its password hidden (SQLAlchemy's reading of
        a password holding an "@" or a "/" showed a piece of it, under another scheme)."""
        scheme = self.url.split("://", 1)[0].split("+", 1)[0]
        if scheme not in ("sqlite", "postgresql"):
            shown = hidden_password(url or "")
            raise RoomError(
                f"--db {shown}: Zloutch keeps its games in SQLite (sqlite:///PATH) or "
                f"PostgreSQL (postgresql://USER:PASSWORD@HOST/NAME), not {scheme}"
            )
        rest = (url or "").partition("://")[2].partition("?")[0]  # a query may hold anything
        if (
            scheme == "postgresql"
            and "@" in rest
            and ("@" in rest[: rest.rfind("@")] or "/" in rest[: rest.rfind("@")])
        ):
            raise RoomError(
                f"--db {hidden_password(url or '')}: the user or the password holds an '@' "
                "or a '/', which a URL reads as the end of the password or of the address: "
                "write them %40 and %2F (or give the password in PGPASSWORD)"
            )
        if scheme == "sqlite" and _in_memory(self.url):
            raise RoomError(
                f"--db {url}: a SQLite database in memory keeps nothing (each connection of "
                "the server would see its own, empty, and every game would be lost when it "
                "stops): give a file, sqlite:///PATH"
            )
        if self.url.startswith("sqlite:///"):
            folder = Path(self.url.removeprefix("sqlite:///")).parent
            if url is None:  # the user's data folder, made the first time
                folder.mkdir(parents=True, exist_ok=True)
            elif not folder.is_dir():  # a folder that was asked for: never made silently
                raise RoomError(f"--db {url}: there is no folder {folder}")
        try:
            self.engine = sa.create_engine(self.url, pool_pre_ping=True)
        except (sa.exc.ArgumentError, ImportError) as exc:
            raise RoomError(
                f"--db {hidden_password(url or '')}: not a database URL SQLAlchemy can open ({exc})"
            ) from None
        self.postgres = self.engine.dialect.name == "postgresql"
        if self.engine.dialect.name == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        from alembic.util import CommandError

        try:
            migrate(self.engine)
        except sa.exc.DatabaseError as exc:  # unreachable, refused, or not a database at all
            reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc)
            raise RoomError(f"cannot open the database {self.safe_url}: {reason}") from None
        except CommandError as exc:  # a schema this version does not know (a newer one's)
            raise RoomError(
                f"cannot open the database {self.safe_url}: {exc} (a newer Zloutch's games?)"
            ) from None

    @property
    def safe_url(self) -> str:
        """The URL without its password, to print, as the operator wrote it."""
        return self._shown

    def close(self) -> None:
        self.engine.dispose()

    # -- GameStore

    def create(self, game: GameRow, rows: Sequence[SeatRow], log: Sequence[LogEntry]) -> None:
        with self.engine.begin() as conn:
            conn.execute(games.insert().values(**_game_values(game)))
            conn.execute(seats.insert(), [_seat_values(r) for r in rows])
            if log:
                conn.execute(actions.insert(), [_entry_values(game.id, e) for e in log])

    def game(self, game_id: str) -> GameRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(games.select().where(games.c.id == game_id)).mappings().first()
        return _game_row(row) if row else None

    def seats(self, game_id: str) -> tuple[SeatRow, ...]:
        query = seats.select().where(seats.c.game_id == game_id).order_by(seats.c.seat)
        with self.engine.connect() as conn:
            return tuple(_seat_row(r) for r in conn.execute(query).mappings())

    def log(self, game_id: str, after: int = 0) -> tuple[LogEntry, ...]:
        query = (
            actions.select()
            .where(actions.c.game_id == game_id, actions.c.seq > after)
            .order_by(actions.c.seq)
        )
        with self.engine.connect() as conn:
            return tuple(
                LogEntry(r["seq"], r["text"], r["at"], r["seat"], r["client_id"])
                for r in conn.execute(query).mappings()
            )

    def append(
        self,
        game_id: str,
        entries: Sequence[LogEntry],
        *,
        over: bool,
        at: datetime,
        reopens: bool = False,
    ) -> None:
        if not entries:
            return
        changes: dict[str, Any] = {"updated_at": _utc(at)}
        if over:
            changes["status"] = "over"
        try:
            with self.engine.begin() as conn:
                # the row first, and only a game not expired (``_append_batch``)
                live = conn.execute(
                    games.update()
                    .where(games.c.id == game_id, games.c.status != "expired")
                    .values(**changes)
                    .returning(games.c.id)
                ).first()
                if live is None:
                    raise StoreConflict()
                last = conn.execute(
                    sa.select(sa.func.max(actions.c.seq)).where(actions.c.game_id == game_id)
                ).scalar()
                if (last or 0) + 1 != entries[0].seq:
                    self._raise_duplicate(conn, game_id, entries)
                    raise StoreConflict()
                if reopens and not over and not self._reopen(conn, game_id):
                    raise StoreConflict()  # its rematch was stored first: its result stands
                conn.execute(actions.insert(), [_entry_values(game_id, e) for e in entries])
                if self.postgres:
                    payload = f"{game_id} {entries[-1].seq}"
                    conn.execute(sa.select(sa.func.pg_notify(CHANNEL, payload)))
        except IntegrityError:
            with self.engine.connect() as conn:
                self._raise_duplicate(conn, game_id, entries)
            raise StoreConflict() from None

    @staticmethod
    def _reopen(conn: Connection, game_id: str) -> bool:
        """A game over played again (an undo at a real table), unless its rematch exists:
        the row's lock orders this with ``create_rematch``'s claim, which wants it over.
        Whether it was reopened."""
        reopened = conn.execute(
            games.update()
            .where(games.c.id == game_id, games.c.rematch.is_(None))
            .values(status="playing")
        ).rowcount
        return bool(reopened == 1)

    def append_many(self, batch: Sequence[Append]) -> list[Exception | None]:
        """Group commit: every game's entries in one transaction, so one write to disk
        (``synchronous=FULL``: one fsync) for the whole batch. The last sequence number and
        the client ids of the batch's games are read in the transaction, and an item that
        does not follow (``StoreConflict``) or was applied before (``DuplicateIntent``) is
        left out, the others written. Should another process take a number between the read
        and the write (PostgreSQL), the transaction fails as a whole: then each item is
        appended on its own, to find out which one it was."""
        if not batch:
            return []
        try:
            with self.engine.begin() as conn:
                return self._append_batch(conn, batch)
        except IntegrityError:
            return [self._append_alone(item) for item in batch]

    def _append_batch(self, conn: Connection, batch: Sequence[Append]) -> list[Exception | None]:
        # A few statements for the whole batch, whatever its size: each statement is a
        # round trip (PostgreSQL) or a release of the GIL, which a busy event loop is slow
        # to give back (SQLite: an insert row by row cost 200 ms a batch under load here).
        items = [item for item in batch if item.entries]
        first: dict[str, int] = {}
        for item in items:
            first.setdefault(item.game_id, item.entries[0].seq)
        # The games' rows first, and only those still playing or over: a game another
        # process expired takes no move (its record reveals its dice secret), and the row
        # locked here orders this with ``expire``, which then finds the game played
        moment = _utc(max((item.at for item in items), default=datetime.now(UTC)))
        live = set(
            conn.execute(
                games.update()
                .where(games.c.id.in_(sorted(first)), games.c.status != "expired")
                .values(updated_at=moment)
                .returning(games.c.id)
            ).scalars()
        )
        last = self._last_seqs(conn, first)
        seen = self._client_ids(conn, items)
        outcomes: list[Exception | None] = []
        rows: list[dict[str, Any]] = []
        notes: dict[str, int] = {}
        over: set[str] = set()
        for item in batch:
            if not item.entries:
                outcomes.append(None)
                continue
            game = item.game_id
            dup = next(
                (
                    seen[(game, e.client_id)]
                    for e in item.entries
                    if e.client_id is not None and (game, e.client_id) in seen
                ),
                None,
            )
            if dup is not None:
                outcomes.append(DuplicateIntent(dup))
                continue
            if game not in live:
                outcomes.append(StoreConflict())  # expired elsewhere: read again, refused
                continue
            if last[game] + 1 != item.entries[0].seq:
                outcomes.append(StoreConflict())
                continue
            if item.reopens and not item.over and not self._reopen(conn, game):
                outcomes.append(StoreConflict())  # its rematch was stored first
                continue
            outcomes.append(None)
            last[game] = notes[game] = item.entries[-1].seq
            for e in item.entries:
                rows.append(_entry_values(game, e))
                if e.client_id is not None:
                    seen[(game, e.client_id)] = e.seq
            if item.over:
                over.add(game)
            elif item.reopens:
                over.discard(game)  # played again (``_reopen``), after an end in this batch
        if not rows:
            return outcomes
        for start in range(0, len(rows), ROWS_A_STATEMENT):
            conn.execute(actions.insert().values(rows[start : start + ROWS_A_STATEMENT]))
        written = sorted(notes)
        if over:
            conn.execute(games.update().where(games.c.id.in_(sorted(over))).values(status="over"))
        if self.postgres:
            conn.execute(
                sa.text(
                    "SELECT pg_notify(:channel, note) FROM unnest(CAST(:notes AS text[])) AS note"
                ),
                {"channel": CHANNEL, "notes": [f"{g} {notes[g]}" for g in written]},
            )
        return outcomes

    @staticmethod
    def _last_seqs(conn: Connection, first: dict[str, int]) -> dict[str, int]:
        """The last seq of each game's log, in one query that names only the games whose
        first append of the batch does not follow it (none, as a rule)."""
        expected = (
            sa.values(sa.column("game", sa.String), sa.column("seq", sa.Integer), name="expected")
            .data(sorted(first.items()))
            .cte("expected")
        )
        stored = (
            sa.select(sa.func.coalesce(sa.func.max(actions.c.seq), 0))
            .where(actions.c.game_id == expected.c.game)
            .scalar_subquery()
        )
        query = sa.select(expected.c.game, stored).where(expected.c.seq != stored + 1)
        last = {g: seq - 1 for g, seq in first.items()}
        last.update({g: seq for g, seq in conn.execute(query)})
        return last

    @staticmethod
    def _client_ids(conn: Connection, items: Sequence[Append]) -> dict[tuple[str, str], int]:
        """(game, client id) -> seq of the batch's client ids stored before (few, as a rule)."""
        pairs = sorted({(i.game_id, e.client_id) for i in items for e in i.entries if e.client_id})
        if not pairs:
            return {}
        query = sa.select(actions.c.game_id, actions.c.client_id, actions.c.seq).where(
            actions.c.game_id.in_(sorted({g for g, _ in pairs})),
            actions.c.client_id.in_(sorted({c for _, c in pairs})),
        )
        wanted = set(pairs)
        return {(g, c): q for g, c, q in conn.execute(query) if (g, c) in wanted}

    def _append_alone(self, item: Append) -> Exception | None:
        try:
            self.append(
                item.game_id, item.entries, over=item.over, at=item.at, reopens=item.reopens
            )
        except (StoreConflict, DuplicateIntent) as exc:
            return exc
        return None

    @staticmethod
    def _raise_duplicate(conn: Connection, game_id: str, entries: Sequence[LogEntry]) -> None:
        ids = [e.client_id for e in entries if e.client_id is not None]
        if not ids:
            return
        seq = conn.execute(
            sa.select(actions.c.seq).where(
                actions.c.game_id == game_id, actions.c.client_id.in_(ids)
            )
        ).scalar()
        if seq is not None:
            raise DuplicateIntent(seq)

    def update_game(self, game_id: str, **changes: object) -> None:
        with self.engine.begin() as conn:
            conn.execute(games.update().where(games.c.id == game_id).values(**changes))
            self._note(conn, game_id, "game")

    def update_seat(self, game_id: str, seat: int, **changes: object) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                seats.update()
                .where(seats.c.game_id == game_id, seats.c.seat == seat)
                .values(**changes)
            )
            self._note(conn, game_id, "seats")

    def rename_seat(self, game_id: str, seat: int, name: str) -> tuple[str, ...]:
        """The game's row locked first (PostgreSQL: a second rename waits, then reads the
        names the first wrote; SQLite writes one at a time)."""
        with self.engine.begin() as conn:
            stored = conn.execute(
                sa.select(games.c.players).where(games.c.id == game_id).with_for_update()
            ).scalar()
            if stored is None:
                raise UnknownGameError(f"there is no game {game_id!r}")
            players = list(json.loads(stored))
            clash = name_clash(name, players, seat)
            if clash is not None:
                raise RoomError(taken_name(clash))
            players[seat] = name
            conn.execute(
                seats.update()
                .where(seats.c.game_id == game_id, seats.c.seat == seat)
                .values(name=name)
            )
            conn.execute(
                games.update().where(games.c.id == game_id).values(players=json.dumps(players))
            )
            self._note(conn, game_id, "seats")
        return tuple(players)

    def claim_seat(self, row: SeatRow, token_hash: str) -> bool:
        """A conditional update: the seat's token set where its invite and token are still
        ``row``'s (the invite stays: it seats its holder again). A second process claiming
        it at the same moment waits for the first's row lock, then finds them changed
        (PostgreSQL reads the row again; SQLite writes one at a time) and updates nothing."""
        with self.engine.begin() as conn:
            claimed = conn.execute(
                seats.update()
                .where(
                    seats.c.game_id == row.game_id,
                    seats.c.seat == row.seat,
                    _equal(seats.c.invite_hash, row.invite_hash),
                    _equal(seats.c.token_hash, row.token_hash),
                )
                .values(token_hash=token_hash)
            ).rowcount
            if claimed == 1:
                self._note(conn, row.game_id, "seats")
        return claimed == 1

    def create_rematch(self, old_id: str, game: GameRow, rows: Sequence[SeatRow]) -> str:
        """One transaction: the old game's ``rematch`` set where it is still null (the row is
        locked until the commit: a second process waits, then finds it set), and the new game
        stored. ``rematch_of`` being unique, a second rematch could not be stored anyway."""
        try:
            with self.engine.begin() as conn:
                claimed = conn.execute(
                    games.update()
                    .where(
                        games.c.id == old_id,
                        games.c.rematch.is_(None),
                        games.c.status == "over",  # not while an undo plays it again
                    )
                    .values(rematch=game.id)
                ).rowcount
                if claimed == 1:
                    conn.execute(games.insert().values(**_game_values(game)))
                    conn.execute(seats.insert(), [_seat_values(r) for r in rows])
                    self._note(conn, old_id, "game")
                    return game.id
        except IntegrityError:
            pass  # the rematch_of constraint: another one was stored first
        stored = self.game(old_id)
        if stored is not None and stored.rematch is None and stored.status == "playing":
            raise RoomError(REOPENED)
        if stored is None or stored.rematch is None:
            raise RoomError(f"the rematch of {old_id} could not be stored")
        return stored.rematch

    def _note(self, conn: Connection, game_id: str, what: str) -> None:
        """Tell the other processes (PostgreSQL: delivered on commit)."""
        if self.postgres:
            conn.execute(sa.select(sa.func.pg_notify(GAMES_CHANNEL, f"{game_id} {what}")))

    def seat_by_invite(self, invite_hash: str) -> SeatRow | None:
        return self._seat_where(seats.c.invite_hash == invite_hash)

    def seat_by_token(self, token_hash: str) -> SeatRow | None:
        return self._seat_where(seats.c.token_hash == token_hash)

    def _seat_where(self, condition: sa.ColumnElement[bool]) -> SeatRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(seats.select().where(condition)).mappings().first()
        return _seat_row(row) if row else None

    def expire(self, before: datetime) -> tuple[str, ...]:
        stale = sa.and_(games.c.status == "playing", games.c.updated_at < _utc(before))
        with self.engine.begin() as conn:
            # the rows it expires, as the update finds them (a move committed meanwhile
            # made its game fresh again), each told to the other processes
            ids = tuple(
                conn.execute(
                    games.update().where(stale).values(status="expired").returning(games.c.id)
                ).scalars()
            )
            for game_id in ids:
                self._note(conn, game_id, "game")
        return ids

    def playing(self) -> tuple[str, ...]:
        with self.engine.connect() as conn:
            query = sa.select(games.c.id).where(games.c.status == "playing")
            return tuple(conn.execute(query).scalars())

    # -- across processes (PostgreSQL)

    async def listen(
        self, ready: Callable[[], Awaitable[None]] | None = None
    ) -> AsyncIterator[Note]:
        """What any process changed (its own changes included), through LISTEN/NOTIFY: every
        append (the game and its last seq), every change of a game's seats or row. ``ready``
        is awaited once the channels are listened to (what changed before is for the caller
        to read: nothing after it is missed). The connection is named ``zloutch listen PID``
        in ``pg_stat_activity``. A lost connection raises (psycopg's ``OperationalError``):
        the hub listens again (``Hub.follow_forever``)."""
        import psycopg

        dsn = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
        conn = await psycopg.AsyncConnection.connect(
            dsn, autocommit=True, application_name=f"{LISTENER_NAME} {os.getpid()}"
        )
        try:
            await conn.execute(f"LISTEN {CHANNEL}")
            await conn.execute(f"LISTEN {GAMES_CHANNEL}")
            if ready is not None:
                await ready()
            async for note in conn.notifies():
                read = read_note(note.channel, note.payload)
                if read is not None:
                    yield read
        finally:
            with contextlib.suppress(Exception):  # a connection already lost closes quietly
                await conn.close()


def read_note(channel: str, payload: str) -> Note | None:
    """A notification's payload (None: not one of ours, or from a newer version)."""
    game_id, _, rest = payload.partition(" ")
    if channel == CHANNEL and rest.isdigit():
        return Note(game_id, int(rest))
    if channel == GAMES_CHANNEL and rest in ("seats", "game"):
        return Note(game_id, changed="seats" if rest == "seats" else "game")
    return None


def _equal(column: sa.ColumnElement[Any], value: object) -> sa.ColumnElement[bool]:
    """``column = value``, where NULL equals NULL."""
    return column.is_(None) if value is None else column == value


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def _game_values(game: GameRow) -> dict[str, Any]:
    return {
        "id": game.id,
        "rules": game.rules,
        "rules_toml": game.rules_toml,
        "players": json.dumps(list(game.players)),
        "secret": game.secret,
        "commitment": game.commitment,
        "created_at": _utc(game.created_at),
        "updated_at": _utc(game.updated_at),
        "table_mode": game.table_mode,
        "pace": game.pace,
        "leave_after": game.leave_after,
        "leave_bot": game.leave_bot,
        "first_throw": game.first_throw,
        "status": game.status,
        "open_hash": game.open_hash,
        "rematch_of": game.rematch_of,
        "rematch": game.rematch,
        "host_hash": game.host_hash,
        "hints": game.hints,
    }


def _game_row(row: Any) -> GameRow:
    values = dict(row)
    values["players"] = tuple(json.loads(values["players"]))
    values["created_at"] = _utc(values["created_at"])
    values["updated_at"] = _utc(values["updated_at"])
    return GameRow(**values)


def _seat_values(row: SeatRow) -> dict[str, Any]:
    return {
        "game_id": row.game_id,
        "seat": row.seat,
        "name": row.name,
        "bot": row.bot,
        "invite_hash": row.invite_hash,
        "token_hash": row.token_hash,
        "heir_hash": row.heir_hash,
        "away": row.away,
        "invite_code": row.invite_code,
    }


def _seat_row(row: Any) -> SeatRow:
    return SeatRow(**dict(row))


def _entry_values(game_id: str, entry: LogEntry) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "seq": entry.seq,
        "text": entry.text,
        "at": entry.at,
        "seat": entry.seat,
        "client_id": entry.client_id,
    }
