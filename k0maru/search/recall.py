"""Hybrid recall: a weighted sum of the two channels' normalised scores, leaning on BM25 the more of
the query is code or in a script the model does not read, plus an optional graph signal (hybrid
only).

score(d) = w · bm25(d) / bm25(top)  +  (1 − w) · (cos(d) − floor) / (1 − floor)  +  graph(d)
w = bm25_weight_words + (bm25_weight_code − bm25_weight_words) · lexical_share(query), at least
    bm25_weight_matched when BM25's best note's best chunk holds every word of the query, at most
    bm25_weight_unmatched when it holds under a third of them

A document's channel score is that of its best chunk; each channel contributes a pool of pool_min
documents, whatever the limit, so the top of a ranking never depends on it. A vector hit below the
cosine `floor` adds nothing (a note sharing no term with the query gets nothing from BM25 either),
and a chunk not embedded yet keeps its BM25 vote. graph(d) = graph_boost × min(its own score, the
best fused score among the pooled candidates d links to or is linked from); off by default. No note
with score 0 is ever a hit, and a query nothing answers (no chunk reaching `relevance_cosine` nor
holding `relevance_terms` of its words) gets no hits and one warning. The passage is the document's
chunk with the best fused score. Every number is reported with --explain; the defaults come from
scripts/eval_retrieval.py's dev halves (docs/retrieval.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from k0maru.config import Settings
from k0maru.errors import K0maruError
from k0maru.index import copies, db
from k0maru.index.chunk_store import Passage
from k0maru.index.languages import CODES, detect
from k0maru.index.store import SearchStore
from k0maru.search import folding, lexical
from k0maru.search.filters import Filters
from k0maru.search.results import RecallHit, RecallResult
from k0maru.search.snippets import snippet
from k0maru.search.terms import lexical_share

if TYPE_CHECKING:
    from k0maru.search import vectors
    from k0maru.search.embedding import Embedder

Mode = Literal["bm25", "vector", "hybrid"]
MODES: tuple[str, ...] = ("bm25", "vector", "hybrid")


def fuse(
    bm25: dict[int, float], cosine: dict[int, float], w_bm25: float, floor: float
) -> dict[int, tuple[float, float]]:
    """(BM25 part, vector part) of each document: max-normalised BM25 and floor-normalised cosine,
    weighted. A document missing from a channel gets nothing from it."""
    top = max(bm25.values(), default=0.0)
    parts: dict[int, tuple[float, float]] = (
        {d: (w_bm25 * s / top, 0.0) for d, s in bm25.items()} if top > 0 else {}
    )
    for d, c in cosine.items():
        if c >= floor:
            parts[d] = (parts.get(d, (0.0, 0.0))[0], (1 - w_bm25) * (c - floor) / (1 - floor))
    return parts


def pending_weight(w_bm25: float, coverage: float) -> float:
    """BM25's weight while only `coverage` of the chunks have a vector: the vector channel's share
    shrinks with the square of the share embedded (chosen on the dev halves against the linear
    share, scripts/eval_retrieval.py --pending), so a note without a vector competes on the BM25
    evidence it has (no vote is made up for it) against notes whose vector vote counts only as much
    as the channel can say about this vault yet."""
    return 1 - (1 - w_bm25) * coverage**2


def centred(
    parts: dict[int, tuple[float, float]], unembedded: set[int]
) -> tuple[dict[int, tuple[float, float]], dict[int, int]]:
    """While vectors are pending: a candidate without a vector takes the vector part of the
    candidate with one whose BM25 part is nearest its own (what its lexical evidence predicts the
    vectors would say), and every vector part counts as it differs from the median embedded
    candidate's. A note without a vector then competes on its own BM25 evidence, neither sunk below
    the notes that have one nor lifted by a vote of its own. Returns the parts and, for each
    candidate without a vector, the one whose part it took."""
    known = [(b, v, d) for d, (b, v) in parts.items() if d not in unembedded]
    have = sorted(v for _, v, _ in known)
    median = have[len(have) // 2] if have else 0.0
    out: dict[int, tuple[float, float]] = {}
    borrowed: dict[int, int] = {}
    for d, (b, v) in parts.items():
        if d in unembedded:
            if not known:
                out[d] = (b, 0.0)
                continue
            _, v, borrowed[d] = min(known, key=lambda k: (abs(k[0] - b), k[2]))
        out[d] = (b, v - median)
    return out, borrowed


def query_language(query: str) -> str | None:
    """The ISO code of the language the query's function words name, or None when they name none."""
    name = detect(query, min_score=1.0, min_words=1)
    return next((code for code, n in CODES.items() if n == name), None) if name else None


def _checked(query: str, mode: str, limit: int) -> str:
    """The query stripped, or the one line saying what is wrong with the request."""
    query = query.strip()
    if not query:
        raise K0maruError("empty query; pass the words or symbols to look for")
    if mode not in MODES:
        raise K0maruError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
    if limit < 1:
        raise K0maruError("limit must be at least 1")
    return query


def graph_boosts(
    edges: list[tuple[int, int]], boost: float, fused: dict[int, float], titles: dict[int, str]
) -> dict[int, tuple[float, list[str]]]:
    """Each candidate linked to or from other candidates gets `boost` × the best fused score among
    them, with the links that earned it (reported even when the boost is 0, so --explain shows the
    graph)."""
    reasons: dict[int, list[str]] = {}
    best: dict[int, float] = {}
    for src, dst in edges:
        reasons.setdefault(src, []).append(f"links to [[{titles.get(dst, dst)}]]")
        reasons.setdefault(dst, []).append(f"linked from [[{titles.get(src, src)}]]")
        best[src] = max(best.get(src, 0.0), fused.get(dst, 0.0))
        best[dst] = max(best.get(dst, 0.0), fused.get(src, 0.0))
    # a page's links can at most double its own score: an index that links everywhere never wins on
    # links
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


@dataclass
class Gathered:
    """What the channels found for one query: each pooled note's BM25 evidence (`bm25`, best first,
    with its best chunk in `bm25_best`) and best vector chunk (`vec_best`, ranked in `vec_rank`),
    the chunk hits passages are chosen from, and which channels answered."""

    channels: str
    bm25: dict[int, float] = field(default_factory=dict)
    bm25_best: dict[int, lexical.LexicalHit] = field(default_factory=dict)
    bm25_chunks: list[lexical.LexicalHit] = field(default_factory=list)
    vec_rank: list[int] = field(default_factory=list)
    vec_best: dict[int, vectors.VectorHit] = field(default_factory=dict)
    vec_chunks: list[vectors.VectorHit] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    pending: int = 0  # chunks without a vector yet
    coverage: float = 1.0  # the share of chunks that have one

    @property
    def bm25_rank(self) -> list[int]:
        return list(self.bm25)


@dataclass
class Ranked:
    """One query's ranking: each candidate's (BM25, vector) parts, graph boost and final score, and
    the channels' positions, from which a hit is built."""

    query: str
    gathered: Gathered
    w_bm25: float
    vec_floor: float
    parts: dict[int, tuple[float, float]]
    boosts: dict[int, tuple[float, list[str]]]
    final: dict[int, float]
    b_pos: dict[int, int]
    v_pos: dict[int, int]
    borrowed: dict[int, int]  # a candidate without a vector -> the one whose vector part it took


class Recall:
    """Answers queries against one store; keeps the BM25 index and the model warm across calls."""

    def __init__(
        self,
        store: SearchStore,
        settings: Settings,
        load_embedder: Callable[[], tuple[Embedder | None, str | None]],
    ):
        """`load_embedder()` gives (model, warning); it is called on the first vector query only, so
        a BM25 query never loads the model."""
        self.store = store
        self.settings = settings
        self._load_embedder = load_embedder
        self.lexical = lexical.LexicalCache()

    def pool_size(self, limit: int) -> int:
        """Documents each channel contributes: fixed, so the top of a ranking never depends on
        `limit` (but for a limit above the pool, which widens it)."""
        return max(self.settings.pool_min, limit)

    def search(
        self,
        query: str,
        limit: int = 10,
        mode: str = "hybrid",
        graph_boost: float | None = None,
        min_cosine: float | None = None,
        filters: Filters | None = None,
        passage_chars: int = 280,
    ) -> RecallResult:
        """Each hit carries a passage of at most `passage_chars` characters. `graph_boost` /
        `min_cosine` override the settings for this query (the console's debugger); `filters`
        restrict both channels to the notes they select. A note no channel supports is never a hit:
        a query that nothing in the vault answers (`answered`) gets no hits and one warning saying
        so."""
        query = _checked(query, mode, limit)
        if mode != "vector":  # loaded (a delta computed and kept) before the read snapshot,
            with contextlib.suppress(K0maruError):  # in which nothing is written
                self.lexical.get(self.store)
        with self.store.read_snapshot():  # chunks, vectors and notes of one commit
            return self._search(query, limit, mode, graph_boost, min_cosine, filters, passage_chars)

    def _search(  # noqa: PLR0913 - search's options
        self,
        query: str,
        limit: int,
        mode: str,
        graph_boost: float | None,
        min_cosine: float | None,
        filters: Filters | None,
        passage_chars: int,
    ) -> RecallResult:
        pool = self.pool_size(limit)
        allowed = filters.allowed(self.store) if filters else None
        if filters and not allowed:
            warning = f"no note is {filters.describe()}"
            if filters.kind:  # say which kinds there are
                kinds = sorted(self.store.note_kinds())
                warning += f"; the kinds of note here: {', '.join(kinds) or 'none'}"
            return RecallResult(query=query, mode=mode, hits=[], pool=pool, warnings=[warning])
        floor = self.settings.min_cosine if min_cosine is None else min_cosine
        gathered = self.gather(query, mode, pool, allowed, floor)
        if gathered.channels == "":  # vector mode with no vector channel
            return RecallResult(
                query=query, mode=mode, hits=[], pool=pool, warnings=gathered.warnings
            )
        ranked = self.rank(query, mode, gathered, floor, graph_boost)
        lang = filters.lang if filters and filters.lang else query_language(query)
        top, best_chunks, folded = self._fold(ranked, pool, limit, lang)
        refusal = self._refusal(query, top, ranked, floor)
        # the floor a vector hit met (hybrid alone has one)
        used = floor if gathered.channels == "hybrid" else None
        if refusal is not None:
            return RecallResult(
                query=query,
                mode=mode,
                hits=[],
                pool=pool,
                warnings=[refusal],
                bm25_weight=ranked.w_bm25,
                cosine_floor=used,
            )
        return RecallResult(
            query=query,
            mode=mode,
            hits=[
                self._hit(ranked, d, best_chunks.get(d), passage_chars).but(
                    also_at=folded.also_at.get(d, []), also_in=folded.also_in.get(d, [])
                )
                for d in top
            ],
            pool=pool,
            warnings=gathered.warnings,
            bm25_weight=ranked.w_bm25,
            cosine_floor=used,
        )

    # ---- gather: each channel's candidates ----

    def gather(
        self, query: str, mode: str, pool: int, allowed: set[int] | None, floor: float
    ) -> Gathered:
        """Each channel's pool of candidates (`channels` says which answered; "" when none
        could)."""
        gathered = Gathered(channels=mode)
        chunk_k = pool * 4  # chunks per channel: enough to fill `pool` notes in practice
        if mode in ("vector", "hybrid"):
            self._gather_vectors(gathered, query, pool, chunk_k, allowed, floor)
        if mode in ("bm25", "hybrid"):
            self._gather_bm25(gathered, query, pool, chunk_k, allowed)
        return gathered

    def _gather_bm25(
        self,
        gathered: Gathered,
        query: str,
        pool: int,
        chunk_k: int,
        allowed: set[int] | None,
    ) -> None:
        """Each note's BM25 evidence: its best chunk mixed with the whole note (`NoteEvidence`),
        at the share its mode sets."""
        s = self.settings
        share = s.hybrid_whole_note if gathered.channels == "hybrid" else s.bm25_whole_note
        evidence = lexical.NoteEvidence(share, s.bm25_note_length_power)
        for attempt in (1, 2):
            try:
                index = self.lexical.get(self.store)
                notes, gathered.bm25_chunks = index.search_notes(
                    query, pool, chunk_k, evidence, allowed
                )
                break
            except lexical.SegmentUnreadable as exc:  # merged by another process since it was
                # loaded, or damaged: read or built again, once
                if attempt == 2:
                    raise
                self.lexical.forget(exc.damaged)
        gathered.bm25 = {n.doc_id: n.score for n in notes}
        gathered.bm25_best = {n.doc_id: n.best for n in notes}

    def _gather_vectors(
        self,
        gathered: Gathered,
        query: str,
        pool: int,
        chunk_k: int,
        allowed: set[int] | None,
        floor: float,
    ) -> None:
        """The vector channel's pool, or a warning saying why it is off (no vector yet, no model, a
        damaged vector page): BM25 then answers alone, and a vector query gets nothing."""
        vec_hits = self._vector_hits(gathered, query, chunk_k, allowed)
        if vec_hits is None:
            gathered.channels = "bm25" if gathered.channels == "hybrid" else ""
            return
        if allowed is not None:
            vec_hits = [h for h in vec_hits if h.doc_id in allowed]
        gathered.vec_chunks = vec_hits
        rank, gathered.vec_best = _doc_ranking(vec_hits)
        if gathered.channels == "hybrid":  # ranked best first: the floor cuts a tail, keeps ranks
            rank = [d for d in rank if gathered.vec_best[d].cosine >= floor]
        gathered.vec_rank = rank[:pool]
        gathered.pending = self.store.unembedded_chunks()
        if gathered.pending:
            total = max(self.store.chunk_count(), gathered.pending)
            gathered.coverage = 1 - gathered.pending / total
            gathered.warnings.append(
                f"{gathered.pending:,} chunk(s) are not embedded yet: their notes compete on BM25 "
                "alone, and vectors count less the fewer notes have them, until the background "
                "worker adds theirs"
            )

    def _vector_hits(
        self, gathered: Gathered, query: str, chunk_k: int, allowed: set[int] | None
    ) -> list[vectors.VectorHit] | None:
        """The nearest chunks to the query, or None (with a warning) when the channel is off."""
        fallback = "no vector answers" if gathered.channels == "vector" else "BM25 alone answers"
        if not self.store.has_vectors():  # nothing to compare: no model load
            pending = self.store.unembedded_chunks()
            if pending:
                gathered.warnings.append(
                    f"no chunk has a vector yet ({pending:,} pending): {fallback} until the "
                    "background worker adds them"
                )
            return None
        embedder, model_warning = self._load_embedder()
        if embedder is None:
            gathered.warnings.append(model_warning or "no embedding model: vector channel off")
            return None
        from k0maru.search import vectors

        qvec = embedder.embed([query])[0]
        try:
            hits, damaged = vectors.nearest(
                self.store, qvec, chunk_k if allowed is None else vectors.KNN_MAX
            )
        except db.DatabaseError as exc:  # a damaged vector page: BM25 still answers
            gathered.warnings.append(
                f"vector channel off: {db.translate_error(exc, self.store.path)}"
            )
            return None
        if damaged:
            gathered.warnings.append(
                f"{damaged} damaged vector(s) left out; `k0maru doctor --fix` embeds their "
                "chunks again"
            )
        return hits

    # ---- rank: fuse, graph ----

    def rank(
        self, query: str, mode: str, gathered: Gathered, floor: float, graph_boost: float | None
    ) -> Ranked:
        """Fuse the channels' evidence, then add the graph's (hybrid only)."""
        channels = gathered.channels
        w_bm25 = self._fused_bm25_weight(query, gathered)
        vec_floor = floor if channels == "hybrid" else -1.0
        parts = fuse(
            gathered.bm25,
            {d: gathered.vec_best[d].cosine for d in gathered.vec_rank},
            w_bm25,
            vec_floor,
        )
        borrowed: dict[int, int] = {}
        if gathered.pending and channels == "hybrid":
            parts, borrowed = centred(parts, self._unembedded(gathered))
        fused = {d: b + v for d, (b, v) in parts.items() if b > 0 or v > 0}
        # a single-channel mode ranks by that channel alone
        boosts = self._graph_boosts(fused, graph_boost) if mode == "hybrid" else {}
        return Ranked(
            query=query,
            gathered=gathered,
            w_bm25=w_bm25,
            vec_floor=vec_floor,
            parts=parts,
            boosts=boosts,
            final={d: f + boosts.get(d, (0.0, []))[0] for d, f in fused.items()},
            b_pos={d: i for i, d in enumerate(gathered.bm25_rank)},
            v_pos={d: i for i, d in enumerate(gathered.vec_rank)},
            borrowed=borrowed,
        )

    def _fused_bm25_weight(self, query: str, gathered: Gathered) -> float:
        """BM25's weight against the vectors' for this query (by how much of it the best BM25 hit
        matched), lowered in hybrid while some chunks still wait for their vectors."""
        top = max(gathered.bm25, key=gathered.bm25.__getitem__, default=None)
        matched = gathered.bm25_best[top].matched if top is not None else 0.0
        w_bm25 = self.bm25_weight(query, gathered.channels, matched)
        if gathered.channels == "hybrid" and gathered.coverage < 1:
            return pending_weight(w_bm25, gathered.coverage)
        return w_bm25

    def _graph_boosts(
        self, fused: dict[int, float], graph_boost: float | None
    ) -> dict[int, tuple[float, list[str]]]:
        """What links among the fused candidates add to each (`graph_boosts`), with the titles that
        explain it."""
        boost = self.settings.graph_boost if graph_boost is None else graph_boost
        titles = self.store.titles(list(fused))
        return graph_boosts(self.store.edges_among(list(fused)), boost, fused, titles)

    def _unembedded(self, gathered: Gathered) -> set[int]:
        """The BM25 candidates whose best chunk has no vector yet."""
        best = {h.chunk_id: d for d, h in gathered.bm25_best.items()}
        return {best[c] for c in self.store.unembedded_among(list(best))}

    def _ordered(self, ranked: Ranked, pool: int) -> list[int]:
        """The candidates best first; ties: exact lexical evidence first, then the title."""
        titles = self.store.titles(list(ranked.final))

        def key(d: int) -> tuple[float, int, int, str]:
            return (
                -ranked.final[d],
                ranked.b_pos.get(d, pool),
                ranked.v_pos.get(d, pool),
                titles.get(d, ""),
            )

        return sorted(ranked.final, key=key)

    def _refusal(self, query: str, top: list[int], ranked: Ranked, floor: float) -> str | None:
        """The one line saying nothing answers the query, or None when something does."""
        s = self.settings
        if not top and ranked.gathered.channels == "bm25":
            why = "no note shares a term with it"
        elif not top:
            why = f"no note shares a term with it or reaches cosine {floor:g}"
        elif (
            ranked.gathered.channels == "hybrid"
            and not self.answered(ranked.gathered.bm25_best, ranked.gathered.vec_best)
            # a note without a vector yet has no cosine to judge it by: it answers as in bm25 mode
            and not (ranked.gathered.pending and set(top) & self._unembedded(ranked.gathered))
        ):
            why = (
                f"no note reaches cosine {s.relevance_cosine:g} or holds "
                f"{s.relevance_terms:.0%} of its terms"
            )
        else:
            return None
        return f"nothing in the vault answers {query[:80]!r}: {why}"

    def _fold(
        self, ranked: Ranked, pool: int, limit: int, lang: str | None
    ) -> tuple[list[int], dict[int, int], folding.Folded]:
        """The first `limit` candidates once copies, translations and copied passages are folded,
        each one's best chunk, and what each folds (`folding`)."""
        ordered, copies_of = self.fold_copies(self._ordered(ranked, pool), len(ranked.final))
        rows = self.store.paths_and_frontmatter(ordered)
        keys = folding.translation_keys(rows)
        ordered, also_in = folding.fold_translations(ordered, keys, lang)
        wide = ordered[: 2 * limit]  # room for copied passages
        g = ranked.gathered
        best = passage_scores(
            g.bm25_chunks, g.vec_chunks, set(wide), ranked.w_bm25, ranked.vec_floor
        )
        texts = {d: p.text for d in wide if d in best and (p := self.store.passage(best[d]))}
        top, also_at = folding.fold_passages(wide, texts, {d: rows[d][0] for d in wide}, limit)
        return (
            top,
            best,
            folding.Folded(
                top,
                {d: also_in[d] for d in top if d in also_in},
                {d: [*copies_of.get(d, []), *also_at.get(d, [])] for d in top},
            ),
        )

    def fold_copies(self, ranked: list[int], limit: int) -> tuple[list[int], dict[int, list[str]]]:
        """The first `limit` documents of `ranked` that are not a copy of a better-ranked one, and
        the paths of each one's copies among the candidates. A copy is near-identical: the same body
        but for case, whitespace, a changed line or a footer (index/copies.py; a translation is not
        one)."""
        signatures = self.store.copy_signatures(ranked)
        # the lexical index is loaded before the read snapshot: a note deleted since is not a hit
        ranked = [d for d in ranked if d in signatures]
        kept = copies.fold([signatures[d][1] for d in ranked], limit)
        return [ranked[i] for i in kept], {
            ranked[i]: [signatures[ranked[c]][0] for c in found] for i, found in kept.items()
        }

    def answered(
        self, bm25_best: dict[int, lexical.LexicalHit], vec_best: dict[int, vectors.VectorHit]
    ) -> bool:
        """Whether anything in the vault answers the query: some chunk reaches `relevance_cosine`,
        or holds at least `relevance_terms` of the query's terms (calibrated on the dev halves
        against off-topic queries, scripts/eval_retrieval.py)."""
        s = self.settings
        best_cos = max((h.cosine for h in vec_best.values()), default=-1.0)
        best_terms = max((h.matched for h in bm25_best.values()), default=0.0)
        return best_cos >= s.relevance_cosine or best_terms >= s.relevance_terms

    def bm25_weight(self, query: str, mode: str, matched: float = 0.0) -> float:
        """The BM25 channel's weight for `query` (the vector channel has the rest); `matched`: the
        share of the query's words that BM25's best note holds in its best chunk (all of them: at
        least `bm25_weight_matched`; under a third: at most `bm25_weight_unmatched`)."""
        if mode != "hybrid":
            return 1.0 if mode == "bm25" else 0.0
        s = self.settings
        w = s.bm25_weight_words + (s.bm25_weight_code - s.bm25_weight_words) * lexical_share(
            query, s.other_scripts_lexical
        )
        if matched >= 1:
            return max(w, s.bm25_weight_matched)
        return min(w, s.bm25_weight_unmatched) if matched < 1 / 3 else w

    def _hit(self, ranked: Ranked, doc_id: int, best_chunk: int | None, chars: int) -> RecallHit:
        """One hit: its score and parts (only the parts that were added), and the passage of
        `best_chunk` (the document's chunk with the best fused score)."""
        g = ranked.gathered
        b = g.bm25_best.get(doc_id) if doc_id in ranked.b_pos else None
        # also a hit under the floor, which casts no vote: its cosine says why
        v = g.vec_best.get(doc_id)
        path, title = self.store.path_and_title(doc_id)
        passage, shown = self._passage(doc_id, best_chunk, ranked.query, chars, title)
        boost, reasons = ranked.boosts.get(doc_id, (0.0, []))
        parts = ranked.parts.get(doc_id, (0.0, 0.0))
        return RecallHit(
            path=path,
            title=title,
            score=ranked.final[doc_id],
            snippet=shown,
            bm25_rank=ranked.b_pos[doc_id] + 1 if b else None,
            bm25_score=g.bm25[doc_id] if b else None,
            vector_rank=ranked.v_pos[doc_id] + 1 if doc_id in ranked.v_pos else None,
            cosine=v.cosine if v else None,
            bm25_part=parts[0],
            vector_part=parts[1],
            vector_part_of=(
                self.store.path_and_title(ranked.borrowed[doc_id])[1]
                if doc_id in ranked.borrowed
                else None
            ),
            graph_boost=boost,
            boost_links=reasons,
            heading=(passage.section or None) if passage else None,
            lines=_lines(passage),
        )

    def _passage(
        self, doc_id: int, chunk_id: int | None, query: str, chars: int, title: str
    ) -> tuple[Passage | None, str]:
        """The passage shown for a hit and its snippet; when the best chunk is only a heading, the
        section that follows carries the text."""
        passage = self.store.passage(chunk_id) if chunk_id is not None else None
        if passage is None:
            return None, ""
        shown = snippet(passage.text, query, chars, skip=passage.heading or title)
        if shown:
            return passage, shown
        for following in self.store.passages_of(doc_id):
            shown = snippet(following.text, query, chars, skip=following.heading or title)
            if shown:
                return following, shown
        return passage, ""


def _lines(passage: Passage | None) -> str | None:
    """The passage's lines in the file, "12-30"."""
    if not passage or not passage.line_start:
        return None
    if passage.line_end > passage.line_start:
        return f"{passage.line_start}-{passage.line_end}"
    return str(passage.line_start)
