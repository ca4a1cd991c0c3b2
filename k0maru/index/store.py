"""The index, `<vault>/.k0maru/index.sqlite`: one `Store` over the per-concern `*_store` modules.

`Store` runs no SQL of its own; it opens the connection and combines the table families, so callers
keep writing `store.method(...)` whichever module holds the statement.
"""

from __future__ import annotations

import os
import time
from contextlib import ExitStack, suppress
from pathlib import Path

from k0maru.errors import IndexDiskFullError, IndexReadOnlyError, K0maruError
from k0maru.fsutil import ensure_state_dir
from k0maru.index import db
from k0maru.index.base_store import IndexConnection, db_path
from k0maru.index.bm25_merge import BM25_MERGE_FRACTION, BM25_MERGE_MIN, Bm25State
from k0maru.index.bm25_store import Bm25Store
from k0maru.index.chunk_store import ChunkStore, Passage
from k0maru.index.document_store import CachedDoc, DocRow
from k0maru.index.link_store import LinkStore
from k0maru.index.offload_store import OffloadStore
from k0maru.index.scan_store import ScanStore
from k0maru.index.schema import MIGRATIONS
from k0maru.index.vector_store import VectorStore

__all__ = [
    "BM25_MERGE_FRACTION",
    "BM25_MERGE_MIN",
    "Bm25State",
    "CachedDoc",
    "DocRow",
    "Passage",
    "SearchStore",
    "Store",
    "db_path",
]


class SearchStore(LinkStore, ChunkStore, Bm25Store, VectorStore):
    """What a query reads: notes, links, chunks, the BM25 segment and vectors (no offloads, no
    scans)."""


class Store(SearchStore, OffloadStore, ScanStore, IndexConnection):
    """Owns one connection to the index; every table family's methods and the connection's
    lifecycle (`IndexConnection`: close, migrations, the write-ahead log, checks), one object. A
    caller that needs fewer takes the narrower type (`OffloadStore`, `VectorStore`, `SearchStore`,
    ...), which has no lifecycle method."""

    @classmethod
    def open(
        cls,
        vault: Path,
        busy_timeout_ms: int = 10_000,
        create: bool = True,
        lean: bool = False,
        path: Path | None = None,
    ) -> Store:
        """The vault's index (`path`: another file of its state folder, a rebuild's new index)."""
        path = path or db_path(vault)
        if not path.exists() and not create:
            raise K0maruError(f"{path}: no index yet; run `k0maru scan` in the vault first")
        readonly = path.exists() and not (
            os.access(path.parent, os.W_OK) and os.access(path, os.W_OK)
        )
        stray = None
        if not readonly:
            _make_state_dir(vault, path)
            stray = db.set_aside_stray_wal(path)
        full: IndexDiskFullError | None = None
        try:
            conn = db.connect(path, busy_timeout_ms, readonly=readonly, lean=lean)
        except IndexDiskFullError as exc:  # no room for the write-ahead log's index: read as it is
            if not path.exists():
                raise
            full, readonly = exc, True
            conn = db.connect(path, busy_timeout_ms, readonly=True, lean=lean)
        store = cls(vault, conn, path, busy_timeout_ms / 1000)
        store.readonly = readonly
        store.readonly_why = full
        store.set_aside = [stray] if stray else []
        store.identity = db.file_identity(path)
        if not readonly:
            store.wal_identity = db.file_identity(path.with_name(path.name + "-wal"))
        store._migrate_or_close()
        return store

    def _migrate_or_close(self) -> None:
        """Bring the schema up to date (read-only: only refuse a newer one); the connection closed
        when that fails."""
        try:
            if not self.readonly or self.schema_version() > len(MIGRATIONS):
                self.migrate()  # read-only: raises, the schema is newer
        except db.DatabaseError as exc:
            self.close()
            error = db.translate_error(exc, self.path)
            if type(error) is K0maruError:  # a table there that its version says is to come
                what = " ".join(str(exc).split())[:80]
                error = db.corrupt_error(self.path, f"its tables do not match its version: {what}")
            raise error from exc
        except K0maruError:
            self.close()
            raise


def _make_state_dir(vault: Path, path: Path) -> None:
    """The vault's state folder, created where missing; an `IndexReadOnlyError` when it cannot
    be."""
    try:
        ensure_state_dir(vault)
    except OSError as exc:
        raise IndexReadOnlyError(
            f"{path.parent}: cannot create the index there ({exc.strerror}); make the folder writable"
        ) from None


def beside(path: Path) -> Path:
    """Where a rebuild builds the new index of the one at `path` (`<index>.new`), cleared of what a
    rebuild killed before its swap left there."""
    new = path.with_name(path.name + ".new")
    discard(new)
    return new


def discard(new: Path) -> None:
    """Remove a rebuild's new index that will not be swapped in, with its -wal and -shm."""
    for suffix in ("", "-wal", "-shm"):
        with suppress(OSError):  # a folder there: the build names it
            Path(f"{new}{suffix}").unlink()


def swap_in(new: Path, path: Path, label: str, old: Store | None = None) -> Path | None:
    """Put the whole index `new` (closed: no -wal of its own) at `path` in one rename; the index
    that was there, with its -wal and -shm, goes to `<path>.<label>-<time>` (returned; None when
    there was none). Made holding `old`'s write lock when it can be taken (a damaged file: as it
    is), so another process's write lands before the swap or, finding the file replaced, nowhere
    (`BaseStore.transaction`); a reader meanwhile reads the old index whole, then reopens."""
    db.settle(new)
    moved = path.with_name(f"{path.name}.{label}-{int(time.time())}") if path.exists() else None
    with ExitStack() as held:
        if old is not None:
            with suppress(K0maruError, db.DatabaseError):
                held.enter_context(old.transaction())
        if moved is not None:
            _keep_as(path, moved)
        for suffix in ("-wal", "-shm"):  # never adopted by the new index
            with suppress(FileNotFoundError):
                if moved is None:
                    os.unlink(f"{path}{suffix}")
                else:
                    os.rename(f"{path}{suffix}", f"{moved}{suffix}")
        os.replace(new, path)
    db.forget_corrupt(path)  # the damage a reader marked was the old file's
    return moved


def _keep_as(path: Path, moved: Path) -> None:
    """A second name for the index at `path`: the old index stays at `path` until the swap's one
    rename replaces it (a file system without hard links: moved now)."""
    try:
        os.link(path, moved)
    except OSError:
        os.rename(path, moved)
