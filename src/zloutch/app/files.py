"""Files the program writes for people: written whole or not at all, and checked before the work.

``write_atomically`` writes a file so that, whatever happens (a full disk, a file-size limit,
a signal, a kill), the file on disk is either the one before or the new one, whole: the text
goes to a temporary file in the same folder, flushed and synced, which then replaces the
file with ``os.replace`` (a temporary file that could not be finished is removed). Every
writer of game records goes through it, and the outputs that the commands write.

``read_regular`` reads a file the program is given (a record, a dice file, a result, a cache
entry) only when it is a regular file of bounded size: a FIFO would block its ``open``
forever and a link to ``/dev/zero`` would be read without end.

``check_writable`` answers, before a long piece of work, whether its output could be written:
a missing folder, a path under a regular file, a folder given as a file, ``/proc`` or
``/sys`` are refused at once with one sentence, instead of after the work is done.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from zloutch.rules import ZloutchError


class UnwritableFileError(ZloutchError):
    """A file that cannot be written where the user asked.

    ``reason`` says why: the system's own words (``No space left on device``), or the folder
    missing (``there is no folder saves``).
    """

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason or message


class NotRegularFileError(OSError):
    """A path that names no regular file (a FIFO, a device, a folder), or one too large."""


MAX_TEXT_FILE = 16 * 1024 * 1024
"""Bytes of a record, a dice file or a result that the commands read (a long game's record
is a few hundred kB)."""


def read_regular(path: str | Path, limit: int = MAX_TEXT_FILE) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; ``NotRegularFileError`` for
    anything else (asked before it is opened, and again on what was opened), ``OSError`` as
    the system says it."""
    mode = os.stat(path).st_mode  # through links: a link to /dev/zero is no regular file
    if not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise NotRegularFileError(0, what)
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # replaced meanwhile
            raise NotRegularFileError(0, "not a regular file")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise NotRegularFileError(0, f"larger than {limit // (1024 * 1024)} MB")
    return data


def shown(path: str) -> str:
    """A path as an error quotes it: as typed, or quoted when it holds unprintable characters."""
    return path if path.isprintable() else repr(path)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _write_reason(path: str, exc: OSError) -> str:
    """Why ``path`` cannot be written, as ``check_writable`` says it for a flag's file: the
    folder missing, or the file in the way of the folder, named; else the system's words.
    The folder is the one the file is written in (a link's target's), named as typed
    unless a link leads elsewhere."""
    if not isinstance(exc, FileNotFoundError | NotADirectoryError):
        return _reason(exc)
    folder = _real(path).parent
    typed = Path(path).parent
    if Path(os.path.abspath(typed)) != folder:
        typed = folder  # a link leads elsewhere: the folder it leads to
    above, named = folder, typed
    while not above.exists() and above != above.parent:
        above, named = above.parent, named.parent
    if above.exists() and not above.is_dir():
        return f"{shown(str(named))} is a file, not a folder"
    return f"there is no folder {shown(str(typed))}"


def _temporary_name(target: Path) -> Path:
    """A fresh hidden name beside ``target``: ``.game.json.1f2e3d4c.tmp``."""
    return target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")


def _real(path: str) -> Path:
    """The file a path names, through symbolic links (a link to a save stays a link)."""
    if "\0" in path:
        raise UnwritableFileError(f"cannot write {shown(path)}: a file name cannot hold a NUL byte")
    return Path(os.path.realpath(path))


@contextlib.contextmanager
def atomic_file(path: str) -> Iterator[BinaryIO]:
    """A binary file to write that replaces ``path`` only once it is whole and on the disk.

    Raises ``UnwritableFileError`` (one sentence) when the file cannot be written; the file
    that was there before is then left as it was. A path that names no regular file (a
    device such as ``/dev/null``, a pipe) cannot be replaced and is written in place.
    """
    target = _real(path)
    try:
        current = target.stat()
    except FileNotFoundError:
        current = None
    except OSError as exc:
        reason = _write_reason(path, exc)
        raise UnwritableFileError(f"cannot write {shown(path)}: {reason}", reason) from None
    if current is not None and stat.S_ISDIR(current.st_mode):
        raise UnwritableFileError(f"cannot write {shown(path)}: it is a folder")
    if current is not None and not stat.S_ISREG(current.st_mode):
        try:
            with open(target, "wb") as handle:
                yield handle
        except OSError as exc:
            raise UnwritableFileError(
                f"cannot write {shown(path)}: {_reason(exc)}", _reason(exc)
            ) from None
        return
    temporary = _temporary_name(target)
    try:
        # Created as any new file is (0666 less the umask), then given the old file's mode.
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:
        reason = _write_reason(path, exc)
        raise UnwritableFileError(f"cannot write {shown(path)}: {reason}", reason) from None
    try:
        with os.fdopen(descriptor, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if current is not None:
            os.chmod(temporary, stat.S_IMODE(current.st_mode))
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise UnwritableFileError(
                f"cannot write {shown(path)}: {_reason(exc)}", _reason(exc)
            ) from None
        raise
    sync_folder(target.parent)


def sync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every system can sync a folder)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def write_atomically(path: str, data: str | bytes) -> None:
    """Write a whole file (text is UTF-8) or leave the old one as it was; see ``atomic_file``."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with atomic_file(path) as handle:
        handle.write(payload)


_EXAMPLES = {"--csv": "out.csv", "--plot": "out.png", "--out": "out.png", "--record": "game.json"}
"""A file name to show in an error about a flag's file, by flag (else ``out.json``)."""


def check_writable(path: str, option: str) -> None:
    """Refuse, before any work, a path that ``write_atomically`` could not write.

    ``option`` names the flag in the error (``--json``): ``--json out/x.json: cannot write
    it: there is no folder out``. The check creates a temporary file in the target folder
    and removes it again, as the write will; an existing file is never opened for writing,
    let alone truncated. An existing device or pipe is checked for write permission only.
    """
    where = f"{option} {shown(path)}"
    example = _EXAMPLES.get(option, "out.json")
    if not path:
        raise UnwritableFileError(f"{option}: give a file name, as in {option} {example}")
    if "\0" in path:
        raise UnwritableFileError(f"{where}: a file name cannot hold a NUL byte")
    given = Path(path)
    if given.is_dir():
        raise UnwritableFileError(f"{where}: that is a folder; give a file name, as in {example}")
    target = _real(path)
    folder = target.parent
    if target.exists() and not target.is_file():  # a device, a pipe: written in place
        if not os.access(target, os.W_OK):
            raise UnwritableFileError(f"{where}: it cannot be written (permission denied)")
        return
    if not folder.exists():
        raise UnwritableFileError(f"{where}: cannot write it: there is no folder {given.parent}")
    if not folder.is_dir():
        raise UnwritableFileError(
            f"{where}: cannot write it: {given.parent} is a file, not a folder"
        )
    if target.exists():
        if not os.access(target, os.W_OK):
            raise UnwritableFileError(f"{where}: the file cannot be written (permission denied)")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise UnwritableFileError(f"{where}: the folder {given.parent} cannot be written to")
    probe = _temporary_name(target)
    try:
        descriptor = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise UnwritableFileError(
            f"{where}: cannot write a file in {folder} ({_reason(exc)})"
        ) from None
    os.close(descriptor)
    with contextlib.suppress(OSError):
        os.unlink(probe)
