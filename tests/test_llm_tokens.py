"""The token counter's label: what every offload record and summary names as its count."""

from __future__ import annotations

from k0maru.llm_tokens import ESTIMATOR, count_tokens, fit_tokens


def test_the_label_names_the_encoding_not_one_library() -> None:
    """Texts are counted by k0maru's own byte-pair merges: the label names the encoding they count
    exactly, not a library."""
    assert ESTIMATOR == "o200k_base BPE"
    assert count_tokens("lease renewal") == 2  # " renewal" is one o200k token


def test_a_cut_keeps_the_most_whole_words_that_fit() -> None:
    text = "Keep `StoreLock.acquire()` out of hot paths; the worker's 0.5 s batches commit on their own."
    words = text.split(" ")
    assert fit_tokens(text, count_tokens(text)) == text
    for limit in (2, 5, 12, count_tokens(text) - 1):
        cut = fit_tokens(text, limit)
        assert cut.endswith(" …") and count_tokens(cut) <= limit
        kept = cut.removesuffix(" …").split(" ") if cut != " …" else []
        assert kept == words[: len(kept)]
        assert count_tokens(" ".join(words[: len(kept) + 1]) + " …") > limit  # one more won't fit
