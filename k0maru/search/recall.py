"""Hybrid recall: Reciprocal Rank Fusion of BM25 and vectors, plus a 1-hop graph boost.

score(d) = sum over channels m of w_m / (k + rank_m(d))  +  graph_boost(d)

Ranks are 1-based over documents (a document's rank in a channel is the rank of its best
chunk), a channel that did not rank d adds 0, each channel contributes a pool of
max(limit * pool_factor, pool_min) documents, and graph_boost(d) is added once when d links
to, or is linked from, another document of the pooled candidates. In hybrid mode a vector hit
below `min_cosine` casts no vote, as a note that shares no term with the query gets none from
BM25; otherwise every pooled note would vote in both channels and unrelated notes ranked 25th
twice would beat the one clear hit of a single channel. Such notes still fill the limit, with
score 0, after every note that got a vote. Every number is reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from k0maru.config import Settings
from k0maru.errors import K0maruError
from k0maru.index.store import Store
from k0maru.search import lexical, vectors
from k0maru.search.filters import Filters
from k0maru.search.snippets import snippet

if TYPE_CHECKING:
    from k0maru.search.embedding import Embedder

Mode = Literal["bm25", "vector", "hybrid"]
MODES: tuple[str, ...] = ("bm25", "vector", "hybrid")


@dataclass(slots=True)
class Hit:
    doc_id: int
    path: str
    title: str
    score: float
    snippet: str
    heading: str
    bm25_rank: int | None = None
    bm25_score: float | None = None
    vector_rank: int | None = None
    cosine: float | None = None
    rrf: float = 0.0
    graph_boost: float = 0.0
    boost_links: list[str] = field(default_factory=list)
    section: str = ""  # heading path of the passage below the title ("Section > Subsection")
    line_start: int = 0  # the passage's lines in the file
    line_end: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class RecallResult:
    query: str
    mode: str
    hits: list[Hit]
    pool: int
    warnings: list[str] = field(default_factory=list)


def fuse(ranked: dict[str, list[int]], weights: dict[str, float], k: int) -> dict[int, float]:
    """Plain RRF over per-channel ranked document lists (rank 1 = first element)."""
    scores: dict[int, float] = {}
    for channel, docs in ranked.items():
        w = weights.get(channel, 0.0)
        for rank, doc in enumerate(docs, start=1):
            scores[doc] = scores.get(doc, 0.0) + w / (k + rank)
    return scores


def graph_boosts(edges: list[tuple[int, int]], boost: float, titles: dict[int, str]) -> dict[int, tuple[float, list[str]]]:
    """Each candidate with a link to or from another candidate gets `boost` once, with the links
    that earned it (reported even when the boost is 0, so --explain shows the graph)."""
    reasons: dict[int, list[str]] = {}
    for src, dst in edges:
        reasons.setdefault(src, []).append(f"links to [[{titles.get(dst, dst)}]]")
        reasons.setdefault(dst, []).append(f"linked from [[{titles.get(src, src)}]]")
    return {doc: (boost, sorted(set(r))) for doc, r in reasons.items()}


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

    def __init__(self, store: Store, settings: Settings,
                 load_embedder: Callable[[], tuple[Embedder | None, str | None]]):
        """`load_embedder()` gives (model, warning); it is called on the first vector query only, so a
        BM25 query never loads the model."""
        self.store = store
        self.settings = settings
        self._load_embedder = load_embedder
        self.lexical = lexical.LexicalCache()

    def pool_size(self, limit: int) -> int:
        return max(limit * self.settings.pool_factor, self.settings.pool_min)

    def search(self, query: str, limit: int = 10, mode: str = "hybrid", graph_boost: float | None = None,
               min_cosine: float | None = None, filters: Filters | None = None,
               nearest_if_none: bool = True, passage_chars: int = 280) -> RecallResult:
        """Each hit carries a passage of at most `passage_chars` characters. `graph_boost` / `min_cosine` override the settings for this query (the console's debugger);
        `filters` restrict both channels to the notes they select. When no channel supports any note,
        `nearest_if_none` decides between the nearest notes (flagged) and no hits at all."""
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
                return RecallResult(query, mode, [], pool, [f"no note is {filters.describe()}"])
        ranked: dict[str, list[int]] = {}
        unvoted: list[int] = []  # vector pool members under the floor: shown only to fill the limit
        floor = s.min_cosine if min_cosine is None else min_cosine
        bm25_best: dict[int, lexical.LexicalHit] = {}
        vec_best: dict[int, vectors.VectorHit] = {}
        # chunks per channel: enough to fill `pool` distinct documents in practice
        chunk_k = pool * 4
        if mode in ("bm25", "hybrid"):
            hits = self.lexical.get(self.store).search(query, chunk_k, allowed)
            ranked["bm25"], bm25_best = _doc_ranking(hits)
            ranked["bm25"] = ranked["bm25"][:pool]
        if mode in ("vector", "hybrid"):
            embedder, model_warning = self._load_embedder()
            if embedder is None:
                warnings.append(model_warning or "no embedding model: vector channel off")
                if mode == "vector":
                    return RecallResult(query, mode, [], pool, warnings)
            else:
                qvec = embedder.embed([query])[0]
                hits_v = vectors.search(self.store, qvec, chunk_k if allowed is None else vectors.KNN_MAX)
                if allowed is not None:
                    hits_v = [h for h in hits_v if h.doc_id in allowed]
                ranked["vector"], vec_best = _doc_ranking(hits_v)
                ranked["vector"] = ranked["vector"][:pool]
                if mode == "hybrid":  # ranked best first, so the floor cuts a tail and keeps ranks
                    pooled = ranked["vector"]
                    ranked["vector"] = [d for d in pooled if vec_best[d].cosine >= floor]
                    unvoted = pooled[len(ranked["vector"]):]
                pending = self.store.unembedded_chunks()
                if pending:
                    warnings.append(f"{pending:,} chunk(s) are not embedded yet: the vector channel used the "
                                    "vectors that exist (the background worker is adding the rest)")
        weights = {"bm25": s.weight_bm25, "vector": s.weight_vector}
        if mode != "hybrid":
            weights = {mode: 1.0}
        rrf = fuse(ranked, weights, s.rrf_k)
        candidates = list(rrf)
        boost = s.graph_boost if graph_boost is None else graph_boost
        titles = self.store.titles(candidates)
        boosts = graph_boosts(self.store.edges_among(candidates), boost, titles)
        final = {d: rrf[d] + boosts.get(d, (0.0, []))[0] for d in candidates}
        b_pos = {d: i for i, d in enumerate(ranked.get("bm25", []))}
        v_pos = {d: i for i, d in enumerate(ranked.get("vector", []))}

        def order(d: int) -> tuple[float, int, int, str]:  # ties: exact lexical evidence first
            return (-final[d], b_pos.get(d, pool), v_pos.get(d, pool), titles.get(d, ""))

        top = sorted(candidates, key=order)[:limit]
        if not candidates and not nearest_if_none:
            return RecallResult(query, mode, [], pool, [
                f"nothing in the vault matches {query[:80]!r}: no note shares a term with it or reaches "
                f"cosine {floor:g}"])
        fill = [d for d in unvoted if d not in rrf][: limit - len(top)]
        final.update(dict.fromkeys(fill, 0.0))
        rrf.update(dict.fromkeys(fill, 0.0))
        top += fill
        if fill and not candidates:
            warnings.append(f"no note shares a term with the query or reaches cosine {floor:g}; "
                            "these are only the nearest notes")
        result_hits = [self._hit(query, passage_chars, d, final[d], rrf[d], b_pos, v_pos, bm25_best, vec_best, boosts) for d in top]
        return RecallResult(query, mode, result_hits, pool, warnings)

    def _hit(self, query: str, passage_chars: int, doc_id: int, score: float, rrf: float, b_pos: dict[int, int], v_pos: dict[int, int],
             bm25_best: dict[int, Any], vec_best: dict[int, Any], boosts: dict[int, tuple[float, list[str]]]) -> Hit:
        """`b_pos`/`v_pos`: 0-based position of each pooled document in the BM25 / vector ranking."""
        b = bm25_best[doc_id] if doc_id in b_pos else None
        v = vec_best.get(doc_id)  # also a hit under the floor, which casts no vote: its cosine says why
        b_rank = b_pos[doc_id] + 1 if b else None
        v_rank = v_pos[doc_id] + 1 if doc_id in v_pos else None
        # snippet: the best chunk of the channel that ranked the document higher
        best = b if b and (v_rank is None or (b_rank or 0) <= v_rank) else v
        chunk_id = best.chunk_id if best else None
        path, title = self.store.path_and_title(doc_id)
        passage = self.store.passage(chunk_id) if chunk_id is not None else None
        boost, reasons = boosts.get(doc_id, (0.0, []))
        shown = snippet(passage.text, query, passage_chars, skip=passage.heading or title) if passage else ""
        if passage and not shown:  # the best chunk is only a heading: the section that follows carries the text
            for following in self.store.passages_of(doc_id):
                shown = snippet(following.text, query, passage_chars, skip=following.heading or title)
                if shown:
                    passage = following
                    break
        heading = passage.heading if passage else ""
        lines = (passage.line_start, passage.line_end) if passage else (0, 0)
        return Hit(doc_id=doc_id, path=path, title=title, score=score, snippet=shown, heading=heading,
                   bm25_rank=b_rank, bm25_score=b.score if b else None, vector_rank=v_rank,
                   cosine=v.cosine if v else None, rrf=rrf, graph_boost=boost, boost_links=reasons,
                   section=passage.section if passage else "", line_start=lines[0], line_end=lines[1])
