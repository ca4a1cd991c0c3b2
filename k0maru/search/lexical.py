"""The BM25 channel: a bm25s main segment persisted in the index file, plus a delta scored at query
time.

The main segment is stored as one row per term (`bm25_terms`: the chunk positions that hold it and
their precomputed BM25 scores) beside a small blob of the chunks' ids; a query reads only its own
terms' rows and scores them in plain Python, so it never imports numpy or reads the whole segment.

An edit costs O(chunks changed since the last merge), never O(corpus): the chunks added since the
main segment was built (ids above its `max_chunk_id`) form a delta when the corpus version moves,
and the main segment's entries for chunks deleted since (`lexical_stale`) are masked. The delta is
kept in the index; the next version's starts from it and tokenises only the chunks it lacks (a
chunk's id and a hash of its text, title and language say whether it is the same), adding their
postings as a block of their own; its chunks gone since are masked as the main segment's are. IDF is
exact for the corpus as it is now: each query term's document frequency is the main segment's plus
the delta's, less their stale chunks, and the main segment's stored scores are rescaled by new IDF /
old IDF; only the average chunk length stays the main segment's. So a delta chunk scores as the same
text in the main segment would, and the ranking matches a full rebuild but for that length term. The
segments are merged (a full rebuild) off the query path, by `scan` and the background worker, once
`Bm25State.merge_due`; `scripts/bench_lexical.py` measures the ranking difference against a full
rebuild.
"""

from __future__ import annotations

import contextlib
import copy
import heapq
import logging
import math
import struct
import threading
import time
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain
from typing import Any

import xxhash

from k0maru.errors import K0maruError
from k0maru.index.bm25_blob import SegmentBlob
from k0maru.index.bm25_store import Bm25Store
from k0maru.index.languages import detect
from k0maru.memory import release_free_memory
from k0maru.search.terms import INDEX, split_group, tokenize, word_groups

K1, B = 1.5, 0.75
# a BM25-only query: a chunk holding a query word only in another form (`file` for `files`) scores
# this share of the stem's score, a chunk with the word as written scores by that form (its own,
# sharper IDF); by measurement on the four labelled sets (scripts/eval_retrieval.py, README)
VARIANT_WEIGHT = 0.4
# a query whose words do not say its language is stemmed in English and in each language that holds
# at least this share of the notes
VAULT_LANGUAGE_SHARE = 0.1
TERMS_FORMAT = 8  # 4: words of any script; 5: Cyrillic, Greek, Arabic... words stemmed; 6: each
# note's Latin-script words stemmed in its language; 7: one row per term, read per query; 8: a
# note's aliases read beside its title
Posting = tuple[Sequence[int], Sequence[float]]  # chunk positions and their scores
# ... and the factor that brings those scores to the corpus as it is now (IDF)
Part = tuple[Sequence[int], Sequence[float], float]
Shares = Callable[[], dict[str, float]]  # each language's share of the vault's notes


class SegmentUnreadable(K0maruError):
    """The stored segment's terms cannot be read as the segment this process loaded: rebuilt by
    another process since (`damaged` False: load it again), or damaged (rebuild it)."""

    def __init__(self, message: str, damaged: bool):
        super().__init__(message)
        self.damaged = damaged


def _idf(df: int, n: int) -> float:
    """Lucene's IDF, as bm25s computes it."""
    return math.log1p((n - df + 0.5) / (df + 0.5))


def _best(scores: dict[int, float], k: int, tie: Callable[[int], int]) -> list[int]:
    """The k keys of the highest scores, best first (ties: by `tie`); the k-th score is found over
    the bare values first, so only the keys that reach it are sorted."""
    if k <= 0 or not scores:
        return []
    floor = heapq.nlargest(k, scores.values())[-1] if len(scores) > k else -math.inf
    reach = [p for p, s in scores.items() if s >= floor]
    reach.sort(key=lambda p: (-scores[p], tie(p)))
    return reach[:k]


def _add(out: dict[int, float], parts: list[Part], weight: float) -> None:
    """Add `weight` times each part's scores to `out`, by position."""
    for where, score, factor in parts:
        w = weight * factor
        for p, s in zip(where, score, strict=True):
            out[p] = out.get(p, 0.0) + w * s


def _posting(chunks: bytes, scores: bytes, size: int) -> Posting:
    """A stored term's postings, checked against the segment's `size` (ValueError if damaged)."""
    where, score = array("i"), array("f")
    where.frombytes(chunks)
    score.frombytes(scores)
    if len(where) != len(score) or (where and not 0 <= min(where) <= max(where) < size):
        raise ValueError("a damaged BM25 term")
    return where, score


@dataclass(frozen=True, slots=True)
class LexicalHit:
    chunk_id: int
    doc_id: int
    score: float
    matched: float = 1.0  # the share of the query's words (or symbols) the chunk holds


@dataclass(frozen=True, slots=True)
class NoteHit:
    """A note's BM25 evidence: `score` mixes its best chunk (`best`, `best_score`) and the whole
    note (`whole`), each first divided by the query's best such score (`NoteEvidence`)."""

    doc_id: int
    score: float
    best: LexicalHit
    best_score: float
    whole: float


@dataclass(frozen=True, slots=True)
class NoteEvidence:
    """How a note's BM25 evidence is formed: `whole_weight` of the whole-note score (the sum of its
    chunks' scores over chunks ** `length_power`), the rest its best chunk's; each is divided by the
    query's best, so the mix is in [0, 1]."""

    whole_weight: float = 0.0
    length_power: float = 1.0

    def mix(self, best: dict[int, float], whole: dict[int, float]) -> dict[int, float]:
        top_best, top_whole = max(best.values(), default=0.0), max(whole.values(), default=0.0)
        if top_best <= 0:
            return {}
        w = self.whole_weight if top_whole > 0 else 0.0
        return {
            n: (1 - w) * b / top_best + (w * whole[n] / top_whole if w else 0.0)
            for n, b in best.items()
        }


class TermIds(dict[str, int]):
    """A vocabulary that gives a term it has not seen the next id when asked for it."""

    def __missing__(self, term: str) -> int:
        self[term] = tid = len(self)
        return tid


class Built:
    """Every term's postings of a segment built here, as two buffers (chunk positions, scores) and
    each term's bounds in them, each term's bytes cut only when asked for (saved or queried)."""

    def __init__(self, where: bytes, score: bytes, bounds: array[int], vocab: dict[str, int]):
        self.where, self.score, self.bounds, self.vocab = where, score, bounds, vocab

    def get(self, term: str) -> tuple[bytes, bytes] | None:
        i = self.vocab.get(term)
        if i is None or i + 1 >= len(self.bounds):  # bm25s adds "", a term of no chunk
            return None
        at, end = self.bounds[i], self.bounds[i + 1]
        return self.where[at:end], self.score[at:end]

    def items(self) -> Iterator[tuple[str, tuple[bytes, bytes]]]:
        for term in self.vocab:
            if (got := self.get(term)) is not None:
                yield term, got


class _Chunks:
    """Each chunk's term ids, read from one array of them all and where each chunk ends (what
    bm25s reads of a tokenised corpus: its length and, three times, its chunks in order)."""

    def __init__(self, terms: array[int], ends: array[int]):
        self.terms, self.ends = terms, ends

    def __len__(self) -> int:
        return len(self.ends)

    def __iter__(self) -> Iterator[array[int]]:
        at = 0
        for end in self.ends:  # a copy each: an array iterates 5x faster than a memoryview
            yield self.terms[at:end]
            at = end


class MainSegment:
    """Chunk-level BM25 (Lucene variant, k1=1.5, b=0.75) over the chunks up to `max_chunk_id`:
    their ids and notes in chunk order (a chunk's position), and each term's postings, every one
    held when built here, else read from the index as queries ask for them."""

    def __init__(
        self,
        chunk_ids: array[int],
        doc_ids: array[int],
        avgdl: float,
        num_docs: int,
        version: int,
        built: Built | None = None,
    ):
        self.chunk_ids = chunk_ids
        self.doc_ids = doc_ids
        self.avgdl = avgdl
        self.size = num_docs  # the documents bm25s counted (its IDF's N)
        self.version = version
        self.max_chunk_id = max(chunk_ids, default=-1)
        self.built = built  # every term's (positions, scores) bytes, when built in this process
        self._read: dict[str, Posting | None] = {}  # the terms read so far

    @classmethod
    def build(cls, store: Bm25Store) -> MainSegment:
        import bm25s  # a slow import (numpy): only a rebuild needs it, never a query
        import numpy as np
        from bm25s.tokenization import Tokenized

        logging.getLogger("bm25s").setLevel(logging.ERROR)
        store.release_page_cache()  # what a scan before it left: the build's peak starts lower
        release_free_memory()
        version = store.corpus_version()
        # the chunks stream from the index, each kept only as its term ids (4 bytes a term) in one
        # array for all of them, so a large vault never holds every text and token list at once,
        # nor an object per chunk
        vocab = TermIds()
        ids = vocab.__getitem__
        chunk_ids, doc_ids, terms, ends = array("q"), array("q"), array("I"), array("q")
        for chunk_id, doc_id, title, heading, text, lang in with_aliases(
            store.lexical_corpus(), store
        ):
            chunk_ids.append(chunk_id)
            doc_ids.append(doc_id)
            terms.extend(map(ids, tokenize(f"{title}\n{heading}\n{text}", INDEX, lang)))
            ends.append(len(terms))
        if not vocab:  # nothing indexable (e.g. only one-letter words): an empty index, not a crash
            return cls(chunk_ids, doc_ids, 1.0, 0, version, Built(b"", b"", array("q"), {}))
        avgdl = max(len(terms) / len(ends), 1.0)
        store.release_mapped_pages()
        bm25 = bm25s.BM25(k1=K1, b=B, method="lucene")
        bm25.index(Tokenized(_Chunks(terms, ends), vocab), show_progress=False)
        m, size = bm25.scores, int(bm25.scores["num_docs"])
        del terms, ends, bm25  # freed before the postings are drawn from the scores, one at a time
        built = Built(
            np.asarray(m.pop("indices"), dtype=np.int32).tobytes(),
            np.asarray(m.pop("data"), dtype=np.float32).tobytes(),
            array("q", (np.asarray(m.pop("indptr"), dtype=np.int64) * 4).tobytes()),
            vocab,
        )
        return cls(chunk_ids, doc_ids, avgdl, size, version, built)

    def postings(self, term: str) -> Posting | None:
        """(chunk positions, stored scores) of `term`, None if the main segment never saw it; the
        term must have been `fetch`ed first."""
        return self._read[term]

    def fetch(self, terms: Iterable[str], store: Bm25Store | None) -> None:
        """Read the postings of those of `terms` not read yet: from memory when built here, else
        from the index through `store` (SegmentUnreadable if it holds another segment now, or a
        damaged term)."""
        missing = [t for t in dict.fromkeys(terms) if t not in self._read]
        if not missing:
            return
        rows: Built | dict[str, tuple[bytes, bytes]] | None = self.built
        if rows is None:
            rows = store.bm25_terms(self.version, missing) if store is not None else None
            if rows is None:
                raise SegmentUnreadable("the BM25 segment was rebuilt meanwhile", damaged=False)
        try:
            for term in missing:
                stored = rows.get(term)
                self._read[term] = (
                    _posting(*stored, len(self.chunk_ids)) if stored is not None else None
                )
        except ValueError as exc:
            raise SegmentUnreadable(f"the BM25 segment's term {term!r} is damaged", True) from exc

    # ---- persistence -----------------------------------------------------------------------
    def to_blob(self) -> bytes:
        blob = SegmentBlob(TERMS_FORMAT, self.chunk_ids, self.doc_ids, self.avgdl, self.size)
        return blob.pack()

    @classmethod
    def from_blob(cls, blob: bytes, version: int) -> MainSegment:
        """The segment a blob describes, its terms read on demand (ValueError if the blob is
        damaged or of another term format)."""
        got = SegmentBlob.unpack(blob)
        if got.terms_format != TERMS_FORMAT:
            raise ValueError("a segment of an older term format")  # rebuilt by the caller, once
        return cls(got.chunk_ids, got.doc_ids, got.avgdl, got.num_docs, version)

    def save(self, store: Bm25Store) -> bool:
        """Persist; refused (False) if the corpus moved on meanwhile."""
        assert self.built is not None, "only a segment built here is saved"
        rows = ((term, where, score) for term, (where, score) in self.built.items())
        return store.save_bm25(
            self.version, self.to_blob(), rows, self.max_chunk_id, len(self.chunk_ids)
        )


# a kept delta: magic; its chunks, stale positions, blocks and size; then the chunks' ids, notes'
# ids and fingerprints (int64 each) and the stale positions (int32); then each block of postings:
# its terms, postings and terms' bytes (uint32 each), each term's postings count (uint32),
# positions (int32), tf components (float64) and the terms, one per line
DELTA_HEADER = struct.Struct("<4sIIII")
BLOCK_HEADER = struct.Struct("<III")
DELTA_MAGIC = b"k0d2"
# a version's delta keeps the blocks of the one before it and adds one for its new chunks; past
# this many, they are joined into one (60-80 ms at 38,000 notes: the worker joins them first)
MAX_BLOCKS = 8
Tfc = dict[str, tuple[list[int], list[float]]]  # a term's positions and tf components
Row = tuple[int, int, str, str, str, str]  # a delta chunk as `Bm25Store.lexical_delta` gives it


def with_aliases(rows: Iterable[Row], store: Bm25Store) -> Iterator[Row]:
    """Chunk rows with their note's aliases beside its title: a name the note is also called by
    (frontmatter `aliases`) is read as its title is, in every chunk."""
    names = store.alias_titles()
    for chunk_id, doc_id, title, heading, text, lang in rows:
        also = names.get(doc_id)
        yield chunk_id, doc_id, f"{title} {also}" if also else title, heading, text, lang


def _fingerprint(row: Row) -> int:
    """What a chunk's postings are made of (title, heading, text, language), hashed: a chunk of a
    kept delta with the same id and fingerprint has the same postings."""
    _, _, title, heading, text, lang = row
    return (
        xxhash.xxh3_64_intdigest(
            f"{lang}\n{title}\n{heading}\n{text}".encode(errors="surrogatepass")
        )
        - 2**63
    )


def _tf_parts(row: Row, avgdl: float) -> dict[str, float]:
    """Each term of a chunk and its tf component (its length normalised by the main segment's)."""
    _, _, title, heading, text, lang = row
    terms = tokenize(f"{title}\n{heading}\n{text}", INDEX, lang)
    norm = K1 * (1 - B + B * len(terms) / avgdl)  # the length part of the tf component
    return {term: tf / (tf + norm) for term, tf in Counter(terms).items()}


def _read(blob: bytes, at: int, parts: Iterable[tuple[str, int]]) -> tuple[list[array[Any]], int]:
    """Arrays of the given type codes and lengths, read from `blob` at `at`, and where they end
    (ValueError if the blob is short)."""
    out: list[array[Any]] = []
    for code, count in parts:
        part = array(code)
        end = at + part.itemsize * count
        part.frombytes(blob[at:end])
        if len(part) != count:
            raise ValueError("a damaged BM25 delta")
        out.append(part)
        at = end
    return out, at


class _Block:
    """A block of a kept delta's postings: each term's positions and tf components, and the bytes
    it is kept as (ValueError or struct.error if damaged)."""

    def __init__(self, blob: bytes, at: int = 0):
        t, p, size = BLOCK_HEADER.unpack_from(blob, at)
        (counts, self.where, self.tfc), end = _read(
            blob, at + BLOCK_HEADER.size, (("I", t), ("i", p), ("d", p))
        )
        terms = blob[end : end + size].decode().split("\n") if t else []
        if len(terms) != t or sum(counts) != p:
            raise ValueError("a damaged BM25 delta")
        self.end = end + size
        self.raw = blob[at : self.end]
        self.starts = dict(
            zip(terms, zip(accumulate(counts, initial=0), counts, strict=False), strict=True)
        )

    @classmethod
    def of(cls, tfc: Tfc) -> _Block:
        """The block of these postings."""
        terms, postings = list(tfc), tfc.values()
        where = array("i", list(chain.from_iterable(w for w, _ in postings)))
        part = array("d", list(chain.from_iterable(s for _, s in postings)))
        counts = array("I", [len(w) for w, _ in postings])
        text = "\n".join(terms).encode()
        head = BLOCK_HEADER.pack(len(terms), len(where), len(text))
        return cls(head + counts.tobytes() + where.tobytes() + part.tobytes() + text)

    def postings(self, term: str) -> Posting | None:
        if (found := self.starts.get(term)) is None:
            return None
        start, count = found
        return self.where[start : start + count], self.tfc[start : start + count]


def _joined(blocks: list[_Block]) -> _Block:
    """One block of the postings of `blocks` (each term's positions stay in order: a later block's
    are after an earlier one's)."""
    tfc: Tfc = {}
    for block in blocks:
        where, part = block.where.tolist(), block.tfc.tolist()
        for term, (start, count) in block.starts.items():
            got = tfc.setdefault(term, ([], []))
            got[0].extend(where[start : start + count])
            got[1].extend(part[start : start + count])
    return _Block.of(tfc)


def _fresh_block(rows: Sequence[Row], fresh: list[int], at: int, avgdl: float) -> _Block:
    """The block of the `fresh` rows' postings, at positions from `at` on: they are tokenised."""
    tfc: Tfc = {}
    for i, j in enumerate(fresh):
        for term, s in _tf_parts(rows[j], avgdl).items():
            if (got := tfc.get(term)) is None:
                tfc[term] = ([at + i], [s])
            else:
                got[0].append(at + i)
                got[1].append(s)
    return _Block.of(tfc)


class _Kept:
    """A delta's chunks (every one it ever held: those gone since are stale positions, as the main
    segment's deleted chunks are), its blocks of postings and size, as kept in the index."""

    def __init__(self, blob: bytes = b""):
        """The kept delta `blob` (ValueError or struct.error if damaged); empty without one."""
        self.chunk_ids, self.doc_ids, self.prints = array("q"), array("q"), array("q")
        self.stale, self.size, self.blocks = array("i"), 0, list[_Block]()
        if not blob:
            return
        magic, n, k, b, self.size = DELTA_HEADER.unpack_from(blob)
        if magic != DELTA_MAGIC:
            raise ValueError("not a BM25 delta of this format")
        parts, at = _read(blob, DELTA_HEADER.size, (("q", n), ("q", n), ("q", n), ("i", k)))
        self.chunk_ids, self.doc_ids, self.prints, self.stale = parts
        for _ in range(b):
            self.blocks.append(block := _Block(blob, at))
            at = block.end
        if at != len(blob):
            raise ValueError("a damaged BM25 delta")

    def postings(self, term: str) -> Posting | None:
        found = [got for block in self.blocks if (got := block.postings(term)) is not None]
        if len(found) < 2:
            return found[0] if found else None
        where, part = array("i"), array("d")
        for w, s in found:
            where.extend(w)
            part.extend(s)
        return where, part

    def pack(self) -> bytes:
        head = DELTA_HEADER.pack(
            DELTA_MAGIC, len(self.chunk_ids), len(self.stale), len(self.blocks), self.size
        )
        body = (self.chunk_ids, self.doc_ids, self.prints, self.stale)
        return head + b"".join(a.tobytes() for a in body) + b"".join(b.raw for b in self.blocks)

    def _fresh(self, rows: Sequence[Row], prints: list[int], n: int) -> tuple[list[int], set[int]]:
        """The `rows` this delta lacks (by index), and its positions (after the main segment's `n`)
        of chunks no longer among them: those stale already, and those gone or changed since."""
        gone = {p for p in self.stale if p >= n}
        live = {
            key: n + j
            for j, key in enumerate(zip(self.chunk_ids, self.prints, strict=True))
            if n + j not in gone
        }
        fresh = []
        for j, key in enumerate(zip((r[0] for r in rows), prints, strict=True)):
            if live.pop(key, None) is None:
                fresh.append(j)
        return fresh, gone | set(live.values())

    def next(
        self, main: MainSegment, rows: Sequence[Row], stale_ids: list[int], join_past: int
    ) -> _Kept:
        """The delta of `rows` over `main`, from this one: each of its chunks still among `rows`
        (same id and fingerprint) keeps its position and postings, the others are stale; the rows
        it lacks are tokenised into a new block, after them; past `join_past` blocks, they are
        joined. Positions never move, so no posting is rewritten."""
        n, ids = len(main.chunk_ids), main.chunk_ids
        prints = list(map(_fingerprint, rows))
        fresh, gone = self._fresh(rows, prints, n)
        out = _Kept()
        out.chunk_ids = self.chunk_ids + array("q", (rows[j][0] for j in fresh))
        out.doc_ids = self.doc_ids + array("q", (rows[j][1] for j in fresh))
        out.prints = self.prints + array("q", (prints[j] for j in fresh))
        # main.chunk_ids is sorted: a binary search per stale chunk, not a pass over the corpus
        in_main = {p for c in stale_ids if (p := bisect_left(ids, c)) < n and ids[p] == c}
        out.stale = array("i", sorted(in_main | gone))
        out.size = len(rows) + len(stale_ids)
        out.blocks = list(self.blocks)
        if fresh:
            out.blocks.append(_fresh_block(rows, fresh, n + len(self.chunk_ids), main.avgdl))
        if len(out.blocks) > join_past:
            out.blocks = [_joined(out.blocks)]
        return out


class Delta:
    """The chunks the main segment lacks (their tf components; IDF is applied per query) and the
    stale positions: the main segment's chunks deleted since it was built, and the delta's own
    gone since it was first kept. The first process to compute it for a corpus version keeps it in
    the index (`Delta.of`): the others read it instead of tokenising its chunks again, and a later
    version tokenises only the chunks the kept one lacks."""

    def __init__(
        self,
        chunk_ids: array[int],
        doc_ids: array[int],
        stale: set[int],
        size: int,
        postings: Callable[[str], Posting | None],
    ):
        self.chunk_ids = chunk_ids
        self.doc_ids = doc_ids
        self.stale = stale  # positions (main segment's, then the delta's) of chunks deleted since
        self.size = size  # chunks new since, plus those deleted
        self.postings = postings  # a term's positions (after the main segment's) and tf components

    @classmethod
    def of(
        cls, main: MainSegment, store: Bm25Store, version: int, join_past: int = MAX_BLOCKS
    ) -> Delta:
        """The delta that brings `main` to corpus `version`: read when kept, else computed (from
        the delta kept for an earlier version, when there is one; its blocks joined past
        `join_past`) and kept."""
        kept = store.bm25_delta(version, main.version)
        if kept is not None:
            with contextlib.suppress(ValueError, struct.error):  # damaged: computed again
                return cls.unpack(kept)
        prior = _Kept()
        if (blob := store.bm25_prior_delta(main.version)) is not None:
            with contextlib.suppress(ValueError, struct.error):  # damaged: all tokenised
                prior = _Kept(blob)
        rows = list(with_aliases(store.lexical_delta(main.max_chunk_id), store))
        stale = store.lexical_stale()
        now = prior.next(main, rows, stale, join_past)
        with contextlib.suppress(K0maruError):  # a cache: kept next time
            store.keep_bm25_delta(version, main.version, now.pack())
        return cls.kept(now)

    @classmethod
    def kept(cls, kept: _Kept) -> Delta:
        return cls(kept.chunk_ids, kept.doc_ids, set(kept.stale), kept.size, kept.postings)

    @classmethod
    def unpack(cls, blob: bytes) -> Delta:
        """A kept delta (ValueError or struct.error if damaged)."""
        return cls.kept(_Kept(blob))


def keep_delta(store: Bm25Store) -> None:
    """Keep the delta of the corpus version the index is at over the stored main segment (from the
    one kept before, tokenising only the chunks it lacks, its blocks joined into one), reading no
    term of the segment and importing no numpy: the background worker's, after the notes it
    indexed, so a query neither tokenises them nor joins blocks."""
    row, version = store.bm25_blob(), store.corpus_version()
    if row is None or row[0] == version:
        return
    with contextlib.suppress(ValueError):  # a damaged or older segment: the next merge rebuilds it
        main = MainSegment.from_blob(row[1], row[0])
        Delta.of(main, store, version, join_past=1)


class _Memo:
    """What a loaded index works out once and every reader of it shares."""

    __slots__ = ("counts", "vault_languages")

    def __init__(self) -> None:
        self.vault_languages: tuple[str, ...] | None = None
        self.counts: Counter[int] | None = None  # each note's live chunks


class LexicalIndex:
    """The main segment, plus the delta that brings it to corpus `version`; `reading(store)` gives
    the view of it a query reads its terms through."""

    def __init__(
        self,
        main: MainSegment,
        delta: Delta | None,
        version: int,
        shares: Shares = dict,
    ):
        """`shares()`: each language's share of the vault's notes, asked once, when a query's own
        words do not say its language."""
        self.main = main
        self.delta = delta
        self.version = version
        self._shares = shares
        self._memo = _Memo()
        self._store: Bm25Store | None = None
        if delta is None:
            self.chunk_ids, self.doc_ids = main.chunk_ids, main.doc_ids
        else:
            self.chunk_ids = main.chunk_ids + delta.chunk_ids
            self.doc_ids = main.doc_ids + delta.doc_ids

    def reading(self, store: Bm25Store) -> LexicalIndex:
        """This index, reading the terms it has not read yet through `store` (this thread's)."""
        view = copy.copy(self)
        view._store = store
        return view

    def query_languages(self, query: str) -> tuple[str, ...]:
        """The languages to stem a query's words in ("" is English): the vault's (English and each
        language that holds at least VAULT_LANGUAGE_SHARE of its notes), or the one of them the
        query's function words name."""
        memo = self._memo
        if memo.vault_languages is None:
            shares = self._shares()
            memo.vault_languages = (
                "",
                *sorted(
                    (lang for lang, s in shares.items() if lang and s >= VAULT_LANGUAGE_SHARE),
                    key=lambda lang: -shares[lang],
                ),
            )
        said = detect(query, min_score=1.0, min_words=1)
        said = "" if said == "english" else said
        return (said,) if said in memo.vault_languages else memo.vault_languages

    @property
    def delta_size(self) -> int:
        return self.delta.size if self.delta is not None else 0

    def _postings(self, term: str) -> list[Part]:
        """Where `term` occurs (chunk positions, main segment then delta) and its BM25 there, with
        IDF for the corpus as it is now, in one part per segment; empty when no live chunk holds it.
        Stale entries are included: `_query_scores` drops them at the end."""
        main, delta = self.main, self.delta
        in_main = main.postings(term)
        if delta is None:  # the main segment alone: its stored scores as they are
            return [(*in_main, 1.0)] if in_main is not None else []
        in_delta = delta.postings(term)
        if in_main is None and in_delta is None:
            return []
        n_main = main.size
        df_main = len(in_main[0]) if in_main is not None else 0
        df = df_main + (len(in_delta[0]) if in_delta is not None else 0)
        if delta.stale:
            stale = delta.stale
            df -= sum(p in stale for got in (in_main, in_delta) if got for p in got[0])
        if df <= 0:
            return []
        idf = _idf(df, n_main + len(delta.chunk_ids) - len(delta.stale))
        parts: list[Part] = []
        if in_main is not None:
            parts.append((*in_main, idf / _idf(df_main, n_main)))
        if in_delta is not None:
            parts.append((*in_delta, idf))
        return parts

    def _stem_postings(self, stems: tuple[str, ...]) -> list[Part]:
        """The postings of a word's stems (one per query language): a chunk holding several scores
        by the best."""
        parts = [part for stem in dict.fromkeys(stems) for part in self._postings(stem)]
        if len(stems) == 1 or len(parts) < 2:
            return parts
        best: dict[int, float] = {}
        for where, score, factor in parts:
            for p, s in zip(where, score, strict=True):
                if s * factor > best.get(p, -math.inf):
                    best[p] = s * factor
        return [(list(best), list(best.values()), 1.0)]

    def _scores(self, groups: list[tuple[str, ...]]) -> tuple[dict[int, float], Counter[int]]:
        """BM25 of every chunk that holds a query word, by position (query terms counted as often
        as they occur; stale chunks included), and how many of the distinct groups each holds. A
        group (stems..., =surface) scores a chunk that holds the word as written by that form, and
        a chunk that holds only another form of it at VARIANT_WEIGHT times the stem's score."""
        out: dict[int, float] = {}
        held: Counter[int] = Counter()
        seen: set[tuple[str, ...]] = set()
        for group in groups:
            stems, surface = split_group(group)
            stem = self._stem_postings(stems)
            if group not in seen:
                seen.add(group)
                for where, _, _ in stem:
                    held.update(where)
            written = self._postings(surface) if surface and stem else []
            before = [[out.get(p, 0.0) for p in where] for where, _, _ in written]
            # a word no chunk holds as written, or a symbol: its other forms count fully
            _add(out, stem, VARIANT_WEIGHT if written else 1.0)
            for (where, score, factor), prior in zip(written, before, strict=True):
                # the word as written: its own score replaces the variant share
                for p, s, was in zip(where, score, prior, strict=True):
                    out[p] = was + factor * s
        return out, held

    def _groups(self, query: str) -> list[tuple[str, ...]]:
        """The query's word groups (`word_groups`), their terms read."""
        groups = word_groups(query, self.query_languages(query))
        self.main.fetch((term for group in groups for term in group), self._store)
        return groups

    def _query_scores(
        self, query: str, allowed_docs: set[int] | None
    ) -> tuple[dict[int, float], Counter[int], int]:
        """Each matching chunk's positive BM25 for `query` (only chunks of `allowed_docs`, when
        given), how many of its distinct word groups each holds, and how many there are."""
        groups = self._groups(query)
        if not groups:
            return {}, Counter(), 1
        scores, held = self._scores(groups)
        stale = self.delta.stale if self.delta is not None else set()
        if stale or allowed_docs is not None:  # every score is positive: only these are dropped
            doc_ids = self.doc_ids
            scores = {
                p: s
                for p, s in scores.items()
                if p not in stale and (allowed_docs is None or doc_ids[p] in allowed_docs)
            }
        return scores, held, len(dict.fromkeys(groups))

    def _hits(
        self, at: Iterable[int], scores: dict[int, float], held: Counter[int], distinct: int
    ) -> list[LexicalHit]:
        return [
            LexicalHit(self.chunk_ids[p], self.doc_ids[p], scores[p], held[p] / distinct)
            for p in at
        ]

    def _top(self, scores: dict[int, float], k: int) -> list[int]:
        """Positions of the k best scores, best first (ties: the lower chunk id)."""
        return _best(scores, k, self.chunk_ids.__getitem__)

    def search(self, query: str, k: int, allowed_docs: set[int] | None = None) -> list[LexicalHit]:
        """Top-k chunks with a positive score, best first (only chunks of `allowed_docs`, when
        given): a word matches as written first and by its other forms after (`_scores`), in the
        query's languages (`query_languages`)."""
        if k <= 0:
            return []
        scores, held, distinct = self._query_scores(query, allowed_docs)
        return self._hits(self._top(scores, k), scores, held, distinct)

    def _counts(self) -> Counter[int]:
        """Each note's live chunk count, kept."""
        memo = self._memo
        if memo.counts is None:
            counts = Counter(self.doc_ids)
            if self.delta is not None:
                counts.subtract(self.doc_ids[p] for p in self.delta.stale)
            memo.counts = counts
        return memo.counts

    def search_notes(
        self,
        query: str,
        k: int,
        chunk_k: int,
        evidence: NoteEvidence,
        allowed_docs: set[int] | None = None,
    ) -> tuple[list[NoteHit], list[LexicalHit]]:
        """The k notes with the best BM25 evidence, best first, and the top `chunk_k` chunks. A
        note's evidence (`NoteEvidence`) mixes its best chunk with the whole note: the sum of its
        chunks' scores over its chunk count to the power `length_power`, so a page whose every part
        is about the query outranks a hub (glossary, FAQ) with one short part that names it."""
        if k <= 0:
            return [], []
        scores, held, distinct = self._query_scores(query, allowed_docs)
        doc_ids = self.doc_ids
        total: dict[int, float] = {}
        best_at: dict[int, int] = {}  # each note's best chunk (ties: the first position)
        for p, s in scores.items():
            n = doc_ids[p]
            total[n] = total.get(n, 0.0) + s
            at = best_at.get(n)
            if at is None or s > scores[at] or (s == scores[at] and p < at):
                best_at[n] = p
        counts, power = self._counts(), evidence.length_power
        whole = {n: t / (counts[n] or 1) ** power for n, t in total.items()}
        best = {n: scores[p] for n, p in best_at.items()}
        mixed = evidence.mix(best, whole)
        order = _best(mixed, k, int)
        chunk_hits = self._hits((best_at[n] for n in order), scores, held, distinct)
        return [
            NoteHit(n, mixed[n], hit, best[n], whole[n])
            for n, hit in zip(order, chunk_hits, strict=True)
        ], self._hits(self._top(scores, chunk_k), scores, held, distinct)


class LexicalCache:
    """Keeps the main segment loaded per process; on a change computes only the delta (O(changed
    chunks))."""

    def __init__(self, kind: type[LexicalIndex] | None = None) -> None:
        """`kind`: the index's type (`lexical_arrays.ArrayIndex` scores over numpy arrays, for a
        process that answers many queries); `LexicalIndex` scores in plain Python, sparing a
        one-shot command numpy's import."""
        self.kind = kind or LexicalIndex
        self._main: MainSegment | None = None
        self._index: LexicalIndex | None = None
        self.last_build_ms: float | None = None
        self._rebuild_next = False  # the stored segment is damaged: build it again
        # threads asking at once (a server's warm-up and its first query) wait for one load
        self._lock = threading.Lock()

    def get(self, store: Bm25Store, merge: bool = False) -> LexicalIndex:
        """The index at the store's current corpus version, reading its terms through `store`. A
        query never rebuilds the main segment once one exists; `merge` (scan, background worker)
        rebuilds it when `Bm25State.merge_due`."""
        version = store.corpus_version()
        index = self._index
        if index is None or index.version != version or merge or self._moved(store):
            with self._lock:
                index = self._load(store, version, merge)
        return index.reading(store)

    def forget(self, damaged: bool = False) -> None:
        """Drop what is loaded: the next `get` reads the stored segment again, or rebuilds it when
        it is `damaged`."""
        with self._lock:
            self._main = self._index = None
            self._rebuild_next = damaged

    def _moved(self, store: Bm25Store) -> bool:
        """Whether the stored segment is no longer the one read (another process merged)."""
        main = self._main
        return main is not None and main.built is None and store.bm25_version() != main.version

    def _load(self, store: Bm25Store, version: int, merge: bool) -> LexicalIndex:
        if (
            self._index is not None
            and self._index.version == version
            and not merge
            and not self._moved(store)
        ):
            return self._index
        state = store.bm25_state()
        main = None
        if (
            state is not None and not (merge and state.merge_due) and not self._rebuild_next
        ):  # the persisted segment serves
            if self._main is not None and self._main.version == state.version:
                main = self._main
            elif (row := store.bm25_blob()) is not None:
                with contextlib.suppress(ValueError):  # damaged or old: rebuilt below
                    main = MainSegment.from_blob(row[1], row[0])
        if main is None:
            main = self._rebuild(store)
        self._main = main
        delta = Delta.of(main, store, version) if main.version != version else None
        # read now, through this thread's connection: the index outlives the thread that loads it (a
        # server's warm-up), and a connection of a thread that ended is closed by the next one
        # opened
        shares = store.language_shares()
        self._index = self.kind(main, delta, version, lambda: shares)
        return self._index

    def _rebuild(self, store: Bm25Store) -> MainSegment:
        t0 = time.perf_counter()
        main = MainSegment.build(store)
        self.last_build_ms = (time.perf_counter() - t0) * 1000
        self._rebuild_next = False
        with contextlib.suppress(
            K0maruError
        ):  # busy or read-only: serve from memory, persist next time
            main.save(store)
        return main
