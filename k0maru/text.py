"""Text that reaches a terminal or a note's title: control characters removed (ESC sequences, \\x01,
DEL, the C1 range, bidi overrides, zero-width characters), so a commit trailer or a note cannot move
the cursor, recolour or retitle a terminal, nor reorder or hide what an agent or a person reads.
`visible` shows them escaped instead (`\\u202e`), and `unescape` turns such a path back."""

from __future__ import annotations

import re

# bidi controls (U+202E and its kin) reorder what a terminal or a reader shows, zero-width
# characters hide text or join look-alikes: dropped as well
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u200b-\u200d\u2060-\u2064\ufeff"
# patterns, compiled (and cached) by `re` on first use: a command that prints only plain text
# compiles none
_CONTROL = f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{_ZERO_WIDTH}]"
_CONTROL_AND_NEWLINES = f"[\x00-\x1f\x7f-\x9f{_BIDI}{_ZERO_WIDTH}]"
_ESCAPED = r"\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|\\([ntr])"
_LETTERS = {"n": "\n", "t": "\t", "r": "\r"}  # as Python's repr writes them (a "did you mean")


def printable(text: str, keep: str = "") -> str:
    """`text` without control characters; tabs and newlines become spaces unless `keep` names them
    ("\\n": lines and tabs are kept, for a multi-line block)."""
    if keep:
        return re.sub(_CONTROL, "", text)
    return re.sub(_CONTROL_AND_NEWLINES, lambda m: " " if m.group(0) in "\t\n\r" else "", text)


def visible(text: str, keep: str = "", wide: bool = False) -> str:
    """`text` with each control, bidi and zero-width character shown escaped (`\\x1b`, `\\u202e`),
    so a reader sees it is there and a path shown can be opened again (`unescape`). `keep`: "\\n"
    keeps lines and tabs, for a multi-line block; `wide`: every escape as `\\uXXXX` (JSON's form,
    for a JSON text whose strings carry them)."""
    pattern = _CONTROL if keep else _CONTROL_AND_NEWLINES

    def escape(m: re.Match[str]) -> str:
        code = ord(m.group(0))
        return f"\\x{code:02x}" if code < 0x100 and not wide else f"\\u{code:04x}"

    return re.sub(pattern, escape, text)


def unescape(text: str) -> str:
    """`text` with the escapes `visible` (or Python's repr: `\\n`) writes turned back into their
    characters (only those: a `\\u0041` stays as it is)."""

    def back(m: re.Match[str]) -> str:
        char = _LETTERS[m.group(3)] if m.group(3) else chr(int(m.group(1) or m.group(2), 16))
        return char if re.fullmatch(_CONTROL_AND_NEWLINES, char) else m.group(0)

    return re.sub(_ESCAPED, back, text)


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
