"""The failures in a trace pasted as text, and in a kept log: what the distiller (notes/distill.py)
reads, handed to it by the service (notes never import offload)."""

from __future__ import annotations

import re
from pathlib import Path

from k0maru.offload import reflog, slices
from k0maru.offload.analyzer import LogAnalyzer
from k0maru.offload.findings import Findings

_FRAME_LINE = re.compile(r'^\s*File "[^"]+", line \d+')
_EXCEPTION_LINE = re.compile(
    r"^[A-Za-z_][\w.]*(?:Error|Exception|Warning|Interrupt|Exit|Iteration)(?::|$)"
)
TRACEBACK = "Traceback (most recent call last):"
BEFORE, AFTER = 3, 60  # the lines of a log read around its first failure


def analyze_text(text: str) -> Findings:
    analyzer = LogAnalyzer()
    analyzer.feed(text)
    return analyzer.close()


def analyze_trace(text: str) -> Findings:
    """The failures in pasted text; a Python trace pasted without its `Traceback` line is read with
    that line given back before its first frame (or its exception line), the line numbers left the
    text's."""
    findings = analyze_text(text)
    if findings.failures:
        return findings
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if _FRAME_LINE.match(line)), None)
    if at is None:
        at = next((i for i, line in enumerate(lines) if _EXCEPTION_LINE.match(line)), None)
    if at is None:
        return findings
    headed = analyze_text("\n".join([*lines[:at], TRACEBACK, *lines[at:]]) + "\n")
    for failure in headed.failures:
        if failure.line > at + 1:  # the added line counted no more
            failure.line -= 1
    return headed


def log_failures(path: Path) -> tuple[Findings, list[str]]:
    """The failures in the kept log at `path` (streamed, never loaded whole) and its lines around
    the first one: the lines before them blank, so a failure's line number is its index + 1."""
    analyzer = LogAnalyzer()
    for piece in reflog.text(path):
        analyzer.feed(piece)
    findings = analyzer.close()
    first = min((f.line for f in findings.all_failures), default=1)
    lines = [""] * max(first - BEFORE - 1, 0) + [
        t for _, t in slices.line_range(path, max(first - BEFORE, 1), first + AFTER)
    ]
    return findings, lines
