"""Near-identical notes: a bottom-k MinHash sketch of each note's body (the SLOTS smallest hashes of
its word SHINGLE-grams, case and whitespace ignored), kept in the index, so recall folds copies (the
same page vendored in two folders, a copy with a changed line or a footer) by comparing the
candidates' sketches alone. The share of the union's SLOTS smallest hashes that both sketches hold
estimates the Jaccard similarity of the two notes' shingle sets; recall folds a pair at
COPY_SIMILARITY, measured on real pages (docs/retrieval.md). Pure Python: a scan does
not import numpy."""

from __future__ import annotations

import heapq
import re
from array import array
from collections import Counter

import xxhash

SHINGLE = 4  # words per shingle
SLOTS = 64  # hashes kept per note
COPY_SIMILARITY = 0.8  # estimated Jaccard at which two notes are one
_WORD = re.compile(r"\w+")
MAX_IDS = 500_000  # words whose ids are kept between notes (a vocabulary is far smaller)


class _WordIds(dict[str, int]):
    """Each word's xxh32 id, computed once per process."""

    def __missing__(self, word: str) -> int:
        self[word] = wid = xxhash.xxh32_intdigest(word.encode())
        return wid


_IDS = _WordIds()


def signature(body: str) -> bytes:
    """The SLOTS smallest hashes of `body`'s word shingles (lower-cased), ascending, 8 bytes each. A
    shingle's hash is Python's hash of its words' xxh32 ids: for a tuple of ints it is the same in
    every process (PYTHONHASHSEED changes only str and bytes hashes)."""
    if len(_IDS) > MAX_IDS:
        _IDS.clear()
    seq = list(map(_IDS.__getitem__, _WORD.findall(body.lower())))
    if len(seq) > SHINGLE:
        hashes = set(map(hash, zip(*(seq[k:] for k in range(SHINGLE)), strict=False)))
    else:
        hashes = {hash(tuple(seq))}
    return array("q", sorted(hashes)[:SLOTS]).tobytes()


def sketch(sig: bytes) -> frozenset[int]:
    return frozenset(array("q", sig)) if sig and len(sig) % 8 == 0 else frozenset()


def similarity(a: frozenset[int], b: frozenset[int]) -> float:
    """The estimated Jaccard similarity of the notes of two sketches."""
    if not a or not b:
        return 0.0
    union = heapq.nsmallest(SLOTS, a | b)
    return sum(1 for h in union if h in a and h in b) / len(union)


def fold(signatures: list[bytes], limit: int) -> dict[int, list[int]]:
    """The first `limit` positions of `signatures` (best first) that are no copy of an earlier kept
    one, each with the positions of its copies among all of them. A row without a signature (an
    index from before them) is never a copy. A copy shares hashes with its original, so only the
    kept sketches sharing one are compared (`holders`), the best-ranked that passes first."""
    kept: dict[int, list[int]] = {}
    sketches = [sketch(s) for s in signatures]
    holders: dict[int, tuple[int, ...]] = {}  # a hash: the kept positions whose sketch holds it
    for i, mine in enumerate(sketches):
        common = holders.keys() & mine
        shared = Counter(k for h in common for k in holders[h])
        original = next((k for k in sorted(shared) if _copy(mine, sketches[k], shared[k])), None)
        if original is not None:
            kept[original].append(i)
        elif len(kept) < limit:
            kept[i] = []
            for h in common:
                holders[h] += (i,)
            holders.update(dict.fromkeys(mine - common, (i,)))
    return kept


def _copy(mine: frozenset[int], theirs: frozenset[int], shared: int) -> bool:
    """Whether two sketches sharing `shared` hashes are of one note: the full estimate only for
    the pairs that could reach the threshold (most share few hashes)."""
    return (
        shared >= COPY_SIMILARITY * min(len(mine), len(theirs))
        and similarity(mine, theirs) >= COPY_SIMILARITY
    )
