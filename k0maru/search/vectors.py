"""The vector channel: chunk embeddings in the sqlite-vec `vec_chunks` table of the index file."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from k0maru.index.vector_store import VectorStore

if TYPE_CHECKING:  # numpy loads with the model: a BM25 query never imports it
    import numpy as np

    from k0maru.search.embedding import Embedder

ProgressFn = Callable[[int, int], None]
KNN_MAX = 4096  # the largest k a vec0 KNN query accepts


@dataclass(frozen=True, slots=True)
class VectorHit:
    chunk_id: int
    doc_id: int
    cosine: float


def ensure_model(store: VectorStore, embedder: Embedder) -> None:
    """Vectors of another model are meaningless: drop them all when the model changes."""
    if store.get_meta("embed_model") == embedder.name:
        return
    store.reset_vectors(embedder.name)


def embed_pending(
    store: VectorStore,
    embedder: Embedder,
    batch_size: int,
    progress: ProgressFn | None = None,
    commit_every: int = 256,
    limit: int | None = None,
    stop: Callable[[], bool] | None = None,
) -> int:
    """Embed the chunks without a vector (at most `limit` of them); returns how many were embedded.

    Work is committed in groups, so an interrupted run keeps what it finished; a chunk that a
    concurrent scan replaced meanwhile (hash changed or row gone) is not written. `stop`, asked
    before each batch, ends the run early (a server closing, the index file moved away by a
    rebuild).
    """
    import numpy as np

    from k0maru.index.markdown import embed_input

    ensure_model(store, embedder)
    todo = store.chunks_to_embed(limit)
    if not todo:
        return 0
    todo.sort(key=lambda r: r[1])  # similar lengths per batch: less padding
    total = len(todo)
    done = 0
    pending: list[tuple[int, str, np.ndarray]] = []
    for start in range(0, total, batch_size):
        if stop is not None and stop():
            break
        batch = store.chunks_for_embedding(
            [chunk_id for chunk_id, _ in todo[start : start + batch_size]]
        )
        if batch:
            vectors = embedder.embed([embed_input(r[2], r[3], r[4]) for r in batch])
            pending.extend((r[0], r[1], v) for r, v in zip(batch, vectors, strict=True))
        if len(pending) >= commit_every or start + batch_size >= total:
            done += store.write_vectors(
                [(c, h, v.astype(np.float32).tobytes()) for c, h, v in pending]
            )
            pending = []
        if progress is not None:
            progress(min(start + batch_size, total), total)
    if pending:  # stopped early: keep what was computed
        done += store.write_vectors([(c, h, v.astype(np.float32).tobytes()) for c, h, v in pending])
    return done


def search(store: VectorStore, query_vector: np.ndarray, k: int) -> list[VectorHit]:
    """k nearest chunks by cosine similarity, best first (`nearest`'s hits)."""
    return nearest(store, query_vector, k)[0]


def nearest(store: VectorStore, query_vector: np.ndarray, k: int) -> tuple[list[VectorHit], int]:
    """k nearest chunks by cosine similarity, best first (k capped at sqlite-vec's KNN limit), and
    how many were left out for a damaged vector (NaN, infinite: no distance)."""
    import numpy as np

    if k <= 0:
        return [], 0
    k = min(k, KNN_MAX)
    rows = store.nearest_chunks(query_vector.astype(np.float32).tobytes(), k)
    hits = [
        VectorHit(int(rowid), int(doc_id), 1.0 - float(dist))
        for rowid, dist, doc_id in rows
        if isinstance(dist, float) and math.isfinite(dist)
    ]
    return hits, len(rows) - len(hits)
