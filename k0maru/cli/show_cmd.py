"""`k0maru show NOTE`: a note of the vault, whole or a line range, as the MCP tool `read_note` reads
it (the same service call)."""

from __future__ import annotations

import re

from k0maru.cli.output import Adder, emit, service
from k0maru.errors import K0maruError, NotFoundError

TYPE_CHECKING = False  # as typing's (mypy reads it so), without importing typing at start-up
if TYPE_CHECKING:
    from k0maru.service.models import NoteText

FINDING = "`k0maru search WORDS` gives the paths of the notes that have them"


def show(vault: str | None, as_json: bool, note: str, lines: str | None) -> int:
    from k0maru.service.models import NoteExcerpt

    if lines is not None:
        line_range(lines, None)  # a bad range is refused before the vault is opened
    with service(vault, as_json, rescan=False) as svc:
        try:
            found: NoteText = svc.read_note(note, named=True)
        except NotFoundError as exc:
            hit = re.fullmatch(r"(.+):(\d+)", note)  # a hit's `path:12`: --lines 12:
            if hit and lines is None:
                note, lines = hit.group(1), f"{hit.group(2)}:"
            if not hit:  # read_note took it as a path, a link's name and a title
                raise NotFoundError(
                    exc.message, what=exc.what, finding=FINDING, similar=exc.similar
                ) from None
            found = svc.read_note(note)
    all_lines = found.text.splitlines()
    start, end = line_range(lines, len(all_lines)) if lines else (0, len(all_lines))
    part = NoteExcerpt(
        path=found.path,
        lines=f"{start + 1}-{end}" if end > start + 1 else str(start + 1),
        total_lines=len(all_lines),
        text="\n".join(all_lines[start:end]),
    )
    emit(as_json, part.payload(), lambda: print(part.text))
    return 0


def line_range(text: str, total: int | None) -> tuple[int, int]:
    """'A:B', 'A:' or 'A' (1-based, inclusive) as a 0-based [start, end) of a note of `total`
    lines; with `total` None, only the form is checked."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:[:-]\s*(\d*)\s*)?", text)
    if not m:
        raise K0maruError(f"--lines {text[:40]!r} is not a range; use A:B, e.g. 12:30")
    start = end = int(m.group(1))
    if m.group(2):
        end = int(m.group(2))
    elif m.group(2) == "" and total is not None:  # 'A:': to the end
        end = total
    if total is not None and start > total:
        raise K0maruError(f"--lines {text[:40]!r}: the note has {total} line(s)")
    if start < 1 or end < start:
        raise K0maruError(f"--lines {text[:40]!r}: use 1 <= A <= B")
    return start - 1, end if total is None else min(end, total)


def register(add: Adder) -> None:
    p = add(
        "show",
        lambda a: show(vault=a.vault, as_json=a.as_json, note=a.note, lines=a.lines),
        "print a note of the vault (its path as hits show it, or its title), or a line range",
    )
    p.add_argument(
        "note",
        metavar="NOTE",
        help="vault path as hits give it (docs/adr/0002.md; with :12, from line 12 on) or title",
    )
    p.add_argument(
        "--lines",
        metavar="A:B",
        help="1-based inclusive line range ('A:' to the end); a hit's path:12 is --lines 12:",
    )
