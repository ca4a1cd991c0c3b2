"""Chunk vectors (sqlite-vec's `vec_chunks`) and the backlog of chunks still to embed."""

from __future__ import annotations

from collections.abc import Sequence

from k0maru.index.base_store import BaseStore


class VectorStore(BaseStore):
    """The `vec_chunks` table and `chunks.embedded`."""

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
        rows: list[tuple[int, float, int]] = self.conn.execute(
            "SELECT v.rowid, v.distance, c.doc_id FROM vec_chunks v JOIN chunks c ON c.id = v.rowid"
            " WHERE v.embedding MATCH ? AND k = ? ORDER BY v.distance",
            (vector, k),
        ).fetchall()
        return rows
