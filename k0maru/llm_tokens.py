"""Token accounting with a real LLM tokenizer: OpenAI's o200k_base BPE over its published ranks,
shipped in `k0maru/resources/` (licence beside it; nothing is downloaded), counted by tiktoken's
byte-pair merge rule over the same ranks and split pattern. The same count everywhere: offload
savings, loadout and answer budgets.

The encoder holds only the part of the vocabulary the texts seen so far can use. BPE merges inside a
text's pieces, so every token it emits is a substring of the text's UTF-8 bytes: a vocabulary cut to
the tokens made only of bytes that occur in the text encodes it exactly as the whole one does. ASCII
text with common punctuation (logs, code, English notes) needs 130,926 of the 199,998 tokens, which
loads sooner and takes less memory (docs/benchmarks.md); a text with any other byte rebuilds the
encoder over the whole vocabulary, once, so the vocabulary never changes a count.

Counts are exact on every text whose pieces are at most `LONG_PIECE` characters; a longer piece (a
single 2 MB token, a line of CJK without punctuation) is counted as its slices (`count_tokens`).

Text made only of ASCII characters and the common punctuation (an answer's "·" and "…") is split by
the same pattern written with ASCII classes, for the `re` module (about three times faster than
`regex` with its Unicode properties, which then is not even imported); a text with other characters
is cut where no piece is split (`_SAFE_CUT`), and only the cuts that hold them are split by the
published pattern. Each distinct piece is looked up once per cut."""

from __future__ import annotations

import binascii
import gzip
import io
import re
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from k0maru.errors import K0maruError

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing
if TYPE_CHECKING:
    from typing import Any

ENCODING = "o200k_base"
ESTIMATOR = f"{ENCODING} BPE"  # o200k counts (exact but on pieces over LONG_PIECE characters)
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
# the same pattern on text of ASCII characters only: no letter beyond A-Z and a-z, no number beyond
# 0-9, and `\s` as `regex` reads it there (its White_Space: not the separators \x1c-\x1f that `re`
# adds); (?i:) of the contractions touches ASCII letters alone. tests/offload/test_streaming_cost.py
# holds the two to the same pieces.
_S = "[\\t\\n\\x0b\\x0c\\r ]"
_ASCII_PIECES = re.compile(
    "|".join(
        [
            r"""[^\r\nA-Za-z0-9]?[A-Z]*[a-z]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\nA-Za-z0-9]?[A-Z]+[a-z]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[0-9]{1,3}""",
            r""" ?[^\t\n\x0b\x0c\r A-Za-z0-9]+[\r\n/]*""",
            f"{_S}*[\\r\\n]+",
            f"{_S}+(?![^\\t\\n\\x0b\\x0c\\r ])",
            f"{_S}+",
        ]
    )
)
_ASCII = bytes(range(128))
# the non-ASCII punctuation and symbols common in tool output, notes and answers: their bytes are
# kept from the start, so that a summary line with "·" or a test runner's "✓" does not widen the
# encoder; and being neither letter, mark, number nor whitespace, they split as ASCII punctuation
# does, so text with no other non-ASCII character is split by the ASCII pattern too
_COMMON_TEXT = "·—–…→←✓✗✔✘•“”‘’×°±≤≥"
_COMMON = frozenset(_COMMON_TEXT.encode())
_OTHER = re.compile(f"[^\\x00-\\x7f{_COMMON_TEXT}]")  # only the published pattern splits these
_EVERY_BYTE = frozenset(range(256))
COUNT_PIECE = 8192  # a long text is counted in cuts of about this many characters (`count_tokens`)
LONG_PIECE = 8192  # a piece longer than this many characters is counted in slices of it
MAX_PIECES = 50_000  # the counts of up to this many distinct pieces are kept


def vocabulary_file() -> Path:
    """o200k_base.tiktoken.gz, shipped in `k0maru/resources/` (o200k_base.LICENSE beside it)."""
    from k0maru.resources import resource_path

    path = resource_path(f"{ENCODING}.tiktoken.gz")
    if path.is_file():
        return path
    raise K0maruError(
        f"the {ENCODING} vocabulary is missing ({path}); "
        "reinstall k0maru: pip install --force-reinstall k0maru"
    )


class _Encoder:
    """o200k over the tokens made only of ASCII bytes and the bytes in `extra`, by the byte-pair
    merges of tiktoken's encoder (its rule, the same ranks and split pattern): tiktoken's own
    encoder holds 35 MB more, and takes longer to build than the MCP server's first answer."""

    def __init__(self, extra: frozenset[int]):
        self.extra = extra
        self.ranks = _cached_ranks(extra)
        self.size = len(self.ranks)
        self._pieces: Any = None  # the published pattern, compiled for the first text that needs it
        self.counts: dict[str, int] = {}  # a piece's token count: most pieces recur

    def count(self, text: str) -> int:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: replaced, as tiktoken does
            text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        if _OTHER.search(text) is None:
            return self._tokens(_ASCII_PIECES.findall(text))
        if self._pieces is None:
            import regex  # for the Unicode classes, as tiktoken's published pattern is written

            self._pieces = regex.compile(_O200K_PATTERN)
        return sum(
            self._tokens((_ASCII_PIECES if plain else self._pieces).findall(run))
            for run, plain in _runs(text)
        )

    def _tokens(self, pieces: list[str]) -> int:
        """The tokens of these pieces, each distinct piece merged or looked up once."""
        n = 0
        counts, ranks = self.counts, self.ranks
        for piece, times in Counter(pieces).items():
            if len(piece) > LONG_PIECE:  # counted as its slices (`count_tokens`)
                n += times * self._tokens(_slices(piece))
                continue
            tokens = counts.get(piece)
            if tokens is None:
                tokens = _merged(ranks, piece.encode("utf-8"))
                if len(counts) < MAX_PIECES:
                    counts[piece] = tokens
            n += tokens * times
        return n


def _slices(piece: str) -> list[str]:
    return [piece[i : i + LONG_PIECE] for i in range(0, len(piece), LONG_PIECE)]


def _runs(text: str) -> Iterator[tuple[str, bool]]:
    """`text` cut where no piece is split (`_SAFE_CUT`) into runs, each with whether the ASCII
    pattern splits it (ASCII and common punctuation only): a run with another character reaches
    from the cut before it to the cut after it."""
    pos = 0
    while (other := _OTHER.search(text, pos)) is not None:
        start = _cut_before(text, pos, other.start())
        if start > pos:
            yield text[pos:start], True
        after = _SAFE_CUT.search(text, other.end())
        pos = after.end() if after else len(text)
        yield text[start:pos], False
    if pos < len(text):
        yield text[pos:], True


def _cut_before(text: str, low: int, high: int) -> int:
    """The last cut in `text` after `low` and at or before `high` where no piece is split; `low`
    when there is none."""
    newline = text.rfind("\n", low, high)
    while newline >= low:
        if _SAFE_CUT.match(text, newline):
            return newline + 1
        newline = text.rfind("\n", low, newline)
    return low


def _merged(ranks: dict[bytes, int], piece: bytes) -> int:
    """How many tokens the byte-pair merges make of `piece`: tiktoken's rule, the adjacent pair
    whose joined bytes have the lowest rank (the leftmost of equals) merged first, until no pair is
    a token. The candidate pairs wait in a heap by (rank, start), so a long piece (a rule of 2,000
    dashes) costs O(n log n); a pair whose parts have merged since it was pushed no longer spans
    its (start, end) and is skipped."""
    import heapq

    if piece in ranks:
        return 1
    n = len(piece)
    after = list(range(1, n + 1))  # the start of the next part (n: none), for each part's start
    before = list(range(-1, n - 1))
    heap = [(r, i, i + 2) for i in range(n - 1) if (r := ranks.get(piece[i : i + 2])) is not None]
    heapq.heapify(heap)
    parts = n
    while heap:
        _, i, end = heapq.heappop(heap)
        nxt = after[i]
        if nxt >= n or after[nxt] != end or before[nxt] != i:
            continue  # a part of this pair merged since it was pushed
        after[i] = end  # merge the part at i with the next one
        if end < n:
            before[end] = i
        before[nxt] = -2  # no longer a part's start
        parts -= 1
        if (p := before[i]) >= 0 and (r := ranks.get(piece[p:end])) is not None:
            heapq.heappush(heap, (r, p, end))
        if end < n and (r := ranks.get(piece[i : after[end]])) is not None:
            heapq.heappush(heap, (r, i, after[end]))
    return parts


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
    data = usercache.read(cached)  # None when missing, truncated or overwritten: made again
    try:
        ranks = marshal.loads(data) if data is not None else None
        if isinstance(ranks, dict):
            usercache.used(cached)
            return ranks
    except (EOFError, ValueError, TypeError):
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
    except (
        UnicodeEncodeError
    ):  # a lone surrogate: replaced by U+FFFD (`_Encoder.count`), so allow any byte
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


# Long texts are counted in cuts of about COUNT_PIECE characters, so the pieces of a 30 MB log are
# never listed at once. A cut after a newline followed by a character that is neither whitespace nor
# "/" splits no BPE piece: no alternative of the o200k pattern runs on past such a newline (only its
# punctuation alternative takes trailing newlines and slashes), and none looks behind.
_SAFE_CUT = re.compile(r"\n(?=[^\s/])")


def count_tokens(text: str) -> int:
    """The o200k tokens of `text`, exactly as tiktoken counts them when no piece of the split is
    longer than `LONG_PIECE` characters. A longer piece is counted as its slices of `LONG_PIECE`,
    so its cost grows as short pieces' does (one 2 MB piece's merges took 15-27 s): a token the
    whole piece would merge across a cut counts as two there, and the count may differ from the
    exact one by a few tokens per cut, either way (measured: -1 to +2; +0.003% on 2 MB of random
    letters, 0 on 2 MB of one letter or of CJK)."""
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
