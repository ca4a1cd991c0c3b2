"""BM25 scored over numpy arrays: the ranking of `lexical.LexicalIndex`, for a process that answers
many queries (a server), where numpy's import is paid once and a common word's long postings score
an order of magnitude faster than in plain Python. A one-shot command scores in plain Python and
never imports numpy."""

from __future__ import annotations

import numpy as np

from k0maru.search.lexical import (
    VARIANT_WEIGHT,
    Delta,
    LexicalHit,
    LexicalIndex,
    MainSegment,
    NoteEvidence,
    NoteHit,
    Part,
    Shares,
)
from k0maru.search.terms import split_group

Arrays = tuple[np.ndarray, np.ndarray]  # chunk positions, scores


def _arrays(part: Part) -> Arrays:
    """A part's positions and its scores brought to the corpus as it is now."""
    where, score, factor = part
    at, values = np.asarray(where), np.asarray(score)  # an array's own type, read in place
    return at, np.multiply(values, factor, dtype=np.float64) if factor != 1.0 else values


def _top(values: np.ndarray, k: int, tie: np.ndarray) -> np.ndarray:
    """Positions of the k highest positive values, best first (ties: the lower `tie`): every
    position that reaches the k-th value is sorted, so a tie at the cut is broken as anywhere."""
    at = np.flatnonzero(values > 0)
    if at.size > k:
        kth = np.partition(values[at], at.size - k)[at.size - k]
        at = at[values[at] >= kth]
    return at[np.lexsort((tie[at], -values[at]))][:k]


class ArrayIndex(LexicalIndex):
    """`LexicalIndex`, its scores, note evidence and top-k computed over arrays."""

    def __init__(self, main: MainSegment, delta: Delta | None, version: int, shares: Shares = dict):
        super().__init__(main, delta, version, shares)
        self.ids = np.frombuffer(self.chunk_ids, np.int64)
        self.docs = np.frombuffer(self.doc_ids, np.int64)
        self.stale = np.zeros(self.ids.size, dtype=bool)
        if delta is not None and delta.stale:
            self.stale[np.fromiter(delta.stale, np.int64)] = True
        # each note's id, each chunk position's note, each note's live chunk count
        self.notes, self.owner = np.unique(self.docs, return_inverse=True)
        live = np.bincount(self.owner, weights=~self.stale, minlength=self.notes.size)
        self.counts = np.maximum(live, 1.0)

    def _stem_arrays(self, stems: tuple[str, ...]) -> list[Arrays]:
        """The postings of a word's stems (one per query language): a chunk holding several scores
        by the best."""
        parts = [_arrays(part) for stem in dict.fromkeys(stems) for part in self._postings(stem)]
        if len(stems) == 1 or len(parts) < 2:
            return parts
        where = np.concatenate([w for w, _ in parts])
        score = np.concatenate([s for _, s in parts])
        order = np.lexsort((-score, where))
        where, score = where[order], score[order]
        first = np.flatnonzero(np.r_[True, where[1:] != where[:-1]])
        return [(where[first], score[first])]

    def _array_scores(
        self, query: str, allowed_docs: set[int] | None
    ) -> tuple[np.ndarray, np.ndarray, int]:
        """`LexicalIndex._query_scores` over arrays: every chunk's score (0 where it holds no
        query word, is stale or outside `allowed_docs`) and how many of the groups it holds."""
        out = np.zeros(self.ids.size)
        held = np.zeros(self.ids.size, dtype=np.int32)
        groups = self._groups(query)
        seen: set[tuple[str, ...]] = set()
        for group in groups:
            stems, surface = split_group(group)
            stem = self._stem_arrays(stems)
            if group not in seen:
                seen.add(group)
                for where, _ in stem:
                    held[where] += 1
            written = (
                [_arrays(part) for part in self._postings(surface)] if surface and stem else []
            )
            before = [out[where] for where, _ in written]
            for where, score in stem:
                out[where] += (VARIANT_WEIGHT if written else 1.0) * score
            for (where, score), prior in zip(written, before, strict=True):
                out[where] = prior + score
        out[self.stale] = 0.0
        if allowed_docs is not None:
            out[~np.isin(self.docs, np.fromiter(allowed_docs, np.int64))] = 0.0
        return out, held, max(len(dict.fromkeys(groups)), 1)

    def _array_hits(
        self, at: np.ndarray, scores: np.ndarray, held: np.ndarray, distinct: int
    ) -> list[LexicalHit]:
        return [
            LexicalHit(int(self.ids[i]), int(self.docs[i]), float(scores[i]), held[i] / distinct)
            for i in at
        ]

    def _array_top(self, scores: np.ndarray, k: int) -> np.ndarray:
        """Positions of the k best positive scores, best first (ties: the lower chunk id)."""
        return _top(scores, k, self.ids)

    def search(self, query: str, k: int, allowed_docs: set[int] | None = None) -> list[LexicalHit]:
        if k <= 0:
            return []
        scores, held, distinct = self._array_scores(query, allowed_docs)
        return self._array_hits(self._array_top(scores, k), scores, held, distinct)

    def search_notes(
        self,
        query: str,
        k: int,
        chunk_k: int,
        evidence: NoteEvidence,
        allowed_docs: set[int] | None = None,
    ) -> tuple[list[NoteHit], list[LexicalHit]]:
        if k <= 0:
            return [], []
        scores, held, distinct = self._array_scores(query, allowed_docs)
        notes, owner = self.notes, self.owner
        whole = np.bincount(owner, weights=scores, minlength=notes.size) / (
            self.counts**evidence.length_power
        )
        best = np.zeros(notes.size)
        np.maximum.at(best, owner, scores)
        top_best, top_whole = float(best.max(initial=0.0)), float(whole.max(initial=0.0))
        if top_best <= 0:
            return [], []
        w = evidence.whole_weight if top_whole > 0 else 0.0
        mixed = (1 - w) * best / top_best + (w * whole / top_whole if w else 0.0)
        order = _top(mixed, k, notes)
        # each note's best chunk: the highest-scoring position among its own, the first on a tie
        by_note = np.lexsort((-scores, owner))
        chunk_at = by_note[np.searchsorted(owner[by_note], order)]
        chunk_hits = self._array_hits(chunk_at, scores, held, distinct)
        return [
            NoteHit(int(notes[n]), float(mixed[n]), hit, float(best[n]), float(whole[n]))
            for n, hit in zip(order, chunk_hits, strict=True)
        ], self._array_hits(self._array_top(scores, chunk_k), scores, held, distinct)
