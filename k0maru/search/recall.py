"""Hybrid recall: a weighted sum of the two channels' normalised scores, leaning on BM25 the more of the
query is code or in a script the model does not read, plus an optional graph signal (hybrid only).

score(d) = w · bm25(d) / bm25(top)  +  (1 − w) · (cos(d) − floor) / (1 − floor)  +  graph(d)
w = bm25_weight_words + (bm25_weight_code − bm25_weight_words) · lexical_share(query)

A document's channel score is that of its best chunk; each channel contributes a pool of pool_min
documents, whatever the limit, so the top of a ranking never depends on it. A vector hit below the cosine
`floor` adds nothing (a note sharing no term with the query gets nothing from BM25 either), and a chunk not
embedded yet keeps its BM25 vote. graph(d) = graph_boost × min(its own score, the best fused score among
the pooled candidates d links to or is linked from); off by default. No note with score 0 is ever a hit,
and a query nothing answers (no chunk reaching `relevance_cosine` nor holding `relevance_terms` of its
words) gets no hits and one warning. The passage is the document's chunk with the best fused score. Every
number is reported with --explain; the defaults come from scripts/eval_retrieval.py's dev halves
(docs/retrieval.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from k0maru.config import Settings
from k0maru.errors import K0maruError
from k0maru.index import copies, db
from k0maru.index.store import Store
from k0maru.search import lexical, vectors
from k0maru.search.filters import Filters
from k0maru.search.results import RecallHit, RecallResult
from k0maru.search.snippets import snippet
from k0maru.search.terms import lexical_share

if TYPE_CHECKING:
    from k0maru.search.embedding import Embedder

Mode = Literal["bm25", "vector", "hybrid"]
MODES: tuple[str, ...] = ("bm25", "vector", "hybrid")


def fuse(
    bm25: dict[int, float],
    cosine: dict[int, float],
    w_bm25: float,
    floor: float,
    unembedded: set[int] | frozenset[int] = frozenset(),
) -> dict[int, tuple[float, float]]:
    """(BM25 part, vector part) of each document: max-normalised BM25 and floor-normalised cosine, weighted.
    A document in `unembedded` (its best BM25 chunk has no vector yet) keeps its full BM25 vote: its
    missing vector vote is taken to be as strong as its BM25 vote, so pending embeddings cost nothing but
    the vector channel's own evidence."""
    top = max(bm25.values(), default=0.0)
    parts: dict[int, tuple[float, float]] = (
        {d: (w_bm25 * s / top, 0.0) for d, s in bm25.items()} if top > 0 else {}
    )
    for d, c in cosine.items():
        if c >= floor:
            parts[d] = (parts.get(d, (0.0, 0.0))[0], (1 - w_bm25) * (c - floor) / (1 - floor))
    for d in unembedded & bm25.keys():
        b, v = parts[d]
        parts[d] = (b, max(v, (1 - w_bm25) * bm25[d] / top))
    return parts


def graph_boosts(
    edges: list[tuple[int, int]], boost: float, fused: dict[int, float], titles: dict[int, str]
) -> dict[int, tuple[float, list[str]]]:
    """Each candidate linked to or from other candidates gets `boost` × the best fused score among them, with
    the links that earned it (reported even when the boost is 0, so --explain shows the graph)."""
    reasons: dict[int, list[str]] = {}
    best: dict[int, float] = {}
    for src, dst in edges:
        reasons.setdefault(src, []).append(f"links to [[{titles.get(dst, dst)}]]")
        reasons.setdefault(dst, []).append(f"linked from [[{titles.get(src, src)}]]")
        best[src] = max(best.get(src, 0.0), fused.get(dst, 0.0))
        best[dst] = max(best.get(dst, 0.0), fused.get(src, 0.0))
    # a page's links can at most double its own score: an index that links everywhere never wins on links
    return {
        doc: (boost * min(best[doc], fused.get(doc, 0.0)), sorted(set(r)))
        for doc, r in reasons.items()
    }


def passage_scores(
    bm25_hits: list[Any], vec_hits: list[Any], docs: set[int], w_bm25: float, floor: float
) -> dict[int, int]:
    """Each document's chunk with the best fused score (the same weights as the documents'), whose
    passage answers for it: not simply the chunk of one channel."""
    top = max((h.score for h in bm25_hits), default=0.0)
    score: dict[int, float] = {}
    owner: dict[int, int] = {}
    for h in bm25_hits:
        if h.doc_id in docs and top > 0:
            score[h.chunk_id] = w_bm25 * h.score / top
            owner[h.chunk_id] = h.doc_id
    for h in vec_hits:
        if h.doc_id in docs and h.cosine >= floor:
            part = (1 - w_bm25) * (h.cosine - floor) / (1 - floor)
            score[h.chunk_id] = score.get(h.chunk_id, 0.0) + part
            owner[h.chunk_id] = h.doc_id
    best: dict[int, int] = {}
    for chunk, doc in owner.items():
        if doc not in best or score[chunk] > score[best[doc]]:
            best[doc] = chunk
    return best


def _doc_ranking(hits: list[Any]) -> tuple[list[int], dict[int, Any]]:
    """Collapse chunk hits (best first) into documents ranked by their best chunk."""
    order: list[int] = []
    best: dict[int, Any] = {}
    for hit in hits:
        if hit.doc_id not in best:
            best[hit.doc_id] = hit
            order.append(hit.doc_id)
    return order, best


class Recall:
    """Answers queries against one store; keeps the BM25 index and the model warm across calls."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        load_embedder: Callable[[], tuple[Embedder | None, str | None]],
    ):
        """`load_embedder()` gives (model, warning); it is called on the first vector query only, so a
        BM25 query never loads the model."""
        self.store = store
        self.settings = settings
        self._load_embedder = load_embedder
        self.lexical = lexical.LexicalCache()

    def pool_size(self, limit: int) -> int:
        """Documents each channel contributes: fixed, so the top of a ranking never depends on `limit`
        (but for a limit above the pool, which widens it)."""
        return max(self.settings.pool_min, limit)

    def search(  # noqa: C901 - the ranking pipeline, step by step (#26 reworks it)
        self,
        query: str,
        limit: int = 10,
        mode: str = "hybrid",
        graph_boost: float | None = None,
        min_cosine: float | None = None,
        filters: Filters | None = None,
        passage_chars: int = 280,
    ) -> RecallResult:
        """Each hit carries a passage of at most `passage_chars` characters. `graph_boost` / `min_cosine`
        override the settings for this query (the console's debugger); `filters` restrict both channels to
        the notes they select. A note no channel supports is never a hit: a query that nothing in the
        vault answers (`answered`) gets no hits and one warning saying so."""
        query = query.strip()
        if not query:
            raise K0maruError("empty query; pass the words or symbols to look for")
        if mode not in MODES:
            raise K0maruError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
        if limit < 1:
            raise K0maruError("limit must be at least 1")
        s = self.settings
        pool = self.pool_size(limit)
        warnings: list[str] = []
        allowed: set[int] | None = None
        if filters:
            allowed = filters.allowed(self.store)
            if not allowed:
                return RecallResult(
                    query=query,
                    mode=mode,
                    hits=[],
                    pool=pool,
                    warnings=[f"no note is {filters.describe()}"],
                )
        ranked: dict[str, list[int]] = {}
        floor = s.min_cosine if min_cosine is None else min_cosine
        bm25_hits: list[lexical.LexicalHit] = []
        vec_hits: list[vectors.VectorHit] = []
        bm25_best: dict[int, lexical.LexicalHit] = {}
        vec_best: dict[int, vectors.VectorHit] = {}
        # chunks per channel: enough to fill `pool` distinct documents in practice
        chunk_k = pool * 4
        if mode in ("bm25", "hybrid"):
            # in hybrid the vectors match inflection and paraphrase; BM25 adds exact evidence (terms.py)
            bm25_hits = self.lexical.get(self.store).search(
                query, chunk_k, allowed, surface=mode == "hybrid"
            )
            ranked["bm25"], bm25_best = _doc_ranking(bm25_hits)
            ranked["bm25"] = ranked["bm25"][:pool]
        channels = mode
        pending = 0
        if (
            mode in ("vector", "hybrid") and not self.store.has_vectors()
        ):  # nothing to compare: no model load
            pending = self.store.unembedded_chunks()
            if pending:
                warnings.append(
                    f"no chunk has a vector yet ({pending:,} pending): "
                    + ("no vector answers" if mode == "vector" else "BM25 alone answers")
                    + " until the background worker adds them"
                )
            if mode == "vector":
                return RecallResult(query=query, mode=mode, hits=[], pool=pool, warnings=warnings)
            channels = "bm25"
        if channels in ("vector", "hybrid"):
            embedder, model_warning = self._load_embedder()
            if embedder is None:
                warnings.append(model_warning or "no embedding model: vector channel off")
                if mode == "vector":
                    return RecallResult(
                        query=query, mode=mode, hits=[], pool=pool, warnings=warnings
                    )
                channels = "bm25"
            else:
                qvec = embedder.embed([query])[0]
                try:
                    vec_hits = vectors.search(
                        self.store, qvec, chunk_k if allowed is None else vectors.KNN_MAX
                    )
                except db.DatabaseError as exc:  # a damaged vector page: BM25 still answers
                    vec_hits, channels = [], "bm25"
                    warnings.append(
                        f"vector channel off: {db.translate_error(exc, self.store.path)}"
                    )
                if allowed is not None:
                    vec_hits = [h for h in vec_hits if h.doc_id in allowed]
                ranked["vector"], vec_best = _doc_ranking(vec_hits)
                ranked["vector"] = ranked["vector"][:pool]
                if mode == "hybrid":  # ranked best first, so the floor cuts a tail and keeps ranks
                    ranked["vector"] = [d for d in ranked["vector"] if vec_best[d].cosine >= floor]
                pending = self.store.unembedded_chunks()
                if pending:
                    warnings.append(
                        f"{pending:,} chunk(s) are not embedded yet: they are ranked by BM25 alone "
                        "until the background worker adds their vectors"
                    )
        w_bm25 = self.bm25_weight(query, channels)
        vec_floor = floor if channels == "hybrid" else -1.0
        unembedded: set[int] = set()
        if channels == "hybrid" and pending:
            best_chunks = {bm25_best[d].chunk_id: d for d in ranked["bm25"]}
            unembedded = {best_chunks[c] for c in self.store.unembedded_among(list(best_chunks))}
        parts = fuse(
            {d: bm25_best[d].score for d in ranked.get("bm25", [])},
            {d: vec_best[d].cosine for d in ranked.get("vector", [])},
            w_bm25,
            vec_floor,
            unembedded,
        )
        fused = {d: b + v for d, (b, v) in parts.items() if b + v > 0}
        candidates = list(fused)
        titles = self.store.titles(candidates)
        boosts: dict[int, tuple[float, list[str]]] = {}
        if mode == "hybrid":  # a single-channel mode ranks by that channel alone
            boost = s.graph_boost if graph_boost is None else graph_boost
            boosts = graph_boosts(self.store.edges_among(candidates), boost, fused, titles)
        final = {d: fused[d] + boosts.get(d, (0.0, []))[0] for d in candidates}
        b_pos = {d: i for i, d in enumerate(ranked.get("bm25", []))}
        v_pos = {d: i for i, d in enumerate(ranked.get("vector", []))}

        def order(d: int) -> tuple[float, int, int, str]:  # ties: exact lexical evidence first
            return (-final[d], b_pos.get(d, pool), v_pos.get(d, pool), titles.get(d, ""))

        top, folded = self.fold_copies(sorted(candidates, key=order), limit)
        if not top or (channels == "hybrid" and not self.answered(bm25_best, vec_best)):
            why = (
                f"no note shares a term with it or reaches cosine {floor:g}"
                if not top
                else f"no note reaches cosine {s.relevance_cosine:g} or holds "
                f"{s.relevance_terms:.0%} of its terms"
            )
            return RecallResult(
                query=query,
                mode=mode,
                hits=[],
                pool=pool,
                warnings=[f"nothing in the vault answers {query[:80]!r}: {why}"],
                bm25_weight=w_bm25,
            )
        chunk_scores = passage_scores(bm25_hits, vec_hits, set(top), w_bm25, vec_floor)
        result_hits = [
            self._hit(
                query,
                passage_chars,
                d,
                final[d],
                parts.get(d, (0.0, 0.0)),
                b_pos,
                v_pos,
                bm25_best,
                vec_best,
                boosts,
                chunk_scores.get(d),
                folded.get(d, []),
            )
            for d in top
        ]
        return RecallResult(
            query=query,
            mode=mode,
            hits=result_hits,
            pool=pool,
            warnings=warnings,
            bm25_weight=w_bm25,
        )

    def fold_copies(self, ranked: list[int], limit: int) -> tuple[list[int], dict[int, list[str]]]:
        """The first `limit` documents of `ranked` that are not a copy of a better-ranked one, and the
        paths of each one's copies among the candidates. A copy is near-identical: the same body but for
        case, whitespace, a changed line or a footer (index/copies.py; a translation is not one)."""
        signatures = self.store.copy_signatures(ranked)
        kept = copies.fold([signatures[d][1] for d in ranked], limit)
        return [ranked[i] for i in kept], {
            ranked[i]: [signatures[ranked[c]][0] for c in found] for i, found in kept.items()
        }

    def answered(
        self, bm25_best: dict[int, lexical.LexicalHit], vec_best: dict[int, vectors.VectorHit]
    ) -> bool:
        """Whether anything in the vault answers the query: some chunk reaches `relevance_cosine`, or
        holds at least `relevance_terms` of the query's terms (calibrated on the dev halves against
        off-topic queries, scripts/eval_retrieval.py)."""
        s = self.settings
        best_cos = max((h.cosine for h in vec_best.values()), default=-1.0)
        best_terms = max((h.matched for h in bm25_best.values()), default=0.0)
        return best_cos >= s.relevance_cosine or best_terms >= s.relevance_terms

    def bm25_weight(self, query: str, mode: str) -> float:
        """The BM25 channel's weight for `query` (the vector channel has the rest)."""
        if mode != "hybrid":
            return 1.0 if mode == "bm25" else 0.0
        lo, hi = self.settings.bm25_weight_words, self.settings.bm25_weight_code
        return lo + (hi - lo) * lexical_share(query, self.settings.other_scripts_lexical)

    def _hit(  # noqa: PLR0913 - one parameter per field of a hit
        self,
        query: str,
        passage_chars: int,
        doc_id: int,
        score: float,
        parts: tuple[float, float],
        b_pos: dict[int, int],
        v_pos: dict[int, int],
        bm25_best: dict[int, Any],
        vec_best: dict[int, Any],
        boosts: dict[int, tuple[float, list[str]]],
        best_chunk: int | None,
        also_at: list[str],
    ) -> RecallHit:
        """`b_pos`/`v_pos`: 0-based position of each pooled document in the BM25 / vector ranking;
        `best_chunk`: the document's chunk with the best fused score, whose passage is shown."""
        b = bm25_best[doc_id] if doc_id in b_pos else None
        v = vec_best.get(
            doc_id
        )  # also a hit under the floor, which casts no vote: its cosine says why
        b_rank = b_pos[doc_id] + 1 if b else None
        v_rank = v_pos[doc_id] + 1 if doc_id in v_pos else None
        chunk_id = best_chunk
        path, title = self.store.path_and_title(doc_id)
        passage = self.store.passage(chunk_id) if chunk_id is not None else None
        boost, reasons = boosts.get(doc_id, (0.0, []))
        shown = (
            snippet(passage.text, query, passage_chars, skip=passage.heading or title)
            if passage
            else ""
        )
        if (
            passage and not shown
        ):  # the best chunk is only a heading: the section that follows carries the text
            for following in self.store.passages_of(doc_id):
                shown = snippet(
                    following.text, query, passage_chars, skip=following.heading or title
                )
                if shown:
                    passage = following
                    break
        lines = None
        if passage and passage.line_start:
            lines = str(passage.line_start)
            if passage.line_end > passage.line_start:
                lines += f"-{passage.line_end}"
        return RecallHit(
            path=path,
            title=title,
            score=score,
            snippet=shown,
            bm25_rank=b_rank,
            bm25_score=b.score if b else None,
            vector_rank=v_rank,
            cosine=v.cosine if v else None,
            bm25_part=parts[0],
            vector_part=parts[1],
            graph_boost=boost,
            boost_links=reasons,
            heading=(passage.section or None) if passage else None,
            lines=lines,
            also_at=also_at,
        )
