"""Markdown note parsing: frontmatter, title, tags, links (wikilinks and Markdown links), heading
chunks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date as _date
from typing import Any
from urllib.parse import unquote

import xxhash

from k0maru.index.languages import note_language
from k0maru.kinds import folder_kind
from k0maru.text import tags_key
from k0maru.wikilinks import WIKILINK, hide_comments, inline_tags, wikilink, without_code

_FRONTMATTER = re.compile(
    r"\A---[ \t]*\r?\n(.*?)(?:\r?\n)?^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S | re.M
)
# [text](href "title") (not an image), or a reference definition `[id]: href`. Neither the text
# nor the href holds a bracket (nor the href a parenthesis), so each `[` looks no further than the
# next one: linear on any input (a line of 10,000 `[a](` once took 17 s)
_MD_LINK = re.compile(
    r"(?<!!)\[([^\[\]\n]*)\]\(\s*(<[^>\n]+>|[^()\[\]\s]+)"
    r"(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"
    r"|^[ \t]{0,3}\[(?!\^)[^\[\]\n]+\]:[ \t]*(<[^>\n]+>|\S+)",  # `[^1]: text` is a footnote
    re.M,
)
_BRACKETS = frozenset("[]")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_HEADING_LINE = re.compile(r"(#{1,6})[ \t]+(.+)\Z")  # the closing #s cut by `heading_text`


@dataclass(frozen=True, slots=True)
class Link:
    target: str  # as written, e.g. "Folder/Note"
    key: str  # normalised for resolution: lower-case, no ".md"
    heading: str | None
    display: str | None


@dataclass(frozen=True, slots=True)
class Chunk:
    ord: int
    heading: str
    text: str
    hash: str
    section: str = ""  # the heading path below the title: "Section > Subsection"
    line_start: int = 0  # 1-based lines of the file the chunk spans
    line_end: int = 0


@dataclass(slots=True)
class ParsedNote:
    title: str
    frontmatter: dict[str, Any]
    body: str
    aliases: list[str]
    links: list[Link]
    warnings: list[str] = field(default_factory=list)
    # frontmatter and inline #tags, lower-case, nested a/b
    tags: list[str] = field(default_factory=list)
    kind: str | None = (
        None  # frontmatter kind/type, else from a folder name (adr, decision, card, ...)
    )
    date: float | None = None  # frontmatter date/created, else the file name's (UTC midnight)
    body_line: int = 1  # the file's line where the body starts (after the frontmatter)
    lang: str = (
        ""  # the Snowball language its words are stemmed in, "" for English (index/languages.py)
    )


def hash_bytes(data: bytes) -> str:
    return xxhash.xxh3_64_hexdigest(data)


_SIMPLE_KEY = re.compile(r"([A-Za-z_][\w-]*):(?:[ \t]+(.*?))?[ \t]*\Z")
_INT = re.compile(r"[-+]?\d+\Z")
_FLOAT = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?\Z")
_DATE = re.compile(r"\d{4}-\d\d-\d\d\Z")
_UNSAFE_PLAIN = set("&*!|>{}[]%@`#\"'")
_BOOLS = {
    "true": True,
    "false": False,
    "yes": True,
    "no": False,
    "on": True,
    "off": False,
    "null": None,
    "~": None,
}


def _plain_scalar(raw: str) -> Any:
    """YAML 1.1 scalar resolution for the plain and simply-quoted values of typical frontmatter;
    ValueError for anything else (PyYAML reads it)."""
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return _simply_quoted(raw)
    if _complex_plain(raw):
        raise ValueError("complex scalar")
    low = raw.lower()
    if low in _BOOLS:
        return _BOOLS[low]
    if raw[0] in "0123456789+-.":
        return _numeric_looking(raw)
    return raw


def _simply_quoted(raw: str) -> str:
    """A quoted value without escapes or its own quote inside, as written between the quotes."""
    inner = raw[1:-1]
    if "\\" in inner or raw[0] in inner:
        raise ValueError("escapes")
    return inner


def _complex_plain(raw: str) -> bool:
    """Whether an unquoted value may mean more than its text: empty, starting with an indicator,
    holding a mapping's `: ` or a comment's ` #`, or a block sequence's or mapping's dash."""
    if not raw or raw[0] in _UNSAFE_PLAIN or ": " in raw or " #" in raw:
        return True
    return raw[0] in "-?," and len(raw) > 1 and raw[1] in " \t"


def _numeric_looking(raw: str) -> Any:
    """A value starting like a number: a plain decimal int or float, or a date kept as text (YAML
    1.1 also has octal, hex, sexagesimal, .inf: ValueError, PyYAML reads those)."""
    digits = raw.lstrip("+-")
    if _INT.match(raw) and not (digits.startswith("0") and digits != "0") and "_" not in raw:
        return int(raw)
    if _FLOAT.match(raw):
        return float(raw)
    if _DATE.match(raw):
        _date.fromisoformat(raw)  # 2026-02-30: PyYAML's answer (an error) is the one given
        return raw
    raise ValueError("numeric-looking scalar")


def _fast_frontmatter(text: str) -> dict[str, Any] | None:
    """Parse the common flat frontmatter (scalars, flow lists, block lists) without PyYAML's
    Python-level constructor; None means "not simple, use PyYAML"."""
    data: dict[str, Any] = {}
    last_key: str | None = None
    try:
        for line in text.split("\n"):
            line = line.rstrip("\r")
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if stripped.startswith("- ") and last_key is not None and line[0] in " -":
                _add_item(data, last_key, stripped[2:].strip())
                continue
            match = _SIMPLE_KEY.match(line) if line[0] not in " \t" else None
            if not match or match.group(1) in data:
                return None
            last_key = match.group(1)
            data[last_key] = _flat_value(match.group(2) or "")
    except ValueError:
        return None
    return data


def _add_item(data: dict[str, Any], key: str, raw: str) -> None:
    """A block list's item added to `key`'s list; ValueError when `key` holds a scalar."""
    if data[key] is None:
        data[key] = []
    if not isinstance(data[key], list):
        raise ValueError("a list item under a scalar")
    data[key].append(_plain_scalar(raw))


def _flat_value(raw: str) -> Any:
    """A key's value written on its line: a flow list of scalars, a scalar, or None when empty;
    ValueError when it is not that simple."""
    if raw.startswith("[") and raw.endswith("]"):
        inner = raw[1:-1].strip()
        if any(c in inner for c in "[]{}\"'"):
            raise ValueError("a nested or quoted flow list")
        return [_plain_scalar(v.strip()) for v in inner.split(",")] if inner else []
    return _plain_scalar(raw) if raw else None


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """(frontmatter, body, error). Broken YAML is reported (one line) and left out of the body, as
    any frontmatter block is: snippets and answers never show raw YAML."""
    if not text.startswith("---"):
        return {}, text, None
    match = _FRONTMATTER.match(text)
    if not match:
        return {}, text, "frontmatter starts with '---' at line 1 but has no closing '---' line"
    fast = _fast_frontmatter(match.group(1))
    if fast is not None:
        return fast, text[match.end() :], None
    from k0maru.index.frontmatter import FrontmatterError, load

    try:
        data = load(match.group(1))
    except FrontmatterError as exc:
        return {}, text[match.end() :], str(exc)
    return data or {}, text[match.end() :], None


def _as_str_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def strip_code(body: str) -> str:
    """Body without code (`wikilinks.code_spans`), where links are not links."""
    return without_code(body)


def md_link_key(href: str, note_dir: str) -> tuple[str, str | None] | None:
    """(vault path key, anchor) of a Markdown link to another note, None for anything else (URLs,
    images, same-note anchors, paths that leave the vault)."""
    split = _note_href(href.strip().strip("<>"))
    if split is None:
        return None
    path, anchor = split
    base = [] if path.startswith("/") else [p for p in note_dir.split("/") if p]
    parts = _walked(base, path.split("/"))
    key = "/".join(parts).lower().removesuffix(".md") if parts else ""
    # leading "/": this exact vault path only
    return ("/" + key, unquote(anchor) or None) if key else None


def _note_href(href: str) -> tuple[str, str] | None:
    """(path, anchor) of a link that may lead to a note (a path to a `.md` file or to a name without
    an extension); None for URLs, same-note anchors and other files."""
    if not href or href.startswith("#") or _SCHEME.match(href):
        return None
    path, _, anchor = href.partition("#")
    path = unquote(path.split("?", 1)[0])
    name = path.rsplit("/", 1)[-1]
    if not name or ("." in name and not name.lower().endswith(".md")):
        return None
    return path, anchor


def _walked(parts: list[str], steps: list[str]) -> list[str] | None:
    """The folder path `parts` after following the path `steps` (`.`, `..`, names); None when a
    `..` leaves the vault."""
    for step in steps:
        if step == "..":
            if not parts:
                return None
            parts.pop()
        elif step not in ("", "."):
            parts.append(step)
    return parts


def extract_links(body: str, rel_path: str = "", code_free: str | None = None) -> list[Link]:
    """Wikilinks (embeds and block references too) and Markdown links to notes, resolved against the
    folder of the note at `rel_path` (Markdown links become vault-path keys). `code_free`: the body
    after `strip_code`, when the caller has it."""
    has_wiki, has_md = "[[" in body, "](" in body or "]:" in body
    if not has_wiki and not has_md:
        return []
    text = strip_code(body) if code_free is None else code_free
    links = _markdown_links(text, rel_path) if has_md else []
    return links + _wikilinks(text) if has_wiki else links


def _markdown_links(text: str, rel_path: str) -> list[Link]:
    """The Markdown links (inline and reference definitions) of `text` that lead to notes."""
    note_dir = rel_path.rsplit("/", 1)[0] if "/" in rel_path else ""
    links: list[Link] = []
    for match in _MD_LINK.finditer(text):
        href = match.group(2) or match.group(3)
        # a name with brackets is no note's (Obsidian refuses them), as in `[0]: [`
        found = md_link_key(href, note_dir) if href and not _BRACKETS & set(href) else None
        if found:
            display = (match.group(1) or "").strip() or None
            links.append(Link(href.strip(), found[0], found[1], display))
    return links


def _wikilinks(text: str) -> list[Link]:
    """The wikilinks of `text` to other notes ([[#Heading]] points into the same note: none)."""
    links: list[Link] = []
    for match in WIKILINK.finditer(text):
        target, heading, alias = wikilink(match)
        if target:
            links.append(Link(target, target.lower().removesuffix(".md"), heading, alias))
    return links


def note_tags(frontmatter: dict[str, Any], code_free_body: str) -> list[str]:
    """Tags from frontmatter (`tags`/`tag`, list or comma string) and inline `#tag` / `#a/b` outside
    code and headings (`code_free_body`: the body after `strip_code`), lower-case, without '#'."""
    found = [t.lstrip("#") for t in _as_str_list(frontmatter.get(tags_key(frontmatter)))]
    found += [tag for _, _, tag in inline_tags(code_free_body)]
    return sorted(
        {t.lower().strip("/") for t in found if t and _TAG_OK.match(t) and not t.isdigit()}
    )


_TAG_OK = re.compile(r"[\w\-/]+\Z")  # a frontmatter tag as Obsidian takes it


def note_kind(frontmatter: dict[str, Any], rel_path: str) -> str | None:
    """Frontmatter `kind`/`type`, else the kind of its deepest folder named for one (`kinds.py`,
    the words the conventions file each kind by), so `Daily/` holds logs and `design/` ADRs."""
    for key in ("kind", "type"):
        value = frontmatter.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip().lower()[:32]
    for part in reversed(rel_path.lower().split("/")[:-1]):
        word = re.sub(r"^[\d_\- ]+", "", part).replace(" ", "-").replace("_", "-")
        if kind := folder_kind(word):
            return kind
    return None


def note_date(frontmatter: dict[str, Any]) -> float | None:
    import datetime as dt

    for key in ("date", "created", "updated"):
        value = frontmatter.get(key)
        if isinstance(value, dt.datetime):
            return (value if value.tzinfo else value.replace(tzinfo=dt.UTC)).timestamp()
        if isinstance(value, dt.date):
            return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC).timestamp()
        if isinstance(value, str):
            try:
                return note_date({key: dt.date.fromisoformat(value.strip()[:10])})
            except ValueError:
                continue
    return None


# a whole date starting a file's name: Logseq's `2025_01_15.md`, `2025-01-15-x.md`, `20250115.md`
_NAME_DATE = re.compile(r"(\d{4})([-_.]?)(\d{2})\2(\d{2})(?!\d)")


def name_date(rel_path: str) -> float | None:
    """The date a file's name starts with (UTC midnight), None where it starts with none."""
    import datetime as dt

    m = _NAME_DATE.match(rel_path.rpartition("/")[2])
    if not m:
        return None
    try:
        day = dt.date(int(m.group(1)), int(m.group(3)), int(m.group(4)))
    except ValueError:
        return None
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # CommonMark: a backslash before ASCII punctuation
INDEX_PAGES = ("index", "readme")


def clean_title(text: str) -> str:
    """A heading as a title: HTML comments dropped, Markdown escapes resolved, one space between
    words."""
    return " ".join(_ESCAPE.sub(r"\1", _COMMENT.sub(" ", text)).split())


def note_title(frontmatter: dict[str, Any], rel_path: str, body: str = "") -> str:
    """The note's title: the frontmatter's `title` (as Obsidian Publish and the common title plugins
    read it), else an H1 that opens the note, else the file name (for an `index.md` / `README.md` in
    a folder, the folder's name), which is what Obsidian shows. A `##` heading is never the title
    (a note without an H1 would take it), nor a template's `# {{title}}`. Obsidian itself always
    shows the file name; an opening H1 is kept as the title because k0maru's own cards and many
    documentation vaults name files by slug or code (`A002.md`) and put the name in the H1, which
    search ranks by (docs/console.md states this fallback)."""
    title = frontmatter.get("title")
    if isinstance(title, str) and clean_title(title):
        return clean_title(title)
    opening = _OPENING_H1.match(body)
    heading = clean_title(heading_text(opening.group(1))) if opening else ""
    if heading and "{{" not in heading:
        return heading
    return _file_title(rel_path)


# an H1 before any other heading or text but blank lines, comments and images
_OPENING_H1 = re.compile(
    r"(?:[ \t]*(?:<!--.*?-->|%%.*?%%|!\[[^\n]*|#)?[ \t]*\n)*#[ \t]+([^\n]+)", re.S
)


def heading_text(raw: str) -> str:
    """An ATX heading's text less its closing `#`s and spaces (`## Name ##`), cut in plain Python: a
    lazy regex did it in time quadratic in the line (`# # # ... x`)."""
    return raw.rstrip(" \t#") or raw[:1]


def _file_title(rel_path: str) -> str:
    """The file name, or for an `index.md` / `README.md` in a folder the folder's name."""
    folder, _, name = rel_path.rpartition("/")
    stem = name.removesuffix(".md")
    if stem.lower() in INDEX_PAGES and folder:
        return folder.rsplit("/", 1)[-1]
    return stem


def parse_note(rel_path: str, text: str) -> ParsedNote:
    frontmatter, body, error = split_frontmatter(text)
    warnings = [f"{rel_path}: {error}; indexed without frontmatter, fix the YAML"] if error else []
    title = note_title(frontmatter, rel_path, body)
    aliases = _as_str_list(frontmatter.get("aliases", frontmatter.get("alias")))
    code_free = strip_code(hide_comments(body))  # a comment's links and tags are not the note's
    body_line = text.count("\n", 0, len(text) - len(body)) + 1 if text.endswith(body) else 1
    return ParsedNote(
        title,
        frontmatter,
        body,
        aliases,
        extract_links(body, rel_path, code_free),
        warnings,
        note_tags(frontmatter, code_free),
        note_kind(frontmatter, rel_path),
        _dated(note_date(frontmatter), rel_path),
        body_line,
        note_language(frontmatter, rel_path, code_free),
    )


def _dated(from_frontmatter: float | None, rel_path: str) -> float | None:
    """A note's date: its frontmatter's, else the one its file name starts with."""
    return name_date(rel_path) if from_frontmatter is None else from_frontmatter


def chunk_note(title: str, body: str, cap: int, first_line: int = 1) -> list[Chunk]:
    """Split a note into heading sections, each at most `cap` characters (split at paragraphs), with
    the heading path of each and the file lines it spans (`first_line`: the file's line of the
    body's start).

    A chunk's hash covers the text the embedder sees (title, heading and text), so an unchanged
    section keeps its vector across edits elsewhere in the note.
    """
    chunks: list[Chunk] = []
    body = hide_comments(
        body
    )  # `%%comments%%` are hidden in Obsidian: no search finds or shows them
    counted, line = 0, first_line  # lines counted up to `counted`: each newline counted once
    for offset, heading, path, section in _sections(title, body):
        cursor = 0
        for piece in _cap(section, cap):
            at = section.find(piece[:80], cursor)
            at = at if at >= 0 else cursor
            cursor = at + len(piece)
            line += body.count("\n", counted, max(counted, offset + at))
            counted = max(counted, offset + at)
            start = line
            digest = hash_bytes(embed_input(title, heading, piece).encode())
            chunks.append(
                Chunk(len(chunks), heading, piece, digest, path, start, start + piece.count("\n"))
            )
    return chunks


def _sections(title: str, body: str) -> list[tuple[int, str, str, str]]:
    """(offset, heading, heading path, text) of each heading section with text; the text before
    the first heading is a section without one, and a level-1 heading that repeats the title is
    left out of the heading paths."""
    sections: list[tuple[int, str, str, str]] = []
    starts = _heading_starts(body)
    if not starts or starts[0][0] > 0:
        starts.insert(0, (0, "", 0))
    ends = [pos for pos, _, _ in starts[1:]] + [len(body)]
    trail: list[tuple[int, str]] = []  # (level, heading) of the enclosing headings
    for (pos, heading, level), end in zip(starts, ends, strict=True):
        _enter(trail, heading, level, title)
        raw = body[pos:end]
        if raw.strip():
            lead = pos + (len(raw) - len(raw.lstrip()))
            sections.append((lead, heading, " > ".join(h for _, h in trail), raw.strip()))
    return sections


def _enter(trail: list[tuple[int, str]], heading: str, level: int, title: str) -> None:
    """The enclosing headings `trail` at a heading of `level` (0: the text before any heading): the
    headings at its level or below close, and it opens, unless it is the level-1 title."""
    while trail and trail[-1][0] >= level > 0:
        trail.pop()
    if level and not (level == 1 and not trail and same_text(heading, title)):
        trail.append((level, heading))


def same_text(a: str, b: str) -> bool:
    return a.strip().lower() == b.strip().lower()


def _heading_starts(body: str) -> list[tuple[int, str, int]]:
    """(offset, heading text, level) of each ATX heading outside fenced code."""
    starts: list[tuple[int, str, int]] = []
    pos = 0
    fence: str | None = None
    for line in body.split("\n"):
        first = line[:1]
        if first in ("`", "~") and line[:3] in ("```", "~~~"):
            if fence is None:
                fence = line[:3]
            elif line.strip() == fence or line.startswith(fence):
                fence = None
        elif first == "#" and fence is None:
            match = _HEADING_LINE.match(line.rstrip("\r"))
            if match:
                starts.append((pos, heading_text(match.group(2)).strip(), len(match.group(1))))
        pos += len(line) + 1
    return starts


def _cap(section: str, cap: int) -> list[str]:
    if len(section) <= cap:
        return [section]
    pieces: list[str] = []
    current = ""
    for para in section.split("\n\n"):
        while len(para) > cap:  # one giant paragraph: hard split at the last space before cap
            cut = para.rfind(" ", 0, cap)
            cut = cut if cut > cap // 2 else cap
            if current:
                pieces.append(current)
                current = ""
            pieces.append(para[:cut].strip())
            para = para[cut:].strip()
        if current and len(current) + 2 + len(para) > cap:
            pieces.append(current)
            current = para
        else:
            current = f"{current}\n\n{para}" if current else para
    if current.strip():
        pieces.append(current)
    return [p for p in pieces if p.strip()]


def embed_input(title: str, heading: str, text: str) -> str:
    """The exact text given to the embedding model for one chunk."""
    return f"{title}\n{heading}\n{text}" if heading else f"{title}\n{text}"
