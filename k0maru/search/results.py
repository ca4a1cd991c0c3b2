"""What recall returns: one type from the ranking through the service to every front end (CLI
`--json`, MCP structured content, console). The per-channel detail is filled by the ranking and
cleared by the service unless the caller asks for it (`explain`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from k0maru.wire import Result

DETAIL = (
    "bm25_rank",
    "bm25_score",
    "vector_rank",
    "cosine",
    "bm25_part",
    "vector_part",
    "vector_part_of",
    "graph_boost",
)


@dataclass(kw_only=True)
class RecallHit(Result):
    path: str
    title: str
    score: float
    snippet: str
    heading: str | None = (
        None  # heading path of the passage below the title, when it is not the note's lead
    )
    lines: str | None = None  # the passage's lines in the file, "12-30"
    also_at: Sequence[
        str
    ] = ()  # paths of copies of this note (or of its passage), folded into this hit
    also_in: Sequence[str] = ()  # language codes of this note's translations, folded into this hit
    # the note says it is superseded: by this hit's path or what it names ('' where it names none)
    superseded_by: str | None = None
    # per-channel detail, only with explain
    bm25_rank: int | None = None
    bm25_score: float | None = None
    vector_rank: int | None = None
    cosine: float | None = None
    bm25_part: float | None = None  # the score's parts: BM25, vectors, graph
    vector_part: float | None = None
    # a note without a vector yet: the title of the candidate whose vector part it took, the one
    # nearest it in BM25
    vector_part_of: str | None = None
    graph_boost: float | None = None
    boost_links: Sequence[str] = ()

    def brief(self) -> RecallHit:
        """This hit without its per-channel detail."""
        return self.but(**{f: None for f in DETAIL}, boost_links=())


@dataclass(kw_only=True)
class RecallResult(Result):
    query: str
    mode: str
    hits: list[RecallHit]
    warnings: Sequence[str] = ()
    pool: int | None = None  # with explain
    bm25_weight: float | None = None  # with explain: BM25's share of the score for this query
    # with explain, hybrid: the cosine below which a vector hit adds nothing (`min_cosine`)
    cosine_floor: float | None = None
    # when the answer was cut to fit a token budget (service/operations.py `fit_budget`):
    left_out: int = 0  # the lowest-ranked hits found but left out
    passages_cut: int = 0  # the passages shortened (they end in "…")
    whole_tokens: int | None = None  # what the answer costs with every hit found, whole
