"""The one-file index: `<vault>/.k0maru/index.sqlite`. Schema migrations, documents, chunks, links."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from k0maru.errors import IndexNewerError, IndexReadOnlyError, K0maruError
from k0maru.fsutil import ensure_state_dir
from k0maru.index import db
from k0maru.index.markdown import Chunk, Link
from k0maru.index.schema import MIGRATIONS
from k0maru.layout import DB_FILE, STATE_DIR


@dataclass(frozen=True, slots=True)
class CachedDoc:
    id: int
    mtime_ns: int
    size: int
    xxh3_64: str


@dataclass(frozen=True, slots=True)
class DocRow:
    id: int
    path: str
    title: str
    frontmatter: dict[str, Any]
    body: str
    mtime_ns: int
    size: int


def db_path(vault: Path) -> Path:
    return vault / STATE_DIR / DB_FILE


_PASSAGE = "heading, text, section, line_start, line_end"


@dataclass(frozen=True, slots=True)
class Passage:
    """One chunk as an answer shows it: its heading, text, heading path and file lines."""

    heading: str
    text: str
    section: str
    line_start: int
    line_end: int


BM25_MERGE_MIN = 2_000  # a BM25 delta below this many chunks is never merged ...
BM25_MERGE_FRACTION = 0.10  # ... nor one below this fraction of the main segment


@dataclass(frozen=True, slots=True)
class Bm25State:
    """The persisted BM25 main segment: built at `version` over `chunks` chunks up to id `max_chunk_id`;
    `backlog` = chunks added or deleted since (0 when the corpus has not moved)."""

    version: int
    max_chunk_id: int
    chunks: int
    backlog: int

    @property
    def merge_due(self) -> bool:
        """Whether the delta has grown enough to fold into a rebuilt main segment (decided here, from two
        rows, so a scan that finds no merge due loads nothing of the lexical index)."""
        return self.backlog > max(BM25_MERGE_MIN, int(self.chunks * BM25_MERGE_FRACTION))


class Store:
    """Owns one connection to the index; all of k0maru's SQL lives here."""

    def __init__(self, vault: Path, conn: Any, path: Path, wait_s: float = 10.0):
        self.vault = vault
        self.conn = conn
        self.path = path
        self.wait_s = wait_s  # how long a write waits for another process's lock, in all
        self.readonly = False  # the state folder or file is not writable: reads only

    # ---- lifecycle -------------------------------------------------------------------------
    @classmethod
    def open(
        cls, vault: Path, busy_timeout_ms: int = 10_000, create: bool = True, lean: bool = False
    ) -> Store:
        path = db_path(vault)
        if not path.exists() and not create:
            raise K0maruError(f"{path}: no index yet; run `k0maru scan` in the vault first")
        readonly = path.exists() and not (
            os.access(path.parent, os.W_OK) and os.access(path, os.W_OK)
        )
        if not readonly:
            try:
                ensure_state_dir(vault)
            except OSError as exc:
                raise IndexReadOnlyError(
                    f"{path.parent}: cannot create the index there ({exc.strerror}); "
                    "make the folder writable"
                ) from None
        conn = db.connect(path, busy_timeout_ms, readonly=readonly, lean=lean)
        store = cls(vault, conn, path, busy_timeout_ms / 1000)
        store.readonly = readonly
        try:
            if not readonly:
                store.migrate()
            elif store.schema_version() > len(MIGRATIONS):
                store.migrate()  # raises: newer schema
        except db.DatabaseError as exc:
            conn.close()
            raise db.translate_error(exc, path) from exc
        except K0maruError:
            conn.close()
            raise
        return store

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def schema_version(self) -> int:
        row = self.conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name='schema_version'"
        ).fetchone()
        if not row:
            return 0
        return int(
            self.conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()[0]
        )

    def migrate(self) -> None:
        """Bring the schema up to this version's; an index from a newer k0maru is refused, never written."""
        found = self.schema_version()
        if found > len(MIGRATIONS):
            raise IndexNewerError(
                f"{self.path}: this index was written by a newer k0maru (schema {found}, this one "
                f"knows {len(MIGRATIONS)}); upgrade k0maru or run `k0maru scan --rebuild`"
            )
        if found == len(MIGRATIONS):
            return
        with self.transaction():
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
            )
            current = self.schema_version()
            for version, script in enumerate(MIGRATIONS[current:], start=current + 1):
                for statement in _split_sql(script):
                    self.conn.execute(statement)
                self.conn.execute(
                    "INSERT INTO schema_version VALUES (?, ?)", (version, time.time())
                )

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """BEGIN IMMEDIATE (retrying while another writer holds the lock) ... COMMIT, or ROLLBACK."""
        self.require_writable()
        db.retry_locked(lambda: self.conn.execute("BEGIN IMMEDIATE"), self.path, self.wait_s)
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            db.retry_locked(lambda: self.conn.execute("COMMIT"), self.path, self.wait_s)

    def require_writable(self) -> None:
        if self.readonly:
            raise IndexReadOnlyError(
                f"{self.path}: the index is read-only here (its folder or file is not "
                "writable); reads work, to update it make .k0maru/ writable (chmod u+w)"
            )

    # ---- meta ------------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def corpus_version(self) -> int:
        return int(self.get_meta("corpus_version", "0") or 0)

    def bump_corpus_version(self) -> None:
        self.set_meta("corpus_version", str(self.corpus_version() + 1))

    # ---- documents -------------------------------------------------------------------------
    def cached_documents(self, paths: Iterable[str] | None = None) -> dict[str, CachedDoc]:
        """path -> what the index knows of it; all documents, or just `paths` (the git hook's few files)."""
        sql = "SELECT id, path, mtime_ns, size, xxh3_64 FROM documents"
        if paths is None:
            rows = self.conn.execute(sql).fetchall()
        else:
            wanted = list(paths)
            rows = []
            for start in range(0, len(wanted), 500):
                part = wanted[start : start + 500]
                rows += self.conn.execute(
                    f"{sql} WHERE path IN ({','.join('?' * len(part))})", part
                ).fetchall()
        return {
            path: CachedDoc(doc_id, mtime, size, digest)
            for doc_id, path, mtime, size, digest in rows
        }

    def upsert_document(
        self,
        path: str,
        mtime_ns: int,
        size: int,
        digest: str,
        title: str,
        stem: str,
        frontmatter: dict[str, Any],
        body: str,
        doc_id: int | None,
        kind: str | None = None,
        note_date: float | None = None,
    ) -> int:
        fm = json.dumps(frontmatter, default=str, ensure_ascii=False)
        now = time.time()
        if doc_id is None:
            cur = self.conn.execute(
                "INSERT INTO documents(path, mtime_ns, size, xxh3_64, title, stem, frontmatter, body, indexed_at,"
                " kind, note_date) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (path, mtime_ns, size, digest, title, stem, fm, body, now, kind, note_date),
            )
            return int(cur.lastrowid)
        self.conn.execute(
            "UPDATE documents SET mtime_ns=?, size=?, xxh3_64=?, title=?, stem=?, frontmatter=?, body=?, indexed_at=?,"
            " kind=?, note_date=? WHERE id=?",
            (mtime_ns, size, digest, title, stem, fm, body, now, kind, note_date, doc_id),
        )
        return doc_id

    def set_tags(self, doc_id: int, tags: Iterable[str], new: bool = False) -> None:
        if not new:
            self.conn.execute("DELETE FROM tags WHERE doc_id = ?", (doc_id,))
        self.conn.executemany(
            "INSERT OR IGNORE INTO tags(doc_id, tag) VALUES (?, ?)", [(doc_id, t) for t in tags]
        )

    def tags_of(self, doc_id: int) -> list[str]:
        return [
            t
            for (t,) in self.conn.execute(
                "SELECT tag FROM tags WHERE doc_id = ? ORDER BY tag", (doc_id,)
            )
        ]

    def filter_documents(
        self,
        path_prefix: str | None = None,
        tag: str | None = None,
        kind: str | None = None,
        since: float | None = None,
        until: float | None = None,
    ) -> set[int]:
        """Ids of the notes under `path_prefix`, tagged `tag` (or a nested `tag/...`), of `kind`, dated (the
        frontmatter date, else the file's mtime) within [since, until] in epoch seconds."""
        where: list[str] = []
        args: list[Any] = []
        if path_prefix:
            where.append("d.path LIKE ? ESCAPE '\\'")
            args.append(
                path_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            )
        if kind:
            where.append("d.kind = ?")
            args.append(kind.lower())
        if since is not None:
            where.append("coalesce(d.note_date, d.mtime_ns / 1e9) >= ?")
            args.append(since)
        if until is not None:
            where.append("coalesce(d.note_date, d.mtime_ns / 1e9) <= ?")
            args.append(until)
        if tag:
            where.append(
                "EXISTS (SELECT 1 FROM tags t WHERE t.doc_id = d.id AND (t.tag = ? OR t.tag LIKE ?))"
            )
            args += [tag.lower(), tag.lower().replace("%", "").replace("_", "\\_") + "/%"]
        sql = "SELECT d.id FROM documents d" + (" WHERE " + " AND ".join(where) if where else "")
        return {i for (i,) in self.conn.execute(sql, args)}

    def touch_document(self, doc_id: int, mtime_ns: int, size: int) -> None:
        self.conn.execute(
            "UPDATE documents SET mtime_ns=?, size=? WHERE id=?", (mtime_ns, size, doc_id)
        )

    def delete_documents(self, doc_ids: Sequence[int]) -> None:
        self.conn.executemany("DELETE FROM documents WHERE id = ?", [(i,) for i in doc_ids])

    def set_aliases(self, doc_id: int, aliases: Iterable[str]) -> bool:
        """Replace a document's aliases; True if the set changed (links may resolve differently)."""
        new = sorted({a.lower() for a in aliases})
        old = sorted(
            a for (a,) in self.conn.execute("SELECT alias FROM aliases WHERE doc_id = ?", (doc_id,))
        )
        if new == old:
            return False
        self.conn.execute("DELETE FROM aliases WHERE doc_id = ?", (doc_id,))
        self.conn.executemany(
            "INSERT INTO aliases(doc_id, alias) VALUES (?, ?)", [(doc_id, a) for a in new]
        )
        return True

    def document(self, doc_id: int) -> DocRow | None:
        row = self.conn.execute(
            "SELECT id, path, title, frontmatter, body, mtime_ns, size FROM documents WHERE id = ?",
            (doc_id,),
        ).fetchone()
        return _doc_row(row) if row else None

    def document_by_path(self, path: str) -> DocRow | None:
        row = self.conn.execute(
            "SELECT id, path, title, frontmatter, body, mtime_ns, size FROM documents WHERE path = ?",
            (path,),
        ).fetchone()
        return _doc_row(row) if row else None

    def list_documents(self) -> list[tuple[int, str, str]]:
        return list(self.conn.execute("SELECT id, path, title FROM documents ORDER BY path"))

    # ---- chunks ----------------------------------------------------------------------------
    def replace_chunks(self, doc_id: int, chunks: Sequence[Chunk]) -> int:
        """Store a document's chunks, keeping rows (and vectors) whose content hash is unchanged.

        Returns how many chunks are new (and so need embedding).
        """
        old: dict[str, list[int]] = {}
        for chunk_id, digest in self.conn.execute(
            "SELECT id, hash FROM chunks WHERE doc_id = ?", (doc_id,)
        ):
            old.setdefault(digest, []).append(chunk_id)
        fresh: list[Chunk] = []
        kept: list[tuple[Any, ...]] = []
        for chunk in chunks:
            reusable = old.get(chunk.hash)
            if reusable:
                kept.append(
                    (
                        chunk.ord,
                        chunk.heading,
                        chunk.text,
                        chunk.section,
                        chunk.line_start,
                        chunk.line_end,
                        reusable.pop(),
                    )
                )
            else:
                fresh.append(chunk)
        stale = [(i,) for ids in old.values() for i in ids]
        if stale:
            self.conn.executemany("DELETE FROM chunks WHERE id = ?", stale)
        if kept:
            self.conn.executemany(
                "UPDATE chunks SET ord=?, heading=?, text=?, section=?, line_start=?, line_end=?"
                " WHERE id=?",
                kept,
            )
        if fresh:
            self.insert_chunks(fresh, doc_id)
        return len(fresh)

    def unembedded_chunks(self) -> int:
        """Chunks still without a vector (counted on the partial index `chunks_pending`)."""
        return int(
            self.conn.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0]
        )

    def has_vectors(self) -> bool:
        """Whether any chunk has a vector (a query with none skips loading the model)."""
        return (
            self.conn.execute("SELECT 1 FROM chunks WHERE embedded = 1 LIMIT 1").fetchone()
            is not None
        )

    def insert_chunks(self, chunks: Sequence[Chunk], doc_id: int) -> None:
        self.conn.executemany(
            "INSERT INTO chunks(doc_id, ord, heading, text, hash, section, line_start, line_end) VALUES (?,?,?,?,?,?,?,?)",
            [
                (doc_id, c.ord, c.heading, c.text, c.hash, c.section, c.line_start, c.line_end)
                for c in chunks
            ],
        )

    # ---- links -----------------------------------------------------------------------------
    def delete_links_from(self, doc_ids: Sequence[int]) -> None:
        self.conn.executemany("DELETE FROM links WHERE src_id = ?", [(i,) for i in doc_ids])

    def insert_links(
        self, rows: Sequence[tuple[int, Link]], resolve: Callable[[str], int | None]
    ) -> None:
        self.conn.executemany(
            "INSERT INTO links(src_id, target, target_key, heading, display, dst_id) VALUES (?,?,?,?,?,?)",
            [
                (src, link.target, link.key, link.heading, link.display, resolve(link.key))
                for src, link in rows
            ],
        )

    def link_resolver(self) -> Callable[[str], int | None]:
        """A function mapping a link key to a document id, the way Obsidian resolves links:
        exact vault path, then path suffix, then file name (case-insensitive; the shallowest and
        shortest path wins a tie), then frontmatter aliases. A key starting with "/" (a Markdown link,
        already made relative to the vault) matches that exact path only, or for a folder its index.md
        or README.md, as a Git host renders it."""
        by_stem: dict[str, tuple[tuple[int, int, str], int]] = {}
        by_path: dict[str, int] = {}
        for doc_id, path, stem in self.conn.execute("SELECT id, path, stem FROM documents"):
            rank = (path.count("/"), len(path), path)
            if stem not in by_stem or rank < by_stem[stem][0]:
                by_stem[stem] = (rank, doc_id)
            by_path[path.lower().removesuffix(".md")] = doc_id
        by_alias: dict[str, int] = {}
        for doc_id, alias in self.conn.execute("SELECT doc_id, alias FROM aliases ORDER BY doc_id"):
            by_alias.setdefault(alias, doc_id)

        def resolve(key: str) -> int | None:
            if key.startswith(
                "/"
            ):  # a Markdown link: that vault path, or that folder's index or README
                path = key[1:]
                return (
                    by_path.get(path)
                    or by_path.get(f"{path}/index")
                    or by_path.get(f"{path}/readme")
                )
            if "/" in key:
                if key in by_path:
                    return by_path[key]
                suffix = "/" + key
                for path in sorted(by_path):
                    if path.endswith(suffix):
                        return by_path[path]
                key = key.rsplit("/", 1)[1]
            hit = by_stem.get(key)
            if hit is not None:
                return hit[1]
            return by_alias.get(key)

        return resolve

    def reresolve_links(self, resolve: Callable[[str], int | None]) -> int:
        """Re-point existing links after documents appeared, vanished or changed aliases.

        Only rows whose target actually changes are written; returns how many.
        """
        changes = [
            (new, rowid)
            for rowid, key, dst in self.conn.execute(
                "SELECT rowid, target_key, dst_id FROM links"
            ).fetchall()
            if (new := resolve(key)) != dst
        ]
        self.conn.executemany("UPDATE links SET dst_id = ? WHERE rowid = ?", changes)
        return len(changes)

    def links_from(self, doc_id: int) -> list[dict[str, Any]]:
        return [
            {"target": t, "heading": h, "display": d, "path": p, "title": title, "doc_id": dst}
            for t, h, d, dst, p, title in self.conn.execute(
                "SELECT l.target, l.heading, l.display, l.dst_id, d.path, d.title FROM links l"
                " LEFT JOIN documents d ON d.id = l.dst_id WHERE l.src_id = ? ORDER BY l.rowid",
                (doc_id,),
            )
        ]

    def backlinks(self, doc_id: int) -> list[dict[str, Any]]:
        return [
            {"doc_id": src, "path": p, "title": t}
            for src, p, t in self.conn.execute(
                "SELECT DISTINCT l.src_id, d.path, d.title FROM links l JOIN documents d ON d.id = l.src_id"
                " WHERE l.dst_id = ? AND l.src_id != ? ORDER BY d.path",
                (doc_id, doc_id),
            )
        ]

    def edges_among(self, doc_ids: Sequence[int]) -> list[tuple[int, int]]:
        """Resolved links (src, dst) whose both ends are in `doc_ids`, self-links excluded."""
        if not doc_ids:
            return []
        marks = ",".join("?" * len(doc_ids))
        return list(
            self.conn.execute(
                f"SELECT DISTINCT src_id, dst_id FROM links WHERE src_id IN ({marks}) AND dst_id IN ({marks})"
                " AND src_id != dst_id",
                [*doc_ids, *doc_ids],
            )
        )

    def hub_documents(self, limit: int) -> list[tuple[int, str, str, int]]:
        return list(
            self.conn.execute(
                "SELECT d.id, d.path, d.title, count(DISTINCT l.src_id) AS n FROM links l JOIN documents d ON d.id = l.dst_id"
                " WHERE l.src_id != l.dst_id GROUP BY d.id ORDER BY n DESC, d.path LIMIT ?",
                (limit,),
            )
        )

    def titles(self, doc_ids: Sequence[int]) -> dict[int, str]:
        if not doc_ids:
            return {}
        marks = ",".join("?" * len(doc_ids))
        return dict(
            self.conn.execute(
                f"SELECT id, title FROM documents WHERE id IN ({marks})", list(doc_ids)
            )
        )

    def path_and_title(self, doc_id: int) -> tuple[str, str]:
        path, title = self.conn.execute(
            "SELECT path, title FROM documents WHERE id = ?", (doc_id,)
        ).fetchone()
        return path, title

    def document_id_by_title(self, title: str) -> int | None:
        """The note with this title (case-insensitive), the shortest path first."""
        row = self.conn.execute(
            "SELECT id FROM documents WHERE title = ? COLLATE NOCASE"
            " ORDER BY length(path), path LIMIT 1",
            (title,),
        ).fetchone()
        return row[0] if row else None

    def latest_under(self, folder: str, limit: int) -> list[tuple[int, str, str]]:
        """(id, path, title) of the notes under `folder/`, by path descending (newest numbered first)."""
        prefix = folder.rstrip("/") + "/"
        return list(
            self.conn.execute(
                "SELECT id, path, title FROM documents WHERE path LIKE ? ESCAPE '\\' ORDER BY path DESC LIMIT ?",
                (prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%", limit),
            )
        )

    def passage(self, chunk_id: int) -> Passage | None:
        row = self.conn.execute(
            f"SELECT {_PASSAGE} FROM chunks WHERE id = ?", (chunk_id,)
        ).fetchone()
        return Passage(*row) if row else None

    def passages_of(self, doc_id: int) -> list[Passage]:
        """A document's chunks, in order."""
        return [
            Passage(*r)
            for r in self.conn.execute(
                f"SELECT {_PASSAGE} FROM chunks WHERE doc_id = ? ORDER BY ord", (doc_id,)
            )
        ]

    def lexical_corpus(self) -> Iterator[tuple[int, int, str, str, str]]:
        """(chunk id, doc id, title, heading, text) of every chunk, by chunk id, read as they are consumed."""
        return iter(
            self.conn.execute(
                "SELECT c.id, c.doc_id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id"
                " ORDER BY c.id"
            )
        )

    def release_mapped_pages(self) -> None:
        """Unmap the pages of the index file this connection has read: they count in the process's RSS until
        then (a server's warm-up reads the BM25 segment, ~16 MB of pages on 5,000 notes, that it keeps as
        arrays anyway). Later reads map what they touch again."""
        mapped = self.conn.execute("PRAGMA mmap_size").fetchone()[0]
        if mapped:
            self.conn.execute("PRAGMA mmap_size = 0")
            self.conn.execute(f"PRAGMA mmap_size = {int(mapped)}")

    def text_sample(self, count: int) -> list[str]:
        """The text of up to `count` chunks spread evenly over the ids: one seek each, nothing else read."""
        lo, hi = self.conn.execute("SELECT min(id), max(id) FROM chunks").fetchone()
        if lo is None:
            return []
        step = max((hi - lo) // count, 1)
        return [
            row[0]
            for start in range(lo, hi + 1, step)[:count]
            for row in self.conn.execute(
                "SELECT text FROM chunks WHERE id >= ? ORDER BY id LIMIT 1", (start,)
            )
        ]

    def lexical_delta(self, after_id: int) -> list[tuple[int, int, str, str, str]]:
        """Chunks the BM25 main segment (built up to chunk `after_id`) lacks: newer ones, and re-used ids."""
        cols = "SELECT c.id, c.doc_id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id"
        return self.conn.execute(
            f"{cols} WHERE c.id > ? UNION {cols} WHERE c.id IN (SELECT chunk_id FROM lexical_stale) AND c.id <= ?"
            " ORDER BY 1",
            (after_id, after_id),
        ).fetchall()

    def lexical_stale(self) -> list[int]:
        """Chunks deleted since the BM25 main segment was built (its entries for them no longer count)."""
        return [i for (i,) in self.conn.execute("SELECT chunk_id FROM lexical_stale")]

    # ---- persisted BM25 index ----------------------------------------------------------------
    def bm25_state(self) -> Bm25State | None:
        """What the persisted BM25 main segment covers and how far the corpus has moved past it, without
        reading the blob (a no-change scan answers from this alone)."""
        row = self.conn.execute(
            "SELECT corpus_version, max_chunk_id, chunks FROM bm25_index WHERE id = 1"
        ).fetchone()
        if not row:
            return None
        version, max_id, chunks = (int(x) for x in row)
        backlog = 0
        if version != self.corpus_version():
            backlog = self.conn.execute(
                "SELECT (SELECT count(*) FROM chunks WHERE id > ?) + (SELECT count(*) FROM lexical_stale)",
                (max_id,),
            ).fetchone()[0]
        return Bm25State(version, max_id, chunks, int(backlog))

    def bm25_blob(self) -> tuple[int, bytes] | None:
        row = self.conn.execute(
            "SELECT corpus_version, blob FROM bm25_index WHERE id = 1"
        ).fetchone()
        return (int(row[0]), row[1]) if row else None

    def save_bm25_blob(self, version: int, blob: bytes, max_chunk_id: int, chunks: int) -> bool:
        """Store the BM25 main segment built for corpus `version` (chunks up to `max_chunk_id`) and forget
        the deletions it already reflects; False (nothing written) if the corpus moved on meanwhile."""
        with self.transaction():
            if self.corpus_version() != version:
                return False
            self.conn.execute(
                "INSERT INTO bm25_index(id, corpus_version, built_at, blob, max_chunk_id, chunks)"
                " VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET corpus_version=excluded.corpus_version,"
                " built_at=excluded.built_at, blob=excluded.blob, max_chunk_id=excluded.max_chunk_id,"
                " chunks=excluded.chunks",
                (version, time.time(), blob, max_chunk_id, chunks),
            )
            self.conn.execute("DELETE FROM lexical_stale")
        return True

    # ---- vectors -----------------------------------------------------------------------------
    def reset_vectors(self, model: str) -> None:
        """Drop every vector (they belong to another model) and record `model` as the current one."""
        with self.transaction():
            self.conn.execute("DELETE FROM vec_chunks")
            self.conn.execute("UPDATE chunks SET embedded = 0")
            self.set_meta("embed_model", model)

    def chunks_to_embed(self, limit: int | None = None) -> list[tuple[int, int]]:
        """(chunk id, text length) of chunks without a vector, by chunk id: the texts are read per batch
        (`chunks_for_embedding`), so a backlog of any size costs two integers a chunk in memory."""
        sql = "SELECT id, length(text) FROM chunks WHERE embedded = 0 ORDER BY id"
        if limit:
            return self.conn.execute(sql + " LIMIT ?", (int(limit),)).fetchall()
        return self.conn.execute(sql).fetchall()

    def chunks_for_embedding(self, ids: Sequence[int]) -> list[tuple[int, str, str, str, str]]:
        """(chunk id, hash, title, heading, text) of these chunks (gone ones left out)."""
        return self.conn.execute(
            "SELECT c.id, c.hash, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id"
            f" WHERE c.id IN ({','.join('?' * len(ids))})",
            list(ids),
        ).fetchall()

    def write_vectors(self, items: Sequence[tuple[int, str, bytes]]) -> int:
        """Store (chunk id, hash, float32 bytes) in one transaction, skipping chunks that a concurrent scan
        replaced (hash changed, row gone) or that got a vector meanwhile; returns how many were written."""
        written = 0
        with self.transaction():
            for chunk_id, digest, vector in items:
                cur = self.conn.execute(
                    "UPDATE chunks SET embedded = 1 WHERE id = ? AND hash = ? AND embedded = 0",
                    (chunk_id, digest),
                )
                if cur.rowcount == 1:
                    self.conn.execute(
                        "INSERT INTO vec_chunks(rowid, embedding) VALUES (?, ?)", (chunk_id, vector)
                    )
                    written += 1
        return written

    def nearest_chunks(self, vector: bytes, k: int) -> list[tuple[int, float, int]]:
        """(chunk id, cosine distance, doc id) of the k nearest chunks, nearest first."""
        return self.conn.execute(
            "SELECT v.rowid, v.distance, c.doc_id FROM vec_chunks v JOIN chunks c ON c.id = v.rowid"
            " WHERE v.embedding MATCH ? AND k = ? ORDER BY v.distance",
            (vector, k),
        ).fetchall()

    # ---- offload records -----------------------------------------------------------------------
    def insert_offload(self, columns: Sequence[str], values: Sequence[Any]) -> None:
        with self.transaction():
            self.conn.execute(
                f"INSERT INTO offloads({','.join(columns)}) VALUES ({','.join('?' * len(columns))})",
                list(values),
            )

    def offloads(self, columns: Sequence[str], limit: int) -> list[tuple[Any, ...]]:
        return self.conn.execute(
            f"SELECT {','.join(columns)} FROM offloads ORDER BY created_at DESC LIMIT ?", (limit,)
        ).fetchall()

    def offload(self, columns: Sequence[str], node_id: str) -> tuple[Any, ...] | None:
        return self.conn.execute(
            f"SELECT {','.join(columns)} FROM offloads WHERE node_id = ?", (node_id,)
        ).fetchone()

    def delete_offloads(self, node_ids: Sequence[str]) -> None:
        with self.transaction():
            self.conn.executemany(
                "DELETE FROM offloads WHERE node_id = ?", [(n,) for n in node_ids]
            )

    def offload_totals(self) -> tuple[int, int, int]:
        """(raw tokens, summary tokens, count) over every offload."""
        return self.conn.execute(
            "SELECT coalesce(sum(raw_tokens), 0), coalesce(sum(summary_tokens), 0), count(*) FROM offloads"
        ).fetchone()

    # ---- scans & status --------------------------------------------------------------------
    def record_scan(self, started_at: float, elapsed_ms: float, counts: dict[str, int]) -> None:
        self.conn.execute(
            "INSERT INTO scans(started_at, elapsed_ms, added, modified, unchanged, removed, skipped)"
            " VALUES (?,?,?,?,?,?,?)",
            (
                started_at,
                elapsed_ms,
                counts["added"],
                counts["modified"],
                counts["unchanged"],
                counts["removed"],
                counts["skipped"],
            ),
        )
        self.conn.execute("DELETE FROM scans WHERE id <= (SELECT max(id) - 100 FROM scans)")

    def last_scan(self) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT started_at, elapsed_ms, added, modified, unchanged, removed, skipped FROM scans"
            " ORDER BY id DESC LIMIT 1"
        ).fetchone()
        if not row:
            return None
        keys = ("started_at", "elapsed_ms", "added", "modified", "unchanged", "removed", "skipped")
        return dict(zip(keys, row, strict=True))

    def counts(self) -> dict[str, int]:
        q = self.conn.execute
        return {
            "documents": q("SELECT count(*) FROM documents").fetchone()[0],
            "chunks": q("SELECT count(*) FROM chunks").fetchone()[0],
            "chunks_embedded": q("SELECT count(*) FROM chunks WHERE embedded = 1").fetchone()[0],
            "links": q("SELECT count(*) FROM links").fetchone()[0],
            "links_resolved": q("SELECT count(*) FROM links WHERE dst_id IS NOT NULL").fetchone()[
                0
            ],
            "offloads": q("SELECT count(*) FROM offloads").fetchone()[0],
        }

    def require_sound(self) -> None:
        """Raise the corrupt-index error when SQLite's quick_check finds damage."""
        problem = self.integrity_problem()
        if problem:
            raise db.corrupt_error(self.path, problem)

    def integrity_problem(self) -> str | None:
        """None when SQLite's quick_check finds the file sound, else its first complaint."""
        row = self.conn.execute("PRAGMA quick_check(1)").fetchone()
        if row and row[0] == "ok":
            return None
        text = " ".join(
            str(row[0] if row else "no answer").replace("*** in database main ***", "").split()
        )
        return text[:120] or "quick_check failed"

    def db_size_bytes(self) -> int:
        return sum(
            p.stat().st_size for p in self.path.parent.glob(self.path.name + "*") if p.is_file()
        )


def _doc_row(row: tuple[Any, ...]) -> DocRow:
    return DocRow(row[0], row[1], row[2], json.loads(row[3]), row[4], row[5], row[6])


def _split_sql(script: str) -> list[str]:
    """Split a migration into statements, keeping trigger bodies (BEGIN ... END;) whole."""
    statements: list[str] = []
    buf: list[str] = []
    in_trigger = False
    for line in script.strip().splitlines():
        buf.append(line)
        stripped = line.strip().upper()
        if stripped.startswith("CREATE TRIGGER"):
            in_trigger = True
        if (in_trigger and stripped == "END;") or (not in_trigger and stripped.endswith(";")):
            statements.append("\n".join(buf).strip())
            buf = []
            in_trigger = False
    if "".join(buf).strip():
        statements.append("\n".join(buf).strip())
    return statements
