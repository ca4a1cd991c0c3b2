"""The token counter's label: what every offload record and summary names as its count."""

from __future__ import annotations

from k0maru.llm_tokens import ESTIMATOR, count_tokens


def test_the_label_names_the_encoding_not_one_library() -> None:
    """Short texts are counted by k0maru's own merges, long ones by tiktoken: the label names the
    encoding both count exactly, not one of them."""
    assert ESTIMATOR == "o200k_base BPE"
    assert count_tokens("lease renewal") == 2  # " renewal" is one o200k token
