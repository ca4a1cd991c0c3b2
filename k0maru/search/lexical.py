"""The BM25 channel: a bm25s index over chunks, persisted in the index file, rebuilt only on change."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import time
from dataclasses import dataclass

import bm25s
import numpy as np

from k0maru.errors import K0maruError
from k0maru.index.store import Store
from k0maru.search.terms import tokenize

logging.getLogger("bm25s").setLevel(logging.ERROR)


@dataclass(frozen=True, slots=True)
class LexicalHit:
    chunk_id: int
    doc_id: int
    score: float


class LexicalIndex:
    """Chunk-level BM25 (Lucene variant, k1=1.5, b=0.75) with chunk->document mapping."""

    def __init__(self, bm25: bm25s.BM25 | None, chunk_ids: np.ndarray, doc_ids: np.ndarray, version: int):
        self.bm25 = bm25
        self.chunk_ids = chunk_ids
        self.doc_ids = doc_ids
        self.version = version

    @classmethod
    def build(cls, store: Store) -> LexicalIndex:
        version = store.corpus_version()
        rows = store.lexical_corpus()
        chunk_ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        doc_ids = np.fromiter((r[1] for r in rows), dtype=np.int64, count=len(rows))
        if not rows:
            return cls(None, chunk_ids, doc_ids, version)
        corpus = [tokenize(f"{title}\n{heading}\n{text}") for _, _, title, heading, text in rows]
        if not any(corpus):  # nothing indexable (e.g. only one-letter words): an empty index, not a crash
            return cls(None, chunk_ids, doc_ids, version)
        bm25 = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        bm25.index(corpus, show_progress=False)
        return cls(bm25, chunk_ids, doc_ids, version)

    # ---- persistence -----------------------------------------------------------------------
    def to_blob(self) -> bytes:
        buf = io.BytesIO()
        arrays: dict[str, np.ndarray] = {"chunk_ids": self.chunk_ids, "doc_ids": self.doc_ids}
        if self.bm25 is not None:
            scores = self.bm25.scores
            vocab = sorted(self.bm25.vocab_dict.items(), key=lambda kv: kv[1])
            arrays.update(
                data=scores["data"], indices=scores["indices"], indptr=scores["indptr"],
                num_docs=np.asarray([scores["num_docs"]]),
                vocab=np.frombuffer(json.dumps([k for k, _ in vocab]).encode(), dtype=np.uint8),
            )
        np.savez(buf, **arrays)  # type: ignore[arg-type]
        return buf.getvalue()

    @classmethod
    def from_blob(cls, blob: bytes, version: int) -> LexicalIndex:
        with np.load(io.BytesIO(blob)) as npz:
            chunk_ids, doc_ids = npz["chunk_ids"], npz["doc_ids"]
            if "data" not in npz:
                return cls(None, chunk_ids, doc_ids, version)
            bm25 = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
            bm25.scores = {"data": npz["data"], "indices": npz["indices"], "indptr": npz["indptr"],
                           "num_docs": int(npz["num_docs"][0])}
            vocab = json.loads(npz["vocab"].tobytes().decode())
        bm25.vocab_dict = {token: i for i, token in enumerate(vocab)}
        bm25.unique_token_ids_set = set(bm25.vocab_dict.values())
        bm25.nonoccurrence_array = None  # lucene variant: no non-occurrence term
        return cls(bm25, chunk_ids, doc_ids, version)

    def save(self, store: Store) -> None:
        store.save_bm25_blob(self.version, self.to_blob())  # refused if the corpus moved on meanwhile

    # ---- query -----------------------------------------------------------------------------
    def search(self, query: str, k: int, allowed_docs: set[int] | None = None) -> list[LexicalHit]:
        """Top-k chunks with a positive score, best first (only chunks of `allowed_docs`, when given)."""
        if self.bm25 is None or k <= 0:
            return []
        ids = self.bm25.get_tokens_ids(tokenize(query))
        if not ids:
            return []
        scores = self.bm25.get_scores(ids)
        if allowed_docs is not None:
            scores = np.where(np.isin(self.doc_ids, np.fromiter(allowed_docs, dtype=np.int64)), scores, 0.0)
        positive = np.flatnonzero(scores > 0)
        if positive.size == 0:
            return []
        top = positive[np.argpartition(-scores[positive], k - 1)[:k]] if positive.size > k else positive
        top = top[np.lexsort((self.chunk_ids[top], -scores[top]))]
        return [LexicalHit(int(self.chunk_ids[i]), int(self.doc_ids[i]), float(scores[i])) for i in top]


class LexicalCache:
    """Keeps the loaded index per process; reloads or rebuilds when the corpus version moves."""

    def __init__(self) -> None:
        self._index: LexicalIndex | None = None
        self.last_build_ms: float | None = None

    def get(self, store: Store) -> LexicalIndex:
        version = store.corpus_version()
        if self._index is not None and self._index.version == version:
            return self._index
        row = store.bm25_blob()
        if row and row[0] == version:
            try:
                self._index = LexicalIndex.from_blob(row[1], version)
                return self._index
            except (ValueError, KeyError, OSError):
                pass  # unreadable blob: rebuild below
        t0 = time.perf_counter()
        index = LexicalIndex.build(store)
        self.last_build_ms = (time.perf_counter() - t0) * 1000
        with contextlib.suppress(K0maruError):  # busy writer: serve from memory, persist next time
            index.save(store)
        self._index = index
        return index
