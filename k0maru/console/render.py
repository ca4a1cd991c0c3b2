"""Note Markdown to safe HTML: raw HTML is escaped by the parser and the result is sanitised by nh3
(no scripts, no event handlers, no javascript: URLs). Obsidian's syntax is shown as Obsidian shows
it: [[wikilinks]] (read as the index reads them) become console links, `[[#Heading]]` a link to the
heading on the page, `> [!tip]` a callout, `<br>` a line break, an inline `#tag` a link to the notes
it tags, `%%comments%%` hidden, `==highlights==` marked, `- [ ]` tasks as checkboxes, footnotes
(`[^1]`, `^[inline]`) numbered with their notes at the end, `~~strike~~` struck, a `mermaid` block
drawn (the flowcharts `mermaid_svg` draws; any other stays code), `$$math$$` as code, as written.

Embeds (`![[...]]`): an image the vault holds is shown (`|100` or `|100x50` sizes it, a `#suffix`
is a style hook, ignored), audio an `<audio>` player, a note or a section or block of one a link to
it, and any other file (missing, an SVG icon, a PDF) its name: never a broken image."""

from __future__ import annotations

import bisect
import re
import secrets
from collections.abc import Callable, Iterator
from html import escape
from pathlib import PurePosixPath
from urllib.parse import quote, unquote

import nh3
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup

from k0maru.console import mermaid_svg
from k0maru.service.attachments import SERVED_TYPES
from k0maru.wikilinks import (
    EMBED,
    INLINE_CODE,
    WIKILINK,
    code_spans,
    hide_comments,
    inline_tags,
    outside_code,
    wikilink,
)

# neither the text nor the href holds a bracket: each `[` looks no further than the next (linear)
_MD_INLINE = re.compile(r"(?<!!)\[([^\[\]\n]*)\]\(([^()\[\]\s]+)\)")
_IMAGE = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".bmp", ".svg"})
# what an embedded file the console serves and that is no image becomes on the page: a player
# (audio, video) or a link (pdf)
_PLAYED = {
    suffix: "pdf" if media == "application/pdf" else media.partition("/")[0]
    for suffix, media in SERVED_TYPES.items()
    if not media.startswith("image/")
}
_SIZE = re.compile(r"(\d+)(?:x(\d+))?\Z")
_FOOTNOTE_DEF = re.compile(r"^[ \t]{0,3}\[\^([^\]\s]+)\]:[ \t]?(.*)$", re.M)
_FOOTNOTE_REF = re.compile(r"\[\^([^\[\]\s]+)\](?!:)|\^\[([^\[\]\n]+)\]")
# `$$` opening a line (behind any `>` of a quote) to `$$` closing one; `$x$` with no space inside
_MATH_BLOCK = re.compile(r"^(?P<p>[ \t]*(?:>[ \t]?)*)\$\$(?P<body>.*?)\$\$[ \t]*$", re.S | re.M)
_MATH_INLINE = re.compile(r"(?<![\\$\w])\$(?=[^\s$])([^$\n]*?[^\s\\$])\$(?![\d$])")
_FN_HREFS = ("#^fn-", "#%5Efn-")  # a footnote reference, before and after the link is encoded
_TASK = re.compile(r"\[([^\]\n])\][ \t]+")
_BLOCK_ID = re.compile(r"[ \t]\^([A-Za-z0-9-]+)[ \t]*$")  # `text ^step1`: a block links can name
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)  # an unclosed one hides the rest, as a browser
_CALLOUT = re.compile(r"\[!([\w-]+)\][+-]?[ \t]*")
_BREAK = re.compile(r"<br[ \t]*/?>", re.I)
# an escaped bracket (not one), a bracket, a paragraph's end; what ends a link's destination
_BRACKET = re.compile(r"\\[\[\]]|[\[\]]|\n[ \t]*\n")
_DESTINATION_END = re.compile(r"[\s\[\])]")
RENDER_CHARS = 500_000  # a note page renders this much of a note as Markdown (about 2 s at most)
BRACKET_SCAN = 200_000  # characters markdown-it may scan for brackets' ends before they are escaped
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
    "s",
    "span",
    "img",
    "mark",
    "sup",
    "section",
    "input",
    "audio",
    "video",
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
    `images`: the vault path of each embedded file that exists and is served (`![[x.png]]`), shown
    from `/files/`. An opening heading that says `title` again, which the page already shows, is
    left out."""
    note_dir = note_path.rsplit("/", 1)[0] if "/" in note_path else ""
    nonce = secrets.token_hex(8)  # marks what this function adds, which no note can write

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

    def links(text: str) -> str:
        text = EMBED.sub(lambda m: embed(m, images or {}, nonce), _MD_INLINE.sub(md_link, text))
        return WIKILINK.sub(link, text)

    body, rest = _first_part(body)
    # comments are hidden in Obsidian (and HTML comments in any Markdown viewer): not shown either
    body = _COMMENT.sub("", hide_comments(body))
    body = outside_code(body, math)
    notes = Footnotes()
    body = notes.section(outside_code(body, notes.take))
    tokens = _md.parse(bounded_brackets(outside_code(body, links)))
    if (
        title
        and len(tokens) > 2
        and tokens[0].type == "heading_open"
        and tokens[1].content.strip() == title.strip()
    ):
        tokens = tokens[3:]
    obsidian(tokens, nonce, images or {})
    accessible(tokens)
    svgs = diagrams(tokens, nonce)
    html = _md.renderer.render(tokens, _md.options, {})
    if any(t.level >= MAX_NESTING - 1 for t in tokens):  # the parser stopped at its bound: say so
        html += (
            f"<p><strong>This note nests deeper than {MAX_NESTING // 2} levels; what follows is "
            f"its text as written.</strong></p><pre><code>{escape(body)}</code></pre>"
        )
    if rest:  # the parser's time grows with the note: past RENDER_CHARS, the text as written
        html += (
            f"<p><strong>This note is longer than {RENDER_CHARS:,} characters; what follows is "
            f"its text as written.</strong></p><pre><code>{escape(rest)}</code></pre>"
        )
    return with_diagrams(clean(html), svgs, nonce)


def _first_part(body: str) -> tuple[str, str]:
    """`body` cut at the last line break within `RENDER_CHARS`: (what is rendered, the rest)."""
    if len(body) <= RENDER_CHARS:
        return body, ""
    cut = body.rfind("\n", 0, RENDER_CHARS)
    cut = cut if cut > 0 else RENDER_CHARS
    return body[:cut], body[cut:]


def bounded_brackets(text: str) -> str:
    """`text`, or where markdown-it would scan too far for the ends of its brackets (a link's
    label looks for its `]` to the paragraph's end: quadratic in unclosed or deeply nested `[`,
    which took a 200 KB note over 90 s), with those brackets escaped (`\\[`) and so shown as text:
    each `[` without its `]` in the paragraph, each pair nested deeper than two, each label whose
    `(` destination runs into another bracket. A note whose scans add up to `BRACKET_SCAN` or
    fewer characters is left as it is."""
    if "[" not in text:
        return text
    spans = code_spans(text)
    offenders, cost = _bracket_offenders(text, spans)
    if cost <= BRACKET_SCAN:
        return text
    out, at = [], 0
    for pos in sorted(set(offenders)):
        out += [text[at:pos], "\\"]
        at = pos
    out.append(text[at:])
    return "".join(out)


def _bracket_offenders(text: str, spans: list[tuple[int, int]]) -> tuple[list[int], int]:
    """The positions of the brackets `bounded_brackets` escapes, and how far markdown-it would
    scan from them (characters)."""
    offenders: list[int] = []
    cost, stack = 0, []
    spaces = [m.start() for m in re.finditer(r"\s", text)]  # a destination's scan ends at one
    for at, token in _brackets(text, spans):
        if token == "[":
            stack.append(at)
        elif token != "]" or not stack:  # a paragraph's end: its open brackets never close
            cost += sum(at - s for s in stack)
            offenders += stack
            stack = []
        elif len(stack) > 2 or _runs_into_bracket(text, at):  # too deep, or `[a]([b]...`
            offenders += [stack[-1], at]
            space = bisect.bisect(spaces, at)
            cost += (spaces[space] if space < len(spaces) else len(text)) - stack.pop()
        else:
            stack.pop()
    cost += sum(len(text) - s for s in stack)
    return offenders + stack, cost


def _brackets(text: str, spans: list[tuple[int, int]]) -> Iterator[tuple[int, str]]:
    """(position, `[`, `]` or a paragraph's end) of `text`, less what lies in code (`spans`, in
    order) and escaped brackets."""
    span = 0
    for m in _BRACKET.finditer(text):
        at = m.start()
        while span < len(spans) and spans[span][1] <= at:
            span += 1
        if m.group()[0] != "\\" and not (span < len(spans) and spans[span][0] <= at):
            yield at, m.group()


def _runs_into_bracket(text: str, close: int) -> bool:
    """Whether the `]` at `close` opens a destination `(` that meets a bracket before its end."""
    if not text.startswith("(", close + 1):
        return False
    end = _DESTINATION_END.search(text, close + 2)
    return end is not None and end.group() in "[]"


def clean(html: str) -> str:
    """`html` with only the tags, attributes and URL schemes a note page shows."""
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes={
            "a": {"href", "title", "class"},
            "code": {"class"},
            "span": {"class", "title"},
            "blockquote": {"class"},
            "img": {"src", "alt", "width", "height"},
            "audio": {"src", "controls", "title"},
            "video": {"src", "controls", "title"},
            "input": {"type", "checked", "disabled", "aria-label"},
            "section": {"class"},
            "sup": {"class"},
            "li": {"id", "class"},
            **dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), {"id", "aria-level"}),
            **dict.fromkeys(("p", "td"), {"id"}),
        },
        # a code block wider than the page scrolls; tabindex lets a keyboard scroll it too
        set_tag_attribute_values={"pre": {"tabindex": "0"}},
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )


def embed(m: re.Match[str], files: dict[str, str], nonce: str) -> str:
    """An embed as Markdown: a note's a wikilink to it (the link pass makes it a link), a file's
    an image whose title tells `embeds` what it is (a served image, audio, video or PDF, a file to
    name)."""
    target, _, alias = wikilink(m)
    suffix = PurePosixPath(target).suffix.lower()
    if not suffix or suffix == ".md" or " " in suffix:  # a note, a heading or a block of one
        return m.group(0)[1:]
    path = files.get(target)
    size = _SIZE.match(alias or "")
    shown = (target if size or not alias else alias).replace("[", "").replace("]", "")
    kind = "file" if path is None else _PLAYED.get(suffix) or "image"
    if kind == "image" and size:
        kind = f"size {size.group(1)} {size.group(2) or ''}"
    src = f"/files/{quote(path)}" if path else "#"
    return f'![{shown}]({src} "k0-{nonce} {kind}")'


def math(text: str) -> str:
    """`$$ ... $$` as a fenced `math` block and `$x$` as inline code: shown as written (a Markdown
    escape like `\\` left as it is), never read as Markdown."""

    def block(m: re.Match[str]) -> str:
        prefix, lines = m.group("p"), m.group("body").split("\n")
        if len(lines) == 1:
            return prefix + code_span(lines[0].strip())
        if not lines[-1].strip(" \t>"):
            lines.pop()
        first = [prefix + lines[0].strip()] if lines[0].strip() else []
        fence = "`" * max(3, longest_run(m.group("body")) + 1)
        return "\n".join([f"{prefix}{fence}math", *first, *lines[1:], f"{prefix}{fence}"])

    if "$" not in text:
        return text
    return _MATH_INLINE.sub(lambda m: code_span(m.group(1)), _MATH_BLOCK.sub(block, text))


def longest_run(text: str) -> int:
    return max((len(r) for r in re.findall("`+", text)), default=0)


def code_span(text: str) -> str:
    """`text` as an inline code span, whatever backticks it holds."""
    ticks = "`" * (longest_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


class Footnotes:
    """Obsidian's footnotes: each `[^id]` (and inline `^[text]`) becomes a numbered reference, each
    `[^id]: text` definition leaves its place for a numbered list at the note's end."""

    def __init__(self) -> None:
        self.texts: dict[str, str] = {}
        self.order: list[str] = []

    def take(self, text: str) -> str:
        """`text` (no code) with its definitions taken out and its references numbered."""
        if "^" not in text:
            return text

        def define(m: re.Match[str]) -> str:
            self.texts.setdefault(m.group(1), m.group(2).strip())
            return ""

        return _FOOTNOTE_REF.sub(self.ref, _FOOTNOTE_DEF.sub(define, text))

    def ref(self, m: re.Match[str]) -> str:
        key = m.group(1)
        if key is None:  # ^[inline note]
            key = f"inline {len(self.texts)}"
            self.texts[key] = m.group(2)
        if key not in self.order:
            self.order.append(key)
        n = self.order.index(key) + 1
        return f"[{n}](#^fn-{n})"

    def section(self, body: str) -> str:
        """`body` with the notes listed at its end, in the order they are first referred to (those
        never referred to after them); a reference without a note is left as written."""
        for key in self.texts:
            if key not in self.order:
                self.order.append(key)
        for n, key in enumerate(self.order, 1):
            if key not in self.texts:
                body = body.replace(f"[{n}](#^fn-{n})", f"\\[^{key}\\]")
        kept = [(n, self.texts[k]) for n, k in enumerate(self.order, 1) if k in self.texts]
        if not kept:
            return body
        items = "\n".join(f"{n}. {text or ' '} ^fn-{n}" for n, text in kept)
        return f"{body}\n\n---\n\n{items}\n"


def diagrams(tokens: list[Token], nonce: str) -> list[str]:
    """Each `mermaid` block `mermaid_svg` can draw, in place of its code: a placeholder that
    `with_diagrams` fills once the page is sanitised (the SVG is built from escaped text)."""
    svgs: list[str] = []
    for token in tokens:
        if token.type != "fence" or token.info.strip().lower() != "mermaid":
            continue
        try:
            svg = mermaid_svg.render(token.content, "diagram")
        except mermaid_svg.MermaidError:
            continue  # a diagram it cannot draw: shown as the code it is
        token.type, token.content = "html_block", f'<p id="k0-{nonce}-mermaid-{len(svgs)}"></p>'
        svgs.append(svg)
    return svgs


def with_diagrams(html: str, svgs: list[str], nonce: str) -> str:
    for n, svg in enumerate(svgs):
        spot = f'<p id="k0-{nonce}-mermaid-{n}"></p>'
        html = html.replace(spot, f'<figure class="mermaid">{svg}</figure>', 1)
    return html


def obsidian(tokens: list[Token], nonce: str = "", files: dict[str, str] | None = None) -> None:
    """Heading ids, callouts, tasks, `<br>`, inline tags, highlights, footnote references and
    embeds, in place on the parsed tokens (code untouched)."""
    ids: set[str] = set()
    files = files or {}
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
        elif token.type == "list_item_open" and i + 2 < len(tokens):
            task(token, tokens[i + 2])
        elif token.type == "inline" and token.children:
            block_id(tokens, i)
            children = highlights(inline_marks(token.children))
            token.children = [embeds(c, nonce, files) for c in footnote_refs(children)]


def accessible(tokens: list[Token]) -> None:
    """What a screen reader needs of a note's body: heading levels below the page's title that step
    down one at a time (`aria-level` where the note writes another H1 or skips a level; the look is
    kept) and no empty header cell."""
    level = 1  # the page's title is its h1
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            written = int(token.tag[1])
            level = min(max(written, 2), level + 1)
            if level != written:
                token.attrSet("aria-level", str(level))
        elif token.type == "th_open" and not tokens[i + 1].content.strip():
            token.tag = tokens[i + 2].tag = "td"


def task(item: Token, first: Token) -> None:
    """`- [ ] text` and `- [x] text`: the item shows a checkbox, ticked for any mark but a space."""
    kids = first.children or []
    m = _TASK.match(kids[0].content) if first.type == "inline" and kids else None
    if m is None or kids[0].type != "text":
        return
    item.attrSet("class", "task")
    kids[0].content = kids[0].content[m.end() :]
    checked = ' checked aria-label="done"' if m.group(1) != " " else ' aria-label="to do"'
    box = Token("html_inline", "", 0, content=f'<input type="checkbox" disabled{checked}> ')
    first.children = [box, *kids]


def highlights(children: list[Token]) -> list[Token]:
    """`==text==` as marked text: each `==` of the text children opens or closes a mark (a last
    one without its pair stays as written)."""
    marks = sum(c.content.count("==") for c in children if c.type == "text")
    if marks < 2:
        return children
    out: list[Token] = []
    left, opened = marks - marks % 2, False
    for child in children:
        if child.type != "text" or "==" not in child.content or not left:
            out.append(child)
            continue
        pieces = child.content.split("==")
        for n, piece in enumerate(pieces):
            if n and left:
                out.append(
                    Token("mark_close" if opened else "mark_open", "mark", -1 if opened else 1)
                )
                opened, left = not opened, left - 1
            elif n:
                piece = "==" + piece
            out.append(Token("text", "", 0, content=piece))
    return out


def footnote_refs(children: list[Token]) -> list[Token]:
    """A footnote's reference (a link to `#^fn-n`, as `Footnotes` writes it) as a superscript."""
    out: list[Token] = []
    in_ref = False
    for child in children:
        if child.type == "link_open" and str(child.attrGet("href") or "").startswith(_FN_HREFS):
            child.attrSet("class", "footnote-ref")
            out.append(Token("sup_open", "sup", 1))
            in_ref = True
        out.append(child)
        if child.type == "link_close" and in_ref:
            out.append(Token("sup_close", "sup", -1))
            in_ref = False
    return out


def embeds(token: Token, nonce: str, files: dict[str, str]) -> Token:
    """An image token `embed` wrote (its title says what it is) as that: a served image (sized
    where the embed says so), an audio or video player, a link to a PDF, or the name of a file the
    page cannot show."""
    title = str(token.attrGet("title") or "") if token.type == "image" else ""
    if token.type == "image" and not (nonce and title.startswith(f"k0-{nonce} ")):
        return md_image(token, files)
    if not nonce or not title.startswith(f"k0-{nonce} "):
        return token
    kind = title.split(" ")[1:]
    token.attrs.pop("title", None)
    src, name = str(token.attrGet("src") or ""), token.content
    if kind[0] == "size":
        token.attrSet("width", kind[1])
        if kind[2:] and kind[2]:
            token.attrSet("height", kind[2])
        return token
    if kind[0] in ("audio", "video"):
        html = f'<{kind[0]} controls src="{escape(src)}" title="{escape(name)}"></{kind[0]}>'
        return Token("html_inline", "", 0, content=html)
    if kind[0] == "pdf":
        return Token("html_inline", "", 0, content=f'<a href="{escape(src)}">{escape(name)}</a>')
    if kind[0] == "file":
        return Token("html_inline", "", 0, content=file_name(name))
    return token


def md_image(token: Token, files: dict[str, str]) -> Token:
    """A Markdown image `![alt|100x50](src)` as Obsidian shows it: sized by its alt's `|size`, a
    vault file found by its name (its `#suffix` ignored) or named where not served, and a web page
    that is no image (a video's, a post's) a link to it."""
    src = str(token.attrGet("src") or "")
    alt, _, size = (
        token.content.rpartition("|") if "|" in token.content else (token.content, "", "")
    )
    sized = _SIZE.match(size)
    if sized:
        token.attrSet("width", sized.group(1))
        if sized.group(2):
            token.attrSet("height", sized.group(2))
        token.content = alt
        token.children = [Token("text", "", 0, content=alt)]
    path = unquote(src.split("#", 1)[0])
    suffix = PurePosixPath(path).suffix.lower()
    if src.startswith(("http://", "https://")):
        if suffix in _IMAGE:
            return token
        return Token(
            "html_inline", "", 0, content=f'<a href="{escape(src)}">{escape(alt or src)}</a>'
        )
    found = files.get(path) or files.get(PurePosixPath(path).name)
    if found and suffix in _IMAGE:
        token.attrSet("src", f"/files/{quote(found)}")
        return token
    return Token("html_inline", "", 0, content=escape(alt or PurePosixPath(path).name))


def file_name(name: str) -> str:
    """A file the page cannot show (missing, an SVG, a PDF), as its name: an Obsidian icon
    (`lucide-cog.svg`) as the icon's name, in brackets."""
    stem = PurePosixPath(name).stem
    if name.lower().endswith(".svg") and stem.startswith("lucide-"):
        return f'<span class="icon" title="{escape(name)}">[{escape(stem[7:])}]</span>'
    return escape(name)


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
