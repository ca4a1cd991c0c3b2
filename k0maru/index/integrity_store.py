"""What the index's derived rows must hold, given the notes' rows, and their repair.

The notes are the truth: `documents` (and what a scan parses from each note) is read from them;
chunks belong to a document, BM25 term rows and vectors are derived from the chunks. `cheap` checks
the counts that tie them (a few indexed counts: every open runs it); `deep` decodes every derived
row (`k0maru doctor`). Each `Finding` names the derived part it damages; `heal` rebuilds that part
from the rows it derives from (the next scan, query and worker fill in what it removed)."""

from __future__ import annotations

import math
import operator
import zlib
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from k0maru.index import db
from k0maru.index.bm25_blob import SegmentBlob
from k0maru.index.schema import EMBED_DIM

TERMS_META = "bm25_terms"  # how many term rows the saved BM25 segment wrote (save_bm25)
VECTOR_BYTES = EMBED_DIM * 4
VECTORS_TABLE = (  # schema.py's, made again when its rows do not read back
    f"CREATE VIRTUAL TABLE vec_chunks USING vec0(embedding float[{EMBED_DIM}] distance_metric=cosine)"
)
NORM_SLACK = 0.01  # a stored vector is L2-normalised: its norm is 1 within this
# rows that name a document: deleted with it (links to it are left unresolved)
_DOC_ROWS = ("chunks", "tags", "aliases")


@dataclass(frozen=True, slots=True)
class Finding:
    """One broken invariant: the derived `part` it damages ("documents", "bm25", "vectors") and
    what is wrong; `ids`: the chunks whose vectors are bad."""

    part: str
    what: str
    ids: tuple[int, ...] | None = None
    whole: bool = False  # the part does not read back: rebuilt whole


Check = Callable[[Any], list[Finding]]  # `cheap` or `deep`, over a connection


def _count(conn: Any, sql: str, *args: object) -> int:
    return int(conn.execute(sql, args).fetchone()[0])


def cheap(conn: Any) -> list[Finding]:
    """The invariants a few indexed counts prove (run inside one read transaction)."""
    found: list[Finding] = []
    orphans = sum(
        _count(conn, f"SELECT count(*) FROM {t} WHERE doc_id NOT IN (SELECT id FROM documents)")
        for t in _DOC_ROWS
    )
    if orphans:
        found.append(Finding("documents", f"{orphans} row(s) belong to no note"))
    embedded = _count(conn, "SELECT count(*) FROM chunks") - _count(
        conn, "SELECT count(*) FROM chunks WHERE embedded = 0"
    )
    stored = _count(conn, "SELECT count(*) FROM vec_chunks_rowids")
    if stored != embedded:
        found.append(Finding("vectors", f"{stored} vector(s) for {embedded} embedded chunk(s)"))
    terms = conn.execute("SELECT value FROM meta WHERE key = ?", (TERMS_META,)).fetchone()
    has_segment = conn.execute("SELECT 1 FROM bm25_index WHERE id = 1").fetchone() is not None
    if terms is not None and has_segment:
        rows = _count(conn, "SELECT count(*) FROM bm25_terms")
        if rows != int(terms[0]):
            found.append(Finding("bm25", f"{rows} BM25 term row(s) of the {terms[0]} saved"))
    return found


def deep(conn: Any) -> list[Finding]:
    """`cheap`, then every derived row decoded: the BM25 segment, its terms and kept delta, each
    vector (its size, finite values, unit length) and which chunks they belong to. Rows that do
    not read back at all damage their whole part."""
    found = cheap(conn)
    for part, check in (("bm25", _segment), ("vectors", _vectors)):
        try:
            found += check(conn)
        except (db.DatabaseError, ValueError) as exc:
            what = " ".join(str(exc).split())[:100]
            found.append(Finding(part, f"the {part} rows do not read back ({what})", whole=True))
    return found


def _vectors(conn: Any) -> list[Finding]:
    bad = tuple(_bad_vectors(conn))
    return [Finding("vectors", f"{len(bad)} vector(s) are damaged", bad)] if bad else []


def _segment(conn: Any) -> list[Finding]:
    row = conn.execute("SELECT CAST(blob AS BLOB) FROM bm25_index WHERE id = 1").fetchone()
    if row is None:
        return []
    try:
        size = len(SegmentBlob.unpack(row[0]).chunk_ids)
    except ValueError:
        return [Finding("bm25", "the BM25 segment is not readable")]
    for term, chunks, scores in conn.execute(
        "SELECT term, CAST(chunks AS BLOB), CAST(scores AS BLOB) FROM bm25_terms"
    ):
        where = array("i")
        if len(chunks) != len(scores) or len(chunks) % 4:
            return [Finding("bm25", f"the BM25 term {term!r} is damaged")]
        where.frombytes(chunks)
        if where and (min(where) < 0 or max(where) >= size):
            return [Finding("bm25", f"the BM25 term {term!r} names chunks the segment lacks")]
    delta = conn.execute("SELECT CAST(blob AS BLOB) FROM bm25_delta WHERE id = 1").fetchone()
    if delta is not None and not sealed(bytes(delta[0])):
        return [Finding("bm25", "the kept BM25 delta is damaged")]
    return []


def _bad_vectors(conn: Any) -> list[int]:
    """The chunks whose stored vector is damaged, or that hold one without being embedded."""
    embedded = {i for (i,) in conn.execute("SELECT id FROM chunks WHERE embedded = 1")}
    bad = []
    for rowid, blob in conn.execute("SELECT rowid, embedding FROM vec_chunks"):
        if rowid not in embedded or not sound_vector(blob):
            bad.append(int(rowid))
    return bad


def sound_vector(blob: object) -> bool:
    """A stored vector: EMBED_DIM finite float32 values of unit length."""
    if not isinstance(blob, bytes) or len(blob) != VECTOR_BYTES:
        return False
    values = array("f")
    values.frombytes(blob)
    total = sum(map(operator.mul, values, values))
    return math.isfinite(total) and abs(math.sqrt(total) - 1) <= NORM_SLACK


def seal(blob: bytes) -> bytes:
    """`blob` with its CRC-32 after it (a kept cache whose damage must be seen)."""
    return blob + zlib.crc32(blob).to_bytes(4, "little")


def sealed(blob: bytes) -> bool:
    return len(blob) >= 4 and zlib.crc32(blob[:-4]).to_bytes(4, "little") == blob[-4:]


def heal(conn: Any, findings: list[Finding]) -> None:
    """Rebuild each damaged part from what it derives from, inside the caller's write transaction:
    rows of a deleted note go (its file is indexed again by the next scan), a damaged BM25 segment
    is dropped (the next query or scan builds it), damaged or missing vectors are dropped and their
    chunks marked unembedded (the worker embeds them again)."""
    parts = {f.part for f in findings}
    if parts & {"documents", "bm25"}:  # what a query has loaded of the BM25 corpus is stale
        conn.execute(
            "UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
            " WHERE key = 'corpus_version'"
        )
    if "documents" in parts:
        for table in _DOC_ROWS:
            conn.execute(f"DELETE FROM {table} WHERE doc_id NOT IN (SELECT id FROM documents)")
        conn.execute("DELETE FROM links WHERE src_id NOT IN (SELECT id FROM documents)")
        conn.execute(
            "UPDATE links SET dst_id = NULL WHERE dst_id NOT IN (SELECT id FROM documents)"
        )
    if "bm25" in parts:
        for table in ("bm25_index", "bm25_terms", "bm25_delta", "lexical_stale"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("DELETE FROM meta WHERE key = ?", (TERMS_META,))
    if any(f.part == "vectors" and f.whole for f in findings):
        conn.execute("DROP TABLE vec_chunks")
        conn.execute(VECTORS_TABLE)
        conn.execute("UPDATE chunks SET embedded = 0")
    elif "vectors" in parts:
        _heal_vectors(conn, {i for f in findings if f.ids for i in f.ids})


def _heal_vectors(conn: Any, bad: set[int]) -> None:
    embedded = {i for (i,) in conn.execute("SELECT id FROM chunks WHERE embedded = 1")}
    stored = {i for (i,) in conn.execute("SELECT rowid FROM vec_chunks_rowids")}
    for rowid in sorted((stored - embedded) | (bad & stored)):
        conn.execute("DELETE FROM vec_chunks WHERE rowid = ?", (rowid,))
    conn.executemany(
        "UPDATE chunks SET embedded = 0 WHERE id = ?", [(i,) for i in (embedded - stored) | bad]
    )
