"""Java failures in build and test logs."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import CODE_IN_TEXT, Extractor, register, short
from k0maru.offload.findings import Failure, Findings


@register
class JavaExtractor(Extractor):
    stack = "java"
    triggers = ("Exception", "FAIL", "ERROR")
    THREAD = re.compile(r'^Exception in thread "[^"]*" ([\w.$]+)(?::\s*(.*))?')
    BARE = re.compile(r"^((?:[a-z_][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Failure|Throwable))(?::\s*(.*))?$")
    CAUSED = re.compile(r"^Caused by: ([\w.$]+)(?::\s*(.*))?")
    FRAME = re.compile(r"^\s+at [\w$.<>/]+\(([\w$]+\.(?:java|kt|scala|groovy)):(\d+)\)")
    SUREFIRE = re.compile(r"^\[ERROR\]\s+(\w+)\.(\w+):(\d+) (.*)")

    def __init__(self, findings: Findings):
        super().__init__(findings)
        self.awaiting: tuple[str, str, int] | None = None  # an exception line awaiting its first frame
        self.current: Failure | None = None

    def feed(self, line: str, lineno: int) -> None:
        frame = self.FRAME.match(line) if line[:1] in " \t" else None
        if frame:
            if self.awaiting is not None:
                code, msg, start = self.awaiting
                self.awaiting = None
                self.current = self.f.add(Failure(self.stack, code, msg, start))
            if self.current is not None and self.current.location is None:
                self.current.location = f"{frame.group(1)}:{frame.group(2)}"
            return
        self.awaiting = None
        self.busy = False
        m = self.THREAD.match(line) or self.CAUSED.match(line) or self.BARE.match(line.rstrip())
        if m:
            code = m.group(1).rsplit(".", 1)[-1]
            self.awaiting = (code, short(line), lineno)
            self.busy = True
            return
        if line.startswith("[ERROR]"):
            m = self.SUREFIRE.match(line)
            if m:
                found = CODE_IN_TEXT.search(m.group(4))
                self.f.add(Failure(self.stack, found.group(1) if found else "TestFailure", short(m.group(4)), lineno,
                                   f"{m.group(1)}.java:{m.group(3)}", f"{m.group(1)}.{m.group(2)}"))
