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


_CACHE: dict[str, tuple[str, ...]] = {}
_CACHE_MAX = 500_000


def tokenize(text: str) -> list[str]:
    """Index terms of `text` (same function for documents and queries)."""
    out: list[str] = []
    extend = out.extend
    cache = _CACHE
    for raw in _RAW.findall(text):
        terms = cache.get(raw)
        if terms is None:
            if len(cache) >= _CACHE_MAX:
                cache.clear()
            terms = cache[raw] = tuple(_terms(raw))
        extend(terms)
    return out


def _terms(raw: str) -> list[str]:
    """Terms of one whitespace-delimited raw token."""
    out: list[str] = []
    token = raw.strip(_EDGE)
    runs = _ALNUM.findall(token)
    if not runs:
        return out
    if len(runs) > 1 or runs[0] != token:
        # a symbol with connectors: keep it whole, also without a trailing :line, and by parts
        whole = token.lower()
        out.append(whole)
        bare = _LINE_SUFFIX.sub("", whole)
        if bare != whole and len(_ALNUM.findall(bare)) > 1:
            out.append(bare)
    for run in runs:
        _run_terms(run, out)
    return out


def _run_terms(run: str, out: list[str]) -> None:
    """A run of letters and digits: stop words dropped, camelCase split, plain words stemmed."""
    low = run.lower()
    if low in STOPWORDS or (len(low) == 1 and not low.isdigit()):
        return
    pieces = _CAMEL.findall(run) if run != low and not run.isupper() else ()
    if len(pieces) > 1 and not any(c.isdigit() for c in run):
        out.append(low)
        out.extend(_word(p) for p in pieces if len(p) > 1)
    else:
        out.append(_word(run) if run.isalpha() else low)


_CODE_TOKEN = re.compile(r"[_:/\\<>&$#@.=()\[\]{}]|\d|^-|^[A-Z0-9]{2,}$|[a-z][A-Z]")


def code_share(query: str) -> float:
    """The share of the query's words that are code: symbols, flags, error codes, paths, numbers,
    identifiers in camelCase or CAPS (`SQLITE_BUSY`, `E0502`, `--force`, `src/a.rs:3`). 0 for a question
    in plain words, 1 for a bare symbol; recall leans on BM25 the more of the query is code."""
    words = query.split()
    return sum(1 for w in words if _CODE_TOKEN.search(w)) / len(words) if words else 0.0
