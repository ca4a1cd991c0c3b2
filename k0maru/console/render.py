"""Note Markdown to safe HTML: raw HTML is escaped by the parser and the result is sanitised by nh3
(no scripts, no event handlers, no javascript: URLs); [[wikilinks]] become console links."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from urllib.parse import quote

import nh3
from markdown_it import MarkdownIt

_WIKI = re.compile(r"\[\[([^\[\]\r\n|#^]*)(#[^\[\]\r\n|]*)?(?:\|([^\[\]\r\n]*))?\]\]")
_MD_INLINE = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)\)")
_EMBED = re.compile(r"!\[\[")  # an embed shows as a link to the embedded note
_COMMENT = re.compile(r"<!--.*?-->", re.S)
MAX_NESTING = (
    40  # markdown-it's bound on open blocks (a list level takes two); deeper content is dropped
)
_md = (
    MarkdownIt("commonmark", {"html": False, "linkify": False, "maxNesting": MAX_NESTING})
    .enable("table")
    .enable("strikethrough")
)
ALLOWED_TAGS = {
    "a",
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "code",
    "pre",
    "em",
    "strong",
    "blockquote",
    "hr",
    "br",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "del",
    "span",
}


def render_markdown(
    body: str,
    resolve: Callable[[str], str | None],
    note_path: str = "",
    resolve_href: Callable[[str, str], str | None] | None = None,
) -> str:
    """`resolve(link key)` gives the vault path of a wikilink's target, `resolve_href(href, note folder)`
    a Markdown link's (`LinkPaths`); None for a dangling link. Links to notes become console links;
    other URLs, and Markdown links when there is no `resolve_href`, stay as they are."""
    note_dir = note_path.rsplit("/", 1)[0] if "/" in note_path else ""

    def md_link(m: re.Match[str]) -> str:
        path = resolve_href(m.group(2), note_dir) if resolve_href else None
        return f"[{m.group(1)}](/notes/{quote(path)})" if path else m.group(0)

    def wikilink(m: re.Match[str]) -> str:
        target = m.group(1).strip()
        shown = (m.group(3) or target).strip() or target
        path = resolve(target.lower().removesuffix(".md")) if target else None
        safe_shown = shown.replace("[", "").replace("]", "")
        if path is None:
            return f"{safe_shown}"
        return f"[{safe_shown}](/notes/{quote(path)})"

    body = _COMMENT.sub("", body)  # hidden in any Markdown viewer: not shown as text either
    tokens = _md.parse(_WIKI.sub(wikilink, _MD_INLINE.sub(md_link, _EMBED.sub("[[", body))))
    html = _md.renderer.render(tokens, _md.options, {})
    if any(t.level >= MAX_NESTING - 1 for t in tokens):  # the parser stopped at its bound: say so
        html += (
            f"<p><strong>This note nests deeper than {MAX_NESTING // 2} levels; what follows is "
            f"its text as written.</strong></p><pre><code>{escape(body)}</code></pre>"
        )
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes={"a": {"href", "title"}, "code": {"class"}, "span": {"class"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )
