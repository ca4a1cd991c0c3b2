"""Bounded views of an offloaded log: a line range, or pattern matches with context. Streams the
file through `reflog` (a range decompresses only its blocks): a multi-gigabyte log is never loaded
whole. Patterns come from agents and users, so they run under a time budget (the `regex` engine's
timeout): a catastrophic one like `(a+)+$` is an error, not a hung server."""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import regex

from k0maru.errors import K0maruError
from k0maru.limits import echo
from k0maru.offload import reflog
from k0maru.text import shorten

MAX_LINES = 400
MAX_LINE_CHARS = 2000
_LINE_BYTES = 4 * MAX_LINE_CHARS + 4  # enough UTF-8 to tell whether a line needs clipping
GREP_BUDGET_S = 2.0  # matching time allowed for one grep over the whole log


def _clip(raw: bytes) -> str:
    line = raw.decode("utf-8", "replace").rstrip("\r")
    return shorten(line, MAX_LINE_CHARS)


def _lines(path: Path, start: int = 1) -> Iterator[tuple[int, str]]:
    for n, raw in reflog.lines(path, start, _LINE_BYTES):
        yield n, _clip(raw)


def parse_range(spec: str) -> tuple[int, int]:
    m = re.fullmatch(r"\s*(\d+)\s*(?::\s*(\d+)\s*)?", spec or "")
    if not m:
        raise K0maruError(
            f"bad line range {echo(spec)}; use A:B with 1-based line numbers, e.g. 120:180"
        )
    start = int(m.group(1))
    end = int(m.group(2)) if m.group(2) else start
    if start < 1 or end < start:
        raise K0maruError(f"bad line range {echo(spec)}; need 1 <= A <= B")
    return start, end


def line_range(
    path: Path, start: int, end: int, max_lines: int = MAX_LINES
) -> list[tuple[int, str]]:
    end = min(end, start + max_lines - 1)
    out: list[tuple[int, str]] = []
    for n, line in _lines(path, start):
        if n > end:
            break
        out.append((n, line))
    return out


def compile_pattern(pattern: str, fixed: bool = False) -> regex.Pattern[str]:
    """`pattern` compiled for `grep` (`fixed`: as plain text); K0maruError when it is empty or
    bad."""
    if not pattern:
        raise K0maruError("empty pattern; pass a regular expression or plain text to look for")
    try:
        return regex.compile(regex.escape(pattern) if fixed else pattern)
    except regex.error as exc:
        raise K0maruError(f"bad pattern {pattern!r}: {exc}") from None


def grep(
    path: Path,
    pattern: str,
    context: int = 3,
    max_matches: int = 20,
    max_lines: int = MAX_LINES,
    fixed: bool = False,
    skip: int = 0,
    within: tuple[int, int] | None = None,
) -> tuple[list[tuple[int, str, bool]], int]:
    """(lines as (number, text, is_match), total matches). Groups of context are merged. `fixed`:
    the pattern is plain text, not a regular expression. `skip`: the first matches to pass over (a
    page offset); they still count in the total. `within`: only lines first..last (1-based) are
    searched and shown."""
    rx = compile_pattern(pattern, fixed)
    deadline = time.monotonic() + GREP_BUDGET_S
    context = max(0, min(context, 50))
    before: deque[tuple[int, str]] = deque(maxlen=context)
    out: list[tuple[int, str, bool]] = []
    seen_upto = 0
    after = 0
    matches = 0
    first, last = within or (1, None)
    for n, line in _lines(path, first):
        if last is not None and n > last:
            break
        try:
            found = rx.search(line, timeout=max(deadline - time.monotonic(), 0.001))
        except TimeoutError:
            raise K0maruError(
                f"pattern {pattern!r} took over {GREP_BUDGET_S:g} s (stopped at line {n} of "
                f"{path.name}); nested repetition such as (a+)+ backtracks: simplify it "
                "or search plain text"
            ) from None
        if found:
            matches += 1
            if skip < matches <= skip + max_matches and len(out) < max_lines:
                for bn, bl in before:  # a skipped match above is context here
                    if bn > seen_upto:
                        out.append((bn, bl, False))
                out.append((n, line, True))
                seen_upto = n
                after = context
                before.clear()
                continue
        elif after > 0 and len(out) < max_lines:
            out.append((n, line, False))
            seen_upto = n
            after -= 1
            continue
        before.append((n, line))
    return out, matches
