"""Query-focused snippets in plain text: Markdown syntax rendered away outside code (`[[a|b]]` -> b,
`[[#Part]]` -> Part, `[t](u)` -> t, no heading hashes, fence markers, emphasis, HTML comments or
backslash escapes), code spans and fenced
code exactly as written, then the sentences that carry most of the query's terms."""

from __future__ import annotations

import re
from functools import lru_cache

from k0maru.search.terms import tokenize
from k0maru.text import shorten
from k0maru.wikilinks import FENCE, INLINE_CODE

_WIKI = re.compile(r"!?\[\[([^\[\]|#]*)(?:#([^\[\]|]*))?(?:\|([^\[\]]*))?\]\]")
_MD_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
_HELD = re.compile("\x00(\\d+)\x00")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)[\s#]*$", re.M)
# [ \t]: not the blank line before
_LIST = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+(?:\[[ xX]\][ \t]+)?", re.M)
_QUOTE = re.compile(r"^[ \t]*>[ \t]?", re.M)
_EMPHASIS = re.compile(r"(\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*]))")
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: a backslash before ASCII punctuation
_TABLE_RULE = re.compile(r"^\s*\|?[\s:|-]+\|[\s:|-]*$", re.M)
# a sentence ends at . ! ? before a capital (or a letter of a script without case), a digit or a
# quote
_FULL_STOPS = "。！？"  # Chinese and Japanese: no space follows them
_SENTENCE = rf"(?<=[.!?])\s+(?=[\p{{Lu}}\p{{Lt}}\p{{Lo}}\d`\"'(])|(?<=[{_FULL_STOPS}])\s*|\n+"
# the same on ASCII text, in `re` (the `regex` module loads only for other text): `regex`'s
# whitespace (re's \s also takes \x1c-\x1f), capitals and digits
_ASCII_SENTENCE = re.compile(r"(?<=[.!?])[ \t\n\v\f\r]+(?=[A-Z0-9`\"'(])|\n+")


def _split(text: str) -> list[str]:
    """`text` cut at its sentence ends."""
    if text.isascii():
        return _ASCII_SENTENCE.split(text)
    import regex

    return regex.split(_SENTENCE, text)  # type: ignore[no-any-return]


def _link_text(m: re.Match[str]) -> str:
    """A wikilink's readable text: its alias, else the note and heading (`Note > Part`, `Part`)."""
    if m.group(3):
        return m.group(3).strip()
    return " > ".join(p.strip() for p in (m.group(1), m.group(2)) if p and p.strip())


def plain(markdown: str) -> str:
    """Markdown as readable plain text, one space between words; inline code keeps its backticks,
    and code (spans and fences) is left exactly as written."""
    held: list[str] = []

    def hold(code: str) -> str:
        held.append(code)
        return f"\x00{len(held) - 1}\x00"

    text = FENCE.sub(lambda m: "\n" + hold(m.group("code").rstrip("\n")) + "\n\n", markdown)
    text = INLINE_CODE.sub(lambda m: hold(m.group(0)), text)
    text = _COMMENT.sub("", text)
    text = _ESCAPE.sub(lambda m: hold(m.group(1)), text)  # an escaped `*` or `[` is that character
    text = _WIKI.sub(_link_text, text)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = _HEADING.sub(lambda m: m.group(1) + "\n\n", text)  # a heading stays a line of its own
    for rx in (_LIST, _QUOTE, _TABLE_RULE):
        text = rx.sub("", text)
    text = _EMPHASIS.sub("", text)
    text = re.sub(r"(?<=\S)[ \t]*\n(?=[ \t]*\S)", " ", text)  # lines of one paragraph are one text
    text = text.replace("|", " ")
    return _HELD.sub(lambda m: held[int(m.group(1))], text)


def _joined(sentences: list[str]) -> str:
    """Sentences as one text: a space after each, none after a full-width stop (Chinese,
    Japanese)."""
    return "".join(s + ("" if s.endswith(tuple(_FULL_STOPS)) else " ") for s in sentences).rstrip()


@lru_cache(maxsize=1024)
def _sentences(markdown: str) -> tuple[str, ...]:
    """A chunk's plain-text sentences, kept for the chunks recent queries showed (they come again:
    each costs a dozen regular-expression passes)."""
    found = (" ".join(s.split()) for s in _split(plain(markdown)))
    return tuple(s for s in found if s)


def snippet(markdown: str, query: str, limit: int = 280, skip: str = "") -> str:
    """At most `limit` characters of `markdown` as plain text, starting at the sentence that carries
    the most query terms (ties: the earliest), continued with the sentences that follow. A first
    line equal to `skip` (the section's heading, already shown) is left out."""
    sentences = list(_sentences(markdown))
    if sentences and skip and sentences[0].lower() == " ".join(skip.split()).lower():
        sentences = sentences[1:]
    if not sentences:
        return ""
    wanted = set(tokenize(query))
    best = 0
    if wanted:
        scores = [len(wanted & set(tokenize(s))) for s in sentences]
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    out = _joined(sentences[best:])
    if len(out) < limit // 2 and best > 0:  # room left: take the lead-in too
        out = _joined(sentences[max(best - 1, 0) :])
    return shorten(out, limit, at_word=True)
