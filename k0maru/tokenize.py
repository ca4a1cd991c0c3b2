"""BM25 tokenizer that keeps code symbols findable whole and by parts.

`SQLITE_BUSY` -> sqlite_busy, sqlite, busy;  `std::sync::Mutex` -> std::sync::mutex, std, sync, mutex;
`BorrowMutError` -> borrowmuterror, borrow, mut, error;  `src/worker.rs:42` -> src/worker.rs:42,
src/worker.rs, src, worker, rs, 42;  `E0502` -> e0502. Plain English words are stemmed (Snowball)
and stop words dropped; symbol tokens are never stemmed.
"""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer

_RAW = re.compile(r"[^\s`'\"(){}\[\],;|*!?]+")
_ALNUM = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_LINE_SUFFIX = re.compile(r"(?::\d+)+$|\(\d+(?:,\d+)?\)$")
_EDGE = ".:,=#>"

STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "from", "has", "have", "if", "in", "into", "is", "it", "its", "of", "on", "or", "so", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "while", "who", "will", "with", "you", "your", "our", "not", "no", "do", "does", "did", "can", "could", "should", "would", "i", "me", "my", "he", "she", "his", "her", "them", "than", "also", "just", "only", "over", "out", "up", "about", "after", "before", "all", "any", "each", "how", "more", "most", "other", "some", "very"]
)

_stemmer = Stemmer.Stemmer("english")


@lru_cache(maxsize=200_000)
def _word(part: str) -> str:
    """Lower-case and stem a plain alphabetic part (cached: vocabularies are small)."""
    low = part.lower()
    return _stemmer.stemWord(low) if low.isalpha() else low


def tokenize(text: str) -> list[str]:
    out: list[str] = []
    append = out.append
    for raw in _RAW.findall(text):
        token = raw.strip(_EDGE)
        if not token:
            continue
        runs = _ALNUM.findall(token)
        if not runs:
            continue
        if len(runs) == 1 and runs[0] == token:  # plain word or code like E0502 / camelCase
            low = token.lower()
            if low in STOPWORDS:
                continue
            pieces = _CAMEL.findall(token) if not low.isdigit() and low != token and not token.isupper() else ()
            if len(pieces) > 1 and not any(c.isdigit() for c in token):
                append(low)
                for piece in pieces:
                    if len(piece) > 1:
                        append(_word(piece))
            elif len(low) > 1 or low.isdigit():
                append(_word(token) if token.isalpha() else low)
            continue
        # a symbol with connectors: keep it whole, without a trailing :line, and by parts
        whole = token.lower()
        append(whole)
        bare = _LINE_SUFFIX.sub("", whole)
        if bare != whole and len(_ALNUM.findall(bare)) > 1:
            append(bare)
        for run in runs:
            low = run.lower()
            if low in STOPWORDS or (len(low) == 1 and not low.isdigit()):
                continue
            pieces = _CAMEL.findall(run) if run != low and not run.isupper() else ()
            if len(pieces) > 1 and not any(c.isdigit() for c in run):
                append(low)
                for piece in pieces:
                    if len(piece) > 1:
                        append(_word(piece))
            else:
                append(_word(run) if run.isalpha() else low)
    return out
