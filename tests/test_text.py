"""The one truncation helper (`text.shorten`) and the places that cut text with it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from k0maru.limits import echo
from k0maru.text import shorten


@given(st.text(), st.integers(min_value=1, max_value=300), st.booleans())
def test_a_shortened_text_never_passes_its_limit(text: str, limit: int, at_word: bool) -> None:
    out = shorten(text, limit, at_word)
    assert len(out) <= limit
    assert out == text if len(text) <= limit else out.endswith("…")


def test_a_cut_at_a_word_ends_between_words() -> None:
    assert shorten("lease renewal, retried after the backup", 20, at_word=True) == "lease renewal…"
    assert shorten("lease renewal, retried after the backup", 20) == "lease renewal, retr…"


def test_an_echoed_input_keeps_to_its_limit() -> None:
    """`echo` once cut to `limit` characters and added "…" after them: one too many."""
    assert echo("x" * 500, 10) == repr("x" * 9 + "…")
