"""Input limits, stated once (the README lists them) and enforced by the service for every front
end. Errors never echo more than `ECHO_CHARS` of what was given."""

from __future__ import annotations

from k0maru.errors import K0maruError
from k0maru.text import shorten

MAX_QUERY_CHARS = 2_000
MAX_NODE_ID_CHARS = 80
MAX_TITLE_CHARS = 200
MAX_TAG_CHARS = 64
MAX_TAGS = 32
MAX_RELATED = 32
MAX_PATTERN_CHARS = 500
ECHO_CHARS = 200
LOADOUT_BUDGET = (
    4000  # the loadout's default: notes.loadout.DEFAULT_BUDGET (docs/loadout.md says why)
)


def echo(text: str, limit: int = ECHO_CHARS) -> str:
    """`text` quoted for an error message, cut to `limit` characters."""
    return repr(shorten(text, limit))


def check_length(what: str, text: str, limit: int) -> str:
    if len(text) > limit:
        raise K0maruError(f"{what} is {len(text):,} characters; the limit is {limit:,}")
    return text


def one_line(what: str, text: str, limit: int) -> str:
    """A single-line field (title, tag): no line breaks or control characters, at most `limit`
    long."""
    check_length(what, text, limit)
    if any(ord(c) < 32 for c in text):
        raise K0maruError(f"{what} {echo(text)} must be one line without control characters")
    return text


def check_note_input(
    title: str, tags: list[str], related: list[str], body: str, max_bytes: int
) -> None:
    """What a flushed note may carry; a body the scanner would skip is refused before anything is
    written."""
    one_line("title", title, MAX_TITLE_CHARS)
    if len(tags) > MAX_TAGS:
        raise K0maruError(f"{len(tags)} tags; the limit is {MAX_TAGS}")
    for tag in tags:
        one_line("tag", tag, MAX_TAG_CHARS)
    if len(related) > MAX_RELATED:
        raise K0maruError(f"{len(related)} related notes; the limit is {MAX_RELATED}")
    for name in related:
        one_line("related note", name, MAX_TITLE_CHARS)
    size = note_bytes(title, tags, related, body)
    if size > max_bytes:
        raise K0maruError(
            f"the note would be up to {size:,} bytes (its body and the title, tags, links and "
            f"frontmatter flush adds); the index takes notes up to max_file_bytes={max_bytes:,}: "
            "nothing was written (raise it in .k0maru/config.toml or split the note)"
        )


NOTE_FORM_BYTES = (
    1024  # what a note's form adds beside its fields: frontmatter keys, date, headings
)


def note_bytes(title: str, tags: list[str], related: list[str], body: str) -> int:
    """What a flushed note can take on disk: its body, its title twice (frontmatter and heading),
    its tags, each related note twice (link and shown text) and k0maru's form around them (a
    vault's learnt template adds its own fixed text: a bound, not an exact size)."""
    fields = [body, title, title, *tags, *related, *related]
    return sum(len(text.encode("utf-8")) for text in fields) + NOTE_FORM_BYTES
