"""The plain-Python WordPiece tokeniser against `tokenizers`' `BertWordPieceTokenizer` (the test
extra's oracle) with the shipped vocabulary and the embedder's settings: the same ids, type ids and
attention mask for every code point, for hostile random text, and for the demo vault's notes and
the stored logs, whole and truncated."""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from k0maru.search import wordpiece
from k0maru.search.embedding import MAX_TOKENS, vocab_path
from k0maru.search.wordpiece import WordPiece
from tests.helpers import DEMO_VAULT, REPO


@functools.cache
def _oracle(max_length: int | None) -> Any:
    from tokenizers import BertWordPieceTokenizer

    tokenizer = BertWordPieceTokenizer(str(vocab_path()), lowercase=True)
    if max_length is not None:
        tokenizer.enable_truncation(max_length=max_length)
    return tokenizer


@functools.cache
def _ours(max_length: int | None) -> WordPiece:
    return WordPiece(vocab_path(), max_length)


def _same(texts: list[str], max_length: int | None = MAX_TOKENS) -> None:
    expected = _oracle(max_length).encode_batch(texts)
    got = _ours(max_length).encode_batch(texts)
    for text, want, have in zip(texts, expected, got, strict=True):
        assert have.ids == want.ids, text
        assert have.type_ids == want.type_ids and have.attention_mask == want.attention_mask


def test_examples_of_each_step() -> None:
    """Accents stripped, CJK ideographs apart, kana not, punctuation apart, controls and zero-width
    characters dropped, special tokens taken whole, word pieces longest first, a word past 100
    characters one [UNK]."""
    ours = _ours(None)
    vocab = {i: t for t, i in ours.vocab.items()}

    def tokens(text: str) -> list[str]:
        return [vocab[i] for i in ours.ids(text)][1:-1]

    assert tokens("Naïve CAFÉ") == ["naive", "cafe"]
    assert tokens("東京タワー") == ["東", "京", "タ", "##ワ", "##ー"]
    assert tokens("a.b,c(d)$e") == ["a", ".", "b", ",", "c", "(", "d", ")", "$", "e"]
    assert tokens("null\x00able zero\u200bwidth tab\tnew\nline\xa0space") == [
        "null", "##able", "zero", "##wi", "##dt", "##h", "tab", "new", "line", "space",
    ]  # fmt: skip
    assert tokens("a[SEP]b [sep]") == ["a", "[SEP]", "b", "[", "sep", "]"]
    assert tokens("unaffable") == ["una", "##ffa", "##ble"]
    assert tokens("x" * 101) == ["[UNK]"] and tokens("x" * 100)[0] == "xx"
    assert ours.ids("") == [ours.cls, ours.sep]


def test_truncation_keeps_the_first_pieces() -> None:
    ours = WordPiece(vocab_path(), 8)
    assert ours.ids("one two three four five six seven eight") == ours.ids(
        "one two three four five six"
    )
    assert len(ours.ids("unaffable " * 10)) == 8
    _same(["unaffable " * 10, "a b c d e f", "a b c d e f g", ""], 8)


def _code_points(chars: list[str]) -> None:
    """Each code point between two letters and alone: dropped, a space, punctuation, an accent, a
    CJK ideograph, a letter, in the Unicode 8.0 classes `tokenizers` carries, not Python's."""
    texts = [" ".join(f"a{c}b {c}" for c in chars[i : i + 500]) for i in range(0, len(chars), 500)]
    _same(texts, None)


def _special(code: int) -> bool:
    """Past the BMP: a code point Python or the tables class as other than a plain letter, symbol
    or unassigned one."""
    c = chr(code)
    category = unicodedata.category(c)
    return (category not in ("Cn", "Co") and category[0] in "CPMZ") or any(
        c in t for t in (wordpiece.UNICODE_PUNCTUATION, wordpiece.NONSPACING_MARKS)
    )


def test_the_code_points_that_matter_are_treated_as_tokenizers_treats_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The whole BMP, and past it every code point Python or the tables class as other than a plain
    letter, symbol or unassigned one, the ends of every range of the tables, and a sample of the
    rest (the slow tier's test below takes them all)."""
    monkeypatch.setattr(wordpiece, "_NORMAL", wordpiece._Normal())  # a table not kept
    tables = (wordpiece.UNICODE_PUNCTUATION, wordpiece.NONSPACING_MARKS, wordpiece.DROPPED)
    bounds = {c for r in (*tables, wordpiece.CJK) for c in (*r.starts, *r.ends)}
    codes = [c for c in range(0x110000) if c < 0x10000 or c in bounds or c % 97 == 0 or _special(c)]
    _code_points([chr(c) for c in codes if not 0xD800 <= c <= 0xDFFF])  # no str for `tokenizers`


@pytest.mark.slow  # a minute on two busy cores: not a process, but not the fast tier's either
def test_every_code_point_is_treated_as_tokenizers_treats_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(wordpiece, "_NORMAL", wordpiece._Normal())  # 1.1M entries, not kept
    _code_points([chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF])


VOCAB_WORDS = st.sampled_from(
    sorted(t.removeprefix("##") for t in wordpiece.read_vocab(vocab_path()) if t[:1] != "[")
)
ALPHABET = st.one_of(
    st.characters(codec="utf-8"),  # any code point, unassigned and private use ones too
    st.sampled_from(list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~¡¿«»“”‘’—–…·•§¶※、。「」！？（）")),
    st.sampled_from(list("éÉèàÂäöÜçñßøÅæŒİıΣσςΟΔ\u0301\u0308\u0327\u0323ǅﬁ")),  # accents, cases
    st.sampled_from(list("東京中文字漢\uf900\U00020000\U0002a700ひらがなカタカナ한국어ｱ")),  # CJK
    st.sampled_from(list("😀🥰🫠👩💻🇯🇵\U0001f3fb\ufe0f✓→")),  # emoji: ZWJ and flags below
    st.sampled_from(list("\x00\x01\x07\x0b\x0c\x1c\x1f\x7f\x85\u200b\u200d\ufeff\ufffd\U000e0001")),
    st.sampled_from(list(" \t\n\r\xa0\u2003\u3000\u2028\u2029\u1680\u202f\u180e")),  # whitespace
    st.sampled_from(list("abcxyzABCXYZ0123456789")),
)
PIECES = st.one_of(
    st.text(ALPHABET, max_size=30),
    VOCAB_WORDS,
    st.sampled_from(["👩\u200d💻", "🇯🇵", "👍🏽", "❤\ufe0f", "1\ufe0f\u20e3"]),
    st.builds("".join, st.lists(VOCAB_WORDS, min_size=2, max_size=8)),  # split into pieces
    st.integers(95, 105).map(lambda n: "x" * n),  # about the 100-character limit
    st.sampled_from(["[CLS]", "[SEP]", "[UNK]", "[PAD]", "[MASK]", "[sep]", "[SEP", "[[MASK]]"]),
)
TEXTS = st.lists(PIECES, max_size=40).map(lambda parts: "".join(parts))


@settings(max_examples=600, deadline=None)
@given(texts=st.lists(TEXTS, min_size=1, max_size=4))
def test_the_ids_equal_tokenizers_on_hostile_text(texts: list[str]) -> None:
    _same(texts)
    _same(texts, None)


def _real_texts() -> list[str]:
    paths = sorted(DEMO_VAULT.rglob("*.md")) + sorted(
        p for p in (REPO / "tests" / "data" / "logs").rglob("*") if p.is_file()
    )
    assert len(paths) > 400
    return [p.read_text(encoding="utf-8", errors="replace") for p in paths]


def test_the_ids_equal_tokenizers_on_the_demo_vault_and_the_logs() -> None:
    """Every note and log whole (every word tokenised, no truncation), and as the embedder sees
    them: paragraph by paragraph, truncated to MAX_TOKENS."""
    texts = _real_texts()
    _same(texts, None)
    _same([part for text in texts for part in text.split("\n\n")])


def test_the_word_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wordpiece, "CACHED_WORDS", 3)
    ours = WordPiece(vocab_path())
    first = ours.ids("alpha beta gamma delta [SEP] epsilon")
    assert len(ours._cache) <= 3
    assert ours.ids("alpha beta gamma delta [SEP] epsilon") == first


def test_a_vocabulary_without_the_special_tokens_is_refused(tmp_path: Path) -> None:
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\nhello\n", encoding="utf-8")
    with pytest.raises(ValueError, match="lacks the special tokens"):
        WordPiece(vocab)
