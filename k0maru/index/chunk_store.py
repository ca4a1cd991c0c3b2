"""Chunks: a note's sections as the index stores, shows and samples them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from k0maru.index.base_store import BaseStore

if TYPE_CHECKING:  # the parser loads with a scan, not with a query
    from k0maru.index.markdown import Chunk

_PASSAGE = "heading, text, section, line_start, line_end"


@dataclass(frozen=True, slots=True)
class Passage:
    """One chunk as an answer shows it: its heading, text, heading path and file lines."""

    heading: str
    text: str
    section: str
    line_start: int
    line_end: int


class ChunkStore(BaseStore):
    """The `chunks` table (their vectors are `vector_store`'s)."""

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

    def insert_chunks(self, chunks: Sequence[Chunk], doc_id: int) -> None:
        self.conn.executemany(
            "INSERT INTO chunks(doc_id, ord, heading, text, hash, section, line_start, line_end) VALUES (?,?,?,?,?,?,?,?)",
            [
                (doc_id, c.ord, c.heading, c.text, c.hash, c.section, c.line_start, c.line_end)
                for c in chunks
            ],
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

    def text_sample(self, count: int) -> list[str]:
        """The text of up to `count` chunks spread evenly over the ids: one seek each, nothing else
        read."""
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
