"""Markdown note parsing: frontmatter, title, wikilinks, and heading-based chunks."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import xxhash
import yaml

try:  # the C loader is ~10x faster; fall back where libyaml is missing
    _YamlLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _YamlLoader = yaml.SafeLoader

_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)(?:\r?\n)?^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S | re.M)
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\r\n|#^]*)(#[^\[\]\r\n|]*)?(?:\|([^\[\]\r\n]*))?\]\]")
_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.M)


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


@dataclass(slots=True)
class ParsedNote:
    title: str
    frontmatter: dict[str, Any]
    body: str
    aliases: list[str]
    links: list[Link]
    warnings: list[str] = field(default_factory=list)


def hash_bytes(data: bytes) -> str:
    return xxhash.xxh3_64_hexdigest(data)


def split_frontmatter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """(frontmatter, body, error). Broken YAML keeps the whole text as body and reports why."""
    if not text.startswith("---"):
        return {}, text, None
    match = _FRONTMATTER.match(text)
    if not match:
        return {}, text, "frontmatter starts with '---' but has no closing '---' line"
    try:
        data = yaml.load(match.group(1), Loader=_YamlLoader)  # noqa: S506 - safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark else ""
        return {}, text, f"invalid YAML frontmatter{where}: {getattr(exc, 'problem', exc)}"
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return {}, text, "frontmatter is not a key: value mapping"
    return data, text[match.end():], None


def _as_str_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def strip_code(body: str) -> str:
    """Body without fenced and inline code, where links are not links."""
    if "```" in body or "~~~" in body:
        body = _FENCE.sub("", body)
    if "`" in body:
        body = _INLINE_CODE.sub("", body)
    return body


def extract_links(body: str) -> list[Link]:
    if "[[" not in body:
        return []
    links: list[Link] = []
    for match in _WIKILINK.finditer(strip_code(body)):
        target = match.group(2).strip()
        heading = match.group(3)[1:].strip() if match.group(3) else None
        if not target:  # [[#Heading]] points into the same note
            continue
        key = target.lower()
        if key.endswith(".md"):
            key = key[:-3]
        links.append(Link(target, key, heading or None, (match.group(4) or "").strip() or None))
    return links


def parse_note(rel_path: str, text: str) -> ParsedNote:
    frontmatter, body, error = split_frontmatter(text)
    warnings = [f"{rel_path}: {error}; indexed without frontmatter, fix the YAML"] if error else []
    stem = rel_path.rsplit("/", 1)[-1].removesuffix(".md")
    title = frontmatter.get("title")
    if not isinstance(title, str) or not title.strip():
        h1 = _H1.search(body)
        title = h1.group(1).strip() if h1 else stem
    aliases = _as_str_list(frontmatter.get("aliases", frontmatter.get("alias")))
    return ParsedNote(title.strip(), frontmatter, body, aliases, extract_links(body), warnings)


def chunk_note(title: str, body: str, cap: int) -> list[Chunk]:
    """Split a note into heading sections, each at most `cap` characters (split at paragraphs).

    A chunk's hash covers the text the embedder sees (title, heading and text), so an unchanged
    section keeps its vector across edits elsewhere in the note.
    """
    sections: list[tuple[str, str]] = []
    fences = [(m.start(), m.end()) for m in _FENCE.finditer(body)] if ("```" in body or "~~~" in body) else []
    starts: list[tuple[int, str]] = []
    for match in _HEADING.finditer(body):
        pos = match.start()
        if any(a <= pos < b for a, b in fences):
            continue
        starts.append((pos, match.group(2).strip()))
    if not starts or starts[0][0] > 0:
        starts.insert(0, (0, ""))
    for i, (pos, heading) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(body)
        section = body[pos:end].strip()
        if section:
            sections.append((heading, section))
    chunks: list[Chunk] = []
    for heading, section in sections:
        for piece in _cap(section, cap):
            digest = hash_bytes(embed_input(title, heading, piece).encode())
            chunks.append(Chunk(len(chunks), heading, piece, digest))
    return chunks


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
