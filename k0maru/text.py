"""Text that reaches a terminal or a note's title: control characters removed (ESC sequences, \\x01,
DEL, the C1 range, bidi overrides), so a commit trailer or a note cannot move the cursor, recolour
or retitle a terminal, nor reorder what an agent or a person reads."""

from __future__ import annotations

import re

# bidi controls (U+202E and its kin) reorder what a terminal or a reader shows: dropped as well
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROL = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")
_CONTROL_AND_NEWLINES = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}]")


def printable(text: str, keep: str = "") -> str:
    """`text` without control characters; tabs and newlines become spaces unless `keep` names them
    ("\\n": lines and tabs are kept, for a multi-line block)."""
    if keep:
        return _CONTROL.sub("", text)
    return _CONTROL_AND_NEWLINES.sub(lambda m: " " if m.group(0) in "\t\n\r" else "", text)


def shorten(text: str, limit: int, at_word: bool = False) -> str:
    """`text` in at most `limit` characters: a longer one is cut and ends in "…"; `at_word`: the cut
    falls between words (a trailing `,`, `;` or `:` dropped)."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if at_word:
        head = head.rsplit(" ", 1)[0].rstrip(",;:")
    return head + "…"


def tags_key(frontmatter: dict[str, object]) -> str:
    """The frontmatter key a note's tags are read from: `tags`, else `tag` where only that is
    there (the index and the note page read it alike)."""
    return "tag" if "tag" in frontmatter and "tags" not in frontmatter else "tags"
