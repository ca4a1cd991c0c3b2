"""The BM25 channel: a bm25s main segment persisted in the index file, plus a delta scored at query
time.

An edit costs O(chunks changed since the last merge), never O(corpus): the chunks added since the
main segment was built (ids above its `max_chunk_id`) are tokenised when the corpus version moves,
and the main segment's entries for chunks deleted since (`lexical_stale`) are masked. IDF is exact
for the corpus as it is now: each query term's document frequency is the main segment's, less its
stale chunks, plus the delta's, and the main segment's stored scores are rescaled by new IDF / old
IDF; only the average chunk length stays the main segment's. So a delta chunk scores as the same
text in the main segment would, and the ranking matches a full rebuild but for that length term. The
segments are merged (a full rebuild) off the query path, by `scan` and the background worker, once
`Bm25State.merge_due`; `scripts/bench_lexical.py` measures the ranking difference against a full
rebuild.
"""

from __future__ import annotations

import contextlib
import io
import logging
import math
import threading
import time
import zipfile
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from k0maru.errors import K0maruError
from k0maru.index.bm25_store import Bm25Store
from k0maru.index.languages import detect
from k0maru.search.terms import INDEX, tokenize, word_groups

K1, B = 1.5, 0.75
# a BM25-only query: a chunk holding a query word only in another form (`file` for `files`) scores
# this share of the stem's score, a chunk with the word as written scores by that form (its own,
# sharper IDF); by measurement on the four labelled sets (scripts/eval_retrieval.py, README)
VARIANT_WEIGHT = 0.4
# a query whose words do not say its language is stemmed in English and in each language that holds
# at least this share of the notes
VAULT_LANGUAGE_SHARE = 0.1
TERMS_FORMAT = 6  # 4: words of any script; 5: Cyrillic, Greek, Arabic... words stemmed; 6: each
# note's Latin-script words stemmed in its language


def _idf(df: int, n: int) -> float:
    """Lucene's IDF, as bm25s computes it."""
    return math.log1p((n - df + 0.5) / (df + 0.5))


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

    def mix(self, best: np.ndarray, whole: np.ndarray) -> np.ndarray:
        top_best, top_whole = float(best.max(initial=0.0)), float(whole.max(initial=0.0))
        if top_best <= 0:
            return np.zeros_like(best)
        w = self.whole_weight if top_whole > 0 else 0.0
        return (1 - w) * best / top_best + (w * whole / top_whole if w else 0.0)


@dataclass(slots=True)
class Postings:
    """bm25s's score matrix (CSC: per term, the chunks that hold it and their precomputed BM25
    scores) and its vocabulary; a query reads these arrays directly, so only a rebuild imports
    bm25s."""

    vocab: dict[str, int]
    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    num_docs: int


class TermIds(dict[str, int]):
    """A vocabulary that gives a term it has not seen the next id when asked for it."""

    def __missing__(self, term: str) -> int:
        self[term] = tid = len(self)
        return tid


def term_ids(
    rows: Iterable[tuple[int, int, str, str, str, str]], vocab: TermIds
) -> Iterator[tuple[int, int, list[int]]]:
    """(chunk id, doc id, its terms as ids in `vocab`) of each (chunk id, doc id, title, heading,
    text, language) row; a term new to `vocab` gets the next id."""
    ids = vocab.__getitem__
    for chunk_id, doc_id, title, heading, text, lang in rows:
        yield chunk_id, doc_id, list(map(ids, tokenize(f"{title}\n{heading}\n{text}", INDEX, lang)))


class MainSegment:
    """Chunk-level BM25 (Lucene variant, k1=1.5, b=0.75) over the chunks up to `max_chunk_id`."""

    def __init__(
        self,
        postings: Postings | None,
        chunk_ids: np.ndarray,
        doc_ids: np.ndarray,
        avgdl: float,
        version: int,
    ):
        self.postings_of = postings
        self.chunk_ids = chunk_ids
        self.doc_ids = doc_ids
        self.avgdl = avgdl
        self.version = version
        self.max_chunk_id = int(chunk_ids.max()) if chunk_ids.size else -1

    @classmethod
    def build(cls, store: Bm25Store) -> MainSegment:
        import bm25s  # a slow import: only a rebuild needs it, never a query

        logging.getLogger("bm25s").setLevel(logging.ERROR)
        version = store.corpus_version()
        # the chunks stream from the index, each kept only as its term ids (4 bytes a term, not a
        # string each), so a large vault never holds every text and token list at once
        vocab = TermIds()
        chunk_ids, doc_ids, corpus = array("q"), array("q"), []
        for chunk_id, doc_id, ids in term_ids(store.lexical_corpus(), vocab):
            chunk_ids.append(chunk_id)
            doc_ids.append(doc_id)
            corpus.append(array("I", ids))
        chunks, docs = np.array(chunk_ids, dtype=np.int64), np.array(doc_ids, dtype=np.int64)
        if not vocab:  # nothing indexable (e.g. only one-letter words): an empty index, not a crash
            return cls(None, chunks, docs, 1.0, version)
        bm25 = bm25s.BM25(k1=K1, b=B, method="lucene")
        bm25.index((corpus, dict(vocab)), show_progress=False)
        m = bm25.scores
        postings = Postings(
            dict(bm25.vocab_dict), m["data"], m["indices"], m["indptr"], int(m["num_docs"])
        )
        return cls(postings, chunks, docs, max(sum(map(len, corpus)) / len(corpus), 1.0), version)

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(chunk positions, stored scores) of `term`, None if the main segment never saw it."""
        p = self.postings_of
        tid = p.vocab.get(term) if p is not None else None
        if p is None or tid is None:
            return None
        lo, hi = p.indptr[tid], p.indptr[tid + 1]
        return p.indices[lo:hi], p.data[lo:hi]

    @property
    def size(self) -> int:
        return self.postings_of.num_docs if self.postings_of is not None else 0

    # ---- persistence -----------------------------------------------------------------------
    def to_blob(self) -> bytes:
        buf = io.BytesIO()
        arrays: dict[str, np.ndarray] = {
            "chunk_ids": self.chunk_ids,
            "doc_ids": self.doc_ids,
            "avgdl": np.asarray([self.avgdl]),
            "terms": np.asarray([TERMS_FORMAT]),
        }
        if (p := self.postings_of) is not None:
            # terms hold no whitespace: one per line
            vocab = sorted(p.vocab, key=p.vocab.__getitem__)
            arrays.update(
                data=p.data,
                indices=p.indices,
                indptr=p.indptr,
                num_docs=np.asarray([p.num_docs]),
                vocab=np.frombuffer("\n".join(vocab).encode(), dtype=np.uint8),
            )
        np.savez(buf, **arrays)  # type: ignore[arg-type]
        return buf.getvalue()

    @classmethod
    def from_blob(cls, blob: bytes, version: int) -> MainSegment:
        with np.load(io.BytesIO(blob)) as npz:
            if "terms" not in npz or int(npz["terms"][0]) != TERMS_FORMAT:
                raise ValueError("a segment of an older term format")  # rebuilt by the caller, once
            chunk_ids, doc_ids, avgdl = npz["chunk_ids"], npz["doc_ids"], float(npz["avgdl"][0])
            if "data" not in npz:
                return cls(None, chunk_ids, doc_ids, avgdl, version)
            vocab = npz["vocab"].tobytes().decode().split("\n")
            postings = Postings(
                {term: i for i, term in enumerate(vocab)},
                npz["data"],
                npz["indices"],
                npz["indptr"],
                int(npz["num_docs"][0]),
            )
        return cls(postings, chunk_ids, doc_ids, avgdl, version)

    def save(self, store: Bm25Store) -> bool:
        """Persist; refused (False) if the corpus moved on meanwhile."""
        return store.save_bm25_blob(
            self.version, self.to_blob(), self.max_chunk_id, int(self.chunk_ids.size)
        )


class Delta:
    """The chunks the main segment lacks (their tf components; IDF is applied per query) and the
    mask of the main segment's stale entries."""

    def __init__(self, main: MainSegment, store: Bm25Store):
        rows = store.lexical_delta(main.max_chunk_id)
        stale = store.lexical_stale()
        self.size = len(rows) + len(stale)
        self.stale_mask = np.zeros(main.chunk_ids.size, dtype=bool)
        if (
            stale
        ):  # main.chunk_ids is sorted: a binary search per stale chunk, not a pass over the corpus
            ids = np.asarray(stale, dtype=np.int64)
            pos = np.minimum(np.searchsorted(main.chunk_ids, ids), max(main.chunk_ids.size - 1, 0))
            if main.chunk_ids.size:
                self.stale_mask[pos[main.chunk_ids[pos] == ids]] = True
        self.chunk_ids = np.asarray([r[0] for r in rows], dtype=np.int64)
        self.doc_ids = np.asarray([r[1] for r in rows], dtype=np.int64)
        # every term occurrence as (term id, chunk), counted with numpy rather than a Counter per
        # chunk
        vocab = TermIds()
        term_of: list[int] = []
        lengths = np.zeros(len(rows), dtype=np.int64)
        for i, (_, _, terms) in enumerate(term_ids(rows, vocab)):
            term_of.extend(terms)
            lengths[i] = len(terms)
        n = max(len(rows), 1)
        # sorted by term, then chunk: the postings, grouped by term
        pairs, tf = np.unique(
            np.asarray(term_of, dtype=np.int64) * n + np.repeat(np.arange(len(rows)), lengths),
            return_counts=True,
        )
        t, d = pairs // n, pairs % n
        # per chunk: the length part of the tf component
        norm = K1 * (1 - B + B * lengths / main.avgdl)
        self.vocab = vocab
        self.docs, self.tfc = d, tf / (tf + norm[d])  # tf components; IDF comes per query
        self.indptr = np.concatenate([[0], np.cumsum(np.bincount(t, minlength=len(vocab)))])
        self.stale_in_main = int(self.stale_mask.sum())

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        j = self.vocab.get(term)
        if j is None:
            return None
        lo, hi = self.indptr[j], self.indptr[j + 1]
        return self.docs[lo:hi], self.tfc[lo:hi]


class LexicalIndex:
    """The main segment, plus the delta that brings it to corpus `version`."""

    def __init__(
        self,
        main: MainSegment,
        delta: Delta | None,
        version: int,
        shares: Callable[[], dict[str, float]] = dict,
    ):
        """`shares()`: each language's share of the vault's notes, asked once, when a query's own
        words do not say its language."""
        self.main = main
        self.delta = delta
        self.version = version
        self._shares = shares
        self._vault_languages: tuple[str, ...] | None = None
        self._note_index: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if delta is None:
            self.chunk_ids, self.doc_ids = main.chunk_ids, main.doc_ids
        else:
            self.chunk_ids = np.concatenate([main.chunk_ids, delta.chunk_ids])
            self.doc_ids = np.concatenate([main.doc_ids, delta.doc_ids])

    def query_languages(self, query: str) -> tuple[str, ...]:
        """The languages to stem a query's words in ("" is English): the vault's (English and each
        language that holds at least VAULT_LANGUAGE_SHARE of its notes), or the one of them the
        query's function words name."""
        if self._vault_languages is None:
            shares = self._shares()
            self._vault_languages = (
                "",
                *sorted(
                    (lang for lang, s in shares.items() if lang and s >= VAULT_LANGUAGE_SHARE),
                    key=lambda lang: -shares[lang],
                ),
            )
        said = detect(query, min_score=1.0, min_words=1)
        said = "" if said == "english" else said
        return (said,) if said in self._vault_languages else self._vault_languages

    @property
    def delta_size(self) -> int:
        return self.delta.size if self.delta is not None else 0

    def _postings(self, term: str) -> list[tuple[np.ndarray, np.ndarray]]:
        """Where `term` occurs (chunk positions, main segment then delta) and its BM25 there, with
        IDF for the corpus as it is now, in one part per segment; empty when no live chunk holds it.
        Stale main entries are included: `_scores` zeroes them at the end."""
        main, delta = self.main, self.delta
        in_main = main.postings(term)
        if delta is None:  # the main segment alone: its stored scores as they are
            return [in_main] if in_main is not None else []
        in_delta = delta.postings(term)
        if in_main is None and in_delta is None:
            return []
        n_main = main.size
        df_main = in_main[0].size if in_main is not None else 0
        stale = (
            int(delta.stale_mask[in_main[0]].sum())
            if in_main is not None and delta.stale_in_main
            else 0
        )
        df = df_main - stale + (in_delta[0].size if in_delta is not None else 0)
        if df <= 0:
            return []
        idf = _idf(df, n_main + delta.chunk_ids.size - delta.stale_in_main)
        parts = []
        if in_main is not None:
            parts.append((in_main[0], in_main[1] * (idf / _idf(df_main, n_main))))
        if in_delta is not None:
            parts.append((main.chunk_ids.size + in_delta[0], in_delta[1] * idf))
        return parts

    def _stem_postings(self, stems: tuple[str, ...]) -> list[tuple[np.ndarray, np.ndarray]]:
        """The postings of a word's stems (one per query language): a chunk holding several scores
        by the best."""
        parts = [part for stem in dict.fromkeys(stems) for part in self._postings(stem)]
        if len(stems) == 1 or len(parts) < 2:
            return parts
        where = np.concatenate([w for w, _ in parts])
        score = np.concatenate([s for _, s in parts])
        order = np.lexsort((-score, where))
        where, score = where[order], score[order]
        first = np.flatnonzero(np.r_[True, where[1:] != where[:-1]])
        return [(where[first], score[first])]

    def _scores(self, groups: list[tuple[str, ...]]) -> tuple[np.ndarray, np.ndarray]:
        """BM25 of every chunk, main segment then delta (query terms counted as often as they
        occur), and how many of the distinct groups each chunk holds. A group (stems..., =surface)
        scores a chunk that holds the word as written by that form, and a chunk that holds only
        another form of it at VARIANT_WEIGHT times the stem's score."""
        out = np.zeros(self.chunk_ids.size, dtype=np.float64)
        held = np.zeros(self.chunk_ids.size, dtype=np.int32)
        seen: set[tuple[str, ...]] = set()
        for group in groups:
            surface = group[-1] if len(group) > 1 and group[-1].startswith("=") else ""
            stem = self._stem_postings(group[:-1] if surface else group)
            if group not in seen:
                seen.add(group)
                for where, _ in stem:
                    held[where] += 1
            written = self._postings(surface) if surface and stem else []
            if (
                not written
            ):  # a symbol, or a word no chunk holds as written: its other forms count fully
                for where, score in stem:
                    out[where] += score
                continue
            before = [out[where] for where, _ in written]
            for where, score in stem:
                out[where] += VARIANT_WEIGHT * score
            for (where, score), prior in zip(written, before, strict=True):
                # the word as written: its own score replaces the variant share
                out[where] = prior + score
        if self.delta is not None and self.delta.stale_in_main:
            out[: self.main.chunk_ids.size][self.delta.stale_mask] = 0.0
        return out, held

    def _query_scores(
        self, query: str, allowed_docs: set[int] | None
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """Each chunk's BM25 for `query` (0 outside `allowed_docs`), how many of its distinct word
        groups each holds, and how many there are."""
        groups = word_groups(query, self.query_languages(query))
        if not groups:
            empty = np.zeros(self.chunk_ids.size)
            return empty, empty.astype(np.int32), 1
        scores, held = self._scores(groups)
        if allowed_docs is not None:
            scores = np.where(
                np.isin(self.doc_ids, np.fromiter(allowed_docs, dtype=np.int64)), scores, 0.0
            )
        return scores, held, len(dict.fromkeys(groups))

    def _hits(
        self, at: np.ndarray, scores: np.ndarray, held: np.ndarray, distinct: int
    ) -> list[LexicalHit]:
        return [
            LexicalHit(
                int(self.chunk_ids[i]),
                int(self.doc_ids[i]),
                float(scores[i]),
                float(held[i]) / distinct,
            )
            for i in at
        ]

    def _top(self, scores: np.ndarray, k: int) -> np.ndarray:
        """Positions of the k best positive scores, best first (ties: the lower chunk id)."""
        positive = np.flatnonzero(scores > 0)
        if positive.size > k:
            positive = positive[np.argpartition(-scores[positive], k - 1)[:k]]
        return positive[np.lexsort((self.chunk_ids[positive], -scores[positive]))]

    def search(self, query: str, k: int, allowed_docs: set[int] | None = None) -> list[LexicalHit]:
        """Top-k chunks with a positive score, best first (only chunks of `allowed_docs`, when
        given): a word matches as written first and by its other forms after (`_scores`), in the
        query's languages (`query_languages`)."""
        if k <= 0:
            return []
        scores, held, distinct = self._query_scores(query, allowed_docs)
        return self._hits(self._top(scores, k), scores, held, distinct)

    def _notes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(each note's id, each chunk position's note, each note's live chunk count), kept."""
        if self._note_index is None:
            notes, owner = np.unique(self.doc_ids, return_inverse=True)
            live = np.ones(self.doc_ids.size)
            if self.delta is not None and self.delta.stale_in_main:
                live[: self.main.chunk_ids.size][self.delta.stale_mask] = 0.0
            count = np.bincount(owner, weights=live, minlength=notes.size)
            self._note_index = (notes, owner, np.maximum(count, 1.0))
        return self._note_index

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
        top_chunks = self._top(scores, chunk_k)
        notes, owner, count = self._notes()
        whole = (
            np.bincount(owner, weights=scores, minlength=notes.size) / count**evidence.length_power
        )
        best = np.zeros(notes.size)
        np.maximum.at(best, owner, scores)
        mixed = evidence.mix(best, whole)
        order = np.flatnonzero(mixed > 0)
        if order.size > k:
            order = order[np.argpartition(-mixed[order], k - 1)[:k]]
        order = order[np.lexsort((notes[order], -mixed[order]))]
        # each note's best chunk: the highest-scoring position among its own
        by_note = np.lexsort((-scores, owner))
        first = np.searchsorted(owner[by_note], order)
        chunk_at = by_note[first]
        chunk_hits = self._hits(chunk_at, scores, held, distinct)
        return [
            NoteHit(int(notes[n]), float(mixed[n]), hit, float(best[n]), float(whole[n]))
            for n, hit in zip(order, chunk_hits, strict=True)
        ], self._hits(top_chunks, scores, held, distinct)


class LexicalCache:
    """Keeps the main segment loaded per process; on a change computes only the delta (O(changed
    chunks))."""

    def __init__(self) -> None:
        self._main: MainSegment | None = None
        self._index: LexicalIndex | None = None
        self.last_build_ms: float | None = None
        # threads asking at once (a server's warm-up and its first query) wait for one load
        self._lock = threading.Lock()

    def get(self, store: Bm25Store, merge: bool = False) -> LexicalIndex:
        """The index at the store's current corpus version. A query never rebuilds the main segment
        once one exists; `merge` (scan, background worker) rebuilds it when
        `Bm25State.merge_due`."""
        version = store.corpus_version()
        index = self._index
        if index is not None and index.version == version and not merge:
            return index
        with self._lock:
            return self._load(store, version, merge)

    def _load(self, store: Bm25Store, version: int, merge: bool) -> LexicalIndex:
        if self._index is not None and self._index.version == version and not merge:
            return self._index
        state = store.bm25_state()
        main = None
        if state is not None and not (merge and state.merge_due):  # the persisted segment serves
            if self._main is not None and self._main.version == state.version:
                main = self._main
            elif (row := store.bm25_blob()) is not None:
                with contextlib.suppress(
                    ValueError, KeyError, OSError, zipfile.BadZipFile
                ):  # unreadable (damaged) or old: rebuilt below
                    main = MainSegment.from_blob(row[1], row[0])
        if main is None:
            main = self._rebuild(store)
        self._main = main
        delta = Delta(main, store) if main.version != version else None
        # read now, through this thread's connection: the index outlives the thread that loads it (a
        # server's warm-up), and a connection of a thread that ended is closed by the next one
        # opened
        shares = store.language_shares()
        self._index = LexicalIndex(main, delta, version, lambda: shares)
        return self._index

    def _rebuild(self, store: Bm25Store) -> MainSegment:
        t0 = time.perf_counter()
        main = MainSegment.build(store)
        self.last_build_ms = (time.perf_counter() - t0) * 1000
        with contextlib.suppress(
            K0maruError
        ):  # busy or read-only: serve from memory, persist next time
            main.save(store)
        return main
