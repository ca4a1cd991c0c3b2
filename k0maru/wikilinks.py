"""Obsidian's wikilinks and code, read one way by the index (what is stored and resolved) and the
console (what is shown): `[[target#heading|alias]]`, `[[#heading]]` into the same note,
`[[target#^block]]`, `[[target\\|alias]]` (the form a table needs), inline `#tags`, and the code
where links and tags are not: fences (also inside a callout or a list item) and inline code, except
inline code inside a link's own brackets, which Obsidian shows as part of the link. `%%comments%%`
outside code are hidden in Obsidian: neither shown nor indexed (`hide_comments`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

# a fence, behind any `>` (a callout) or indent (a list item), closes on a line holding the same run
# of backticks or tildes behind any `>` or indent; unclosed, it runs to the end
FENCE = re.compile(
    r"^(?:[ \t]{0,3}>)*[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n"
    r"(?P<code>.*?)(?:^[ \t>]*(?P=fence)[`~]*[ \t]*$|\Z)",
    re.S | re.M,
)
# a run of backticks, then text that starts and ends with another character, then the same run
# (a literal backtick first lets the search skip to each one)
INLINE_CODE = re.compile(r"`(`*)([^`\n]+(?:`+[^`\n]+)*?)`\1(?!`)")
# a letter first: `#1` and a heading's `# ` are no tags
_TAG_AFTER_HASH = re.compile(r"[^\W\d][\w\-/]*")
_TAG_BEFORE = frozenset(" \t\n(,;")
# an embed: `!` then a wikilink (the same groups)
EMBED = re.compile(r"!\[\[([^\[\]\r\n|#^]*)(#[^\[\]\r\n|]*)?(?:\|([^\[\]\r\n]*))?\]\]")
WIKILINK = re.compile(r"\[\[([^\[\]\r\n|#^]*)(#[^\[\]\r\n|]*)?(?:\|([^\[\]\r\n]*))?\]\]")


class Wikilink(NamedTuple):
    target: str  # as written, "" for a link into the same note
    heading: str | None  # the heading or `^block` after '#'
    alias: str | None


def wikilink(match: re.Match[str]) -> Wikilink:
    """The parts of a WIKILINK match, stripped, without a table's escaping backslash."""
    target, heading = match.group(1), match.group(2)
    if heading is not None:
        heading = heading[1:].removesuffix("\\")
    else:
        target = target.removesuffix("\\")
    return Wikilink(
        target.strip(), (heading or "").strip() or None, (match.group(3) or "").strip() or None
    )


def code_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each fence and inline code span of `text`, in order."""
    spans: list[tuple[int, int]] = []
    at = 0
    fences = FENCE.finditer(text) if "```" in text or "~~~" in text else iter(())
    for fence in (*fences, None):
        end = fence.start() if fence else len(text)
        if "`" in text[at:end]:
            links = [m.span() for m in WIKILINK.finditer(text, at, end)]
            for m in INLINE_CODE.finditer(text, at, end):
                if not any(s <= m.start() and m.end() <= e for s, e in links):
                    spans.append(m.span())
        if fence:
            spans.append(fence.span())
            at = fence.end()
    return spans


def without_code(text: str) -> str:
    """`text` less its `code_spans`. When no link holds a backtick (nearly always) that is the text
    less its fences, then less its inline code: two substitutions, at the regex engine's speed."""
    if "`" not in text and "~~~" not in text:
        return text
    if "[[" in text and any("`" in m.group(0) for m in WIKILINK.finditer(text)):
        kept, at = [], 0
        for start, end in code_spans(text):
            kept.append(text[at:start])
            at = end
        return "".join([*kept, text[at:]])
    if "```" in text or "~~~" in text:
        text = FENCE.sub("", text)
    return INLINE_CODE.sub("", text) if "`" in text else text


def outside_code(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to what is not code (`code_spans`), where links are not
    links."""
    out, at = [], 0
    for start, end in code_spans(text):
        out += [change(text[at:start]), text[start:end]]
        at = end
    out.append(change(text[at:]))
    return "".join(out)


def inline_tags(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, tag without '#') of each inline `#tag` or `#a/b` of `text` (code left out by the
    caller): at a line's start or after a space or one of `(,;`."""
    at = text.find("#")
    while at != -1:  # str.find between the '#'s: a regex over the whole body costs ~10x more
        if at == 0 or text[at - 1] in _TAG_BEFORE:
            m = _TAG_AFTER_HASH.match(text, at + 1)
            if m:
                yield at, m.end(), m.group(0)
        at = text.find("#", at + 1)


def hide_comments(text: str) -> str:
    """`text` with each `%%comment%%` outside code (`code_spans`) blanked: its characters become
    spaces, its line breaks stay, so offsets and line numbers still hold. An unclosed `%%` hides the
    rest, as in Obsidian."""
    if "%%" not in text:
        return text
    spans = code_spans(text) if "`" in text or "~~~" in text else []
    marks = [m.start() for m in re.finditer("%%", text) if not _inside(m.start(), spans)]
    if not marks:
        return text
    out, at = [], 0
    for start, end in zip(marks[::2], [*marks[1::2], len(text) - 2], strict=False):
        out += [text[at:start], re.sub(r"[^\n]", " ", text[start : end + 2])]
        at = end + 2
    out.append(text[at:])
    return "".join(out)


def _inside(at: int, spans: list[tuple[int, int]]) -> bool:
    return any(s <= at < e for s, e in spans)
