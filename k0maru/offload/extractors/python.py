"""Python failures in build and test logs."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Extractor, register, short
from k0maru.offload.findings import Failure, Findings


@register
class PythonExtractor(Extractor):
    stack = "python"
    triggers = ("Traceback",)
    FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+)(?:, in (.*))?')
    EXC = re.compile(r"^([A-Za-z_][\w.]*)(?::\s?(.*))?$")

    def __init__(self, findings: Findings):
        super().__init__(findings)
        self.frames: list[str] = []
        self.start = 0

    def feed(self, line: str, lineno: int) -> None:
        if not self.busy:
            if line.startswith("Traceback (most recent call last)"):
                self.busy = True
                self.frames = []
                self.start = lineno
            return
        m = self.FRAME.match(line)
        if m:
            self.frames.append(f"{m.group(1)}:{m.group(2)}")
            return
        if not line.strip() or line[:1] in " \t":
            return
        m = self.EXC.match(line.rstrip())
        self.busy = False
        if m and not line.startswith("During handling") and not line.startswith("The above exception"):
            code = m.group(1).rsplit(".", 1)[-1]
            message = m.group(2) or line
            self.f.add(Failure(self.stack, code, short(message), self.start, self.frames[-1] if self.frames else None))
