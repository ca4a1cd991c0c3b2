"""A scan's per-file work, everything short of its writes: `prepare` reads, hashes and (when the
bytes moved) parses and chunks one file, or says why it is skipped. Pure functions of the file, so
the scanner reads a few files ahead of its writes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from k0maru.fsutil import read_bytes
from k0maru.index.copies import signature
from k0maru.index.markdown import (
    Chunk,
    ParsedNote,
    chunk_note,
    hash_bytes,
    parse_note,
    split_frontmatter,
)
from k0maru.text import printable

_BINARY_PROBE = 8192


class Job(NamedTuple):
    """One file to prepare: where it is, its size when walked, the digest the index holds for it
    (None: new), whether it is parsed even when that digest is unchanged (`full`)."""

    rel: str
    abspath: str
    size: int
    cap: int
    known: str | None
    full: bool
    chunk_chars: int


@dataclass(slots=True)
class Prepared:
    """A file read and, unless skipped or unchanged, parsed: `read` bytes (-1: not read), its
    `digest`, why it is skipped (`skip`), the note, its chunks and its copy signature."""

    read: int = -1
    digest: str = ""
    skip: str | None = None
    note: ParsedNote | None = None
    chunks: list[Chunk] = field(default_factory=list)
    sig: bytes = b""


def prepare(job: Job) -> Prepared:
    """Read, hash and (if its digest moved, or `full`) parse and chunk one file. Its outcomes in
    order: too big, gone, unreadable, the same bytes, not UTF-8 text, unparsable, parsed."""
    data = file_bytes(job.abspath, job.size, job.cap)
    if isinstance(data, str):
        return Prepared(skip=data)
    out = Prepared(len(data), hash_bytes(data))
    if out.digest == job.known and not job.full:
        return out
    text, out.skip = note_text(data)
    return out if text is None else parsed(job, out, text)


def parsed(job: Job, out: Prepared, text: str) -> Prepared:
    """`out` with the note parsed from `text`, its chunks and signature (or why it is skipped)."""
    note = parse_text(job.rel, text)
    if note is None:
        out.skip = "the parser failed on it; please report it"
        return out
    out.note = note
    out.chunks = chunk_note(note.title, note.body, job.chunk_chars, note.body_line)
    out.sig = signature(note.body)
    return out


def file_bytes(abspath: str, size: int, cap: int) -> bytes | str:
    """The file's bytes, or why it is skipped (too big, gone, unreadable)."""
    if size > cap:
        return (
            f"{size:,} bytes is above max_file_bytes={cap:,}; "
            "raise it in .k0maru/config.toml or exclude the file"
        )
    try:  # a file that became a FIFO since the walk is refused, not waited on
        return read_bytes(abspath)
    except FileNotFoundError:
        return "it vanished during the scan (deleted or renamed meanwhile)"
    except OSError as exc:
        return f"unreadable ({exc.strerror}); check its permissions"


def note_text(data: bytes) -> tuple[str | None, str | None]:
    """The file as UTF-8 text without a byte-order mark, or why it is skipped (UTF-16 or UTF-32,
    binary, not UTF-8)."""
    if wide_text(data[:_BINARY_PROBE]):
        return None, "UTF-16/UTF-32 text; re-save it as UTF-8"
    if b"\x00" in data[:_BINARY_PROBE]:
        return None, "binary content (NUL bytes); exclude it or remove it from the vault"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not valid UTF-8 (byte {exc.start}); re-save it as UTF-8"
    return text.removeprefix("\ufeff"), None


def wide_text(head: bytes) -> bool:
    """Whether a file's first bytes look like UTF-16 or UTF-32 text (a byte-order mark, or ASCII
    with every other byte NUL), which wants re-saving as UTF-8, not removing as binary."""
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or head[:4] == b"\x00\x00\xfe\xff":
        return True
    half = len(head) // 2
    return half >= 8 and max(head[0::2].count(0), head[1::2].count(0)) >= 0.9 * half


def parse_text(rel: str, text: str) -> ParsedNote | None:
    """The note parsed, its title without control characters (titles reach terminals). One note
    never stops a scan: if the parser fails on its frontmatter all the same, it is parsed without it
    (one warning), and None when even that fails."""
    try:
        note = parse_note(rel, text)
    except Exception as exc:  # one note never stops the scan
        try:
            body = split_frontmatter(text)[1]
            note = parse_note(rel, body)
        except Exception:
            return None
        note.body_line = text.count("\n", 0, len(text) - len(body)) + 1
        note.warnings.append(f"{rel}: frontmatter unusable ({exc}); indexed without frontmatter")
    note.title = printable(note.title).strip() or "untitled"
    return note
