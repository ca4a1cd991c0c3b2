"""What the index's derived rows must hold, given the notes' rows, and their repair.

The notes are the truth: `documents` (and what a scan parses from each note) is read from them;
chunks belong to a document, BM25 term rows and vectors are derived from the chunks. `cheap` checks
the counts that tie them (a few indexed counts: every open runs it); `deep` decodes every derived
row (`status`, `k0maru doctor`); `note_files` and `sampled_vectors` read the notes and embed a
sample again (`doctor` alone). Each `Finding` names the derived part it damages; `heal` rebuilds
that part from the rows it derives from (the next scan, query and worker refill what it removed)."""

from __future__ import annotations

import math
import operator
import os
import random
import zlib
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from k0maru.index import db
from k0maru.index.bm25_blob import SegmentBlob
from k0maru.index.schema import EMBED_DIM
from k0maru.layout import STATE_DIR

TERMS_META = "bm25_terms"  # how many term rows the saved BM25 segment wrote (save_bm25)
VECTOR_BYTES = EMBED_DIM * 4
VECTORS_TABLE = (  # schema.py's, made again when its rows do not read back
    f"CREATE VIRTUAL TABLE vec_chunks USING vec0(embedding float[{EMBED_DIM}] distance_metric=cosine)"
)
NORM_SLACK = 0.01  # a stored vector is L2-normalised: its norm is 1 within this
SAMPLE = 16  # chunks whose vectors `sampled_vectors` makes again
SAME = 0.99  # a vector made again has at least this cosine with the one stored for its chunk
LOGS = (".log.gz", ".log")  # how a kept offload log's name ends (offload/reflog.py)
# rows that name a document: deleted with it (links to it are left unresolved)
_DOC_ROWS = ("chunks", "tags", "aliases")


@dataclass(frozen=True, slots=True)
class Finding:
    """One broken invariant: the derived `part` it damages ("documents", "bm25", "vectors", the
    corpus "version") and what is wrong; `ids`: the chunks whose vectors are bad."""

    part: str
    what: str
    ids: tuple[int, ...] | None = None
    whole: bool = False  # the part does not read back: rebuilt whole
    unreadable: bool = False  # a reader cannot decode it (not merely wrong): `reader_problem`


Check = Callable[[Any, Path | None], list[Finding]]  # `cheap` or `deep`: a connection, the vault


def _count(conn: Any, sql: str, *args: object) -> int:
    return int(conn.execute(sql, args).fetchone()[0])


def cheap(conn: Any, root: Path | None = None) -> list[Finding]:
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
    return found + _version(conn)


def _version(conn: Any) -> list[Finding]:
    """The corpus version only moves on: a BM25 segment (or kept delta) from a later version, or
    one at this version while chunks changed since it was built, means `meta` went back (another
    database's log replayed over it), and a query would score no chunk changed since."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'corpus_version'").fetchone()
    now = int(row[0]) if row and str(row[0]).isdigit() else 0
    seg = conn.execute(
        "SELECT corpus_version, max_chunk_id FROM bm25_index WHERE id = 1"
    ).fetchone()
    kept = conn.execute("SELECT corpus_version FROM bm25_delta WHERE id = 1").fetchone()
    later = max(seg[0] if seg else 0, kept[0] if kept else 0)
    since = seg is not None and seg[0] == now and _changed_since(conn, seg[1])
    if later <= now and not since:
        return []
    return [Finding("version", f"the corpus version ({now}) went back behind its BM25 segment")]


def _changed_since(conn: Any, max_chunk_id: int) -> bool:
    """Whether a chunk was added or removed since the segment built up to `max_chunk_id`."""
    added = conn.execute("SELECT 1 FROM chunks WHERE id > ? LIMIT 1", (max_chunk_id,)).fetchone()
    removed = conn.execute("SELECT 1 FROM lexical_stale LIMIT 1").fetchone()
    return added is not None or removed is not None


def deep(conn: Any, root: Path | None = None) -> list[Finding]:
    """`cheap`, then every derived row decoded: each note's rows against what its file gives
    (`_documents`; with `root`, the vault, that its file is there), the BM25 segment, its terms
    and kept delta, each vector (its size, finite values, unit length) and which chunks they
    belong to. Rows that do not read back at all damage their whole part."""
    found = cheap(conn) + _documents(conn, root)
    for part, check in (("bm25", _segment), ("vectors", _vectors)):
        try:
            found += check(conn)
        except (db.DatabaseError, ValueError) as exc:
            what = " ".join(str(exc).split())[:100]
            found.append(
                Finding(
                    part, f"the {part} rows do not read back ({what})", whole=True, unreadable=True
                )
            )
    return found


def _documents(conn: Any, root: Path | None) -> list[Finding]:
    """The notes whose rows are not what their file gave: a chunk whose hash is not that of its
    note's title, its heading and text (a row altered) or whose lines run backwards, chunks not
    numbered 0..n-1 (one deleted, duplicated or moved to another note), none for a note with text,
    or (with `root`) a note whose file is not in the vault (a path altered, a row of no note; not
    one deleted since it was indexed). Their rows are dropped by `heal`: the next scan indexes the
    files again."""
    from k0maru.index.markdown import embed_input, hash_bytes
    from k0maru.wikilinks import hide_comments

    bad: set[int] = set()
    ords: dict[int, list[int]] = {}
    for doc, title, heading, text, digest, order, first, last in conn.execute(
        "SELECT c.doc_id, d.title, c.heading, c.text, c.hash, c.ord, c.line_start, c.line_end"
        " FROM chunks c JOIN documents d ON d.id = c.doc_id"
    ):
        lines_wrong = first < 0 or last < first  # (0, 0): made before lines were kept
        if lines_wrong or hash_bytes(embed_input(title, heading, text).encode()) != digest:
            bad.add(doc)
        ords.setdefault(doc, []).append(order)
    bad |= {doc for doc, got in ords.items() if sorted(got) != list(range(len(got)))}
    chunkless = conn.execute(
        "SELECT id, body FROM documents WHERE id NOT IN (SELECT doc_id FROM chunks)"
    )
    bad |= {doc for doc, body in chunkless if hide_comments(body).strip()}  # text, no chunk
    if root is not None:
        rows = conn.execute("SELECT id, path, indexed_at FROM documents")
        bad |= {doc for doc, path, at in rows if _not_there(root / path, at)}
    what = f"{len(bad)} note(s) are indexed unlike their files"
    return [Finding("documents", what, tuple(sorted(bad)))] if bad else []


def note_files(conn: Any, root: Path, chunk_chars: int, cap: int) -> list[Finding]:
    """`doctor`'s reading of the notes (never on open or `status`: it reads and parses every
    file): each note whose file still holds the bytes it was indexed from, parsed and chunked as a
    scan does; a note whose tags, links or chunks differ from what that gives (rows deleted, the
    last chunk dropped) is indexed again by `heal`."""
    from k0maru.index.prepare import Job, prepare

    bad = []
    for doc, path, size, digest in conn.execute(
        "SELECT id, path, size, xxh3_64 FROM documents"
    ).fetchall():
        got = prepare(Job(path, str(root / path), size, cap, None, True, chunk_chars))
        if got.note is None or got.digest != digest:
            continue  # changed since its scan: the next scan indexes it again
        tags = sorted(set(got.note.tags))
        links = sorted((x.target, x.key, x.heading or "", x.display or "") for x in got.note.links)
        if _rows(conn, doc) != (tags, links, [c.hash for c in got.chunks]):
            bad.append(doc)
    what = f"{len(bad)} note(s) lack tags, links or chunks their files give"
    return [Finding("documents", what, tuple(bad))] if bad else []


def reading_back(
    root: Path, chunk_chars: int, cap: int, embed: Callable[[Sequence[str]], Any] | None
) -> Check:
    """`doctor`'s check against the notes' files (`note_files`), then, when they agree and a
    model is there (`embed`), of the vectors (`sampled_vectors`)."""

    def check(conn: Any, _: Path | None = None) -> list[Finding]:
        found = note_files(conn, root, chunk_chars, cap)
        return found or (sampled_vectors(conn, embed) if embed is not None else [])

    return check


def findings(store: Any, check: Check) -> list[Finding]:
    """What `check` finds in `store` (an open `Store`), nothing repaired."""
    return check(store.conn, store.vault)


def offload_gaps(conn: Any, root: Path) -> tuple[list[str], list[str]]:
    """The offload records against the kept logs in `.k0maru/refs/`: (the node ids of logs kept
    with their sidecar but without a row: the row was deleted, the sidecar holds it; those of rows
    whose log is not there: deleted by hand, nothing to show). A log renamed into place a moment
    before its row is written reads as the first, for that moment."""
    try:
        names = {p.name for p in (root / STATE_DIR / "refs").iterdir()}
    except OSError:
        names = set()
    rows = {str(n): str(p) for n, p in conn.execute("SELECT node_id, log_path FROM offloads")}
    stems = {n.removesuffix(".gz").removesuffix(".log") for n in names if n.endswith(LOGS)}
    unrecorded = [
        node
        for node, stem in sorted((s.rsplit("_", 1)[-1], s) for s in stems)
        if f"{stem}.json" in names and node not in rows
    ]
    logless = sorted(
        n for n, path in rows.items() if PurePosixPath(path.replace("\\", "/")).name not in names
    )
    return unrecorded, logless


def offloads(conn: Any, root: Path | None = None) -> list[Finding]:
    """`offload_gaps` as findings (none without the vault, `root`); the vault's wiring repairs
    them (the sidecars are read by the offload engine)."""
    if root is None:
        return []
    unrecorded, logless = offload_gaps(conn, root)
    found = []
    if unrecorded:
        what = f"{len(unrecorded)} kept offload log(s) have no record in the index"
        found.append(Finding("offloads", what))
    if logless:
        what = f"{len(logless)} offload record(s) name a log that is not in {STATE_DIR}/refs"
        found.append(Finding("offloads", what))
    return found


def _rows(conn: Any, doc: int) -> tuple[list[Any], ...]:
    """A note's (tags, links, chunk hashes) as the index holds them, in `note_files`' order."""
    tags = [
        t for (t,) in conn.execute("SELECT tag FROM tags WHERE doc_id = ? ORDER BY tag", (doc,))
    ]
    links = sorted(
        conn.execute(
            "SELECT target, target_key, coalesce(heading, ''), coalesce(display, '')"
            " FROM links WHERE src_id = ?",
            (doc,),
        ).fetchall()
    )
    chunks = conn.execute("SELECT hash FROM chunks WHERE doc_id = ? ORDER BY ord", (doc,))
    return tags, links, [h for (h,) in chunks]


def sampled_vectors(
    conn: Any, embed: Callable[[Sequence[str]], Any], seed: int = 61
) -> list[Finding]:
    """`doctor`'s test of which chunk each vector belongs to (nothing else ties them): SAMPLE
    embedded chunks, chosen by `seed`, embedded again by `embed` (the bundled model). A stored
    vector unlike its chunk's (cosine under SAME: vectors swapped or left on the wrong chunk)
    means no vector can be trusted: all are made again."""
    from k0maru.index.markdown import embed_input

    ids = [i for (i,) in conn.execute("SELECT id FROM chunks WHERE embedded = 1 ORDER BY id")]
    picked = random.Random(seed).sample(ids, min(SAMPLE, len(ids)))
    rows = [
        conn.execute(
            "SELECT d.title, c.heading, c.text, v.embedding FROM chunks c"
            " JOIN documents d ON d.id = c.doc_id LEFT JOIN vec_chunks v ON v.rowid = c.id"
            " WHERE c.id = ?",
            (i,),
        ).fetchone()
        for i in picked
    ]
    made = embed([embed_input(t, h, x) for t, h, x, _ in rows]) if rows else []
    wrong = sum(1 for row, v in zip(rows, made, strict=True) if _cosine(row[3], v) < SAME)
    what = f"{wrong} of {len(rows)} sampled vector(s) are not their chunk's (swapped or moved)"
    return [Finding("vectors", what, whole=True)] if wrong else []


def _cosine(stored: object, made: Sequence[float]) -> float:
    if not isinstance(stored, bytes) or not sound_vector(stored):
        return 0.0
    values = array("f")
    values.frombytes(stored)
    norm = math.sqrt(sum(float(x) * float(x) for x in made)) or 1.0
    return float(sum(map(operator.mul, values, made))) / norm


def _not_there(path: Path, indexed_at: float) -> bool:
    """Whether a note's file is missing while its folder has not changed since the note was
    indexed: no deletion the next scan will see, but a row naming a file that never was there."""
    if os.path.lexists(path):
        return False
    try:
        return os.stat(path.parent).st_mtime <= indexed_at
    except OSError:  # its folder is gone too
        return True


def _vectors(conn: Any) -> list[Finding]:
    unreadable, wrong = _bad_vectors(conn)
    found = []
    if unreadable:
        what = f"{len(unreadable)} vector(s) do not read back"
        found.append(Finding("vectors", what, tuple(unreadable), unreadable=True))
    if wrong:
        found.append(Finding("vectors", f"{len(wrong)} vector(s) are damaged", tuple(wrong)))
    return found + _vector_query(conn)


def _vector_query(conn: Any) -> list[Finding]:
    """A nearest-vector query, as a search makes it: sqlite-vec's own blobs (sizes, the bitmap of
    which rows hold a vector) are read only there. It raises on a blob that does not read back,
    and finds nothing when the bitmap was lost; the bitmap counts the rows (`vec_chunks_rowids`)."""
    stored = _count(conn, "SELECT count(*) FROM vec_chunks_rowids")
    valid = sum(
        int.from_bytes(bits if isinstance(bits, bytes) else b"", "little").bit_count()
        for (bits,) in conn.execute("SELECT validity FROM vec_chunks_chunks")
    )
    if valid != stored:  # a query would answer slots no row names (their rowids rows deleted)
        what = f"the vectors' bitmap holds {valid} vector(s) for {stored} row(s)"
        return [Finding("vectors", what, whole=True)]
    if not stored:
        return []
    probe = array("f", [1.0] + [0.0] * (EMBED_DIM - 1)).tobytes()
    hits = conn.execute(
        "SELECT count(*) FROM (SELECT rowid FROM vec_chunks WHERE embedding MATCH ? AND k = 1)",
        (probe,),
    ).fetchone()[0]
    return [] if hits else [Finding("vectors", "the stored vectors answer no query", whole=True)]


def _segment(conn: Any) -> list[Finding]:
    row = conn.execute("SELECT CAST(blob AS BLOB) FROM bm25_index WHERE id = 1").fetchone()
    if row is None:
        return []
    try:
        size = len(SegmentBlob.unpack(row[0]).chunk_ids)
    except ValueError:
        return [Finding("bm25", "the BM25 segment is not readable", unreadable=True)]
    for term, chunks, scores in conn.execute(
        "SELECT term, CAST(chunks AS BLOB), CAST(scores AS BLOB) FROM bm25_terms"
    ):
        where = array("i")
        if len(chunks) != len(scores) or len(chunks) % 4:
            what = f"the BM25 segment's term {term!r} is damaged"
            return [Finding("bm25", what, unreadable=True)]
        where.frombytes(chunks)
        if where and (min(where) < 0 or max(where) >= size):
            return [Finding("bm25", f"the BM25 term {term!r} names chunks the segment lacks")]
    delta = conn.execute("SELECT CAST(blob AS BLOB) FROM bm25_delta WHERE id = 1").fetchone()
    if delta is not None and not sealed(bytes(delta[0])):
        return [Finding("bm25", "the kept BM25 delta is damaged")]
    return []


def _bad_vectors(conn: Any) -> tuple[list[int], list[int]]:
    """(the chunks whose stored vector does not read back as EMBED_DIM floats, those whose vector
    is wrong: not finite, not unit length, or held without the chunk being embedded)."""
    embedded = {i for (i,) in conn.execute("SELECT id FROM chunks WHERE embedded = 1")}
    unreadable, wrong = [], []
    for rowid, blob in conn.execute("SELECT rowid, embedding FROM vec_chunks"):
        if not isinstance(blob, bytes) or len(blob) != VECTOR_BYTES:
            unreadable.append(int(rowid))
        elif rowid not in embedded or not sound_vector(blob):
            wrong.append(int(rowid))
    return unreadable, wrong


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
    if "version" in parts:  # past every version the BM25 rows were made at
        conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) SELECT 'corpus_version', CAST(1 + max("
            "coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'corpus_version'), 0),"
            " coalesce((SELECT corpus_version FROM bm25_index), 0),"
            " coalesce((SELECT corpus_version FROM bm25_delta), 0)) AS TEXT)"
        )
    if "documents" in parts:
        _heal_documents(conn, _ids(findings, "documents"))
    if "bm25" in parts:
        for table in ("bm25_index", "bm25_terms", "bm25_delta", "lexical_stale"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("DELETE FROM meta WHERE key = ?", (TERMS_META,))
    if any(f.part == "vectors" and f.whole for f in findings):
        conn.execute("DROP TABLE vec_chunks")
        conn.execute(VECTORS_TABLE)
        conn.execute("UPDATE chunks SET embedded = 0")
    elif "vectors" in parts:
        _heal_vectors(conn, _ids(findings, "vectors"))


def _ids(findings: list[Finding], part: str) -> set[int]:
    return {i for f in findings if f.part == part and f.ids for i in f.ids}


def _heal_documents(conn: Any, notes: set[int]) -> None:
    """Drop the rows of the notes `notes` (all of them go with the note's own) and the rows that
    belong to no note; links to a note that is gone are left unresolved."""
    conn.executemany("DELETE FROM documents WHERE id = ?", [(i,) for i in sorted(notes)])
    for table in _DOC_ROWS:
        conn.execute(f"DELETE FROM {table} WHERE doc_id NOT IN (SELECT id FROM documents)")
    conn.execute("DELETE FROM links WHERE src_id NOT IN (SELECT id FROM documents)")
    conn.execute("UPDATE links SET dst_id = NULL WHERE dst_id NOT IN (SELECT id FROM documents)")


def _heal_vectors(conn: Any, bad: set[int]) -> None:
    embedded = {i for (i,) in conn.execute("SELECT id FROM chunks WHERE embedded = 1")}
    stored = {i for (i,) in conn.execute("SELECT rowid FROM vec_chunks_rowids")}
    for rowid in sorted((stored - embedded) | (bad & stored)):
        conn.execute("DELETE FROM vec_chunks WHERE rowid = ?", (rowid,))
    conn.executemany(
        "UPDATE chunks SET embedded = 0 WHERE id = ?", [(i,) for i in (embedded - stored) | bad]
    )
