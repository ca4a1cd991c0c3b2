"""CMake's own errors (configure and generate steps): `CMake Error at CMakeLists.txt:3
(find_package):`."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Extractor, register, short
from k0maru.offload.findings import Failure


@register
class CMakeExtractor(Extractor):
    stack = "cmake"
    triggers = ("CMake Error",)
    ERROR = re.compile(r"^CMake Error(?: at ([^:\s]+):(\d+) \(([^)]*)\))?:\s*(.*)")

    def feed(self, line: str, lineno: int) -> None:
        if self.pending is not None:  # the message is the indented paragraph that follows
            if line.strip():
                self.pending.message = short(line.strip())
                self.pending, self.busy = None, False
            else:
                self.tick()
            return
        m = self.ERROR.match(line)
        if m:
            where = f"{m.group(1)}:{m.group(2)}" if m.group(1) else None
            failure = self.f.add(
                Failure(self.stack, "error", short(m.group(4) or f"in {m.group(3)}"), lineno, where)
            )
            if not m.group(4):
                self.pending, self.window, self.busy = failure, 3, True
