"""Chunk vectors (sqlite-vec's `vec_chunks`) and the backlog of chunks still to embed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from k0maru.index import db
from k0maru.index.base_store import BaseStore
from k0maru.index.integrity_store import sound_vector

KEEP_MAX = (
    20_000  # vectors of deleted chunks kept for reuse (~1.5 KB each), the most recently dropped
)


class VectorStore(BaseStore):
    """The `vec_chunks` table and `chunks.embedded`."""

    def unembedded_chunks(self) -> int:
        """Chunks still without a vector (counted on the partial index `chunks_pending`)."""
        return int(
            self.conn.execute("SELECT count(*) FROM chunks WHERE embedded = 0").fetchone()[0]
        )

    def chunk_count(self) -> int:
        """Chunks in the index, with a vector or not."""
        return int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def has_unembedded_chunks(self) -> bool:
        """Whether any chunk waits for a vector (one row read, whatever the backlog)."""
        row = self.conn.execute("SELECT 1 FROM chunks WHERE embedded = 0 LIMIT 1").fetchone()
        return row is not None

    def unembedded_among(self, chunk_ids: Sequence[int]) -> set[int]:
        """Which of these chunks have no vector yet."""
        if not chunk_ids:
            return set()
        rows = self.conn.execute(
            f"SELECT id FROM chunks WHERE embedded = 0 AND id IN ({','.join('?' * len(chunk_ids))})",
            list(chunk_ids),
        ).fetchall()
        return {int(r[0]) for r in rows}

    def has_vectors(self) -> bool:
        """Whether any chunk has a vector (a query with none skips loading the model)."""
        return (
            self.conn.execute("SELECT 1 FROM chunks WHERE embedded = 1 LIMIT 1").fetchone()
            is not None
        )

    def reset_vectors(self, model: str) -> None:
        """Drop every vector (they belong to another model) and record `model` as the current
        one."""
        with self.transaction():
            self.conn.execute("DELETE FROM vec_chunks")
            self.conn.execute("DELETE FROM vector_keep")
            self.conn.execute("UPDATE chunks SET embedded = 0")
            self.set_meta("embed_model", model)

    def chunks_to_embed(self, limit: int | None = None) -> list[tuple[int, int]]:
        """(chunk id, text length) of chunks without a vector, by chunk id: the texts are read per
        batch (`chunks_for_embedding`), so a backlog of any size costs two integers a chunk in
        memory."""
        sql = "SELECT id, length(text) FROM chunks WHERE embedded = 0 ORDER BY id"
        rows: list[tuple[int, int]] = (
            self.conn.execute(sql + " LIMIT ?", (int(limit),)) if limit else self.conn.execute(sql)
        ).fetchall()
        return rows

    def chunks_for_embedding(self, ids: Sequence[int]) -> list[tuple[int, str, str, str, str]]:
        """(chunk id, hash, title, heading, text) of these chunks (gone ones left out)."""
        rows: list[tuple[int, str, str, str, str]] = self.conn.execute(
            "SELECT c.id, c.hash, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id"
            f" WHERE c.id IN ({','.join('?' * len(ids))})",
            list(ids),
        ).fetchall()
        return rows

    def write_vectors(self, items: Sequence[tuple[int, str, bytes]]) -> int:
        """Store (chunk id, hash, float32 bytes) in one transaction, skipping chunks that a
        concurrent scan replaced (hash changed, row gone) or that got a vector meanwhile; returns
        how many were written."""
        written = 0
        with self.transaction():
            for chunk_id, digest, vector in items:
                written += self._put_vector(chunk_id, digest, vector)
        return written

    def _put_vector(self, chunk_id: int, digest: str, vector: bytes) -> int:
        """Give a chunk its vector if it still holds the text `digest` and has none (checked here,
        inside the caller's transaction); returns 1 if written. A vector already at that id belongs
        to no chunk (left by a write that raced a deletion): it is replaced, so it can never block
        the chunk."""
        cur = self.conn.execute(
            "UPDATE chunks SET embedded = 1 WHERE id = ? AND hash = ? AND embedded = 0",
            (chunk_id, digest),
        )
        if cur.rowcount != 1:
            return 0
        if self.conn.execute("SELECT 1 FROM vec_chunks WHERE rowid = ?", (chunk_id,)).fetchone():
            self.conn.execute("DELETE FROM vec_chunks WHERE rowid = ?", (chunk_id,))
        self.conn.execute(
            "INSERT INTO vec_chunks(rowid, embedding) VALUES (?, ?)", (chunk_id, vector)
        )
        return 1

    def nearest_chunks(self, vector: bytes, k: int) -> list[tuple[int, float, int]]:
        """(chunk id, cosine distance, doc id) of the k nearest chunks, nearest first."""
        rows: list[tuple[int, float, int]] = self.conn.execute(
            "SELECT v.rowid, v.distance, c.doc_id FROM vec_chunks v JOIN chunks c ON c.id = v.rowid"
            " WHERE v.embedding MATCH ? AND k = ? ORDER BY v.distance",
            (vector, k),
        ).fetchall()
        return rows

    def carry_vectors(self, old: Path) -> int:
        """A rebuild's new index: give each chunk the sound vector the index at `old` holds for
        the same text (its hash), made by the same model, so the new one is whole when it is
        swapped in; returns how many chunks got one (none when `old` does not read back)."""
        if not old.is_file():  # ATTACH would create it
            return 0
        try:
            self.conn.execute("ATTACH DATABASE ? AS old", (str(old),))
        except db.DatabaseError:
            return 0
        try:
            model = self.conn.execute("SELECT value FROM old.meta WHERE key = 'embed_model'")
            found = model.fetchone()
            if found is None or self.get_meta("embed_model") not in (None, found[0]):
                return 0
            self.set_meta("embed_model", found[0])
            vectors = self.conn.execute(
                "SELECT c.id, c.hash, v.embedding FROM chunks c JOIN old.chunks o"
                " ON o.hash = c.hash AND o.embedded = 1 JOIN old.vec_chunks v ON v.rowid = o.id"
                " WHERE c.embedded = 0 GROUP BY c.id"
            ).fetchall()
            return self.write_vectors([row for row in vectors if sound_vector(row[2])])
        except db.DatabaseError:  # the old index does not read back: embedded again
            return 0
        finally:
            self.conn.execute("DETACH DATABASE old")

    # ---- vectors keyed by content
    # ------------------------------------------------------------------
    def last_chunk_id(self) -> int:
        """The highest chunk id (chunks a scan adds get higher ones)."""
        return int(self.conn.execute("SELECT coalesce(max(id), 0) FROM chunks").fetchone()[0])

    def reuse_vectors(self, after_id: int = 0, keep_max: int = KEEP_MAX) -> int:
        """Give each chunk without a vector (above `after_id`: those a scan just added) the vector
        of the same text (its hash) when one exists: kept from a deleted chunk (a rename, a move, a
        branch switched back) or on another chunk; returns how many chunks got one. Then trims the
        kept vectors to the `keep_max` most recently dropped. Reads and writes in one transaction:
        another writer (an embedder, a scan) cannot change a chunk between the two."""
        reused = 0
        with self.transaction():
            for chunk_id, digest in self._reusable(after_id).items():
                row = (
                    self.conn.execute(
                        "SELECT embedding FROM vector_keep WHERE hash = ?", (digest,)
                    ).fetchone()
                    or self.conn.execute(
                        "SELECT embedding FROM vec_chunks WHERE rowid ="
                        " (SELECT id FROM chunks WHERE hash = ? AND embedded = 1 LIMIT 1)",
                        (digest,),
                    ).fetchone()
                )
                if row is None or not self._put_vector(chunk_id, digest, row[0]):
                    continue
                self.conn.execute("DELETE FROM vector_keep WHERE hash = ?", (digest,))  # in use
                reused += 1
            if self._keep_over(keep_max):
                self.conn.execute(
                    "DELETE FROM vector_keep WHERE hash IN"
                    " (SELECT hash FROM vector_keep ORDER BY dropped_at DESC LIMIT -1 OFFSET ?)",
                    (keep_max,),
                )
        return reused

    def _reusable(self, after_id: int) -> dict[int, str]:
        """Chunk id -> hash of the chunks without a vector whose text has one: kept from a deleted
        chunk (a scan deletes after it adds: a rename's old chunks are here by now), or on a live
        chunk, for the chunks above `after_id`. CROSS JOIN: read from the kept vectors (at most
        keep_max) by hash, never from the backlog of chunks without one."""
        pending: list[tuple[int, str]] = self.conn.execute(
            "SELECT c.id, c.hash FROM vector_keep k CROSS JOIN chunks c ON c.hash = k.hash"
            " WHERE +c.embedded = 0"
        ).fetchall()
        pending += [
            (chunk_id, digest)
            for chunk_id, digest in self.conn.execute(
                "SELECT id, hash FROM chunks WHERE id > ? AND +embedded = 0", (after_id,)
            ).fetchall()
            if self.conn.execute(
                "SELECT 1 FROM chunks WHERE hash = ? AND embedded = 1 LIMIT 1", (digest,)
            ).fetchone()
        ]
        return dict(pending)

    def _keep_over(self, keep_max: int) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM vector_keep LIMIT 1 OFFSET ?", (keep_max,)
        ).fetchone()
        return row is not None
