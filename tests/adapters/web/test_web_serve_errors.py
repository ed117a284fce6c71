"""``zloutch serve``'s mistakes before it serves: one ``error:`` line and exit code 2, nothing
printed as if it served, nothing made on the disk."""

from __future__ import annotations

import socket
from pathlib import Path

from typer.testing import CliRunner

from zloutch.adapters.cli import app


def free_port() -> int:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        return int(free.getsockname()[1])


def serve(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["serve", *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_port_taken_is_one_error_line_before_any_serving_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        db = f"sqlite:///{tmp_path / 'games.sqlite'}"
        code, out, err = serve("--port", str(port), "--db", db)
    assert code == 2
    assert out == ""  # no "zloutch serve: http://..." line for a server that never served
    assert err.startswith(f"error: cannot listen on 127.0.0.1 port {port}: ")
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "games.sqlite").exists()  # said before the database is opened


def test_a_host_that_is_no_address_is_one_error_line() -> None:
    code, out, err = serve("--host", "999.1.1.1", "--port", "8000")
    assert (code, out) == (2, "")
    assert err.startswith("error: --host 999.1.1.1: not an address to listen on (")


def test_a_database_in_a_missing_folder_is_refused_not_made(tmp_path: Path) -> None:
    folder = tmp_path / "no" / "such"
    code, out, err = serve("--port", str(free_port()), "--db", f"sqlite:///{folder / 'x.db'}")
    assert (code, out) == (2, "")
    assert err == f"error: --db sqlite:///{folder / 'x.db'}: there is no folder {folder}\n"
    assert not (tmp_path / "no").exists()


def test_a_path_given_as_the_database_is_answered_with_its_url(tmp_path: Path) -> None:
    path = tmp_path / "games.db"
    code, out, err = serve("--port", str(free_port()), "--db", str(path))
    assert (code, out) == (2, "")
    assert f"not a database URL: sqlite:///{path.resolve()} keeps the games in that file" in err
    assert not path.exists()


def test_a_file_that_is_no_database_or_a_newer_one_is_one_error_line(tmp_path: Path) -> None:
    """A game record given as ``--db`` by mistake, or a database a newer version migrated:
    one line each (they printed SQLAlchemy's and Alembic's tracebacks), the record
    untouched."""
    import sqlite3

    record = tmp_path / "game.json"
    record.write_text('{"format": "zloutch-record"}\n')
    newer = tmp_path / "newer.sqlite"
    with sqlite3.connect(newer) as db:
        db.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
        db.execute("INSERT INTO alembic_version VALUES ('ffff0000ffff')")
    db.close()
    for path, reason in [
        (record, "file is not a database"),
        (newer, "Can't locate revision identified by 'ffff0000ffff' (a newer Zloutch's games?)"),
    ]:
        before = path.read_bytes()
        code, out, err = serve("--port", str(free_port()), "--db", f"sqlite:///{path}")
        assert (code, out) == (2, "")
        assert err == f"error: cannot open the database sqlite:///{path}: {reason}\n"
        assert path.read_bytes() == before or path == newer  # (in WAL mode now, as ours are)


def test_an_empty_host_listens_on_every_network_and_links_read_as_links() -> None:
    from zloutch.adapters.cli.serve import listen, shown_address

    port = free_port()
    sockets = listen("", port)
    try:
        bound = {sock.getsockname()[0] for sock in sockets}
        assert "0.0.0.0" in bound  # and "::" where the machine has IPv6
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # the listening socket accepts
    finally:
        for sock in sockets:
            sock.close()
    assert shown_address("::1", 8000) == "http://[::1]:8000/"
    assert shown_address("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    assert shown_address("", 8000) == "http://0.0.0.0:8000/"


def test_an_expiry_that_is_no_number_of_days_is_one_error_line(tmp_path: Path) -> None:
    """nan, inf and 1e10 crashed with a traceback (a date that overflows)."""
    db = f"sqlite:///{tmp_path / 'games.sqlite'}"
    for days in ("nan", "inf", "1e10", "-1"):
        code, out, err = serve("--expire-days", days, "--port", str(free_port()), "--db", db)
        assert (code, out) == (2, ""), err
        assert err.startswith("error: --expire-days is 0 (never) to 36,500 days, not "), err
        assert len(err.splitlines()) == 1
    assert not (tmp_path / "games.sqlite").exists()


def test_a_second_server_on_one_sqlite_file_is_refused(tmp_path: Path) -> None:
    """Two servers on one SQLite file both started, and a game's players split between
    them never heard each other's moves: the second is refused (once the first is gone,
    killed or stopped, the file is free again)."""
    from served import Server

    db = f"sqlite:///{tmp_path / 'games.sqlite'}"
    first = Server(db, log=tmp_path / "first.log")
    first.start()
    try:
        code, out, err = serve("--port", str(free_port()), "--db", db)
        assert (code, out) == (2, "")
        assert err.startswith(f"error: --db {db}: another zloutch serve uses this SQLite file")
        first.kill()
        again = Server(db, log=tmp_path / "again.log")
        again.start()  # the lock went with the process
        again.stop()
    finally:
        first.stop()


def test_a_database_zloutch_does_not_keep_games_in_is_named() -> None:
    """mysql:// answered "No module named 'MySQLdb'", as if a driver were missing."""
    code, out, err = serve("--port", str(free_port()), "--db", "mysql://u:p@127.0.0.1/games")
    assert (code, out) == (2, "")
    assert err.startswith("error: --db mysql://u:***@127.0.0.1/games: Zloutch keeps its games in ")
    assert err.rstrip().endswith("not mysql")


def test_the_sqlite_file_is_read_from_the_url_as_sqlalchemy_reads_it(tmp_path: Path) -> None:
    """sqlite:///:memory: and a URL with a query crashed with a traceback; a driver named
    in the URL (sqlite+pysqlite) went unheld."""
    import pytest

    from zloutch.adapters.cli.serve import hold_sqlite
    from zloutch.rules import ZloutchError

    assert hold_sqlite("sqlite:///:memory:", "memory") is None
    assert hold_sqlite("postgresql+psycopg://u:p@h/d", "pg") is None
    path = tmp_path / "g.db"
    path.write_bytes(b"")
    held = hold_sqlite(f"sqlite+pysqlite:///{path}?timeout=5", "shown")
    assert held is not None
    try:
        with pytest.raises(ZloutchError, match="another zloutch serve uses this SQLite file"):
            hold_sqlite(f"sqlite:///{path}", "shown")
    finally:
        held.close()
    again = hold_sqlite(f"sqlite:///{path}", "shown")  # free once the holder closed it
    assert again is not None
    again.close()


def test_a_database_url_is_shown_without_any_of_its_password() -> None:
    from zloutch.server.gamedb import hidden_password

    for url, shown in [
        ("mysql://bob:p@ss@db/x", "mysql://bob:***@db/x"),  # an "@" not escaped
        ("mysql://bob:pa/ss@db/x", "mysql://bob:***@db/x"),  # a "/" not escaped
        ("postgresql+asyncpg://u:pw@h/d", "postgresql+asyncpg://u:***@h/d"),
        ("postgresql://u@h/d", "postgresql://u@h/d"),
        ("sqlite:///x.db", "sqlite:///x.db"),
    ]:
        assert hidden_password(url) == shown


def test_a_database_in_memory_is_refused_it_would_keep_nothing() -> None:
    """sqlite:// started, answered /api/health, then every new game was a 503 ("no such
    table: games": each connection had a database of its own) with tracebacks."""
    for url in ("sqlite://", "sqlite:///:memory:", "sqlite:///file:x?mode=memory&uri=true"):
        code, out, err = serve("--port", str(free_port()), "--db", url)
        assert (code, out) == (2, ""), url
        assert err == (
            f"error: --db {url}: a SQLite database in memory keeps nothing (each connection of "
            "the server would see its own, empty, and every game would be lost when it "
            "stops): give a file, sqlite:///PATH\n"
        )


def test_a_password_with_an_at_or_a_slash_is_refused_before_any_of_it_is_shown() -> None:
    """SQLAlchemy read 'hunter@2/secret@host' as the host 2: the driver's error named
    0.0.0.2, a piece of the password, and the URL shown held another."""
    url = "postgresql://zlop:hunter@2/secret@127.0.0.1/zlop"
    code, out, err = serve("--port", str(free_port()), "--db", url)
    assert (code, out) == (2, "")
    assert "hunter" not in err and "secret" not in err and "0.0.0.2" not in err
    assert err.startswith("error: --db postgresql://zlop:***@127.0.0.1/zlop: the user or the ")
    assert "%40 and %2F" in err


def test_a_second_server_is_refused_before_it_opens_the_file(tmp_path: Path) -> None:
    """The file was held only once the store had opened (and upgraded) it: a newer version
    started beside a running server changed the schema under it. The file is held first."""
    import sqlalchemy as sa

    from zloutch.adapters.cli.serve import hold_sqlite

    path = tmp_path / "games.sqlite"
    path.write_bytes(b"")  # an empty file: any opening by a store would make its tables
    held = hold_sqlite(f"sqlite:///{path}", "shown")
    assert held is not None
    try:
        code, out, err = serve("--port", str(free_port()), "--db", f"sqlite:///{path}")
        assert (code, out) == (2, "")
        assert "another zloutch serve uses this SQLite file" in err
    finally:
        held.close()
    with sa.create_engine(f"sqlite:///{path}").connect() as conn:
        assert sa.inspect(conn).get_table_names() == []  # untouched


def test_a_hang_up_stops_the_server_as_sigterm_does(tmp_path: Path) -> None:
    """SIGHUP (the shell of an SSH session closed) ended the server at once, without its
    stop: it now stops as on SIGTERM (the moves waiting written, the "stopped" line), then
    ends with SIGHUP's status, as before."""
    import signal

    from served import Server

    server = Server(f"sqlite:///{tmp_path / 'games.sqlite'}", log=tmp_path / "server.log")
    server.start()
    try:
        created, _ = server.new_game()
        assert server.process is not None
        server.process.send_signal(signal.SIGHUP)
        assert server.process.wait(20) == -signal.SIGHUP
        assert "zloutch.serve stopped: " in server.read_log()
        server.start()  # the file free again, the game there
        assert server.get(f"/api/games/{created['game']}")["game"] == created["game"]
    finally:
        server.stop()


def test_the_access_log_names_each_request_with_its_status(tmp_path: Path) -> None:
    """--access-log: a line a request (client, method, path, status) in the server's own
    format; without it, none (the log was silent on every request, a bad one too)."""
    from served import Server

    for args, expected in ((("--access-log",), True), ((), False)):
        log = tmp_path / f"server{len(args)}.log"
        server = Server(f"sqlite:///{tmp_path / f'g{len(args)}.sqlite'}", log=log, args=args)
        server.start()
        try:
            assert server.get("/api/no-such-thing")["status"] == 404
        finally:
            server.stop()
        text = server.read_log()
        line = '"GET /api/no-such-thing HTTP/1.1" 404'
        assert ("uvicorn.access 127.0.0.1:" in text and line in text) is expected, text
        assert "zloutch.serve stopped: " in text


def test_a_server_whose_hang_up_is_ignored_keeps_serving(tmp_path: Path) -> None:
    """Under nohup (SIGHUP ignored) the server went on serving after a hang-up; catching
    SIGHUP to stop cleanly must not undo what nohup asked."""
    import signal

    from served import Server

    server = Server(f"sqlite:///{tmp_path / 'games.sqlite'}", log=tmp_path / "server.log")
    old = signal.signal(signal.SIGHUP, signal.SIG_IGN)  # inherited by the child, as nohup does
    try:
        server.start()
    finally:
        signal.signal(signal.SIGHUP, old)
    try:
        assert server.process is not None
        server.process.send_signal(signal.SIGHUP)
        import time

        time.sleep(1.0)
        assert server.process.poll() is None
        assert server.get("/api/health")["ok"] is True
    finally:
        server.stop()


def test_a_sqlite_path_with_an_at_sign_is_a_path(tmp_path: Path) -> None:
    """The check of a PostgreSQL password holding an '@' refused a SQLite folder named so."""
    from zloutch.server.gamedb import SqlStore

    folder = tmp_path / "club@home"
    folder.mkdir()
    store = SqlStore(f"sqlite:///{folder / 'games.sqlite'}")
    store.close()
    assert (folder / "games.sqlite").exists()
