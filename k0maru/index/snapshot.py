"""The walk snapshot that lets a scan with nothing to do stop after its walk.

A scan that walked the whole vault and left the index current (nothing skipped, BM25 merged) records
a fingerprint of what it walked (every indexed path with its mtime, size, ctime and inode), the
corpus version it left and what decides a scan's outcome (the scan settings, the parser version,
k0maru's version), and the folders it listed (each one's mtime and .gitignore, the names of the
files it took from it). The next scan stats those folders and files without listing any: one stat()
per file, as a walk; a folder whose mtime moved (a file added, removed or renamed in it) takes a
real walk. When all of that is unchanged, and no chunk waits for a vector where the caller would
embed it, it has nothing to do and returns without opening the index for writing, importing the
parser or recording a history row. When only files changed, in folders that did not (an edit in
place), the stat signatures kept beside the snapshot tell which: a query's index run reads those
files and walks nothing again (`known_walk`, `Walk`). The CLI's `scan` asks before importing the
index code; every other whole-vault index run (a server's rescan, a one-shot query's) asks in
`Vault.index`. Anything else, or any doubt (a missing, unreadable or locked file), takes the full
scan.

The index is read (corpus version, vector backlog) only when its files changed since a read last
found it as left: their stat (inode, size and mtime of the file and its write-ahead log), taken
before and after that read and recorded when equal, spares the next scans the SQLite import and the
query. The read goes through the same SQLite library as every other connection of the process
(`index/db.py`).
"""

from __future__ import annotations

import json
import os
from array import array

from k0maru import __version__
from k0maru.errors import K0maruError
from k0maru.fsutil import (
    atomic_write_bytes,
    atomic_write_text,
    check_state_file,
    digest,
    int64,
    read_bytes,
    stat_numbers,
    stat_signature,
)
from k0maru.index import PARSER_VERSION
from k0maru.layout import DB_FILE, STATE_DIR

TYPE_CHECKING = False  # as typing's (mypy reads it so): the no-change check imports no typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from k0maru.index.walker import Folder

FILE = "scan-snapshot.json"
SIGNATURES = "scan-snapshot.stat"  # the walk's stat signatures, four int64 a file, in its order


def scan_key(include: list[str], exclude: list[str], max_file_bytes: int) -> str:
    return json.dumps([__version__, PARSER_VERSION, include, exclude, max_file_bytes])


def save(
    root: Path,
    walked: str,
    folders: list[Folder],
    corpus_version: int,
    key: str,
    signatures: array[int],
) -> None:
    """Record a whole walk: the snapshot, and its files' stat signatures beside it (read only when
    files changed, to tell which)."""
    atomic_write_bytes(root / STATE_DIR / SIGNATURES, signatures.tobytes())
    atomic_write_text(
        root / STATE_DIR / FILE,
        json.dumps(
            {"walked": walked, "folders": folders, "corpus_version": corpus_version, "key": key}
        ),
    )


def forget(root: Path) -> None:
    (root / STATE_DIR / FILE).unlink(missing_ok=True)


class Walk:
    """A whole-vault walk known without listing a folder: no folder changed since the snapshot's
    walk, so its files are the same ones, and only `changed` stat signatures moved (an edit in
    place). A scan takes it instead of walking, and reads only those files
    (`IncrementalScanner.scan`). A plain class: a NamedTuple would import typing."""

    __slots__ = ("changed", "files", "walked", "signatures", "folders")

    def __init__(
        self,
        changed: list[str],
        files: int,
        walked: str,  # its fingerprint (`digest`) ...
        signatures: array[int],  # ... over these
        folders: list[Folder],
    ) -> None:
        self.changed, self.files, self.walked = changed, files, walked
        self.signatures, self.folders = signatures, folders


def unchanged_files(
    root: str | os.PathLike[str],
    include: list[str],
    exclude: list[str],
    max_file_bytes: int,
    embed: bool,
) -> int | None:
    """The number of files when a full scan would find nothing to do, else None."""
    known = known_walk(root, include, exclude, max_file_bytes, embed)
    return known if isinstance(known, int) else None


def known_walk(
    vault: str | os.PathLike[str],
    include: list[str],
    exclude: list[str],
    max_file_bytes: int,
    embed: bool,
) -> int | Walk | None:
    """The number of files when a full scan would find nothing to do; the walk itself when only
    files changed, in folders that did not; else None."""
    root = os.fspath(vault)  # paths as strings: no pathlib on this path
    snap = _snapshot(root)
    if snap is None:
        return None
    # the one read of the index before the walk: a moved corpus or a vector backlog needs no walk to
    # rule out; skipped when the index files are as they were the last time this read found it as
    # left
    index = _index_files(root)
    trusted = _index_unchanged(snap, index, embed)
    if snap.get("key") != scan_key(include, exclude, max_file_bytes) or not (
        trusted or _index_as_left(root, snap.get("corpus_version"), embed)
    ):
        return None
    found = _files_now(root, snap, include, exclude)
    if found is None or isinstance(found, Walk):
        return found
    files, update = found
    if not trusted and _index_files(root) == index:  # nothing wrote to the index while it was read
        update.update(index=index, vectors=embed)
    if update:
        _update(root, snap, update)
    return files


def _index_unchanged(snap: dict[str, Any], index: list[list[int] | None], embed: bool) -> bool:
    """Whether the index files are as they were when a check last found the index as the snapshot
    left it (with every vector, when embedding)."""
    return snap.get("index") == index and bool(snap.get("vectors") or not embed)


def _update(root: str, snap: dict[str, Any], update: dict[str, Any]) -> None:
    from contextlib import suppress
    from pathlib import Path

    with suppress(OSError):  # a read-only state folder: the next check does the same work again
        atomic_write_text(Path(root, STATE_DIR, FILE), json.dumps({**snap, **update}))


def _snapshot(root: str) -> dict[str, Any] | None:
    """The walk snapshot as saved, None when there is none or it is not JSON."""
    path = os.path.join(root, STATE_DIR, FILE)
    try:
        check_state_file(path)  # a symlink is not followed, a FIFO not opened
        snap: dict[str, Any] = json.loads(read_bytes(path))
    except (OSError, ValueError, K0maruError):
        return None
    return snap


def _files_now(
    root: str, snap: dict[str, Any], include: list[str], exclude: list[str]
) -> tuple[int, dict[str, Any]] | Walk | None:
    """With the index as the snapshot left it: (the number of files, what to update in the
    snapshot) when the vault is as the snapshot's walk found it; the walk when only files changed,
    in folders that did not; None when a walk finds something else."""
    folders = snap.get("folders")
    known = _known_files(root, folders)
    if known is None:  # a folder changed (a file added, removed or renamed, or of another kind)
        return _walked_again(root, snap, include, exclude)
    rels, signatures = known
    walked = digest(rels, signatures)
    if walked == snap.get("walked"):
        return len(rels), {}
    changed = _changed(root, rels, signatures, snap.get("walked"))
    if changed is None or not isinstance(folders, list):
        return None
    return Walk(changed, len(rels), walked, signatures, folders)


def _walked_again(
    root: str, snap: dict[str, Any], include: list[str], exclude: list[str]
) -> tuple[int, dict[str, Any]] | None:
    """A walk finds the same notes as the snapshot's: their number, with the folders it listed for
    the snapshot (the next check need not list them); None when it finds anything else."""
    from pathlib import Path

    from k0maru.index.walker import VaultWalker

    walker = VaultWalker(Path(root), include, exclude)
    files = sum(1 for _ in walker.walk(ordered=False))
    if walker.skips or walker.linked or walker.walked != snap.get("walked"):
        return None
    return files, {"folders": walker.folders}


def _changed(root: str, rels: list[str], now: array[int], walked: object) -> list[str] | None:
    """The files whose stat signature is not the one the snapshot's walk recorded (None when the
    signatures kept beside it are not that walk's)."""
    before = array("q")
    path = os.path.join(root, STATE_DIR, SIGNATURES)
    try:
        check_state_file(path)
        before.frombytes(read_bytes(path))
    except (OSError, ValueError, K0maruError):
        return None
    if len(before) != len(now) or digest(rels, before) != walked:
        return None
    return [
        rel for i, rel in enumerate(rels) if before[4 * i : 4 * i + 4] != now[4 * i : 4 * i + 4]
    ]


def _known_files(root: str, folders: object) -> tuple[list[str], array[int]] | None:
    """Without listing a folder: each file the snapshot's walk found and its stat signature (four
    numbers a file), when every folder it listed is as it was (its mtime, its .gitignore); None
    when a folder changed, a file is gone, or the snapshot has no folders: only a walk can tell."""
    if not isinstance(folders, list):
        return None
    rels: list[str] = []
    signatures = array("q")
    try:
        for rel_dir, mtime, rules, names in folders:
            if not _folder_files(os.path.join(root, rel_dir), mtime, rules, names, signatures):
                return None
            rels += [rel_dir + name for name in names]
    except (OSError, ValueError, TypeError):  # a file gone meanwhile, or a damaged snapshot
        return None
    return rels, signatures


def _folder_files(
    base: str, mtime: int | None, rules: list[int] | None, names: list[str], out: array[int]
) -> bool:
    """Add the stat signatures of a folder's files `names` to `out`, each stat()ed relative to the
    open folder (the kernel resolves the vault's path once a folder, not once a file); False when
    the folder's mtime or .gitignore moved."""
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if mtime is None or int64(os.fstat(fd).st_mtime_ns) != mtime:
            return False
        if stat_signature(os.path.join(base, ".gitignore")) != rules:
            return False
        for name in names:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            try:  # stat_numbers(st), inlined: this loop runs once a file of the vault
                out.extend((st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino))
            except OverflowError:  # a time past 2262 or a 64-bit inode: kept as the walk keeps it
                del out[len(out) - len(out) % 4 :]
                out.extend(stat_numbers(st))
    finally:
        os.close(fd)
    return True


def _index_files(root: str) -> list[list[int] | None]:
    """(inode, size, mtime) of the index file and its write-ahead log: any write changes one of them
    (not the ctime: SQLite changes the log's on every open)."""
    out: list[list[int] | None] = []
    for name in (DB_FILE, f"{DB_FILE}-wal"):
        try:
            st = os.stat(os.path.join(root, STATE_DIR, name))
        except OSError:
            out.append(None)
            continue
        out.append([st.st_ino, st.st_size, st.st_mtime_ns])
    return out


def _index_as_left(root: str, corpus_version: object, embed: bool) -> bool:
    """The index is still at the snapshot's corpus version, and (when embedding) every chunk has a
    vector."""
    from k0maru.index.db import index_as_left

    state = os.path.join(root, STATE_DIR)
    try:  # a symlink is not followed, a FIFO not opened (it would hang): the scan then refuses it
        for name in (DB_FILE, f"{DB_FILE}-wal", f"{DB_FILE}-shm"):
            check_state_file(os.path.join(state, name))
    except K0maruError:
        return False
    return index_as_left(os.path.join(state, DB_FILE), str(corpus_version), embed)
