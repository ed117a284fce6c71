"""The ASGI application of ``zloutch serve``: HTTP to make and join games, a WebSocket to play.

``create_app(db_url)`` opens the store (running its migrations), and serves:

- ``POST /api/games``: a new game; ``POST /api/records``: an uploaded record goes on as a
  new game; ``POST /api/join/{code}`` and ``POST /api/games/{id}/open/{code}``: a seat and
  its token; ``GET /api/games/{id}``: the state; ``GET /api/games/{id}/record``: the record;
  ``POST /api/games/{id}/rematch``; ``POST /api/waiting``: the games on your move;
- ``GET /api/games/{id}/hint``: each legal action with its value; ``GET
  /api/games/{id}/review``: every decision graded (once the game is over);
- ``GET /api/presets``: the presets and every option; ``GET /api/i18n/{lang}``: the page's
  labels in a language;
- ``/ws/{id}``: one socket per client for intents and events;
- the page (``static/``): ``/`` the lobby, ``/g/{id}`` the table, ``/join/{code}`` and
  ``/g/{id}/open/{code}`` the invitations, ``/g/{id}?watch`` to watch.

``?lang=fr`` (and ``"lang"`` in a socket's hello) gives the engine's words in French.

Every message is described in docs/server.md. Errors are one JSON line, ``{"error": ...}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import re
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from zloutch.adapters.web.i18n import (
    LANGUAGES,
    UnknownLanguageError,
    check_language,
    negotiate,
    translate,
    ui_catalog,
)
from zloutch.adapters.web.protocol import (
    WIRE,
    catch_up_text,
    presets_json,
    rules_json,
    state_json,
    state_text,
)
from zloutch.app.hints import (
    BackgroundSolves,
    SharedAdvisors,
    bot_plays,
    hint_digits,
    plays_solved_game,
)
from zloutch.app.review import review_record
from zloutch.app.review_words import format_value, game_table, review_header
from zloutch.app.session import action_keep
from zloutch.engine.game import keep_passes, keep_strands
from zloutch.rules import InvalidRulesError, ZloutchError
from zloutch.server import (
    DEFAULT_LEAVE_BOT,
    Created,
    NewGame,
    NewRoom,
    RoomError,
    Rooms,
    SeatSpec,
    StoreUnavailableError,
    UnknownGameError,
)
from zloutch.server.gamedb import SqlStore
from zloutch.server.hub import TAKEOVER_AFTER, Client, Hub, dumps

log = logging.getLogger("zloutch.serve")

MAX_MESSAGE = 64 * 1024
MAX_BODY = 1024 * 1024
"""Bytes of an HTTP request's body (a record of a long game is a few hundred kB): past it the
request is refused (413) before its body is read whole."""
CHECK_BUDGET = 10.0
"""Seconds a new game's rule set and record may take to be checked and built (off the event
loop, on ``CHECK_THREADS`` threads of their own): past it the request is refused."""
CHECK_THREADS = 2
STATIC = Path(__file__).resolve().parent / "static"
PAGE_HEADERS = {"Cache-Control": "no-cache"}


class Body(BaseModel):
    """A request's body: NaN and Infinity are refused (they are no JSON), and so is a field
    the request does not have (``"hint": false`` made a game with the hints on)."""

    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")


class SeatIn(Body):
    name: str = ""
    bot: str | None = None


class GameIn(Body):
    rules: str = "dix-mille"
    rules_file: str | None = Field(None, description="The TOML text of a rule file.")
    seats: list[SeatIn] = Field(default_factory=lambda: [SeatIn(name="Player 1"), SeatIn()])
    pace: float = 0.8
    leave_after: float | None = None
    leave_bot: str = DEFAULT_LEAVE_BOT
    real_dice: bool = False
    hints: bool = Field(True, description="Anyone at the table may ask for the hint.")

    def request(self) -> NewGame:
        return NewGame(
            tuple(SeatSpec(s.name, s.bot) for s in self.seats),
            self.rules,
            self.rules_file,
            self.real_dice,
            self.pace,
            self.leave_after,
            self.leave_bot,
            self.hints,
        )


class RecordIn(Body):
    record: str | dict[str, Any]
    pace: float = 0.8
    leave_after: float | None = None
    leave_bot: str = DEFAULT_LEAVE_BOT
    hints: bool = True


class TokenIn(Body):
    token: str


class TokensIn(Body):
    tokens: list[str]


class ReissueIn(Body):
    token: str
    seat: int


class NameIn(Body):
    token: str
    name: str


MAX_QR_TEXT = 512
"""Characters of a text ``/api/qr`` draws (a link to a game is about 80)."""


def created_json(rooms: Rooms, created: Created, public_url: str | None = None) -> dict[str, Any]:
    room = rooms.room(created.game_id)
    game_id = created.game_id
    return {
        "game": game_id,
        "public_url": public_url,
        "host": created.host,
        "commitment": created.commitment,
        "invites": [
            {"seat": seat, "name": room.seats[seat].name, "code": code, "url": f"/join/{code}"}
            for seat, code in created.invites
        ],
        "open": {
            "code": created.open_code,
            "url": f"/g/{game_id}/open/{created.open_code}",
        },
        "watch": f"/g/{game_id}?watch",
        "record": f"/api/games/{game_id}/record",
        "socket": f"/ws/{game_id}",
        "state": state_json(room),
    }


def create_app(
    db_url: str | None = None,
    *,
    expire_after: timedelta | None = timedelta(days=30),
    public_url: str | None = None,
) -> FastAPI:
    """The server's application over a database (SQLite in the data folder by default).
    ``public_url``: the address players open (``zloutch serve`` works it out, or
    ``--public-url``), which a new game's links are built on; None: the page's own."""
    raise_open_files()
    store = SqlStore(db_url)
    rooms = Rooms(store)
    # With PostgreSQL other processes may serve the same games: one plays a game's bots.
    takeover = TAKEOVER_AFTER if store.postgres else None
    hub = Hub(rooms, wire=WIRE, expire_after=expire_after, takeover_after=takeover)
    checks = ThreadPoolExecutor(CHECK_THREADS, thread_name_prefix="zloutch-check")
    # The two-player games the hints and the best bots ask for, solved in a process apart
    # on first use.
    solves = BackgroundSolves()

    async def checked(build: Callable[..., NewRoom], *args: Any) -> NewRoom:
        """A new game checked and built off the event loop, within ``CHECK_BUDGET``: a rule
        set (its endings check, its compiled turn) or a record never holds up the other
        games' moves."""
        work = asyncio.get_running_loop().run_in_executor(checks, build, *args)
        try:
            return await asyncio.wait_for(work, CHECK_BUDGET)
        except TimeoutError:
            raise RoomError(
                f"this game's rules take more than {CHECK_BUDGET:g} s to check: "
                "try a smaller target or fewer dice"
            ) from None

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        hub.resume_all()
        asyncio.get_running_loop().run_in_executor(checks, solve_for_games_in_play)
        hub.spawn(hub.expire_forever)
        hub.spawn(hub.tidy_forever)
        if store.postgres:
            hub.listener = "starting"
            hub.spawn(lambda: hub.follow_forever(store.listen))
        yield
        await hub.stop()  # what was acknowledged is stored: the writer's queue is drained
        checks.shutdown(wait=False, cancel_futures=True)
        solves.close(kill=True)
        store.close()
        log.info(
            "stopped: %d games in memory, %d moves stored since the start",
            len(rooms.rooms),
            hub.writer.stats.appends,
        )

    app = FastAPI(title="zloutch serve", lifespan=lifespan)
    app.add_middleware(BodyLimit)
    app.state.rooms = rooms
    app.state.hub = hub

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404 and wants_page(request):
            # A browser sent to a page that is not one (a mistyped link): the page says so,
            # with the way back to the lobby, where JSON would be a bare line of text.
            return FileResponse(STATIC / "index.html", status_code=404, headers=PAGE_HEADERS)
        words = {404: "no such page or API route", 405: "this method is not allowed here"}
        line = words.get(exc.status_code, str(exc.detail))
        return JSONResponse({"error": line}, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        kind = request.headers.get("content-type", "")
        if request.method == "POST" and "json" not in kind.lower():
            # curl -d sends a form's type: the JSON in it was read as no object at all
            line = f"send the body as JSON, with Content-Type: application/json (not {kind!r})"
            return JSONResponse({"error": line}, status_code=400)
        return JSONResponse({"error": validation_line(exc)}, status_code=400)

    @app.exception_handler(ZloutchError)
    async def user_error(request: Request, exc: ZloutchError) -> JSONResponse:
        status = 404 if isinstance(exc, UnknownGameError | UnknownLanguageError) else 400
        if isinstance(exc, StoreUnavailableError):
            status = 503  # the database refused the write: the request was fine
        # a rule file's mistake says on which line of the text sent it is written
        text = exc.located() if isinstance(exc, InvalidRulesError) else str(exc)
        lang = request.query_params.get("lang")  # the page's language (a POST's too)
        if lang in LANGUAGES and not isinstance(exc, UnknownLanguageError):
            text = translate(text, lang)
        return JSONResponse({"error": text}, status_code=status)

    @app.get("/api/health")
    async def health() -> JSONResponse:
        stats = hub.writer.stats
        # Not ok (503) while this process cannot hear the others (it would serve their
        # games at old versions), or while the database refuses its writes (every move
        # would be refused, "not_stored").
        ok = hub.listener in (None, "up") and not stats.failing
        body = {
            "ok": ok,
            "listener": hub.listener,
            "games": len(rooms.rooms),
            "sockets": sum(map(len, hub.clients.values())),
            "commits": stats.commits,
            "appends": stats.appends,
            "largest_commit": stats.largest,
            "slowest_commit_ms": round(stats.slowest * 1000, 1),
            "write_failures": stats.failures,
            "last_write_failure": stats.last_failure,
            "writes_failing": stats.failing,
        }
        return JSONResponse(body, status_code=200 if ok else 503)

    def solve_for_bots(game_id: str) -> None:
        """A game with a bot that plays to win (``best``) whose solved table is not cached:
        solved in the background from now (the bot plays turn-optimal until it is ready).
        A solve that cannot start is logged: the game goes on, its bot turn by turn."""
        try:
            room = rooms.room(game_id)
            bots = [s.bot for s in room.seats if s.bot] + [room.game.leave_bot]
            if plays_solved_game(bots, len(room.state.sheets)):
                solves.start_for_optimal(room.state.rules)
        except Exception:
            log.exception("game %s: its bot's game cannot be solved in the background", game_id)

    def solve_for_games_in_play() -> None:
        """After a start: the games in play whose best bot waits for a table (a restart
        stopped its solve)."""
        for game_id in store.playing():
            solve_for_bots(game_id)

    async def solve_for_bots_off_the_loop(game_id: str) -> None:
        await asyncio.get_running_loop().run_in_executor(checks, solve_for_bots, game_id)

    @app.post("/api/games", status_code=201)
    async def create_game(game: GameIn) -> dict[str, Any]:
        # Checked and built on a thread of its own, stored on the writer's thread (the loop
        # never waits on either), then served.
        new = await checked(rooms.new_game, game.request())
        created = rooms.add(await hub.writer.write(rooms.store_new, new))
        log_created(rooms, created.game_id, "new")
        hub.broadcast(created.game_id, ())
        await solve_for_bots_off_the_loop(created.game_id)
        return created_json(rooms, created, public_url)

    @app.post("/api/records", status_code=201)
    async def continue_record(upload: RecordIn) -> dict[str, Any]:
        text = upload.record if isinstance(upload.record, str) else json.dumps(upload.record)
        request = NewGame(
            (),
            pace=upload.pace,
            leave_after=upload.leave_after,
            leave_bot=upload.leave_bot,  # (it was read and dropped)
            hints=upload.hints,
        )
        new = await checked(rooms.new_from_record, text, request)
        created = rooms.add(await hub.writer.write(rooms.store_new, new))
        log_created(rooms, created.game_id, "continued from a record")
        await solve_for_bots_off_the_loop(created.game_id)
        if await hub.start(created.game_id) is None:
            hub.kick(created.game_id)
        return created_json(rooms, created, public_url)

    @app.get("/api/join/{code}")
    async def invitation(code: str) -> dict[str, Any]:
        # What an invitation is for, taken by nothing: a page that holds another seat of
        # the game asks before it takes this one too (a host tapping a friend's link).
        row = await hub.writer.run(rooms.invited, code)  # the store, on its own thread
        return {"game": row.game_id, "seat": row.seat, "name": row.name}

    @app.post("/api/join/{code}")
    async def join(code: str) -> dict[str, Any]:
        joined = await hub.writer.write(rooms.join, code)
        hub.seats_changed(joined.game_id)
        return {"game": joined.game_id, "seat": joined.seat, "token": joined.token}

    @app.post("/api/games/{game_id}/open/{code}")
    async def join_open(game_id: str, code: str) -> dict[str, Any]:
        joined = await hub.writer.write(rooms.join_open, game_id, code)
        hub.seats_changed(joined.game_id)
        return {"game": joined.game_id, "seat": joined.seat, "token": joined.token}

    @app.post("/api/games/{game_id}/seats")
    async def seat_list(game_id: str, body: TokenIn) -> dict[str, Any]:
        await hub.room(game_id)
        found = rooms.seat_list(game_id, body.token)
        return {
            "game": game_id,
            "public_url": public_url,
            "host": found.host,
            "seats": [
                {
                    "seat": v.seat,
                    "name": v.name,
                    "bot": v.bot,
                    "joined": v.joined,
                    "away": v.away,
                    "mine": v.mine,
                    "invite": None
                    if v.invite is None
                    else {"code": v.invite, "url": f"/join/{v.invite}"},
                }
                for v in found.seats
            ],
        }

    @app.post("/api/games/{game_id}/reissue")
    async def reissue(game_id: str, body: ReissueIn) -> dict[str, Any]:
        await hub.room(game_id)
        code, _ = await hub.writer.write(rooms.reissue, game_id, body.token, body.seat)
        hub.drop_seat(game_id, body.seat, "this seat's invitation was reissued: open the new one")
        hub.seats_changed(game_id)
        return {"game": game_id, "seat": body.seat, "code": code, "url": f"/join/{code}"}

    @app.post("/api/games/{game_id}/name")
    async def rename(game_id: str, body: NameIn) -> dict[str, Any]:
        row = await hub.rename(game_id, body.token, body.name)
        return {"game": game_id, "seat": row.seat, "name": row.name}

    @app.get("/api/qr")
    async def qr(text: str) -> Response:
        if not 0 < len(text) <= MAX_QR_TEXT:
            raise RoomError(f"a QR code holds 1 to {MAX_QR_TEXT} characters")
        import segno

        out = io.BytesIO()
        segno.make(text, error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False)
        return Response(out.getvalue(), media_type="image/svg+xml", headers=PAGE_HEADERS)

    @app.get("/api/games/{game_id}")
    async def game_state(game_id: str, lang: str = "en") -> Response:
        text = state_text(await hub.room(game_id), check_language(lang))
        return Response(text, media_type="application/json")

    @app.get("/api/games/{game_id}/rules")
    async def game_rules(game_id: str, lang: str = "en") -> dict[str, Any]:
        return rules_json((await hub.room(game_id)).state.rules, check_language(lang))

    @app.get("/api/presets")
    async def presets(lang: str = "en") -> dict[str, Any]:
        return presets_json(check_language(lang))

    @app.get("/api/i18n/{lang}")
    async def messages(lang: str) -> dict[str, Any]:
        messages = ui_catalog(lang)
        return {"lang": lang, "languages": list(LANGUAGES), "messages": messages}

    @app.get("/api/games/{game_id}/record")
    async def record(game_id: str) -> Response:
        text = (await hub.room(game_id)).record_text()
        disposition = f'attachment; filename="zloutch-{game_id}.json"'
        return Response(
            text, media_type="application/json", headers={"Content-Disposition": disposition}
        )

    @app.post("/api/games/{game_id}/rematch")
    async def rematch(game_id: str, body: TokenIn) -> dict[str, Any]:
        joined = await hub.writer.write(rooms.rematch, game_id, body.token)
        if joined.made:
            log_created(rooms, joined.game_id, f"rematch of {game_id}")
            await solve_for_bots_off_the_loop(joined.game_id)
        # The process that stored the rematch plays its bots; any other that is asked for it
        # only as a backup (see hub.py).
        hub.kick(joined.game_id, backup=not joined.made)
        hub.seats_changed(joined.game_id)  # those at the rematch already see this seat taken
        # Said at each ask (the same game each time): a process that did not make it may
        # hold sockets that have not heard of it yet.
        for client in hub.clients.get(game_id, ()):
            client.send({"type": "rematch", "game": joined.game_id})
        return {"game": joined.game_id, "seat": joined.seat, "token": joined.token}

    advisors = SharedAdvisors(solves=solves)

    @app.get("/api/games/{game_id}/hint")
    def hint(game_id: str, lang: str = "en") -> dict[str, Any]:
        # A plain def: FastAPI runs it on a worker thread, the loop never waits for a solve.
        lang = check_language(lang)
        room = rooms.room(game_id)
        if not room.game.hints and not room.over:
            raise RoomError("this game's host turned the hints off")
        state = room.state
        advice = None if room.over else advisors.advice(state)
        return {
            "version": room.version,
            "player": None if advice is None else state.turn.player,
            "objective": None if advice is None else advice.objective,
            "digits": 1 if advice is None else hint_digits(advice),  # the best apart
            "note": None if advice is None or not advice.note else translate(advice.note, lang),
            "values": []
            if advice is None
            else [
                {
                    "action": str(a),
                    "words": translate(str(a), lang),
                    "value": v,
                    # what loses the turn past an exact target (T-9), as the keeps say it
                    "passes": keep is not None and keep_passes(state, keep),
                    "strands": keep is not None and keep_strands(state, keep),
                }
                for a, v in advice.values
                for keep in [action_keep(state, a)]
            ],
        }

    @app.get("/api/games/{game_id}/bots")
    def bots(game_id: str, lang: str = "en") -> dict[str, Any]:
        # A plain def: reading the solver cache is off the event loop.
        lang = check_language(lang)
        room = rooms.room(game_id)
        state = room.state
        shown = []
        for seat in room.seats:
            name = room.bot_for(seat.seat)
            if name is None:
                continue
            plays, solving = bot_plays(name, state.rules, len(state.sheets), solves)
            shown.append(
                {
                    "seat": seat.seat,
                    "bot": name,
                    "plays": translate(plays, lang),
                    "solving": solving,
                }
            )
        return {"bots": shown}

    @app.get("/api/games/{game_id}/review")
    def review(game_id: str, lang: str = "en") -> dict[str, Any]:
        lang = check_language(lang)
        room = rooms.room(game_id)
        if not room.over:
            raise RoomError("the review is for a game that is over")
        rules = room.state.rules
        solution, note = game_table(rules, len(room.state.sheets), solve=False)
        graded = review_record(room.full_record(), solution=solution, note=note)
        document = graded.to_json()
        document["header"] = [translate(line, lang) for line in review_header(graded)]
        for decision, shown in zip(graded.decisions, document["decisions"], strict=True):
            shown["situation"] = translate(shown["situation"], lang)
            shown["chosen_words"] = translate(decision.chosen.words, lang)
            shown["best_words"] = translate(decision.best.words, lang)
            shown["chosen_shown"] = format_value(graded, decision.chosen.value)
            shown["best_shown"] = format_value(graded, decision.best.value)
        for summary in document["summary"]:
            for mistake in summary["mistakes"]:
                mistake["situation"] = translate(mistake["situation"], lang)
        return document

    @app.post("/api/waiting")
    async def waiting(body: TokensIn) -> dict[str, Any]:
        found = await hub.writer.run(rooms.waiting, body.tokens)
        return {"games": [{"game": g, "seat": s} for g, s in found]}

    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=PAGE_HEADERS)

    for path in ("/", "/g/{game_id}", "/join/{code}", "/g/{game_id}/open/{code}"):
        app.add_api_route(path, page, methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.websocket("/ws/{game_id}")
    async def play(socket: WebSocket, game_id: str) -> None:
        await socket.accept()
        with contextlib.suppress(WebSocketDisconnect):
            await _serve_socket(socket, game_id, rooms, hub)

    return app


def wants_page(request: Request) -> bool:
    """A browser's GET of a page (not of the API, a static file or a socket)."""
    path = request.url.path
    return (
        request.method == "GET"
        and not path.startswith(("/api/", "/static/", "/ws/"))
        and "text/html" in request.headers.get("accept", "")
    )


async def _refuse_hello(socket: WebSocket, reason: str, fatal: str) -> None:
    """A hello the server cannot take: the error says why (``fatal``: what a client should
    do rather than connect again), then the socket closes."""
    await socket.send_text(dumps({"type": "error", "reason": reason, "fatal": fatal}))
    await socket.close(1008)


async def _serve_socket(socket: WebSocket, game_id: str, rooms: Rooms, hub: Hub) -> None:
    """One client: a ``hello`` first (with the seat token, or none to watch), then intents."""
    hello = await _receive(socket)
    if hello is None or hello.get("type") != "hello":
        await socket.send_text(dumps({"type": "error", "reason": "say hello first"}))
        await socket.close(1008)
        return
    asked = hello.get("lang")
    lang = negotiate(None, asked if isinstance(asked, str) else None)
    try:
        room = await hub.room(game_id)
    except ZloutchError as exc:  # a client does not try again: it would get the same
        # no such game here, or one this server cannot rebuild (its rule file gone, a log
        # that no longer replays): said as it is
        fatal = "unknown_game" if isinstance(exc, UnknownGameError) else "unavailable"
        await _refuse_hello(socket, translate(str(exc), lang), fatal)
        return
    try:
        token = hello.get("token")
        seat = rooms.seat_of(game_id, token if isinstance(token, str) else None)
    except ZloutchError as exc:  # a token not of this game (its invitation made again)
        await _refuse_hello(socket, translate(str(exc), lang), "bad_token")
        return
    client = Client(socket, game_id, seat, lang)
    # The welcome and the catch-up first, then the socket joins its game (a person back:
    # the seat message to everyone, this socket too), all with no await in between, so that
    # no broadcast falls between the catch-up and the joining.
    since = hello.get("since")
    client.send({"type": "welcome", "game": game_id, "seat": seat, "version": room.version})
    client.send_text(catch_up_text(room, since if isinstance(since, int) else None, lang))
    hub.join(client)
    writer = asyncio.get_running_loop().create_task(client.write())
    try:
        while True:
            message = await _receive(socket)
            if message is None:
                client.send({"type": "error", "reason": "a message is one JSON object"})
                continue
            await _handle(message, client, rooms, hub, token if isinstance(token, str) else None)
    finally:
        hub.leave(client)
        writer.cancel()
        with contextlib.suppress(BaseException):
            await writer


async def _handle(
    message: dict[str, Any], client: Client, rooms: Rooms, hub: Hub, token: str | None
) -> None:
    kind = message.get("type")
    game_id = client.game_id
    if kind == "intent":
        client_id, version, action = (
            message.get("id"),
            message.get("version"),
            message.get("action"),
        )
        if not (isinstance(client_id, str) and client_id):
            client.send({"type": "error", "reason": "an intent needs an id and a version"})
            return

        # With its id, an intent is answered by its id (a client waits for that answer): a
        # bad version or action is refused, not an error the client cannot match.
        def invalid(problem: str) -> None:
            client.send(
                {
                    "type": "refused",
                    "id": client_id,
                    "code": "invalid",
                    "reason": translate(problem, client.lang),
                    "rule": None,
                    "version": rooms.room(game_id).version,
                }
            )

        if not isinstance(version, int) or isinstance(version, bool):
            invalid("an intent needs the version its player saw, a whole number")
            return
        if not isinstance(action, str):
            invalid("an intent needs an action, as in keep 1 5")
            return
        # One phone may keep the score for several seats at a real table: an intent may name
        # the seat token it acts with (else the socket's, from hello).
        acting = message.get("token")
        if isinstance(acting, str) and acting != token:
            try:
                rooms.seat_of(game_id, acting)
            except ZloutchError as exc:
                client.send(
                    {
                        "type": "refused",
                        "id": client_id,
                        "code": "bad_token",
                        "reason": translate(str(exc), client.lang),
                        "rule": None,
                        "version": version,
                    }
                )
                return
            token = acting
        # Stored before anything is said: the ack, then the events to every socket.
        await hub.intent(client, token, version, client_id, action)
    elif kind == "catch_up":
        since = message.get("since")
        since = since if isinstance(since, int) else None
        client.send_text(catch_up_text(rooms.room(game_id), since, client.lang))
    elif kind == "ping":
        client.send({"type": "pong"})
    else:
        client.send({"type": "error", "reason": f"unknown message type {kind!r}"})


async def _receive(socket: WebSocket) -> dict[str, Any] | None:
    """The next message as a JSON object, or None for anything else (a binary frame, text
    that is no JSON object, JSON nested too deep, NaN or Infinity, over ``MAX_MESSAGE``),
    which the caller answers with an error; a closed socket is ``WebSocketDisconnect``."""
    try:
        event = await socket.receive()
    except RuntimeError as exc:  # the socket closed under us (a restart, a dropped peer)
        raise WebSocketDisconnect(1006, str(exc)) from None
    if event["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(event.get("code", 1000), event.get("reason"))
    text = event.get("text")
    if not isinstance(text, str) or len(text) > MAX_MESSAGE:
        return None
    try:
        message = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None


def _no_constant(name: str) -> Any:
    """NaN, Infinity and -Infinity are no JSON: refused as invalid."""
    raise ValueError(f"{name} is not JSON")


class BodyLimit:
    """ASGI middleware: a request whose body passes ``MAX_BODY`` bytes is answered 413
    ``{"error"}``, from its Content-Length or as soon as its chunks pass the limit (before
    the body is read whole)."""

    def __init__(self, app: Any, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit
        self.words = f"the request's body is over {limit // 1024} kB"

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            body = dumps({"error": self.words}).encode()
            headers = [(b"content-type", b"application/json")]
            await send({"type": "http.response.start", "status": 413, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:  # answered by the app's handler, as every error
                    raise StarletteHTTPException(413, self.words)
            return message

        await self.app(scope, counted, send)


def validation_line(exc: RequestValidationError) -> str:
    """A request the models refuse, in one line: where and why (never the value sent back,
    which may be no JSON: NaN)."""
    errors = exc.errors()
    if not errors:
        return "the request is not valid"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    what = str(first.get("msg", "is not valid")).rstrip(".")
    if first.get("type") == "json_invalid":
        return "the body is not valid JSON"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where or 'the body'}: {what}{more}"


def raise_open_files(wanted: int = 65536) -> None:
    """Let this process hold many sockets: the soft limit of open files up to the hard one
    (on systems that have it)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def log_created(rooms: Rooms, game_id: str, how: str) -> None:
    """One line a game made, for the operator: its id, its rules, its seats (no names, no
    tokens)."""
    room = rooms.rooms[game_id]
    bots = sum(seat.bot is not None for seat in room.seats)
    # A rule file's name is anyone's text: one line of it, no control character (a newline
    # in it wrote a second log line that looked like the server's own).
    spec = re.sub(r"[\x00-\x1f\x7f-\x9f]", "?", room.state.rules.spec)[:200]
    log.info("game %s: %s, %s, %d seats (%d bots)", game_id, how, spec, len(room.seats), bots)


def configure_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
