"""Unified diffs in a log (a formatter's `--check --diff`: black, yapf, isort, shfmt): each file's
first changed line, `path:line` in the file as it is now (the `@@ -a,b` side). They are no failure
of their own (whether the run failed is its exit status's and its verdict's to say); the summary
names them when nothing else was recognised, so a diff longer than its room still says where the
changes start."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Cursor, Extractor, register, short
from k0maru.offload.findings import Findings
from k0maru.offload.locations import text

# `+++ b/src/a.py`, `+++ src/a.py\t2026-12-04 ...`, isort's `+++ /w/a.py:after  2026-...`
NEW_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+?)(?::after)?(?:\s.*)?$")
HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")
CONTEXT = 12  # rows read after a hunk's header for its first change


@register
class DiffExtractor(Extractor):
    stack = "generic"
    triggers = ("+++ ", "@@ -")

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.path: str | None = None  # the file of the hunks that follow, when it is the user's
        self.header = (0, "")  # the `+++` line naming it: its number and text
        self.line = 0  # the file's line of the hunk's next row

    def feed(self, line: str, lineno: int) -> None:
        if self.busy:
            self._row(line)
        elif m := NEW_FILE.match(line):
            path = m.group(1)
            self.path = path if self.cursor.places.is_user(path) else None
            self.header = (lineno, short(line))
        elif self.path is not None and (m := HUNK.match(line)):
            self.line, self.window, self.busy = int(m.group(1)), CONTEXT, True

    def _row(self, line: str) -> None:
        """A row of the hunk: a context row moves on a line; the first change is the file's
        place (one a file: its later hunks are not read)."""
        if line.startswith(("-", "+")):
            self.f.changed(text(self.path or "", str(self.line), None), self.header)
            self.path, self.busy = None, False
        elif line.startswith(" ") or not line:
            self.line += 1
            self.tick()
        else:  # not a diff's row after all
            self.busy = False
