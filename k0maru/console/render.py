"""Note Markdown to safe HTML: raw HTML is escaped by the parser and the result is sanitised by nh3
(no scripts, no event handlers, no javascript: URLs). Obsidian's syntax is shown as Obsidian shows
it: [[wikilinks]] (read as the index reads them) become console links, `[[#Heading]]` a link to the
heading on the page, `> [!tip]` a callout, `<br>` a line break, an inline `#tag` a link to the notes
it tags."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape
from urllib.parse import quote

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup

from k0maru.wikilinks import INLINE_CODE, WIKILINK, inline_tags, outside_code, wikilink

_MD_INLINE = re.compile(r"(?<!!)\[([^\]\n]*)\]\(([^)\s]+)\)")
# an embed: an image the vault holds is shown, anything else (a note, a PDF) as a link to it
_EMBED = re.compile(r"!\[\[([^\]|#\n]+)(?:\|[^\]\n]*)?\]\]")
_BLOCK_ID = re.compile(r"[ \t]\^([A-Za-z0-9-]+)[ \t]*$")  # `text ^step1`: a block links can name
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_CALLOUT = re.compile(r"\[!([\w-]+)\][+-]?[ \t]*")
_BREAK = re.compile(r"<br[ \t]*/?>", re.I)
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
    "img",
}


def slug(heading: str) -> str:
    """The id of a heading on the page, and the anchor a link to it uses."""
    return re.sub(r"[^\w]+", "-", heading.lower()).strip("-") or "section"


def render_markdown(
    body: str,
    resolve: Callable[[str], str | None],
    note_path: str = "",
    resolve_href: Callable[[str, str], str | None] | None = None,
    title: str | None = None,
    images: dict[str, str] | None = None,
) -> str:
    """`resolve(link key)` gives the vault path of a wikilink's target, `resolve_href(href, note
    folder)` a Markdown link's (`LinkPaths`); None for a dangling link. Links to notes become
    console links; other URLs, and Markdown links when there is no `resolve_href`, stay as they are.
    `images`: the vault path of each embedded image that exists (`![[x.png]]`), shown from
    `/files/`. An opening heading that says `title` again, which the page already shows, is left
    out."""
    note_dir = note_path.rsplit("/", 1)[0] if "/" in note_path else ""

    def md_link(m: re.Match[str]) -> str:
        path = resolve_href(m.group(2), note_dir) if resolve_href else None
        return f"[{m.group(1)}](/notes/{quote(path)})" if path else m.group(0)

    def link(m: re.Match[str]) -> str:
        target, heading, alias = wikilink(m)
        shown = alias or (
            f"{target} > {heading}" if target and heading else target or heading or ""
        )
        shown = shown.replace("[", "").replace("]", "")
        anchor = f"#{heading if heading.startswith('^') else slug(heading)}" if heading else ""
        if not target:  # [[#Heading]]: a heading of this note
            return f"[{shown}]({anchor or '#'})"
        path = resolve(target.lower().removesuffix(".md"))
        return f"[{shown}](/notes/{quote(path)}{anchor})" if path else shown

    body = _COMMENT.sub("", body)  # hidden in any Markdown viewer: not shown as text either

    def embed(m: re.Match[str]) -> str:
        path = (images or {}).get(m.group(1).strip())
        return f"![{m.group(1)}](/files/{quote(path)})" if path else m.group(0)[1:]

    def links(text: str) -> str:
        return WIKILINK.sub(link, _EMBED.sub(embed, _MD_INLINE.sub(md_link, text)))

    tokens = _md.parse(outside_code(body, links))
    if (
        title
        and len(tokens) > 2
        and tokens[0].type == "heading_open"
        and tokens[1].content.strip() == title.strip()
    ):
        tokens = tokens[3:]
    obsidian(tokens)
    html = _md.renderer.render(tokens, _md.options, {})
    if any(t.level >= MAX_NESTING - 1 for t in tokens):  # the parser stopped at its bound: say so
        html += (
            f"<p><strong>This note nests deeper than {MAX_NESTING // 2} levels; what follows is "
            f"its text as written.</strong></p><pre><code>{escape(body)}</code></pre>"
        )
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes={
            "a": {"href", "title", "class"},
            "code": {"class"},
            "span": {"class"},
            "blockquote": {"class"},
            "img": {"src", "alt"},
            **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6", "p", "li", "td"), {"id"}),
        },
        # a code block wider than the page scrolls; tabindex lets a keyboard scroll it too
        set_tag_attribute_values={"pre": {"tabindex": "0"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )


def obsidian(tokens: list[Token]) -> None:
    """Heading ids, callouts, `<br>` and inline tags, in place on the parsed tokens (code
    untouched)."""
    ids: set[str] = set()
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            base = slug(tokens[i + 1].content)
            key, n = base, 1
            while key in ids:
                n += 1
                key = f"{base}-{n}"
            ids.add(key)
            token.attrSet("id", key)
        elif token.type == "blockquote_open" and i + 2 < len(tokens):
            callout(token, tokens[i + 2])
        elif token.type == "inline" and token.children:
            block_id(tokens, i)
            token.children = inline_marks(token.children)


def block_id(tokens: list[Token], i: int) -> None:
    """A block ending in `^id` gets that id, so `[[note#^id]]` leads to it; the marker is not
    shown."""
    children = tokens[i].children or []
    last = children[-1] if children else None
    m = _BLOCK_ID.search(last.content) if last is not None and last.type == "text" else None
    if m is None or last is None:
        return
    last.content = last.content[: m.start()]
    opener = i - 1
    while opener > 0 and tokens[opener].hidden:  # a tight list's paragraph is not rendered
        opener -= 1
    tokens[opener].attrSet("id", f"^{m.group(1)}")


def callout(quote_open: Token, first: Token) -> None:
    """`> [!tip] Title`: the quote is a callout, its title (or its kind) shown in bold."""
    kids = first.children or []
    m = _CALLOUT.match(kids[0].content) if first.type == "inline" and kids else None
    if m is None or kids[0].type != "text":
        return
    kind = m.group(1).lower()
    quote_open.attrSet("class", f"callout callout-{kind}")
    title = kids[0].content[m.end() :].strip() or kind.capitalize()
    rest = kids[1:]
    if rest and rest[0].type == "softbreak":
        rest[0] = Token("hardbreak", "br", 0)
    first.children = [
        Token("strong_open", "strong", 1),
        Token("text", "", 0, content=title),
        Token("strong_close", "strong", -1),
        *rest,
    ]


def inline_marks(children: list[Token]) -> list[Token]:
    """Text children with `<br>` as line breaks and `#tags` as links to the notes they tag (not
    inside a link, not in code)."""
    out: list[Token] = []
    in_link = 0
    for child in children:
        in_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
        if child.type != "text" or not ("<" in child.content or "#" in child.content):
            out.append(child)
            continue
        for n, piece in enumerate(_BREAK.split(child.content)):
            if n:
                out.append(Token("hardbreak", "br", 0))
            out.extend(tag_links(piece) if not in_link else [Token("text", "", 0, content=piece)])
    return out


def tag_links(text: str) -> list[Token]:
    """`text` with each inline `#tag` (as the index reads one) a link to the notes it tags."""
    out: list[Token] = []
    at = 0
    for start, end, written in inline_tags(text):
        tag = written.strip("/")
        if not tag:
            continue
        link = Token("link_open", "a", 1)
        link.attrs = {"href": f"/notes?tag={quote(tag.lower())}", "class": "tag"}
        out += [
            Token("text", "", 0, content=text[at:start]),
            link,
            Token("text", "", 0, content=text[start:end]),
            Token("link_close", "a", -1),
        ]
        at = end
    out.append(Token("text", "", 0, content=text[at:]))
    return out


def passage(text: str) -> Markup:
    """A search passage as safe HTML: escaped, with its `code` spans shown as code, as the note
    shows them."""

    def code(m: re.Match[str]) -> str:
        return f"<code>{m.group(0).strip('`')}</code>"

    return Markup(INLINE_CODE.sub(code, escape(text)))
