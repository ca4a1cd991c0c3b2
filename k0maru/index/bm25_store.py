"""The persisted BM25 main segment and the chunks its delta is read from."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from k0maru.index.base_store import BaseStore
from k0maru.index.bm25_merge import Bm25State
from k0maru.index.integrity_store import TERMS_META, seal, sealed


class Bm25Store(BaseStore):
    """The `bm25_index` and `lexical_stale` tables, and the lexical corpus over `chunks`."""

    def language_shares(self) -> dict[str, float]:
        """Each language's share of the notes, which sets the stemmer of a query ('' is English)."""
        rows = self.conn.execute("SELECT lang, count(*) FROM documents GROUP BY lang").fetchall()
        total = sum(n for _, n in rows) or 1
        return {lang: n / total for lang, n in rows}

    def release_page_cache(self) -> None:
        """Free the pages this connection caches (a scan leaves them full of what it wrote)."""
        self.conn.execute("PRAGMA shrink_memory")

    def lexical_corpus(self) -> Iterator[tuple[int, int, str, str, str, str]]:
        """(chunk id, doc id, title, heading, text, the note's language) of every chunk, by chunk
        id, read as they are consumed."""
        return iter(
            self.conn.execute(
                "SELECT c.id, c.doc_id, d.title, c.heading, c.text, d.lang FROM chunks c"
                " JOIN documents d ON d.id = c.doc_id ORDER BY c.id"
            )
        )

    def lexical_delta(self, after_id: int) -> list[tuple[int, int, str, str, str, str]]:
        """Chunks the BM25 main segment (built up to chunk `after_id`) lacks: newer ones, and
        re-used or re-tokenised ids (as `lexical_corpus` gives them)."""
        cols = (
            "SELECT c.id, c.doc_id, d.title, c.heading, c.text, d.lang FROM chunks c"
            " JOIN documents d ON d.id = c.doc_id"
        )
        rows: list[tuple[int, int, str, str, str, str]] = self.conn.execute(
            f"{cols} WHERE c.id > ? UNION {cols} WHERE c.id IN (SELECT chunk_id FROM lexical_stale) AND c.id <= ?"
            " ORDER BY 1",
            (after_id, after_id),
        ).fetchall()
        return rows

    def alias_titles(self) -> dict[int, str]:
        """Each note's aliases as one line (BM25 reads them beside its title)."""
        rows = self.conn.execute(
            "SELECT doc_id, group_concat(alias, ' ') FROM aliases GROUP BY doc_id"
        )
        return {doc_id: names for doc_id, names in rows}

    def lexical_stale(self) -> list[int]:
        """Chunks deleted since the BM25 main segment was built (its entries for them no longer
        count)."""
        return [i for (i,) in self.conn.execute("SELECT chunk_id FROM lexical_stale")]

    def bm25_state(self) -> Bm25State | None:
        """What the persisted BM25 main segment covers and how far the corpus has moved past it,
        without reading the blob (a no-change scan answers from this alone)."""
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
            "SELECT corpus_version, CAST(blob AS BLOB) FROM bm25_index WHERE id = 1"
        ).fetchone()
        return (int(row[0]), row[1]) if row else None

    def bm25_version(self) -> int | None:
        """The corpus version the stored main segment was built at."""
        row = self.conn.execute("SELECT corpus_version FROM bm25_index WHERE id = 1").fetchone()
        return int(row[0]) if row else None

    def bm25_terms(self, version: int, terms: list[str]) -> dict[str, tuple[bytes, bytes]] | None:
        """The stored (chunk positions, scores) of those of `terms` the main segment holds; None if
        the stored segment is no longer the one built at corpus `version`."""
        found: dict[str, tuple[bytes, bytes]] = {}
        for at in range(0, len(terms), 500):  # each statement checks the segment it reads
            part = terms[at : at + 500]
            rows = self.conn.execute(
                "SELECT i.corpus_version, t.term, CAST(t.chunks AS BLOB), CAST(t.scores AS BLOB)"
                " FROM bm25_index i"
                f" LEFT JOIN bm25_terms t ON t.term IN ({','.join('?' * len(part))}) WHERE i.id = 1",
                part,
            ).fetchall()
            if not rows or rows[0][0] != version:
                return None
            found.update((term, (where, score)) for _, term, where, score in rows if term)
        return found

    def save_bm25(
        self,
        version: int,
        blob: bytes,
        terms: Iterable[tuple[str, bytes, bytes]],
        max_chunk_id: int,
        chunks: int,
    ) -> bool:
        """Store the BM25 main segment built for corpus `version` (chunks up to `max_chunk_id`):
        its blob and each term's (term, chunk positions, scores); forget the deletions it already
        reflects. False (nothing written) if the corpus moved on meanwhile."""
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
            self.conn.execute("DELETE FROM bm25_terms")
            self.conn.execute("DELETE FROM bm25_delta")
            self.conn.executemany(
                "INSERT INTO bm25_terms(term, chunks, scores) VALUES (?, ?, ?)", terms
            )
            (rows,) = self.conn.execute("SELECT count(*) FROM bm25_terms").fetchone()
            self.set_meta(TERMS_META, str(rows))  # the open check counts them (integrity_store)
            self.conn.execute("DELETE FROM lexical_stale")
        return True

    def bm25_delta(self, version: int, main_version: int) -> bytes | None:
        """The kept delta of corpus `version` over the main segment built at `main_version`; None
        when there is none or its checksum fails (damaged: computed again)."""
        row = self.conn.execute(
            "SELECT CAST(blob AS BLOB) FROM bm25_delta"
            " WHERE id = 1 AND corpus_version = ? AND main_version = ?",
            (version, main_version),
        ).fetchone()
        return bytes(row[0])[:-4] if row and sealed(bytes(row[0])) else None

    def bm25_prior_delta(self, main_version: int) -> bytes | None:
        """The delta kept over the main segment of `main_version` for whichever corpus version it
        was computed at (a newer delta starts from its chunks); None as `bm25_delta`."""
        row = self.conn.execute(
            "SELECT CAST(blob AS BLOB) FROM bm25_delta WHERE id = 1 AND main_version = ?",
            (main_version,),
        ).fetchone()
        return bytes(row[0])[:-4] if row and sealed(bytes(row[0])) else None

    def keep_bm25_delta(self, version: int, main_version: int, blob: bytes) -> None:
        """Keep the delta computed for corpus `version` over the main segment of `main_version`,
        when the index can be written now without waiting (else the next process computes it
        again), and only while the corpus is still at that version."""
        with self.transaction_if_free() as free:
            if free and self.corpus_version() == version:
                self.conn.execute(
                    "INSERT INTO bm25_delta(id, corpus_version, main_version, blob) VALUES (1, ?, ?, ?)"
                    " ON CONFLICT(id) DO UPDATE SET corpus_version = excluded.corpus_version,"
                    " main_version = excluded.main_version, blob = excluded.blob",
                    (version, main_version, seal(blob)),
                )
