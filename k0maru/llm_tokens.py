"""Token accounting with a real tokenizer: the embedding model's WordPiece vocabulary."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

ESTIMATOR = "WordPiece bert-base-uncased (HF tokenizers)"


@lru_cache(maxsize=1)
def _tokenizer():
    from tokenizers import BertWordPieceTokenizer

    from k0maru.search.embedding import vocab_path

    return BertWordPieceTokenizer(str(vocab_path()), lowercase=True)


def count_tokens(text: str) -> int:
    if not text:
        return 0
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


def count_tokens_batch(texts: Iterable[str]) -> int:
    """Sum of tokens over many texts, encoded in parallel by the Rust tokenizer."""
    batch = [t for t in texts if t]
    if not batch:
        return 0
    return sum(len(e.ids) for e in _tokenizer().encode_batch(batch, add_special_tokens=False))
