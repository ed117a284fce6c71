"""Solved results kept on disk, keyed by the canonical rule spec and the solver version, and
the fast path's set-up (``cached_fast_games``), keyed by its version and the core's code too.

This is the edge of the program: the solvers are pure and return values; this module reads
and writes them. The folder is ``$ZLOUTCH_CACHE`` when set, else ``~/.cache/zloutch``.

The cache heals itself:

- a write goes to a temporary file in the same folder, synced, then renamed onto the entry
  (``os.replace``; ``app.files.atomic_file``, the one writer of every file the program
  keeps): a reader sees the old entry or the new one, whole, and two writers of the
  same entry both succeed. A write that fails (full disk, no permission) leaves no file
  behind; it is reported once per cache folder and the result is still returned.
- an entry carries its metadata: the format and its version, the rule key (``rules_key``),
  the solver version, the shape and type of each array, and a SHA-256 checksum of the
  payload. Every read checks all of them, and the values too (probabilities in [0, 1], no
  infinity); an entry that fails is reported (a ``CacheWarning``), removed, and treated as
  missing, so the caller computes it again.

Reports are ``warnings.warn(..., CacheWarning)``: the command line prints each as one
``warning: ...`` line on stderr (``zloutch.adapters.cli.support.warnings_as_lines``).
NumPy and the game solver are imported only by the functions that need them.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import warnings
from collections.abc import Callable, Mapping
from contextlib import suppress
from functools import lru_cache
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from zloutch.app.files import NotRegularFileError, UnwritableFileError, atomic_file, read_regular
from zloutch.rules.loader import to_toml
from zloutch.rules.ruleset import RuleSet

if TYPE_CHECKING:
    import numpy.typing as npt

    from zloutch.sim.fast import FastGames
    from zloutch.strategy.game_solver import GameSolution

JSON_FORMAT = "zloutch-result"
"""The format name of a JSON entry (the turn summaries)."""
GAME_FORMAT = "zloutch-game-table"
"""The format name of a solved game (an ``.npz`` file with a ``meta`` JSON string)."""
FORMAT_VERSION = 2
"""Version 1 was the entries without metadata; they are reported once and replaced."""
FAST_FORMAT = "zloutch-fast-tables"
"""The format name of the fast path's set-up (an ``.npz`` file with a ``meta`` JSON string)."""
GAME_ARRAYS = ("win", "counts", "numbers", "residual")
"""The arrays of a solved game, in the order of its checksum."""
_NUMBERS = ("unit", "target", "passes", "levels", "states", "margin", "low", "sweeps")
"""``numbers``: the integers of a ``GameSolution``, in this order."""


class CacheWarning(UserWarning):
    """A cache entry that could not be used (it is then computed again), or not be kept."""


class BadEntry(Exception):
    """Why an entry on disk cannot be used (its message says it in words)."""


_unwritable: set[str] = set()
"""The cache folders whose failure to write was reported (once per process)."""
_reported: set[tuple[object, ...]] = set()
"""Bad entries reported but not removed (an unwritable folder): not reported again."""


def cache_dir() -> Path:
    """Where results are kept."""
    configured = os.environ.get("ZLOUTCH_CACHE")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "zloutch"


def cache_path(kind: str, key: str, suffix: str = ".json") -> Path:
    """The file of one result: ``kind`` names the solver, ``key`` the rule spec and more."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:24]
    return cache_dir() / kind / f"{digest}{suffix}"


def rules_key(kind: str, version: int, rules: RuleSet) -> str:
    """A cache key: the spec for people, and the canonical file so that edits count."""
    digest = hashlib.sha256(to_toml(rules).encode()).hexdigest()[:16]
    return f"{kind}/v{version}/{rules.spec}/{digest}"


# ---------------------------------------------------------------------------- JSON entries


def cached_json(
    kind: str,
    key: str,
    compute: Callable[[], dict[str, Any]],
    *,
    version: int,
    check: Callable[[dict[str, Any]], str | None] | None = None,
    what: str = "result",
) -> tuple[dict[str, Any], bool]:
    """The stored result for ``key``, or ``compute()`` stored for next time.

    Returns the result and whether it came from the disk. ``version`` is the solver's,
    ``check(result)`` says what is wrong with a result read back (None: nothing), ``what``
    names the result in reports ("the turn summary of zilch"). Writing is best effort: a
    read-only disk costs the cache, never the answer.
    """
    path = cache_path(kind, key)
    found = _read(path)
    if found is not None:
        data, signature = found
        try:
            return _json_result(data, kind, key, version, check), True
        except BadEntry as problem:
            _drop(path, signature, f"the cached {what}", str(problem))
    result = compute()
    document = {
        "format": JSON_FORMAT,
        "format_version": FORMAT_VERSION,
        "kind": kind,
        "key": key,
        "solver_version": version,
        "sha256": _json_digest(result),
        "result": result,
    }
    text = json.dumps(document).encode("utf-8")
    _write_atomic(path, lambda handle: handle.write(text), f"the {what}")
    return result, False


def _json_digest(result: Any) -> str:
    canonical = json.dumps(result, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _json_result(
    data: bytes,
    kind: str,
    key: str,
    version: int,
    check: Callable[[dict[str, Any]], str | None] | None,
) -> dict[str, Any]:
    if not data:
        raise BadEntry("the file is empty")
    try:
        document = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise BadEntry(f"not readable JSON ({exc})") from None
    if not isinstance(document, dict):
        raise BadEntry("not a JSON object")
    _check_header(document, JSON_FORMAT, key, version)
    if document.get("kind") != kind:
        raise BadEntry(f"an entry of kind {document.get('kind')!r}, not {kind!r}")
    result = document.get("result")
    if not isinstance(result, dict):
        raise BadEntry("no result in it")
    if document.get("sha256") != _json_digest(result):
        raise BadEntry("its checksum does not match its content")
    problem = check(result) if check is not None else None
    if problem:
        raise BadEntry(problem)
    return result


def _check_header(meta: Mapping[str, Any], name: str, key: str, version: int) -> None:
    """The metadata every entry has: format, format version, rule key and solver version."""
    if meta.get("format") != name:
        raise BadEntry(f"not a {name} file (an older format?)")
    if meta.get("format_version") != FORMAT_VERSION:
        raise BadEntry(f"format version {meta.get('format_version')!r}, not {FORMAT_VERSION}")
    if meta.get("solver_version") != version:
        raise BadEntry(f"made by solver version {meta.get('solver_version')!r}, not {version}")
    if meta.get("key") != key:
        raise BadEntry(f"made for other rules ({meta.get('key')!r})")


# ---------------------------------------------------------------------------- solved games


def save_game_solution(solution: GameSolution) -> Path | None:
    """Keep a solved game on disk (compressed); None when the disk refuses (reported)."""
    import numpy as np

    from zloutch.strategy.game_solver import GAME_SOLVER_VERSION

    key = rules_key("game", GAME_SOLVER_VERSION, solution.rules)
    path = cache_path("game", key, ".npz")
    arrays = {
        "win": np.ascontiguousarray(solution.win, dtype=np.float64),
        # F-1: the whole table by farkles in a row (an empty array: no such rule).
        "counts": np.ascontiguousarray(
            solution.counts if solution.counts is not None else np.zeros(0), dtype=np.float64
        ),
        "numbers": np.asarray([getattr(solution, name) for name in _NUMBERS], dtype=np.int64),
        "residual": np.asarray(solution.residual, dtype=np.float64),
    }
    meta = {
        "format": GAME_FORMAT,
        "format_version": FORMAT_VERSION,
        "key": key,
        "rules": solution.rules.spec,
        "solver_version": GAME_SOLVER_VERSION,
        "arrays": _array_shapes(arrays, GAME_ARRAYS),
        "sha256": _arrays_digest(arrays),
    }
    buffer = io.BytesIO()
    entries: dict[str, Any] = {"meta": np.asarray(json.dumps(meta)), **arrays}
    np.savez_compressed(buffer, **entries)
    payload = buffer.getvalue()
    what = f"the solved game of {solution.rules.spec}"
    return path if _write_atomic(path, lambda handle: handle.write(payload), what) else None


def game_solution_cached(rules: RuleSet) -> bool:
    """Whether a solved game of ``rules`` is in the cache (not read: ``load_game_solution``
    reads and checks it)."""
    from zloutch.strategy.game_solver import GAME_SOLVER_VERSION

    key = rules_key("game", GAME_SOLVER_VERSION, rules)
    return cache_path("game", key, ".npz").is_file()


def load_game_solution(rules: RuleSet) -> GameSolution | None:
    """The solved game of a rule set, if this version saved it whole; else None.

    A damaged, forged or foreign entry is reported (``CacheWarning``), removed, and None.
    """
    from zloutch.strategy.game_solver import GAME_SOLVER_VERSION

    key = rules_key("game", GAME_SOLVER_VERSION, rules)
    path = cache_path("game", key, ".npz")
    found = _read(path)
    if found is None:
        return None
    data, signature = found
    try:
        return _game_solution(data, rules, key, GAME_SOLVER_VERSION)
    except BadEntry as problem:
        _drop(path, signature, f"the cached solved game of {rules.spec}", str(problem))
        return None


def _array_shapes(
    arrays: Mapping[str, npt.NDArray[Any]], names: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """What an entry's metadata says of each array: its shape and type."""
    return {
        name: {"shape": list(arrays[name].shape), "dtype": arrays[name].dtype.str} for name in names
    }


def _check_arrays(declared: Any, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
    """Each array as the metadata says (``_array_shapes``), else ``BadEntry``."""
    for name, shape in _array_shapes(arrays, tuple(arrays)).items():
        entry = declared.get(name) if isinstance(declared, dict) else None
        if entry != shape:
            raise BadEntry(f"{name} is not what its metadata says ({entry!r})")


def _arrays_digest(
    arrays: Mapping[str, npt.NDArray[Any]], names: tuple[str, ...] = GAME_ARRAYS
) -> str:
    """SHA-256 of each array's name, type, shape and bytes, in the order of ``names``."""
    import numpy as np

    digest = hashlib.sha256()
    for name in names:
        array = arrays[name]
        digest.update(f"{name}:{array.dtype.str}:{array.shape};".encode())
        # the bytes in place, not a copy (``tobytes``): 600 MB for dix-mille-6's tables
        if array.size:  # (an empty array has no bytes, and a view of it no cast)
            digest.update(np.ascontiguousarray(array).data.cast("B"))
    return digest.hexdigest()


def _game_solution(data: bytes, rules: RuleSet, key: str, version: int) -> GameSolution:
    import numpy as np

    from zloutch.strategy.game_solver import GameSolution

    if not data:
        raise BadEntry("the file is empty")
    if not data.startswith(b"PK\x03\x04"):
        raise BadEntry("not an .npz archive")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            names = set(archive.files)
            if "meta" not in names:
                raise BadEntry("no metadata in it (an older format)")
            missing = [name for name in GAME_ARRAYS if name not in names]
            if missing:
                raise BadEntry(f"arrays missing: {', '.join(missing)}")
            meta_text = str(archive["meta"])
            arrays = {name: archive[name] for name in GAME_ARRAYS}
    except BadEntry:
        raise
    except Exception as exc:  # whatever a damaged file raises: BadZipFile, zlib.error, EOF...
        raise BadEntry(f"truncated or damaged ({type(exc).__name__}: {exc})") from None
    try:
        meta = json.loads(meta_text)
    except ValueError:
        raise BadEntry("its metadata is not readable JSON") from None
    if not isinstance(meta, dict):
        raise BadEntry("its metadata is not a JSON object")
    _check_header(meta, GAME_FORMAT, key, version)
    declared = meta.get("arrays")
    _check_arrays(declared, arrays)
    if meta.get("sha256") != _arrays_digest(arrays):
        raise BadEntry("its checksum does not match its content")
    numbers = _checked_numbers(arrays, rules)
    win, counts = arrays["win"], arrays["counts"]
    return GameSolution(
        rules,
        numbers["unit"],
        numbers["target"],
        win,
        float(arrays["residual"]),
        numbers["passes"],
        numbers["levels"],
        numbers["states"],
        None,
        numbers["margin"],
        low=numbers["low"],
        counts=counts if counts.size else None,
        sweeps=numbers["sweeps"],
    )


def _checked_numbers(arrays: Mapping[str, npt.NDArray[Any]], rules: RuleSet) -> dict[str, int]:
    """Check the arrays against the rule set (shapes, types, ranges); return ``numbers``."""
    import numpy as np

    for name in GAME_ARRAYS:
        kind = "i" if name == "numbers" else "f"
        if arrays[name].dtype.kind != kind or arrays[name].dtype.itemsize != 8:
            raise BadEntry(f"{name} has type {arrays[name].dtype}")
    if arrays["numbers"].shape != (len(_NUMBERS),):
        raise BadEntry(f"numbers has shape {arrays['numbers'].shape}, not ({len(_NUMBERS)},)")
    numbers = {name: int(x) for name, x in zip(_NUMBERS, arrays["numbers"], strict=True)}
    target = -(-rules.game.target // rules.unit)
    if numbers["unit"] != rules.unit or numbers["target"] != target:
        raise BadEntry(
            f"unit {numbers['unit']} and target {numbers['target']}, not {rules.unit} and {target}"
        )
    if numbers["low"] > 0 or any(numbers[n] < 0 for n in _NUMBERS if n != "low"):
        raise BadEntry("negative counts in numbers")
    win, counts, residual = arrays["win"], arrays["counts"], arrays["residual"]
    if win.shape != (target, target):
        raise BadEntry(f"win has shape {win.shape}, not {(target, target)}")
    if rules.turn.farkle_penalty:
        k, n = rules.turn.farkle_penalty_after, target - numbers["low"]
        if counts.shape != (k, k, n, n):
            raise BadEntry(f"counts has shape {counts.shape}, not {(k, k, n, n)}")
        if not np.isfinite(counts).all() or ((counts < 0) | (counts > 1)).any():
            raise BadEntry("counts holds values that are not probabilities")
        if not np.array_equal(win, counts[0, 0, -numbers["low"] :, -numbers["low"] :]):
            raise BadEntry("win is not the slice of counts at no farkle")
    elif counts.size:
        raise BadEntry(f"counts has shape {counts.shape} for rules without F-1")
    known = win[~np.isnan(win)]  # NaN: a pair of scores no game reaches
    if np.isinf(known).any() or ((known < 0) | (known > 1)).any() or np.isnan(win[0, 0]):
        raise BadEntry("win holds values that are not probabilities")
    if residual.shape != ():
        raise BadEntry(f"residual has shape {residual.shape}, not ()")
    if not math.isfinite(float(residual)) or float(residual) < 0:
        raise BadEntry(f"residual {float(residual)} is not a finite number at least 0")
    return numbers


# ---------------------------------------------------------------------------- fast games


def cached_fast_games(
    rules: RuleSet, players: tuple[str, ...], build: Callable[[], FastGames]
) -> FastGames:
    """The fast path's set-up for ``rules`` and the line-up ``players`` (``FastGames``: the
    compiled turn, the end of the game and the bots' tables as the kernel reads them), kept
    from an earlier run, or ``build()`` kept for the next (``zloutch.sim.fast``'s
    ``FastGamesSource``).

    An entry is one compressed ``.npz`` file, without pickles (28 KB for farkle's bots, 0.8
    MB for dix-mille's experts, whose keep table is 74 MB): a JSON description
    (``FastGames.to_parts``) and the arrays, with the metadata and checksum of every entry.
    Each rule set and line-up has a folder, and in it one entry per version of the package's
    core code that made one (named by ``source_stamp``), the ``FAST_KEPT`` last used: two
    installed versions or two checkouts sharing the cache each read their own, and an edit
    builds a new one. An entry whose content says other code or another version made it is
    built again silently (that is no damage); a damaged one is reported, as every entry.
    """
    from zloutch.sim.fast import FAST_GAMES_VERSION

    names = ",".join(players)
    key = f"{rules_key('fast', FAST_GAMES_VERSION, rules)}/{names}"
    stamp = source_stamp()
    folder = cache_path("fast", key, "")
    path = folder / f"{stamp}.npz"
    found = _read(path)
    if found is not None:
        data, signature = found
        try:
            games = _fast_games(data, key, FAST_GAMES_VERSION, stamp)
        except BadEntry as problem:
            _drop(
                path, signature, f"the cached fast tables of {rules.spec} ({names})", str(problem)
            )
        else:
            if games is not None:
                with suppress(OSError):  # last used now (a read-only cache: no matter)
                    os.utime(path)
                return games
    games = build()
    layout, arrays = games.to_parts()
    order = tuple(sorted(arrays))
    meta = {
        "format": FAST_FORMAT,
        "format_version": FORMAT_VERSION,
        "key": key,
        "rules": rules.spec,
        "players": list(players),
        "solver_version": FAST_GAMES_VERSION,
        "source": stamp,
        "layout": layout,
        "arrays": _array_shapes(arrays, order),
        "sha256": _arrays_digest(arrays, order),
    }
    buffer = io.BytesIO()
    import numpy as np

    entries: dict[str, Any] = {"meta": np.asarray(json.dumps(meta)), **arrays}
    np.savez_compressed(buffer, **entries)
    payload = buffer.getvalue()
    what = f"the fast tables of {rules.spec} ({names})"
    if _write_atomic(path, lambda handle: handle.write(payload), what):
        _keep_last(folder, FAST_KEPT)
    return games


FAST_KEPT = 3
"""The fast path's entries kept per rule set and line-up: one per version of the code."""


def _keep_last(folder: Path, kept: int) -> None:
    """Remove all but the ``kept`` entries of ``folder`` used last (best effort)."""
    with suppress(OSError):
        entries = []
        for entry in folder.glob("*.npz"):
            with suppress(OSError):
                entries.append((entry.stat().st_mtime_ns, entry))
        for _, entry in sorted(entries, reverse=True)[kept:]:
            with suppress(OSError):
                entry.unlink()


def _fast_games(data: bytes, key: str, version: int, stamp: str) -> FastGames | None:
    """An entry's games; None where it was made by other code (``source_stamp``)."""
    import numpy as np

    from zloutch.sim.fast import FastGames

    if not data.startswith(b"PK\x03\x04"):
        raise BadEntry("not an .npz archive")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            if "meta" not in archive.files:
                raise BadEntry("no metadata in it")
            meta = json.loads(str(archive["meta"]))
            if not isinstance(meta, dict):
                raise BadEntry("its metadata is not a JSON object")
            if meta.get("source") != stamp or meta.get("solver_version") != version:
                return None  # made by other code: built again and replaced, no damage
            _check_header(meta, FAST_FORMAT, key, version)
            declared = meta.get("arrays")
            if not isinstance(declared, dict) or set(declared) != set(archive.files) - {"meta"}:
                raise BadEntry("its arrays are not those its metadata lists")
            arrays = {name: archive[name] for name in sorted(declared)}
    except BadEntry:
        raise
    except Exception as exc:  # whatever a damaged file raises: BadZipFile, EOF, JSON...
        raise BadEntry(f"truncated or damaged ({type(exc).__name__}: {exc})") from None
    _check_arrays(declared, arrays)
    if meta.get("sha256") != _arrays_digest(arrays, tuple(arrays)):
        raise BadEntry("its checksum does not match its content")
    try:
        return FastGames.from_parts(meta.get("layout"), arrays)
    except (ValueError, TypeError) as exc:
        raise BadEntry(f"its tables are not readable ({exc})") from None


@lru_cache(maxsize=1)
def source_stamp() -> str:
    """The package's version and core source files as installed now (each one's path, size
    and modification time; the way Numba keys its cache of compiled kernels): an entry
    built by other code, a later version or an edited checkout, is not read."""
    import zloutch

    return files_stamp(Path(zloutch.__file__).parent, zloutch.__version__)


CORE = ("rules", "engine", "strategy", "sim")
"""The folders of the package whose code makes the fast path's set-up."""


def files_stamp(root: Path, version: str) -> str:
    """``source_stamp`` of the package at ``root``."""
    digest = hashlib.sha256(version.encode())
    for folder in CORE:
        for source in sorted((root / folder).rglob("*.py")):
            info = source.stat()
            name = source.relative_to(root).as_posix()
            digest.update(f"{name}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()[:16]


# ---------------------------------------------------------------------------- the disk


MAX_ENTRY = 2 * 1024 * 1024 * 1024
"""Bytes of a cache entry read at most (the largest solved games are a few hundred MB)."""


def _read(path: Path) -> tuple[bytes, tuple[int, int, int]] | None:
    """The bytes of an entry and its (inode, size, mtime), or None when there is none.

    A missing entry, or a cache path under a file (an unusable ``ZLOUTCH_CACHE``), is
    silent: the write reports that. Another failure to read is reported once.
    """
    try:
        info = os.stat(path)
        data = read_regular(path, MAX_ENTRY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except NotRegularFileError as exc:  # a FIFO, a device, a link to one: replaced
        with suppress(OSError):
            path.unlink()
        _warn_once(
            ("not regular", str(path)),
            f"the cache entry {path} was {exc.strerror}: computing it again",
        )
        return None
    except OSError as exc:
        _warn_once(
            ("unreadable", str(path)),
            f"cannot read the cache entry {path} ({exc.strerror or exc}): computing it again",
        )
        return None
    return data, (info.st_ino, info.st_size, info.st_mtime_ns)


def _drop(path: Path, signature: tuple[int, int, int], what: str, problem: str) -> None:
    """Report a bad entry and remove it, unless another writer replaced it meanwhile."""
    with suppress(OSError):
        info = path.stat()
        if (info.st_ino, info.st_size, info.st_mtime_ns) == signature:
            path.unlink()
    _warn_once((str(path), *signature), f"{what} was dropped: {problem} ({path})")


def _warn_once(mark: tuple[object, ...], message: str) -> None:
    if mark in _reported:
        return
    _reported.add(mark)
    warnings.warn(message, CacheWarning, stacklevel=4)


def _write_atomic(path: Path, write: Callable[[IO[bytes]], object], what: str) -> bool:
    """Write an entry whole or not at all (``app.files.atomic_file``: a temporary file,
    fsync, rename); False: failed.

    A failure is reported once per cache folder per process; no temporary file stays.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(str(path)) as handle:
            write(handle)
    except (OSError, UnwritableFileError) as exc:
        reason = exc.reason if isinstance(exc, UnwritableFileError) else exc.strerror or exc
        root = str(cache_dir())
        if root not in _unwritable:
            _unwritable.add(root)
            warnings.warn(
                f"could not save {what} in the cache {root} ({reason}); going on without it",
                CacheWarning,
                stacklevel=3,
            )
        return False
    return True
