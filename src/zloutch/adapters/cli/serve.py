"""``zloutch serve``: play with friends over the network (the web adapter on uvicorn).

FastAPI, SQLAlchemy and uvicorn come with the ``web`` extra and are imported only inside the
command, so the other commands start without them.
"""

from __future__ import annotations

import io
import socket
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from zloutch.adapters.cli.support import user_errors

WEB_EXTRA = "zloutch serve needs the web extra: pip install 'zloutch[web]'"


def hold_sqlite(url: str, shown: str) -> IO[bytes] | None:
    """One server process per SQLite file: a second one on the same file started, and the
    players of one game split between the two never heard each other's moves. The file is
    held (``flock``, which SQLite's own locks do not touch) until the process ends, however
    it ends; several processes share a PostgreSQL database instead. None where there is no
    file to hold (PostgreSQL) or no ``flock`` (Windows)."""
    from sqlalchemy.engine import make_url

    from zloutch.rules import ZloutchError

    parsed = make_url(url)  # sqlite+pysqlite:///x.db?timeout=5 is the file x.db
    path = Path(parsed.database or "")
    if parsed.get_backend_name() != "sqlite" or not path.name or not path.is_file():
        return None  # PostgreSQL, or SQLite in memory: no file that another could open
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on Linux or macOS
        return None
    handle = path.open("rb")  # held till the process ends
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ZloutchError(
            f"--db {shown}: another zloutch serve uses this SQLite file; one process serves "
            "a SQLite file (several share a PostgreSQL database: docs/server.md)"
        ) from None
    return handle


def held_first(db: str | None) -> IO[bytes] | None:
    """``hold_sqlite`` of the file ``--db`` names, when it is a SQLite file that exists,
    before the store opens it; None otherwise (the store says what is wrong with the URL,
    and a new file is held once made)."""
    from sqlalchemy.exc import ArgumentError

    from zloutch.server.gamedb import default_url, hidden_password

    url = db or default_url()
    if "://" not in url:
        return None
    try:
        return hold_sqlite(url, hidden_password(url))
    except (ArgumentError, ValueError) as exc:  # not a URL SQLAlchemy reads: the store says
        from zloutch.rules import ZloutchError

        if isinstance(exc, ZloutchError):
            raise
        return None


MAX_EXPIRE_DAYS = 36_500
"""A hundred years: past it a date overflows (inf, 1e10 crashed with a traceback)."""


def serve(
    host: Annotated[
        str,
        typer.Option(
            metavar="ADDRESS", help="The address to listen on; 0.0.0.0 listens on every network."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(metavar="PORT", help="The port to listen on.")] = 8000,
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
            show_default="30",
            help="Unfinished games with no move for this long expire (0: never).",
        ),
    ] = 30.0,
    public_url: Annotated[
        str | None,
        typer.Option(
            "--public-url",
            metavar="URL",
            help=(
                "The address players open, for the invitations and watch links (a server "
                "behind a proxy: https://dice.example.org/); default: this machine's first "
                "network address when listening on every network, else --host."
            ),
            show_default=False,
        ),
    ] = None,
    access_log: Annotated[
        bool,
        typer.Option(
            "--access-log",
            help="Log every HTTP request and WebSocket opened (client, path, status), as "
            "uvicorn writes them; off: the games made, refused writes, expiries, the stop.",
        ),
    ] = False,
) -> None:
    """Serve games over the network: players join by link, the server throws the dice.

    It prints every address friends can open (each network address of this machine when
    listening on every network) and a QR code of the first, for a phone's camera."""
    from zloutch.rules import ZloutchError

    with user_errors():
        try:
            import uvicorn

            from zloutch.adapters.web.app import configure_logging, create_app
        except ImportError:
            raise ZloutchError(WEB_EXTRA) from None
        if not 0 < port < 65536:
            raise ZloutchError(f"--port {port}: a port is 1 to 65535")
        if not 0 <= expire_days <= MAX_EXPIRE_DAYS:  # NaN too: it compares false
            raise ZloutchError(
                f"--expire-days is 0 (never) to {MAX_EXPIRE_DAYS:,} days, not {expire_days:g}"
            )
        from datetime import timedelta

        expire = timedelta(days=expire_days) if expire_days else None
        urls = reachable_urls(host, port, network_addresses())
        shared = checked_public_url(public_url) if public_url else urls[0]
        listening = listen(host, port)  # before the database: a port taken is said at once
        try:
            # A SQLite file is held before anything opens it: a second server (a newer
            # version started by mistake) upgraded the file under the one serving it.
            held = held_first(db)
            application = create_app(db, expire_after=expire, public_url=shared)
            store = application.state.rooms.store
            application.state.sqlite_hold = held or hold_sqlite(store.url, store.safe_url)
        except BaseException:
            for sock in listening:
                sock.close()
            raise
    configure_logging()
    typer.echo(f"zloutch serve: games in {application.state.rooms.store.safe_url}")
    typer.echo(startup_text(host, urls, shared))
    # No per-message deflate: it compressed every frame for each socket apart (each has its own
    # zlib context), most of the CPU of a broadcast under load; the frames are a few kB.
    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        log_level="info" if access_log else "warning",
        access_log=access_log,
        log_config=None,  # uvicorn's lines in the server's own format, with their time
        ws="auto",
        ws_per_message_deflate=False,
    )
    _hang_up_stops()(config).run(sockets=listening)


def _hang_up_stops() -> type[Any]:
    """uvicorn's server, which stops cleanly on SIGINT and SIGTERM, stopping so on SIGHUP
    too: the hang-up of a shell closed (an SSH session) ended it at once, its moves waiting
    to be written refused. The process still ends with the signal's status (129)."""
    import contextlib
    import signal
    import threading
    from collections.abc import Iterator

    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():
                if (
                    threading.current_thread() is not threading.main_thread()
                    or not hasattr(signal, "SIGHUP")
                    or signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
                ):  # nohup, or a supervisor that ignores it: it keeps serving, as asked
                    yield
                    return
                # restored before uvicorn's own, which raises the signals it caught again
                # once the server has stopped: SIGHUP then ends the process as it would have
                original = signal.signal(signal.SIGHUP, self.handle_exit)
                try:
                    yield
                finally:
                    signal.signal(signal.SIGHUP, original)

    return Server


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


EVERY_NETWORK = ("0.0.0.0", "::", "")


def network_addresses() -> list[str]:
    """This machine's addresses on its networks (``ifaddr``), IPv4 first, loopback and
    link-local left out: the addresses a phone on the same network can open."""
    import ipaddress

    import ifaddr

    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            try:
                address = ipaddress.ip_address(text.split("%")[0])
            except ValueError:
                continue
            if address.is_loopback or address.is_link_local or address.is_unspecified:
                continue
            if str(address) not in found:
                found.append(str(address))
    return sorted(found, key=lambda a: (":" in a, found.index(a)))


def reachable_urls(host: str, port: int, addresses: list[str]) -> list[str]:
    """The links to the server that people can open: each network address when it listens
    on every network (``0.0.0.0``, ``::``), IPv6 ones only when it listens on ``::``; else
    its own address. Never ``0.0.0.0``: a phone cannot open it."""
    if host in EVERY_NETWORK:
        usable = [a for a in addresses if host == "::" or ":" not in a]
        if usable:
            return [shown_address(a, port) for a in usable]
        return [shown_address("127.0.0.1", port)]  # no network: this machine only
    return [shown_address(host, port)]


def checked_public_url(url: str) -> str:
    """``--public-url``: an http or https address, ending in ``/``."""
    from urllib.parse import urlsplit

    from zloutch.rules import ZloutchError

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ZloutchError(
            f"--public-url {url}: give the address players open, as in https://dice.example.org/"
        )
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        # the page asks for /static/, /api/ and /ws/ from the host's root: under a path a
        # proxy would send none of them to this server
        raise ZloutchError(
            f"--public-url {url}: the server is served at the root of an address, "
            f"not under a path: give {parts.scheme}://{parts.netloc}/"
        )
    return url if url.endswith("/") else url + "/"


def startup_text(host: str, urls: list[str], shared: str) -> str:
    """What ``zloutch serve`` says once it listens: the links to open, a QR code of the one
    the invitations use, and, when it listens on this machine alone, how to let friends in."""
    import segno

    local = host in ("127.0.0.1", "localhost", "::1")
    if local:
        lines = [f"Open {urls[0]} on this machine."]
        lines.append(
            "Only this machine can open it: zloutch serve --host 0.0.0.0 lets the phones of "
            "your network in."
        )
    else:
        lines = ["Open one of these on a phone or a computer on the same network:"]
        lines += [f"  {url}" for url in urls]
    if shared not in urls:
        lines.append(f"Invitations and watch links use {shared} (--public-url).")
    elif local:
        return "\n".join(lines)  # no phone opens this machine's own address: no QR code
    qr = segno.make(shared, error="m")
    buffer = io.StringIO()
    qr.terminal(out=buffer, compact=True, border=2)
    lines += [f"Scan to open {shared}:", buffer.getvalue().rstrip("\n")]
    return "\n".join(lines)


def shown_address(host: str, port: int) -> str:
    """The server's address as a link: ``http://[::1]:8000/`` for an IPv6 address."""
    name = f"[{host}]" if ":" in host else host or "0.0.0.0"
    return f"http://{name}:{port}/"
