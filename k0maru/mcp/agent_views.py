"""What the agent-only tools add over the service: ages of logs, and a note cut to a line range, a
heading's section and a token budget."""

from __future__ import annotations

import re
import time

from k0maru.errors import K0maruError
from k0maru.limits import echo
from k0maru.service.models import NoteExcerpt
from k0maru.text import shorten

UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
HEADING = re.compile(r"^(#{1,6})\s+(.*)$")  # closing #s cut in Python: a lazy regex was quadratic
HEADER_TOKENS = 30  # the excerpt's first line (path, range, heading) and its JSON keys


def age_seconds(text: str) -> float:
    """'30m', '2h', '3d', '1w' as seconds."""
    m = re.fullmatch(r"\s*(\d+)\s*([mhdw])\s*", text.lower())
    if not m:
        raise K0maruError(f"since {echo(text)} is not an age; use e.g. 30m, 2h, 3d or 1w")
    return int(m.group(1)) * UNITS[m.group(2)]


def age(created_at: float, now: float | None = None) -> str:
    seconds = max(0.0, (now or time.time()) - created_at)
    for unit, size in (("w", UNITS["w"]), ("d", UNITS["d"]), ("h", UNITS["h"]), ("m", UNITS["m"])):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower()).strip("-")


def section_range(lines: list[str], heading: str) -> tuple[int, int, str]:
    """0-based [start, end) of the section under `heading` (its text or slug, case-insensitive), and
    the heading as written. Headings inside fenced code blocks do not count."""
    want = _slug(heading.lstrip("#").strip())
    fenced = False
    found: tuple[int, int, str] | None = None
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if not m:
            continue
        level = len(m.group(1))
        if found is not None and level <= found[1]:
            return found[0], i, found[2]
        text = m.group(2).rstrip().rstrip("#").rstrip()
        if found is None and _slug(text) == want:
            found = (i, level, text)
    if found is None:
        raise K0maruError(f"no heading {echo(heading)} in this note; read it without `heading`")
    return found[0], len(lines), found[2]


def line_range(text: str, total: int) -> tuple[int, int]:
    """'A:B', 'A:' or 'A' (1-based, inclusive) as a 0-based [start, end)."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:[:-]\s*(\d*)\s*)?", text)
    if not m:
        raise K0maruError(f"lines {echo(text)} is not a range; use A:B, e.g. 12:30")
    start = int(m.group(1))
    end = int(m.group(2)) if m.group(2) else (total if m.group(2) == "" else start)
    if start < 1 or end < start:
        raise K0maruError(f"lines {echo(text)}: use 1 <= A <= B")
    if start > total:
        raise K0maruError(f"lines {echo(text)}: the note has {total} line(s)")
    return start - 1, min(end, total)


def note_excerpt(
    path: str, text: str, lines: str | None, heading: str | None, token_budget: int
) -> NoteExcerpt:
    """The part of a note asked for, whole lines cut from its end until it fits `token_budget`."""
    from k0maru.llm_tokens import count_tokens

    all_lines = text.splitlines()
    start, end, found = 0, len(all_lines), None
    if heading:
        start, end, found = section_range(all_lines, heading)
    if lines:
        a, b = line_range(lines, len(all_lines))
        start, end = (max(start, a), min(end, b)) if heading else (a, b)
        if start >= end:
            raise K0maruError(f"lines {echo(lines)} fall outside the section {echo(heading or '')}")
    budget = token_budget - HEADER_TOKENS
    keep, truncated = end, False
    if count_tokens("\n".join(all_lines[start:end])) > budget:  # the largest prefix that fits
        truncated, low, high = True, start, end
        while low < high:
            mid = (low + high + 1) // 2
            if count_tokens("\n".join(all_lines[start:mid])) <= budget:
                low = mid
            else:
                high = mid - 1
        keep = max(low, start + 1)
    body = "\n".join(all_lines[start:keep])
    if truncated and keep == start + 1 and count_tokens(body) > budget:  # one huge line
        body = shorten(body, budget * 3)
    return NoteExcerpt(
        path=path,
        lines=f"{start + 1}-{keep}" if keep > start + 1 else str(start + 1),
        total_lines=len(all_lines),
        text=body,
        heading=found,
        truncated=truncated,
    )
