"""SQLite connection route: an SQLite that can load sqlite-vec, WAL, busy timeout.

The stdlib `sqlite3` of many Python builds (pyenv, some distros) lacks
`enable_load_extension`. We prefer `pysqlite3` (pysqlite3-binary bundles a
recent SQLite with extension loading) and fall back to the stdlib module when
it can load extensions. `sqlite_route()` names the one in use.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import stat
import sys
import time
from contextlib import suppress
from functools import lru_cache

from k0maru.errors import (
    IndexCorruptError,
    IndexDiskFullError,
    IndexLockedError,
    IndexReadOnlyError,
    K0maruError,
)
from k0maru.fsutil import check_state_file

TYPE_CHECKING = False  # as typing's (mypy reads it so): the walk snapshot's look at the index
if TYPE_CHECKING:  # (`index_as_left`) imports neither typing nor pathlib
    from collections.abc import Callable
    from pathlib import Path
    from types import ModuleType
    from typing import Any, TypeVar

    T = TypeVar("T")


def _pick_module() -> tuple[ModuleType, str]:
    try:
        mod = importlib.import_module("pysqlite3.dbapi2")
        return mod, "pysqlite3"
    except ImportError:
        pass
    import sqlite3

    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3, "stdlib sqlite3"
    raise K0maruError(
        "this Python's sqlite3 cannot load extensions and pysqlite3 is missing; "
        "run `pip install pysqlite3-binary` (Linux x86-64) or use a Python built with loadable extensions"
    )


sqlite3, ROUTE = _pick_module()
Connection = sqlite3.Connection
DatabaseError = sqlite3.DatabaseError
OperationalError = sqlite3.OperationalError


@lru_cache(maxsize=1)
def vec_extension_path() -> str:
    """The sqlite-vec loadable extension shipped in the sqlite-vec wheel.

    Located without importing `sqlite_vec`, whose module imports numpy for type hints: a slow import
    that every git hook would pay."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        raise K0maruError("sqlite-vec is not installed; run `pip install sqlite-vec`")
    return os.path.join(next(iter(spec.submodule_search_locations)), "vec0")


def sqlite_route() -> str:
    """E.g. 'pysqlite3 (SQLite 3.51.1) + sqlite-vec v0.1.9'."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.enable_load_extension(True)
        conn.load_extension(vec_extension_path())
        vec = conn.execute("SELECT vec_version()").fetchone()[0]
    finally:
        conn.close()
    return f"{ROUTE} (SQLite {sqlite3.sqlite_version}) + sqlite-vec {vec}"


def index_as_left(path: str | os.PathLike[str], corpus_version: str, embed: bool) -> bool:
    """Whether the index at `path` is at `corpus_version` with (when `embed`) a vector for every
    chunk, read without a `Store`: no migration, no sqlite-vec, no wait longer than 0.2 s for a
    lock (the walk snapshot's look, index/snapshot.py)."""
    # the library every other connection of this process uses (this module's route): closing a file
    # that a second SQLite library opened drops every POSIX lock the process holds on it, and a
    # one-shot command would then delete the write-ahead log under a running server
    for part in (path, f"{path}-wal"):
        check_state_file(part)  # a symlink is never followed, a FIFO never waited on
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.2)
    except sqlite3.Error:
        return False
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'corpus_version'").fetchone()
        if row is None or str(row[0]) != corpus_version:
            return False
        return not (
            embed and conn.execute("SELECT 1 FROM chunks WHERE embedded = 0 LIMIT 1").fetchone()
        )
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at `path`, None when there is none: a connection opened on it
    holds that file, whatever is at the path later (a rebuild's move, a person's `rm`)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


MMAP_BYTES = 256 * 1024 * 1024
last_opened: Path | None = None  # named in errors that surface outside a store call


def connect(
    path: Path, busy_timeout_ms: int = 10_000, readonly: bool = False, lean: bool = False
) -> Any:
    """Open the index with sqlite-vec loaded, WAL journaling and foreign keys on. The file is read
    through mmap (a query scans every vector) with a 32 MB page cache; `lean` (the embedding worker)
    maps nothing and caches 8 MB: the pages it touches would only add to its resident memory, as
    would the cache filling up while vectors are written."""
    global last_opened
    last_opened = path
    for part in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        check_state_file(part)  # a symlink is never followed, a FIFO never waited on
    try:
        if readonly:
            # immutable: a WAL index in a folder nobody can write to has no -shm to coordinate
            # through
            conn = sqlite3.connect(
                f"file:{path}?mode=ro&immutable=1",
                uri=True,
                timeout=busy_timeout_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        else:
            conn = sqlite3.connect(
                str(path),
                timeout=busy_timeout_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        conn.enable_load_extension(True)
        conn.load_extension(vec_extension_path())
        conn.enable_load_extension(False)
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if not readonly:
            retry_locked(
                lambda: conn.execute("PRAGMA journal_mode = WAL"), path, busy_timeout_ms / 1000
            )
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute(f"PRAGMA cache_size = {-8000 if lean else -32000}")
        conn.execute(f"PRAGMA mmap_size = {0 if lean else MMAP_BYTES}")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # a garbled schema's own message
        raise translate_error(exc, path) from exc
    return conn


WAL_MAGIC = (0x377F0682, 0x377F0683)  # a write-ahead log's first 4 bytes (big-endian)
WAL_HEADER, FRAME_HEADER = 32, 24  # the log's header, then each frame's (its salts at 8..16)


def stray_wal(path: Path) -> str | None:
    """Why the write-ahead log beside the index at `path` is none of this index's, None when it
    may be (or there is none). SQLite replays any log whose frames match its own header into the
    database beside it, whichever database wrote it. Its connections remove the log and its
    shared-memory file together on close and a crash leaves both, so a log without that file was
    left by no connection of this index: copied in, or its -shm deleted. A log too short to hold a
    frame replays nothing."""
    wal = path.with_name(path.name + "-wal")
    if os.path.lexists(path.with_name(path.name + "-shm")):
        return None  # open somewhere now, or left by a crash: SQLite recovers it
    check_state_file(wal)  # a FIFO is never opened
    try:
        with open(wal, "rb") as f:
            head = f.read(WAL_HEADER + FRAME_HEADER)
    except OSError:
        return None
    if len(head) < WAL_HEADER + FRAME_HEADER:
        return None
    if int.from_bytes(head[:4], "big") not in WAL_MAGIC:
        return "it is not a write-ahead log"
    if head[16:24] != head[WAL_HEADER + 8 : WAL_HEADER + 16]:
        return "its frames do not match its header"
    return (
        "its shared-memory file is missing: another database's log, or one whose -shm was deleted"
    )


def set_aside_stray_wal(path: Path) -> str | None:
    """Move a write-ahead log that is none of this index's (`stray_wal`) aside, as
    `<index>-wal.stray-<time>`, before SQLite opens the index and replays it; the line saying so,
    None when nothing was moved."""
    why = stray_wal(path)
    if why is None:
        return None
    wal = path.with_name(path.name + "-wal")
    aside = wal.with_name(f"{wal.name}.stray-{int(time.time())}")
    try:
        os.rename(wal, aside)
    except OSError:  # another process moved it first, or the folder is read-only
        return None
    return (
        f"set aside a write-ahead log that is not this index's ({why}) as {aside.name}; "
        "notes it may have held are indexed again"
    )


def settle(path: Path) -> None:
    """Merge what the write-ahead log of the index at `path` holds into its file, which then stands
    alone (a rebuild's new index, about to be renamed: a log left beside it would be lost)."""
    conn = connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    if os.path.exists(f"{path}-wal"):
        raise K0maruError(f"{path}: still open elsewhere, not renamed into place")


CORRUPT_MARK = "index-corrupt"  # beside the index: a reader found it damaged (see corrupt_error)
_VECTOR_DAMAGE = re.compile(  # sqlite-vec's words for stored vectors it cannot read back
    r"could not fetch vector data|could not find a row with rowid|blob read error"
    r"|(?:validity|rowids|vectors?) (?:blob )?size (?:doesn't match|mismatch)",
    re.I,
)


# SQLite's primary result codes (the low byte of an extended code, e.g. SQLITE_BUSY_SNAPSHOT)
SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR = 5, 6, 8, 10
SQLITE_CORRUPT, SQLITE_FULL, SQLITE_NOTADB = 11, 13, 26
# damage reported with no code of its own (SQLITE_ERROR, or Python's and sqlite-vec's words)
_UNCODED_DAMAGE = re.compile(
    r"Could not decode to UTF-8"  # a text cell's bytes damaged
    r"|no such table"  # a table of the schema is gone
    r"|" + _VECTOR_DAMAGE.pattern,
    re.I,
)


def sqlite_code(exc: BaseException) -> int | None:
    """The primary SQLite result code an exception carries, None when it carries none (one Python
    or an extension raised)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_busy(exc: BaseException) -> bool:
    """Whether SQLite reports the database busy or locked (another connection holds it)."""
    return sqlite_code(exc) in (SQLITE_BUSY, SQLITE_LOCKED)


def translate_error(exc: Exception, path: Path | str) -> K0maruError:
    """Turn an SQLite exception into a one-line, actionable error naming the file."""
    text = " ".join(str(exc).split())[:200]
    if isinstance(exc, UnicodeDecodeError):  # SQLite's text (a name in the schema) is garbled bytes
        return corrupt_error(path, "its text does not decode as UTF-8")
    if os.path.isdir(path):
        return K0maruError(
            f"{path} is a folder, not an index",
            hint="move it aside, then run `k0maru scan --rebuild`",
        )
    code = sqlite_code(exc)
    by_code = _BY_CODE.get(code)
    if by_code is not None:
        return by_code(path, text)
    if _UNCODED_DAMAGE.search(text):
        return corrupt_error(path, text)
    if code == SQLITE_IOERR and lost_log(path):
        return _lost_log_error(path)
    if code == SQLITE_IOERR and disk_full(path):
        return _disk_full(path, text)
    return K0maruError(f"{path}: SQLite error: {text}")


def _locked(path: Path | str, text: str) -> K0maruError:
    return IndexLockedError(
        f"{path}: index is locked by another k0maru process", hint="retry in a moment"
    )


def _readonly(path: Path | str, text: str) -> K0maruError:
    return IndexReadOnlyError(
        f"{path}: the index cannot be written ({text})", hint="make .k0maru/ writable"
    )


def _disk_full(path: Path | str, text: str) -> K0maruError:
    return IndexDiskFullError(
        f"{path}: the disk is full ({text})",
        hint="free some space, then run `k0maru scan` (searches answer from the index as it is)",
    )


_BY_CODE: dict[int | None, Callable[[Path | str, str], K0maruError]] = {
    SQLITE_BUSY: _locked,
    SQLITE_LOCKED: _locked,
    SQLITE_READONLY: _readonly,
    SQLITE_CORRUPT: lambda path, text: corrupt_error(path, text),
    SQLITE_NOTADB: lambda path, text: corrupt_error(path, text),
    SQLITE_FULL: _disk_full,
}


def disk_full(path: Path | str) -> bool:
    """Whether the filesystem holding `path` has less than 1 MiB left for this user."""
    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 1 << 20


def lost_log(path: Path | str) -> bool:
    """Whether the write-ahead log of the index at `path` was deleted or cut under a process that
    holds the index: the shared memory it keeps counts more frames than the log holds. The pages
    SQLite then cannot read are missing, not damaged (that process still has them)."""
    shm, wal = f"{path}-shm", f"{path}-wal"
    try:
        if not stat.S_ISREG(os.lstat(shm).st_mode):
            return False
        with open(shm, "rb") as f:
            head = f.read(24)
        size = os.lstat(wal).st_size if os.path.lexists(wal) else 0
    except OSError:
        return False
    if len(head) < 24:
        return False
    page = int.from_bytes(head[14:16], sys.byteorder)  # the wal-index header, native order
    page = 65536 if page == 1 else page
    frames = int.from_bytes(head[16:20], sys.byteorder)
    return frames > 0 and page >= 512 and size < WAL_HEADER + frames * (page + FRAME_HEADER)


def _lost_log_error(path: Path | str) -> IndexCorruptError:
    return IndexCorruptError(
        f"{path}: its write-ahead log was deleted or cut while another k0maru process "
        "(`k0maru ui`, `k0maru mcp`, a worker) holds the index",
        hint="restart that process: it writes what the log held into the index, which is not "
        "damaged (do not rebuild it)",
        damage="its write-ahead log was deleted under a process that holds it",
    )


def corrupt_error(path: Path | str, detail: str) -> IndexCorruptError:
    """The one corrupt-index line, whatever found the damage. The finding is kept beside the index
    (`CORRUPT_MARK`, naming the file's inode), so writers stop on it too until a rebuild replaces
    the file. Pages missing from a log deleted under a process that holds it are no damage: that
    is said instead, and nothing kept."""
    if lost_log(path):
        return _lost_log_error(path)
    error = IndexCorruptError(
        f"{path}: index is corrupt ({detail})",
        hint="run `k0maru scan --rebuild` (your notes are untouched)",
        damage=detail,
    )
    with suppress(OSError, ValueError):
        inode = os.stat(path).st_ino
        fields = "\n".join(" ".join(f.split()) for f in (error.reason, error.hint, detail))
        mark = os.path.join(os.path.dirname(path), CORRUPT_MARK)
        with open(mark, "w", encoding="utf-8") as fh:
            fh.write(f"{inode}\n{fields}\n")
    return error


def forget_corrupt(path: Path) -> None:
    """Drop the mark `corrupt_error` left: the file was checked again and what it named repaired."""
    with suppress(OSError):
        path.with_name(CORRUPT_MARK).unlink()


def known_corrupt(path: Path) -> IndexCorruptError | None:
    """The corruption a reader found in this very index file (not one a rebuild has since
    replaced). The mark holds the inode, then the error's reason, hint and damage a line each (a
    mark written before these fields: the whole message on one line)."""
    try:
        inode, reason, *more = path.with_name(CORRUPT_MARK).read_text(encoding="utf-8").split("\n")
        if int(inode) == os.stat(path).st_ino:
            hint, damage = (more + ["", ""])[:2]
            return IndexCorruptError(reason.strip(), hint=hint.strip(), damage=damage.strip())
    except (OSError, ValueError):
        pass
    return None


def retry_locked(fn: Callable[[], T], path: Path, wait_s: float = 10.0) -> T:
    """Run `fn`, retrying with backoff while SQLite reports the database busy or locked, for
    `wait_s` seconds in all (each try also waits out SQLite's own busy timeout)."""
    deadline = time.monotonic() + wait_s
    delay = 0.05
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() + delay > deadline:
                raise translate_error(exc, path) from exc
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
