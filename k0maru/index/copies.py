"""Near-identical notes: a MinHash signature of each note's body (its word SHINGLE-grams, case and
whitespace ignored), kept in the index, so recall folds copies (the same page vendored in two folders, a
copy with a changed line or a footer) by comparing the candidates' signatures alone. The share of equal
slots estimates the Jaccard similarity of the two notes' shingle sets; recall folds a pair at
COPY_SIMILARITY, measured by scripts/measure_copies.py (docs/retrieval.md)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import xxhash

SHINGLE = 4  # words per shingle
SLOTS = 64  # hash functions of the signature
COPY_SIMILARITY = 0.8  # estimated Jaccard at which two notes are one
BLOCK = 8192  # shingles hashed at once: a long note never holds SLOTS x all its shingles
_WORD = re.compile(r"\w+")


def signature(body: str) -> bytes:
    """SLOTS minima of the hashed shingles of `body`'s words (lower-cased), as 4-byte slots."""
    import numpy as np

    words = _WORD.findall(body.lower())
    ids = {w: xxhash.xxh3_64_intdigest(w.encode()) for w in set(words)}
    h = np.fromiter((ids[w] for w in words), dtype=np.uint64, count=len(words))
    if h.size <= SHINGLE:  # a note of a few words: those words, as one shingle
        h = np.asarray([xxhash.xxh3_64_intdigest(" ".join(words).encode())], dtype=np.uint64)
    a, b = _hash_functions()
    with np.errstate(over="ignore"):
        if h.size > SHINGLE:  # each shingle's hash mixes its words' hashes by position
            mix = np.zeros(h.size - SHINGLE + 1, dtype=np.uint64)
            for k in range(SHINGLE):
                mix = (mix * np.uint64(0x100000001B3)) ^ h[k : h.size - SHINGLE + 1 + k]
            h = np.unique(mix)
        slots = np.full(SLOTS, np.iinfo(np.uint64).max, dtype=np.uint64)
        for start in range(0, h.size, BLOCK):  # a long note: its shingles a block at a time
            block = h[None, start : start + BLOCK] * a[:, None] + b[:, None]
            slots = np.minimum(slots, (block >> np.uint64(32)).min(axis=1))
    return bytes(slots.astype("<u4").tobytes())


@cache
def _hash_functions() -> tuple[Any, Any]:
    """SLOTS (multiplier, offset) pairs, the same in every process."""
    import numpy as np

    rng = np.random.default_rng(26)
    a = rng.integers(1, 2**63, SLOTS, dtype=np.uint64) | np.uint64(1)
    return a, rng.integers(0, 2**63, SLOTS, dtype=np.uint64)


def similarity(a: bytes, b: bytes) -> float:
    """The share of equal slots of two signatures: an estimate of their notes' Jaccard similarity."""
    if len(a) != len(b) or not a:
        return 0.0
    n = len(a) // 4
    return sum(a[i : i + 4] == b[i : i + 4] for i in range(0, len(a), 4)) / n


def fold(signatures: list[bytes], limit: int) -> dict[int, list[int]]:
    """The first `limit` positions of `signatures` (best first) that are no copy of an earlier kept one,
    each with the positions of its copies among all of them."""
    import numpy as np

    kept: dict[int, list[int]] = {}
    rows = np.zeros((len(signatures), SLOTS), dtype=np.uint32)
    known = np.zeros(len(signatures), dtype=bool)  # an index from before signatures: never a copy
    for i, sig in enumerate(signatures):
        if len(sig) == SLOTS * 4:
            rows[i] = np.frombuffer(sig, dtype="<u4")
            known[i] = True
    order: list[int] = []
    for i in range(len(signatures)):
        if known[i] and order:
            share = (rows[order] == rows[i]).mean(axis=1)
            best = int(share.argmax())
            if share[best] >= COPY_SIMILARITY and known[order[best]]:
                kept[order[best]].append(i)
                continue
        if len(kept) < limit:
            kept[i] = []
            order.append(i)
    return kept
