"""Obsidian's wikilink syntax, read one way by the index (what is stored and resolved) and the console
(what is shown): `[[target#heading|alias]]`, `[[#heading]]` into the same note, `[[target#^block]]`, and
`[[target\\|alias]]`, the form a table needs (its backslash escapes the pipe for the table)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]+`")
_CODE = re.compile(f"{FENCE.pattern}|{INLINE_CODE.pattern}", re.S | re.M)
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


def outside_code(text: str, change: Callable[[str], str]) -> str:
    """`text` with `change` applied to what is not fenced or inline code, where links are not links."""
    out, at = [], 0
    for m in _CODE.finditer(text):
        out += [change(text[at : m.start()]), m.group(0)]
        at = m.end()
    out.append(change(text[at:]))
    return "".join(out)
