"""The server's domain: games played on a server, with seats, tokens, intents, the action log,
the bots and the dice; the store they are kept in, its migrations, the hub of live sockets
and the writer that commits their moves.

A ``Rooms`` service holds the games of one server process over a ``GameStore`` (the durable
log, ``gamedb.SqlStore`` on SQLite or PostgreSQL, its schema made by the Alembic
``migrations``; ``memory.MemoryStore`` for tests). Each game is a ``Room``: seats and
versions around the game's ``Match`` (``zloutch.app.match``), which alone refuses an action,
with the engine's reason and its rule id. Nothing here decides a rule, and nothing here does
I/O apart from the store it is given (``hub`` and ``writer`` run it off the event loop).

The log is the game. Each accepted intent becomes one or more entries (``throw`` and the
``roll`` the server draws for it) appended in one transaction with the next sequence numbers;
an entry is acknowledged or broadcast only after the store committed it. ``check_intent``
checks an intent in memory and gives the ``Pending`` entries, applied to a copy of the room;
the store commits them (``append_many``: the entries of many games in one transaction, which
the server's writer thread uses for group commit), and ``settle`` moves the room on, or
leaves it as it was. ``intent`` does the three at once. The store refuses a
sequence number taken (``StoreConflict``: another process got there first; the room reloads
the log and checks the intent again) and a client message id seen before (``DuplicateIntent``:
a retry, answered with the version it led to, applied once). A game is rebuilt by replaying
its log through the engine: entries are engine actions, or seeds a player added to the dice
(``seed TEXT``), which count from the next throw on.

Seats: an invite code per seat (and an open code that seats whoever comes next) is shown
once to the creator; opening it gives the seat's token. Codes and tokens are random
(``secrets``) and only their SHA-256 is stored.

The package: ``rows`` (what is stored, the errors), ``store`` (the ``GameStore`` protocol),
``memory`` (``MemoryStore``), ``gamedb`` (``SqlStore``) and ``migrations``, ``room`` (one game
in memory), ``answers`` (requests and answers), ``service`` (``Rooms``), ``writer`` (group
commit) and ``hub`` (the sockets of each game, the bots' timers; its messages are written by
the front end's ``Wire``). The names of the first seven are importable from
``zloutch.server``.
"""

from __future__ import annotations

from zloutch.app.match import RULE_ID, Refusal
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
from zloutch.server.memory import (
    MemoryStore,
)
from zloutch.server.room import (
    Played,
    Room,
    refusals,
)
from zloutch.server.rows import (
    DEFAULT_LEAVE_BOT,
    MAX_PACE,
    MAX_SEATS,
    SEED_WORD,
    UNDO_WORD,
    Append,
    DuplicateIntent,
    GameRow,
    LogEntry,
    RefusalCode,
    RoomError,
    SeatRow,
    StoreConflict,
    StoreUnavailableError,
    UnknownGameError,
    digest,
    name_clash,
    now_utc,
    seat_token,
    stamp,
    taken_name,
)
from zloutch.server.service import (
    Rooms,
)
from zloutch.server.store import (
    GameStore,
    Note,
)

__all__ = [
    "DEFAULT_LEAVE_BOT",
    "MAX_PACE",
    "MAX_SEATS",
    "RULE_ID",
    "SEED_WORD",
    "UNDO_WORD",
    "Accepted",
    "Append",
    "BotTurn",
    "Created",
    "DuplicateIntent",
    "GameRow",
    "GameStore",
    "Joined",
    "LogEntry",
    "MemoryStore",
    "NewGame",
    "NewRoom",
    "Note",
    "Pending",
    "Played",
    "Refusal",
    "RefusalCode",
    "Refused",
    "Room",
    "RoomError",
    "Rooms",
    "SeatList",
    "SeatRow",
    "SeatSpec",
    "SeatView",
    "StoreConflict",
    "StoreUnavailableError",
    "UnknownGameError",
    "digest",
    "name_clash",
    "now_utc",
    "refusals",
    "seat_token",
    "stamp",
    "taken_name",
]
