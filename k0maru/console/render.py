"""Note Markdown to safe HTML: raw HTML is escaped by the parser and the result is sanitised by nh3
(no scripts, no event handlers, no javascript: URLs); [[wikilinks]] become console links."""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import quote

import nh3
from markdown_it import MarkdownIt

_WIKI = re.compile(r"\[\[([^\[\]\r\n|#^]*)(#[^\[\]\r\n|]*)?(?:\|([^\[\]\r\n]*))?\]\]")
_md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").enable("strikethrough")
ALLOWED_TAGS = {"a", "p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "code", "pre", "em", "strong", "blockquote",
                "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "del", "span"}


def render_markdown(body: str, resolve: Callable[[str], str | None]) -> str:
    """`resolve(link key)` gives the vault path of a wikilink target, or None for a dangling link."""

    def wikilink(m: re.Match[str]) -> str:
        target = m.group(1).strip()
        shown = (m.group(3) or target).strip() or target
        path = resolve(target.lower().removesuffix(".md")) if target else None
        safe_shown = shown.replace("[", "").replace("]", "")
        if path is None:
            return f"{safe_shown}"
        return f"[{safe_shown}](/notes/{quote(path)})"

    html = _md.render(_WIKI.sub(wikilink, body))
    return nh3.clean(html, tags=ALLOWED_TAGS, attributes={"a": {"href", "title"}, "code": {"class"}, "span": {"class"}},
                     url_schemes={"http", "https", "mailto"}, link_rel="noopener noreferrer")
