"""TypeScript failures in build and test logs."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Extractor, register, short
from k0maru.offload.findings import Failure


@register
class TypeScriptExtractor(Extractor):
    stack = "typescript"
    triggers = ("error TS",)
    # the file may be a source or tsconfig.json
    CLASSIC = re.compile(
        r"^(\S.*?\.(?:ts|tsx|mts|cts|js|jsx|json))\((\d+),(\d+)\): error (TS\d+): (.*)"
    )
    PRETTY = re.compile(
        r"^(\S.*?\.(?:ts|tsx|mts|cts|js|jsx|json)):(\d+):(\d+) - error (TS\d+): (.*)"
    )

    def feed(self, line: str, lineno: int) -> None:
        if " error TS" not in line and "- error TS" not in line:
            return
        m = self.CLASSIC.match(line) or self.PRETTY.match(line)
        if m:
            self.f.add(
                Failure(
                    self.stack,
                    m.group(4),
                    short(m.group(5)),
                    lineno,
                    f"{m.group(1)}:{m.group(2)}:{m.group(3)}",
                )
            )
