"""The token counts recall_memory's answers are fitted with: an answer's text block and snippets
hold "·" and "…", which split as ASCII punctuation does, so a text with no other non-ASCII
character is split by the fast ASCII pattern; the count is the published pattern's, whatever the
text holds (the `regex` module loads only for a text with another character)."""

from __future__ import annotations

import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from k0maru import llm_tokens

# ASCII of each class the pattern tells apart, the common punctuation, and characters only the
# published pattern splits (letters, a combining mark, a digit and spaces of other scripts)
ALPHABET = "aZ09 \t\n\r'.,-/`_" + llm_tokens._COMMON_TEXT + "éÅ中\u0301\u0663\u00a0\u2028"


def published(text: str) -> int:
    """The count by the o200k pattern as published, over the same encoder."""
    encoder = llm_tokens._encoder_for(text)
    return encoder._tokens(regex.findall(llm_tokens._O200K_PATTERN, text))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=80))
def test_a_count_is_the_published_patterns(text: str) -> None:
    assert llm_tokens.count_tokens(text) == published(text)


def test_each_character_in_runs_and_beside_each_class() -> None:
    """Runs and neighbours a random text seldom holds (three spaces of another script in a row)."""
    for c in {c for c in ALPHABET if not c.isascii()}:
        for text in (f"x{c}{c}{c}y", f"{c}{c}\n", f" {c}{c} ", f"a{c}b", f"9{c}'s", f".{c}/\n", c):
            assert llm_tokens.count_tokens(text) == published(text), repr(text)


def test_an_answers_text_is_split_without_the_regex_module() -> None:
    text = "1. Lease renewal · notes/lease.md:3-9 · hybrid score 0.8123\n   Renew the lease …"
    assert llm_tokens._OTHER.search(text) is None
    assert llm_tokens._OTHER.search(text + " café") is not None
    assert llm_tokens.count_tokens(text) == published(text)
