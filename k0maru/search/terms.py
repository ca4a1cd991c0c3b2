"""BM25 tokenizer that keeps code symbols findable whole and by parts.

`SQLITE_BUSY` -> sqlite_busy, sqlite, busy;  `std::sync::Mutex` -> std::sync::mutex, std, sync,
mutex; `BorrowMutError` -> borrowmuterror, borrow, mut, error;  `src/worker.rs:42` ->
src/worker.rs:42, src/worker.rs, src, worker, rs, 42;  `E0502` -> e0502. Plain words are stemmed
(Snowball) in the note's language (`lang`, chosen per note by index/languages.py; English by
default) and English stop words dropped; symbol tokens are never stemmed.

Other scripts: a token is NFKC-normalised (full-width `ＳＱＬＩＴＥ` is `sqlite`); Latin
letters lose their accents (`café` -> cafe, then as any English word; in another language the word
is stemmed with its accents, then loses them: `compressés` -> compress); a word in another script is
lower-cased and, where its script names one Snowball language (Cyrillic: Russian, Greek, Arabic,
Armenian, Devanagari: Hindi, Tamil), stemmed by it like an English word (`Ошибки` -> ошибк and
=ошибки), else kept whole; Chinese, Japanese and Korean runs, which have no spaces between words,
become overlapping character pairs (`数据库` -> 数据, 据库; one character alone stays itself).

The index holds each plain word twice: its stem and its surface form (`=containers`). A query, in
either mode, asks for both (`word_groups`): the form as written where a chunk has it, the stem at a
discount where it has only another form (search/lexical.py).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache, lru_cache
from typing import Any

import Stemmer

from k0maru.index.languages import LATIN

_RAW = re.compile(r"[^\s`'\"(){}\[\],;|*!?，。、；：？！（）「」『』【】《》〈〉・…]+")
_ALNUM = re.compile(r"[^\W_]+")  # on an ASCII token: [A-Za-z0-9]+
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_LINE_SUFFIX = re.compile(r"(?::\d+)+$|\(\d+(?:,\d+)?\)$")
_EDGE = ".:,=#>"

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "so",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "will",
        "with",
        "you",
        "your",
        "our",
        "not",
        "no",
        "do",
        "does",
        "did",
        "can",
        "could",
        "should",
        "would",
        "i",
        "me",
        "my",
        "he",
        "she",
        "his",
        "her",
        "them",
        "than",
        "also",
        "just",
        "only",
        "over",
        "out",
        "up",
        "about",
        "after",
        "before",
        "all",
        "any",
        "each",
        "how",
        "more",
        "most",
        "other",
        "some",
        "very",
    ]
)

_stemmer = Stemmer.Stemmer("english")
_LATIN_STEMMERS: dict[str, Stemmer.Stemmer] = {}
# the script of a word's first letter -> the Snowball language that script names (the cheap
# detector: a script shared by several languages, as Cyrillic by Russian and Ukrainian, gets its
# largest one)
_SCRIPT_LANGUAGE = {
    "CYRILLIC": "russian",
    "GREEK": "greek",
    "ARABIC": "arabic",
    "ARMENIAN": "armenian",
    "DEVANAGARI": "hindi",
    "TAMIL": "tamil",
}
_SCRIPT_STEMMERS: dict[str, Stemmer.Stemmer] = {}


@lru_cache(maxsize=10_000)
def _other_script_stem(low: str) -> str | None:
    """The Snowball stem of a word in a script other than Latin, None where its script has no
    stemmer."""
    script = unicodedata.name(low[0], "").split(" ", 1)[0]
    language = _SCRIPT_LANGUAGE.get(script)
    if language is None or not low.isalpha():
        return None
    if language not in _SCRIPT_STEMMERS:
        _SCRIPT_STEMMERS[language] = Stemmer.Stemmer(language)
    stem: str = _SCRIPT_STEMMERS[language].stemWord(low)
    return stem


@lru_cache(maxsize=10_000)
def _word(part: str) -> str:
    """Lower-case and stem a plain alphabetic part (cached: vocabularies are small)."""
    low = part.lower()
    return _stemmer.stemWord(low) if low.isalpha() else low


@lru_cache(maxsize=10_000)
def _latin_word(word: str, lang: str) -> str:
    """The stem of a Latin-script word in `lang` (not English): stemmed with its accents, which that
    language's Snowball rules read, then without them, as every term is."""
    if lang not in _LATIN_STEMMERS:
        _LATIN_STEMMERS[lang] = Stemmer.Stemmer(lang)
    stem: str = _LATIN_STEMMERS[lang].stemWord(word.lower())
    return strip_accents(stem)


# what tokenize emits for a plain word: its stem; stem and =surface
STEMS, INDEX = 0, 1


# text outside ASCII needs the `regex` module's Unicode classes: compiled at its first token, so an
# ASCII query over ASCII notes never imports it
_WORD = r"[\p{L}\p{M}\p{N}]+"  # any script: letters with their combining marks, digits
_CJK = r"([\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\u30fc\u3005]+)"
_NOT_LATIN = r"(?!\p{Latin})\p{L}"


@cache
def _unicode(pattern: str) -> Any:
    import regex

    return regex.compile(pattern)


_CACHES: dict[tuple[int, str], dict[str, tuple[str, ...]]] = {}
_CACHE_MAX = 20_000  # words per cache: larger ones held ~50 MB more at a 38,000-note build


def tokenize(text: str, forms: int = STEMS, lang: str = "") -> list[str]:
    """Terms of `text`: STEMS for a lexical query and snippets, INDEX for a document. `lang`: the
    Snowball language of its Latin-script words ("" is English; index/languages.py chooses it per
    note)."""
    out: list[str] = []
    extend = out.extend
    lang = "" if lang == "english" or lang not in LATIN else lang
    cache = _CACHES.setdefault((forms, lang), {})
    for raw in _RAW.findall(text):
        terms = cache.get(raw)
        if terms is None:
            if len(cache) >= _CACHE_MAX:
                cache.clear()
            terms = cache[raw] = tuple(_terms(raw, forms, lang))
        extend(terms)
    return out


def word_groups(text: str, langs: tuple[str, ...] = ("",)) -> list[tuple[str, ...]]:
    """The terms of a BM25 query, one group per word: its stems (one per language of `langs`, ""
    being English) then =surface for a plain word, (term,) for anything else."""
    others: dict[str, list[str]] = {}  # =surface -> its stems in the other languages
    for lang in langs[1:]:
        for stem, surface in _pairs(tokenize(text, INDEX, lang)):
            if surface:
                others.setdefault(surface, []).append(stem)
    return [
        (*dict.fromkeys([term, *others.get(surface, [])]), surface) if surface else (term,)
        for term, surface in _pairs(tokenize(text, INDEX, langs[0] if langs else ""))
    ]


def split_group(group: tuple[str, ...]) -> tuple[tuple[str, ...], str]:
    """A word group's stems (one per query language) and the word as written ("=word"; "" for a
    symbol, a group of one term)."""
    if len(group) > 1 and group[-1].startswith("="):
        return group[:-1], group[-1]
    return group, ""


def _pairs(terms: list[str]) -> list[tuple[str, str]]:
    """(stem, =surface) of each plain word of INDEX terms, (term, "") of anything else."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(terms):
        if i + 1 < len(terms) and terms[i + 1].startswith("="):
            out.append((terms[i], terms[i + 1]))
            i += 2
        else:
            out.append((terms[i], ""))
            i += 1
    return out


def _terms(raw: str, forms: int = STEMS, lang: str = "") -> list[str]:
    """Terms of one whitespace-delimited raw token."""
    out: list[str] = []
    token = raw.strip(_EDGE)
    if token.isalpha() and token.isascii():  # a plain word: the common case, in short
        _run_terms(token, out, forms, lang)
        return out
    accented = ""  # the token with its accents, for a language whose stemmer reads them
    if not token.isascii():
        nfkc = unicodedata.normalize("NFKC", token)
        token = _unaccented(nfkc)
        if lang and token != nfkc and token.isascii():
            accented = nfkc
        # no spaces between words: CJK runs as pairs, the pieces between as tokens
        if _unicode(_CJK).search(token):
            return _cjk_terms(token, forms, lang)
    runs = (_ALNUM if token.isascii() else _unicode(_WORD)).findall(token)
    if not runs:
        return out
    if len(runs) > 1 or runs[0] != token:
        _symbol_terms(token, out)
    marked = _unicode(_WORD).findall(accented) if accented else []
    if len(marked) != len(runs):
        marked = runs
    for run, as_written in zip(runs, marked, strict=True):
        _run_terms(run, out, forms, lang, as_written)
    return out


def _cjk_terms(token: str, forms: int, lang: str) -> list[str]:
    """Terms of a token with CJK in it: CJK runs as pairs, the pieces between as tokens."""
    out: list[str] = []
    for i, part in enumerate(_unicode(_CJK).split(token)):
        if i % 2:
            out.extend(
                [part] if len(part) == 1 else [part[j : j + 2] for j in range(len(part) - 1)]
            )
        elif part:
            out.extend(_terms(part, forms, lang))
    return out


def _symbol_terms(token: str, out: list[str]) -> None:
    """A symbol with connectors: kept whole, also without a trailing :line (its parts come
    after)."""
    whole = token.lower()
    out.append(whole)
    bare = _LINE_SUFFIX.sub("", whole)
    if bare != whole and len(_ALNUM.findall(bare)) > 1:
        out.append(bare)


def _run_terms(
    run: str, out: list[str], forms: int = STEMS, lang: str = "", as_written: str = ""
) -> None:
    """A run of letters and digits: stop words dropped, camelCase split, plain words stemmed (in
    `lang`, from the run `as_written`, with its accents, when it is not English)."""
    if (
        not run.isascii()
    ):  # a word of a script other than Latin: lower-cased, stemmed where it can be
        if len(run) > 1:
            _other_script_run(run, out, forms, lang)
        return
    low = run.lower()
    if low in STOPWORDS or (len(low) == 1 and not low.isdigit()):
        return
    pieces = _CAMEL.findall(run) if run != low and not run.isupper() else ()
    if len(pieces) > 1 and not any(c.isdigit() for c in run):
        out.append(low)
        for p in pieces:
            if len(p) > 1:
                _plain(p, out, forms, lang, p)
    elif run.isalpha():
        _plain(run, out, forms, lang, as_written or run)
    else:
        out.append(low)


def _other_script_run(run: str, out: list[str], forms: int, lang: str) -> None:
    """A run of two or more letters of a script other than ASCII: lower-cased, stemmed where it can
    be."""
    low = run.lower()
    if lang and low.isalpha() and unicodedata.name(low[0], "").startswith("LATIN"):
        if low not in STOPWORDS:  # `größe`: a Latin word that keeps a letter as it is
            _plain(run, out, forms, lang, run)
        return
    stem = _other_script_stem(low)
    if stem is None:
        out.append(low)
        return
    out.append(stem)
    if forms == INDEX:
        out.append("=" + low)


def _plain(word: str, out: list[str], forms: int, lang: str = "", as_written: str = "") -> None:
    """A plain alphabetic word in the forms asked for."""
    out.append(_latin_word(as_written or word, lang) if lang else _word(word))
    if forms == INDEX:
        out.append("=" + word.lower())


def strip_accents(text: str) -> str:
    """`text` with its combining marks dropped after NFKD (`Café` -> Cafe, `й` -> и)."""
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _unaccented(token: str) -> str:
    """`token` without its accents if that leaves it ASCII (`Café-Bar` -> Cafe-Bar), else as it
    is."""
    folded = strip_accents(token)
    return folded if folded.isascii() else token


_CODE_TOKEN = re.compile(r"[_:/\\<>&$#@.=()\[\]{}]|\d|^-|^[A-Z0-9]{2,}$|[a-z][A-Z]")


def lexical_share(query: str, other_scripts: bool = True) -> float:
    """The share of the query's words that only exact terms match well: code (symbols, flags, error
    codes, paths, numbers, identifiers in camelCase or CAPS: `SQLITE_BUSY`, `E0502`, `--force`,
    `src/a.rs:3`) and, if `other_scripts`, words with letters outside the Latin script, which the
    bundled English model reads as fragments. 0 for a question in plain English words, 1 for a bare
    symbol or a question in Russian; recall leans on BM25 the larger it is."""
    words = query.split()
    if not words:
        return 0.0
    return sum(
        1
        for w in words
        if _CODE_TOKEN.search(w)
        or (other_scripts and not w.isascii() and _unicode(_NOT_LATIN).search(w))
    ) / len(words)
