"""javac compile errors: `File.java:LINE: error: kind[: detail]` (javac prints no codes: the kind is
one); a detail-less kind (`cannot find symbol`) takes its `symbol:` line, printed a few lines
below."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Cursor, Extractor, register, short
from k0maru.offload.findings import Failure, Findings


@register
class JavacExtractor(Extractor):
    stack = "java"
    triggers = (".java:",)
    ERROR = re.compile(r"^(\S+\.java):(\d+): error: (.*)$")

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.detail_for: Failure | None = None
        self.window = 0

    def feed(self, line: str, lineno: int) -> None:
        if self.detail_for is not None:
            self.window -= 1
            if line.strip().startswith("symbol:"):
                self.detail_for.message = short(" ".join(line.split(":", 1)[1].split()))
            if line.strip().startswith("symbol:") or self.window <= 0:
                self.detail_for, self.busy = None, False
            return
        if ".java:" not in line or ": error: " not in line:
            return
        m = self.ERROR.match(line)
        if m:
            kind, _, detail = m.group(3).partition(":")
            failure = self.f.add(
                Failure(
                    self.stack,
                    kind.strip(),
                    short(detail.strip()),
                    lineno,
                    f"{m.group(1)}:{m.group(2)}",
                )
            )
            if not detail.strip():
                self.detail_for, self.window, self.busy = failure, 5, True
