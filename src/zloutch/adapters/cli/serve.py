"""``zloutch serve``: play with friends over the network (the web adapter on uvicorn).

FastAPI, SQLAlchemy and uvicorn come with the ``web`` extra and are imported only inside the
command, so the other commands start without them.
"""

from __future__ import annotations

import socket
from typing import Annotated

import typer

from zloutch.adapters.cli.support import user_errors

WEB_EXTRA = "zloutch serve needs the web extra: pip install 'zloutch[web]'"


def serve(
    host: Annotated[
        str,
        typer.Option(help="The address to listen on; 0.0.0.0 listens on every network."),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8000,
    db: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help=(
                "The database: sqlite:///PATH or postgresql://USER:PASSWORD@HOST/NAME "
                "(default: SQLite in the user's data folder)."
            ),
            show_default=False,
        ),
    ] = None,
    expire_days: Annotated[
        float,
        typer.Option(
            "--expire-days",
            metavar="DAYS",
            help="Unfinished games with no move for this long expire (0: never).",
        ),
    ] = 30.0,
) -> None:
    """Serve games over the network: players join by link, the server throws the dice."""
    from zloutch.rules import ZloutchError

    with user_errors():
        try:
            import uvicorn

            from zloutch.adapters.web.app import configure_logging, create_app
        except ImportError:
            raise ZloutchError(WEB_EXTRA) from None
        if not 0 < port < 65536:
            raise ZloutchError(f"--port {port}: a port is 1 to 65535")
        if expire_days < 0:
            raise ZloutchError("--expire-days cannot be negative")
        from datetime import timedelta

        expire = timedelta(days=expire_days) if expire_days else None
        listening = listen(host, port)  # before the database: a port taken is said at once
        try:
            application = create_app(db, expire_after=expire)
        except BaseException:
            for sock in listening:
                sock.close()
            raise
    configure_logging()
    typer.echo(
        f"zloutch serve: {shown_address(host, port)}  "
        f"(games in {application.state.rooms.store.safe_url})"
    )
    # No per-message deflate: it compressed every frame for each socket apart (each has its own
    # zlib context), most of the CPU of a broadcast under load; the frames are a few kB.
    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        log_level="warning",
        ws="auto",
        ws_per_message_deflate=False,
    )
    uvicorn.Server(config).run(sockets=listening)


def listen(host: str, port: int) -> list[socket.socket]:
    """The server's sockets, bound to ``host`` and ``port`` as uvicorn binds them (asyncio's
    ``create_server``): every address the host name gives (``localhost``: IPv4 and IPv6
    where both are named), every network for an empty host. A host that is no address of
    this machine, or a port taken, is a ``ZloutchError``, before anything is served."""
    from zloutch.rules import ZloutchError

    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) else str(exc)
        raise ZloutchError(f"--host {host}: not an address to listen on ({reason})") from None
    sockets: list[socket.socket] = []
    seen: set[tuple[int, object]] = set()
    try:
        for family, kind, proto, _, address in infos:
            if (family, address) in seen:
                continue
            seen.add((family, address))
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:  # as asyncio: IPv6 only, beside an IPv4 socket
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(2048)
    except OSError as exc:
        for sock in sockets:
            sock.close()
        raise ZloutchError(f"cannot listen on {host} port {port}: {exc.strerror}") from None
    return sockets


def shown_address(host: str, port: int) -> str:
    """The server's address as a link: ``http://[::1]:8000/`` for an IPv6 address."""
    name = f"[{host}]" if ":" in host else host or "0.0.0.0"
    return f"http://{name}:{port}/"
