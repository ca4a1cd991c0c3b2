"""mypy diagnostics: `path.py:LINE[:COL]: error: message  [code]`."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Extractor, register, short
from k0maru.offload.findings import Failure


@register
class MypyExtractor(Extractor):
    stack = "mypy"
    triggers = (": error:",)
    ERROR = re.compile(r"^(\S+\.pyi?):(\d+)(?::(\d+))?: error: (.*?)(?:\s+\[([a-z][\w-]*)\])?\s*$")

    def feed(self, line: str, lineno: int) -> None:
        if ": error: " not in line or ".py" not in line:
            return
        m = self.ERROR.match(line)
        if m:
            where = f"{m.group(1)}:{m.group(2)}" + (f":{m.group(3)}" if m.group(3) else "")
            self.f.add(Failure(self.stack, m.group(5) or "error", short(m.group(4)), lineno, where))
