"""JavaScript errors with V8 stacks (node, the node test runner, jest, vitest): `TypeError: ...` or
`AssertionError [ERR_ASSERTION]: ...` followed within a few lines by `at fn (file:line:col)` frames;
the location is the first frame in the user's code (not `node:internal` or node_modules). A line
that looks like an error but has no frames after it is not one (Python prints the same shape). npm
prints a failing install script's output under its own `npm error ` (`npm ERR! `) prefix: read
through it."""

from __future__ import annotations

import re

from k0maru.offload.extractors.base import Cursor, Extractor, register, short, user_path
from k0maru.offload.findings import Failure, Findings


@register
class JavaScriptExtractor(Extractor):
    stack = "javascript"
    triggers = ("Error", "Exception")
    ERROR = re.compile(
        r"^(?:npm (?:ERR!|error) )?\s*(?:Uncaught )?([A-Z]\w*(?:Error|Exception))"
        r"(?: \[([A-Z][A-Z0-9_]+)\])?: (.*)"
    )
    FRAME = re.compile(
        r"^(?:npm (?:ERR!|error) )?\s+at (?:.*? \()?(?:file://)?([^()\s]+?):(\d+):(\d+)\)?\s*$"
    )

    def __init__(self, findings: Findings, cursor: Cursor | None = None):
        super().__init__(findings, cursor)
        self.awaiting: Failure | None = None  # an error line, added once a frame follows
        self.current: Failure | None = None

    def feed(self, line: str, lineno: int) -> None:
        if self.busy:
            frame = self.FRAME.match(line)
            if frame:
                if self.awaiting is not None:
                    self.current, self.awaiting = self.f.add(self.awaiting), None
                if (
                    self.current is not None
                    and self.current.location is None
                    and user_path(frame.group(1))
                ):
                    self.current.location = f"{frame.group(1)}:{frame.group(2)}:{frame.group(3)}"
                return
            if self.current is not None:  # the stack ended
                self.current, self.busy = None, False
            elif self.awaiting is not None:
                self.window -= 1
                if self.window <= 0:
                    self.awaiting, self.busy = None, False
                    return
                if not self.ERROR.match(line):
                    return
        m = self.ERROR.match(line) if ("Error" in line or "Exception" in line) else None
        if m:
            message = f"[{m.group(2)}] {m.group(3)}" if m.group(2) else m.group(3)
            self.awaiting = Failure(self.stack, m.group(1), short(message), lineno)
            self.window, self.busy = 12, True
