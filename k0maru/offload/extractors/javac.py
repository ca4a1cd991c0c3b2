"""javac compile errors: `File.java:LINE: error: kind[: detail]` (javac prints no codes: the kind is one)."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Extractor, register, short
from k0maru.offload.findings import Failure


@register
class JavacExtractor(Extractor):
    stack = "java"
    triggers = (".java:",)
    ERROR = re.compile(r"^(\S+\.java):(\d+): error: (.*)$")

    def feed(self, line: str, lineno: int) -> None:
        if ".java:" not in line or ": error: " not in line:
            return
        m = self.ERROR.match(line)
        if m:
            kind = m.group(3).split(":", 1)[0].strip()
            self.f.add(Failure(self.stack, kind, short(m.group(3)), lineno, f"{m.group(1)}:{m.group(2)}"))
