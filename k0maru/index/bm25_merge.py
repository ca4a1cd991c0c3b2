"""When the BM25 delta is folded into a rebuilt main segment: plain policy, no SQL."""

from __future__ import annotations

from dataclasses import dataclass

BM25_MERGE_MIN = 2_000  # a BM25 delta below this many chunks is never merged ...
BM25_MERGE_FRACTION = 0.10  # ... nor one below this fraction of the main segment


@dataclass(frozen=True, slots=True)
class Bm25State:
    """The persisted BM25 main segment: built at `version` over `chunks` chunks up to id
    `max_chunk_id`; `backlog` = chunks added or deleted since (0 when the corpus has not moved)."""

    version: int
    max_chunk_id: int
    chunks: int
    backlog: int

    @property
    def merge_due(self) -> bool:
        """Whether the delta has grown enough to fold into a rebuilt main segment (decided here,
        from two rows, so a scan that finds no merge due loads nothing of the lexical index)."""
        return self.backlog > max(BM25_MERGE_MIN, int(self.chunks * BM25_MERGE_FRACTION))
